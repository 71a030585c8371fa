"""Fused multiply-add, ``fma(a, b, c) = a*b + c`` rounded once, in NumPy, and the profile
that says where torch's build fuses.

torch ships each distribution kernel twice: a DEFAULT build and an AVX2 build (also used on
AVX-512 machines). GCC compiles the AVX2 build with FMA enabled and contracts ``x*(b-a)+a``
into one fused instruction, so ``uniform_(a, b)`` and the serial normal kernel round once
there and twice in the DEFAULT build. The float32 ``randn`` kernel differs more: AVX2 runs a
vectorised polynomial ``log``/``sincos`` (``normal_avx2.py``), DEFAULT calls libm.

The profile:

* ``"x86_avx2"`` (default): torch's AVX2/AVX-512 build, what nearly every x86-64 machine runs;
* ``"x86_default"``: torch's DEFAULT build (``ATEN_CPU_CAPABILITY=default``).

Choose it with ``set_profile`` or the environment variable ``REFTENSOR_RNG_PROFILE``.

NumPy has no FMA, so it is built from exact pieces:

* float32: ``a*b`` is exact in float64 (24 + 24 bits < 53). Adding ``c`` in float64 rounds
  once; rounding that to float32 again can go wrong only when the float64 sum lands exactly
  halfway between two float32 values. There, the sum's exact error (TwoSum) decides.
* float64: Dekker's exact product ``hi + lo``; ``c + hi = t + err`` exactly (TwoSum); then
  ``t + (err + lo)`` with the inner sum rounded to odd and the outer one to nearest, which is
  correctly rounded (Boldo and Melquiond's emulation of FMA).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["PROFILES", "get_profile", "set_profile", "fused", "fma32", "fma64"]

PROFILES = ("x86_avx2", "x86_default")
_profile = os.environ.get("REFTENSOR_RNG_PROFILE", "x86_avx2")
if _profile not in PROFILES:
    raise ValueError(f"REFTENSOR_RNG_PROFILE must be one of {PROFILES}, not {_profile!r}")


def get_profile() -> str:
    """The torch build whose random numbers reftensor reproduces."""
    return _profile


def set_profile(name: str) -> None:
    """Reproduce torch's ``"x86_avx2"`` build (default) or its ``"x86_default"`` build.

    Raises:
        ValueError: any other name.
    """
    global _profile
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, not {name!r}")
    _profile = name


def fused() -> bool:
    """True when the compiler fused ``a*b + c`` in torch's build (the AVX2 profile)."""
    return _profile == "x86_avx2"


# ------------------------------------------------------------------------------ float32
_MID32 = np.int64(1 << 28)  # a float64 halfway between two float32 neighbours has these
_LOW29 = np.int64((1 << 29) - 1)  # low 29 mantissa bits: exactly 1 followed by 28 zeros


def fma32(a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """``a*b + c`` rounded once to float32 (elementwise; float32 inputs)."""
    s = np.multiply(a, b, dtype=np.float64)  # exact
    s += c
    out = s.astype(np.float32)
    bits = s.view(np.int64)
    bits &= _LOW29  # (s is not needed any more)
    halfway = np.flatnonzero(bits == _MID32)
    if halfway.size:  # rare: the float64 sum sits on a float32 tie; its error breaks it
        at = np.unravel_index(halfway, out.shape)
        a, b, c = (np.broadcast_to(v, out.shape)[at] for v in (a, b, c))
        ps = np.multiply(a, b, dtype=np.float64)
        cs = c.astype(np.float64)
        ss = ps + cs
        out.ravel()[halfway] = _round_odd(ss, _two_sum_error(ps, cs, ss)).astype(np.float32)
    return out


def _two_sum_error(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The exact error ``(a + b) - s`` of the float64 sum ``s = a + b`` (Knuth's TwoSum)."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def _round_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """``s + err`` rounded to odd: when inexact, the neighbour of the exact value whose last
    mantissa bit is 1. Rounding that to fewer bits is then the correctly rounded result."""
    bits = np.array(s, dtype=np.float64).view(np.int64)
    inexact = err != 0
    toward_zero = inexact & (np.signbit(err) != np.signbit(s))
    bits = np.where(toward_zero, bits - 1, bits)
    bits = np.where(inexact, bits | 1, bits)
    return bits.view(np.float64)


# ------------------------------------------------------------------------------ float64
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a*b = p + e`` exactly (Dekker), for values far from overflow and underflow."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def fma64(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a*b + c`` rounded once to float64 (elementwise)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    hi, lo = _two_product(a, b)  # a*b = hi + lo
    t = c + hi
    t_err = _two_sum_error(c, hi, t)  # c + hi = t + t_err
    v = t_err + lo
    odd = _round_odd(v, _two_sum_error(t_err, lo, v))  # t_err + lo, rounded to odd
    return t + odd
