"""What torch's CPU build computes for the exact GELU on an AVX2 machine (chapter 6), where
it does not call the C library's ``erf``.

* float32: torch hands ``gelu`` (``approximate='none'``) of a contiguous tensor of more than
  one element, and its backward, to oneDNN (``use_mkldnn`` in
  ``aten/src/ATen/native/Activation.cpp``). oneDNN's x64 kernel (``jit_uni_eltwise_injector``'s
  ``gelu_erf``) evaluates the Abramowitz and Stegun approximation 7.1.26,

      erf(x) ~ 1 - (p1 t + p2 t**2 + p3 t**3 + p4 t**4 + p5 t**5) exp(-x**2),  t = 1 / (1 + p x),

  with its own ``exp`` (``2**n`` times a degree-5 polynomial of the remainder), in float32,
  with fused multiply-adds (:func:`gelu_erf`, :func:`gelu_erf_backward`).
* float16 and bfloat16: ATen's own kernel (``GeluKernel.cpp``) converts to float32 and, for
  the elements it takes 32 at a time (a contiguous run's leading multiple of 32; the rest go
  through its scalar loop and the C library's ``erf``), evaluates ``x * 0.5 * (1 + erf(x /
  sqrt(2)))`` with ``Vectorized<float>::erf``: the same approximation, with SLEEF's ``expf``
  (within an ulp; the correctly rounded value stands in for it) (:func:`vectorized_gelu`).

The approximation's absolute error is about 1.5e-7, so near ``x = -2``, where ``gelu(x)`` is
small, torch's float32 result is 180 ulps from the C library's: ``gelu(-2.)`` of a two-element
tensor is ``-0.0455000997``, of a one-element tensor ``-0.0455002785``. The functions below
repeat torch's steps in NumPy, in its order and with its constants (oneDNN's written as their
float32 bit patterns), and give torch's values bit for bit (tests/test_ch06_layers.py: 200,000
inputs, NaN and infinities included).

On a machine with AVX-512 oneDNN takes another path (a piecewise minimax polynomial), which
reftensor does not reproduce: :func:`runs_here` is False there, and the C library's ``erf``
is used throughout.
"""

from __future__ import annotations

import functools
import platform

import numpy as np

from ._layers import fma

__all__ = ["VECTOR_RUN", "gelu_erf", "gelu_erf_backward", "runs_here", "vectorized_gelu"]


def _f32(bits: int) -> np.float32:
    """The float32 whose bit pattern is ``bits``."""
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


_ONE, _HALF, _TWO = np.float32(1.0), np.float32(0.5), np.float32(2.0)
# exp
_LN_FLT_MAX, _LN_FLT_MIN = _f32(0x42B17218), _f32(0xC2AEAC50)
_LOG2E, _LN2 = _f32(0x3FB8AA3B), _f32(0x3F317218)
_EXP_POLYNOMIAL = [_f32(b) for b in (0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D,
                                     0x3C07CFCE)]  # degrees 1 to 5 (degree 0 is 1)
# erf (Abramowitz and Stegun 7.1.26; ATen's float32 constants round to the same bits)
_P = _f32(0x3EA7BA05)  # 0.3275911
_ONE_OVER_SQRT_TWO, _ONE_OVER_SQRT_PI = _f32(0x3F3504F3), _f32(0x3F106EBA)
_ERF_POLYNOMIAL = [_f32(b) for b in (0x3E827906, 0xBE91A98E, 0x3FB5F0E3, 0xBFBA00E3,
                                     0x3F87DC22)]  # p1 to p5


