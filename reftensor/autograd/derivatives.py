"""The derivatives table: for each differentiable op, the gradient of each input, as torch's
``derivatives.yaml`` gives it (facts copied from torch 2.13's file; the formulas are written
here with reftensor ops, so a backward run with ``create_graph=True`` is recorded too).

A row names the op by its schema, the node that backward runs (``ExpBackward0``), what the
node saves (``self``: the input; ``result``: the output; or any other argument, such as
``flip``'s ``dims``; ``self_sym_sizes``/``self_sym_strides``: an input's shape and strides,
kept instead of the tensor) and, per differentiable input, a
formula: a plain named function of the output's gradient ``grad`` and the saved values. The
in-place form of an op (``exp_``) uses the same row: its node saves the value ``self`` had
before the write.

The formulas keep torch's operand order (``-grad * (result * result)``, not ``grad *
-(result * result)``): the order decides the gradient's strides (an output is laid out like
its first operand when the layouts disagree) and, in float16, the rounding.

``variable_type.py`` turns each row into the op's ``Autograd`` kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes, factories, layout, linalg, pieces, views
from .._ops import aten
from .._ops.state import state as dispatch_state
from .._ops.torch_dispatch import subclass_like
from ..cholesky import solve_triangular_values
from ..device import CPU, META
from ..dtype_info import finfo
from ..tensor import Tensor, to_options, wrap_dim
from .functions.views import as_strided_backward, picked_backward
from .grad_mode import is_grad_enabled
from .grad_mode import no_grad as _no_grad

__all__ = ["Derivative", "DERIVATIVES", "expand_param_if_needed"]

Formula = Callable[..., Tensor]


class Derivative(NamedTuple):
    """One row: ``formulas`` maps an input's name to the function computing its gradient;
    the function's parameters name what it reads (``grad``, and entries of ``saves``). A key
    that names several inputs, ``"input, weight, bias"`` (``derivatives.yaml``'s syntax),
    is one formula computing their gradients together, in one call: it may read
    ``grad_input_mask`` (which of them need a gradient) and returns one per name."""

    schema: str
    node: str
    saves: tuple[str, ...]
    formulas: dict[str, Formula]
    # an integer or bool result is left unrecorded rather than refused (torch's
    # ``output_differentiability`` of ``_to_copy``: ``t.to(int64)`` of a ``t`` that
    # requires grad is a plain int64 tensor; ``t.sum(dtype=int64)`` raises)
    non_float_result_untracked: bool = False
    # how many leading outputs are recorded, when not all (torch's
    # ``output_differentiability``: ``native_layer_norm``'s and ``native_batch_norm``'s
    # statistics and ``nll_loss_forward``'s ``total_weight`` come back not requiring grad)
    recorded_outputs: int | None = None
    # arguments with no formula that must not require grad (torch's
    # ``check_no_requires_grad``: ``native_batch_norm``'s running statistics,
    # ``nll_loss_forward``'s ``weight``)
    no_grad_arguments: tuple[str, ...] = ()
    # an in-place view (torch's ``inplace_view`` tag: ``t_``, ``squeeze_``): the node is
    # recorded on ``self`` itself, whose layout changed, not through ``CopySlices``
    inplace_view: bool = False

    @property
    def op(self) -> str:
        return self.schema.partition("(")[0].partition(".")[0]

    def keys_by_input(self) -> dict[str, str]:
        """Each input with a formula, and the key of ``formulas`` that names it."""
        return {name: key for key in self.formulas for name in key.split(", ")}

    @property
    def overload(self) -> str:
        """``Tensor`` for ``add.Tensor(...)``; ``default`` when there is no overload name."""
        return self.schema.partition("(")[0].partition(".")[2] or "default"


# ------------------------------------------------------------------ the formulas
def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """The table's ``where``: ``where.self`` of two tensors; a number for ``input`` or
    ``other`` goes to torch's overload for it (``where(cond, grad, 0)`` is
    ``where.ScalarOther``, which wraps the number with ``scalar_tensor``)."""
    if isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return aten.where.self.call(condition, input, other)
        return aten.where.ScalarOther.call(condition, input, other)
    if isinstance(other, Tensor):
        return aten.where.ScalarSelf.call(condition, input, other)
    return aten.where.Scalar.call(condition, input, other)


def exp_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx e**x = e**x, the result itself."""
    return grad * result


def expm1_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx (e**x - 1) = e**x = result + 1 (torch's C++ ``result + 1`` is ``add.Scalar``)."""
    return grad * _plus_one(result)


def _plus_one(t: Tensor) -> Tensor:
    """``t + 1`` as torch's formulas write it in C++: ``add.Scalar`` (Python's ``t + 1``, or
    ``1 + t``, is ``add.Tensor`` with a wrapped number; the same values)."""
    return aten.add.Scalar.call(t, 1, 1)


def _times(t: Tensor, number: Any) -> Tensor:
    """``number * t`` (or ``t * number``) as torch's formulas write it in C++:
    ``mul.Scalar`` (the same values as Python's ``mul.Tensor`` with a wrapped number)."""
    return aten.mul.Scalar.call(t, number)


def log_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx log x = 1 / x."""
    return grad / self


def sqrt_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx sqrt(x) = 1 / (2 sqrt(x)): torch's ``grad / (2 * result)``, whose C++ ``2 *
    result`` is ``mul.Scalar`` (Python's ``2 * result`` would be ``mul.Tensor``)."""
    return grad / aten.mul.Scalar.call(result, 2)


def sin_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self.cos()


def cos_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * -self.sin()


def tanh_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx tanh x = 1 - tanh(x)**2: the op ``tanh_backward`` (``1 - result * result`` in
    one rounding; written as ``grad * (1 - result * result)`` it rounds differently for
    about half of all inputs)."""
    return aten.tanh_backward.default.call(grad, result)


def tanh_backward_grad_output_backward(grad: Tensor, output: Tensor) -> Tensor:
    """d/d(grad_output) of ``grad_output * (1 - output**2)``: ``tanh_backward`` again."""
    return tanh_formula(grad, output)


def tanh_backward_output_backward(grad: Tensor, output: Tensor, grad_output: Tensor) -> Tensor:
    """d/d(output) of ``grad_output * (1 - output**2)``: ``grad * (-2 * output *
    grad_output)``, in torch's order."""
    return grad * (-2 * output * grad_output)


def sigmoid_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx sigmoid x = (1 - sigmoid x) * sigmoid x: the op ``sigmoid_backward`` (``grad *
    (1 - result) * result``, left to right; bfloat16 in float32)."""
    return aten.sigmoid_backward.default.call(grad, result)


def sigmoid_backward_grad_output_backward(grad: Tensor, output: Tensor) -> Tensor:
    """d/d(grad_output) of ``grad_output * (1 - output) * output``: ``sigmoid_backward``
    again."""
    return sigmoid_formula(grad, output)


def sigmoid_backward_output_backward(grad: Tensor, output: Tensor,
                                     grad_output: Tensor) -> Tensor:
    """d/d(output) of ``grad_output * (1 - output) * output``: torch's ``grad *
    grad_output * (-2 * output + 1)``."""
    return grad * grad_output * (-2 * output + 1)


def reciprocal_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx 1/x = -1/x**2 = -result**2 (in torch's order: the gradient is laid out like
    ``-grad``; torch's compiled ``-grad * (result * result)`` computes the square first,
    which a dispatch mode sees)."""
    square = result * result
    return -grad * square


def erfinv_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dy erfinv y = sqrt(pi) / 2 * exp(erfinv(y)**2): torch's ``0.5 * sqrt(M_PI) *
    exp(self.erfinv().pow(2)) * grad``, in that order (the constant is one double)."""
    return 0.5 * math.sqrt(math.pi) * self.erfinv().pow(2).exp() * grad


def flip_backward(grad: Tensor, dims: tuple[int, ...]) -> Tensor:
    """Flipping is its own inverse."""
    return grad.flip(dims)


def pass_through(grad: Tensor) -> Tensor:
    """The gradient unchanged (``self: grad``); summed to the input's shape by the engine
    when the input was broadcast."""
    return grad


def add_other_backward(grad: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(grad, alpha)``: d(self + alpha * other)/d(other) = alpha."""
    return grad if alpha == 1 else grad * alpha


def sub_other_backward(grad: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(-grad, alpha)``."""
    return -grad if alpha == 1 else -grad * alpha


def mul_self_backward(grad: Tensor, other: Any) -> Tensor:
    return grad * other


def mul_other_backward(grad: Tensor, self: Any) -> Tensor:
    return grad * self


def div_self_backward(grad: Tensor, other: Any) -> Tensor:
    return grad / other


def div_other_backward(grad: Tensor, self: Any, other: Any) -> Tensor:
    """d(self / other)/d(other) = -self / other**2, in torch's order (its
    ``div_tensor_other_backward``): ``-grad * ((self / other) / other)``. (``-grad * self /
    (other * other)`` rounds differently for about half of all inputs.) torch's compiled
    code computes the quotient before ``-grad``, which a dispatch mode sees."""
    quotient = (self / other) / other
    return -grad * quotient


# ------------------------------------------------------------------ the product and quotient rules
Nested = Any  # a float, or nested lists of floats


def binary_backward(op: str, x: Nested, y: Nested, grad: Nested) -> tuple[Nested, Nested]:
    """``z.grad_fn(grad)`` for ``z = x * y`` (``op == "*"``, torch's ``MulBackward0``) or
    ``z = x / y`` (``op == "/"``, ``DivBackward0``) of float64 tensors requiring grad: the
    gradients of ``x`` and ``y`` at ``z``'s shape, before the engine sums each down to its
    input's shape.

    Args:
        op: ``"*"`` or ``"/"``.
        x, y: float64 values as nested lists or tuples (a float for a 0-d tensor), of
            shapes that broadcast to ``grad``'s.
        grad: ``z``'s gradient, float64 values of ``z``'s shape, nested the same way.

    Returns:
        ``(grad_x, grad_y)``: two nested lists of ``z``'s shape (a float each for a 0-d
        ``z``), torch's values bit for bit (its formulas round at every operation, in their
        order).

    Raises:
        ZeroDivisionError: a 0 in ``y`` for ``"/"`` (Python's ``/``; the library's nodes do
            not ask then).
    """
    # BEGIN PIECE binary_backward
    # Read x and y at each index of z as broadcasting does (dims aligned on the right, a
    # size-1 dim repeating its element), and apply torch's formulas in its order
    # (derivatives.yaml): grad * y and grad * x for "*"; grad / y and -grad * ((x / y) / y)
    # for "/". Python's float operations round as torch's float64 kernels do.
    def shape(v: Nested) -> tuple[int, ...]:
        return (len(v), *shape(v[0])) if isinstance(v, list | tuple) else ()

    def at(v: Nested, index: tuple[int, ...]) -> float:
        """``v`` broadcast to ``z``'s shape, read at ``index`` (dims aligned on the right)."""
        dims = shape(v)
        for i, n in zip(index[len(index) - len(dims):], dims, strict=True):
            v = v[i if n > 1 else 0]
        return v

    def build(f: Callable[[tuple[int, ...]], float], index: tuple[int, ...] = ()) -> Nested:
        if len(index) == len(out):
            return f(index)
        return [build(f, (*index, i)) for i in range(out[len(index)])]

    out = shape(grad)
    if op == "*":
        return (build(lambda i: at(grad, i) * at(y, i)),
                build(lambda i: at(grad, i) * at(x, i)))
    return (build(lambda i: at(grad, i) / at(y, i)),
            build(lambda i: -at(grad, i) * ((at(x, i) / at(y, i)) / at(y, i))))
    # END PIECE


#: the nodes of ``*`` and ``/`` ask ``binary_backward`` when all three tensors are float64
#: CPU tensors and the gradient has fewer elements than this (Python floats are float64, so
#: the answer is exact); other nodes run the tensor formulas above, which round the same way
BINARY_BACKWARD_NUMEL = 64


def _asks_a_piece(tensors: tuple[Any, ...], grad: Tensor) -> bool:
    """Do the nodes of small float64 CPU tensors ask their chapter-5 piece? Every tensor
    (``None`` and numbers aside) is a float64 CPU ``Tensor``, the gradient has 1 to 63
    elements (nested lists cannot show an empty shape), no dispatch mode watches, and
    autograd does not record the call (``create_graph=True`` records the tensor formulas)."""
    present = [t for t in tensors if isinstance(t, Tensor)]
    return not (any(type(t) is not Tensor or t._dtype is not dtypes.float64
                    or t._storage._device is not CPU for t in present)
                or not 0 < grad.numel() < BINARY_BACKWARD_NUMEL or subclass_like(grad)
                or (dispatch_state.enabled and any(t.requires_grad for t in present)))


def _laid_out(like: Tensor, values: Nested) -> Tensor:
    """A float64 CPU tensor of ``values`` (nested lists of ``like``'s shape), with the
    strides of ``like``: the meta result of the tensor formula the piece stands for."""
    return factories._allocate(like._shape, like._stride, dtypes.float64, CPU).copy_(
        factories.unlifted_tensor(values, dtype=dtypes.float64).reshape(like._shape))


def _on_meta(t: Any) -> Any:
    """A tensor's layout and dtype on the meta device (anything else as it is)."""
    if not isinstance(t, Tensor):
        return t
    return factories._allocate(t._shape, t._stride, t._dtype, META)


def _by_binary_backward(op: str, grad: Any, self: Any, other: Any
                        ) -> tuple[Tensor, Tensor] | None:
    """Both gradients of a ``*`` or ``/`` node from ``binary_backward``, or None where it
    does not apply (see ``_asks_a_piece``; also a 0 divisor). Each gradient is laid out as
    the tensor formula lays it out, found by running it on the meta device."""
    tensors = (grad, self, other)
    if (not all(isinstance(t, Tensor) for t in tensors) or not _asks_a_piece(tensors, grad)
            or (op == "/" and 0 in other.reshape(-1).tolist())):
        return None
    gx, gy = binary_backward(op, self.tolist(), other.tolist(), grad.tolist())
    meta = [_on_meta(t) for t in tensors]
    if op == "*":
        like = (mul_self_backward(meta[0], meta[2]), mul_other_backward(meta[0], meta[1]))
    else:
        like = (div_self_backward(meta[0], meta[2]), div_other_backward(*meta))
    return _laid_out(like[0], gx), _laid_out(like[1], gy)


def mul_tensor_self_backward(grad: Tensor, other: Any) -> Tensor:
    """``grad * other`` (torch's ``mul_tensor_backward``); a small float64 node asks
    ``binary_backward``. It reads ``other`` only, so ``x * y`` saves ``x`` only when ``y``
    needs a gradient, as torch's node does (``binary_backward`` gets ``grad`` in the place
    of ``x``, whose values only ``y``'s gradient reads)."""
    asked = _by_binary_backward("*", grad, grad, other)
    return mul_self_backward(grad, other) if asked is None else asked[0]


def mul_tensor_other_backward(grad: Tensor, self: Any) -> Tensor:
    """``grad * self``: it reads ``self`` only (``grad`` stands in for ``other``)."""
    asked = _by_binary_backward("*", grad, self, grad)
    return mul_other_backward(grad, self) if asked is None else asked[1]


def div_tensor_self_backward(grad: Tensor, other: Any) -> Tensor:
    """``grad / other`` (torch's ``div_tensor_self_backward``); a small float64 node asks
    ``binary_backward`` (with ``grad`` in the place of ``self``, which it does not read)."""
    asked = _by_binary_backward("/", grad, grad, other)
    return div_self_backward(grad, other) if asked is None else asked[0]


def div_tensor_other_backward(grad: Tensor, self: Any, other: Any) -> Tensor:
    asked = _by_binary_backward("/", grad, self, other)
    return div_other_backward(grad, self, other) if asked is None else asked[1]


def zeros_like(t: Tensor) -> Tensor:
    """Zeros laid out as ``t`` (``torch.zeros_like``: a dense ``t`` keeps its strides);
    the op itself while a dispatch mode is active (for the mode to see it, as torch's)."""
    if subclass_like(t):
        return aten.zeros_like.default(t)
    return factories._allocate(t._shape, t._strides_for(layout.preserve_format), t._dtype,
                               t.device)


def div_self_backward_mode(grad: Tensor, other: Any, rounding_mode: str | None) -> Tensor:
    """With a rounding mode, division is a step function: zero gradient (zeros, even where
    ``grad`` is nan); without, the gradient of true division."""
    return zeros_like(grad) if rounding_mode is not None else grad / other


def div_other_backward_mode(grad: Tensor, self: Any, other: Any,
                            rounding_mode: str | None) -> Tensor:
    if rounding_mode is not None:
        return zeros_like(grad)
    return div_other_backward(grad, self, other)


def neg_formula(grad: Tensor) -> Tensor:
    return grad.neg()


