"""A dispatch mode, and a Tensor subclass, that log every aten op a program runs, as torch's
``torch.testing._internal.logging_tensor`` does (chapter 9's demos use it)::

    with capture_logs_with_logging_tensor_mode() as logs:
        y = (x * 2).sum(1)
    logs  # ['$1: f32[2, 3] = reftensor._ops.aten.mul.Tensor($0, 2)',
          #  '$2: f32[2] = reftensor._ops.aten.sum.dim_IntList($1, [\\'1\\'])']

Each line is ``<results> = <module>.<op>.<overload>(<arguments>)`` (:func:`log_line`): a tensor
is ``$`` and a number the log gives it when it first shows it, a result tensor also shows its
dtype's short name and its shape. torch's lines read ``torch._ops.aten...`` and
``torch.float32`` where reftensor's read ``reftensor._ops.aten...`` and ``reftensor.float32``.

``LoggingTensor(x)`` (a wrapper subclass: ``Tensor._make_wrapper_subclass``, with
``__torch_dispatch__``) logs the ops run on it instead, forward and backward, without a mode::

    with capture_logs() as logs:
        t = LoggingTensor(x, requires_grad=True)
        log_input("t", t)
        (t * 2).sum().backward()

In ``capture_logs()`` (``is_mode=False``) only a ``LoggingTensor`` gets a ``$`` number; any
other tensor is written as its ``repr``, as torch's log writes it.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ... import dtypes
from ..._ops.tensor_type import TensorType
from ...tensor import Tensor
from ...utils._python_dispatch import TorchDispatchMode

__all__ = ["DTYPE_ABBRS", "LoggingTensor", "LoggingTensorMode", "capture_logs",
           "capture_logs_with_logging_tensor_mode", "log_input", "log_line"]

#: a dtype's short name in a log line (torch's ``torch.utils._dtype_abbrs.dtype_abbrs``)
DTYPE_ABBRS: dict[Any, str] = {
    dtypes.bool: "b8", dtypes.uint8: "u8", dtypes.int8: "i8", dtypes.int16: "i16",
    dtypes.int32: "i32", dtypes.int64: "i64", dtypes.float16: "f16", dtypes.bfloat16: "bf16",
    dtypes.float32: "f32", dtypes.float64: "f64",
}


def log_line(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any,
             shortid: Callable[[Any], int | None], abbrs: dict[Any, str]) -> str:
    """One line of the log: the call of op ``name`` with ``args`` and ``kwargs`` (as a dispatch
    mode receives them) that returned ``out``, as torch's ``LoggingTensorHandler`` writes it.

    Args:
        name: ``"reftensor._ops.aten.mul.Tensor"`` (the op's ``__module__`` and ``__name__``).
        args, kwargs: the call's arguments; ``out``: its result (a tensor, or a tuple or list
            of them, or None).
        shortid: the log's number for a tensor (a tensor it has not seen gets the next
            number, so the order in which the line asks decides the numbers); None for a
            value that is not a tensor.
        abbrs: a dtype's short name (``reftensor.float32``: ``"f32"``; ``DTYPE_ABBRS``).

    Returns:
        ``f"{results} = {name}({arguments})"``. Each value is formatted by mapping every leaf
        of it (inside lists and tuples, which are kept: a named tuple becomes a tuple) to a
        string: a tensor to ``$`` and its ``shortid``, anything else to its ``repr``; the
        mapped value is then written with ``str`` (a list of ints ``[2, 3]`` is ``['2',
        '3']``; a lone ``2`` is ``2``). The arguments are the positional ones, then
        ``name=value`` for each keyword one, joined by ``", "``; the results are mapped after
        all the arguments, a tensor to ``$<id>: <abbrs[dtype]>[<sizes joined by ", ">]``.
        ``$1: f32[2, 3] = reftensor._ops.aten.mul.Tensor($0, 2)``.
    """
    # BEGIN PIECE log_line
    def mapped(value: Any, typed: bool) -> Any:
        if isinstance(value, list):
            return [mapped(v, typed) for v in value]
        if isinstance(value, tuple):
            return tuple(mapped(v, typed) for v in value)
        number = shortid(value)
        if number is None:
            return repr(value)
        if typed:
            return f"${number}: {abbrs[value.dtype]}[{', '.join(map(str, value.shape))}]"
        return f"${number}"

    arguments = [str(mapped(a, False)) for a in args]
    arguments += [f"{k}={mapped(v, False)!s}" for k, v in kwargs.items()]
    return f"{mapped(out, True)!s} = {name}({', '.join(arguments)})"
    # END PIECE


class _Log:
    """One capture's lines and its numbering of tensors (by identity: a number belongs to one
    tensor object while it lives): every tensor with ``is_mode``, else only a
    ``LoggingTensor`` (torch's ``use_shortid_for_all_tensors``)."""

    def __init__(self, is_mode: bool = True) -> None:
        self.is_mode = is_mode
        self.lines: list[str] = []
        self._ids: dict[int, tuple[weakref.ref[Any], int]] = {}
        self._next = 0

    def shortid(self, t: Any) -> int | None:
        if not isinstance(t, TensorType if self.is_mode else LoggingTensor):
            return None
        known = self._ids.get(id(t))
        if known is not None and known[0]() is t:
            return known[1]
        self._ids[id(t)] = (weakref.ref(t), self._next)
        self._next += 1
        return self._next - 1


_logs: list[_Log] = []


def _log(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    """Add a line to each active capture (torch's ``logger.info`` and its handler)."""
    for log in _logs:
        log.lines.append(log_line(name, args, kwargs, out, log.shortid, DTYPE_ABBRS))


def _tree_map(fn: Callable[[Any], Any], value: Any) -> Any:
    """``fn`` on each leaf of lists, tuples and dicts (``torch.utils._pytree.tree_map``, for
    what an aten call takes and returns); a named tuple keeps its type."""
    if type(value) is dict:
        return dict(zip(value, _tree_map(fn, list(value.values())), strict=True))
    if not isinstance(value, list | tuple):
        return fn(value)
    mapped = [_tree_map(fn, item) for item in value]
    if type(value) is list:
        return mapped
    return type(value)(*mapped) if hasattr(value, "_fields") else tuple(mapped)


class LoggingTensor(Tensor):
    """torch's ``LoggingTensor``: a wrapper subclass holding ``elem`` (the tensor it stands
    for: same sizes, strides, offset, dtype, device), which runs each op on the ``elem`` of
    its arguments, wraps the tensors it returns, and logs the call. It requires grad when
    built with ``requires_grad=True`` (``elem`` is then detached: autograd records the
    ``LoggingTensor``); otherwise ``elem`` may require grad itself."""

    __slots__ = ["elem"]

    context = contextlib.nullcontext

    @staticmethod
    def __new__(cls, elem: Any, *args: Any, **kwargs: Any) -> LoggingTensor:
        r = Tensor._make_wrapper_subclass(
            cls, elem.size(), strides=elem.stride(), storage_offset=elem.storage_offset(),
            dtype=elem.dtype, layout=elem.layout, device=elem.device,
            requires_grad=kwargs.get("requires_grad", False))
        r.elem = elem.detach() if r.requires_grad else elem
        return r

    def __repr__(self) -> str:  # type: ignore[override]
        return super().__repr__(tensor_contents=f"{self.elem}")

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        def unwrap(e: Any) -> Any:
            return e.elem if isinstance(e, cls) else e

        def wrap(e: Any) -> Any:
            return cls(e) if isinstance(e, Tensor) else e

        with cls.context():
            rs = _tree_map(wrap, func(*_tree_map(unwrap, args),
                                      **_tree_map(unwrap, kwargs or {})))
        _log(f"{func.__module__}.{func.__name__}", args, kwargs or {}, rs)
        return rs


def log_input(name: str, var: Any) -> None:
    """Log ``var`` as the input called ``name``: ``$0: f32[2, 3] = input('x')``."""
    _log("input", (name,), {}, var)


class LoggingTensorMode(TorchDispatchMode):
    """Runs every op, then adds its line to each active :func:`capture_logs`."""

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        _log(f"{func.__module__}.{func.__name__}", args, kwargs, out)
        return out


@contextlib.contextmanager
def capture_logs(is_mode: bool = False) -> Iterator[list[str]]:
    """The lines logged inside the ``with`` block (a list, filled as they come). With
    ``is_mode`` every tensor gets a ``$`` number (for a mode's log); without, only a
    ``LoggingTensor`` does, and any other tensor is written as its ``repr``."""
    log = _Log(is_mode)
    _logs.append(log)
    try:
        yield log.lines
    finally:
        _logs.remove(log)


@contextlib.contextmanager
def capture_logs_with_logging_tensor_mode() -> Iterator[list[str]]:
    """``LoggingTensorMode`` and :func:`capture_logs` together."""
    with LoggingTensorMode(), capture_logs(True) as logs:
        yield logs
