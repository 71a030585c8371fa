"""How values change dtype, the way torch's C++ conversions change them.

Three rules are easy to get wrong with plain ``ndarray.astype``:

* **To float16/bfloat16, through float32.** torch's ``Half`` and ``BFloat16`` are built from
  a ``float``, so a float64 or int64 value is rounded to float32 first and then to 16 bits
  (two roundings, where NumPy would round once).
* **Floating to integer truncates toward zero**, through a 32-bit integer for int8, int16
  and int32 and through int64 for int64 and uint8 (torch's special case), keeping the low
  bits. A value out of that range, or nan, is undefined behaviour in C++; on x86 the
  conversion gives the smallest integer (``INT_MIN``), so ``int16(1e10)`` is 0 and
  ``int32(nan)`` is -2**31. reftensor does what x86 does.
* **Python numbers are checked where torch checks them.** ``fill_``, ``clamp`` bounds and
  ``alpha`` go through ``Scalar.to<T>()``, which raises "value cannot be converted to type
  int8_t without overflow"; numbers taking part in arithmetic are instead converted like a
  one-element int64/float64 tensor, which wraps silently (``uint8_tensor + 300`` adds 44).
"""

from __future__ import annotations

import builtins
import math

import ml_dtypes
import numpy as np

from . import dtypes
from .dtypes import dtype

__all__ = ["cast", "number_array", "checked_number", "compute_dtype", "C_NAMES"]

#: The C++ type names torch's conversion errors use.
C_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
    "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double",
}

_HALF_TYPES = (dtypes.float16, dtypes.bfloat16)


def compute_dtype(d: dtype) -> dtype:
    """The dtype a kernel computes in ("opmath"): float32 for float16 and bfloat16, which
    torch widens, computes, and rounds once at the end; ``d`` itself otherwise."""
    return dtypes.float32 if d in _HALF_TYPES else d


#: fewer float32 values than this are rounded to float16/bfloat16 one by one by
#: ``cast_value``; more take NumPy's and ml_dtypes' C loops, which round by the same rule
CAST_VALUE_NUMEL = 64


def cast_value(x: float, dtype: str) -> float:
    """``torch.tensor(x, dtype=torch.float32).to(torch.<dtype>).item()``: the float32 value
    ``x`` rounded to ``float16`` or ``bfloat16`` (torch's ``c10::Half`` / ``c10::BFloat16``
    from ``float``).

    Args:
        x: a Python float that is exactly a float32 value (``inf``, ``-inf`` and ``nan``
            included).
        dtype: ``"float16"`` or ``"bfloat16"``.

    Returns:
        A Python float that ``dtype`` holds exactly: the nearest one to ``x``, a tie going to
        the one whose last mantissa bit is 0 (IEEE round to nearest even). A value that
        rounds beyond the dtype's largest finite value gives ``inf`` with ``x``'s sign, and
        a negative value that rounds to 0 gives -0.0; nan, infinities and signed zeros come
        back as they are.
    """
    # BEGIN PIECE cast_value
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("cast_value")(x, dtype)
    # END PIECE


def _round_to_half(values: np.ndarray, to: dtype) -> np.ndarray:
    """float32 ``values`` rounded to ``to`` (float16 or bfloat16). Values that ``to`` holds
    exactly (the 0s and 1s of ``zeros`` and ``ones``, chapters 1-3's only 16-bit values)
    need no rounding."""
    converted = values.astype(to.numpy)
    if (values.size >= CAST_VALUE_NUMEL
            or np.array_equal(converted.astype(np.float32), values, equal_nan=True)):
        return converted
    rounded = np.array([cast_value(x, to.name) for x in values.ravel().tolist()],
                       dtype=np.float64)
    held = rounded.astype(to.numpy)
    back = held.astype(np.float64)
    wrong = (back != rounded) & ~(np.isnan(back) & np.isnan(rounded))
    if wrong.any():  # storing it would round it again, and hide the mistake
        raise RuntimeError(f"cast_value returned {float(rounded[wrong][0])!r}, which {to.name} "
                           "cannot hold")
    return held.reshape(values.shape)


