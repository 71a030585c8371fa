"""Backward graphs of plain Python nodes, for grading chapter 5's ``backward_pass`` without
torch: :func:`run_case` builds the nodes a case describes, runs the answer on them (once or
twice), and returns what happened as plain data, the same trace that the exercise's
reference records from torch's engine running the same graph of custom ``Function`` nodes.
:func:`run_hooks` does the same for ``call_hooks``, the hooks around a node, and
:func:`run_validate` for ``validate_outputs``, on a plain gradient (:class:`Grad`).

A case's graph (see ``autograder.course.exercises.ch05_autograd``):

* ``program``: steps ``(name, outputs, inputs, weights, saves)`` in creation order. A step is
  a node with ``outputs`` gradients coming in (its forward op's outputs) and one edge per
  input: ``"a"``..``"d"`` a leaf (its ``AccumulateGrad`` node), ``"k"`` a constant that
  needs no gradient (edge ``(None, 0)``), ``"t1"`` output 0 of step ``t1``, ``"t1.1"`` its
  output 1. Its backward adds its incoming gradients (None counts as 0, as torch
  materializes them) and returns that sum times ``weights[i]`` for input ``i``, or None
  where the weight is None. ``saves``: it saved a tensor, which is unusable once freed.
* ``roots``: ``(ref, grad)`` pairs: ``torch.autograd.backward(roots, grads)``; several roots
  hang below a ``GraphRoot`` node.
* ``hooks``: ``("pre", name, factor)``, a pre-hook multiplying the gradients that reach the
  node; ``("post", name, factor)``, a post-hook multiplying the ones it returns.

This module imports nothing: the sandbox runs it beside the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["LEAVES", "CONSTANT", "ACCUMULATE_SEQ", "FREED", "NOT_A_LEAF", "run_case", "edge_of",
           "run_edges", "Tensor", "NodeHooks", "check_value", "hook_result", "run_hooks",
           "Grad", "DTYPES", "DEVICES", "META_COPY", "run_validate"]

LEAVES = ("a", "b", "c", "d")
CONSTANT = "k"
ACCUMULATE_SEQ = 2 ** 64 - 1
FREED = "Trying to backward through the graph a second time"


class Node:
    """A plain node: what ``backward_pass`` may use of one (see its docstring)."""

    def __init__(self, name: str, kind: str, seq: int, inputs: int) -> None:
        self.name, self.kind, self.seq, self.inputs = name, kind, seq, inputs
        self.next_functions: tuple[tuple[Node | None, int], ...] = ()
        self.weights: tuple[float | None, ...] = ()
        self.saves = False
        self.freed = False

    def _sequence_nr(self) -> int:
        return self.seq

    def num_inputs(self) -> int:
        return self.inputs

    def release_variables(self) -> None:
        if self.saves:
            self.freed = True

    def __repr__(self) -> str:
        return f"<{self.name}>"


def edge_of(ref: str, nodes: dict[str, Node]) -> tuple[Node | None, int]:
    """The edge an input reference stands for."""
    if ref == CONSTANT:
        return None, 0
    name, _, slot = ref.partition(".")
    return nodes[name], int(slot or 0)


def _number(value: Any) -> float | None:
    """A gradient as it is traced: None, or a float (an answer may hand on anything)."""
    if value is None:
        return None
    if type(value) is not float:
        raise TypeError(f"a gradient is a float or None, not {type(value).__name__}")
    return value


class Calls:
    """What runs each plain node, recording the trace."""

    def __init__(self, hooks: Sequence[tuple[str, str, float]], grads: dict[str, float | None],
                 root_grads: Sequence[float]) -> None:
        self.pre = [(name, f) for kind, name, f in hooks if kind == "pre"]
        self.post = [(name, f) for kind, name, f in hooks if kind == "post"]
        self.grads, self.root_grads = grads, tuple(root_grads)
        self.ran: list[tuple[str, list[float | None]]] = []

    def pre_hooks(self, node: Node, grads: list[Any]) -> list[Any]:
        grads = [_number(g) for g in grads]
        if len(grads) != node.inputs:
            raise ValueError(f"{node.name} takes {node.inputs} gradients, got {len(grads)}")
        if node.kind != "root":
            self.ran.append((node.name, list(grads)))
        for name, factor in self.pre:
            if name == node.name:
                grads = [None if g is None else g * factor for g in grads]
        return grads

    def apply(self, node: Node, grads: list[Any]) -> list[float | None]:
        if node.kind == "root":
            return list(self.root_grads)
        if node.kind == "leaf":
            g = _number(grads[0])
            if g is not None:
                old = self.grads[node.name]
                self.grads[node.name] = g if old is None else old + g
            return []
        if node.freed:
            raise RuntimeError(FREED)
        total = 0.0
        for k, g in enumerate(grads):
            g = 0.0 if g is None else _number(g)
            total = g if k == 0 else total + g
        return [None if w is None else total * w for w in node.weights]

    def validate(self, node: Node, i: int, grad: Any) -> Any:
        return _number(grad)

    def post_hooks(self, node: Node, outs: list[Any], grads: list[Any]) -> list[Any]:
        for name, factor in self.post:
            if name == node.name:
                outs = [None if g is None else g * factor for g in outs]
        return outs

    def needed(self, node: Node) -> bool:
        return True


def _build(program: Sequence[Any]) -> dict[str, Node]:
    nodes = {leaf: Node(leaf, "leaf", ACCUMULATE_SEQ, 1) for leaf in LEAVES}
    for seq, (name, outputs, inputs, weights, saves) in enumerate(program):
        node = Node(name, "step", seq, outputs)
        node.next_functions = tuple(edge_of(ref, nodes) for ref in inputs)
        node.weights, node.saves = tuple(weights), bool(saves)
        nodes[name] = node
    return nodes


def run_case(answer: Callable[..., Any], program: Sequence[Any], roots: Sequence[Any],
             hooks: Sequence[Any], keep_graph: bool, twice: bool) -> tuple[Any, ...]:
    """Run ``answer`` (a ``backward_pass``) on the case's graph, once, or twice when
    ``twice``: one ``(ran, grads, freed, error)`` per pass. ``ran`` lists the nodes in the
    order they ran, each with the gradients it received (before its hooks); ``grads`` is
    each leaf's ``.grad`` after the pass; ``freed`` the steps whose saved tensors are freed;
    ``error`` the class name of what the pass raised, or None."""
    nodes = _build(program)
    grads: dict[str, float | None] = dict.fromkeys(LEAVES)
    edges = [edge_of(ref, nodes) for ref, _ in roots]
    passes = []
    for _ in range(2 if twice else 1):
        if len(roots) == 1:
            root, slot = edges[0]
            assert root is not None
            buffer: list[float | None] = [None] * root.inputs
            buffer[slot] = roots[0][1]
            calls = Calls(hooks, grads, ())
        else:
            root = Node("GraphRoot", "root", len(program), 0)
            root.next_functions = tuple(edges)
            buffer = []
            calls = Calls(hooks, grads, [g for _, g in roots])
        error = None
        try:
            answer(root, buffer, keep_graph, calls)
        except NotImplementedError:
            raise  # an unanswered exercise, not a pass that raised
        except Exception as exc:  # noqa: BLE001 - torch's refusal is part of the trace
            error = type(exc).__name__
        passes.append((calls.ran, [(leaf, grads[leaf]) for leaf in LEAVES],
                       sorted(n.name for n in nodes.values() if n.freed), error))
    return tuple(passes)


# ---------------------------------------------------------------- collect_next_edges
#: what torch's ``grad_accumulator`` raises for a tensor that has a ``grad_fn``
NOT_A_LEAF = "grad_accumulator() should be only called on leaf Variables"


def run_edges(answer: Callable[..., Any], grad_mode: bool, inputs: Sequence[Any],
              accumulators: Sequence[str | None]) -> Any:
    """Call ``answer`` (a ``collect_next_edges``) with ``accumulator(i)`` giving
    ``accumulators[i]``, a name standing for the ``AccumulateGrad`` node of input ``i`` (or
    None), and raising RuntimeError for an input that has a ``grad_fn``, as torch's
    ``grad_accumulator`` does. Its result as it returned it (an edge's node is a name
    here too: ``"m.grad_fn"``)."""
    def accumulator(i: int) -> str | None:
        x = inputs[i]
        if x is not None and x[1] is not None:
            raise RuntimeError(NOT_A_LEAF)
        return accumulators[i]

    return answer(grad_mode, inputs, accumulator)


# ---------------------------------------------------------------- call_hooks
#: torch's legacy type names, as a hook's type check prints them
HOOK_TYPE_NAMES = {"float64": "torch.DoubleTensor", "float32": "torch.FloatTensor"}


class Tensor:
    """A plain gradient for ``run_hooks``: a 0-d float64 tensor's value (a hook may return
    one of another dtype or shape). Named as torch's class, as torch's messages name it."""

    def __init__(self, value: float, dtype: str = "float64", shape: tuple[int, ...] = ()) -> None:
        self.value, self.dtype, self.shape = float(value), dtype, shape

    def __mul__(self, factor: float) -> Tensor:
        return Tensor(self.value * factor)

    def __add__(self, other: Tensor) -> Tensor:
        return Tensor(self.value + other.value)

    def __repr__(self) -> str:
        return f"Tensor({self.value!r})"


class NodeHooks(NamedTuple):
    """What ``call_hooks`` is given (``reftensor.autograd.engine.NodeHooks``)."""

    tensor_pre_hooks: Sequence[tuple[int, dict[int, Callable[..., Any]]]]
    retains_grad_hooks: dict[int, Callable[..., Any]]
    pre_hooks: dict[int, Callable[..., Any]]
    post_hooks: dict[int, Callable[..., Any]]
    check_result: Callable[[str, Any, Any], None]


def check_value(name: str, old: Any, new: Any) -> None:
    """``NodeHooks.check_result`` on plain gradients: torch's checks of a value a hook returned."""
    if type(new) is not Tensor:
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new.dtype != old.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{HOOK_TYPE_NAMES[old.dtype]} got {HOOK_TYPE_NAMES[new.dtype]})")
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _seen(value: Any) -> Any:
    """What a hook received, as the trace records it: floats, None, lists of them."""
    if isinstance(value, tuple | list):
        return [_seen(v) for v in value]
    return value.value if type(value) is Tensor else value


