"""Gradients of the elementwise ops (chapter 3), as torch's ``derivatives.yaml`` gives them.

A binary op broadcasts its inputs, so each input's gradient is summed back to the input's
shape (``sum_to_size``: the backward of ``expand``). Formulas are written with reftensor
ops, so under ``create_graph=True`` the backward is itself recorded.
"""

from __future__ import annotations

from typing import Any

from ... import elementwise as K
from ..._ops import aten
from ...tensor import Tensor
from ..graph import Node, node_class
from ._record import call, call_

__all__ = [
    "floor_divide", "remainder", "pow", "rsub", "positive", "where", "clamp", "clip",
]


def unbroadcast(grad: Tensor, like: Any) -> Tensor:
    """Sum ``grad`` down to the shape of the input ``like`` (a tensor): the dims that
    broadcasting added or stretched from size 1."""
    return grad if grad._shape == like._shape else grad.sum_to_size(like._shape)


class _Binary(Node):
    def __init__(self, input: Any, other: Any) -> None:
        super().__init__(input, other)


class _Alpha(_Binary):
    alpha: Any = 1


class RsubBackward0(_Alpha):
    """``rsub(input, other, alpha) = other - alpha * input``, both tensors."""

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return (-g if self.alpha == 1 else g * -self.alpha), g


class RsubBackward1(RsubBackward0):
    """``number - tensor``."""

    def __init__(self, input: Any) -> None:
        Node.__init__(self, input)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return super().apply(grads)[:1]


class NotImplemented(_Binary):  # noqa: A001  (torch's node name for a missing formula)
    def __init__(self, input: Any, other: Any, op: str) -> None:
        super().__init__(input, other)
        self.op = op

    def apply(self, grads: Any) -> tuple[Any, ...]:
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


class RemainderBackward0(Node):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (grads[0],)


class RemainderBackward1(_Binary):
    def __init__(self, input: Any, other: Any) -> None:
        super().__init__(input, other)
        self.save("self", input)
        self.save("other", other)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        quotient = self.saved("self").div(self.saved("other"), rounding_mode="floor")
        return g, -g * quotient


class PowBackward0(Node):
    """``tensor ** number``: ``e * x ** (e - 1)``, and 0 where ``e == 0``."""

    def __init__(self, input: Tensor, exponent: Any) -> None:
        super().__init__(input)
        self.exponent = exponent
        self.save("self", input)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        if self.exponent == 0:
            return (g * 0,)
        x = self.saved("self")
        return (g * (x ** (self.exponent - 1) * self.exponent),)


class PowBackward1(_Binary):
    """``tensor ** tensor``."""

    def __init__(self, input: Tensor, exponent: Tensor, result: Tensor) -> None:
        super().__init__(input, exponent)
        self.save("self", input)
        self.save("exponent", exponent)
        self.save("result", result, is_output=True)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        x, e = self.saved("self"), self.saved("exponent")
        gx = ge = None
        if self.needs_input_grad(0):
            gx = where(e == 0, g * 0, g * (e * x ** (e - 1)))
        if self.needs_input_grad(1):
            r = self.saved("result")  # log in the promoted dtype, as torch computes it
            ge = g * where((x == 0) & (e >= 0), 0.0, r * x.to(r.dtype).log())
        return gx, ge


class PowBackward2(Node):
    """``number ** tensor``: ``result * log(base)``."""

    def __init__(self, base: Any, exponent: Tensor, result: Tensor) -> None:
        super().__init__(exponent)
        self.base = base
        self.save("exponent", exponent)
        self.save("result", result, is_output=True)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        if self.base == 0:
            e = self.saved("exponent")
            return (where(e >= 0, g * 0, g * self.saved("result") * float("-inf")),)
        import math

        return (g * self.saved("result") * math.log(self.base),)


# --------------------------------------------------------------------- one input
class _Unary(Node):
    """A one-input op whose formula reads ``self`` and/or ``result``."""

    uses_self = False
    uses_result = False

    def __init__(self, input: Tensor, result: Tensor | None = None) -> None:
        super().__init__(input)
        self.save("self", input if self.uses_self else None)
        self.save("result", result if self.uses_result else None, is_output=True)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (self.formula(grads[0]),)

    def formula(self, g: Tensor) -> Tensor:
        raise NotImplementedError


