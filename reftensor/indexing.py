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
  for False). At the end one call to the op ``index`` makes a copy.

So ``t[True]`` is a copy, ``t[None]`` a view; and ``t[0, [1, 2]]`` applies ``0`` first, then
indexes what is left.

Every step is an op of the table, called as torch's binding calls it: ``select``, ``slice``,
``unsqueeze``, ``alias`` (``t[...]``), ``index`` (``advanced_indexing.py``). So a dispatch
mode sees the same ops as in torch, and autograd records them (``SelectBackward0``,
``IndexBackward0``, ...).

Writing is the same walk: with no advanced index the value is written into the view
(``copy_``, or ``fill_`` for a 0-d value), else ``index_put_`` writes through to the storage.
Both bump ``_version`` once, shared with every view of the storage; autograd records the
write on the view's base (``CopySlices``).
"""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _casting, dtypes
from ._ops import DispatchKey, aten
from ._ops.python_indexing import set_indexing
from .advanced_indexing import legacy_type_name
from .device import CPU
from .factories import lift_fresh, unlifted_tensor
from .storage import UntypedStorage
from .tensor import Tensor

__all__ = ["getitem", "setitem"]

_INT64_MAX = 2**63 - 1


# ----------------------------------------------------------------------- the steps
# Each step checks what torch's binding checks before it calls the op (its messages name
# the position in the index tuple), then calls the op of the table, which records it.
def _view(t: Tensor, shape: Sequence[int], stride: Sequence[int], offset: int) -> Tensor:
    """A view of ``t``: same storage and version counter, ``_base`` set."""
    return Tensor._make(t._storage, tuple(shape), tuple(stride), offset, t._dtype, base=t)


def _alias(self: Tensor) -> Tensor:
    """``alias``: a new view with self's own layout."""
    return _view(self, self._shape, self._stride, self._storage_offset)


aten.alias.default.impl(DispatchKey.CPU)(_alias)
aten.alias.default.impl(DispatchKey.Meta)(_alias)


def _select(t: Tensor, dim: int, i: int, real_dim: int, *, alone: bool = False) -> Tensor:
    """``t.select(dim, i)`` (torch's ``applySelect``); ``real_dim`` is the position in the
    index tuple, which torch's message names.

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
    return aten.select.int.call(t, dim, i)


def _slice(t: Tensor, dim: int, start: int | None, stop: int | None, step: int,
           *, skip_full: bool = True) -> Tensor:
    """``t[start:stop:step]`` along ``dim`` (torch's ``applySlice``): the op ``slice``, which
    clamps the bounds as Python does. A slice keeping the whole dim returns ``t`` itself (no
    op) inside a tuple index or a write, as torch does.

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
    return aten.slice.Tensor.call(t, dim, begin, end, step)


def _unsqueeze(t: Tensor, dim: int) -> Tensor:
    """``t.unsqueeze(dim)``.

    Raises:
        IndexError: ``dim`` past ``t.dim()``.
    """
    if dim > t.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-t.ndim - 1}, {t.ndim}], but got {dim})")
    return aten.unsqueeze.default.call(t, dim)


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
    probe = unlifted_tensor(obj)  # (torch's lift_fresh, for a dispatch mode: the result's)
    return lift_fresh(probe if _is_mask(probe) else unlifted_tensor(obj, dtype=dtypes.int64))


def _bool_index(value: bool) -> Tensor:
    """The index torch uses for a bool: ``[0]`` for True, an empty index for False (made,
    as torch makes it, by ``empty`` and ``fill_``)."""
    index = aten.empty.memory_format.call((int(value),), dtypes.int64, None, CPU, None, None)
    return aten.fill_.Scalar.call(index, 0) if value else index


def _apply_slicing(t: Tensor, items: tuple[Any, ...]) -> tuple[Tensor, list[Tensor | None]]:
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
            result = _select(result, dim, _unpack_int(obj), real_dim)
        elif isinstance(obj, slice):
            result = _slice(result, dim, *_slice_bounds(obj))
            skip(1)
        elif obj is Ellipsis:
            skip(t.ndim - specified)  # every "..." skips them all: t[..., ...] is t[...]
        elif obj is None:
            result = _unsqueeze(result, dim)
            skip(1)
        elif isinstance(obj, builtins.bool):
            result = _unsqueeze(result, dim)
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
                    result = _select(result, dim, _unpack_int(i), real_dim)
                    continue
            if obj.ndim == 0 and not obj._dtype.is_floating_point:
                if _is_mask(obj):  # a 0-d bool tensor acts like a Python bool
                    result = _unsqueeze(result, dim)
                    record(_bool_index(obj.item() != 0))
                else:  # a 0-d integer tensor acts like an int: a view
                    result = _select(result, dim, int(obj.item()), real_dim)
            else:
                record(obj)
    while indices and indices[-1] is None:
        indices.pop()
    return result, indices


# ----------------------------------------------------------------------- __getitem__
def getitem(t: Tensor, index: Any) -> Tensor:
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
        return _select(t, 0, _unpack_int(index), 0, alone=True)
    if isinstance(index, slice):
        return _slice(t, 0, *_slice_bounds(index), skip_full=False)
    result, indices = _apply_slicing(t, _as_tuple(index))
    if not indices:
        return aten.alias.default.call(t) if result is t else result
    return aten.index.Tensor.call(result, indices)


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
    return lift_fresh(scalar)  # (a dispatch mode sees it made, as torch's)


def _without_leading_ones(value: Tensor) -> tuple[int, ...]:
    """The value's shape without its leading size-1 dims (torch's ``slicePrefix1sSize``):
    a value of shape (1, 1, 3) can be written where (3,) is expected."""
    k = 0
    while k < value.ndim and value._shape[k] == 1:
        k += 1
    return value._shape[k:]


def _copy_to(dst: Tensor, value: Tensor) -> None:
    """Write ``value`` into the view ``dst`` (torch's ``copy_to``): ``copy_`` when the shapes
    match, ``fill_`` for a 0-d value, else ``copy_`` of the value viewed without its leading
    ones and expanded to dst's shape.

    Raises:
        RuntimeError: ``value`` does not broadcast to ``dst`` (``expand``'s messages), or
            ``copy_`` refuses the overlap.
    """
    if dst._shape == value._shape:
        aten.copy_.default.call(dst, value, False)
        return
    if value.ndim == 0:
        # fill_ copies a clone when value shares dst's memory
        aten.fill_.Tensor.call(dst, value)
        return
    shape = _without_leading_ones(value)
    target = dst._shape
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand({legacy_type_name(value._dtype)}{{{list(shape)}}}, "
            f"size={list(target)}): the number of sizes provided ({len(target)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(target) - len(shape)
    for k, size in enumerate(shape):
        if size not in (1, target[lead + k]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + k]}) must match the existing "
                f"size ({size}) at non-singleton dimension {lead + k}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(shape)}")
    value = aten.view.default.call(value, shape)
    if shape != target:
        value = aten.expand.default.call(value, target, False)
    aten.copy_.default.call(dst, value, False)


def setitem(t: Tensor, index: Any, value: Any) -> None:
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
    shape = _without_leading_ones(value)
    if shape != value._shape:
        value = aten.view.default.call(value, shape)
    aten.index_put_.default.call(result, indices, value, False)


set_indexing(getitem, setitem)  # ``t[index]`` and ``t[index] = value`` run these
