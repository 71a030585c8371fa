"""The padding and sliding-window layers (``torch.nn.ZeroPad2d``, ``ConstantPad2d``,
``ReflectionPad2d``, ``ReplicationPad2d``, ``CircularPad2d`` and their 1d/3d kin, ``Unfold``,
``Fold``): the
capstone's ``nn.functional.pad``, ``unfold`` and ``fold`` (issue 45) as layers without
parameters, with torch's attributes and reprs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d", "Unfold", "Fold"]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    """torch's ``_ntuple(n)``: an iterable as a tuple (any length), anything else ``n``
    times."""
    if isinstance(value, Iterable):
        return tuple(value)
    return (value,) * n


class _ConstantPadNd(Module):
    """``F.pad(input, padding, "constant", value)``; ``padding`` an int (every side) or
    ``2 * dims`` ints (left, right of the last dim first)."""

    dims = 0

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self.dims)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, list(self.padding), "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value`` (``torch.nn.ConstantPad1d``)."""

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value`` (``torch.nn.ConstantPad2d``)."""

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value`` (``torch.nn.ConstantPad3d``)."""

    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros (``torch.nn.ZeroPad1d``)."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros (``torch.nn.ZeroPad2d``)."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zeros (``torch.nn.ZeroPad3d``)."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    """``F.pad(input, padding, mode)`` for ``mode`` "reflect" or "replicate"."""

    dims = 0
    mode = ""

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, list(self.padding), self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """The last dim mirrored about its edge elements (``torch.nn.ReflectionPad1d``)."""

    dims, mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """The last 2 dims mirrored about their edge elements (``torch.nn.ReflectionPad2d``)."""

    dims, mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    """The last 3 dims mirrored about their edge elements (``torch.nn.ReflectionPad3d``)."""

    dims, mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    """The last dim's edge elements repeated (``torch.nn.ReplicationPad1d``)."""

    dims, mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """The last 2 dims' edge elements repeated (``torch.nn.ReplicationPad2d``)."""

    dims, mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    """The last 3 dims' edge elements repeated (``torch.nn.ReplicationPad3d``)."""

    dims, mode = 3, "replicate"


class _CircularPadNd(_ModePadNd):
    """``F.pad(input, padding, "circular")``, for an input of ``dims + 1`` or ``dims + 2``
    dims only (a ``ValueError`` otherwise, before ``F.pad`` sees it, as in torch)."""

    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got "
                             f"{input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """The last dim wrapped around: its left pad from its right end and its right pad from
    its left end (``torch.nn.CircularPad1d``)."""

    dims = 1


class CircularPad2d(_CircularPadNd):
    """The last 2 dims wrapped around (``torch.nn.CircularPad2d``)."""

    dims = 2


class CircularPad3d(_CircularPadNd):
    """The last 3 dims wrapped around (``torch.nn.CircularPad3d``)."""

    dims = 3


class Unfold(Module):
    """``F.unfold(input, kernel_size, dilation, padding, stride)`` (``torch.nn.Unfold``):
    every sliding window as a column; the arguments kept as given."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding="
                f"{self.padding}, stride={self.stride}")


class Fold(Module):
    """``F.fold(input, output_size, kernel_size, dilation, padding, stride)``
    (``torch.nn.Fold``): columns summed back into an image."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1,
                 padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
