"""Ops that compare or select: ``== != < <= > >=``, logical and bitwise ops, ``where``,
``clamp``.

Comparisons promote both operands to their ``result_type`` *before* comparing, which has a
surprising consequence that torch really has: ``uint8_tensor == -1`` converts -1 to uint8
(255) first, so it is True where the tensor holds 255. The result is always bool.

Logical ops treat every nonzero value as True and give bool. Bitwise ops work on the bits
of bool and integer tensors (on bool they are the logical ops) and refuse floats.
``where`` picks from two operands promoted to one dtype; ``clamp`` promotes its bounds too
(``int_tensor.clamp(min=0.5)`` is float32).
"""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from . import _kernels as K
from . import dtypes, iterator, layout, out_arguments
from ._casting import cast, checked_number, compute_dtype, number_array
from ._ops import DispatchKey, aten
from .dtypes import dtype
from .elementwise import (
    Kernel,
    Operand,
    _broadcast_shape,
    _check_inplace,
    _device,
    _empty,
    _layout_seen,
    _not_implemented,
    _prepare,
    _values,
    _write,
    finish_cpu,
    finish_meta,
)
from .layout import contiguous_strides
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES, result_type
from .tensor import Tensor

__all__: list[str] = []


# ============================================================== comparisons
# The comparisons are ops of the table (``reftensor/_ops/native_functions.py``): each has a
# ``.Tensor`` and a ``.Scalar`` overload, an in-place form (a method) and ``out=``; the
# operators ``== != < <= > >=`` come with them. The kernels below are registered by key.
COMPARISONS: dict[str, Kernel] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def _compare(kernel: Kernel, input: Tensor, other: Operand, into: Tensor | None,
             finish: Any) -> Tensor:
    """Compare in ``result_type`` of the operands; the result is bool, or, in place, the
    0/1 of the comparison written in ``self``'s dtype (which need not hold ``result_type``:
    ``arange(3).eq_(1.5)`` is allowed)."""
    common = result_type(input, other)
    if into is None:
        shape = _prepare([input, other], common, None)
        return finish(kernel, [input, other], common, shape, out_dtype=dtypes.bool)
    _check_inplace(into, [input, other])
    return finish(kernel, [input, other], common, into._shape, into)


def register_comparison(name: str, kernel: Kernel) -> None:
    """CPU and Meta kernels of every overload of ``aten.<name>`` and ``aten.<name>_``."""
    for overload in ("Tensor", "Scalar"):
        functional = getattr(aten[name], overload)
        inplace = getattr(aten[name + "_"], overload)
        for key, finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
            functional.impl(key)(
                lambda self, other, f=finish: _compare(kernel, self, other, None, f))
            inplace.impl(key)(
                lambda self, other, f=finish: _compare(kernel, self, other, self, f))


for _name, _kernel in COMPARISONS.items():
    register_comparison(_name, _kernel)


# ============================================================== maximum, minimum
# ``maximum`` and ``minimum`` (and ``max(a, b)``, ``min(a, b)``, which are them) are ops of
# the table: the larger or smaller of two tensors, elementwise, in ``result_type``.
def _extremum(kernel: Kernel, input: Tensor, other: Tensor, finish: Any) -> Tensor:
    """``kernel`` (``np.maximum``: nan wins) of the operands, broadcast, in ``result_type``."""
    common = result_type(input, other)
    shape = _prepare([input, other], common, None)
    return finish(kernel, [input, other], common, shape)


for _name, _kernel in (("maximum", np.maximum), ("minimum", np.minimum)):
    for _key, _finish_by_key in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
        aten[_name].default.impl(_key)(
            lambda self, other, k=_kernel, f=_finish_by_key: _extremum(k, self, other, f))


# ============================================================== logical ops
# logical_and, logical_or and logical_xor are ops of the table too: the 0/1 of the formula
# below, computed as a comparison is (in ``result_type``; a bool result, or in place the
# 0/1 written in ``self``'s dtype).
LOGICAL: dict[str, Kernel] = {
    "logical_and": lambda a, b: np.logical_and(a != 0, b != 0),
    "logical_or": lambda a, b: np.logical_or(a != 0, b != 0),
    "logical_xor": lambda a, b: np.logical_xor(a != 0, b != 0),
}


def register_logical(name: str, kernel: Kernel) -> None:
    """CPU and Meta kernels of ``aten.<name>`` and ``aten.<name>_``."""
    functional, inplace = aten[name].default, aten[name + "_"].default
    for key, finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
        functional.impl(key)(lambda self, other, f=finish: _compare(kernel, self, other,
                                                                     None, f))
        inplace.impl(key)(lambda self, other, f=finish: _compare(kernel, self, other, self,
                                                                  f))


for _name, _kernel in LOGICAL.items():
    register_logical(_name, _kernel)


# ============================================================== bitwise ops
# bitwise_and, bitwise_or and bitwise_xor (the operators ``& | ^``) are ops of the table:
# a tensor with a tensor, a number with a tensor, a tensor with a number.
BITWISE: dict[str, Kernel] = {
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}


