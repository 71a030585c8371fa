"""The namespaces of ``reftensor.ops`` besides ``aten``: those ``reftensor.library`` defines
ops in (torch's ``torch._ops._OpNamespace``).

``reftensor.ops.mylib`` is made when first asked for, empty, as ``torch.ops.mylib`` is;
``reftensor.library`` adds an :class:`~reftensor._ops.OpOverloadPacket` to it for each op it
defines (``reftensor.ops.mylib.foo``, whose overload ``default`` is ``mylib::foo``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["OpNamespace", "namespace"]


class OpNamespace:
    """``reftensor.ops.mylib``: an :class:`~reftensor._ops.OpOverloadPacket` per op name, as
    attributes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._packets: dict[str, Any] = {}

    def __getattr__(self, op: str) -> Any:
        # (only called for a name that is not an attribute: not a packet of the namespace)
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")

    def add(self, packet: Any) -> None:
        self._packets[packet.__name__] = packet
        setattr(self, packet.__name__, packet)

    def remove(self, op: str) -> None:
        if self._packets.pop(op, None) is not None:
            delattr(self, op)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._packets.values()))

    def __contains__(self, op: str) -> bool:
        return op in self._packets

    def __getitem__(self, op: str) -> Any:
        return self._packets[op]

    def __repr__(self) -> str:
        return f"<module 'reftensor.ops.{self.name}' from 'reftensor.ops'>"


_NAMESPACES: dict[str, OpNamespace] = {}


def namespace(name: str) -> OpNamespace:
    """The namespace ``name`` (made, empty, when first asked for)."""
    found = _NAMESPACES.get(name)
    if found is None:
        found = _NAMESPACES[name] = OpNamespace(name)
    return found
