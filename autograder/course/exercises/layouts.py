"""Hypothesis strategies for the hard layouts, shared by exercise checks and the test suite.

They generate on purpose: 0-d shapes, size-0 and size-1 dims, permuted strides, stepped
(sliced) strides, stride 0, overlapping strides, and storage offsets.

The exercise specs import nothing from reftensor: the library a sandbox holds is the student's
edition, whose graded pieces may be stubs or wrong. The two layout facts that cases are built
from are written out here instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hypothesis import strategies as st

__all__ = ["DTYPE_NAMES", "sizes", "shapes", "strided_layouts", "row_major", "storage_needed"]

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]

def row_major(shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of a new tensor of ``shape`` (size-0 dims count as 1), to build cases."""
    return tuple(math.prod(max(n, 1) for n in shape[k + 1:]) for k in range(len(shape)))


def storage_needed(shape: Sequence[int], stride: Sequence[int], offset: int = 0) -> int:
    """Elements a storage needs to hold this layout: 0 when it is empty, else one past the
    furthest element."""
    if 0 in shape:
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))


sizes = st.sampled_from([0, 1, 1, 2, 3, 4, 5])
shapes = st.lists(sizes, min_size=0, max_size=4).map(tuple)


@st.composite
def strided_layouts(draw: st.DrawFn, shape_strategy: st.SearchStrategy = shapes):
    """(shape, stride, offset): contiguous, permuted, stepped, or any (stride 0, overlap)."""
    shape = draw(shape_strategy)
    kind = draw(st.sampled_from(["contiguous", "permuted", "stepped", "any"]))
    stride = list(row_major(shape))
    if kind == "permuted" and shape:
        order = draw(st.permutations(range(len(shape))))
        base = row_major([shape[d] for d in order])
        stride = [0] * len(shape)
        for pos, d in enumerate(order):
            stride[d] = base[pos]
    elif kind == "stepped":
        stride = [s * draw(st.integers(1, 3)) for s in stride]
    elif kind == "any":
        stride = [draw(st.integers(0, 12)) for _ in shape]
    offset = draw(st.sampled_from([0, 0, 1, 3, 7]))
    return tuple(shape), tuple(stride), offset