def _bitwise(name: str, input: Operand, other: Operand, into: Tensor | None,
             finish: Any) -> Tensor:
    """On the bits of bool and integer values, in ``result_type``; a floating result type
    is NotImplementedError (after the in-place checks, as in torch)."""
    common = result_type(input, other)
    shape = _prepare([input, other], common, into)
    if common.is_floating_point:
        raise _not_implemented(f"{name}_cpu", common)
    return finish(BITWISE[name], [input, other], common, shape, into)


def register_bitwise(name: str) -> None:
    """CPU and Meta kernels of every overload of ``aten.<name>`` and of its in-place form."""
    for overload in aten[name].python_overloads:
        written = overload.inplace_form
        for key, finish in ((DispatchKey.CPU, finish_cpu), (DispatchKey.Meta, finish_meta)):
            overload.impl(key)(
                lambda self, other, f=finish: _bitwise(name, self, other, None, f))
            if written is not None:
                written.impl(key)(
                    lambda self, other, f=finish: _bitwise(name, self, other, self, f))


for _name in BITWISE:
    register_bitwise(_name)


# ============================================================== where
# ``where`` is an op of the table: ``where.self`` takes two tensors, and its overloads with a
# number (``ScalarSelf``, ``ScalarOther``, ``Scalar``) run it with the number as is, which the
# kernel reads as torch reads a wrapped number. ``where(condition)`` alone is ``nonzero``.
def _where(condition: Tensor, input: Operand, other: Operand, meta: builtins.bool) -> Tensor:
    """``input`` where ``condition``, else ``other``, broadcast, in ``result_type(input,
    other)`` (a number becomes a one-element tensor of that type, checked as ``fill_``)."""
    common = result_type(input, other)
    input, other = (x if isinstance(x, Tensor) else _number_tensor(x, common)
                    for x in (input, other))
    if condition._dtype is dtypes.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=2)
    elif condition._dtype is not dtypes.bool:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {SCALAR_TYPE_NAMES[condition._dtype.name]}")
    operands = [condition, input, other]
    shape = _broadcast_shape(operands)
    # torch converts each operand to its dtype (bool, or the common one) before iterating.
    seen = [_layout_seen(condition, dtypes.bool), _layout_seen(input, common),
            _layout_seen(other, common)]
    out = _empty(shape, iterator.output_strides(shape, seen), common, _device(operands))
    if meta:
        return out
    chosen = np.where(
        np.broadcast_to(_values(condition, dtypes.bool, dtypes.bool), shape),
        np.broadcast_to(_values(input, common, common), shape),
        np.broadcast_to(_values(other, common, common), shape),
    )
    return _write(out, chosen)


def _number_tensor(x: builtins.bool | int | builtins.float, d: dtype) -> Tensor:
    """A 0-d tensor of ``d`` holding ``x``, checked as a one-element ``fill_`` checks."""
    t = _empty((), contiguous_strides(()), d)
    t._elements()[...] = checked_number(x, d, check_half=False)
    return t


