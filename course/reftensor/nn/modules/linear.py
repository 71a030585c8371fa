"""``Identity`` and ``Linear`` (``torch.nn.Identity``, ``torch.nn.Linear``)."""

from __future__ import annotations

import math
from typing import Any

from ..._ops import aten
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged; takes and ignores any arguments (``torch.nn.Identity``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` (``torch.nn.Linear(in_features, out_features, bias=True,
    device=None, dtype=None)``).

    ``weight`` has shape ``(out_features, in_features)``, ``bias`` ``(out_features,)``; an
    input of shape ``(*, in_features)`` gives ``(*, out_features)``. The parameters are drawn
    as torch draws them, in this order: ``kaiming_uniform_(weight, a=sqrt(5))``, that is
    U(-1/sqrt(in_features), 1/sqrt(in_features)), then the bias from the same interval: after
    the same ``manual_seed`` they hold torch's exact values.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(aten.empty((out_features, in_features), device=device,
                                           dtype=dtype))
        if bias:
            self.bias = Parameter(aten.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weight, then the bias, as torch's ``Linear.reset_parameters`` does."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
