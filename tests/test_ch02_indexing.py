"""Chapter 2: ``t[index]`` and ``t[index] = value``, run on torch and reftensor and compared.

Indices are drawn as plain data (:class:`Idx`), built into each library's objects, and
applied to tensors of every layout and dtype; the harness compares the results (values,
layout, ``_base``, storage sharing, ``_version``) and the inputs afterwards, or the
exception class.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.difftest import compare_op, same_on_both
from tests.strategies import ALL_NAMES, KINDS, WRITABLE_KINDS, TensorSpec, tensors

pytestmark = [
    pytest.mark.ch02,
    # torch warns about uint8 masks, list-as-tuple indices and writes into expanded tensors;
    # reftensor warns the same, and neither is what these tests compare.
    pytest.mark.filterwarnings("ignore::UserWarning"),
]


def D(lib, name):
    return getattr(lib, name)


# ---------------------------------------------------------------------- index expressions
@dataclass(frozen=True)
class Idx:
    """An index tensor, built from its spec for either library."""

    spec: TensorSpec

    def make(self, lib: Any) -> Any:
        return self.spec.make(lib)

    def __repr__(self) -> str:
        return f"Idx({self.spec!r}, values={self.spec.storage})"


def build(lib: Any, index: Any) -> Any:
    """The index for ``lib``: tensors built from their specs, everything else as it is."""
    if isinstance(index, Idx):
        return index.make(lib)
    if isinstance(index, tuple):
        return tuple(build(lib, x) for x in index)
    if isinstance(index, list):
        return [build(lib, x) for x in index]
    return index


def _in_range(spec: TensorSpec, size: int) -> TensorSpec:
    """The same index tensor with its values folded into ``[-size, size)``."""
    if size == 0:
        return spec
    return dataclasses.replace(spec, storage=tuple(v % (2 * size) - size for v in spec.storage))


index_shapes = st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=2).map(tuple)


@st.composite
def index_tensors(draw, size: int):
    """An integer index tensor of any layout, mostly int64/int32 with in-range values."""
    dtype = draw(st.sampled_from(["int64", "int64", "int32", "int32", "int16", "uint8",
                                  "float32"]))
    spec = draw(tensors(dtypes=(dtype,), shape=index_shapes, kinds=KINDS))
    return Idx(spec=_in_range(spec, size) if draw(st.integers(0, 5)) else spec)


@st.composite
def masks(draw, shape: tuple[int, ...]):
    """A bool (sometimes uint8) mask over a run of dims of ``shape``, sometimes the wrong
    shape, of any layout; or a 0-d bool tensor."""
    if not shape or draw(st.integers(0, 6)) == 0:
        mask_shape: Any = ()
    elif draw(st.integers(0, 5)) == 0:
        mask_shape = index_shapes
    else:
        start = draw(st.integers(0, len(shape) - 1))
        mask_shape = shape[start:draw(st.integers(start + 1, len(shape)))]
    dtype = draw(st.sampled_from(["bool", "bool", "bool", "uint8"]))
    return Idx(spec=draw(tensors(dtypes=(dtype,), shape=mask_shape, kinds=KINDS)))


def index_parts(shape: tuple[int, ...]):
    """One part of an index expression: int, slice, None, ..., bool, list, tensor, mask."""
    size = max(max(shape, default=1), 1)
    ints = st.integers(-size - 1, size)
    bounds = st.none() | st.integers(-size - 2, size + 2)
    steps = st.none() | st.sampled_from([1, 1, 2, 3, -1, 0])
    int_lists = st.lists(st.integers(-size, size - 1), max_size=3)
    bool_lists = st.lists(st.booleans(), min_size=1, max_size=3)
    zero_d = st.integers(-size, size - 1).map(
        lambda i: Idx(spec=TensorSpec((), (), 0, "int64", (i,), "contiguous")))
    return st.one_of(
        ints, ints,
        st.builds(slice, bounds, bounds, steps), st.builds(slice, bounds, bounds, steps),
        st.just(None), st.just(Ellipsis), st.booleans(),
        int_lists, st.lists(int_lists.map(lambda xs: xs[:1] or [0]), min_size=1, max_size=2),
        bool_lists, zero_d,
        index_tensors(size), index_tensors(size), masks(shape),
    )


PART_KINDS = ("int", "slice", "slice", "none", "bool", "list", "lists", "bool list", "tensor",
              "tensor", "mask", "0-d")


@st.composite
def fitting_part(draw, shape: tuple[int, ...], dim: int, kinds: tuple[str, ...] = PART_KINDS):
    """A part of an index that fits dim ``dim`` of ``shape`` (most of the time), and how
    many dims it consumes."""
    size = shape[dim] if dim < len(shape) else 0
    in_range = st.integers(-size, size - 1) if size else st.integers(-1, 1)
    bounds = st.none() | st.integers(-size - 2, size + 2)
    kind = draw(st.sampled_from(kinds))
    if kind == "colon":
        return slice(None), 1
    if kind == "int":
        return draw(in_range), 1
    if kind == "slice":
        return draw(st.builds(slice, bounds, bounds, st.none() | st.sampled_from([1, 2, 3]))), 1
    if kind == "none":
        return None, 0
    if kind == "bool":
        return draw(st.booleans()), 0
    if kind == "list":
        return draw(st.lists(in_range, max_size=3)), 1
    if kind == "lists":  # a 2-d list of ints
        rows = draw(st.integers(1, 2))
        return [draw(st.lists(in_range, min_size=2, max_size=2)) for _ in range(rows)], 1
    if kind == "bool list":
        return draw(st.lists(st.booleans(), min_size=size, max_size=size)), 1
    if kind == "tensor":
        dtype = draw(st.sampled_from(["int64", "int32"]))
        spec = draw(tensors(dtypes=(dtype,), shape=index_shapes, kinds=KINDS))
        return Idx(spec=_in_range(spec, size)), 1
    if kind == "mask" and dim < len(shape):
        covered = draw(st.integers(1, len(shape) - dim))
        spec = draw(tensors(dtypes=("bool",), shape=shape[dim:dim + covered], kinds=KINDS))
        return Idx(spec=spec), covered
    value = draw(in_range)
    return Idx(spec=TensorSpec((), (), 0, "int64", (value,), "contiguous")), 1


@st.composite
def indices(draw, shape: tuple[int, ...]):
    """A whole index: usually a tuple of parts that fit the dims they land on, with at most
    one "..." and now and then a part drawn without regard to the shape; sometimes a lone
    part instead of a tuple."""
    parts: list[Any] = []
    dim = 0
    for _ in range(draw(st.integers(0, 4))):
        if dim >= len(shape) and draw(st.integers(0, 9)):
            break  # mostly stop once every dim has an index
        if draw(st.integers(0, 7)) == 0:
            parts.append(draw(index_parts(shape)))
            dim += 1
        elif Ellipsis not in parts and draw(st.integers(0, 7)) == 0:
            parts.append(Ellipsis)
            dim = max(dim, len(shape) - draw(st.integers(0, 2)))
        else:
            part, used = draw(fitting_part(shape, dim))
            parts.append(part)
            dim += used
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]
    return tuple(parts)


@st.composite
def advanced_indices(draw, shape: tuple[int, ...]):
    """A tuple naming every dim, with at least one index tensor, list or mask among
    slices, ints and None: the cases where the result's layout is worked out."""
    kinds = ("colon", "colon", "slice", "int", "none", "list", "lists", "tensor", "tensor",
             "tensor", "mask")
    parts: list[Any] = []
    dim = 0
    while dim < len(shape):
        part, used = draw(fitting_part(shape, dim, kinds))
        parts.append(part)
        dim += used
    if not any(isinstance(p, list) or isinstance(p, Idx) and p.spec.shape != () for p in parts):
        parts[draw(st.integers(0, len(parts) - 1))] = [0]
    return tuple(parts)


