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
from dataclasses import dataclass
from typing import Any

from ..tensor import Tensor

__all__ = ["Derivative", "DERIVATIVES"]

Formula = Callable[..., Tensor]


@dataclass(frozen=True)
class Derivative:
    """One row: ``formulas`` maps an input's name to the function computing its gradient;
    the function's parameters name what it reads (``grad``, and entries of ``saves``)."""

    schema: str
    node: str
    saves: tuple[str, ...]
    formulas: dict[str, Formula]

    @property
    def op(self) -> str:
        return self.schema.partition("(")[0].partition(".")[0]


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
]
