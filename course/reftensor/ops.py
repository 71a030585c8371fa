"""``reftensor.ops`` (``torch.ops``): the op table by namespace, as torch exposes it.

``reftensor.ops.aten.add`` is the op's :class:`~reftensor._ops.OpOverloadPacket` and
``reftensor.ops.aten.add.Tensor`` one overload, an :class:`~reftensor._ops.OpOverload` called
with the schema's arguments (keyword-only ones by keyword): ``reftensor.ops.aten.add.Tensor(a,
b, alpha=2)`` dispatches as ``a.add(b, alpha=2)`` does. It is what a ``TorchDispatchMode``
receives as ``func`` (chapter 9). reftensor has one namespace, ``aten``.
"""

from ._ops.native_functions import aten

__all__ = ["aten"]
