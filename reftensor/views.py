"""Views: new (shape, stride, offset) over the same storage, never a copy.

Every function here builds its result with ``Tensor._make(..., base=t)``, so the result
shares ``t``'s storage and version counter, and ``_base`` points at the tensor that owns the
memory (the base of a view of a view is the original). Only the metadata arithmetic differs:

* ``view``/``reshape`` re-split groups of dims that are contiguous with each other;
* ``transpose``/``permute`` reorder (size, stride) pairs;
* ``expand`` gives broadcast dims stride 0; ``unsqueeze`` inserts a size-1 dim;
* ``narrow``/``select``/``unfold``/``diagonal``/``split`` move the offset and scale strides.

``reshape`` is the one function here that may copy: when ``view`` is impossible it returns a
contiguous copy, exactly when torch does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from . import layout
from .tensor import Tensor, wrap_dim

__all__ = [
    "reshape", "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "t", "permute",
    "squeeze", "unsqueeze", "broadcast_to", "narrow", "select", "unfold", "diagonal",
    "chunk", "split", "unbind", "detach",
]


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """torch's ``TORCH_WARN_ONCE``: a warning shown the first time only, per process."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def _view(t: Tensor, shape: Sequence[int], stride: Sequence[int],
          offset: int | None = None) -> Tensor:
    """A view of ``t`` with the given layout (offset defaults to t's)."""
    where = t._storage_offset if offset is None else offset
    return Tensor._make(t._storage, tuple(shape), tuple(stride), where, t._dtype, base=t)


def _wrap(dim: Any, ndim: int) -> int:
    """``wrap_dim`` where a 0-d tensor accepts dim 0 and -1 (torch's ``wrap_scalar``)."""
    return wrap_dim(_int("dim", dim), max(ndim, 1))