layout_shapes = st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=4).map(tuple)


# ---------------------------------------------------------------------- generated tests
@given(st.data())
def test_getitem_matches_torch(data):
    """Any index on a tensor of any layout and dtype: the same result (or error) as torch."""
    spec = data.draw(tensors(), label="tensor")
    index = data.draw(indices(spec.shape), label="index")
    compare_op(lambda lib, x: x[build(lib, index)], spec)


@given(st.data())
def test_advanced_getitem_layout_matches_torch(data):
    """Advanced indexing on sources of every layout with nontrivial sizes: the result's
    strides must be torch's."""
    spec = data.draw(tensors(shape=layout_shapes, dtypes=("float32", "int16")), label="tensor")
    index = data.draw(advanced_indices(spec.shape), label="index")
    compare_op(lambda lib, x: x[build(lib, index)], spec)


def _result_shape(spec: TensorSpec, index: Any) -> tuple[int, ...] | None:
    try:
        return tuple(spec.make(torch)[build(torch, index)].shape)
    except Exception:  # noqa: BLE001 - any shape will do when the index itself is wrong
        return None


@st.composite
def values_for(draw, spec: TensorSpec, index: Any):
    """A value to assign: a Python number, or a tensor whose shape broadcasts to what
    ``x[index]`` reads (drawn using torch's result shape), sometimes another dtype."""
    if draw(st.integers(0, 3)) == 0:
        if spec.dtype == "bool":
            return draw(st.booleans())
        return draw(st.integers(-3, 3) | st.sampled_from([0.5, -1.5, 2.0]))
    target = _result_shape(spec, index)
    if target is None:
        shape: Any = index_shapes
    else:
        keep = draw(st.integers(0, len(target)))
        shape = tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in target[len(target) - keep:])
        if draw(st.integers(0, 5)) == 0:
            shape = (1,) + shape  # leading size-1 dims are dropped
    dtype = spec.dtype if draw(st.integers(0, 3)) else draw(st.sampled_from(ALL_NAMES))
    return draw(tensors(dtypes=(dtype,), shape=shape, kinds=WRITABLE_KINDS))


