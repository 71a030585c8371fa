"""The ``Python`` key's kernel: how a call reaches a ``TorchDispatchMode`` (chapter 9).

While a mode is active, every call has the ``Python`` key; so does a call with a tensor
argument whose class defines ``__torch_dispatch__`` (``torch_dispatch.py``). Its kernel:

1. turns the call's values (every argument, in the schema's order) into the ``args`` and
   ``kwargs`` a mode receives (:func:`mode_arguments`, torch's ``parseIValuesToPyArgsKwargs``);
2. pops the innermost mode off the stack, so that the ops the mode runs (``func(*args)``)
   dispatch below it: to the next mode out, or to the kernels;
3. calls the mode's ``__torch_dispatch__(func, types, args, kwargs)``, and puts the mode
   back afterwards, even if it raised;
4. when no mode is active or the mode returned ``NotImplemented``, calls the
   ``__torch_dispatch__`` of each overloaded argument's class in turn (subclasses first, then
   left to right) until one returns something else; raises torch's TypeError when none
   does. What a class returns then gets what torch's ``ADInplaceOrView`` kernel (above
   ``Python``) gives it: a written argument's version bumped, a view's base and version
   counter (``alias_outputs``).

A mode runs below ``Autograd``, as torch's does: whatever its ``__torch_dispatch__`` computes
is not recorded by autograd (a call that came through ``Autograd`` is recorded once, above
the mode), even for a tensor that requires grad made there.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .state import state
from .torch_dispatch import alias_outputs, multiple_dispatch_failed, overloaded_tensors

__all__ = ["ModeArgument", "mode_arguments", "python_key"]


class ModeArgument(NamedTuple):
    """What :func:`mode_arguments` needs of one argument of a schema."""

    name: str  # ``"alpha"``
    kwarg_only: bool  # after the schema's ``*``
    has_default: bool  # the schema gives a default (``alpha=1``)
    default: Any  # that default as a Python value (a list default as a tuple), or None
    is_list: bool  # a list type (``int[]``, ``int[1]?``, ``Tensor[]``, ``Tensor?[]``)


def mode_arguments(arguments: list[ModeArgument], values: list[Any]
                   ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The ``(args, kwargs)`` a dispatch mode receives for a call, as torch's
    ``parseIValuesToPyArgsKwargs`` makes them.

    Args:
        arguments: the schema's arguments, in order.
        values: the call's value of every argument, in the same order.

    Returns:
        ``args``: the positional (not keyword-only) arguments' values, the trailing ones that
        hold their default left out; ``kwargs``: the keyword-only arguments that do not hold
        their default, by name. A value holds its default when it is that default (``None``)
        or of the same type and equal (``1.0`` is not the default ``1``; a list equals a tuple
        of the same items). A list argument's value is a ``list`` (reftensor may hold a tuple).
        ``x.sum(1)``, whose values are ``[x, (1,), False, None]``, gives ``((x, [1]), {})``.
    """
    # BEGIN PIECE mode_arguments
    def holds_default(value: Any, arg: ModeArgument) -> bool:
        if not arg.has_default:
            return False
        if value is arg.default:
            return True
        if isinstance(value, list | tuple) and isinstance(arg.default, list | tuple):
            return tuple(value) == tuple(arg.default)
        return type(value) is type(arg.default) and value == arg.default

    def as_python(value: Any, arg: ModeArgument) -> Any:
        return list(value) if arg.is_list and isinstance(value, tuple) else value

    positional = sum(1 for a in arguments if not a.kwarg_only)
    end = positional
    while end and holds_default(values[end - 1], arguments[end - 1]):
        end -= 1
    args = tuple(as_python(values[i], arguments[i]) for i in range(end))
    kwargs = {a.name: as_python(v, a)
              for a, v in zip(arguments[positional:], values[positional:], strict=True)
              if not holds_default(v, a)}
    return args, kwargs
    # END PIECE


def python_key(op: Any, keys: int, *values: Any) -> Any:
    """The ``Python`` key's kernel, below ``Autograd``: while a mode is active, the innermost
    mode handles the call of ``op`` (an ``OpOverload``), with itself popped off the stack
    meanwhile; when it returns ``NotImplemented`` (or no mode is active), each overloaded
    argument's class does (``__torch_dispatch__`` of a Tensor subclass, in torch's order:
    ``torch_dispatch.overloaded_tensors``), the next one when one returns ``NotImplemented``, and
    torch's TypeError when all do. Each receives ``(func, types, args, kwargs)``, ``types``
    the overloaded arguments' classes. A list returned for ``Tensor[]`` comes back as a tuple,
    as a kernel's does. ``keys`` is the key set below ``Python`` (unused: a handler calls
    ``func`` afresh)."""
    args, kwargs = mode_arguments(op.mode_arguments(), list(values))
    overloaded = overloaded_tensors(op.tensors(values))
    types = tuple(type(a) for a in overloaded)
    mode = None
    state.below_autograd += 1  # what the handlers run skips ``Autograd``
    try:
        if state.modes:
            mode = state.modes.pop()
            try:
                out = mode.__torch_dispatch__(op, types, args, kwargs)
            finally:
                state.modes.append(mode)
            if out is not NotImplemented:
                return _as_kernel_result(op, out)
        for a in overloaded:
            out = a.__torch_dispatch__(op, types, args, kwargs)
            if out is not NotImplemented:
                alias_outputs(op, values, out)
                return _as_kernel_result(op, out)
    finally:
        state.below_autograd -= 1
    raise multiple_dispatch_failed(op, mode, overloaded)


def _as_kernel_result(op: Any, out: Any) -> Any:
    # an op that returns ``Tensor[]`` gives the list to the handler (``func(*args)``), and the
    # kernels' tuple to whoever called it: torch's binding turns the list a handler returns
    # into the tuple ``x.split(1)`` gives
    return tuple(out) if op._returns_list and type(out) is list else out
