"""``GraphModule`` (``torch.fx.GraphModule``): a module whose ``forward`` is a graph's code.

``GraphModule(root, graph, class_name)`` generates the graph's Python source
(:mod:`reftensor.fx.codegen`), shown as ``gm.code``, and compiles it into ``forward``:
calling the module runs the graph's aten ops through ``reftensor.ops.aten`` (so each call
dispatches as ``reftensor.ops.aten.mul.Tensor(...)`` does: through autograd, the modes, the
kernels). The attributes the graph reads (``get_attr`` nodes: ``_tensor_constant0``) are
copied from ``root`` (a module, or a dict of name to value) and registered as the module's
parameters (an ``nn.Parameter``) or buffers (another tensor), as torch's.

``print(gm)`` shows ``<class_name>()``, the code and a hint, as torch's;
``gm.print_readable()`` the code as a class, with each tensor's dtype and shape::

    class f(reftensor.nn.Module):
        def forward(self, x_1: "f32[2, 3]"):
            # No stacktrace found for following nodes
            mul: "f32[2, 3]" = reftensor.ops.aten.mul.Tensor(x_1, 2);  x_1 = None
            return mul
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph

__all__ = ["GraphModule"]


class GraphModule(Module):
    """A module that runs ``graph`` (see the module's docstring).

    Args:
        root: where the ``get_attr`` nodes' attributes come from: a module or a dict.
        graph: the graph; ``gm.graph``. After changing it, call :meth:`recompile`.
        class_name: the name ``repr`` and ``print_readable`` show (make_fx gives the traced
            function's ``__name__``: ``<lambda>`` for a lambda).

    Raises:
        KeyError, AttributeError: ``root`` (a dict, a module) lacks an attribute the graph
            reads.
    """

    def __init__(self, root: Module | dict[str, Any], graph: Graph,
                 class_name: str = "GraphModule") -> None:
        super().__init__()
        put = object.__setattr__  # plain attributes, past Module's routing
        put(self, "_class_name", class_name)
        copied: set[str] = set()
        for node in graph.nodes:
            if node.op != "get_attr" or node.target in copied:
                continue
            copied.add(node.target)
            value = root[node.target] if isinstance(root, dict) else getattr(root, node.target)
            if isinstance(value, Parameter):
                self.register_parameter(node.target, value)
            elif isinstance(value, Tensor):
                self.register_buffer(node.target, value)
            else:
                setattr(self, node.target, value)
        put(self, "_graph", graph)
        self.recompile()

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def code(self) -> str:
        """The Python source of ``forward`` (torch's format, ``reftensor`` for ``torch``)."""
        return self._code

    def recompile(self) -> None:
        """Generate the code from the graph again, and compile it into ``forward``."""
        code = self._graph.python_code("self")
        namespace = dict(code.globals)
        exec(compile(code.src, f"<reftensor.fx {self._class_name}>", "exec"), namespace)
        object.__setattr__(self, "_code", code.src)
        object.__setattr__(self, "_forward", namespace["forward"])

    def forward(self, *args: Any) -> Any:
        forward: Callable[..., Any] = self._forward
        return forward(self, *args)

    def _get_name(self) -> str:
        return self._class_name

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False) -> str:
        """The code as a class with annotated tensors (see the module's docstring); printed
        when ``print_output``, and returned, as torch's ``print_readable``."""
        verbose = self._graph.python_code("self", verbose=True, include_stride=include_stride,
                                          include_device=include_device)
        text = f"class {self._class_name}(reftensor.nn.Module):\n{verbose.src}"
        if print_output:
            print(text)
        return text

    def __str__(self) -> str:
        return (f"{super().__repr__()}\n{self._code}\n"
                "# To see more debug info, please use `graph_module.print_readable()`")
