"""Random integers: ``Tensor.random_``, ``randint``, ``randint_like`` and ``randperm``.

torch makes integers from raw draws with a plain modulo (no rejection, so a small bias):

* ``random_(from, to)`` / ``randint(low, high)``: ``low + draw % (high - low)``, where
  ``draw`` is one 32-bit output when the range is below 2**28, else a 64-bit value
  ``(first << 32) | second``; the sum wraps around as int64.
* ``random_()`` with no bounds: ``draw % (max + 1)`` for the dtype's largest value (64-bit
  draws for int64 and float64), ``draw & 1`` for bool, and for a float dtype every integer
  up to ``2**mantissa_digits`` inclusive.
* ``randperm(n)``: a Fisher-Yates shuffle of ``0..n-1``. For n below 214,748,364 it swaps
  position ``i`` with ``i + draw % (n - i)`` for i = 0..n-2 (32-bit draws); above, it runs
  the "inside-out" variant with 64-bit draws, ``z = draw % (i + 1)``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes
from .._ops import DispatchKey, aten
from ..device import META
from ..device import device as device_type
from ..dtype_info import finfo, iinfo
from ..dtypes import dtype
from ..tensor import Tensor
from . import fill
from .generator import Generator

__all__ = ["random_", "random_from", "random_to"]

DIGITS = {dtypes.float16: 11, dtypes.bfloat16: 8, dtypes.float32: 24, dtypes.float64: 53}
CTYPE = {dtypes.bool: "bool", dtypes.uint8: "unsigned char", dtypes.int8: "signed char",
         dtypes.int16: "short", dtypes.int32: "int", dtypes.int64: "long",
         dtypes.float16: "c10::Half", dtypes.bfloat16: "c10::BFloat16",
         dtypes.float32: "float", dtypes.float64: "double"}
SMALL_RANGE = 1 << 28  # below this, one 32-bit draw per number
RANDPERM_SMALL = (2**32 - 1) // 20  # 214,748,364: the two randperm paths


def _limits(d: dtype) -> tuple[float, float]:
    if d == dtypes.bool:
        return 0, 1
    info = finfo(d) if d.is_floating_point else iinfo(d)
    return info.min, info.max


def _check_in_range(low: int, high_inclusive: int, d: dtype) -> None:
    """torch's ``check_from_to_in_range``: bounds the dtype cannot hold raise; for floats,
    bounds beyond ``2**digits`` only warn (not every integer there is representable)."""
    lo, hi = _limits(d)
    for label, v in (("from", low), ("to - 1", high_inclusive)):
        if not lo <= v <= hi:
            raise RuntimeError(f"{label} is out of bounds for {CTYPE[d]}")
    if d.is_floating_point:
        limit = 1 << DIGITS[d]
        for label, v in (("from", low), ("to - 1", high_inclusive)):
            if not -limit <= v <= limit:
                warnings.warn(
                    f"{label} is out of bounds [-(2^{DIGITS[d]}), 2^{DIGITS[d]}]. Due to "
                    f"precision limitations {CTYPE[d]} can support discrete uniform "
                    "distribution only within this range.", UserWarning, stacklevel=4)


def _round_through(v: int, d: dtype) -> int:
    """``int64(scalar_t(v))``: v rounded to the float dtype ``d`` and back."""
    x = np.array(v, dtype=np.int64).astype(np.float64 if d == dtypes.float64 else np.float32)
    if d.itemsize == 2:  # c10::Half and BFloat16 are built from a float
        with np.errstate(over="ignore"):
            x = x.astype(d.numpy).astype(np.float32)
    if not np.isfinite(x) or not -(2**63) <= float(x) < 2**63:
        return -(2**63)  # out of int64's range: x86's conversion gives int64's minimum
    return int(x)


def _update_from(low: int, d: dtype) -> int:
    """For a float dtype, raise ``from`` so that ``from + 1`` rounds to no less than it."""
    plus_1 = _round_through(low + 1, d)
    if plus_1 < low:
        n = abs(low + 1).bit_length() - 1
        low = plus_1 + (1 << (n - DIGITS[d] + 1))
    return low


def _update_to(high: int, d: dtype) -> int:
    """For a float dtype, lower ``to`` so that ``to - 1`` rounds to less than it."""
    minus_1 = _round_through(high - 1, d)
    if minus_1 >= high:
        n = abs(high - 1).bit_length() - 1
        high = minus_1 - (1 << (n - DIGITS[d] + 1))
    return high


def _store(t: Tensor, values: np.ndarray) -> None:
    """Integers (int64 or uint64) into ``t``: through float32 for float16/bfloat16."""
    if t.dtype.itemsize == 2 and t.dtype.is_floating_point:
        values = values.astype(np.float32)
    fill.write(t, values.astype(t.dtype.numpy))


def randint_from_draws(low: int, high: int, n: int, draws: Sequence[int]) -> list[int]:
    """``torch.randint(low, high, (n,)).tolist()`` on the CPU, from a generator whose next
    raw 32-bit draws are ``draws``.

    Args:
        low, high: the range, ints (``high`` excluded).
        n: how many numbers, an int >= 0.
        draws: ints in ``[0, 2**32)``, at least as many as torch uses (``2 * n`` always are).

    Returns:
        A list of ``n`` Python ints in ``[low, high)``.

    Raises:
        RuntimeError: ``low >= high``.
    """
    # BEGIN PIECE randint_from_draws
    # With r = high - low: below 2**28, one draw d per number, low + d % r; from 2**28 up,
    # two draws per number, low + ((first << 32) | second) % r. No rejection step.
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    span = high - low
    if span < SMALL_RANGE:
        return [low + d % span for d in draws[:n]]
    pairs = zip(draws[0:2 * n:2], draws[1:2 * n:2], strict=True)
    return [low + ((first << 32) | second) % span for first, second in pairs]
    # END PIECE


def _from_to_kernel(t: Tensor, low: int, span: int, gen: Generator) -> None:
    """``randint_from_draws`` for ``t``'s elements, span in [1, 2**64), wrapped to int64."""
    n = t.numel()
    draws = gen._draw32(n if span < SMALL_RANGE else 2 * n)
    values = randint_from_draws(low, low + span, n, draws.tolist())
    _store(t, np.array([v % 2**64 for v in values], dtype=np.uint64).view(np.int64))


