"""The arithmetic of each elementwise op, as NumPy formulas over whole arrays.

Every function here takes NumPy arrays that already hold the operands' values in the dtype
the op computes in (see ``elementwise.py``: promotion, broadcasting and widening of
float16/bfloat16 to float32 happen before), and returns the result array. No loops over
elements: each formula runs over all elements at once.

Where torch's C++ kernel is more than one NumPy call, the formula follows that kernel
step by step, because the corner cases (signed zeros, nan, division by zero, integer
wraparound) are decided by exactly those steps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "div_trunc_int", "div_floor_int", "div_floor_float", "remainder_int", "remainder_float",
    "powi", "round_decimals", "sign", "sigmoid", "clamp", "check_no_zero_divisor",
    "fused_multiply_add",
]


def check_no_zero_divisor(b: np.ndarray) -> None:
    """Integer division by zero: torch's kernel raises ``RuntimeError("ZeroDivisionError")``
    (only when some element is actually divided, so an empty result passes)."""
    if np.any(b == 0):
        raise RuntimeError("ZeroDivisionError")


def div_trunc_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's ``a / b`` on integers: the quotient rounded toward zero."""
    check_no_zero_divisor(b)
    floor = np.floor_divide(a, b)
    inexact = (floor * b != a) & ((a < 0) != (b < 0))
    return floor + inexact.astype(floor.dtype)


def div_floor_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Python's ``a // b`` on integers (``c10::div_floor_integer``)."""
    check_no_zero_divisor(b)
    return np.floor_divide(a, b)


def _exact(x: np.ndarray) -> np.ndarray:
    return x


def div_floor_float(a: np.ndarray, b: np.ndarray,
                    step: Callable[[np.ndarray], np.ndarray] = _exact) -> np.ndarray:
    """Python's ``a // b`` on floats, step by step as ``c10::div_floor_floating``:
    ``(a - fmod(a, b)) / b``, corrected by one when the remainder's sign differs from b's,
    then rounded to the nearest integer; 0 keeps the sign of ``a / b``; ``b == 0`` gives
    the plain IEEE quotient (inf or nan).

    ``step`` rounds each intermediate result: torch computes float16/bfloat16 here one
    operation at a time in the 16-bit type.
    """
    mod = np.fmod(a, b)
    div = step(step(a - mod) / b)
    div = np.where((mod != 0) & ((b < 0) != (mod < 0)), step(div - 1), div)
    floordiv = np.floor(div)
    floordiv = np.where(step(div - floordiv) > 0.5, step(floordiv + 1), floordiv)
    plain = step(a / b)
    floordiv = np.where(div == 0, np.copysign(np.zeros_like(plain), plain), floordiv)
    return np.where(b == 0, plain, floordiv)


def remainder_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Python's ``a % b`` on integers: the result has the sign of the divisor."""
    check_no_zero_divisor(b)
    return np.remainder(a, b)


def remainder_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's float remainder: ``fmod(a, b)``, plus ``b`` when it is nonzero and its sign
    differs from ``b``'s. (Unlike ``np.remainder``, a zero result keeps the sign of a.)"""
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


def powi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer power, wrapping around like C (``at::native::powi``).

    Exponentiation by squaring over whole arrays. A negative exponent gives 1 for base 1,
    +-1 for base -1, and 0 otherwise (integer division would round ``1 / a**n`` to 0).
    """
    result = np.ones_like(a)
    # Negative exponents are settled below; squaring only runs for the others (np.abs
    # would overflow for the most negative integer and loop forever).
    base, exp = a.copy(), np.where(b < 0, 0, b).astype(np.int64)
    while np.any(exp):
        odd = (exp & 1).astype(bool)
        result = np.where(odd, result * base, result)
        exp >>= 1
        base = base * base
    negative = b < 0
    if np.any(negative):
        minus_one = np.where(b % 2 != 0, -1, 1).astype(a.dtype)
        small = np.where(a == 1, 1, np.where(a == -1, minus_one, 0)).astype(a.dtype)
        result = np.where(negative, small, result)
    return result


def round_decimals(a: np.ndarray, decimals: int) -> np.ndarray:
    """``round(a, decimals)``: ``nearbyint(a * 10**d) / 10**d`` (for negative ``d``,
    ``nearbyint(a / 10**-d) * 10**-d``), with ``10**d`` rounded to ``a``'s dtype first, so
    ``decimals=40`` on float32 multiplies by inf and gives nan, as in torch."""
    with np.errstate(over="ignore"):  # 10**400 is inf in double, as in C++
        ten_pow = np.power(np.float64(10.0), abs(decimals)).astype(a.dtype)
    if decimals < 0:
        return np.rint(a / ten_pow) * ten_pow
    return np.rint(a * ten_pow) / ten_pow


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of float64 ``x`` into two halves of 26 bits: ``hi + lo == x``."""
    c = 134217729.0 * x  # 2**27 + 1
    hi = c - (c - x)
    return hi, x - hi


