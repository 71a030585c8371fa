"""How torch lays out the result of an elementwise op, and when it refuses to write.

torch runs every elementwise op through ``TensorIterator``. Two of its decisions are visible
from Python, and this module reproduces both:

1. **The output's strides.** A new output gets the dim order of the inputs, not always
   row-major: ``t.T + 1`` is transposed too. When all operands have one shape and are all
   contiguous (or all channels-last, or all dense with equal strides) the output copies that
   layout. Otherwise the dims are sorted innermost-first by the inputs' strides (an
   insertion sort; broadcast dims, with stride 0, give no opinion) and the output is made
   dense in that order.
2. **Memory overlap.** torch refuses (RuntimeError) to write into a tensor with a stride-0
   dim of size > 1 (an expanded tensor), and to write into a tensor that partly overlaps
   one of the inputs *when both are dense*. For layouts that are not dense it does not look
   further ("too hard") and lets the write happen; see ``elementwise.py`` for what that
   means for the values. The two questions are pieces of chapter 2 (exercises 6 and 7):
   ``layout.internal_overlap`` and ``overlap_status``, on plain data; every check of a
   write asks them, in both editions.

It also resizes an ``out=`` tensor of the wrong shape (``resize_output``), as torch's
iterator does before it writes, and holds the iterator's loop itself (``strided_loop``, the
piece of chapter 3 that the student edition runs for every elementwise op on small tensors;
the reference computes with NumPy, ``elementwise.py``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, MutableSequence, Sequence
from typing import TYPE_CHECKING, Any

from . import layout

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = [
    "output_strides",
    "has_internal_overlap",
    "overlap_status",
    "assert_no_internal_overlap",
    "assert_no_partial_overlap",
    "assert_no_overlap",
    "resize_output",
    "strided_loop",
]

Layout = tuple[Sequence[int], Sequence[int]]  # (shape, stride) of one operand
#: An operand of ``strided_loop``: (storage, shape, stride, offset), all plain data
Strided = tuple[Sequence[Any], Sequence[int], Sequence[int], int]
#: The output of ``strided_loop``: the same, with a storage it can write
Output = tuple[MutableSequence[Any], Sequence[int], Sequence[int], int]
#: A tensor's memory as ``overlap_status`` takes it: (storage, shape, stride, offset, itemsize),
#: ``storage`` anything that is equal for tensors on one storage
Memory = tuple[Hashable, Sequence[int], Sequence[int], int, int]


def _fast_strides(shape: Sequence[int], operands: Sequence[Layout]) -> tuple[int, ...] | None:
    """The output layout when every operand already agrees on one (``fast_set_up``)."""
    if any(tuple(sh) != tuple(operands[0][0]) for sh, _ in operands):
        return None
    if all(layout.is_contiguous(sh, st) for sh, st in operands):
        return layout.contiguous_strides(shape)
    if all(len(sh) == 4 and layout.is_channels_last_contiguous(sh, st) for sh, st in operands):
        return layout.channels_last_strides(shape)
    if all(layout.is_non_overlapping_and_dense(sh, st) for sh, st in operands):
        if all(tuple(st) == tuple(operands[-1][1]) for _, st in operands):
            return tuple(operands[-1][1])
    return None


def _broadcast_strides(shape: Sequence[int], op: Layout) -> list[int]:
    """The operand's strides seen at the output's shape: 0 where it is broadcast."""
    op_shape, op_stride = op
    lead = len(shape) - len(op_shape)
    strides = [0] * lead
    for k, (n, s) in enumerate(zip(op_shape, op_stride, strict=True)):
        strides.append(0 if n == 1 and shape[lead + k] != 1 else s)
    return strides


def output_strides(shape: Sequence[int], operands: Sequence[Layout]) -> tuple[int, ...]:
    """Strides of a new output of ``shape`` for inputs with these (shape, stride) layouts,
    listed in argument order (``TensorIterator``'s ``fast_set_up``/``reorder_dimensions``).
    """
    ndim = len(shape)
    fast = _fast_strides(shape, operands)
    if fast is not None:
        return fast
    if ndim <= 1:
        return layout.contiguous_strides(shape)
    order = layout.innermost_first(shape, [_broadcast_strides(shape, op) for op in operands])
    if order == list(range(ndim - 1, -1, -1)):
        return layout.contiguous_strides(shape)
    result = [0] * ndim
    running = 1
    for d in order:
        result[d] = running
        running *= shape[d]  # torch multiplies by the size itself here, even by 0
    return tuple(result)


# ------------------------------------------------------------------------- memory overlap
def has_internal_overlap(t: Tensor) -> str:
    """"no" for a dense layout, "yes" when a dim of size > 1 has stride 0, else "too hard"
    (torch does not look further, and lets the write happen): ``layout.internal_overlap``."""
    return layout.internal_overlap(t._shape, t._stride)


def overlap_status(a: Memory, b: Memory) -> str:
    """How the memory of two different tensors overlaps: torch's ``get_overlap_status``,
    which it asks before it writes into one of them while reading the other (an in-place
    op or an ``out=`` and each input, ``copy_`` and its source, an index assignment and its
    values).

    Args:
        a, b: each ``(storage, shape, stride, offset, itemsize)``: ``storage`` names the
            storage (equal exactly when the two tensors share one: for torch tensors, the
            same ``x.untyped_storage().data_ptr()``), then the
            tensor's layout in elements of its dtype (``x.shape``, ``x.stride()``,
            ``x.storage_offset()``) and its ``x.element_size()`` in bytes. Sizes and
            strides are >= 0.

    Returns:
        ``"full"`` when the two occupy the same bytes of one storage with the same strides
        (``x.stride() == y.stride()``, dims included); ``"partial"`` when they share bytes
        otherwise (torch refuses such a write with a RuntimeError); ``"no"`` when they
        share none, or either has no elements; ``"too hard"`` when either tensor (neither
        empty) is not non-overlapping and dense (``layout.internal_overlap`` is not
        ``"no"``): torch does not look further, whatever the storages.
    """
    # BEGIN PIECE overlap_status
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("overlap_status")(a, b)
    # END PIECE


def _memory(t: Tensor) -> Memory:
    """``t`` as :func:`overlap_status` takes it."""
    return id(t._storage), t._shape, t._stride, t._storage_offset, t._dtype.itemsize


def _overlap(a: Tensor, b: Tensor) -> str:
    """:func:`overlap_status` of two tensors; one tensor fully overlaps itself (torch's
    ``get_overlap_status`` asks that first, before any layout)."""
    if a is b:
        return "full"
    return overlap_status(_memory(a), _memory(b))


def assert_no_internal_overlap(t: Tensor) -> None:
    """Raises RuntimeError when writing into ``t`` would write one location twice."""
    if has_internal_overlap(t) == "yes":
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def assert_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    """Raises RuntimeError when ``a`` and ``b`` share some, but not all, of their memory."""
    if _overlap(a, b) == "partial":
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def assert_no_overlap(a: Tensor, b: Tensor) -> None:
    """Raises RuntimeError when ``a`` and ``b`` share any memory (partly or fully)."""
    if _overlap(a, b) in ("partial", "full"):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def resize_output(out: Tensor, shape: tuple[int, ...], stride: tuple[int, ...]) -> None:
    """Give ``out`` the shape ``shape`` and strides ``stride`` in place, growing its storage
    when it is too small (torch's ``resize_output``, then ``as_strided_``)."""
    if out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with "
            "t.resize_(0).", UserWarning, stacklevel=4)
    # (torch's ``computeStorageNbytes``: a shape with a size of 0 needs no bytes at all,
    # whatever the offset)
    needed = 0 if 0 in shape else (out._storage_offset + layout.required_storage_elements(
        shape, stride)) * out._dtype.itemsize
    if needed > out._storage.nbytes():
        out._storage.resize_(needed)
    out._shape, out._stride = tuple(shape), tuple(stride)


