"""Layout rules: pure arithmetic on shapes and strides, with no tensor in sight.

Everything here takes plain tuples of ints (``shape``, ``stride``, ``storage_offset``), counts
in *elements* (not bytes), and reproduces a rule that torch applies inside ``TensorImpl``.
Chapter 1 of the course asks students to write several of these functions themselves: the
body between ``# BEGIN PIECE`` and ``# END PIECE`` is what the student edition leaves out
(``pieces.py``).

Memory formats are the three objects ``contiguous_format``, ``channels_last`` and
``preserve_format`` (``torch.memory_format``).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "memory_format",
    "contiguous_format",
    "channels_last",
    "preserve_format",
    "contiguous_strides",
    "channels_last_strides",
    "innermost_first",
    "storage_index",
    "unfold_layout",
    "is_contiguous",
    "is_channels_last_contiguous",
    "is_non_overlapping_and_dense",
    "strides_like_channels_last",
    "dense_strides_like",
    "required_storage_elements",
]


class memory_format:
    """A named memory format (``torch.memory_format``): how dims are ordered in memory."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"reftensor.{self.name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
preserve_format = memory_format("preserve_format")


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides for ``shape``: the last dim moves fastest.

    ``stride[k] = stride[k+1] * max(shape[k+1], 1)``; a size-0 dim counts as 1 so strides
    stay positive, as ``torch.empty(shape).stride()`` does (``(2, 0, 3)`` gives ``(3, 3, 1)``).
    """
    # BEGIN PIECE contiguous_strides
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * max(shape[k + 1], 1)
    return tuple(strides)
    # END PIECE


def channels_last_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Strides of a 4-d NCHW tensor stored as NHWC (``torch.channels_last``).

    Channels move fastest, then W, then H, then N; sizes are used as they are (no
    ``max(size, 1)``), as ``torch.empty(shape, memory_format=torch.channels_last)`` does.

    Raises:
        RuntimeError: ``shape`` is not 4-d.
    """
    if len(shape) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    # BEGIN PIECE channels_last_strides
    n, c, h, w = shape
    del n
    stride_c = 1
    stride_w = c
    stride_h = stride_w * w
    stride_n = stride_h * h
    return (stride_n, stride_c, stride_h, stride_w)
    # END PIECE


def storage_index(index: Sequence[int], stride: Sequence[int], storage_offset: int) -> int:
    """Where element ``index`` lives in storage: ``storage_offset + sum(i_k * stride_k)``."""
    # BEGIN PIECE storage_index
    return storage_offset + sum(i * s for i, s in zip(index, stride, strict=True))
    # END PIECE


def unfold_layout(shape: Sequence[int], stride: Sequence[int], dimension: int, size: int,
                  step: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(shape, stride)`` of ``t.unfold(dimension, size, step)`` for a tensor ``t`` of
    this layout (``torch.Tensor.unfold``): every window of ``size`` elements along
    ``dimension``, one every ``step`` elements, as a view.

    ``dimension`` counts the windows, ``(shape[d] - size) // step + 1`` of them, ``step``
    elements apart; a new last dim walks inside a window with ``dimension``'s old stride.
    Windows overlap when ``step < size``: nothing is copied. Expects ``t`` to have at least
    one dim, ``0 <= dimension < len(shape)``, ``0 <= size <= shape[dimension]`` and
    ``step > 0`` (``Tensor.unfold`` checks them and treats a 0-d tensor itself).
    """
    # BEGIN PIECE unfold_layout
    new_shape, new_stride = list(shape), list(stride)
    new_shape[dimension] = (shape[dimension] - size) // step + 1
    new_stride[dimension] = step * stride[dimension]
    return (*new_shape, size), (*new_stride, stride[dimension])
    # END PIECE


def is_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """torch's ``is_contiguous()`` rule for the default (row-major) memory format.

    An empty tensor is contiguous. Otherwise, walking from the last dim to the first, every
    dim of size other than 1 must have the stride a row-major layout would give it; size-1
    dims are skipped, because their stride is never used to reach an element.
    """
    # BEGIN PIECE is_contiguous
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride), strict=True):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True
    # END PIECE


def is_channels_last_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """torch's ``is_contiguous(memory_format=torch.channels_last)`` rule.

    Only 4-d tensors can be channels-last contiguous: those whose every dim of size other
    than 1 has the stride :func:`channels_last_strides` gives it. Unlike the row-major rule
    there is no shortcut for empty tensors: a size-0 dim makes the dims after it in C, W,
    H, N order expect stride 0.
    """
    if len(shape) != 4:
        return False
    expected = channels_last_strides(shape)
    return all(st == e for n, st, e in zip(shape, stride, expected, strict=True) if n != 1)


def is_non_overlapping_and_dense(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """True when the elements fill a block of storage exactly once, in some dim order.

    Dims of size < 2 do not matter; the others, sorted by stride, must have the strides of a
    contiguous layout. An empty tensor counts as dense. This is the layout ``clone()`` and
    ``.to()`` keep as it is.
    """
    if 0 in shape:
        return True
    dims = [d for d in range(len(shape)) if shape[d] >= 2]
    dims.sort(key=lambda d: stride[d])
    expected = 1
    for d in dims:
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def strides_like_channels_last(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """torch's guess whether a 4-d layout *looks* channels-last (``suggest_memory_format``).

    Visits C, W, H, N and requires strides that never decrease; ambiguous layouts (a size-0
    dim, a zero channel stride, N111-like shapes) fall back to "not channels-last".
    """
    if len(shape) != 4 or stride[1] == 0:
        return False
    smallest = 0
    for d in (1, 3, 2, 0):
        if shape[d] == 0 or stride[d] < smallest:
            return False
        if d == 0 and smallest == stride[1]:
            return False
        smallest = stride[d]
        if shape[d] > 1:
            smallest *= shape[d]
    return True


def innermost_first(shape: Sequence[int], operand_strides: Sequence[Sequence[int]]
                    ) -> list[int]:
    """The dims ordered innermost first, as TensorIterator orders them.

    Starting from the last dim, an insertion sort asks each operand in turn which of two dims
    goes inside: the one with the smaller stride; for equal strides the smaller size goes
    inside, else the next operand decides. An operand with stride 0 in either dim has no
    opinion, and when no operand has one the dims stay where they are.
    """
    ndim = len(shape)

    def goes_outside(a: int, b: int) -> int:
        """+1 when dim ``a`` belongs outside dim ``b``, -1 when inside, 0 when unknown."""
        for stride in operand_strides:
            if stride[a] == 0 or stride[b] == 0:
                continue
            if stride[a] != stride[b]:
                return 1 if stride[a] > stride[b] else -1
            if shape[a] > shape[b]:
                return 1
        return 0

    order = list(range(ndim - 1, -1, -1))  # the last dim, ..., dim 0
    for i in range(1, ndim):
        moving = i
        for j in range(i - 1, -1, -1):
            verdict = goes_outside(order[j], order[moving])
            if verdict > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif verdict < 0:
                break
    return order


def dense_strides_like(shape: Sequence[int], stride: Sequence[int]) -> tuple[int, ...]:
    """Dense strides that keep the dim order of a layout that is not dense (``.to()``'s rule).

    The dims are ranked by ``innermost_first`` (TensorIterator's rule) and then get
    contiguous strides in that order (size-0 and size-1 dims do not grow the running stride).
    """
    if len(shape) == 1:
        return (1,)
    result = [0] * len(shape)
    running = 1
    for d in innermost_first(shape, [stride]):
        result[d] = running
        if shape[d] > 1:
            running *= shape[d]
    return tuple(result)


def required_storage_elements(
    shape: Sequence[int], stride: Sequence[int], storage_offset: int = 0
) -> int:
    """How many elements a storage needs for this layout: one past the furthest element.

    ``storage_offset + 1 + sum((size_k - 1) * stride_k)``, or 0 when the tensor is empty
    (``as_strided`` and ``empty_strided`` use this bound).
    """
    if 0 in shape:
        return 0
    return storage_offset + 1 + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))
