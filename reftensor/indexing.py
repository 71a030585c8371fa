"""``t[index]`` and ``t[index] = value``, read the way torch's Python binding reads them.

torch (``torch/csrc/autograd/python_variable_indexing.cpp``) walks the index from left to
right, keeping a running result and ``dim``, the dim of that result the next index applies
to:

* **basic** indices are applied at once, as views sharing storage: an int selects (the dim
  disappears), a slice narrows and steps, ``None`` inserts a size-1 dim, ``...`` skips the
  dims nobody names. A 0-d integer tensor counts as an int: ``t[torch.tensor(1)]`` is a view.
* **advanced** indices are only collected, one per dim: integer tensors, lists (made into
  int64 tensors, or bool tensors for lists of bools), bool/uint8 masks (which cover as many
  dims as they have), and Python bools (a new size-1 dim indexed by ``[0]``, or by nothing
  for False). At the end one call to ``advanced_indexing.index`` makes a copy.

So ``t[True]`` is a copy, ``t[None]`` a view; and ``t[0, [1, 2]]`` applies ``0`` first, then
indexes what is left.

Writing is the same walk: with no advanced index the value is copied into the view
(``copy_``), else ``advanced_indexing.index_put_`` writes through to the storage. Both bump
``_version`` once, shared with every view of the storage.
"""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _casting, advanced_indexing, dtypes
from .advanced_indexing import expand_strides, legacy_type_name
from .storage import UntypedStorage
from .tensor import Tensor

__all__ = ["getitem", "setitem"]

_INT64_MAX = 2**63 - 1


# ----------------------------------------------------------------------- views
def _view(t: Tensor, shape: Sequence[int], stride: Sequence[int], offset: int) -> Tensor:
    """A view of ``t``: same storage and version counter, ``_base`` set."""
    return Tensor._make(t._storage, tuple(shape), tuple(stride), offset, t._dtype, base=t)


def _select(t: Tensor, dim: int, i: int, real_dim: int, *, alone: bool = False) -> Tensor:
    """``t.select(dim, i)``: drop ``dim``, start ``i * stride[dim]`` further into storage.

    ``real_dim`` is the position in the index tuple, which torch's message names.

    Raises:
        IndexError: ``i`` outside ``[-size, size)``, or a 0-d ``t``.
    """
    if alone and t.ndim == 0 and i == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    # Past the last dim (a 0-d tensor, or two "..."), torch reads a size it does not have.
    size = t._shape[dim] if dim < t.ndim else 0
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {size}")
    if i < 0:
        i += size
    shape = t._shape[:dim] + t._shape[dim + 1:]
    stride = t._stride[:dim] + t._stride[dim + 1:]
    return _view(t, shape, stride, t._storage_offset + i * t._stride[dim])


def _slice(t: Tensor, dim: int, start: int | None, stop: int | None, step: int,
           *, skip_full: bool = True) -> Tensor:
    """``t[start:stop:step]`` along ``dim`` (torch's ``applySlice`` and ``slice``).

    Bounds are clamped: negative ones count from the end, then everything is clipped into
    ``[0, size]``, and ``stop`` is at least ``start``. The new size is
    ``ceil((stop - start) / step)``, the stride ``stride * step``. A slice keeping the whole
    dim returns ``t`` itself (not a new view) inside a tuple index, as torch does.

    Raises:
        ValueError: step below 1 ("step must be greater than zero").
        IndexError: ``t`` is 0-d, or ``dim`` is past its last dim.
    """
    if step <= 0:
        raise ValueError("step must be greater than zero")
    begin = 0 if start is None else start
    end = _INT64_MAX if stop is None else stop
    if t.ndim > 0 and skip_full and begin == 0 and step == 1:
        size = t._shape[dim] if dim < t.ndim else 0
        if size <= end:  # past the last dim torch reads some size; "a:" keeps it
            return t
    if t.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if dim >= t.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-t.ndim}, {t.ndim - 1}], but got {dim})")
    size = t._shape[dim]
    begin = begin + size if begin < 0 else begin
    end = end + size if end < 0 else end
    begin = min(max(begin, 0), size)
    end = min(max(end, begin), size)
    shape = list(t._shape)
    stride = list(t._stride)
    shape[dim] = (end - begin + step - 1) // step
    stride[dim] *= step
    return _view(t, shape, stride, t._storage_offset + begin * t._stride[dim])


