"""Chapter 4: reductions, on torch and reftensor, over generated layouts and arguments.

Each test draws input tensors of every layout (contiguous, permuted, stepped, offset,
expanded, overlapping; 0-d, empty and size-1 dims) and ``dim`` arguments both valid and
invalid (None, ints, tuples, lists, repeats, out of range), and ``compare_op`` checks the
result's shape, strides, dtype and values, and the exception class when torch refuses.

Float sums and means may differ from torch in the last bits (torch sums with a cascade,
NumPy pairwise), so they are compared to ``SUM_ULPS``; float products, whose rounding
depends on the order of the multiplications, to ``PROD_ULPS``; var/std to ``VAR_ULPS``.
Everything else (integers, bool, max/min, arg*, all/any) must agree exactly.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import _values_equal, compare_op, describe, same_on_both
from tests.strategies import ALL_NAMES, FLOAT_NAMES, KINDS, examples, shapes, small_shapes, tensors

pytestmark = pytest.mark.ch04

SUM_ULPS = 4
PROD_ULPS = 64
VAR_ULPS = 4

one_dim = st.integers(-5, 4)
#: every form ``dim`` takes: None, an int, a tuple or list (empty, repeated, out of range)
dims = st.one_of(
    st.none(), one_dim,
    st.lists(one_dim, max_size=3).map(tuple),
    st.lists(one_dim, max_size=3),
)
keepdims = st.booleans()
out_dtypes = st.sampled_from([None, "bool", "uint8", "int8", "int32", "int64", *FLOAT_NAMES])
float_dtypes = st.sampled_from([None, *FLOAT_NAMES])


def _dtype(lib, name):
    return None if name is None else getattr(lib, name)


# ---------------------------------------------------------------------- sum, mean, prod
@given(tensors(), dims, keepdims, out_dtypes)
def test_sum(spec, dim, keepdim, dt):
    compare_op(lambda lib, x: x.sum(dim, keepdim), spec, ulps=SUM_ULPS)
    compare_op(lambda lib, x: lib.sum(x, dim, keepdim, dtype=_dtype(lib, dt)), spec,
               ulps=SUM_ULPS)


@given(tensors())
def test_sum_with_no_arguments(spec):
    compare_op(lambda lib, x: x.sum(), spec, ulps=SUM_ULPS)
    compare_op(lambda lib, x: lib.sum(x), spec, ulps=SUM_ULPS)


@given(tensors(), dims, keepdims, st.sampled_from([None, *FLOAT_NAMES, "int64", "bool"]))
def test_mean(spec, dim, keepdim, dt):
    """Integer input raises unless a floating ``dtype=`` is given; empty means are nan."""
    compare_op(lambda lib, x: x.mean(dim, keepdim, dtype=_dtype(lib, dt)), spec,
               ulps=SUM_ULPS)
    compare_op(lambda lib, x: lib.mean(x), spec, ulps=SUM_ULPS)


@given(tensors(shape=small_shapes), st.one_of(st.none(), one_dim), keepdims, out_dtypes)
def test_prod(spec, dim, keepdim, dt):
    compare_op(lambda lib, x: x.prod(dim, keepdim) if dim is not None else x.prod(), spec,
               ulps=PROD_ULPS)
    compare_op(lambda lib, x: lib.prod(x, dtype=_dtype(lib, dt)), spec, ulps=PROD_ULPS)


@given(tensors(shape=small_shapes), st.lists(one_dim, max_size=2).map(tuple))
def test_prod_takes_one_dim_only(spec, dim):
    compare_op(lambda lib, x: x.prod(dim), spec)


@given(tensors(dtypes=("float16", "bfloat16"), shape=st.sampled_from([(64,), (8, 40)])))
def test_half_types_accumulate_in_float32(spec):
    """Many elements: the float32 accumulator keeps the sum exact where 16 bits would not."""
    compare_op(lambda lib, x: (x.sum(), x.sum(-1), x.mean(), x.mean(0)), spec, ulps=SUM_ULPS)


# ---------------------------------------------------------------- amax, amin, max, min
@given(tensors(), st.one_of(dims, st.just(())), keepdims)
def test_amax_amin(spec, dim, keepdim):
    """An empty input raises when no dim is given, and a reduced dim of size 0 raises."""
    for name in ("amax", "amin"):
        compare_op(lambda lib, x, name=name: getattr(x, name)(dim, keepdim), spec)
        compare_op(lambda lib, x, name=name: getattr(lib, name)(x), spec)


@given(tensors(), one_dim, keepdims)
def test_max_min_along_a_dim(spec, dim, keepdim):
    """A (values, indices) named tuple; compared as a plain tuple, and by field name."""
    for name in ("max", "min"):
        compare_op(lambda lib, x, name=name: tuple(getattr(x, name)(dim, keepdim)), spec)
        compare_op(lambda lib, x, name=name: (
            getattr(lib, name)(x, dim).values, getattr(lib, name)(x, dim=dim).indices), spec)


@pytest.mark.parametrize("op", ["sum(0)", "amax(0)", "amin((0, 1))", "max(0)", "all(0)",
                                "any(0)"])
def test_reducing_along_a_dim_of_a_65_dim_tensor_is_a_runtime_error(op):
    """torch's TensorIterator takes at most 64 dims; reftensor makes the tensor, and its ops
    refuse it with torch's RuntimeError (NumPy's limit is the same 64)."""
    same_on_both(lambda lib: eval(f"x.{op}", {"x": lib.ones([1] * 65)}))


@given(tensors())
def test_max_min_of_everything(spec):
    """A 0-d tensor; an empty input raises."""
    compare_op(lambda lib, x: (x.max(), lib.min(x)), spec)


@given(tensors(), st.one_of(st.none(), one_dim), keepdims)
def test_argmax_argmin(spec, dim, keepdim):
    """int64 indices, into the flattened tensor without a dim; bool input raises."""
    compare_op(lambda lib, x: x.argmax(dim, keepdim), spec)
    compare_op(lambda lib, x: lib.argmin(x, dim, keepdim=keepdim), spec)


@given(tensors(), st.sampled_from([(1,), [0], 1.0, True]))
def test_dims_that_are_not_ints_raise(spec, dim):
    compare_op(lambda lib, x: x.max(dim), spec)
    compare_op(lambda lib, x: x.argmax(dim), spec)
    compare_op(lambda lib, x: x.sum(dim), spec)


nan = float("nan")
specials = st.lists(st.sampled_from([0.0, 1.0, 1.0, 2.0, 2.0, -3.0, nan]), min_size=1,
                    max_size=12)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@given(specials, st.sampled_from(FLOAT_NAMES), st.booleans())
def test_ties_and_nan(values, dt, transpose):
    """Ties give the first index; nan propagates and its (first) index wins both ways."""
    n = len(values)
    rows = 2 if n % 2 == 0 else 1

    def program(lib):
        x = lib.tensor(values, dtype=getattr(lib, dt)).reshape(rows, n // rows)
        if transpose:
            x = x.t()
        return (x.argmax(), x.argmin(), tuple(x.max(0)), tuple(x.min(1, True)), x.amax(1),
                x.amin(), x.max(), x.sum(0), x.mean(), x.var(1))

    same_on_both(program, ulps=SUM_ULPS)


# ----------------------------------------------------------------------------- all, any
@given(tensors(), st.one_of(dims, st.just(())), keepdims)
def test_all_any(spec, dim, keepdim):
    """bool results, but uint8 in gives uint8 out; ``dim=()`` reduces nothing."""
    compare_op(lambda lib, x: (x.all(), x.any()), spec)
    compare_op(lambda lib, x: lib.all(x, dim, keepdim), spec)
    compare_op(lambda lib, x: x.any(dim, keepdim=keepdim), spec)


# ----------------------------------------------------------------------------- var, std
var_forms = st.sampled_from([
    ((), {}), ((True,), {}), ((False,), {}), (("D",), {}), (("D", False), {}),
    (("D", True, True), {}), (("D",), {"correction": 0}), (("D",), {"correction": 2}),
    (("D",), {"correction": 0.5, "keepdim": True}), ((), {"correction": -1}),
    (("D",), {"unbiased": False, "keepdim": True}), (("D", False), {"correction": 1}),
    (("D",), {"unbiased": True, "correction": 1}), ((None, True, True), {}),
    (("D", None), {}), ((True, True), {}),
])


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@given(tensors(), dims, var_forms)
def test_var_std(spec, dim, form):
    """Integer input raises; N - correction <= 0 gives nan or inf (torch also warns)."""
    args, kwargs = form
    args = tuple(dim if a == "D" else a for a in args)
    for name in ("var", "std"):
        compare_op(lambda lib, x, name=name: getattr(x, name)(*args, **kwargs), spec,
                   ulps=VAR_ULPS)
    compare_op(lambda lib, x: lib.std(x, *args, **kwargs), spec, ulps=VAR_ULPS)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@given(tensors(dtypes=FLOAT_NAMES, shape=st.sampled_from([(), (1,), (2, 1), (0, 2)])),
       st.sampled_from([0, 1, 2, 3.5]))
def test_var_with_too_few_degrees_of_freedom(spec, correction):
    compare_op(lambda lib, x: (x.var(correction=correction), x.std(0, correction=correction)),
               spec)


# ---------------------------------------------------------------------- output layout
@given(st.permutations(range(4)), keepdims, st.sampled_from([0, 1, (1, 3), -1]))
def test_output_is_contiguous_whatever_the_input_layout(order, keepdim, dim):
    """Even channels-last or permuted input gives a row-major result."""

    def program(lib):
        x = lib.arange(120.0).reshape(2, 3, 4, 5).permute(*order)
        c = lib.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=lib.channels_last)
        return tuple(
            r for t in (x, c) for r in (
                t.sum(dim, keepdim), t.amax(dim, keepdim), t.var(dim, keepdim=keepdim),
                t.all(dim, keepdim), *(t.max(dim, keepdim) if isinstance(dim, int) else ()),
            )
        )

    same_on_both(program, ulps=SUM_ULPS)



@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(["float32", "float64"]),
       transposed=st.booleans(), size=st.sampled_from([(300, 300), (256, 1024), (70001, 1)]))
def test_sum_of_a_large_dense_tensor(seed, dtype, transposed, size):
    """Full sums of 65,536 elements or more take reftensor's BLAS path (rows of 1024 times a
    ones vector, then pairwise). Layout and dtype are compared as always; the value to
    ``eps * sum(|x|)``: every float summation order (torch's cascade, NumPy's pairwise, BLAS
    rows) stays far inside that bound, and a lost row or tail does not."""
    values = np.random.default_rng(seed).standard_normal(size)

    def program(lib):
        x = lib.tensor(values.tolist(), dtype=getattr(lib, dtype))
        return (x.T if transposed else x).sum()

    same_on_both(program, values=False)
    expected, got = program(torch).item(), program(reftensor).item()
    bound = torch.finfo(getattr(torch, dtype)).eps * float(np.abs(values).sum())
    assert abs(got - expected) <= bound, (got, expected, bound)


# ===================================================================== the reduction loop
# The student edition reduces every input of fewer than ``reductions.LOOP_NUMEL`` elements
# with ``reductions.reduce_loop`` (chapter 3's piece) in sum, mean, prod, amax/amin,
# max()/min() and all/any, and with ``reductions.arg_reduce_loop`` (chapter 4's) in argmax,
# argmin, max(dim) and min(dim); the reference reduces with NumPy. Here the reference is switched
# to the loop (its own body of the piece) and the result is compared with the NumPy path:
# values, dtype, layout, errors. Everything is exact but float sums and means, whose
# order differs: the loop adds one element at a time in memory order, as torch's scalar
# loops do, and NumPy pairwise. Measured on 1,491 random float32 sums of under 64
# elements over random dims of permuted inputs: the loop gives torch's bits on 1,288,
# NumPy on 1,271, and both on all 1,063 with at most 4 elements per output (torch's
# vectorised kernels sum longer rows in 4 x 8 interleaved partial sums: a 1-d contiguous
# float32 sum of n < 64 elements is torch's to the bit, 3,000 of 3,000, when modelled that
# way, which a fold of one element at a time cannot do).
loop_shapes = shapes.filter(lambda shape: math.prod(shape) < 64)


@contextlib.contextmanager
def _reduction_path(loop: bool):
    from reftensor import reductions

    saved = reductions.LOOP, reductions.ARG_LOOP
    reductions.LOOP = reductions.ARG_LOOP = loop
    try:
        yield
    finally:
        reductions.LOOP, reductions.ARG_LOOP = saved


def _facts_on(loop: bool, program, spec) -> object:
    with _reduction_path(loop), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = spec.make(reftensor)
        try:
            result = program(reftensor, x)
        except Exception as err:  # noqa: BLE001 - the class and message are compared
            return ["raised", type(err).__name__, str(err)]
        results = result if isinstance(result, tuple) else (result,)
        return [[sorted(describe(t).items())] for t in results]


#: machine epsilon of the dtype of a float sum's result
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}


def reduction_loop_agrees(program, spec, ulps: int = 0, eps: float = 2.0**-52) -> None:
    """``program(reftensor, x)`` gives the same on ``reduce_loop`` as on NumPy's path (float
    values within ``ulps`` of ``eps``, measured at the largest magnitude summed)."""
    numpy_facts, loop_facts = _facts_on(False, program, spec), _facts_on(True, program, spec)
    scale = max((abs(float(v)) for v in getattr(spec, "values", ()) if v == v
                 and abs(float(v)) != math.inf), default=0.0) * 64
    assert _values_equal(_listed(numpy_facts), _listed(loop_facts), ulps, eps, scale), (
        numpy_facts, loop_facts)


def _listed(facts):
    if isinstance(facts, tuple | list):
        return [_listed(v) for v in facts]
    return facts


REDUCTIONS = {
    "sum": lambda lib, x, dim, keepdim: x.sum(dim, keepdim),
    "sum()": lambda lib, x, dim, keepdim: x.sum(),
    "sum dtype": lambda lib, x, dim, keepdim: lib.sum(x, dim, keepdim, dtype=lib.int8),
    "sum float": lambda lib, x, dim, keepdim: lib.sum(x, dim, keepdim, dtype=lib.float16),
    "sum bool": lambda lib, x, dim, keepdim: lib.sum(x, dim, keepdim, dtype=lib.bool),
    "mean": lambda lib, x, dim, keepdim: x.mean(dim, keepdim),
    "mean dtype": lambda lib, x, dim, keepdim: x.mean(dim, keepdim, dtype=lib.float64),
    "prod": lambda lib, x, dim, keepdim: x.prod(),
    "prod dim": lambda lib, x, dim, keepdim: x.prod(dim if isinstance(dim, int) else 0,
                                                     keepdim),
    "prod bool": lambda lib, x, dim, keepdim: x.prod(dtype=lib.bool),
    "amax": lambda lib, x, dim, keepdim: x.amax(() if dim is None else dim, keepdim),
    "amin": lambda lib, x, dim, keepdim: x.amin(() if dim is None else dim, keepdim),
    "max()": lambda lib, x, dim, keepdim: (x.max(), x.min()),
    "all": lambda lib, x, dim, keepdim: x.all(dim, keepdim),
    "any": lambda lib, x, dim, keepdim: x.any(dim, keepdim),
    # arg_reduce_loop (chapter 4's piece)
    "argmax": lambda lib, x, dim, keepdim: x.argmax(dim if isinstance(dim, int) else None,
                                                    keepdim),
    "argmin": lambda lib, x, dim, keepdim: x.argmin(dim if isinstance(dim, int) else None,
                                                    keepdim),
    "max dim": lambda lib, x, dim, keepdim: tuple(x.max(dim if isinstance(dim, int) else 0,
                                                        keepdim)),
    "min dim": lambda lib, x, dim, keepdim: tuple(x.min(dim if isinstance(dim, int) else -1,
                                                        keepdim)),
}
#: float sums and means: the loop's order is not NumPy's (see above)
REORDERED = {"sum", "sum()", "sum float", "mean", "mean dtype"}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@settings(max_examples=examples(40))
@given(spec=tensors(dtypes=ALL_NAMES, shape=loop_shapes, kinds=KINDS), dim=dims,
       keepdim=keepdims)
def test_the_reduction_loop_agrees_with_numpy(name, spec, dim, keepdim):
    """Every dtype, every layout (contiguous, permuted, stepped, offset, expanded with
    stride 0, overlapping; 0-d, empty and size-1 dims), every form of ``dim``."""
    ulps = SUM_ULPS if name in REORDERED else 0
    eps = 2.0**-52 if name == "mean dtype" else EPS.get(spec.dtype, 2.0**-52)
    if name == "sum float":  # dtype=float16: accumulated in float32, rounded to float16
        eps = 2.0**-10
    reduction_loop_agrees(lambda lib, x: REDUCTIONS[name](lib, x, dim, keepdim), spec, ulps,
                          eps)


def test_the_reduction_loop_agrees_with_numpy_on_layouts_chosen_by_hand():
    cases = [
        (lambda lib: lib.tensor(2.5), lambda lib, x: (x.sum(), x.sum(0), x.amax(-1, True))),
        (lambda lib: lib.ones(2, 0, 3), lambda lib, x: (x.sum(1), x.prod(1), x.all((0, 1)),
                                                        x.amax(2), x.sum((0, 2), True))),
        (lambda lib: lib.arange(24.0).view(2, 3, 4).permute(2, 0, 1)[:, ::2],
         lambda lib, x: (x.sum((0, 2), True), x.mean(1), x.prod(), x.amin((1, 2)))),
        (lambda lib: lib.arange(3).view(3, 1).expand(3, 4),
         lambda lib, x: (x.sum(0), x.sum(1, True), x.prod(1), x.amax(0))),
        (lambda lib: lib.arange(10, dtype=lib.int8).as_strided((3, 2), (1, 3), 2) * 40,
         lambda lib, x: (x.sum(), x.sum(0, dtype=lib.int8), x.prod(0), x.any(1))),
        (lambda lib: lib.tensor([[1.0, float("nan")], [float("-inf"), 0.0]]),
         lambda lib, x: (x.amax(0), x.amin(1), x.max(), x.sum(1), x.all(0))),
        (lambda lib: lib.tensor([0.1, 2049.0, 3.0], dtype=lib.bfloat16),
         lambda lib, x: (x.sum(), x.mean(), x.prod(), x.sum(dtype=lib.int32))),
    ]
    for make, program in cases:
        reduction_loop_agrees(program, _Made(make))
        same_on_both(lambda lib, make=make, program=program: program(lib, make(lib)),
                     ulps=SUM_ULPS)


class _Made:
    """A tensor built by ``make(lib)``, where a ``TensorSpec`` is expected."""

    def __init__(self, make):
        self.make = make


def test_the_reduction_loop_runs_only_on_small_inputs_and_only_where_asked(monkeypatch):
    from reftensor import pieces, reductions

    # the reference's NumPy path unless this is the student edition (whose piece is a stub)
    assert reductions.LOOP == pieces.stubbed(reductions.reduce_loop)
    calls = []
    real = reductions.reduce_loop
    monkeypatch.setattr(reductions, "reduce_loop",
                        lambda step, start, out, x, dims, keepdim:
                        (calls.append(x[1]), real(step, start, out, x, dims, keepdim))[1])
    with _reduction_path(False):
        reftensor.arange(4).sum()
    assert calls == []
    with _reduction_path(True):
        x = reftensor.arange(reductions.LOOP_NUMEL - 1.0)
        x.sum(), x.mean(), x.amax(), x.all(), x.prod()
        x.argmax(), x.var()  # not by this loop
        reftensor.arange(reductions.LOOP_NUMEL).sum()  # too big: NumPy
    assert calls == [(reductions.LOOP_NUMEL - 1,)] * 5


def test_the_index_loop_runs_only_on_small_inputs_and_only_where_asked(monkeypatch):
    from reftensor import pieces, reductions

    assert reductions.ARG_LOOP == pieces.stubbed(reductions.arg_reduce_loop)
    calls = []
    real = reductions.arg_reduce_loop
    monkeypatch.setattr(reductions, "arg_reduce_loop",
                        lambda beats, values, indices, x, dim, keepdim:
                        (calls.append(x[1]), real(beats, values, indices, x, dim, keepdim))[1])
    with _reduction_path(False):
        reftensor.arange(4).argmax()
    assert calls == []
    with _reduction_path(True):
        x = reftensor.arange(reductions.LOOP_NUMEL - 1.0).view(-1, 1)
        x.argmax(), x.argmin(0), x.max(0), x.min(1, True)
        x.amax(), x.sum()  # not by this loop
        reftensor.arange(reductions.LOOP_NUMEL).argmax()  # too big: NumPy
    n = reductions.LOOP_NUMEL - 1
    assert calls == [(n,), (n, 1), (n, 1), (n, 1)]


def test_a_wrong_index_loop_changes_what_the_library_computes(monkeypatch):
    """A loop where the last of equal elements wins gives other indices."""
    from reftensor import reductions

    real = reductions.arg_reduce_loop

    def last_wins(beats, values, indices, input, dim, keepdim):
        real(lambda x, best: beats(x, best) or x == best, values, indices, input, dim, keepdim)

    x = reftensor.tensor([[1, 3, 3], [2, 2, 0]])
    with _reduction_path(True):
        assert x.argmax(1).tolist() == [1, 0]
        monkeypatch.setattr(reductions, "arg_reduce_loop", last_wins)
        assert x.argmax(1).tolist() == [2, 1]
    with _reduction_path(False):
        assert x.argmax(1).tolist() == [1, 0]


def test_a_wrong_reduction_loop_changes_what_the_library_computes(monkeypatch):
    """A loop that forgets the input's offset gives other sums: the library runs it."""
    from reftensor import reductions

    real = reductions.reduce_loop

    def offsetless(step, start, out, input, dims, keepdim):
        real(step, start, out, (*input[:3], 0), dims, keepdim)

    x = reftensor.arange(6).view(2, 3)[1:]
    with _reduction_path(True):
        assert x.sum().item() == 12
        monkeypatch.setattr(reductions, "reduce_loop", offsetless)
        assert x.sum().item() == 3
    with _reduction_path(False):
        assert x.sum().item() == 12


