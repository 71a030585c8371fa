"""``t.norm(...)``, ``t.unique(...)``: how ``Tensor`` reaches torch's Python functions that
chapter 4 writes.

torch writes ``Tensor.norm``, ``Tensor.unique`` and ``Tensor.unique_consecutive`` in Python
(``_tensor.py``) as calls of ``torch.norm``, ``torch.unique`` and
``torch.unique_consecutive`` (``torch/functional.py``). In reftensor those functions are in
``linalg.py`` and ``sorting.py`` (chapter 4), which import ``Tensor``: so each module
registers its functions here by name with :func:`set_function` when it is imported, and the
``Tensor`` methods call them through :func:`function`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["function", "set_function"]

_registry: dict[str, Callable[..., Any]] = {}


def set_function(name: str, found: Callable[..., Any]) -> None:
    """Register torch's Python function ``name`` (``linalg`` and ``sorting`` do, when
    imported)."""
    _registry[name] = found


def function(name: str) -> Callable[..., Any]:
    """The function registered as ``name``.

    Raises:
        RuntimeError: nothing registered it (reftensor was not imported whole).
    """
    if name not in _registry:
        raise RuntimeError(f"reftensor's {name} is not loaded: import reftensor first")
    return _registry[name]
