"""The few names of ``torch._C`` that programs written against ``__torch_function__`` and
``__torch_dispatch__`` use.

torch keeps, per thread, a switch for ``__torch_function__`` (``torch/csrc/utils/
disable_torch_function.cpp``) with three states: enabled, disabled for subclasses (inside the
default ``Tensor.__torch_function__``, so that calling ``func`` there runs the op instead of
coming back; a ``TorchFunctionMode`` is still asked), and disabled altogether (no mode, no
subclass); and a stack of ``TorchFunctionMode`` objects (``torch/csrc/utils/
torch_function_mode.cpp``), the innermost last. Both are :data:`_state`, one per thread; the
hook (``reftensor/overrides.py``) reads them on every call that a mode or an overriding
argument sends it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass",
           "_disabled_torch_dispatch_impl", "_disabled_torch_function_impl",
           "_get_function_stack_at", "_is_torch_function_enabled",
           "_is_torch_function_mode_enabled", "_len_torch_function_stack",
           "_pop_torch_function_stack", "_push_on_torch_function_stack"]

ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2  # torch's ``TorchFunctionDisabledState``


class _State(threading.local):
    """The switch (``disabled``) and the mode stack (``modes``) of the calling thread."""

    def __init__(self) -> None:
        self.disabled = ENABLED
        self.modes: list[Any] = []


_state = _State()


def _is_torch_function_enabled() -> bool:
    """``torch._C._is_torch_function_enabled``: False inside either ``Disable`` block."""
    return _state.disabled == ENABLED


def _is_torch_function_mode_enabled() -> bool:
    """``torch._C._is_torch_function_mode_enabled``: is a mode on this thread's stack, and
    the switch not at "disabled altogether"?"""
    return bool(_state.modes) and _state.disabled != ALL_DISABLED


# ---------------------------------------------------------------- the mode stack (raw)
# (``reftensor.overrides._push_mode``/``_pop_mode`` are what ``TorchFunctionMode`` uses: they
# also switch the hook on and off; these only change the stack)
def _push_on_torch_function_stack(mode: Any) -> None:
    """``torch._C._push_on_torch_function_stack``: ``mode`` becomes the innermost."""
    _state.modes.append(mode)


def _pop_torch_function_stack() -> Any:
    """``torch._C._pop_torch_function_stack``: remove and return the innermost mode.

    Raises:
        RuntimeError: the stack is empty (torch's message).
    """
    if not _state.modes:
        raise RuntimeError("trying to pop from empty mode stack")
    return _state.modes.pop()


def _len_torch_function_stack() -> int:
    """``torch._C._len_torch_function_stack``."""
    return len(_state.modes)


def _get_function_stack_at(level: int) -> Any:
    """``torch._C._get_function_stack_at``: the mode at ``level`` (0: the outermost)."""
    return _state.modes[level]


# ---------------------------------------------------------------- the switch
class _Disable:
    """Sets the switch to ``_level`` (never lowers it) inside the ``with`` block."""

    _level = SUBCLASSES_DISABLED

    def __enter__(self) -> None:
        self._old = _state.disabled
        _state.disabled = max(self._old, self._level)

    def __exit__(self, *exc: Any) -> None:
        _state.disabled = self._old


class DisableTorchFunctionSubclass(_Disable):
    """``torch._C.DisableTorchFunctionSubclass``: inside it, no subclass's
    ``__torch_function__`` is called; the modes on the stack still are."""

    _level = SUBCLASSES_DISABLED


class DisableTorchFunction(_Disable):
    """``torch._C.DisableTorchFunction``: inside it, no ``__torch_function__`` is called,
    neither a subclass's nor a ``TorchFunctionMode``'s (the modes stay on the stack)."""

    _level = ALL_DISABLED


class _DisabledTorchFunctionImpl:
    """``torch._C._disabled_torch_function_impl``: what a class sets as its
    ``__torch_function__`` to opt out (``nn.Parameter`` does). Called, it runs ``func``
    with ``__torch_function__`` disabled for subclasses. Like torch's builtin, it does not
    bind to an instance (it is not a function)."""

    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


# ---------------------------------------------------------------- __torch_dispatch__
#: ``reftensor/_ops/torch_dispatch.py``'s ``no_dispatch`` (it sets this when imported:
#: chapter 0's ``_C`` imports nothing of reftensor, so no import of it closes a cycle)
_no_dispatch: Callable[[], AbstractContextManager[Any]] = nullcontext


def _disabled_torch_dispatch_impl(func: Any, types: Any, args: Any = (),
                                  kwargs: Any = None) -> Any:
    """``Tensor.__torch_dispatch__`` (torch's ``torch._C._disabled_torch_dispatch_impl``):
    a class that holds it has no ``__torch_dispatch__``; called, it runs ``func`` with
    ``__torch_dispatch__`` disabled (no mode, no subclass sees the call)."""
    with _no_dispatch():
        return func(*args, **(kwargs or {}))
