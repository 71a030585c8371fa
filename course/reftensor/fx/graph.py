"""``Graph`` (``torch.fx.Graph``): a program as a list of :class:`~reftensor.fx.node.Node`.

A graph is straight-line code: its nodes in the order they run, placeholders first, one
``output`` last. Build one with :meth:`Graph.placeholder`, :meth:`Graph.get_attr`,
:meth:`Graph.call_function` and :meth:`Graph.output`; print it (``str(graph)``) as torch
prints a graph::

    graph():
        %x_1 : [num_users=1] = placeholder[target=x_1]
        %mul : [num_users=1] = call_function[target=reftensor.ops.aten.mul.Tensor]
        return mul

(the ``call_function`` line continues ``(args = (%x_1, 2), kwargs = {})``), or turn it into
Python source with :meth:`Graph.python_code` (``reftensor.fx.codegen``).

Each node gets a unique name from a candidate, by torch's rule (``_Namespace``). A candidate
is a stem and maybe a number (``x_1``: ``x`` and 1; ``add_``: no number). A numbered
candidate that is free is taken as it is. Otherwise the number counts on from the last one
given to the stem (0 at first): a Python keyword or builtin (``sum``, ``max``, ``slice``) or a
name the generated code uses (``reftensor``, ``device``, ``inf``, ``nan``) takes the next
number (``sum_1``), and a name already taken the next free one (``add``, ``add_1``,
``add_2``; ``add_``, ``add__1``).
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import re
from typing import Any

from .codegen import PythonCode, python_code
from .node import Argument, Node, map_aggregate, target_name

__all__ = ["Graph"]

#: the names the generated code reads as globals, besides Python's builtins
#: (torch's, with ``reftensor``, which reftensor's code reads where torch's reads ``torch``)
RESERVED = frozenset({"reftensor", "device", "inf", "nan", "NoneType", "torch", "fx_pytree",
                      "pytree"})
#: a Python name: its stem, and the number after its last ``_`` (``x_1``: ``x``, 1), if any
_NUMBERED = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


def node_name(candidate: str, taken: set[str], last: dict[str, int],
              reserved: frozenset[str]) -> str:
    """The name a node made from ``candidate`` gets, by torch's rule
    (``torch.fx.graph._Namespace.create_name``); it is recorded in ``taken`` and its number
    in ``last``.

    Args:
        candidate: a Python name: a stem, and maybe a number, the digits after its last
            ``_`` when something comes before that ``_`` (``x_1``: ``x`` and 1; ``x_01``:
            ``x`` and 1; ``add__1``: ``add_`` and 1; ``add_`` and ``_1``: no number).
        taken: the names given so far (the name given is added).
        last: the last number given to each stem (0 for a stem not in it); the stem's entry
            is set to the name's number.
        reserved: names the generated code reads as globals (``reftensor``, ``device``,
            ``inf``, ...), avoided as Python's keywords and builtins are.

    Returns:
        A numbered candidate that is free, as it is (its number recorded). Otherwise the
        number counts on from ``last[stem]``: a keyword, builtin or reserved name takes the
        next number (``sum_1``; no such name ends in a number), and while the name is taken
        the number goes up by one (``add``, ``add_1``, ``add_2``); the stem's last number is
        then the name's (a free unnumbered candidate keeps ``last[stem]`` as it was).
    """
    # BEGIN PIECE node_name
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("node_name")(candidate, taken, last, reserved)
    # END PIECE


class _Namespace:
    """The names taken in one graph, and the last number given to each stem."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._last: dict[str, int] = {}

    def create_name(self, candidate: str) -> str:
        """A free name made from ``candidate`` (see the module's docstring): its characters
        that cannot be in a Python name become ``_``, a leading digit gets a ``_`` before it,
        an empty one is ``_unnamed``; then :func:`node_name` (a graded piece) names it."""
        if _NUMBERED.match(candidate) is None:
            candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
        return node_name(candidate, self._taken, self._last, RESERVED)


class _Shown:
    """A leaf of an argument as ``str(graph)`` writes it (its ``repr``): a node as
    ``%name``, anything else with ``str``."""

    __slots__ = ("text",)

    def __init__(self, leaf: Any) -> None:
        self.text = f"%{leaf.name}" if isinstance(leaf, Node) else str(leaf)

    def __repr__(self) -> str:
        return self.text


def _format_arg(value: Argument) -> str:
    """An argument as ``str(graph)`` writes it: lists and tuples with their leaves as
    :class:`_Shown` writes them, a dict (the kwargs) as ``{key: value}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in value.items()) + "}"
    return repr(map_aggregate(value, _Shown))


class Graph:
    """The nodes of a program, in order (``nodes``); a name for each from one namespace."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._names = _Namespace()

    def create_node(self, op: str, target: Any, args: tuple[Argument, ...] = (),
                    kwargs: dict[str, Argument] | None = None, name: str | None = None
                    ) -> Node:
        """Append a node; its name is made from ``name`` (default: the target's name, an
        aten op's packet's: ``add`` for ``aten.add.Tensor``).

        Raises:
            RuntimeError: a node after the ``output`` node.
        """
        if self.nodes and self.nodes[-1].op == "output":
            raise RuntimeError("reftensor.fx: the graph already has its output node")
        if name is None:
            name = (target.overloadpacket.__name__ if hasattr(target, "overloadpacket")
                    else getattr(target, "__name__", str(target)))
        node = Node(self, self._names.create_name(name), op, target, args, kwargs or {})
        self.nodes.append(node)
        return node

    def placeholder(self, name: str, default_value: Any = inspect.Signature.empty) -> Node:
        """An input named ``name`` (its name in the generated ``forward``); with
        ``default_value``, the parameter's default there."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, name=name)

    def get_attr(self, qualified_name: str) -> Node:
        """The graph module's attribute ``qualified_name`` (``self._tensor_constant0``)."""
        return self.create_node("get_attr", qualified_name, name=qualified_name)

    def call_function(self, the_function: Any, args: tuple[Argument, ...] = (),
                      kwargs: dict[str, Argument] | None = None, name: str | None = None
                      ) -> Node:
        """A call of ``the_function`` (an aten ``OpOverload`` or ``operator.getitem``)."""
        target_name(the_function)  # refuse other callables now, not when printing
        return self.create_node("call_function", the_function, args, kwargs, name)

    def output(self, result: Argument) -> Node:
        """What the graph returns (nodes, constants, and lists, tuples, dicts of them)."""
        return self.create_node("output", "output", (result,), name="output")

    def python_code(self, root_module: str = "self", *, verbose: bool = False,
                    include_stride: bool = False, include_device: bool = False) -> PythonCode:
        """The graph as the source of a ``forward`` method (see
        :func:`reftensor.fx.codegen.python_code`)."""
        return python_code(self.nodes, root_module, verbose=verbose,
                           include_stride=include_stride, include_device=include_device)

    def format_node(self, node: Node) -> str:
        """One line of ``str(graph)``, as torch's ``Node.format_node``."""
        if node.op == "output":
            return f"return {node.args[0]}"
        head = f"%{node.name} : [num_users={len(node.users)}] = {node.op}"
        if node.op == "placeholder":
            default = f"(default={node.args[0]})" if node.args else ""
            return f"{head}[target={node.target}]{default}"
        if node.op == "get_attr":
            return f"{head}[target={node.target}]"
        return (f"{head}[target={target_name(node.target)}](args = "
                f"{_format_arg(node.args)}, kwargs = {_format_arg(node.kwargs)})")

    def __str__(self) -> str:
        return "\n".join(["graph():", *(f"    {self.format_node(n)}" for n in self.nodes)])