def _unsqueeze(t: Tensor, dim: int) -> Tensor:
    """``t.unsqueeze(dim)``: a size-1 dim whose stride is ``size * stride`` of the dim it
    pushes right (1 at the end).

    Raises:
        IndexError: ``dim`` past ``t.dim()``.
    """
    if dim > t.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-t.ndim - 1}, {t.ndim}], but got {dim})")
    new_stride = t._shape[dim] * t._stride[dim] if dim < t.ndim else 1
    return _view(t, t._shape[:dim] + (1,) + t._shape[dim:],
                 t._stride[:dim] + (new_stride,) + t._stride[dim:], t._storage_offset)


def _alias(t: Tensor) -> Tensor:
    """A new view with t's own layout (torch's ``alias``): ``t[...]`` is not ``t``."""
    return _view(t, t._shape, t._stride, t._storage_offset)


class Steps:
    """The steps ``t[index]`` is made of. These plain ones only move metadata; chapter 5's
    autograd passes steps that also record each one in the backward graph."""

    def select(self, t: Tensor, dim: int, i: int, real_dim: int, *, alone: bool = False
               ) -> Tensor:
        return _select(t, dim, i, real_dim, alone=alone)

    def slice(self, t: Tensor, dim: int, start: int | None, stop: int | None, step: int,
              *, skip_full: bool = True) -> Tensor:
        return _slice(t, dim, start, stop, step, skip_full=skip_full)

    def unsqueeze(self, t: Tensor, dim: int) -> Tensor:
        return _unsqueeze(t, dim)

    def alias(self, t: Tensor) -> Tensor:
        return _alias(t)

    def index(self, t: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
        return advanced_indexing.index(t, indices)

    def index_put_(self, t: Tensor, indices: Sequence[Tensor | None], value: Tensor) -> Tensor:
        return advanced_indexing.index_put_(t, indices, value)

    def drop_leading_ones(self, value: Tensor) -> Tensor:
        return _drop_leading_ones(value)


PLAIN = Steps()


# ----------------------------------------------------------------------- reading the index
def _is_int(obj: Any) -> bool:
    """Python and NumPy ints, not bools (torch's ``THPUtils_checkLong``)."""
    return isinstance(obj, int | np.integer) and not isinstance(obj, builtins.bool)


def _unpack_int(obj: Any) -> int:
    value = int(obj)
    if not -(2**63) <= value <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return value


def _is_sequence(obj: Any) -> bool:
    """What Python's ``PySequence_Check`` accepts: lists, tuples, ranges, strings, arrays."""
    return isinstance(obj, Sequence | np.ndarray) and not isinstance(obj, Tensor)


def _slice_bounds(s: slice) -> tuple[int | None, int | None, int]:
    """start, stop, step of a Python slice, as ints clipped into int64 (or None).

    Raises:
        TypeError: a bound that is not an int, None or an object with ``__index__``.
        ValueError: a zero step.
    """
    def bound(x: Any) -> int | None:
        if x is None:
            return None
        try:
            value = operator.index(x)
        except TypeError:
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method") from None
        return min(max(value, -(2**63)), _INT64_MAX)

    step = bound(s.step)
    start, stop = bound(s.start), bound(s.stop)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return start, stop, 1 if step is None else step


def _as_tuple(index: Any) -> tuple[Any, ...]:
    """Wrap a lone index in a tuple (torch's ``wrapTuple``).

    A short list (not a tensor or an array) holding a list, slice, tensor, None or ``...``
    is read as a tuple of indices (NumPy's old heuristic, deprecated by torch):
    ``t[[[0, 1], [1, 0]]]`` means ``t[[0, 1], [1, 0]]``.
    """
    if isinstance(index, tuple):
        return index
    if isinstance(index, Tensor | np.ndarray) or not _is_sequence(index):
        return (index,)
    try:
        items = list(index)
    except TypeError:
        return (index,)
    if len(items) < 32 and any(
            isinstance(x, Tensor | slice) or _is_sequence(x) or x is None or x is Ellipsis
            for x in items):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq].",
                      UserWarning, stacklevel=4)
        return tuple(items)
    return (index,)


def _is_mask(t: Tensor) -> bool:
    return t._dtype is dtypes.bool or t._dtype is dtypes.uint8


def _specified_dims(items: tuple[Any, ...]) -> int:
    """How many dims of ``t`` the index names: a mask names one per dim of its own, None,
    ``...`` and Python bools name none, anything else one."""
    count = 0
    for obj in items:
        if isinstance(obj, Tensor):
            count += obj.ndim if _is_mask(obj) else 1
        elif not (obj is None or obj is Ellipsis or isinstance(obj, builtins.bool)):
            count += 1
    return count


