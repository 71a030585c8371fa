"""Chapter 5: the solution notebook's answers pass their checks on a fresh seed, typical
mistakes fail them, the cases describe torch's real graphs, and the trusted grading pipeline
gives the solutions full points."""

from __future__ import annotations

import heapq

import pytest

from autograder import checks, exercises, references, sandbox
from autograder.exercises import ch05_autograd
from tests.notebooks import (
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)

pytestmark = pytest.mark.ch05

CHAPTER = "ch05_autograd"
NAMES = ["engine_order", "binary_backward", "leaf_grads", "has_grad", "clamp_apply",
         "version_counter"]
FRESH_SEED = 20261121


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def order_by_seq(graph, root):
    """Every node by sequence number, largest first: forgets to wait for dependencies."""
    return [ident for _, ident in sorted((-seq, ident) for ident, _, seq, _ in graph)]


def order_first_in_first_out(graph, root):
    """Waits for dependencies but runs ready nodes in the order they became ready."""
    nodes = {ident: nxt for ident, _, _, nxt in graph}
    waiting = dict.fromkeys(nodes, 0)
    for nxt in nodes.values():
        for m in nxt:
            waiting[m] += 1
    queue, order = [root], []
    while queue:
        ident = queue.pop(0)
        order.append(ident)
        for m in nodes[ident]:
            waiting[m] -= 1
            if waiting[m] == 0:
                queue.append(m)
    return order


def order_ties_by_id(graph, root):
    """The ready heap ordered by (-seq, id): ties (AccumulateGrad nodes) taken by id, not in
    the order torch's heap leaves them."""
    nodes = {ident: (seq, nxt) for ident, _, seq, nxt in graph}
    waiting = dict.fromkeys(nodes, 0)
    for _, nxt in nodes.values():
        for m in nxt:
            waiting[m] += 1
    ready, order = [(-nodes[root][0], root)], []
    while ready:
        _, ident = heapq.heappop(ready)
        order.append(ident)
        for m in nodes[ident][1]:
            waiting[m] -= 1
            if waiting[m] == 0:
                heapq.heappush(ready, (-nodes[m][0], m))
    return order


def order_without_accumulate_priority(graph, root):
    """Priority by sequence number, but AccumulateGrad nodes treated as the oldest (seq -1)."""
    return RIGHT["engine_order"](
        tuple((ident, name, -1 if name == "AccumulateGrad" else seq, nxt)
              for ident, name, seq, nxt in graph), root)


def _shape(v):
    return (len(v), *_shape(v[0])) if isinstance(v, list | tuple) else ()


def _expand(v, dims, index=()):
    """v broadcast to shape dims, as nested lists."""
    if len(index) == len(dims):
        own = _shape(v)
        for i, n in zip(index[len(index) - len(own):], own, strict=True):
            v = v[i if n > 1 else 0]
        return v
    return [_expand(v, dims, index + (i,)) for i in range(dims[len(index)])]


def _summed(g, target):
    """Nested lists ``g`` summed down to shape ``target`` (``sum_to_size``)."""
    def add(u, v):
        return [add(p, q) for p, q in zip(u, v, strict=True)] if isinstance(u, list) else u + v

    def total(rows):
        result = rows[0]
        for row in rows[1:]:
            result = add(result, row)
        return result

    while len(_shape(g)) > len(target):
        g = total(g)
    if not target:
        return g
    rows = [_summed(row, target[1:]) for row in g]
    return [total(rows)] if target[0] == 1 else rows


def backward_summed_down(op, x, y, grad):
    """Sums each gradient down to its input's shape: the engine's job, not the node's."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)
    return _summed(gx, _shape(x)), _summed(gy, _shape(y))


def backward_mul_swapped(op, x, y, grad):
    """For x * y, multiplies grad by the input's own value instead of the other's."""
    if op == "*" and _shape(x) == _shape(y):
        return RIGHT["binary_backward"](op, y, x, grad)
    return RIGHT["binary_backward"](op, x, y, grad)


def backward_div_in_one_step(op, x, y, grad):
    """For x / y, writes y's gradient as -grad * x / (y * y), not in torch's order."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)
    if op == "/":
        dims = _shape(grad)
        xs, ys = _expand(x, dims), _expand(y, dims)

        def rule(g, a, b):
            if isinstance(g, list):
                return [rule(*t) for t in zip(g, a, b, strict=True)]
            return -g * a / (b * b)

        gy = rule(grad, xs, ys)
    return gx, gy


def backward_div_without_minus(op, x, y, grad):
    """Forgets the minus sign of the quotient rule."""
    gx, gy = RIGHT["binary_backward"](op, x, y, grad)

    def negate(v):
        return [negate(u) for u in v] if isinstance(v, list) else -v

    return gx, (negate(gy) if op == "/" else gy)


def leaf_grads_overwriting(leaves, program):
    """Keeps the last gradient that arrives instead of adding them up."""
    value = dict(leaves)
    for out, op, (p, q) in program:
        value[out] = {"+": value[p] + value[q], "-": value[p] - value[q],
                      "*": value[p] * value[q]}[op]
    grad = {program[-1][0]: 1.0}
    for out, op, (p, q) in reversed(program):
        if out in grad:
            g = grad[out]
            local = {"+": (g, g), "-": (g, -g), "*": (g * value[q], g * value[p])}[op]
            grad[p], grad[q] = local
    return tuple(grad.get(name) for name, _ in leaves)


def leaf_grads_zero_for_unused(leaves, program):
    """0.0 instead of None for a leaf the root does not depend on."""
    return tuple(0.0 if g is None else g for g in RIGHT["leaf_grads"](leaves, program))


