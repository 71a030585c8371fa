"""reftensor._formatting.tensor_repr must print exactly what ``repr`` of a torch tensor prints.

Hypothesis draws arrays aimed at the hard cases of torch's printer (0-d, empty and size-1
dimensions, huge and tiny magnitudes, nan/inf/-0.0, integer limits, summarization with
``...`` above 1000 elements, rows that wrap at 80 columns); each array is printed both ways
and the texts must match, once ``torch.`` is spelled ``reftensor.``.
"""

from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reftensor import dtypes
from reftensor._formatting import tensor_repr
from tests.strategies import examples

FLOAT_DTYPES = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]
INT_DTYPES = [dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64]
ALL = [dtypes.bool, *INT_DTYPES, *FLOAT_DTYPES]

SETTINGS = settings(max_examples=examples(200), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- helpers


def to_torch(a: np.ndarray) -> torch.Tensor:
    """The torch tensor with the same shape, values and dtype as ``a``."""
    if a.dtype == np.dtype(ml_dtypes.bfloat16):
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy())


def to_numpy(t: torch.Tensor, dtype: dtypes.dtype) -> np.ndarray:
    """The values of ``t`` as a NumPy array of ``dtype.numpy``."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.to(torch.float32).numpy().astype(dtype.numpy)
    return t.numpy()


def torch_repr(t: torch.Tensor) -> str:
    return repr(t).replace("torch.", "reftensor.")


def assert_same(a: np.ndarray, dtype: dtypes.dtype) -> None:
    expected = torch_repr(to_torch(a))
    assert tensor_repr(a, dtype) == expected


# --------------------------------------------------------------------------- strategies


def float_elements(dtype: dtypes.dtype) -> st.SearchStrategy[float]:
    """Floats aimed at the style choice: whole numbers, wide ranges, specials, limits."""
    info = ml_dtypes.finfo(dtype.numpy)
    limits = [float(info.max), -float(info.max), float(info.tiny), float(info.smallest_subnormal)]
    specials = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, 1e-4, 1e8, *limits]
    return st.one_of(
        st.sampled_from(specials),
        st.integers(-2000, 2000).map(float),
        st.builds(lambda m, e: m * 10.0**e, st.integers(-999, 999), st.integers(-12, 12)),
        st.builds(lambda m, e: m * 10.0**e, st.floats(-10, 10), st.integers(-10, 10)),
        st.floats(allow_nan=True, allow_infinity=True, width=32),
    )


def elements(dtype: dtypes.dtype) -> st.SearchStrategy:
    if dtype is dtypes.bool:
        return st.booleans()
    if not dtype.is_floating_point:
        info = np.iinfo(dtype.numpy)
        lo, hi = int(info.min), int(info.max)
        return st.one_of(
            st.sampled_from([lo, hi, 0, -1 if lo < 0 else 1, lo + 1, hi - 1]),
            st.integers(max(lo, -1000), min(hi, 1000)),
            st.integers(lo, hi),
        )
    return float_elements(dtype)


def cast(values: list, dtype: dtypes.dtype) -> np.ndarray:
    """``values`` as an array of ``dtype``; floats too big for it become inf, as in torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if dtype.is_floating_point:
            return np.array(values, dtype=np.float64).astype(dtype.numpy)
        return np.array(values, dtype=dtype.numpy)


small_shapes = st.one_of(
    st.just(()),
    st.lists(st.integers(0, 5), min_size=1, max_size=4),
    st.tuples(st.integers(0, 40)),  # long single rows that wrap
    st.tuples(st.integers(1, 3), st.integers(0, 25)),
)
# More than 1000 elements, so torch summarizes; some dimensions stay short.
large_shapes = st.sampled_from(
    [
        (1001,),
        (2500,),
        (2, 600),
        (600, 2),
        (1000, 1),
        (1, 1, 1001),
        (11, 100),
        (7, 7, 7, 3),
        (3, 4, 90),
        (8, 130),
        (13, 9, 9),
        (1, 2000),
    ]
)


