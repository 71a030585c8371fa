"""The constructors of Tensor subclasses with ``__torch_dispatch__`` (chapter 9):
``Tensor._make_subclass`` and ``Tensor._make_wrapper_subclass``, as torch's, and the ``repr``
of such a tensor given its contents (``LoggingTensor``'s).

An instance of a class that defines ``__torch_dispatch__`` gets a storage whose device is a
**marker** (``_ops/torch_dispatch.py`` says why): a ``device`` object of its own, equal to the
device the tensor reports.
"""

from __future__ import annotations

import math
from typing import Any

from . import dtypes
from . import layout as layouts
from ._formatting import _add_suffixes, _autograd_suffix, _dtype_suffix
from ._ops import aten
from ._ops.state import state
from ._ops.tensor_type import TensorType
from ._ops.torch_dispatch import has_torch_dispatch
from .device import device as device_type
from .layout import contiguous_strides
from .storage import UntypedStorage

__all__ = ["_make_subclass", "_make_wrapper_subclass", "subclass_repr"]


# ------------------------------------------------------------------ the constructors
def _marker(where: Any) -> Any:
    """A device object of its own, equal to ``where`` (see the module's text)."""

    return device_type(where.type, where.index)


def _marked_storage(storage: Any) -> Any:
    """A storage object over the same bytes as ``storage``, whose device is a marker."""

    marked = UntypedStorage.__new__(UntypedStorage)
    marked._bytes, marked._nbytes = storage._bytes, storage._nbytes
    marked._device, marked._shared = _marker(storage._device), storage._shared
    return marked