def has_grad_every_tensor(program):
    """Every tensor backward reaches gets .grad, non-leaves included."""
    names = RIGHT["has_grad"](program)
    muls = [s[1] for s in program if s[0] == "mul"]
    return [s[1] for s in program if s[0] not in ("retain_grad", "requires_grad_")
            and (s[1] in names or s[1] in muls[-1:])]


def has_grad_inference_like_no_grad(program):
    """Treats inference_mode exactly like no_grad."""
    renamed = tuple(("no_grad", *s[1:]) if s[0] == "inference" else s for s in program)
    return RIGHT["has_grad"](renamed)


def clamp_exclusive(x, lo, hi, grad):
    """Passes the gradient to x only strictly inside (lo, hi)."""
    y, grad_x, grad_lo, grad_hi = RIGHT["clamp_apply"](x, lo, hi, grad)
    grad_x = [0.0 if v in (lo, hi) else g for v, g in zip(x, grad_x, strict=True)]
    return y, grad_x, grad_lo, grad_hi


def clamp_naive_bounds(x, lo, hi, grad):
    """Below lo always goes to lo, above hi to hi, even when lo >= hi."""
    y, grad_x, _, _ = RIGHT["clamp_apply"](x, lo, hi, grad)
    grad_lo = None if lo is None else sum(g for v, g in zip(x, grad, strict=True) if v < lo)
    grad_hi = None if hi is None else sum(g for v, g in zip(x, grad, strict=True) if v > hi)
    return y, grad_x, None if lo is None else float(grad_lo), (
        None if hi is None else float(grad_hi))


def version_views_own_counter(program):
    """A view gets a counter of its own instead of sharing its base's."""
    renamed = tuple((out, "add", (args[0], args[0])) if op == "view" else (out, op, args)
                    for out, op, args in program)
    versions, raises = RIGHT["version_counter"](renamed)
    return versions, raises


def version_exp_saves_input(program):
    """Believes exp saves its input, like sin, instead of its result."""
    renamed = tuple((out, "sin", args) if op == "exp" else (out, op, args)
                    for out, op, args in program)
    return RIGHT["version_counter"](renamed)


WRONG = [  # (exercise, answer, whether it still passes the visible test: never)
    ("engine_order", order_by_seq, False),
    ("engine_order", order_first_in_first_out, False),
    ("engine_order", order_without_accumulate_priority, False),
    ("engine_order", order_ties_by_id, False),
    ("binary_backward", backward_summed_down, False),
    ("binary_backward", backward_mul_swapped, False),
    ("binary_backward", backward_div_in_one_step, False),
    ("binary_backward", backward_div_without_minus, False),
    ("leaf_grads", leaf_grads_overwriting, False),
    ("leaf_grads", leaf_grads_zero_for_unused, False),
    ("has_grad", has_grad_every_tensor, False),
    ("has_grad", has_grad_inference_like_no_grad, False),
    ("clamp_apply", clamp_exclusive, False),
    ("clamp_apply", clamp_naive_bounds, False),
    ("version_counter", version_views_own_counter, False),
    ("version_counter", version_exp_saves_input, False),
]


# ---------------------------------------------------------------- the checks

@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED, 50)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


REFUSALS = {"engine_order": [], "binary_backward": [], "leaf_grads": [],
            "has_grad": ["raises RuntimeError"], "clamp_apply": ["raises RuntimeError"],
            "version_counter": []}


def test_hidden_cases_are_deterministic_and_reach_the_refusals():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
        assert set(exercises.get(name).fixed) <= set(cases)
        kinds = [f"raises {e.exception}" if isinstance(e, references.Raises)
                 else type(e).__name__ for _, e in pairs]
        for refusal in REFUSALS[name]:
            assert kinds.count(refusal) >= 3, (name, refusal)
        assert sum(k not in REFUSALS[name] for k in kinds) >= len(kinds) // 2, name


def test_hidden_cases_cover_both_answers_of_the_yes_no_parts():
    raises = [e[1] for _, e in hidden_pairs("version_counter")]
    assert raises.count(True) >= 20 and raises.count(False) >= 20
    grads = [g for _, e in hidden_pairs("leaf_grads") for g in e]
    assert grads.count(None) >= 20 and len([g for g in grads if g is not None]) >= 100
    kinds = {e if isinstance(e, references.Raises) else len(e) for _, e in hidden_pairs("has_grad")}
    assert {1, 2, 3} <= kinds


def test_engine_order_graphs_are_torch_graphs():
    """The graph a case gives the student is torch's: the ids, class names, sequence numbers
    (counted from the program's first node) and edges of the live grad_fn objects."""
    import torch

    for case in checks.cases("engine_order", hidden=True):
        program = case.ctx("program")
        env = ch05_autograd._run_program(torch, ch05_autograd.ORDER_LEAVES, program)
        root = env[case.args[1]]
        live = ch05_autograd.torch_graph(root, env, env["t1"].grad_fn._sequence_nr())
        assert sorted(live) == sorted(case.args[0]), program


def test_engine_order_reference_is_the_recorded_order():
    """The reference is torch's own order, read from pre-hooks, not a model of it: a
    program whose order the priority rule decides (not creation order reversed)."""
    case = exercises.get("engine_order").fixed[3]
    expected = references.compute(exercises.get("engine_order"), [case])[0]
    assert expected == ["t5", "t4", "t3", "c", "t2", "t1", "a", "b"]


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake in an exercise no other answer calls loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "leaf_grads",
                                            leaf_grads_overwriting, 24)
