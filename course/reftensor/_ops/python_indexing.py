"""``t[index]`` and ``t[index] = value``: how ``Tensor`` reaches chapter 2's indexing.

torch implements ``Tensor.__getitem__``/``__setitem__`` in its Python binding layer
(``python_variable_indexing.cpp``), which turns an index into aten ops (``select``,
``slice``, ``unsqueeze``, ``index``, ``copy_``, ``index_put_``). In reftensor that
decomposition is chapter 2's ``indexing.py``, and ``Tensor`` (chapter 1) must not import it:
``indexing`` registers its two functions here with :func:`set_indexing` when it is imported,
and ``Tensor`` calls them through :func:`indexing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["Indexing", "indexing", "set_indexing"]


class Indexing(NamedTuple):
    getitem: Callable[[Any, Any], Any]
    setitem: Callable[[Any, Any, Any], None]


def _missing(*args: Any) -> Any:
    raise RuntimeError("reftensor.indexing is not loaded: import reftensor first")


class _Registry:
    __slots__ = ("functions",)

    def __init__(self) -> None:
        self.functions = Indexing(_missing, _missing)


_registry = _Registry()


def set_indexing(getitem: Callable[[Any, Any], Any],
                 setitem: Callable[[Any, Any, Any], None]) -> None:
    """Register the decomposition (``reftensor/indexing.py`` does, when imported)."""
    _registry.functions = Indexing(getitem, setitem)


def indexing() -> Indexing:
    return _registry.functions
