"""The gradient of ``Tensor.to`` (chapter 4). clone, cat, stack, ``copy_``, ``fill_`` and
``zero_`` are ops of the op table: their nodes come from rows of ``autograd/derivatives.py``."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from ..graph import Node
from ._record import call

__all__: list[str] = []


class ToCopyBackward0(Node):
    """``to(dtype)``: the gradient goes back in the input's dtype (the engine casts it)."""

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (grads[0],)


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.to``: a floating result of a copy records ``ToCopyBackward0``."""
    return call(Tensor._to, (input, *args), (input,), lambda out: ToCopyBackward0(input),
                **kwargs)