def _assign(lib, x, index, value):
    x[build(lib, index)] = value
    return x


@given(st.data())
def test_setitem_matches_torch(data):
    """Any index, a number or a tensor value (of any dtype, broadcastable or not)."""
    spec = data.draw(tensors(kinds=WRITABLE_KINDS), label="tensor")
    index = data.draw(indices(spec.shape), label="index")
    value = data.draw(values_for(spec, index), label="value")
    compare_op(lambda lib, x, v: _assign(lib, x, index, v), spec, value)


@given(st.data())
def test_advanced_setitem_matches_torch(data):
    """index_put_ on targets of every layout, repeated indices included: the values must
    land where torch puts them (the last write in TensorIterator's order wins)."""
    spec = data.draw(tensors(shape=layout_shapes, dtypes=("float32", "int16")), label="tensor")
    index = data.draw(advanced_indices(spec.shape), label="index")
    value = data.draw(values_for(spec, index), label="value")
    compare_op(lambda lib, x, v: _assign(lib, x, index, v), spec, value)


@given(st.data())
def test_setitem_into_expanded_and_overlapping(data):
    """Basic writes refuse a target where one element is seen twice; index_put_ only warns
    and writes, the last write in TensorIterator's order winning.

    Basic writes into "overlapping" targets (no stride 0, but elements shared all the same)
    go through ``copy_`` unchecked, and which write lands last there is copy_'s business,
    tested with copy_; here those targets only take advanced writes."""
    kind = data.draw(st.sampled_from(["expanded", "overlapping"]))
    spec = data.draw(tensors(kinds=(kind,), shape=layout_shapes, dtypes=("float32", "int64")))
    index = data.draw(indices(spec.shape) if kind == "expanded"
                      else advanced_indices(spec.shape), label="index")
    value = data.draw(values_for(spec, index), label="value")
    compare_op(lambda lib, x, v: _assign(lib, x, index, v), spec, value)


# ---------------------------------------------------------------------- views and copies
def _cube(lib, dtype="float32"):
    return lib.arange(24).to(D(lib, dtype)).reshape(2, 3, 4)


BASIC = [0, -1, 1, slice(1, None), slice(None, None, 2), slice(-100, 100, 3), slice(5, 1),
         None, Ellipsis, (), (0, 1), (Ellipsis, 0), (None, 0, None, slice(1, 3)),
         (slice(None), 2), (0, Ellipsis, None), (Ellipsis, Ellipsis), (Ellipsis, 0, Ellipsis),
         (Ellipsis, Ellipsis, slice(None)), [0, slice(None)], (0, slice(None), 3)]


@pytest.mark.parametrize("index", BASIC, ids=repr)
@pytest.mark.parametrize("kind", ["contiguous", "permuted", "stepped"])
def test_basic_index_is_a_view(index, kind):
    """ints, slices, None and ... give a view: same storage, ``_base`` set, version shared
    (two "..." are accepted: each skips the unnamed dims, so the second skips nothing)."""
    def program(lib):
        x = _cube(lib)
        if kind == "permuted":  # the same shape, transposed in memory
            x = lib.arange(24.).reshape(4, 3, 2).permute(2, 1, 0)
        elif kind == "stepped":
            x = lib.arange(96.).reshape(4, 6, 4)[::2, ::2]
        return x, x[index]

    same_on_both(program)


