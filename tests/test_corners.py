"""Every corner an exercise's text names or implies is in its hidden cases, whatever the seed.

A hidden test that never draws the hard case passes a wrong answer: a student's ``to_result``
that took every ``(N, 1, 1, 1)`` layout as ambiguous passed the visible cases, the default-seed
hidden ones and those of twenty more seeds. ``CORNERS`` lists, for each exercise, the corners
of its notebook text and reference docstring, each with a predicate on a ``Case``; the test
asks that the hidden cases of the default seed and of five other seeds (the grader draws with
a fresh secret one) each hold at least one case with the corner. Corners a strategy draws only
now and then are in the exercise's ``edge`` cases, which every hidden set holds.

A few predicates ask torch (through the exercise's reference) what the case gives, where the
corner is an outcome ("torch raises", "``t`` itself comes back"); the others read the
arguments.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import keyword
import math
from fractions import Fraction

import pytest
import torch

from autograder import checks
from autograder.course import exercises, references
from autograder.course.exercises import Case
from autograder.course.exercises.ch02_views import OPERATIONS
from autograder.course.exercises.ch05_autograd import COPY_SLICES, NUMBER
from autograder.course.exercises.ch09_dispatch import GRAPH_FUNCTIONS, TORCH_RESERVED
from autograder.course.exercises.ch10_capstone import pool_windows
from autograder.course.exercises.layouts import row_major
from tests import tiers
from tests.notebooks import answer_namespace, answer_sources, hidden_pairs

#: the default seed (the notebooks') and others; the full tier draws from more of them
SEEDS = tiers.pick((None, 2026), (None, 1, 2, 3, 2026, 987654))


# ---------------------------------------------------------------- unary_backward's helpers
#: the unary ops whose formula divides by the saved value (log1p by x + 1)
_DIVIDES = ("log", "log1p", "log2", "log10", "sqrt")


def _nested_shape(value) -> tuple:
    return (len(value), *_nested_shape(value[0])) if isinstance(value, tuple) else ()


def _flat(value) -> list:
    return [v for item in value for v in _flat(item)] if isinstance(value, tuple) else [value]


def _unary_pairs(grad, saved) -> list:
    """(gradient, saved value) of each element (the gradient twice for neg)."""
    return list(zip(_flat(grad), _flat(grad if saved is None else saved), strict=True))


# ---------------------------------------------------------------- call_hooks's helpers
def _hooks_truth(case: Case):
    """torch's trace of a call_hooks case: (calls, ran_with, retained, a.grad, error)."""
    return _torch_says("call_hooks", case)


def _hooks_error(text: str):
    """The case's backward raised a message holding ``text``."""
    return lambda case: (_hooks_truth(case)[4] or ("", ""))[1].find(text) >= 0


def _ran(case: Case) -> set:
    """The indexes of the hooks torch called."""
    return {j for j, _ in _hooks_truth(case)[0]}


def _removed_while_running(later_turn: bool):
    """A hook that ran removed a hook of its own turn (``later_turn`` False: the same
    tensor or node dict) registered after it, or one of a later turn."""
    def predicate(case: Case) -> bool:
        hooks = case.args[3]
        for j in _ran(case):
            where, action, _ = hooks[j]
            if action[0] != "remove" or hooks[action[1]][0].startswith("r"):
                continue
            other = hooks[action[1]][0]
            order = _HOOK_TURNS
            same = other == where
            if later_turn and not same and order.index(_turn(other)) > order.index(_turn(where)):
                return True
            if not later_turn and same and action[1] > j:
                return True
        return False

    return predicate


_HOOK_TURNS = ("t", "pre", "post", "a", "a.pre", "a.post")


def _turn(where: str) -> str:
    return "t" if where.startswith("t") else where


def _slot_hooks(hooks) -> list:
    return [int(w[1:]) for w, _, _ in hooks if w.startswith("t")]


# ---------------------------------------------------------------- validate_outputs's helpers
def _expands(shape, g_shape) -> bool:
    """at::is_expandable_to(shape, g_shape), written out for the predicates."""
    return len(shape) <= len(g_shape) and all(
        s in (1, g) for s, g in zip(shape[::-1], g_shape[::-1], strict=False))


def _aligned(shape, g_shape) -> list:
    """(input size, gradient size) pairs read from the last dimension."""
    return list(zip(shape[::-1], g_shape[::-1], strict=False))


def _validate(predicate):
    """A predicate on a validate_outputs case: (shape, g_shape, dtype, g_dtype, device,
    g_device, i)."""
    return on(lambda name, i, grad, inp: bool(predicate(
        inp[0], grad[0], inp[1], grad[1], inp[2], grad[2], i)))


# ---------------------------------------------------------------- helpers for predicates
def on(predicate):
    """A predicate on a case written with the case's args as its parameters."""
    return lambda case: bool(predicate(*case.args))


@functools.cache
def _torch_says(name: str, case: Case):
    return references.compute(exercises.get(name), [case])[0]


def torch_says(name: str):
    """What torch gives for a case of exercise ``name`` (``Raises`` where it raises)."""
    return lambda case: _torch_says(name, case)


def raises(value, exception: str = "") -> bool:
    return isinstance(value, references.Raises) and exception in value.exception


def increasing(stride) -> bool:
    """Some stride is smaller than the one after it: a permuted (transposed) order."""
    return any(a < b for a, b in itertools.pairwise(stride))


def dense(shape, stride) -> bool:
    """Non-overlapping and dense, size-0 and size-1 dims ignored (an empty tensor is)."""
    if 0 in shape:
        return True
    running = 1
    for s, n in sorted((s, n) for n, s in zip(shape, stride, strict=True) if n > 1):
        if s != running:
            return False
        running *= n
    return True


def stride0(shape, stride) -> bool:
    """Stride 0 on a dim of size > 1: several indices on one element."""
    return any(n > 1 and s == 0 for n, s in zip(shape, stride, strict=True))


def odd_size1_stride(shape, stride) -> bool:
    """A size-1 dim whose stride is not the row-major one (its stride is never used)."""
    return any(n == 1 and s != r for n, s, r in zip(shape, stride, row_major(shape), strict=True))


def overlapping(shape, stride) -> bool:
    """Two indices reach one storage element."""
    if 0 in shape:
        return False
    seen = {sum(i * s for i, s in zip(index, stride, strict=True))
            for index in itertools.product(*(range(n) for n in shape))}
    return len(seen) < math.prod(shape)


def columns(*shapes):
    """The sizes the shapes have in each place, lined up on the right, last place first."""
    longest = max((len(s) for s in shapes), default=0)
    return [[s[-k] for s in shapes if len(s) >= k] for k in range(1, longest + 1)]


def clashes(*shapes) -> int:
    """How many places hold two sizes that differ and are both not 1."""
    return sum(len({n for n in column if n != 1}) > 1 for column in columns(*shapes))


def torch_contiguous(shape, stride) -> bool:
    return torch.empty_strided(shape, stride).is_contiguous()


def torch_views_flat(shape, stride) -> bool:
    try:
        torch.empty_strided(shape, stride).view(-1)
    except RuntimeError:
        return False
    return True


def _made(case: Case) -> str:
    """How a chapter-8 case's words were made (its context "made")."""
    return dict(case.context).get("made", "")


def _seed_of(case: Case) -> int | None:
    """The seed whose words a chapter-8 case holds (``seed_words(s)...``), or None."""
    made = _made(case)
    if not made.startswith("seed_words("):
        return None
    return int(made.removeprefix("seed_words(").split(")")[0])


# ---------------------------------------------------------------- chapter 2
def _normal_dims(n, *dims):
    """``dims`` wrapped into range for an ``n``-d tensor (a 0-d tensor counts as 1-d), or
    None when one is out of range."""
    m = max(n, 1)
    if not all(-m <= d < m for d in dims):
        return None
    return tuple(d % m for d in dims)


def _indexed(ix) -> list[int]:
    return [d for d, e in enumerate(ix) if e is not None]


def _adjacent(ix) -> bool:
    dims = _indexed(ix)
    return dims[-1] - dims[0] + 1 == len(dims)


def _broadcast_shape(ix) -> tuple[int, ...] | None:
    """The index shapes broadcast together, or None when they do not broadcast."""
    try:
        return tuple(torch.broadcast_shapes(*[tuple(e[0]) for e in ix if e]))
    except RuntimeError:
        return None


def _diagonal_size(shape, offset, dim1, dim2):
    n1, n2 = shape[dim1], shape[dim2]
    return max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)


def _valid_diagonal(shape, dim1, dim2):
    """The wrapped dims of a diagonal torch takes (2 dims at least, two different ones)."""
    dims = _normal_dims(len(shape), dim1, dim2)
    return dims if len(shape) >= 2 and dims and dims[0] != dims[1] else None


def _diagonal(pred):
    """A predicate on a valid diagonal: (shape, stride, storage_offset, offset, d1, d2) with
    d1 and d2 wrapped."""
    def check(shape, stride, storage_offset, offset, dim1, dim2):
        dims = _valid_diagonal(shape, dim1, dim2)
        return dims is not None and pred(shape, stride, storage_offset, offset, *dims)
    return on(check)


def _slice_entries(index):
    return [e for e in index if isinstance(e, tuple)]


def _int_entries(shape, index):
    """(size of the dim, the int) for each int entry on an existing dim."""
    return [(shape[d], e) for d, e in enumerate(index) if isinstance(e, int) and d < len(shape)]


def _empty_slice(shape, index):
    return any(isinstance(e, tuple) and d < len(shape) and shape[d] > 0
               and len(range(*slice(*e).indices(shape[d]))) == 0 for d, e in enumerate(index))


def _dims_wrong_length_and_range(shape, dims):
    n = len(shape)
    return len(dims) != n and any(not -max(n, 1) <= d < max(n, 1) for d in dims)


def _duplicate_dims(shape, dims, *, mixed_signs: bool):
    n = len(shape)
    if len(dims) != n or n < 2 or any(not -n <= d < n for d in dims):
        return False
    wrapped = [d % n for d in dims]
    if len(set(wrapped)) == n:
        return False
    return len(set(dims)) == n if mixed_signs else True


def _memories(predicate):
    """A predicate on overlap_status's case, true when it holds for either memory."""
    return lambda case: any(predicate(*m) for m in case.args)


def _dtype_view(predicate):
    """A predicate on a view_dtype_layout case written with (shape, stride, offset, the two
    element sizes, what torch says) as its parameters."""
    return lambda case: bool(predicate(*case.args[:5], _torch_says("view_dtype_layout", case)))


def _squeeze(predicate):
    """A predicate on a squeeze_layout case written with (op, shape, stride, dim, what torch
    says) as its parameters."""
    return lambda case: bool(predicate(*case.args, _torch_says("squeeze_layout", case)))


def _one_storage(a, b) -> bool:
    return a[0] == b[0]


def _both_dense(a, b) -> bool:
    return 0 not in a[1] + b[1] and dense(a[1], a[2]) and dense(b[1], b[2])


def _bytes(m) -> tuple[int, int]:
    return m[3] * m[4], (m[3] + math.prod(m[1])) * m[4]


# ---------------------------------------------------------------- chapter 3
def _expand_leading(shape, new):
    return new[:len(new) - len(shape)] if len(new) >= len(shape) else ()


def _expand_pairs(shape, stride, new):
    """(size, stride, new size) of the existing dims, lined up on the right."""
    if len(new) < len(shape):
        return []
    return list(zip(shape, stride, new[len(new) - len(shape):], strict=True))


def _operand_stride0(operand):
    storage, shape, stride, offset = operand
    return stride0(shape, stride)


def _lined_up(operand, out):
    """(size, stride, output size) of each dim of an input, lined up on the right."""
    storage, shape, stride, offset = operand
    lead = len(out[1]) - len(shape)
    return [(n, s, out[1][lead + k]) for k, (n, s) in enumerate(zip(shape, stride, strict=True))]


def _sum_pairs(shape, size):
    """(shape size, target size) of the places both have, lined up on the right."""
    return list(zip(shape[::-1], size[::-1], strict=False))


# ---------------------------------------------------------------- chapter 4
def _arg_tie(x, dim) -> bool:
    """Two equal elements along ``dim`` in one row, both at least as large (or small) as the
    rest: a tie that decides the answer."""
    storage, shape, stride, offset = x
    outer = [range(n) if d != dim else range(1) for d, n in enumerate(shape)]
    for index in itertools.product(*outer):
        base = offset + sum(i * s for i, s in zip(index, stride, strict=True))
        row = [storage[base + k * stride[dim]] for k in range(shape[dim])]
        if any(e != e for e in row):
            continue
        if row.count(max(row)) > 1 or row.count(min(row)) > 1:
            return True
    return False


def _category(dtype):
    return 0 if dtype == "bool" else 1 if dtype[0] in "ui" else 2


def _operand_category(operand):
    if operand[0] == "scalar":
        value = operand[1]
        return 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
    return _category(operand[1])


def _tensors(a, b, ndim):
    """The tensor operands with (ndim > 0 if ndim else 0) dims."""
    return [o for o in (a, b) if o[0] == "tensor" and (o[2] > 0 if ndim else o[2] == 0)]


def _scalars(a, b):
    return [o for o in (a, b) if o[0] == "scalar"]


MANTISSA = {"float16": (10, -14), "bfloat16": (7, -126)}


def _steps(x, dtype):
    """|x| in units of the step between neighbouring values of dtype near x."""
    bits, low = MANTISSA[dtype]
    e = max(math.frexp(abs(x))[1] - 1, low)
    return abs(x) / 2.0 ** (e - bits)


def _finite(x):
    return not math.isnan(x) and not math.isinf(x)


def _underflows(x, dtype):
    """A nonzero x that rounds to 0 (half the smallest subnormal or less)."""
    return _finite(x) and x != 0 and _steps(x, dtype) <= 0.5


def _to_options(call):
    options = dict(call)
    return options, options.get("memory_format", "preserve_format")


def _n111(shape, stride):
    """An (N, 1, 1, 1) shape with N > 0 whose C, W, H strides climb (C's stride not 0)."""
    return (len(shape) == 4 and shape[0] > 0 and tuple(shape[1:]) == (1, 1, 1)
            and 0 < stride[1] <= stride[3] <= stride[2] <= stride[0])


def _matmul_batches(a, b):
    return a[:-2] if len(a) > 2 else (), b[:-2] if len(b) > 2 else ()


def _inner(a, b):
    return a[-1], (b[-2] if len(b) > 1 else b[0])


# ---------------------------------------------------------------- chapter 5
def _nested_shape(value):
    shape = []
    while isinstance(value, tuple):
        shape.append(len(value))
        value = value[0] if value else None
    return tuple(shape)


LEAVES = ("a", "b", "c", "d")


def _refs(program):
    """Every input reference of every step, one per edge."""
    return [r for _, _, inputs, _, _ in program for r in inputs]


def _node_of(ref):
    return ref.partition(".")[0]


def _users_of(program):
    """node name -> the steps with an edge to it (one per step)."""
    users = {}
    for name, _, inputs, _, _ in program:
        for r in inputs:
            users.setdefault(_node_of(r), set()).add(name)
    return users


def _tied_leaves(program):
    """Leaves that one step alone makes ready: they enter the queue together."""
    users = _users_of(program)
    return [[r for r in dict.fromkeys(inputs) if r in LEAVES and users[r] == {name}]
            for name, _, inputs, _, _ in program]


def _pass_trace(case):
    return _torch_says("backward_pass", case)


def _ties_out_of_name_order(case):
    program = case.args[0]
    ran = [name for name, _ in _pass_trace(case)[0][0]]
    return any(len(tied) >= 2 and [n for n in ran if n in tied] != sorted(tied)
               for tied in _tied_leaves(program))


def _only_none_reaches(case):
    return any(name not in LEAVES and all(g is None for g in grads)
               for p in _pass_trace(case) for name, grads in p[0])


def _edge_refs(case):
    return case.ctx("refs")


def _clamp_elements(x, lo, hi):
    return [(x[i], None if lo is None else lo[i], None if hi is None else hi[i])
            for i in range(len(x))]


# ---------------------------------------------------------------- chapter 8
def _calls(run_a, run_b):
    return [call for run in (run_a, run_b) for epoch in run for call in epoch]


def _low24(draws):
    return [d % 2 ** 24 for d in draws]


def returns_t(case) -> bool:
    """torch's ``t.to(...)`` gives ``t`` itself."""
    truth = _torch_says("to_result", case)
    return not raises(truth) and truth[0] is True


def copies(case) -> bool:
    """torch's ``t.to(...)`` gives a new tensor (it does not raise)."""
    truth = _torch_says("to_result", case)
    return not raises(truth) and truth[0] is False


def to_format(case) -> str:
    return _to_options(case.args[3])[1]


to_truth = torch_says("to_result")


# ---------------------------------------------------------------- chapter 6
def _shared_child(modules) -> bool:
    """A module that is the child of two places (two parents, or one parent twice)."""
    reached = [j for kids, _ in modules for _, j in kids if j is not None]
    return len(reached) > len(set(reached))


def _tied(modules) -> bool:
    """One parameter registered in two places."""
    labels = [lab for _, own in modules for _, lab in own if lab is not None]
    return len(labels) > len(set(labels))


def _depth(modules, i: int = 0) -> int:
    """How many levels of children lie below module ``i``."""
    return max((1 + _depth(modules, j) for _, j in modules[i][0] if j is not None), default=0)



def _spec_kinds(spec) -> set[str]:
    """The kinds of values in one of chapter 7's collate sample specs, nested ones too."""
    kind = spec[0]
    found = {kind}
    if kind in ("tuple", "list", "point"):
        for inner in spec[1]:
            found |= _spec_kinds(inner)
    elif kind in ("dict", "odict", "proxy", "record"):
        for _, inner in spec[1]:
            found |= _spec_kinds(inner)
    return found


def _collate_kinds(specs) -> set[str]:
    return set().union(*(_spec_kinds(spec) for spec in specs)) if specs else set()


def _collate_raises(case, exception: str) -> bool:
    said = _torch_says("collate", case)
    return isinstance(said, tuple) and said[:2] == ("raises", exception)


def _handed_out_of_order(case) -> bool:
    tasks = [data[1] for data in (r[1] for r in _torch_says("next_in_order", case)
                                  if r != "end")]
    return tasks != sorted(tasks)


# ---------------------------------------------------------------- chapter 10's windows
@functools.cache
def _pool_taps(case):
    """The inside taps of each window of a ``max_pool_window`` case: a list of lists of
    floats (or ints), one per window that has a tap inside the input."""
    import numpy as np

    dtype, planes, kernel, stride, padding, dilation, ceil_mode = case.args
    array = np.array(planes, dtype=np.float64 if dtype == "float64" else np.int64)
    windows, positions, none, _ = pool_windows(array, kernel, stride, padding, dilation,
                                               ceil_mode)
    return [[v for v, at in zip(w, p, strict=True) if at >= 0]
            for w, p, empty in zip(windows.reshape(-1, windows.shape[-1]).tolist(),
                                   positions.reshape(-1, positions.shape[-1]).tolist(),
                                   np.broadcast_to(none, windows.shape[:-1]).reshape(-1),
                                   strict=True) if not empty]


def _has_empty_pool_window(case) -> bool:
    import numpy as np

    dtype, planes, kernel, stride, padding, dilation, ceil_mode = case.args
    return bool(pool_windows(np.array(planes, dtype=np.float64), kernel, stride, padding,
                             dilation, ceil_mode)[2].any())


def _has_pool_window(case, predicate) -> bool:
    return any(predicate(taps) for taps in _pool_taps(case))


def _nans(taps) -> int:
    return sum(1 for v in taps if isinstance(v, float) and math.isnan(v))


def _tied_window(taps) -> bool:
    numbers = [v for v in taps if not (isinstance(v, float) and math.isnan(v))]
    return not _nans(taps) and len(numbers) > 1 and numbers.count(max(numbers)) > 1


