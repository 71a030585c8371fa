"""Hypothesis strategies for the hard layouts, shared by exercise checks and the test suite.

They generate on purpose: 0-d shapes, size-0 and size-1 dims, permuted strides, stepped
(sliced) strides, stride 0, overlapping strides, and storage offsets.
"""

from __future__ import annotations

from hypothesis import strategies as st

from reftensor import layout

__all__ = ["DTYPE_NAMES", "sizes", "shapes", "strided_layouts"]

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]

sizes = st.sampled_from([0, 1, 1, 2, 3, 4, 5])
shapes = st.lists(sizes, min_size=0, max_size=4).map(tuple)


@st.composite
def strided_layouts(draw: st.DrawFn, shape_strategy: st.SearchStrategy = shapes):
    """(shape, stride, offset): contiguous, permuted, stepped, or any (stride 0, overlap)."""
    shape = draw(shape_strategy)
    kind = draw(st.sampled_from(["contiguous", "permuted", "stepped", "any"]))
    stride = list(layout.contiguous_strides(shape))
    if kind == "permuted" and shape:
        order = draw(st.permutations(range(len(shape))))
        base = layout.contiguous_strides([shape[d] for d in order])
        stride = [0] * len(shape)
        for pos, d in enumerate(order):
            stride[d] = base[pos]
    elif kind == "stepped":
        stride = [s * draw(st.integers(1, 3)) for s in stride]
    elif kind == "any":
        stride = [draw(st.integers(0, 12)) for _ in shape]
    offset = draw(st.sampled_from([0, 0, 1, 3, 7]))
    return tuple(shape), tuple(stride), offset