def cast(values: np.ndarray, to: dtype) -> np.ndarray:
    """``values`` converted to ``to`` as torch converts (may return ``values`` itself).
    A few float32 values going to float16 or bfloat16, when one of them needs rounding,
    are rounded by ``cast_value``."""
    src = values.dtype
    if src == to.numpy:
        return values
    with np.errstate(all="ignore"):
        if to is dtypes.bool:
            return values != 0  # nan counts as nonzero, as in C++
        if src in (dtypes.float16.numpy, dtypes.bfloat16.numpy):
            values = values.astype(np.float32)  # 16-bit floats: widen before anything else
            src = values.dtype
        if to.is_floating_point:
            if to in _HALF_TYPES:
                return _round_to_half(values.astype(np.float32), to)
            return values.astype(to.numpy)
        if src.kind == "f":
            values = _float_to_int(values, 64 if to in (dtypes.int64, dtypes.uint8) else 32)
        return values.astype(to.numpy)


def _float_to_int(values: np.ndarray, bits: int) -> np.ndarray:
    """x86's truncating conversion to a ``bits``-wide integer (as int64): out of range and
    nan give the smallest integer of that width."""
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1)
    t = np.trunc(values.astype(np.float64))
    inside = (t >= low) & (t < high)  # False for nan
    return np.where(inside, t, low).astype(np.int64)


def number_array(x: builtins.bool | int | builtins.float, to: dtype) -> np.ndarray:
    """A Python number as a 0-d array of ``to``, converted the way torch converts a
    number taking part in arithmetic: ints wrap, floats round (no overflow check).

    Raises:
        OverflowError: an int outside [-2**63, 2**64), which torch cannot hold either.
    """
    if isinstance(x, builtins.bool):
        return cast(np.array(x), to)
    if isinstance(x, int):
        if x < -(2**63):
            raise OverflowError("can't convert negative int to unsigned")
        if x >= 2**64:
            raise OverflowError("int too big to convert")
        # torch keeps an int in [2**63, 2**64) as uint64: a float sees its value, an
        # integer type sees it wrapped.
        wide = np.array(x, dtype=np.uint64 if x >= 2**63 else np.int64)
        if not to.is_floating_point:
            wide = wide.astype(np.int64)
        return cast(wide, to)
    return cast(np.array(builtins.float(x), dtype=np.float64), to)


def _overflows(x: builtins.bool | int | builtins.float, to: dtype) -> builtins.bool:
    """torch's ``c10::overflows<To>(x)``: does ``x`` lie outside what ``to`` can hold?"""
    if isinstance(x, builtins.bool) or to is dtypes.bool or to is dtypes.float64:
        return False
    if to.is_floating_point:
        value = builtins.float(x)
        return math.isfinite(value) and abs(value) > builtins.float(ml_dtypes.finfo(to.numpy).max)
    info = np.iinfo(to.numpy)
    if isinstance(x, builtins.float):
        return math.isnan(x) or not info.min <= x <= info.max
    if info.min == 0 and x < 0:  # unsigned types accept -x for x up to the maximum
        return -x > info.max
    return not info.min <= x <= info.max


def checked_number(
    x: builtins.bool | int | builtins.float, to: dtype, *, check_half: builtins.bool = True
) -> np.ndarray:
    """A Python number as a 0-d array of ``to``, checked like torch's ``Scalar.to<T>()``.

    ``check_half=False`` skips the range check for float16/bfloat16 (torch's one-element
    ``fill_`` takes a shortcut that does not check them).

    Raises:
        RuntimeError: "value cannot be converted to type int8_t without overflow".
        OverflowError: an int beyond what torch's Scalar holds.
    """
    if isinstance(x, int) and not isinstance(x, builtins.bool):
        number_array(x, dtypes.int64)  # the same OverflowErrors as arithmetic
        if x >= 2**63 and not to.is_floating_point and to is not dtypes.bool:
            raise RuntimeError(f"value cannot be converted to type {C_NAMES[to.name]} "
                               "without overflow")
    skip = not check_half and to in _HALF_TYPES
    if not skip and _overflows(x, to):
        raise RuntimeError(
            f"value cannot be converted to type {C_NAMES[to.name]} without overflow"
        )
    return number_array(x, to)
