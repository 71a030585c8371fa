"""The float32 Box-Muller kernel of torch's ``randn`` fill path, replayed operation by
operation.

torch's fill path (``normal.py``) turns each pair of float32 uniforms ``(u1, u2)`` into two
normals: ``radius = sqrt(-2 ln(1 - u1))``, ``theta = 2 pi u2``, then ``radius * cos(theta)``
and ``radius * sin(theta)``. How ``ln`` and ``sincos`` are computed decides the last bits:

* the AVX2 build (profile ``"x86_avx2"``) uses a vectorised Cephes-style ``log`` and
  ``sincos``: polynomials in float32, with fused multiply-adds wherever GCC contracted
  ``a*b + c``. :func:`box_muller_avx2` repeats each of those float32 operations in NumPy,
  with :func:`~reftensor.random.fma.fma32` where the build fused;
* the DEFAULT build calls libm's ``logf``, ``sinf`` and ``cosf``, reached here through
  ctypes (:func:`box_muller_libm`).

NumPy's own float32 ``log``/``sin``/``cos`` give different bits for about one value in ten;
float64 maths rounded to float32 for most values.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .fma import fma32

__all__ = ["box_muller_avx2", "box_muller_libm", "log_avx2", "sincos_avx2"]

f32 = np.float32
# ln: the mantissa m in [0.5, 1) and its exponent e give ln x = ln m + e ln 2, with
# ln 2 = q2 + q1 split so that e * q2 is exact.
SQRTHF = f32(0.707106781186547524)
LOG_P = [f32(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                          -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                          2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
Q1, Q2 = f32(-2.12194440e-4), f32(0.693359375)
# sincos: reduce |x| by multiples j of pi/4 (pi/4 split in three parts), then a polynomial
# for cos and one for sin on [-pi/4, pi/4]; j's low bits pick which and the signs.
FOPI = f32(1.27323954473516)  # 4 / pi
DP = [f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8)]
COS_P = [f32(2.443315711809948e-5), f32(-1.388731625493765e-3), f32(4.166664568298827e-2)]
SIN_P = [f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1)]
TWO_PI = f32(6.2831855)  # float32(2 pi)
ONE, HALF, ZERO = f32(1.0), f32(0.5), f32(0.0)


def log_avx2(x: np.ndarray) -> np.ndarray:
    """Natural log of positive float32 ``x`` as torch's AVX2 kernel computes it."""
    # x = m * 2**e with m in [0.5, 1): the kernel swaps the exponent bits for 0.5's, which
    # is what frexp returns for the normal numbers seen here
    m, e_int = np.frexp(x)
    small = m < SQRTHF
    e = e_int.astype(np.float32) - small  # e - 1 where m < sqrt(1/2) ...
    t = m - ONE
    np.add(t, m, out=t, where=small)  # ... and there t = (m - 1) + m
    z = t * t
    y = fma32(t, LOG_P[0], LOG_P[1])
    for p in LOG_P[2:]:
        y = fma32(y, t, p)
    y = y * t
    y = fma32(y, z, e * Q1)
    y = y - HALF * z
    return fma32(e, Q2, t + y)


def sincos_avx2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sin x, cos x) of float32 ``x >= 0`` (as Box-Muller's angle is) as torch's AVX2
    kernel computes them."""
    ax = x  # |x|, and x's sign bit is clear
    j = (ax * FOPI).astype(np.int32)  # truncation, as cvttps
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    r = fma32(y, DP[0], ax)
    r = fma32(y, DP[1], r)
    r = fma32(y, DP[2], r)
    z = r * r
    c = z * fma32(fma32(COS_P[0], z, COS_P[1]), z, COS_P[2])
    c = fma32(z, c, -(HALF * z)) + ONE
    s = z * fma32(fma32(SIN_P[0], z, SIN_P[1]), z, SIN_P[2])
    s = fma32(r, s, r)
    # j's bit 1 picks the polynomials; the kernel selects with bit masks and sums with
    # +0.0, which turns a -0.0 into +0.0
    use_poly = (j & 2) == 0
    sin = np.where(use_poly, s, c)
    sin += ZERO
    cos = np.where(use_poly, c, s)
    cos += ZERO
    # then flips signs: sin where j's bit 2 is set, cos where (j - 2)'s bit 2 is clear
    np.negative(sin, out=sin, where=(j & 4) != 0)
    np.negative(cos, out=cos, where=((j - 2) & 4) == 0)
    return sin, cos


def box_muller_avx2(u1: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two standard normals (cos half, sin half) per uniform pair, float32, AVX2 build.

    ``u1`` is the uniform *before* ``1 - u1`` (so ``u1`` in [0, 1) gives ``ln`` of (0, 1]).
    """
    radius = np.sqrt(log_avx2(ONE - u1) * f32(-2.0))
    sin, cos = sincos_avx2(TWO_PI * u2)
    return radius * cos, radius * sin


@functools.cache
def _libm() -> Any:
    import ctypes
    import ctypes.util

    lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    for name in ("logf", "sinf", "cosf"):
        getattr(lib, name).restype = ctypes.c_float
        getattr(lib, name).argtypes = [ctypes.c_float]
    return lib


def box_muller_libm(u1: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two standard normals per uniform pair, float32, torch's DEFAULT build (libm's
    ``logf``, ``sinf``, ``cosf``; ``theta`` computed in float64 and rounded)."""
    lib = _libm()
    log = np.array([lib.logf(v) for v in (ONE - u1).ravel().tolist()], dtype=np.float32)
    radius = np.sqrt(log * f32(-2.0)).reshape(u1.shape)
    theta = (2 * np.pi * u2.astype(np.float64)).astype(np.float32).ravel().tolist()
    sin = np.array([lib.sinf(v) for v in theta], dtype=np.float32).reshape(u1.shape)
    cos = np.array([lib.cosf(v) for v in theta], dtype=np.float32).reshape(u1.shape)
    return radius * cos, radius * sin
