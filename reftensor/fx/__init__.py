"""``reftensor.fx`` (``torch.fx``): programs as graphs of aten ops, and the modules that run
them.

* :class:`Graph` and :class:`Node` (``graph.py``, ``node.py``): a straight-line program;
* :class:`GraphModule` (``graph_module.py``): a module whose ``forward`` is a graph's
  generated Python code (``codegen.py``), printed as torch prints it;
* ``reftensor.fx.experimental.proxy_tensor.make_fx``: the graph of the aten ops a function
  runs, traced with a dispatch mode (chapter 9).

``import reftensor`` does not import ``reftensor.fx``: write ``import reftensor.fx`` or
``from reftensor.fx.experimental.proxy_tensor import make_fx``.
"""

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_arg

__all__ = ["Graph", "GraphModule", "Node", "map_arg"]