def _sequence_to_tensor(obj: Any) -> Tensor:
    """A list index as a tensor: bool (or uint8) data stays a mask, anything else becomes
    int64 (floats are truncated: ``t[[1.9]]`` is ``t[[1]]``)."""
    from .factories import tensor

    probe = tensor(obj)
    return probe if _is_mask(probe) else tensor(obj, dtype=dtypes.int64)


def _bool_index(value: bool) -> Tensor:
    """The index torch uses for a bool: ``[0]`` for True, an empty index for False."""
    return Tensor._make(UntypedStorage(8 * value), (int(value),), (1,), 0, dtypes.int64)


def _apply_slicing(t: Tensor, items: tuple[Any, ...], steps: Steps = PLAIN
                   ) -> tuple[Tensor, list[Tensor | None]]:
    """Apply the basic indices as views and collect the advanced ones by dim (torch's
    ``applySlicing``). Returns the view and the index list (empty when nothing advanced).

    Raises:
        IndexError: too many indices, an int out of range, an unsupported index type.
        ValueError, TypeError: a bad slice.
    """
    specified = _specified_dims(items)
    if specified > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    result, dim = t, 0
    indices: list[Tensor | None] = []

    # ``indices`` gets one entry per dim of ``result`` from the first index tensor on (None
    # for a dim left alone); a mask takes one entry however many dims it covers, and is
    # expanded to one index per dim later.
    def record(idx: Tensor) -> None:
        nonlocal dim
        if not indices:
            indices.extend([None] * dim)
        indices.append(idx)
        dim += idx.ndim if _is_mask(idx) else 1

    def skip(n: int) -> None:
        nonlocal dim
        dim += n
        if indices:
            indices.extend([None] * n)

    for real_dim, obj in enumerate(items):
        if _is_int(obj):
            result = steps.select(result, dim, _unpack_int(obj), real_dim)
        elif isinstance(obj, slice):
            result = steps.slice(result, dim, *_slice_bounds(obj))
            skip(1)
        elif obj is Ellipsis:
            skip(t.ndim - specified)  # every "..." skips them all: t[..., ...] is t[...]
        elif obj is None:
            result = steps.unsqueeze(result, dim)
            skip(1)
        elif isinstance(obj, builtins.bool):
            result = steps.unsqueeze(result, dim)
            record(_bool_index(obj))
        else:
            if not isinstance(obj, Tensor):
                if _is_sequence(obj):
                    obj = _sequence_to_tensor(obj)
                else:
                    try:
                        i = operator.index(obj)
                    except TypeError:
                        raise IndexError(
                            "only integers, slices (`:`), ellipsis (`...`), None and long or "
                            f"byte Variables are valid indices (got {type(obj).__name__})"
                        ) from None
                    result = steps.select(result, dim, _unpack_int(i), real_dim)
                    continue
            if obj.ndim == 0 and not obj._dtype.is_floating_point:
                if _is_mask(obj):  # a 0-d bool tensor acts like a Python bool
                    result = steps.unsqueeze(result, dim)
                    record(_bool_index(obj.item() != 0))
                else:  # a 0-d integer tensor acts like an int: a view
                    result = steps.select(result, dim, int(obj.item()), real_dim)
            else:
                record(obj)
    while indices and indices[-1] is None:
        indices.pop()
    return result, indices


# ----------------------------------------------------------------------- __getitem__
def getitem(t: Tensor, index: Any, steps: Steps = PLAIN) -> Tensor:
    """``t[index]`` (``torch.Tensor.__getitem__``): a view for basic indices, a new tensor
    when any index is advanced.

    Raises:
        IndexError: an int or index tensor out of range, too many indices, a mask of the
            wrong shape, index tensors that do not broadcast, an index of an unsupported
            type (float, object) or dtype (float, int8, int16 tensors).
        ValueError: a slice step of 0 or below.
        TypeError: a string, or a slice bound that is not an int.
    """
    # torch's shortcuts for a lone index; they differ from a 1-tuple only in messages
    if _is_int(index):
        return steps.select(t, 0, _unpack_int(index), 0, alone=True)
    if isinstance(index, slice):
        return steps.slice(t, 0, *_slice_bounds(index), skip_full=False)
    result, indices = _apply_slicing(t, _as_tuple(index), steps)
    if not indices:
        return steps.alias(t) if result is t else result
    return steps.index(result, indices)