def _pool_out_of(size, kernel, padding, stride, dilation, ceil_mode):
    """(floor count, rounded-up count before the drop) of a pool_output_size case."""
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    return room // stride + 1, (room + stride - 1) // stride + 1


def _plan(case: Case):
    """torch's plan for a ``matmul_plan`` case (``Raises`` where torch raises)."""
    return _torch_says("matmul_plan", case)


def _kernel(case: Case) -> str:
    plan = _plan(case)
    return "raises" if isinstance(plan, references.Raises) else plan[1]


def _folds_by_grad_only(case: Case) -> bool:
    """torch folds, and would not with no operand requiring grad."""
    bare = Case(args=(*case.args[:4], (False, False), case.args[5]))
    return _kernel(case).startswith("fold") and not _kernel(bare).startswith("fold")


def _squeezed(case: Case):
    plan = _plan(case)
    return None if isinstance(plan, references.Raises) else plan[0]


# ---------------------------------------------------------------- bernoulli_from_draws's helper
def _bernoulli_uniforms(probs, dtype, draws) -> list[float]:
    """The uniform each element's sample compares with its p: 53 bits of two draws for a
    number or float64 p, 24 bits of one draw otherwise."""
    if dtype in ("float", "float64"):
        return [(((a << 32) | b) % 2 ** 53) * 2.0 ** -53
                for a, b in zip(draws[0::2], draws[1::2], strict=False)][:len(probs)]
    return [(d % 2 ** 24) * 2.0 ** -24 for d in draws[:len(probs)]]


def _in_range(p: float) -> bool:
    return 0 <= p <= 1


# ---------------------------------------------------------------- chapter 9's helpers
def _runs(keys: int, registered: int) -> int:
    """The key of a next_key case whose kernel runs (its highest common bit), 0 for none."""
    both = keys & registered
    return 1 << (both.bit_length() - 1) if both else 0


def _held(value, arg) -> bool:
    """A stored mode_arguments value holds its argument's default (the piece's rule: the
    same object, a sequence of the same items, or the same type and equal)."""
    name, kwarg_only, has_default, default, is_list = arg
    if not has_default:
        return False
    if type(value) is tuple and type(default) is tuple:
        return value[1:] == default[1:]
    return type(value) is type(default) and value == default


def _positional_held(arguments, values) -> list[bool]:
    """Whether each positional argument of a mode_arguments case holds its default."""
    return [_held(v, a) for a, v in zip(arguments, values, strict=True) if not a[1]]


def _kept_before_given(arguments, values) -> bool:
    """A positional argument that holds its default, before one that does not."""
    held = _positional_held(arguments, values)
    return any(h and not all(held[k + 1:]) for k, h in enumerate(held))


def _log_leaves(node):
    """The plain leaves of a stored log value (not the names inside tensors and dtypes)."""
    if type(node) is tuple and node and node[0] in ("list", "tuple"):
        return [leaf for v in node[1:] for leaf in _log_leaves(v)]
    if type(node) is tuple:
        return []
    return [node]


def _log_values(calls):
    """Every argument and keyword argument of a log_line case's calls."""
    return [v for _, args, kwargs, _ in calls for v in (*args, *(v for _, v in kwargs))]


def _tensor_nodes(node) -> list:
    if type(node) is tuple and node and node[0] == "tensor":
        return [node]
    if type(node) is tuple:
        return [t for v in node for t in _tensor_nodes(v)]
    return []


def _name_steps(candidates) -> list[tuple[str, str, str, str | None, bool]]:
    """A node_name case run by reftensor's piece: (candidate, name, stem, number, whether the
    candidate was taken), for each candidate."""
    from reftensor.fx.graph import _NUMBERED, node_name

    taken: set[str] = set()
    last: dict[str, int] = {}
    steps = []
    for c in candidates:
        stem, digits = _NUMBERED.match(c).groups()
        was_taken = c in taken
        steps.append((c, node_name(c, taken, last, frozenset(TORCH_RESERVED)), stem, digits,
                      was_taken))
    return steps


def _counted_on_from_a_kept_number(candidates, reserved) -> bool:
    """A free numbered candidate sets its stem's number (getitem_3), and the stem is counted on
    from it later (getitem taken: getitem_4)."""
    kept: set[str] = set()
    for c, name, stem, digits, was_taken in _name_steps(candidates):
        if digits is not None and not was_taken and int(digits) > 1:
            kept.add(stem)
        elif stem in kept and name != c:
            return True
    return False



def _ancestors(classes, name: str) -> list[str]:
    """A class of an ``overloaded_args``/``convert_result`` case's tree, then its parents up
    to the plain ``Tensor``."""
    parents = dict(classes)
    chain = [name]
    while chain[-1] != "Tensor":
        chain.append(parents[chain[-1]])
    return chain


def _subclass(classes, name: str, of: str) -> bool:
    """Is ``name`` a subclass of ``of`` (itself included) in the case's tree?"""
    return of in _ancestors(classes, name)


def _moved_not_first(classes, arguments) -> bool:
    """Does a class go before a listed base of its own that is not first of the list?"""
    order: list[str] = []
    for a in arguments:
        if a == "Tensor" or a in order:
            continue
        at = next((i for i, o in enumerate(order) if _subclass(classes, a, o)), len(order))
        if 0 < at < len(order):
            return True
        order.insert(at, a)
    return False


def _convert_leaves(value) -> list:
    """The leaves of a ``convert_result`` case's ret: ("tensor", class) pairs and plain values."""
    if type(value) is tuple and value and value[0] == "tensor":
        return [value]
    if type(value) is tuple and value and value[0] in ("tuple", "list", "max", "Size"):
        return [leaf for v in value[1] for leaf in _convert_leaves(v)]
    return [value]


def _containers(value) -> list:
    if type(value) is tuple and value and value[0] in ("tuple", "list", "max", "Size"):
        return [value] + [c for v in value[1] for c in _containers(v)]
    return []