def _int(name: str, value: Any) -> int:
    """An int argument as torch's argument parser reads it: a Python int or a 0-d integer
    tensor; never a bool or a float (TypeError)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, Tensor) and value.dim() == 0 and not value.is_floating_point():
        return int(value.item())
    raise TypeError(f"{name} must be int, not {type(value).__name__}")


def _sizes(args: tuple[Any, ...], what: str = "size") -> list[int]:
    """``f(2, 3)`` or ``f((2, 3))``: torch accepts both.

    Raises:
        TypeError: no sizes, or a size that is not an int (or 0-d integer tensor).
    """
    if not args:
        raise TypeError(f"{what} is missing: pass ints or one sequence of ints")
    if len(args) == 1 and isinstance(args[0], Sequence):
        args = tuple(args[0])
    try:
        return [_int(what, a) for a in args]
    except TypeError:
        raise TypeError(f"{what} must be tuple of ints, but found an element of another "
                        "type") from None


# ---------------------------------------------------------------------- view and reshape
def view_strides(shape: Sequence[int], stride: Sequence[int],
                 new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """Strides that show the same elements with ``new_shape``, or None if none exist.

    torch's ``computeStride``. Walk the old dims from the right, grouping dims that are
    contiguous with each other (``stride[d-1] == size[d] * stride[d]``); a group is a
    "chunk" of evenly spaced elements, and any new dims whose sizes multiply to the chunk's
    numel can take strides inside it. A new dim that would need elements from two chunks
    makes the view impossible. Empty tensors take contiguous strides (or keep theirs when
    the shape does not change).
    """
    if not shape:
        return (1,) * len(new_shape)
    numel = math.prod(shape)
    if numel == 0:
        if tuple(shape) == tuple(new_shape):
            return tuple(stride)
        return layout.contiguous_strides(new_shape)
    result = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_stride = stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        chunk_ends = d == 0 or (shape[d - 1] != 1
                                and stride[d - 1] != tensor_numel * chunk_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                result[view_d] = view_numel * chunk_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_stride = stride[d - 1]
                tensor_numel = view_numel = 1
    return tuple(result) if view_d == -1 else None


def infer_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """Fill in one ``-1`` so the shape holds ``numel`` elements (torch's ``infer_size``).

    Raises:
        RuntimeError: two ``-1``, a size below -1, a product that does not match, or a
            ``-1`` next to a zero size (ambiguous).
    """
    known, infer = 1, None
    for d, n in enumerate(shape):
        if n == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = d
        elif n >= 0:
            known *= n
        else:
            raise RuntimeError(f"invalid shape dimension {n}")
    if numel == known or (infer is not None and known > 0 and numel % known == 0):
        result = list(shape)
        if infer is not None:
            if known == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because "
                    "the unspecified dimension size -1 can be any value and is ambiguous")
            result[infer] = numel // known
        return tuple(result)
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def view(t: Tensor, *shape: Any) -> Tensor:
    """The same elements with another shape, as a view (``torch.Tensor.view``).

    Raises:
        RuntimeError: the shape does not hold ``numel()`` elements, or the strides cannot
            express it ("use .reshape(...) instead").
    """
    new_shape = infer_size(_sizes(shape), t.numel())
    stride = view_strides(t._shape, t._stride, new_shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view(t, new_shape, stride)


def reshape(t: Tensor, *shape: Any) -> Tensor:
    """A view when ``view`` can express the shape, else a contiguous copy with no ``_base``
    (``torch.reshape``). Raises RuntimeError like ``view`` for an impossible shape."""
    new_shape = infer_size(_sizes(shape, "shape"), t.numel())
    stride = view_strides(t._shape, t._stride, new_shape)
    if stride is not None:
        return _view(t, new_shape, stride)
    copy = t.contiguous()
    return Tensor._make(copy._storage, new_shape, layout.contiguous_strides(new_shape), 0,
                        copy._dtype)


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); ``t`` itself when
    they are one dim already, a 1-element tensor for a 0-d input; a view when possible.

    Raises:
        IndexError: a dim out of range. RuntimeError: ``start_dim`` after ``end_dim``.
    """
    start, end = _wrap(start_dim, t.dim()), _wrap(end_dim, t.dim())
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if t.dim() == 0:
        return reshape(t, 1)
    if start == end:
        return t
    merged = math.prod(t._shape[start:end + 1])
    return reshape(t, *t._shape[:start], merged, *t._shape[end + 1:])


def unflatten(t: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one may be -1), as a view (``torch.unflatten``).

    Raises:
        RuntimeError: empty ``sizes`` or sizes that do not multiply to the dim's size.
    """
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap(dim, t.dim())
    if t.dim() == 0:  # torch reports its IndexError wrapped in a RuntimeError here
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 "
                           "but tensor has no dimensions")
    inner = infer_size(list(sizes), t._shape[d])
    return view(t, (*t._shape[:d], *inner, *t._shape[d + 1:]))


# ---------------------------------------------------------------------- reordering dims
def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims' (size, stride) pairs (``torch.transpose``). Raises IndexError for a
    dim out of range."""
    a, b = _wrap(dim0, t.dim()), _wrap(dim1, t.dim())
    shape, stride = list(t._shape), list(t._stride)
    if t.dim():
        shape[a], shape[b] = shape[b], shape[a]
        stride[a], stride[b] = stride[b], stride[a]
    return _view(t, shape, stride)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a matrix; 0-d and 1-d tensors come back as views of themselves
    (``torch.t``). Raises RuntimeError for more than 2 dims."""
    if input.dim() > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input.dim()}D")
    return transpose(input, 0, 0 if input.dim() < 2 else 1)


def T(input: Tensor) -> Tensor:
    """All dims reversed (``Tensor.T``); torch warns, once per process, unless the tensor
    is 2-d."""
    if input.dim() == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
    elif input.dim() != 2:
        _warn_once(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.")
    return permute(input, tuple(range(input.dim() - 1, -1, -1)))


def mT(input: Tensor) -> Tensor:
    """Swap the last two dims (``Tensor.mT``); a 0-d tensor comes back as itself, with a
    deprecation warning. Raises RuntimeError for a 1-d tensor."""
    if input.dim() == 0:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
        return input
    if input.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {input.dim()}-D tensor.")
    return transpose(input, -2, -1)


def permute(t: Tensor, *dims: Any) -> Tensor:
    """Reorder all dims: result dim ``i`` is input dim ``dims[i]`` (``torch.permute``).

    Raises:
        RuntimeError: ``dims`` has the wrong length or repeats a dim.
        IndexError: a dim out of range.
    """
    order = _sizes(dims, "dims")
    if len(order) != t.dim():
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match "
            "the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{t.dim()} is not equal to len(dims) = {len(order)}")
    wrapped: list[int] = []
    for d in order:
        d = _wrap(d, t.dim())
        if d in wrapped:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        wrapped.append(d)
    return _view(t, [t._shape[d] for d in wrapped], [t._stride[d] for d in wrapped])


# ---------------------------------------------------------------------- adding, removing dims
def squeeze(t: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Drop size-1 dims: all of them, or those among ``dim`` (``torch.squeeze``). Dims
    named but not of size 1 stay. Raises IndexError for a dim out of range."""
    if dim is None:
        chosen = set(range(t.dim()))
    else:
        chosen: set[int] = set()
        for d in (dim if isinstance(dim, Sequence) else [dim]):
            d = _wrap(d, t.dim())
            if d in chosen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            chosen.add(d)
    keep = [d for d in range(t.dim()) if not (d in chosen and t._shape[d] == 1)]
    return _view(t, [t._shape[d] for d in keep], [t._stride[d] for d in keep])


def unsqueeze(t: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at ``dim`` (``torch.unsqueeze``); its stride is
    ``size * stride`` of the dim it lands before, or 1 at the end."""
    d = _wrap(dim, t.dim() + 1)
    new_stride = t._shape[d] * t._stride[d] if d < t.dim() else 1
    return _view(t, (*t._shape[:d], 1, *t._shape[d:]),
                 (*t._stride[:d], new_stride, *t._stride[d:]))


def expand(t: Tensor, *sizes: Any) -> Tensor:
    """Broadcast to ``sizes`` without copying: size-1 dims (and new leading dims) get
    stride 0; ``-1`` keeps a size (``torch.Tensor.expand``).

    Raises:
        RuntimeError: fewer sizes than dims, a non-1 dim asked to change, or ``-1`` for a
            new leading dim.
    """
    target = _sizes(sizes)
    if len(target) < t.dim():
        raise RuntimeError(
            f"expand({t.dtype.name} tensor of shape {list(t._shape)}, size={target}): the "
            f"number of sizes provided ({len(target)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({t.dim()})")
    lead = len(target) - t.dim()
    shape, stride = [0] * len(target), [0] * len(target)
    inner_size, inner_stride = 1, 0  # what a new leading dim would be "outside of"
    for i in range(len(target) - 1, -1, -1):
        d = i - lead
        size = t._shape[d] if d >= 0 else 1
        step = t._stride[d] if d >= 0 else inner_size * inner_stride
        want = target[i]
        if want == -1:
            if d < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}")
            want = size
        if want < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {want}: "
                               f"{target}")
        if size != want:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {target}.  "
                    f"Tensor sizes: {list(t._shape)}")
            size, step = want, 0
        shape[i], stride[i] = size, step
        inner_size, inner_stride = size, step
    return _view(t, shape, stride)


def broadcast_to(t: Tensor, size: Sequence[int]) -> Tensor:
    """``expand`` under NumPy's name (``torch.broadcast_to``)."""
    return expand(t, tuple(size))


# ---------------------------------------------------------------------- sub-ranges
def _slice(t: Tensor, dim: int, start: int, length: int, step: int = 1) -> Tensor:
    """Elements ``start, start + step, ...`` (``length`` of them) along ``dim``."""
    shape, stride = list(t._shape), list(t._stride)
    offset = t._storage_offset + start * stride[dim]
    shape[dim], stride[dim] = length, stride[dim] * step
    return _view(t, shape, stride, offset)


def narrow(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements along ``dim`` from ``start`` (which may be negative)
    (``torch.narrow``).

    Raises:
        RuntimeError: a 0-d tensor, a negative length, or a range past the end.
        IndexError: ``start`` out of range.
    """
    if isinstance(start, Tensor) and start.dim() != 0:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    start, length = _int("start", start), _int("length", length)
    if t.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap(dim, t.dim())
    size = t._shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got "
            f"{start})")
    start = start + size if start < 0 else start
    if start > size - length:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(t, d, start, length)


def select(t: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, with that dim removed (``torch.select``).

    Raises:
        IndexError: a 0-d tensor, or ``index`` out of range.
    """
    index = _int("index", index)
    if t.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, t.dim())
    size = t._shape[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(t._shape)} at dimension {d}")
    index = index + size if index < 0 else index
    return _view(t, t._shape[:d] + t._shape[d + 1:], t._stride[:d] + t._stride[d + 1:],
                 t._storage_offset + index * t._stride[d])


def unfold(t: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` elements, ``step`` apart, along ``dimension``; the window
    becomes a new last dim (``torch.Tensor.unfold``). Windows may overlap in memory.

    Raises:
        RuntimeError: a window longer than the dim, a negative size, or ``step <= 0``.
    """
    d = _wrap(dimension, t.dim())
    size, step = _int("size", size), _int("step", step)
    longest = t._shape[d] if t.dim() else 1
    if size > longest:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {longest} but size "
                           f"is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape, stride = list(t._shape), list(t._stride)
    if t.dim():
        shape[d] = (t._shape[d] - size) // step + 1
        stride[d] = step * t._stride[d]
    return _view(t, [*shape, size], [*stride, t._stride[d] if t.dim() else 1])


def diagonal(t: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes as a new last dim, with stride
    ``stride[dim1] + stride[dim2]`` (``torch.diagonal``); ``offset > 0`` is above it.

    Raises:
        RuntimeError: dim1 and dim2 name the same dim. IndexError: a dim out of range.
    """
    offset = _int("offset", offset)
    a, b = _wrap(dim1, t.dim()), _wrap(dim2, t.dim())
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        length = max(min(t._shape[a], t._shape[b] - offset), 0)
        start = offset * t._stride[b]
    else:
        length = max(min(t._shape[a] + offset, t._shape[b]), 0)
        start = -offset * t._stride[a]
    keep = [d for d in range(t.dim()) if d not in (a, b)]
    return _view(t, [*(t._shape[d] for d in keep), length],
                 [*(t._stride[d] for d in keep), t._stride[a] + t._stride[b]],
                 t._storage_offset + (start if length else 0))


# ---------------------------------------------------------------------- many views at once
def split(t: Tensor, split_size_or_sections: int | Sequence[int],
          dim: int = 0) -> tuple[Tensor, ...]:
    """Views of consecutive pieces along ``dim`` (``torch.split``): pieces of
    ``split_size`` (the last may be shorter), or of the listed sizes.

    Raises:
        RuntimeError: a 0-d tensor, negative sizes, a zero size for a non-empty dim, or
            listed sizes that do not add up to the dim's size.
    """
    if isinstance(split_size_or_sections, Tensor):  # a 0-d integer tensor acts as an int
        split_size_or_sections = _int("split_size", split_size_or_sections)
    elif not isinstance(split_size_or_sections, int):
        split_size_or_sections = _sizes((split_size_or_sections,), "split_sizes")
    if t.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sections, int) and split_size_or_sections < 0:
        raise RuntimeError("split expects split_size be non-negative, but got "
                           f"split_size={split_size_or_sections}")
    d = _wrap(dim, t.dim())
    size = t._shape[d]
    if isinstance(split_size_or_sections, int):
        piece = split_size_or_sections
        if piece == 0 and size != 0:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        count = max(-(-size // piece), 1) if piece else 1
        lengths = [piece] * (count - 1) + [size - piece * (count - 1)]
    else:
        lengths = list(split_size_or_sections)
        if any(n < 0 for n in lengths):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={lengths}")
        if sum(lengths) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                f"tensor's size at dimension {d}), but got split_sizes={lengths}")
    pieces, start = [], 0
    for n in lengths:
        pieces.append(_slice(t, d, start, n))
        start += n
    return tuple(pieces)


def chunk(t: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """About ``chunks`` equal views along ``dim``: ``split`` with size
    ``ceil(size / chunks)``, so fewer pieces may come back (``torch.chunk``).

    Raises:
        RuntimeError: a 0-d tensor or ``chunks <= 0``.
    """
    chunks = _int("chunks", chunks)
    if t.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = t._shape[_wrap(dim, t.dim())]
    piece = -(-size // chunks)
    if piece == 0 and size == 0:
        return split(t, [0] * chunks, dim)
    return split(t, piece, dim)


def unbind(t: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Every ``select(dim, i)``, as a tuple of views (``torch.unbind``). Raises IndexError
    for a 0-d tensor or a dim out of range."""
    d = _wrap(dim, t.dim())
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(select(t, d, i) for i in range(t._shape[d]))


def detach(t: Tensor) -> Tensor:
    """Same storage, layout and version counter, but no autograd history and no ``_base``
    (``torch.Tensor.detach``): writes through it still change ``t``."""
    out = Tensor._make(t._storage, t._shape, t._stride, t._storage_offset, t._dtype)
    out._version_counter = t._version_counter
    return out