@st.composite
def arrays(draw: st.DrawFn, dtype: dtypes.dtype) -> np.ndarray:
    """An array of ``dtype``, sometimes a non-contiguous view, sometimes summarized."""
    shape = tuple(draw(st.one_of(small_shapes, small_shapes, large_shapes)))
    n = math.prod(shape)
    if n <= 200:
        flat = draw(st.lists(elements(dtype), min_size=n, max_size=n))
    else:
        # Big arrays: a few drawn values scattered by a drawn seed, so the edges that torch
        # looks at are as varied as a small array's.
        palette = draw(st.lists(elements(dtype), min_size=1, max_size=6))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        flat = [palette[i] for i in rng.integers(0, len(palette), size=n)]
    a = cast(flat, dtype).reshape(shape)
    if a.ndim >= 2 and draw(st.booleans()):
        a = a.swapaxes(0, -1)  # any strides must do
    return a


# --------------------------------------------------------------------------- property tests


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: d.name)
@SETTINGS
@given(data=st.data())
def test_matches_torch(dtype: dtypes.dtype, data: st.DataObject) -> None:
    assert_same(data.draw(arrays(dtype)), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: d.name)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_requires_grad_and_grad_fn(dtype: dtypes.dtype, data: st.DataObject) -> None:
    a = data.draw(arrays(dtype))
    t = to_torch(a).requires_grad_()
    assert tensor_repr(a, dtype, requires_grad=True) == torch_repr(t)

    doubled = t * 2
    name = type(doubled.grad_fn).__name__
    assert name == "MulBackward0"
    out = tensor_repr(to_numpy(doubled, dtype), dtype, requires_grad=True, grad_fn_name=name)
    assert out == torch_repr(doubled)


# --------------------------------------------------------------------------- fixed examples


@pytest.mark.parametrize(
    "values",
    [
        [1.0, -math.inf],
        [1.0, -0.0],
        [0.0, math.nan],
        [-0.0],
        [1e-5, 1.0, math.nan],
        [1e8, 1.0],
        [123456789.0],
        [0.1, 100.0],
        [0.1, 100.5],
        [1e-4, 0.1],
        [-1.5, 2.25, 3.0],
        [math.nan, math.inf, -math.inf],
    ],
)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: d.name)
def test_float_styles(values: list[float], dtype: dtypes.dtype) -> None:
    assert_same(cast(values, dtype), dtype)
    assert_same(cast(values[0], dtype), dtype)  # 0-d


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (1, 0, 4)])
def test_empty(dtype: dtypes.dtype, shape: tuple[int, ...]) -> None:
    assert_same(np.zeros(shape, dtype=dtype.numpy), dtype)


def test_examples() -> None:
    assert tensor_repr(np.array([1, 2], np.int32), dtypes.int32) == (
        "tensor([1, 2], dtype=reftensor.int32)"
    )
    assert tensor_repr(np.zeros((0, 3), np.float32), dtypes.float32) == "tensor([], size=(0, 3))"
    assert tensor_repr(np.array(2.0, np.float32), dtypes.float32) == "tensor(2.)"


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: d.name)
def test_summarized_ranges(dtype: dtypes.dtype) -> None:
    for shape in [(1001,), (10, 101), (3, 3, 112), (12, 12, 12)]:
        a = (np.arange(math.prod(shape)) % 97).reshape(shape).astype(dtype.numpy)
        assert_same(a, dtype)


@pytest.mark.parametrize("dtype", [dtypes.float16, dtypes.float32, dtypes.int16])
def test_suffix_wraps_after_long_last_line(dtype: dtypes.dtype) -> None:
    # Rows whose last line ends near column 80 push the dtype and grad suffixes around.
    for n in range(1, 40):
        a = cast([10.0**k for k in range(n % 4)] * n, dtype)
        assert_same(a, dtype)
        if dtype.is_floating_point:
            t = to_torch(a).requires_grad_()
            assert tensor_repr(a, dtype, requires_grad=True) == torch_repr(t)


def test_default_dtype_float64() -> None:
    old_torch, old_ref = torch.get_default_dtype(), dtypes.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    dtypes.set_default_dtype(dtypes.float64)
    try:
        for dtype in (dtypes.float32, dtypes.float64):
            assert_same(np.array([1.5, 2.0], dtype=dtype.numpy), dtype)
            assert_same(np.zeros((0,), dtype=dtype.numpy), dtype)
    finally:
        torch.set_default_dtype(old_torch)
        dtypes.set_default_dtype(old_ref)
