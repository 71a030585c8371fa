"""Gradients of the ops that copy (chapter 2 and 4): clone, flip, cat, stack, ``to``, and the
in-place writes ``copy_``, ``fill_``, ``zero_``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import copies as C
from ... import elementwise as K
from ... import factories, layout
from ...tensor import Tensor
from ..graph import Node, needs_grad
from ._record import call, call_

__all__ = ["clone", "cat", "concat", "concatenate", "stack"]


class CloneBackward0(Node):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (grads[0],)


class ToCopyBackward0(CloneBackward0):
    """``to(dtype)``: the gradient goes back in the input's dtype (the engine casts it)."""


class CatBackward0(Node):
    """Each input gets its slice of the gradient along ``dim``."""

    def __init__(self, tensors: Sequence[Tensor], dim: int) -> None:
        super().__init__(*tensors)
        self.dim = dim
        self.sizes = [t._shape for t in tensors]

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        out, start = [], 0
        d = self.dim % g.dim()
        for shape in self.sizes:
            if shape == (0,) and g.dim() != 1:
                # torch's legacy empty input (any dims may sit beside it): no slice, an
                # empty gradient of its own shape
                out.append(factories.zeros(0, dtype=g.dtype, device=g.device))
                continue
            out.append(g.narrow(d, start, shape[d]))
            start += shape[d]
        return tuple(out)


class StackBackward0(Node):
    def __init__(self, tensors: Sequence[Tensor], dim: int) -> None:
        super().__init__(*tensors)
        self.dim = dim

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return tuple(g.select(self.dim % g.dim(), i) for i in range(len(self.next_functions)))


class CopyBackwards(Node):
    """``self.copy_(src)``: self's old values are gone (zero gradient); src's gradient is
    the incoming one, in src's dtype and summed to src's shape."""

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return g * 0, g


class FillBackward2(Node):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (grads[0] * 0,)


class FillBackward3(Node):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return g * 0, g.sum()


class ZeroBackward0(FillBackward2):
    pass


def clone(input: Tensor, *, memory_format: Any = layout.preserve_format) -> Tensor:
    """``torch.clone``, with ``CloneBackward0``."""
    return call(C.clone, (input,), (input,), lambda out: CloneBackward0(input),
                memory_format=memory_format)


def contiguous(input: Tensor, memory_format: Any = layout.contiguous_format) -> Tensor:
    """Self when already contiguous, else ``clone`` (``CloneBackward0``)."""
    if input.is_contiguous(memory_format):
        return input
    return clone(input, memory_format=memory_format)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.cat``, with ``CatBackward0``."""
    tensors = list(tensors) if not isinstance(tensors, Tensor) else tensors
    if isinstance(tensors, Tensor) or not needs_grad(*tensors):
        return C.cat(tensors, dim)
    return call(C.cat, (tensors, dim), tuple(tensors),
                lambda out: CatBackward0(tensors, dim), )


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.stack``, with ``StackBackward0``."""
    tensors = list(tensors) if not isinstance(tensors, Tensor) else tensors
    if isinstance(tensors, Tensor) or not needs_grad(*tensors):
        return C.stack(tensors, dim)
    return call(C.stack, (tensors, dim), tuple(tensors),
                lambda out: StackBackward0(tensors, dim))


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.to``: a floating result of a copy records ``ToCopyBackward0``."""
    return call(Tensor._to, (input, *args), (input,), lambda out: ToCopyBackward0(input),
                **kwargs)


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    return call_(K.copy_, self, (src,), lambda old, out: CopyBackwards(old, src))


def fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return call_(K.fill_, self, (value,), lambda old, out: FillBackward3(old, value))
    return call_(K.fill_, self, (value,), lambda old, out: FillBackward2(old))


def zero_(self: Tensor) -> Tensor:
    return call_(lambda t: K.fill_(t, 0), self, (), lambda old, out: ZeroBackward0(old))