def abs_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d|x|/dx = sign(x) (torch's ``self.sgn()``, the op ``sgn``; 0 at 0)."""
    return grad * self.sgn()


def relu_formula(grad: Tensor, result: Tensor) -> Tensor:
    """torch's ``threshold_backward(grad, result, 0)``: 0 where the result is <= 0."""
    return aten.threshold_backward.default.call(grad, result, 0)


def threshold_backward_grad_output_backward(grad: Tensor, self: Tensor,
                                            threshold: Any) -> Tensor:
    """d/d(grad_output) of ``threshold_backward``: ``threshold_backward`` again."""
    return aten.threshold_backward.default.call(grad, self, threshold)


def zero_backward(grad: Tensor) -> Tensor:
    """A step function (sign, floor, round), or an op whose result forgets the input (the
    fills): zeros, laid out as ``grad``."""
    return zeros_like(grad)


def not_implemented_formula(op: str) -> Formula:
    """derivatives.yaml's ``not_implemented("<op>")`` formula: the op's node is recorded
    (``Unique2Backward0``), its backward raises NotImplementedError."""
    def formula(grad: Tensor) -> Tensor:
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")

    formula.__name__ = f"{op}_not_implemented"
    return formula


def not_implemented(op: str) -> Formula:
    """torch's node for an op that has no formula (``NotImplemented``): its backward
    raises."""
    def formula(grad: Tensor) -> Tensor:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    formula.__name__ = f"{op}_not_implemented"
    return formula


def remainder_other_backward(grad: Tensor, self: Any, other: Any) -> Tensor:
    """d(self - other * floor(self / other))/d(other) = -floor(self / other)."""
    return -grad * self.div(other, rounding_mode="floor")


def pow_formula(grad: Tensor, self: Tensor, exponent: Any) -> Tensor:
    """``tensor ** number``: ``exponent * self ** (exponent - 1)``; zeros when the exponent
    is 0 (torch's ``pow_backward``; a bool ``False`` is no 0 there, so ``x ** False``
    gives nan at ``x = 0``, as in torch)."""
    if exponent == 0 and not isinstance(exponent, bool):  # torch's LEGACY_CONTIGUOUS format
        if subclass_like(self):
            return aten.zeros_like.default(self, memory_format=layout.contiguous_format)
        return factories._allocate(self._shape, layout.contiguous_strides(self._shape),
                                   self._dtype, self.device)
    # C++'s ``exponent * self.pow(exponent - 1)``, with a real exponent as a double
    if isinstance(exponent, int):
        exponent = float(exponent)
    return grad * _times(self.pow(exponent - 1), exponent)


def pow_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    """``tensor ** tensor``, for the base: as ``pow_backward``, 0 where the exponent is 0."""
    return where(exponent == 0.0, 0.0, grad * (exponent * self.pow(exponent - 1)))


def pow_backward_exponent(grad: Tensor, self: Any, exponent: Tensor, result: Tensor) -> Tensor:
    """For the exponent: ``result * log(self)``, with log taken in the result's dtype; 0
    where the base is 0 and the exponent is not negative. ``self`` may be a number
    (``2 ** t``)."""
    if not isinstance(self, Tensor):
        if self == 0:
            return grad * where(exponent >= 0, 0.0, result * float("-inf"))
        return grad * (result * math.log(self))
    log = self.to(result.dtype).log()
    return grad * where((self == 0).logical_and(exponent >= 0), 0.0, result * log)


# ------------------------------------------------------------------ lerp, addcmul, addcdiv
def lerp_scalar_self_backward(grad: Tensor, weight: Any) -> Tensor:
    """``grad * (1 - weight.toDouble())``: the weight as a double, so ``1 - w`` is rounded in
    float64 before it scales the gradient."""
    return grad * (1 - float(weight))


def lerp_end_backward(grad: Tensor, weight: Any) -> Tensor:
    """d lerp / d end = weight (a number or a tensor)."""
    return grad * weight


def lerp_tensor_self_backward(grad: Tensor, weight: Tensor) -> Tensor:
    return grad * (1 - weight)


def lerp_weight_backward(grad: Tensor, self: Tensor, end: Tensor) -> Tensor:
    return grad * (end - self)


def addcmul_tensor1_backward(grad: Tensor, tensor2: Tensor, value: Any) -> Tensor:
    """d(self + value * t1 * t2)/d(t1) = t2 * value (torch's ``grad * (tensor2 * value)``)."""
    return grad * (tensor2 * value)


def addcmul_tensor2_backward(grad: Tensor, tensor1: Tensor, value: Any) -> Tensor:
    return grad * (tensor1 * value)


def _number_over(value: Any, t: Tensor) -> Tensor:
    """C++'s ``value / t`` for a Scalar ``value``: ``empty_like(t).fill_(value).div_(t)``,
    the number rounded to ``t``'s dtype, then one true division (not ``t.reciprocal() *
    value``, which Python's ``value / t`` is, rounding twice)."""
    return aten.full_like(t, value, memory_format=layout.preserve_format) / t


def addcdiv_tensor1_backward(grad: Tensor, tensor2: Tensor, value: Any) -> Tensor:
    """d(self + value * t1 / t2)/d(t1) = value / t2."""
    return grad * _number_over(value, tensor2)


def addcdiv_tensor2_backward(grad: Tensor, tensor1: Tensor, tensor2: Tensor,
                             value: Any) -> Tensor:
    """d(self + value * t1 / t2)/d(t2) = -value * t1 / t2**2, in torch's order: ``-grad *
    (value * tensor1 / (tensor2 * tensor2))``."""
    return -grad * (tensor1 * value / (tensor2 * tensor2))


# ------------------------------------------------------------------ reductions (chapter 4)
def _wrapped_dims(dim: Any, ndim: int) -> list[int]:
    """The reduced dims of an input with ``ndim`` dims, wrapped and sorted (None or ``()``:
    every dim)."""
    dims = (dim,) if isinstance(dim, int) else (dim or ())
    if not dims:
        return list(range(ndim))
    return sorted({d % ndim for d in dims}) if ndim else []


def restore_reduced_dims(grad: Tensor, dim: Any, ndim: int, keepdim: bool) -> Tensor:
    """``grad`` with the reduced dims back as size 1 (torch's ``unsqueeze_multiple``),
    unless ``keepdim`` kept them."""
    if keepdim or ndim == 0:
        return grad
    for d in _wrapped_dims(dim, ndim):
        grad = grad.unsqueeze(d)
    return grad


def reduction_backward(grad: Nested, sizes: tuple[int, ...], dims: tuple[int, ...] | None,
                       keepdim: bool, mean: bool) -> Nested:
    """What the node of ``x.sum(dims, keepdim)`` (``SumBackward0``/``SumBackward1``) or of
    ``x.mean(dims, keepdim)`` (``MeanBackward0``/``MeanBackward1``) returns for the gradient
    ``grad`` of its result: the gradient of ``x``.

    Args:
        grad: the gradient of the result, nested lists of the result's shape (a float for a
            0-d result). The result's shape is ``sizes`` without the reduced dims, or with
            them as size 1 when ``keepdim``.
        sizes: ``x``'s sizes, a tuple of ints (no size is 0).
        dims: the reduced dims as the op got them, ints in ``[-len(sizes), len(sizes))``
            (``[-1, 0]`` for a 0-d ``x``); None or ``()`` for every dim (``x.sum()``).
        keepdim: the op's ``keepdim``.
        mean: True for ``mean``, False for ``sum``.

    Returns:
        nested lists of ``sizes`` (a float for a 0-d ``x``): torch's values, bit for bit
        (for ``mean``, one division of a float64 by an int, as torch's formula).
    """
    # BEGIN PIECE reduction_backward
    # Every element of x went into one element of the result: the one at x's index with the
    # reduced dims dropped (keepdim: read at 0). It gets that element's gradient, divided by
    # the count of elements that went into it for mean (the product of the reduced sizes).
    ndim = len(sizes)
    if ndim == 0:
        reduced: set[int] = set()
    elif not dims:  # None or (): every dim
        reduced = set(range(ndim))
    else:  # wrapped: -1 is the last dim
        reduced = {d % ndim for d in dims}
    count = math.prod(sizes[d] for d in reduced)

    def element(index: tuple[int, ...]) -> float:
        g = grad
        for d, i in enumerate(index):
            if d not in reduced:
                g = g[i]
            elif keepdim:
                g = g[0]
        return g / count if mean else g

    def fill(index: tuple[int, ...]) -> Nested:
        if len(index) == ndim:
            return element(index)
        return [fill((*index, i)) for i in range(sizes[len(index)])]

    return fill(())
    # END PIECE


#: the reduction nodes ask ``reduction_backward`` in the student edition only (small
#: float64 inputs, see ``_by_reduction_backward``); the reference runs its tensor formulas
REDUCTION_PIECE = pieces.stubbed(reduction_backward)


def _by_reduction_backward(grad: Any, sizes: tuple[int, ...], dim: Any, keepdim: bool,
                           mean: bool) -> Tensor | None:
    """The gradient of a sum or mean node from ``reduction_backward``, or None where the
    piece does not apply (the reference; see ``_asks_a_piece``; ``x`` of 64 elements or
    more, or empty). The answer is laid out as the tensor formula lays it out: for a sum,
    the gradient with the reduced dims restored, expanded (stride 0 on those dims), where
    the answer repeats one value along them; dense where it does not (a wrong answer)."""
    if (not REDUCTION_PIECE or not isinstance(grad, Tensor)
            or not 0 < math.prod(sizes) < BINARY_BACKWARD_NUMEL
            or not _asks_a_piece((grad,), grad)):
        return None
    dims = None if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    answer = reduction_backward(grad.tolist(), tuple(sizes), dims, keepdim, mean)
    meta = _on_meta(grad)
    if mean:
        like = (mean_dim_formula(meta, sizes, dim, keepdim) if dims is not None
                else mean_formula(meta, sizes))
        return _laid_out(like, answer)
    # what the formula expands: x.sum()'s 0-d gradient, or the gradient with the reduced
    # dims back as size 1
    restored = meta if dims is None else restore_reduced_dims(meta, dims, len(sizes), keepdim)
    dense = factories.unlifted_tensor(answer, dtype=dtypes.float64).reshape(sizes)
    base = dense
    for d, n in enumerate(sizes):
        if n != 1 and (dims is None or restored._shape[d] == 1):
            base = base.narrow(d, 0, 1)
    repeated = base.expand(sizes).reshape(-1).tolist()
    if not all(a == b or (a != a and b != b)  # nan is nan
               for a, b in zip(repeated, dense.reshape(-1).tolist(), strict=True)):
        return _laid_out(_on_meta(dense), answer)  # not one value along the reduced dims
    return aten.expand.default.call(
        _laid_out(restored, base.reshape(restored._shape).tolist()), sizes, False)


def sum_formula(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """Every element contributed once: ``grad`` broadcast back to the input's shape
    (``aten.expand`` called as the overload)."""
    return aten.expand.default.call(grad, self_sym_sizes, False)


def sum_dim_formula(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: Any,
                    keepdim: bool) -> Tensor:
    return restore_reduced_dims(grad, dim, len(self_sym_sizes), keepdim).expand(
        self_sym_sizes)


def mean_formula(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """``grad.expand(sizes) / numel`` (``div.Scalar``, as torch's C++ formula divides)."""
    return aten.div.Scalar.call(grad.expand(self_sym_sizes), math.prod(self_sym_sizes))


def mean_dim_formula(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: Any,
                     keepdim: bool) -> Tensor:
    """The sum's gradient divided by the count of the reduced dims."""
    count = math.prod(self_sym_sizes[d] for d in _wrapped_dims(dim, len(self_sym_sizes)))
    return aten.div.Scalar.call(sum_dim_formula(grad, self_sym_sizes, dim, keepdim), count)


def sum_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """``SumBackward0``: every backward of a sum runs this (the student edition asks
    ``reduction_backward`` on small float64 inputs)."""
    asked = _by_reduction_backward(grad, self_sym_sizes, None, False, False)
    return sum_formula(grad, self_sym_sizes) if asked is None else asked


def sum_dim_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: Any,
                     keepdim: bool) -> Tensor:
    asked = _by_reduction_backward(grad, self_sym_sizes, dim, keepdim, False)
    return (sum_dim_formula(grad, self_sym_sizes, dim, keepdim) if asked is None
            else asked)


def mean_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    asked = _by_reduction_backward(grad, self_sym_sizes, None, False, True)
    return mean_formula(grad, self_sym_sizes) if asked is None else asked


def mean_dim_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: Any,
                      keepdim: bool) -> Tensor:
    asked = _by_reduction_backward(grad, self_sym_sizes, dim, keepdim, True)
    return (mean_dim_formula(grad, self_sym_sizes, dim, keepdim) if asked is None
            else asked)


def _leave_one_out(x: Tensor, dim: int | None) -> Tensor:
    """For each element, the product of the others along ``dim`` (None: all of ``x``),
    computed as the product of a row where that element is replaced by 1 (n*n work, exact,
    and differentiable again, also where several elements are zero)."""
    xt = x.reshape(-1) if dim is None else x.transpose(dim, -1)
    n = xt.shape[-1]
    positions = aten.arange(n, dtype=dtypes.int64)
    eye = positions.unsqueeze(1) == positions
    rows = where(eye, xt.unsqueeze(-2) * 0 + 1, xt.unsqueeze(-2))
    others = rows.prod(-1)
    if dim is None:
        return others.reshape(x._shape)
    return others.transpose(dim, -1).contiguous()  # dense, as torch's cumprod-based product


def _prod_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int | None) -> Tensor:
    """torch's ``prod_backward``: ``grad * (result / self)`` when no element is zero; else
    the product of the others (0 where a row has two zeros or more)."""
    if self.dim() == 0:
        return grad
    if not bool((self == 0).any()):
        return grad * (result / self)
    return grad * _leave_one_out(self, dim)


def prod_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """``prod(self, dtype=...)``: torch's row passes ``self.to(grad.scalar_type())``, so the
    formula computes in the result's dtype (float16 for ``dtype=torch.float16``) and the
    engine casts the gradient back to ``self``'s."""
    self = self.to(grad._dtype)
    if (self.dim() and not dispatch_state.enabled and not subclass_like(self, grad)
            and int((self == 0).sum()) > 1):
        # torch: two zeros or more make every gradient 0 (``zeros_like(input,
        # LEGACY_CONTIGUOUS_MEMORY_FORMAT)``), not computed: the others' product may
        # overflow to inf, and inf * 0 would be nan
        return factories._allocate(self._shape, layout.contiguous_strides(self._shape),
                                   self._dtype, self.device)
    return _prod_backward(grad.expand(self._shape), self, result, None)


def prod_dim_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int,
                      keepdim: bool) -> Tensor:
    if self.dim() == 0:
        return grad
    self = self.to(grad._dtype)  # (as in prod_backward)
    d = dim % self.dim()
    if not keepdim:
        grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    return _prod_backward(grad, self, result, d)


def evenly_distribute_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """max(), min(): tied extremes share the gradient equally (a nan result: the nans)."""
    mask = self != self if bool(result != result) else self == result
    return where(mask, grad / mask.sum(), 0.0)


def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor,
                                       self_sym_sizes: tuple[int, ...],
                                       keepdim: bool) -> Tensor:
    """max(dim), min(dim): all the gradient goes to the index returned, zeros elsewhere
    (torch's ``zeros(sizes).scatter(dim, indices, grad)``)."""
    if not self_sym_sizes:  # a 0-d input is its own extreme: the gradient passes through
        return grad
    d = dim % len(self_sym_sizes)
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    positions = aten.arange(self_sym_sizes[d], dtype=dtypes.int64).reshape(
        [-1 if k == d else 1 for k in range(len(self_sym_sizes))])
    return where(positions == indices, grad, 0.0).expand(self_sym_sizes).contiguous()


def amax_amin_backward(grad: Tensor, self: Tensor, result: Tensor, dim: Any,
                       keepdim: bool) -> Tensor:
    """torch's ``scale_grad_by_count``: tied extremes share the gradient equally,
    ``(grad / mask.sum(dim, keepdim=True)) * mask``."""
    ndim = self.dim()
    mask = restore_reduced_dims(result, dim, ndim, keepdim) == self
    dims = tuple(_wrapped_dims(dim, ndim))
    count = mask.sum(dims, keepdim=True) if ndim else mask.sum()
    return (restore_reduced_dims(grad, dim, ndim, keepdim) / count) * mask


def maximum_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """Half the gradient each at ties; none where ``self`` is the smaller."""
    return where(self < other, 0.0, where(self == other, grad / 2, grad))


def maximum_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return where(self > other, 0.0, where(self == other, grad / 2, grad))


def minimum_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return where(self > other, 0.0, where(self == other, grad / 2, grad))


def minimum_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return where(self < other, 0.0, where(self == other, grad / 2, grad))


def var_backward(grad: Tensor, self: Tensor, dim: Any, correction: Any,
                 keepdim: bool) -> Tensor:
    """``2 / (N - correction) * grad * (self - mean)``. Over every element (no ``dim``, or
    a 0-d input) with ``N - correction <= 0``, torch gives ``grad * inf``, nan where
    ``self`` is its mean (``inf * 0``)."""
    correction = 1 if correction is None else correction
    if self.dim() == 0 or dim is None:
        dof = self.numel() - correction
        if dof <= 0:
            return grad * where(self == self.mean(), math.nan, math.inf)
        return 2.0 / dof * grad * (self - self.mean())
    # torch counts the elements of the dims as given: ``dim=()`` counts 1 (while the
    # forward and the mean reduce every dim), so its gradient is +-inf or nan
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dof = math.prod(self._shape[d] for d in dims) - correction
    scale = 2.0 / dof if dof else math.inf  # (C++'s double division: 2 / 0 is inf)
    grad = restore_reduced_dims(grad, dim, self.dim(), keepdim)
    return scale * grad * (self - self.mean(dims, keepdim=True))


def std_backward(grad: Tensor, self: Tensor, result: Tensor, dim: Any, correction: Any,
                 keepdim: bool) -> Tensor:
    """The variance's gradient scaled by ``1 / (2 std)``; none where the std is 0."""
    return var_backward(where(result == 0, 0.0, grad / (result * 2)), self, dim, correction,
                        keepdim)


# ------------------------------------------------ scans and logsumexp (chapter 4, issue 43)
def reversed_cumsum(w: Tensor, dim: int) -> Tensor:
    """``w.flip(dim).cumsum(dim).flip(dim)``: element ``k`` is the sum of ``w[k:]``."""
    return w.flip(dim).cumsum(dim).flip(dim)


def cumsum_backward(grad: Tensor, dim: int, self_scalar_type: Any) -> Tensor:
    """torch's ``cumsum_backward(grad.to(self.scalar_type()), dim)``: each element reaches
    every later running sum, so its gradient is the reversed cumsum of ``grad``; ``grad``
    itself where there is nothing to add (one element, or a dim of size 1)."""
    grad = grad.to(self_scalar_type)
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad: Tensor, self: Tensor, dim: int, result: Tensor) -> Tensor:
    """torch's ``cumprod_backward(grad.to(self.scalar_type()), self, dim, result)``: with
    no zero in ``self``, ``reversed_cumsum(result * grad, dim) / self``. With zeros
    (where that divides by 0) element ``k`` gets ``sum_{j >= k} grad_j * prod_{i <= j, i !=
    k} x_i``, computed here from the products of each line with ``x_k`` replaced by 1
    (torch walks the zeros one by one: the values agree within rounding)."""
    grad = grad.to(self._dtype)
    if self.numel() <= 1:
        return grad
    d = dim % self.dim()
    if self.shape[d] == 1:
        return grad
    if not bool((self == 0).any()):
        return reversed_cumsum(result * grad, d).div(self)
    xt, gt = self.transpose(d, -1), grad.transpose(d, -1)
    n = xt.shape[-1]
    positions = aten.arange(n, dtype=dtypes.int64)
    # rows[..., k, i]: x_i, with x_k replaced by 1; their running products along i
    rows = where(positions.unsqueeze(1) == positions, xt.unsqueeze(-2) * 0 + 1,
                 xt.unsqueeze(-2))
    later = positions.unsqueeze(0) >= positions.unsqueeze(1)  # [k, j]: j >= k
    picked = where(later, rows.cumprod(-1), 0.0) * gt.unsqueeze(-2)
    return picked.sum(-1).transpose(d, -1).contiguous()


def cummaxmin_backward(grad: Tensor, self: Tensor, indices: Tensor, dim: int) -> Tensor:
    """torch's ``cummaxmin_backward``: each gradient added at the index its running extreme
    came from (``zeros.scatter_add_(dim, indices, grad)``)."""
    if self.numel() == 0:
        return self
    zeros = aten.zeros.default.call(self._shape, self._dtype, None, self.device, None)
    if subclass_like(grad, indices):  # torch: "subclass-like" tensors: out of place
        return aten.scatter_add.default.call(zeros, dim, indices, grad)
    return zeros.scatter_add_(dim, indices, grad)


def logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """torch's ``logcumsumexp_backward``: the positive and the negative parts of ``grad``
    in log space (the dtype's lowest value standing for log 0), each through a reversed
    ``logcumsumexp`` of ``log|grad| - result``, plus ``self``, exponentiated; their
    difference."""
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    lowest = float(finfo(grad._dtype).min)

    def reversed_logcumsumexp(x: Tensor) -> Tensor:
        return x.flip(dim).logcumsumexp(dim).flip(dim)

    log_abs_grad = grad.abs().log()
    positive = where(grad > 0, log_abs_grad, lowest)
    negative = where(grad < 0, log_abs_grad, lowest)
    output_pos = (reversed_logcumsumexp(positive - result) + self).exp()
    output_neg = (reversed_logcumsumexp(negative - result) + self).exp()
    return output_pos - output_neg


def logsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: Any,
                       keepdim: bool) -> Tensor:
    """``grad * exp(self - result)`` (the softmax of ``self`` over ``dim``), the reduced
    dims put back first (torch's ``unsqueeze_multiple``)."""
    if not keepdim and self.dim() != 0:
        grad = restore_reduced_dims(grad, dim, self.dim(), False)
        result = restore_reduced_dims(result, dim, self.dim(), False)
    return grad * (self - result).exp()


def linalg_vector_norm_backward(grad: Tensor, self: Tensor, ord: Any, result: Tensor,
                                dim: Any, keepdim: bool) -> Tensor | None:
    """torch's ``linalg_vector_norm_backward`` (its ``norm_backward``), the reduced dims put
    back first: no gradient for ``ord`` 0; ``sgn(x) * grad`` for 1; ``grad * x / norm``
    for 2 (0 where the norm is 0); for +-inf the gradient shared among the elements whose
    ``|x|`` is the norm (or nan), with ``x``'s sign; otherwise ``sgn(x) * |x|**(p-1)``
    times ``grad * norm**(1-p)`` (for p < 1, 0 where ``x`` is 0) or times
    ``grad / norm**(p-1)`` (0 where the norm is 0). A ``dtype=`` wider than the input's
    gives a gradient of that dtype, which the engine converts back."""
    p = float(ord)
    ndim = self.dim()
    if not keepdim and ndim != 0:
        grad = restore_reduced_dims(grad, dim, ndim, False)
        result = restore_reduced_dims(result, dim, ndim, False)
    if p == 0:
        return None
    if p == 1:
        return self.sgn() * grad
    if p == 2:
        return grad * (self / result).masked_fill_(result == 0, 0)
    if math.isinf(p):
        magnitude = self.abs()
        mask = (magnitude == result).logical_or(magnitude.isnan())
        dims = tuple(_wrapped_dims(dim, ndim))
        count = mask.sum(dims, keepdim=True) if ndim else mask.sum()
        return self.sgn() * ((grad / count) * mask)
    if p < 1:
        scaled = self.sgn() * self.abs().pow_(p - 1).masked_fill_(self == 0, 0)
        return scaled * grad * result.pow(1 - p)
    scaled = self.sgn() * self.abs().pow_(p - 1) if p < 2 else self * self.abs().pow_(p - 2)
    scale = grad / result.pow(p - 1)
    scale.masked_fill_(result == 0, 0)
    return scaled * scale


# ------------------------------------------------- more reductions (chapter 4, issue 43)
def var_mean_backward(grads: list[Tensor | None], self: Tensor, dim: Any, correction: Any,
                      keepdim: bool) -> Tensor:
    """torch's ``var_mean_backward``: ``var``'s gradient plus ``mean``'s, for the results
    that got one."""
    gvar, gmean = grads
    found = None if gvar is None else var_backward(gvar, self, dim, correction, keepdim)
    if gmean is not None:
        aux = mean_dim_backward(gmean, self._shape, dim, keepdim)
        found = aux if found is None else found + aux
    assert found is not None
    return found


def std_mean_backward(grads: list[Tensor | None], self: Tensor, result0: Tensor, dim: Any,
                      correction: Any, keepdim: bool) -> Tensor:
    """torch's ``std_mean_backward``: ``std``'s gradient plus ``mean``'s."""
    gstd, gmean = grads
    found = (None if gstd is None
             else std_backward(gstd, self, result0, dim, correction, keepdim))
    if gmean is not None:
        aux = mean_dim_backward(gmean, self._shape, dim, keepdim)
        found = aux if found is None else found + aux
    assert found is not None
    return found


