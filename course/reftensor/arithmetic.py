"""Arithmetic: ``+ - * / // % **`` and their in-place and reflected forms.

Each op here is the elementwise recipe of ``elementwise.py`` (promote, broadcast, allocate,
compute, write) plus the rules torch adds for that op, all checked against torch:

* ``-`` refuses bool tensors (and Python bools); ``+`` and ``*`` on bools are or / and.
* ``/`` of integers gives the default float dtype; ``//`` and ``%`` of integers raise
  ``RuntimeError("ZeroDivisionError")`` on a zero divisor and follow Python's signs.
* ``2 - t`` is ``rsub``; ``2 / t`` is ``t.reciprocal() * 2`` (so it rounds twice).
* ``t ** 0`` is all ones and ``t ** 1`` a copy, whatever ``t`` holds (nan included);
  an integer tensor to a negative Python int raises; ``2 ** t`` comes out contiguous.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _kernels as K
from . import dtypes, iterator, out_arguments
from ._casting import cast, checked_number, compute_dtype
from ._ops import DispatchKey, aten
from .dtypes import dtype
from .elementwise import (
    Kernel,
    Operand,
    _compute,
    _empty,
    _fast_finish,
    _fast_operands,
    _finish,
    _layout_seen,
    _not_implemented,
    _prepare,
    _write,
    fast_binary,
    fast_inplace_operands,
    finish_cpu,
    finish_meta,
    is_single_value,
    write_inplace,
)
from .layout import contiguous_strides
from .promotion import (
    SCALAR_TYPE_NAMES,
    binary_result_type,
    check_can_cast,
    is_number,
    result_type,
)
from .tensor import Tensor

__all__: list[str] = []


# ============================================================== add, sub, mul
def _alpha(alpha: Any, common: dtype, *, negate: builtins.bool = False) -> np.ndarray:
    """``alpha`` checked as torch's ``alpha_check`` and converted to ``common``."""
    if isinstance(alpha, Tensor) and alpha.dim() == 0:
        alpha = alpha.item()  # torch reads a 0-d tensor as the number it holds
    if not is_number(alpha):
        raise TypeError(f"argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(alpha, builtins.bool) and common is not dtypes.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, builtins.float) and not common.is_floating_point:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    return checked_number(-alpha if negate else alpha, common)


def _add_kernel(alpha: np.ndarray, common: dtype) -> Kernel:
    """``a + alpha * b``. With ``alpha == 1`` that is ``a + b``, exactly. Otherwise torch's
    float32/float64 loops mostly fuse the multiply-add (one rounding), and its
    float16/bfloat16 loops for short tensors round ``alpha * b`` to 16 bits before adding;
    reftensor does the same. (Which loop torch runs depends on the tensor's length and
    even on its memory alignment, so with ``alpha != 1`` a float result can differ from
    torch's in the last bit.)"""
    if alpha == 1:
        return np.add
    work = compute_dtype(common)
    scale = cast(alpha, work)
    if not common.is_floating_point:
        return lambda a, b: a + scale * b  # integers wrap around
    if work is not common:
        return lambda a, b: a + cast(cast(scale * b, common), work)
    return lambda a, b: K.fused_multiply_add(np.broadcast_to(scale, b.shape), b, a)


def _sub_check(input: Operand, other: Operand) -> None:
    """torch refuses ``-`` on bool tensors (Python bools count as bool tensors here)."""
    kinds = [x._dtype if isinstance(x, Tensor) else None for x in (input, other)]
    bools = [d is dtypes.bool or isinstance(x, builtins.bool)
             for d, x in zip(kinds, (input, other), strict=True)]
    if all(bools):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


# The op table declares add, sub, mul and div (``reftensor/_ops/native_functions.py``); the
# kernels below are registered for them by dispatch key. Each kernel body takes ``into``
# (None, or ``self`` for the in-place form) and ``finish`` (``finish_cpu`` for the CPU key,
# ``finish_meta`` for the Meta key): the checks and the result's layout are the same on
# both, only the computing differs.
Finish = Callable[..., Tensor]


def _add(input: Operand, other: Operand, alpha: Any, into: Tensor | None, finish: Finish, *,
         negate: builtins.bool = False) -> Tensor:
    if finish is finish_cpu and type(alpha) is int and alpha == 1:
        fast = fast_binary(np.subtract if negate else np.add, input, other, into)
        if fast is not None:
            return fast
    common = result_type(input, other)
    shape = _prepare([input, other], common, into)
    kernel = _add_kernel(_alpha(alpha, common, negate=negate), common)
    return finish(kernel, [input, other], common, shape, into)


def _sub(input: Operand, other: Operand, alpha: Any, into: Tensor | None,
         finish: Finish) -> Tensor:
    _sub_check(input, other)
    return _add(input, other, alpha, into, finish, negate=True)


def _mul(input: Operand, other: Operand, into: Tensor | None, finish: Finish) -> Tensor:
    if finish is finish_cpu:
        fast = fast_binary(np.multiply, input, other, into)
        if fast is not None:
            return fast
    common = result_type(input, other)
    shape = _prepare([input, other], common, into)
    return finish(np.multiply, [input, other], common, shape, into, exact_scalar=True)


@aten.add.Tensor.impl(DispatchKey.CPU)
def add(self: Operand, other: Operand, alpha: Any) -> Tensor:
    """``aten::add.Tensor`` on the CPU; two alike tensors and ``alpha == 1`` (the common
    case) skip promotion and broadcasting."""
    if type(alpha) is int and alpha == 1 and _fast_operands(self, other):
        return _fast_finish(np.add, self, other)
    return _add(self, other, alpha, None, finish_cpu)


@aten.sub.Tensor.impl(DispatchKey.CPU)
def sub(self: Operand, other: Operand, alpha: Any) -> Tensor:
    if type(alpha) is int and alpha == 1 and _fast_operands(self, other) \
            and self._dtype is not dtypes.bool:
        return _fast_finish(np.subtract, self, other)
    return _sub(self, other, alpha, None, finish_cpu)


@aten.mul.Tensor.impl(DispatchKey.CPU)
def mul(self: Operand, other: Operand) -> Tensor:
    if _fast_operands(self, other):
        return _fast_finish(np.multiply, self, other)
    return _mul(self, other, None, finish_cpu)


def _register(op: str, overload: str, body: Callable[..., Tensor], *,
              cpu: builtins.bool = True) -> None:
    """The remaining kernels of ``aten.<op>.<overload>`` and of its in-place form
    (``aten.<op>_``, when it has one): ``body(*arguments, into, finish)`` on the CPU and on
    the meta device."""
    functional = getattr(aten[op], overload)
    inplace = functional.inplace_form
    if cpu:
        functional.impl(DispatchKey.CPU)(lambda *a: body(*a, None, finish_cpu))
    functional.impl(DispatchKey.Meta)(lambda *a: body(*a, None, finish_meta))
    if inplace is not None:
        inplace.impl(DispatchKey.CPU)(lambda self, *a: body(self, *a, self, finish_cpu))
        inplace.impl(DispatchKey.Meta)(lambda self, *a: body(self, *a, self, finish_meta))


_register("add", "Tensor", _add, cpu=False)
_register("sub", "Tensor", _sub, cpu=False)
_register("mul", "Tensor", _mul, cpu=False)
# the .Scalar overloads (``subtract(t, 2)`` reaches ``sub.Scalar``): the same bodies
_register("add", "Scalar", _add)
_register("sub", "Scalar", _sub)
_register("mul", "Scalar", _mul)


# ``rsub`` (``2 - t``) is ``sub`` with the operands swapped: ``other - alpha * self``.
def _rsub(input: Operand, other: Operand, alpha: Any, into: Tensor | None,
          finish: Finish) -> Tensor:
    return _sub(other, input, alpha, into, finish)


_register("rsub", "Tensor", _rsub)
_register("rsub", "Scalar", _rsub)


# ============================================================== division and remainder
_ROUNDING_MODES = (None, "trunc", "floor")


def _div_kernel(common: dtype, rounding_mode: str | None,
                step: Callable[[np.ndarray], np.ndarray] | None) -> Kernel:
    """The division formula for ``common`` (raises NotImplementedError for bool).

    ``step``, for float16/bfloat16, rounds each intermediate result to the 16-bit type, as
    torch's rounding-mode kernels do (except when dividing by a single value).
    """
    if rounding_mode is None:
        return np.true_divide
    if common is dtypes.bool:
        raise _not_implemented(f"div_{rounding_mode}_cpu", common)
    if common.is_floating_point:
        round_ = step or (lambda x: x)
        if rounding_mode == "trunc":
            return lambda a, b: np.trunc(round_(a / b))
        return lambda a, b: K.div_floor_float(a, b, round_)
    if rounding_mode == "trunc" or common is dtypes.uint8:  # unsigned: floor == trunc
        return K.div_trunc_int
    return K.div_floor_int


def _div(input: Operand, other: Operand, rounding_mode: str | None,
         self: Tensor | None, finish: Finish = _finish) -> Tensor:
    if rounding_mode not in _ROUNDING_MODES:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if rounding_mode is None and finish is finish_cpu:
        fast = fast_binary(np.true_divide, input, other, self)
        if fast is not None:
            return fast
    found = binary_result_type(input, "/", other) if rounding_mode is None else None
    common = found or result_type(input, other)
    if rounding_mode is None and not common.is_floating_point:
        common = dtypes.get_default_dtype()  # true division of integers gives floats
    shape = _prepare([input, other], common, self)
    step = None
    if compute_dtype(common) is not common and not is_single_value(other, common):
        step = lambda x: cast(x, common).astype(np.float32)  # noqa: E731
    kernel = _div_kernel(common, rounding_mode, step)
    return finish(kernel, [input, other], common, shape, self, exact_scalar=True)


# ``div`` is an op of the table: true division (``div.Tensor``) and rounded
# (``div.Tensor_mode``), each with its in-place form.
def _true_div(input: Operand, other: Operand, into: Tensor | None, finish: Finish) -> Tensor:
    return _div(input, other, None, into, finish)


_register("div", "Tensor", _true_div)
_register("div", "Tensor_mode", _div)
_register("div", "Scalar", _true_div)
_register("div", "Scalar_mode", _div)


# ``floor_divide`` is ``div`` with ``rounding_mode="floor"``, an op of its own.
def _floor_divide(input: Operand, other: Operand, into: Tensor | None,
                  finish: Finish) -> Tensor:
    return _div(input, other, "floor", into, finish)


_register("floor_divide", "default", _floor_divide)
_register("floor_divide", "Scalar", _floor_divide)


def _remainder(input: Operand, other: Operand, into: Tensor | None, finish: Finish) -> Tensor:
    """Python's ``%``: the result takes the sign of ``other``; bool is NotImplementedError
    (after the in-place checks)."""
    common = result_type(input, other)
    shape = _prepare([input, other], common, into)
    if common is dtypes.bool:
        raise _not_implemented("remainder_cpu", common)
    kernel = K.remainder_float if common.is_floating_point else K.remainder_int
    return finish(kernel, [input, other], common, shape, into)


_register("remainder", "Tensor", _remainder)
_register("remainder", "Scalar_Tensor", _remainder)
_register("remainder", "Scalar", _remainder)


# ============================================================== pow
def _power(x: np.ndarray, exponent: Any) -> np.ndarray:
    """``np.power`` computed element by element, as C's ``pow`` in torch's loops: NumPy
    takes ``sqrt`` for an exponent of 0.5 that is one number over the loop (a scalar, a
    broadcast operand, even 0-d arrays on both sides), which gives nan for ``-inf`` and
    ``-0.0`` for ``-0.0`` where ``pow`` gives ``inf`` and ``0.0``; a full array of
    exponents of at least one dim takes no shortcut."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(exponent))
    exponents = np.array(np.broadcast_to(np.asarray(exponent, dtype=np.result_type(x)), shape),
                         ndmin=1)  # (a 0-d array is one number too)
    return np.power(np.reshape(x, np.shape(x) or (1,)), exponents).reshape(shape)


def _pow_scalar_kernel(common: dtype, exponent: builtins.bool | int | builtins.float) -> Kernel:
    """``x ** exponent`` for a Python-number exponent, with the shortcuts torch's kernel
    takes (``sqrt`` for 0.5, ``x * x`` for 2, ...): they decide how the result rounds."""
    if not common.is_floating_point:
        e_int = checked_number(exponent, common)  # the exponent must fit the base's type
        return lambda x: K.powi(x, np.broadcast_to(e_int, x.shape))
    e = builtins.float(exponent)
    if common is not dtypes.float16 and e in (0.5, -0.5, -1):  # float16 has no shortcuts
        return {0.5: np.sqrt, -0.5: lambda x: 1 / np.sqrt(x), -1: lambda x: 1 / x}[e]
    if common in (dtypes.float16, dtypes.bfloat16):
        e = builtins.float(checked_number(exponent, common))  # rounded to 16 bits, checked
    if common is not dtypes.float16 and e in (2, 3, -2):
        if common is dtypes.bfloat16:  # each product is rounded to bfloat16 on the way
            def square(x: np.ndarray) -> np.ndarray:
                return cast(cast(x * x, common), dtypes.float32)
        else:
            def square(x: np.ndarray) -> np.ndarray:
                return x * x
        return {2: square, 3: lambda x: square(x) * x, -2: lambda x: 1 / square(x)}[e]
    if common is dtypes.float32:  # torch's scalar loop calls the double pow(float, double)
        return lambda x: _power(x.astype(np.float64), e).astype(np.float32)
    return lambda x: _power(x, np.asarray(e, dtype=compute_dtype(common).numpy))


def _pow_tensor_kernel(common: dtype) -> Kernel:
    if common is dtypes.bool:
        raise _not_implemented("pow", common)
    return _power if common.is_floating_point else K.powi


def _pow(base: Tensor, exponent: Operand, into: Tensor | None, finish: Finish) -> Tensor:
    """A tensor to the power of a tensor (broadcast) or of a Python number."""
    if isinstance(exponent, Tensor):
        common = result_type(base, exponent)
        shape = _prepare([base, exponent], common, into)
        return finish(_pow_tensor_kernel(common), [base, exponent], common, shape, into)
    if not base.is_floating_point() and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    common = result_type(base, exponent)
    shape = _prepare([base], common, into)
    if exponent == 0:
        kernel: Kernel = np.ones_like
    elif exponent == 1:
        kernel = np.asarray
    else:
        kernel = _pow_scalar_kernel(common, exponent)
    return finish(kernel, [base], common, shape, into)


def _pow_scalar_exponent(base: Tensor, exponent: Operand, into: Tensor | None,
                         finish: Finish) -> Tensor:
    """``tensor ** number``. One quirk of torch's meta function is kept: a bool tensor to a
    bool power is int64 on the meta device (bool on the CPU)."""
    if (finish is finish_meta and into is None and base._dtype is dtypes.bool
            and isinstance(exponent, builtins.bool)):
        return finish(np.asarray, [base], dtypes.int64, base._shape, None)
    return _pow(base, exponent, into, finish)


_register("pow", "Tensor_Tensor", _pow)
_register("pow", "Tensor_Scalar", _pow_scalar_exponent)


# A number to a tensor's power (``2 ** t``): torch allocates a contiguous result first; its
# meta function lays the result out like the exponent.
@aten.pow.Scalar.impl(DispatchKey.CPU)
def pow_scalar(self: builtins.bool | int | builtins.float, exponent: Tensor) -> Tensor:
    common = result_type(self, exponent)
    shape = exponent._shape
    out = _empty(shape, contiguous_strides(shape), common)
    if self == 1 and not isinstance(self, builtins.bool):  # True is no 1 to torch here
        return _write(out, np.ones(shape, dtype=common.numpy))
    kernel = _pow_tensor_kernel(common)
    return _write(out, _compute(kernel, [self, exponent], common, shape))


@aten.pow.Scalar.impl(DispatchKey.Meta)
def pow_scalar_meta(self: builtins.bool | int | builtins.float, exponent: Tensor) -> Tensor:
    common = result_type(self, exponent)
    stride = iterator.output_strides(exponent._shape, [_layout_seen(exponent, common)])
    return _empty(exponent._shape, stride, common, exponent.device)


# ============================================================== lerp, addcmul, addcdiv
# Three operands through one iterator. torch's CPU kernels built for AVX2 and AVX512 (what
# torch runs on any x86 machine of the last decade; scalar and vectorised loops alike,
# measured on torch 2.13 with ATEN_CPU_CAPABILITY=avx2 and avx512) round these floats with a
# fused multiply-add where the formula has a product next to a sum: ``lerp`` and
# ``addcmul``; a quotient cannot fuse, so ``addcdiv`` rounds every step. (Its DEFAULT build,
# ATEN_CPU_CAPABILITY=default, rounds every step of ``lerp`` and ``addcmul`` too, as ``add``
# with an ``alpha`` differs there.)
_TYPE_META_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                    "int16": "short int", "int32": "int", "int64": "long int",
                    "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "float32": "float", "float64": "double"}


def _scalar_value(value: Any, common: dtype) -> np.ndarray:
    """A ``Scalar`` argument (``value``, a number ``weight``) as the kernel reads it:
    ``value.to<opmath_t>()``, so checked against float32 for float16 and bfloat16 (which
    compute in float32) and against the dtype itself otherwise (a float into an integer
    type truncates). A 0-d tensor is read as the number it holds."""
    if isinstance(value, Tensor) and value.dim() == 0:
        value = value.item()
    return checked_number(value, compute_dtype(common))


def _same_dtype(self: Tensor, other: Tensor, name: str) -> None:
    """``lerp``'s check that ``end`` (and a ``weight`` with dims) has ``self``'s dtype."""
    if other._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {_TYPE_META_NAMES[self._dtype.name]} for `{name}` "
                           f"but got dtype {_TYPE_META_NAMES[other._dtype.name]}")


def lerp_values(start: np.ndarray, end: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """torch's ``lerp`` on arrays of its compute dtype: ``fma(w, end - start, start)`` for
    ``|w| < 0.5``, else ``fma(w - 1, end - start, end)`` (exact at ``w == 1``)."""
    diff = end - start
    if np.ndim(weight) == 0:  # one weight: one of the two forms
        w = np.asarray(weight, dtype=diff.dtype)
        if np.abs(w) < 0.5:
            return K.fma(np.broadcast_to(w, diff.shape), diff, start)
        return K.fma(np.broadcast_to(w - 1, diff.shape), diff, end)
    weight = np.broadcast_to(weight, diff.shape)
    small = np.abs(weight) < 0.5
    return np.where(small, K.fma(weight, diff, start),
                    K.fma(weight - 1, diff, end))


def _lerp(self: Tensor, end: Tensor, weight: Any, into: Tensor | None,
          finish: Finish) -> Tensor:
    """``lerp.Tensor`` and ``lerp.Scalar``: no promotion (``end``, and ``weight`` unless it
    is 0-d or a number, must have ``self``'s dtype); floating dtypes only."""
    _same_dtype(self, end, "end")
    common = self._dtype
    tensor_weight = isinstance(weight, Tensor)
    if finish is finish_cpu and not tensor_weight \
            and fast_inplace_operands(self, [self, end], into):
        w = _scalar_value(weight, common)
        return write_inplace(lambda s, e: lerp_values(s, e, w), self, [self, end])
    if tensor_weight and weight.dim() != 0:
        _same_dtype(self, weight, "weight")
    operands = [self, end, weight] if tensor_weight else [self, end]
    shape = _prepare(operands, common, into)
    if not common.is_floating_point:
        raise _not_implemented("lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar",
                               common)
    if tensor_weight:
        return finish(lerp_values, operands, common, shape, into)
    w = _scalar_value(weight, common)
    return finish(lambda s, e: lerp_values(s, e, w), operands, common, shape, into)


def _addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any,
             into: Tensor | None, finish: Finish) -> Tensor:
    """``self + value * tensor1 * tensor2`` in ``result_type``: floats as
    ``fma(value * tensor1, tensor2, self)``, integers wrapping."""
    operands = [self, tensor1, tensor2]
    if finish is finish_cpu and fast_inplace_operands(self, operands, into):
        c = _scalar_value(value, self._dtype)
        return write_inplace(lambda s, a, b: K.fma(c * a, b, s), self, operands)
    common = result_type(*operands)
    shape = _prepare(operands, common, into)
    if common is dtypes.bool:
        raise _not_implemented("addcmul_cpu_out", common)
    c = _scalar_value(value, common)
    if common.is_floating_point:
        kernel: Kernel = lambda s, a, b: K.fma(c * a, b, s)  # noqa: E731
    else:
        kernel = lambda s, a, b: s + c * a * b  # noqa: E731
    return finish(kernel, operands, common, shape, into)


_ADDCDIV_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any,
             into: Tensor | None, finish: Finish) -> Tensor:
    """``self + (value * tensor1) / tensor2`` in ``result_type``, each step rounded."""
    if not tensor1._dtype.is_floating_point and not tensor2._dtype.is_floating_point:
        raise RuntimeError(_ADDCDIV_INTEGERS)
    operands = [self, tensor1, tensor2]
    if finish is finish_cpu and fast_inplace_operands(self, operands, into):
        c = _scalar_value(value, self._dtype)
        return write_inplace(lambda s, a, b: s + (c * a) / b, self, operands)
    common = result_type(*operands)
    shape = _prepare(operands, common, into)
    c = _scalar_value(value, common)
    return finish(lambda s, a, b: s + (c * a) / b, operands, common, shape, into)


_register("lerp", "Tensor", _lerp)
_register("lerp", "Scalar", _lerp)


# ``lerp.Tensor``'s ``out=`` (a tensor ``weight`` with dims) wants exactly the result's dtype
# (torch's structured kernel); with a 0-d ``weight``, as ``lerp.Scalar``'s, any that can hold
# it (``lerp(a, b, tensor(0.5, dtype=float16), out=bfloat16_out)`` of float16 ``a``, ``b``)
def _lerp_out_check(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    self, end, weight = inputs
    if self._dtype is end._dtype is weight._dtype:  # (else the op's own check raises)
        if weight.dim() == 0:
            check_can_cast(self._dtype, outs[0]._dtype)
        elif outs[0]._dtype is not self._dtype:
            raise RuntimeError(f"Found dtype {SCALAR_TYPE_NAMES[outs[0]._dtype.name]} but "
                               f"expected {SCALAR_TYPE_NAMES[self._dtype.name]}")
    return inputs


out_arguments.set_rule(aten.lerp.Tensor_out, out_arguments.OutRule(
    prepare=_lerp_out_check, check=lambda input, result, out: None))
_register("addcmul", "default", _addcmul)
_register("addcdiv", "default", _addcdiv)
