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
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from ..advanced_indexing import legacy_type_name
from ..tensor import Tensor
from .grad_mode import state
from .graph import AccumulateGrad, Edge, Node

__all__ = ["run_backward", "backward_pass", "Calls", "GraphRoot", "NodeHooks", "call_hooks",
           "node_hooks", "validate_outputs"]


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


def validate_outputs(name: str, i: int, grad: Any, shape: tuple[int, ...], dtype: Any,
                     device: Any) -> Any:
    """What torch's engine does to gradient ``i`` that node ``name`` returned before it goes
    to the next node (``torch/csrc/autograd/engine.cpp``: ``validate_outputs``; the shape rule
    is ``InputMetadata::is_expandable_to_shape``, ``at::is_expandable_to``). The engine asks
    only for a gradient whose shape, dtype or device is not its input's.

    Args:
        name: the node's name (``MulBackward0``), for the error messages.
        i: the gradient's index among the node's outputs (its edge).
        grad: the gradient, a tensor: ``grad.shape``, ``grad.dtype``, ``grad.device``,
            ``grad.dim()``, ``grad.sum_to_size(shape)``, ``grad.to(dtype or device)``.
        shape, dtype, device: what the input the gradient is for was (its metadata).

    Returns:
        The gradient, summed down to ``shape`` where its shape differs and the input's shape
        expands to it (broadcasting's rule, read from the last dimension), then cast to
        ``dtype`` where its dtype differs, then moved to ``device`` where its device differs
        and it is 0-d; the gradient itself where nothing differs.

    Raises:
        RuntimeError: ``Function NAME returned an invalid gradient at index I - got [2, 3]
            but expected shape compatible with [3, 1]`` (the shape first);
            ``Function NAME returned an invalid gradient at index I - expected device cpu
            but got meta`` (a gradient of another device with dimensions).
        What ``grad.to(device)`` raises (a 0-d gradient on ``meta``: ``NotImplementedError:
        Cannot copy out of meta tensor; no data!``).
    """
    # BEGIN PIECE validate_outputs
    if tuple(grad.shape) != tuple(shape):
        ndim, target = len(shape), tuple(grad.shape)
        expandable = ndim <= len(target) and all(
            size in (1, target[len(target) - ndim + k]) for k, size in enumerate(shape))
        if not expandable:
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {i} - got "
                f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad.dtype != dtype:
        grad = grad.to(dtype)
    if grad.device != device:
        if grad.dim() != 0:
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {i} - expected "
                f"device {device} but got {grad.device}")
        grad = grad.to(device)
    return grad
    # END PIECE


class NodeHooks(NamedTuple):
    """The hooks the engine runs around one node, each dict as its handles keep it (by id, in
    the order they were registered; ``handle.remove()`` deletes from it, also mid-pass)."""

    #: ``(slot, hooks)``: the tensor hooks (``t.register_hook``) of the node's output ``slot``,
    #: one entry per tensor in the order its first hook was registered; a leaf's
    #: ``AccumulateGrad`` has the leaf's, at slot 0
    tensor_pre_hooks: Sequence[tuple[int, dict[int, Callable[..., Any]]]]
    #: ``{slot: hook}``: ``t.retain_grad()`` of the node's output ``slot``; ``hook(grad)``
    #: keeps ``grad`` in ``t.grad`` and returns None
    retains_grad_hooks: dict[int, Callable[..., Any]]
    #: ``node.register_prehook(fn)``: ``fn(grad_outputs)``
    pre_hooks: dict[int, Callable[..., Any]]
    #: ``node.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)``
    post_hooks: dict[int, Callable[..., Any]]
    #: ``check_result(name, old, new)``: raises torch's error when ``new``, returned by the hook
    #: named ``name`` in place of the gradient ``old`` (neither None), is not a tensor of
    #: ``old``'s dtype, device and shape (torch's ``check_variable_result``)
    check_result: Callable[[str, Any, Any], None]


