"""Chapter 5 exercises: autograd. Every right answer is what torch 2.13 does.

Programs are plain data (tuples of steps over named tensors); each reference runs the program
in torch and reads the answer off the live objects: the order in which the engine called the
grad_fn nodes (recorded by pre-hooks), ``.grad`` after ``backward()``, ``_version``.

Strategies draw only with ``sampled_from``: Hypothesis's ``integers()`` and ``floats()`` also
draw constants collected from loaded modules, which would make the cases differ between the
grader's process and the notebook's kernel.
"""

from __future__ import annotations

import math
import warnings

from hypothesis import strategies as st

from .. import graphs
from .spec import Case, Exercise, register

CHAPTER = "ch05_autograd"
ACCUMULATE_SEQ = 2 ** 64 - 1  # AccumulateGrad's sequence number: UINT64_MAX


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


# ---------------------------------------------------------------- collect_next_edges
# A case is one op on named tensors, recorded (or not) under a grad mode. The tensors, each
# of shape (2,), made afresh for every case (``_edge_env``):
EDGE_REFS = {  # name: (requires_grad, grad_fn, output_nr) as the library describes it,
    #                AccumulateGrad it gets (a name), how torch makes it
    "a": ((True, None, 0), "AccumulateGrad of a", "a leaf that requires grad"),
    "b": ((True, None, 0), "AccumulateGrad of b", "a leaf that requires grad"),
    "c": ((False, None, 0), None, "a float leaf that does not"),
    "i": ((False, None, 0), None, "an int64 tensor"),
    "m": ((True, "m.grad_fn", 0), None, "m = a * b"),
    "u0": ((True, "u.grad_fn", 0), None, "u0, u1 = torch.stack((a, b)).unbind()"),
    "u1": ((True, "u.grad_fn", 1), None, "u0, u1 = torch.stack((a, b)).unbind()"),
    "v": ((True, "v.grad_fn", 0), None, "v = m.view(2)"),
    "e": ((True, "e.grad_fn", 0), None, "e = a * 2; e.exp_()"),
    "d": ((False, None, 0), None, "d = a.detach()"),
    "n": ((False, None, 0), None, "with torch.no_grad(): n = a * 3"),
    "w": ((True, None, 0), None, "with torch.no_grad(): w = a.view(2)"),
    "f": ((False, None, 0), None, "with torch.inference_mode(): f = torch.ones(2)"),
}
NUMBER = "2.0"  # a Python number: mul's other
EDGE_MODES = {"grad": True, "no_grad": False, "inference": False}


def _call_edges(answer, case: Case):
    """How a check calls an answer to ``collect_next_edges`` (``graphs.run_edges``)."""
    return graphs.run_edges(answer, *case.args)


def _edge_env(torch) -> dict:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, -1.0], requires_grad=True)
    m = a * b
    u0, u1 = torch.stack((a, b)).unbind()
    e = a * 2
    e.exp_()
    with torch.no_grad():
        n, w = a * 3, a.view(2)
    with torch.inference_mode():
        f = torch.ones(2)
    return {"a": a, "b": b, "c": torch.tensor([0.5, 4.0]), "i": torch.tensor([1, 2]),
            "m": m, "u0": u0, "u1": u1, "v": m.view(2), "e": e, "d": a.detach(), "n": n,
            "w": w, "f": f}


def edges_run(lib, op: str, refs, mode: str):
    """The case's op on ``lib`` (torch, or reftensor in the tests): its node's edges, each
    node named, or None where no node was recorded."""
    env = _edge_env(lib)
    xs = [2.0 if r == NUMBER else env[r] for r in refs]
    context = {"grad": lib.enable_grad, "no_grad": lib.no_grad,
               "inference": lib.inference_mode}[mode]
    with context():
        z = lib.cat(xs) if op == "cat" else xs[0] * xs[1]
    if z.grad_fn is None:
        return None
    names = {}
    for name, t in env.items():
        if t.grad_fn is not None:
            names.setdefault(t.grad_fn, f"{name.rstrip('01')}.grad_fn")
    edges = []
    for node, nr in z.grad_fn.next_functions:
        if node is None:
            edges.append((None, nr))
        elif hasattr(node, "variable"):  # an AccumulateGrad: whose?
            edges.append((next(f"AccumulateGrad of {n}" for n, t in env.items()
                               if t is node.variable), nr))
        else:
            edges.append((names[node], nr))
    return tuple(edges)


def _edges_reference(c: Case):
    return edges_run(_torch(), c.ctx("op"), c.ctx("refs"), c.ctx("mode"))


def _edges_truth(c: Case) -> str:
    op, refs, mode = c.ctx("op"), c.ctx("refs"), c.ctx("mode")
    made = [f"{r}: {EDGE_REFS[r][2]}" for r in dict.fromkeys(refs) if r != NUMBER]
    call = f"torch.cat([{', '.join(refs)}])" if op == "cat" else f"{refs[0]} * {refs[1]}"
    if mode != "grad":
        call = f"with torch.{mode}(): z = {call}"
    else:
        call = f"z = {call}"
    return (f"{'; '.join(made)}; {call}; None if z.grad_fn is None, else "
            "z.grad_fn.next_functions, each node named: 'AccumulateGrad of a', 'm.grad_fn'")


def _edges_case(op: str, refs, mode: str = "grad") -> Case:
    refs = tuple(refs)
    inputs = tuple(None if r == NUMBER else EDGE_REFS[r][0] for r in refs)
    accumulators = tuple(None if r == NUMBER else EDGE_REFS[r][1] for r in refs)
    return Case(args=(EDGE_MODES[mode], inputs, accumulators),
                context=(("op", op), ("refs", refs), ("mode", mode)))


REQUIRING = ("a", "b", "m", "u0", "u1", "v", "e", "w")
NOT_REQUIRING = ("c", "i", "d", "n", "f")


@st.composite
def _edges_cases(draw: st.DrawFn) -> Case:
    mode = _pick(draw, ("grad", "grad", "grad", "no_grad", "inference"))
    pool = _pick(draw, (tuple(EDGE_REFS), tuple(EDGE_REFS), REQUIRING, NOT_REQUIRING))
    if _pick(draw, ("mul", "cat", "cat")) == "mul":  # an inference tensor may not be saved
        pool = tuple(r for r in pool if r != "f")
        return _edges_case("mul", (_pick(draw, pool), _pick(draw, (*pool, NUMBER, NUMBER))),
                           mode)
    refs = [_pick(draw, pool) for _ in range(_pick(draw, (1, 2, 2, 3, 4)))]
    if len(refs) > 1 and _pick(draw, (0, 0, 0, 1)):  # the same tensor twice
        refs[-1] = refs[0]
    return _edges_case("cat", refs, mode)


register(Exercise(
    name="collect_next_edges",
    chapter=CHAPTER,
    signature="collect_next_edges(grad_mode, inputs, accumulator) -> None or a tuple of "
              "(node, output_nr) per input; checked with names for nodes "
              "(graphs.run_edges: accumulator(i) gives the name of input i's AccumulateGrad)",
    fixed=(
        _edges_case("mul", "ab"),
        _edges_case("mul", ("a", "c")),
        _edges_case("mul", ("m", NUMBER)),
        _edges_case("cat", ("u1", "u0", "v")),
        _edges_case("cat", ("e", "d", "a", "a")),
        _edges_case("mul", ("c", "i")),
        _edges_case("mul", "ab", "no_grad"),
        _edges_case("cat", ("a", "f"), "inference"),
        _edges_case("cat", ("w", "b")),
    ),
    edge=(
        _edges_case("cat", ("w",)),
        _edges_case("cat", ("n", "d", "f")),
        _edges_case("mul", ("i", "u1")),
        _edges_case("cat", ("m", "m", "u1"), "no_grad"),
        _edges_case("mul", ("e", "e")),
        _edges_case("cat", ("f", "b", "i")),
    ),
    strategy=_edges_cases,
    reference=_edges_reference,
    truth=_edges_truth,
    hidden_examples=100,
    call=_call_edges,
    call_shown="autograder.course.graphs:run_edges",
))


# ---------------------------------------------------------------- set_history
# A case is one recorded op: ``op`` on ``x`` (and ``y``), each of shape (2,):
#   x: ("leaf" | "result" | "plain", dtype, bumps): a leaf that requires grad, a result
#      (``base * 2`` of such a leaf), or a tensor that requires none; ``bumps`` in-place
#      ``add_(1)``s before the op (under no_grad for a leaf), each one version more;
#   y: the same, a Python number 2.0 (NUMBER), or "x" (the same tensor as x).
# The args are what the library hands set_history for it (``_history_args``).
HISTORY_OPS = {  # op: (torch code, the node's inputs' formulas' reads)
    "mul": ("z = x * y", (("grad", "other"), ("grad", "self"))),
    "div": ("z = x / y", (("grad", "other"), ("grad", "self", "other"))),
    "add": ("z = x + y", (("grad",), ("grad", "alpha"))),
    "exp": ("z = x.exp()", (("grad", "result"),)),
    "sin": ("z = x.sin()", (("grad", "self"),)),
    "max": ("z = x.max(0)", (("grad", "dim", "indices", "self_sym_sizes", "keepdim"),)),
    "unbind": ("z = x.unbind()", (("grads", "dim"),)),
    "long": ("z = x.long()", (("grad", "self_options"),)),
    "bool": ("z = x.bool()", (("grad", "self_options"),)),
    "slice": ("z = x[0:1]", (("grad", "self_sym_sizes", "dim", "start", "end", "step"),)),
    "exp_": ("z = x.exp_()", (("grad", "result"),)),
    "mul_": ("z = x.mul_(y)", (("grad", "other"), ("grad", "self"))),
    "function": ("z = Twice.apply(x): a custom Function returning (x * 2, (x > 0).long())",
                 (None,)),
}
BINARY_OPS = ("mul", "div", "add", "mul_")
HISTORY_DTYPES = ("float32", "float64", "float16", "bfloat16", "complex64")
REAL_ONLY = ("max", "long", "bool", "function")  # complex: no order, a cast drops a part


def _history_args(op: str, x: tuple, y) -> tuple:
    """``(outputs, needs, reads, saves)``: what the library hands set_history."""
    x_kind, dtype, x_bumps = x
    reads = HISTORY_OPS[op][1]
    x_grad = x_kind != "plain"
    if op in BINARY_OPS:
        same = y == "x"
        y_grad = x_grad if same else (y != NUMBER and y[0] != "plain")
        y_version = 0 if y == NUMBER else x_bumps if same else y[2]
        needs = (x_grad, y_grad)
        # mul_ saves a copy of x taken before the write (version 0) for self
        self_version = 0 if op == "mul_" else x_bumps
        saves = ((("self", self_version, None), ("other", y_version, None))
                 if op != "add" else ())
    else:
        needs = (x_grad,)
        saves = {"exp": (("result", 0, 0),), "sin": (("self", x_bumps, None),),
                 "max": (("indices", 0, 1),), "exp_": (("result", x_bumps + 1, 0),)
                 }.get(op, ())
    outputs = {"max": (dtype, "int64"), "unbind": (dtype, dtype), "long": ("int64",),
               "bool": ("bool",), "function": (dtype, "int64")}.get(op, (dtype,))
    return outputs, needs, reads, saves


def _history_case(op: str, x: tuple, y=None) -> Case:
    x = tuple(x)
    y = tuple(y) if isinstance(y, list | tuple) else y
    return Case(args=_history_args(op, x, y), context=(("op", op), ("x", x), ("y", y)))


