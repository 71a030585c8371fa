"""``Node`` (``torch.fx.Node``): one step of a :class:`~reftensor.fx.graph.Graph`.

A node is one of four kinds, its ``op``:

* ``placeholder``: an input of the graph (``target`` is its name, ``x_1``);
* ``get_attr``: a value the graph module holds (``target`` is the attribute's name,
  ``_tensor_constant0``: a tensor the traced function read from outside);
* ``call_function``: a call of ``target`` (an :class:`~reftensor._ops.OpOverload` such as
  ``aten.mul.Tensor``, or ``operator.getitem`` to take one result of an op that returns
  several) with ``args`` and ``kwargs``, in which other nodes stand for the values they
  compute;
* ``output``: what the graph returns (``args[0]``: a node, or lists, tuples and dicts of
  nodes and constants).

``name`` is unique in its graph and is the variable that holds the node's value in the
graph's Python code. ``meta["val"]`` describes the value the node computed when it was
traced: for a tensor, a :class:`~reftensor.fx.experimental.proxy_tensor.TensorMeta` with its
shape, strides, dtype and device (a tuple of them for an op that returns several); a value
that is not a tensor itself.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

__all__ = ["Argument", "Node", "map_aggregate", "map_arg", "target_name"]

#: what a node's ``args`` and ``kwargs`` hold: nodes, constants, and lists, tuples and dicts
#: of them
Argument = Any


def target_name(target: Any) -> str:
    """How ``str(graph)`` and the generated code write a call's target:
    ``reftensor.ops.aten.mul.Tensor`` for an aten op, ``operator.getitem``.

    Raises:
        NotImplementedError: another callable (a graph calls only these).
    """
    if target is operator.getitem:
        return "operator.getitem"
    if hasattr(target, "overloadpacket"):  # an OpOverload
        return f"reftensor.ops.{target}"
    raise NotImplementedError(f"reftensor.fx: a call of {target!r} (only aten ops and "
                              "operator.getitem)")


def map_aggregate(value: Argument, fn: Callable[[Any], Any]) -> Argument:
    """``value`` with ``fn`` applied to each of its leaves: lists, tuples and dicts are
    rebuilt around the results (a tuple subclass, a named tuple of results, as a tuple;
    dict keys kept), anything else is a leaf (torch's ``torch.fx.node.map_aggregate``)."""
    if isinstance(value, dict):
        return {key: map_aggregate(item, fn) for key, item in value.items()}
    for kind in (list, tuple):
        if isinstance(value, kind):
            return kind(map_aggregate(item, fn) for item in value)
    return fn(value)


def map_arg(value: Argument, fn: Callable[[Node], Any]) -> Argument:
    """``value`` with every :class:`Node` in it replaced by ``fn(node)``, the rest kept
    (torch's ``torch.fx.node.map_arg``)."""
    return map_aggregate(value, lambda leaf: fn(leaf) if isinstance(leaf, Node) else leaf)


def nodes_in(value: Argument) -> list[Node]:
    """The nodes in ``value``, in the order they appear, each once."""
    found: dict[Node, None] = {}
    map_arg(value, lambda n: found.setdefault(n))
    return list(found)


class Node:
    """One step of a graph: ``op``, ``target``, ``args``, ``kwargs``, ``name``.

    ``users`` holds the nodes whose arguments name this one (a dict used as an ordered set,
    as torch's); ``all_input_nodes`` the nodes this one's arguments name, in order, each once.
    Build nodes with the :class:`~reftensor.fx.graph.Graph`'s methods, not directly.
    """

    def __init__(self, graph: Any, name: str, op: str, target: Any,
                 args: tuple[Argument, ...], kwargs: dict[str, Argument]) -> None:
        if op not in ("placeholder", "get_attr", "call_function", "output"):
            raise ValueError(f"reftensor.fx: unknown node op {op!r}")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.args = args
        self.kwargs = kwargs
        self.users: dict[Node, None] = {}
        self.meta: dict[str, Any] = {}
        self.all_input_nodes = nodes_in((args, kwargs))
        for n in self.all_input_nodes:
            n.users[self] = None

    def __repr__(self) -> str:
        return self.name