# ----------------------------------------------------------------------- __setitem__
def _value_to_tensor(t: Tensor, value: Any) -> Tensor:
    """The value to write, as a tensor: a tensor is used as it is; a Python number becomes a
    0-d tensor of ``t``'s dtype through torch's checked conversion.

    Raises:
        TypeError: not a tensor or a number ("can't assign a str to a FloatTensor").
        ValueError: an int beyond int64.
        RuntimeError: a number the dtype cannot hold ("value cannot be converted to type
            uint8_t without overflow"; float16 and bfloat16 accept anything).
    """
    if isinstance(value, Tensor):
        return value
    if _is_int(value) or isinstance(value, builtins.bool):
        number: builtins.bool | int | float = _unpack_int(value)
    elif isinstance(value, float):
        number = float(value)
    elif isinstance(value, complex):
        if value.imag != 0 and t._dtype is not dtypes.bool:  # the imaginary part would be lost
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_casting.C_NAMES[t._dtype.name]} without overflow")
        number = builtins.bool(value) if t._dtype is dtypes.bool else value.real
    else:
        kind = type(value)
        module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
        name = f"{module}{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a reftensor.{legacy_type_name(t._dtype)}")
    scalar = Tensor._make(UntypedStorage(t._dtype.itemsize), (), (), 0, t._dtype)
    scalar._elements()[()] = _casting.checked_number(number, t._dtype, check_half=False)
    return scalar


def _drop_leading_ones(value: Tensor) -> Tensor:
    """The value viewed without its leading size-1 dims (torch's ``slicePrefix1sSize``):
    a value of shape (1, 1, 3) can be written where (3,) is expected."""
    k = 0
    while k < value.ndim and value._shape[k] == 1:
        k += 1
    if k == 0:
        return value
    return _view(value, value._shape[k:], value._stride[k:], value._storage_offset)


def _copy_to(dst: Tensor, value: Tensor) -> None:
    """Write ``value`` into the view ``dst`` (torch's ``copy_to``), through ``Tensor.copy_``.

    Raises:
        RuntimeError: ``value`` does not broadcast to ``dst`` (``expand``'s messages), or
            ``copy_`` refuses the overlap.
    """
    if dst._shape == value._shape:
        dst.copy_(value)
        return
    if value.ndim == 0:
        # torch calls dst.fill_(value), which copies a clone when value shares dst's memory
        if value._storage is dst._storage:
            value = value.clone()
        dst.copy_(value)
        return
    value = _drop_leading_ones(value)
    target = dst._shape
    if value.ndim > len(target):
        raise RuntimeError(
            f"expand({legacy_type_name(value._dtype)}{{{list(value._shape)}}}, "
            f"size={list(target)}): the number of sizes provided ({len(target)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({value.ndim})")
    lead = len(target) - value.ndim
    for k, size in enumerate(value._shape):
        if size not in (1, target[lead + k]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + k]}) must match the existing "
                f"size ({size}) at non-singleton dimension {lead + k}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(value._shape)}")
    stride = expand_strides(value._shape, value._stride, target)
    dst.copy_(_view(value, target, stride, value._storage_offset))


def setitem(t: Tensor, index: Any, value: Any, steps: Steps = PLAIN) -> None:
    """``t[index] = value`` (``torch.Tensor.__setitem__``): writes through to t's storage and
    bumps ``_version`` once (``t[False] = v`` writes nothing and bumps nothing).

    With basic indices only, ``value`` (any dtype) is cast and broadcast into the view by
    ``copy_``. With advanced ones it goes to ``index_put_``, where a tensor value must have
    t's dtype, unless a single mask is the only index tensor and the value has one element
    (``masked_fill_``).

    Raises:
        TypeError, ValueError, RuntimeError: a value that is not a tensor or number, or that
            does not fit the dtype (see :func:`_value_to_tensor`); then as :func:`getitem`,
            and RuntimeError for shapes that do not broadcast, dtype mismatches in
            ``index_put_`` and overlapping memory.
    """
    value = _value_to_tensor(t, value)
    # torch's shortcuts for a lone index (``t[True] = v`` is a copy_, not an index_put_)
    if index is False:
        return
    if index is Ellipsis:
        _copy_to(t, value)
        return
    if index is None or index is True:
        _copy_to(_unsqueeze(t, 0), value)
        return
    if _is_int(index):
        _copy_to(_select(t, 0, _unpack_int(index), 0, alone=True), value)
        return
    if isinstance(index, slice):
        _copy_to(_slice(t, 0, *_slice_bounds(index)), value)
        return
    result, indices = _apply_slicing(t, _as_tuple(index))
    if not indices:
        _copy_to(result, value)
        return
    steps.index_put_(result, indices, steps.drop_leading_ones(value))
