"""Broadcasting: how operands of different shapes meet at one shape, without copying.

Shapes are lined up at their *last* dim. Walking from the right, two sizes agree when they
are equal or one of them is 1; the missing dims of a shorter shape count as 1. The
result takes the larger size of each pair. ``(2, 1, 4)`` and ``(3, 1)`` meet at
``(2, 3, 4)``.

A tensor is brought to the broadcast shape by a view with **stride 0** along every dim
it lacks or has as size 1: moving along that dim does not move in memory, so one element is
seen many times and nothing is copied (``broadcast_tensors``, ``expand``).

``sum_to_size`` goes the other way: it adds up the broadcast dims so that a tensor of the
broadcast shape shrinks back to the shape of one operand. Autograd uses it for the gradient
of every broadcasting op (chapter 5).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ._ops import DispatchKey, aten
from .size import Size
from .tensor import Tensor

__all__ = ["broadcast_shapes", "broadcast_tensors"]


def infer_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast shape of two tensors' shapes, with the error torch's ops raise.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor b (2) at
            non-singleton dimension 0" (dims checked from the last one).
    """
    ndim = max(len(a), len(b))
    result = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        result[i] = size_b if size_a == 1 else size_a
    return tuple(result)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``).

    Each shape is a tuple/list of ints, or one int for a 1-d shape; ``None`` is skipped.

    Raises:
        RuntimeError: shapes that do not broadcast, or an argument that is not a shape.
        ValueError: a negative size that would be broadcast.
        TypeError: a size that is not an int.
    """
    given = [(x,) if isinstance(x, int) else x for x in shapes if x is not None]
    if not given:
        return Size(())
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    common: list[Any] = [1] * max(len(shape) for shape in given)
    for index, shape in enumerate(given):
        for d in range(-1, -1 - len(shape), -1):
            if shape[d] == common[d]:
                continue
            if common[d] == 1:
                if shape[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = shape[d]
            if shape[d] != 1 and common[d] != shape[d]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[d]} at {d}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    for size in common:
        if not isinstance(size, int):
            raise TypeError(
                f"Size() takes an iterable of 'int' (item 0 is '{type(size).__name__}')"
            )
    return Size(common)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Views of ``tensors`` all with their broadcast shape (``torch.broadcast_tensors``).

    A tensor that already has the shape comes back as itself; the others are stride-0
    views, ``expand`` of it (recorded as ``ExpandBackward0``).

    Raises:
        TypeError: an argument that is not a tensor.
        RuntimeError: shapes that do not broadcast.
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    if not tensors:
        return ()
    shape = tensors[0]._shape
    for t in tensors[1:]:
        shape = infer_size(shape, t._shape)
    return tuple(t if t._shape == shape else aten.expand.default.call(t, shape, False)
                 for t in tensors)


def _is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> builtins.bool:
    if len(shape) > len(desired):
        return False
    return all(n == m or n == 1 for n, m in zip(reversed(shape), reversed(desired), strict=False))


@aten.sum_to_size.default.impl(DispatchKey.CompositeImplicitAutograd)
def sum_to_size(self: Tensor, size: Sequence[int]) -> Tensor:
    """Sum ``self`` down to ``size``, which ``self``'s shape must broadcast from
    (``torch.Tensor.sum_to_size``, the gradient of ``expand``; torch's ``at::sum_to``).

    Returns ``self`` itself when ``size`` is its shape. Otherwise the leading dims and the
    dims where ``size`` has 1 are summed (``sum(dims, keepdim=True)``), then a ``view``
    drops the leading dims; an empty ``size`` sums everything to a 0-d tensor. Integer and
    bool tensors sum to int64.

    Raises:
        RuntimeError: ``size`` does not expand to ``self``'s shape (torch's message).
    """
    shape = tuple(size)
    if not _is_expandable_to(shape, self._shape):
        raise RuntimeError(
            f"size {{{list(shape)}}} is not expandable to size {{{list(self._shape)}}}."
        )
    if not shape:
        return aten.sum.default.call(self, None)
    lead = self.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        d for d in range(lead, self.dim()) if shape[d - lead] == 1 and self._shape[d] != 1
    )
    summed = aten.sum.dim_IntList.call(self, dims, True, None) if dims else self
    return aten.view.default.call(summed, shape) if lead else summed
