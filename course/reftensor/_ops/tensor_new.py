"""``t.new_tensor(data)``: how ``Tensor`` reaches chapter 1's ``reftensor.tensor``.

torch writes ``Tensor.new_tensor`` in its Python binding layer (``python_variable_methods``),
with the code of ``torch.tensor`` (``tensor_new.cpp``), not in its op table. In reftensor
that code is ``factories.py``, which imports ``Tensor``: so ``factories`` registers its
``new_tensor`` here with :func:`set_new_tensor` when it is imported, and ``Tensor`` calls it
through :func:`new_tensor`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["new_tensor", "set_new_tensor"]


def _missing(*args: Any) -> Any:
    raise RuntimeError("reftensor.factories is not loaded: import reftensor first")


class _Registry:
    __slots__ = ("function",)

    def __init__(self) -> None:
        self.function: Callable[..., Any] = _missing


_registry = _Registry()


def set_new_tensor(function: Callable[..., Any]) -> None:
    """Register ``new_tensor(self, data, dtype, device, requires_grad)`` (``factories``
    does, when imported)."""
    _registry.function = function


def new_tensor() -> Callable[..., Any]:
    return _registry.function