def nansum_backward(grad: Tensor, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """torch's ``nansum_backward(grad.to(self.scalar_type()), self, dim, keepdim)``: the
    sum's gradient, 0 where ``self`` is nan."""
    grad = sum_dim_backward(grad.to(self._dtype), self._shape, dim, keepdim)
    return grad * self.isnan().logical_not()


def aminmax_backward(grads: list[Tensor | None], self: Tensor, dim: int | None,
                     keepdim: bool, min: Tensor, max: Tensor) -> Tensor:
    """torch's ``aminmax_backward``: as ``amin``'s and ``amax``'s (tied extremes share
    evenly), summed."""
    dims: Any = () if dim is None else (dim,)
    found = None
    for grad, picked in zip(grads, (min, max), strict=True):
        if grad is not None:
            part = amax_amin_backward(grad, self, picked, dims, keepdim)
            found = part if found is None else found + part
    assert found is not None
    return found


# ------------------------------------------------------------- sorting (chapter 4, issue 43)
def scatter_to_indices_backward(grad: Tensor, dim: int, indices: Tensor,
                                self_sym_sizes: tuple[int, ...]) -> Tensor:
    """sort, topk: each value's gradient goes back to the place it came from, zeros
    elsewhere (torch's ``value_selecting_reduction_backward`` with ``keepdim=true``:
    ``zeros(sizes).scatter(dim, indices, grad)``)."""
    zeros = aten.zeros.default.call(self_sym_sizes, grad._dtype, None, grad.device, None)
    return aten.scatter.src.call(zeros, dim, indices, grad)


def _column_major(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad: Tensor, mat2: Tensor, self_sym_sizes: tuple[int, ...],
                     self_sym_strides: tuple[int, ...]) -> Tensor:
    """d(self @ mat2)/d(self) = grad @ mat2^T; computed transposed when ``self`` was
    column-major, so that its gradient is column-major too (torch's ``mm_mat1_backward``)."""
    if _column_major(self_sym_sizes, self_sym_strides):
        return mat2.mm(grad.t()).t()
    return grad.mm(mat2.t())


def mm_mat2_backward(grad: Tensor, self: Tensor, mat2_sym_sizes: tuple[int, ...],
                     mat2_sym_strides: tuple[int, ...]) -> Tensor:
    """d(self @ mat2)/d(mat2) = self^T @ grad (transposed for a column-major ``mat2``)."""
    if _column_major(mat2_sym_sizes, mat2_sym_strides):
        return grad.t().mm(self).t()
    return self.t().mm(grad)


def maybe_multiply(t: Tensor, s: Any) -> Tensor:
    """torch's ``maybe_multiply``: ``t`` itself when ``s`` is 1, else ``t * s``."""
    return t if s == 1 else t * s


def addmm_self_backward(grad: Tensor, beta: Any) -> Tensor:
    """``maybe_multiply(grad, beta)``; the engine sums it to ``self``'s broadcast shape."""
    return maybe_multiply(grad, beta)


def addmm_mat1_backward(grad: Tensor, mat2: Tensor, mat1_sym_sizes: tuple[int, ...],
                        mat1_sym_strides: tuple[int, ...], alpha: Any) -> Tensor:
    """``mm_mat1_backward(..., alpha)``: ``mm``'s gradient scaled by ``alpha``."""
    return maybe_multiply(mm_mat1_backward(grad, mat2, mat1_sym_sizes, mat1_sym_strides),
                          alpha)


def addmm_mat2_backward(grad: Tensor, mat1: Tensor, mat2_sym_sizes: tuple[int, ...],
                        mat2_sym_strides: tuple[int, ...], alpha: Any) -> Tensor:
    return maybe_multiply(mm_mat2_backward(grad, mat1, mat2_sym_sizes, mat2_sym_strides),
                          alpha)


def bmm_self_backward(grad: Tensor, mat2: Tensor) -> Tensor:
    return grad.bmm(mat2.transpose(1, 2))


def bmm_mat2_backward(grad: Tensor, self: Tensor) -> Tensor:
    return self.transpose(1, 2).bmm(grad)


def mv_self_backward(grad: Tensor, vec: Tensor) -> Tensor:
    """torch's ``grad.ger(vec)``: the outer product (``outer``: ``grad.reshape(n, 1) *
    vec``, with ``n`` the length of ``grad``)."""
    return aten.outer.default.call(grad, vec)


def mv_vec_backward(grad: Tensor, self: Tensor) -> Tensor:
    return self.t().mv(grad)


def dot_self_backward(grad: Tensor, tensor: Tensor) -> Tensor:
    return grad * tensor


def dot_tensor_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self


def addmv_mat_backward(grad: Tensor, vec: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(grad.ger(vec), alpha)``: torch's ``ger`` from C++, which warns
    nothing here: ``outer``."""
    return maybe_multiply(aten.outer.default.call(grad, vec), alpha)


def addmv_vec_backward(grad: Tensor, mat: Tensor, alpha: Any) -> Tensor:
    return maybe_multiply(mat.t().mv(grad), alpha)


def vdot_self_backward(grad: Tensor, other: Tensor) -> Tensor:
    """``grad.conj() * other`` (reftensor's dtypes are real: ``conj`` is the identity)."""
    return grad * other


def vdot_other_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self


def linalg_cross_self_backward(grad: Tensor, other: Tensor, dim: int) -> Tensor:
    """``linalg_cross(other.conj(), grad, dim)`` (``conj`` is the identity on reftensor's
    real dtypes); the engine sums it to ``self``'s shape where ``self`` was broadcast."""
    return aten.linalg_cross.default(other, grad, dim=dim)


def linalg_cross_other_backward(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    """``linalg_cross(grad, self.conj(), dim)``."""
    return aten.linalg_cross.default(grad, self, dim=dim)


def addr_vec1_backward(grad: Tensor, vec2: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(grad.mv(vec2.conj()), alpha.conj())``."""
    return maybe_multiply(grad.mv(vec2), alpha)


def addr_vec2_backward(grad: Tensor, vec1: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(grad.t().mv(vec1.conj()), alpha.conj())``."""
    return maybe_multiply(grad.t().mv(vec1), alpha)


def baddbmm_batch1_backward(grad: Tensor, batch2: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(grad.bmm(batch2.transpose(1, 2).conj()), alpha.conj())``."""
    return maybe_multiply(grad.bmm(batch2.transpose(1, 2)), alpha)


def baddbmm_batch2_backward(grad: Tensor, batch1: Tensor, alpha: Any) -> Tensor:
    """``maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad), alpha.conj())``."""
    return maybe_multiply(batch1.transpose(1, 2).bmm(grad), alpha)


def addbmm_batch1_backward(grad: Tensor, batch1_sym_argsize_0: int,
                           batch1_sym_argsize_1: int, batch2: Tensor,
                           alpha: Any) -> Tensor:
    """``maybe_multiply(grad.unsqueeze(0).expand({batch1.size(0), batch1.size(1),
    batch2.size(2)}).bmm(batch2.transpose(1, 2).conj()), alpha.conj())``."""
    sizes = (batch1_sym_argsize_0, batch1_sym_argsize_1, batch2._shape[2])
    return maybe_multiply(grad.unsqueeze(0).expand(sizes).bmm(batch2.transpose(1, 2)), alpha)


def addbmm_batch2_backward(grad: Tensor, batch1: Tensor, batch2_sym_argsize_2: int,
                           alpha: Any) -> Tensor:
    """``maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad.unsqueeze(0).expand(
    {batch1.size(0), batch1.size(1), batch2.size(2)})), alpha.conj())``."""
    sizes = (batch1._shape[0], batch1._shape[1], batch2_sym_argsize_2)
    return maybe_multiply(batch1.transpose(1, 2).bmm(grad.unsqueeze(0).expand(sizes)), alpha)


# ------------------------------------------- linear algebra (chapter 4, issue 43)
def linalg_det_backward(grad: Tensor, result: Tensor, A: Tensor, LU: Tensor,
                        pivots: Tensor) -> Tensor:
    """torch's ``linalg_det_backward``: ``A.mH``'s solve of ``diag(grad * det)``. Outside
    grad mode from the saved LU factorization, its zero pivots moved to the dtype's eps (so
    a singular ``A`` gets a finite gradient); in grad mode (``create_graph=True``) as
    ``linalg_solve(A.mH, d)``, which records (torch's SVD route for a singular ``A`` there
    is not implemented: the solve raises). A 1x1 matrix's gradient is ``grad`` itself, seen
    as matrices (torch's: measured, strides and all, and nothing recorded)."""
    if A.shape[-1] == 1:
        return grad.unsqueeze(-1).unsqueeze(-1)
    diagonal = (grad * result).unsqueeze(-1).expand_as(pivots)
    d = diagonal.diag_embed().mT
    if is_grad_enabled():
        return aten.linalg_solve.default(A.mT, d)
    pivots_diagonal = LU.diagonal(0, -2, -1)
    eps = finfo(LU.dtype).eps
    moved = LU + (pivots_diagonal == 0).to(LU.dtype).mul_(eps).diag_embed()
    return linalg.lu_solve_values(moved, pivots, d, adjoint=not A.is_contiguous())


def linalg_inv_ex_backward(grad: Tensor, inverse: Tensor) -> Tensor:
    """``-inverse.mH @ (grad @ inverse.mH)``."""
    return -aten.matmul.default(inverse.mT, aten.matmul.default(grad, inverse.mT))


def _solve_gB(grad: Tensor, result: Tensor, A: Tensor, LU: Tensor, pivots: Tensor,
              left: bool) -> tuple[Tensor, bool]:
    """torch's ``linalg_solve_backward``'s ``gB``: ``A.mH``'s solve of ``grad`` (from the
    left or the right), from the saved LU outside grad mode; and the vector case."""
    vector = result.dim() == 1 or (LU.dim() - 1 == result.dim()
                                   and result.shape == LU.shape[:-1])
    g = grad.unsqueeze(-1) if vector else grad
    if is_grad_enabled():
        return aten.linalg_solve.default(A.mT, g, left=left), vector
    return linalg.lu_solve_values(LU, pivots, g, left=left,
                                  adjoint=not A.is_contiguous()), vector


def linalg_solve_A_backward(grad: Tensor, result: Tensor, A: Tensor, LU: Tensor,
                            pivots: Tensor, left: bool) -> Tensor:
    """``-gB @ X.mH`` (``left``) or ``-X.mH @ gB``, ``X`` the result as matrices."""
    gB, vector = _solve_gB(grad, result, A, LU, pivots, left)
    X = result.unsqueeze(-1) if vector else result
    return -aten.matmul.default(gB, X.mT) if left else -aten.matmul.default(X.mT, gB)


def linalg_solve_B_backward(grad: Tensor, result: Tensor, A: Tensor, LU: Tensor,
                            pivots: Tensor, left: bool) -> Tensor:
    """``gB``, as vectors where ``B`` was."""
    gB, vector = _solve_gB(grad, result, A, LU, pivots, left)
    return gB.squeeze(-1) if vector else gB


def _solve_triangular(T: Tensor, B: Tensor, *, upper: bool, left: bool) -> Tensor:
    """torch's ``linalg_solve_triangular`` as ``cholesky_backward`` calls it: by
    substitution outside grad mode; in grad mode (``create_graph=True``) as
    ``linalg_solve``, which records (reftensor has no ``linalg_solve_triangular`` yet; the
    other triangle of ``T`` is zero here)."""
    if is_grad_enabled():
        return aten.linalg_solve.default(T, B, left=left)
    return solve_triangular_values(T, B, upper=upper, left=left)


def cholesky_backward(grad: Tensor, upper: bool, L: Tensor) -> Tensor:
    """torch's ``cholesky_backward``: with ``L`` lower (``upper``: ``L = U.mH``, ``grad``
    transposed the same way), ``P = tril(L.mH @ grad)`` made Hermitian without doubling its
    diagonal (``0.5 * (P + tril(P, -1).mH)``), then ``L.mH^-1 P L^-1`` by two triangular
    solves."""
    if upper:
        L, grad = L.mT, grad.mT
    gA = aten.matmul.default(L.mT, grad).tril()
    gA = 0.5 * (gA + gA.tril(-1).mT)
    gA = _solve_triangular(L.mT, gA, upper=True, left=True)
    return _solve_triangular(L, gA, upper=False, left=False)


def cholesky_result_backward(grad: Tensor, upper: bool, result: Tensor) -> Tensor:
    """``cholesky``'s row: ``cholesky_backward(grad, upper, result)``."""
    return cholesky_backward(grad, upper, result)


def linalg_qr_backward(grads: list[Tensor | None], Q: Tensor, R: Tensor, mode: str) -> Tensor:
    """torch's ``linalg_qr_backward``: with ``M = gR R.mH - Q.mH gQ`` (the terms whose
    gradient is defined), ``m >= n``: ``(Q syminvadj(triu(M)) + gQ) R.mH^-1``
    (``syminvadj(X) = X + X.mH`` with the diagonal once); ``m < n``: ``Q
    trilImInvAdjSkew(-M) R[:, :m].mH^-1`` (``tril(X - X.mH)``) padded with zero columns,
    plus ``Q gR``. ``mode='r'`` (no ``Q``), and ``'complete'`` with ``m > n``, raise."""
    gQ, gR = grads
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    m, n = Q._shape[-2], R._shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    if gQ is not None:
        M = -aten.matmul.default(Q.mT, gQ)
        if gR is not None:
            M = aten.matmul.default(gR, R.mT) + M
    else:
        assert gR is not None
        M = aten.matmul.default(gR, R.mT)
    if m >= n:
        upper = M.triu()
        sym = upper + upper.mT
        sym = sym - 0.5 * sym.diagonal(0, -2, -1).diag_embed()
        gA = aten.matmul.default(Q, sym)
        if gQ is not None:
            gA = gA + gQ
        return _solve_triangular(R.mT, gA, upper=False, left=False)
    skew = (-M - (-M).mT).tril()
    gA = aten.matmul.default(Q, skew)
    gA = _solve_triangular(R.narrow(-1, 0, m).mT, gA, upper=False, left=False)
    zeros = aten.zeros.default((*R._shape[:-1], n - m), dtype=gA.dtype, device=gA.device)
    gA = aten.cat.default([gA, zeros], -1)
    if gR is not None:
        gA = gA + aten.matmul.default(Q, gR)
    return gA
def linalg_eigh_backward(grads: list[Tensor | None], eigenvalues: Tensor,
                         eigenvectors: Tensor) -> Tensor:
    """torch's ``linalg_eig_backward`` with ``is_hermitian``: ``V gA V.mH``, where ``gA``
    is ``V.mH gV`` projected on the skew-symmetric matrices, divided by the eigenvalues'
    differences ``L[j] - L[i]``, with ``gL`` on its diagonal; only ``gL``:
    ``(V * gL) V.mH``."""
    gL, gV = grads
    L, V = eigenvalues, eigenvectors
    if gV is None:
        assert gL is not None
        return aten.matmul.default(V * gL.unsqueeze(-2), V.mT)
    VhgV = aten.matmul.default(V.mT, gV)
    VhgV = 0.5 * (VhgV - VhgV.mT)
    differences = L.unsqueeze(-2) - L.unsqueeze(-1)
    differences.diagonal(0, -2, -1).fill_(1.0)
    gA = VhgV.div_(differences)
    if gL is not None:
        gA.diagonal(0, -2, -1).copy_(gL)
    return aten.matmul.default(V, aten.matmul.default(gA, V.mT))


def euclidean_dist_x1_backward(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor
                               ) -> Tensor:
    """torch's ``_euclidean_dist_backward``'s first part: with ``ratio = grad / result`` (0
    where the distance is 0), ``x1 * ratio.sum(-1, True) - ratio @ x2``."""
    ratio = _euclidean_ratio(grad, result)
    return x1 * ratio.sum(-1, True) - aten.matmul.default(ratio, x2)


def euclidean_dist_x2_backward(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor
                               ) -> Tensor:
    """``x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT @ x1``."""
    ratio = _euclidean_ratio(grad, result)
    return x2 * ratio.sum(-2, False).unsqueeze(-1) - aten.matmul.default(ratio.mT, x1)


def _euclidean_ratio(grad: Tensor, result: Tensor) -> Tensor:
    ratio = grad / result
    return ratio.masked_fill_(result == 0, 0)


def cdist_x1_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor
                      ) -> Tensor:
    """``_cdist_backward(grad.contiguous(), x1, x2, p, result)``."""
    return aten._cdist_backward.default(grad.contiguous(), x1, x2, p, result)


def cdist_x2_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor
                      ) -> Tensor:
    """``_cdist_backward(grad.mT.contiguous(), x2, x1, p, result.mT.contiguous())``."""
    return aten._cdist_backward.default(grad.mT.contiguous(), x2, x1, p,
                                        result.mT.contiguous())
def svd_backward(grads: list[Tensor | None], full_matrices: bool, U: Tensor, S: Tensor,
                 Vh: Tensor) -> Tensor | None:
    """torch's ``svd_backward`` (real case), with ``_linalg_svd``'s row's narrowing: with
    ``full_matrices`` only the first ``k`` columns of ``U`` (rows of ``Vh``) and of their
    gradients count. Only ``S``'s gradient: ``U diag(gS) Vh``. Otherwise the skew parts
    ``skew(U^H gU)`` and ``skew(Vh gVh^H)`` divided by ``E = S_j^2 - S_i^2`` (1 on the
    diagonal), ``gS`` on the diagonal, and for a tall (wide) matrix the part of ``gU``
    (``gVh``) outside ``U``'s (``Vh``'s) span; singular values repeated or 0 give inf or
    nan, as torch's."""
    gU, gS, gVh = grads
    if gU is None and gS is None and gVh is None:
        return None
    k = S.shape[-1]
    if full_matrices:
        gU = None if gU is None else gU.narrow(-1, 0, k)
        gVh = None if gVh is None else gVh.narrow(-2, 0, k)
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    matmul = aten.matmul.default
    if gU is None and gVh is None:
        if m >= n:
            return matmul(U, gS.unsqueeze(-1) * Vh)
        return matmul(U * gS.unsqueeze(-2), Vh)
    UhgU = None if gU is None else matmul(U.mT, gU)
    UhgU = None if UhgU is None else UhgU - UhgU.mT
    VhgV = None if gVh is None else matmul(Vh, gVh.mT)
    VhgV = None if VhgV is None else VhgV - VhgV.mT
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E.diagonal(0, -2, -1).fill_(1)
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = UhgU * (S.unsqueeze(-2) / E)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - matmul(U, matmul(U.mT, gUSinv))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, Vh.mT), Vh)
        return matmul(U, gA)
    if m >= n:
        return matmul(U, matmul(gA, Vh))
    return matmul(matmul(U, gA), Vh)


def trace_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """torch's ``trace_backward``: zeros of ``n * m`` elements, ``grad`` filled in at every
    ``m + 1``-th of the first ``min(n, m)`` rows (the diagonal), viewed as ``(n, m)``."""
    n, m = self_sym_sizes
    grad_input = aten.zeros.default.call((n * m,), grad._dtype, None, grad.device, None)
    indices = aten.arange(0, min(n, m) * (m + 1), m + 1, dtype=dtypes.int64,
                          device=grad.device)
    grad_input.index_fill_(0, indices, grad)
    return grad_input.view(n, m)


# ------------------------------------------------------------------ softmax (chapter 6)
def softmax_backward(grad: Tensor, result: Tensor, dim: int,
                     self_scalar_type: Any) -> Tensor:
    """``_softmax_backward_data(grad, result, dim, self.scalar_type())``."""
    return aten._softmax_backward_data.default.call(grad, result, dim, self_scalar_type)


def log_softmax_backward(grad: Tensor, result: Tensor, dim: int,
                         self_scalar_type: Any) -> Tensor:
    """``_log_softmax_backward_data(grad, result, dim, self.scalar_type())``."""
    return aten._log_softmax_backward_data.default.call(grad, result, dim, self_scalar_type)


def softmax_backward_data_grad_output(grad: Tensor, output: Tensor, dim: int,
                                      input_dtype: Any) -> Tensor:
    """``_softmax_backward_data(grad.to(output.dtype()), output, dim, input_dtype)``."""
    return aten._softmax_backward_data.default.call(grad.to(output.dtype), output, dim,
                                                    input_dtype)


def softmax_backward_data_output(grad: Tensor, grad_output: Tensor, output: Tensor,
                                 dim: int) -> Tensor:
    """torch's ``softmax_double_backward(grad.to(output.dtype()), grad_output, dim,
    output)``: ``grad_output * grad - (output * grad_output).sum(dim, true) * grad -
    grad_output * (output * grad).sum(dim, true)``."""
    grad = grad.to(output.dtype)
    return (grad_output * grad - (output * grad_output).sum(dim, True) * grad
            - grad_output * (output * grad).sum(dim, True)).to(output.dtype)


def log_softmax_backward_data_grad_output(grad: Tensor, output: Tensor, dim: int) -> Tensor:
    """``grad.to(output.dtype()) - (grad.to(output.dtype()) * output.exp()).sum(dim,
    true)``."""
    grad = grad.to(output.dtype)
    return grad - (grad * output.exp()).sum(dim, True)


def log_softmax_backward_data_output(grad: Tensor, grad_output: Tensor, output: Tensor,
                                     dim: int) -> Tensor:
    """``(-grad_output.sum(dim, true) * output.exp() * grad.to(output.dtype()))
    .to(output.dtype())``."""
    return (-grad_output.sum(dim, True) * output.exp() * grad.to(output.dtype)).to(
        output.dtype)


def cat_tensors_backward(grad: Tensor, tensors_args_sizes: list[tuple[int, ...]],
                         tensors_args_scalartypes: list[Any], dim: int) -> list[Tensor]:
    """Each input's slice of ``grad`` along ``dim`` (a view); a skipped 1-d empty input gets
    an empty gradient of its own, as torch's ``cat_tensors_backward`` gives."""
    kept = [shape for shape in tensors_args_sizes if shape != (0,)]
    if kept:  # ``dim`` as cat wrapped it: for the first input taking part
        dim = wrap_dim(dim, len(kept[0]))
    grads, start = [], 0
    for shape in tensors_args_sizes:
        if shape == (0,):
            grads.append(aten.zeros(0, dtype=grad.dtype, device=grad.device))
            continue
        grads.append(grad.narrow(dim, start, shape[dim]))
        start += shape[dim]
    return grads


def stack_tensors_backward(grad: Tensor, dim: int,
                           tensors_args_scalartypes: list[Any]) -> list[Tensor]:
    """Input ``i``'s gradient is ``grad.select(dim, i)`` (a view)."""
    return [grad.select(dim, i) for i in range(len(tensors_args_scalartypes))]


def copy_self_backward(grad: Tensor) -> Tensor:
    """``self``'s old values are gone: zeros (torch's ``CopyBackwards``: contiguous)."""
    return factories._allocate(grad._shape, layout.contiguous_strides(grad._shape),
                               grad._dtype, grad.device)


def sum_backward_of_fill(grad: Tensor) -> Tensor:
    """The 0-d ``value`` went to every element: the gradient's sum."""
    return grad.sum()


