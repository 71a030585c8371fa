"""Grad mode: whether operations record the backward graph (``torch.autograd.grad_mode``).

One process-wide switch (torch keeps one per thread; reftensor has one thread):

* ``enabled``: when False, no op records a node, so results never require grad
  (``no_grad``, ``set_grad_enabled(False)``, ``inference_mode``);
* ``inference``: inside ``inference_mode``, new tensors are *inference tensors*
  (``Tensor.is_inference()``); outside it they may not be saved for backward, updated in
  place, or made to require grad.

Each context manager below also works as a decorator, as torch's do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .._ops.state import state as dispatch_state

__all__ = [
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


# The switches live in the dispatch state, which every op call reads (``reftensor/_ops``).
state = dispatch_state

def is_grad_enabled() -> bool:
    """Is grad mode on (``torch.is_grad_enabled``)?"""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """Are we inside ``inference_mode`` (``torch.is_inference_mode_enabled``)?"""
    return state.inference


class _Mode:
    """A context manager that sets ``state`` on entry and restores it on exit; used as a
    decorator, it wraps each call of the function in the same mode."""

    def __init__(self, enabled: bool | None, inference: bool | None = None) -> None:
        self._target = (enabled, inference)  # None: leave that flag as it is
        self._saved: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._saved.append((state.enabled, state.inference))
        enabled, inference = self._target
        if enabled is not None:
            state.enabled = enabled
        if inference is not None:
            state.inference = inference

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference = self._saved.pop()

    def __call__(self, fn: F) -> F:
        target = self._target

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with _Mode(*target):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_Mode):
    """Record nothing: results of ops do not require grad (``torch.no_grad``).

    Used to update parameters (``p -= lr * p.grad``) and to evaluate a model.
    """

    def __init__(self) -> None:
        super().__init__(False)


class enable_grad(_Mode):
    """Record again inside a ``no_grad`` block (``torch.enable_grad``)."""

    def __init__(self) -> None:
        super().__init__(True)


class set_grad_enabled(_Mode):
    """Set grad mode to ``mode``, at once (as a call) and for a ``with`` block
    (``torch.set_grad_enabled``). ``set_grad_enabled(False)`` is ``no_grad()``."""

    def __init__(self, mode: bool) -> None:
        super().__init__(bool(mode))
        self._previous = state.enabled
        state.enabled = bool(mode)  # the call itself sets the mode, as in torch

    def __enter__(self) -> None:
        self._saved.append((self._previous, state.inference))

    def __call__(self, fn: F) -> F:
        state.enabled = self._previous  # as a decorator, only the calls change the mode
        return super().__call__(fn)


class inference_mode(_Mode):
    """``no_grad`` that also marks every tensor it creates as an inference tensor
    (``torch.inference_mode``). ``inference_mode(False)`` changes nothing."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__(False, True) if mode else super().__init__(None, None)
