"""The engine: runs the backward graph once, each node once, in dependency order.

``run_backward`` is what ``Tensor.backward`` and ``autograd.grad`` call. Its steps:

1. walk the graph from the roots once, and count for each node how many edges from nodes
   that will run point at it (its *dependencies*);
2. order them with ``engine_order``: a node is ready once every edge into it has
   delivered, and of the ready nodes the later-created one runs first (its
   ``sequence_nr`` is higher), ``AccumulateGrad`` before anything, which is the order
   torch's CPU engine's priority queue gives;
3. pop a node, sum the gradients that arrived for each of its outputs (its *input buffer*),
   run the tensor hooks, call ``apply``, check each returned gradient against the shape and
   dtype of the input it belongs to, and add it into the next node's buffer.

So a graph with shared subgraphs costs time linear in its size: ``y = y + y`` 25 times
runs 25 nodes, not 2**25 paths. Without ``retain_graph`` each node frees its saved tensors
after it runs, and a second backward through a node that saved a tensor raises (the nodes of
``(a + 1).sum()`` saved none, and run again).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ..broadcasting import broadcast_shapes
from ..tensor import Tensor
from .grad_mode import state
from .graph import AccumulateGrad, Edge, Node

__all__ = ["run_backward"]


def _discover(roots: Sequence[Node], targets: set[Node] | None,
              accumulate: set[Node]) -> dict[Node, bool]:
    """Every node reachable from the roots, mapped to: will it run? Without targets every
    node runs; with targets (``inputs=``) only nodes on a path to a target do, and of the
    AccumulateGrad nodes only those in ``accumulate``."""
    order: list[Node] = []
    seen: set[Node] = set()
    stack = list(roots)
    while stack:  # iterative depth-first walk (no recursion limit on deep graphs)
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    if targets is None:
        return {node: True for node in order}
    # the nodes that lead to a target: the targets' ancestors, found through reversed edges
    parents: dict[Node, list[Node]] = {node: [] for node in order}
    for node in order:
        for child, _ in node.next_functions:
            if child is not None:
                parents[child].append(node)
    reach = {t for t in targets if t in parents}
    stack = list(reach)
    while stack:
        for parent in parents[stack.pop()]:
            if parent not in reach:
                reach.add(parent)
                stack.append(parent)
    # a node runs when one of its children leads to a target (a target's own AccumulateGrad
    # runs too when asked: that is ``backward(inputs=...)`` accumulating into a leaf)
    return {node: any(c in reach for c, _ in node.next_functions if c is not None)
            or node in accumulate for node in order}


def _checked(node: Node, i: int, grad: Tensor) -> Tensor:
    """torch's ``validate_outputs``: sum a broadcast gradient down to the input's shape,
    cast it to the input's dtype; a shape that cannot be summed down is an error."""
    info = node._input_info[i] if i < len(node._input_info) else None
    if info is None:
        return grad
    shape, dtype = info
    if grad._shape != shape:
        try:
            ok = broadcast_shapes(shape, grad._shape) == grad._shape
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(grad._shape)} but expected shape compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad._dtype is not dtype:
        grad = grad.to(dtype)
    return grad