def _full_kernel(t: Tensor, gen: Generator) -> None:
    """``random_()`` with no bounds."""
    d, n = t.dtype, t.numel()
    if d == dtypes.bool:
        _store(t, gen._draw32(n) & np.uint32(1))
        return
    if d.is_floating_point:
        modulus = (1 << DIGITS[d]) + 1
    else:
        modulus = _limits(d)[1] + 1
    draws = gen._draw64(n) if d in (dtypes.int64, dtypes.float64) else \
        gen._draw32(n).astype(np.uint64)
    _store(t, draws % np.uint64(modulus))


def _full_int64_kernel(t: Tensor, gen: Generator) -> None:
    """``random_(-2**63, None)``: every int64, one 64-bit draw each."""
    _check_full_range(t.dtype)  # (torch's kernel checks: not for an empty tensor)
    _store(t, gen._draw64(t.numel()).view(np.int64))


def _check_full_range(d: dtype) -> None:
    if d in (dtypes.bool, dtypes.float16):
        raise NotImplementedError('"random_full_64_bits_range_kernel_cpu" not implemented for '
                                  f"'{fill.SCALAR_TYPE[d]}'")
    if d not in (dtypes.int64, dtypes.float64, dtypes.float32, dtypes.bfloat16):
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, "
                           "float and bfloat16")


def _bounds(t: Tensor, low: int, high: int | None) -> tuple[int, int | None]:
    """(from, span) for ``random_(from, to)`` after torch's checks; span None means every
    64-bit value."""
    d = t.dtype
    if high is not None:
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        if d.is_floating_point:
            low, high = _update_from(low, d), _update_to(high, d)
            if low >= high:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={high}")
        _check_in_range(low, high - 1, d)
        return low, high - low
    if low == -(2**63):  # every int64 (``_full_int64_kernel`` checks the dtype)
        return low, None
    if d.is_floating_point:
        top = min(1 << DIGITS[d], 2**63 - 1)
        low = _update_from(low, d)
        if low >= top:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={low} > to_inc={top}")
    else:
        top = int(_limits(d)[1])
    _check_in_range(low, top, d)
    return low, top - low + 1


@aten.random_.default.impl(DispatchKey.CPU)
def random_(self: Tensor, generator: Generator | None) -> Tensor:
    """``self.random_()``: [0, max] of the dtype."""
    return fill.inplace(_full_kernel, self, fill.resolve(generator))


@aten.random_.to.impl(DispatchKey.CPU)
def random_to(self: Tensor, to: int, generator: Generator | None) -> Tensor:
    """``self.random_(to)``: [0, to)."""
    return random_from(self, 0, to, generator)


@getattr(aten.random_, "from").impl(DispatchKey.CPU)
def random_from(self: Tensor, from_: int, to: int | None, generator: Generator | None
                ) -> Tensor:
    """``self.random_(from, to)``: [from, to); ``to=None``: up to the dtype's max."""
    gen = fill.resolve(generator)
    low, span = _bounds(self, from_, to)
    if span is None:
        return fill.inplace(_full_int64_kernel, self, gen)
    return fill.inplace(_from_to_kernel, self, low, span, gen)


# torch's meta kernels of random_ check nothing ("No error checking yay") and draw nothing.
@aten.random_.default.impl(DispatchKey.Meta)
def random_meta(self: Tensor, generator: Generator | None) -> Tensor:
    return fill.bump(self)


@aten.random_.to.impl(DispatchKey.Meta)
def random_to_meta(self: Tensor, to: int, generator: Generator | None) -> Tensor:
    return fill.bump(self)


@getattr(aten.random_, "from").impl(DispatchKey.Meta)
def random_from_meta(self: Tensor, from_: int, to: int | None, generator: Generator | None
                     ) -> Tensor:
    return fill.bump(self)


