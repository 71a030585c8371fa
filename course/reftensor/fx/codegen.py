"""A graph's Python source, as torch's ``torch.fx`` code generation writes it.

For the graph of ``make_fx(lambda x: (x * 2).sum())`` the source (a ``GraphModule``'s
``code``) is::

    \\n\\n\\ndef forward(self, x_1):
        mul = reftensor.ops.aten.mul.Tensor(x_1, 2);  x_1 = None
        sum_1 = reftensor.ops.aten.sum.default(mul);  mul = None
        return sum_1
        <four spaces>

torch writes ``torch.ops.aten`` where reftensor writes ``reftensor.ops.aten`` (and
``torch.float64`` for ``reftensor.float64``): the one word differs. Each line:

* a placeholder is a parameter of ``forward`` (``y_1 = 2`` where it has a default);
* a ``get_attr`` node reads the module's attribute: ``_tensor_constant0 =
  self._tensor_constant0``;
* an aten call: ``name = reftensor.ops.aten.<op>.<overload>(<args>, <key> = <value>)``, each
  argument written with ``repr`` (a node as its name); ``operator.getitem`` as ``a[i]``;
* the ``output`` node: ``return <value>``.

After a node's line come the frees, ``;  a = b = None``: the nodes whose last use is this
one (in the order its arguments name them), then the node itself if nothing uses it.
Placeholders and the output free nothing; what the output returns is never freed.

With ``verbose`` (``print_readable``) each tensor gets its type as a string annotation,
``mul: "f32[2, 3]" = ...`` (the dtype's short name, the shape; with ``include_stride`` the
strides, ``f32[2, 3][3, 1]``; with ``include_device`` the device, ``f32[2, 3][3, 1]cpu``), and
the body opens with torch's comment ``# No stacktrace found for following nodes`` (make_fx
records no stack traces).
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

from .. import dtypes, layout, ops
from ..device import device
from ..testing._internal.logging_tensor import DTYPE_ABBRS
from .node import Node, map_arg, target_name

__all__ = ["PythonCode", "python_code", "type_annotation"]

NO_STACKTRACE = "# No stacktrace found for following nodes"


class PythonCode(NamedTuple):
    """The source of ``forward`` (``src``) and the globals it runs with (``globals``)."""

    src: str
    globals: dict[str, Any]


class _Reftensor:
    """``reftensor`` as the generated code reads it: ``reftensor.ops`` (the op table) and
    the dtypes, layouts and memory formats its arguments name (``reftensor.float64``,
    ``reftensor.strided``, ``reftensor.contiguous_format``)."""

    ops = ops

    def __getattr__(self, name: str) -> Any:
        for module in (dtypes, layout):
            if name in vars(module):
                return vars(module)[name]
        raise AttributeError(f"reftensor.fx: the generated code reads reftensor.{name}")


def code_globals() -> dict[str, Any]:
    """The names the generated code reads: ``reftensor``, ``device``, ``inf``, ``nan``."""
    return {"reftensor": _Reftensor(), "device": device, "inf": math.inf, "nan": math.nan,
            "NoneType": type(None)}


def type_annotation(val: Any, include_stride: bool = False,
                    include_device: bool = False) -> str | None:
    """``f32[2, 3]`` for a tensor ``val`` (a node's ``meta["val"]``); None for anything
    else (a tuple of results, a number)."""
    if not hasattr(val, "dtype") or not hasattr(val, "shape"):
        return None
    text = f"{DTYPE_ABBRS.get(val.dtype, str(val.dtype))}[{', '.join(map(str, val.shape))}]"
    if include_stride:
        text += f"[{', '.join(map(str, val.stride()))}]"
    if include_device:
        text += str(val.device)
    return text


def _source(value: Any) -> str:
    """An argument as the code writes it: ``repr``, with each node as its name."""
    return repr(map_arg(value, _Name))


class _Name:
    """Stands for a node in an argument: its ``repr`` is the node's name."""

    __slots__ = ("node",)

    def __init__(self, node: Node) -> None:
        self.node = node

    def __repr__(self) -> str:
        return self.node.name


def _call(node: Node, root_module: str) -> str:
    """The right-hand side of a node's line."""
    if node.op == "get_attr":
        return f"{root_module}.{node.target}"
    if node.target is operator.getitem:
        return f"{_source(node.args[0])}[{_source(node.args[1])}]"
    arguments = [_source(a) for a in node.args]
    arguments += [f"{k} = {_source(v)}" for k, v in node.kwargs.items()]
    return f"{target_name(node.target)}({', '.join(arguments)})"


def _last_uses(nodes: list[Node]) -> dict[Node, list[Node]]:
    """For each node, the nodes whose last use it is, in the order its arguments name
    them (found walking the graph backwards, as torch's code generation does)."""
    seen: set[Node] = set()
    frees: dict[Node, list[Node]] = {}
    for node in reversed(nodes):
        for used in node.all_input_nodes:
            if used not in seen:
                seen.add(used)
                frees.setdefault(node, []).append(used)
    return frees


def python_code(nodes: list[Node], root_module: str = "self", *, verbose: bool = False,
                include_stride: bool = False, include_device: bool = False) -> PythonCode:
    """The source of ``forward`` for a graph's ``nodes`` (see the module's docstring), and
    its globals.

    Without ``verbose`` the source is torch's ``GraphModule.code``: three newlines, ``def
    forward(self, ...):``, one line per node indented by four spaces, and a last line of four
    spaces. With ``verbose``, the lines of ``print_readable``'s ``forward`` (annotated, the
    comment first, no blank lines around), indented by four spaces.
    """
    frees = _last_uses(nodes)

    def annotated(node: Node) -> str:
        note = type_annotation(node.meta.get("val"), include_stride, include_device)
        return f'{node.name}: "{note}"' if verbose and note is not None else node.name

    parameters, body = [root_module], []
    for node in nodes:
        if node.op == "placeholder":
            default = f" = {_source(node.args[0])}" if node.args else ""
            parameters.append(annotated(node) + default)
            continue
        if node.op == "output":
            body.append(f"return {_source(node.args[0])}")
            continue
        if verbose and len(body) == 0:
            body.append(NO_STACKTRACE)
        gone = frees.get(node, []) + ([] if node.users else [node])
        line = f"{annotated(node)} = {_call(node, root_module)}"
        if gone:
            line += ";  " + " = ".join([*(n.name for n in gone), "None"])
        body.append(line)
    head = f"def forward({', '.join(parameters)}):"
    if verbose:
        src = "".join(f"    {line}\n" for line in [head, *(f"    {b}" for b in body)])
    else:
        src = "\n\n\n" + head + "\n" + "".join(f"    {line}\n" for line in body) + "    "
    return PythonCode(src, code_globals())