def _pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Tensor hooks (``register_hook``), then ``retain_grad``, then node pre-hooks."""
    hooks_by_slot = node._tensor_pre_hooks
    if isinstance(node, AccumulateGrad) and node.variable._autograd_meta is not None:
        hooks_by_slot = {0: node.variable._autograd_meta.hooks}
    for slot, hooks in hooks_by_slot.items():
        for hook in list(hooks.values()):
            if grads[slot] is not None:
                new = hook(grads[slot])
                if new is not None:
                    grads[slot] = new
    for slot, ref in node._retained.items():
        t = ref()
        if t is not None and grads[slot] is not None:
            g = grads[slot]
            t._grad = g.clone() if t._grad is None else t._grad + g
    for hook in list(node._pre_hooks.values()):
        new = hook(tuple(grads))
        if new is not None:
            grads = list(new)
    return grads


def engine_order(graph: Sequence[tuple[object, str, int, Sequence[object]]],
                 root: object) -> list[object]:
    """The order in which the engine runs the nodes of ``graph`` from ``root`` (torch's
    CPU engine's ready queue).

    ``graph`` holds one ``(id, name, seq, next_ids)`` per node: ``seq`` its sequence number
    (``2**64 - 1`` for an ``AccumulateGrad``), ``next_ids`` the ids its edges lead to, one
    per edge. A node becomes ready when every edge into it has delivered, and goes into a
    binary heap (C++'s ``std::priority_queue``) that compares ``seq`` only: the largest
    runs next, and nodes of equal ``seq`` (``AccumulateGrad`` nodes) come out in the order
    the heap's sifting leaves them. Python's ``heapq`` sifts the same way, so entries that
    compare by ``seq`` alone reproduce torch's order exactly.
    """
    # BEGIN PIECE engine_order
    class Ready:
        """A heap entry that compares by ``seq`` alone (the larger first), as torch's."""

        def __init__(self, seq: int, ident: object) -> None:
            self.seq, self.ident = seq, ident

        def __lt__(self, other: Ready) -> bool:
            return self.seq > other.seq

    nodes = {ident: (seq, tuple(after)) for ident, _name, seq, after in graph}
    waiting = dict.fromkeys(nodes, 0)  # edges into each node still to deliver
    for _seq, after in nodes.values():
        for child in after:
            waiting[child] += 1
    ready = [Ready(nodes[root][0], root)]
    order = []
    while ready:
        ident = heapq.heappop(ready).ident
        order.append(ident)
        for child in nodes[ident][1]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, Ready(nodes[child][0], child))
    return order
    # END PIECE


GRAPH_ROOT = -1  # the id of the node that hands several roots their gradients


def _graph(root_nodes: Sequence[Node], runs: dict[Node, bool]
           ) -> tuple[list[tuple[int, str, int, tuple[int, ...]]], list[Node], int]:
    """The part of the graph the engine visits, as ``engine_order`` takes it: ids are the
    nodes' places in a list; a node that does not run has no edges (it only hands on what
    it captured). Several roots hang below one GraphRoot node, as in torch."""
    ids: dict[Node, int] = {}
    nodes: list[Node] = []
    todo = list(dict.fromkeys(root_nodes))
    for node in todo:
        ids[node] = len(nodes)
        nodes.append(node)
    graph = []
    k = 0
    while k < len(nodes):
        node = nodes[k]
        after = []
        if runs.get(node, False):
            for child, _ in node.next_functions:
                if child is None:
                    continue
                if child not in ids:
                    ids[child] = len(nodes)
                    nodes.append(child)
                after.append(ids[child])
        name = "AccumulateGrad" if isinstance(node, AccumulateGrad) else node.name()
        graph.append((k, name, node._seq, tuple(after)))
        k += 1
    if len(todo) == 1:
        return graph, nodes, 0
    graph.append((GRAPH_ROOT, "GraphRoot", 2**64 - 1, tuple(ids[n] for n in todo)))
    return graph, nodes, GRAPH_ROOT


def run_backward(roots: Sequence[tuple[Edge, Tensor]], *, keep_graph: bool,
                 create_graph: bool, captures: Sequence[Edge] = (),
                 targets: set[Node] | None = None, accumulate: set[Node] = frozenset()
                 ) -> list[Tensor | None]:
    """Run the graph from ``roots`` (edge, gradient) pairs.

    ``captures``: edges whose incoming gradient is returned (``autograd.grad``'s inputs),
    in order. ``targets``: when given, only nodes on a path to one of them run (the capture
    nodes), and of the AccumulateGrad nodes only those in ``accumulate`` (the leaves of
    ``backward(inputs=...)``).
    """
    root_nodes = [edge[0] for edge, _ in roots if edge[0] is not None]
    runs = _discover(root_nodes, targets, accumulate)
    buffers: dict[Node, list[Tensor | None]] = {}
    captured: list[Tensor | None] = [None] * len(captures)
    capture_at: dict[Node, list[tuple[int, int]]] = {}
    for k, (node, slot) in enumerate(captures):
        if node is not None:
            capture_at.setdefault(node, []).append((slot, k))

    previous = state.enabled
    state.enabled = create_graph  # formulas record only when building a graph of grads
    try:
        def deliver(node: Node, slot: int, grad: Tensor | None) -> None:
            buffer = buffers.setdefault(node, [None] * node._num_outputs)
            if grad is not None:
                buffer[slot] = grad if buffer[slot] is None else buffer[slot] + grad

        for (node, slot), grad in roots:  # the graph root hands each output its gradient
            if node is not None:
                deliver(node, slot, grad)
        graph, nodes, root = _graph(root_nodes, runs) if root_nodes else ([], [], 0)
        for ident in engine_order(graph, root) if graph else ():
            if ident == GRAPH_ROOT:
                continue
            node = nodes[ident]
            grads = buffers.pop(node, [None] * node._num_outputs)
            if any(g is not None for g in grads):
                grads = _pre_hooks(node, grads)
            for slot, k in capture_at.get(node, ()):
                captured[k] = grads[slot]
            outs: Sequence[Tensor | None] = ()
            if runs.get(node, False) and any(g is not None for g in grads):
                outs = node.apply(grads)
                for hook in list(node._post_hooks.values()):
                    new = hook(tuple(outs), tuple(grads))
                    if new is not None:
                        outs = new
                if not keep_graph:
                    node.release_variables()
            if not runs.get(node, False):
                continue
            for i, (child, slot) in enumerate(node.next_functions):
                if child is None:
                    continue
                g = outs[i] if i < len(outs) else None
                deliver(child, slot, None if g is None else _checked(node, i, g))
    finally:
        state.enabled = previous
    return captured
