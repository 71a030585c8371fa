"""Unary elementwise functions: one input, one output of the same shape.

Two families, told apart by their result dtype:

* **float functions** (``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tanh``, ``sigmoid``,
  ``reciprocal``, and ``rsqrt``, ``log1p``, ``log2``, ``log10``, ``exp2``, ``tan``,
  ``atan``, ``asin``, ``acos``, ``asinh``, ``acosh``, ``atanh``, ``sinh``, ``cosh``,
  ``erf``): integer and bool inputs are
  converted to the default float dtype, so ``torch.arange(3).exp()`` is float32;
* **same-dtype functions** (``neg``, ``abs``, ``relu``, ``sign``, ``floor``, ``round``,
  ``bitwise_not``, ``ceil``, ``trunc``, ``frac``, ``sgn``): the result has the input's
  dtype, and each refuses some dtypes exactly as torch does (``-`` on bool, ``abs`` of
  bool, ``~`` of a float);
* **value tests** (``isnan``, ``isinf``, ``isfinite``): a bool result of any input.

The transcendental functions are NumPy's, while torch uses its own vectorised (SLEEF)
versions: both are within about one unit in the last place of the exact value, so they may
differ from each other by a few units in the last place. Everything else is exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _kernels as K
from . import dtypes, factories, layout
from ._casting import checked_number, compute_dtype
from ._ops import DispatchKey, aten
from .dtypes import dtype
from .elementwise import (
    Kernel,
    _bump,
    _check_inplace,
    _not_implemented,
    _prepare,
    cpu_inplace,
    cpu_result,
    finish_cpu,
    finish_meta,
    meta_result,
)
from .promotion import result_type
from .tensor import Tensor

__all__: list[str] = []


def _no_bool(input: Tensor, message: str) -> None:
    if isinstance(input, Tensor) and input._dtype is dtypes.bool:
        raise RuntimeError(message)


_NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
             "to invert a mask, use the `~` or `logical_not()` operator instead.")


# ============================================================== float functions
# These ops are entries of the op table (``reftensor/_ops/native_functions.py``): the table
# gives their schemas and Python bindings, and this module registers their kernels by
# dispatch key. Each is one NumPy formula over the input's values.
FLOAT_FUNCTIONS: dict[str, Kernel] = {
    "exp": np.exp,
    "expm1": np.expm1,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": K.sigmoid,
    "reciprocal": np.reciprocal,
}


def _float_dtype(input: Tensor) -> dtype:
    """The dtype a float function computes in: the input's when it is floating, else the
    default float dtype (``torch.arange(3).exp()`` is float32)."""
    return input._dtype if input._dtype.is_floating_point else dtypes.get_default_dtype()


def _check_float_inplace(self: Tensor) -> dtype:
    """``exp_`` and the rest check what every in-place op checks (``elementwise._prepare``),
    so an integer ``self`` raises: the float result cannot be cast back to it."""
    common = _float_dtype(self)
    _prepare([self], common, self)
    return common


def register_float_function(name: str, formula: Kernel) -> None:
    """Register the kernels of ``aten.<name>`` and ``aten.<name>_``: CPU (compute the
    formula) and Meta (only the result's sizes, strides and dtype)."""
    functional, inplace = aten[name].default, aten[name + "_"].default

    @functional.impl(DispatchKey.CPU)
    def cpu(self: Tensor) -> Tensor:
        return cpu_result(formula, [self], _float_dtype(self), self._shape)

    @functional.impl(DispatchKey.Meta)
    def meta(self: Tensor) -> Tensor:
        return meta_result([self], _float_dtype(self), self._shape)

    @inplace.impl(DispatchKey.CPU)
    def cpu_(self: Tensor) -> Tensor:
        return cpu_inplace(formula, self, [self], _check_float_inplace(self))

    @inplace.impl(DispatchKey.Meta)
    def meta_(self: Tensor) -> Tensor:
        _check_float_inplace(self)
        return _bump(self)


for _name, _formula in FLOAT_FUNCTIONS.items():
    register_float_function(_name, _formula)


# ============================================================== more float functions
# Issue 43's float functions. torch computes float32 and float64 with SLEEF's or MKL's
# vector functions (within 1 ulp of the exact value); NumPy's float32 versions are less
# exact (2-3 ulps), so a float32 input is computed in float64 and rounded once, which puts
# it within 1 ulp of torch's. float16 and bfloat16 compute in float32 as everywhere here.
def in_double(formula: Kernel) -> Kernel:
    """``formula`` computed in float64 for a float32 array and rounded once to float32."""
    def kernel(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float32:
            return np.asarray(formula(x.astype(np.float64))).astype(np.float32)
        return formula(x)
    return kernel


_erf_of_double = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    """The C library's double ``erf`` of every value (NumPy has no erf of its own)."""
    return np.asarray(_erf_of_double(x), dtype=np.float64)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    # torch's kernel divides 1 by the rounded square root: two roundings, reproduced exactly
    return np.reciprocal(np.sqrt(x))


MORE_FLOAT_FUNCTIONS: dict[str, Kernel] = {
    "rsqrt": _rsqrt,
    "log1p": in_double(np.log1p),
    "log2": in_double(np.log2),
    "log10": in_double(np.log10),
    "exp2": in_double(np.exp2),
    "tan": in_double(np.tan),
    "atan": in_double(np.arctan),
    "asin": in_double(np.arcsin),
    "acos": in_double(np.arccos),
    "asinh": in_double(np.arcsinh),
    "acosh": in_double(np.arccosh),
    "atanh": in_double(np.arctanh),
    "sinh": in_double(np.sinh),
    "cosh": in_double(np.cosh),
    "erf": in_double(_erf),
}

for _name, _formula in MORE_FLOAT_FUNCTIONS.items():
    register_float_function(_name, _formula)


# ``square`` is torch's composite ``pow(self, 2)`` (``self.pow_(2)`` in place): it records
# ``PowBackward0`` and has pow's dtypes (a bool tensor squares to int64).
@aten.square.default.impl(DispatchKey.CompositeImplicitAutograd)
def square(self: Tensor) -> Tensor:
    """``self ** 2`` through ``pow.Tensor_Scalar``."""
    return aten.pow.Tensor_Scalar.call(self, 2)


@aten.square_.default.impl(DispatchKey.CompositeImplicitAutograd)
def square_(self: Tensor) -> Tensor:
    """``self.pow_(2)``."""
    return aten.pow_.Scalar.call(self, 2)


# ============================================================== tanh_backward
# tanh's derivative row runs ``tanh_backward(grad, result)``, an op of the table as in torch:
# ``1 - result * result`` then rounds once (torch's kernel compiles it to a fused
# multiply-add), and the derivative has a derivative of its own (``TanhBackwardBackward0``).
def _tanh_backward(grad_output: Tensor, output: Tensor, finish: Any) -> Tensor:
    """``grad_output * (1 - output * output)`` in ``result_type`` of the two, broadcast.

    Raises:
        NotImplementedError: integer or bool operands, on the CPU (torch's message).
    """
    common = result_type(grad_output, output)
    if finish is finish_cpu and not common.is_floating_point:
        raise _not_implemented("tanh_backward_cpu", common)
    shape = _prepare([grad_output, output], common, None)
    return finish(lambda g, y: g * K.fused_multiply_add(-y, y, np.ones_like(y)),
                  [grad_output, output], common, shape)


for _key, _finish_by_key in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
    aten.tanh_backward.default.impl(_key)(
        lambda grad_output, output, f=_finish_by_key: _tanh_backward(grad_output, output, f))


# ====================================================== sigmoid_backward, threshold_backward
# sigmoid's and relu's derivative rows run these ops of the table, as torch's do.
def _sigmoid_backward(grad_output: Tensor, output: Tensor, finish: Any) -> Tensor:
    """``grad_output * (1 - output) * output``, left to right, in ``result_type`` of the two,
    broadcast: bfloat16 in float32, rounded once; float16 rounded after each operation
    (torch's kernel widens bfloat16 only, and computes float16 in ``c10::Half``).

    Raises:
        NotImplementedError: integer or bool operands, on the CPU (torch's message).
    """
    common = result_type(grad_output, output)
    if finish is finish_cpu and not common.is_floating_point:
        raise _not_implemented("sigmoid_backward_cpu", common)
    shape = _prepare([grad_output, output], common, None)
    work = {"work": common} if common is dtypes.float16 else {}
    return finish(lambda g, y: g * (1 - y) * y, [grad_output, output], common, shape, **work)


def _threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any,
                        finish: Any) -> Tensor:
    """0 where ``self <= threshold``, else ``grad_output``, in ``result_type`` of the two,
    broadcast; torch's iterator takes ``self`` first, which lays the result out as it.
    float16 and bfloat16 compare in float32 with the threshold as a float32; other dtypes
    with the threshold converted to theirs (checked, as torch's ``Scalar.to``).

    Raises:
        NotImplementedError: bool operands, on the CPU (torch's message).
    """
    common = result_type(self, grad_output)
    if finish is finish_cpu and common is dtypes.bool:
        raise _not_implemented("threshold_cpu", common)
    shape = _prepare([self, grad_output], common, None)
    if finish is finish_meta:
        return finish(None, [self, grad_output], common, shape)
    work = compute_dtype(common)
    limit = checked_number(threshold, work)

    def kernel(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        return np.where(x <= limit, np.zeros_like(g), g)

    return finish(kernel, [self, grad_output], common, shape)


for _key, _finish_by_key in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
    aten.sigmoid_backward.default.impl(_key)(
        lambda grad_output, output, f=_finish_by_key: _sigmoid_backward(grad_output, output,
                                                                        f))
    aten.threshold_backward.default.impl(_key)(
        lambda grad_output, self, threshold, f=_finish_by_key: _threshold_backward(
            grad_output, self, threshold, f))


# ============================================================== same-dtype functions
# neg, abs, relu, sign, floor and round are ops of the table too. Each body below takes
# ``into`` (None, or ``self`` for the in-place form) and ``finish`` (``finish_cpu`` for the
# CPU key, ``finish_meta`` for the Meta key), and makes torch's checks in torch's order.
def _same(kernel: Kernel, input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """A result of the input's own dtype (written into ``into`` when in place)."""
    shape = _prepare([input], input._dtype, into)
    return finish(kernel, [input], input._dtype, shape, into)


def _neg(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """``-input``; unsigned integers wrap around (``-1`` is 255 in uint8); bool refused."""
    _no_bool(input, _NEG_BOOL)
    return _same(np.negative, input, into, finish)


def _abs_kernel(input: Tensor) -> Kernel:
    if input._dtype is dtypes.bool:
        raise _not_implemented("abs_cpu", dtypes.bool)
    return np.abs


def _abs(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """``|input|``: ``abs(int8(-128))`` wraps to -128; bool is NotImplementedError, after
    the in-place overlap checks, as in torch."""
    shape = _prepare([input], input._dtype, into)
    return finish(_abs_kernel(input), [input], input._dtype, shape, into)


def _relu_kernel(x: np.ndarray) -> np.ndarray:
    # clamp(x, min=0): -0.0 and nan are kept, since neither is below 0.
    return np.where(x < 0, np.zeros_like(x), x)


def _relu(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    _no_bool(input, "Boolean inputs not supported for relu")
    return _same(_relu_kernel, input, into, finish)


def _sign(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """-1, 0 or +1; 0 for nan and for -0.0; a bool tensor is copied unchanged."""
    return _same(K.sign, input, into, finish)


def _floor(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """Round down; integer tensors are copied unchanged; bool is NotImplementedError."""
    if input._dtype is dtypes.bool:
        raise _not_implemented("floor_vml_cpu", input._dtype)
    return _same(np.floor if input.is_floating_point() else np.asarray, input, into, finish)


def _round(input: Tensor, decimals: int | None, into: Tensor | None, finish: Any) -> Tensor:
    """Round half to even, to ``decimals`` decimal places: ``rint(x * 10**decimals) /
    10**decimals``, the nearest float to a rounded decimal (an enormous ``decimals`` gives
    nan, as in torch). Without ``decimals`` (None) integers are copied; bool, and integers
    given any ``decimals`` (0 included), are NotImplementedError."""
    d = input._dtype
    integral = not d.is_floating_point
    if d is dtypes.bool or (decimals is not None and integral):
        raise _not_implemented("round_vml_cpu" if not decimals else "round_cpu", d)
    if integral:
        kernel: Kernel = np.asarray
    elif not decimals:
        kernel = np.rint
    else:
        kernel = lambda x: K.round_decimals(x, decimals)  # noqa: E731
    return _same(kernel, input, into, finish)


def register_unary(name: str, body: Any, overload: str = "default") -> None:
    """The CPU and Meta kernels of ``aten.<name>.<overload>`` and of its in-place form:
    ``body(*arguments, into, finish)``."""
    functional = getattr(aten[name], overload)
    inplace = getattr(aten[name + "_"], overload) if name + "_" in aten else None
    for key, finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
        functional.impl(key)(lambda self, *a, f=finish: body(self, *a, None, f))
        if inplace is not None:
            inplace.impl(key)(lambda self, *a, f=finish: body(self, *a, self, f))


register_unary("neg", _neg)
register_unary("abs", _abs)
register_unary("relu", _relu)
register_unary("sign", _sign)
register_unary("floor", _floor)
register_unary("round", lambda input, into, finish: _round(input, None, into, finish))
register_unary("round", _round, "decimals")


# positive, bitwise_not and logical_not are ops of the table too.
@aten.positive.default.impl(DispatchKey.CompositeImplicitAutograd)
def positive(self: Tensor) -> Tensor:
    """``+self`` is ``self`` itself, not a copy; a bool tensor is refused."""
    _no_bool(self, "The `+` operator, on a bool tensor is not supported.")
    return self


def _bitwise_not(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """Every bit flipped (logical not on bool); a floating tensor is NotImplementedError."""
    shape = _prepare([input], input._dtype, into)
    if input.is_floating_point():
        raise _not_implemented("bitwise_not_cpu", input._dtype)
    return finish(np.invert, [input], input._dtype, shape, into)


def _logical_not(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """``input == 0``: a bool result, or in place the 0/1 in ``self``'s own dtype (no cast
    check: ``arange(3.0).logical_not_()`` is allowed)."""
    if into is None:
        return finish(_is_zero, [input], input._dtype, input._shape, out_dtype=dtypes.bool)
    _check_inplace(into, [input])
    return finish(_is_zero, [input], input._dtype, into._shape, into)


def _is_zero(x: np.ndarray) -> np.ndarray:
    return x == 0


register_unary("bitwise_not", _bitwise_not)
register_unary("logical_not", _logical_not)


# ============================================================== more rounding, sgn, tests
# Issue 43's same-dtype functions (ceil, trunc, frac, sgn) and the value tests (isnan,
# isinf, isfinite: a bool result of any input, no in-place form).
def _ceil(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """Round up; integer tensors are copied unchanged; bool is NotImplementedError."""
    if input._dtype is dtypes.bool:
        raise _not_implemented("ceil_vml_cpu", input._dtype)
    return _same(np.ceil if input.is_floating_point() else np.asarray, input, into, finish)


def _trunc(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """Round toward zero; integer tensors are copied unchanged; bool is
    NotImplementedError."""
    if input._dtype is dtypes.bool:
        raise _not_implemented("trunc_vml_cpu", input._dtype)
    return _same(np.trunc if input.is_floating_point() else np.asarray, input, into, finish)


def _frac_kernel(x: np.ndarray) -> np.ndarray:
    return x - np.trunc(x)


def _frac(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """``x - trunc(x)`` (exact); integer and bool tensors are NotImplementedError."""
    if not input.is_floating_point():
        raise _not_implemented("frac_cpu", input._dtype)
    return _same(_frac_kernel, input, into, finish)


def _value_test(kernel: Kernel, second: float | None, integers: bool | None = None) -> Any:
    """The body of ``isnan`` and ``isinf``: ``kernel`` of the values, a bool result laid out
    as the comparison torch's composite ends with: ``self != self`` (``isnan``), ``self.abs()
    == inf`` (``isinf``: a number second, ``second``); :func:`_isfinite`'s for an integer
    input. ``integers`` (``isinf``: False, ``isfinite``: True): the value of every
    element for an integer or bool input, which torch makes with ``zeros_like`` or
    ``ones_like`` (laid out as those: an expanded input keeps its zero strides)."""
    def body(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
        if integers is None or input.is_floating_point():
            # (``isinf`` compares ``self.abs()``, made first as torch's kernel makes it: an
            # empty input's result is laid out as that ``abs``'s, not as ``self``)
            operands = ([input, input] if second is None
                        else [aten.abs.default(input), second])
            return finish(lambda x, _: kernel(x), operands, input._dtype, input._shape,
                          out_dtype=dtypes.bool)
        result = factories._allocate(input._shape, input._strides_for(layout.preserve_format),
                                     dtypes.bool, input.device)
        if integers and not result.is_meta:
            result._storage._typed(dtypes.bool.numpy)[...] = True
        return result
    return body


register_unary("ceil", _ceil)
register_unary("trunc", _trunc)
register_unary("frac", _frac)
register_unary("sgn", _sign)  # real tensors only: the sign
register_unary("isnan", _value_test(np.isnan, None))
register_unary("isinf", _value_test(np.isinf, math.inf, False))


def _isfinite(input: Tensor, into: Tensor | None, finish: Any) -> Tensor:
    """torch's composite ``(self == self) * (self.abs() != inf)`` for a floating input,
    step by step, so that the result is laid out as that product (an input with a stride-0
    dim: not as ``self == self``); True everywhere for an integer or bool input."""
    if not input.is_floating_point():
        return _value_test(np.isfinite, None, True)(input, into, finish)
    equal = finish(lambda x, y: x == y, [input, input], input._dtype, input._shape,
                   out_dtype=dtypes.bool)
    bounded = finish(lambda x, y: x != y, [aten.abs.default(input), math.inf], input._dtype,
                     input._shape, out_dtype=dtypes.bool)
    return finish(np.logical_and, [equal, bounded], dtypes.bool, input._shape,
                  out_dtype=dtypes.bool)


register_unary("isfinite", _isfinite)
