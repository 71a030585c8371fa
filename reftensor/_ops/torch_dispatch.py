"""``__torch_dispatch__`` on Tensor subclasses (chapter 9): which tensors have the ``Python``
key, and how the ``Python`` key's kernel hands a call to their classes.

A Tensor subclass whose class defines ``__torch_dispatch__`` (a classmethod; not the disabled
default, :func:`_disabled_torch_dispatch_impl`, which ``Tensor`` holds) has the ``Python`` key
on every call that has one of its instances as an argument, as if a dispatch mode were
active. The ``Python`` kernel (``python_key.py``) then asks, when no mode handles the call,
each **overloaded argument**'s class (:func:`overloaded_tensors`) in torch's order, and raises
torch's TypeError (:func:`multiple_dispatch_failed`) when all return ``NotImplemented``.

Two constructors make such tensors (``Tensor._make_subclass`` and
``Tensor._make_wrapper_subclass``, torch's; ``reftensor/subclasses.py``, above chapter 1's
storage and formatting):

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
from collections.abc import Iterator
from typing import Any

from .. import _C
from .._C import _disabled_torch_dispatch_impl
from ..device import CPU, META
from .python_functions import function
from .state import state
from .tensor_type import TensorType

__all__ = ["_disabled_torch_dispatch_impl",
           "alias_outputs", "has_torch_dispatch", "multiple_dispatch_failed", "no_dispatch",
           "overloaded_tensors", "python_tensor", "subclass_like"]


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


# ``reftensor._C._disabled_torch_dispatch_impl`` (``Tensor.__torch_dispatch__``) runs under it
_C._no_dispatch = no_dispatch


def overloaded_tensors(tensors: list[Any]) -> list[Any]:
    """The overloaded arguments of a call whose tensor arguments are ``tensors`` (in the
    schema's order, lists spread), as torch's ``append_overloaded_tensor`` collects them: the
    first argument of each class that defines ``__torch_dispatch__``, in the order chapter
    9's piece ``overloaded_args`` gives their classes (torch orders ``__torch_function__``'s
    and ``__torch_dispatch__``'s overloaded arguments by one rule: a subclass before the
    classes it derives from, the rest left to right).
    ``[type(a) for a in overloaded_tensors(...)]`` is the ``types`` a handler receives."""
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
