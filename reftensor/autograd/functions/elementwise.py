"""Gradients of the elementwise ops (chapter 3), as torch's ``derivatives.yaml`` gives them.

A binary op broadcasts its inputs, so each input's gradient is summed back to the input's
shape (``sum_to_size``: the backward of ``expand``). Formulas are written with reftensor
ops, so under ``create_graph=True`` the backward is itself recorded.
"""

from __future__ import annotations

from typing import Any

from ... import elementwise as K
from ...tensor import Tensor
from ..graph import Node
from ._record import call, call_

__all__ = ["where", "clamp", "clip"]


class ClampBackward1(Node):
    """``clamp`` with number bounds: the gradient passes where ``min <= x <= max``."""

    def __init__(self, input: Tensor, min: Any, max: Any) -> None:
        super().__init__(input)
        self.min, self.max = min, max
        self.save("self", input)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        x = self.saved("self")
        if self.min is not None and self.max is not None:
            keep = (x >= self.min) & (x <= self.max)
        elif self.min is not None:
            keep = x >= self.min
        else:
            keep = x <= self.max
        return (where(keep, g, g * 0),)


class ClampBackward0(Node):
    """``clamp`` with tensor bounds; where ``min > max`` the result is ``max``."""

    def __init__(self, input: Tensor, min: Any, max: Any) -> None:
        super().__init__(input, min, max)
        self.save("self", input)
        self.save("min", min if isinstance(min, Tensor) else None)
        self.save("max", max if isinstance(max, Tensor) else None)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        x, zero = self.saved("self"), g * 0
        lo = self.saved("min") if "min" in self._saved else None
        hi = self.saved("max") if "max" in self._saved else None
        if lo is not None and hi is not None:
            return (where((x >= lo) & (x <= hi), g, zero),
                    where((x < lo) & (lo < hi), g, zero),
                    where((x > hi) | (hi < lo), g, zero))
        if lo is not None:
            return where(x >= lo, g, zero), where(x < lo, g, zero), None
        return where(x <= hi, g, zero), None, where(x > hi, g, zero)


class WhereBackward0(Node):
    def __init__(self, condition: Tensor, input: Any, other: Any) -> None:
        super().__init__(input, other)
        self.save("condition", condition)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        c, zero = self.saved("condition"), g * 0
        return where(c, g, zero), where(c, zero, g)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``torch.clamp``: ``ClampBackward1`` for number bounds, ``ClampBackward0`` when a bound
    is a tensor."""
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return call(K.clamp, (input, min, max), (input, min, max),
                    lambda out: ClampBackward0(input, min, max))
    return call(K.clamp, (input, min, max), (input,),
                lambda out: ClampBackward1(input, min, max))


clip = clamp


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """``torch.where``: the gradient goes to ``input`` where ``condition``, else to
    ``other`` (each summed to its own shape)."""
    return call(K.where, (condition, input, other), (input, other),
                lambda out: WhereBackward0(condition, input, other))


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    cls = ClampBackward0 if tensors else ClampBackward1
    return call_(K.clamp_, self, (min, max), lambda old, out: cls(old, min, max))
