"""More pointwise ops (chapter 3, issue 43): binary float functions, ``fmod``, ``logit``,
``nan_to_num`` and the bit shifts. Each is the elementwise recipe of ``elementwise.py``
(promote, broadcast, allocate, compute, write) with the dtype rules of torch's kernel:

* ``atan2`` and ``xlogy`` promote integer and bool operands to the default float dtype;
  ``hypot``, ``logaddexp`` and ``logaddexp2`` do not (their CPU kernels have no integer
  version: NotImplementedError; their meta kernels never look);
* ``fmod`` keeps ``result_type``, takes the sign of the dividend, and an integer ``fmod``
  by zero raises ``RuntimeError("ZeroDivisionError")``;
* ``logit`` and ``nan_to_num`` are unary: ``logit`` promotes integers, ``nan_to_num`` copies
  integer and bool tensors as they are;
* ``<<`` and ``>>`` keep ``result_type`` (integers only) and follow torch's CPU kernel for
  shifts below 0 or of the width or more: 0, or -1 for a negative value shifted right.

The transcendental formulas are NumPy's (float32 computed in float64 and rounded once),
within a few units in the last place of torch's.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _kernels as K
from . import dtypes, layout, out_arguments
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .device import META
from .dtype_info import finfo
from .dtypes import dtype
from .elementwise import (
    Kernel,
    Operand,
    _bump,
    _compute,
    _device,
    _empty,
    _not_implemented,
    _prepare,
    _write,
    finish_cpu,
    finish_meta,
    output_strides,
)
from .promotion import SCALAR_TYPE_NAMES, result_type
from .tensor import Tensor
from .unary import _check_float_inplace, _float_dtype

__all__: list[str] = []


def _in_double(formula: Kernel) -> Kernel:
    """``formula`` of float32 arrays computed in float64 and rounded once to float32."""
    def kernel(*values: np.ndarray) -> np.ndarray:
        if values[0].dtype == np.float32:
            wide = [v.astype(np.float64) for v in values]
            return np.asarray(formula(*wide)).astype(np.float32)
        return formula(*values)
    return kernel


def _register(op: str, body: Any) -> None:
    """CPU and Meta kernels of every overload of ``aten.<op>`` and of its in-place form:
    ``body(self, other, into, finish)``."""
    for overload in aten[op].python_overloads:
        written = overload.inplace_form
        for key, finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
            overload.impl(key)(lambda self, other, f=finish: body(self, other, None, f))
            if written is not None:
                written.impl(key)(lambda self, other, f=finish: body(self, other, self, f))


# ============================================================== float functions of two
def _float_common(input: Operand, other: Operand) -> dtype:
    """``result_type``, with integer and bool results made the default float dtype (torch's
    ``promote_integer_inputs_to_float``)."""
    common = result_type(input, other)
    return common if common.is_floating_point else dtypes.get_default_dtype()


def _xlogy_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch's ``xlogy``: nan where ``y`` is nan, else 0 where ``x`` is 0, else ``x * log(y)``."""
    product = x * np.log(y)
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, product)).astype(x.dtype)


_PROMOTING: dict[str, Kernel] = {
    "atan2": _in_double(np.arctan2),
    "xlogy": _in_double(_xlogy_values),
}


def _promoting(name: str) -> Any:
    kernel = _PROMOTING[name]

    def body(input: Operand, other: Operand, into: Tensor | None, finish: Any) -> Tensor:
        common = _float_common(input, other)
        shape = _prepare([input, other], common, into)
        return finish(kernel, [input, other], common, shape, into)
    return body


_register("atan2", _promoting("atan2"))
_register("xlogy", _promoting("xlogy"))


# hypot, logaddexp and logaddexp2 compute in ``result_type`` and have no integer kernels
_FLOAT_ONLY: dict[str, Kernel] = {
    "hypot": np.hypot,
    "logaddexp": _in_double(np.logaddexp),
    "logaddexp2": _in_double(np.logaddexp2),
}

_SUB_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.")


