"""The few names of ``torch._C`` that programs written against ``__torch_function__`` use.

torch keeps a per-thread switch for ``__torch_function__`` (``torch/csrc/utils/
disable_torch_function.cpp``) with three states: enabled, disabled for subclasses (inside the
default ``Tensor.__torch_function__``, so that calling ``func`` there runs the op instead of
coming back), and disabled altogether. reftensor has one thread, so the switch is one value,
:data:`_state`, which the hook (``reftensor/overrides.py``) reads on every call that has an
overriding argument.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass",
           "_disabled_torch_function_impl", "_is_torch_function_enabled"]

ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2  # torch's ``TorchFunctionDisabledState``


class _State:
    __slots__ = ("disabled",)

    def __init__(self) -> None:
        self.disabled = ENABLED


_state = _State()


def _is_torch_function_enabled() -> bool:
    """``torch._C._is_torch_function_enabled``: False inside either ``Disable`` block."""
    return _state.disabled == ENABLED


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
    ``__torch_function__`` is called."""

    _level = SUBCLASSES_DISABLED


class DisableTorchFunction(_Disable):
    """``torch._C.DisableTorchFunction``: inside it, no ``__torch_function__`` is called
    (torch's also turns off its ``TorchFunctionMode``s, which reftensor does not have)."""

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