def hook_result(action: Sequence[Any], got: Any, node_hook: bool, remove: Callable[[int], None]
                ) -> Any:
    """What a hook of the case returns for what it got (one gradient for a tensor hook, the
    tuple of gradients for a node hook), on plain gradients; the same rules as the
    exercise's torch reference."""
    kind = action[0]
    if kind == "remove":
        remove(action[1])
        return None
    if kind == "keep":
        return None
    if not node_hook:
        if kind == "scale":
            return None if got is None else got * action[1]
        if kind == "fill":
            return Tensor(action[1])
        if kind == "tuple":
            return (got,)
        return {"float": 1.5, "size": Tensor(0.0, shape=(2,)),
                "dtype": Tensor(1.5, dtype="float32")}[kind]
    grads = list(got)
    if kind == "scale":
        return tuple(None if g is None else g * action[1] for g in grads)
    if kind in ("drop", "fill") and grads:
        grads[action[1] % len(grads)] = None if kind == "drop" else Tensor(action[2])
    elif kind == "count":
        return tuple(grads) + (None,) if action[1] > 0 else tuple(grads[:-1])
    elif kind == "list":
        return grads
    elif kind == "single":
        return grads[0] if grads else None
    elif kind in ("float", "size", "dtype"):
        new = {"float": 1.5, "size": Tensor(0.0, shape=(2,)),
               "dtype": Tensor(1.5, dtype="float32")}[kind]
        defined = [i for i, g in enumerate(grads) if g is not None]
        if defined:
            grads[defined[0]] = new
    return tuple(grads)