# ------------------------------------------------------------------ views (chapter 2)
def reshape_backward(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """A view keeps every element once, in order: the gradient reshaped back."""
    return grad.reshape(self_sym_sizes)


def transpose_backward(grad: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swapping two dims is its own inverse."""
    return grad.transpose(dim0, dim1)


def t_backward(grad: Tensor) -> Tensor:
    return grad.t()


def permute_backwards(grad: Tensor, dims: tuple[int, ...]) -> Tensor:
    """The inverse permutation (torch's ``permute_backwards``)."""
    wrapped = [d % max(grad.dim(), 1) for d in dims]
    return grad.permute([wrapped.index(k) for k in range(len(wrapped))])


def unsqueeze_to(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """``squeeze``'s gradient: a size-1 dim put back wherever the input had one."""
    for d, n in enumerate(self_sym_sizes):
        if n == 1:
            grad = grad.unsqueeze(d)
    return grad


def unsqueeze_to_dim(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int) -> Tensor:
    """``squeeze(dim)``'s gradient: dim ``dim`` put back if it had size 1."""
    d = wrap_dim(dim, max(len(self_sym_sizes), 1))
    return grad.unsqueeze(d) if self_sym_sizes and self_sym_sizes[d] == 1 else grad


def unsqueeze_to_dims(grad: Tensor, self_sym_sizes: tuple[int, ...],
                      dim: tuple[int, ...]) -> Tensor:
    """``squeeze(dims)``'s gradient: the named dims of size 1 put back, left to right."""
    n = len(self_sym_sizes)
    named = {wrap_dim(d, max(n, 1)) for d in dim}
    for d in range(n):
        if d in named and self_sym_sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


def squeeze_backward(grad: Tensor, dim: int) -> Tensor:
    """``unsqueeze``'s gradient: the inserted dim removed."""
    return grad.squeeze(dim)


def sum_to(grad: Tensor, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """``expand``'s gradient: summed over the broadcast dims (torch's ``at::sum_to``)."""
    return grad.sum_to_size(self_sym_sizes)


def slice_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int,
                   start: int | None, end: int | None, step: int) -> Tensor:
    """Zeros but the slice, which gets ``grad``."""
    return picked_backward(grad, self_sym_sizes,
                           lambda a: aten.slice.Tensor.call(a, dim, start, end, step))


def select_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int,
                    index: int) -> Tensor:
    """Zeros but the selected slice, which gets ``grad``."""
    return picked_backward(grad, self_sym_sizes,
                           lambda a: aten.select.int.call(a, dim, index))


def unfold_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dimension: int,
                    size: int, step: int) -> Tensor:
    """Each window's gradient added where the window reads (overlapping windows add up)."""
    return picked_backward(grad, self_sym_sizes,
                           lambda a: aten.unfold.default.call(a, dimension, size, step))


def diagonal_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], offset: int,
                      dim1: int, dim2: int) -> Tensor:
    """Zeros but the diagonal, which gets ``grad``."""
    return picked_backward(grad, self_sym_sizes,
                           lambda a: aten.diagonal.default.call(a, offset, dim1, dim2))


def _all_defined(grads: list[Tensor | None], shapes: list[tuple[int, ...]]) -> list[Tensor]:
    """The pieces' gradients, zeros for those that got none (torch's
    ``grads_all_defined``)."""
    like = next(g for g in grads if g is not None)
    return [g if g is not None else aten.zeros(shape, dtype=like.dtype,
                                                    device=like.device)
            for g, shape in zip(grads, shapes, strict=True)]


def split_with_sizes_backward(grads: list[Tensor | None], split_sizes: tuple[int, ...],
                              dim: int, self_sym_sizes: tuple[int, ...]) -> Tensor:
    """The pieces' gradients joined again along ``dim`` (``cat``)."""
    d = wrap_dim(dim, len(self_sym_sizes))
    shapes = [(*self_sym_sizes[:d], n, *self_sym_sizes[d + 1:]) for n in split_sizes]
    return aten.cat.default.call(_all_defined(grads, shapes), d)


def split_backward(grads: list[Tensor | None], split_size: int, dim: int,
                   self_sym_sizes: tuple[int, ...]) -> Tensor:
    d = wrap_dim(dim, len(self_sym_sizes))
    lengths = views.split_lengths(self_sym_sizes[d], split_size)
    return split_with_sizes_backward(grads, tuple(lengths), d, self_sym_sizes)


def unbind_backward(grads: list[Tensor | None], dim: int) -> Tensor:
    """The slices' gradients stacked again along ``dim``."""
    shape = next(g for g in grads if g is not None)._shape
    return aten.stack.default.call(_all_defined(grads, [shape] * len(grads)), dim)


def as_strided_self_backward(grad: Tensor, self_geometry: tuple[Any, ...],
                             size: tuple[int, ...], stride: tuple[int, ...],
                             storage_offset: int | None) -> Tensor:
    """Through the storage elements both layouts read (torch's ``as_strided_backward``)."""
    offset = self_geometry[2] if storage_offset is None else storage_offset
    return as_strided_backward(grad, self_geometry, (size, stride, offset))


# ------------------------------------- creation, views and copies (chapters 1-2, issue 43)
def repeat_backward(grad: Tensor, repeats: tuple[int, ...],
                    self_sym_sizes: tuple[int, ...]) -> Tensor:
    """torch's ``repeat_backward``: zeros when a repeat is 0; else the leading new dims
    summed away, and each repeated dim seen as ``(repeat, size)`` and summed over the
    repeats, all in one ``reshape`` and one ``sum``."""
    if 0 in repeats:
        return aten.zeros(self_sym_sizes, dtype=grad.dtype, device=grad.device)
    new_dims = grad.dim() - len(self_sym_sizes)
    for _ in range(new_dims):
        grad = grad.sum(0, False)
    sizes: list[int] = []
    summed: list[int] = []
    for n, r in zip(self_sym_sizes, repeats[new_dims:], strict=True):
        if r != 1:
            sizes.append(r)
            summed.append(len(sizes) - 1)
        sizes.append(n)
    if summed:
        grad = grad.reshape(sizes).sum(summed)
    return grad


def roll_backward(grad: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...]) -> Tensor:
    """Rolled back: the shifts negated, shifts and dims in reverse order."""
    return grad.roll([-s for s in reversed(shifts)], list(reversed(dims)))


def rot90_backward(grad: Tensor, k: int, dims: tuple[int, ...]) -> Tensor:
    """Turned back: ``grad.rot90(-k, dims)``."""
    return grad.rot90(-k, dims)


def diag_embed_backward(grad: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """``grad.diagonal(offset, dim1, dim2)``: only the diagonal came from the input."""
    return grad.diagonal(offset, dim1, dim2)


def tril_backward(grad: Tensor, diagonal: int) -> Tensor:
    """``grad.tril(diagonal)``: only the kept triangle reached the result."""
    return grad.tril(diagonal)


def triu_backward(grad: Tensor, diagonal: int) -> Tensor:
    """``grad.triu(diagonal)``."""
    return grad.triu(diagonal)


# ------------------------------------------------------------------ where and clamp
def where_self_backward(grad: Tensor, condition: Tensor) -> Tensor:
    return where(condition, grad, 0)


def where_other_backward(grad: Tensor, condition: Tensor) -> Tensor:
    return where(condition, 0, grad)


def clamp_self_formula(grad: Tensor, self: Tensor, min: Any, max: Any) -> Tensor:
    """The gradient passes where ``min <= self <= max`` (torch's ``clamp_backward``: at a
    bound too, the subgradient 1); bounds are numbers or tensors, either may be None."""
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        # number bounds: torch's ``clamp_backward`` makes ``scalar_tensor(0.,
        # grad.options())`` first
        if min is not None and max is not None:
            zero = _scalar_zero(grad)
            return aten.where.self.call((self >= min).logical_and_(self <= max), grad, zero)
        if min is not None:
            zero = _scalar_zero(grad)
            return aten.where.self.call(self >= min, grad, zero)
        if max is not None:
            zero = _scalar_zero(grad)
            return aten.where.self.call(self <= max, grad, zero)
        return grad
    # tensor bounds: torch's ``clamp_backward_min_max`` makes the zero first too, and
    # joins the two tests out of place while a dispatch mode is active (its rule for
    # tensors that are "subclass-like")
    if min is not None and max is not None:
        zero = _scalar_zero(grad)
        above, below = self >= min, self <= max
        both = (aten.logical_and.default.call(above, below) if subclass_like(above, below)
                else above.logical_and_(below))
        return aten.where.self.call(both, grad, zero)
    if min is not None:
        return _where_or_zero(lambda: self >= min, grad)
    if max is not None:
        return _where_or_zero(lambda: self <= max, grad)
    return grad


def _scalar_zero(grad: Tensor) -> Tensor:
    """torch's ``at::scalar_tensor(0., grad.options())``, which the clamp formulas make
    before their condition (C++ evaluates ``where``'s last argument first)."""
    return aten.scalar_tensor.default.call(0.0, grad._dtype, layout.strided, grad.device,
                                           None)


def _where_or_zero(condition: Any, grad: Tensor) -> Tensor:
    """``where(condition(), grad, at::scalar_tensor(0., grad.options()))``, the zero made
    first."""
    zero = _scalar_zero(grad)
    return aten.where.self.call(condition(), grad, zero)


def clamp_min_formula(grad: Tensor, self: Tensor, min: Tensor, max: Tensor | None) -> Tensor:
    """torch's ``clamp_backward_min_max`` for ``min``: where ``self < min`` (and, with both
    bounds, ``min < max``: where ``min > max`` the result is ``max``)."""
    if max is not None:
        return where((self < min).logical_and_(min < max), grad, 0.0)
    return where(self < min, grad, 0.0)


def clamp_max_formula(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor) -> Tensor:
    """... for ``max``: where ``self > max``, or everywhere ``max < min``."""
    if min is not None:
        return where((self > max).logical_or_(max < min), grad, 0.0)
    return where(self > max, grad, 0.0)


Flat = Sequence[float]


def clamp_backward(x: Flat, lo: Flat | None, hi: Flat | None, grad: Flat
                   ) -> tuple[list[float], list[float] | None, list[float] | None]:
    """What the node of ``torch.clamp(x, lo, hi)`` (``ClampBackward0``, or
    ``ClampBackward1`` for number bounds) returns for the gradient ``grad`` of its result:
    ``(grad_x, grad_lo, grad_hi)``, torch's ``clamp_backward_min_max``.

    Args:
        x, lo, hi, grad: flat float64 values (sequences of floats) of one length: the
            node's inputs and ``grad`` broadcast to the result's shape (a number bound
            repeated), read in order. ``lo`` or ``hi`` is None when absent
            (``clamp(x, max=hi)``).

    Returns:
        ``(grad_x, grad_lo, grad_hi)``: lists of floats of that length, None in place of an
        absent bound's. Each element of ``grad`` goes whole to at most one of them, and the
        others get 0.0 there. The engine then sums each down to its input's shape.
    """
    # BEGIN PIECE clamp_backward
    # Element by element: to x where lo <= x <= hi (an absent bound allows all); to lo
    # where x < lo < hi (or hi absent); to hi where x > hi or hi < lo; nowhere else
    # (x below lo == hi, or nan: every comparison with nan is false).
    grad_x: list[float] = []
    grad_lo: list[float] = []
    grad_hi: list[float] = []
    for i, (v, g) in enumerate(zip(x, grad, strict=True)):
        a = None if lo is None else lo[i]
        b = None if hi is None else hi[i]
        inside = (a is None or v >= a) and (b is None or v <= b)  # False for nan
        grad_x.append(g if inside else 0.0)
        if a is not None:
            grad_lo.append(g if v < a and (b is None or a < b) else 0.0)
        if b is not None:
            grad_hi.append(g if v > b or (a is not None and b < a) else 0.0)
    return grad_x, None if lo is None else grad_lo, None if hi is None else grad_hi
    # END PIECE


def _by_clamp_backward(which: int, grad: Any, self: Any, min: Any, max: Any
                       ) -> Tensor | None:
    """Gradient ``which`` (0 ``self``, 1 ``min``, 2 ``max``) of a clamp node from
    ``clamp_backward``, or None where the piece does not apply (see ``_asks_a_piece``).
    The inputs go to the piece broadcast to the gradient's shape and flattened; the answer
    is laid out as the tensor formula lays it out on the meta device."""
    bounds = (min, max)
    if (not isinstance(grad, Tensor) or not isinstance(self, Tensor)
            or any(not isinstance(b, Tensor | int | float) or isinstance(b, bool)
                   for b in bounds if b is not None)
            or not _asks_a_piece((grad, self, *bounds), grad)):
        return None

    def flat(t: Any) -> list[float] | None:
        if t is None:
            return None
        if not isinstance(t, Tensor):
            return [float(t)] * grad.numel()
        return t.expand(grad._shape).reshape(-1).tolist()

    answers = clamp_backward(flat(self), flat(min), flat(max), flat(grad))
    meta = [_on_meta(t) for t in (grad, self, min, max)]
    like = (clamp_self_formula, clamp_min_formula, clamp_max_formula)[which](*meta)
    return _laid_out(like, answers[which])


def clamp_self_backward(grad: Tensor, self: Tensor, min: Any, max: Any) -> Tensor:
    """``where(min <= self <= max, grad, 0)`` (torch's ``clamp_backward``); a small float64
    node asks ``clamp_backward``."""
    asked = _by_clamp_backward(0, grad, self, min, max)
    return clamp_self_formula(grad, self, min, max) if asked is None else asked


def clamp_min_backward(grad: Tensor, self: Tensor, min: Tensor, max: Tensor | None) -> Tensor:
    asked = _by_clamp_backward(1, grad, self, min, max)
    return clamp_min_formula(grad, self, min, max) if asked is None else asked


def clamp_max_backward(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor) -> Tensor:
    asked = _by_clamp_backward(2, grad, self, min, max)
    return clamp_max_formula(grad, self, min, max) if asked is None else asked


def clamp_min_self_backward(grad: Tensor, self: Tensor, min: Any) -> Tensor:
    """``clamp_min``: ``where(self >= min, grad, scalar_tensor(0))``."""
    return _where_or_zero(lambda: self >= min, grad)


def clamp_min_min_backward(grad: Tensor, self: Tensor, min: Tensor) -> Tensor:
    return _where_or_zero(lambda: self < min, grad)


def clamp_max_self_backward(grad: Tensor, self: Tensor, max: Any) -> Tensor:
    return _where_or_zero(lambda: self <= max, grad)


def clamp_max_max_backward(grad: Tensor, self: Tensor, max: Tensor) -> Tensor:
    return _where_or_zero(lambda: self > max, grad)


# ------------------------------------------------------------------ more elementwise (issue 43)
# torch's formulas from derivatives.yaml, in its operand order.
def rsqrt_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx x**-0.5 = -0.5 * x**-1.5 = -0.5 * result**3: ``-0.5 * grad * result.pow(3)``
    (torch's compiled code computes ``result.pow(3)`` first, then ``mul.Scalar``)."""
    cube = result.pow(3)
    return _times(grad, -0.5) * cube


def log1p_formula(grad: Tensor, self: Tensor) -> Tensor:
    """torch's ``log1p_backward``: ``grad / (self + 1)``."""
    return grad / _plus_one(self)


def log2_formula(grad: Tensor, self: Tensor) -> Tensor:
    """``grad / (self * ln 2)``, the constant one double as in torch."""
    return grad / _times(self, 0.6931471805599453)


def log10_formula(grad: Tensor, self: Tensor) -> Tensor:
    """``grad / (self * ln 10)``."""
    return grad / _times(self, 2.3025850929940456)


def exp2_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx 2**x = 2**x ln 2: ``grad * result * M_LN2``, left to right."""
    return _times(grad * result, math.log(2.0))


def tan_formula(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx tan x = 1 + tan(x)**2: ``grad * (1 + result.pow(2))``."""
    return grad * _plus_one(result.pow(2))


def atan_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx atan x = 1 / (x**2 + 1): ``grad / (self * self + 1)``."""
    return grad / _plus_one(self * self)


def asin_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx asin x = 1 / sqrt(1 - x**2): ``grad * (-self * self + 1).rsqrt()``."""
    return grad * (-self * self + 1).rsqrt()


def acos_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx acos x = -1 / sqrt(1 - x**2): ``grad * -((-self * self + 1).rsqrt())``."""
    return grad * -((-self * self + 1).rsqrt())


def asinh_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx asinh x = 1 / sqrt(x**2 + 1): ``grad * (self.pow(2) + 1).rsqrt()``."""
    return grad * (self.pow(2) + 1).rsqrt()


def acosh_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx acosh x = 1 / sqrt(x**2 - 1): ``grad * (self * self - 1).rsqrt()`` (torch's
    real form; ``(self + 1).rsqrt() * (self - 1).rsqrt()`` is its complex one)."""
    return grad * (self * self - 1).rsqrt()


def atanh_formula(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx atanh x = 1 / (1 - x**2): ``grad * 1 / (1 - self.pow(2))``, left to right."""
    return grad * 1 / (1 - self.pow(2))


def sinh_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self.cosh()


def cosh_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self.sinh()


def erf_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx erf x = 2 / sqrt(pi) * exp(-x**2): torch's ``2.0 / sqrt(M_PI) *
    exp(-(self.pow(2))) * grad``, in that order (the constant is one double)."""
    return _times((-(self.pow(2))).exp(), 2.0 / math.sqrt(math.pi)) * grad


def logit_formula(grad: Tensor, self: Tensor, eps: Any = None) -> Tensor:
    """torch's ``logit_backward`` kernel: ``grad / (x * (1 - x))``; without ``eps`` (or a
    negative one) nan outside [0, 1], with it 0 outside ``[eps, 1 - eps]``. (With ``eps``, a
    nan ``x`` keeps its nan as the kernel's scalar loop does; torch's vectorised loop, and
    the formula torch runs under grad mode, ``y.grad_fn(g)`` or ``create_graph=True``, give
    0 there.)"""
    slope = grad / (self * (1 - self))
    if eps is None or eps < 0:
        return where((self < 0).logical_or(self > 1), math.nan, slope)
    return where((self < eps).logical_or(self > 1 - eps), 0.0, slope)


def nan_to_num_formula(grad: Tensor, self: Tensor) -> Tensor:
    """``grad * isfinite(self)``: nothing flows back through a replaced value."""
    return grad * self.isfinite()


# ------------------------------------------------------------------ the unary ops' rules
#: what each unary op's node saves and hands ``unary_backward`` (``neg``'s node saves nothing)
UNARY_SAVES = {"exp": "result", "exp2": "result", "expm1": "result", "log": "self",
               "log1p": "self", "log2": "self", "log10": "self", "sqrt": "result",
               "rsqrt": "result", "reciprocal": "result", "tanh": "result",
               "sigmoid": "result", "tan": "result", "atan": "self", "asin": "self",
               "acos": "self", "relu": "result", "abs": "self", "neg": None,
               "square": "self", "pow": "self", "logit": "self", "nan_to_num": "self",
               "asinh": "self", "acosh": "self", "atanh": "self"}
#: the exponents of ``x ** exponent`` whose node asks ``unary_backward``: those for which
#: torch's pow kernel computes ``x.pow(exponent - 1)`` by multiplications (``x * x``, ``x * x
#: * x``, ``1 / (x * x)``), by ``rsqrt`` or as ones; for the others it calls the vector
#: library's ``pow``, and ``1.5`` gives ``x.pow(0.5)``, its ``sqrt`` (MKL's, not always
#: correctly rounded)
POW_EXPONENTS = (-1, 0, 0.5, 1, 2, 3, 4)


def unary_backward(op: str, grad: Nested, saved: Nested, exponent: Any = None) -> Nested:
    """What the node of a unary op on a float64 tensor returns for the gradient ``grad`` of
    its result ``y``: the gradient of its input ``x``, ``y.grad_fn(grad)`` (``ExpBackward0``,
    ``LogBackward0``, ... as derivatives.yaml defines them, on the CPU).

    Args:
        op: the op, one of ``exp``, ``exp2``, ``expm1``, ``log``, ``log1p``, ``log2``,
            ``log10``, ``sqrt``, ``rsqrt``, ``reciprocal``, ``tanh``, ``sigmoid``, ``tan``,
            ``atan``, ``asin``, ``acos``, ``relu``, ``abs``, ``neg``, ``square`` (``x ** 2``,
            ``x.pow(2)``, ``x.square()``: the node ``PowBackward0`` with the exponent 2),
            ``pow`` (``x ** exponent``, ``PowBackward0``: torch's ``pow_backward(grad, self,
            exponent)``), ``logit`` (``x.logit()`` without ``eps``: ``LogitBackward0``),
            ``nan_to_num`` (``NanToNumBackward0``), ``asinh``, ``acosh`` or ``atanh``.
        grad: ``y``'s gradient, float64 values as nested lists or tuples of ``y``'s shape (a
            float for a 0-d ``y``).
        saved: what the node saved, float64 values nested as ``grad`` (the same shape):
            ``UNARY_SAVES[op]``, the result ``y`` (``"result"``: exp, exp2, expm1, sqrt, rsqrt,
            reciprocal, tanh, sigmoid, tan, relu) or the input ``x`` (``"self"``: log, log1p,
            log2, log10, atan, asin, acos, abs, square, pow, logit, nan_to_num, asinh, acosh,
            atanh); None for ``neg``, whose node saves nothing. Any float, inf and nan
            included.
        exponent: ``pow``'s exponent, an int or a float of ``POW_EXPONENTS`` (-1, 0, 0.5, 1,
            2, 3 or 4); None for every other op.

    Returns:
        nested lists of ``grad``'s shape (a float for 0-d): torch's float64 values bit for
        bit, ``inf`` and ``nan`` where torch's are (a division by 0, the square root of a
        negative number); it raises no exception for any float.
    """
    # BEGIN PIECE unary_backward
    # torch's formulas, element by element, in its operand order (derivatives.yaml, and the
    # CPU kernels of tanh_backward, sigmoid_backward, threshold_backward). Python's float
    # +, -, * and / round as torch's float64 kernels do, but Python raises where IEEE 754
    # gives inf or nan: division and the square root are written out.
    from fractions import Fraction

    def div(a: float, b: float) -> float:
        if b != 0:  # nan too: a / nan is nan
            return a / b
        if a == 0 or a != a:  # 0 / 0, nan / 0
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)  # 1 / -0.0 is -inf

    def rsqrt(v: float) -> float:  # torch's rsqrt kernel: 1 / sqrt(v)
        return div(1.0, math.sqrt(v)) if v >= 0 else math.nan  # sqrt(-0.0) is -0.0

    def one_minus_square(r: float) -> float:
        """``1 - r * r`` rounded once: the kernel of tanh_backward is a fused multiply-add."""
        if not math.isfinite(r):
            return 1 - r * r
        return float(1 - Fraction(r) * Fraction(r))  # exact, then one rounding

    def power(x: float, p: float) -> float:
        """``x.pow(p)`` as torch's pow kernel writes these powers out: ones (nan and inf
        included), a copy, products rounded left to right, a reciprocal, ``rsqrt``."""
        if p == 0:
            return 1.0
        return {1: x, 2: x * x, 3: x * x * x, -2: div(1.0, x * x), -0.5: rsqrt(x)}[p]

    ln2, ln10 = 0.6931471805599453, 2.3025850929940456  # torch's M_LN2, the table's ln 10
    formulas = {
        "exp": lambda g, r: g * r,
        "exp2": lambda g, r: g * r * ln2,
        "expm1": lambda g, r: g * (r + 1),
        "log": lambda g, x: div(g, x),
        "log1p": lambda g, x: div(g, x + 1),
        "log2": lambda g, x: div(g, x * ln2),
        "log10": lambda g, x: div(g, x * ln10),
        "sqrt": lambda g, r: div(g, 2 * r),
        "rsqrt": lambda g, r: -0.5 * g * (r * r * r),  # result.pow(3) is r * r * r
        "reciprocal": lambda g, r: -g * (r * r),
        "tanh": lambda g, r: g * one_minus_square(r),
        "sigmoid": lambda g, r: g * (1 - r) * r,
        "tan": lambda g, r: g * (1 + r * r),
        "atan": lambda g, x: div(g, x * x + 1),
        "asin": lambda g, x: g * rsqrt(-x * x + 1),
        "acos": lambda g, x: g * -rsqrt(-x * x + 1),
        "relu": lambda g, r: 0.0 if r <= 0 else g,  # threshold_backward: nan passes
        "abs": lambda g, x: g * (1.0 if x > 0 else -1.0 if x < 0 else 0.0),  # sgn(nan) is 0
        "neg": lambda g, _: -g,
        "square": lambda g, x: g * (2.0 * x),  # 2 * x.pow(1), x.pow(1) a copy of x
        # pow_backward: zeros for the exponent 0, else grad * (exponent * x.pow(exponent - 1))
        "pow": lambda g, x: 0.0 if exponent == 0 else g * (exponent * power(x, exponent - 1)),
        "logit": lambda g, x: math.nan if x < 0 or x > 1 else div(g, x * (1 - x)),
        "nan_to_num": lambda g, x: g * (1.0 if math.isfinite(x) else 0.0),  # nan * 0 is nan
        "asinh": lambda g, x: g * rsqrt(x * x + 1),
        "acosh": lambda g, x: g * rsqrt(x * x - 1),
        "atanh": lambda g, x: div(g * 1, 1 - x * x),
    }
    formula = formulas[op]

    def each(g: Nested, s: Nested) -> Nested:
        if isinstance(g, list | tuple):
            return [each(gi, si) for gi, si in zip(g, s, strict=True)]
        return formula(g, s)

    return each(grad, grad if saved is None else saved)
    # END PIECE


#: the unary ops' nodes ask ``unary_backward`` in the student edition only (small float64
#: inputs, see ``_by_unary_backward``); the reference runs its tensor formulas
UNARY_PIECE = pieces.stubbed(unary_backward)

#: each op's tensor formula, which lays out the piece's answer (run on the meta device)
UNARY_FORMULAS: dict[str, Formula] = {
    "exp": exp_formula, "exp2": exp2_formula, "expm1": expm1_formula, "log": log_formula,
    "log1p": log1p_formula, "log2": log2_formula, "log10": log10_formula,
    "sqrt": sqrt_formula, "rsqrt": rsqrt_formula, "reciprocal": reciprocal_formula,
    "tanh": tanh_formula, "sigmoid": sigmoid_formula, "tan": tan_formula,
    "atan": atan_formula, "asin": asin_formula, "acos": acos_formula, "relu": relu_formula,
    "abs": abs_formula, "neg": neg_formula,
    "square": lambda grad, self: pow_formula(grad, self, 2), "pow": pow_formula,
    "logit": logit_formula, "nan_to_num": nan_to_num_formula, "asinh": asinh_formula,
    "acosh": acosh_formula, "atanh": atanh_formula,
}


def _by_unary_backward(op: str, grad: Any, saved: Any, exponent: Any = None) -> Tensor | None:
    """The gradient of a unary op's node from ``unary_backward``, or None where the piece
    does not apply (the reference; see ``_asks_a_piece``; a saved tensor of another shape
    than the gradient's). The answer is laid out as the op's tensor formula lays it out on
    the meta device (``pow``'s formula with the exponent)."""
    tensors = (grad,) if saved is None else (grad, saved)
    if (not UNARY_PIECE or not all(isinstance(t, Tensor) for t in tensors)
            or saved is not None and saved._shape != grad._shape
            or not _asks_a_piece(tensors, grad)):
        return None
    answer = unary_backward(op, grad.tolist(), None if saved is None else saved.tolist(),
                            exponent)
    scalars = () if exponent is None else (exponent,)
    return _laid_out(UNARY_FORMULAS[op](*(_on_meta(t) for t in tensors), *scalars), answer)


def _asking(op: str) -> Formula:
    """The formula of ``op``'s row: ``unary_backward``'s answer where the student edition
    asks it, else the tensor formula. Its parameters name what the node saves, as
    ``variable_type`` reads them (``grad`` and ``self``, ``grad`` and ``result``, or
    ``grad`` alone)."""
    formula = UNARY_FORMULAS[op]

    def of_self(grad: Tensor, self: Tensor) -> Tensor:
        asked = _by_unary_backward(op, grad, self)
        return formula(grad, self) if asked is None else asked

    def of_result(grad: Tensor, result: Tensor) -> Tensor:
        asked = _by_unary_backward(op, grad, result)
        return formula(grad, result) if asked is None else asked

    def of_grad(grad: Tensor) -> Tensor:
        asked = _by_unary_backward(op, grad, None)
        return formula(grad) if asked is None else asked

    node = {"self": of_self, "result": of_result, None: of_grad}[UNARY_SAVES[op]]
    node.__name__ = node.__qualname__ = f"{op}_backward"
    return node


exp_backward, exp2_backward, expm1_backward = _asking("exp"), _asking("exp2"), _asking("expm1")
log_backward, log1p_backward = _asking("log"), _asking("log1p")
log2_backward, log10_backward = _asking("log2"), _asking("log10")
sqrt_backward, rsqrt_backward = _asking("sqrt"), _asking("rsqrt")
reciprocal_backward, tanh_backward = _asking("reciprocal"), _asking("tanh")
sigmoid_backward, tan_backward = _asking("sigmoid"), _asking("tan")
atan_backward, asin_backward, acos_backward = _asking("atan"), _asking("asin"), _asking("acos")
relu_backward, abs_backward, neg_backward = _asking("relu"), _asking("abs"), _asking("neg")
nan_to_num_backward = _asking("nan_to_num")
asinh_backward, acosh_backward, atanh_backward = (_asking("asinh"), _asking("acosh"),
                                                  _asking("atanh"))


def pow_backward(grad: Tensor, self: Tensor, exponent: Any) -> Tensor:
    """``PowBackward0`` (``x ** exponent`` for a number): torch's ``pow_backward``; a small
    float64 node asks ``unary_backward`` for an int or float exponent of ``POW_EXPONENTS``
    (``square`` for 2, as ``x.square()``; ``pow`` for the others)."""
    asked = None
    if type(exponent) in (int, float) and exponent in POW_EXPONENTS:
        asked = (_by_unary_backward("square", grad, self) if exponent == 2
                 else _by_unary_backward("pow", grad, self, exponent))
    return pow_formula(grad, self, exponent) if asked is None else asked


def logit_backward(grad: Tensor, self: Tensor, eps: Any) -> Tensor:
    """``LogitBackward0``: torch's ``logit_backward``; without ``eps``, a small float64 node
    asks ``unary_backward``."""
    asked = _by_unary_backward("logit", grad, self) if eps is None else None
    return logit_formula(grad, self, eps) if asked is None else asked


# ------------------------------------------------------------------ conversions
def to_copy_backward(grad: Tensor, self_options: tuple[Any, Any]) -> Tensor:
    """torch's ``_to_copy_backward``: the gradient converted back to the input's dtype and
    device (``grad.to(self.options())``)."""
    dtype, where = self_options
    return to_options(grad, dtype, where, False, False, None, options=True)


def normal_mean_backward(grad: Tensor, mean_sym_sizes: tuple[int, ...]) -> Tensor:
    """``at::zeros(mean.sym_sizes(), grad.options())``: ``normal``'s tensor mean only set
    where the numbers lie."""
    return aten.zeros(mean_sym_sizes, dtype=grad.dtype, device=grad.device)


def normal_std_backward(grad: Tensor, std_sym_sizes: tuple[int, ...]) -> Tensor:
    """``at::zeros(std.sym_sizes(), grad.options())``: as ``normal_mean_backward``."""
    return aten.zeros(std_sym_sizes, dtype=grad.dtype, device=grad.device)


def bernoulli_p_backward(p_info: tuple[tuple[int, ...], Any, Any]) -> Tensor:
    """``zeros_like(p)``, from what torch saves of ``p`` (its ``TypeAndSize``: sizes, dtype
    and device): contiguous zeros."""
    shape, dtype, device = p_info
    return aten.zeros(shape, dtype=dtype, device=device)


# ------------------------------------------------------------------ indexing (chapter 2)
def index_backward(grad: Tensor, self_sym_sizes: tuple[int, ...],
                   self_options: tuple[Any, Any], indices: list[Tensor | None]) -> Tensor:
    """``grad`` added into zeros at the indexed positions (torch's ``index_backward``:
    ``index_put_`` with ``accumulate=True``; repeated indices add up)."""
    dtype, device = self_options
    # torch's ``grad.new_zeros(sizes, self.options())``: the options' layout too
    zeros = aten.new_zeros.default.call(grad, self_sym_sizes, dtype, layout.strided, device,
                                        None)
    if subclass_like(grad, *indices):  # torch: "subclass-like" tensors: out of place
        return aten.index_put.default.call(zeros, indices, grad, True)
    return aten.index_put_.default.call(zeros, indices, grad, True)


def index_put_self_backward(grad: Tensor, indices: list[Tensor | None],
                            values_info: tuple[tuple[int, ...], Any, Any],
                            accumulate: bool) -> Tensor:
    """``grad``, with zeros where the values were written (unless they were added)."""
    if accumulate:
        return grad
    shape, dtype, device = values_info
    zeros = aten.zeros(shape, dtype=dtype, device=device)
    return aten.index_put.default.call(grad, indices, zeros, False)


def index_put_values_backward(grad: Tensor, indices: list[Tensor | None]) -> Tensor:
    """``grad`` read at the written positions (the engine sums it to the values' shape)."""
    return aten.index.Tensor.call(grad, indices)


# ------------------------------------------------------------------ along one dim (chapter 2)
def index_select_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], dim: int,
                          index: Tensor) -> Tensor:
    """torch's ``index_select_backward``: ``grad``'s slices added into
    ``grad.new_zeros(self's shape)`` at ``index`` (``index_add_``: repeated indices add
    up; out of place while a dispatch mode is active, as torch's subclass-like rule)."""
    zeros = aten.new_zeros.default.call(grad, self_sym_sizes, None, None, None, None)
    # (every argument given, ``alpha`` too: a dispatch mode receives the call's values)
    if subclass_like(grad, index):
        return aten.index_add.default.call(zeros, dim, index, grad, 1)
    return aten.index_add_.default.call(zeros, dim, index, grad, 1)


