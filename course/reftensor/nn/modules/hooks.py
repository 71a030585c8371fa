"""Handles for the hooks a Module keeps (``torch.utils.hooks.RemovableHandle``)."""

from __future__ import annotations

import itertools
from collections.abc import MutableMapping
from typing import Any

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """What ``register_forward_hook`` and the other registrations return.

    ``remove()`` takes the hook out of its dict (and out of the dicts that hold its flags,
    ``with_kwargs`` and ``always_call``); removing twice does nothing. ``id`` is the hook's key,
    unique in the process and increasing, so a dict of hooks runs them in registration order.
    Also a context manager that removes the hook on exit.
    """

    _ids = itertools.count()

    def __init__(self, hooks: MutableMapping[int, Any], *,
                 extra_dict: MutableMapping[int, Any] | list[MutableMapping[int, Any]]
                 | None = None) -> None:
        self.id = next(self._ids)
        self._hooks = hooks
        if extra_dict is None:
            self._extra: list[MutableMapping[int, Any]] = []
        elif isinstance(extra_dict, list):
            self._extra = extra_dict
        else:
            self._extra = [extra_dict]

    def remove(self) -> None:
        for table in (self._hooks, *self._extra):
            table.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
