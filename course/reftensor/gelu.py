"""GELU (chapter 6): the kernels of ``gelu`` and ``gelu_backward``.

``gelu(x) = x * Phi(x)``, where ``Phi`` is the standard normal's CDF, ``(1 + erf(x /
sqrt(2))) / 2``. With ``approximate='tanh'`` torch uses the older approximation
``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.

Both kernels keep the input's dtype (an integer or bool input is refused: there is no
integer GELU); float16 and bfloat16 compute in float32 and round once, as torch's CPU
kernel does. Where torch's CPU build does not call the C library's ``erf`` (oneDNN's GELU of
a contiguous float32 tensor of more than one element, forward and backward; ATen's vectorised
loop over a contiguous float16 or bfloat16 tensor, 32 elements at a time), its arithmetic is
repeated bit for bit (``_gelu_cpu.py``: an approximation of ``erf`` whose error shows near
``x = -2``). Elsewhere torch's kernel calls the C library's ``erf`` (``math.erf`` here: NumPy
has none); ``tanh`` is the C library's for float64 and NumPy's for float32, within a few ulps
of torch's.

The derivative is an op too, ``gelu_backward(grad, x)``:

* exact: ``grad * (Phi(x) + x * phi(x))`` with ``phi(x) = exp(-x**2 / 2) / sqrt(2 pi)``;
* tanh: with ``u = sqrt(2 / pi) * (x + 0.044715 x**3)`` and ``t = tanh(u)``,
  ``grad * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * sqrt(2 / pi) * (1 + 3 * 0.044715 x**2))``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _gelu_cpu, dtypes, layout
from ._layers import fma
from ._ops import DispatchKey, aten
from .elementwise import _not_implemented, _prepare, finish_cpu, finish_meta
from .promotion import SCALAR_TYPE_NAMES, result_type
from .storage import UntypedStorage
from .tensor import Tensor

__all__: list[str] = []

_SQRT1_2 = math.sqrt(0.5)
_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # sqrt(2 / pi), as torch forms it
_ALPHA = (2.0 / math.sqrt(math.pi)) * _SQRT1_2 * 0.5  # 1 / sqrt(2 pi)
_KAPPA = 0.044715
_erf = np.frompyfunc(math.erf, 1, 1)
_c_tanh = np.frompyfunc(math.tanh, 1, 1)


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def erf(x: np.ndarray) -> np.ndarray:
    """``erf`` of every value, in ``x``'s dtype (the C library's double ``erf``, rounded)."""
    x = np.asarray(x)
    return np.asarray(_erf(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _tanh(x: np.ndarray) -> np.ndarray:
    """``tanh`` of every value, in ``x``'s dtype: a double's is the C library's ``tanh``
    (torch's scalar loop calls it; NumPy's own differs by an ulp, which ``1 + tanh(u)``
    near -1 makes hundreds in ``gelu_backward``), a narrower dtype's computed in double and
    rounded once (as the C library's ``tanhf``)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        return np.asarray(_c_tanh(x), dtype=np.float64)
    return np.tanh(x.astype(np.float64)).astype(x.dtype)


def _exp(x: np.ndarray) -> np.ndarray:
    """``exp`` of every value, in ``x``'s dtype, computed in double and rounded once (the C
    library's ``expf`` is correctly rounded here; NumPy's float32 ``exp`` may be an ulp
    off)."""
    x = np.asarray(x)
    return np.exp(x.astype(np.float64)).astype(x.dtype)


def _constant(value: float, x: np.ndarray) -> Any:
    """A constant in the computation's dtype (torch's kernel holds them as ``scalar_t``)."""
    return x.dtype.type(value)


def gelu_values(x: np.ndarray, approximate: str) -> np.ndarray:
    """GELU of ``x`` (float32 or float64), in torch's kernel's order of operations."""
    half, one = _constant(0.5, x), _constant(1.0, x)
    if approximate == "tanh":
        inner = _constant(_BETA, x) * (x + _constant(_KAPPA, x) * (x * x * x))
        t = _tanh(inner) if x.dtype == np.float64 else np.tanh(inner)  # (float32: NumPy's)
        return half * x * (one + t)
    return x * half * (one + erf(x * _constant(_SQRT1_2, x)))


def gelu_backward_values(g: np.ndarray, x: np.ndarray, approximate: str) -> np.ndarray:
    """``gelu_backward``'s values (``g`` the incoming gradient), in torch's kernel's order."""
    half, one = _constant(0.5, x), _constant(1.0, x)
    if approximate == "tanh":
        beta, kappa = _constant(_BETA, x), _constant(_KAPPA, x)
        x_sq = x * x
        t = _tanh(beta * (x + kappa * (x_sq * x)))
        left_derivative = half * (one + t)
        right_derivative = fma(-t, t, np.broadcast_to(one, t.shape))  # torch's, contracted
        inner_derivative = beta * (one + _constant(3.0, x) * kappa * x_sq)
        return g * (left_derivative + half * x * right_derivative * inner_derivative)
    cdf = half * (one + erf(x * _constant(_SQRT1_2, x)))
    pdf = _constant(_ALPHA, x) * _exp(x * x * _constant(-0.5, x))
    return g * fma(x, pdf, cdf)  # torch's scalar ``cdf + x * pdf``, contracted


def _gelu(input: Tensor, approximate: str, into: Tensor | None, finish: Any) -> Tensor:
    """``gelu``: the input's dtype, floating types only."""
    _check_approximate(approximate)
    shape = _prepare([input], input._dtype, into)
    if not input._dtype.is_floating_point:
        raise _not_implemented("GeluKernelImpl", input._dtype)
    if approximate == "none" and _to_onednn(input):
        return finish(_gelu_cpu.gelu_erf, [input], input._dtype, shape, into)
    if (approximate == "none" and input._dtype in (dtypes.float16, dtypes.bfloat16)
            and input.numel() >= _gelu_cpu.VECTOR_RUN and input.is_contiguous()
            and _gelu_cpu.runs_here()):
        return finish(_vectorized_then_scalar, [input], input._dtype, shape, into)
    return finish(lambda x: gelu_values(x, approximate), [input], input._dtype, shape, into)


def _vectorized_then_scalar(x: np.ndarray) -> np.ndarray:
    """ATen's reduced-float GELU of a contiguous tensor (float32 values in ``x``, in order):
    its leading multiple of 32 elements through the vectorised approximation, the rest
    through the scalar loop's C library ``erf``."""
    flat = x.reshape(-1)
    cut = flat.size - flat.size % _gelu_cpu.VECTOR_RUN
    values = np.concatenate([_gelu_cpu.vectorized_gelu(flat[:cut]),
                             gelu_values(flat[cut:], "none")]).astype(x.dtype)
    return values.reshape(x.shape)


def _to_onednn(self: Tensor) -> bool:
    """Does torch hand this exact GELU to oneDNN (``use_mkldnn``: a contiguous float32 tensor
    of more than one element), on a machine where reftensor repeats oneDNN's arithmetic
    (``_gelu_cpu.runs_here``)?"""
    return (self._dtype is dtypes.float32 and self.numel() > 1 and self.is_contiguous()
            and _gelu_cpu.runs_here())


def _dense_like(t: Tensor) -> Tensor:
    """``t``, or a tensor of its dtype laid out as ``t.to(float32)``'s copy is (dense, in
    ``t``'s dim order), where ``t`` is not dense."""
    if layout.is_non_overlapping_and_dense(t._shape, t._stride):
        return t
    stride = layout.dense_strides_like(t._shape, t._stride)
    storage = UntypedStorage(layout.required_storage_elements(t._shape, stride)
                             * t._dtype.itemsize, device=t.device)
    return Tensor._make(storage, t._shape, stride, 0, t._dtype)


def _onednn_refuses(grad: Tensor, self: Tensor) -> RuntimeError | None:
    """torch's error where its oneDNN path refuses ``grad``, else None. On these machines
    torch hands the exact backward to oneDNN when ``self`` is a contiguous float32 tensor of
    more than one element (float16/bfloat16 go through ATen's own loop). oneDNN takes a
    gradient of float32, bfloat16, float16, int8 or uint8 only, whose dims (those of size 1
    left out), ordered by stride, do not overlap: each stride at least the next smaller
    stride times its size."""
    if self._dtype is not dtypes.float32 or self.numel() <= 1 or not self.is_contiguous():
        return None
    if grad._dtype not in (dtypes.float32, dtypes.bfloat16, dtypes.float16, dtypes.int8,
                           dtypes.uint8):
        return RuntimeError("itensor_view_from_dense expects float/bfloat16/half/int8/fp8 "
                            f"tensor input{SCALAR_TYPE_NAMES[grad._dtype.name]}")
    dims = sorted(((st, n) for n, st in zip(grad._shape, grad._stride, strict=True)
                   if n != 1), reverse=True)
    if any(outer[0] < inner[0] * inner[1] for outer, inner in zip(dims, dims[1:], strict=False)):
        return RuntimeError("could not construct a memory descriptor using strides")
    return None


def _gelu_backward(grad_output: Tensor, self: Tensor, approximate: str, finish: Any) -> Tensor:
    """``gelu_backward``: promoted and broadcast as a binary op; floating types only."""
    _check_approximate(approximate)
    common = result_type(grad_output, self)
    shape = _prepare([grad_output, self], common, None)
    if not common.is_floating_point:
        raise _not_implemented("GeluBackwardKernelImpl", common)
    refused = (_onednn_refuses(grad_output, self)
               if finish is finish_cpu and approximate == "none" else None)
    if refused is not None:
        raise refused
    if finish is finish_meta and common in (dtypes.float16, dtypes.bfloat16):
        # torch's meta kernel here is its Python decomposition, which first converts each
        # operand to float32 (``pw_cast_for_opmath``): a dense copy of an operand that is not
        # dense (an expanded ``grad`` then no longer decides the layout)
        grad_output, self = (_dense_like(t) for t in (grad_output, self))
    if (approximate == "none" and common is dtypes.float32 and grad_output._dtype is common
            and grad_output._shape == self._shape and _to_onednn(self)):
        return finish(_gelu_cpu.gelu_erf_backward, [grad_output, self], common, shape)
    return finish(lambda g, x: gelu_backward_values(g, x, approximate), [grad_output, self],
                  common, shape)


for _key, _finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
    aten.gelu.default.impl(_key)(
        lambda self, approximate="none", f=_finish: _gelu(self, approximate, None, f))
    aten.gelu_backward.default.impl(_key)(
        lambda g, x, approximate="none", f=_finish: _gelu_backward(g, x, approximate, f))
