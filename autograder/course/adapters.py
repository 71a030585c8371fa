"""How a check calls an answer whose exercise has an ``adapter`` (``Exercise.adapter``):
``function(answer, *args)`` in place of ``answer(*args)``. Imported by the judge in the
sandbox too, so it imports nothing beyond the standard library."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["adapted"]


def adapted(answer: Callable[..., Any], adapter: str) -> Callable[..., Any]:
    """``answer`` as a check calls it: through ``adapter`` (``"module:function"``, a module of
    ``autograder.course``) when there is one, else ``answer`` itself.

    Raises:
        ValueError: the adapter is not a function of ``autograder.course``.
    """
    if not adapter:
        return answer
    module, _, name = adapter.partition(":")
    if not module.startswith("autograder.course.") or not name.isidentifier():
        raise ValueError(f"not an adapter: {adapter!r}")
    run = getattr(importlib.import_module(module), name)
    return lambda *args: run(answer, *args)