def test_the_reduction_loop_gives_torchs_float32_sums_of_up_to_4_elements():
    """Folding in memory order is torch's order when each output reduces at most 4 elements
    (torch's scalar and 4-row loops add them one after another)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 4)) for _ in range(ndim))
        values = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(
            np.float32)
        order = tuple(int(d) for d in rng.permutation(ndim))
        reduced = tuple(d for d in range(ndim) if rng.integers(0, 2))
        count = math.prod(values.transpose(order).shape[d] for d in reduced)
        if count > 4 or not reduced:
            continue
        found = []
        for lib in (torch, reftensor):
            x = lib.tensor(values.tolist(), dtype=lib.float32).permute(order)
            found.append(np.array(x.sum(reduced).tolist(), np.float32))
        with _reduction_path(True):
            x = reftensor.tensor(values.tolist(), dtype=reftensor.float32).permute(order)
            found.append(np.array(x.sum(reduced).tolist(), np.float32))
        assert found[2].view(np.int32).tolist() == found[0].view(np.int32).tolist()

# ------------------------------------------------------------- sorting (issue 43)
#: a float line with ties among numbers, nans, -0.0 beside 0.0, and infinities
_SORT_VALUES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, float("nan"), float("inf"),
                                -float("inf")])


@st.composite
def _float_lines(draw: st.DrawFn) -> Any:
    """A float tensor of 1 or 2 dims whose lines along the last dim are long enough for
    ``std::sort``'s quicksort (up to 70 elements), in any layout, filled from
    ``_SORT_VALUES``."""
    shape = draw(st.one_of(st.tuples(st.integers(0, 70)),
                           st.tuples(st.integers(1, 3), st.integers(0, 70))))
    spec = draw(tensors(dtypes=FLOAT_NAMES, shape=shape))
    values = draw(st.lists(_SORT_VALUES, min_size=len(spec.storage),
                           max_size=len(spec.storage)))
    return type(spec)(spec.shape, spec.stride, spec.offset, spec.dtype, tuple(values),
                      spec.kind)


@settings(max_examples=60, deadline=None)
@given(t=_float_lines(), descending=st.booleans(), stable=st.sampled_from([None, False, True]))
def test_sort_orders_ties_nan_and_signed_zeros_as_torch(t, descending, stable):
    """nan last ascending and first descending, -0.0 and 0.0 a tie; an unstable sort puts
    ties where torch's ``std::sort`` does (indices compared exactly)."""
    compare_op(lambda lib, x: lib.sort(x, stable=stable, dim=-1, descending=descending), t)
    compare_op(lambda lib, x: lib.argsort(x, dim=-1, descending=descending), t)