@pytest.mark.parametrize("index", [
    True, False, (True, 0), (0, False), [0, 1], (slice(None), [2, 0]), ([[0], [1]], [0, 2]),
    ([0, 1], slice(None), [0, 1]), ([0, 1], None, [0, 1]), ([0, 1], 0, [0, 1]),
    (slice(None), [True, False, True]), [[0, 1]], (Ellipsis, [1, 0]), ([], slice(None)),
], ids=repr)
def test_advanced_index_is_a_copy(index):
    """Bools, lists and tensors give a new tensor (``_base`` None, its own storage); the
    indexed dims stay in place when adjacent, else go first."""
    same_on_both(lambda lib: (_cube(lib), _cube(lib)[index]))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_zero_d_tensor_index(dtype):
    """A 0-d integer tensor is an int (a view); a 0-d bool/uint8 tensor is a bool (a copy)."""
    for v in (0, 1, -1):
        same_on_both(lambda lib, v=v: (_cube(lib), _cube(lib)[lib.tensor(v).to(D(lib, dtype))]))
        same_on_both(lambda lib, v=v: _cube(lib)[0, lib.tensor(v).to(D(lib, dtype))])


def test_zero_d_source():
    for index in [0, 1, -1, slice(None), Ellipsis, None, True, False, (0,), [0], (None, 0),
                  (Ellipsis, None), (Ellipsis, Ellipsis, None)]:
        same_on_both(lambda lib, index=index: lib.tensor(5.0)[index])
    for flag in (True, False):
        same_on_both(lambda lib, flag=flag: lib.tensor(5.0)[lib.tensor(flag)])


# ---------------------------------------------------------------------- result layout
SOURCES = {
    "contiguous": lambda lib: _cube(lib),
    "transposed": lambda lib: _cube(lib).permute(2, 1, 0),
    "permuted": lambda lib: lib.arange(24.).reshape(4, 2, 3).permute(1, 2, 0),
    "stepped": lambda lib: lib.arange(96.).reshape(4, 6, 4)[::2, ::2],
    "channels_last": lambda lib: lib.arange(48.).reshape(2, 2, 3, 4).permute(0, 3, 1, 2),
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("index", [
    [0, 1], (slice(None), [0, 1]), (Ellipsis, [1, 0]), ([0, 1], slice(None), [0, 1]),
    ([[0, 1], [1, 0]],), (slice(None), [[0], [1]]), (0, [1, 0]), (None, [1, 0]),
    ([1], [0]), ([[1]], [[0]]), (slice(None), slice(None), [0]),
], ids=repr)
def test_advanced_result_layout(source, index):
    """The result's strides follow TensorIterator: ``src`` (stride 0 in the indexed dims)
    and the index tensors vote on the dim order, so a transposed source gives a transposed
    result."""
    same_on_both(lambda lib: SOURCES[source](lib)[index])


@pytest.mark.parametrize("make_index", [
    lambda lib: lib.tensor([[0, 1, 1], [1, 0, 0]]).t(),
    lambda lib: lib.tensor([[0, 1, 1], [1, 0, 0]], dtype=lib.int32).t(),
    lambda lib: lib.tensor([0, 1]).as_strided((3, 2), (0, 1)),
    lambda lib: lib.tensor([0, 1], dtype=lib.int32).as_strided((3, 2), (0, 1)),
    lambda lib: lib.tensor([[True, False, True, True]] * 4).t(),
])
@pytest.mark.parametrize("position", ["front", "middle", "after a slice"])
def test_index_tensor_layout_matters(make_index, position):
    """Transposed and expanded index tensors change the result's layout (an int32 index is
    first converted to int64, keeping a dense layout, densifying an expanded one)."""
    def program(lib):
        idx = make_index(lib)
        x = lib.arange(4 * 4 * 4 * 2.).reshape(4, 4, 4, 2)
        if position == "front":
            return x[idx]
        if position == "middle":
            return x[:, 1, idx] if idx.dtype is not D(lib, "bool") else x[1:3, idx]
        return x[1:, idx]

    same_on_both(program)


# ---------------------------------------------------------------------- errors
ADDRESS = re.compile(r"<object object at 0x[0-9a-f]+>")


@pytest.mark.parametrize("index", [
    5, -4, (0, 4), (None, 0, 9), [5], ([0], [3]), (0, 0, 0, 0), slice(None, None, -1),
    slice(None, None, 0), 1.5, "a", (0, "a"), slice(1.5, None), object(), {1: 2},
    (Ellipsis, Ellipsis, 0), (Ellipsis, Ellipsis, None), [[0, 1], [0, 1, 2]],
    ([True, False],), ([True] * 3 + [False],), [2**63], [-(2**63)], 2**63,
], ids=lambda index: ADDRESS.sub("object", repr(index)))  # the same ids in every process
def test_index_errors(index):
    """IndexError for out-of-range ints and indices, too many indices, masks of the wrong
    shape and index objects of the wrong type; ValueError for a step of 0 or below;
    TypeError for strings and bad slice bounds; the same class as torch each time."""
    same_on_both(lambda lib: _cube(lib)[index])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "float16"])
