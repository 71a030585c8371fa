"""log_sigmoid (chapter 6): the kernels of ``log_sigmoid_forward`` and
``log_sigmoid_backward``, and the composite ``log_sigmoid`` (``nn.functional.logsigmoid``).

``log(sigmoid(x))`` written as it reads loses everything for large negative ``x``:
``sigmoid(-200)`` is 0 in float32, and its log is ``-inf`` where the true value is -200. torch's
CPU kernel uses instead ``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``: ``exp`` of a
number at most 0 never overflows, and ``log1p`` keeps the digits of small ``exp(-|x|)``.

``log_sigmoid_forward`` returns two tensors, as torch's schema says: the ``output`` and a
``buffer`` holding ``exp(-|x|)``, which the backward op reuses (torch's ``LogSigmoidBackward0``
saves both ``self`` and ``buffer``). Both are new contiguous tensors of the input's dtype;
float16 and bfloat16 compute in float32, the buffer and the output each rounded once to the
input's type.

``log_sigmoid_backward(grad_output, self, buffer)`` is, per element, ``(max_deriv - sign *
(b / (1 + b))) * grad`` with ``max_deriv`` 1 and ``sign`` 1 for a negative ``x`` (else 0 and
-1), as torch's kernel writes it: the derivative ``sigmoid(-x)`` from the saved ``b``. It
broadcasts as an elementwise op into an ``empty_like(grad_output)`` and wants one dtype for
all three operands. Its own derivative rows give second derivatives (``LogSigmoidBackward
Backward0``). exp and log1p are the C library's in double, rounded: within 3 ulps of torch's
vectorised ones (float32 and float64); float16, bfloat16 and the backward op are bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import conversions, dtypes, factories, iterator, layout, out_arguments
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .broadcasting import infer_broadcast_size
from .device import META, common_device
from .dtypes import dtype
from .loss import resize_as
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES, check_can_cast, result_type
from .tensor import Tensor

__all__: list[str] = []  # the ops are the table's (reftensor.nn.functional.logsigmoid, ...)


def _type_name(d: dtype) -> str:
    return SCALAR_TYPE_NAMES[d.name]


def _new(shape: tuple[int, ...], stride: tuple[int, ...], d: dtype, meta: bool) -> Tensor:
    return factories._allocate(shape, stride, d, META if meta else factories.CPU)


def forward_values(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(min(x, 0) - log1p(b), b)`` with ``b = exp(-|x|)``, each step rounded to ``x``'s
    dtype (float32 or float64); exp and log1p computed in double."""
    work = x.dtype.type
    with np.errstate(all="ignore"):
        buffer = np.exp(-np.abs(x.astype(np.float64))).astype(work)
        log1p = np.log1p(buffer.astype(np.float64)).astype(work)
        return (np.minimum(x, work(0)) - log1p).astype(work), buffer


def log_sigmoid_forward(self: Tensor, *, meta: bool) -> tuple[Tensor, Tensor]:
    """torch's ``log_sigmoid_forward_cpu``: ``(output, buffer)``, both contiguous. On the
    meta device torch runs its Python decomposition instead: the input's layout kept, any
    dtype but bool (whose ``-`` it refuses)."""
    if meta:
        if self._dtype is dtypes.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        stride = iterator.output_strides(self._shape, [(self._shape, self._stride)])
        return (_new(self._shape, stride, self._dtype, True),
                _new(self._shape, stride, self._dtype, True))
    stride = layout.contiguous_strides(self._shape)
    output = _new(self._shape, stride, self._dtype, False)
    buffer = _new(self._shape, stride, self._dtype, False)
    _compute(self, output, buffer)
    return output, buffer


def _compute(self: Tensor, output: Tensor, buffer: Tensor) -> None:
    """The kernel: ``self``'s values into ``output`` and ``buffer`` (of its shape)."""
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for '
                                  f"'{_type_name(self._dtype)}'")
    if self.numel() == 0:
        return
    work = compute_dtype(self._dtype)
    values, b = forward_values(cast(self._elements(), work))
    buffer._elements()[...] = cast(b, self._dtype)
    output._elements()[...] = cast(values, self._dtype)


