"""``LayerNorm`` (``torch.nn.LayerNorm``): normalize each sample over its last dims."""

from __future__ import annotations

import numbers
from typing import Any

from ..._ops import aten
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """``LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
    device=None, dtype=None)``: ``(x - mean) / sqrt(var + eps) * weight + bias`` over the
    last ``len(normalized_shape)`` dims (an int is one dim), the biased variance.

    ``weight`` starts at ones and ``bias`` at zeros (nothing is drawn); with
    ``elementwise_affine=False`` neither exists, with ``bias=False`` only the weight.
    """

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(aten.empty(self.normalized_shape, device=device,
                                               dtype=dtype))
            if bias:
                self.bias = Parameter(aten.empty(self.normalized_shape, device=device,
                                                 dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