@settings(max_examples=60, deadline=None)
@given(t=_float_lines(), data=st.data())
def test_topk_picks_ties_and_nan_as_torch(t, data):
    """``std::partial_sort`` (64 k <= n) or ``std::nth_element`` then ``std::sort``, sorted
    or not: the indices of ties, and of an unsorted result, are torch's."""
    k = data.draw(st.integers(0, t.shape[-1]), label="k")
    largest, ordered = data.draw(st.booleans()), data.draw(st.booleans())
    compare_op(lambda lib, x: lib.topk(x, k, -1, largest, ordered), t)


@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "float32"])
@pytest.mark.parametrize("n", [32767, 32768])
def test_sort_of_a_long_integer_line_is_torchs_radix_sort(dtype, n):
    """A 1-d integer input of 32768 elements or more sorted ascending is stable (torch's
    radix sort); below that, or for floats, std::sort's order of ties."""
    values = np.random.default_rng(n).integers(0, 3, n)
    expected = torch.sort(torch.tensor(values).to(getattr(torch, dtype)))
    got = reftensor.sort(reftensor.tensor(values).to(getattr(reftensor, dtype)))
    assert got.indices.tolist() == expected.indices.tolist()


@settings(max_examples=60, deadline=None)
@given(t=_float_lines(), dim=st.sampled_from([None, 0, -1, (), (0,)]), keepdim=st.booleans(),
       dtype=st.sampled_from([None, "float64", "float16", "int64", "int8", "bool"]))
