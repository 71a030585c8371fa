"""Softmax and log-softmax (chapter 6): the kernels of ``_softmax``, ``_log_softmax``, their
backward ops, and the composites ``softmax`` and ``log_softmax``.

``softmax(x)`` along a dim is ``exp(x) / sum(exp(x))``. Written so, ``exp`` overflows for
``x`` above 88 in float32 (inf / inf is nan); torch's CPU kernel first subtracts the row's
maximum, which changes nothing mathematically and keeps every ``exp`` at most 1:

* ``_softmax``: ``e = exp(x - max)``, then ``e * (1 / sum(e))`` along the last dim
  (``_vec_softmax_lastdim``) or ``e / sum(e)`` along another (``_vec_softmax``);
* ``_log_softmax``: ``(x - max) - log(sum(exp(x - max)))``, in that order (adding ``max``
  and the log first would lose the digits of large inputs that differ little).

float16 and bfloat16 compute in float32 and round once. The result is contiguous whatever
the input's layout (torch makes the input contiguous first). exp and the order of the sum
are NumPy's, so float results are within a few ulps of torch's (SLEEF's exp, a vectorised
sum), not bit for bit.

The gradients are ops of their own: ``_softmax_backward_data`` is ``(grad - sum(grad *
output)) * output`` and ``_log_softmax_backward_data`` is ``grad - exp(output) *
sum(grad)``, each from the forward's result (``SoftmaxBackward0`` and
``LogSoftmaxBackward0`` save it); their own derivatives are rows too, so a second
derivative works.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import dtypes, factories, layout
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .device import CPU, META, common_device
from .dtypes import dtype
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor, wrap_dim

__all__: list[str] = []  # the ops are the table's (reftensor.softmax, Tensor.log_softmax, ...)


def _dim(t: Tensor, dim: int) -> int:
    """``dim`` wrapped; a 0-d tensor is seen as one element (dim 0 or -1)."""
    return wrap_dim(dim, builtins.max(t.dim(), 1))


def _new(t: Tensor, d: dtype, values: np.ndarray | None) -> Tensor:
    """A contiguous tensor of ``t``'s shape and dtype ``d`` (on meta: no values)."""
    where = META if values is None else CPU
    out = factories._allocate(t._shape, layout.contiguous_strides(t._shape), d, where)
    if values is not None:
        out._elements()[...] = cast(values.reshape(t._shape), d)
    return out


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[d.name]}\'')


def softmax_values(x: np.ndarray, axis: int, *, log: bool,
                   narrow: Any = None) -> np.ndarray:
    """torch's CPU softmax (``log``: log-softmax) of ``x`` along ``axis`` (the last axis
    multiplies by the sum's reciprocal, another divides). ``narrow`` rounds to float16 or
    bfloat16 (and back to float32): torch's last-dim log-softmax of those types keeps the
    sum, then its log, in arrays of the input's type (``serial_vec_log_softmax_lastdim_range``),
    so each is rounded to it."""
    if x.size == 0:
        return x.copy()
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    total = np.sum(e, axis=axis, keepdims=True)
    last = axis == x.ndim - 1
    if log:
        if narrow is not None and last:
            return shifted - narrow(np.log(narrow(total)))
        return shifted - np.log(total)
    return e * (1 / total) if last else e / total


def _forward(self: Tensor, dim: int, half_to_float: bool, *, log: bool, meta: bool) -> Tensor:
    """``_softmax`` and ``_log_softmax``."""
    d = _dim(self, dim)
    if half_to_float:
        raise RuntimeError(f"{'log_' if log else ''}softmax with half to float conversion is "
                           "not supported on CPU")
    if self.numel() == 0:  # torch returns before choosing a kernel by dtype
        return _new(self, self._dtype, None if meta else np.zeros(0))
    if not self._dtype.is_floating_point:  # (on meta too: torch's meta decomposition
        # gives float32 for a bool input, or refuses it, where its CPU kernel refuses)
        last = self.dim() == 0 or d == self.dim() - 1
        name = ("log_softmax" if log else "softmax") + ("_lastdim" if last else "")
        raise _not_implemented(f"{name}_kernel_impl", self._dtype)
    if meta:
        return _new(self, self._dtype, None)
    work = compute_dtype(self._dtype)
    x = cast(self._elements(), work).reshape(self._shape or (1,))
    narrow = None if work is self._dtype else (
        lambda v: cast(cast(v, self._dtype), work))
    with np.errstate(all="ignore"):
        return _new(self, self._dtype, softmax_values(x, d, log=log, narrow=narrow))