def gather_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor,
                    sparse_grad: bool) -> Tensor:
    """torch's ``gather_backward``: ``grad`` added into ``grad.new_zeros(self's shape)``
    where ``index`` points (``scatter_add_``; out of place while a dispatch mode is
    active).

    Raises:
        NotImplementedError: ``sparse_grad=True`` (reftensor has no sparse tensors)."""
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True): reftensor has no sparse "
                                  "tensors for its gradient")
    zeros = aten.new_zeros.default.call(grad, self._shape, None, None, None, None)
    if subclass_like(grad, index):  # torch: "subclass-like" tensors: out of place
        return aten.scatter_add.default.call(zeros, dim, index, grad)
    return aten.scatter_add_.default.call(zeros, dim, index, grad)


def scatter_self_backward(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.scatter(dim, index, 0)``: nothing flows back where ``self`` was overwritten."""
    return aten.scatter.value.call(grad, dim, index, 0)


def gather_grad(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.gather(dim, index)``: ``src``'s gradient of ``scatter`` and ``scatter_add``."""
    return aten.gather.default.call(grad, dim, index)


def take_backward(grad: Tensor, self: Tensor, index: Tensor) -> Tensor:
    """torch's ``take_backward``: ``grad`` added into zeros of ``self``'s shape at
    ``index`` (``put_`` with ``accumulate``)."""
    zeros = aten.zeros(self._shape, dtype=grad.dtype, device=grad.device)
    return aten.put_.default.call(zeros, index, grad, True)


def put_self_backward(grad: Tensor, index: Tensor, source: Tensor,
                      accumulate: bool) -> Tensor:
    """``accumulate ? grad : grad.put(index, zeros_like(source), false)``."""
    if accumulate:
        return grad
    zeros = aten.zeros(source._shape, dtype=source.dtype, device=source.device)
    return aten.put.default.call(grad, index, zeros, False)


def put_source_backward(grad: Tensor, index: Tensor, source: Tensor) -> Tensor:
    """``grad.take(index).reshape_as(source)``."""
    taken = aten.take.default.call(grad, index)
    return aten.reshape.default.call(taken, source._shape)


def masked_fill_self_backward(grad: Tensor, mask: Tensor) -> Tensor:
    """``grad.masked_fill(mask, 0)``: nothing flows back where the value was written."""
    return aten.masked_fill.Scalar.call(grad, mask, 0)


def masked_fill_value_backward(grad: Tensor, mask: Tensor) -> Tensor:
    """torch's ``masked_fill_backward``: the sum of ``grad`` where the mask is True (torch
    sums ``grad.masked_select(mask)``; reftensor ``where(mask, grad, 0)``, its form for
    tensor subclasses: the same numbers, summed in another order)."""
    zeros = aten.zeros((), dtype=grad.dtype, device=grad.device)
    return aten.where.self.call(mask, grad, zeros).sum()


def index_fill_self_backward(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.index_fill(dim, index, 0)``."""
    return aten.index_fill.int_Scalar.call(grad, dim, index, 0)


def index_fill_value_backward(grad: Tensor, dim: int, index: Tensor) -> Tensor:
    """``grad.index_select(dim, std::get<0>(at::_unique(index, false))).sum()``: each
    filled slice once (reftensor takes the unique indices sorted; torch's order may differ,
    which only changes the order of the sum)."""
    unique = factories._from_array(np.unique(index._elements()), index._dtype)
    return aten.index_select.default.call(grad, dim, unique).sum()


def index_copy_source_backward(grad: Tensor, dim: int, index: Tensor, source: Tensor,
                               source_dim: int) -> Tensor:
    """``source.dim() > 0 ? grad.index_select(dim, index).expand_as(source) :
    grad.index_select(dim, index.squeeze(0))``."""
    return index_add_source_backward(grad, dim, index, source, source_dim, 1)


def masked_select_backward(grad: Tensor, self: Tensor, mask: Tensor) -> Tensor:
    """torch's ``masked_select_backward``: zeros of the broadcast shape (``zeros_like`` of
    ``self`` expanded) with ``grad`` scattered where the mask is True."""
    shape = tuple(np.broadcast_shapes(self._shape, mask._shape))
    zeros = aten.zeros(shape, dtype=grad.dtype, device=grad.device)
    return aten.masked_scatter_.default.call(zeros, mask, grad)


def masked_scatter_source_backward(grad: Tensor, mask: Tensor,
                                   source_sym_sizes: tuple[int, ...]) -> Tensor:
    """torch's ``masked_scatter_backward``: ``grad`` where the mask is True, zeros after
    for the source's elements that were not used, viewed as the source."""
    picked = aten.masked_select.default.call(grad, mask)
    missing = math.prod(source_sym_sizes) - picked.numel()
    if missing > 0:
        zeros = aten.zeros((missing,), dtype=grad.dtype, device=grad.device)
        picked = aten.cat.default.call([picked, zeros], 0)
    return aten.view.default.call(picked, source_sym_sizes)


def scatter_reduce_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor,
                            src: Tensor, reduce: str, include_self: bool,
                            result: Tensor) -> tuple[Tensor, Tensor]:
    """torch's ``scatter_reduce_backward``: (``self``'s gradient, ``src``'s).

    Raises:
        RuntimeError: ``reduce`` "max" or "min", which the forward takes for "amax" and
            "amin" but the backward does not."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    if reduce == "sum":
        grad_self, grad_src = grad, grad.gather(dim, index)
    elif reduce == "prod":
        # the products without each zero factor, so that a single zero gets its gradient
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = aten.zeros(self._shape, dtype=self.dtype).scatter_add(
            dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce,
                                                include_self=include_self)
        grad_src = aten.where.self.call(
            src_single_zero, (grad * masked_src_result).gather(dim, index),
            (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = (aten.ones if include_self else aten.zeros)(grad._shape, dtype=grad.dtype)
        n = n.scatter_add(dim, index, aten.ones(src._shape, dtype=src.dtype))
        n = n.masked_fill(n == 0, 1)
        grad_self = grad / n
        grad_src = grad.gather(dim, index) / n.gather(dim, index)
    else:  # amax, amin: the gradient shared evenly among the elements equal to the result
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        n = self_is_result.scatter_add(dim, index, src_is_result)
        grad_distributed = grad / n
        grad_self = (self == result) * grad_distributed
        grad_src = (src == value) * grad_distributed.gather(dim, index)
    if not include_self:
        grad_self = grad_self.scatter(dim, index, 0)
    return grad_self, grad_src


def scatter_reduce_self_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor,
                                 src: Tensor, reduce: str, include_self: bool,
                                 result: Tensor) -> Tensor:
    return scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self,
                                   result)[0]


def scatter_reduce_src_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor,
                                src: Tensor, reduce: str, include_self: bool,
                                result: Tensor) -> Tensor:
    return scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self,
                                   result)[1]


def index_add_source_backward(grad: Tensor, dim: int, index: Tensor, source: Tensor,
                              source_dim: int, alpha: Any) -> Tensor:
    """``maybe_multiply(source.dim() > 0 ? grad.index_select(dim, index).expand_as(source) :
    grad.index_select(dim, index.squeeze(0)), alpha)``."""
    if source_dim > 0:
        picked = aten.index_select.default.call(grad, dim, index)
        picked = aten.expand.default.call(picked, source._shape, False)
    else:
        picked = aten.index_select.default.call(grad, dim, aten.squeeze.dim.call(index, 0))
    return maybe_multiply(picked, alpha)



# ------------------------------------------------------------------ pointwise (issue 43)
def _atan2_reciprocal(self: Tensor, other: Tensor) -> Tensor:
    """``1 / (self**2 + other**2)``, taken as 0 where the sum is 0 (at the origin, or where
    both squares underflow), as torch 2.13's ``atan2_backward`` does: no nan there."""
    squares = self * self + other * other
    return where(squares == 0, 0.0, squares.reciprocal())


def atan2_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """torch's ``atan2_backward``: ``grad * other / (self**2 + other**2)``."""
    return grad * other * _atan2_reciprocal(self, other)


def atan2_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """... and ``grad * -self / (self**2 + other**2)``."""
    return grad * -self * _atan2_reciprocal(self, other)


