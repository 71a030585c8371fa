"""Hypothesis strategies for the hard layouts: 0-d, empty dims, size-1 dims, permuted,
stepped, offset, stride-0 and overlapping."""

from __future__ import annotations

from hypothesis import strategies as st

import reftensor.layout as L

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]

sizes = st.sampled_from([0, 1, 1, 2, 3, 4, 5])
shapes = st.lists(sizes, min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def strided_layouts(draw: st.DrawFn, shape_strategy: st.SearchStrategy = shapes):
    """(shape, stride, offset): contiguous, permuted, stepped, stride-0 and overlapping."""
    shape = draw(shape_strategy)
    kind = draw(st.sampled_from(["contiguous", "permuted", "stepped", "any"]))
    stride = list(L.contiguous_strides(shape))
    if kind == "permuted" and shape:
        order = draw(st.permutations(range(len(shape))))
        permuted_shape = [shape[d] for d in order]
        base = L.contiguous_strides(permuted_shape)
        stride = [0] * len(shape)
        for pos, d in enumerate(order):
            stride[d] = base[pos]
    elif kind == "stepped":
        stride = [s * draw(st.integers(1, 3)) for s in stride]
    elif kind == "any":
        stride = [draw(st.integers(0, 12)) for _ in shape]
    offset = draw(st.sampled_from([0, 0, 1, 3, 7]))
    return tuple(shape), tuple(stride), offset