def _check_where_out(input: Any, result: Tensor, out: Tensor) -> None:
    """``where``'s ``out=`` must have exactly the result's dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out type to be {SCALAR_TYPE_NAMES[result._dtype.name]} "
                           f"but got {SCALAR_TYPE_NAMES[out._dtype.name]}")


@aten.where.default.impl(DispatchKey.CPU)
def where_nonzero(condition: Tensor) -> tuple[Tensor, ...]:
    """``where(condition)``: the indices of the nonzero elements, one int64 tensor per dim
    (a 0-d condition counts as one element of a 1-d one), in row-major order."""
    values = condition._elements()
    return tuple(_long_tensor(column) for column in np.nonzero(values.reshape(-1)
                                                               if values.ndim == 0
                                                               else values))


def _long_tensor(values: np.ndarray) -> Tensor:
    t = _empty(values.shape, contiguous_strides(values.shape), dtypes.int64)
    t._elements()[...] = values
    return t


aten.where.self.impl(DispatchKey.CPU)(lambda c, a, b: _where(c, a, b, meta=False))
aten.where.self.impl(DispatchKey.Meta)(lambda c, a, b: _where(c, a, b, meta=True))


# The overloads with a number wrap it as torch's composites do (a dispatch mode sees it):
# ``scalar_tensor`` of ``result_type`` on the tensor's device (the number given as it is,
# ``where(c, t, 0)`` passes the int 0), the tensor converted to that dtype (``to``: no op
# when it has it), then ``where.self``; with two numbers, ``other``'s first, on the
# condition's device.
def _wrapped(number: Any, common: dtype, where: Any) -> Tensor:
    return aten.scalar_tensor.default.call(number, common, layout.strided, where, None)


@aten.where.ScalarOther.impl(DispatchKey.CompositeImplicitAutograd)
def where_scalar_other(condition: Tensor, self: Tensor, other: Any) -> Tensor:
    common = result_type(self, other)
    wrapped = _wrapped(other, common, self.device)
    return aten.where.self.call(condition, self.to(common), wrapped)


@aten.where.ScalarSelf.impl(DispatchKey.CompositeImplicitAutograd)
def where_scalar_self(condition: Tensor, self: Any, other: Tensor) -> Tensor:
    common = result_type(other, self)
    wrapped = _wrapped(self, common, other.device)
    return aten.where.self.call(condition, wrapped, other.to(common))


@aten.where.Scalar.impl(DispatchKey.CompositeImplicitAutograd)
def where_scalars(condition: Tensor, self: Any, other: Any) -> Tensor:
    common = result_type(self, other)
    wrapped_other = _wrapped(other, common, condition.device)
    return aten.where.self.call(condition, _wrapped(self, common, condition.device),
                                wrapped_other)
out_arguments.set_rule(aten.where.self_out, out_arguments.OutRule(check=_check_where_out))


# ============================================================== clamp
# ``clamp`` (number bounds), ``clamp.Tensor`` (tensor bounds), ``clamp_min`` and
# ``clamp_max`` (one bound), their in-place forms and ``out=`` are ops of the table; ``clip``
# is ``clamp``.
def _clamp_kernel(has_min: builtins.bool, has_max: builtins.bool) -> Kernel:
    if has_min and has_max:
        return K.clamp
    if has_min:
        return lambda a, low: K.clamp(a, low, None)
    return lambda a, high: K.clamp(a, None, high)


def _neither() -> RuntimeError:
    return RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


def clamp_tensor(input: Tensor, min: Tensor | None, max: Tensor | None,
                 self: Tensor | None, finish: Any) -> Tensor:
    """Tensor bounds take part in broadcasting and promotion like any operand."""
    if min is None and max is None:
        raise _neither()
    bounds = [b for b in (min, max) if b is not None]
    common = result_type(input, *bounds)
    shape = _prepare([input, *bounds], common, self)
    if common is dtypes.bool and len(bounds) == 2:
        raise _not_implemented("clamp_cpu", common)
    kernel = _clamp_kernel(min is not None, max is not None)
    return finish(kernel, [input, *bounds], common, shape, self)


def clamp_scalar(input: Tensor, min: Any, max: Any, self: Tensor | None,
                 finish: Any) -> Tensor:
    """Number bounds: promoted together with the input, then converted with a range check."""
    if min is None and max is None:
        raise _neither()
    bounds = [b for b in (min, max) if b is not None]
    common = input._dtype if input.is_floating_point() else result_type(input, *bounds)
    if self is not None and common is not self._dtype:
        raise RuntimeError(f"result type {SCALAR_TYPE_NAMES[common.name]} can't be cast to "
                           f"the desired output type {C_TYPE_NAMES[self._dtype.name]}")
    shape = _prepare([input], common, self)
    if common is dtypes.bool:
        which = "clamp" if len(bounds) == 2 else ("clamp_min" if max is None else "clamp_max")
        raise _not_implemented(f"{which}_scalar_cpu", common)
    work = compute_dtype(common)
    if len(bounds) == 2 and any(b != b for b in bounds):
        # torch fills the result with nan when a bound is nan, before reading either bound
        # in the result dtype (so ``clamp(1e10, nan)`` of a float16 tensor does not raise)
        bounds = [float("nan"), float("nan")]
        limits = [cast(number_array(b, common), work) for b in bounds]
    else:
        limits = [cast(checked_number(b, common), work) for b in bounds]
    kernel = _clamp_kernel(min is not None, max is not None)
    return finish(lambda a: kernel(a, *limits), [input], common, shape, self)


def register_clamp() -> None:
    """CPU and Meta kernels of every overload of ``clamp``, ``clamp_min``, ``clamp_max``
    and their in-place forms; each calls ``clamp_tensor`` or ``clamp_scalar``."""
    for name, order in (("clamp", lambda a, b: (a, b)), ("clamp_min", lambda a: (a, None)),
                        ("clamp_max", lambda b: (None, b))):
        for overload, run in ((aten[name].Tensor, clamp_tensor),
                              (aten[name].default, clamp_scalar)):
            written = overload.inplace_form
            assert written is not None
            for key, finish in ((DispatchKey.CPU, finish_cpu),
                                (DispatchKey.Meta, finish_meta)):
                overload.impl(key)(lambda x, *b, o=order, r=run, f=finish: r(
                    x, *o(*b), None, f))
                written.impl(key)(lambda x, *b, o=order, r=run, f=finish: r(
                    x, *o(*b), x, f))


register_clamp()
for _name in ("clamp", "clamp_min", "clamp_max"):
    # with number bounds, torch's structured ``clamp.out`` fixes the result dtype; tensor bounds
    # take any ``out`` that can hold the result
    out_arguments.set_rule(aten[_name].out,
                           out_arguments.OutRule(check=out_arguments.exact_result_dtype))