def hypot_self_backward(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """``grad * self / result``."""
    return grad * self / result


def hypot_other_backward(grad: Tensor, other: Tensor, result: Tensor) -> Tensor:
    return grad * other / result


def fmod_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """d(self - other * trunc(self / other))/d(other) = -trunc(self / other)."""
    return -grad * self.div(other, rounding_mode="trunc")


def logaddexp_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """``grad / (1 + exp(other - self))``."""
    return grad / (1 + (other - self).exp())


def logaddexp_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return grad / (1 + (self - other).exp())


def logaddexp2_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """``grad / (1 + pow(2, other - self))``."""
    return grad / (1 + 2 ** (other - self))


def logaddexp2_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return grad / (1 + 2 ** (self - other))


def xlogy_self_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    """``xlogy(grad, other).masked_fill((self == 0.) & (other <= 0.), 0.)``: at ``self == 0``
    with ``other <= 0`` the gradient is taken as 0 (torch's note on xlogy at x = 0)."""
    return grad.xlogy(other).masked_fill((self == 0.0).logical_and(other <= 0.0), 0.0)


def xlogy_other_backward(grad: Tensor, self: Any, other: Tensor) -> Tensor:
    """``grad * self / other`` (``self`` may be a number: ``xlogy.Scalar_Self``)."""
    return grad * self / other


def xlogy_scalar_other_backward(grad: Tensor, self: Tensor, other: Any) -> Tensor:
    """``other > 0 ? xlogy(grad, other) : xlogy(grad, other).masked_fill(self == 0., 0.)``."""
    if float(other) > 0.0:
        return grad.xlogy(other)
    return grad.xlogy(other).masked_fill(self == 0.0, 0.0)


# ------------------------------------------------------------------ the table
def row(schema: str, node: str, saves: tuple[str, ...], *,
        non_float_result_untracked: bool = False, recorded_outputs: int | None = None,
        no_grad_arguments: tuple[str, ...] = (), inplace_view: bool = False,
        **formulas: Any) -> Derivative:
    return Derivative(schema, node, saves, formulas, non_float_result_untracked,
                      recorded_outputs, no_grad_arguments, inplace_view)


DERIVATIVES: list[Derivative] = [
    row("exp(Tensor self) -> Tensor", "ExpBackward0", ("result",), self=exp_backward),
    row("expm1(Tensor self) -> Tensor", "Expm1Backward0", ("result",), self=expm1_backward),
    row("log(Tensor self) -> Tensor", "LogBackward0", ("self",), self=log_backward),
    row("sqrt(Tensor self) -> Tensor", "SqrtBackward0", ("result",), self=sqrt_backward),
    row("sin(Tensor self) -> Tensor", "SinBackward0", ("self",), self=sin_backward),
    row("cos(Tensor self) -> Tensor", "CosBackward0", ("self",), self=cos_backward),
    row("tanh(Tensor self) -> Tensor", "TanhBackward0", ("result",), self=tanh_backward),
    row("tanh_backward(Tensor grad_output, Tensor output) -> Tensor", "TanhBackwardBackward0",
        ("grad_output", "output"), grad_output=tanh_backward_grad_output_backward,
        output=tanh_backward_output_backward),
    row("sigmoid(Tensor self) -> Tensor", "SigmoidBackward0", ("result",),
        self=sigmoid_backward),
    row("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor",
        "SigmoidBackwardBackward0", ("grad_output", "output"),
        grad_output=sigmoid_backward_grad_output_backward,
        output=sigmoid_backward_output_backward),
    row("reciprocal(Tensor self) -> Tensor", "ReciprocalBackward0", ("result",),
        self=reciprocal_backward),
    row("erfinv(Tensor self) -> Tensor", "ErfinvBackward0", ("self",),
        self=erfinv_backward),
    row("flip(Tensor self, int[] dims) -> Tensor", "FlipBackward0", ("dims",),
        self=flip_backward),
    row("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "AddBackward0",
        ("alpha",), self=pass_through, other=add_other_backward),
    row("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "SubBackward0",
        ("alpha",), self=pass_through, other=sub_other_backward),
    row("mul.Tensor(Tensor self, Tensor other) -> Tensor", "MulBackward0", ("self", "other"),
        self=mul_tensor_self_backward, other=mul_tensor_other_backward),
    row("div.Tensor(Tensor self, Tensor other) -> Tensor", "DivBackward0", ("self", "other"),
        self=div_tensor_self_backward, other=div_tensor_other_backward),
    row("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        "DivBackward2", ("self", "other", "rounding_mode"), self=div_self_backward_mode,
        other=div_other_backward_mode),
    row("neg(Tensor self) -> Tensor", "NegBackward0", (), self=neg_backward),
    row("abs(Tensor self) -> Tensor", "AbsBackward0", ("self",), self=abs_backward),
    row("relu(Tensor self) -> Tensor", "ReluBackward0", ("result",), self=relu_backward),
    row("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
        "ThresholdBackwardBackward0", ("self", "threshold"),
        grad_output=threshold_backward_grad_output_backward, self=zero_backward),
    row("sign(Tensor self) -> Tensor", "SignBackward0", (), self=zero_backward),
    row("floor(Tensor self) -> Tensor", "FloorBackward0", (), self=zero_backward),
    row("round(Tensor self) -> Tensor", "RoundBackward0", (), self=zero_backward),
    row("round.decimals(Tensor self, *, int decimals) -> Tensor", "RoundBackward1", (),
        self=zero_backward),
    row("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "AddBackward1", (),
        self=pass_through),
    row("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "SubBackward1", (),
        self=pass_through),
    row("mul.Scalar(Tensor self, Scalar other) -> Tensor", "MulBackward1", ("other",),
        self=mul_self_backward),
    row("div.Scalar(Tensor self, Scalar other) -> Tensor", "DivBackward1", ("other",),
        self=div_self_backward),
    row("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
        "DivBackward3", ("other", "rounding_mode"), self=div_self_backward_mode),
    row("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "RsubBackward0", ("alpha",), self=sub_other_backward, other=pass_through),
    row("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", "RsubBackward1",
        ("alpha",), self=sub_other_backward),
    row("floor_divide(Tensor self, Tensor other) -> Tensor", "NotImplemented", (),
        self=not_implemented("floor_divide"), other=not_implemented("floor_divide")),
    row("floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", "NotImplemented", (),
        self=not_implemented("floor_divide")),
    row("remainder.Scalar(Tensor self, Scalar other) -> Tensor", "RemainderBackward0", (),
        self=pass_through),
    row("remainder.Tensor(Tensor self, Tensor other) -> Tensor", "RemainderBackward1",
        ("self", "other"), self=pass_through, other=remainder_other_backward),
    row("remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", "NotImplemented", (),
        other=not_implemented("remainder")),
    row("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", "PowBackward0",
        ("self", "exponent"), self=pow_backward),
    row("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", "PowBackward1",
        ("self", "exponent", "result"), self=pow_backward_self, exponent=pow_backward_exponent),
    row("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", "PowBackward2",
        ("self", "exponent", "result"), exponent=pow_backward_exponent),
    row("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", "LerpBackward0",
        ("weight",), self=lerp_scalar_self_backward, end=lerp_end_backward),
    row("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", "LerpBackward1",
        ("self", "end", "weight"), self=lerp_tensor_self_backward, end=lerp_end_backward,
        weight=lerp_weight_backward),
    row("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        "AddcmulBackward0", ("tensor1", "tensor2", "value"), self=pass_through,
        tensor1=addcmul_tensor1_backward, tensor2=addcmul_tensor2_backward),
    row("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        "AddcdivBackward0", ("tensor1", "tensor2", "value"), self=pass_through,
        tensor1=addcdiv_tensor1_backward, tensor2=addcdiv_tensor2_backward),
    # ---------------------------------------------------------- reductions (chapter 4)
    row("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", "SumBackward0",
        ("self_sym_sizes",), self=sum_backward),
    row("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
        "dtype=None) -> Tensor", "SumBackward1", ("self_sym_sizes", "dim", "keepdim"),
        self=sum_dim_backward),
    row("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", "MeanBackward0",
        ("self_sym_sizes",), self=mean_backward),
    row("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
        "-> Tensor", "MeanBackward1", ("self_sym_sizes", "dim", "keepdim"),
        self=mean_dim_backward),
    row("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", "ProdBackward0",
        ("self", "result"), self=prod_backward),
    row("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) "
        "-> Tensor", "ProdBackward1", ("self", "result", "dim", "keepdim"),
        self=prod_dim_backward),
    row("max(Tensor self) -> Tensor", "MaxBackward1", ("self", "result"),
        self=evenly_distribute_backward),
    row("min(Tensor self) -> Tensor", "MinBackward1", ("self", "result"),
        self=evenly_distribute_backward),
    row("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
        "indices)", "MaxBackward0", ("dim", "indices", "self_sym_sizes", "keepdim"),
        self=value_selecting_reduction_backward),
    row("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
        "indices)", "MinBackward0", ("dim", "indices", "self_sym_sizes", "keepdim"),
        self=value_selecting_reduction_backward),
    row("maximum(Tensor self, Tensor other) -> Tensor", "MaximumBackward0", ("self", "other"),
        self=maximum_self_backward, other=maximum_other_backward),
    row("minimum(Tensor self, Tensor other) -> Tensor", "MinimumBackward0", ("self", "other"),
        self=minimum_self_backward, other=minimum_other_backward),
    row("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", "AmaxBackward0",
        ("self", "result", "dim", "keepdim"), self=amax_amin_backward),
    row("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", "AminBackward0",
        ("self", "result", "dim", "keepdim"), self=amax_amin_backward),
    row("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
        "keepdim=False) -> Tensor", "VarBackward0", ("self", "dim", "correction", "keepdim"),
        self=var_backward),
    row("std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
        "keepdim=False) -> Tensor", "StdBackward0",
        ("self", "result", "dim", "correction", "keepdim"), self=std_backward),
    # ------------------------------------------- scans and logsumexp (chapter 4, issue 43)
    row("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", "CumsumBackward0",
        ("dim", "self_scalar_type"), self=cumsum_backward),
    row("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        "CumprodBackward0", ("self", "dim", "result"), self=cumprod_backward),
    row("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", "CummaxBackward0",
        ("self", "dim", "indices"), recorded_outputs=1, self=cummaxmin_backward),
    row("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", "CumminBackward0",
        ("self", "dim", "indices"), recorded_outputs=1, self=cummaxmin_backward),
    row("logcumsumexp(Tensor self, int dim) -> Tensor", "LogcumsumexpBackward0",
        ("self", "result", "dim"), self=logcumsumexp_backward),
    row("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
        "LogsumexpBackward0", ("self", "dim", "keepdim", "result"), self=logsumexp_backward),
    row("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, "
        "*, ScalarType? dtype=None) -> Tensor", "LinalgVectorNormBackward0",
        ("self", "ord", "result", "dim", "keepdim"), self=linalg_vector_norm_backward),
    # ------------------------------------------ more reductions (chapter 4, issue 43)
    row("var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
        "keepdim=False) -> (Tensor, Tensor)", "VarMeanBackward0",
        ("self", "dim", "correction", "keepdim"), self=var_mean_backward),
    row("std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
        "keepdim=False) -> (Tensor, Tensor)", "StdMeanBackward0",
        ("self", "dim", "correction", "keepdim", "result0"), self=std_mean_backward),
    row("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) "
        "-> Tensor", "NansumBackward0", ("self", "dim", "keepdim"), self=nansum_backward),
    row("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor "
        "max)", "AminmaxBackward0", ("self", "dim", "keepdim", "min", "max"),
        self=aminmax_backward),
    # ------------------------------------------------ histograms (chapter 4, issue 43)
    # (torch's derivatives.yaml has no row for bincount: its weights get a node whose
    # backward raises)
    row("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
        "NotImplemented", (), self=not_implemented("bincount"),
        weights=not_implemented("bincount")),
    # ---------------------------------------------------------- sorting (chapter 4, issue 43)
    row("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool "
        "return_counts=False) -> (Tensor, Tensor, Tensor)", "Unique2Backward0", (),
        recorded_outputs=1, self=not_implemented_formula("_unique2")),
    row("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool "
        "return_counts=False) -> (Tensor, Tensor, Tensor)", "UniqueDimBackward0", (),
        recorded_outputs=1, self=not_implemented_formula("unique_dim")),
    row("unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
        "int? dim=None) -> (Tensor, Tensor, Tensor)", "UniqueConsecutiveBackward0", (),
        recorded_outputs=1, self=not_implemented_formula("unique_consecutive")),
    row("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor "
        "indices)", "SortBackward0", ("dim", "indices", "self_sym_sizes"), recorded_outputs=1,
        self=scatter_to_indices_backward),
    row("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
        "(Tensor values, Tensor indices)", "SortBackward1", ("dim", "indices",
                                                             "self_sym_sizes"),
        recorded_outputs=1, self=scatter_to_indices_backward),
    *[row(f"{name}(Tensor self) -> Tensor", f"{node}Backward0", ("self", "result"),
          self=evenly_distribute_backward)
      for name, node in (("median", "Median"), ("nanmedian", "Nanmedian"))],
    *[row(f"{schema} -> (Tensor values, Tensor indices)", node,
          ("dim", "indices", "self_sym_sizes", "keepdim"), recorded_outputs=1,
          self=value_selecting_reduction_backward)
      for schema, node in (
          ("median.dim(Tensor self, int dim, bool keepdim=False)", "MedianBackward1"),
          ("nanmedian.dim(Tensor self, int dim, bool keepdim=False)", "NanmedianBackward1"),
          ("mode(Tensor self, int dim=-1, bool keepdim=False)", "ModeBackward0"),
          ("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False)",
           "KthvalueBackward0"))],
    row("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
        "(Tensor values, Tensor indices)", "TopkBackward0", ("dim", "indices",
                                                             "self_sym_sizes"),
        recorded_outputs=1, self=scatter_to_indices_backward),
    # ---------------------------------------------------------- matrix products
    row("mm(Tensor self, Tensor mat2) -> Tensor", "MmBackward0",
        ("self", "mat2", "self_sym_sizes", "self_sym_strides", "mat2_sym_sizes",
         "mat2_sym_strides"), self=mm_mat1_backward, mat2=mm_mat2_backward),
    row("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> "
        "Tensor", "AddmmBackward0",
        ("mat1", "mat1_sym_sizes", "mat1_sym_strides", "mat2", "mat2_sym_sizes",
         "mat2_sym_strides", "alpha", "beta"), self=addmm_self_backward,
        mat1=addmm_mat1_backward, mat2=addmm_mat2_backward),
    row("bmm(Tensor self, Tensor mat2) -> Tensor", "BmmBackward0", ("self", "mat2"),
        self=bmm_self_backward, mat2=bmm_mat2_backward),
    row("mv(Tensor self, Tensor vec) -> Tensor", "MvBackward0", ("self", "vec"),
        self=mv_self_backward, vec=mv_vec_backward),
    row("dot(Tensor self, Tensor tensor) -> Tensor", "DotBackward0", ("self", "tensor"),
        self=dot_self_backward, tensor=dot_tensor_backward),
    row("addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> "
        "Tensor", "AddmvBackward0", ("alpha", "beta", "mat", "vec"),
        self=addmm_self_backward, mat=addmv_mat_backward, vec=addmv_vec_backward),
    row("vdot(Tensor self, Tensor other) -> Tensor", "VdotBackward0", ("other", "self"),
        self=vdot_self_backward, other=vdot_other_backward),
    row("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
        "LinalgCrossBackward0", ("dim", "other", "self"),
        self=linalg_cross_self_backward, other=linalg_cross_other_backward),
    row("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar "
        "alpha=1) -> Tensor", "BaddbmmBackward0", ("alpha", "batch1", "batch2", "beta"),
        self=addmm_self_backward, batch1=baddbmm_batch1_backward,
        batch2=baddbmm_batch2_backward),
    row("addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar "
        "alpha=1) -> Tensor", "AddbmmBackward0",
        ("alpha", "batch1", "batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2",
         "batch2_sym_argsize_2", "beta"),
        self=addmm_self_backward, batch1=addbmm_batch1_backward,
        batch2=addbmm_batch2_backward),
    row("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> "
        "Tensor", "AddrBackward0", ("alpha", "beta", "vec1", "vec2"),
        self=addmm_self_backward, vec1=addr_vec1_backward, vec2=addr_vec2_backward),
    # ------------------------------------------- linear algebra (chapter 4, issue 43)
    row("_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)",
        "LinalgDetBackward0", ("A", "LU", "pivots", "result"), recorded_outputs=1,
        A=linalg_det_backward),
    row("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)",
        "LinalgInvExBackward0", ("inverse",), recorded_outputs=1, A=linalg_inv_ex_backward),
    row("_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
        "(Tensor result, Tensor LU, Tensor pivots, Tensor info)", "LinalgSolveExBackward0",
        ("A", "left", "LU", "pivots", "result"), recorded_outputs=1,
        A=linalg_solve_A_backward, B=linalg_solve_B_backward),
    row("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
        "(Tensor L, Tensor info)", "LinalgCholeskyExBackward0", ("L", "upper"),
        recorded_outputs=1, self=cholesky_backward),
    row("cholesky(Tensor self, bool upper=False) -> Tensor", "CholeskyBackward0",
        ("result", "upper"),
        self=cholesky_result_backward),
    row("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)", "LinalgQrBackward0",
        ("mode", "Q", "R"), A=linalg_qr_backward),
    row("_linalg_eigh(Tensor A, str UPLO=\"L\", bool compute_v=True) -> (Tensor "
        "eigenvalues, Tensor eigenvectors)", "LinalgEighBackward0",
        ("eigenvalues", "eigenvectors"), A=linalg_eigh_backward),
    row("_euclidean_dist(Tensor x1, Tensor x2) -> Tensor", "EuclideanDistBackward0",
        ("x1", "x2", "result"), x1=euclidean_dist_x1_backward, x2=euclidean_dist_x2_backward),
    row("_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
        "CdistBackward0", ("x1", "x2", "p", "result"), x1=cdist_x1_backward,
        x2=cdist_x2_backward),
    row("_cdist_backward(Tensor grad, Tensor x1, Tensor x2, float p, Tensor cdist) -> Tensor",
        "CdistBackwardBackward0", (), grad=not_implemented_formula("_cdist_backward"),
        x1=not_implemented_formula("_cdist_backward"),
        x2=not_implemented_formula("_cdist_backward"),
        cdist=not_implemented_formula("_cdist_backward")),
    row("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? "
        "driver=None) -> (Tensor U, Tensor S, Tensor Vh)", "LinalgSvdBackward0",
        ("full_matrices", "S", "U", "Vh"), A=svd_backward),
    row("trace(Tensor self) -> Tensor", "TraceBackward0", ("self_sym_sizes",),
        self=trace_backward),
    # ---------------------------------------------------------- softmax (chapter 6)
    row("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", "SoftmaxBackward0",
        ("result", "dim", "self_scalar_type"), self=softmax_backward),
    row("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
        "LogSoftmaxBackward0", ("result", "dim", "self_scalar_type"),
        self=log_softmax_backward),
    row("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType "
        "input_dtype) -> Tensor", "SoftmaxBackwardDataBackward0",
        ("grad_output", "output", "dim", "input_dtype"),
        grad_output=softmax_backward_data_grad_output, output=softmax_backward_data_output),
    row("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType "
        "input_dtype) -> Tensor", "LogSoftmaxBackwardDataBackward0",
        ("grad_output", "output", "dim"),
        grad_output=log_softmax_backward_data_grad_output,
        output=log_softmax_backward_data_output),
    # ------------------------------------------------------------------ copies and fills
    row("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", "CloneBackward0",
        (), self=pass_through),
    row("cat(Tensor[] tensors, int dim=0) -> Tensor", "CatBackward0",
        ("tensors_args_sizes", "tensors_args_scalartypes", "dim"),
        tensors=cat_tensors_backward),
    row("stack(Tensor[] tensors, int dim=0) -> Tensor", "StackBackward0",
        ("dim", "tensors_args_scalartypes"), tensors=stack_tensors_backward),
    row("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
        "CopyBackwards", (), self=copy_self_backward, src=pass_through),
    row("fill.Scalar(Tensor self, Scalar value) -> Tensor", "FillBackward0", (),
        self=zero_backward),
    row("fill.Tensor(Tensor self, Tensor value) -> Tensor", "FillBackward1", (),
        self=zero_backward, value=sum_backward_of_fill),
    row("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", "FillBackward2", (),
        self=zero_backward),
    row("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", "FillBackward3", (),
        self=zero_backward, value=sum_backward_of_fill),
    row("zero_(Tensor(a!) self) -> Tensor(a!)", "ZeroBackward0", (), self=zero_backward),
    # ---------------------------------------------------------- views (chapter 2)
    row("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", "ViewBackward0",
        ("self_sym_sizes",), self=reshape_backward),
    row("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)",
        "ReshapeAliasBackward0", ("self_sym_sizes",), self=reshape_backward),
    row("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", "UnsafeViewBackward0",
        ("self_sym_sizes",), self=reshape_backward),
    row("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
        "TransposeBackward0", ("dim0", "dim1"), self=transpose_backward),
    row("t(Tensor(a) self) -> Tensor(a)", "TBackward0", (), self=t_backward),
    row("permute(Tensor(a) self, int[] dims) -> Tensor(a)", "PermuteBackward0", ("dims",),
        self=permute_backwards),
    row("squeeze(Tensor(a) self) -> Tensor(a)", "SqueezeBackward0", ("self_sym_sizes",),
        self=unsqueeze_to),
    row("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", "SqueezeBackward1",
        ("self_sym_sizes", "dim"), self=unsqueeze_to_dim),
    row("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", "SqueezeBackward2",
        ("self_sym_sizes", "dim"), self=unsqueeze_to_dims),
    row("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", "UnsqueezeBackward0", ("dim",),
        self=squeeze_backward),
    row("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
        "ExpandBackward0", ("self_sym_sizes",), self=sum_to),
    row("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
        "SymInt step=1) -> Tensor(a)", "SliceBackward0",
        ("self_sym_sizes", "dim", "start", "end", "step"), self=slice_backward),
    row("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", "SelectBackward0",
        ("self_sym_sizes", "dim", "index"), self=select_backward),
    row("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
        "UnfoldBackward0", ("self_sym_sizes", "dimension", "size", "step"),
        self=unfold_backward),
    row("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
        "DiagonalBackward0", ("self_sym_sizes", "offset", "dim1", "dim2"),
        self=diagonal_backward),
    row("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
        "SplitBackward0", ("split_size", "dim", "self_sym_sizes"), self=split_backward),
    row("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> "
        "Tensor(a)[]", "SplitWithSizesBackward0", ("split_sizes", "dim", "self_sym_sizes"),
        self=split_with_sizes_backward),
    row("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", "UnbindBackward0",
        ("dim",), self=unbind_backward),
    row("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? "
        "storage_offset=None) -> Tensor(a)", "AsStridedBackward0",
        ("self_geometry", "size", "stride", "storage_offset"), self=as_strided_self_backward),
    # ------------------------------------- creation, views and copies (chapters 1-2, issue 43)
    row("repeat(Tensor self, SymInt[] repeats) -> Tensor", "RepeatBackward0",
        ("repeats", "self_sym_sizes"), self=repeat_backward),
    row("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", "RollBackward0",
        ("shifts", "dims"), self=roll_backward),
    row("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", "Rot90Backward0",
        ("k", "dims"), self=rot90_backward),
    row("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
        "DiagEmbedBackward0", ("offset", "dim1", "dim2"), self=diag_embed_backward),
    row("diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
        "DiagonalBackward0_copy", ("self_sym_sizes", "offset", "dim1", "dim2"),
        self=diagonal_backward),
    row("tril(Tensor self, SymInt diagonal=0) -> Tensor", "TrilBackward0", ("diagonal",),
        self=tril_backward),
    row("triu(Tensor self, SymInt diagonal=0) -> Tensor", "TriuBackward0", ("diagonal",),
        self=triu_backward),
    # ------------------------------------------------------------------ where and clamp
    row("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", "WhereBackward0",
        ("condition",), self=where_self_backward, other=where_other_backward),
    row("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", "ClampBackward1",
        ("self", "min", "max"), self=clamp_self_backward),
    row("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
        "ClampBackward0", ("self", "min", "max"), self=clamp_self_backward,
        min=clamp_min_backward, max=clamp_max_backward),
    row("clamp_min(Tensor self, Scalar min) -> Tensor", "ClampMinBackward0", ("self", "min"),
        self=clamp_min_self_backward),
    row("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", "ClampMinBackward1",
        ("self", "min"), self=clamp_min_self_backward, min=clamp_min_min_backward),
    row("clamp_max(Tensor self, Scalar max) -> Tensor", "ClampMaxBackward0", ("self", "max"),
        self=clamp_max_self_backward),
    row("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", "ClampMaxBackward1",
        ("self", "max"), self=clamp_max_self_backward, max=clamp_max_max_backward),
    # ------------------------------------------------------------------ more elementwise
    row("rsqrt(Tensor self) -> Tensor", "RsqrtBackward0", ("result",), self=rsqrt_backward),
    row("log1p(Tensor self) -> Tensor", "Log1PBackward0", ("self",), self=log1p_backward),
    row("log2(Tensor self) -> Tensor", "Log2Backward0", ("self",), self=log2_backward),
    row("log10(Tensor self) -> Tensor", "Log10Backward0", ("self",), self=log10_backward),
    row("exp2(Tensor self) -> Tensor", "Exp2Backward0", ("result",), self=exp2_backward),
    row("tan(Tensor self) -> Tensor", "TanBackward0", ("result",), self=tan_backward),
    row("atan(Tensor self) -> Tensor", "AtanBackward0", ("self",), self=atan_backward),
    row("asin(Tensor self) -> Tensor", "AsinBackward0", ("self",), self=asin_backward),
    row("acos(Tensor self) -> Tensor", "AcosBackward0", ("self",), self=acos_backward),
    row("asinh(Tensor self) -> Tensor", "AsinhBackward0", ("self",), self=asinh_backward),
    row("acosh(Tensor self) -> Tensor", "AcoshBackward0", ("self",), self=acosh_backward),
    row("atanh(Tensor self) -> Tensor", "AtanhBackward0", ("self",), self=atanh_backward),
    # torch has no formula for their in-place forms: the node is recorded, its backward raises
    *[row(f"{name}_(Tensor(a!) self) -> Tensor(a!)", f"{name.capitalize()}Backward1", (),
          self=not_implemented_formula(f"inplace version of {name}"))
      for name in ("asinh", "acosh", "atanh")],
    row("sinh(Tensor self) -> Tensor", "SinhBackward0", ("self",), self=sinh_backward),
    row("cosh(Tensor self) -> Tensor", "CoshBackward0", ("self",), self=cosh_backward),
    row("erf(Tensor self) -> Tensor", "ErfBackward0", ("self",), self=erf_backward),
    row("ceil(Tensor self) -> Tensor", "CeilBackward0", (), self=zero_backward),
    row("trunc(Tensor self) -> Tensor", "TruncBackward0", (), self=zero_backward),
    row("frac(Tensor self) -> Tensor", "FracBackward0", (), self=pass_through),
    # torch's sgn_backward is for complex numbers; on real ones its value is 0
    row("sgn(Tensor self) -> Tensor", "SgnBackward0", ("self", "result"), self=zero_backward),
    # ------------------------------------------------------------------ conversions
    row("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
        "device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? "
        "memory_format=None) -> Tensor", "ToCopyBackward0", ("self_options",),
        non_float_result_untracked=True, self=to_copy_backward),
    # ------------------------------------------------------------------ random sampling
    # The samplers overwrite self: a zero gradient. Tensor means, stds and probabilities
    # get zeros too (only their sizes, or sizes and dtype, are saved).
    row("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> "
        "Tensor(a!)", "UniformBackward0", (), self=zero_backward),
    row("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> "
        "Tensor(a!)", "NormalBackward0", (), self=zero_backward),
    row("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> "
        "Tensor(a!)", "RandomBackward0", (), self=zero_backward),
    row("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
        "RandomBackward1", (), self=zero_backward),
    row("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
        "RandomBackward2", (), self=zero_backward),
    row("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> "
        "Tensor(a!)", "ExponentialBackward0", (), self=zero_backward),
    row("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", "BernoulliBackward0",
        (), self=zero_backward),
    row("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> "
        "Tensor(a!)", "BernoulliBackward1", ("p_info",), self=zero_backward,
        p=bernoulli_p_backward),
    row("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> "
        "Tensor(a!)", "BernoulliBackward2", (), self=zero_backward),
    row("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
        "NotImplemented", (), self=not_implemented("bernoulli")),
    row("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor",
        "NormalBackward1", ("mean_sym_sizes",), mean=normal_mean_backward),
    row("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
        "NormalBackward2", ("std_sym_sizes",), std=normal_std_backward),
    row("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor",
        "NormalBackward3", ("mean_sym_sizes", "std_sym_sizes"),
        mean=normal_mean_backward, std=normal_std_backward),
    # ------------------------------------------------------------------ indexing (chapter 2)
    row("alias(Tensor(a) self) -> Tensor(a)", "AliasBackward0", (), self=pass_through),
    row("lift_fresh(Tensor(a) self) -> Tensor(a)", "LiftFreshBackward0", (),
        self=pass_through),
    row("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", "IndexBackward0",
        ("indices", "self_options", "self_sym_sizes"), self=index_backward),
    row("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> "
        "Tensor", "IndexPutBackward0", ("accumulate", "indices", "values_info"),
        self=index_put_self_backward, values=index_put_values_backward),
    # ------------------------------------------------------------------ along one dim (chapter 2)
    row("index_select(Tensor self, int dim, Tensor index) -> Tensor", "IndexSelectBackward0",
        ("dim", "index", "self_sym_sizes"), self=index_select_backward),
    row("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        "GatherBackward0", ("dim", "index", "self", "sparse_grad"), self=gather_backward),
    row("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        "ScatterBackward0", ("dim", "index"), self=scatter_self_backward, src=gather_grad),
    row("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        "ScatterBackward1", ("dim", "index"), self=scatter_self_backward),
    row("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> "
        "Tensor", "NotImplemented", (), self=not_implemented("scatter"),
        src=not_implemented("scatter")),
    row("scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str "
        "reduce) -> Tensor", "NotImplemented", (), self=not_implemented("scatter")),
    row("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        "ScatterAddBackward0", ("dim", "index"), self=pass_through, src=gather_grad),
    row("take(Tensor self, Tensor index) -> Tensor", "TakeBackward0", ("index", "self"),
        self=take_backward),
    row("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
        "PutBackward0", ("accumulate", "index", "source"), self=put_self_backward,
        source=put_source_backward),
    row("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
        "MaskedFillBackward0", ("mask",), self=masked_fill_self_backward),
    row("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
        "MaskedFillBackward1", ("mask",), self=masked_fill_self_backward,
        value=masked_fill_value_backward),
    row("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        "IndexFillBackward0", ("dim", "index"), self=index_fill_self_backward),
    row("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
        "IndexFillBackward1", ("dim", "index"), self=index_fill_self_backward,
        value=index_fill_value_backward),
    row("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
        "IndexCopyBackward0", ("dim", "index", "source", "source_dim"),
        self=index_fill_self_backward, source=index_copy_source_backward),
    row("masked_select(Tensor self, Tensor mask) -> Tensor", "MaskedSelectBackward0",
        ("mask", "self"), self=masked_select_backward),
    row("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
        "MaskedScatterBackward0", ("mask", "source_sym_sizes"),
        self=masked_fill_self_backward, source=masked_scatter_source_backward),
    row("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True) -> Tensor", "ScatterReduceBackward0",
        ("dim", "include_self", "index", "reduce", "result", "self", "src"),
        self=scatter_reduce_self_backward, src=scatter_reduce_src_backward),
    row("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> "
        "Tensor", "IndexAddBackward0", ("alpha", "dim", "index", "source", "source_dim"),
        self=pass_through, source=index_add_source_backward),
]


# --- losses (chapter 6) --------------------------------------------------------------------
_MEAN = 1  # torch's ``at::Reduction::Mean``


def mse_loss_self_backward(grad: Tensor, self: Tensor, target: Tensor,
                           reduction: int) -> Tensor:
    """``mse_loss_backward(grad, self, target, reduction)``."""
    return aten.mse_loss_backward.default.call(grad, self, target, reduction)


def mse_loss_target_backward(grad: Tensor, self: Tensor, target: Tensor,
                             reduction: int) -> Tensor:
    """``mse_loss_backward(grad, target, self, reduction)``: the same, operands swapped."""
    return aten.mse_loss_backward.default.call(grad, target, self, reduction)


def mse_loss_double_backward(grad: Tensor, input: Tensor, reduction: int) -> Tensor:
    """torch's ``mse_loss_double_backward``: ``2 * grad``, over ``numel`` for a mean."""
    grad_input = 2 * grad
    if reduction == _MEAN:
        grad_input = grad_input / input.numel()
    return grad_input


def mse_loss_backward_grad_output_backward(grad: Tensor, self: Tensor, target: Tensor,
                                           reduction: int) -> Tensor:
    return aten.mse_loss_backward.default.call(grad, self, target, reduction)


def mse_loss_backward_self_backward(grad: Tensor, grad_output: Tensor, self: Tensor,
                                    reduction: int) -> Tensor:
    return mse_loss_double_backward(grad * grad_output, self, reduction)


def mse_loss_backward_target_backward(grad: Tensor, grad_output: Tensor, target: Tensor,
                                      reduction: int) -> Tensor:
    return -mse_loss_double_backward(grad * grad_output, target, reduction)


def nll_loss_self_backward(grad: Tensor, self: Tensor, target: Tensor, weight: Any,
                           reduction: int, ignore_index: int, total_weight: Tensor) -> Tensor:
    """``nll_loss_backward(grad, self, target, weight, reduction, ignore_index,
    total_weight)``."""
    return aten.nll_loss_backward.default.call(grad, self, target, weight, reduction,
                                               ignore_index, total_weight)


def nll_loss2d_self_backward(grad: Tensor, self: Tensor, target: Tensor, weight: Any,
                             reduction: int, ignore_index: int,
                             total_weight: Tensor) -> Tensor:
    return aten.nll_loss2d_backward.default.call(grad, self, target, weight, reduction,
                                                 ignore_index, total_weight)


def nll_loss_backward_grad_output_backward(grad: Tensor, target: Tensor, weight: Any,
                                           reduction: int, ignore_index: int) -> Tensor:
    """``nll_loss(grad, target, weight, reduction, ignore_index)``."""
    return aten.nll_loss.default.call(grad, target, weight, reduction, ignore_index)


def nll_loss2d_backward_grad_output_backward(grad: Tensor, target: Tensor, weight: Any,
                                             reduction: int, ignore_index: int) -> Tensor:
    return aten.nll_loss2d.default.call(grad, target, weight, reduction, ignore_index)


def zeros_like_grad(grad: Tensor) -> Tensor:
    """``zeros_like(grad)``: the gradient through a kernel linear in its other input."""
    return zeros_like(grad)


def binary_cross_entropy_self_backward(grad: Tensor, self: Tensor, target: Tensor,
                                       weight: Any, reduction: int) -> Tensor:
    """``binary_cross_entropy_backward(grad, self, target, weight, reduction)``."""
    return aten.binary_cross_entropy_backward.default.call(grad, self, target, weight,
                                                           reduction)


def _in_place() -> bool:
    """torch's loss formulas write into their own temporaries (``sub_``, ``mul_``) when grad
    mode is off (a plain backward): the same values, and the gradient's ``_version`` counts
    those writes. With ``create_graph`` they compute out of place, recorded."""
    return not dispatch_state.enabled


def log_sigmoid(x: Tensor) -> Tensor:
    """``at::log_sigmoid(x)``: the op table's composite (``LogSigmoidBackward0`` when
    recorded)."""
    return aten.log_sigmoid.default.call(x)


def log_sigmoid_self_backward(grad: Tensor, self: Tensor, buffer: Tensor) -> Tensor:
    """``log_sigmoid_backward(grad, self, buffer)``."""
    return aten.log_sigmoid_backward.default.call(grad, self, buffer)


def log_sigmoid_double_backward(grad: Tensor, self: Tensor) -> Tensor:
    """torch's ``log_sigmoid_double_backward(grad, input)``: ``z = sigmoid(input)``, then
    ``grad * (z - 1) * z``."""
    z = self.sigmoid()
    return grad * aten.sub.Scalar.call(z, 1, 1) * z


def log_sigmoid_backward_self_backward(grad: Tensor, grad_output: Tensor,
                                       self: Tensor) -> Tensor:
    """``log_sigmoid_double_backward(grad * grad_output, self)``."""
    return log_sigmoid_double_backward(grad * grad_output, self)


def _scaled(t: Tensor, weight: Any, reduction: int, numel: int, in_place: bool) -> Tensor:
    """``t`` times ``weight`` (when given), over ``numel`` for a mean: in place or not."""
    if weight is not None:
        t = t.mul_(weight) if in_place else t * weight
    if reduction == _MEAN:
        t = _over(t, numel, in_place)
    return t


def _over(t: Tensor, numel: int, in_place: bool) -> Tensor:
    """``t / numel`` as torch's C++ formulas divide by ``sym_numel()``: ``div.Scalar``
    (``DivBackward1`` when recorded), in place or not."""
    return t.div_(numel) if in_place else aten.div.Scalar.call(t, numel)


def binary_cross_entropy_target_backward(grad: Tensor, self: Tensor, target: Tensor,
                                         weight: Any, reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_target_backward``: ``-logit(self) * grad`` (times
    ``weight``, over ``numel`` for a mean); ``logit`` is ``log(x / (1 - x))``, as torch's
    kernel computes it."""
    in_place = _in_place()
    logit = (self / (1 - self)).log()
    grad_target = logit.neg_().mul_(grad) if in_place else -logit * grad
    return _scaled(grad_target, weight, reduction, target.numel(), in_place)


_BCE_EPS = 1e-12  # torch's eps in binary_cross_entropy's double backward


def binary_cross_entropy_backward_self_backward(grad: Tensor, grad_output: Tensor,
                                                self: Tensor, target: Tensor, weight: Any,
                                                reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_double_backward``: ``(x * x - 2 * x * t + t) / ((x +
    eps)**2 * (1 - x + eps)**2)``, times ``grad * grad_output`` (and ``weight``), over
    ``numel`` for a mean (eps 1e-12)."""
    in_place = _in_place()
    x = self
    numerator = x * x - 2 * x * target + target
    g = numerator / ((x + _BCE_EPS).pow(2) * (1 - x + _BCE_EPS).pow(2))
    g = g.mul_(grad * grad_output) if in_place else g * (grad * grad_output)
    if weight is not None:
        g = g.mul_(weight) if in_place else g * weight
    return aten.div.Scalar.call(g, x.numel()) if reduction == _MEAN else g


def binary_cross_entropy_backward_target_backward(grad: Tensor, grad_output: Tensor,
                                                  self: Tensor, target: Tensor, weight: Any,
                                                  reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_double_backward_target``: ``-grad * grad_output``
    (times ``weight``) over ``max((1 - x) * x, 1e-12)`` (the clamp not recorded), over
    ``numel`` for a mean."""
    in_place = _in_place()
    g = -grad * grad_output
    if weight is not None:
        g = g.mul_(weight) if in_place else g * weight
    denominator = (1 - self).mul_(self) if in_place else (1 - self) * self
    with _no_grad():
        denominator.clamp_min_(_BCE_EPS)
    g = g.div_(denominator) if in_place else g / denominator
    return _over(g, target.numel(), in_place) if reduction == _MEAN else g


def binary_cross_entropy_backward_grad_output_backward(grad: Tensor, self: Tensor,
                                                       target: Tensor, weight: Any,
                                                       reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_double_backward_grad_output``: ``(x - t) / ((x + eps)
    * (1 - x + eps))`` times ``grad`` (and ``weight``), over ``numel`` for a mean (eps
    1e-12; the sum over a reduced ``grad_output``'s shape is the engine's)."""
    in_place = _in_place()
    x = self
    g = (x - target) / ((x + _BCE_EPS) * (1 - x + _BCE_EPS))
    g = g.mul_(grad) if in_place else g * grad
    if weight is not None:
        g = g.mul_(weight) if in_place else g * weight
    return aten.div.Scalar.call(g, x.numel()) if reduction == _MEAN else g


def binary_cross_entropy_with_logits_self_backward(grad: Tensor, self: Tensor, target: Tensor,
                                                   weight: Any, pos_weight: Any,
                                                   reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_with_logits_backward``: ``(sigmoid(x) - t) * grad``,
    with ``pos_weight``: ``((pos_weight * t + 1 - t) * sigmoid(x) - pos_weight * t) *
    grad``; times ``weight``; over ``numel`` for a mean."""
    in_place = _in_place()
    if pos_weight is not None:
        t = pos_weight * target
        if in_place:
            grad_input = t.add(1).sub_(target).mul_(self.sigmoid()).sub_(t)
        else:
            grad_input = (t + 1 - target) * self.sigmoid() - t
    else:
        grad_input = self.sigmoid().sub_(target) if in_place else self.sigmoid() - target
    grad_input = grad_input.mul_(grad) if in_place else grad_input * grad
    return _scaled(grad_input, weight, reduction, self.numel(), in_place)


def binary_cross_entropy_with_logits_target_backward(grad: Tensor, self: Tensor,
                                                     target: Tensor, weight: Any,
                                                     pos_weight: Any,
                                                     reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_with_logits_target_backward``: ``-x * grad``; with
    ``pos_weight``: ``(log_sigmoid(-x) - log_sigmoid(x) * pos_weight) * grad``; times
    ``weight``; over ``numel`` for a mean."""
    in_place = _in_place()
    if pos_weight is not None:
        grad_target = log_sigmoid(-self).sub_(log_sigmoid(self).mul_(pos_weight)).mul_(grad)
    else:
        grad_target = -self * grad
    return _scaled(grad_target, weight, reduction, target.numel(), in_place)


_NLL_SAVES = ("self", "target", "weight", "reduction", "ignore_index", "total_weight")
DERIVATIVES += [
    row("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
        "MseLossBackward0", ("self", "target", "reduction"), self=mse_loss_self_backward,
        target=mse_loss_target_backward),
    row("mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> "
        "Tensor", "MseLossBackwardBackward0", ("grad_output", "self", "target", "reduction"),
        grad_output=mse_loss_backward_grad_output_backward,
        self=mse_loss_backward_self_backward, target=mse_loss_backward_target_backward),
    row("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt "
        "ignore_index) -> (Tensor output, Tensor total_weight)", "NllLossBackward0",
        _NLL_SAVES, recorded_outputs=1, no_grad_arguments=("weight",),
        self=nll_loss_self_backward),
    row("nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt "
        "ignore_index) -> (Tensor output, Tensor total_weight)", "NllLoss2DBackward0",
        _NLL_SAVES, recorded_outputs=1, no_grad_arguments=("weight",),
        self=nll_loss2d_self_backward),
    row("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int "
        "reduction, SymInt ignore_index, Tensor total_weight) -> Tensor",
        "NllLossBackwardBackward0", ("target", "weight", "reduction", "ignore_index"),
        no_grad_arguments=("weight", "total_weight"),
        grad_output=nll_loss_backward_grad_output_backward, self=zeros_like_grad),
    row("nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, "
        "int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor",
        "NllLoss2DBackwardBackward0", ("target", "weight", "reduction", "ignore_index"),
        no_grad_arguments=("weight", "total_weight"),
        grad_output=nll_loss2d_backward_grad_output_backward, self=zeros_like_grad),
    row("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int "
        "reduction=Mean) -> Tensor", "BinaryCrossEntropyBackward0",
        ("self", "target", "weight", "reduction"), no_grad_arguments=("weight",),
        self=binary_cross_entropy_self_backward, target=binary_cross_entropy_target_backward),
    row("binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, "
        "Tensor? weight=None, int reduction=Mean) -> Tensor",
        "BinaryCrossEntropyBackwardBackward0",
        ("grad_output", "self", "target", "weight", "reduction"),
        no_grad_arguments=("weight",),
        grad_output=binary_cross_entropy_backward_grad_output_backward,
        self=binary_cross_entropy_backward_self_backward,
        target=binary_cross_entropy_backward_target_backward),
    row("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
        "Tensor? pos_weight=None, int reduction=Mean) -> Tensor",
        "BinaryCrossEntropyWithLogitsBackward0",
        ("self", "target", "weight", "pos_weight", "reduction"),
        no_grad_arguments=("weight", "pos_weight"),
        self=binary_cross_entropy_with_logits_self_backward,
        target=binary_cross_entropy_with_logits_target_backward),
    row("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)",
        "LogSigmoidBackward0", ("self", "buffer"), recorded_outputs=1,
        self=log_sigmoid_self_backward),
    row("log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
        "LogSigmoidBackwardBackward0", ("grad_output", "self", "buffer"),
        no_grad_arguments=("buffer",), grad_output=log_sigmoid_self_backward,
        self=log_sigmoid_backward_self_backward),
]


# --- layers (chapter 6): GELU, embedding, layer and batch normalization, _trilinear
def gelu_self_backward(grad: Tensor, self: Tensor, approximate: str) -> Tensor:
    """``gelu_backward(grad, self, approximate)``."""
    return aten.gelu_backward.default.call(grad, self, approximate)


def gelu_backward_grad_output_backward(grad: Tensor, self: Tensor, approximate: str) -> Tensor:
    """d/d(grad_output) of ``grad_output * gelu'(self)``: ``gelu_backward`` again."""
    return aten.gelu_backward.default.call(grad, self, approximate)


def gelu_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor,
                         approximate: str) -> Tensor:
    """torch's ``gelu_double_backward``: ``grad * grad_output * gelu''(self)``; exact:
    ``gelu'' = 2 pdf - x**2 pdf``; tanh: the product rule over ``f = x / 2``, ``g = 1 -
    tanh(u)**2`` and ``h = u'``, with ``g' = 2 sech(u) * (-sech(u) tanh(u)) * h`` as torch
    writes it (not ``-2 g tanh(u) h``: ``g`` loses digits to cancellation where ``sech``
    does not). reftensor has no ``cosh`` op: ``sech = 1 / cosh`` is computed as ``2 /
    (exp(u) + exp(-u))`` in float64, rounded to the input's dtype (as ``coshf`` rounds)."""
    x = self
    if approximate == "tanh":
        beta, kappa = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5, 0.044715
        inner = beta * (x + kappa * (x * x * x))
        t = inner.tanh()
        wide = inner.to(dtypes.float64)
        sech = (2 / (wide.exp() + (-wide).exp())).to(x._dtype)
        f = 0.5 * x
        g = 1 - t * t
        h = beta * (1 + 3 * kappa * x * x)
        f_prime_gh = 0.5 * g * h
        g_prime_fh = f * h * ((2 * sech) * (-sech * t) * h)
        h_prime_fg = f * g * (6 * kappa * x * beta)
        return grad * grad_output * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
    beta = (2.0 / math.sqrt(math.pi)) * math.sqrt(0.5) * 0.5
    x_sq = x * x
    pdf = beta * (-0.5 * x_sq).exp()
    return grad * grad_output * (2 * pdf - x_sq * pdf)


def embedding_weight_backward(grad: Tensor, indices: Tensor, weight_sym_argsize_0: int,
                              padding_idx: int, scale_grad_by_freq: bool,
                              sparse: bool) -> Tensor:
    """``embedding_backward(grad, indices, weight.size(0), padding_idx, ...)``."""
    return aten.embedding_backward.default.call(grad, indices, weight_sym_argsize_0,
                                                padding_idx, scale_grad_by_freq, sparse)


def embedding_dense_double_backward(grad: Tensor, indices: Tensor, padding_idx: int) -> Tensor:
    """torch's ``embedding_dense_double_backward``: ``grad``'s rows at ``indices`` (the rows
    of ``padding_idx`` zeroed), shaped ``indices.shape + (-1,)``."""
    flat = indices.reshape(-1)
    rows = aten.index.Tensor.call(grad, [flat])
    if padding_idx >= 0:
        rows = where((flat == padding_idx).reshape(-1, 1), 0, rows)
    return rows.view(*indices.shape, -1)


def native_layer_norm_backward(grad: Tensor, input: Tensor, normalized_shape: Any,
                               result1: Tensor, result2: Tensor, weight: Tensor | None,
                               bias: Tensor | None, grad_input_mask: list[bool]
                               ) -> tuple[Tensor | None, ...]:
    """``input, weight, bias``: ``native_layer_norm_backward`` with ``grad_input_mask``,
    the three gradients in one call."""
    return tuple(aten.native_layer_norm_backward.default.call(
        grad, input, normalized_shape, result1, result2, weight, bias, grad_input_mask))


def native_batch_norm_backward(grad: Tensor, input: Tensor, weight: Tensor | None,
                               running_mean: Tensor | None, running_var: Tensor | None,
                               result1: Tensor, result2: Tensor, training: bool, eps: float,
                               grad_input_mask: list[bool]) -> tuple[Tensor | None, ...]:
    """``input, weight, bias``: ``native_batch_norm_backward`` with ``grad_input_mask``,
    the three gradients in one call."""
    return tuple(aten.native_batch_norm_backward.default.call(
        grad, input, weight, running_mean, running_var, result1, result2, training, eps,
        grad_input_mask))


def _not_in_reftensor(what: str) -> Formula:
    """A row torch has whose formula reftensor does not implement: its backward raises."""
    def formula(grad: Tensor) -> Tensor:
        raise NotImplementedError(f"reftensor does not implement {what}")

    formula.__name__ = "not_in_reftensor"
    return formula


def _trilinear_part(k: int) -> Formula:
    """torch's ``_trilinear_backward`` for input ``k``: ``_trilinear`` with ``grad`` in that
    input's place and ``sumdim`` and its ``expand`` swapped."""
    def formula(grad: Tensor, i1: Tensor, i2: Tensor, i3: Tensor, expand1: Any, expand2: Any,
                expand3: Any, sumdim: Any) -> Tensor:
        call = aten._trilinear.default.call
        if k == 0:
            return call(grad, i2, i3, sumdim, expand2, expand3, expand1, 1)
        if k == 1:
            return call(i1, grad, i3, expand1, sumdim, expand3, expand2, 1)
        return call(i1, i2, grad, expand1, expand2, sumdim, expand3, 1)

    formula.__name__ = f"_trilinear_backward_{k}"
    return formula


_LAYER_NORM_SAVES = ("input", "normalized_shape", "result1", "result2", "weight", "bias")
_BATCH_NORM_SAVES = ("input", "weight", "running_mean", "running_var", "result1", "result2",
                     "training", "eps")
_TRILINEAR_SAVES = ("i1", "i2", "i3", "expand1", "expand2", "expand3", "sumdim")
DERIVATIVES += [
    row("gelu(Tensor self, *, str approximate='none') -> Tensor", "GeluBackward0",
        ("self", "approximate"), self=gelu_self_backward),
    row("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
        "GeluBackwardBackward0", ("grad_output", "self", "approximate"),
        grad_output=gelu_backward_grad_output_backward, self=gelu_double_backward),
    row("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool "
        "scale_grad_by_freq=False, bool sparse=False) -> Tensor", "EmbeddingBackward0",
        ("indices", "weight_sym_argsize_0", "padding_idx", "scale_grad_by_freq", "sparse"),
        weight=embedding_weight_backward),
    row("embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, "
        "SymInt padding_idx, bool scale_grad_by_freq) -> Tensor",
        "EmbeddingDenseBackwardBackward0", ("indices", "padding_idx"),
        grad_output=embedding_dense_double_backward),
    row("embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) "
        "-> Tensor(a!)", "NotImplemented", (), self=not_implemented("embedding_renorm")),
    row("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? "
        "bias, float eps) -> (Tensor, Tensor, Tensor)", "NativeLayerNormBackward0",
        _LAYER_NORM_SAVES, recorded_outputs=1,
        **{"input, weight, bias": native_layer_norm_backward}),
    row("native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, "
        "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> "
        "(Tensor, Tensor, Tensor)", "NativeLayerNormBackwardBackward0", (),
        **dict.fromkeys(("grad_out", "input", "weight"),
                        _not_in_reftensor("layer_norm's second derivative "
                                          "(layer_norm_double_backward)"))),
    row("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, "
        "Tensor)", "NativeBatchNormBackward0", _BATCH_NORM_SAVES, recorded_outputs=1,
        no_grad_arguments=("running_mean", "running_var"),
        **{"input, weight, bias": native_batch_norm_backward}),
    row("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? "
        "running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool "
        "train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
        "NativeBatchNormBackwardBackward0", (),
        **dict.fromkeys(("input", "weight", "grad_out"),
                        _not_in_reftensor("batch_norm's second derivative "
                                          "(batchnorm_double_backward)"))),
    row("_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] "
        "expand3, int[] sumdim, int unroll_dim=1) -> Tensor", "TrilinearBackward0",
        _TRILINEAR_SAVES, i1=_trilinear_part(0), i2=_trilinear_part(1),
        i3=_trilinear_part(2)),
]

DERIVATIVES += [
    row("atan2(Tensor self, Tensor other) -> Tensor", "Atan2Backward0", ("self", "other"),
        self=atan2_self_backward, other=atan2_other_backward),
    row("hypot(Tensor self, Tensor other) -> Tensor", "HypotBackward0",
        ("self", "other", "result"), self=hypot_self_backward, other=hypot_other_backward),
    row("fmod.Scalar(Tensor self, Scalar other) -> Tensor", "FmodBackward0", (),
        self=pass_through),
    row("fmod.Tensor(Tensor self, Tensor other) -> Tensor", "FmodBackward1",
        ("self", "other"), self=pass_through, other=fmod_other_backward),
    row("logaddexp(Tensor self, Tensor other) -> Tensor", "LogaddexpBackward0",
        ("self", "other"), self=logaddexp_self_backward, other=logaddexp_other_backward),
    row("logaddexp2(Tensor self, Tensor other) -> Tensor", "Logaddexp2Backward0",
        ("self", "other"), self=logaddexp2_self_backward, other=logaddexp2_other_backward),
    row("xlogy.Tensor(Tensor self, Tensor other) -> Tensor", "XlogyBackward0",
        ("self", "other"), self=xlogy_self_backward, other=xlogy_other_backward),
    row("xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor", "XlogyBackward1",
        ("self", "other"), other=xlogy_other_backward),
    row("xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor", "XlogyBackward2",
        ("self", "other"), self=xlogy_scalar_other_backward),
    row("logit(Tensor self, float? eps=None) -> Tensor", "LogitBackward0", ("self", "eps"),
        self=logit_backward),
    row("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> "
        "Tensor", "NanToNumBackward0", ("self",), self=nan_to_num_backward),
]
DERIVATIVES += [
    row("t_(Tensor(a!) self) -> Tensor(a!)", "TBackward1", (), self=t_backward,
        inplace_view=True),
    row("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", "TransposeBackward1",
        ("dim0", "dim1"), self=transpose_backward, inplace_view=True),
    row("squeeze_(Tensor(a!) self) -> Tensor(a!)", "SqueezeBackward3", ("self_sym_sizes",),
        self=unsqueeze_to, inplace_view=True),
    row("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", "SqueezeBackward4",
        ("self_sym_sizes", "dim"), self=unsqueeze_to_dim, inplace_view=True),
    row("squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)", "SqueezeBackward5",
        ("self_sym_sizes", "dim"), self=unsqueeze_to_dims, inplace_view=True),
    row("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)", "UnsqueezeBackward1", ("dim",),
        self=squeeze_backward, inplace_view=True),
]


# --- pooling (chapter 10, the capstone; issue 45) -------------------------------------------
def max_pool2d_with_indices_self_backward(grad: Tensor, self: Tensor, kernel_size: Any,
                                          stride: Any, padding: Any, dilation: Any,
                                          ceil_mode: bool, result1: Tensor) -> Tensor:
    """``max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation,
    ceil_mode, result1)``."""
    return aten.max_pool2d_with_indices_backward.default.call(
        grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1)


def max_pool_double_backward(grad: Tensor, indices: Tensor) -> Tensor:
    """torch's ``max_pool_double_backward(grad, indices, 2)``: ``grad`` (laid out as
    ``indices``) read at each index, ``gather`` over the flattened planes."""
    if indices.numel() == 0:
        return aten.empty_like(indices, dtype=grad.dtype)
    size = [*indices.shape[:-2], -1]
    memory_format = indices._suggest_memory_format()
    return grad.contiguous(memory_format=memory_format).view(size).gather(
        -1, indices.view(size)).view(indices.shape)


def avg_pool2d_self_backward(grad: Tensor, self: Tensor, kernel_size: Any, stride: Any,
                             padding: Any, ceil_mode: bool, count_include_pad: bool,
                             divisor_override: Any) -> Tensor:
    """``avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
    count_include_pad, divisor_override)``."""
    return aten.avg_pool2d_backward.default.call(grad, self, kernel_size, stride, padding,
                                                 ceil_mode, count_include_pad,
                                                 divisor_override)


def avg_pool2d_backward_grad_output_backward(grad: Tensor, kernel_size: Any, stride: Any,
                                             padding: Any, ceil_mode: bool,
                                             count_include_pad: bool,
                                             divisor_override: Any) -> Tensor:
    """``avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override)``."""
    return aten.avg_pool2d.default.call(grad, kernel_size, stride, padding, ceil_mode,
                                        count_include_pad, divisor_override)


_AVG_POOL_SAVES = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                   "divisor_override")
DERIVATIVES += [
    row("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] "
        "padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        "MaxPool2DWithIndicesBackward0",
        ("self", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "result1"),
        recorded_outputs=1, self=max_pool2d_with_indices_self_backward),
    row("max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
        "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> "
        "Tensor", "MaxPool2DWithIndicesBackwardBackward0", ("indices",),
        grad_output=max_pool_double_backward, self=zeros_like_grad),
    row("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool "
        "ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        "AvgPool2DBackward0", ("self", *_AVG_POOL_SAVES), self=avg_pool2d_self_backward),
    row("avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] "
        "stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? "
        "divisor_override) -> Tensor", "AvgPool2DBackwardBackward0", _AVG_POOL_SAVES,
        grad_output=avg_pool2d_backward_grad_output_backward, self=zeros_like_grad),
]


# --- padding (chapter 10, the capstone; issue 45)
def constant_pad_nd_backward(grad: Tensor, pad: list[int]) -> Tensor:
    """torch's ``constant_pad_nd_backward``: the gradient padded by the negated pads, which
    crops the padding away (and pads a cropped input's gradient with zeros)."""
    return aten.constant_pad_nd.default.call(grad, [-p for p in pad], 0)


def _pad_backward_formula(name: str) -> Any:
    """``<name>_backward(grad, self, padding)``: the gradient of ``self``."""
    def formula(grad: Tensor, self: Tensor, padding: list[int]) -> Tensor:
        return aten[name + "_backward"].default.call(grad, self, padding)

    formula.__name__ = formula.__qualname__ = f"{name}_self_backward"
    return formula


def _pad_double_backward_formula(name: str) -> Any:
    """d/d(grad_output) of ``<name>_backward``, linear in it: ``<name>(grad, padding)``."""
    def formula(grad: Tensor, padding: list[int]) -> Tensor:
        return aten[name].default.call(grad, padding)

    formula.__name__ = formula.__qualname__ = f"{name}_backward_grad_output_backward"
    return formula


def pad_backward_self_backward(grad: Tensor, self: Tensor) -> Tensor:
    """``zeros_like(self)``: the backward ops do not depend on ``self``'s values."""
    return aten.zeros_like.default.call(self, None, None, None, None, None)


def _pad_rows() -> list[Derivative]:
    rows = [row("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
                "ConstantPadNdBackward0", ("pad",), self=constant_pad_nd_backward)]
    for kind, node in (("reflection", "ReflectionPad"), ("replication", "ReplicationPad")):
        for dims in (1, 2, 3):
            name = f"{kind}_pad{dims}d"
            rows.append(row(f"{name}(Tensor self, SymInt[{2 * dims}] padding) -> Tensor",
                            f"{node}{dims}DBackward0", ("self", "padding"),
                            self=_pad_backward_formula(name)))
            rows.append(row(f"{name}_backward(Tensor grad_output, Tensor self, "
                            f"SymInt[{2 * dims}] padding) -> Tensor",
                            f"{node}{dims}DBackwardBackward0", ("self", "padding"),
                            grad_output=_pad_double_backward_formula(name),
                            self=pad_backward_self_backward))
    return rows


DERIVATIVES += _pad_rows()


# --- sliding windows (chapter 10, the capstone; issue 45)
def im2col_backward(grad: Tensor, self_sym_sizes: tuple[int, ...], kernel_size: list[int],
                    dilation: list[int], padding: list[int], stride: list[int]) -> Tensor:
    """``col2im(grad, self.shape[-2:], ...)``: each window's gradient added back."""
    return aten.col2im.default.call(grad, list(self_sym_sizes[-2:]), kernel_size, dilation,
                                    padding, stride)


def col2im_backward(grad: Tensor, kernel_size: list[int], dilation: list[int],
                    padding: list[int], stride: list[int]) -> Tensor:
    """``im2col(grad, ...)``: the gradient read back through the same windows."""
    return aten.im2col.default.call(grad, kernel_size, dilation, padding, stride)


DERIVATIVES += [
    row("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] "
        "stride) -> Tensor", "Im2ColBackward0",
        ("self_sym_sizes", "kernel_size", "dilation", "padding", "stride"),
        self=im2col_backward),
    row("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
        "int[2] padding, int[2] stride) -> Tensor", "Col2ImBackward0",
        ("kernel_size", "dilation", "padding", "stride"), self=col2im_backward),
]


# ------------------------------------- convolution (chapter 10, the capstone, issue 45)
def convolution_backward(grad: Tensor, input: Tensor, weight: Tensor, bias_sym_sizes_opt: Any,
                         stride: Any, padding: Any, dilation: Any, transposed: bool,
                         output_padding: Any, groups: int, grad_input_mask: list[bool]
                         ) -> tuple[Tensor | None, ...]:
    """``input, weight, bias``: ``convolution_backward`` with ``grad_input_mask``, the
    three gradients in one call."""
    return tuple(aten.convolution_backward.default.call(
        grad, input, weight, bias_sym_sizes_opt, stride, padding, dilation, transposed,
        output_padding, groups, grad_input_mask))


def _convolution_double_backward(part: int) -> Formula:
    """torch's ``_convolution_double_backward(grads[0], grads[1], grads[2], grad_output,
    weight, input, ...)``, output ``part`` of its three (0: ``grad_output``'s, 1:
    ``input``'s, 2: ``weight``'s), written with ``convolution`` as torch's is:

    - ``grad_output``'s: ``conv(ggI, weight) + conv(input, ggW) + ggb`` (``ggb`` viewed as
      ``(1, C, 1, ...)`` and expanded), ``ggI``, ``ggW``, ``ggb`` being the gradients of
      ``convolution_backward``'s three results;
    - ``input``'s: the convolution transposed (or, for a transposed one, the plain one) of
      ``grad_output`` by ``ggW`` (its ``output_padding`` the positions the forward left
      unread), narrowed to the input's size;
    - ``weight``'s: a convolution of ``ggI`` and ``grad_output``, batch and channels
      swapped (``transpose(0, 1)``), stride and dilation swapped, one per group then
      ``cat``, narrowed to the kernel's size.

    None where torch's is undefined (no ``ggW`` for ``input``'s, no ``ggI`` for
    ``weight``'s, an empty input)."""
    def formula(grads: list[Tensor | None], grad_output: Tensor, input: Tensor,
                weight: Tensor, stride: Any, padding: Any, dilation: Any, transposed: bool,
                output_padding: Any, groups: int) -> Tensor | None:
        ggI, ggW, ggb = grads
        dim = weight.dim() - 2
        stride = expand_param_if_needed(stride, "stride", dim)
        padding = expand_param_if_needed(padding, "padding", dim)
        dilation = expand_param_if_needed(dilation, "dilation", dim)
        output_padding = expand_param_if_needed(output_padding, "output_padding", dim)
        if not transposed and input.dim() > 4:  # torch's grouped 3-d inference
            groups = input._shape[1] // weight._shape[1] if weight._shape[1] > 0 else -1
        conv = aten.convolution.default.call
        empty = input.numel() == 0
        if part == 0:
            ggO = None
            if not empty and ggI is not None:
                ggO = conv(ggI, weight, None, stride, padding, dilation, transposed,
                           output_padding, groups)
            if not empty and ggW is not None:
                term = conv(input, ggW, None, stride, padding, dilation, transposed,
                            output_padding, groups)
                ggO = term if ggO is None else ggO + term
            if ggb is not None:
                shape = [1] * grad_output.dim()
                shape[1] = ggb._shape[0]
                expanded = aten.expand.default.call(
                    aten.view.default.call(ggb.contiguous(), shape), grad_output._shape,
                    False)
                ggO = expanded if ggO is None else ggO + expanded
            return ggO
        if part == 1:
            if empty or ggW is None:
                return None
            if transposed:
                gI = conv(grad_output, ggW, None, stride, padding, dilation, False,
                          output_padding, groups)
                for i in range(2, gI.dim()):
                    if gI._shape[i] > input._shape[i]:
                        gI = gI.narrow(i, 0, input._shape[i])
                return gI
            extra = list(output_padding)
            for i in range(dim):  # the input positions the forward's windows left unread
                expected = ((weight._shape[i + 2] - 1) * dilation[i] - 2 * padding[i]
                            + stride[i] * (grad_output._shape[i + 2] - 1) + 1)
                if expected != input._shape[i + 2]:
                    extra[i] = input._shape[i + 2] - expected
            return conv(grad_output, ggW, None, stride, padding, dilation, True, extra,
                        groups)
        if empty or ggI is None:
            return None
        gOt = grad_output.transpose(0, 1)
        ggIt = ggI.transpose(0, 1)
        # stride and dilation swap places; the groups run one at a time
        first, second = (gOt, ggIt) if transposed else (ggIt, gOt)
        if groups == 1:
            gWt = conv(first, second, None, dilation, padding, stride, False,
                       output_padding, 1)
        else:
            pieces = []
            for g in range(groups):
                a = first.narrow(0, first._shape[0] // groups * g, first._shape[0] // groups)
                b = second.narrow(0, second._shape[0] // groups * g,
                                  second._shape[0] // groups)
                pieces.append(conv(a, b, None, dilation, padding, stride, False,
                                   output_padding, 1))
            gWt = aten.cat.default.call(pieces, 1)
        gW = gWt.transpose(0, 1)
        for i in range(2, gW.dim()):
            if gW._shape[i] > weight._shape[i]:
                gW = gW.narrow(i, 0, weight._shape[i])
        return gW

    formula.__name__ = f"convolution_double_backward_{part}"
    return formula


_CONVOLUTION_DOUBLE_BACKWARD = tuple(_convolution_double_backward(k) for k in range(3))


def convolution_double_backward(grads: list[Tensor | None], grad_output: Tensor,
                                input: Tensor, weight: Tensor, stride: Any, padding: Any,
                                dilation: Any, transposed: bool, output_padding: Any,
                                groups: int, grad_input_mask: list[bool]
                                ) -> tuple[Tensor | None, ...]:
    """``grad_output, input, weight``: torch's ``_convolution_double_backward``, each part
    asked for by ``grad_input_mask`` (see :func:`_convolution_double_backward`)."""
    return tuple(part(grads, grad_output, input, weight, stride, padding, dilation,
                      transposed, output_padding, groups) if wanted else None
                 for part, wanted in zip(_CONVOLUTION_DOUBLE_BACKWARD, grad_input_mask,
                                         strict=True))


def expand_param_if_needed(values: Any, name: str, dim: int) -> list[int]:
    """torch's ``expand_param_if_needed``: one value for every spatial dim, or one each
    (``stride``, ``padding``, ``dilation``, ``output_padding`` of a convolution and its
    double backward, which reads the forward's saved arguments). RuntimeError otherwise."""
    values = list(values)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={values}")
    return values


_CONVOLUTION_SAVES = ("bias_sym_sizes_opt", "dilation", "groups", "input", "output_padding",
                      "padding", "stride", "transposed", "weight")
DERIVATIVES += [
    row("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] "
        "padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) "
        "-> Tensor", "ConvolutionBackward0", _CONVOLUTION_SAVES,
        **{"input, weight, bias": convolution_backward}),
    row("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? "
        "bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
        "SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, "
        "Tensor)", "ConvolutionBackwardBackward0",
        ("dilation", "grad_output", "groups", "input", "output_padding", "padding", "stride",
         "transposed", "weight"),
        **{"grad_output, input, weight": convolution_double_backward}),
]
