"""``Dropout`` (``torch.nn.Dropout``): ``functional.dropout`` as a layer that follows the
module's mode: it zeroes and rescales in training, and is the identity after ``eval()``."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """``Dropout(p=0.5, inplace=False)``: in training, each element is zeroed with
    probability ``p`` and the rest scaled by ``1 / (1 - p)``, from the default generator
    exactly as torch draws (chapter 8); in eval mode the input comes back unchanged.

    Raises:
        ValueError: ``p`` outside [0, 1].
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
