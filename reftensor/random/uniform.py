"""Uniform floats: ``Tensor.uniform_``, ``rand`` and ``rand_like``.

A float is made from the **low** bits of the engine's output (``uniform_real`` in torch):

* float32 (and float16/bfloat16, computed as float32): one 32-bit draw, its low 24 bits
  times ``2**-24``;
* float64: one 64-bit value ``(first << 32) | second``, its low 53 bits times ``2**-53``.

Both are exact, and lie in [0, 1). ``uniform_(a, b)`` then computes ``x * (b - a) + a`` in
the output's precision (a and b rounded to it first); torch's AVX2 build fuses that into one
FMA, its DEFAULT build rounds twice (``fma.py``). A result that rounds up to ``b`` becomes
``a``, so the range stays [a, b).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from .._ops import DispatchKey, aten
from ..device import CPU
from ..device import device as device_type
from ..dtype_info import finfo
from ..dtypes import dtype
from ..tensor import Tensor
from . import fill
from .fma import fma32, fma64, fused
from .generator import Generator

__all__ = ["uniform_", "uniform_floats", "u24", "u53"]

_TWO_M24 = np.float32(2.0**-24)
_TWO_M53 = 2.0**-53


def u24(words: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """float32 uniforms in [0, 1) from 32-bit draws: the low 24 bits times 2**-24.
    (Overwrites ``words``; writes into ``out`` when given.)"""
    np.bitwise_and(words, np.uint32(0xFFFFFF), out=words)
    return np.multiply(words, _TWO_M24, out=out, dtype=np.float32, casting="unsafe")


def u53(values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """float64 uniforms in [0, 1) from 64-bit values: the low 53 bits times 2**-53.
    (Overwrites ``values``; writes into ``out`` when given.)"""
    np.bitwise_and(values, np.uint64((1 << 53) - 1), out=values)
    return np.multiply(values, _TWO_M53, out=out, dtype=np.float64, casting="unsafe")


def uniforms(gen: Generator, n: int, d: dtype) -> np.ndarray:
    """``n`` uniforms in [0, 1) in the precision ``d`` is computed in."""
    return u53(gen._draw64(n)) if d == dtypes.float64 else u24(gen._draw32(n))


def uniform_floats(draws: Sequence[int], dtype: str) -> list[float]:
    """``torch.rand(n, dtype=torch.<dtype>).tolist()`` on the CPU, from a generator whose
    next raw 32-bit draws are ``draws``.

    Args:
        draws: ints in ``[0, 2**32)``, all that the ``n`` elements use: torch uses one per
            float32 or float16 element and two per float64 element, so ``n`` is
            ``len(draws)``, or half of it for float64.
        dtype: ``"float32"``, ``"float64"`` or ``"float16"``.

    Returns:
        A list of ``n`` Python floats in ``[0, 1)``.
    """
    # BEGIN PIECE uniform_floats
    # The low bits: float32 (d % 2**24) * 2**-24; float64 (((first << 32) | second) % 2**53)
    # * 2**-53; float16 the float32 value rounded to float16, where one that rounds up to
    # 1.0 becomes 0.0.
    if dtype == "float64":
        return [(((first << 32) | second) & (2**53 - 1)) * 2.0**-53
                for first, second in zip(draws[0::2], draws[1::2], strict=True)]
    values = [(d & 0xFFFFFF) * 2.0**-24 for d in draws]
    if dtype == "float16":
        rounded = [float(np.float16(v)) for v in values]
        return [0.0 if v == 1.0 else v for v in rounded]
    return values
    # END PIECE


#: below this many elements ``rand`` makes its floats with ``uniform_floats``; above, with
#: ``u24``/``u53`` over NumPy arrays (the same rule, vectorized)
FEW = 64


def _kernel(t: Tensor, low: float, high: float, gen: Generator) -> None:
    if ((low, high) == (0.0, 1.0) and t.numel() < FEW
            and t.dtype in (dtypes.float32, dtypes.float64, dtypes.float16)):
        per = 2 if t.dtype == dtypes.float64 else 1
        values = uniform_floats(gen._draw32(per * t.numel()).tolist(), t.dtype.name)
        fill.write(t, np.array(values, dtype=t.dtype.numpy))
        return
    if (low, high) == (0.0, 1.0) and t.dtype.itemsize >= 4 and t.is_contiguous():
        # ``rand``: straight into the tensor's memory (one pass after the draws)
        target = t._elements().reshape(-1)
        if t.dtype == dtypes.float64:
            u53(gen._draw64(t.numel()), out=target)
        else:
            u24(gen._draw32(t.numel()), out=target)
        return
    x = uniforms(gen, t.numel(), t.dtype)
    if (low, high) != (0.0, 1.0):
        if t.dtype == dtypes.float64:
            width = high - low
            x = fma64(x, width, low) if fused() else x * width + low
        else:
            a, b = np.float32(low), np.float32(high)
            x = fma32(x, b - a, a) if fused() else x * (b - a) + a
    if (low, high) != (0.0, 1.0) or t.dtype.itemsize == 2:
        # a value that rounds up to ``high`` in the output dtype becomes ``low``
        top = np.asarray(high).astype(t.dtype.numpy)
        x = np.where(x.astype(t.dtype.numpy) == top, np.asarray(low, x.dtype), x)
    fill.write(t, x)


def _check_bounds(t: Tensor, low: float, high: float) -> None:
    fill.check_floating("check_uniform_bounds", t.dtype)
    biggest = finfo(t.dtype).max
    name = fill.SCALAR_TYPE[t.dtype].lower()
    for label, v in (("from", low), ("to", high)):
        if not -biggest <= v <= biggest:  # also rejects nan and inf
            raise RuntimeError(f"{label} is out of bounds for {name}")
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low:g} > "
            f"to={high:g}")
    if high - low > biggest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{name}>::max(), "
                           f"but found to={high:g} and from={low:g} which result in "
                           f"to-from to exceed the limit")


@aten.uniform_.default.impl(DispatchKey.CPU)
def uniform_(self: Tensor, from_: float, to: float, generator: Generator | None) -> Tensor:
    """``self.uniform_(from, to)``: uniform numbers in [from, to), drawn in memory order
    (the checks: ``_check_bounds``)."""
    gen = fill.resolve(generator)
    _check_bounds(self, from_, to)
    return fill.inplace(_kernel, self, from_, to, gen)


@aten.uniform_.default.impl(DispatchKey.Meta)
def uniform_meta(self: Tensor, from_: float, to: float, generator: Generator | None) -> Tensor:
    """torch's meta kernel checks nothing and draws nothing."""
    return fill.bump(self)


