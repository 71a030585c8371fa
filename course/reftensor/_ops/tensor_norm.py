"""``t.norm(...)``: how ``Tensor`` reaches chapter 4's ``reftensor.norm``.

torch writes ``Tensor.norm`` in Python (``_tensor.py``) as a call of ``torch.norm``
(``torch/functional.py``), which picks ``linalg.vector_norm`` or ``linalg.matrix_norm``. In
reftensor that function is ``linalg.py`` (chapter 4), which imports ``Tensor``: so ``linalg``
registers its ``norm`` here with :func:`set_norm` when it is imported, and ``Tensor.norm``
calls it through :func:`norm`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["norm", "set_norm"]


def _missing(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("reftensor.linalg is not loaded: import reftensor first")


class _Registry:
    __slots__ = ("function",)

    def __init__(self) -> None:
        self.function: Callable[..., Any] = _missing


_registry = _Registry()


def set_norm(function: Callable[..., Any]) -> None:
    """Register ``norm(input, p, dim, keepdim, out, dtype)`` (``linalg`` does, when
    imported)."""
    _registry.function = function


def norm() -> Callable[..., Any]:
    return _registry.function
