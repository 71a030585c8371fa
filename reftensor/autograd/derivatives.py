"""The derivatives table: for each differentiable op, the gradient of each input, as torch's
``derivatives.yaml`` gives it (facts copied from torch 2.13's file; the formulas are written
here with reftensor ops, so a backward run with ``create_graph=True`` is recorded too).

A row names the op by its schema, the node that backward runs (``ExpBackward0``), what the
node saves (``self``: the input; ``result``: the output; or any other argument, such as
``flip``'s ``dims``) and, per differentiable input, a
formula: a plain named function of the output's gradient ``grad`` and the saved values. The
in-place form of an op (``exp_``) uses the same row: its node saves the value ``self`` had
before the write.

The formulas keep torch's operand order (``-grad * (result * result)``, not ``grad *
-(result * result)``): the order decides the gradient's strides (an output is laid out like
its first operand when the layouts disagree) and, in float16, the rounding.

``variable_type.py`` turns each row into the op's ``Autograd`` kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .. import factories, layout
from ..tensor import Tensor, wrap_dim
from .functions.elementwise import where

__all__ = ["Derivative", "DERIVATIVES"]

Formula = Callable[..., Tensor]


class Derivative(NamedTuple):
    """One row: ``formulas`` maps an input's name to the function computing its gradient;
    the function's parameters name what it reads (``grad``, and entries of ``saves``)."""

    schema: str
    node: str
    saves: tuple[str, ...]
    formulas: dict[str, Formula]

    @property
    def op(self) -> str:
        return self.schema.partition("(")[0].partition(".")[0]

    @property
    def overload(self) -> str:
        """``Tensor`` for ``add.Tensor(...)``; ``default`` when there is no overload name."""
        return self.schema.partition("(")[0].partition(".")[2] or "default"


# ------------------------------------------------------------------ the formulas
def exp_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx e**x = e**x, the result itself."""
    return grad * result


def expm1_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx (e**x - 1) = e**x = result + 1."""
    return grad * (result + 1)


def log_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx log x = 1 / x."""
    return grad / self


def sqrt_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx sqrt(x) = 1 / (2 sqrt(x))."""
    return grad / (2 * result)


def sin_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self.cos()


def cos_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * -self.sin()


def tanh_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx tanh x = 1 - tanh(x)**2 (torch's ``tanh_backward``)."""
    return grad * (1 - result * result)


def sigmoid_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx sigmoid x = (1 - sigmoid x) * sigmoid x (torch's ``sigmoid_backward`` kernel
    computes ``grad * (1 - result) * result``, left to right)."""
    return grad * (1 - result) * result


def reciprocal_backward(grad: Tensor, result: Tensor) -> Tensor:
    """d/dx 1/x = -1/x**2 = -result**2 (in torch's order: the gradient is laid out like
    ``-grad``)."""
    return -grad * (result * result)


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
    """d(self / other)/d(other) = -self / other**2."""
    return -grad * self / (other * other)


def zeros_like(t: Tensor) -> Tensor:
    """Zeros laid out as ``t`` (``torch.zeros_like``: a dense ``t`` keeps its strides)."""
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


def neg_backward(grad: Tensor) -> Tensor:
    return grad.neg()


def abs_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d|x|/dx = sign(x) (torch's ``self.sgn()``; 0 at 0)."""
    return grad * self.sign()


def relu_backward(grad: Tensor, result: Tensor) -> Tensor:
    """torch's ``threshold_backward(grad, result, 0)``: 0 where the result is <= 0."""
    return where(result <= 0, 0.0, grad)


def zero_backward(grad: Tensor) -> Tensor:
    """A step function (sign, floor, round), or an op whose result forgets the input (the
    fills): zeros, laid out as ``grad``."""
    return zeros_like(grad)


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
            grads.append(factories.zeros(0, dtype=grad.dtype, device=grad.device))
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


# ------------------------------------------------------------------ the table
def row(schema: str, node: str, saves: tuple[str, ...], **formulas: Any) -> Derivative:
    return Derivative(schema, node, saves, formulas)


DERIVATIVES: list[Derivative] = [
    row("exp(Tensor self) -> Tensor", "ExpBackward0", ("result",), self=exp_backward),
    row("expm1(Tensor self) -> Tensor", "Expm1Backward0", ("result",), self=expm1_backward),
    row("log(Tensor self) -> Tensor", "LogBackward0", ("self",), self=log_backward),
    row("sqrt(Tensor self) -> Tensor", "SqrtBackward0", ("result",), self=sqrt_backward),
    row("sin(Tensor self) -> Tensor", "SinBackward0", ("self",), self=sin_backward),
    row("cos(Tensor self) -> Tensor", "CosBackward0", ("self",), self=cos_backward),
    row("tanh(Tensor self) -> Tensor", "TanhBackward0", ("result",), self=tanh_backward),
    row("sigmoid(Tensor self) -> Tensor", "SigmoidBackward0", ("result",),
        self=sigmoid_backward),
    row("reciprocal(Tensor self) -> Tensor", "ReciprocalBackward0", ("result",),
        self=reciprocal_backward),
    row("flip(Tensor self, int[] dims) -> Tensor", "FlipBackward0", ("dims",),
        self=flip_backward),
    row("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "AddBackward0",
        ("alpha",), self=pass_through, other=add_other_backward),
    row("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "SubBackward0",
        ("alpha",), self=pass_through, other=sub_other_backward),
    row("mul.Tensor(Tensor self, Tensor other) -> Tensor", "MulBackward0", ("self", "other"),
        self=mul_self_backward, other=mul_other_backward),
    row("div.Tensor(Tensor self, Tensor other) -> Tensor", "DivBackward0", ("self", "other"),
        self=div_self_backward, other=div_other_backward),
    row("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        "DivBackward2", ("self", "other", "rounding_mode"), self=div_self_backward_mode,
        other=div_other_backward_mode),
    row("neg(Tensor self) -> Tensor", "NegBackward0", (), self=neg_backward),
    row("abs(Tensor self) -> Tensor", "AbsBackward0", ("self",), self=abs_backward),
    row("relu(Tensor self) -> Tensor", "ReluBackward0", ("result",), self=relu_backward),
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
]