def _history_make(torch, spec):
    kind, dtype, bumps = spec
    dt = getattr(torch, dtype)
    t = torch.tensor([1.5, -0.5], dtype=dt, requires_grad=kind != "plain")
    if kind == "result":
        t = t * 2
    for _ in range(bumps):
        if kind == "leaf":
            with torch.no_grad():
                t.add_(1)
        else:
            t.add_(1)
    return t


def history_run(lib, op: str, x_spec, y_spec, names):
    """The case's op on ``lib`` (torch, or reftensor in the tests), read as set_history's
    result: each output's output_nr where its grad_fn is the op's node, and, for each of
    ``names``, ``node._saved_<name>`` unless None: (name, its _version, its grad_fn is the
    node), read right after the op (a saved tensor unpacks only at its saved version)."""
    x = _history_make(lib, x_spec)
    y = (2.0 if y_spec == NUMBER else x if y_spec == "x"
         else None if y_spec is None else _history_make(lib, y_spec))

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2, (t > 0).long()

        @staticmethod
        def backward(ctx, g, h):
            return g * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = {"mul": lambda: x * y, "div": lambda: x / y, "add": lambda: x + y,
             "exp": x.exp, "sin": x.sin, "max": lambda: x.max(0), "unbind": x.unbind,
             "long": x.long, "bool": x.bool, "slice": lambda: x[0:1], "exp_": x.exp_,
             "mul_": lambda: x.mul_(y), "function": lambda: Twice.apply(x)}[op]()
    outs = tuple(z) if isinstance(z, tuple | list) else (z,)
    node = next((o.grad_fn for o in outs if o.grad_fn is not None), None)
    history = tuple(o.output_nr if node is not None and o.grad_fn is node else None
                    for o in outs)
    saved = []
    for name in names:
        t = None if node is None else getattr(node, f"_saved_{name}")
        if t is not None:
            saved.append((name, t._version, t.grad_fn is node))
    return history, tuple(saved)


def _history_reference(c: Case):
    return history_run(_torch(), c.ctx("op"), c.ctx("x"), c.ctx("y"),
                       [name for name, _, _ in c.args[3]])


def _history_truth(c: Case) -> str:
    op, x_spec, y_spec = c.ctx("op"), c.ctx("x"), c.ctx("y")

    def made(name, spec):
        kind, dtype, bumps = spec
        text = (f"{name} = torch.tensor([1.5, -0.5], dtype=torch.{dtype}"
                f"{'' if kind == 'plain' else ', requires_grad=True'})")
        if kind == "result":
            text += " * 2"
        if bumps:
            text += f"; {name}.add_(1) x{bumps}" + (" under no_grad" if kind == "leaf" else "")
        return text

    lines = [made("x", x_spec)]
    if y_spec == NUMBER:
        lines.append("y = 2.0")
    elif y_spec == "x":
        lines.append("y = x")
    elif y_spec is not None:
        lines.append(made("y", y_spec))
    lines.append(HISTORY_OPS[op][0])
    return ("; ".join(lines) + "; node = the grad_fn of z's outputs: per output, its "
            "output_nr if its grad_fn is node, else None; for each name of saves, "
            "node._saved_<name> unless None: (name, its _version, its grad_fn is node)")


@st.composite
def _history_cases(draw: st.DrawFn) -> Case:
    op = _pick(draw, (*HISTORY_OPS, *BINARY_OPS, "max", "exp_"))
    dtypes_ = tuple(d for d in HISTORY_DTYPES if op not in REAL_ONLY or d != "complex64")
    dtype = _pick(draw, dtypes_)
    if op in ("exp_", "mul_"):  # in place: on a result (a leaf that requires grad refuses)
        x = ("result", dtype, _pick(draw, (0, 0, 1, 2)))
    else:
        x = (_pick(draw, ("leaf", "leaf", "result", "plain")), dtype,
             _pick(draw, (0, 0, 1, 2)))
    if op not in BINARY_OPS:
        if x[0] == "plain":  # something must require grad for the op to be recorded
            x = ("leaf", *x[1:])
        return _history_case(op, x)
    kind = _pick(draw, ("leaf", "result", "plain", "plain", "number", "same"))
    if kind == "same" and op == "mul_":  # x.mul_(x) saves x, then changes it: refused later
        kind = "leaf"
    if kind == "number":
        y = NUMBER
    elif kind == "same":
        y = "x"
    else:
        y_dtype = dtype if kind != "plain" else _pick(draw, (dtype, dtype, "int64"))
        y = (kind, y_dtype, _pick(draw, (0, 0, 1, 2)))
    if x[0] == "plain" and (y in (NUMBER, "x") or y[0] == "plain"):
        x = ("leaf", *x[1:])
    return _history_case(op, x, y)


