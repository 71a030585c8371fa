"""Gradients of the matrix products (chapter 3).

For ``C = A @ B``: ``dA = dC @ B^T`` and ``dB = A^T @ dC``. ``matmul`` is built, as in torch,
from ``dot``, ``mv``, ``mm`` and ``bmm`` plus views, so its graph shows those nodes.
"""

from __future__ import annotations

import math
from typing import Any

from ... import matmul as M
from ...broadcasting import broadcast_shapes
from ...tensor import Tensor
from ..graph import Node, needs_grad, record
from ._record import call, forward
from .views import SqueezeBackward4, UnsafeViewBackward0

__all__ = ["matmul", "mm", "bmm", "mv", "dot"]


class _Product(Node):
    def __init__(self, a: Tensor, b: Tensor) -> None:
        super().__init__(a, b)
        self.save("self", a if self.needs_input_grad(1) else None)
        self.save("other", b if self.needs_input_grad(0) else None)

    def grads(self, g: Tensor) -> tuple[Any, Any]:
        raise NotImplementedError

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return self.grads(grads[0])

    def a(self) -> Tensor:
        return self.saved("self")

    def b(self) -> Tensor:
        return self.saved("other")


class MmBackward0(_Product):
    def grads(self, g: Tensor) -> tuple[Any, Any]:
        return (g.mm(self.b().t()) if self.needs_input_grad(0) else None,
                self.a().t().mm(g) if self.needs_input_grad(1) else None)


class BmmBackward0(_Product):
    def grads(self, g: Tensor) -> tuple[Any, Any]:
        return (g.bmm(self.b().transpose(1, 2)) if self.needs_input_grad(0) else None,
                self.a().transpose(1, 2).bmm(g) if self.needs_input_grad(1) else None)


class MvBackward0(_Product):
    def grads(self, g: Tensor) -> tuple[Any, Any]:
        return (g.unsqueeze(1) * self.b() if self.needs_input_grad(0) else None,
                self.a().t().mv(g) if self.needs_input_grad(1) else None)


class DotBackward0(_Product):
    def grads(self, g: Tensor) -> tuple[Any, Any]:
        return (g * self.b() if self.needs_input_grad(0) else None,
                g * self.a() if self.needs_input_grad(1) else None)


def _product(kernel: Any, cls: type[_Product]) -> Any:
    def op(input: Tensor, other: Tensor) -> Tensor:
        return call(kernel, (input, other), (input, other), lambda out: cls(input, other))

    op.__name__ = kernel.__name__
    op.__doc__ = kernel.__doc__
    return op


mm = _product(M.mm, MmBackward0)
bmm = _product(M.bmm, BmmBackward0)
mv = _product(M.mv, MvBackward0)
dot = _product(M.dot, DotBackward0)


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``t`` with a new shape, recorded as ``UnsafeViewBackward0`` (not a view: no ``_base``)."""
    out = forward(t.reshape, shape)
    if out._base is not None:
        out = Tensor._make(out._storage, out._shape, out._stride, out._storage_offset,
                           out._dtype)
        out._version_counter = t._version_counter
    if needs_grad(t):
        record(UnsafeViewBackward0(t, lambda g: g.reshape(t._shape)), out)
    return out


def _should_fold(input: Tensor, other: Tensor) -> bool:
    """torch's ``should_fold`` under autograd: fold when the layout allows it without a
    copy, and also (with a copy) when the smaller operand requires grad, so that its
    gradient is one ``mm`` instead of a large batched product summed down."""
    larger, smaller = (input, other) if input.dim() >= other.dim() else (other, input)
    if larger.dim() < 3 or smaller.dim() > 2:
        return False
    return smaller._requires_grad or M._should_fold(input, other)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``, decomposed as torch decomposes it: ``dot`` (1-d @ 1-d), ``mv``,
    ``mm`` (with an unsqueeze/squeeze around a 1-d left operand), and for batches a
    ``bmm`` on expanded, reshaped operands viewed back (``UnsafeViewBackward0``)."""
    if not needs_grad(input, other):
        return M.matmul(input, other)
    forward(M.matmul, input, other)  # torch's checks and messages, on bad shapes
    da, db = input.dim(), other.dim()
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        out = mm(input.unsqueeze(0), other)
        result = forward(out.squeeze, 0)
        record(SqueezeBackward4(out, lambda g: g.unsqueeze(0)), result, view=True)
        return result
    if da == 2 and db == 2:
        return mm(input, other)
    if _should_fold(input, other):  # fold the batch into the rows: one mm (or mv)
        transpose = db > da  # then fold other.mT, and multiply it by input
        t1 = other.mT if transpose else input
        t2 = (input.t() if da == 2 else input) if transpose else other
        rows = t1.reshape(math.prod(t1.shape[:-1]), t1.shape[-1])  # -1: not if empty
        if t2.dim() == 1:
            return _unsafe_view(mv(rows, t2), tuple(t1.shape[:-1]))
        out = _unsafe_view(mm(rows, t2), (*t1.shape[:-1], t2.shape[-1]))
        return out.mT.contiguous() if transpose else out
    a = input.unsqueeze(0) if da == 1 else input
    b = other.unsqueeze(-1) if db == 1 else other
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
    count = 1
    for s in batch:
        count *= s
    a3 = a.expand(*batch, n, k).reshape(count, n, k)
    b3 = b.expand(*batch, k, m).reshape(count, k, m)
    shape = tuple(batch) + ((n,) if da > 1 else ()) + ((m,) if db > 1 else ())
    return _unsafe_view(bmm(a3, b3), shape)
