"""Hypothesis strategies for the conformance harness: tensors of every layout and dtype.

A :class:`TensorSpec` is plain data (shape, stride, offset, dtype, storage values) that
builds the same tensor on torch and on reftensor. The ``tensors`` strategy generates the
hard layouts on purpose:

* ``contiguous``: a fresh tensor (no ``_base``);
* ``permuted``: dense, with the dims in another order;
* ``stepped``: sliced with steps (gaps in storage);
* ``offset``: contiguous but starting at a storage offset;
* ``expanded``: some strides 0 (one element seen many times);
* ``overlapping``: strides smaller than dense, so several indices share a location;

with 0-d shapes, size-0 and size-1 dims among the shapes. Every layout but ``contiguous`` is
built with ``as_strided`` over a larger base tensor, so the result is a view.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st

from reftensor import layout

__all__ = ["KINDS", "WRITABLE_KINDS", "TensorSpec", "FLOAT_NAMES", "INT_NAMES", "tensors",
           "shapes", "small_shapes", "examples", "FULL_DEPTH"]

KINDS = ("contiguous", "permuted", "stepped", "offset", "expanded", "overlapping")
#: layouts where every index has its own memory location (safe targets of in-place writes)
WRITABLE_KINDS = ("contiguous", "permuted", "stepped", "offset")
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
INT_NAMES = ("uint8", "int8", "int16", "int32", "int64")
ALL_NAMES = ("bool", *INT_NAMES, *FLOAT_NAMES)

#: examples per test at full depth: the ``full`` profile's ``max_examples`` (tests/conftest.py)
FULL_DEPTH = 60


def examples(n: int) -> int:
    """``@settings(max_examples=examples(n))``: ``n`` examples at full depth, scaled like the
    loaded Hypothesis profile (a third of ``n`` under ``default`` and ``ci``, ``n`` under
    ``full``, 25 times ``n`` under ``thorough``), so that every profile reaches these tests
    too. tests/conftest.py loads the profile before any test module is imported."""
    return max(1, round(n * settings.default.max_examples / FULL_DEPTH))


small_sizes = st.sampled_from([0, 1, 1, 2, 2, 3, 4])
shapes = st.lists(small_sizes, min_size=0, max_size=4).map(tuple)
small_shapes = st.lists(st.sampled_from([1, 1, 2, 3]), min_size=0, max_size=3).map(tuple)


@dataclass(frozen=True)
class TensorSpec:
    """The recipe of one input tensor, buildable on either library."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    dtype: str
    storage: tuple[Any, ...]
    kind: str
    device: str = "cpu"

    def make(self, lib: Any) -> Any:
        dt = getattr(lib, self.dtype)
        if self.kind == "contiguous":  # a fresh tensor that is nobody's view
            if math.prod(self.shape) == 0:
                return lib.zeros(self.shape, dtype=dt, device=self.device)
            return lib.tensor(_nested(list(self.storage), self.shape), dtype=dt,
                              device=self.device)
        base = lib.tensor(list(self.storage), dtype=dt, device=self.device)
        return base.as_strided(self.shape, self.stride, self.offset)

    def on(self, device: str) -> TensorSpec:
        """The same recipe, built on ``device`` (``"meta"``: the layout without data)."""
        return dataclasses.replace(self, device=device)

    def __repr__(self) -> str:
        where = "" if self.device == "cpu" else f" device={self.device}"
        return (f"<{self.kind} {self.dtype} shape={self.shape} stride={self.stride} "
                f"offset={self.offset}{where}>")


def _nested(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    step = len(flat) // shape[0]
    return [_nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _values(dtype: str) -> st.SearchStrategy[Any]:
    if dtype == "bool":
        return st.booleans()
    if dtype == "uint8":
        return st.integers(0, 255)
    if dtype in INT_NAMES:
        return st.integers(-100, 100)
    # Values every float dtype holds exactly: small integers, halves and quarters.
    return st.one_of(st.integers(-8, 8), st.integers(-32, 32).map(lambda k: k / 4))


def _layout(draw: st.DrawFn, shape: tuple[int, ...], kind: str
            ) -> tuple[tuple[int, ...], int]:
    dense = list(layout.contiguous_strides(shape))
    if kind == "permuted" and len(shape) > 1:
        order = draw(st.permutations(range(len(shape))))
        base = layout.contiguous_strides([shape[d] for d in order])
        stride = [0] * len(shape)
        for pos, d in enumerate(order):
            stride[d] = base[pos]
        return tuple(stride), 0
    if kind == "stepped":
        steps = [draw(st.integers(1, 3)) for _ in shape]
        if math.prod(steps) * math.prod(shape) > 400:  # keep the storage small to draw
            steps = [1] * (len(shape) - 1) + steps[-1:]
        stride, running = [0] * len(shape), 1
        for d in reversed(range(len(shape))):
            stride[d] = running * steps[d]
            running = stride[d] * max(shape[d], 1)
        return tuple(stride), draw(st.sampled_from([0, 1, 2]))
    if kind == "offset":
        return tuple(dense), draw(st.integers(1, 5))
    if kind == "expanded" and shape:
        zeroed = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
        if not any(zeroed):
            zeroed[0] = True
        return tuple(0 if z else s for z, s in zip(zeroed, dense, strict=True)), 0
    if kind == "overlapping" and shape:
        return tuple(draw(st.integers(0, 2)) for _ in shape), draw(st.integers(0, 2))
    return tuple(dense), 0


@st.composite
def tensors(
    draw: st.DrawFn,
    dtypes: tuple[str, ...] | st.SearchStrategy[str] = ALL_NAMES,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] = shapes,
    kinds: tuple[str, ...] = KINDS,
) -> TensorSpec:
    """A :class:`TensorSpec`; ``shape`` may be fixed (to make operands agree) or drawn."""
    dtype = draw(dtypes if isinstance(dtypes, st.SearchStrategy) else st.sampled_from(dtypes))
    the_shape = tuple(draw(shape) if isinstance(shape, st.SearchStrategy) else shape)
    kind = draw(st.sampled_from(kinds))
    stride, offset = _layout(draw, the_shape, kind)
    needed = layout.required_storage_elements(the_shape, stride, offset)
    if kind == "contiguous":
        needed = max(math.prod(the_shape), 1)
    values = draw(st.lists(_values(dtype), min_size=needed, max_size=needed))
    return TensorSpec(the_shape, stride, offset, dtype, tuple(values), kind)
