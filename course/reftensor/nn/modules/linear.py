"""``Identity``, ``Linear`` and ``Bilinear`` (``torch.nn.Identity``, ``torch.nn.Linear``,
``torch.nn.Bilinear``)."""

from __future__ import annotations

import math
from typing import Any

from ..._ops import aten
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


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


class Bilinear(Module):
    """``y = x1^T W[o] x2 + b[o]`` (``torch.nn.Bilinear(in1_features, in2_features,
    out_features, bias=True, device=None, dtype=None)``): ``weight`` of shape
    ``(out_features, in1_features, in2_features)``, ``bias`` ``(out_features,)``; inputs
    ``(*, in1_features)`` and ``(*, in2_features)`` give ``(*, out_features)``.

    Drawn as torch draws them: U(-1/sqrt(in1_features), 1/sqrt(in1_features)) for the
    weight, then the bias from the same interval (torch's exact values after the same seed).

    Raises:
        ValueError: ``in1_features <= 0``.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(aten.empty((out_features, in1_features, in2_features),
                                           device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(aten.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