# ------------------------------------------------------------------------- the loop
def strided_loop(fn: Callable[..., Any], out: Output, *inputs: Strided) -> None:
    """The loop of torch's ``TensorIterator`` (``cpu_kernel``'s basic loop, which every CPU
    elementwise op runs): ``out`` receives ``fn`` of the inputs' elements, at every index of
    its shape. Returns None; the result is in ``out``'s storage.

    Args:
        fn: the op on single elements: ``fn(x_0, ..., x_n)`` takes one element of each input,
            in order, and returns the element to write.
        out: ``(storage, shape, stride, offset)`` of the output; ``storage`` is a flat
            mutable sequence (a list, or the library's NumPy view of a tensor's storage),
            written in place, and no two indices of ``shape`` share a location.
        inputs: each ``(storage, shape, stride, offset)``, ``storage`` a flat sequence;
            ``out``'s shape is their broadcast shape (the caller has checked, as torch
            checks an ``out=`` tensor). An input may be ``out`` itself (an in-place op),
            with ``out``'s storage and layout.

    At an index of ``out``'s shape, an input's element is the one that
    ``torch.as_strided(storage, shape, stride, offset).expand(out_shape)`` holds at that
    index, and the value goes where ``out``'s layout puts that index. Every index is
    visited once, in row-major order; locations that no index reaches are left as they are.
    An ``out`` with a size-0 dim gets nothing written; a 0-d ``out`` gets one value.

    Raises:
        Whatever ``fn`` raises (torch's integer division raises for a zero divisor); nothing
        of its own.
    """
    # BEGIN PIECE strided_loop
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("strided_loop")(fn, out, *inputs)
    # END PIECE