def _randint(where: device_type, high: int | Tensor, size: Sequence[int] | None = None,
             low: int = 0, generator: Generator | None = None, dtype: dtype | None = None,
             layout: Any = None, device: Any = None, pin_memory: bool | None = None,
             out: Tensor | None = None, self: Tensor | None = None,
             memory_format: Any = None) -> Tensor:
    """``randint`` (a new tensor of ``size``, int64 unless ``dtype``, or ``out`` resized)
    and ``randint_like`` (one like ``self``; ``high`` an int or a 0-d tensor):
    ``random_(low, high)`` on it. torch checks the bounds even with no elements; its meta
    kernel of randint only that ``low < high``."""
    if self is not None:
        high = _high_of(high)
        t = fill.like(self, dtype, device, memory_format, pin_memory)
    else:
        t = fill.new_or_out(size, out, dtype, device, pin_memory, where, dtypes.int64)
    if where is META:  # (randint_like's meta kernel checks nothing)
        if self is None and low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        return fill.draw(_from_to_kernel, t, out)
    low, span = _bounds(t, low, high)
    return fill.draw(_from_to_kernel, t, out, low, span, fill.resolve(generator))


def _high_of(high: int | Tensor) -> int:
    """``randint_like``'s ``high``: an int, or a 0-d CPU tensor read as one.

    Raises:
        RuntimeError: a tensor with dims, or on the meta device, in torch's words.
    """
    if not isinstance(high, Tensor):
        return high
    if high.dim() != 0 or high.is_meta:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return int(high.item())


fill.register_factory(_randint, aten.randint.default, aten.randint.generator,
                      aten.randint.low, aten.randint.low_generator, aten.randint.out,
                      aten.randint.generator_out, aten.randint.low_out,
                      aten.randint.low_generator_out, aten.randint_like.default,
                      aten.randint_like.generator, aten.randint_like.Tensor,
                      aten.randint_like.Tensor_generator, aten.randint_like.low_dtype,
                      aten.randint_like.low_generator_dtype)


def randperm_from_draws(n: int, draws: Sequence[int]) -> list[int]:
    """``torch.randperm(n).tolist()`` on the CPU, from a generator whose next raw 32-bit
    draws are ``draws``.

    Args:
        n: an int, ``0 <= n < 214_748_364`` (from there on torch draws differently).
        draws: ints in ``[0, 2**32)``, at least ``n - 1`` of them: torch uses ``n - 1``
            (none for ``n`` = 0).

    Returns:
        A list: a permutation of ``range(n)``.
    """
    # BEGIN PIECE randperm_from_draws
    # A Fisher-Yates shuffle of [0, ..., n-1]: for i = 0 .. n-2, swap positions i and
    # i + draws[i] % (n - i).
    perm = list(range(n))
    for i in range(n - 1):
        z = i + draws[i] % (n - i)
        perm[i], perm[z] = perm[z], perm[i]
    return perm
    # END PIECE


def _randperm_kernel(t: Tensor, n: int, gen: Generator) -> None:
    if n < RANDPERM_SMALL:
        perm = randperm_from_draws(n, gen._draw32(n - 1).tolist() if n > 1 else [])
    else:  # inside-out, with 64-bit draws: r[i] = r[z]; r[z] = i
        perm = list(range(n))
        for i, draw in enumerate(gen._draw64(n).tolist()):
            z = draw % (i + 1)
            perm[i] = perm[z]
            perm[z] = i
    _store(t, np.array(perm, dtype=np.int64))


def _randperm(where: device_type, n: int, generator: Generator | None = None,
              dtype: dtype | None = None, layout: Any = None, device: Any = None,
              pin_memory: bool | None = None, out: Tensor | None = None) -> Tensor:
    """``randperm(n)``: a new tensor of ``(n,)`` (int64 unless ``dtype``), or ``out``
    resized, shuffled. The meta kernel checks only ``n >= 0`` (as the allocation does)."""
    t = fill.new_or_out((n,), out, dtype, device, pin_memory, where, dtypes.int64)
    if where is not META:
        _check_randperm(n, t.dtype)
    return fill.draw(_randperm_kernel, t, out, n, fill.resolve(generator))


def _check_randperm(n: int, d: dtype) -> None:
    """torch's checks of ``randperm``'s ``n`` against the dtype.

    Raises:
        NotImplementedError: bool. RuntimeError: ``n - 1`` that the dtype cannot hold, or
            (float dtypes but bfloat16) hold exactly.
    """
    if d == dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if n - 1 > _limits(d)[1]:  # n - 1 must fit the dtype ...
        name = {dtypes.int8: "int8_t", dtypes.uint8: "uint8_t", dtypes.int16: "int16_t",
                dtypes.int32: "int32_t"}.get(d, CTYPE[d])
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    exact = {dtypes.float16: 11, dtypes.float32: 24, dtypes.float64: 53}.get(d)
    if exact is not None and n > (1 << exact) + 1:  # ... and be exact (not checked for bf16)
        raise RuntimeError(f"n cannot be greater than {(1 << exact) + 1} for "
                           f"{fill.SCALAR_TYPE[d]} type.")


fill.register_factory(_randperm, aten.randperm.default, aten.randperm.generator,
                      aten.randperm.out, aten.randperm.generator_out)