def test_nansum_and_nanmean_skip_nan_as_torch(t, dim, keepdim, dtype):
    """nan counts as 0 in nansum (an integer ``dtype=`` truncates each element, nan as 0)
    and is left out of nanmean's count; infinities and -0.0 stay."""
    def call(lib: Any, x: Any, name: str) -> Any:
        options = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        if dim is None:
            return getattr(lib, name)(x, **options)
        return getattr(lib, name)(x, dim, keepdim, **options)

    compare_op(lambda lib, x: call(lib, x, "nansum"), t, ulps=SUM_ULPS)
    compare_op(lambda lib, x: call(lib, x, "nanmean"), t, ulps=SUM_ULPS)


@settings(max_examples=60, deadline=None)
@given(t=_float_lines(), dim=st.sampled_from([0, -1]))
def test_scans_of_nan_infinities_and_signed_zeros_are_torchs(t, dim):
    """cummax/cummin (a nan takes the running place and keeps it, ties go to the later
    index), logcumsumexp (infinities and nan), cumsum and cumprod (accumulated in torch's
    acc_type) on lines with nan, infinities, -0.0 and ties."""
    for name in ("cummax", "cummin", "cumsum", "cumprod"):
        compare_op(lambda lib, x, n=name: getattr(lib, n)(x, dim), t)
    compare_op(lambda lib, x: lib.logcumsumexp(x, dim), t, ulps=2)


