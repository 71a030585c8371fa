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

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import compare_op, same_on_both
from tests.strategies import FLOAT_NAMES, small_shapes, tensors

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