def _rand(where: device_type, size: Sequence[int] | None = None,
          generator: Generator | None = None, dtype: dtype | None = None,
          layout: Any = None, device: Any = None, pin_memory: bool | None = None,
          out: Tensor | None = None,
          self: Tensor | None = None, memory_format: Any = None,
          resize_counts: bool = False) -> Tensor:
    """``rand`` (a new tensor of ``size``, or ``out`` resized) and ``rand_like`` (one like
    ``self``): ``uniform_(0, 1)`` on it. torch checks the dtype even with no elements; its
    meta kernel checks nothing. (``resize_counts``: see ``fill.new_or_out``.)"""
    if self is not None:
        t = fill.like(self, dtype, device, memory_format, pin_memory)
    else:
        t = fill.new_or_out(size, out, dtype, device, pin_memory, where,
                            resize_counts=resize_counts)
    if where is CPU:
        _check_bounds(t, 0.0, 1.0)
    return fill.draw(_kernel, t, out, 0.0, 1.0, fill.resolve(generator))


fill.register_factory(_rand, aten.rand.default, aten.rand.generator, aten.rand.out,
                      aten.rand_like.default, aten.rand_like.generator)
# torch's rand.generator_out is a composite: ``out.resize_(size).uniform_(0, 1)``
fill.register_factory(_rand, aten.rand.generator_out, resize_counts=True)
