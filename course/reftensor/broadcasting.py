"""Broadcasting: how operands of different shapes meet at one shape, without copying.

Shapes are lined up at their *last* dim. Walking from the right, two sizes agree when they
are equal or one of them is 1; the missing dims of a shorter shape count as 1. The
result takes the size of each pair that is not 1 (so 1 against 0 gives 0). ``(2, 1, 4)``
and ``(3, 1)`` meet at ``(2, 3, 4)``.

A tensor is brought to the broadcast shape by a view with **stride 0** along every dim
it lacks or has as size 1: moving along that dim does not move in memory, so one element is
seen many times and nothing is copied (``broadcast_tensors``, ``expand``).

``sum_to_size`` goes the other way: it adds up the broadcast dims so that a tensor of the
broadcast shape shrinks back to the shape of one operand. Autograd uses it for the gradient
of every broadcasting op (chapter 5).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._ops import DispatchKey, aten
from .tensor import Tensor

__all__ = ["broadcast_tensors"]


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape that tensors of ``shapes`` broadcast to: ``torch.broadcast_shapes``, the
    rule of every broadcasting op.

    Args:
        shapes: any number of shapes, each a sequence of ints >= 0. (The Python front,
            ``reftensor.functional.broadcast_shapes``, also takes ints and ``None`` and
            returns a ``Size``.)

    Returns:
        A tuple of as many ints as the longest shape has; ``()`` for no shapes.

    Raises:
        RuntimeError: the shapes do not broadcast (torch's message, naming the first shape,
            in order, that does not fit).
    """
    # BEGIN PIECE broadcast_shapes
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("broadcast_shapes")(*shapes)
    # END PIECE


def broadcast_error(shape_a: Sequence[int], shape_b: Sequence[int]) -> tuple[int, int, int] | None:
    """What the error of ``torch.empty(shape_a) + torch.empty(shape_b)`` names ("The size of
    tensor a (size_a) must match the size of tensor b (size_b) at non-singleton dimension
    dim"), or None when the shapes broadcast.

    Args:
        shape_a, shape_b: the left and the right operand's shapes, sequences of ints >= 0.

    Returns:
        ``(dim, size_a, size_b)``, three ints: the rightmost clash, ``dim`` numbered in the
        broadcast result (not in either operand); or None.
    """
    # BEGIN PIECE broadcast_error
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("broadcast_error")(shape_a, shape_b)
    # END PIECE