def _resize_outs(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """torch's ``log_sigmoid_forward_out_cpu`` first resizes its outs, with no warning:
    ``output.resize_as_(self)`` (its strides kept when its shape is already right) and
    ``buffer.resize_as_(self, contiguous)``. (On the meta device torch runs its Python
    decomposition's ``out=`` instead: the ordinary rules, a warning included.)"""
    self = inputs[0]
    if self.device.type != "meta":
        output, buffer = outs
        contiguous = layout.contiguous_strides(self._shape)
        if output._shape != self._shape:
            resize_as(output, self._shape, contiguous)
        resize_as(buffer, self._shape, contiguous)
    return inputs


def _out_dtype(self: Tensor, result: Tensor, out: Tensor) -> None:
    """The CPU kernel writes through ``out``'s pointer as the input's type: exactly that
    dtype (the meta decomposition: any dtype the result casts to)."""
    if self.device.type == "meta":
        check_can_cast(result._dtype, out._dtype)
    elif out._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {_type_name(self._dtype)} but found "
                           f"{_type_name(out._dtype)}")


out_arguments.set_rule(aten.log_sigmoid_forward.output,
                       out_arguments.OutRule(prepare=_resize_outs, check=_out_dtype))


def _check_same_dtype(operands: list[Tensor], expected: dtype) -> None:
    """torch's ``TensorIterator`` built with ``check_all_same_dtype``: every operand (the
    output first) of the first input's dtype."""
    for t in operands:
        if t._dtype is not expected:
            raise RuntimeError(f"Found dtype {_type_name(t._dtype)} but expected "
                               f"{_type_name(expected)}")