register(Exercise(
    name="set_history",
    chapter=CHAPTER,
    signature="set_history(outputs, needs, reads, saves) -> (history, saved); history: per "
              "output its output_nr or None; saved: (name, version, is_output) per tensor "
              "saved, in the order of saves",
    fixed=(
        # x * y saves each input only when the other needs a gradient
        _history_case("mul", ("leaf", "float32", 0), ("plain", "float32", 1)),
        _history_case("mul", ("plain", "float32", 2), ("leaf", "float32", 0)),
        _history_case("mul", ("result", "float64", 1), NUMBER),
        _history_case("div", ("leaf", "float32", 0), ("leaf", "float32", 0)),
        # a saved output, an integer output (saved as it is), integer results
        _history_case("exp", ("leaf", "float16", 0)),
        _history_case("max", ("result", "float32", 1)),
        _history_case("long", ("leaf", "float32", 0)),
        _history_case("function", ("leaf", "float64", 0)),
        # in place: the new self is the saved output, one version on
        _history_case("exp_", ("result", "float32", 1)),
        _history_case("mul_", ("result", "float32", 0), ("leaf", "float32", 0)),
        _history_case("unbind", ("leaf", "complex64", 0)),
    ),
    edge=(
        _history_case("mul", ("leaf", "bfloat16", 1), "x"),
        _history_case("add", ("leaf", "float32", 0), ("plain", "int64", 1)),
        _history_case("bool", ("leaf", "float64", 0)),
        _history_case("sin", ("result", "complex64", 2)),
        _history_case("slice", ("leaf", "float32", 0)),
        _history_case("mul_", ("result", "float64", 2), ("plain", "float64", 1)),
    ),
    strategy=_history_cases,
    reference=_history_reference,
    truth=_history_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- backward_pass
# A case is a graph of custom Function nodes (the format: autograder.course.graphs). The
# answer runs on plain nodes built from it (graphs.run_case, the exercise's call); the
# reference runs torch's engine on the same graph made of torch.autograd.Function nodes and
# records, with a pre-hook on every node, the order they ran and what each received.
PASS_WEIGHTS = (1.0, 2.0, -1.5, 0.5, 0.1, 3.0, 0.3)
ROOT_GRADS = (1.0, 0.5, -2.0, 0.7)
HOOK_FACTORS = (2.0, -1.0, 0.5, 0.0, 0.1)


def _call_pass(answer, case: Case) -> tuple:
    """How a check calls an answer to ``backward_pass``: on plain nodes built from the case
    (``graphs.run_case``, which a student can call on a failing case too)."""
    return graphs.run_case(answer, *case.args)


def _pass_graph(torch, program, hooks) -> dict:
    """The case's graph, built from one custom Function; its post-hooks registered, its
    pre-hooks kept for ``_trace_pass`` (which registers them after the recording ones:
    torch runs a node's pre-hooks in the order they were registered)."""

    class Step(torch.autograd.Function):
        @staticmethod
        def forward(ctx, weights, saves, outputs, *xs):
            ctx.weights, ctx.saves = weights, saves
            if saves:
                ctx.save_for_backward(xs[0])
            outs = tuple(xs[0] * 1.0 for _ in range(outputs))
            return outs if outputs > 1 else outs[0]

        @staticmethod
        def backward(ctx, *grads):
            if ctx.saves:
                ctx.saved_tensors  # raises once freed
            total = grads[0]  # a None comes in as zeros (materialize_grads)
            for g in grads[1:]:
                total = total + g
            return (None, None, None,
                    *[None if w is None else total * w for w in ctx.weights])

    leaves = {leaf: torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
              for leaf in graphs.LEAVES}
    refs = {**leaves, graphs.CONSTANT: torch.tensor(2.0, dtype=torch.float64)}
    steps, saves = {}, {}
    for name, outputs, inputs, weights, save in program:
        out = Step.apply(tuple(weights), save, outputs, *[refs[r] for r in inputs])
        outs = out if outputs > 1 else (out,)
        refs[name] = outs[0]
        for k, o in enumerate(outs):
            refs[f"{name}.{k}"] = o
        steps[name], saves[name] = outs[0].grad_fn, save
    nodes = {node: name for name, node in steps.items()}
    for leaf, t in leaves.items():  # the leaves' AccumulateGrad nodes (kept alive here)
        nodes[torch.autograd.graph.get_gradient_edge(t).node] = leaf
    by_name = {name: node for node, name in nodes.items()}
    pre = []
    for kind, name, factor in hooks:
        def scaled(grads, factor=factor):
            return tuple(None if g is None else g * factor for g in grads)

        node = by_name.get(name)
        if node is not None and kind == "pre":
            pre.append((node, scaled))
        elif node is not None:
            node.register_hook(lambda grad_inputs, grad_outputs, scaled=scaled:
                               scaled(grad_inputs))
    return {"leaves": leaves, "refs": refs, "steps": steps, "saves": saves, "nodes": nodes,
            "pre": pre}


def _trace_pass(torch, env, roots, keep_graph) -> tuple:
    """One ``torch.autograd.backward`` over the case's graph, traced as
    ``graphs.run_case`` traces a pass."""
    ran: list = []

    def record(name):
        return lambda grads: ran.append(
            (name, [None if g is None else g.item() for g in grads]))

    handles = [node.register_prehook(record(name)) for node, name in env["nodes"].items()]
    handles += [node.register_prehook(scaled) for node, scaled in env["pre"]]
    error = None
    try:
        torch.autograd.backward([env["refs"][ref] for ref, _ in roots],
                                [torch.tensor(g, dtype=torch.float64) for _, g in roots],
                                retain_graph=keep_graph)
    except RuntimeError as exc:
        error = type(exc).__name__
    for handle in handles:
        handle.remove()
    freed = []
    for name, node in env["steps"].items():
        if env["saves"][name]:
            try:
                node.saved_tensors
            except RuntimeError:
                freed.append(name)
    grads = [(leaf, None if t.grad is None else t.grad.item())
             for leaf, t in env["leaves"].items()]
    return ran, grads, sorted(freed), error


def _pass_reference(c: Case) -> tuple:
    torch = _torch()
    program, roots, hooks, keep_graph, twice = c.args
    env = _pass_graph(torch, program, hooks)
    return tuple(_trace_pass(torch, env, roots, keep_graph) for _ in range(2 if twice else 1))


def _pass_truth(c: Case) -> str:
    program, roots, hooks, keep_graph, twice = c.args
    lines = ["a, b, c, d = (torch.tensor(1.0, dtype=torch.float64, requires_grad=True) "
             "for _ in range(4)); k = torch.tensor(2.0, dtype=torch.float64)"]
    for name, outputs, inputs, weights, save in program:
        outs = ", ".join(f"{name}.{k}" for k in range(outputs)) if outputs > 1 else name
        lines.append(f"{outs} = Step.apply({', '.join(inputs)})  # backward: the sum of its "
                     f"{outputs} incoming gradients times {list(weights)}"
                     f"{'' if save else ', saves no tensor'}")
    for kind, name, factor in hooks:
        lines.append(f"{name}'s node: a {kind}-hook multiplying the gradients by {factor}")
    call = (f"torch.autograd.backward([{', '.join(r for r, _ in roots)}], "
            f"[{', '.join(repr(g) for _, g in roots)}], retain_graph={keep_graph})")
    lines.append(call + (" twice" if twice else ""))
    return ("\n    ".join(lines) + "\n    recording with a pre-hook on every node the order "
            "they run and what they receive; then each leaf's .grad, the steps whose saved "
            "tensors are freed, and what a pass raised")


def _step(name, inputs, weights, outputs=1, saves=True) -> tuple:
    return (name, outputs, tuple(inputs), tuple(weights), saves)


def _pass_case(*steps, roots=None, hooks=(), keep_graph=False, twice=False) -> Case:
    roots = ((steps[-1][0], 1.0),) if roots is None else roots
    return Case(args=(tuple(steps), tuple(roots), tuple(hooks), keep_graph, twice))


@st.composite
def _pass_cases(draw: st.DrawFn) -> Case:
    steps, refs = [], list(graphs.LEAVES)
    for k in range(1, _pick(draw, (1, 2, 3, 4, 5, 6, 7)) + 1):
        outputs = _pick(draw, (1, 1, 1, 2))
        # later names are likelier, so graphs are chains with side branches, not stars
        pool = refs + refs[len(graphs.LEAVES):] * 2 + [graphs.CONSTANT]
        inputs = [_pick(draw, pool) for _ in range(_pick(draw, (1, 2, 2, 3, 4)))]
        if all(r == graphs.CONSTANT for r in inputs):
            inputs[0] = _pick(draw, refs)
        weights = [_pick(draw, (*PASS_WEIGHTS, None)) for _ in inputs]
        steps.append(_step(f"t{k}", inputs, weights, outputs, _pick(draw, (True, True, False))))
        refs += [f"t{k}"] if outputs == 1 else [f"t{k}.0", f"t{k}.1"]
    last = steps[-1][0] if steps[-1][1] == 1 else f"{steps[-1][0]}.{_pick(draw, (0, 1))}"
    roots = [(last, _pick(draw, ROOT_GRADS))]
    for _ in range(_pick(draw, (0, 0, 0, 1, 2))):  # several roots: a GraphRoot
        roots.append((_pick(draw, refs), _pick(draw, ROOT_GRADS)))
    names = [s[0] for s in steps]
    hooks = []
    for _ in range(_pick(draw, (0, 0, 1, 2))):
        kind = _pick(draw, ("pre", "post"))
        name = _pick(draw, names + list(graphs.LEAVES) if kind == "pre" else names)
        hooks.append((kind, name, _pick(draw, HOOK_FACTORS)))
    return Case(args=(tuple(steps), tuple(roots), tuple(hooks),
                      _pick(draw, (False, False, True)), _pick(draw, (False, True))))


register(Exercise(
    name="backward_pass",
    chapter=CHAPTER,
    signature="backward_pass(root, grads, keep_graph, calls) -> None; checked on plain "
              "nodes built from (program, roots, hooks, keep_graph, twice)",
    fixed=(
        # one node, two leaves: AccumulateGrad nodes tie, and come out c before a
        _pass_case(_step("t1", "ca", (2.0, 3.0))),
        # four leaves made ready at once: the heap's order, not first-in first-out
        _pass_case(_step("t1", "abcd", (1.0, 2.0, 3.0, 0.5))),
        # a diamond over a shared node: wait for every user, sum what arrives, run the
        # larger sequence number first, AccumulateGrad as soon as it is ready
        _pass_case(_step("t1", "ab", (0.1, 2.0)), _step("t2", ("t1",), (3.0,)),
                   _step("t3", ("t1", "c"), (0.3, -1.5)),
                   _step("t4", ("t2", "t3"), (0.5, 0.1)), _step("t5", ("t4", "a"), (1.0, 2.0))),
        # None gradients: an output nothing used, an edge whose gradient is None, a
        # constant's (None, 0) edge; a node whose gradients are all None still runs
        _pass_case(_step("t1", "a", (2.0,), outputs=2), _step("t2", "b", (3.0,)),
                   _step("t3", ("t1.0", "t2", "k"), (0.5, None, 1.0))),
        # several roots (a GraphRoot), and hooks that change gradients
        _pass_case(_step("t1", "ab", (1.0, 0.5)), _step("t2", ("t1",), (2.0,)),
                   _step("t3", ("t1", "c"), (-1.5, 3.0)),
                   roots=(("t2", 1.0), ("t3", -2.0)),
                   hooks=(("pre", "t1", 2.0), ("post", "t2", -1.0), ("pre", "a", 0.5))),
        # freed saved tensors: a second backward raises at the first node that saved one
        _pass_case(_step("t1", "a", (2.0,)), _step("t2", ("t1",), (3.0,)),
                   _step("t3", ("t2",), (0.5,), saves=False), twice=True),
        # retain_graph: nothing freed, and the second backward adds into .grad
        _pass_case(_step("t1", "ab", (2.0, 0.1)), _step("t2", ("t1", "a"), (3.0, 0.3)),
                   keep_graph=True, twice=True),
    ),
    edge=(
        _pass_case(_step("t1", "aa", (2.0, 0.1))),
        _pass_case(_step("t1", "b", (2.0,)), roots=(("a", 0.5),)),
        _pass_case(_step("t1", "ab", (1.0, 2.0), outputs=2), roots=(("t1.1", 0.5),)),
        _pass_case(_step("t1", "ab", (1.0, 2.0)), roots=(("t1", 0.5), ("t1", 2.0))),
        _pass_case(_step("t1", "ab", (None, None)), _step("t2", ("t1", "c"), (2.0, 1.0))),
        _pass_case(_step("t1", "a", (2.0,), saves=False), _step("t2", ("t1",), (3.0,),
                                                                saves=False), twice=True),
        _pass_case(_step("t1", "abc", (1.0, 2.0, 3.0)), _step("t2", ("t1", "d"), (2.0, 0.5)),
                   hooks=(("post", "t1", 0.0), ("pre", "t2", -1.0))),
    ),
    strategy=_pass_cases,
    reference=_pass_reference,
    truth=_pass_truth,
    hidden_examples=100,
    call=_call_pass,
    call_shown="autograder.course.graphs:run_case",
))



# ---------------------------------------------------------------- binary_backward
def _broadcast(a: tuple, b: tuple) -> tuple:
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    return tuple(max(p, q) for p, q in zip(a, b, strict=True))


VALUES = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0)


#: the values of binary_backward's cases: no 0, which Python's / refuses; thirds and tenths,
#: so that an operation order other than torch's rounds differently
FRACTIONS = (-2.5, -1.0, 0.1, 0.3, 1 / 3, 1.5, 2.0, 3.0, 7.0)


@st.composite
def _nested(draw: st.DrawFn, shape: tuple, values: tuple = VALUES):
    if not shape:
        return _pick(draw, values)
    return tuple(draw(_nested(shape[1:], values)) for _ in range(shape[0]))


@st.composite
def _operand_shape(draw: st.DrawFn, out: tuple) -> tuple:
    keep = _pick(draw, range(len(out) + 1))
    return tuple(1 if _pick(draw, (0, 0, 1)) else n for n in out[len(out) - keep:])


@st.composite
def _binary_cases(draw: st.DrawFn) -> Case:
    out = tuple(_pick(draw, (1, 2, 3)) for _ in range(_pick(draw, (0, 1, 2, 2, 3, 3))))
    xs, ys = draw(_operand_shape(out)), draw(_operand_shape(out))
    grad = draw(_nested(_broadcast(xs, ys), FRACTIONS))
    return Case(args=(_pick(draw, ("*", "/")), draw(_nested(xs, FRACTIONS)),
                      draw(_nested(ys, FRACTIONS)), grad))


def _binary_reference(c: Case) -> tuple:
    """What the node returns when called (``z.grad_fn(grad)``): the gradients at z's shape,
    before the engine sums them down."""
    torch = _torch()
    op, x, y, grad = c.args
    x = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    z = x * y if op == "*" else x / y
    grad_x, grad_y = z.grad_fn(torch.tensor(grad, dtype=torch.float64))
    return grad_x.tolist(), grad_y.tolist()


def _binary_truth(c: Case) -> str:
    op, x, y, grad = c.args

    def t(v):
        return f"torch.tensor({v!r}, dtype=torch.float64, requires_grad=True)"

    return (f"x = {t(x)}; y = {t(y)}; gx, gy = (x {op} y).grad_fn(torch.tensor({grad!r}, "
            "dtype=torch.float64)); (gx.tolist(), gy.tolist())")


def _tuples(value):
    """Nested lists as nested tuples (cases must be hashable)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _binary_case(op, x, y, grad) -> Case:
    return Case(args=(op, _tuples(x), _tuples(y), _tuples(grad)))


register(Exercise(
    name="binary_backward",
    chapter=CHAPTER,
    signature="binary_backward(op, x, y, grad) -> (grad_x, grad_y) at grad's shape; op is "
              "'*' or '/', x, y and grad nested tuples (or numbers for 0-d)",
    fixed=(
        _binary_case("*", [[1.0], [2.0]], [3.0, -1.0, 2.0], [[1.0, 2.0, 3.0], [-1.0, 0.1, 1.0]]),
        _binary_case("/", [1.0, -2.5], [3.0, -2.5], [1.0, 0.1]),
        _binary_case("*", 2.0, [1.0, 2.0], [3.0, -1.0]),
        _binary_case("/", [[[2.0, 3.0]]], [[1.0, 2.0], [3.0, 0.3]],
                     [[[1.0, 1.0], [2.0, -2.0]]]),
        _binary_case("/", 3.0, 7.0, 1.0),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=("*", 3.0, -2.0, 1.0)),
    ),
    edge=(
        _binary_case("*", 3.0, -2.0, 1.0),
        _binary_case("/", [1.0], 2.0, [5.0]),
        _binary_case("*", [[1.0, 2.0]], [[3.0], [1.0], [2.0]],
                     [[1.0, 2.0], [3.0, 1.0], [0.1, 2.0]]),
        _binary_case("/", [[1.0, 2.0]], [[[3.0]]], [[[1.0, 2.0]]]),
        _binary_case("/", -2.5, -2.5, 0.1),
    ),
    strategy=_binary_cases,
    reference=_binary_reference,
    truth=_binary_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- reduction_backward
#: the values of reduction_backward's gradients: thirds and tenths, which a mean's division
#: rounds, so that dividing by another count gives other floats
GRAD_VALUES = (-2.5, -1.0, 0.1, 0.3, 1 / 3, 1.5, 2.0, 7.0)


def _reduced_shape(sizes: tuple, dims, keepdim: bool) -> tuple:
    ndim = len(sizes)
    reduced = set() if not ndim else (
        set(range(ndim)) if not dims else {d % ndim for d in dims})
    return tuple(1 if d in reduced else n for d, n in enumerate(sizes)
                 if keepdim or d not in reduced)


@st.composite
def _reduction_cases(draw: st.DrawFn) -> Case:
    sizes = tuple(_pick(draw, (1, 2, 3, 3, 4)) for _ in range(_pick(draw, (0, 1, 2, 2, 3, 3))))
    ndim = len(sizes)
    kind = _pick(draw, range(8))
    if kind == 0:  # x.sum(), x.mean(): every dim, no keepdim
        dims, keepdim = None, False
    else:
        if kind == 1:  # an empty list of dims: every dim too
            dims = ()
        elif not ndim:  # a 0-d x takes dim 0 or -1
            dims = (_pick(draw, (0, -1)),)
        else:
            chosen = [d for d in range(ndim) if _pick(draw, (0, 1))] or [_pick(draw, range(ndim))]
            order = []
            while chosen:  # in any order
                order.append(chosen.pop(_pick(draw, range(len(chosen)))))
            dims = tuple(d - ndim if _pick(draw, (0, 1)) else d for d in order)
        keepdim = _pick(draw, (False, True))
    grad = draw(_nested(_reduced_shape(sizes, dims, keepdim), GRAD_VALUES))
    return Case(args=(grad, sizes, dims, keepdim, _pick(draw, (False, True))))


def _reduce_in_torch(torch, x, dims, keepdim: bool, mean: bool):
    op = x.mean if mean else x.sum
    return op() if dims is None else op(list(dims), keepdim=keepdim)


def _reduction_reference(c: Case):
    """What the reduction's node returns when called (``y.grad_fn(grad)``): ``x``'s
    gradient, before the engine hands it on."""
    torch = _torch()
    grad, sizes, dims, keepdim, mean = c.args
    x = torch.zeros(sizes, dtype=torch.float64, requires_grad=True)
    y = _reduce_in_torch(torch, x, dims, keepdim, mean)
    (grad_x,) = (y.grad_fn(torch.tensor(grad, dtype=torch.float64)),)
    return grad_x.tolist()


def _reduction_truth(c: Case) -> str:
    grad, sizes, dims, keepdim, mean = c.args
    op = "mean" if mean else "sum"
    call = f"x.{op}()" if dims is None else f"x.{op}({list(dims)!r}, keepdim={keepdim})"
    return (f"x = torch.zeros({sizes!r}, dtype=torch.float64, requires_grad=True); "
            f"y = {call}; y.grad_fn(torch.tensor({grad!r}, dtype=torch.float64)).tolist()")


def _reduction_case(grad, sizes, dims, keepdim, mean) -> Case:
    return Case(args=(_tuples(grad), sizes, dims, keepdim, mean))


register(Exercise(
    name="reduction_backward",
    chapter=CHAPTER,
    signature="reduction_backward(grad, sizes, dims, keepdim, mean) -> x's gradient, nested "
              "lists of sizes (a float for 0-d); grad nested tuples of the result's shape (a "
              "number for 0-d), sizes a tuple of ints, dims None, () or a tuple of ints, "
              "keepdim and mean bools",
    fixed=(
        _reduction_case(2.0, (2, 3), None, False, False),
        _reduction_case([0.1, 2.0], (2, 3), (1,), False, False),
        _reduction_case([[0.1], [2.0]], (2, 3), (-1,), True, False),
        _reduction_case([1.5, 7.0, -1.0], (2, 3), (0,), False, True),
        _reduction_case(1.5, (2, 3), None, False, True),
        _reduction_case(7.0, (2, 3), (), False, True),
        # the order of dims does not matter; the count is of the reduced dims only
        _reduction_case([[[0.1, 2.0, 1.5]]], (4, 2, 3), (-3, 1), True, True),
        _reduction_case([1.0, 0.3], (3, 2, 4), (2, 0), False, True),
        # a 0-d x: dim 0 or -1 is its only "dim"
        _reduction_case(1 / 3, (), (-1,), True, True),
    ),
    edge=(
        _reduction_case(2.0, (), None, False, False),
        _reduction_case([2.0], (1,), (0,), True, True),
        _reduction_case([[0.3]], (1, 2), (), True, False),
        _reduction_case([0.1, 0.3, 7.0], (3, 1), (1,), False, True),
    ),
    strategy=_reduction_cases,
    reference=_reduction_reference,
    truth=_reduction_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- accumulate_grad
@st.composite
def _layout(draw: st.DrawFn, shape: tuple, overlap: bool) -> tuple:
    """Strides for ``shape``: contiguous, permuted, stepped, or (``overlap``) any small
    strides, 0 included."""
    kinds = ("contiguous", "permuted", "permuted", "stepped") + (("any",) * 2 if overlap else ())
    kind = _pick(draw, kinds)
    if kind == "any":
        return tuple(_pick(draw, (0, 1, 2, 3, 5)) for _ in shape)
    order = list(range(len(shape)))
    if kind == "permuted":  # a permutation, drawn by swaps (Fisher-Yates)
        for i in range(len(order) - 1, 0, -1):
            j = _pick(draw, range(i + 1))
            order[i], order[j] = order[j], order[i]
    step = 2 if kind == "stepped" else 1
    strides, running = [0] * len(shape), step
    for d in reversed(order):
        strides[d] = running
        running *= max(shape[d], 1) * step
    return tuple(strides)


@st.composite
def _accumulate_cases(draw: st.DrawFn) -> Case:
    shape = tuple(_pick(draw, (0, 1, 2, 2, 3, 3)) for _ in range(_pick(draw, (0, 1, 2, 2, 3))))
    stride = draw(_layout(shape, overlap=True))
    grad = None
    if _pick(draw, (0, 0, 1)):
        grad = (draw(_nested(shape, FRACTIONS)), draw(_layout(shape, overlap=False)))
    return Case(args=(shape, stride, grad, draw(_nested(shape, FRACTIONS))))


def _accumulate_reference(c: Case) -> tuple:
    torch = _torch()
    shape, stride, grad, new = c.args
    x = torch.empty_strided(shape, stride, dtype=torch.float64).requires_grad_()
    if grad is not None:
        values, grad_stride = grad
        x.grad = torch.empty_strided(shape, grad_stride, dtype=torch.float64).copy_(
            torch.tensor(values, dtype=torch.float64).reshape(shape))
    before = x.grad
    with warnings.catch_warnings():  # a .grad laid out unlike x: torch warns, then adds
        warnings.simplefilter("ignore")
        x.backward(torch.tensor(new, dtype=torch.float64).reshape(shape))
    return x.grad.tolist(), x.grad.stride(), before is not None and x.grad is before


def _accumulate_truth(c: Case) -> str:
    shape, stride, grad, new = c.args
    code = (f"x = torch.empty_strided({shape}, {stride}, dtype=torch.float64)"
            ".requires_grad_(); ")
    if grad is not None:
        code += (f"x.grad = torch.empty_strided({shape}, {grad[1]}, dtype=torch.float64)"
                 f".copy_(torch.tensor({grad[0]!r}, dtype=torch.float64).reshape({shape})); ")
    return (code + f"before = x.grad; x.backward(torch.tensor({new!r}, dtype=torch.float64)"
            f".reshape({shape})); (x.grad.tolist(), x.grad.stride(), x.grad is before)")


def _accumulate_case(shape, stride, grad, new) -> Case:
    grad = None if grad is None else (_tuples(grad[0]), tuple(grad[1]))
    return Case(args=(tuple(shape), tuple(stride), grad, _tuples(new)))


register(Exercise(
    name="accumulate_grad",
    chapter=CHAPTER,
    signature="accumulate_grad(shape, stride, grad, new) -> (values, strides, in_place); grad "
              "None or (values, strides) of .grad now; values nested tuples (a float for 0-d) "
              "in, nested lists out",
    fixed=(
        # the first gradient: a copy laid out like a dense leaf, else contiguous
        _accumulate_case((2, 3), (3, 1), None, [[1.0, 2.0, 3.0], [0.1, 0.3, -2.5]]),
        _accumulate_case((3, 2), (1, 3), None, [[1.0, 2.0], [3.0, 7.0], [0.1, 1.5]]),
        _accumulate_case((3,), (2,), None, [1.0, 2.0, 3.0]),
        _accumulate_case((2, 3), (0, 1), None, [[1.0, 2.0, 3.0], [0.1, 0.3, -2.5]]),
        _accumulate_case((2, 2), (1, 1), None, [[1.0, 2.0], [3.0, 7.0]]),
        # size-1 dims do not matter, an empty leaf is dense
        _accumulate_case((1, 3), (7, 1), None, [[1.0, 2.0, 3.0]]),
        _accumulate_case((2, 0), (5, 1), None, [[], []]),
        _accumulate_case((), (), None, 0.3),
        # later gradients: added in place, .grad keeps its strides
        _accumulate_case((2, 3), (3, 1), ([[1.0, 2.0, 3.0], [0.1, 0.3, -2.5]], (1, 2)),
                         [[1.0, 0.1, 1 / 3], [2.0, 0.3, 1.5]]),
        _accumulate_case((), (), (0.1, ()), 0.3),
    ),
    edge=(
        _accumulate_case((2,), (0,), None, [1.0, 2.0]),
        _accumulate_case((0, 2), (1, 0), None, []),
        _accumulate_case((2, 1, 3), (1, 100, 2), None, [[[1.0, 2.0, 3.0]], [[0.1, 0.3, 7.0]]]),
        _accumulate_case((3,), (2,), ([1.0, 2.0, 3.0], (1,)), [0.1, 0.3, 1 / 3]),
    ),
    strategy=_accumulate_cases,
    reference=_accumulate_reference,
    truth=_accumulate_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- clamp_backward
CLAMP_X = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
BOUNDS = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)
GRADS = (1.0, 2.0, 3.0, -1.0, 4.0)


@st.composite
def _clamp_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, (1, 2, 3, 4, 5, 6))
    x = tuple(_pick(draw, CLAMP_X + (math.nan,)) if _pick(draw, range(12)) == 0
              else _pick(draw, CLAMP_X) for _ in range(n))

    def bound() -> tuple:
        if _pick(draw, range(3)) == 0:  # a 0-d bound, broadcast: the same value everywhere
            return (_pick(draw, BOUNDS),) * n
        return tuple(_pick(draw, BOUNDS) for _ in range(n))

    lo, hi = bound(), bound()
    kind = _pick(draw, range(10))
    if kind == 0:
        lo = None
    elif kind == 1:
        hi = None
    elif kind == 2:  # lo == hi: the corner the text warns about
        hi = lo
    return Case(args=(x, lo, hi, tuple(_pick(draw, GRADS) for _ in range(n))))


def _clamp_reference(c: Case) -> tuple:
    """The gradients of ``torch.clamp(x, lo, hi)`` with tensor bounds of ``x``'s shape,
    so that nothing is summed down: what the node returns."""
    torch = _torch()
    x, lo, hi, grad = c.args
    xt, lot, hit = (None if v is None else
                    torch.tensor(v, dtype=torch.float64, requires_grad=True)
                    for v in (x, lo, hi))
    y = torch.clamp(xt, lot, hit)
    inputs = [t for t in (xt, lot, hit) if t is not None]
    grads = iter(torch.autograd.grad(y, inputs, torch.tensor(grad, dtype=torch.float64)))
    return tuple(None if t is None else next(grads).tolist() for t in (xt, lot, hit))


def _clamp_truth(c: Case) -> str:
    x, lo, hi, grad = c.args

    def t(v):
        return "None" if v is None else (
            f"torch.tensor({v!r}, dtype=torch.float64, requires_grad=True)")

    return (f"x, lo, hi = {t(x)}, {t(lo)}, {t(hi)}; y = torch.clamp(x, lo, hi); "
            f"torch.autograd.grad(y, [x, lo, hi] without the Nones, "
            f"torch.tensor({grad!r}, dtype=torch.float64)) as lists, None for an absent bound")


register(Exercise(
    name="clamp_backward",
    chapter=CHAPTER,
    signature="clamp_backward(x, lo, hi, grad) -> (grad_x, grad_lo, grad_hi); x, grad and "
              "each bound tuples of floats of one length, a bound None when absent (its "
              "gradient None too)",
    fixed=(
        Case(args=((-2.0, 0.0, 2.0), (-1.0,) * 3, (1.0,) * 3, (1.0, 2.0, 3.0))),
        # at a bound the gradient goes to x
        Case(args=((-1.0, 0.5, 1.0), (-1.0,) * 3, (1.0,) * 3, (1.0, 2.0, 4.0))),
        Case(args=((-2.0, 0.5, 2.0), (0.0,) * 3, None, (1.0, 2.0, 3.0))),
        Case(args=((-2.0, 0.5, 2.0), None, (0.0,) * 3, (1.0, 2.0, 3.0))),
        # the rules the text states: lo == hi (below: nowhere), lo > hi, nan
        Case(args=((-1.0, 0.0, 1.0), (0.0,) * 3, (0.0,) * 3, (1.0, 2.0, 4.0))),
        Case(args=((-2.0, 0.0, 2.0), (1.0,) * 3, (-1.0,) * 3, (1.0, 2.0, 4.0))),
        Case(args=((math.nan, 2.0), (-1.0,) * 2, (1.0,) * 2, (1.0, 2.0))),
        Case(args=((math.nan, 0.0), (1.0,) * 2, (-1.0,) * 2, (1.0, 2.0))),
        # bounds of x's shape: each element has its own
        Case(args=((0.0, 0.0, 0.0), (-1.0, 0.5, 1.0), (1.0, 1.0, -1.0), (1.0, 2.0, 4.0))),
    ),
    edge=(
        Case(args=((0.5,), None, (0.5,), (3.0,))),
        Case(args=((0.5,), (1.0,), None, (3.0,))),
    ),
    strategy=_clamp_cases,
    reference=_clamp_reference,
    truth=_clamp_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- saved_tensor_error
# A program (kind, dtype, shape, before, after) saves one tensor t and changes it in place:
#   kind "input":  b = a * 2; <before on b>; c = b.sin()   (SinBackward0 saves its input b)
#   kind "result": b = a * 2; c = b.exp()                  (ExpBackward0 saves its result c)
#   kind "plain":  w = tensor(...); <before on w>; c = a * w (MulBackward0 saves w, which has
#                  no history)
# then <after> on the saved tensor, and the node is called: c's first grad_fn(ones).
# Each in-place step is (op, through_view): t.op() or t[0:1].op(), op add_(1), mul_(2), exp_().
TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
              "float16": "torch.HalfTensor"}
STEP_NODE = {"add_": "AddBackward0", "mul_": "MulBackward0", "exp_": "ExpBackward0"}
COPY_SLICES = "torch::autograd::CopySlices"


def _saved_args(program) -> tuple:
    """What the library hands the piece when the node unpacks the saved tensor."""
    kind, dtype, shape, before, after = program
    saved_version = len(before)
    grad_fn = {"input": "MulBackward0", "result": "ExpBackward0", "plain": None}[kind]
    for op, through_view in before + after:
        if kind != "plain":  # a tensor with history takes the in-place op's node
            grad_fn = COPY_SLICES if through_view else STEP_NODE[op]
    return (saved_version, saved_version + len(after), TYPE_NAMES[dtype], shape,
            "ExpBackward0" if kind == "result" else None, grad_fn)


def _saved_case(kind, dtype, shape, before=(), after=()) -> Case:
    program = (kind, dtype, tuple(shape), tuple(before), tuple(after))
    return Case(args=_saved_args(program), context=(("program", program),))


@st.composite
def _saved_cases(draw: st.DrawFn) -> Case:
    kind = _pick(draw, ("input", "result", "plain"))
    shape = _pick(draw, ((), (3,), (2, 3)))

    def steps(most: int) -> tuple:
        return tuple((_pick(draw, ("add_", "mul_", "exp_")),
                      bool(shape) and _pick(draw, (False, False, True)))
                     for _ in range(_pick(draw, range(most + 1))))

    before = () if kind == "result" else steps(2)
    return _saved_case(kind, _pick(draw, tuple(TYPE_NAMES)), shape, before, steps(3))


def _saved_run(torch, program):
    """Run the program in torch; returns the code and the node that saved the tensor."""
    kind, dtype, shape, before, after = program
    dt = getattr(torch, dtype)
    a = torch.full(shape, 0.5, dtype=dt, requires_grad=True)

    def apply(t, op, through_view):
        target = t[0:1] if through_view else t
        getattr(target, op)(*{"add_": (1,), "mul_": (2,), "exp_": ()}[op])

    if kind == "plain":
        t = torch.full(shape, 0.25, dtype=dt)
        for step in before:
            apply(t, *step)
        c = a * t
    else:
        b = a * 2
        if kind == "input":
            for step in before:
                apply(b, *step)
            c, t = b.sin(), b
        else:
            c = b.exp()
            t = c
    node = c.grad_fn
    for step in after:
        apply(t, *step)
    return node, c


def _saved_reference(c: Case):
    torch = _torch()
    node, out = _saved_run(torch, c.ctx("program"))
    try:
        node(torch.ones_like(out))
    except RuntimeError as err:
        return str(err).split(" Hint:")[0]
    return None


def _saved_truth(c: Case) -> str:
    kind, dtype, shape, before, after = c.ctx("program")

    def lines(t, steps):
        arg = {"add_": "1", "mul_": "2", "exp_": ""}
        return [f"{t}{'[0:1]' if v else ''}.{op}({arg[op]})" for op, v in steps]

    a = f"a = torch.full({shape}, 0.5, dtype=torch.{dtype}, requires_grad=True)"
    if kind == "plain":
        code = [a, f"w = torch.full({shape}, 0.25, dtype=torch.{dtype})", *lines("w", before),
                "c = a * w", "node = c.grad_fn", *lines("w", after)]
    elif kind == "input":
        code = [a, "b = a * 2", *lines("b", before), "c = b.sin()", "node = c.grad_fn",
                *lines("b", after)]
    else:
        code = [a, "b = a * 2", "c = b.exp()", "node = c.grad_fn", *lines("c", after)]
    return ("; ".join(code) + "; node(torch.ones_like(c)): the RuntimeError's message up "
            "to ' Hint:', or None if it does not raise")


register(Exercise(
    name="saved_tensor_error",
    chapter=CHAPTER,
    signature="saved_tensor_error(saved_version, version, type_name, shape, saved_by, "
              "grad_fn) -> the error message without its hint, or None",
    fixed=(
        _saved_case("input", "float32", (3,), after=(("add_", False),)),
        _saved_case("result", "float32", (3,), after=(("mul_", False),)),
        _saved_case("plain", "float64", (2, 3), after=(("add_", False),)),
        _saved_case("input", "float32", (2, 3), after=(("exp_", True),)),
        _saved_case("input", "float16", (), before=(("mul_", False),),
                    after=(("add_", False), ("exp_", False))),
        _saved_case("input", "float64", (3,), before=(("add_", False),)),
        _saved_case("result", "float64", (), after=(("exp_", False),)),
    ),
    edge=(
        _saved_case("plain", "float32", ()),
        _saved_case("result", "float16", (2, 3), after=(("add_", True),)),
    ),
    strategy=_saved_cases,
    reference=_saved_reference,
    truth=_saved_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- unary_backward
#: what each op's node saves (its input "self", its result "result", or nothing for neg),
#: as ``reftensor.autograd.derivatives.UNARY_SAVES`` says
UNARY_SAVES = {"exp": "result", "exp2": "result", "expm1": "result", "log": "self",
               "log1p": "self", "log2": "self", "log10": "self", "sqrt": "result",
               "rsqrt": "result", "reciprocal": "result", "tanh": "result",
               "sigmoid": "result", "tan": "result", "atan": "self", "asin": "self",
               "acos": "self", "relu": "result", "abs": "self", "neg": None,
               "square": "self", "pow": "self", "logit": "self", "nan_to_num": "self",
               "asinh": "self", "acosh": "self", "atanh": "self"}
#: ``x ** exponent``'s exponents (``POW_EXPONENTS``): those torch's pow kernel computes
#: ``x.pow(exponent - 1)`` for by products, a reciprocal, ``rsqrt`` or ones; ints and floats
UNARY_EXPONENTS = (-1, 0, 0.5, 1, 2, 3, 4, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0)
#: the gradients: 0 (0 / 0 is nan, 0 * inf too), negatives, thirds and tenths (which an
#: order of operations other than torch's rounds differently)
UNARY_GRADS = (-2.5, -1.0, 0.0, 0.1, 1 / 3, 1.5, 2.0, 7.0)
_LOGS = (-2.5, -1.0, -0.0, 0.0, 0.0, 0.1, 1 / 3, 1.0, 2.0, 7.0)  # 0 and -0: +-inf, or nan
_ROOTS = (-2.0, -1.0, -0.5, 0.0, 0.1, 1 / 3, 0.8, 1.0, 1.5)  # +-1: rsqrt(0); |x| > 1: nan
#: what a node may have saved: the op's input, or a value its result takes (its corners
#: first: 0 where the formula divides, the edges of the op's range, nan from a negative
#: number's square root)
UNARY_SAVED = {
    "exp": (0.0, 0.1, 1 / 3, 0.5, 1.0, 2.0, 7.0, math.inf),
    "exp2": (0.0, 0.1, 1 / 3, 0.5, 1.0, 2.0, 7.0, math.inf),
    "expm1": (-1.0, -0.5, -1 / 3, 0.0, 0.1, 1.5, 7.0),
    "log": _LOGS, "log2": _LOGS, "log10": _LOGS,
    "log1p": (-2.5, -1.0, -1.0, -0.5, -0.0, 0.0, 0.1, 1 / 3, 2.0, 7.0),  # -1: 1 / 0
    "sqrt": (0.0, -0.0, math.nan, 0.1, 1 / 3, 1.5, 2.0),  # sqrt(-0.0) is -0.0
    "rsqrt": (math.inf, -math.inf, math.nan, 0.1, 1 / 3, 0.5, 2.0),  # rsqrt(-0.0) is -inf
    "reciprocal": (-math.inf, -2.5, -0.0, 0.0, 0.1, 1 / 3, 2.0, math.inf),
    # 1/3, 1/9, 6/11, 0.8: where 1 - r * r rounded once differs from rounded twice
    "tanh": (-1.0, -0.8, -1 / 3, 0.0, 0.1, 1 / 9, 1 / 3, 6 / 11, 0.8, 1.0),
    "sigmoid": (0.0, 0.1, 0.3, 1 / 3, 0.5, 0.9, 1.0),
    "tan": (-7.0, -1 / 3, 0.0, 0.1, 1 / 3, 1.5, 2.0),
    "atan": (-2.5, -1.0, 0.0, 0.1, 1 / 3, 2.0, 7.0),
    "asin": _ROOTS, "acos": _ROOTS,
    "relu": (0.0, 0.0, 0.0, 0.1, 1 / 3, 1.5, 2.0, math.nan),  # relu at exactly 0, often
    "abs": (-2.5, -1.0, -0.0, -0.0, 0.0, 0.0, 0.1, 1 / 3, 2.0, math.nan),
    "square": (-2.5, -1.0, -0.0, 0.0, 0.1, 1 / 3, 2.0, 7.0),
    "neg": (),
    # 0 and -0.0: 1 / (x * x) and rsqrt give +-inf; negatives: rsqrt gives nan; 1e160: a
    # power that overflows; nan and inf: x.pow(0) is 1 (the exponent 1)
    "pow": (-2.5, -1.0, -0.0, 0.0, 0.1, 0.3, 1 / 3, 0.7, 2.0, 7.0, 1e160, math.inf, math.nan),
    "logit": (-0.5, -0.0, 0.0, 0.0, 0.1, 0.3, 1 / 3, 0.5, 0.9, 1.0, 1.5, math.nan),
    "nan_to_num": (-2.5, -0.0, 0.0, 1 / 3, 7.0, math.inf, -math.inf, math.nan),
    # acosh: rsqrt(0) at +-1, nan for |x| < 1 (finite below -1); atanh: +-inf at +-1
    "asinh": (-2.5, -0.0, 0.0, 0.1, 0.3, 1 / 3, 2.0, 7.0, math.inf, math.nan),
    "acosh": (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 1.2, 2.0, 2.5, 7.0, math.inf),
    "atanh": (-2.0, -1.0, -0.3, -0.0, 0.0, 0.1, 0.3, 1 / 3, 1.0, 1.0, 2.0, math.inf),
}


#: each op's corners: where its formula divides by 0, takes the root of a negative number,
#: or decides by a comparison (relu at 0, abs at 0 and -0.0), or where tanh's one rounding
#: is not two
UNARY_CORNERS = {
    "exp": (0.0, math.inf), "exp2": (0.0, math.inf), "expm1": (-1.0,),
    "log": (0.0, -0.0, -1.0), "log2": (0.0, -0.0, -2.5), "log10": (0.0, -0.0, -1.0),
    "log1p": (-1.0, -2.5), "sqrt": (0.0, -0.0, math.nan), "rsqrt": (math.inf, -math.inf),
    "reciprocal": (0.0, -0.0, math.inf), "tanh": (1 / 3, -1 / 3, 6 / 11, -0.8),
    "sigmoid": (0.0, 1.0), "tan": (0.0,), "atan": (0.0,), "asin": (1.0, -1.0, 1.5, -2.0),
    "acos": (1.0, -1.0, 1.5, -2.0), "relu": (0.0,), "abs": (0.0, -0.0, math.nan),
    "square": (-0.0,), "neg": (), "pow": (0.0, -0.0, -1.0, math.nan, math.inf),
    "logit": (0.0, -0.0, 1.0, -0.5, 1.5), "nan_to_num": (math.nan, math.inf, -math.inf),
    "asinh": (math.inf,), "acosh": (1.0, -1.0, 0.5, -2.0), "atanh": (1.0, -1.0, 2.0),
}


def _with_first(value, first):
    """Nested tuples (or a number) with their first element replaced."""
    if not isinstance(value, tuple):
        return first
    return (_with_first(value[0], first), *value[1:])


def _with_last(value, last):
    """Nested tuples (or a number) with their last element replaced."""
    if not isinstance(value, tuple):
        return last
    return (*value[:-1], _with_last(value[-1], last))


@st.composite
def _unary_cases(draw: st.DrawFn) -> Case:
    shape = tuple(_pick(draw, (1, 2, 3)) for _ in range(_pick(draw, (0, 1, 1, 2, 2, 3))))
    op = _pick(draw, UNARY_SAVES)
    grad = draw(_nested(shape, UNARY_GRADS))
    saved = None if op == "neg" else draw(_nested(shape, UNARY_SAVED[op]))
    if UNARY_CORNERS[op] and _pick(draw, (0, 1)):  # the op's corners, first and last
        saved = _with_last(_with_first(saved, _pick(draw, UNARY_CORNERS[op])),
                           _pick(draw, UNARY_CORNERS[op]))
        grad = _with_first(grad, _pick(draw, (0.0, 1.0, -2.5)))  # 0: 0 / 0, 0 * inf
    exponent = _pick(draw, UNARY_EXPONENTS) if op == "pow" else None
    return Case(args=(op, grad, saved, exponent))


def _unary_reference(c: Case):
    """What the op's node returns when called (``y.grad_fn(grad)``) with ``saved`` as what
    it saved: ``x`` itself for a node that saves its input; for one that saves its result,
    ``saved`` handed to the node in place of the result (a ``saved_tensors_hooks`` unpack
    hook), since the strategy cannot compute torch's results."""
    torch = _torch()
    op, grad, saved, exponent = c.args
    g = torch.tensor(grad, dtype=torch.float64)
    if UNARY_SAVES[op] == "result":
        x = torch.zeros(g.shape, dtype=torch.float64, requires_grad=True)
        result = torch.tensor(saved, dtype=torch.float64)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda _: result):
            y = getattr(x, op)()
    else:
        x = (torch.zeros(g.shape, dtype=torch.float64) if saved is None
             else torch.tensor(saved, dtype=torch.float64)).requires_grad_()
        y = x.pow(exponent) if op == "pow" else getattr(x, op)()
    return y.grad_fn(g).tolist()