def infer_broadcast_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast shape of two operands' shapes, with the error torch's ops raise
    (ATen's ``infer_size``).

    Equal shapes, or a 0-d operand, need no broadcasting (chapters 1 and 2 run ops on such
    operands only); other shapes meet through ``broadcast_shapes``, and when they do not,
    ``broadcast_error`` names the clash.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor b (2) at
            non-singleton dimension 0" (dims checked from the last one).
    """
    if not b or tuple(a) == tuple(b):
        return tuple(a)
    if not a:
        return tuple(b)
    try:
        return broadcast_shapes(a, b)
    except RuntimeError:
        clash = broadcast_error(a, b)
        if clash is None:
            raise
        dim, size_a, size_b = clash
        raise RuntimeError(
            f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
            f"at non-singleton dimension {dim}") from None


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
        shape = infer_broadcast_size(shape, t._shape)
    return tuple(t if t._shape == shape else aten.expand.default.call(t, shape, False)
                 for t in tensors)


def sum_to_dims(shape: Sequence[int], size: Sequence[int]) -> tuple[int, ...]:
    """The dims of a tensor ``t`` of shape ``shape`` that ``t.sum_to_size(size)``
    (``torch.Tensor.sum_to_size``; ``reduce_dims`` in ATen's ``at::sum_to``) adds up.

    Args:
        shape: ``t``'s sizes, a sequence of ints >= 0.
        size: the sizes asked for, a sequence of ints >= 0.

    Returns:
        A tuple of dims of ``t``, in increasing order. A size-1 dim that stays 1 is not
        among them; an empty ``size`` gives every dim.

    Raises:
        RuntimeError: ``size`` does not expand to ``shape`` (torch's message).
    """
    # BEGIN PIECE sum_to_dims
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("sum_to_dims")(shape, size)
    # END PIECE


@aten.sum_to_size.default.impl(DispatchKey.CompositeImplicitAutograd)
def sum_to_size(self: Tensor, size: Sequence[int]) -> Tensor:
    """Sum ``self`` down to ``size``, which ``self``'s shape must broadcast from
    (``torch.Tensor.sum_to_size``, the gradient of ``expand``; torch's ``at::sum_to``).

    Returns ``self`` itself when ``size`` is its shape. Otherwise the dims ``sum_to_dims``
    names are summed (``sum(dims, keepdim=True)``), then a ``view`` drops the leading dims;
    an empty ``size`` sums everything to a 0-d tensor (``sum()``). Integer and bool tensors
    sum to int64.

    Raises:
        RuntimeError: ``size`` does not expand to ``self``'s shape (torch's message).
    """
    shape = tuple(size)
    dims = sum_to_dims(self._shape, shape)
    if not shape:
        return aten.sum.default.call(self, None)
    summed = aten.sum.dim_IntList.call(self, dims, True, None) if dims else self
    return aten.view.default.call(summed, shape) if len(shape) < self.dim() else summed


def expand_strides(shape: Sequence[int], stride: Sequence[int],
                   new_shape: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(shape, stride)`` of ``t.expand(new_shape)`` (``torch.Tensor.expand``; ATen's
    ``inferExpandGeometry``) for a tensor ``t`` of this layout.

    Args:
        shape, stride: ``t``'s sizes and strides.
        new_shape: the sizes asked for, matched with ``shape`` from the right: ints >= 0,
            or ``-1`` to keep a dim's size. (A size below -1 is taken as it is, as torch's
            ``inferExpandGeometry`` takes it; the view's numel check, in ``expand``, then
            refuses most of them.)

    Returns:
        ``(shape, stride)``: two tuples of ``len(new_shape)`` ints. A 0-d ``t`` gets stride 0
        in every dim.

    Raises:
        RuntimeError: fewer sizes than dims; ``-1`` for a new leading dim; a size other
            than 1 asked to change.
    """
    # BEGIN PIECE expand_strides
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("expand_strides")(shape, stride, new_shape)
    # END PIECE


def _check_numel(shape: Sequence[int]) -> None:
    """torch's ``safe_compute_numel``, which a view runs on its new sizes: their product in
    unsigned 64-bit arithmetic (a negative size is 2**64 plus it) must not overflow at any
    step nor exceed int64's largest value. So ``expand(-2)`` raises, but ``expand(0, -2)``
    does not (the product is 0 before the negative size comes), as in torch 2.13.

    Raises:
        RuntimeError: the product overflows.
    """
    product, overflow = 1, False
    for n in shape:
        product *= n % 2**64
        overflow |= product >= 2**64
        product %= 2**64
    if overflow or product >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")


def expand(self: Tensor, size: Sequence[int], implicit: bool = False) -> Tensor:
    """Broadcast to ``size`` without copying, a view laid out by ``expand_strides``
    (``torch.Tensor.expand``). ``implicit`` changes nothing.

    Raises:
        RuntimeError: fewer sizes than dims, any error of ``expand_strides``, or sizes whose
            product overflows (``_check_numel``: a negative size, unless a 0 comes first).
    """
    target = list(size)
    if len(target) < self.dim():
        raise RuntimeError(
            f"expand({self.dtype.name} tensor of shape {list(self._shape)}, size={target}): "
            f"the number of sizes provided ({len(target)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({self.dim()})")
    shape, stride = expand_strides(self._shape, self._stride, target)
    _check_numel(shape)
    return Tensor._make(self._storage, shape, stride, self._storage_offset, self._dtype,
                        base=self)


# a view computes metadata only, the same on both devices
aten.expand.default.impl(DispatchKey.CPU)(expand)
aten.expand.default.impl(DispatchKey.Meta)(expand)