class _Partial:
    """A hook without a ``__name__`` (as ``functools.partial``'s)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


def run_hooks(answer: Callable[..., Any], outputs: int, weights: Sequence[float | None],
              grads: Sequence[float | None], hooks: Sequence[Any]) -> tuple[Any, ...]:
    """Run ``answer`` (a ``call_hooks``) around the two nodes of the case's graph, on plain
    gradients, as reftensor's engine does: ``Step``, a node with ``outputs`` slots (the
    outputs ``t0``, ``t1``, ... of its forward op) and one edge per weight, to the leaf
    ``a``'s ``AccumulateGrad`` and then to a constant ``k`` (no node); then ``a``'s node.
    ``Step`` runs with ``grads`` in its slots (None: no gradient) and returns the sum of
    the gradients it runs with (None if all are None) times each weight (None for None).

    ``hooks``: ``(where, action, name)`` in the order they are registered: ``where`` is
    ``"t0"``.. (a tensor hook on that output), ``"a"`` (on the leaf), ``"pre"``/``"post"``
    (Step's node hooks), ``"a.pre"``/``"a.post"`` (a's node's), or ``"r0"``..
    (``retain_grad()`` on that output); ``action`` what the hook returns
    (:func:`hook_result`); ``name`` its ``__name__``: ``"def"`` (``h<index>``),
    ``"lambda"`` or ``"partial"`` (none).

    Returns ``(calls, ran_with, retained, a_grad, error)``: each hook call in order, as
    ``(index, what it received)``; the gradients Step's formula ran with (None if it did
    not run); each retained output's ``.grad`` in slot order; ``a.grad``; and what the pass
    raised, ``(class name, message)``, or None.
    """
    calls: list[tuple[int, Any]] = []
    dicts: dict[str, dict[int, Callable[..., Any]]] = {}
    retained: dict[int, float | None] = {}
    retains: dict[int, Callable[..., Any]] = {}
    where_of: dict[int, str] = {}

    def remove(j: int) -> None:
        dicts.get(where_of.get(j, ""), {}).pop(j, None)

    def make(j: int, action: Sequence[Any], node_hook: bool, name: str) -> Callable[..., Any]:
        def hook(*got: Any) -> Any:
            calls.append((j, _seen(got[0] if len(got) == 1 else list(got))))
            return hook_result(action, got[0], node_hook, remove)

        if name == "partial":
            return _Partial(hook)
        hook.__name__ = "<lambda>" if name == "lambda" else f"h{j}"
        return hook

    for j, (where, action, name) in enumerate(hooks):
        if where.startswith("r"):
            slot = int(where[1:])

            def retain(g: Any, slot: int = slot) -> None:
                if g is not None:
                    old = retained.get(slot)
                    retained[slot] = g.value if old is None else old + g.value

            retained.setdefault(slot, None)
            retains[slot] = retain
            continue
        where_of[j] = where
        node_hook = where in ("pre", "post", "a.pre", "a.post")
        dicts.setdefault(where, {})[j] = make(j, action, node_hook, name)
    step_hooks = NodeHooks(
        [(int(w[1:]), d) for w, d in dicts.items() if w.startswith("t")], retains,
        dicts.get("pre", {}), dicts.get("post", {}), check_value)
    leaf_hooks = NodeHooks([(0, dicts["a"])] if "a" in dicts else [], {},
                           dicts.get("a.pre", {}), dicts.get("a.post", {}), check_value)

    def has_hooks(h: NodeHooks) -> bool:
        return bool(any(d for _, d in h.tensor_pre_hooks) or h.retains_grad_hooks
                    or h.pre_hooks or h.post_hooks)

    ran_with = a_grad = error = None
    try:
        buffer = [None if g is None else Tensor(g) for g in grads]
        inputs = list(answer(step_hooks, buffer)) if has_hooks(step_hooks) else buffer
        ran_with = _seen(inputs)
        defined = [g for g in inputs if g is not None]
        total = None
        for g in defined:
            total = g if total is None else total + g
        outs = [None if total is None or w is None else total * w for w in weights]
        if step_hooks.post_hooks:
            outs = list(answer(step_hooks, inputs, outs))
        leaf_buffer = [outs[0]]
        leaf_inputs = (list(answer(leaf_hooks, leaf_buffer)) if has_hooks(leaf_hooks)
                       else leaf_buffer)
        if leaf_inputs[0] is not None:
            a_grad = _seen(leaf_inputs[0])
        if leaf_hooks.post_hooks:
            answer(leaf_hooks, leaf_inputs, [])
    except NotImplementedError:
        raise  # an unanswered exercise, not a pass that raised
    except Exception as exc:  # noqa: BLE001 - torch's refusal is part of the trace
        error = (type(exc).__name__, str(exc))
    return (calls, ran_with, [(slot, retained[slot]) for slot in sorted(retained)], a_grad,
            error)


# ---------------------------------------------------------------- validate_outputs
#: the dtypes and devices a plain gradient may have (torch's names, without ``torch.``)
DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool")
DEVICES = ("cpu", "meta")
#: what torch raises for a copy of a meta tensor to another device (NotImplementedError)
META_COPY = "Cannot copy out of meta tensor; no data!"


class Grad:
    """A plain gradient for ``run_validate``: only its shape (a tuple), dtype and device
    (names: ``"float32"``, ``"cpu"``), with the tensor methods ``validate_outputs`` uses."""

    def __init__(self, shape: Sequence[int], dtype: str, device: str,
                 raised: list[BaseException] | None = None) -> None:
        self.shape, self.dtype, self.device = tuple(shape), dtype, device
        self._raised = [] if raised is None else raised  # what its methods raised

    def dim(self) -> int:
        return len(self.shape)

    def sum_to_size(self, *size: Any) -> Grad:
        """torch's ``sum_to_size(size)`` or ``sum_to_size(*size)``, without its check that
        ``size`` expands to the gradient's shape: that rule is the answer's to write."""
        target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], tuple | list) \
            else tuple(size)
        return Grad(target, self.dtype, self.device, self._raised)

    def to(self, what: str) -> Grad:
        """torch's ``to(dtype)`` or ``to(device)``, by name."""
        if what in DTYPES:
            return Grad(self.shape, what, self.device, self._raised)
        if what not in DEVICES:
            raise TypeError(f"to() received an invalid combination of arguments: {what!r}")
        if self.device == "meta" and what != "meta":
            error = NotImplementedError(META_COPY)
            self._raised.append(error)
            raise error
        return Grad(self.shape, self.dtype, what, self._raised)

    def __repr__(self) -> str:
        return f"Grad(shape={self.shape}, dtype={self.dtype!r}, device={self.device!r})"


def run_validate(answer: Callable[..., Any], name: str, i: int, grad: Sequence[Any],
                 input: Sequence[Any]) -> tuple[Any, ...]:
    """Run ``answer`` (``validate_outputs``) on gradient ``i`` of node ``name``, a plain
    gradient ``grad = (shape, dtype, device)`` for an input ``input = (shape, dtype,
    device)``. Returns ``("gets", shape, dtype, device)``, what reaches the next node, or
    ``("raises", class, message)``."""
    raised: list[BaseException] = []
    try:
        out = answer(name, i, Grad(*grad, raised=raised), tuple(input[0]), input[1], input[2])
    except NotImplementedError as exc:
        if not any(exc is r for r in raised):
            raise  # an unanswered exercise, not torch's refusal
        return ("raises", type(exc).__name__, str(exc))
    except Exception as exc:  # noqa: BLE001 - torch's refusal is the answer
        return ("raises", type(exc).__name__, str(exc))
    if type(out) is not Grad:
        return ("returns", type(out).__name__)
    return ("gets", out.shape, out.dtype, out.device)
