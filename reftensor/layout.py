"""Layout rules: pure arithmetic on shapes and strides, with no tensor in sight.

Everything here takes plain tuples of ints (``shape``, ``stride``, ``storage_offset``), counts
in *elements* (not bytes), and reproduces a rule that torch applies inside ``TensorImpl``.
Chapter 1 of the course asks students to write several of these functions themselves: the
body between ``# BEGIN PIECE`` and ``# END PIECE`` is what the student edition leaves out
(``pieces.py``).

Memory formats are the three objects ``contiguous_format``, ``channels_last`` and
``preserve_format`` (``torch.memory_format``). A tensor's layout (``torch.layout``) is
``strided`` (``Tensor.layout``), the only one reftensor has; torch's others are named too.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "layout",
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
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
    "internal_overlap",
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


class layout:
    """How a tensor's elements are stored (``torch.layout``): ``strided``, a storage read
    through sizes, strides and an offset, which every reftensor tensor has
    (``Tensor.layout``). torch's sparse layouts are named so that a program naming them runs
    up to the point where it would need one: a factory given one raises
    NotImplementedError."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"reftensor.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickled by name: the same object after a round trip


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")

contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
preserve_format = memory_format("preserve_format")


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of ``torch.empty(shape)``: row-major, torch's default
    ``torch.contiguous_format``.

    Args:
        shape: the sizes, a sequence of ints >= 0 (``()`` for a 0-d tensor).

    Returns:
        A tuple of ``len(shape)`` ints, in elements. Every stride is at least 1, size-0 dims
        included: ``(2, 0, 3)`` gives ``(3, 3, 1)``.
    """
    # BEGIN PIECE contiguous_strides
    # The last dim moves fastest (stride 1); each dim to its left steps over a whole block
    # of the dims inside it: stride[k] = stride[k+1] * max(shape[k+1], 1), where a size-0
    # dim counts as 1 so that the strides stay positive.
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * max(shape[k + 1], 1)
    return tuple(strides)
    # END PIECE


def channels_last_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of ``torch.empty(shape, memory_format=torch.channels_last)``: a 4-d NCHW
    tensor stored as NHWC.

    Args:
        shape: ``(N, C, H, W)``, four ints >= 0.

    Returns:
        A tuple of 4 ints, in elements, in the order of ``shape``'s dims. Unlike
        :func:`contiguous_strides`, a size-0 dim is not counted as 1: ``(4, 3, 0, 5)`` gives
        ``(0, 1, 15, 3)``.

    Raises:
        RuntimeError: ``shape`` is not 4-d (checked before the piece runs).
    """
    if len(shape) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    # BEGIN PIECE channels_last_strides
    # C moves fastest (stride 1), then W, then H, then N: each stride is the one of the dim
    # just inside it times that dim's size, the sizes used as they are (no max(size, 1)).
    n, c, h, w = shape
    del n
    stride_c = 1
    stride_w = c
    stride_h = stride_w * w
    stride_n = stride_h * h
    return (stride_n, stride_c, stride_h, stride_w)
    # END PIECE


def storage_index(index: Sequence[int], stride: Sequence[int], storage_offset: int) -> int:
    """Where a strided tensor's element ``index`` lives in its storage: the position that
    ``t[index]`` reads (``torch.Tensor``'s addressing, from ``t.stride()`` and
    ``t.storage_offset()``).

    Args:
        index: the element's index, one int per dim, each in ``[0, size)`` (``()`` for a 0-d
            tensor).
        stride: the tensor's strides, one per dim, in elements.
        storage_offset: the tensor's storage offset, in elements.

    Returns:
        An int: a position in the storage, counted in elements (not bytes).
    """
    # BEGIN PIECE storage_index
    # Start at the storage offset and jump stride_k elements for each step along dim k:
    # storage_offset + sum(i_k * stride_k).
    return storage_offset + sum(i * s for i, s in zip(index, stride, strict=True))
    # END PIECE