def _shape(value) -> tuple:
    return (len(value), *_shape(value[0])) if isinstance(value, tuple) else ()


def _unary_truth(c: Case) -> str:
    op, grad, saved, exponent = c.args
    g = f"torch.tensor({grad!r}, dtype=torch.float64)"
    zeros = f"torch.zeros({_shape(grad)!r}"
    if UNARY_SAVES[op] == "result":
        return (f"x = {zeros}, dtype=torch.float64, requires_grad=True); "
                "with torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda _: "
                f"torch.tensor({saved!r}, dtype=torch.float64)): y = x.{op}()  (the node saves "
                f"that as its result); y.grad_fn({g}).tolist()")
    x = zeros if saved is None else f"torch.tensor({saved!r}"
    call = f"pow({exponent!r})" if op == "pow" else f"{op}()"
    return (f"x = {x}, dtype=torch.float64, requires_grad=True); "
            f"x.{call}.grad_fn({g}).tolist()")


def _unary_case(op, grad, saved=None, exponent=None) -> Case:
    return Case(args=(op, _tuples(grad), _tuples(saved), exponent))


register(Exercise(
    name="unary_backward",
    chapter=CHAPTER,
    signature="unary_backward(op, grad, saved, exponent=None) -> x's gradient, nested lists "
              "of grad's shape (a float for 0-d); op a str ('exp', 'log', 'tanh', 'relu', "
              "'square', 'pow', ...), grad nested tuples of floats, saved nested tuples of its "
              "shape (the node's saved input or result) or None for 'neg', exponent pow's "
              "(-1, 0, 0.5, 1, 2, 3 or 4, an int or a float) or None",
    fixed=(
        _unary_case("exp", [1.5, -2.5], [2.0, 1 / 3]),
        _unary_case("expm1", [[0.1, 2.0]], [[-1.0, 0.5]]),
        # a division by 0 gives inf of the signs' product, 0 / 0 nan; a negative x is fine
        _unary_case("log", [1.0, 2.0, 0.0, -1.0, 0.1], [0.0, -0.0, 0.0, -2.5, 1 / 3]),
        _unary_case("log2", [0.1, -2.5], [0.1, 1 / 3]),
        _unary_case("log10", [-2.5, 1.0], [0.1, 7.0]),
        _unary_case("sqrt", [1.0, 1.0, 0.0, 2.0], [0.0, -0.0, 0.0, math.nan]),
        _unary_case("rsqrt", [-2.5, 0.3, 1.0], [1 / 3, 0.3, math.inf]),
        _unary_case("reciprocal", [0.1, -2.5, 1.0], [1 / 3, 0.1, -0.0]),
        # 1 - r * r in one rounding (r = 1/3), in two it is another float
        _unary_case("tanh", [-1.0, 2.0, 1.5], [1 / 3, -0.8, 1.0]),
        _unary_case("sigmoid", [0.1, -2.5, 1.0], [0.1, 0.3, 0.5]),
        _unary_case("atan", [0.1, 7.0], [-2.0, 1 / 3]),
        _unary_case("asin", [1.0, 1.0, 2.0, 1.0], [1.0, 1.5, 0.5, -1.0]),
        _unary_case("acos", [1.0, 0.1], [-1.0, 0.8]),
        _unary_case("tan", [2.0, -1.0], [1 / 3, -7.0]),
        # relu's node saves its result: 0 where x <= 0, and there the gradient is 0
        _unary_case("relu", [[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.5], [math.nan, 0.0]]),
        # abs: the sign of x, 0 at 0 and -0.0 (and nan)
        _unary_case("abs", [1.0, 2.0, 3.0, 4.0], [-0.0, 0.0, -2.5, math.nan]),
        _unary_case("neg", [0.1, -2.5]),
        _unary_case("square", [[0.1], [2.0]], [[1 / 3], [-2.5]]),
        # x ** 0.5: 0.5 * rsqrt(x), two roundings; +-inf at 0 and -0.0, nan below
        _unary_case("pow", [1.0, 1.0, 2.0, 1 / 3], [0.0, -0.0, -1.0, 0.7], 0.5),
        # x ** -1: -1 * (1 / (x * x)); x ** 4: 4 * (x * x * x), each product rounded
        _unary_case("pow", [-2.5, 1.0, 0.1, 1.0], [0.0, -0.0, 0.3, 1e200], -1),
        _unary_case("pow", [1.0, -2.5, 2.0, 0.1], [0.3, 1 / 3, 1e160, -2.5], 4),
        # grad * (3 * (x * x)): the exponent scales the power before the gradient does
        _unary_case("pow", [-2.5, 0.0, 1.0], [0.3, math.inf, -0.0], 3),
        # x ** 0: zeros, whatever x; x ** 1: the gradient, whatever x (x.pow(0) is 1)
        _unary_case("pow", [-2.5, 1.0, 2.0], [0.0, -2.5, math.nan], 0),
        _unary_case("pow", [-2.5, 1.0, 2.0], [math.nan, math.inf, -0.0], 1.0),
        # logit: nan outside [0, 1], +-inf at its ends, one division by x * (1 - x)
        _unary_case("logit", [1.0, -2.5, 1.0, 1.0, 0.1, 1.0, 1.0],
                    [0.0, 1.0, -0.5, 1.5, 0.1, -0.0, math.nan]),
        # nan_to_num: nothing back through a value it replaced (nan, inf and -inf)
        _unary_case("nan_to_num", [-2.5, 1.0, -1.0, 0.1], [math.inf, -math.inf, math.nan, 2.0]),
        # asinh and acosh: g * rsqrt(x * x +- 1), a product with 1 / sqrt (not g / sqrt)
        _unary_case("asinh", [1 / 3, -2.5, 1.0], [0.1, 0.3, math.inf]),
        # acosh: inf at +-1, nan for |x| < 1, finite below -1 (the node does not know)
        _unary_case("acosh", [1.0, 1.0, 1.0, 0.1, 1.0, 1.0], [1.0, -1.0, 0.5, 7.0, 2.5, -2.0]),
        # atanh: g / (1 - x * x): inf at +-1, finite beyond
        _unary_case("atanh", [1.0, -2.5, 1.0, 1.0], [0.1, 1.0, -1.0, 2.0]),
    ),
    edge=(
        _unary_case("log1p", 1.0, -1.0),
        _unary_case("relu", 2.0, 0.0),
        _unary_case("abs", [[[1.0]]], [[[-0.0]]]),
        _unary_case("exp2", [[7.0, 0.0]], [[1 / 3, math.inf]]),
        _unary_case("neg", 0.0),
        _unary_case("square", [[-1.0]], [[-0.0]]),
        _unary_case("pow", [[2.0]], [[-0.0]], 4.0),
        _unary_case("pow", 0.1, 2.0, -1.0),
        _unary_case("logit", [[[2.0]]], [[[1.0]]]),
        _unary_case("nan_to_num", 0.0, math.nan),
        _unary_case("acosh", [[0.0]], [[1.0]]),
        _unary_case("atanh", 1.0, 0.3),
    ),
    strategy=_unary_cases,
    reference=_unary_reference,
    truth=_unary_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- call_hooks
# A case is a graph of two nodes with hooks (the format: graphs.run_hooks): Step, a custom
# Function with ``outputs`` outputs t0, t1, ... of the leaf a (and of a constant k, when
# there are two weights), and a's AccumulateGrad. The answer runs on plain gradients
# (graphs.run_hooks, the exercise's call); the reference registers the same hooks in torch
# and runs torch.autograd.backward, recording each hook's call, what Step's backward
# received, the retained .grad, a.grad and what was raised.
HOOK_GRADS = (1.0, 0.5, -2.0, 3.0)
HOOK_WEIGHTS = (2.0, -1.5, 0.5, 3.0)
HOOK_FACTORS_ = (2.0, -1.0, 0.5, 3.0, 10.0)
HOOK_NODES = ("pre", "post", "a.pre", "a.post")


def _call_hooks(answer, case: Case) -> tuple:
    """How a check calls an answer to ``call_hooks``: around the case's two nodes, on plain
    gradients (``graphs.run_hooks``, which a student can call on a failing case too)."""
    return graphs.run_hooks(answer, *case.args)


def _torch_hook_result(torch, action, got, node_hook: bool, remove):
    """graphs.hook_result on torch's tensors."""
    def value(v):
        return None if v is None else torch.tensor(v.value if isinstance(
            v, graphs.Tensor) else v, dtype=torch.float64)

    new = {"float": 1.5, "size": torch.zeros(2, dtype=torch.float64),
           "dtype": torch.tensor(1.5, dtype=torch.float32)}
    kind = action[0]
    if kind in ("remove", "keep"):
        return graphs.hook_result(action, got, node_hook, remove)
    if not node_hook:
        if kind == "scale":
            return None if got is None else got * action[1]
        if kind == "fill":
            return value(action[1])
        if kind == "tuple":
            return (got,)
        return new[kind]
    grads = list(got)
    if kind == "scale":
        return tuple(None if g is None else g * action[1] for g in grads)
    if kind in ("drop", "fill") and grads:
        grads[action[1] % len(grads)] = None if kind == "drop" else value(action[2])
    elif kind == "count":
        return tuple(grads) + (None,) if action[1] > 0 else tuple(grads[:-1])
    elif kind == "list":
        return grads
    elif kind == "single":
        return grads[0] if grads else None
    elif kind in new:
        defined = [i for i, g in enumerate(grads) if g is not None]
        if defined:
            grads[defined[0]] = new[kind]
    return tuple(grads)


def _seen_torch(value):
    if isinstance(value, tuple | list):
        return [_seen_torch(v) for v in value]
    return value if value is None or isinstance(value, float) else value.item()


def _hooks_reference(c: Case) -> tuple:
    import functools

    torch = _torch()
    outputs, weights, grads, hooks = c.args
    calls, ran = [], []

    class Step(torch.autograd.Function):
        @staticmethod
        def forward(ctx, weights, outputs, *xs):
            ctx.weights = weights
            ctx.set_materialize_grads(False)  # a None gradient reaches backward as None
            outs = tuple(xs[0] * 1.0 for _ in range(outputs))
            return outs if outputs > 1 else outs[0]

        @staticmethod
        def backward(ctx, *grads):
            ran.append(_seen_torch(grads))
            total = None
            for g in grads:
                if g is not None:
                    total = g if total is None else total + g
            return (None, None, *[None if total is None or w is None else total * w
                                  for w in ctx.weights])

    a = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    k = torch.tensor(2.0, dtype=torch.float64)
    outs = Step.apply(tuple(weights), outputs, *(a, k)[:len(weights)])
    outs = outs if outputs > 1 else (outs,)
    accumulate = outs[0].grad_fn.next_functions[0][0]
    handles: dict = {}

    def remove(j):
        if j in handles:
            handles[j].remove()

    def make(j, action, node_hook, name):
        def hook(*got):
            calls.append((j, _seen_torch(got[0] if len(got) == 1 else list(got))))
            return _torch_hook_result(torch, action, got[0], node_hook, remove)

        if name == "partial":
            return functools.partial(hook)
        hook.__name__ = "<lambda>" if name == "lambda" else f"h{j}"
        return hook

    retained = set()
    for j, (where, action, name) in enumerate(hooks):
        if where.startswith("r"):
            outs[int(where[1:])].retain_grad()
            retained.add(int(where[1:]))
            continue
        fn = make(j, action, where in HOOK_NODES, name)
        register = {"a": a.register_hook, "pre": outs[0].grad_fn.register_prehook,
                    "post": outs[0].grad_fn.register_hook,
                    "a.pre": accumulate.register_prehook,
                    "a.post": accumulate.register_hook}.get(where)
        if register is None:
            register = outs[int(where[1:])].register_hook
        handles[j] = register(fn)
    roots = [(outs[i], g) for i, g in enumerate(grads) if g is not None]
    error = None
    try:
        torch.autograd.backward([t for t, _ in roots],
                                [torch.tensor(g, dtype=torch.float64) for _, g in roots])
    except (RuntimeError, TypeError) as exc:
        error = (type(exc).__name__, str(exc))
    kept = [(slot, None if outs[slot].grad is None else outs[slot].grad.item())
            for slot in sorted(retained)]
    return (calls, ran[0] if ran else None, kept, None if a.grad is None else a.grad.item(),
            error)


HOOK_ACTION_TEXT = {
    "keep": "returns None", "scale": "returns the gradient(s) times {1}",
    "drop": "returns the tuple with gradient {1} replaced by None",
    "fill": "returns {1} (a float64 tensor) in place of the gradient",
    "count": "returns the tuple one longer (a None added) or one shorter ({1:+d})",
    "list": "returns the gradients as a list", "single": "returns the first gradient alone",
    "float": "returns the float 1.5 in place of a gradient",
    "size": "returns torch.zeros(2) in place of a gradient",
    "dtype": "returns a float32 tensor in place of a gradient",
    "tuple": "returns (grad,)", "remove": "removes hook {1} (handle.remove())",
}


def _hooks_truth(c: Case) -> str:
    outputs, weights, grads, hooks = c.args
    outs = ", ".join(f"t{i}" for i in range(outputs))
    lines = [
        "a = torch.tensor(1.0, dtype=torch.float64, requires_grad=True); "
        "k = torch.tensor(2.0, dtype=torch.float64)",
        f"{outs} = Step.apply({', '.join('ak'[:len(weights)])})  # its backward: the sum of "
        f"the gradients it gets (None if none) times {list(weights)}"]
    for j, (where, action, name) in enumerate(hooks):
        if where.startswith("r"):
            lines.append(f"t{where[1:]}.retain_grad()")
            continue
        target = {"a": "a.register_hook", "pre": "t0.grad_fn.register_prehook",
                  "post": "t0.grad_fn.register_hook", "a.pre": "a's AccumulateGrad "
                  ".register_prehook", "a.post": "a's AccumulateGrad .register_hook"}.get(
                      where, f"{where}.register_hook")
        text = HOOK_ACTION_TEXT[action[0]].format(*action)
        named = {"def": f"h{j}", "lambda": "a lambda", "partial": "a functools.partial"}[name]
        lines.append(f"hook {j} ({named}): {target}: {text}")
    roots = [(f"t{i}", g) for i, g in enumerate(grads) if g is not None]
    lines.append(f"torch.autograd.backward([{', '.join(r for r, _ in roots)}], "
                 f"[{', '.join(repr(g) for _, g in roots)}])")
    return ("\n    ".join(lines) + "\n    recording each hook's call (its index, what it "
            "received), what Step's backward received, each retained .grad, a.grad, and "
            "what backward raised (class, message)")


def _hooks_case(outputs, weights, grads, *hooks) -> Case:
    return Case(args=(outputs, tuple(weights), tuple(grads),
                      tuple((w, tuple(a), n) for w, a, n in hooks)))


def _hook(where, *action, name="def") -> tuple:
    return (where, action, name)


#: what a drawn hook does: mostly a rule that lets the pass go on, now and then an error
TENSOR_ACTIONS = ("keep", "keep", "scale", "scale", "scale", "remove", "fill")
NODE_ACTIONS = ("keep", "keep", "scale", "scale", "scale", "drop", "remove", "fill")
TENSOR_ERRORS = ("float", "tuple", "size", "dtype")
NODE_ERRORS = ("count", "count", "list", "single", "float", "size", "dtype")


@st.composite
def _hooks_cases(draw: st.DrawFn) -> Case:
    outputs = _pick(draw, (1, 1, 2, 3))
    weights = tuple(_pick(draw, (*HOOK_WEIGHTS, None)) for _ in range(_pick(draw, (1, 2))))
    grads = [_pick(draw, (*HOOK_GRADS, None, None)) for _ in range(outputs)]
    if all(g is None for g in grads):
        grads[_pick(draw, range(outputs))] = _pick(draw, HOOK_GRADS)
    places = ([f"t{i}" for i in range(outputs)] * 2 + ["a", "pre", "pre", "post", "a.pre",
                                                      "a.post"] + [f"r{i}" for i in range(outputs)])
    hooks = []
    count = _pick(draw, (1, 2, 3, 3, 4, 5, 6))
    for j in range(count):
        where = _pick(draw, places)
        node_hook = where in HOOK_NODES
        kind = _pick(draw, NODE_ACTIONS if node_hook else TENSOR_ACTIONS)
        if _pick(draw, range(10)) == 0:
            kind = _pick(draw, NODE_ERRORS if node_hook else TENSOR_ERRORS)
        if kind == "scale":
            action = (kind, _pick(draw, HOOK_FACTORS_))
        elif kind == "remove":
            action = (kind, _pick(draw, range(count)))
        elif kind == "drop":
            action = (kind, _pick(draw, (0, 1, 2)))
        elif kind == "fill":
            action = ((kind, _pick(draw, (0, 1, 2)), 7.0) if node_hook else (kind, 7.0))
        elif kind == "count":
            action = (kind, _pick(draw, (1, -1)))
        else:
            action = (kind,)
        hooks.append((where, action, _pick(draw, ("def", "def", "def", "lambda", "partial"))))
    return Case(args=(outputs, weights, tuple(grads), tuple(hooks)))


register(Exercise(
    name="call_hooks",
    chapter=CHAPTER,
    signature="call_hooks(hooks, grads, outputs=None) -> list of gradients; checked around "
              "plain nodes built from (outputs, weights, grads, hooks)",
    fixed=(
        # a tensor's hooks in turn, each given what the one before returned; retain_grad's
        # hook after them whenever it was registered; then pre-hooks, Step, post-hooks
        _hooks_case(1, (2.0,), (1.0,), _hook("r0"), _hook("t0", "scale", 2.0),
                    _hook("t0", "keep"), _hook("pre", "scale", 0.5), _hook("pre", "keep"),
                    _hook("post", "scale", -1.0), _hook("post", "keep")),
        # the tensors' hooks in the order each tensor's first hook was registered; a None
        # gradient goes through them too; pre-hooks get and return a tuple
        _hooks_case(2, (2.0,), (1.0, None), _hook("t1", "keep"), _hook("t0", "scale", 3.0),
                    _hook("t1", "scale", 10.0), _hook("r1"), _hook("r0"),
                    _hook("pre", "drop", 0), _hook("pre", "keep")),
        # a leaf's node: its tensor hooks (a None gradient too), pre-hooks, post-hooks with
        # (grad_inputs, grad_outputs), no grad_inputs here
        _hooks_case(1, (None,), (1.0,), _hook("a", "keep"), _hook("a.pre", "keep"),
                    _hook("a.post", "keep")),
        _hooks_case(1, (2.0, 0.5), (1.0,), _hook("a", "scale", 2.0), _hook("a.post", "keep"),
                    _hook("a", "scale", 3.0), _hook("a.pre", "scale", 0.5),
                    _hook("post", "drop", 1), _hook("post", "scale", -1.0),
                    _hook("post", "keep")),
        # removed during the pass: from the dict now running (still runs), from one not
        # started (does not)
        _hooks_case(2, (2.0,), (1.0, 0.5), _hook("t0", "remove", 1), _hook("t0", "scale", 5.0),
                    _hook("t0", "remove", 3), _hook("t1", "keep"), _hook("t0", "remove", 5),
                    _hook("pre", "keep"), _hook("post", "remove", 7), _hook("a", "keep")),
        # the errors: a tuple of the wrong length (named by __name__, <lambda>, <unknown>)
        _hooks_case(1, (2.0,), (1.0,), _hook("pre", "count", 1), _hook("pre", "keep")),
        _hooks_case(1, (2.0, 0.5), (1.0,), _hook("post", "count", -1, name="lambda")),
        _hooks_case(1, (2.0,), (1.0,), _hook("a.post", "count", 1, name="partial")),
        _hooks_case(2, (2.0,), (1.0, -2.0), _hook("t1", "keep"),
                    _hook("pre", "count", -1, name="partial")),
        # not a tuple; a None replaced; not a tensor; another dtype; another size
        _hooks_case(1, (2.0,), (1.0,), _hook("pre", "list")),
        _hooks_case(1, (2.0,), (1.0,), _hook("post", "single")),
        _hooks_case(2, (2.0,), (None, 1.0), _hook("t0", "fill", 7.0)),
        _hooks_case(2, (2.0,), (1.0, None), _hook("pre", "fill", 1, 7.0)),
        _hooks_case(1, (2.0,), (1.0,), _hook("t0", "float")),
        _hooks_case(1, (2.0,), (1.0,), _hook("t0", "tuple")),
        _hooks_case(1, (2.0,), (1.0,), _hook("a", "dtype", name="lambda")),
        _hooks_case(1, (2.0,), (1.0,), _hook("pre", "size")),
    ),
    edge=(
        _hooks_case(3, (2.0,), (None, 1.0, None), _hook("t2", "keep"), _hook("t0", "keep"),
                    _hook("r2"), _hook("pre", "keep")),
        _hooks_case(1, (2.0,), (1.0,), _hook("pre", "remove", 0), _hook("pre", "keep")),
        _hooks_case(1, (None, None), (1.0,), _hook("post", "keep"), _hook("a.pre", "fill", 0,
                                                                             7.0)),
        _hooks_case(1, (2.0,), (1.0,), _hook("t0", "tuple"), _hook("t0", "keep")),
        _hooks_case(2, (2.0,), (None, 1.0), _hook("t0", "tuple")),
        _hooks_case(1, (2.0,), (1.0,), _hook("pre", "float")),
    ),
    strategy=_hooks_cases,
    reference=_hooks_reference,
    truth=_hooks_truth,
    hidden_examples=100,
    call=_call_hooks,
    call_shown="autograder.course.graphs:run_hooks",
))


# ---------------------------------------------------------------- validate_outputs
# A case is one gradient a node hands back (the format: graphs.run_validate): the node's name,
# the gradient's index i, the gradient (shape, dtype, device) and the input it is for (shape,
# dtype, device). The answer runs on a plain gradient (graphs.Grad); the reference makes a
# custom Function of that name with i + 1 inputs whose backward returns such a gradient at
# index i (None elsewhere), runs backward in torch, and records what reaches the input (a hook
# on it: shape, dtype, device) or what torch raised.
VALIDATE_NAMES = ("StepBackward", "ScaleBackward", "BadBackward")
VALIDATE_FLOATS = ("float16", "bfloat16", "float32", "float64")
VALIDATE_SIZES = (0, 1, 1, 2, 2, 3)


def _call_validate(answer, case: Case) -> tuple:
    """How a check calls an answer to ``validate_outputs``: on a plain gradient
    (``graphs.run_validate``, which a student can call on a failing case too)."""
    return graphs.run_validate(answer, *case.args)


def _validate_reference(c: Case) -> tuple:
    torch = _torch()
    name, i, (g_shape, g_dtype, g_device), (shape, dtype, device) = c.args
    numel = math.prod(g_shape)

    def backward(ctx, grad):
        value = torch.arange(1, numel + 1, dtype=torch.float64).reshape(g_shape)
        return (*[None] * i, value.to(getattr(torch, g_dtype)).to(g_device))

    fn = type(name.removesuffix("Backward"), (torch.autograd.Function,), {
        "forward": staticmethod(lambda ctx, *xs: xs[i] * 1.0),
        "backward": staticmethod(backward)})
    xs = [torch.zeros(shape, dtype=getattr(torch, dtype), device=device, requires_grad=True)
          for _ in range(i + 1)]
    got = []
    xs[i].register_hook(lambda g: got.append(
        ("gets", tuple(g.shape), str(g.dtype).removeprefix("torch."), g.device.type)))
    try:
        fn.apply(*xs).sum().backward()
    except (RuntimeError, NotImplementedError) as exc:
        return ("raises", type(exc).__name__, str(exc))
    return got[0]


def _validate_truth(c: Case) -> str:
    name, i, (g_shape, g_dtype, g_device), (shape, dtype, device) = c.args
    return (f"a custom Function {name.removesuffix('Backward')} with {i + 1} input(s) x0.. "
            f"(x{i}: torch.zeros({shape}, dtype=torch.{dtype}, device={device!r}, "
            f"requires_grad=True)); its backward returns at index {i} a gradient of shape "
            f"{list(g_shape)}, torch.{g_dtype}, on {g_device!r}: what reaches x{i} (a hook on "
            f"it: shape, dtype, device) or what backward raised (class, message)")


def _validate_case(name, i, grad, input) -> Case:
    return Case(args=(name, i, (tuple(grad[0]), *grad[1:]), (tuple(input[0]), *input[1:])))


@st.composite
def _validate_cases(draw: st.DrawFn) -> Case:
    shape = tuple(_pick(draw, VALIDATE_SIZES) for _ in range(_pick(draw, (0, 1, 1, 2, 2, 3))))
    kind = _pick(draw, ("same", "broadcast", "broadcast", "broadcast", "other", "0-d"))
    if kind == "0-d":  # a 0-d gradient for a 0-d input on the other device: moved
        device = _pick(draw, ("cpu", "meta"))
        return _validate_case(
            _pick(draw, VALIDATE_NAMES), _pick(draw, (0, 1)),
            ((), _pick(draw, VALIDATE_FLOATS), "meta" if device == "cpu" else "cpu"),
            ((), _pick(draw, VALIDATE_FLOATS), device))
    if kind == "same":
        g_shape = shape
    elif kind == "broadcast":  # an expansion of shape: dimensions in front, 1s grown
        front = tuple(_pick(draw, VALIDATE_SIZES) for _ in range(_pick(draw, (0, 0, 1, 2))))
        g_shape = front + tuple(_pick(draw, (1, 2, 3, 0)) if s == 1 else s for s in shape)
    else:
        g_shape = tuple(_pick(draw, VALIDATE_SIZES) for _ in range(_pick(draw, (0, 1, 2, 3))))
    dtype = _pick(draw, VALIDATE_FLOATS)
    g_dtype = _pick(draw, (dtype, dtype, *VALIDATE_FLOATS, "int64", "int32", "bool"))
    device = _pick(draw, ("cpu", "cpu", "cpu", "meta"))
    g_device = _pick(draw, (device, device, device, "cpu", "meta"))
    return _validate_case(_pick(draw, VALIDATE_NAMES), _pick(draw, (0, 0, 1, 2)),
                          (g_shape, g_dtype, g_device), (shape, dtype, device))


register(Exercise(
    name="validate_outputs",
    chapter=CHAPTER,
    signature="validate_outputs(name, i, grad, shape, dtype, device) -> the gradient handed "
              "on; checked on a plain gradient built from (name, i, grad, input)",
    fixed=(
        # a gradient that matches passes; a broadcast one is summed down (dimensions in
        # front, 1s grown, a 0-size dimension, a 0-d input)
        _validate_case("StepBackward", 0, ((2, 3), "float32", "cpu"), ((2, 3), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((4, 2, 3), "float32", "cpu"),
                       ((2, 3), "float32", "cpu")),
        _validate_case("ScaleBackward", 1, ((2, 3), "float32", "cpu"),
                       ((2, 1), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((5, 3, 4), "float64", "cpu"),
                       ((1, 4), "float64", "cpu")),
        _validate_case("StepBackward", 0, ((2, 0, 3), "float32", "cpu"),
                       ((0, 3), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((0,), "float32", "cpu"), ((), "float32", "cpu")),
        # not expandable: fewer dimensions, a 1 in the gradient, sizes that differ, more
        # dimensions in the input (the index and the name in the message)
        _validate_case("BadBackward", 0, ((3,), "float32", "cpu"), ((2, 3), "float32", "cpu")),
        _validate_case("BadBackward", 2, ((1, 3), "float32", "cpu"),
                       ((2, 3), "float32", "cpu")),
        _validate_case("ScaleBackward", 1, ((3, 2), "float64", "cpu"),
                       ((2, 3), "float64", "cpu")),
        _validate_case("BadBackward", 0, ((2, 1, 3), "float64", "cpu"),
                       ((2, 3), "float16", "cpu")),
        _validate_case("StepBackward", 0, ((), "float32", "cpu"), ((1,), "float32", "cpu")),
        # another dtype: cast, after the sum (ints and bools too)
        _validate_case("StepBackward", 0, ((2, 3), "float64", "cpu"),
                       ((2, 3), "float32", "cpu")),
        _validate_case("StepBackward", 1, ((2, 3, 4), "float32", "cpu"),
                       ((3, 1), "bfloat16", "cpu")),
        _validate_case("StepBackward", 0, ((2,), "int64", "cpu"), ((2,), "float64", "cpu")),
        _validate_case("StepBackward", 0, ((2,), "bool", "cpu"), ((2,), "float16", "cpu")),
        # another device: a 0-d gradient is moved (meta to cpu cannot copy), others raise;
        # the shape is checked first
        _validate_case("ScaleBackward", 0, ((), "float64", "cpu"), ((), "float32", "meta")),
        _validate_case("StepBackward", 0, ((), "float32", "meta"), ((), "float32", "cpu")),
        _validate_case("BadBackward", 1, ((2, 3), "float32", "meta"),
                       ((2, 3), "float32", "cpu")),
        _validate_case("BadBackward", 0, ((2,), "float16", "cpu"), ((2,), "float32", "meta")),
        _validate_case("BadBackward", 0, ((3, 2), "float64", "meta"),
                       ((2, 3), "float32", "cpu")),
        _validate_case("BadBackward", 0, ((), "float32", "meta"), ((1,), "float32", "cpu")),
    ),
    edge=(
        _validate_case("StepBackward", 0, ((4, 2, 3), "float32", "meta"),
                       ((2, 1), "float64", "meta")),
        _validate_case("StepBackward", 0, ((2, 3), "float32", "meta"), ((), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((1, 1), "float32", "cpu"), ((1,), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((0, 3), "float32", "cpu"), ((2, 3), "float32", "cpu")),
        _validate_case("StepBackward", 0, ((2, 3), "int32", "cpu"), ((2, 3), "float64", "cpu")),
    ),
    strategy=_validate_cases,
    reference=_validate_reference,
    truth=_validate_truth,
    hidden_examples=100,
    call=_call_validate,
    call_shown="autograder.course.graphs:run_validate",
))
