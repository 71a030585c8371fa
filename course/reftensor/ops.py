"""``reftensor.ops`` (``torch.ops``): the op table by namespace, as torch exposes it.

``reftensor.ops.aten.add`` is the op's :class:`~reftensor._ops.OpOverloadPacket` and
``reftensor.ops.aten.add.Tensor`` one overload, an :class:`~reftensor._ops.OpOverload` called
with the schema's arguments (keyword-only ones by keyword): ``reftensor.ops.aten.add.Tensor(a,
b, alpha=2)`` dispatches as ``a.add(b, alpha=2)`` does. It is what a ``TorchDispatchMode``
receives as ``func`` (chapter 9). The ops ``reftensor.library`` defines are in their own
namespaces: ``reftensor.ops.mylib.foo.default`` (any other name is a namespace, empty until
an op is defined in it, as in torch).
"""

from typing import Any

from ._ops.namespaces import namespace
from ._ops.native_functions import aten

__all__ = ["aten"]


def __getattr__(name: str) -> Any:
    """``reftensor.ops.mylib``: the namespace of that name (torch's ``torch.ops.mylib``)."""
    if name.startswith("__"):
        raise AttributeError(f"module 'reftensor.ops' has no attribute '{name}'")
    return namespace(name)