def test_index_tensor_of_wrong_dtype(dtype):
    same_on_both(lambda lib: _cube(lib)[lib.tensor([0]).to(D(lib, dtype))])
    same_on_both(lambda lib: _cube(lib)[lib.tensor(0).to(D(lib, dtype))])


def test_mask_errors():
    mask = [[True, False, True], [False, True, True]]
    for index in [(mask, 0), (Ellipsis, mask), (slice(None), mask), (mask, 0, 0)]:
        same_on_both(lambda lib, index=index: _cube(lib)[index])
        same_on_both(lambda lib, index=index: _cube(lib)[
            tuple(lib.tensor(m) if m is mask else m for m in index)])


def test_empty_dims():
    """An index into a dim of size 0 raises at once; an empty result skips the range check."""
    for index in [[0], [], (slice(None), [0]), ([5, 1], slice(None)), (slice(3, None), [9])]:
        same_on_both(lambda lib, index=index: lib.zeros(0, 3)[index])
        same_on_both(lambda lib, index=index: lib.zeros(2, 0)[index])
        same_on_both(lambda lib, index=index: _cube(lib)[index])


# ---------------------------------------------------------------------- writes
def _write(index, value, dtype="float32", source=_cube):
    def program(lib):
        x = source(lib, dtype) if source is _cube else source(lib)
        view = x[...]
        x[index(lib) if callable(index) else index] = value(lib) if callable(value) else value
        return x, view, view._version

    return program


@pytest.mark.parametrize("index", [0, [0, 1], (slice(None), [True, False, True]),
                                   (0, [1, 2]), True, False, (False,), (True,), None,
                                   Ellipsis, slice(0, 0), [], (slice(None), slice(3, None), [9])],
                         ids=repr)
def test_write_bumps_version_once(index):
    """Every write bumps the shared version counter once (even one that writes nothing),
    except ``t[False] = v``, which torch skips entirely."""
    same_on_both(_write(index, 1))
    same_on_both(_write(index, lambda lib: lib.tensor(2.0)))
    same_on_both(_write(index, lambda lib: lib.arange(4.0)))


def test_read_results_have_their_own_version():
    """A view shares the source's version counter; an advanced result starts at 0."""
    def program(lib):
        x = _cube(lib)
        x[0] = 1
        x[[1]] = 2
        return x, x[0], x[..., 1:], x[[0]], x[..., x[0, 0, :] == 1], x[True]

    same_on_both(program)


@pytest.mark.parametrize("value", [
    300, -1, -255, -256, 255.9, -1.5, 1e20, float("nan"), float("inf"), 1e300, 70000,
    2**63, True, 1 + 0j, 1 + 1j, "a", None, [1, 2], 2.5,
], ids=repr)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "bool", "float16", "bfloat16",
                                   "float32"])
@pytest.mark.parametrize("index", [0, [0], (slice(None), [True, False, True])], ids=repr)
def test_write_python_numbers(value, dtype, index):
    """A Python number is converted to the dtype with torch's overflow check (float16 and
    bfloat16 skip it); anything else is a TypeError."""
    same_on_both(_write(index, value, dtype))


@pytest.mark.parametrize("value_dtype", ["int64", "float64", "uint8", "bool"])
@pytest.mark.parametrize("index", [0, [0], (slice(None), [True, False, True])], ids=repr)
@pytest.mark.parametrize("shape", [(), (1,), (4,)])
def test_write_tensor_of_other_dtype(value_dtype, index, shape):
    """copy_ (basic index) casts; index_put_ demands the same dtype, except when one mask
    and a one-element value make it a masked_fill_ of ``value.item()`` (checked)."""
    for fill in (3, -1, 300) if value_dtype in ("int64", "float64") else (3,):
        same_on_both(_write(index, lambda lib, fill=fill: lib.full(
            shape, fill, dtype=D(lib, value_dtype)), "uint8"))


@pytest.mark.parametrize("shape", [(3, 4), (1, 3, 4), (1, 1, 3, 1), (4,), (2, 3, 4), (2,),
                                   (3, 1), (0,)])
