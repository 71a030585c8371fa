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

from collections.abc import Callable
from typing import Any, NamedTuple

from .. import factories, layout
from ..tensor import Tensor
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
    """A step function (sign, floor, round): zeros, laid out as ``grad``."""
    return zeros_like(grad)


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


def bmm_self_backward(grad: Tensor, mat2: Tensor) -> Tensor:
    return grad.bmm(mat2.transpose(1, 2))


def bmm_mat2_backward(grad: Tensor, self: Tensor) -> Tensor:
    return self.transpose(1, 2).bmm(grad)


def mv_self_backward(grad: Tensor, vec: Tensor) -> Tensor:
    """torch's ``grad.ger(vec)``: the outer product, which torch computes as
    ``grad.reshape(-1, 1) * vec``."""
    return grad.reshape(-1, 1) * vec


def mv_vec_backward(grad: Tensor, self: Tensor) -> Tensor:
    return self.t().mv(grad)


def dot_self_backward(grad: Tensor, tensor: Tensor) -> Tensor:
    return grad * tensor


def dot_tensor_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad * self


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
    # ---------------------------------------------------------- matrix products
    row("mm(Tensor self, Tensor mat2) -> Tensor", "MmBackward0",
        ("self", "mat2", "self_sym_sizes", "self_sym_strides", "mat2_sym_sizes",
         "mat2_sym_strides"), self=mm_mat1_backward, mat2=mm_mat2_backward),
    row("bmm(Tensor self, Tensor mat2) -> Tensor", "BmmBackward0", ("self", "mat2"),
        self=bmm_self_backward, mat2=bmm_mat2_backward),
    row("mv(Tensor self, Tensor vec) -> Tensor", "MvBackward0", ("self", "vec"),
        self=mv_self_backward, vec=mv_vec_backward),
    row("dot(Tensor self, Tensor tensor) -> Tensor", "DotBackward0", ("self", "tensor"),
        self=dot_self_backward, tensor=dot_tensor_backward),
]
