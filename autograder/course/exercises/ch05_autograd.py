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

from .spec import Case, Exercise, register

CHAPTER = "ch05_autograd"
ACCUMULATE_SEQ = 2 ** 64 - 1  # AccumulateGrad's sequence number: UINT64_MAX


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


# ---------------------------------------------------------------- programs over scalars
# A program is a tuple of steps (out, op, args): out = op(*args). Names are the leaves
# ("a", "b", ...) and earlier outputs ("t1", "t2", ...). The last step's output is the root.
BINARY = {"+": "AddBackward0", "-": "SubBackward0", "*": "MulBackward0"}
UNARY = {"exp": "ExpBackward0", "sin": "SinBackward0"}
NODE_NAMES = {**BINARY, **UNARY}


@st.composite
def _program(draw: st.DrawFn, leaves: tuple[str, ...], ops: tuple[str, ...],
             lengths: tuple[int, ...]) -> tuple:
    names = list(leaves)
    steps = []
    for k in range(1, _pick(draw, lengths) + 1):
        op = _pick(draw, ops)
        # later names are likelier, so programs are chains with side branches, not stars
        pool = names + names[len(leaves):] * 2
        args = (_pick(draw, pool),) if op in UNARY else (_pick(draw, pool), _pick(draw, pool))
        steps.append((f"t{k}", op, args))
        names.append(f"t{k}")
    return tuple(steps)


def _program_text(leaves, program) -> str:
    lines = [f"{', '.join(name for name, _ in leaves)} = "
             f"{', '.join(f'torch.tensor({v!r}, requires_grad=True)' for _, v in leaves)}"]
    for out, op, args in program:
        if op in UNARY:
            lines.append(f"{out} = {args[0]}.{op}()")
        else:
            lines.append(f"{out} = {args[0]} {op} {args[1]}")
    return "; ".join(lines)


def _run_program(torch, leaves, program) -> dict:
    env = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True)
           for name, value in leaves}
    for out, op, args in program:
        x = [env[a] for a in args]
        if op in UNARY:
            env[out] = getattr(x[0], op)()
        else:
            env[out] = {"+": x[0].__add__, "-": x[0].__sub__, "*": x[0].__mul__}[op](x[1])
    return env


# ---------------------------------------------------------------- engine_order
ORDER_LEAVES = (("a", 0.5), ("b", 1.5), ("c", -1.0))


def graph_of(program, leaves=("a", "b", "c")) -> tuple:
    """The grad_fn DAG of the program's root, as plain data: one (id, name, seq, next) per
    node reachable from the root, in creation order. A Backward node's id is its output's
    name and seq its creation index; a leaf's AccumulateGrad node has the leaf's name and
    UINT64_MAX."""
    nodes = {leaf: (leaf, "AccumulateGrad", ACCUMULATE_SEQ, ()) for leaf in leaves}
    for seq, (out, op, args) in enumerate(program):
        nodes[out] = (out, NODE_NAMES[op], seq, tuple(args))
    reachable, todo = set(), [program[-1][0]]
    while todo:
        node = todo.pop()
        if node not in reachable:
            reachable.add(node)
            todo.extend(nodes[node][3])
    return tuple(n for key, n in nodes.items() if key in reachable)


@st.composite
def _order_cases(draw: st.DrawFn) -> Case:
    program = draw(_program(("a", "b", "c"), ("+", "-", "*", "exp", "sin"),
                            (1, 2, 3, 4, 5, 6, 7, 8)))
    return Case(args=(graph_of(program), program[-1][0]), context=(("program", program),))


