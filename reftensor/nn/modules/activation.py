"""Activations as layers (``torch.nn.ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``GELU``,
``LogSoftmax``, ``LogSigmoid``): no parameters, one op."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "GELU", "LogSigmoid"]


class ReLU(Module):
    """``max(input, 0)``; with ``inplace=True`` the input itself is overwritten."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(input)``."""

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    """``1 / (1 + exp(-input))``."""

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Softmax(Module):
    """``softmax(input, dim)``; ``dim=None`` takes torch's deprecated guess, with a warning."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log_softmax(input, dim)``; ``dim=None`` as for ``Softmax``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """``x * Phi(x)`` (``torch.nn.GELU(approximate='none')``); ``approximate='tanh'`` uses
    the tanh approximation. No parameters."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class LogSigmoid(Module):
    """``log(sigmoid(input))`` (``torch.nn.LogSigmoid``): ``nn.functional.logsigmoid``,
    computed as ``min(x, 0) - log1p(exp(-|x|))``. No parameters; the input's shape and
    dtype."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)