@functools.cache
def runs_here() -> bool:
    """Does torch's oneDNN take the path these functions repeat: an x86-64 machine without
    AVX-512 (``avx512f``, ``avx512bw``, ``avx512vl`` and ``avx512dq``, oneDNN's
    ``avx512_core``)?"""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            flags = next((line.split(":", 1)[1].split() for line in info
                          if line.startswith("flags")), [])
    except OSError:
        return False
    return not {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= set(flags)


def _full(value: np.float32, like: np.ndarray) -> np.ndarray:
    return np.full_like(like, value)


def _exp(v: np.ndarray) -> np.ndarray:
    """oneDNN's float32 ``exp``: ``2**n * exp(r)``, ``n = floor(v log2(e) + 1/2)``, ``r = v -
    n ln 2`` (fused), ``exp(r)`` a degree-5 polynomial; 0 below ``log(FLT_MIN)``."""
    underflow = v < _LN_FLT_MIN
    v = np.maximum(np.minimum(v, _LN_FLT_MAX), _LN_FLT_MIN)
    n = np.floor(v * _LOG2E + _HALF)
    r = fma(-n, _full(_LN2, n), v)
    with np.errstate(invalid="ignore"):
        exponent = np.nan_to_num(n - _ONE).astype(np.int32)
    two_to_n_minus_1 = ((exponent + 127) << 23).astype(np.int32).view(np.float32)
    two_to_n_minus_1 = np.where(underflow, np.float32(0.0), two_to_n_minus_1)
    polynomial = _full(_EXP_POLYNOMIAL[4], r)
    for c in reversed(_EXP_POLYNOMIAL[:4]):
        polynomial = fma(polynomial, r, _full(c, r))
    polynomial = fma(polynomial, r, _full(_ONE, r))
    return polynomial * two_to_n_minus_1 * _TWO


def _erf_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``t = 1 / (1 + p |x|)`` and the polynomial ``p1 + p2 t + ... + p5 t**4``."""
    absolute = np.abs(x)
    t = _ONE / fma(_full(_P, absolute), absolute, _full(_ONE, absolute))
    polynomial = _full(_ERF_POLYNOMIAL[4], t)
    for c in reversed(_ERF_POLYNOMIAL[:4]):
        polynomial = fma(polynomial, t, _full(c, t))
    return t, polynomial


def gelu_erf(s: np.ndarray) -> np.ndarray:
    """``gelu(s)`` of float32 values as oneDNN computes it: ``S + S * erf(s / sqrt(2))``
    with ``S = s / 2``, fused."""
    s = np.asarray(s, dtype=np.float32)
    x = s * _ONE_OVER_SQRT_TWO
    t, polynomial = _erf_parts(x)
    minus_exp_t = -_exp(-(x * x)) * t
    erf = fma(minus_exp_t, polynomial, _full(_ONE, x))
    erf = np.where(np.signbit(s), -erf, erf)
    half_s = s * _HALF
    return fma(erf, half_s, half_s)


def gelu_erf_backward(grad: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``grad * gelu'(s)`` of float32 values as oneDNN computes it: with ``x = s / sqrt(2)``,
    ``gelu'(s) = (x / sqrt(pi) * exp(-x**2) + 1/2) + erf(x) / 2``."""
    s = np.asarray(s, dtype=np.float32)
    x = s * _ONE_OVER_SQRT_TWO
    q = _exp(-(x * x))
    density = (x * _ONE_OVER_SQRT_PI) * q
    t, polynomial = _erf_parts(x)
    erf = fma(-q * t, polynomial, _full(_ONE, x))
    erf = np.where(np.signbit(x), -erf, erf)
    derivative = fma(erf, _full(_HALF, erf), density + _HALF)
    return np.asarray(grad, dtype=np.float32) * derivative


#: How many elements ATen's reduced-float kernels take at a time: two vectors of 16.
VECTOR_RUN = 32


def vectorized_gelu(x: np.ndarray) -> np.ndarray:
    """``x * 0.5 * (1 + erf(x / sqrt(2)))`` in float32, as ATen's vectorised GELU computes it
    for float16 and bfloat16 (``Vectorized<float>::erf``: Abramowitz and Stegun's
    approximation, its ``exp(-x**2)`` rounded from double)."""
    x = np.asarray(x, dtype=np.float32)
    v = x * np.float32(0.7071067811865476)  # M_SQRT1_2 as a float
    t, polynomial = _erf_parts(v)
    with np.errstate(over="ignore"):
        minus_exp = -np.exp((-(v * v)).astype(np.float64)).astype(np.float32)
    erf = fma(minus_exp * t, polynomial, _full(_ONE, v))
    erf = np.where(np.signbit(v), -erf, erf)
    return x * _HALF * (_ONE + erf)