@pytest.mark.parametrize("index", [0, [0], (slice(None), [0, 1]), [[0, 1]]], ids=repr)
def test_write_broadcasts_value(shape, index):
    """The value broadcasts to the indexed shape (leading size-1 dims are dropped first);
    RuntimeError when it cannot."""
    same_on_both(_write(index, lambda lib: lib.arange(math.prod(shape)).to(lib.float32)
                        .reshape(shape)))


REPEATS = {
    "x[[0, 0]]": ((2, 3), lambda lib: [0, 0], (2, 3)),
    "x[idx 2x2]": ((2,), lambda lib: lib.tensor([[0, 1], [1, 0]]), (2, 2)),
    "x[:, idx 2x2]": ((3, 2), lambda lib: (slice(None), lib.tensor([[0, 1], [1, 0]])), (2, 2)),
    "x[idx 2x2, :]": ((2, 3), lambda lib: lib.tensor([[0, 1], [1, 0]]), (2, 2, 1)),
    "x[idx 2x2 transposed]": ((2,), lambda lib: lib.tensor([[0, 1], [1, 0]]).t(), (2, 2)),
    "x[idx, idx]": ((2, 2), lambda lib: ([[0, 0], [1, 1]], [[1, 0], [1, 0]]), (2, 2)),
}