CORNERS = {
    # ------------------------------------------------------------ chapter 1
    "contiguous_strides": [
        ("0-d shape ()", on(lambda shape: shape == ())),
        ("a size-0 dim with a dim before it (max(size, 1))", on(lambda shape: 0 in shape[1:])),
        ("a size-1 dim", on(lambda shape: 1 in shape)),
        ("a 1-d shape", on(lambda shape: len(shape) == 1)),
        ("four dims or more", on(lambda shape: len(shape) >= 4)),
    ],
    "storage_index": [
        ("0-d: index () and stride ()", on(lambda index, stride, offset: index == ())),
        ("0-d with a storage offset", on(lambda index, stride, offset: index == () and offset)),
        ("a storage offset", on(lambda index, stride, offset: offset > 0)),
        ("stride 0 on a dim indexed past 0",
         on(lambda index, stride, offset: any(s == 0 and i > 0
                                              for i, s in zip(index, stride, strict=True)))),
        ("strides in a permuted order", on(lambda index, stride, offset: increasing(stride))),
        ("an overlapping layout",
         lambda c: overlapping(c.ctx("shape"), c.args[1])),
    ],
    "is_contiguous": [
        ("0-d", on(lambda shape, stride: shape == ())),
        ("empty, strides not row-major (contiguous anyway)",
         on(lambda shape, stride: 0 in shape and stride != row_major(shape))),
        ("a size-1 dim with an odd stride, the rest row-major",
         on(lambda shape, stride: 0 not in shape and odd_size1_stride(shape, stride)
            and all(s == r for n, s, r in zip(shape, stride, row_major(shape), strict=True)
                    if n != 1))),
        ("every dim of size 1, strides not row-major",
         on(lambda shape, stride: shape and set(shape) == {1} and stride != row_major(shape))),
        ("stride 0 on a dim of size > 1",
         on(lambda shape, stride: stride0(shape, stride))),
        ("dense in a permuted order",
         on(lambda shape, stride: 0 not in shape and dense(shape, stride)
            and increasing([s for n, s in zip(shape, stride, strict=True) if n > 1]))),
        ("stepped: the innermost dim of size > 1 has a stride > 1",
         on(lambda shape, stride: 0 not in shape
            and [s for n, s in zip(shape, stride, strict=True) if n > 1][-1:] >= [2]
            and not increasing([s for n, s in zip(shape, stride, strict=True) if n > 1]))),
    ],
    "channels_last_strides": [
        ("C of size 0 (W's and H's strides 0)", on(lambda shape: shape[1] == 0)),
        ("H or W of size 0 (not taken as 1)", on(lambda shape: 0 in shape[2:])),
        ("N of size 0", on(lambda shape: shape[0] == 0)),
        ("a size-1 dim", on(lambda shape: 1 in shape)),
        ("(1, 1, 1, 1)", on(lambda shape: shape == (1, 1, 1, 1))),
    ],
    "unfold_layout": [
        ("one window: size == shape[dimension]",
         on(lambda shape, stride, d, size, step: size == shape[d])),
        ("windows overlap: step < size", on(lambda shape, stride, d, size, step: step < size)),
        ("gaps between windows: step > size",
         on(lambda shape, stride, d, size, step: step > size)),
        ("elements left over: (n - size) % step != 0",
         on(lambda shape, stride, d, size, step: (shape[d] - size) % step)),
        ("size 1", on(lambda shape, stride, d, size, step: size == 1)),
        ("the unfolded dim's stride is not 1",
         on(lambda shape, stride, d, size, step: stride[d] not in (0, 1))),
        ("the unfolded dim has stride 0", on(lambda shape, stride, d, size, step: stride[d] == 0)),
        ("another dim of size 0",
         on(lambda shape, stride, d, size, step: 0 in shape[:d] + shape[d + 1:])),
        ("the unfolded dim is not the last",
         on(lambda shape, stride, d, size, step: d < len(shape) - 1)),
    ],
    # ------------------------------------------------------------ chapter 2
    "infer_size": [
        ("a -1 filled in",
         on(lambda shape, numel: shape.count(-1) == 1 and min(shape) == -1
            and math.prod(shape) != 0 and numel % -math.prod(shape) == 0 and numel)),
        ("0-d shape ()", on(lambda shape, numel: shape == ())),
        ("0-d shape () for a numel that is not 1",
         on(lambda shape, numel: shape == () and numel != 1)),
        ("numel 0, a -1 and no size 0 (the -1 becomes 0)",
         on(lambda shape, numel: numel == 0 and shape.count(-1) == 1 and min(shape) == -1
            and 0 not in shape)),
        ("sizes 0 without -1, numel 0",
         on(lambda shape, numel: numel == 0 and 0 in shape and min(shape) >= 0)),
        ("two -1 (RuntimeError)", on(lambda shape, numel: shape.count(-1) >= 2)),
        ("a size below -1 (RuntimeError)", on(lambda shape, numel: any(n < -1 for n in shape))),
        ("-1 beside a size 0 (RuntimeError)", on(lambda shape, numel: -1 in shape and 0 in shape)),
        ("no -1 and a product that differs (RuntimeError)",
         on(lambda shape, numel: min(shape, default=0) >= 0 and math.prod(shape) != numel)),
        ("-1 where numel is not a multiple (RuntimeError)",
         on(lambda shape, numel: shape.count(-1) == 1 and min(shape) == -1
            and math.prod(shape) != 0 and numel % -math.prod(shape) != 0)),
    ],
    "view_strides": [
        ("0-d source (every stride 1)", on(lambda shape, stride, new: shape == ())),
        ("0-d target", on(lambda shape, stride, new: new == () and shape != ())),
        ("empty source, the same shape (its strides kept)",
         on(lambda shape, stride, new: 0 in shape and new == shape
            and stride != row_major(shape))),
        ("empty source, another shape (contiguous strides)",
         on(lambda shape, stride, new: 0 in shape and new != shape)),
        ("a size-1 source dim with an odd stride",
         on(lambda shape, stride, new: 0 not in shape and odd_size1_stride(shape, stride))),
        ("size-1 dims added", on(lambda shape, stride, new: new.count(1) > shape.count(1))),
        ("stride 0 on a dim of size > 1",
         on(lambda shape, stride, new: stride0(shape, stride))),
        ("a view torch refuses (None)", lambda c: _torch_says("view_strides", c) is None),
        ("a non-contiguous source that views",
         lambda c: not torch_contiguous(*c.args[:2])
         and _torch_says("view_strides", c) is not None and c.args[2] != c.args[0]),
    ],
    "slice_layout": [
        ("0-d indexed with ()", on(lambda shape, stride, offset, index: shape == index == ())),
        ("0-d indexed with an entry (IndexError)",
         on(lambda shape, stride, offset, index: shape == () and index)),
        ("more entries than dims (IndexError)",
         on(lambda shape, stride, offset, index: shape and len(index) > len(shape))),
        ("fewer entries than dims", on(lambda shape, stride, offset, index:
                                       0 < len(index) < len(shape))),
        ("a negative int in range",
         on(lambda shape, stride, offset, index: any(-n <= i < 0
                                                     for n, i in _int_entries(shape, index)))),
        ("an int out of range (IndexError)",
         on(lambda shape, stride, offset, index: any(not -n <= i < n
                                                     for n, i in _int_entries(shape, index)))),
        ("an int on an empty dim (IndexError)",
         on(lambda shape, stride, offset, index: any(n == 0
                                                     for n, i in _int_entries(shape, index)))),
        ("a step > 1", on(lambda shape, stride, offset, index:
                          any((e[2] or 1) > 1 for e in _slice_entries(index)))),
        ("a negative slice bound", on(lambda shape, stride, offset, index: any(
            b is not None and b < 0 for e in _slice_entries(index) for b in e[:2]))),
        ("a slice bound beyond the size (clamped)",
         on(lambda shape, stride, offset, index: any(
             isinstance(e, tuple) and d < len(shape)
             and any(b is not None and not -shape[d] <= b <= shape[d] for b in e[:2])
             for d, e in enumerate(index)))),
        ("an empty slice of a nonempty dim",
         on(lambda shape, stride, offset, index: _empty_slice(shape, index))),
        ("a slice with every part None",
         on(lambda shape, stride, offset, index: (None, None, None) in index)),
        ("a storage offset", on(lambda shape, stride, offset, index: offset > 0)),
    ],
    "permute_layout": [
        ("0-d with dims ()", on(lambda shape, stride, dims: shape == dims == ())),
        ("0-d with a dim (RuntimeError: length)", on(lambda shape, stride, dims:
                                                     shape == () and dims)),
        ("negative dims",
         on(lambda shape, stride, dims: len(dims) == len(shape)
            and any(-len(shape) <= d < 0 for d in dims))),
        ("too few dims (RuntimeError)", on(lambda shape, stride, dims: len(dims) < len(shape))),
        ("too many dims (RuntimeError)",
         on(lambda shape, stride, dims: shape and len(dims) > len(shape))),
        ("two entries naming one dim (RuntimeError)",
         on(lambda shape, stride, dims: _duplicate_dims(shape, dims, mixed_signs=False))),
        ("one dim written as d and d - n (RuntimeError)",
         on(lambda shape, stride, dims: _duplicate_dims(shape, dims, mixed_signs=True))),
        ("an entry out of range (IndexError)",
         on(lambda shape, stride, dims: len(dims) == len(shape) > 0
            and any(not -len(shape) <= d < len(shape) for d in dims))),
        ("the wrong length and an entry out of range (the length is checked first)",
         on(lambda shape, stride, dims: _dims_wrong_length_and_range(shape, dims))),
        ("a size-0 dim", on(lambda shape, stride, dims: 0 in shape and len(dims) == len(shape))),
    ],
    "diagonal_layout": [
        ("0-d with dims 0 and -1 (one dim: RuntimeError)",
         on(lambda shape, stride, so, offset, dim1, dim2:
            shape == () and {dim1, dim2} <= {0, -1})),
        ("0-d with a dim out of range (IndexError)",
         on(lambda shape, stride, so, offset, dim1, dim2:
            shape == () and not {dim1, dim2} <= {0, -1})),
        ("1-d with dims 0 and -1 (one dim: RuntimeError)",
         on(lambda shape, stride, so, offset, dim1, dim2:
            len(shape) == 1 and {dim1, dim2} <= {0, -1})),
        ("1-d with a second dim (IndexError)",
         on(lambda shape, stride, so, offset, dim1, dim2:
            len(shape) == 1 and not {dim1, dim2} <= {0, -1})),
        ("one dim out of range twice (IndexError before dim1 == dim2)",
         on(lambda shape, stride, so, offset, dim1, dim2:
            dim1 == dim2 and _normal_dims(len(shape), dim1) is None)),
        ("dim1 == dim2 (RuntimeError)",
         on(lambda shape, stride, so, offset, dim1, dim2: len(shape) >= 2 and dim1 == dim2
            and _normal_dims(len(shape), dim1) is not None)),
        ("one dim written as d and d - n (RuntimeError)",
         on(lambda shape, stride, so, offset, dim1, dim2: len(shape) >= 2 and dim1 != dim2
            and _normal_dims(len(shape), dim1, dim2) in {(d, d) for d in range(len(shape))})),
        ("a dim out of range, 2 dims or more (IndexError)",
         on(lambda shape, stride, so, offset, dim1, dim2: len(shape) >= 2
            and _normal_dims(len(shape), dim1, dim2) is None)),
        ("negative dims",
         on(lambda shape, stride, so, offset, dim1, dim2:
            _valid_diagonal(shape, dim1, dim2) is not None and min(dim1, dim2) < 0)),
        ("dim1 after dim2", _diagonal(lambda shape, stride, so, offset, d1, d2: d1 > d2)),
        ("offset > 0, a nonempty diagonal",
         _diagonal(lambda shape, stride, so, offset, d1, d2:
                   offset > 0 and _diagonal_size(shape, offset, d1, d2))),
        ("offset < 0, a nonempty diagonal",
         _diagonal(lambda shape, stride, so, offset, d1, d2:
                   offset < 0 and _diagonal_size(shape, offset, d1, d2))),
        ("an offset past the plane: empty, the storage offset kept",
         _diagonal(lambda shape, stride, so, offset, d1, d2: offset and so
                   and not _diagonal_size(shape, offset, d1, d2) and shape[d1] and shape[d2])),
        ("a size-0 dim in the plane",
         _diagonal(lambda shape, stride, so, offset, d1, d2: 0 in (shape[d1], shape[d2]))),
        ("three dims or more", _diagonal(lambda shape, stride, so, offset, d1, d2:
                                         len(shape) >= 3)),
        ("a storage offset", _diagonal(lambda shape, stride, so, offset, d1, d2: so > 0)),
        ("stride 0 in the plane",
         _diagonal(lambda shape, stride, so, offset, d1, d2: 0 in (stride[d1], stride[d2]))),
    ],
    "shares_storage": [
        *[(f"the op {op}", on(lambda op_, shape, stride, op=op: op_ == op)) for op in OPERATIONS],
        ("0-d", on(lambda op, shape, stride: shape == ())),
        ("x.t() of 3 dims or more (error)",
         on(lambda op, shape, stride: op == "x.t()" and len(shape) > 2)),
        ("x.mT of fewer than 2 dims (error)",
         on(lambda op, shape, stride: op == "x.mT" and len(shape) < 2)),
        ("x.flatten(0, 1) of fewer than 2 dims",
         on(lambda op, shape, stride: op == "x.flatten(0, 1)" and len(shape) < 2)),
        ("x.view(-1) torch refuses",
         lambda c: c.args[0] == "x.view(-1)" and _torch_says("shares_storage", c) == "error"),
        ("x.reshape(-1) that copies",
         lambda c: c.args[0] == "x.reshape(-1)" and _torch_says("shares_storage", c) is False),
        ("x.contiguous() that copies",
         lambda c: c.args[0] == "x.contiguous()" and _torch_says("shares_storage", c) is False),
        ("stride 0 on a dim of size > 1",
         on(lambda op, shape, stride: stride0(shape, stride))),
        ("a size-1 dim with an odd stride",
         on(lambda op, shape, stride: odd_size1_stride(shape, stride))),
    ],
    "index_positions": [
        ("one index tensor", on(lambda shape, stride, offset, ix: len(_indexed(ix)) == 1)),
        ("adjacent indexed dims after a dim that is not indexed (they stay in place)",
         on(lambda shape, stride, offset, ix: _adjacent(ix) and len(_indexed(ix)) > 1
            and _indexed(ix)[0] > 0)),
        ("indexed dims separated by one that is not (they go first)",
         on(lambda shape, stride, offset, ix: not _adjacent(ix))),
        ("separated indexed dims after a dim that is not indexed (that one moves after them)",
         on(lambda shape, stride, offset, ix: not _adjacent(ix) and _indexed(ix)[0] > 0)),
        ("index shapes that broadcast (a size 1 or fewer dims)",
         on(lambda shape, stride, offset, ix: len({tuple(e[0]) for e in ix if e}) > 1
            and _broadcast_shape(ix) is not None)),
        ("index shapes that do not broadcast (IndexError)",
         on(lambda shape, stride, offset, ix: _broadcast_shape(ix) is None)),
        ("a 0-d index tensor", on(lambda shape, stride, offset, ix: any(
            e is not None and tuple(e[0]) == () for e in ix))),
        ("an empty index tensor", on(lambda shape, stride, offset, ix: any(
            e is not None and 0 in e[0] for e in ix))),
        ("a negative index in range", on(lambda shape, stride, offset, ix: any(
            -shape[d] <= v < 0 for d, e in enumerate(ix) if e for v in e[1]))),
        ("an index out of range (IndexError)", on(lambda shape, stride, offset, ix: any(
            not -shape[d] <= v < shape[d] for d, e in enumerate(ix) if e for v in e[1])
            and _broadcast_shape(ix) is not None and 0 not in _broadcast_shape(ix)
            and 0 not in shape)),
        ("an index out of range where nothing is read (no error)",
         on(lambda shape, stride, offset, ix: any(
             not -shape[d] <= v < shape[d] for d, e in enumerate(ix) if e for v in e[1])
            and (0 in (_broadcast_shape(ix) or (1,)) or 0 in shape))),
        ("a dim of size 0 indexed (IndexError unless the index is empty)",
         on(lambda shape, stride, offset, ix: any(shape[d] == 0 for d in _indexed(ix)))),
        ("repeated index values", on(lambda shape, stride, offset, ix: any(
            len(set(e[1])) < len(e[1]) for e in ix if e))),
        ("fewer entries than dims", on(lambda shape, stride, offset, ix: len(ix) < len(shape))),
        ("a stride-0 or transposed source",
         on(lambda shape, stride, offset, ix: 0 in stride or increasing(stride))),
        ("a storage offset", on(lambda shape, stride, offset, ix: offset > 0)),
    ],
    "internal_overlap": [
        ("0-d", on(lambda shape, stride: shape == ())),
        ("a size-0 dim, strides that are not row-major",
         on(lambda shape, stride: 0 in shape and tuple(stride) != row_major(shape))),
        ("a size-0 dim beside a stride 0 on a dim of size > 1 (no)",
         on(lambda shape, stride: 0 in shape and stride0(shape, stride))),
        ("a size-1 dim with an odd stride", on(odd_size1_stride)),
        ("stride 0 on a dim of size 1 only (no)",
         on(lambda shape, stride: 0 not in shape and not stride0(shape, stride)
            and any(n == 1 and s == 0 for n, s in zip(shape, stride, strict=True)))),
        ("stride 0 on a dim of size > 1 (yes)",
         on(lambda shape, stride: 0 not in shape and stride0(shape, stride))),
        ("a permuted dense layout",
         on(lambda shape, stride: 0 not in shape and increasing(
             [s for n, s in zip(shape, stride, strict=True) if n > 1])
            and dense(shape, stride))),
        ("overlapping windows, no stride 0 (too hard)",
         on(lambda shape, stride: overlapping(shape, stride) and not stride0(shape, stride))),
        ("a gap between elements, no overlap (too hard)",
         on(lambda shape, stride: not dense(shape, stride) and not overlapping(shape, stride))),
        ("torch says no", lambda c: _torch_says("internal_overlap", c) == "no"),
        ("torch says yes", lambda c: _torch_says("internal_overlap", c) == "yes"),
        ("torch says too hard", lambda c: _torch_says("internal_overlap", c) == "too hard"),
    ],
    "overlap_status": [
        ("0-d", _memories(lambda storage, shape, stride, offset, itemsize: shape == ())),
        ("no elements", _memories(lambda storage, shape, stride, offset, itemsize: 0 in shape)),
        ("no elements beside a layout that is not dense (no)",
         on(lambda a, b: (0 in a[1] and not dense(b[1], b[2]))
            or (0 in b[1] and not dense(a[1], a[2])))),
        ("a size-1 dim with an odd stride",
         _memories(lambda storage, shape, stride, offset, itemsize:
                   odd_size1_stride(shape, stride))),
        ("stride 0 on a dim of size 1",
         _memories(lambda storage, shape, stride, offset, itemsize: 0 not in shape and any(
             n == 1 and s == 0 for n, s in zip(shape, stride, strict=True)))),
        ("stride 0 on a dim of size > 1",
         _memories(lambda storage, shape, stride, offset, itemsize:
                   0 not in shape and stride0(shape, stride))),
        ("a permuted dense layout",
         _memories(lambda storage, shape, stride, offset, itemsize: 0 not in shape
                   and dense(shape, stride)
                   and increasing([s for n, s in zip(shape, stride, strict=True) if n > 1]))),
        ("overlapping windows (unfold)",
         _memories(lambda storage, shape, stride, offset, itemsize:
                   overlapping(shape, stride) and not stride0(shape, stride))),
        ("two storages", on(lambda a, b: not _one_storage(a, b) and _both_dense(a, b))),
        ("one storage, other offsets, same layout",
         on(lambda a, b: _one_storage(a, b) and a[1:3] == b[1:3] and a[3] != b[3]
            and a[4] == b[4] and _both_dense(a, b))),
        ("ranges that touch",
         on(lambda a, b: _one_storage(a, b) and _both_dense(a, b)
            and (_bytes(a)[1] == _bytes(b)[0] or _bytes(b)[1] == _bytes(a)[0]))),
        ("the same bytes, other strides (partial)",
         on(lambda a, b: _one_storage(a, b) and _both_dense(a, b) and _bytes(a) == _bytes(b)
            and tuple(a[2]) != tuple(b[2]))),
        ("the same bytes, the same strides, other shapes",
         on(lambda a, b: _one_storage(a, b) and _both_dense(a, b) and _bytes(a) == _bytes(b)
            and tuple(a[2]) == tuple(b[2]) and tuple(a[1]) != tuple(b[1]))),
        ("other item sizes over shared bytes",
         on(lambda a, b: _one_storage(a, b) and a[4] != b[4] and _both_dense(a, b)
            and _bytes(a)[0] < _bytes(b)[1] and _bytes(b)[0] < _bytes(a)[1])),
        ("other item sizes, the same bytes and strides (full)",
         on(lambda a, b: _one_storage(a, b) and a[4] != b[4] and _both_dense(a, b)
            and _bytes(a) == _bytes(b) and tuple(a[2]) == tuple(b[2]))),
        ("torch says full", lambda c: _torch_says("overlap_status", c) == "full"),
        ("torch says partial", lambda c: _torch_says("overlap_status", c) == "partial"),
        ("torch says no", lambda c: _torch_says("overlap_status", c) == "no"),
        ("torch says too hard", lambda c: _torch_says("overlap_status", c) == "too hard"),
    ],
    "view_dtype_layout": [
        ("the same element size, 0-d (kept)", on(lambda shape, stride, offset, a, b, n, m:
                                                 a == b and shape == ())),
        ("the same element size, a last stride other than 1 (kept)",
         on(lambda shape, stride, offset, a, b, n, m: a == b and shape and stride[-1] != 1)),
        ("0-d, another element size (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a != b and shape == ())),
        ("a smaller element with a storage offset, 2 dims or more (the last dim splits)",
         _dtype_view(lambda shape, stride, offset, a, b, torch_says: a > b and offset
                     and len(shape) > 1 and not raises(torch_says))),
        ("a larger element that fits, 2 dims or more (the last dim merges)",
         _dtype_view(lambda shape, stride, offset, a, b, torch_says: a < b and len(shape) > 1
                     and 0 not in shape and not raises(torch_says))),
        ("a larger element, a storage offset it divides",
         _dtype_view(lambda shape, stride, offset, a, b, torch_says: a < b and offset
                     and not raises(torch_says))),
        ("a ratio of 4 or 8", on(lambda shape, stride, offset, a, b, n, m:
                                 max(a, b) // min(a, b) >= 4 and shape)),
        ("a last stride other than 1 (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a != b and shape and stride[-1] != 1)),
        ("a last dim of size 1 whose stride is not 1 (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a != b and shape and shape[-1] == 1
            and stride[-1] != 1)),
        ("a last size the ratio does not divide (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a < b and shape and shape[-1] % (b // a))),
        ("an offset the ratio does not divide, the last size it does (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a < b and shape
            and not shape[-1] % (b // a) and offset % (b // a))),
        ("another stride the ratio does not divide, the rest fits (RuntimeError)",
         on(lambda shape, stride, offset, a, b, n, m: a < b and shape and stride[-1] == 1
            and not (shape[-1] % (b // a) or offset % (b // a))
            and any(s % (b // a) for s in stride[:-1]))),
        ("an empty dim, another element size",
         on(lambda shape, stride, offset, a, b, n, m: a != b and 0 in shape)),
        ("a stride 0 on a dim of size > 1, kept",
         _dtype_view(lambda shape, stride, offset, a, b, torch_says: a != b
                     and stride0(shape[:-1], stride[:-1]) and not raises(torch_says))),
        ("a permuted layout, another element size",
         on(lambda shape, stride, offset, a, b, n, m: a != b and increasing(stride))),
        ("bool and another element size",
         on(lambda shape, stride, offset, a, b, n, m: "Bool" in (n, m) and a != b)),
    ],
    "squeeze_layout": [
        ("squeeze() of a 0-d tensor", on(lambda op, shape, stride, dim: op == "squeeze"
                                         and shape == () and dim is None)),
        ("squeeze of a 0-d tensor with dim 0 or -1 (kept)",
         on(lambda op, shape, stride, dim: op == "squeeze" and shape == ()
            and dim in (0, -1, (0,), (-1,)))),
        ("squeeze of a 0-d tensor with a dim out of range (IndexError)",
         _squeeze(lambda op, shape, stride, dim, torch_says: op == "squeeze" and shape == ()
                  and raises(torch_says, "IndexError"))),
        ("unsqueeze of a 0-d tensor (stride 1)",
         _squeeze(lambda op, shape, stride, dim, torch_says: op == "unsqueeze" and shape == ()
                  and not raises(torch_says))),
        ("unsqueeze of a 0-d tensor out of range (IndexError)",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and shape == ()
            and dim not in (0, -1))),
        ("unsqueeze at the end (stride 1)",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and shape
            and dim in (len(shape), -1))),
        ("unsqueeze at a negative place before the end",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and -len(shape) - 1 <= dim < -1)),
        ("unsqueeze before a dim whose stride is not 1, the size times the stride",
         on(lambda op, shape, stride, dim: op == "unsqueeze"
            and 0 <= dim % (len(shape) + 1) < len(shape) and -len(shape) - 1 <= dim <= len(shape)
            and shape[dim % (len(shape) + 1)] > 1 and stride[dim % (len(shape) + 1)] > 1)),
        ("unsqueeze before an empty dim (stride 0)",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and -len(shape) - 1 <= dim
            <= len(shape) and dim % (len(shape) + 1) < len(shape)
            and shape[dim % (len(shape) + 1)] == 0)),
        ("unsqueeze before a stride-0 dim of size > 1 (stride 0)",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and -len(shape) - 1 <= dim
            <= len(shape) and dim % (len(shape) + 1) < len(shape)
            and shape[dim % (len(shape) + 1)] > 1 and stride[dim % (len(shape) + 1)] == 0)),
        ("unsqueeze in a permuted layout", on(lambda op, shape, stride, dim: op == "unsqueeze"
                                               and increasing(stride))),
        ("unsqueeze out of range (IndexError)",
         on(lambda op, shape, stride, dim: op == "unsqueeze" and shape
            and not -len(shape) - 1 <= dim <= len(shape))),
        ("squeeze() with two size-1 dims or more",
         on(lambda op, shape, stride, dim: op == "squeeze" and dim is None
            and shape.count(1) >= 2)),
        ("squeeze() of a size-1 dim beside an empty one",
         on(lambda op, shape, stride, dim: op == "squeeze" and dim is None and 1 in shape
            and 0 in shape)),
        ("squeeze(dim) of a dim of size 1, written negative",
         on(lambda op, shape, stride, dim: op == "squeeze" and isinstance(dim, int)
            and -len(shape) <= dim < 0 and shape[dim] == 1)),
        ("squeeze(dim) of a dim whose size is not 1 (kept, no error)",
         on(lambda op, shape, stride, dim: op == "squeeze" and isinstance(dim, int)
            and -len(shape) <= dim < len(shape) and shape[dim] != 1)),
        ("squeeze(dim) out of range (IndexError)",
         on(lambda op, shape, stride, dim: op == "squeeze" and isinstance(dim, int)
            and not -max(len(shape), 1) <= dim < max(len(shape), 1))),
        ("squeeze(tuple) removing two dims, one written negative",
         _squeeze(lambda op, shape, stride, dim, torch_says: isinstance(dim, tuple)
                  and not raises(torch_says) and len(torch_says[0]) <= len(shape) - 2
                  and any(d < 0 for d in dim))),
        ("squeeze(tuple) naming a dim whose size is not 1",
         _squeeze(lambda op, shape, stride, dim, torch_says: isinstance(dim, tuple)
                  and not raises(torch_says)
                  and any(shape[d] != 1 for d in dim if -len(shape) <= d < len(shape)))),
        ("squeeze(()) (nothing removed)", on(lambda op, shape, stride, dim: dim == ()
                                             and 1 in shape)),
        ("squeeze(tuple) naming a dim twice, as d and d - n (RuntimeError)",
         _squeeze(lambda op, shape, stride, dim, torch_says: isinstance(dim, tuple)
                  and raises(torch_says, "RuntimeError") and len(set(dim)) == len(dim))),
        ("squeeze(tuple) with a dim out of range (IndexError)",
         _squeeze(lambda op, shape, stride, dim, torch_says: isinstance(dim, tuple)
                  and shape and raises(torch_says, "IndexError"))),
        ("a dim named twice before one out of range (RuntimeError first)",
         _squeeze(lambda op, shape, stride, dim, torch_says: isinstance(dim, tuple)
                  and raises(torch_says, "RuntimeError")
                  and any(not -max(len(shape), 1) <= d < max(len(shape), 1) for d in dim))),
        ("a size-1 dim with a stride not its row-major one, squeezed",
         on(lambda op, shape, stride, dim: op == "squeeze" and dim is None
            and odd_size1_stride(shape, stride))),
    ],
    # ------------------------------------------------------------ chapter 3
    "broadcast_shapes": [
        ("no shapes", on(lambda *shapes: not shapes)),
        ("one shape", on(lambda *shapes: len(shapes) == 1)),
        ("a 0-d shape among others", on(lambda *shapes: len(shapes) > 1 and () in shapes)),
        ("three shapes or more", on(lambda *shapes: len(shapes) >= 3)),
        ("shapes of different lengths", on(lambda *shapes: len({len(s) for s in shapes}) > 1)),
        ("size 1 against size 0 (gives 0)",
         on(lambda *shapes: any({0, 1} <= set(col) for col in columns(*shapes)))),
        ("size 0 against a size > 1 (RuntimeError)",
         on(lambda *shapes: any(0 in col and max(col) > 1 for col in columns(*shapes)))),
        ("two sizes > 1 that differ (RuntimeError)",
         on(lambda *shapes: any(len({n for n in col if n > 1}) > 1
                                for col in columns(*shapes)))),
    ],
    "expand_strides": [
        ("0-d to ()", on(lambda shape, stride, new: shape == () == new)),
        ("0-d to dims (stride 0 in every dim)", on(lambda shape, stride, new:
                                                   shape == () and new and min(new) >= 0)),
        ("a new leading dim of size 1 (size * stride of the next)",
         on(lambda shape, stride, new: shape and 1 in _expand_leading(shape, new))),
        ("a new leading dim of size > 1",
         on(lambda shape, stride, new: shape and max(_expand_leading(shape, new),
                                                     default=0) > 1)),
        ("a new leading dim of size 0", on(lambda shape, stride, new:
                                           shape and 0 in _expand_leading(shape, new))),
        ("-1 keeps a size",
         on(lambda shape, stride, new: any(m == -1 for *_, m in _expand_pairs(shape, stride,
                                                                             new)))),
        ("-1 for a new leading dim (RuntimeError)",
         on(lambda shape, stride, new: shape and -1 in _expand_leading(shape, new))),
        ("fewer sizes than dims (RuntimeError)",
         on(lambda shape, stride, new: len(new) < len(shape))),
        ("a size-1 dim that stays 1 keeps its stride",
         on(lambda shape, stride, new: any(n == m == 1 and s not in (0, 1)
                                           for n, s, m in _expand_pairs(shape, stride, new)))),
        ("a size-1 dim grows (stride 0)",
         on(lambda shape, stride, new: any(n == 1 and m > 1
                                           for n, s, m in _expand_pairs(shape, stride, new)))),
        ("a size-1 dim becomes 0",
         on(lambda shape, stride, new: any(n == 1 and m == 0
                                           for n, s, m in _expand_pairs(shape, stride, new)))),
        ("a size other than 1 asked to change (RuntimeError)",
         on(lambda shape, stride, new: any(n != 1 and m not in (n, -1)
                                           for n, s, m in _expand_pairs(shape, stride, new)))),
    ],
    "strided_loop": [
        ("a 0-d output (one value)", on(lambda op, out, *ins: out[1] == ())),
        ("an empty output (nothing written)", on(lambda op, out, *ins: 0 in out[1])),
        ("an input with fewer dims than the output",
         on(lambda op, out, *ins: any(len(x[1]) < len(out[1]) for x in ins))),
        ("a size-1 dim that broadcasts, holding a stride other than 0",
         on(lambda op, out, *ins: any(n == 1 and m > 1 and s != 0 for x in ins
                                      for n, s, m in _lined_up(x, out)))),
        ("stride 0 on a dim of size > 1 (an expanded input)",
         on(lambda op, out, *ins: any(_operand_stride0(x) for x in ins))),
        ("an input's storage offset", on(lambda op, out, *ins: any(x[3] > 0 for x in ins))),
        ("the output's storage offset", on(lambda op, out, *ins: out[3] > 0)),
        ("an output with its own dim order (permuted)",
         on(lambda op, out, *ins: increasing([s for n, s in zip(out[1], out[2], strict=True)
                                              if n > 1]))),
        ("output storage its layout does not reach (left as it is)",
         on(lambda op, out, *ins: 0 not in out[1] and len(out[0]) > math.prod(out[1]))),
        ("in place: the first input is the output", lambda c: dict(c.context)["in_place"]),
        ("one input (neg)", on(lambda op, out, *ins: len(ins) == 1)),
        ("three inputs (where)", on(lambda op, out, *ins: len(ins) == 3)),
        ("float values", on(lambda op, out, *ins: any(isinstance(v, float) for v in out[0]))),
    ],
    "reduce_loop": [
        ("a 0-d input (nothing to reduce)", on(lambda op, out, x, dims, keep: x[1] == ())),
        ("a reduced dim of size 0 (the start is written)",
         on(lambda op, out, x, dims, keep: any(x[1][d] == 0 for d in dims)
            and 0 not in out[1])),
        ("an empty output (nothing written)", on(lambda op, out, x, dims, keep: 0 in out[1])),
        ("every dim reduced", on(lambda op, out, x, dims, keep: x[1] and len(dims) == len(x[1]))),
        ("two reduced dims with a kept dim between them",
         on(lambda op, out, x, dims, keep: any(a + 1 < b for a, b in itertools.pairwise(dims)))),
        ("keepdim", on(lambda op, out, x, dims, keep: keep and x[1])),
        ("a size-1 dim", on(lambda op, out, x, dims, keep: 1 in x[1])),
        ("a permuted input", on(lambda op, out, x, dims, keep: increasing(
            [s for n, s in zip(x[1], x[2], strict=True) if n > 1]))),
        ("a stepped input (strides over elements)",
         on(lambda op, out, x, dims, keep: 0 not in x[1] and x[1]
            and not dense(x[1], x[2]) and not stride0(x[1], x[2]))),
        ("stride 0 on a dim of size > 1 (an expanded input)",
         on(lambda op, out, x, dims, keep: stride0(x[1], x[2]))),
        ("the input's storage offset", on(lambda op, out, x, dims, keep: x[3] > 0)),
        ("the output's storage offset", on(lambda op, out, x, dims, keep: out[3] > 0)),
        ("an output with its own dim order (permuted)",
         on(lambda op, out, x, dims, keep: increasing(
             [s for n, s in zip(out[1], out[2], strict=True) if n > 1]))),
        ("output storage its layout does not reach (left as it is)",
         on(lambda op, out, x, dims, keep: 0 not in out[1]
            and len(out[0]) > math.prod(out[1]))),
        ("float values", on(lambda op, out, x, dims, keep: any(isinstance(v, float)
                                                               for v in x[0]))),
        *[(f"the op {name}", on(lambda op, out, x, dims, keep, name=name: op == name))
          for name in ("sum", "prod", "amax", "amin", "all", "any")],
    ],
    "sum_to_dims": [
        ("size == shape (nothing summed)", on(lambda shape, size: shape == size)),
        ("size () (every dim summed)", on(lambda shape, size: size == () and shape)),
        ("0-d shape", on(lambda shape, size: shape == ())),
        ("leading dims dropped",
         on(lambda shape, size: 0 < len(size) < len(shape))),
        ("a dim kept as size 1",
         on(lambda shape, size: any(m == 1 and n > 1 for n, m in _sum_pairs(shape, size)))),
        ("a size-1 dim that stays 1 (not summed)",
         on(lambda shape, size: any(m == n == 1 for n, m in _sum_pairs(shape, size))
            and len(size) <= len(shape))),
        ("size 1 against a size-0 dim",
         on(lambda shape, size: any(m == 1 and n == 0 for n, m in _sum_pairs(shape, size)))),
        ("size longer than shape (RuntimeError)", on(lambda shape, size:
                                                     len(size) > len(shape))),
        ("a size that does not expand (RuntimeError)",
         on(lambda shape, size: any(m not in (1, n) for n, m in _sum_pairs(shape, size)))),
    ],
    "broadcast_error": [
        ("shapes that broadcast (None)", on(lambda a, b: not clashes(a, b))),
        ("a 0-d operand", on(lambda a, b: () in (a, b))),
        ("two clashes: the rightmost is named", on(lambda a, b: clashes(a, b) >= 2)),
        ("a clash with b longer (the dim counted in the output)",
         on(lambda a, b: clashes(a, b) and len(b) > len(a))),
        ("a clash with a longer", on(lambda a, b: clashes(a, b) and len(a) > len(b))),
        ("a clash not in the last dim",
         on(lambda a, b: clashes(a, b) and len({n for n in columns(a, b)[0] if n != 1}) <= 1)),
        ("0 against 1 (no clash)", on(lambda a, b: any(set(c) == {0, 1}
                                                       for c in columns(a, b)))),
        ("0 against a size > 1 (clash)", on(lambda a, b: any(0 in c and max(c) > 1
                                                             for c in columns(a, b)))),
    ],
    # ------------------------------------------------------------ chapter 4
    "promote_types": [
        ("uint8 with int8 (int16)", on(lambda a, b: {a, b} == {"uint8", "int8"})),
        ("float16 with bfloat16 (float32)", on(lambda a, b: {a, b} == {"float16", "bfloat16"})),
        ("int64 with float16 (float16)", on(lambda a, b: {a, b} == {"int64", "float16"})),
        ("bool with bool", on(lambda a, b: a == b == "bool")),
        ("bool with uint8", on(lambda a, b: {a, b} == {"bool", "uint8"})),
    ],
    "result_dtype": [
        ("a Python float with an integer tensor (float32)",
         on(lambda a, op, b: any(_category(t[1]) < 2 for t in _tensors(a, b, True))
            and any(_operand_category(s) == 2 for s in _scalars(a, b)))),
        ("a Python int with a narrower integer tensor (does not widen)",
         on(lambda a, op, b: any(t[1] in ("uint8", "int8", "int16", "int32")
                                 for t in _tensors(a, b, True))
            and any(_operand_category(s) == 1 for s in _scalars(a, b)))),
        ("a Python bool", on(lambda a, op, b: any(isinstance(s[1], bool)
                                                  for s in _scalars(a, b)))),
        ("a uint8 tensor with a negative Python int",
         on(lambda a, op, b: any(t[1] == "uint8" for t in _tensors(a, b, True))
            and any(type(s[1]) is int and s[1] < 0 for s in _scalars(a, b)))),
        ("a 0-d tensor of a higher category",
         on(lambda a, op, b: any(_category(z[1]) > _category(t[1])
                                 for z in _tensors(a, b, False) for t in _tensors(a, b, True)))),
        ("a wider 0-d tensor of the same category (does not widen)",
         on(lambda a, op, b: any(_category(z[1]) == _category(t[1]) and z[1] != t[1]
                                 for z in _tensors(a, b, False) for t in _tensors(a, b, True)))),
        ("two 0-d tensors", on(lambda a, op, b: len(_tensors(a, b, False)) == 2)),
        ("a 0-d tensor and a Python number",
         on(lambda a, op, b: _tensors(a, b, False) and _scalars(a, b))),
        ("true division of integers or bools (float32)",
         on(lambda a, op, b: op == "/" and max(map(_operand_category, (a, b))) < 2)),
        ("the Python number on the left", on(lambda a, op, b: a[0] == "scalar")),
    ],
    "cast_value": [
        ("nan", on(lambda x, dtype: math.isnan(x))),
        ("inf or -inf", on(lambda x, dtype: math.isinf(x))),
        ("float16: rounds past 65504 to inf",
         on(lambda x, dtype: dtype == "float16" and _finite(x) and abs(x) >= 65520)),
        ("float16: just below the overflow, rounds down to 65504",
         on(lambda x, dtype: dtype == "float16" and 65504 < abs(x) < 65520)),
        ("bfloat16: rounds past its largest value to inf",
         on(lambda x, dtype: dtype == "bfloat16" and _finite(x)
            and abs(x) >= (2 - 2 ** -8) * 2.0 ** 127)),
        ("a tie, rounded to the even neighbour",
         on(lambda x, dtype: _finite(x) and _steps(x, dtype) % 1 == 0.5)),
        ("a tie rounded up", on(lambda x, dtype: _finite(x) and _steps(x, dtype) % 2 == 1.5)),
        ("float16 subnormal", on(lambda x, dtype: dtype == "float16" and _finite(x)
                                 and 2 ** -25 < abs(x) < 2 ** -14)),
        ("bfloat16 subnormal", on(lambda x, dtype: dtype == "bfloat16" and _finite(x)
                                  and 2 ** -133 <= abs(x) < 2 ** -126)),
        ("a nonzero value that rounds to 0", on(lambda x, dtype: _underflows(x, dtype))),
        ("a negative value that rounds to 0",
         on(lambda x, dtype: x < 0 and _underflows(x, dtype))),
        ("float16: an odd integer above 2048",
         on(lambda x, dtype: dtype == "float16" and _finite(x) and x == int(x)
            and 2048 < abs(x) < 65504 and int(x) % 2)),
    ],
    "to_result": [
        ("(N, 1, 1, 1) with equal C, W, H strides asked for channels_last (ambiguous: a copy)",
         on(lambda dtype, shape, stride, call: len(shape) == 4 and shape[0] > 0
            and tuple(shape[1:]) == (1, 1, 1) and 0 < stride[1] == stride[2] == stride[3]
            and _to_options(call)[1] == "channels_last")),
        ("(N, 1, 1, 1) with climbing strides asked for channels_last (t itself)",
         lambda c: _n111(*c.args[1:3]) and _to_options(c.args[3])[1] == "channels_last"
         and returns_t(c)),
        ("(N, 1, 1, 1) with climbing strides asked for contiguous_format (a copy)",
         lambda c: _n111(*c.args[1:3]) and _to_options(c.args[3])[1] == "contiguous_format"
         and copies(c)),
        ("channels_last for a tensor that is not 4-d (RuntimeError)",
         lambda c: len(c.args[1]) != 4 and raises(to_truth(c), "RuntimeError")),
        ("a sliced channels-last tensor asked for channels_last (t itself)",
         lambda c: len(c.args[1]) == 4 and _to_options(c.args[3])[1] == "channels_last"
         and returns_t(c) and c.args[2] != tuple(
             torch.empty(c.args[1], memory_format=torch.channels_last).stride())),
        ("a non-contiguous tensor asked for contiguous_format (t itself)",
         lambda c: _to_options(c.args[3])[1] == "contiguous_format" and returns_t(c)
         and not torch_contiguous(*c.args[1:3])),
        ("a 4-d tensor with a size-0 dim asked for channels_last",
         on(lambda dtype, shape, stride, call: len(shape) == 4 and 0 in shape
            and _to_options(call)[1] == "channels_last")),
        ("a 4-d tensor with C of stride 0 asked for channels_last",
         on(lambda dtype, shape, stride, call: len(shape) == 4 and stride[1] == 0
            and 0 not in shape and _to_options(call)[1] == "channels_last")),
        ("copy=True", on(lambda dtype, shape, stride, call: ("copy", True) in call)),
        ("copy=False with a change (a copy all the same)",
         lambda c: ("copy", False) in c.args[3] and copies(c)),
        ("the meta device", on(lambda dtype, shape, stride, call: ("device", "meta") in call)),
        ("another tensor's dtype", on(lambda dtype, shape, stride, call:
                                      "other" in _to_options(call)[0])),
        ("a preserve_format copy of a non-dense tensor (dense in dim order)",
         lambda c: _to_options(c.args[3])[1] == "preserve_format" and 0 not in c.args[1]
         and not dense(*c.args[1:3]) and copies(c)),
        ("a preserve_format copy with stride 0",
         lambda c: _to_options(c.args[3])[1] == "preserve_format" and copies(c)
         and stride0(*c.args[1:3])),
        ("a preserve_format copy with two dims of one stride",
         lambda c: _to_options(c.args[3])[1] == "preserve_format" and copies(c)
         and len({s for n, s in zip(*c.args[1:3], strict=True) if n > 1 and s}) < sum(
             n > 1 and s > 0 for n, s in zip(*c.args[1:3], strict=True))),
        ("a preserve_format copy of an empty tensor",
         lambda c: _to_options(c.args[3])[1] == "preserve_format" and 0 in c.args[1]
         and copies(c)),
        ("a preserve_format copy with a size-1 dim of odd stride",
         lambda c: _to_options(c.args[3])[1] == "preserve_format" and copies(c)
         and 0 not in c.args[1] and odd_size1_stride(*c.args[1:3])),
        ("0-d", on(lambda dtype, shape, stride, call: shape == ())),
    ],
    "matmul_plan": [
        ("dot", lambda c: _kernel(c) == "dot"),
        ("mv", lambda c: _kernel(c) == "mv"),
        ("mm", lambda c: _kernel(c) == "mm"),
        ("1-d @ 2-d (unsqueeze, mm, squeeze_)", lambda c: _kernel(c) == "unsqueeze_mm"),
        ("a batch folded into mm", lambda c: _kernel(c) == "fold" and len(c.args[2]) == 2),
        ("a batch folded into mv", lambda c: _kernel(c) == "fold" and len(c.args[2]) == 1),
        ("a batch on the right folded as its mT (mv)",
         lambda c: _kernel(c) == "fold_mT" and len(c.args[0]) == 1),
        ("a batch on the right folded as its mT, a matrix on the left (mm, by grad)",
         lambda c: _kernel(c) == "fold_mT" and len(c.args[0]) == 2),
        ("a fold by the layout alone (nothing requires grad)",
         lambda c: _kernel(c).startswith("fold") and c.args[4] == (False, False)),
        ("a fold only because the smaller operand requires grad", _folds_by_grad_only),
        ("the smaller operand requires grad, but out= (no fold by grad)",
         lambda c: c.args[5] and _kernel(c) == "bmm"
         and c.args[4][0 if len(c.args[0]) < len(c.args[2]) else 1]),
        ("a batch beside a vector or matrix through bmm (its layout does not fold)",
         lambda c: _kernel(c) == "bmm" and min(len(c.args[0]), len(c.args[2])) <= 2),
        ("a matrix on the left of a batch, no fold",
         lambda c: len(c.args[0]) == 2 and len(c.args[2]) >= 3 and _kernel(c) == "bmm"),
        ("two batches through bmm", lambda c: _kernel(c) == "bmm"
         and min(len(c.args[0]), len(c.args[2])) >= 3),
        ("a 1-d operand through bmm", lambda c: _kernel(c) == "bmm"
         and 1 in (len(c.args[0]), len(c.args[2]))),
        ("A's batch of 1 squeezed", lambda c: _squeezed(c) == 0),
        ("B's batch of 1 squeezed", lambda c: _squeezed(c) == 1),
        ("two 3-d batches of 1 (none squeezed)",
         on(lambda a, sa, b, sb, grad, out: len(a) == len(b) == 3 and a[0] == b[0] == 1)),
        ("an empty larger operand (it folds)", lambda c: _kernel(c).startswith("fold") and 0 in (
            c.args[0] if len(c.args[0]) >= len(c.args[2]) else c.args[2])),
        ("a transposed (mT) batch", on(lambda a, sa, b, sb, grad, out: any(
            len(s) >= 3 and s[-1] > 1 and st[-1] > st[-2] for s, st in ((a, sa), (b, sb))))),
        ("an expanded batch (stride 0)", on(lambda a, sa, b, sb, grad, out: any(
            len(s) >= 3 and stride0(s[:-2], st[:-2]) for s, st in ((a, sa), (b, sb))))),
        ("a size-1 dim of odd stride in a batch", on(lambda a, sa, b, sb, grad, out: any(
            len(s) >= 3 and odd_size1_stride(s, st) for s, st in ((a, sa), (b, sb))))),
        ("an operand of 4 dims", on(lambda a, sa, b, sb, grad, out: max(len(a), len(b)) >= 4)),
        ("out=", on(lambda a, sa, b, sb, grad, out: out)),
        ("batch dims that clash (RuntimeError)", lambda c: _kernel(c) == "raises"),
    ],
    "arg_reduce_loop": [
        ("ties (the first of equal elements wins)",
         on(lambda op, v, i, x, dim, keep: _arg_tie(x, dim))),
        ("a NaN along the dim (it wins)",
         on(lambda op, v, i, x, dim, keep: any(isinstance(e, float) and e != e for e in x[0]))),
        ("keepdim", on(lambda op, v, i, x, dim, keep: keep)),
        ("an empty output (nothing written)", on(lambda op, v, i, x, dim, keep: 0 in i[1])),
        ("a dim of size 1 (index 0)", on(lambda op, v, i, x, dim, keep: x[1][dim] == 1)),
        ("a reduced dim that is not the last", on(lambda op, v, i, x, dim, keep:
                                                  dim < len(x[1]) - 1)),
        ("a permuted input", on(lambda op, v, i, x, dim, keep: increasing(
            [s for n, s in zip(x[1], x[2], strict=True) if n > 1]))),
        ("stride 0 on a dim of size > 1 (an expanded input)",
         on(lambda op, v, i, x, dim, keep: stride0(x[1], x[2]))),
        ("the input's storage offset", on(lambda op, v, i, x, dim, keep: x[3] > 0)),
        ("the outputs' storage offsets", on(lambda op, v, i, x, dim, keep: i[3] > 0
                                            and (v is None or v[3] > 0))),
        ("outputs with their own dim order (permuted)",
         on(lambda op, v, i, x, dim, keep: increasing(
             [s for n, s in zip(i[1], i[2], strict=True) if n > 1]))),
        ("output storage its layout does not reach (left as it is)",
         on(lambda op, v, i, x, dim, keep: 0 not in i[1] and len(i[0]) > math.prod(i[1]))),
        ("values and indices (max, min)", on(lambda op, v, i, x, dim, keep: v is not None)),
        ("indices only (argmax, argmin)", on(lambda op, v, i, x, dim, keep: v is None)),
        ("float values", on(lambda op, v, i, x, dim, keep: any(isinstance(e, float)
                                                               for e in x[0]))),
    ],
    "matmul_shape": [
        ("a 0-d operand (RuntimeError)", on(lambda a, b: () in (a, b))),
        ("1-d @ 1-d (a dot product: ())", on(lambda a, b: len(a) == len(b) == 1)),
        ("1-d @ 2-d", on(lambda a, b: len(a) == 1 and len(b) == 2)),
        ("2-d @ 1-d", on(lambda a, b: len(a) == 2 and len(b) == 1)),
        ("1-d @ batched", on(lambda a, b: len(a) == 1 and len(b) >= 3)),
        ("batched @ 1-d", on(lambda a, b: len(a) >= 3 and len(b) == 1)),
        ("batched @ 2-d or 2-d @ batched", on(lambda a, b: {len(a), len(b)} & {2}
                                              and max(len(a), len(b)) >= 3)),
        ("inner sizes that differ (RuntimeError)",
         on(lambda a, b: a and b and _inner(a, b)[0] != _inner(a, b)[1])),
        ("an inner size 0", on(lambda a, b: a and b and _inner(a, b) == (0, 0))),
        ("batch dims: 1 against a size > 1",
         on(lambda a, b: any(set(c) == {1, max(c)} and max(c) > 1
                             for c in columns(*_matmul_batches(a, b))))),
        ("batch dims of different lengths",
         on(lambda a, b: len(a) > 2 and len(b) > 2 and len(a) != len(b))),
        ("batch dims that clash (RuntimeError)",
         on(lambda a, b: clashes(*_matmul_batches(a, b)))),
        ("a batch size 0 against 1",
         on(lambda a, b: any(set(c) == {0, 1} for c in columns(*_matmul_batches(a, b))))),
        ("a batch size 0 against a size > 1 (RuntimeError)",
         on(lambda a, b: any(0 in c and max(c) > 1 for c in columns(*_matmul_batches(a, b))))),
        ("an operand of 4 dims", on(lambda a, b: max(len(a), len(b)) >= 4)),
    ],
    # ------------------------------------------------------------ chapter 5
    "backward_pass": [
        ("two leaves one step makes ready together, run against their names' order",
         _ties_out_of_name_order),
        ("four leaves one step makes ready together",
         on(lambda program, roots, hooks, keep, twice: any(len(t) >= 4
                                                            for t in _tied_leaves(program)))),
        ("a step two steps use (a diamond)",
         on(lambda program, roots, hooks, keep, twice: any(
             len(users) > 1 and name not in LEAVES
             for name, users in _users_of(program).items()))),
        ("a leaf two steps use",
         on(lambda program, roots, hooks, keep, twice: any(
             len(users) > 1 and name in LEAVES for name, users in _users_of(program).items()))),
        ("two edges from a step to one node",
         on(lambda program, roots, hooks, keep, twice: any(
             len({_node_of(r) for r in inputs}) < len(inputs)
             for _, _, inputs, _, _ in program))),
        ("a step with two outputs",
         on(lambda program, roots, hooks, keep, twice: any(s[1] == 2 for s in program))),
        ("an edge whose gradient is None",
         on(lambda program, roots, hooks, keep, twice: any(
             w is None and r != "k" for _, _, inputs, weights, _ in program
             for r, w in zip(inputs, weights, strict=True)))),
        ("a constant input: a (None, 0) edge",
         on(lambda program, roots, hooks, keep, twice: "k" in _refs(program))),
        ("a step only None reaches, which runs", _only_none_reaches),
        ("several roots (a GraphRoot)",
         on(lambda program, roots, hooks, keep, twice: len(roots) > 1)),
        ("a pre-hook", on(lambda program, roots, hooks, keep, twice: any(
            h[0] == "pre" for h in hooks))),
        ("a post-hook", on(lambda program, roots, hooks, keep, twice: any(
            h[0] == "post" for h in hooks))),
        ("retain_graph, then a second backward",
         on(lambda program, roots, hooks, keep, twice: keep and twice)),
        ("a second backward that raises (freed saved tensors)",
         lambda c: any(p[3] == "RuntimeError" for p in _pass_trace(c))),
        ("a second backward without retain_graph that runs (no saved tensors on its way)",
         lambda c: c.args[4] and not c.args[3] and _pass_trace(c)[1][3] is None),
        ("six steps or more",
         on(lambda program, roots, hooks, keep, twice: len(program) >= 6)),
    ],
    "binary_backward": [
        ("division", on(lambda op, x, y, grad: op == "/")),
        ("multiplication", on(lambda op, x, y, grad: op == "*")),
        ("everything 0-d", on(lambda op, x, y, grad: _nested_shape(grad) == ())),
        ("a 0-d x with a y of dims", on(lambda op, x, y, grad: _nested_shape(x) == ()
                                        and _nested_shape(y))),
        ("a 0-d y with an x of dims", on(lambda op, x, y, grad: _nested_shape(y) == ()
                                         and _nested_shape(x))),
        ("x with fewer dims than the result, not 0-d",
         on(lambda op, x, y, grad: 0 < len(_nested_shape(x)) < len(_nested_shape(grad)))),
        ("y with fewer dims than the result, not 0-d",
         on(lambda op, x, y, grad: 0 < len(_nested_shape(y)) < len(_nested_shape(grad)))),
        ("a size-1 dim of x that broadcasts",
         on(lambda op, x, y, grad: any(set(c) == {1, max(c)} and max(c) > 1 and c[0] == 1
                                       for c in columns(_nested_shape(x), _nested_shape(grad))
                                       if len(c) == 2))),
        ("a size-1 dim of y that broadcasts",
         on(lambda op, x, y, grad: any(set(c) == {1, max(c)} and max(c) > 1 and c[0] == 1
                                       for c in columns(_nested_shape(y), _nested_shape(grad))
                                       if len(c) == 2))),
        ("a 3-d result", on(lambda op, x, y, grad: len(_nested_shape(grad)) == 3)),
    ],
    "collect_next_edges": [
        ("grad mode off: no_grad (None)", lambda c: c.ctx("mode") == "no_grad"),
        ("inference mode (None)", lambda c: c.ctx("mode") == "inference"),
        ("grad mode on, no input requires grad (None)",
         lambda c: c.args[0] and not any(x is not None and x[0] for x in c.args[1])),
        ("a leaf without requires_grad among inputs that record",
         lambda c: c.args[0] and any(x is not None and x[0] for x in c.args[1])
         and any(r in ("c", "d", "n") for r in _edge_refs(c))),
        ("an integer tensor among inputs that record",
         lambda c: c.args[0] and "i" in _edge_refs(c)
         and any(x is not None and x[0] for x in c.args[1])),
        ("an inference tensor among inputs that record",
         lambda c: c.args[0] and "f" in _edge_refs(c)
         and any(x is not None and x[0] for x in c.args[1])),
        ("a Python number (None input)", lambda c: NUMBER in _edge_refs(c)),
        ("the same tensor twice", lambda c: len(set(r for r in _edge_refs(c) if r != NUMBER))
         < len([r for r in _edge_refs(c) if r != NUMBER])),
        ("the second output of a multi-output op (output_nr 1)",
         lambda c: "u1" in _edge_refs(c) and c.args[0]),
        ("a view (ViewBackward0, unbind's outputs)",
         lambda c: c.args[0] and any(r in ("v", "u0", "u1") for r in _edge_refs(c))),
        ("a no_grad view of a leaf: requires grad, no accumulator ((None, 0))",
         lambda c: c.args[0] and "w" in _edge_refs(c)),
        ("in place on a leaf-derived tensor (e.exp_())",
         lambda c: c.args[0] and "e" in _edge_refs(c)),
        ("four inputs", lambda c: len(_edge_refs(c)) == 4),
    ],
    "accumulate_grad": [
        ("first gradient, a dense leaf in a permuted order (its strides)",
         on(lambda shape, stride, grad, new: grad is None and 0 not in shape
            and dense(shape, stride) and increasing([s for n, s in zip(shape, stride, strict=True)
                                                     if n > 1]))),
        ("first gradient, a stepped leaf (contiguous)",
         on(lambda shape, stride, grad, new: grad is None and not dense(shape, stride)
            and 0 not in stride and not overlapping(shape, stride))),
        ("first gradient, stride 0 (contiguous)",
         on(lambda shape, stride, grad, new: grad is None
            and stride0(shape, stride))),
        ("first gradient, overlapping without stride 0 (contiguous)",
         on(lambda shape, stride, grad, new: grad is None and 0 not in stride
            and overlapping(shape, stride))),
        ("first gradient, a size-1 dim with an odd stride",
         on(lambda shape, stride, grad, new: grad is None and 0 not in shape
            and odd_size1_stride(shape, stride))),
        ("first gradient, an empty leaf", on(lambda shape, stride, grad, new:
                                            grad is None and 0 in shape)),
        ("0-d", on(lambda shape, stride, grad, new: shape == ())),
        ("a later gradient (in place)", on(lambda shape, stride, grad, new: grad is not None)),
        ("a later gradient, .grad laid out unlike the leaf",
         on(lambda shape, stride, grad, new: grad is not None and grad[1] != stride
            and 0 not in shape and set(shape) != {1})),
    ],
    "set_history": [
        ("an integer output of a multi-output op (max's indices)",
         lambda c: c.ctx("op") == "max"),
        ("an integer or bool result (long, bool, a Function's second output)",
         lambda c: c.ctx("op") in ("long", "bool", "function")),
        ("a complex output", lambda c: "complex64" in c.args[0]),
        ("bfloat16", lambda c: "bfloat16" in c.args[0]),
        ("several floating outputs (unbind: output_nr 0 and 1)",
         lambda c: c.ctx("op") == "unbind"),
        ("a view", lambda c: c.ctx("op") in ("slice", "unbind")),
        ("x * y with only x needing a gradient (saves y only)",
         lambda c: c.ctx("op") in ("mul", "mul_") and c.args[1] == (True, False)),
        ("x * y with only y needing a gradient (saves x only)",
         lambda c: c.ctx("op") == "mul" and c.args[1] == (False, True)),
        ("a Python number for y (its wrapped tensor)", lambda c: c.ctx("y") == NUMBER),
        ("the same tensor twice (x * x)", lambda c: c.ctx("y") == "x"),
        ("a saved tensor changed in place before the op (version > 0)",
         lambda c: any(version > 0 for _, version, _ in c.args[3])),
        ("a saved result (the node's own output)", lambda c: c.ctx("op") == "exp"),
        ("in place on a leaf-derived tensor (exp_: saved after the write)",
         lambda c: c.ctx("op") == "exp_"),
        ("in place with a copy of self saved (mul_)",
         lambda c: c.ctx("op") == "mul_" and c.args[1][1]),
        ("a custom Function (no formula: reads None)", lambda c: c.ctx("op") == "function"),
        ("an op that saves no tensor (add)", lambda c: c.ctx("op") == "add"),
        ("x requiring no grad", lambda c: c.ctx("x")[0] == "plain"),
    ],
    "clamp_backward": [
        ("lo absent", on(lambda x, lo, hi, grad: lo is None)),
        ("hi absent", on(lambda x, lo, hi, grad: hi is None)),
        ("lo == hi", on(lambda x, lo, hi, grad: any(
            v is not None and p == q for v, p, q in _clamp_elements(x, lo, hi)))),
        ("lo > hi", on(lambda x, lo, hi, grad: any(
            p is not None and q is not None and p > q for _, p, q in _clamp_elements(x, lo,
                                                                                   hi)))),
        ("nan in x", on(lambda x, lo, hi, grad: any(math.isnan(v) for v in x))),
        ("x on lo", on(lambda x, lo, hi, grad: lo is not None and any(
            v == p for v, p, _ in _clamp_elements(x, lo, hi)))),
        ("x on hi", on(lambda x, lo, hi, grad: hi is not None and any(
            v == q for v, _, q in _clamp_elements(x, lo, hi)))),
        ("x below lo < hi", on(lambda x, lo, hi, grad: lo is not None and any(
            v < p and (q is None or p < q) for v, p, q in _clamp_elements(x, lo, hi)))),
        ("x above hi", on(lambda x, lo, hi, grad: hi is not None and any(
            v > q for v, _, q in _clamp_elements(x, lo, hi)))),
        ("a 0-d bound: one value everywhere", on(lambda x, lo, hi, grad: len(x) > 1 and any(
            b is not None and len(set(b)) == 1 for b in (lo, hi)))),
    ],
    "call_hooks": [
        ("a tensor hook on an output no gradient reaches (None)", on(
            lambda outputs, weights, grads, hooks: any(
                grads[i] is None for i in _slot_hooks(hooks)))),
        ("a leaf's hook, no gradient reaching it", on(
            lambda outputs, weights, grads, hooks: weights[0] is None and any(
                w == "a" for w, _, _ in hooks))),
        ("two hooks on one tensor", on(lambda outputs, weights, grads, hooks: any(
            _slot_hooks(hooks).count(i) >= 2 for i in range(outputs)))),
        ("hooks on two outputs, a later slot's first", on(
            lambda outputs, weights, grads, hooks: any(
                a > b for a, b in itertools.pairwise(dict.fromkeys(_slot_hooks(hooks)))))),
        ("retain_grad() before a hook of its tensor", on(
            lambda outputs, weights, grads, hooks: any(
                w == f"t{r[1:]}" for k, (r, _, _) in enumerate(hooks) if r.startswith("r")
                for w, _, _ in hooks[k + 1:]))),
        ("two pre-hooks", on(lambda outputs, weights, grads, hooks: sum(
            w == "pre" for w, _, _ in hooks) >= 2)),
        ("two post-hooks", on(lambda outputs, weights, grads, hooks: sum(
            w == "post" for w, _, _ in hooks) >= 2)),
        ("a post-hook of the leaf's node (no grad_inputs)", on(
            lambda outputs, weights, grads, hooks: any(w == "a.post" for w, _, _ in hooks))),
        ("a pre-hook of the leaf's node", on(
            lambda outputs, weights, grads, hooks: any(w == "a.pre" for w, _, _ in hooks))),
        ("a node hook returning a None for a gradient", on(
            lambda outputs, weights, grads, hooks: any(
                w in ("pre", "post", "a.pre", "a.post") and a[0] == "drop"
                for w, a, _ in hooks))),
        ("a hook that ran removed a later hook of its own turn (which still runs)",
         _removed_while_running(later_turn=False)),
        ("a hook that ran removed a hook of a later turn (which does not)",
         _removed_while_running(later_turn=True)),
        ("a constant input: grad_inputs holds its gradient", on(
            lambda outputs, weights, grads, hooks: len(weights) == 2)),
        ("a tuple of the wrong length", _hooks_error("incorrect number of values")),
        ("... from a lambda", _hooks_error("hook '<lambda>' has returned")),
        ("... from a hook without a name", _hooks_error("hook '<unknown>' has returned")),
        ("a node hook returning a list", _hooks_error("hook returned 'list'")),
        ("a node hook returning a tensor", _hooks_error("hook returned 'Tensor'")),
        ("a value in place of a None", _hooks_error("can't replace a None gradient")),
        ("a float in place of a gradient", _hooks_error("hook returned 'float'")),
        ("a tensor hook returning a tuple", _hooks_error("hook returned 'tuple'")),
        ("another size", _hooks_error("changed the size")),
        ("another dtype", _hooks_error("changed the type")),
        ("a pass that raises nothing", lambda case: _hooks_truth(case)[4] is None),
    ],
    "unary_backward": [
        ("a 0-d tensor", on(lambda op, grad, saved, e: not isinstance(grad, tuple))),
        ("a size-1 dim", on(lambda op, grad, saved, e: 1 in _nested_shape(grad))),
        ("a nonzero gradient over x = 0 (log: inf)", on(lambda op, grad, saved, e: any(
            g != 0 and s == (-1 if op == "log1p" else 0) for g, s in _unary_pairs(grad, saved))
            and op in ("log", "log1p", "log2", "log10"))),
        ("a 0 gradient over 0 (nan)", on(lambda op, grad, saved, e: op in _DIVIDES and any(
            g == 0 and s == (-1 if op == "log1p" else 0) for g, s in _unary_pairs(grad, saved)))),
        ("x = -0.0 where the formula divides (-inf)", on(lambda op, grad, saved, e: any(
            s == 0 and math.copysign(1, s) < 0 for _, s in _unary_pairs(grad, saved))
            and op in _DIVIDES)),
        ("a negative x where log divides (finite)", on(lambda op, grad, saved, e: op in (
            "log", "log2", "log10") and any(s < 0 for _, s in _unary_pairs(grad, saved)))),
        ("the square root of a negative number (nan)", on(lambda op, grad, saved, e: (
            op in ("asin", "acos") and any(abs(s) > 1 for _, s in _unary_pairs(grad, saved)))
            or (op in ("sqrt", "rsqrt") and any(s != s for _, s in _unary_pairs(grad, saved))))),
        ("relu at exactly 0", on(lambda op, grad, saved, e: op == "relu" and any(
            s == 0 for _, s in _unary_pairs(grad, saved)))),
        ("abs at 0", on(lambda op, grad, saved, e: op == "abs" and any(
            s == 0 and math.copysign(1, s) > 0 for _, s in _unary_pairs(grad, saved)))),
        ("abs at -0.0", on(lambda op, grad, saved, e: op == "abs" and any(
            s == 0 and math.copysign(1, s) < 0 for _, s in _unary_pairs(grad, saved)))),
        ("tanh where 1 - y * y rounded once is another float than rounded twice", on(
            lambda op, grad, saved, e: op == "tanh" and any(
                float(1 - Fraction(s) ** 2) != 1 - s * s for _, s in _unary_pairs(grad, saved)
                if math.isfinite(s)))),
        ("neg: nothing saved", on(lambda op, grad, saved, e: op == "neg")),
        ("square: PowBackward0", on(lambda op, grad, saved, e: op == "square")),
        ("a node that saves its result", on(lambda op, grad, saved, e: op in (
            "exp", "exp2", "expm1", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tan"))),
        ("x ** 0: zeros, at x = 0 too", on(lambda op, grad, saved, e: op == "pow" and e == 0
                                          and 0 in _flat(saved))),
        ("x ** 1 at nan or inf: the gradient (x.pow(0) is 1)", on(
            lambda op, grad, saved, e: op == "pow" and e == 1 and any(
                not math.isfinite(s) for s in _flat(saved)))),
        ("x ** 0.5 at -0.0: rsqrt(-0.0) is -inf", on(lambda op, grad, saved, e: op == "pow"
                                                     and e == 0.5 and any(
            s == 0 and math.copysign(1, s) < 0 for s in _flat(saved)))),
        ("x ** 0.5 below 0: nan", on(lambda op, grad, saved, e: op == "pow" and e == 0.5
                                     and any(s < 0 for s in _flat(saved)))),
        ("x ** -1 at 0: 1 / (x * x) is inf", on(lambda op, grad, saved, e: op == "pow"
                                                and e == -1 and 0 in _flat(saved))),
        ("x ** 3 or x ** 4 where x.pow(e - 1) rounded once is another float", on(
            lambda op, grad, saved, e: op == "pow" and e in (3, 4) and any(
                float(Fraction(s) ** int(e - 1)) != (s * s if e == 3 else s * s * s)
                for s in _flat(saved) if math.isfinite(s)))),
        ("x ** 3 where g * 3 * (x * x) rounds otherwise than g * (3 * (x * x))", on(
            lambda op, grad, saved, e: op == "pow" and e == 3 and any(
                g * 3 * (s * s) != g * (3 * (s * s)) for g, s in _unary_pairs(grad, saved)
                if math.isfinite(s)))),
        ("x ** e overflowing (inf)", on(lambda op, grad, saved, e: op == "pow" and e in (3, 4)
                                        and any(abs(s) == 1e160 for s in _flat(saved)))),
        ("an int exponent and a float one", on(lambda op, grad, saved, e: type(e) is float)),
        ("logit at 0 and 1: +-inf", on(lambda op, grad, saved, e: op == "logit" and any(
            s in (0, 1) for s in _flat(saved)))),
        ("logit outside [0, 1]: nan", on(lambda op, grad, saved, e: op == "logit" and any(
            s < 0 or s > 1 for s in _flat(saved)))),
        ("nan_to_num at inf or -inf (0)", on(lambda op, grad, saved, e: op == "nan_to_num"
                                             and any(abs(s) == math.inf for s in _flat(saved)))),
        ("nan_to_num at nan (0)", on(lambda op, grad, saved, e: op == "nan_to_num" and any(
            s != s for s in _flat(saved)))),
        ("acosh at 1 or -1: rsqrt(0) is inf", on(lambda op, grad, saved, e: op == "acosh"
                                                 and any(abs(s) == 1 for s in _flat(saved)))),
        ("acosh for |x| < 1: nan", on(lambda op, grad, saved, e: op == "acosh" and any(
            abs(s) < 1 for s in _flat(saved)))),
        ("acosh below -1: finite", on(lambda op, grad, saved, e: op == "acosh" and any(
            s < -1 for s in _flat(saved)))),
        ("atanh at 1 or -1: inf", on(lambda op, grad, saved, e: op == "atanh" and any(
            abs(s) == 1 for s in _flat(saved)))),
        ("atanh beyond 1: finite", on(lambda op, grad, saved, e: op == "atanh" and any(
            abs(s) > 1 for s in _flat(saved)))),
        ("asinh at inf (0)", on(lambda op, grad, saved, e: op == "asinh" and any(
            s == math.inf for s in _flat(saved)))),
    ],
    "reduction_backward": [
        ("x.sum() / x.mean(): dims None", on(lambda g, sizes, dims, keep, mean: dims is None)),
        ("an empty list of dims: every dim", on(lambda g, sizes, dims, keep, mean:
                                                dims == () and len(sizes) > 1)),
        ("a negative dim", on(lambda g, sizes, dims, keep, mean: bool(sizes) and dims
                              and any(d < 0 for d in dims))),
        ("dims out of order", on(lambda g, sizes, dims, keep, mean: dims and any(
            a % len(sizes) > b % len(sizes) for a, b in itertools.pairwise(dims)))),
        ("some dims reduced, not all", on(lambda g, sizes, dims, keep, mean: dims and len(
            {d % len(sizes) for d in dims}) < len(sizes) if sizes else False)),
        ("keepdim with some dims reduced", on(lambda g, sizes, dims, keep, mean: keep and dims
                                              and len(sizes) > len(dims))),
        ("a mean over some dims (count is not numel)", on(
            lambda g, sizes, dims, keep, mean: mean and dims and math.prod(
                sizes[d] for d in {d % len(sizes) for d in dims}) < math.prod(sizes)
            if sizes else False)),
        ("a mean", on(lambda g, sizes, dims, keep, mean: mean)),
        ("a sum", on(lambda g, sizes, dims, keep, mean: not mean)),
        ("a 0-d x with a dim", on(lambda g, sizes, dims, keep, mean: not sizes and dims)),
        ("a size-1 dim reduced", on(lambda g, sizes, dims, keep, mean: dims and any(
            sizes[d % len(sizes)] == 1 for d in dims) if sizes else False)),
    ],
    "saved_tensor_error": [
        ("unchanged (None)", on(lambda saved, version, *_: version == saved)),
        ("a tensor without history (no 'which is output 0 of')",
         on(lambda saved, version, type_name, shape, saved_by, grad_fn:
            version != saved and grad_fn is None)),
        ("a saved result", on(lambda saved, version, type_name, shape, saved_by, grad_fn:
                              version != saved and saved_by is not None)),
        ("a saved input changed through a view (CopySlices)",
         on(lambda saved, version, type_name, shape, saved_by, grad_fn:
            version != saved and grad_fn == COPY_SLICES and saved_by is None)),
        ("0-d ([])", on(lambda saved, version, type_name, shape, saved_by, grad_fn:
                        version != saved and shape == ())),
        ("float16", on(lambda saved, version, type_name, shape, saved_by, grad_fn:
                       version != saved and type_name == "torch.HalfTensor")),
        ("changed before it was saved (saved_version > 0)",
         on(lambda saved, version, *_: version != saved and saved > 0)),
        ("changed several times", on(lambda saved, version, *_: version - saved >= 2)),
    ],
    # ------------------------------------------------------------ chapter 8
    "route_assignment": [
        ("a plain tensor on a new name (a plain attribute)",
         on(lambda name, kind, type_name, holders, init: kind == "tensor" and not holders
            and init)),
        ("None on a registered parameter",
         on(lambda name, kind, type_name, holders, init: kind == "none"
            and "_parameters" in holders)),
        ("another kind on a registered parameter (TypeError)",
         on(lambda name, kind, type_name, holders, init: "_parameters" in holders
            and kind not in ("parameter", "none"))),
        ("a non-module on a child (TypeError)",
         on(lambda name, kind, type_name, holders, init: "_modules" in holders
            and "_parameters" not in holders and kind in ("tensor", "other"))),
        ("None on a child",
         on(lambda name, kind, type_name, holders, init: "_modules" in holders
            and "_parameters" not in holders and kind == "none")),
        ("a non-tensor on a buffer (TypeError)",
         on(lambda name, kind, type_name, holders, init: holders == ("_buffers",)
            and kind == "other")),
        ("a tensor on a buffer", on(lambda name, kind, type_name, holders, init:
                                    holders == ("_buffers",) and kind == "tensor")),
        ("a Parameter taking the name from another table",
         on(lambda name, kind, type_name, holders, init: kind == "parameter"
            and set(holders) - {"_parameters"})),
        ("a Module taking the name from another table",
         on(lambda name, kind, type_name, holders, init: kind == "module"
            and set(holders) & {"__dict__", "_buffers"} and "_parameters" not in holders)),
        ("a Parameter or Module before Module.__init__ (AttributeError)",
         on(lambda name, kind, type_name, holders, init: not init
            and kind in ("parameter", "module"))),
        ("a plain value before Module.__init__",
         on(lambda name, kind, type_name, holders, init: not init
            and kind not in ("parameter", "module"))),
        ("a name in two tables", on(lambda name, kind, type_name, holders, init:
                                    len(holders) >= 2)),
    ],
    "walk_modules": [
        ("a shared child (two paths to one module)", lambda c: _shared_child(c.args[0])),
        ("a None child", lambda c: any(j is None for kids, _ in c.args[0] for _, j in kids)),
        ("a None parameter",
         lambda c: c.args[1] == "parameters"
         and any(lab is None for _, own in c.args[0] for _, lab in own)),
        ("a tied parameter (one value in two places)",
         lambda c: c.args[1] == "parameters" and _tied(c.args[0])),
        ("remove_duplicate=False over a shared child",
         lambda c: not c.args[3] and _shared_child(c.args[0])),
        ("remove_duplicate=False over a tied parameter",
         lambda c: not c.args[3] and c.args[1] == "parameters" and _tied(c.args[0])),
        ("a prefix", lambda c: c.args[2] != ""),
        ("a nested (dotted) prefix", lambda c: "." in c.args[2]),
        ("recurse=False", lambda c: c.args[1] == "parameters" and not c.args[4]),
        ("a memo given", lambda c: c.args[5] is not None),
        ("a module with no child and no parameter (alone)", lambda c: len(c.args[0]) == 1),
        ("three levels or more", lambda c: _depth(c.args[0]) >= 2),
    ],
    "incompatible_keys": [
        ("a missing key",
         on(lambda prefix, own, children, keys: any(prefix + n not in keys for n in own))),
        ("a key naming a None parameter (unexpected)",
         lambda c: any(none and c.args[0] + n in c.args[3]
                       for n, none in c.ctx("module")[0])),
        ("a key naming a non-persistent buffer (unexpected)",
         lambda c: any(not persistent and not none and c.args[0] + n in c.args[3]
                       for n, persistent, none in c.ctx("module")[1])),
        ("a key under a None child (not unexpected)",
         lambda c: any(none and any(k.startswith(f"{c.args[0]}{n}.") for k in c.args[3])
                       for n, none in c.ctx("module")[2])),
        ("the _extra_state key (unexpected, listed first)",
         on(lambda prefix, own, children, keys: prefix + "_extra_state" in keys)),
        ("a child's _extra_state key (the child's business)",
         on(lambda prefix, own, children, keys: any(
             k == f"{prefix}{n}._extra_state" for n in children for k in keys))),
        ("a key outside the prefix",
         on(lambda prefix, own, children, keys: any(not k.startswith(prefix) for k in keys))),
        ("a child's name without a dot (unexpected)",
         on(lambda prefix, own, children, keys: any(prefix + n in keys for n in children))),
        ("an entry's name with a dot after it (unexpected)",
         on(lambda prefix, own, children, keys: prefix + "weight.data" in keys)),
        ("the prefix itself as a key",
         on(lambda prefix, own, children, keys: prefix != "" and prefix in keys)),
        ("the root (prefix '')", on(lambda prefix, own, children, keys: prefix == "")),
        ("a nested prefix", on(lambda prefix, own, children, keys: prefix.count(".") >= 2)),
        ("no keys", on(lambda prefix, own, children, keys: not keys)),
    ],
    "kaiming_bound": [
        ("a shape with a size 0 (None, no check)", on(lambda shape, a, mode, nl: 0 in shape)),
        ("1-d (ValueError)", on(lambda shape, a, mode, nl: len(shape) == 1 and 0 not in shape)),
        ("a 4-d convolution weight (the kernel's size in the fan)",
         on(lambda shape, a, mode, nl: len(shape) == 4 and 0 not in shape
            and math.prod(shape[2:]) > 1)),
        ("fan_out", on(lambda shape, a, mode, nl: mode.lower() == "fan_out")),
        ("a mode not in lower case", on(lambda shape, a, mode, nl: mode != mode.lower()
                                        and mode.lower() in ("fan_in", "fan_out"))),
        ("an unknown mode (ValueError)",
         on(lambda shape, a, mode, nl: mode.lower() not in ("fan_in", "fan_out"))),
        ("leaky_relu with a = sqrt(5) (Linear's)",
         on(lambda shape, a, mode, nl: nl == "leaky_relu" and a == math.sqrt(5))),
        ("leaky_relu with a = None (slope 0.01)",
         on(lambda shape, a, mode, nl: nl == "leaky_relu" and a is None)),
        ("leaky_relu with a bool slope (ValueError)",
         on(lambda shape, a, mode, nl: nl == "leaky_relu" and isinstance(a, bool))),
        ("a slope that another nonlinearity ignores",
         on(lambda shape, a, mode, nl: nl != "leaky_relu" and isinstance(a, bool))),
        ("an unknown nonlinearity (ValueError)", on(lambda shape, a, mode, nl: nl == "softmax")),
        ("tanh", on(lambda shape, a, mode, nl: nl == "tanh" and 0 not in shape)),
        ("selu", on(lambda shape, a, mode, nl: nl == "selu" and 0 not in shape)),
        ("a conv or linear gain of 1",
         on(lambda shape, a, mode, nl: nl in ("linear", "conv2d") and 0 not in shape)),
    ],
    "sgd_update": [
        ("zero momentum (no buffer)", on(lambda *args: args[4] == 0)),
        ("the first step with momentum (the buffer is a copy)",
         on(lambda *args: args[4] != 0 and len(args[2]) == 1)),
        ("later steps with momentum (the buffer updated in place)",
         on(lambda *args: args[4] != 0 and len(args[2]) >= 2)),
        ("dampening on later steps", on(lambda *args: args[4] != 0 and args[5] != 0
                                        and len(args[2]) >= 2)),
        ("nesterov", on(lambda *args: args[7])),
        ("weight decay", on(lambda *args: args[6] != 0)),
        ("maximize", on(lambda *args: args[8])),
        ("maximize with weight decay", on(lambda *args: args[8] and args[6] != 0)),
        ("float64", on(lambda *args: args[0] == "float64")),
        ("an empty parameter", on(lambda *args: len(args[1]) == 0)),
    ],
    "adam_update": [
        ("the first step alone", on(lambda *args: len(args[2]) == 1 and len(args[1]))),
        ("three steps or more", on(lambda *args: len(args[2]) >= 3 and len(args[1]))),
        ("Adam's L2 weight decay (into the gradient)",
         on(lambda *args: args[6] != 0 and not args[7])),
        ("AdamW's decoupled weight decay", on(lambda *args: args[6] != 0 and args[7])),
        ("amsgrad over several steps", on(lambda *args: args[8] and len(args[2]) >= 2)),
        ("maximize", on(lambda *args: args[9])),
        ("maximize with Adam's weight decay",
         on(lambda *args: args[9] and args[6] != 0 and not args[7])),
        ("lerp's other formula (1 - beta1 >= 0.5)", on(lambda *args: 1 - args[4][0] >= 0.5)),
        ("beta1 = beta2 = 0", on(lambda *args: args[4] == (0.0, 0.0))),
        ("eps = 0", on(lambda *args: args[5] == 0.0 and len(args[1]))),
        ("float64", on(lambda *args: args[0] == "float64")),
        ("an empty parameter", on(lambda *args: len(args[1]) == 0)),
    ],
    "call_impl": [
        ("no hooks", on(lambda regs, fw, args, kwargs: not regs)),
        ("a global pre-hook and a module one",
         on(lambda regs, fw, args, kwargs: {("pre", "global"), ("pre", "module")}
            <= {(r[0], r[2]) for r in regs})),
        ("a global forward hook and a module one",
         on(lambda regs, fw, args, kwargs: {("hook", "global"), ("hook", "module")}
            <= {(r[0], r[2]) for r in regs})),
        ("a prepended hook", on(lambda regs, fw, args, kwargs: any(r[4] for r in regs))),
        ("a pre-hook returning one value (made a 1-tuple)",
         on(lambda regs, fw, args, kwargs: any(r[0] == "pre" and r[-1] == "value"
                                               for r in regs))),
        ("a with_kwargs pre-hook returning (args, kwargs)",
         on(lambda regs, fw, args, kwargs: any(r[-1] == "pair" for r in regs))),
        ("a with_kwargs pre-hook returning a 1-tuple (RuntimeError)",
         on(lambda regs, fw, args, kwargs: any(r[-1] == "bad" for r in regs))),
        ("a forward hook replacing the output",
         on(lambda regs, fw, args, kwargs: any(r[-1] == "output" for r in regs))),
        ("forward raises with an always_call hook",
         on(lambda regs, fw, args, kwargs: fw == "raise"
            and any(r[0] == "hook" and r[5] for r in regs))),
        ("a global with_kwargs always_call hook after forward raised",
         on(lambda regs, fw, args, kwargs: fw == "raise" and any(
             r[0] == "hook" and r[2] == "global" and r[3] and r[5] for r in regs))),
        ("an always_call hook that raises",
         on(lambda regs, fw, args, kwargs: any(r[0] == "hook" and r[5] and r[-1] == "raise"
                                               for r in regs))),
        ("kwargs in the call", on(lambda regs, fw, args, kwargs: bool(kwargs))),
    ],
    "random_indices": [
        ("without replacement, a multiple of n (an unused permutation), then another epoch",
         on(lambda n, k, r, seed, takes: not r and n and k % n == 0 and len(takes) >= 2
            and takes[0] is None)),
        ("without replacement, more than n keys, not a multiple",
         on(lambda n, k, r, seed, takes: not r and n and k > n and k % n)),
        ("without replacement, fewer keys than n", on(lambda n, k, r, seed, takes: not r
                                                      and 0 < k < n)),
        ("with replacement, a multiple of 32 (an empty last draw)",
         on(lambda n, k, r, seed, takes: r and n and k % 32 == 0)),
        ("with replacement, more than 32 keys, not a multiple",
         on(lambda n, k, r, seed, takes: r and n and k > 32 and k % 32)),
        ("with replacement, fewer than 32 keys", on(lambda n, k, r, seed, takes: r and n
                                                    and k < 32)),
        ("an epoch left early, then another",
         on(lambda n, k, r, seed, takes: n and any(t is not None and t < k
                                                   for t in takes[:-1]))),
        ("n = 0 without replacement (ZeroDivisionError)",
         on(lambda n, k, r, seed, takes: n == 0 and not r)),
        ("n = 0 with replacement (randint's RuntimeError)",
         on(lambda n, k, r, seed, takes: n == 0 and r)),
        ("n = 1", on(lambda n, k, r, seed, takes: n == 1)),
    ],
    "batch_indices": [
        ("a short last batch kept", on(lambda keys, endless, size, drop, take: not endless
                                       and len(keys) % size and not drop and take is None)),
        ("a short last batch dropped", on(lambda keys, endless, size, drop, take: not endless
                                          and len(keys) % size and drop and take is None)),
        ("batch_size divides the keys (no empty batch)",
         on(lambda keys, endless, size, drop, take: not endless and keys
            and len(keys) % size == 0 and take is None)),
        ("fewer keys than batch_size, with drop_last (no batch)",
         on(lambda keys, endless, size, drop, take: not endless and 0 < len(keys) < size
            and drop)),
        ("no keys", on(lambda keys, endless, size, drop, take: not keys)),
        ("endless keys (an iterable dataset's)",
         on(lambda keys, endless, size, drop, take: endless)),
        ("only the first batches taken",
         on(lambda keys, endless, size, drop, take: not endless and take is not None
            and len(keys) >= size)),
        ("batch_size 1", on(lambda keys, endless, size, drop, take: size == 1 and keys)),
        ("keys that are not ints", on(lambda keys, endless, size, drop, take: any(
            not isinstance(k, int) for k in keys))),
    ],
    "collate": [
        ("an empty batch (IndexError)", on(lambda specs, table: not specs)),
        ("a tuple (a list comes back)", on(lambda specs, table: "tuple" in
                                           _collate_kinds(specs) and table != "tuples")),
        ("a named tuple", on(lambda specs, table: "point" in _collate_kinds(specs)
                             and table != "tuples")),
        ("a dict", on(lambda specs, table: "dict" in _collate_kinds(specs))),
        ("an OrderedDict", on(lambda specs, table: "odict" in _collate_kinds(specs))),
        ("a read-only mapping built from a dict (MappingProxyType)",
         on(lambda specs, table: "proxy" in _collate_kinds(specs))),
        ("a mapping that cannot be built from a dict (a plain dict comes back)",
         on(lambda specs, table: "record" in _collate_kinds(specs))),
        ("a range (a list comes back)", on(lambda specs, table: "range" in
                                           _collate_kinds(specs))),
        ("a list", on(lambda specs, table: "list" in _collate_kinds(specs))),
        ("bools (an int subclass, found by isinstance)",
         on(lambda specs, table: "bool" in _collate_kinds(specs) and table != "none")),
        ("ragged sequences (RuntimeError)", lambda c: _collate_raises(c, "RuntimeError")),
        ("a key missing from a later sample (KeyError)",
         lambda c: _collate_raises(c, "KeyError")),
        ("a type nothing collates (TypeError)", lambda c: _collate_raises(c, "TypeError")),
        ("the table takes a tuple before the structure",
         on(lambda specs, table: table == "tuples" and _collate_kinds(specs)
            & {"tuple", "point"})),
        ("a table key that is a tuple of types", on(lambda specs, table: table == "numbers"
                                                    and specs)),
        ("no table", on(lambda specs, table: table == "none")),
    ],
    "worker_seeds": [
        ("a base seed of 2**32 or more (its high half)", on(lambda base, w: base >= 2 ** 32)),
        ("a base seed below 2**32", on(lambda base, w: base < 2 ** 32)),
        ("the largest base seed, 2**63 - 1", on(lambda base, w: base == 2 ** 63 - 1)),
        ("worker 0", on(lambda base, w: w == 0)),
        ("a worker id above 1", on(lambda base, w: w >= 2)),
        ("base seed 0", on(lambda base, w: base == 0)),
    ],
    "next_in_order": [
        ("map-style, a later result first",
         on(lambda kind, n, pf, work, sched, in_order: kind == "map" and n > 1 and work >= 2
            and sched[0] != 0)),
        ("in_order=False handing results out of task order",
         lambda c: not c.args[5] and _handed_out_of_order(c)),
        ("in_order=True", on(lambda kind, n, pf, work, sched, in_order: in_order and n > 1)),
        ("an iterable dataset whose workers end at different times (tasks skipped)",
         on(lambda kind, n, pf, work, sched, in_order: kind == "iterable" and n > 1
            and min(work) < max(work))),
        ("a worker whose stream is empty",
         on(lambda kind, n, pf, work, sched, in_order: kind == "iterable" and 0 in work)),
        ("no task at all", on(lambda kind, n, pf, work, sched, in_order: kind == "map"
                              and work == 0)),
        ("one worker", on(lambda kind, n, pf, work, sched, in_order: n == 1)),
        ("three workers", on(lambda kind, n, pf, work, sched, in_order: n == 3)),
        ("prefetch_factor 1", on(lambda kind, n, pf, work, sched, in_order: pf == 1)),
    ],
    "seed_words": [
        ("a seed of 2**32 or more (its low 32 bits)", on(lambda s: 2 ** 32 <= s < 2 ** 64)),
        ("a seed of 2**63 or more (not an int64)", on(lambda s: 2 ** 63 <= s < 2 ** 64)),
        ("2**64 - 1", on(lambda s: s == 2 ** 64 - 1)),
        ("a negative seed", on(lambda s: -2 ** 63 <= s < 0)),
        ("-2**63", on(lambda s: s == -2 ** 63)),
        ("a seed above 2**64 - 1 (ValueError)", on(lambda s: s >= 2 ** 64)),
        ("a seed below -2**63 (ValueError)", on(lambda s: s < -2 ** 63)),
        ("a seed below 256", on(lambda s: 0 <= s < 256)),
    ],
    "temper": [
        ("0", on(lambda y: y == 0)),
        ("2**32 - 1", on(lambda y: y == 2 ** 32 - 1)),
        ("the top bit set", on(lambda y: y >= 2 ** 31)),
        ("a bit that y << 7 pushes past 32 bits", on(lambda y: y >= 2 ** 25)),
        ("below 2**16", on(lambda y: y < 2 ** 16)),
    ],
    "twist": [
        ("all words 0", on(lambda words: not any(words))),
        ("word 0 alone set (the last word reads the new word 0)",
         on(lambda words: words[0] and not any(words[1:]))),
        ("the top bit of every word", on(lambda words: all(w >= 2 ** 31 for w in words))),
        ("every word 2**32 - 1", on(lambda words: all(w == 2 ** 32 - 1 for w in words))),
        ("words of a seed: no two alike", on(lambda words: len(set(words)) == 624)),
    ],
    "next_draws": [
        ("n = 0", on(lambda words, left, nxt, n: n == 0)),
        ("right after manual_seed (left 1, next 0: the first draw twists)",
         on(lambda words, left, nxt, n: (left, nxt) == (1, 0) and n >= 1)),
        ("seed 0", lambda c: _made(c).startswith("seed_words(0)")),
        ("seed 2**64 - 1", lambda c: _made(c).startswith(f"seed_words({2 ** 64 - 1})")),
        ("a seed of 2**32 or more", lambda c: _seed_of(c) is not None and _seed_of(c) >= 2 ** 32),
        ("a negative seed", lambda c: _seed_of(c) is not None and _seed_of(c) < 0),
        ("draws that end exactly at a twist's last word (n = left - 1 + 624k)",
         on(lambda words, left, nxt, n: n >= left and (n - left + 1) % 624 == 0)),
        ("n = 624", on(lambda words, left, nxt, n: n == 624)),
        ("across several twists", on(lambda words, left, nxt, n: n >= left + 624)),
        ("a state just twisted (left 624)", on(lambda words, left, nxt, n: left == 624 and n)),
        ("left 1, next 624 (the next draw twists)",
         on(lambda words, left, nxt, n: (left, nxt) == (1, 624) and n)),
        ("set_state's counters: left + next is neither 625 nor 1 (draws from word next, "
         "then a twist)", on(lambda words, left, nxt, n: left + nxt not in (1, 625)
                             and left > 1 and n >= left)),
        ("random words (not a seed's)", lambda c: _made(c).startswith("random.Random(")),
    ],
    "uniform_floats": [
        ("float32", on(lambda draws, dtype: dtype == "float32")),
        ("float64 (two draws per element)", on(lambda draws, dtype: dtype == "float64")),
        ("float16", on(lambda draws, dtype: dtype == "float16")),
        ("float16 that rounds up to 1.0 (becomes 0.0)",
         on(lambda draws, dtype: dtype == "float16"
            and max(_low24(draws)) >= 2 ** 24 - 2 ** 12)),
        ("float32 with only the high 8 bits set (0.0)",
         on(lambda draws, dtype: dtype == "float32"
            and any(d and d % 2 ** 24 == 0 for d in draws))),
        ("float32 close to 1", on(lambda draws, dtype: dtype == "float32"
                                  and max(_low24(draws)) >= 2 ** 24 - 2 ** 8)),
        ("float64 with a first draw above 2**21 (bits past 53 dropped)",
         on(lambda draws, dtype: dtype == "float64" and max(draws[::2]) >= 2 ** 21)),
        ("a draw of 0", on(lambda draws, dtype: 0 in draws)),
    ],
    "randint_from_draws": [
        ("low >= high (RuntimeError)", on(lambda low, high, n, draws: low >= high)),
        ("low == high (RuntimeError)", on(lambda low, high, n, draws: low == high)),
        ("a range of 1", on(lambda low, high, n, draws: high - low == 1)),
        ("a range of 2**28 - 1 (the largest with one draw)",
         on(lambda low, high, n, draws: high - low == 2 ** 28 - 1)),
        ("a range of 2**28 (the smallest with two draws)",
         on(lambda low, high, n, draws: high - low == 2 ** 28)),
        ("a range between 2**28 and 2**32",
         on(lambda low, high, n, draws: 2 ** 28 < high - low < 2 ** 32)),
        ("a range of 2**32 or more", on(lambda low, high, n, draws: high - low >= 2 ** 32)),
        ("a range of 2**63 or more", on(lambda low, high, n, draws: high - low >= 2 ** 63)),
        ("a negative low", on(lambda low, high, n, draws: low < 0 < high - low)),
        ("several numbers, two draws each",
         on(lambda low, high, n, draws: n >= 2 and high - low >= 2 ** 28)),
    ],
    "randperm_from_draws": [
        ("n = 0", on(lambda n, draws: n == 0)),
        ("n = 1", on(lambda n, draws: n == 1)),
        ("n = 2", on(lambda n, draws: n == 2)),
        ("n >= 20", on(lambda n, draws: n >= 20)),
        ("a draw of 2**32 - 1", on(lambda n, draws: 2 ** 32 - 1 in draws[:-1])),
    ],
    "normal_from_draws": [
        ("the serial path, fewer than 16 elements",
         on(lambda n, contiguous, draws, cached: 0 < n < 16 and contiguous)),
        ("the serial path, 16 or more strided elements",
         on(lambda n, contiguous, draws, cached: n >= 16 and not contiguous)),
        ("the fill path, a multiple of 16",
         on(lambda n, contiguous, draws, cached: n >= 16 and n % 16 == 0 and contiguous)),
        ("the fill path with a tail block",
         on(lambda n, contiguous, draws, cached: n > 16 and n % 16 and contiguous)),
        ("exactly 16 elements", on(lambda n, contiguous, draws, cached: n == 16)),
        ("an odd count on the serial path (a normal left cached)",
         on(lambda n, contiguous, draws, cached: n % 2 and cached is None
            and (n < 16 or not contiguous))),
        ("a cached normal taken by the serial path",
         on(lambda n, contiguous, draws, cached: cached is not None and n > 0
            and (n < 16 or not contiguous))),
        ("a cached normal that the fill path leaves",
         on(lambda n, contiguous, draws, cached: cached is not None and n >= 16 and contiguous)),
        ("no elements", on(lambda n, contiguous, draws, cached: n == 0)),
        ("a draw of 0 or 2**32 - 1 among those used",
         on(lambda n, contiguous, draws, cached: n and any(
             d in (0, 0xFFFFFFFF) for d in draws[:2 * n + 2]))),
    ],
    "multinomial_from_draws": [
        ("float32 weights", on(lambda rows, dtype, k, rep, draws: dtype == "float32")),
        ("float64 weights", on(lambda rows, dtype, k, rep, draws: dtype == "float64")),
        ("a 1-d input", lambda case: case.ctx("one_d")),
        ("several rows", on(lambda rows, dtype, k, rep, draws: len(rows) > 1)),
        ("one category", on(lambda rows, dtype, k, rep, draws: len(rows[0]) == 1)),
        ("with replacement, several samples (the search)",
         on(lambda rows, dtype, k, rep, draws: rep and k > 1)),
        ("with replacement, one sample (the race)",
         on(lambda rows, dtype, k, rep, draws: rep and k == 1)),
        ("without replacement, every category",
         on(lambda rows, dtype, k, rep, draws: not rep and k == len(rows[0]) > 1)),
        ("zero weights taken without replacement (tied scores)",
         on(lambda rows, dtype, k, rep, draws: not rep and k > 1 and any(
             sum(p > 0 for p in row) < k for row in rows))),
        ("equal positive weights", on(lambda rows, dtype, k, rep, draws: any(
            len(row) > 1 and len(set(row)) == 1 and row[0] > 0 for row in rows))),
        ("one nonzero weight in a row of several", on(lambda rows, dtype, k, rep, draws: any(
            len(row) > 1 and sum(p != 0 for p in row) == 1 for row in rows))),
        ("a row the kernel refuses while it samples",
         lambda case: raises(torch_says("multinomial_from_draws")(case), "RuntimeError")),
        ("a 53-bit uniform of 0 among the draws used", on(
            lambda rows, dtype, k, rep, draws: any(
                draws[i] % 2 ** 21 == 0 and draws[i + 1] == 0
                for i in range(0, len(draws) - 1, 2)))),
    ],
    "bernoulli_from_draws": [
        ("a number p", on(lambda values, probs, dtype, draws: dtype == "float")),
        ("a float64 p", on(lambda values, probs, dtype, draws: dtype == "float64")),
        ("a float32 p", on(lambda values, probs, dtype, draws: dtype == "float32")),
        ("a float16 p", on(lambda values, probs, dtype, draws: dtype == "float16")),
        ("a bfloat16 p", on(lambda values, probs, dtype, draws: dtype == "bfloat16")),
        ("p = 0", on(lambda values, probs, dtype, draws: 0.0 in probs)),
        ("p = 1", on(lambda values, probs, dtype, draws: 1.0 in probs)),
        ("a p out of [0, 1] after a valid one (the loop stops there)",
         on(lambda values, probs, dtype, draws: probs and _in_range(probs[0]) and any(
             not _in_range(p) for p in probs[1:]))),
        ("a nan or infinite p", on(lambda values, probs, dtype, draws: any(
            math.isnan(p) or math.isinf(p) for p in probs))),
        ("a uniform equal to its p (not below it)",
         on(lambda values, probs, dtype, draws: any(
             u == p for u, p in zip(_bernoulli_uniforms(probs, dtype, draws), probs,
                                    strict=False) if p > 0))),
        ("an empty self", on(lambda values, probs, dtype, draws: not values)),
        ("a 0-d self", lambda case: case.ctx("layout") == "0-d"),
        ("a column-major self (filled in memory order)",
         lambda case: case.ctx("layout") == "transposed"),
        ("a bool self", lambda case: case.ctx("self_dtype") == "bool"),
        ("an integer self", lambda case: case.ctx("self_dtype") in ("int64", "int32", "uint8")),
    ],
    "state_bytes": [
        ("no cached normal", on(lambda seed, words, left, nxt, d, f: d is None and f is None)),
        ("a cached double normal", on(lambda seed, words, left, nxt, d, f: d is not None)),
        ("a cached float normal", on(lambda seed, words, left, nxt, d, f: f is not None)),
        ("both cached", on(lambda seed, words, left, nxt, d, f: None not in (d, f))),
        ("a cached -0.0 (its sign bit)", on(lambda seed, words, left, nxt, d, f: any(
            v == 0 and math.copysign(1, v) < 0 for v in (d, f) if v is not None))),
        ("a cached infinity", on(lambda seed, words, left, nxt, d, f: any(
            v is not None and math.isinf(v) for v in (d, f)))),
        ("right after manual_seed (left 1, next 0)",
         on(lambda seed, words, left, nxt, d, f: (left, nxt) == (1, 0))),
        ("next 624", on(lambda seed, words, left, nxt, d, f: nxt == 624)),
        ("set_state's counters (left + next is neither 625 nor 1)",
         on(lambda seed, words, left, nxt, d, f: left + nxt not in (1, 625))),
        ("seed 0", on(lambda seed, words, left, nxt, d, f: seed == 0)),
        ("a seed of 2**63 or more (not an int64)",
         on(lambda seed, words, left, nxt, d, f: seed >= 2 ** 63)),
        ("2**64 - 1", on(lambda seed, words, left, nxt, d, f: seed == 2 ** 64 - 1)),
    ],
    "order_changes": [
        ("mode global", on(lambda mode, a, b: mode == "global")),
        ("mode dedicated", on(lambda mode, a, b: mode == "dedicated")),
        ("mode reseed", on(lambda mode, a, b: mode == "reseed")),
        ("dropout with p = 0 (no draws)",
         on(lambda mode, a, b: any(c[0] == "dropout" and c[1] == 0.0 for c in _calls(a, b)))),
        ("dropout with p = 1 (no draws)",
         on(lambda mode, a, b: any(c[0] == "dropout" and c[1] == 1.0 for c in _calls(a, b)))),
        ("dropout with training=False (no draws)",
         on(lambda mode, a, b: any(c[0] == "dropout" and not c[3] for c in _calls(a, b)))),
        ("dropout of 0 elements (no draws)",
         on(lambda mode, a, b: any(c[0] == "dropout" and c[2] == 0 for c in _calls(a, b)))),
        ("rand64", on(lambda mode, a, b: any(c[0] == "rand64" for c in _calls(a, b)))),
        ("randint with a range of 2**40",
         on(lambda mode, a, b: any(c[0] == "randint" and c[1] == 2 ** 40
                                   for c in _calls(a, b)))),
        ("runs that differ only in the last epoch (no change)",
         on(lambda mode, a, b: a[:-1] == b[:-1] and a[-1] != b[-1])),
        ("runs that differ with no epoch changed",
         lambda c: c.args[1] != c.args[2] and not any(_torch_says("order_changes", c))),
        ("global mode: a change that moves every later epoch",
         lambda c: c.args[0] == "global" and any(_torch_says("order_changes", c))),
    ],
    # ------------------------------------------------------------ chapter 9
    "dispatch_key_set": [
        ("below autograd with a tensor that requires grad (no Autograd)",
         on(lambda d, g, p, f, m, b: b and any(g))),
        ("nested modes", on(lambda d, g, p, f, m, b: m == 2)),
        ("inside the only mode's __torch_dispatch__ (no mode left)",
         on(lambda d, g, p, f, m, b: m == 0 and b)),
        ("a meta tensor next to a cpu one",
         on(lambda d, g, p, f, m, b: {"cpu", "meta"} <= set(d))),
        ("a factory's device unlike a tensor's (the factory's decides)",
         on(lambda d, g, p, f, m, b: f is not None and any(x != f for x in d))),
        ("no tensor and no factory device (CPU)",
         on(lambda d, g, p, f, m, b: not d and f is None)),
        ("one tensor requiring grad, one not",
         on(lambda d, g, p, f, m, b: {True, False} <= set(g))),
        ("a subclass tensor and no mode (Python from its class)",
         on(lambda d, g, p, f, m, b: any(p) and m == 0)),
        ("a subclass tensor next to a plain one",
         on(lambda d, g, p, f, m, b: {True, False} <= set(p))),
    ],
    "next_key": [
        ("no key of the set has a kernel: (0, 0)", on(lambda k, r: not k & r)),
        ("Autograd in the set without a kernel", on(lambda k, r: k & 8 and not r & 8 and k & r)),
        ("a backend runs: nothing below it", on(lambda k, r: _runs(k, r) in (1, 2) and k & 4)),
        ("a set without a backend", on(lambda k, r: not k & 3 and k & r)),
        ("kernels for keys outside the set", on(lambda k, r: r & ~k & 15 and k & r)),
        ("Meta below Autograd", on(lambda k, r: k & 2 and _runs(k, r) == 8)),
    ],
    "mode_arguments": [
        ("1.0 or True where the default is the int 1 (kept)",
         on(lambda arguments, values: any(
             a[3] == 1 and type(a[3]) is int and type(v) in (float, bool) and v == 1
             for a, v in zip(arguments, values, strict=True)))),
        ("a default kept before a given argument", on(_kept_before_given)),
        ("a list argument held as a tuple",
         on(lambda arguments, values: any(a[4] and type(v) is tuple and v[0] == "tuple"
                                          for a, v in zip(arguments, values, strict=True)))),
        ("a list held as a list, equal to its tuple default",
         on(lambda arguments, values: any(type(v) is tuple and v[0] == "list" and _held(v, a)
                                          for a, v in zip(arguments, values, strict=True)))),
        ("a keyword-only argument at a default that is not None (left out)",
         on(lambda arguments, values: any(a[1] and a[3] is not None and _held(v, a)
                                          for a, v in zip(arguments, values, strict=True)))),
        ("None in a list of tensors",
         on(lambda arguments, values: any(type(v) is tuple and None in v[1:] for v in values))),
        ("trailing positional defaults left out",
         on(lambda arguments, values: _positional_held(arguments, values)[-1:] == [True])),
    ],
    "log_line": [
        ("a 0-d tensor", lambda c: any(t[3] == () for t in _tensor_nodes(c.args[0]))),
        ("a list of results", lambda c: any(type(out) is tuple and out[0] == "list"
                                            for *_, out in c.args[0])),
        ("a tuple of results", lambda c: any(type(out) is tuple and out[0] == "tuple"
                                             for *_, out in c.args[0])),
        ("a result that is its argument (in place)",
         lambda c: any(out in args for _, args, _, out in c.args[0])),
        ("a string argument (written with its quotes)",
         lambda c: any(type(leaf) is str for v in _log_values(c.args[0])
                       for leaf in _log_leaves(v))),
        ("a list of ints (each written as a string)",
         lambda c: any(type(v) is tuple and v[0] == "list" and any(type(x) is int for x in v)
                       for v in _log_values(c.args[0]))),
        ("a result that is not a tensor", lambda c: any(type(out) is not tuple
                                                        for *_, out in c.args[0])),
        ("keyword arguments", lambda c: any(kwargs for _, _, kwargs, _ in c.args[0])),
        ("a program of several snippets", lambda c: len(c.ctx("snippets")) > 1),
    ],
    "node_name": [
        ("a name repeated (the next free number)",
         on(lambda cs, r: any(d is None and t for _, _, _, d, t in _name_steps(cs)))),
        ("a builtin or a keyword (numbered at once)",
         on(lambda cs, r: any(keyword.iskeyword(c) or c in builtins.__dict__ for c in cs))),
        ("a name torch reserves", on(lambda cs, r: any(c in r for c in cs))),
        ("reftensor (an ordinary name to torch)", on(lambda cs, r: "reftensor" in cs)),
        ("an in-place name (its stem ends in _)",
         on(lambda cs, r: any(c.endswith("_") or "__" in c for c in cs))),
        ("a free numbered candidate (kept as it is)",
         on(lambda cs, r: any(d is not None and not t and n == c
                              for c, n, _, d, t in _name_steps(cs)))),
        ("a numbered candidate already taken",
         on(lambda cs, r: any(d is not None and t for _, _, _, d, t in _name_steps(cs)))),
        ("a numbered candidate after its stem's unnumbered one",
         on(lambda cs, r: any(d is not None and any(p == st for p in cs[:i])
                              for i, (_, _, st, d, _) in enumerate(_name_steps(cs))))),
        ("a stem counted on from a free numbered candidate's number",
         on(_counted_on_from_a_kept_number)),
    ],
    "overloaded_args": [
        ("the plain class among the arguments (never listed)", on(lambda c, a: "Tensor" in a)),
        ("a class repeated (listed once)",
         on(lambda c, a: len({x for x in a if x != "Tensor"})
            < len([x for x in a if x != "Tensor"]))),
        ("a subclass after its base (moved before it)",
         on(lambda c, a: any(_subclass(c, x, y) and x != y and y != "Tensor"
                             for i, x in enumerate(a) for y in a[:i]))),
        ("a subclass moved before its base, which is not first", on(_moved_not_first)),
        ("an indirect subclass after its grandparent",
         on(lambda c, a: any(y in _ancestors(c, x)[2:] and y != "Tensor"
                             for i, x in enumerate(a) for y in a[:i]))),
        ("two unrelated subclasses",
         on(lambda c, a: any(x != "Tensor" and y != "Tensor" and not _subclass(c, x, y)
                             and not _subclass(c, y, x) for x in a for y in a))),
        ("no subclass at all (nothing to ask)", on(lambda c, a: set(a) == {"Tensor"})),
    ],
    "convert_result": [
        ("cls is the plain class (ret returned as it is)", on(lambda c, r, k: k == "Tensor")),
        ("a tensor of another subclass (converted)",
         on(lambda c, r, k: k != "Tensor" and any(
             type(x) is tuple and x[0] == "tensor" and x[1] != "Tensor"
             and not _subclass(c, x[1], k) for x in _convert_leaves(r)))),
        ("a tensor of a strict subclass of cls (kept)",
         on(lambda c, r, k: any(type(x) is tuple and x[0] == "tensor" and x[1] != k
                                and _subclass(c, x[1], k) for x in _convert_leaves(r)))),
        ("a named result (max)", on(lambda c, r, k: any(x[0] == "max" for x in _containers(r)))),
        ("a Size", on(lambda c, r, k: any(x[0] == "Size" for x in _containers(r)))),
        ("a list", on(lambda c, r, k: any(x[0] == "list" for x in _containers(r)))),
        ("a container in a container", on(lambda c, r, k: len(_containers(r)) > 1
                                          and _containers(r)[0][0] != "Size")),
        ("an empty container", on(lambda c, r, k: any(not x[1] for x in _containers(r)))),
        ("a number or None", on(lambda c, r, k: any(type(x) is not tuple
                                                    for x in _convert_leaves(r)))),
    ],
    # chapter 9's prediction exercises: every program (function) is an edge case, so every
    # hidden set holds them all
    "aten_ops": [
        ("a number beside a tensor (wrapped: a Tensor overload)",
         on(lambda p: p == "broadcast")),
        ("an in-place op", on(lambda p: p == "inplace")),
        ("a module (Linear: t and addmm; relu's saved result)", on(lambda p: p == "linear")),
        ("views, and their backward's views", on(lambda p: p == "view")),
        ("an index (select, select_backward)", on(lambda p: p == "index")),
        ("a leaf's gradient copied by AccumulateGrad (an expanded one)",
         lambda c: "aten.copy_.default" in _torch_says("aten_ops", c)),
        ("a leaf's gradient kept by AccumulateGrad (a detach)",
         lambda c: _torch_says("aten_ops", c)[-1] == "aten.detach.default"),
        ("two leaves that need a gradient",
         lambda c: _torch_says("aten_ops", c)[-2:] == ["aten.detach.default"] * 2),
    ],
    "graph_breaks": [
        ("no break", lambda c: _torch_says("graph_breaks", c)[1] == 0),
        ("two breaks", lambda c: _torch_says("graph_breaks", c)[1] == 2),
        ("a branch on a tensor's value", on(lambda f: f == "branch")),
        ("print", on(lambda f: "print(" in GRAPH_FUNCTIONS[f])),
        (".item()", on(lambda f: ".item()" in GRAPH_FUNCTIONS[f])),
        ("a side effect Dynamo replays (no break)", on(lambda f: f == "side_effect")),
        ("a loop Dynamo unrolls", on(lambda f: "for " in GRAPH_FUNCTIONS[f])),
        ("a method call, which ops_per_graph leaves out", on(lambda f: ".sum()" in
                                                             GRAPH_FUNCTIONS[f])),
        ("a graph with no call_function op",
         lambda c: [] in _torch_says("graph_breaks", c)[2]),
    ],
    # ------------------------------------------------------------ chapter 10
    "conv_output_size": [
        ("a stride larger than the kernel", on(lambda n, k, s, p, d: s > k)),
        ("a dilation", on(lambda n, k, s, p, d: d > 1)),
        ("padding", on(lambda n, k, s, p, d: p > 0)),
        ("a 1x1 kernel", on(lambda n, k, s, p, d: k == 1)),
        ("the kernel fits once (an output of 1)",
         on(lambda n, k, s, p, d: n + 2 * p - d * (k - 1) - 1 < s)),
        ("a floor that leaves elements out",
         on(lambda n, k, s, p, d: (n + 2 * p - d * (k - 1) - 1) % s != 0)),
    ],
    "pool_output_size": [
        ("ceil_mode with an overhanging window that counts",
         on(lambda n, k, p, s, d, c: c and _pool_out_of(n, k, p, s, d, c)[1]
            > _pool_out_of(n, k, p, s, d, c)[0]
            and (_pool_out_of(n, k, p, s, d, c)[1] - 1) * s < n + p)),
        ("ceil_mode's last window dropped (it would start past the input)",
         on(lambda n, k, p, s, d, c: c and (_pool_out_of(n, k, p, s, d, c)[1] - 1) * s >= n + p)),
        ("ceil_mode where the division is exact",
         on(lambda n, k, p, s, d, c: c and (n + 2 * p - d * (k - 1) - 1) % s == 0)),
        ("a dilation", on(lambda n, k, p, s, d, c: d > 1)),
        ("padding", on(lambda n, k, p, s, d, c: p > 0)),
        ("a stride larger than the kernel", on(lambda n, k, p, s, d, c: s > k)),
    ],
    "window_layout": [
        ("a channels-last input", on(lambda shape, strides, offset, k, s, d: len(shape) == 4
                                     and strides[1] == 1 and shape[1] > 1)),
        ("a transposed input (the last dim not innermost)",
         on(lambda shape, strides, offset, k, s, d: strides[-1] > strides[-2])),
        ("a sliced input (no stride of 1)",
         on(lambda shape, strides, offset, k, s, d: 1 not in strides)),
        ("a broadcast channel (stride 0)", on(lambda shape, strides, offset, k, s, d:
                                              strides[1] == 0)),
        ("a storage offset", on(lambda shape, strides, offset, k, s, d: offset > 0)),
        ("an empty batch", on(lambda shape, strides, offset, k, s, d: shape[0] == 0)),
        ("a batch of 1", on(lambda shape, strides, offset, k, s, d: shape[0] == 1)),
        ("a dilation", on(lambda shape, strides, offset, k, s, d: max(d) > 1)),
        ("a stride larger than the kernel",
         on(lambda shape, strides, offset, k, s, d: any(a > b for a, b in zip(s, k, strict=True)))),
        ("a 1x1 kernel", on(lambda shape, strides, offset, k, s, d: set(k) == {1})),
        ("one spatial dim", on(lambda shape, strides, offset, k, s, d: len(shape) == 3)),
    ],
    "max_pool_window": [
        ("a tie for a window's maximum", lambda c: _has_pool_window(c, _tied_window)),
        ("a NaN in a window", lambda c: _has_pool_window(c, lambda t: _nans(t) >= 1)),
        ("two NaNs in a window (the last wins)",
         lambda c: _has_pool_window(c, lambda t: _nans(t) >= 2)),
        ("a window all -inf", lambda c: _has_pool_window(
            c, lambda t: all(v == -math.inf for v in t))),
        ("-0.0 and 0.0 in a window", lambda c: _has_pool_window(
            c, lambda t: any(v == 0 and math.copysign(1, v) < 0 for v in t)
            and any(v == 0 and math.copysign(1, v) > 0 for v in t))),
        ("a tap in the padding", on(lambda dt, planes, k, s, p, d, c: max(p) > 0)),
        ("a window with no tap inside (torch's start index)", _has_empty_pool_window),
        ("an int64 plane", on(lambda dt, planes, k, s, p, d, c: dt == "int64")),
        ("ceil_mode", on(lambda dt, planes, k, s, p, d, c: c)),
        ("a dilation", on(lambda dt, planes, k, s, p, d, c: max(d) > 1)),
        ("a stride larger than the kernel",
         on(lambda dt, planes, k, s, p, d, c: any(a > b for a, b in zip(s, k, strict=True)))),
    ],
    "conv_weight_grad": [
        ("groups", on(lambda shape, o, k, s, p, d, g, seed: g > 1)),
        ("a depthwise convolution (a group per channel)",
         on(lambda shape, o, k, s, p, d, g, seed: g > 1 and g == shape[1])),
        ("a stride larger than the kernel",
         on(lambda shape, o, k, s, p, d, g, seed: any(a > b for a, b in zip(s, k, strict=True)))),
        ("a dilation", on(lambda shape, o, k, s, p, d, g, seed: max(d) > 1)),
        ("padding", on(lambda shape, o, k, s, p, d, g, seed: max(p) > 0)),
        ("a 1x1 kernel", on(lambda shape, o, k, s, p, d, g, seed: set(k) == {1})),
        ("an empty batch", on(lambda shape, o, k, s, p, d, g, seed: shape[0] == 0)),
        ("a batch of 1", on(lambda shape, o, k, s, p, d, g, seed: shape[0] == 1)),
        ("conv1d", on(lambda shape, o, k, s, p, d, g, seed: len(k) == 1)),
    ],
    "train_steps": [
        ("SGD with momentum", on(lambda seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of one", on(lambda seed, opt, lr, b, steps: b == 1)),
        ("a single step", on(lambda seed, opt, lr, b, steps: steps == 1)),
        ("several steps (the gradients zeroed between them)",
         on(lambda seed, opt, lr, b, steps: steps > 1)),
        ("a seed other than the visible runs'", on(lambda seed, opt, lr, b, steps: seed > 1)),
    ],
    "build_cnn": [
        ("SGD with momentum", on(lambda seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of one (logits of one image)", on(lambda seed, opt, lr, b, steps: b == 1)),
        ("a single step", on(lambda seed, opt, lr, b, steps: steps == 1)),
        ("several steps", on(lambda seed, opt, lr, b, steps: steps > 1)),
        ("a seed other than the visible runs' (other first weights)",
         on(lambda seed, opt, lr, b, steps: seed > 1)),
    ],
    # the debugging clinic: the case's first arg names the exercise
    "fix_zero_grad": [
        ("SGD with momentum", on(lambda bug, seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda bug, seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of one", on(lambda bug, seed, opt, lr, b, steps: b == 1)),
        ("three optimizer steps (six batches)", on(lambda bug, seed, opt, lr, b, steps:
                                                   steps == 6)),
        ("a seed other than the visible runs'", on(lambda bug, seed, opt, lr, b, steps:
                                                   seed > 1)),
    ],
    **{name: [
        ("SGD with momentum", on(lambda bug, seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda bug, seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of one", on(lambda bug, seed, opt, lr, b, steps: b == 1)),
        ("a seed other than the visible runs'", on(lambda bug, seed, opt, lr, b, steps:
                                                   seed > 1)),
    ] for name in ("fix_view", "fix_float_labels", "fix_inplace")},
    "fix_eval": [
        ("SGD with momentum", on(lambda bug, seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda bug, seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of two (the fewest BatchNorm trains on)",
         on(lambda bug, seed, opt, lr, b, steps: b == 2)),
        ("a single step", on(lambda bug, seed, opt, lr, b, steps: steps == 1)),
        ("a seed other than the visible runs'", on(lambda bug, seed, opt, lr, b, steps:
                                                   seed > 1)),
    ],
    "fix_parameter": [
        ("SGD with momentum", on(lambda bug, seed, opt, lr, b, steps: opt == "sgd")),
        ("Adam", on(lambda bug, seed, opt, lr, b, steps: opt == "adam")),
        ("a batch of one", on(lambda bug, seed, opt, lr, b, steps: b == 1)),
        ("a single step", on(lambda bug, seed, opt, lr, b, steps: steps == 1)),
        ("a seed other than the visible runs'", on(lambda bug, seed, opt, lr, b, steps:
                                                   seed > 1)),
    ],
    "fix_shuffle": [
        ("a last batch shorter than the others",
         on(lambda bug, seed, size, b, epochs, draws: size % b != 0)),
        ("one batch holding every sample",
         on(lambda bug, seed, size, b, epochs, draws: b >= size)),
        ("three epochs (the loader's generator goes on)",
         on(lambda bug, seed, size, b, epochs, draws: epochs == 3)),
        ("no draws before (the global generator just seeded)",
         on(lambda bug, seed, size, b, epochs, draws: draws == 0)),
        ("a seed other than the visible runs'",
         on(lambda bug, seed, size, b, epochs, draws: seed > 1)),
    ],
    "validate_outputs": [
        ("a gradient that matches its input (passes)", _validate(
            lambda s, g, d, gd, v, gv, i: (s, d, v) == (g, gd, gv))),
        ("dimensions in front of the input's, summed away", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and len(g) > len(s) and s != g)),
        ("an input's 1 grown in the gradient, summed down", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and any(
                a == 1 and b != 1 for a, b in _aligned(s, g)))),
        ("a 0-size dimension in the gradient", _validate(
            lambda s, g, d, gd, v, gv, i: 0 in g and s != g)),
        ("a gradient with fewer dimensions than its input (refused)", _validate(
            lambda s, g, d, gd, v, gv, i: len(g) < len(s))),
        ("a 1 in the gradient where the input's size is not 1 (refused: one way only)",
         _validate(lambda s, g, d, gd, v, gv, i: len(g) >= len(s) and any(
             b == 1 and a != 1 for a, b in _aligned(s, g)))),
        ("another float dtype, cast", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and gd != d
            and gd.startswith(("float", "bfloat")))),
        ("an integer or bool gradient, cast", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and gd in ("int32", "int64", "bool"))),
        ("summed down and cast", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and s != g and gd != d)),
        ("a 0-d gradient moved to the input's device", _validate(
            lambda s, g, d, gd, v, gv, i: s == g == () and gv != v)),
        ("a 0-d gradient on meta for a cpu input (no values to copy)", _validate(
            lambda s, g, d, gd, v, gv, i: s == g == () and (gv, v) == ("meta", "cpu"))),
        ("a gradient with dimensions on another device (refused)", _validate(
            lambda s, g, d, gd, v, gv, i: _expands(s, g) and g != () and gv != v)),
        ("a refused shape on another device: the shape's error first", _validate(
            lambda s, g, d, gd, v, gv, i: not _expands(s, g) and gv != v)),
        ("a gradient at an index above 0, refused", _validate(
            lambda s, g, d, gd, v, gv, i: i > 0 and not _expands(s, g))),
    ],
}

ROWS = [(name, corner, predicate) for name, rows in CORNERS.items()
        for corner, predicate in rows]


def hidden(name: str, seed: int | None) -> list[Case]:
    """The hidden cases of a seed (None: the exercise's default seed)."""
    return checks.cases(name, hidden=True, seed=seed)


def test_every_exercise_has_corners():
    exercises.get("contiguous_strides")  # registers every chapter's exercises
    assert set(CORNERS) == set(exercises.EXERCISES)
    assert all(len(rows) >= 4 for rows in CORNERS.values())
    assert all(len({corner for corner, _ in rows}) == len(rows) for rows in CORNERS.values())


@pytest.mark.parametrize("name,corner,predicate", ROWS,
                         ids=[f"{name}:{corner}" for name, corner, _ in ROWS])
def test_every_seed_draws_the_corner(name, corner, predicate):
    missing = [seed for seed in SEEDS if not any(predicate(c) for c in hidden(name, seed))]
    assert not missing, f"{name}: no hidden case with {corner!r} for seeds {missing}"


@pytest.mark.parametrize("name,corner,predicate", ROWS,
                         ids=[f"{name}:{corner}" for name, corner, _ in ROWS])
def test_no_corner_is_every_case(name, corner, predicate):
    """A predicate that every case satisfies tests nothing: each one is False somewhere."""
    assert not all(predicate(c) for c in hidden(name, None)), (name, corner)


def corner(name: str, text: str):
    """The predicate of one row of ``CORNERS``."""
    return dict(CORNERS[name])[text]


# ---------------------------------------------------------------- the predicates can fail
N111_CHANNELS_LAST = "(N, 1, 1, 1) with climbing strides asked for channels_last (t itself)"
DIAGONAL_0D = "0-d with dims 0 and -1 (one dim: RuntimeError)"


def _to_case(dtype, shape, stride, *call) -> Case:
    return Case(args=(dtype, shape, stride, call))


def _diagonal_case(*args) -> Case:
    return Case(args=args)


def test_predicates_tell_the_corner_from_the_cases_next_to_it():
    n111 = corner("to_result", N111_CHANNELS_LAST)
    assert n111(_to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "channels_last")))
    for case in [
        # ambiguous (H has C's stride), asked for contiguous_format, a new dtype, not (N, 1, 1, 1)
        _to_case("float32", (2, 1, 1, 1), (1, 1, 1, 1), ("memory_format", "channels_last")),
        _to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "contiguous_format")),
        _to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "channels_last"),
                 ("dtype", "float64")),
        _to_case("float32", (2, 3, 2, 2), (12, 1, 6, 3), ("memory_format", "channels_last")),
    ]:
        assert not n111(case), case

    zero_d = corner("diagonal_layout", DIAGONAL_0D)
    assert zero_d(_diagonal_case((), (), 0, 0, 0, -1))
    assert zero_d(_diagonal_case((), (), 2, 1, -1, -1))
    for case in [_diagonal_case((), (), 0, 0, 0, 1), _diagonal_case((3,), (1,), 0, 0, 0, -1),
                 _diagonal_case((3, 3), (3, 1), 0, 0, 0, -1)]:
        assert not zero_d(case), case

    tie = corner("cast_value", "a tie, rounded to the even neighbour")
    assert tie(Case(args=(2049.0, "float16"))) and not tie(Case(args=(2050.0, "float16")))

    # t1 = f(c, a): the engine runs c's node before a's, against the names' order;
    # f(a, b): along it
    against = Case(args=((("t1", 1, ("c", "a"), (1.0, 1.0), True),), (("t1", 1.0),), (),
                         False, False))
    along = Case(args=((("t1", 1, ("a", "b"), (1.0, 1.0), True),), (("t1", 1.0),), (),
                       False, False))
    assert [name for name, _ in _pass_trace(against)[0][0]] == ["t1", "c", "a"]
    ties = corner("backward_pass",
                  "two leaves one step makes ready together, run against their names' order")
    assert ties(against) and not ties(along)


# ---------------------------------------------------------------- to_result's visible cases
def test_to_result_visible_cases_hold_a_climbing_n111_that_torch_keeps():
    ex = exercises.get("to_result")
    climbing = [case for case in ex.fixed if corner("to_result", N111_CHANNELS_LAST)(case)]
    assert climbing
    for case in climbing:
        dtype, shape, stride, call = case.args
        t = torch.empty_strided(shape, stride, dtype=getattr(torch, dtype))
        out = t.to(memory_format=torch.channels_last)
        assert (out is t, out.stride()) == ex.reference(case) == (True, tuple(stride))


# ---------------------------------------------------------------- answers wrong on one corner
@functools.cache
def solution(chapter: str, name: str):
    """The solution notebook's answer, run as the grader runs an answer cell."""
    namespace = answer_namespace()
    exec(compile(answer_sources(chapter)[name], f"<{chapter}:{name}>", "exec"), namespace)
    return namespace[name]


def to_result_n111_always_ambiguous(dtype, shape, stride, call):
    """Takes every (N, 1, 1, 1) layout for torch's ambiguous one: never suggests
    channels_last for it, climbing strides or not."""
    same, out = solution("ch04_dtype_device", "to_result")(dtype, shape, stride, call)
    options = dict(call)
    target = options.get("other", options.get("dtype", dtype))
    stays = target == dtype and options.get("device", "cpu") == "cpu" and not options.get("copy")
    if len(shape) == 4 and tuple(shape[1:]) == (1, 1, 1) and stays:
        n, c, h, w = shape
        if options.get("memory_format") == "channels_last":
            return False, (h * w * c, 1, w * c, c)
        if options.get("memory_format") == "contiguous_format":
            return True, tuple(stride)
    return same, out


def diagonal_0d_has_no_dims(shape, stride, storage_offset, offset, dim1, dim2):
    """Reads "a 0-d tensor has no second dim" as: any diagonal of a 0-d tensor is an
    IndexError (torch takes dims 0 and -1 as one dim: RuntimeError)."""
    if not shape:
        raise IndexError("a 0-d tensor has no dims")
    return solution("ch02_views", "diagonal_layout")(shape, stride, storage_offset, offset,
                                                    dim1, dim2)


@pytest.mark.parametrize("name,chapter,mistake,wrong_on", [
    ("to_result", "ch04_dtype_device", to_result_n111_always_ambiguous,
     lambda c: _n111(*c.args[1:3]) and c.args[2][1] != c.args[2][2]),
    ("diagonal_layout", "ch02_views", diagonal_0d_has_no_dims,
     corner("diagonal_layout", DIAGONAL_0D)),
])
def test_an_answer_wrong_only_on_the_corner_fails_the_hidden_check(name, chapter, mistake,
                                                                   wrong_on):
    pairs = hidden_pairs(name)
    verdict = checks.judge(name, mistake, pairs)
    assert verdict.failures and all(wrong_on(f.case) for f in verdict.failures)
    assert checks.judge(name, solution(chapter, name), pairs).passed
    with pytest.raises(checks.CheckFailed):
        checks.check(name, mistake, hidden=True)