def call_hooks(hooks: NodeHooks, grads: Sequence[Any], outputs: Sequence[Any] | None = None
               ) -> list[Any]:
    """The hooks around one node, as torch's engine calls them (``engine.cpp``:
    ``call_tensor_pre_hooks``, ``call_pre_hooks``, ``call_post_hooks``; the checks of
    ``python_hook.cpp``). Gradients are tensors, or None where none arrived.

    Args:
        hooks: the node's hooks (:class:`NodeHooks`).
        grads: the node's input buffer, one gradient per slot (``grad_outputs``).
        outputs: None before the node runs. After it, what it returned (``grad_inputs``),
            and ``grads`` are the gradients it ran with.

    Returns:
        Before the node: the gradients it runs with, after its tensor hooks (a tensor's
        gradient, None included, goes through each of that tensor's hooks in turn),
        ``retain_grad``'s hooks and its pre-hooks (the tuple of all its gradients through
        each in turn). After: the outputs handed on, after the post-hooks (each called with
        the outputs and ``grads`` as tuples). A hook returning None changes nothing; what
        else it returns replaces what it was given. A hook removed while the hooks of its
        dict run still runs this time; one removed from a dict not yet started does not.
        A list, as long as ``grads`` (``outputs``).

    Raises:
        RuntimeError: ``can't replace a None gradient with a non-None value``; ``hook
            'NAME' has returned an incorrect number of values (got N, but expected M)``
            (NAME the hook's ``__name__``, ``<unknown>`` where it has none).
        TypeError: a node hook returned something else than a tuple: ``expected tuple, but
            hook returned 'list'``.
        What ``hooks.check_result`` raises for a returned value.
    """
    # BEGIN PIECE call_hooks
    def name(hook: Any) -> str:
        hook_name = getattr(hook, "__name__", None)
        return hook_name if isinstance(hook_name, str) else "<unknown>"

    def checked(hook: Any, old: Any, new: Any) -> Any:
        if new is not None and old is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if new is not None:
            hooks.check_result(name(hook), old, new)
        return new

    def call_all(hook_dict: dict[int, Any], values: list[Any], *more: Any) -> list[Any]:
        for hook in list(hook_dict.values()):  # the hooks as this dict's turn starts
            new = hook(tuple(values), *more)
            if new is None:
                continue
            if not isinstance(new, tuple):
                raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
            if len(new) != len(values):
                raise RuntimeError(
                    f"hook '{name(hook)}' has returned an incorrect number of values (got "
                    f"{len(new)}, but expected {len(values)})")
            values = [checked(hook, old, v) for old, v in zip(values, new, strict=True)]
        return values

    if outputs is not None:
        return call_all(hooks.post_hooks, list(outputs), tuple(grads))
    grads = list(grads)
    for slot, tensor_hooks in list(hooks.tensor_pre_hooks):
        for hook in list(tensor_hooks.values()):
            new = hook(grads[slot])
            if new is not None:
                grads[slot] = checked(hook, grads[slot], new)
    for slot, retain in list(hooks.retains_grad_hooks.items()):
        retain(grads[slot])
    return call_all(hooks.pre_hooks, grads)
    # END PIECE


def _check_value(name: str, old: Tensor, new: Any) -> None:
    """``NodeHooks.check_result`` for tensors: torch's ``check_single_result`` and
    ``check_variable_result`` on a value a hook returned in place of the gradient ``old``."""
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._dtype is not old._dtype or new.device != old.device:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was torch.{legacy_type_name(old._dtype)}"
            f" got torch.{legacy_type_name(new._dtype)})")
    if new._shape != old._shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


_NO_HOOKS: dict[int, Callable[..., Any]] = {}


