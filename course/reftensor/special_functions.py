"""The inverse error function (chapter 6): the kernels of ``erfinv`` and ``erfinv_``.

``erfinv(y)`` is the ``x`` with ``erf(x) == y``, defined for ``-1 <= y <= 1``: ``±inf`` at
``±1``, nan beyond, ``-0.0`` at ``-0.0``. ``nn.init.trunc_normal_`` needs it: a uniform draw
``u`` in ``(2 cdf(a) - 1, 2 cdf(b) - 1)`` becomes a normal value truncated to ``[a, b]`` as
``sqrt(2) * erfinv(u)``.

Both steps start from a rational first guess (one formula for ``|y| <= 0.7``, another, in
``sqrt(-log((1 - |y|) / 2))``, near ±1) and improve it by Newton's method on ``erf(x) =
y``: ``x <- x - (erf(x) - y) / (2 / sqrt(pi) * exp(-x * x))``.

What torch's CPU kernel runs depends on the dtype:

* float16 and bfloat16: ``calc_erfinv`` of ATen's ``Math.h`` on each value read in float32,
  two Newton steps, all in float32, rounded once to the 16-bit type. Reproduced here step
  by step (``erf`` is the C library's double one, rounded to float32): every one of the
  65,536 values of each 16-bit type gives torch's result bit for bit.
* float32 and float64: MKL's vector ``ErfInv`` in its high-accuracy mode (torch's
  ``vml::verfinv``), not ``calc_erfinv``; its steps are not public. Here the value is
  computed in float64 to within about an ulp of the exact one (the first guess, then
  Newton steps on ``erf`` for ``|y| <= 0.5`` and on ``erfc(|x|) = 1 - |y|`` above, which
  keeps the digits ``erf(x) - y`` would cancel near ±1) and rounded: at most 1 ulp from
  torch's (measured on 242,000 values: float32 0.6% of them 1 ulp off, float64 11%).
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes
from ._ops import DispatchKey, aten
from .elementwise import _bump, cpu_inplace, cpu_result, meta_result
from .tensor import Tensor
from .unary import _check_float_inplace, _float_dtype

__all__: list[str] = []  # the op is the table's (reftensor.erfinv, Tensor.erfinv_)

# calc_erfinv's coefficients (ATen's Math.h): the first guess's numerators and denominators
_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_D = (3.543889200, 1.637067800)
_CENTRAL_RANGE = 0.7
_TWO_OVER_SQRT_PI = 2 * 0.564189583547756286948079451560772586  # 2 * c10::frac_1_sqrt_pi

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _double(f: np.ufunc, x: np.ndarray) -> np.ndarray:
    """``f`` (the C library's double ``erf`` or ``erfc``) of every value, as float64."""
    return np.asarray(f(x.astype(np.float64)), dtype=np.float64).reshape(x.shape)


def _first_guess(y: np.ndarray) -> np.ndarray:
    """calc_erfinv's rational first guess, in ``y``'s dtype, operation by operation."""
    t = y.dtype.type
    a, b, c, d = ([t(v) for v in k] for k in (_A, _B, _C, _D))
    y_abs = np.abs(y)
    z = y * y
    num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0]
    dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + t(1)
    central = y * num / dem
    w = np.sqrt(-np.log((t(1) - y_abs) / t(2)))
    num = ((c[3] * w + c[2]) * w + c[1]) * w + c[0]
    dem = (d[1] * w + d[0]) * w + t(1)
    tail = np.copysign(num, y) / dem
    return np.where(y_abs <= t(_CENTRAL_RANGE), central, tail)


def _ends(y: np.ndarray, x: np.ndarray, outside: float = math.nan) -> np.ndarray:
    """``outside`` (a nan) for ``|y| > 1``, ``±inf`` at ``±1``, and a nan ``y`` itself,
    sign and payload kept but quieted, as torch's kernels give them."""
    t = y.dtype.type
    y_abs = np.abs(y)
    x = np.where(y_abs > t(1), t(outside), x)
    x = np.where(np.isnan(y), y + y, x)  # quieted, as arithmetic quiets a signalling nan
    return np.where(y_abs == t(1), np.copysign(t(np.inf), y), x)


def calc_erfinv_float32(y: np.ndarray) -> np.ndarray:
    """torch's ``calc_erfinv`` in float32 (its 16-bit kernel): the first guess, then two
    Newton steps ``x - (erf(x) - y) / ((2 / sqrt(pi)) * exp(-x * x))``, each operation
    rounded to float32."""
    y = np.asarray(y, dtype=np.float32)
    t = np.float32
    with np.errstate(all="ignore"):
        x = _first_guess(y)
        for _ in range(2):
            erf = _double(_erf, x).astype(t)
            x = x - (erf - y) / (t(_TWO_OVER_SQRT_PI) * np.exp(-x * x))
        return _ends(y, x)


def erfinv_accurate(y: np.ndarray) -> np.ndarray:
    """``erfinv`` within about an ulp of the exact value, in ``y``'s dtype (float32 or
    float64), computed in float64: the first guess, then three Newton steps, on ``erf(x) =
    y`` for ``|y| <= 0.5`` and on ``erfc(|x|) = 1 - |y|`` (exact there) above."""
    y = np.asarray(y)
    y64 = y.astype(np.float64)
    with np.errstate(all="ignore"):
        x = _first_guess(y64)
        y_abs = np.abs(y64)
        tail = y_abs > 0.5
        rest = 1 - y_abs
        x = x.reshape(-1)  # each value's steps on one side only: erfc near ±1, else erf
        tail, rest, y_flat = tail.reshape(-1), rest.reshape(-1)[tail.reshape(-1)], y64.reshape(-1)
        central = ~tail
        for _ in range(3):
            xt, xc = np.abs(x[tail]), x[central]
            x[tail] = np.copysign(
                xt + (_double(_erfc, xt) - rest) / (_TWO_OVER_SQRT_PI * np.exp(-xt * xt)),
                y_flat[tail])
            x[central] = xc - (_double(_erf, xc) - y_flat[central]) / (
                _TWO_OVER_SQRT_PI * np.exp(-xc * xc))
        x = x.reshape(y64.shape)
        # MKL's float32 ErfInv answers a value beyond ±1 with a nan whose sign bit is set
        outside = -math.nan if y.dtype == np.float32 else math.nan
        return _ends(y64, x, outside).astype(y.dtype)


def _formula(d: dtypes.dtype) -> object:
    """The kernel for a result of dtype ``d`` (the 16-bit types compute in float32)."""
    return calc_erfinv_float32 if d.itemsize == 2 else erfinv_accurate


def _register() -> None:
    functional, inplace = aten.erfinv.default, aten.erfinv_.default

    @functional.impl(DispatchKey.CPU)
    def cpu(self: Tensor) -> Tensor:
        d = _float_dtype(self)
        return cpu_result(_formula(d), [self], d, self._shape)

    @functional.impl(DispatchKey.Meta)
    def meta(self: Tensor) -> Tensor:
        return meta_result([self], _float_dtype(self), self._shape)

    @inplace.impl(DispatchKey.CPU)
    def cpu_(self: Tensor) -> Tensor:
        d = _check_float_inplace(self)
        return cpu_inplace(_formula(d), self, [self], d)

    @inplace.impl(DispatchKey.Meta)
    def meta_(self: Tensor) -> Tensor:
        _check_float_inplace(self)
        return _bump(self)


_register()