def fused_multiply_add(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``x * y + z`` rounded once, as the CPU's FMA instruction computes it (torch's
    ``add(a, b, alpha=...)`` compiles to one). NumPy has no FMA, so: float32 goes through
    float64, where the product is exact; float64 uses error-free transformations (Dekker's
    product, Knuth's sum) to carry the bits a plain ``x * y + z`` would round away."""
    if x.dtype != np.float64:
        wide = x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
        return wide.astype(x.dtype)
    p = x * y
    (xh, xl), (yh, yl) = _split(x), _split(y)
    p_err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl  # p + p_err == x * y exactly
    s = p + z
    v = s - p
    s_err = (p - (s - v)) + (z - v)  # s + s_err == p + z exactly
    error = s_err + p_err
    result = np.where(error == 0, s, s + error)  # s + 0.0 would turn -0.0 into 0.0
    return np.where(np.isfinite(result), result, x * y + z)  # inf and nan: the plain formula


def fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``x * y + z`` rounded once, correctly in every case (``lerp``, ``addcmul``).

    As :func:`fused_multiply_add`, but float32 (and the float32 that float16/bfloat16
    compute in) is summed in float64 *rounded to odd*: where the float64 sum is inexact and
    its last bit even, it moves one step towards the exact sum. Rounding that to float32 is
    then the correctly rounded result, also where the exact sum lies next to a float32 tie
    (a plain float64 sum can land on the tie and round it to even, e.g. ``x * y`` exactly
    halfway between two floats and ``z`` tiny)."""
    if x.dtype == np.float64:
        return fused_multiply_add(x, y, z)
    p = x.astype(np.float64) * y.astype(np.float64)  # exact: 24 + 24 bits
    c = z.astype(np.float64)
    s = np.asarray(p + c)
    if x.dtype == np.float32:
        # A float64 sum rounds to float32 as the exact sum would unless it lies exactly
        # halfway between two float32 values (its 29 lowest bits 1000...0) or among
        # float32's subnormals (0 < |s| < 2**-125; a sum of 0 is exact): only there is the
        # sum rounded to odd.
        bits = s.view(np.int64)
        magnitude = bits & 0x7FFFFFFFFFFFFFFF
        suspect = ((bits & 0x1FFFFFFF) == 0x10000000) | (
            (magnitude != 0) & (magnitude < 0x3820000000000000))  # 2**-125's bits
        if not suspect.any():
            return s.astype(np.float32)
        p, c = np.broadcast_to(p, s.shape)[suspect], np.broadcast_to(c, s.shape)[suspect]
        s = s.copy()
        s[suspect] = _round_to_odd(p, c, p + c)
        return s.astype(np.float32)
    return _round_to_odd(p, c, s).astype(x.dtype)


def _round_to_odd(p: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``s = p + c`` (float64) rounded to odd instead: where inexact with its last bit even,
    one step towards the exact sum."""
    v = s - p
    error = (p - (s - v)) + (c - v)  # s + error == p + c exactly (Knuth's two-sum)
    even = (s.view(np.int64) & 1) == 0
    towards = np.where(error > 0, np.inf, -np.inf)
    return np.where((error != 0) & even & np.isfinite(s), np.nextafter(s, towards), s)


def sign(a: np.ndarray) -> np.ndarray:
    """``(0 < a) - (a < 0)``: +1, -1, or 0 (a *positive* zero, also for -0.0 and nan)."""
    if a.dtype == np.bool_:
        return a.copy()
    return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)


def sigmoid(a: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-a))``."""
    one = np.ones((), dtype=a.dtype)
    return one / (one + np.exp(-a))


def clamp(a: np.ndarray, low: np.ndarray | None, high: np.ndarray | None) -> np.ndarray:
    """``min(max(a, low), high)``: a nan in ``a`` or in a bound gives nan; with
    ``low > high`` every element becomes ``high``; equal values (0.0 and -0.0) keep ``a``."""
    result = a
    floating = a.dtype.kind == "f"
    if low is not None:
        take = result < low
        if floating:
            take = take | np.isnan(low)
        result = np.where(take, low, result)
    if high is not None:
        take = result > high
        if floating:
            take = take | np.isnan(high)
        result = np.where(take, high, result)
    return result