def unfold_layout(shape: Sequence[int], stride: Sequence[int], dimension: int, size: int,
                  step: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(shape, stride)`` of ``t.unfold(dimension, size, step)`` (``torch.Tensor.unfold``)
    for a tensor ``t`` of this layout: a view of every window of ``size`` elements along
    ``dimension``, one window every ``step`` elements.

    Args:
        shape, stride: ``t``'s sizes and strides (in elements); ``t`` has at least one dim.
        dimension, size, step: ints with ``0 <= dimension < len(shape)``,
            ``0 <= size <= shape[dimension]`` and ``step > 0``. The caller,
            ``Tensor.unfold``, checks them and handles a 0-d ``t`` itself.

    Returns:
        ``(shape, stride)``: two tuples of ``len(shape) + 1`` ints; the last dim, of size
        ``size``, runs inside a window.
    """
    # BEGIN PIECE unfold_layout
    # ``dimension`` now counts the windows, (shape[d] - size) // step + 1 of them, step
    # elements apart (stride step * stride[d]); the new last dim walks inside a window with
    # the old stride[d]. Windows overlap when step < size: nothing is copied.
    new_shape, new_stride = list(shape), list(stride)
    new_shape[dimension] = (shape[dimension] - size) // step + 1
    new_stride[dimension] = step * stride[dimension]
    return (*new_shape, size), (*new_stride, stride[dimension])
    # END PIECE


def is_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """``t.is_contiguous()`` (``torch.Tensor.is_contiguous``, for the default
    ``torch.contiguous_format``) for a tensor ``t`` of this layout.

    Args:
        shape, stride: sequences of ints of one length: sizes >= 0, strides in elements.

    Returns:
        A bool. A tensor with no elements is contiguous whatever its strides, and the stride
        of a size-1 dim never changes the answer: this is not
        ``stride == contiguous_strides(shape)``.
    """
    # BEGIN PIECE is_contiguous
    # Walking from the last dim to the first, every dim of size other than 1 must have the
    # stride a row-major layout gives it: 1, then the product of the sizes seen so far.
    # Size-1 dims are skipped: their stride never reaches an element.
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


def internal_overlap(shape: Sequence[int], stride: Sequence[int]) -> str:
    """Can two indices of a tensor of this layout reach one storage element?
    ``torch._debug_has_internal_overlap(t)`` for a tensor ``t`` of this layout, as a word:
    torch's ``has_internal_overlap``, which it asks before it writes into ``t`` (an in-place
    op, an ``out=``, ``copy_``, an index assignment; ``fill_`` with a number and ``zero_``
    do not ask).

    Args:
        shape, stride: sequences of ints of one length: sizes >= 0, strides >= 0 in elements.

    Returns:
        ``"no"`` (torch's 0) when the layout is *non-overlapping and dense*: its elements fill
        one block of storage, each location once, in some order of its dims (an empty or a
        0-d tensor is too; ``t.clone()`` keeps such strides). ``"yes"`` (1) when torch can
        see an overlap: a dim of size more than 1 with stride 0, as ``expand`` makes.
        ``"too hard"`` (2) otherwise: torch does not look further, whether or not two indices
        really share a location (overlapping ``unfold`` windows do; a slice with step 2 does
        not).
    """
    # BEGIN PIECE internal_overlap
    # Dense: the dims of size > 1, innermost (smallest stride) first, have the strides of a
    # contiguous layout in that order: 1, then the product of the sizes seen so far. Size-1
    # dims never move to another element, and a tensor with no elements is dense whatever
    # its strides. Sorted by stride, a stride 0 of a dim of size > 1 comes first, so it is
    # the first to fail: the one overlap torch looks for.
    if 0 in shape:
        return "no"
    expected = 1
    for st, size in sorted(zip(stride, shape, strict=True)):
        if size != 1:
            if st != expected:
                return "yes" if st == 0 else "too hard"
            expected *= size
    return "no"
    # END PIECE


def is_non_overlapping_and_dense(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """True when the elements fill a block of storage exactly once, in some dim order
    (torch's ``is_non_overlapping_and_dense``): :func:`internal_overlap` answers ``"no"``.
    This is the layout ``clone()`` and ``.to()`` keep as it is."""
    return internal_overlap(shape, stride) == "no"


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