@pytest.mark.parametrize("value_layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("case", REPEATS)
def test_repeated_indices_last_write_wins(value_layout, case):
    """With a repeated index the last write wins, in TensorIterator's order: a transposed
    value makes it walk the dims the other way."""
    x_shape, index, value_shape = REPEATS[case]

    def program(lib):
        x = lib.zeros(x_shape)
        n = math.prod(value_shape)
        v = lib.arange(1.0, n + 1).reshape(value_shape[::-1]).permute(
            *reversed(range(len(value_shape))))
        x[index(lib)] = v if value_layout == "transposed" else v.contiguous()
        return x

    same_on_both(program)


def _view_of_x(which):
    def program(lib):
        x = _cube(lib).contiguous()
        stepped = lib.arange(60.).reshape(3, 4, 5)[::2, 1:, ::2]
        target = {"x": x, "stepped": stepped}[which[0]]
        value = {"x": lambda t: t, "row0": lambda t: t[0], "row1": lambda t: t[1],
                 "rows": lambda t: t[0:2], "first": lambda t: t[0, 0, 0],
                 "alias": lambda t: t[...], "shift": lambda t: t[:, 1:]}[which[2]](target)
        target[which[1]] = value
        return target

    return program


@pytest.mark.parametrize("which", [
    ("x", 0, "row1"), ("x", 0, "row0"), ("x", [0], "row0"), ("x", [0], "row1"),
    ("x", [0, 1], "x"), ("x", [1, 0], "rows"), ("x", (slice(None), [0, 1, 2]), "x"),
    ("x", slice(1, None), "first"), ("x", slice(None), "first"), ("x", Ellipsis, "x"),
    ("x", Ellipsis, "alias"), ("x", (slice(None), slice(None, 2)), "shift"),
    ("stepped", (slice(None), [0, 1, 2]), "x"), ("stepped", (slice(-2, None), [0, 1, 2]), "x"),
    ("stepped", (slice(None), [0, 1, 2]), "alias"), ("stepped", (Ellipsis, [0, 1, 2]), "x"),
    ("stepped", (None, slice(None), [0, 1, 2]), "x"),
], ids=repr)
def test_value_overlapping_the_target(which):
    """index_put_ refuses a value sharing memory with the target (fully or partly);
    torch compares tensor identity first, and a slice keeping a whole dim returns the
    tensor itself, so ``x[:, idx] = x`` is caught even when x is not dense. copy_ refuses
    only a partial overlap, and a 0-d value is cloned first."""
    same_on_both(_view_of_x(which))


def test_write_index_tensor_overlapping_target():
    def program(lib):
        x = lib.tensor([0, 1, 2])
        x[x] = 0
        return x

    same_on_both(program)

    def masked(lib):
        x = lib.tensor([True, False, True])
        x[x] = False
        return x

    same_on_both(masked)


def test_write_errors_order():
    """The value is converted before the index is read; shapes are checked before dtypes,
    index dtypes before both."""
    for index, value in [(5, "a"), (False, "a"), (False, lambda lib: lib.ones(7)),
                         ([5], lambda lib: lib.ones(5, dtype=lib.float64)),
                         (lambda lib: lib.tensor([1.0]),
                          lambda lib: lib.ones(5, dtype=lib.float64)),
                         ([True, False], lambda lib: lib.ones(2)),
                         ([0, 5], lambda lib: lib.tensor([1.0, 2.0]))]:
        def program(lib, index=index, value=value):
            x = lib.zeros(3)
            x[index(lib) if callable(index) else index] = value(lib) if callable(value) else value
            return x

        same_on_both(program)


def test_write_zero_d_target():
    for index in [Ellipsis, None, True, False, 0, [0], (0,), slice(None)]:
        same_on_both(_write(index, 7, source=lambda lib: lib.tensor(3.0)))
        same_on_both(_write(index, lambda lib: lib.ones(1),
                            source=lambda lib: lib.tensor(3.0)))
    for flag in (True, False):
        same_on_both(_write((flag,), 1, source=lambda lib: lib.tensor(3.0)))
        same_on_both(_write(lambda lib, flag=flag: lib.tensor(flag), 1,
                            source=lambda lib: lib.tensor(3.0)))


def test_lone_bool_write_is_a_copy():
    """``t[True] = v`` is a copy_ (any dtype), but ``t[(True,)] = v`` an index_put_."""
    for index in [True, (True,), (False,)]:
        same_on_both(_write(index, lambda lib: lib.ones(4, dtype=lib.float64)))


def test_list_of_indices_reads_as_tuple():
    for index in [[[0, 1], [1, 0]], [0, [1, 0]], [[0] * 33], [0] * 33, [slice(None), 0],
                  [None, 0], range(2), (range(2), 0), [1.9], [-1.9], [True, 0.5]]:
        same_on_both(lambda lib, index=index: _cube(lib)[index])


@pytest.mark.parametrize("make_index", [
    lambda lib: [lib.tensor(1), lib.tensor(0)],  # holds tensors: a tuple of two 0-d indices
    lambda lib: (0, [lib.tensor(1), 0]),  # 0-d tensors inside a list are its numbers
    lambda lib: [lib.tensor([1]), lib.tensor([0])],
    lambda lib: np.array([1, 0]),
    lambda lib: np.array([[0, 1], [1, 0]]),  # an array is never read as a tuple
    lambda lib: np.array([True, False]),
    lambda lib: (np.array(1), np.int64(-1)),
    lambda lib: np.array([0.5, 1.7]),
    lambda lib: slice(np.int64(1), None, np.int8(2)),
])
def test_numpy_and_tensor_parts(make_index):
    same_on_both(lambda lib: _cube(lib)[make_index(lib)])


# ---------------------------------------------------------------------- the positions piece
# The student edition takes the storage positions of every advanced read and write whose
# result has fewer than ``advanced_indexing.GATHER_NUMEL`` elements from
# ``index_positions`` (chapter 2's piece); the reference computes them with NumPy. Here the
# reference is switched to the piece (its own body) and compared with torch, as above, and
# the piece's positions with the NumPy ones on the same generated indices.
class _Gather:
    def __init__(self, on: bool) -> None:
        self.on = on

    def __enter__(self) -> None:
        from reftensor import advanced_indexing

        self.saved = advanced_indexing.GATHER
        advanced_indexing.GATHER = self.on

    def __exit__(self, *exc: object) -> None:
        from reftensor import advanced_indexing

        advanced_indexing.GATHER = self.saved


def _long_indices(x: Any, index: tuple[Any, ...]) -> list[Any] | None:
    """The index list that ``x[index]`` hands to ``aten.index`` when ``index`` holds only
    colons, lists and index tensors (None otherwise)."""
    import reftensor

    out: list[Any] = []
    for part in index:
        if part == slice(None) if not isinstance(part, Idx | list) else False:
            out.append(None)
        elif isinstance(part, list) and all(isinstance(v, int) for v in part):
            out.append(reftensor.tensor(part, dtype=reftensor.int64))
        elif isinstance(part, Idx) and part.spec.dtype in ("int64", "int32"):
            out.append(part.make(reftensor))
        else:
            return None
    return out if any(i is not None for i in out) else None


@given(st.data())
def test_the_piece_gives_the_numpy_positions(data):
    """On generated layouts and index lists: the same shape and storage positions from
    ``index_positions`` as from ``_AdvancedIndex.positions`` (or the same exception)."""
    from reftensor import advanced_indexing

    spec = data.draw(tensors(shape=layout_shapes, dtypes=("float32",)), label="tensor")
    kinds = ("colon", "colon", "list", "tensor", "tensor")
    parts: list[Any] = []
    for dim in range(len(spec.shape)):
        parts.append(data.draw(fitting_part(spec.shape, dim, kinds))[0])
    x = spec.make(__import__("reftensor"))
    raw = _long_indices(x, tuple(parts))
    if raw is None:
        return

    def outcome(on: bool) -> Any:
        with _Gather(on):
            try:
                info = advanced_indexing._make_info(x, raw, meta=False)
                positions = info.positions()
            except Exception as err:  # noqa: BLE001 - the classes are compared
                return type(err).__name__
            return tuple(positions.shape), positions.ravel().tolist()

    assert outcome(True) == outcome(False)


@given(st.data())
def test_the_piece_reads_as_torch(data):
    spec = data.draw(tensors(shape=layout_shapes, dtypes=("float32", "int16")), label="tensor")
    index = data.draw(advanced_indices(spec.shape), label="index")
    with _Gather(True):
        compare_op(lambda lib, x: x[build(lib, index)], spec)


@given(st.data())
def test_the_piece_writes_as_torch(data):
    spec = data.draw(tensors(shape=layout_shapes, dtypes=("float32", "int16")), label="tensor")
    index = data.draw(advanced_indices(spec.shape), label="index")
    value = data.draw(values_for(spec, index), label="value")
    with _Gather(True):
        compare_op(lambda lib, x, v: _assign(lib, x, index, v), spec, value)


def test_the_piece_runs_only_on_small_results_and_only_where_asked(monkeypatch):
    import reftensor
    from reftensor import advanced_indexing

    calls = []
    real = advanced_indexing.index_positions
    monkeypatch.setattr(advanced_indexing, "index_positions",
                        lambda *args: (calls.append(args[0]), real(*args))[1])
    x = reftensor.arange(12.0).view(3, 4)
    x[[0, 2]]
    assert calls == [] and not advanced_indexing.GATHER  # the reference: NumPy
    with _Gather(True):
        x[[0, 2]]  # 8 elements
        x[reftensor.tensor([True, False, True])]  # a mask: its long index
        x[reftensor.tensor([True, False, True])] = 1.0  # (masked_fill_: no positions)
        x[:, [1, 3]] = reftensor.zeros(3, 2)
        reftensor.arange(100)[reftensor.arange(64)]  # a result of 64 elements: NumPy
        reftensor.arange(100)[reftensor.arange(63)]
    assert calls == [(3, 4)] * 3 + [(100,)]
    assert x.tolist() == [[1.0, 0.0, 1.0, 0.0], [4.0, 0.0, 6.0, 0.0], [1.0, 0.0, 1.0, 0.0]]


# ------------------------------------------------------- nonzero, torch's hand-written binding
@given(tensors(), st.sampled_from(["function", "method"]), st.booleans())
def test_nonzero_as_a_matrix_or_a_tuple_of_views(spec, form, as_tuple):
    """``nonzero(x)`` is an ``(n, x.dim())`` int64 matrix laid out column-major; with
    ``as_tuple=True`` its columns, views of it (a 0-d input counts as 1-d): what
    ``x[x.nonzero(as_tuple=True)]`` indexes with."""
    def program(lib, x):
        return (lib.nonzero(x, as_tuple=as_tuple) if form == "function"
                else x.nonzero(as_tuple=as_tuple))
    compare_op(program, spec)


NONZERO_CALLS = {
    "as_tuple positionally": lambda lib, x: lib.nonzero(x, True),
    "as_tuple with out=": lambda lib, x: lib.nonzero(x, as_tuple=True,
                                                     out=lib.empty(0, dtype=lib.int64)),
    "the method given as_tuple positionally": lambda lib, x: x.nonzero(True),
    "as_tuple=None": lambda lib, x: lib.nonzero(x, as_tuple=None),
    "the method given out=": lambda lib, x: x.nonzero(out=lib.empty(0, dtype=lib.int64)),
    "out= of another dtype": lambda lib, x: lib.nonzero(x, out=lib.empty(0)),
    "out= given": lambda lib, x: lib.nonzero(x, out=lib.empty(0, dtype=lib.int64)),
    "input by keyword": lambda lib, x: lib.nonzero(input=x, as_tuple=False),
}


@pytest.mark.parametrize("call", NONZERO_CALLS, ids=list(NONZERO_CALLS))
def test_nonzero_accepts_and_refuses_what_torch_does(call):
    same_on_both(lambda lib: NONZERO_CALLS[call](lib, lib.tensor([[1, 0], [0, 3]])))