@settings(max_examples=60, deadline=None)
@given(t=_float_lines(), data=st.data())
def test_median_mode_and_kthvalue_pick_torchs_element(t, data):
    """median (the first nan, else the stable order's middle), nanmedian, mode (std::sort's
    runs, each nan a run of its own) and kthvalue (torch's quickselect) on lines with nan,
    infinities, -0.0 and ties: values and indices as torch's. (Only layouts whose elements
    do not share memory: torch's median reads past an expanded input's memory.)"""
    if t.kind in ("expanded", "overlapping"):
        return
    keepdim = data.draw(st.booleans(), label="keepdim")
    for name in ("median", "nanmedian", "mode"):
        compare_op(lambda lib, x, n=name: getattr(lib, n)(x, -1, keepdim), t)
    compare_op(lambda lib, x: lib.median(x), t)
    compare_op(lambda lib, x: lib.nanmedian(x), t)
    if t.shape[-1]:
        k = data.draw(st.integers(1, t.shape[-1]), label="k")
        compare_op(lambda lib, x: lib.kthvalue(x, k, -1, keepdim), t)


#: a flag: a bool, an int (refused by the op, after the dispatch read it), a tensor of one
#: element or of several (its truth value raises RuntimeError)
_flags = st.sampled_from(["True", "False", "1", "one", "several"])