def node_hooks(node: Node) -> NodeHooks | None:
    """The hooks ``call_hooks`` runs around ``node``, or None when it has none."""
    tensor_hooks: dict[int, dict[int, Callable[..., Any]]] = node._tensor_pre_hooks
    if isinstance(node, AccumulateGrad):
        meta = node.variable._autograd_meta
        tensor_hooks = {0: meta.hooks} if meta is not None and meta.hooks else {}
    if not (any(tensor_hooks.values()) or node._retained or node._pre_hooks
            or node._post_hooks):
        return None
    return NodeHooks(list(tensor_hooks.items()), node._retained, node._pre_hooks,
                     node._post_hooks, _check_value)


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
              ``i`` when it is not None and its edge leads to a node; returns it summed down,
              cast and moved to that input's shape, dtype and device;
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
    """How reftensor runs a node for ``backward_pass``: its hooks (``call_hooks``, for a
    node that has any) and ``autograd.grad``'s captures; the formula (a node whose gradients
    are all None returns None for every edge, as torch's generated nodes do); shape checks;
    post-hooks; and which nodes ``inputs=`` asks to run."""

    def __init__(self, runs: dict[Node, bool],
                 capture_at: dict[Node, list[tuple[int, int]]],
                 captured: list[Tensor | None], targets: set[Node] | None = None) -> None:
        self.runs = runs
        self.capture_at, self.captured = capture_at, captured
        # with ``inputs=``: the nodes a gradient is wanted for (those that run, and the
        # targets); a node computes no gradient for an edge to another node (torch's
        # ``task_should_compute_output``: ``autograd.grad(y, x)`` of ``y = linear(x)``
        # computes no weight gradient), so a dispatch mode sees no op for it
        self.wanted = None if targets is None else (
            {node for node, runs_it in runs.items() if runs_it} | targets)

    def pre_hooks(self, node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
        # torch's evaluate_function: a node that runs is captured as it arrived, then runs
        # all its hooks (call_function); one that does not runs only its tensor hooks and
        # retain_grad's, and is captured after them
        needed = self.runs.get(node, False)
        if needed:
            self._capture(node, grads)
        hooks = node_hooks(node)
        if hooks is not None:
            grads = call_hooks(hooks if needed else hooks._replace(pre_hooks=_NO_HOOKS), grads)
        if not needed:
            self._capture(node, grads)
        return grads

    def _capture(self, node: Node, grads: list[Tensor | None]) -> None:
        for slot, k in self.capture_at.get(node, ()):
            self.captured[k] = grads[slot]

    def apply(self, node: Node, grads: list[Tensor | None]) -> Sequence[Tensor | None]:
        if grads and all(g is None for g in grads):
            return (None,) * len(node.next_functions)
        edges, wanted = node.next_functions, self.wanted
        if wanted is None or all(e[0] is None or e[0] in wanted for e in edges):
            return node.apply(grads)
        # the formula sees the edges it need not compute as absent (None), as it does
        # the edges of inputs that need no gradient
        node.next_functions = tuple([e if e[0] is None or e[0] in wanted else (None, 0)
                                     for e in edges])
        try:
            return node.apply(grads)
        finally:
            node.next_functions = edges

    def validate(self, node: Node, i: int, grad: Tensor) -> Tensor:
        info = node._input_info[i] if i < len(node._input_info) else None
        if info is None:
            return grad
        shape, dtype, device = info
        if grad._shape == shape and grad._dtype is dtype and grad.device == device:
            return grad  # a gradient that matches its input passes without asking
        return validate_outputs(node.name(), i, grad, shape, dtype, device)

    def post_hooks(self, node: Node, outs: list[Tensor | None],
                   grads: list[Tensor | None]) -> list[Tensor | None]:
        hooks = node_hooks(node) if node._post_hooks else None
        return outs if hooks is None else call_hooks(hooks, grads, outs)

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
        backward_pass(root, grads, keep_graph, _Calls(runs, capture_at, captured, targets))
    finally:
        state.enabled = previous
    return captured