def _check_tensor_class(cls: Any) -> None:

    if not (isinstance(cls, type) and issubclass(cls, TensorType)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")


def _make_subclass(cls: type, data: Any, require_grad: bool = False,
                  dispatch_strides: bool = False, dispatch_device: bool = False,
                  device_for_backend_keys: Any = None) -> Any:
    """``Tensor._make_subclass(cls, data, require_grad=False)``: ``data.detach()`` (a
    dispatched call, but with the mode stack set aside: no mode sees it) as an instance of
    ``cls``, sharing ``data``'s bytes and version counter, ``requires_grad`` set to
    ``require_grad``. An instance of a class with ``__torch_dispatch__`` has the ``Python``
    key (its storage object is a marked one over the same bytes).

    Raises:
        TypeError: ``cls`` is not a Tensor class, ``data`` not a tensor (torch's messages).
        RuntimeError: ``require_grad`` for a dtype that is not floating point.
    """

    _check_tensor_class(cls)
    if not isinstance(data, TensorType):
        raise TypeError("_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                        f"{type(data).__name__}")

    saved = state.modes[:]  # torch's StashTorchDispatchStackGuard: no mode sees the detach
    del state.modes[:]
    try:
        alias = aten.detach.default(data)
    finally:
        state.modes[:] = saved
    t = cls._make(alias._storage, alias._shape, alias._stride, alias._storage_offset,
                  alias._dtype)
    t._version_counter = alias._version_counter
    t._autograd_meta = alias._autograd_meta
    if has_torch_dispatch(cls):
        t._storage = _marked_storage(alias._storage)
    if require_grad:
        _require_grad(t)
    return t


def _require_grad(t: Any) -> None:
    if not t._dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t._requires_grad = True


def _ints(value: Any, name: str, position: int | None) -> tuple[int, ...]:
    """A ``SymInt[]`` argument of ``_make_wrapper_subclass``, checked as torch's parser (which
    names the position of an argument given by position)."""
    where = f"argument '{name}'" + ("" if position is None else f" (position {position})")
    if not isinstance(value, tuple | list):
        raise TypeError(f"_make_wrapper_subclass(): {where} must be tuple of ints, not "
                        f"{_type_name(value)}")
    for i, v in enumerate(value):
        if not isinstance(v, int) and not hasattr(v, "__index__"):
            raise TypeError(f"_make_wrapper_subclass(): {where} must be tuple of ints, but "
                            f"found element of type {type(v).__name__} at pos {i}")
    return tuple(int(v) for v in value)


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    if module.startswith("reftensor"):
        return f"reftensor.{kind.__name__}"
    return kind.__name__


#: ``_make_wrapper_subclass``'s arguments after ``cls``, in torch's order, with their defaults
_WRAPPER_ARGUMENTS = (
    ("size", None), ("strides", None), ("storage_offset", None), ("memory_format", None),
    ("dtype", None), ("layout", None), ("device", None), ("pin_memory", False),
    ("requires_grad", False), ("dispatch_sizes_strides_policy", None),
    ("dispatch_device", False), ("dispatch_layout", False), ("_extra_dispatch_keys", None),
    ("storage_size", None))


def _make_wrapper_subclass(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``Tensor._make_wrapper_subclass(cls, size, strides=None, storage_offset=None,
    memory_format=None, dtype=None, layout=strided, device=None, pin_memory=False,
    requires_grad=False, dispatch_sizes_strides_policy=None, dispatch_device=False,
    dispatch_layout=False, _extra_dispatch_keys=None, storage_size=None)``: an instance of
    ``cls`` (which must define ``__torch_dispatch__``) with the given sizes, strides
    (contiguous ones when not given), storage offset, dtype (the default dtype when not
    given), device (the CPU when not given; any of torch's device names, as given: ``"cpu:0"``
    stays ``cpu:0``) and ``requires_grad``, and no data: a storage of ``storage_size`` bytes
    (those the layout reaches when not given) that holds none. torch 2.13 accepts
    ``memory_format`` and ``pin_memory`` and ignores them.

    Raises:
        TypeError: ``cls`` is not a Tensor class or has no ``__torch_dispatch__``; ``size``
            or ``strides`` is not a sequence of ints; an unknown or missing argument (torch's
            messages).
        RuntimeError: an offset without strides, strides of another length than the sizes,
            a negative size, ``requires_grad`` for a dtype that is not floating point.
        NotImplementedError: a layout other than ``strided`` (reftensor has no other).
    """
    names = [name for name, _ in _WRAPPER_ARGUMENTS]
    if len(args) > len(names):
        raise TypeError(f"_make_wrapper_subclass() takes at most {len(names) + 1} arguments "
                        f"({len(args) + 1} given)")
    given = dict(zip(names, args, strict=False))
    positions = {name: i + 2 for i, name in enumerate(names[:len(args)])}
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"_make_wrapper_subclass() got an unexpected keyword argument "
                            f"'{name}'")
        if name in given:
            raise TypeError(f"_make_wrapper_subclass() got multiple values for argument "
                            f"'{name}'")
        given[name] = value
    if "size" not in given:
        raise TypeError("_make_wrapper_subclass() missing required argument 'size' (pos 2)")
    a = {name: given.get(name, default) for name, default in _WRAPPER_ARGUMENTS}
    size, strides, storage_offset = a["size"], a["strides"], a["storage_offset"]
    dtype, layout, device = a["dtype"], a["layout"], a["device"]
    requires_grad, storage_size = a["requires_grad"], a["storage_size"]

    _check_tensor_class(cls)
    if not has_torch_dispatch(cls):
        raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
    shape = _ints(size, "size", positions.get("size"))
    if strides is None:
        if storage_offset is not None:
            raise RuntimeError("setting storage offset without stride not supported")
        stride_t = contiguous_strides(shape)  # chapter 1's piece
    else:
        stride_t = _ints(strides, "strides", positions.get("strides"))
        if len(stride_t) != len(shape):
            raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match "
                               f"dimensionality of strides ({len(stride_t)})")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if layout is not None and layout is not layouts.strided:
        raise NotImplementedError(f"reftensor has no {layout} layout")
    offset = 0 if storage_offset is None else int(storage_offset)
    kind = dtypes.get_default_dtype() if dtype is None else dtype
    where = device_type("cpu") if device is None else (
        device if isinstance(device, device_type) else device_type(device))
    if storage_size is None:
        reach = 0 if math.prod(shape) == 0 else offset + 1 + sum(
            (n - 1) * s for n, s in zip(shape, stride_t, strict=True))
        storage_size = reach * kind.itemsize
    storage = UntypedStorage.__new__(UntypedStorage)
    storage._bytes, storage._nbytes = None, int(storage_size)
    storage._device, storage._shared = _marker(where), False
    t = cls._make(storage, shape, stride_t, offset, kind)
    if requires_grad:
        _require_grad(t)
    return t


def subclass_repr(t: Any, tensor_contents: str, prefix: str) -> str:
    """``Tensor.__repr__(tensor_contents=...)`` (torch's ``_str``): ``tensor_contents`` in
    place of the values, after the class's name (``LoggingTensor(``; ``tensor(`` for a plain
    tensor), then torch's suffixes: the device unless the CPU, the size and dtype as torch
    names them, ``grad_fn=`` or ``requires_grad=True``. ``LoggingTensor``'s ``repr``."""

    where, default = t.device, dtypes.get_default_dtype()
    suffixes: list[tuple[str, int]] = []
    if where.type != "cpu":
        suffixes.append((f"device='{where}'", len(f"device='{where}'")))
    size_text = f"size={tuple(t._shape)}"
    if where.type == "meta" or (math.prod(t._shape) == 0 and len(t._shape) != 1):
        suffixes.append((size_text, len(size_text)))
    if where.type == "meta" or math.prod(t._shape) == 0:
        if t._dtype is not default:
            suffixes.append(_dtype_suffix(t._dtype))
    elif t._dtype not in (default, dtypes.int64, dtypes.bool):
        suffixes.append(_dtype_suffix(t._dtype))
    fn = t._grad_fn
    suffixes += _autograd_suffix(t._requires_grad, None if fn is None else fn.name())
    return _add_suffixes(prefix + tensor_contents, suffixes, len(prefix))