def torch_graph(root, names: dict, first: int) -> tuple:
    """The (id, name, seq, next) description of torch's live graph from ``root.grad_fn``,
    with ids taken from ``names`` (tensor name -> tensor); seqs less ``first``."""
    ids = {}
    for name, t in names.items():
        if t.grad_fn is not None:
            ids[t.grad_fn] = name
    found, todo = {}, [root.grad_fn]
    while todo:
        node = todo.pop()
        if node in found:
            continue
        if hasattr(node, "variable"):
            ident = next(n for n, t in names.items() if t is node.variable)
        else:
            ident = ids[node]
        nxt = tuple(m for m, _ in node.next_functions if m is not None)
        found[node] = (ident, type(node).__name__, node._sequence_nr(), nxt)
        todo.extend(nxt)
    out = []
    for ident, name, seq, nxt in found.values():
        seq = seq if seq == ACCUMULATE_SEQ else seq - first
        out.append((ident, name, seq, tuple(found[m][0] for m in nxt)))
    return tuple(out)


def recorded_order(root) -> list:
    """The nodes of ``root``'s graph in the order torch's engine calls them during
    ``root.backward()``, recorded by a pre-hook on every node."""
    order, seen, todo = [], set(), [root.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: order.append(node))
        todo.extend(m for m, _ in node.next_functions)
    root.backward()
    return order


def _order_reference(c: Case) -> list:
    torch = _torch()
    program = c.ctx("program")
    env = _run_program(torch, ORDER_LEAVES, program)
    root = env[program[-1][0]]
    nodes = recorded_order(root)
    ids = []
    for node in nodes:
        if hasattr(node, "variable"):
            ids.append(next(n for n, t in env.items() if t is node.variable))
        else:
            ids.append(next(n for n, t in env.items() if t.grad_fn is node))
    return ids


def _order_truth(c: Case) -> str:
    program = c.ctx("program")
    return (f"{_program_text(ORDER_LEAVES, program)}; then {program[-1][0]}.backward() with "
            "a pre-hook on every node recording the order they run")


def _order_case(*steps) -> Case:
    program = tuple((out, op, tuple(args)) for out, op, args in steps)
    return Case(args=(graph_of(program), program[-1][0]), context=(("program", program),))


