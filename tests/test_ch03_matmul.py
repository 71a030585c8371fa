"""Chapter 3: ``matmul`` (``@``), ``mm``, ``bmm``, ``mv`` and ``dot``, run on torch and
reftensor and compared: values, dtype, shape, strides (always contiguous), errors.

Operands come from ``tests/strategies.py`` (every layout and dtype) with shapes drawn for
every pair of dims from 1-D to 4-D, batch dims that broadcast, and now and then sizes or
dtypes that do not match.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import reftensor
from reftensor._ops.state import state
from tests.difftest import compare_op, same_on_both
from tests.strategies import FLOAT_NAMES, INT_NAMES, examples, tensors

pytestmark = pytest.mark.ch03

DTYPES = ("bool", *INT_NAMES, *FLOAT_NAMES)
sizes = st.sampled_from([0, 1, 2, 3, 3])


@st.composite
def batch_dims(draw: st.DrawFn, batch: tuple[int, ...], count: int) -> tuple[int, ...]:
    """``count`` batch dims that broadcast with ``batch`` (its suffix, with some 1s)."""
    dims = list(batch[len(batch) - count:]) if count <= len(batch) else [
        *draw(st.lists(sizes, min_size=count - len(batch), max_size=count - len(batch))),
        *batch]
    return tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in dims)


@st.composite
def operands(draw: st.DrawFn, dims: tuple[int, int] | None = None):
    d1, d2 = dims or (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    n, k, p = draw(sizes), draw(sizes), draw(sizes)
    k2 = k + 1 if draw(st.integers(0, 9)) == 0 else k  # inner sizes that do not match
    batch = tuple(draw(st.lists(sizes, min_size=2, max_size=2)))
    a_shape = (k,) if d1 == 1 else (*draw(batch_dims(batch, d1 - 2)), n, k)
    b_shape = (k2,) if d2 == 1 else (*draw(batch_dims(batch, d2 - 2)), k2, p)
    # a stepped layout of 81 elements needs thousands of storage elements: keep it smaller
    assume(math.prod(a_shape) <= 36 and math.prod(b_shape) <= 36)
    a_dtype = draw(st.sampled_from(DTYPES))
    b_dtype = draw(st.sampled_from(DTYPES)) if draw(st.integers(0, 9)) == 0 else a_dtype
    a = draw(tensors(dtypes=(a_dtype,), shape=a_shape))
    b = draw(tensors(dtypes=(b_dtype,), shape=b_shape))
    return a, b


@settings(max_examples=examples(150))
@given(operands())
def test_matmul_every_pair_of_dims(specs):
    compare_op(lambda lib, a, b: a @ b, *specs)


@pytest.mark.parametrize("dims", [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3), (3, 2),
                                  (2, 3), (3, 3), (4, 2)])
@settings(max_examples=examples(25))
@given(data=st.data())
def test_matmul_function(dims, data):
    compare_op(lambda lib, a, b: lib.matmul(a, b), *data.draw(operands(dims)))


@pytest.mark.parametrize("fn, dims", [("mm", (2, 2)), ("bmm", (3, 3)), ("mv", (2, 1)),
                                      ("dot", (1, 1)), ("mm", (3, 2)), ("dot", (2, 1)),
                                      ("mv", (1, 1)), ("bmm", (2, 3))])
@settings(max_examples=examples(25))
@given(data=st.data())
def test_named_products(fn, dims, data):
    compare_op(lambda lib, a, b: getattr(lib, fn)(a, b), *data.draw(operands(dims)))


@pytest.mark.parametrize("name", ["0d @ 1d", "1d @ 0d", "0d @ 0d", "list", "number",
                                  "int @ float", "float @ double 3d", "bool", "bool 1d",
                                  "mismatch 2x3 4x5", "mismatch 3d 1d", "batch mismatch",
                                  "folded", "not folded", "empty", "int8 wraps",
                                  "transposed operands", "1d @ 3d", "mm of 3d", "bmm sizes",
                                  "dot of 2d"])
def test_matmul_cases(name):
    cases = {
        "0d @ 1d": lambda lib: lib.ones(()) @ lib.ones(3),
        "1d @ 0d": lambda lib: lib.matmul(lib.ones(3), lib.ones(())),
        "0d @ 0d": lambda lib: lib.matmul(lib.ones(()), lib.ones(())),
        "list": lambda lib: lib.ones(2, 3) @ [[1.0]],
        "number": lambda lib: lib.matmul(lib.ones(2, 3), 2),
        "int @ float": lambda lib: lib.ones(2, 3, dtype=lib.int64) @ lib.ones(3, 4),
        "float @ double 3d": lambda lib: lib.ones(5, 2, 3) @ lib.ones(5, 3, 4,
                                                                     dtype=lib.float64),
        "bool": lambda lib: lib.ones(2, 3, dtype=lib.bool) @ lib.ones(3, 4, dtype=lib.bool),
        "bool 1d": lambda lib: lib.ones(3, dtype=lib.bool) @ lib.ones(3, dtype=lib.bool),
        "mismatch 2x3 4x5": lambda lib: lib.ones(2, 3) @ lib.ones(4, 5),
        "mismatch 3d 1d": lambda lib: lib.ones(5, 2, 3) @ lib.ones(4),
        "batch mismatch": lambda lib: lib.ones(5, 2, 3) @ lib.ones(4, 3, 4),
        "folded": lambda lib: lib.ones(5, 2, 3) @ lib.ones(4, 4, dtype=lib.float64),
        "not folded": lambda lib: lib.ones(2, 5, 3).transpose(0, 1) @ lib.ones(
            3, dtype=lib.float64),
        "empty": lambda lib: lib.ones(3, 5, 0) @ lib.ones(0, 0),
        "int8 wraps": lambda lib: (lib.full((2, 3), 100, dtype=lib.int8)
                                   @ lib.full((3, 2), 100, dtype=lib.int8)),
        "transposed operands": lambda lib: lib.arange(6.0).view(3, 2).t() @ lib.arange(
            12.0).view(4, 3).t(),
        "1d @ 3d": lambda lib: lib.arange(3.0) @ lib.arange(60.0).view(5, 3, 4),
        "mm of 3d": lambda lib: lib.mm(lib.ones(2, 2, 3), lib.ones(3, 4)),
        "bmm sizes": lambda lib: lib.bmm(lib.ones(5, 2, 3), lib.ones(4, 3, 4)),
        "dot of 2d": lambda lib: lib.dot(lib.ones(3, 1), lib.ones(3)),
    }
    same_on_both(cases[name])


def _matmul_assign(lib):
    """torch's Tensor has no ``__imatmul__``: ``t @= u`` is ``t = t @ u``, a new tensor, and
    the old one is unchanged."""
    t = lib.arange(6.0).view(2, 3)
    old = t
    t @= lib.ones(3, 4)
    return t is old, t, old, old._version


def test_matmul_assign_rebinds_instead_of_writing():
    assert same_on_both(_matmul_assign)[0] is False


def test_matmul_of_values_that_round():
    """Sums of products that are not exact: the summation order may differ from torch's
    BLAS by an ulp or so (and float16/bfloat16 accumulate in float32 in both)."""
    for dtype in FLOAT_NAMES:
        same_on_both(lambda lib, d=dtype: (lib.arange(12.0).view(3, 4) / 7).to(getattr(lib, d))
                     @ (lib.arange(8.0).view(4, 2) / 3).to(getattr(lib, d)), ulps=4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_addmm_adds_no_zero_where_torch_adds_none(dtype):
    """An empty inner dim: torch copies ``self`` and scales it by ``beta`` (``-0.0`` stays
    ``-0.0``, ``beta=-1`` of ``0.0`` gives ``-0.0``), or zeroes the result for ``beta=0``;
    BLAS (float32, float64) with ``alpha=0`` computes ``beta * C`` alone. Found by the op
    table's test (a 0-d float16 ``self``, ``(1, 0) @ (0, 1)``, ``beta=-1``)."""
    def program(lib):
        d = getattr(lib, dtype)
        minus_zero, nan = lib.tensor([[-0.0]], dtype=d), lib.tensor([[float("nan")]], dtype=d)
        a, b = lib.ones(1, 2, dtype=d), lib.ones(2, 1, dtype=d)
        e1, e2 = lib.empty(1, 0, dtype=d), lib.empty(0, 1, dtype=d)
        return (lib.addmm(minus_zero, a, b, beta=1, alpha=0), lib.addmm(minus_zero, e1, e2),
                lib.addmm(lib.tensor(0.0, dtype=d), e1, e2, beta=-1),
                lib.addmm(nan, e1, e2, beta=0), lib.addmm(nan, a, b, beta=0),
                lib.addmm(nan, a, b, alpha=0))
    same_on_both(program)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("mat", [(0, 0), (3, 0), (0, 3), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_addmv_of_an_empty_product_on_each_device(device, mat, dtype):
    """``addmv`` where ``mat @ vec`` may be empty, in its three forms: the CPU kernel
    checks ``self`` against ``(n,)`` and, for an empty ``mat``, returns ``beta * self`` in
    ``self``'s own shape; the meta device runs torch's Python decomposition, which never
    checks ``self`` but broadcasts it (a 1-element ``self`` with a ``(0, 0)`` ``mat`` gives
    ``(1,)``, ``beta=0`` gives ``(n,)``, ``beta=0.5`` of an integer is 0). Found by the op
    table's meta test (a bool ``(1,)`` ``self``, a ``(0, 0)`` ``mat``)."""
    for shape in [(1,), (), (3,), (0,), (2,), (2, 2)]:
        for beta in [1, 0] if dtype == "bool" else [1, 0, 0.5]:
            for form in ["function", "in-place", "out"]:
                def program(lib, shape=shape, beta=beta, form=form):
                    d = getattr(lib, dtype)
                    self, m, v = (lib.ones(s, dtype=d, device=device)
                                  for s in (shape, mat, mat[1:]))
                    if form == "in-place":
                        return self.addmv_(m, v, beta=beta)
                    if form == "out":
                        return lib.addmv(self, m, v, beta=beta,
                                         out=lib.empty(5, dtype=d, device=device))
                    return lib.addmv(self, m, v, beta=beta)

                same_on_both(program)


@st.composite
def contractions(draw: st.DrawFn) -> tuple[str, list[tuple[int, ...]]]:
    """An ``einsum`` of 2 or 3 operands over 4 labels (sizes 1 to 3, a 1 now and then in
    an operand: broadcast), each label in one to three operands, the output implicit or
    some labels in any order: every split of a pair's dims into shared, own and summed
    ones, in every order, so that ``sumproduct_pair``'s batch matrix product meets them
    all."""
    size = {x: draw(st.integers(1, 3)) for x in "abcd"}
    terms = [draw(st.permutations("abcd"))[:draw(st.integers(0, 3))]
             for _ in range(draw(st.integers(2, 3)))]
    shapes = [tuple(size[x] if draw(st.integers(0, 4)) else 1 for x in t) for t in terms]
    equation = ",".join("".join(t) for t in terms)
    if draw(st.booleans()):
        used = sorted({x for t in terms for x in t})
        equation += "->" + "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    return equation, shapes


@settings(max_examples=examples(200), deadline=None)
@given(case=contractions(), dtype=st.sampled_from(["float32", "float64", "int64"]),
       data=st.data())
def test_einsum_lays_out_a_contraction_as_torch(case, dtype, data):
    """The result's strides are those of torch's ``sumproduct_pair``: its ``bmm`` product
    viewed and permuted back, the operands swapped when all of the right one's own dims
    come first (``einsum('bd,acb', (2, 3), (2, 1, 2))``: strides (3, 3, 1))."""
    equation, shapes = case
    specs = [data.draw(tensors(dtypes=(dtype,), shape=s), label=f"operand {i}")
             for i, s in enumerate(shapes)]
    compare_op(lambda lib, *ts: lib.einsum(equation, *ts), *specs, ulps=8)


@pytest.mark.parametrize("equation,shapes", [
    ("bd,acb", [(2, 3), (2, 1, 2)]),  # right's own dims first: the operands swap
    ("b,d,bc", [(2,), (2,), (2, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # no swap
    ("ij,kj->ki", [(2, 3), (4, 3)]),
    ("bij,bjk->bki", [(2, 2, 3), (2, 3, 4)]),  # shared batch dims
    ("ia,jb,ab->ji", [(2, 3), (4, 5), (3, 5)]),
])
def test_einsum_lays_out_these_contractions_as_torch(equation, shapes):
    """Fixed cases of the test above, in the fast tier whatever it draws."""
    def program(lib):
        return lib.einsum(equation, *[
            lib.arange(math.prod(s), dtype=lib.float64).reshape(s) for s in shapes])

    same_on_both(program)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mat2_layout", ["contiguous", "stride 0"])
def test_addmm_of_a_zero_sum_in_half_precision_has_torchs_sign(dtype, mat2_layout):
    """torch's own float16/bfloat16 loops: with ``beta`` 0, the loop that reads ``mat2``
    transposed (a ``mat2`` that no BLAS layout fits, as a stride-0 one, copied) sums the
    products into zeros, so ``alpha`` 0 gives +0.0; the dot-product loop scales a dot product
    summed from +0.0 by ``alpha``, so ``0 * -1.0`` is -0.0 and ``-1 * (-0.0 * 1)`` is -0.0."""
    def program(lib):
        d = getattr(lib, dtype)
        results = []
        for alpha, a in ((0, -1.0), (-1, -0.0), (1, -0.0), (0, 1.0)):
            mat1 = lib.tensor([[a]], dtype=d)
            mat2 = (lib.tensor([1.0], dtype=d).as_strided((1, 1), (0, 0))
                    if mat2_layout == "stride 0" else lib.tensor([[1.0]], dtype=d))
            result = lib.addmm(lib.tensor(0.0, dtype=d), mat1, mat2, beta=0, alpha=alpha)
            results.append(math.copysign(1.0, result.item()))
        return results

    same_on_both(program)


# ------------------------------------------------------------------ chapter 4's matmul_plan
# Every ``@`` asks ``matmul.matmul_plan`` which kernel to run (torch's ``_matmul_impl``): the
# decomposition runs that kernel on the shapes the plan gives, and the one-call NumPy path
# makes its checks. Both are compared with torch: the kernel (and its operands' shapes) that
# a dispatch mode sees, the values, layout, graph and gradients.
_KERNELS = ("dot", "mv", "mm", "bmm", "expand", "_unsafe_view", "squeeze", "unsqueeze")


def _torch_kernels(a, b) -> list[tuple[str, tuple]]:
    """The ops of ``_KERNELS`` torch's ``a @ b`` calls, with their tensors' shapes, as
    ``torch.profiler`` records them (under a dispatch mode torch would plan otherwise)."""
    from autograder.course.exercises.ch04_dtype_device import _quiet_stderr

    with _quiet_stderr(), torch.autograd.profiler.profile(record_shapes=True) as recorded:
        a @ b
    events = sorted(recorded.function_events, key=lambda e: e.time_range.start)
    return [(e.name.removeprefix("aten::"), tuple(tuple(s) for s in e.input_shapes if s))
            for e in events if e.name.removeprefix("aten::") in _KERNELS]


class _ReftensorKernels:
    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.name().split("::")[1].split(".")[0]
        if name in _KERNELS:
            self.seen.append((name, tuple(tuple(a.shape) for a in args
                                          if isinstance(a, reftensor.Tensor))))
        return func(*args, **(kwargs or {}))


def _graph(y) -> list[str]:
    names, seen, todo = [], set(), [y.grad_fn]
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        todo += [n for n, _ in node.next_functions]
    return names


def _plan_operands(lib, case):
    a_shape, a_stride, b_shape, b_stride, requires_grad, _ = case.args

    def make(shape, stride, grad, start):
        need = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride,
                                                                          strict=True))
        values = lib.arange(start, start + need, dtype=lib.float64) % 7 - 3
        return values.as_strided(shape, stride).detach().requires_grad_(grad)

    return make(a_shape, a_stride, requires_grad[0], 0), make(b_shape, b_stride,
                                                             requires_grad[1], 5)


def _plan_run(lib, case):
    a, b = _plan_operands(lib, case)
    if lib is torch:
        seen = _torch_kernels(a, b)
        a, b = _plan_operands(lib, case)
        y = a @ b
    else:
        mode = _ReftensorKernels()
        state.modes.append(mode)
        try:
            a @ b
        finally:
            state.modes.pop()
        seen = mode.seen
        # the graph without the mode, as torch's (under a mode torch's ``reshape`` views,
        # and so does reftensor's: ``ViewBackward0`` for ``ReshapeAliasBackward0``)
        a, b = _plan_operands(lib, case)
        y = a @ b
    grads = None
    if y.requires_grad and y.numel():
        y.sum().backward()
        grads = [None if t.grad is None else t.grad.tolist() for t in (a, b)]
    return (y.tolist(), tuple(y.shape), y.stride(), _graph(y) if y.requires_grad else [],
            grads, seen)


@settings(max_examples=examples(20))
@given(data=st.data())
def test_matmul_runs_torchs_plan_kernel_values_graph_and_gradients(data):
    from autograder.course import exercises

    case = data.draw(exercises.get("matmul_plan").strategy())
    assume(not case.args[5])  # out= is test_op_table's
    try:
        expected = _plan_run(torch, case)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            _plan_run(reftensor, case)
        return
    assert _plan_run(reftensor, case) == expected, case.args
    # and the one-call NumPy path, where nothing is recorded
    got, want = (lib.matmul(*(t.detach() for t in _plan_operands(lib, case)))
                 for lib in (reftensor, torch))
    assert (got.tolist(), got.shape, got.stride()) == (want.tolist(), want.shape, want.stride())


def _matmul_module():
    import sys

    return sys.modules["reftensor.matmul"]


def test_the_plan_is_asked_on_every_matmul_call(monkeypatch):
    module = _matmul_module()
    real, calls = module.matmul_plan, []
    monkeypatch.setattr(module, "matmul_plan",
                        lambda *args: (calls.append(args[0]), real(*args))[1])
    r = reftensor
    r.ones(3) @ r.ones(3)  # the NumPy path
    r.ones(2, 3, requires_grad=True) @ r.ones(3, 4)  # recorded
    r.empty(2, 3, 4, device="meta") @ r.empty(4, device="meta")  # meta
    r.matmul(r.ones(2, 3, 4), r.ones(4), out=r.empty(0))  # out=
    r.ones(2, 3) + r.ones(3)  # no product: not asked
    assert calls[:3] == [(3,), (2, 3), (2, 3, 4)] and (2, 3, 4) in calls[3:]


def test_a_wrong_plan_changes_what_the_library_computes(monkeypatch):
    """A plan that never folds makes ``x @ w`` a ``bmm`` (its graph shows it), and a plan
    whose fold gives another output shape changes the result's shape."""
    module = _matmul_module()
    real = module.matmul_plan
    x, w = reftensor.ones(2, 3, 4, requires_grad=True), reftensor.ones(4, 5)
    assert (x @ w).grad_fn.next_functions[0][0].name() == "MmBackward0"

    def never_folds(a, sa, b, sb, requires_grad=(False, False), has_out=False):
        plan = real(a, sa, b, sb, requires_grad, has_out)
        if plan[1] != "fold":
            return plan
        return None, "bmm", tuple(a), (*a[:-2], *b), (*a[:-1], b[-1])

    monkeypatch.setattr(module, "matmul_plan", never_folds)
    assert (x @ w).grad_fn.next_functions[0][0].name() == "BmmBackward0"
    monkeypatch.setattr(module, "matmul_plan", lambda *args: (
        lambda p: (*p[:4], p[4][::-1]))(real(*args)))
    assert (x @ w).shape == (5, 3, 2)