def _float_only(name: str) -> Any:
    kernel = _FLOAT_ONLY[name]

    def body(input: Operand, other: Operand, into: Tensor | None, finish: Any) -> Tensor:
        common = result_type(input, other)
        shape = _prepare([input, other], common, into)
        if finish is finish_meta:
            # torch's meta kernels of logaddexp and logaddexp2 are Python decompositions
            # that subtract the operands: two bool tensors are refused there
            if name != "hypot" and common is dtypes.bool:
                raise RuntimeError(_SUB_BOOLS)
        elif not common.is_floating_point:
            raise _not_implemented(f"{name}_cpu", common)
        return finish(kernel, [input, other], common, shape, into)
    return body


for _name in _FLOAT_ONLY:
    _register(_name, _float_only(_name))


# ============================================================== fmod
def _fmod_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's ``%`` on integers: the sign of ``a``; a zero divisor raises."""
    K.check_no_zero_divisor(b)
    return np.fmod(a, b)


def _fmod(input: Operand, other: Operand, into: Tensor | None, finish: Any) -> Tensor:
    common = result_type(input, other)
    shape = _prepare([input, other], common, into)
    if finish is finish_cpu and common is dtypes.bool:
        raise _not_implemented("fmod_cpu", common)
    kernel = np.fmod if common.is_floating_point else _fmod_int
    return finish(kernel, [input, other], common, shape, into)


_register("fmod", _fmod)


# ============================================================== shifts
def _left_shift(bits: int) -> Kernel:
    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        outside = (b < 0) | (b >= bits)
        shifted = np.left_shift(a, np.clip(b, 0, bits - 1).astype(a.dtype))
        return np.where(outside, 0, shifted).astype(a.dtype)
    return kernel


def _right_shift(bits: int) -> Kernel:
    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        outside = (b < 0) | (b >= bits)
        shifted = np.right_shift(a, np.clip(b, 0, bits - 1).astype(a.dtype))
        return np.where(outside, np.where(a < 0, -1, 0), shifted).astype(a.dtype)
    return kernel


def _shift(name: str, make: Any) -> Any:
    def body(input: Operand, other: Operand, into: Tensor | None, finish: Any) -> Tensor:
        common = result_type(input, other)
        shape = _prepare([input, other], common, into)
        if finish is finish_cpu and (common.is_floating_point or common is dtypes.bool):
            raise _not_implemented(name, common)
        bits = 8 * np.dtype(common.numpy).itemsize
        return finish(make(bits), [input, other], common, shape, into)
    return body


_register("bitwise_left_shift", _shift("lshift_cpu", _left_shift))
_register("bitwise_right_shift", _shift("rshift_cpu", _right_shift))


# ============================================================== logit
def _logit_kernel(eps: builtins.float | None, common: dtype) -> Kernel:
    """torch's CPU kernel: ``x`` clamped to ``[eps, 1 - eps]`` when ``eps >= 0`` (``x < lo ?
    lo : (x > hi ? hi : x)``, both bounds in the dtype), then ``log(x / (1 - x))``, inf at
    1; float16 and bfloat16 round ``1 - x`` and the quotient to the dtype, as torch's
    vectorised loop does (each operation on 16-bit vectors rounds)."""
    work = compute_dtype(common).numpy
    lo = hi = None
    if eps is not None and eps >= 0:
        lo = cast(np.asarray(eps, dtype=np.float64), common).astype(work)
        hi = cast(np.asarray(1 - lo, dtype=work), common).astype(work)

    if work is not common.numpy:  # float16, bfloat16: each step rounded to the dtype
        def step(v: np.ndarray) -> np.ndarray:
            return cast(v, common).astype(work)
    else:
        def step(v: np.ndarray) -> np.ndarray:
            return v

    def kernel(x: np.ndarray) -> np.ndarray:
        if lo is not None:
            x = np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(x.dtype)
        ratio = step(x / step(1 - x))
        value = _in_double(np.log)(ratio)
        return np.where(x == 1, np.inf, value).astype(x.dtype)
    return kernel


def _logit(self: Tensor, eps: builtins.float | None, into: Tensor | None, finish: Any) -> Tensor:
    common = _check_float_inplace(self) if into is not None else _float_dtype(self)
    return finish(_logit_kernel(eps, common), [self], common, self._shape, into)


