"""``Conv1d`` and ``Conv2d`` (``torch.nn.Conv1d``, ``torch.nn.Conv2d``): the capstone's
convolution layers (chapter 10), over ``nn.functional.conv1d``/``conv2d``."""

from __future__ import annotations

import math
from typing import Any

from ... import layout
from ..._ops import aten
from ...autograd import no_grad
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d"]

#: sets, as torch's: its messages print them in this process's set order
_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _tuple(value: Any, n: int) -> tuple[Any, ...]:
    """torch's ``_single``/``_pair``: an iterable as a tuple, anything else repeated."""
    if isinstance(value, str):
        return value  # type: ignore[return-value]
    try:
        return tuple(value)
    except TypeError:
        return (value,) * n


class _ConvNd(Module):
    """What ``Conv1d`` and ``Conv2d`` share (torch's ``_ConvNd``): the checks, the
    parameters and their first values, the repr."""

    def __init__(self, n: int, in_channels: int, out_channels: int, kernel_size: Any,
                 stride: Any, padding: Any, dilation: Any, groups: int, bias: bool,
                 padding_mode: str, device: Any, dtype: Any) -> None:
        super().__init__()
        kernel_size, stride = _tuple(kernel_size, n), _tuple(stride, n)
        padding = padding if isinstance(padding, str) else _tuple(padding, n)
        dilation = _tuple(dilation, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        # the padding F.pad would take for a padding_mode other than 'zeros' (last dim first)
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1), strict=False):
                    total = d * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
        else:
            pads = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = pads
        self.weight = Parameter(aten.empty((out_channels, in_channels // groups, *kernel_size),
                                           device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(aten.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch's draws, in its order: ``kaiming_uniform_(weight, a=sqrt(5))`` (into a
        contiguous buffer copied back when the weight is not contiguous), then the bias
        from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
        with no_grad():
            if not self.weight.is_contiguous():
                buffer = aten.empty_like(self.weight, memory_format=layout.contiguous_format)
                init.kaiming_uniform_(buffer, a=math.sqrt(5))
                self.weight.copy_(buffer)
            else:
                init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _padded(self, input: Tensor) -> Tensor:
        """The input padded by ``padding_mode`` (torch's ``F.pad``), for a mode other than
        'zeros'."""
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)


class Conv1d(_ConvNd):
    """A 1-d convolution layer (``torch.nn.Conv1d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros',
    device=None, dtype=None)``): ``weight`` ``(out_channels, in_channels / groups, k)``,
    ``bias`` ``(out_channels,)``; ``(N, C_in, L)`` or ``(C_in, L)`` in, ``(N, C_out,
    L_out)`` out. Drawn as torch draws them (the same values after the same seed).

    Raises:
        ValueError: groups not positive or not dividing the channels, an unknown padding
            string or padding_mode, 'same' with a stride.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(self._padded(input), self.weight, self.bias, self.stride, (0,),
                            self.dilation, self.groups)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """A 2-d convolution layer (``torch.nn.Conv2d(in_channels, out_channels, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros',
    device=None, dtype=None)``): ``weight`` ``(out_channels, in_channels / groups, kH,
    kW)``, ``bias`` ``(out_channels,)``; ``(N, C_in, H, W)`` or ``(C_in, H, W)`` in,
    ``(N, C_out, H_out, W_out)`` out. Drawn as torch draws them (the same values after the
    same seed).

    Raises:
        ValueError: groups not positive or not dividing the channels, an unknown padding
            string or padding_mode, 'same' with a stride.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(self._padded(input), self.weight, self.bias, self.stride, (0, 0),
                            self.dilation, self.groups)
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)
