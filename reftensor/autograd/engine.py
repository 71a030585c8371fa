"""The engine: runs the backward graph once, each node once, in dependency order.

``run_backward`` is what ``Tensor.backward`` and ``autograd.grad`` call. It finds which nodes
``inputs=`` asks to run, makes a ``GraphRoot`` node when there are several roots (as torch
does), and hands the pass to ``backward_pass``, torch's engine loop: count each node's
dependencies, keep the ready nodes in torch's priority queue, sum the gradients that arrive
for a node in its input buffer, run its hooks and its formula, free its saved tensors unless
``retain_graph``, and hand each gradient it returns to the next node. What runs a node (the
hook machinery, ``autograd.grad``'s captures, the shape checks of ``validate_outputs``) is
passed in as :class:`Calls`.

So a graph with shared subgraphs costs time linear in its size: ``y = y + y`` 25 times
runs 25 nodes, not 2**25 paths. Without ``retain_graph`` each node frees its saved tensors
after it runs, and a second backward through a node that saved a tensor raises (the nodes of
``(a + 1).sum()`` saved none, and run again).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, Protocol

from ..broadcasting import broadcast_shapes
from ..tensor import Tensor
from .grad_mode import state
from .graph import AccumulateGrad, Edge, Node

__all__ = ["run_backward", "backward_pass", "Calls", "GraphRoot"]


class Calls(Protocol):
    """What ``backward_pass`` asks of its caller to run one node (see ``backward_pass``)."""

    def pre_hooks(self, node: Any, grads: list[Any]) -> list[Any]: ...

    def apply(self, node: Any, grads: list[Any]) -> Sequence[Any]: ...

    def validate(self, node: Any, i: int, grad: Any) -> Any: ...

    def post_hooks(self, node: Any, outs: list[Any], grads: list[Any]) -> list[Any]: ...

    def needed(self, node: Any) -> bool: ...


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
        for child in (c for c, _ in node.next_functions if c is not None):
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


def backward_pass(root: Any, grads: Sequence[Any], keep_graph: bool, calls: Calls) -> None:
    """Run the backward graph below ``root`` once, as torch's engine does for one
    ``backward()`` (``torch/csrc/autograd/engine.cpp``: ``Engine::execute``,
    ``compute_dependencies``, ``thread_main``, ``evaluate_function``).

    Args:
        root: the node the pass starts from: the root tensor's ``grad_fn`` (or its leaf's
            ``AccumulateGrad``), or, for several roots, a ``GraphRoot`` node whose edges lead
            to theirs.
        grads: ``root``'s input buffer: one gradient (or None) per input of ``root``.
        keep_graph: ``retain_graph``. When false, every node that runs frees its saved
            tensors (its ``release_variables()``) once it has run.
        calls: what runs a node, around the pass:

            * ``calls.pre_hooks(node, grads)``: the tensor hooks and node pre-hooks; returns
              the gradients the node runs with (torch's ``call_tensor_pre_hooks``,
              ``call_pre_hooks``);
            * ``calls.needed(node)``: false for a node that ``inputs=`` does not ask to run
              (its pre-hooks run, nothing else);
            * ``calls.apply(node, grads)``: the node's formula, one gradient or None per
              edge of ``node.next_functions``;
            * ``calls.validate(node, i, grad)``: torch's ``validate_outputs`` for output
              ``i`` when it is not None and its edge leads to a node; returns it summed down
              and cast to that input's shape and dtype;
            * ``calls.post_hooks(node, outs, grads)``: returns the outputs handed on.

    A node is any object with ``next_functions`` (one ``(node or None, input_nr)`` per
    output of ``apply``), ``_sequence_nr()``, ``num_inputs()`` and ``release_variables()``.
    Gradients are anything ``+`` adds (tensors; numbers in the grader).

    Every node reachable from ``root`` runs once, after every node with an edge to it has
    run, with each slot of its input buffer the sum (``old + new``, in the order they came)
    of the gradients delivered to it, None where none was. Of the ready nodes the one with
    the largest ``_sequence_nr()`` runs first (``AccumulateGrad``'s is ``2**64 - 1``): torch
    keeps them in a binary heap (``std::priority_queue``) that compares that number alone,
    so nodes of equal number come out as the heap's sifting leaves them, which ``heapq``
    reproduces with entries whose ``__lt__`` compares that number alone.

    Returns None; raises what a call raises (a freed saved tensor, a gradient of a wrong
    shape).
    """
    # BEGIN PIECE backward_pass
    class Ready:
        """A ready node and its input buffer, in a heap that compares sequence numbers."""

        def __init__(self, node: Any, buffer: list[Any]) -> None:
            self.node, self.buffer, self.seq = node, buffer, node._sequence_nr()

        def __lt__(self, other: Ready) -> bool:
            return self.seq > other.seq  # the larger number comes out first

    dependencies: dict[Any, int] = {}  # edges into each node from nodes still to run
    seen, todo = {root}, [root]
    while todo:
        for child, _ in todo.pop().next_functions:
            if child is not None:
                dependencies[child] = dependencies.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
    not_ready: dict[Any, list[Any]] = {}  # input buffers of nodes still waiting
    ready = [Ready(root, list(grads))]
    while ready:
        task = heapq.heappop(ready)
        node = task.node
        inputs = calls.pre_hooks(node, task.buffer)
        if not calls.needed(node):
            continue
        outs = list(calls.apply(node, inputs))
        for i, (child, _) in enumerate(node.next_functions[:len(outs)]):
            if child is not None and outs[i] is not None:
                outs[i] = calls.validate(node, i, outs[i])
        outs = calls.post_hooks(node, outs, inputs)
        if not keep_graph:
            node.release_variables()
        for (child, slot), grad in zip(node.next_functions, outs, strict=False):
            if child is None:
                continue
            buffer = not_ready.pop(child) if child in not_ready else [None] * child.num_inputs()
            if grad is not None:
                buffer[slot] = grad if buffer[slot] is None else buffer[slot] + grad
            dependencies[child] -= 1
            if dependencies[child] == 0:
                heapq.heappush(ready, Ready(child, buffer))
            else:
                not_ready[child] = buffer
    # END PIECE


class GraphRoot(Node):
    """The node that hands several roots their gradients (torch's ``GraphRoot``): its
    edges are the roots' edges, and it returns the roots' gradients."""

    def __init__(self, edges: Sequence[Edge], grads: Sequence[Tensor]) -> None:
        super().__init__()
        self.next_functions = tuple(edges)
        self._input_info = [None] * len(self.next_functions)
        self._num_outputs = 0
        self._grads = tuple(grads)

    def apply(self, grads: Sequence[Tensor | None]) -> tuple[Tensor | None, ...]:
        return self._grads


class _Calls:
    """How reftensor runs a node for ``backward_pass``: tensor hooks, retain_grad and node
    pre-hooks, then ``autograd.grad``'s captures; the formula (a node whose gradients are
    all None returns None for every edge, as torch's generated nodes do); shape checks;
    post-hooks; and which nodes ``inputs=`` asks to run."""

    def __init__(self, runs: dict[Node, bool],
                 capture_at: dict[Node, list[tuple[int, int]]],
                 captured: list[Tensor | None]) -> None:
        self.runs = runs
        self.capture_at, self.captured = capture_at, captured

    def pre_hooks(self, node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
        grads = _pre_hooks(node, grads)
        for slot, k in self.capture_at.get(node, ()):
            self.captured[k] = grads[slot]
        return grads

    def apply(self, node: Node, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
        if grads and all(g is None for g in grads):
            return (None,) * len(node.next_functions)
        return node.apply(grads)

    def validate(self, node: Node, i: int, grad: Tensor) -> Tensor:
        return _checked(node, i, grad)

    def post_hooks(self, node: Node, outs: list[Tensor | None],
                   grads: list[Tensor | None]) -> list[Tensor | None]:
        for hook in list(node._post_hooks.values()):
            new = hook(tuple(outs), tuple(grads))
            if new is not None:
                outs = list(new)
        return outs

    def needed(self, node: Node) -> bool:
        return self.runs.get(node, False)


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
    live = [(edge, grad) for edge, grad in roots if edge[0] is not None]
    captured: list[Tensor | None] = [None] * len(captures)
    if not live:
        return captured
    if len(live) == 1:  # one root: its own node starts the pass, its gradient in its buffer
        (root, slot), grad = live[0]
        grads: list[Tensor | None] = [None] * root.num_inputs()
        grads[slot] = grad
    else:
        root = GraphRoot([edge for edge, _ in live], [grad for _, grad in live])
        grads = []
    runs = _discover([root], targets, accumulate)
    capture_at: dict[Node, list[tuple[int, int]]] = {}
    for k, (node, slot) in enumerate(captures):
        if node is not None:
            capture_at.setdefault(node, []).append((slot, k))
    previous = state.enabled
    state.enabled = create_graph  # formulas record only when building a graph of grads
    try:
        backward_pass(root, grads, keep_graph, _Calls(runs, capture_at, captured))
    finally:
        state.enabled = previous
    return captured