register(Exercise(
    name="engine_order",
    chapter=CHAPTER,
    signature="engine_order(graph, root) -> list of node ids; graph is a tuple of "
              "(id, name, seq, next_ids)",
    fixed=(
        _order_case(("t1", "*", "ab")),
        # a common mistake's smallest failing case: ties (AccumulateGrad) taken by id
        _order_case(("t1", "*", "ca")),
        _order_case(("t1", "*", "ab"), ("t2", "exp", "a"), ("t3", "+", ("t1", "t2"))),
        _order_case(("t1", "*", "ab"), ("t2", "exp", ("t1",)), ("t3", "+", ("t1", "c")),
                    ("t4", "*", ("t2", "t3")), ("t5", "-", ("t4", "a"))),
    ),
    edge=(
        _order_case(("t1", "*", "aa")),
        _order_case(("t1", "sin", "a"), ("t2", "exp", "b"), ("t3", "+", ("t2", "t1"))),
        _order_case(("t1", "+", "ab"), ("t2", "*", ("t1", "t1")), ("t3", "-", ("t2", "t1"))),
        _order_case(("t1", "exp", "c"), ("t2", "sin", "a"), ("t3", "*", ("t2", "t1"))),
    ),
    strategy=_order_cases,
    reference=_order_reference,
    truth=_order_truth,
    hidden_examples=100,
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


# ---------------------------------------------------------------- leaf_grads
GRAD_LEAVES = ("a", "b", "c", "d")
SMALL = (-2.0, -1.0, 1.0, 2.0, 3.0)


@st.composite
def _grads_cases(draw: st.DrawFn) -> Case:
    leaves = tuple((name, _pick(draw, SMALL)) for name in GRAD_LEAVES)
    program = draw(_program(GRAD_LEAVES, ("+", "-", "*", "*"), (1, 2, 3, 4, 5, 6, 7, 8)))
    return Case(args=(leaves, program))


def _grads_reference(c: Case) -> tuple:
    torch = _torch()
    leaves, program = c.args
    env = _run_program(torch, leaves, program)
    grads = torch.autograd.grad(env[program[-1][0]], [env[n] for n, _ in leaves],
                                allow_unused=True)
    return tuple(None if g is None else g.item() for g in grads)


def _grads_truth(c: Case) -> str:
    leaves, program = c.args
    names = ", ".join(n for n, _ in leaves)
    return (f"{_program_text(leaves, program)} (float64); "
            f"torch.autograd.grad({program[-1][0]}, ({names}), allow_unused=True)")


def _grads_case(values, *steps) -> Case:
    return Case(args=(tuple(zip(GRAD_LEAVES, values, strict=True)),
                      tuple((out, op, tuple(args)) for out, op, args in steps)))


register(Exercise(
    name="leaf_grads",
    chapter=CHAPTER,
    signature="leaf_grads(leaves, program) -> tuple of float or None per leaf; leaves is "
              "((name, value), ...), program ((out, op, args), ...) with op '+', '-' or '*'",
    fixed=(
        _grads_case((2.0, 3.0, 1.0, 1.0), ("t1", "*", "ab")),
        _grads_case((2.0, 3.0, -1.0, 1.0), ("t1", "*", "ab"), ("t2", "+", ("t1", "a")),
                    ("t3", "*", ("t2", "c"))),
        _grads_case((3.0, 1.0, 1.0, 1.0), ("t1", "*", "aa"), ("t2", "*", ("t1", "a"))),
    ),
    edge=(
        _grads_case((1.0, 2.0, 3.0, 1.0), ("t1", "-", "aa")),
        _grads_case((2.0, -1.0, 1.0, 1.0), ("t1", "+", "ab"), ("t2", "*", ("t1", "t1")),
                    ("t3", "-", ("t2", "t1"))),
        _grads_case((2.0, 1.0, 1.0, 3.0), ("t1", "*", "bc"), ("t2", "*", ("a", "d"))),
    ),
    strategy=_grads_cases,
    reference=_grads_reference,
    truth=_grads_truth,
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


# ---------------------------------------------------------------- has_grad
# Steps: ("leaf", name, requires_grad), ("mul", name, x, y), ("detach", name, x),
# ("no_grad", name, x, y), ("inference", name, x, y), ("retain_grad", x),
# ("requires_grad_", x). The last tensor created is the loss; then loss.backward().
@st.composite
def _grad_program(draw: st.DrawFn) -> tuple:
    steps = [("leaf", "a", True), ("leaf", "b", _pick(draw, (True, False)))]
    grads = {"a": True, "b": steps[1][2]}  # requires_grad so far: to steer, not to answer
    for _ in range(_pick(draw, (2, 3, 4, 5, 6))):
        kind = _pick(draw, ("mul", "mul", "mul", "detach", "no_grad", "inference", "leaf",
                            "retain_grad", "retain_grad", "requires_grad_"))
        names = list(grads)
        pool = names + names[2:]
        wanted = [n for n in pool if grads[n]] if _pick(draw, (1, 1, 1, 0)) else pool
        if kind in ("retain_grad", "requires_grad_"):
            steps.append((kind, _pick(draw, wanted or pool)))
            grads[steps[-1][1]] = grads[steps[-1][1]] or kind == "requires_grad_"
            continue
        name = "abcdefghijklmnop"[len(names)]
        if kind == "leaf":
            steps.append(("leaf", name, _pick(draw, (True, False))))
        elif kind == "detach":
            steps.append(("detach", name, _pick(draw, pool)))
        else:
            steps.append((kind, name, _pick(draw, pool), _pick(draw, pool)))
        grads[name] = (steps[-1][2] if kind == "leaf" else
                       kind == "mul" and (grads[steps[-1][2]] or grads[steps[-1][3]]))
    if steps[-1][0] in ("retain_grad", "requires_grad_", "leaf") or _pick(draw, (1, 1, 0)):
        names = list(grads)  # end with an operation more often than not
        wanted = [n for n in names if grads[n]] if _pick(draw, (1, 1, 1, 0)) else names
        steps.append(("mul", "abcdefghijklmnop"[len(names)], _pick(draw, wanted or names),
                      _pick(draw, names)))
    return tuple(steps)


def _grad_run(torch, program) -> dict:
    env = {}
    for step in program:
        kind = step[0]
        if kind == "leaf":
            env[step[1]] = torch.tensor(2.0, requires_grad=step[2])
        elif kind == "mul":
            env[step[1]] = env[step[2]] * env[step[3]]
        elif kind == "detach":
            env[step[1]] = env[step[2]].detach()
        elif kind == "no_grad":
            with torch.no_grad():
                env[step[1]] = env[step[2]] * env[step[3]]
        elif kind == "inference":
            with torch.inference_mode():
                env[step[1]] = env[step[2]] * env[step[3]]
        elif kind == "retain_grad":
            env[step[1]].retain_grad()
        elif kind == "requires_grad_":
            env[step[1]].requires_grad_()
    return env


def _has_grad_reference(c: Case) -> list:
    torch = _torch()
    (program,) = c.args
    env = _grad_run(torch, program)
    loss = env[[s[1] for s in program if s[0] not in ("retain_grad", "requires_grad_")][-1]]
    loss.backward()
    with warnings.catch_warnings():  # reading .grad of a non-leaf warns
        warnings.simplefilter("ignore")
        return [name for name, t in env.items() if t.grad is not None]


def _grad_program_text(program) -> str:
    lines = []
    for step in program:
        kind = step[0]
        if kind == "leaf":
            lines.append(f"{step[1]} = torch.tensor(2.0, requires_grad={step[2]})")
        elif kind == "mul":
            lines.append(f"{step[1]} = {step[2]} * {step[3]}")
        elif kind == "detach":
            lines.append(f"{step[1]} = {step[2]}.detach()")
        elif kind == "no_grad":
            lines.append(f"with torch.no_grad(): {step[1]} = {step[2]} * {step[3]}")
        elif kind == "inference":
            lines.append(f"with torch.inference_mode(): {step[1]} = {step[2]} * {step[3]}")
        else:
            lines.append(f"{step[1]}.{kind}()")
    return "; ".join(lines)


def _has_grad_truth(c: Case) -> str:
    (program,) = c.args
    loss = [s[1] for s in program if s[0] not in ("retain_grad", "requires_grad_")][-1]
    return (f"{_grad_program_text(program)}; {loss}.backward(); "
            "[name for name in the program if name.grad is not None]")


register(Exercise(
    name="has_grad",
    chapter=CHAPTER,
    signature="has_grad(program) -> list of names whose .grad is not None after "
              "loss.backward(); raises RuntimeError where torch does",
    fixed=(
        Case(args=((("leaf", "a", True), ("leaf", "b", False), ("mul", "c", "a", "b"),
                    ("mul", "d", "c", "c")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("mul", "c", "a", "b"),
                    ("retain_grad", "c"), ("detach", "d", "c"), ("mul", "e", "c", "d")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("no_grad", "c", "a", "b"),
                    ("mul", "d", "c", "c")),)),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("inference", "c", "a", "b"),
                    ("mul", "d", "c", "a")),)),
    ),
    edge=(
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("detach", "c", "a"),
                    ("requires_grad_", "c"), ("mul", "d", "c", "b")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", False), ("detach", "c", "a"),
                    ("retain_grad", "c"), ("mul", "d", "a", "c")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("inference", "c", "a", "b"),
                    ("mul", "d", "c", "a")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("inference", "c", "a", "b"),
                    ("mul", "d", "c", "c")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("retain_grad", "a"),
                    ("mul", "c", "a", "b"), ("mul", "d", "c", "c"), ("retain_grad", "d")),)),
        Case(args=((("leaf", "a", True), ("leaf", "b", True), ("inference", "c", "a", "b"),
                    ("requires_grad_", "c"), ("mul", "d", "a", "b")),)),
    ),
    strategy=lambda: _grad_program().map(lambda p: Case(args=(p,))),
    reference=_has_grad_reference,
    truth=_has_grad_truth,
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