@settings(max_examples=examples(60), deadline=None)
@given(name=st.sampled_from(["unique", "unique_consecutive"]),
       flags=st.lists(_flags, max_size=3), keyword=st.sampled_from(
           [None, "sorted", "return_inverse", "return_counts"]), keyword_flag=_flags,
       method=st.booleans())
def test_unique_returns_what_torchs_dispatch_on_the_flags_picks(name, flags, keyword,
                                                              keyword_flag, method):
    """``torch.unique``'s Python function picks its results by ``boolean_dispatch``: each
    flag by keyword, else from a fixed positional place, read as a truth value first
    (``unique_consecutive`` reads ``return_inverse`` from the third place, torch 2.13's
    ``arg_index``); the tuple returned, the error raised, are torch's."""
    if name == "unique_consecutive" and keyword == "sorted":
        keyword = None

    def program(lib: Any) -> Any:
        def flag(text: str) -> Any:
            return {"True": True, "False": False, "1": 1, "one": lib.tensor([1]),
                    "several": lib.tensor([1, 0])}[text]

        x = lib.tensor([[2, 1], [2, 1], [0, 3]])
        kwargs = {keyword: flag(keyword_flag)} if keyword else {}
        if method:
            return getattr(x, name)(*map(flag, flags), **kwargs)
        return getattr(lib, name)(x, *map(flag, flags), **kwargs)

    same_on_both(program)


@pytest.mark.parametrize("data", [[True, False], [], [1, 2], 3, [1.0, 2.0]])
@pytest.mark.parametrize("args", [(5,), (5, 2, 1), (5, 3, 3), (0,), (5, math.nan, 1)])
def test_histc_checks_bins_then_the_range_then_the_dtype(data, args):
    """torch's order of histc's checks: ``bins`` first, then the range (a bound not finite,
    ``max < min``), only then the dtype (bool's bin edges, then an integer histogram)."""
    same_on_both(lambda lib: lib.histc(lib.tensor(data, dtype=lib.bool) if data == []
                                       else lib.tensor(data), *args))