for _key, _finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
    aten.logit.default.impl(_key)(lambda self, eps=None, f=_finish: _logit(self, eps, None, f))
    aten.logit_.default.impl(_key)(lambda self, eps=None, f=_finish: _logit(self, eps, self, f))


# ============================================================== nan_to_num
def _nan_to_num_kernel(common: dtype, nan: Any, posinf: Any, neginf: Any) -> Kernel:
    """nan, +inf and -inf replaced, the defaults being 0 and the dtype's largest and
    smallest finite values (the replacements are rounded to the dtype afterwards)."""
    largest = finfo(common).max
    nan_value = 0.0 if nan is None else builtins.float(nan)
    high = largest if posinf is None else builtins.float(posinf)
    low = -largest if neginf is None else builtins.float(neginf)

    def kernel(x: np.ndarray) -> np.ndarray:
        work = x.dtype.type
        return np.where(np.isnan(x), work(nan_value),
                        np.where(x == np.inf, work(high),
                                 np.where(x == -np.inf, work(low), x))).astype(x.dtype)
    return kernel


def _nan_to_num_values(self: Tensor, nan: Any, posinf: Any, neginf: Any) -> np.ndarray:
    common = self._dtype
    if not common.is_floating_point:
        return self._elements()
    kernel = _nan_to_num_kernel(common, nan, posinf, neginf)
    return _compute(kernel, [self], common, self._shape)


def _nan_to_num(self: Tensor, nan: Any = None, posinf: Any = None,
                neginf: Any = None) -> Tensor:
    """``empty_like(self)`` (a dense ``self`` keeps its strides) written with the values."""
    out = _empty(self._shape, self._strides_for(layout.preserve_format), self._dtype,
                 _device([self]))
    return _write(out, _nan_to_num_values(self, nan, posinf, neginf))


def _nan_to_num_meta(self: Tensor, nan: Any = None, posinf: Any = None,
                     neginf: Any = None) -> Tensor:
    return _empty(self._shape, self._strides_for(layout.preserve_format), self._dtype, META)


def _nan_to_num_(self: Tensor, nan: Any = None, posinf: Any = None,
                 neginf: Any = None) -> Tensor:
    _prepare([self], self._dtype, self)
    _write(self, _nan_to_num_values(self, nan, posinf, neginf))
    return _bump(self)


def _nan_to_num_meta_(self: Tensor, nan: Any = None, posinf: Any = None,
                      neginf: Any = None) -> Tensor:
    _prepare([self], self._dtype, self)
    return _bump(self)


aten.nan_to_num.default.impl(DispatchKey.CPU)(_nan_to_num)
aten.nan_to_num.default.impl(DispatchKey.Meta)(_nan_to_num_meta)
aten.nan_to_num_.default.impl(DispatchKey.CPU)(_nan_to_num_)
aten.nan_to_num_.default.impl(DispatchKey.Meta)(_nan_to_num_meta_)


def _nan_to_num_out_dtype(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """torch's ``nan_to_num_out`` first wants ``out`` of exactly the input's dtype."""
    self, out = inputs[0], outs[0]
    if out._dtype is not self._dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {SCALAR_TYPE_NAMES[out._dtype.name]} "
                           f"should be same as input: {SCALAR_TYPE_NAMES[self._dtype.name]}")
    return inputs


def _nan_to_num_for_out(self: Tensor, nan: Any = None, posinf: Any = None,
                        neginf: Any = None) -> Tensor:
    """The values an ``out=`` receives, laid out as torch resizes an ``out`` of another
    shape: row-major for an integer or bool input (``resize_output``, then ``copy_``), like
    the input for a float one (the iterator's output layout)."""
    shape = self._shape
    if self._dtype.is_floating_point:
        stride = output_strides([self], self._dtype, shape)
    else:
        stride = layout.contiguous_strides(shape)
    out = _empty(shape, stride, self._dtype, _device([self]))
    if self.is_meta:
        return out
    return _write(out, _nan_to_num_values(self, nan, posinf, neginf))


out_arguments.set_rule(aten.nan_to_num.out, out_arguments.OutRule(
    prepare=_nan_to_num_out_dtype, compute=_nan_to_num_for_out))