def _backward(grad_output: Tensor, output: Tensor, dim: int, input_dtype: dtype, *,
              log: bool, meta: bool) -> Tensor:
    """``_softmax_backward_data`` and ``_log_softmax_backward_data``."""
    common_device([grad_output, output])
    if grad_output._shape != output._shape:
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have the same size as "
                           f"tensor for argument #2 'output'; but {list(grad_output._shape)} "
                           f"does not equal {list(output._shape)}")
    d = _dim(grad_output, dim)
    result = grad_output._dtype
    if result is dtypes.float32 and input_dtype is dtypes.float16:  # torch's half_to_float
        result = dtypes.float16
    if grad_output.numel() == 0:
        return _new(grad_output, result, None if meta else np.zeros(0))
    if not grad_output._dtype.is_floating_point:  # (on meta too, as the forward ops)
        last = grad_output.dim() == 0 or d == grad_output.dim() - 1
        name = ("log_softmax" if log else "softmax") + ("_backward_lastdim" if last
                                                       else "_backward")
        raise _not_implemented(f"{name}_kernel_impl", grad_output._dtype)
    if meta:
        return _new(grad_output, result, None)
    if output._dtype is not grad_output._dtype:
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[grad_output._dtype.name]}"
                           f" but found {SCALAR_TYPE_NAMES[output._dtype.name]}")
    work = compute_dtype(grad_output._dtype)
    shape = grad_output._shape or (1,)
    g = cast(grad_output._elements(), work).reshape(shape)
    y = cast(output._elements(), work).reshape(shape)
    with np.errstate(all="ignore"):
        if log:
            values = g - np.exp(y) * np.sum(g, axis=d, keepdims=True)
        else:
            values = (g - np.sum(g * y, axis=d, keepdims=True)) * y
    return _new(grad_output, result, values)


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten._softmax.default.impl(_key)(
        lambda x, dim, h, meta=_meta: _forward(x, dim, h, log=False, meta=meta))
    aten._log_softmax.default.impl(_key)(
        lambda x, dim, h, meta=_meta: _forward(x, dim, h, log=True, meta=meta))
    aten._softmax_backward_data.default.impl(_key)(
        lambda g, y, dim, d, meta=_meta: _backward(g, y, dim, d, log=False, meta=meta))
    aten._log_softmax_backward_data.default.impl(_key)(
        lambda g, y, dim, d, meta=_meta: _backward(g, y, dim, d, log=True, meta=meta))


# ``softmax`` and ``log_softmax`` are torch's ``CompositeImplicitAutograd`` functions: the
# input converted to ``dtype`` when one is given, then the kernel op, which records itself.
def _converted(input: Tensor, dtype: dtype | None) -> Tensor:
    return input if dtype is None else input.to(dtype)


@aten.softmax.int.impl(DispatchKey.CompositeImplicitAutograd)
def softmax(input: Tensor, dim: int, dtype: dtype | None) -> Tensor:
    return aten._softmax.default.call(_converted(input, dtype), dim, False)


@aten.log_softmax.int.impl(DispatchKey.CompositeImplicitAutograd)
def log_softmax(input: Tensor, dim: int, dtype: dtype | None) -> Tensor:
    return aten._log_softmax.default.call(_converted(input, dtype), dim, False)


def _exact_dtype(result: Tensor, out: Tensor) -> None:
    """A structured kernel's ``out=`` has exactly the result's dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{SCALAR_TYPE_NAMES[result._dtype.name]}, but got "
                           f"{SCALAR_TYPE_NAMES[out._dtype.name]} instead")


OUT_DTYPE_RULES.update(_softmax=_exact_dtype, _log_softmax=_exact_dtype,
                       _log_softmax_backward_data=_exact_dtype, softmax=_exact_dtype,
                       log_softmax=_exact_dtype)
