"""Backward graphs of plain Python nodes, for grading chapter 5's ``backward_pass`` without
torch: :func:`run_case` builds the nodes a case describes, runs the answer on them (once or
twice), and returns what happened as plain data, the same trace that the exercise's
reference records from torch's engine running the same graph of custom ``Function`` nodes.

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
from typing import Any

__all__ = ["LEAVES", "CONSTANT", "ACCUMULATE_SEQ", "FREED", "NOT_A_LEAF", "run_case", "edge_of",
           "run_edges"]

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