def backward_values(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """torch's scalar loop: ``(max_deriv - sign * (b / (1 + b))) * c``, ``a`` the input
    (all three of one dtype, float32 or float64)."""
    work = a.dtype.type
    negative = a < work(0)
    max_deriv = np.where(negative, work(1), work(0))
    sign = np.where(negative, work(1), work(-1))
    with np.errstate(all="ignore"):
        return ((max_deriv - sign * (b / (work(1) + b))) * c).astype(work)


def _step(*operands: tuple[tuple[int, ...], tuple[int, ...]]
          ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The (shape, stride) of an elementwise op's new result from its tensor operands'."""
    shape: tuple[int, ...] = ()
    for operand_shape, _ in operands:
        shape = infer_broadcast_size(shape, operand_shape)
    return shape, iterator.output_strides(shape, operands)


def _opmath_layout(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``t``'s (shape, stride) as torch's decompositions see it after ``pw_cast_for_opmath``:
    a float16 or bfloat16 ``t`` is copied to float32 (``t.to(torch.float32)``)."""
    if compute_dtype(t._dtype) is t._dtype:
        return t._shape, t._stride
    call = conversions.to_call("float32", "meta", False, None)
    return t._shape, conversions.to_result(t._dtype.name, t._shape, t._stride, call)[1]


def log_sigmoid_backward(grad_output: Tensor, self: Tensor, buffer: Tensor, *,
                         meta: bool) -> Tensor:
    """torch's ``log_sigmoid_backward_cpu``: the operands broadcast into an
    ``empty_like(grad_output)`` (resized, with torch's warning, when the broadcast shape is
    larger). On the meta device, torch's decomposition (``torch._decomp``): float16 and
    bfloat16 computed in float32, laid out as its elementwise steps lay out their results,
    and an empty ``buffer`` recomputed from ``self`` rather than broadcast."""
    common_device([grad_output, self, buffer])
    if meta:
        d = result_type(grad_output, buffer)
        # The decomposition computes float16 and bfloat16 in float32 (``pw_cast_for_opmath``):
        # each operand is first ``.to(torch.float32)``, a copy laid out as ``to_result`` says
        # (an overlapping layout becomes dense), and the result goes back to ``d``.
        x, z, g = (_opmath_layout(t) for t in (self, buffer, grad_output))
        if buffer.numel() == 0:  # z = exp(-abs(x)), three elementwise steps on x
            z = _step(_step(_step(x)))
        negative = _step(x)  # x < 0; where(x < 0, 1, 0) and where(x < 0, 1, -1) keep it
        rhs = _step(negative, _step(z, _step(z)))  # sign * (z / (1 + z))
        return _new(*_step(g, _step(negative, rhs)), d, True)
    operands = [self, buffer, grad_output]
    shape: tuple[int, ...] = ()
    for t in operands:
        shape = infer_broadcast_size(shape, t._shape)
    grad_input = aten.empty_like(grad_output)
    if grad_input._shape != shape:
        iterator.resize_output(grad_input, shape, iterator.output_strides(
            shape, [(t._shape, t._stride) for t in operands]))
    _check_same_dtype([grad_input, self, buffer, grad_output], self._dtype)
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f'"log_sigmoid_backward_cpu" not implemented for '
                                  f"'{_type_name(self._dtype)}'")
    if grad_input.numel():
        work = compute_dtype(self._dtype)
        a, b, c = (np.broadcast_to(cast(t._elements(), work), shape) for t in operands)
        grad_input._elements()[...] = cast(backward_values(a, b, c), self._dtype)
    grad_input._version_counter.value = 0
    return grad_input


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.log_sigmoid_forward.default.impl(_key)(
        lambda self, meta=_meta: log_sigmoid_forward(self, meta=meta))
    aten.log_sigmoid_backward.default.impl(_key)(
        lambda g, self, buffer, meta=_meta: log_sigmoid_backward(g, self, buffer, meta=meta))


# ``log_sigmoid`` and its ``out=`` form are torch's ``CompositeImplicitAutograd`` functions:
# the output of ``log_sigmoid_forward`` (``LogSigmoidBackward0``), and for ``out=``
# ``log_sigmoid_forward.output`` into ``out`` with an empty buffer of the input's dtype.
@aten.log_sigmoid.default.impl(DispatchKey.CompositeImplicitAutograd)
def log_sigmoid(self: Tensor) -> Tensor:
    return aten.log_sigmoid_forward.default.call(self)[0]


@aten.log_sigmoid.out.impl(DispatchKey.CompositeImplicitAutograd)
def log_sigmoid_out(self: Tensor, out: Tensor) -> Tensor:
    buffer = factories._allocate((0,), (1,), self._dtype, self.device)
    return aten.log_sigmoid_forward.output.call(self, out, buffer)[0]



def _grad_input_first(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """``log_sigmoid_backward.grad_input``: torch's ``TensorIterator`` checks the dtypes,
    then resizes an ``out`` of another shape (with the warning) to the strides it derives
    from the inputs (``self``, ``buffer``, ``grad_output``, in that order), not to the
    functional result's ``empty_like(grad_output)`` layout."""
    grad_output, self, buffer = inputs
    (grad_input,) = outs
    if self.device.type == "meta":
        return inputs
    _check_same_dtype([grad_input], self._dtype)
    shape: tuple[int, ...] = ()
    for t in (self, buffer, grad_output):
        shape = infer_broadcast_size(shape, t._shape)
    if grad_input._shape != shape:
        iterator.resize_output(grad_input, shape, iterator.output_strides(
            shape, [(t._shape, t._stride) for t in (self, buffer, grad_output)]))
    return inputs


def _exact_dtype(result: Tensor, out: Tensor) -> None:
    _check_same_dtype([out], result._dtype)


out_arguments.set_rule(aten.log_sigmoid_backward.grad_input,
                       out_arguments.OutRule(prepare=_grad_input_first))
OUT_DTYPE_RULES.update(log_sigmoid_backward=_exact_dtype)
