"""The pooling layers (chapter 10, the capstone): ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``
and ``AvgPool2d`` (``torch.nn.MaxPool2d``, ...), ``nn.functional``'s pools as layers with no
parameters. ``stride`` defaults to ``kernel_size``; the reprs are torch's (the 1-d average
pool keeps its sizes as 1-tuples, as torch's ``_single`` makes them)."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d"]


def _single(x: Any) -> tuple[Any, ...]:
    """torch's ``_single``: an int as a 1-tuple, a sequence as a tuple."""
    return tuple(x) if isinstance(x, tuple | list) else (x,)


class _MaxPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window over the last dim of ``(C, L)`` or ``(N, C, L)``
    (``torch.nn.MaxPool1d``): ``F.max_pool1d``, with the indices too when
    ``return_indices``."""

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """The maximum of each window over the last two dims of ``(C, H, W)`` or ``(N, C, H,
    W)`` (``torch.nn.MaxPool2d``): ``F.max_pool2d``, with the indices too when
    ``return_indices``. Raises as ``F.max_pool2d``."""

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """The mean of each window over the last dim of ``(C, L)`` or ``(N, C, L)``
    (``torch.nn.AvgPool1d``): ``F.avg_pool1d``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding,
                            self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """The mean of each window over the last two dims of ``(C, H, W)`` or ``(N, C, H, W)``
    (``torch.nn.AvgPool2d``): ``F.avg_pool2d`` with ``ceil_mode``, ``count_include_pad``
    and ``divisor_override``. Raises as ``F.avg_pool2d``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding,
                            self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
