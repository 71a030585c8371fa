"""``Flatten`` and ``Unflatten`` (``torch.nn.Flatten``, ``torch.nn.Unflatten``): reshapes
as layers, so that a ``Sequential`` can go from images to vectors and back."""

from __future__ import annotations

from collections.abc import Sequence

from ...tensor import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``; the defaults keep dim 0, the batch."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """``input.unflatten(dim, unflattened_size)``: dim ``dim`` becomes the dims
    ``unflattened_size`` (a tuple or list of ints)."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
