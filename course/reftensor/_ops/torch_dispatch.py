"""``__torch_dispatch__`` on Tensor subclasses (chapter 9): which tensors have the ``Python``
key, and how the ``Python`` key's kernel hands a call to their classes.

A Tensor subclass whose class defines ``__torch_dispatch__`` (a classmethod; not the disabled
default, :func:`_disabled_torch_dispatch_impl`, which ``Tensor`` holds) has the ``Python`` key
on every call that has one of its instances as an argument, as if a dispatch mode were
active. The ``Python`` kernel (``python_key.py``) then asks, when no mode handles the call,
each **overloaded argument**'s class (:func:`overloaded_args`) in torch's order, and raises
torch's TypeError (:func:`multiple_dispatch_failed`) when all return ``NotImplemented``.

Two constructors make such tensors (``Tensor._make_subclass`` and
``Tensor._make_wrapper_subclass``, torch's):

* :func:`_make_subclass`: an alias of a tensor's data (its ``detach()``) as an instance of a
  subclass;
* :func:`_make_wrapper_subclass`: sizes, strides, an offset, a dtype, a device and
  ``requires_grad``, and no data: the class's ``__torch_dispatch__`` computes every op (on a
  tensor it holds, typically: ``LoggingTensor``'s ``elem``).

How the dispatcher recognises such an instance without looking at its class on every call:
its storage's device is a **marker**, a ``device`` object of its own (equal to the device it
reports, but not the ``CPU`` or ``META`` object every other storage holds). The dispatcher's
fast path already compares each tensor's storage device with ``CPU`` by identity; a marked
one leaves it for the general way, which asks the key-set piece with each tensor's class.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from ..device import CPU, META
from .python_functions import function
from .state import state
from .tensor_type import TensorType

__all__ = ["_disabled_torch_dispatch_impl", "_make_subclass", "_make_wrapper_subclass",
           "alias_outputs", "has_torch_dispatch", "multiple_dispatch_failed", "no_dispatch",
           "overloaded_args", "python_tensor", "subclass_like"]


def _disabled_torch_dispatch_impl(func: Any, types: Any, args: Any = (),
                                  kwargs: Any = None) -> Any:
    """``Tensor.__torch_dispatch__`` (torch's ``torch._C._disabled_torch_dispatch_impl``):
    a class that holds it has no ``__torch_dispatch__``; called, it runs ``func`` with
    ``__torch_dispatch__`` disabled (no mode, no subclass sees the call)."""
    with no_dispatch():
        return func(*args, **(kwargs or {}))


def has_torch_dispatch(cls: type) -> bool:
    """Does ``cls`` (a Tensor class) define ``__torch_dispatch__`` (torch's
    ``check_has_torch_dispatch``: not the disabled default)?"""
    return getattr(cls, "__torch_dispatch__", _disabled_torch_dispatch_impl) \
        is not _disabled_torch_dispatch_impl


@contextlib.contextmanager
def no_dispatch() -> Iterator[None]:
    """Calls made in the ``with`` block have no ``Python`` key: no mode and no
    ``__torch_dispatch__`` sees them (``torch.utils._mode_utils.no_dispatch``, torch's
    ``_DisableTorchDispatch``)."""
    state.python_disabled += 1
    try:
        yield
    finally:
        state.python_disabled -= 1


def overloaded_args(tensors: list[Any]) -> list[Any]:
    """The overloaded arguments of a call whose tensor arguments are ``tensors`` (in the
    schema's order, lists spread), as torch's ``append_overloaded_tensor`` collects them: the
    first argument of each class that defines ``__torch_dispatch__``, in the order chapter
    9's piece ``overloaded_args`` gives their classes (torch orders ``__torch_function__``'s
    and ``__torch_dispatch__``'s overloaded arguments by one rule: a subclass before the
    classes it derives from, the rest left to right).
    ``[type(a) for a in overloaded_args(...)]`` is the ``types`` a handler receives."""
    first: dict[type, Any] = {}
    for t in tensors:
        cls = type(t)
        if cls not in first and has_torch_dispatch(cls):
            first[cls] = t
    if len(first) < 2:
        return list(first.values())
    order = function("overloaded_args")(list(first), TensorType)
    return [first[cls] for cls in order]


def multiple_dispatch_failed(op: Any, mode: Any, overloaded: list[Any]) -> TypeError:
    """torch's TypeError when every handler (the mode, then each overloaded argument's
    class) returned ``NotImplemented``."""
    lines = [] if mode is None else [f"  - mode object {mode!r}\n"]
    lines += [f"  - tensor subclass {type(a)!r}\n" for a in overloaded]
    return TypeError(
        f"Multiple dispatch failed for '{op.__module__}.{op.__name__}'; all "
        f"__torch_dispatch__ handlers returned NotImplemented:\n\n{''.join(lines)}\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented")


# ------------------------------------------------------------------ the constructors
def _marker(where: Any) -> Any:
    """A device object of its own, equal to ``where`` (see the module's text)."""
    from ..device import device

    return device(where.type, where.index)


def _marked_storage(storage: Any) -> Any:
    """A storage object over the same bytes as ``storage``, whose device is a marker."""
    from ..storage import UntypedStorage

    marked = UntypedStorage.__new__(UntypedStorage)
    marked._bytes, marked._nbytes = storage._bytes, storage._nbytes
    marked._device, marked._shared = _marker(storage._device), storage._shared
    return marked


def _check_tensor_class(cls: Any) -> None:
    from ..tensor import Tensor

    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")


def _make_subclass(cls: type, data: Any, require_grad: bool = False,
                  dispatch_strides: bool = False, dispatch_device: bool = False,
                  device_for_backend_keys: Any = None) -> Any:
    """``Tensor._make_subclass(cls, data, require_grad=False)``: ``data.detach()`` (a
    dispatched call: a mode or a subclass of ``data`` sees it) as an instance of ``cls``,
    sharing ``data``'s bytes and version counter, ``requires_grad`` set to
    ``require_grad``. An instance of a class with ``__torch_dispatch__`` has the ``Python``
    key (its storage object is a marked one over the same bytes).

    Raises:
        TypeError: ``cls`` is not a Tensor class, ``data`` not a tensor (torch's messages).
        RuntimeError: ``require_grad`` for a dtype that is not floating point.
    """
    from ..tensor import Tensor

    _check_tensor_class(cls)
    if not isinstance(data, Tensor):
        raise TypeError("_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                        f"{type(data).__name__}")
    from . import aten

    alias = aten.detach.default(data)
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
    from .. import dtypes
    from .. import layout as layouts
    from ..device import device as device_type
    from ..storage import UntypedStorage

    _check_tensor_class(cls)
    if not has_torch_dispatch(cls):
        raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
    shape = _ints(size, "size", positions.get("size"))
    if strides is None:
        if storage_offset is not None:
            raise RuntimeError("setting storage offset without stride not supported")
        stride, running = [], 1
        for n in reversed(shape):
            stride.append(running)
            running *= max(n, 1)
        stride_t = tuple(reversed(stride))
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


def subclass_repr(t: Any, tensor_contents: str) -> str:
    """``Tensor.__repr__(tensor_contents=...)`` (torch's ``_str``): ``tensor_contents`` in
    place of the values, after the class's name (``LoggingTensor(``; ``tensor(`` for a plain
    tensor), then torch's suffixes: the device unless the CPU, the size and dtype as torch
    names them, ``grad_fn=`` or ``requires_grad=True``. ``LoggingTensor``'s ``repr``."""
    from .. import dtypes
    from .._formatting import _add_suffixes, _autograd_suffix, _dtype_suffix
    from ..tensor import Tensor

    prefix = "tensor(" if type(t) is Tensor else f"{type(t).__name__}("
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


def alias_outputs(op: Any, values: tuple[Any, ...], out: Any) -> None:
    """What torch's ``ADInplaceOrView`` kernel, which runs above ``Python``, does around a
    call that a Tensor subclass's ``__torch_dispatch__`` computed: each argument the schema
    writes (``Tensor(a!)``) that is such an instance has its version bumped; each result the
    schema makes a view of an argument (``Tensor(a)``, ``Tensor(a)[]``) that is such an
    instance becomes a view of it (its ``_base``, sharing its version counter), but for
    ``detach`` and ``alias``-free ops (torch's ``detach`` shares the counter and is no
    view)."""
    schema = op.schema
    bases: dict[str, Any] = {}
    for argument, value in zip(schema.arguments, values, strict=True):
        if argument.alias is None:
            continue
        bases[argument.alias.split()[0].rstrip("!")] = value  # ``a``, ``a!``, ``a -> *``
        if "!" in argument.alias:
            for t in value if isinstance(value, list | tuple) else (value,):
                if isinstance(t, TensorType) and python_tensor(t):
                    t._version_counter.value += 1
    views = [r for r in schema.returns if r.alias is not None and "!" not in r.alias]
    if not views:
        return
    results = (out,) if len(schema.returns) == 1 else tuple(out)
    for ret, result in zip(schema.returns, results, strict=False):
        base = bases.get(ret.alias or "")
        if ret.alias is None or "!" in ret.alias or not isinstance(base, TensorType):
            continue
        for t in result if isinstance(result, list | tuple) else (result,):
            if isinstance(t, TensorType) and python_tensor(t) and t is not base:
                t._version_counter = base._version_counter
                if op.op_name != "detach":
                    t._base = base if base._base is None else base._base


def python_tensor(t: Any) -> bool:
    """Is ``t`` an instance of a Tensor class with ``__torch_dispatch__`` (torch: a tensor
    with the ``Python`` key in its own key set)?"""
    where = t._storage._device
    return where is not CPU and where is not META and has_torch_dispatch(type(t))


def subclass_like(*tensors: Any) -> bool:
    """torch's ``isTensorSubclassLike`` for any of ``tensors``: a dispatch mode is active, or
    one is an instance of a class with ``__torch_dispatch__`` (where torch's formulas then
    compute out of place, or through the ops a handler can see)."""
    if state.modes:
        return True
    return any(isinstance(t, TensorType) and python_tensor(t) for t in tensors)