def _unary_node(name: str, formula: Any, *, uses_self: bool = False,
                uses_result: bool = False) -> type[_Unary]:
    """A ``_Unary`` subclass named as torch names it, with ``formula(node, g)``."""
    return node_class(name, _Unary, __name__, formula=formula, uses_self=uses_self,  # type: ignore[return-value]
                      uses_result=uses_result)


ToCopyBackward0 = _unary_node("ToCopyBackward0", lambda n, g: g)


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


# --------------------------------------------------------------------- the ops
def _binary(kernel: Any, cls: type[Node], input: Any, other: Any, **attrs: Any) -> Tensor:
    def make(out: Tensor) -> Node:
        node = cls(input, other)
        node.__dict__.update(attrs)
        return node

    return call(kernel, (input, other), (input, other), make, **attrs)


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``torch.rsub``): ``RsubBackward0``, or ``RsubBackward1``
    when ``other`` is a number (``2 - t``)."""
    if isinstance(other, Tensor):
        return _binary(K.rsub, RsubBackward0, input, other, alpha=alpha)

    def make(out: Tensor) -> Node:
        node = RsubBackward1(input)
        node.alpha = alpha
        return node

    return call(K.rsub, (input, other), (input,), make, alpha=alpha)


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input // other``: recorded with torch's ``NotImplemented`` node, whose backward
    raises RuntimeError."""
    return call(K.floor_divide, (input, other), (input, other),
                lambda out: NotImplemented(input, other, "floor_divide"))


def remainder(input: Any, other: Any) -> Tensor:
    """``input % other`` (``torch.remainder``), gradient 1 for input,
    ``-floor(input / other)`` for a tensor other."""
    if isinstance(other, Tensor):
        return call(K.remainder, (input, other), (input, other),
                    lambda out: RemainderBackward1(input, other))
    return call(K.remainder, (input, other), (input,), lambda out: RemainderBackward0(input))


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` (``torch.pow``): ``PowBackward0`` (number exponent),
    ``PowBackward1`` (tensor exponent) or ``PowBackward2`` (number base)."""
    if not isinstance(input, Tensor):
        return call(K.pow, (input, exponent), (exponent,),
                    lambda out: PowBackward2(input, exponent, out))
    if isinstance(exponent, Tensor):
        return call(K.pow, (input, exponent), (input, exponent),
                    lambda out: PowBackward1(input, exponent, out))
    return call(K.pow, (input, exponent), (input,), lambda out: PowBackward0(input, exponent))


positive = K.positive  # returns its input itself: nothing to record


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


# --------------------------------------------------------------------- in place
def _inplace(kernel: Any, make: Any) -> Any:
    def op(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return call_(kernel, self, args, lambda old, out: make(old, out, *args, **kwargs),
                     **kwargs)

    op.__name__ = kernel.__name__
    return op


floor_divide_ = _inplace(K.floor_divide_,
                         lambda old, out, other: NotImplemented(old, other, "floor_divide"))
remainder_ = _inplace(K.remainder_, lambda old, out, other: (
    RemainderBackward1(old, other) if isinstance(other, Tensor) else RemainderBackward0(old)))
pow_ = _inplace(K.pow_, lambda old, out, e: (
    PowBackward1(old, e, out) if isinstance(e, Tensor) else PowBackward0(old, e)))


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    cls = ClampBackward0 if tensors else ClampBackward1
    return call_(K.clamp_, self, (min, max), lambda old, out: cls(old, min, max))


# reflected operators: ``2 / t`` is ``t.reciprocal() * 2``, ``2 ** t`` is ``pow(2, t)``
def rdiv(self: Tensor, other: Any) -> Tensor:
    return aten.mul.Tensor.call(aten.reciprocal.default.call(self), other)


def rfloordiv(self: Tensor, other: Any) -> Tensor:
    return floor_divide(other, self)


def rremainder(self: Tensor, other: Any) -> Tensor:
    return remainder(other, self)


def rpow(self: Tensor, other: Any) -> Tensor:
    return pow(other, self)
