"""Chapter 4 (first part): dtype limits and the dtype-conversion methods, against torch."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import reftensor
from tests.difftest import compare_op, same_on_both
from tests.strategies import ALL_NAMES, FLOAT_NAMES, INT_NAMES, tensors

pytestmark = pytest.mark.ch04

CONVERSIONS = ["half", "bfloat16", "float", "double", "byte", "char", "short", "int", "long",
               "bool"]


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo(name):
    t, r = torch.finfo(getattr(torch, name)), reftensor.finfo(getattr(reftensor, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(r, attr) == getattr(t, attr), attr
    assert repr(r) == repr(t)


@pytest.mark.parametrize("name", INT_NAMES)
def test_iinfo(name):
    t, r = torch.iinfo(getattr(torch, name)), reftensor.iinfo(getattr(reftensor, name))
    assert (r.bits, r.min, r.max, r.dtype) == (t.bits, t.min, t.max, t.dtype)
    assert repr(r) == repr(t)


@pytest.mark.parametrize("make", [
    lambda lib: lib.finfo(lib.int32), lambda lib: lib.iinfo(lib.float32),
    lambda lib: lib.iinfo(lib.bool), lambda lib: lib.finfo().bits,
    lambda lib: lib.finfo(lib.float16) == lib.finfo(lib.float16),
])
def test_info_edges(make):
    same_on_both(make)


@given(tensors(), st.sampled_from(CONVERSIONS), st.sampled_from(ALL_NAMES))
def test_conversion_methods_copy_exactly_when_torch_does(spec, method, other):
    """``t.float()`` and friends: the same object when the dtype already matches, else a
    copy whose layout follows ``to``'s rule; ``type_as`` likewise."""
    compare_op(lambda lib, x: (getattr(x, method)(), getattr(x, method)() is x), spec)

    def type_as(lib, x):
        y = lib.zeros(1, dtype=getattr(lib, other))
        return x.type_as(y), x.type_as(y) is x

    compare_op(type_as, spec)
