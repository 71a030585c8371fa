"""Collation (``torch.utils.data._utils.collate``): a list of samples becomes one batch.

``default_collate(batch)`` looks at the first sample's type and recurses through the nesting:

* a tensor: ``stack(batch, 0)``, a new dim 0 of size ``len(batch)`` (shapes must match:
  ``stack``'s RuntimeError otherwise);
* a NumPy array: each turned into a tensor (``as_tensor``), then stacked; arrays of strings
  or objects (dtype kind ``S``, ``a``, ``U``, ``O``) raise TypeError;
* a NumPy scalar (``np.bool_``, ``np.number``, ``np.object_``): ``as_tensor(batch)``;
* a float: a float64 tensor; an int: an int64 tensor; a str or bytes: the list as it is;
* a mapping: the same mapping type with each key's values collated;
* a named tuple: the same named tuple type, field by field;
* any other sequence: transposed and each position collated; a tuple gives a *list* (torch's
  backwards compatibility), a list gives a list, another sequence type its own type. Samples
  of different lengths raise RuntimeError ("each element in list of batch should be of equal
  size").

Anything else raises TypeError ("default_collate: batch must contain tensors, numpy arrays,
numbers, dicts or lists; found <type>"). ``default_convert`` (the collate of a loader without
batching) only turns NumPy arrays and scalars into tensors, through the same nesting.

The table ``default_collate_fn_map`` is torch's extension point: ``collate(batch,
collate_fn_map=...)`` tries the exact type first, then ``isinstance`` in insertion order.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ... import dtypes, factories, layout, pieces
from ..._ops import aten
from ...device import CPU
from ...tensor import Tensor
from . import worker_info

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map",
           "default_collate_err_msg_format"]

#: NumPy dtype strings of bytes, strings and objects: such arrays are not tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")

CollateMap = dict[type | tuple[type, ...], Callable[..., Any]]


def _is_numpy_value(x: Any) -> bool:
    """An object of a type of NumPy's top-level module (an array or a scalar), other than
    NumPy's string scalars (torch's test: ``type(x).__module__ == "numpy"``)."""
    kind = type(x)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def _like(data: Any, values: Any, fill: Callable[[Any], None] | None) -> Any:
    """``data``'s own type holding ``values``: a mutable container is shallow-copied (its
    class and attributes kept) and ``fill(copy)`` puts the values in; another type is built
    from ``values``; where that raises TypeError, ``values`` as they are (torch's fallback)."""
    try:
        if fill is None:
            return type(data)(values)
        clone = copy.copy(data)
        fill(clone)
        return clone
    except TypeError:
        return values


def default_convert(data: Any) -> Any:
    """NumPy arrays and scalars inside ``data`` become tensors (``as_tensor``, sharing the
    array's memory where torch would); everything else keeps its type
    (``torch.utils.data.default_convert``).

    A tensor is returned as it is; an array of strings or objects is left an array; a
    mapping or a mutable sequence is shallow-copied and its values converted; a tuple becomes
    a list; a named tuple stays one. Raises nothing of its own.
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        text_or_objects = (type(data).__name__ == "ndarray"
                           and np_str_obj_array_pattern.search(data.dtype.str))
        return data if text_or_objects else factories.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        mutable = isinstance(data, collections.abc.MutableMapping)
        return _like(data, converted, (lambda clone: clone.update(converted)) if mutable
                     else None)
    if isinstance(data, str | bytes) or not isinstance(data, collections.abc.Sequence):
        return data
    items = [default_convert(d) for d in data]
    if isinstance(data, tuple):
        return type(data)(*items) if hasattr(data, "_fields") else items

    def put(clone: Any) -> None:
        for i, item in enumerate(items):
            clone[i] = item

    return _like(data, items, put if isinstance(data, collections.abc.MutableSequence)
                 else None)


def collate(batch: Sequence[Any], *, collate_fn_map: CollateMap | None = None) -> Any:
    """Collate ``batch`` by the type of its first element (``torch.utils.data._utils.collate.
    collate``): ``default_collate`` runs it on every batch, and it calls itself on the
    batch's parts; ``collate_fn_map``'s functions make the leaves.

    Args:
        batch: a non-empty sequence of samples.
        collate_fn_map: ``type or tuple of types -> fn(batch, *, collate_fn_map)``, consulted
            first (the exact type, then ``isinstance`` in the map's order); None: no leaf
            function.

    Returns:
        One batch of the first sample's structure: a mapping, a named tuple or a sequence
        of collated parts, or what a map function returns.

    Raises:
        RuntimeError: sequences of different lengths ("each element in list of batch should
            be of equal size").
        TypeError: an element of a type nothing handles (``default_collate_err_msg_format``).
        IndexError: an empty batch. KeyError: a mapping that lacks a key of the first.
    """
    # BEGIN PIECE collate
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key in collate_fn_map:
            if isinstance(elem, key):
                return collate_fn_map[key](batch, collate_fn_map=collate_fn_map)

    def inner(samples: Sequence[Any]) -> Any:
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: inner([d[key] for d in batch]) for key in elem})
                return clone
            return kind({key: inner([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: inner([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return kind(*(inner(samples) for samples in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch[1:]):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=False))
        if isinstance(elem, tuple):
            return [inner(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = inner(samples)
                return clone
            return kind([inner(samples) for samples in transposed])
        except TypeError:
            return [inner(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(kind))
    # END PIECE


#: Does a loader over a ``TensorDataset`` with ``default_collate`` gather each batch in one
#: NumPy ``take`` per tensor (``gathered``, the same batch)? Yes in the reference; no
#: in the student edition, which fetches sample by sample and runs ``collate`` (the piece:
#: the student's answer, or a published chapter's body). Asked once, here.
GATHER = not pieces.stubbed(collate)


def collate_tensor_fn(batch: Sequence[Tensor], *,
                      collate_fn_map: CollateMap | None = None) -> Tensor:
    """``stack(batch, 0)``: shape ``(len(batch), *batch[0].shape)``, the elements' dtype.

    In a worker process torch stacks into a new tensor (``out=``, in shared memory there),
    so the batch a worker sends has ``_version`` 1; in the main process it is 0. Both are
    reproduced (reftensor has no shared memory: the batch is pickled to the main process).

    Raises:
        RuntimeError: tensors of different shapes (``stack``'s error).
    """
    if worker_info.get_worker_info() is None:
        return aten.stack(list(batch), 0)
    elem = batch[0]
    out = aten.empty((len(batch), *elem.shape), dtype=elem.dtype, device=elem.device)
    return aten.stack(list(batch), 0, out=out)


def collate_numpy_array_fn(batch: Sequence[np.ndarray], *,
                           collate_fn_map: CollateMap | None = None) -> Any:
    """Arrays become tensors (``as_tensor``), then are collated as tensors.

    Raises:
        TypeError: an array of strings or objects.
    """
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([factories.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Sequence[Any], *,
                            collate_fn_map: CollateMap | None = None) -> Tensor:
    """NumPy scalars: ``as_tensor(batch)``, a 1-d tensor of their dtype."""
    return factories.as_tensor(batch)


def collate_float_fn(batch: Sequence[float], *,
                     collate_fn_map: CollateMap | None = None) -> Tensor:
    """Python floats: a 1-d float64 tensor."""
    return factories.tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch: Sequence[int], *, collate_fn_map: CollateMap | None = None) -> Tensor:
    """Python ints (a bool is one): ``tensor(batch)``, int64 (bool if every element is one)."""
    return factories.tensor(batch)


def collate_str_fn(batch: Sequence[Any], *, collate_fn_map: CollateMap | None = None) -> Any:
    """Strings and bytes: the batch as it is."""
    return batch


default_collate_fn_map: CollateMap = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack a list of samples into a batch (``torch.utils.data.default_collate``); see the
    module's docstring for every type and error."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def gathered(tensors: Sequence[Tensor], index: Any) -> list[Tensor] | None:
    """``default_collate([tuple(t[i] for t in tensors) for i in index])``, a
    ``TensorDataset``'s batch, as one ``take`` of rows per tensor; None where the result could
    differ from that route's, which then runs instead.

    The result: a list with one new tensor per tensor, of shape ``(len(index), *t.shape[1:])``,
    ``t``'s dtype, contiguous strides and ``_version`` 0 (``stack``'s; 1 in a worker, where
    ``collate`` stacks with ``out=``).

    None (not gathered) for: an index that is not a non-empty list of Python ints, each in
    ``[-n, n)`` for every tensor's ``n = t.shape[0]`` (``t[i]`` raises otherwise); a tensor
    that is not a plain CPU ``Tensor`` with at least one dim, that requires grad or has
    autograd metadata (``stack`` records a node); outside a worker, samples whose strides
    look channels-last (``stack`` keeps that layout).
    """
    if (not tensors or type(index) is not list or not index
            or any(type(i) is not int for i in index)):
        return None
    low, high = min(index), max(index)
    in_worker = worker_info.get_worker_info() is not None
    for t in tensors:
        if (type(t) is not Tensor or t._requires_grad or t._autograd_meta is not None
                or t._storage.device != CPU or not t._shape
                or low < -t._shape[0] or high >= t._shape[0]
                or (not in_worker
                    and layout.strides_like_channels_last(t._shape[1:], t._stride[1:]))):
            return None
    rows = np.array(index, dtype=np.intp)
    batch = []
    for t in tensors:
        shape = (len(index), *t._shape[1:])
        out = factories._allocate(shape, layout.contiguous_strides(shape), t._dtype)
        np.take(t._elements(), rows, axis=0, out=out._elements(), mode="wrap")
        if in_worker:
            out._version_counter.value += 1
        batch.append(out)
    return batch
