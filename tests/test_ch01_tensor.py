"""Chapter 1: every reftensor API of the chapter, run on torch and reftensor and compared."""

from __future__ import annotations

import copy
import math
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

import reftensor
import reftensor.layout as L
from autograder.course.exercises.layouts import DTYPE_NAMES, shapes, strided_layouts
from tests import strategies
from tests.difftest import describe, same_on_both

pytestmark = pytest.mark.ch01

dtype_names = st.sampled_from(DTYPE_NAMES)


def D(lib, name):
    return getattr(lib, name)


# ------------------------------------------------------------------ dtypes, device, Size
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_attributes(name):
    t, r = getattr(torch, name), getattr(reftensor, name)
    assert (r.itemsize, r.is_floating_point, r.is_signed, r.is_complex) == (
        t.itemsize, t.is_floating_point, t.is_signed, t.is_complex)
    assert repr(r) == repr(t).replace("torch.", "reftensor.")


@pytest.mark.parametrize("alias", ["half", "float", "double", "short", "int", "long"])
def test_dtype_aliases(alias):
    assert getattr(reftensor, alias).name == str(getattr(torch, alias)).split(".")[1]


def test_device_and_size_repr():
    assert repr(reftensor.device("cpu")) == repr(torch.device("cpu"))
    assert str(reftensor.device("cpu:0")) == str(torch.device("cpu:0"))
    assert repr(reftensor.Size([2, 3])) == repr(torch.Size([2, 3])).replace("torch", "reftensor")
    assert reftensor.zeros(2, 3).shape == torch.zeros(2, 3).shape == (2, 3)
    same_on_both(lambda lib: lib.device("gpu"))


@given(shapes)
def test_size_numel(shape):
    same_on_both(lambda lib: (lib.Size(shape).numel(), lib.zeros(shape).numel(),
                              lib.zeros(shape).dim()))


# ------------------------------------------------------------------ factories
@given(shapes, dtype_names)
def test_zeros_ones_empty(shape, name):
    same_on_both(lambda lib: lib.zeros(shape, dtype=D(lib, name)))
    same_on_both(lambda lib: lib.ones(*shape, dtype=D(lib, name)))
    same_on_both(lambda lib: lib.empty(shape, dtype=D(lib, name)), values=False)


@given(st.lists(st.integers(-3, 4), min_size=0, max_size=4))
def test_bad_sizes_raise_like_torch(shape):
    same_on_both(lambda lib: lib.zeros(shape))
    same_on_both(lambda lib: lib.empty(*shape), values=False)


@pytest.mark.parametrize("bad", [2.5, "3", None, [2, 2.0]])
def test_size_of_wrong_type(bad):
    same_on_both(lambda lib: lib.zeros(bad))


@given(shapes, st.one_of(st.booleans(), st.integers(-5, 5), st.floats(-1e3, 1e3)))
def test_full_infers_dtype(shape, value):
    same_on_both(lambda lib: lib.full(shape, value))


scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
)


@st.composite
def nested_data(draw):
    shape = draw(st.lists(st.integers(0, 3), max_size=3))
    kind = draw(st.sampled_from(["bool", "int", "float", "mixed"]))
    elem = {"bool": st.booleans(), "int": st.integers(-1000, 1000),
            "float": st.floats(-1e6, 1e6), "mixed": scalars}[kind]

    def build(dims):
        if not dims:
            return draw(elem)
        return [build(dims[1:]) for _ in range(dims[0])]

    return build(shape)


@given(nested_data())
def test_tensor_from_nested_lists(data):
    same_on_both(lambda lib: lib.tensor(data))


@given(nested_data(), dtype_names)
def test_tensor_with_dtype(data, name):
    flat = np.array(data, dtype=object).ravel().tolist() if data != [] else []
    # Converting floats beyond an integer type's range is undefined behaviour in C++.
    assume(not any(isinstance(x, float) and not math.isfinite(x) for x in flat))
    if name not in ("float16", "bfloat16", "float32", "float64", "bool"):
        bits = getattr(torch, name).itemsize * 8
        assume(all(abs(x) < 2 ** (bits - 1) for x in flat if isinstance(x, float)))
    same_on_both(lambda lib: lib.tensor(data, dtype=D(lib, name)))


@pytest.mark.parametrize("data", [
    [[1, 2], [3]], [[1, 2], 3], [1, [2]], "abc", None, [1, None], 2**63, -(2**63) - 1,
    [[[1], [2, 3]]], [], [[], []], [True, 2, 3.5], [True, 2], 3, -(2**63), (1, 2.5),
])
def test_tensor_edge_inputs(data):
    same_on_both(lambda lib: lib.tensor(data))


@pytest.mark.parametrize("value,name", [(300, "uint8"), (-1, "uint8"), (200, "int8"),
                                        (-1.0, "uint8"), (255.5, "uint8"), (-255, "uint8"),
                                        (-256, "uint8"), (127.9, "int8"), (float("nan"), "int32"),
                                        (70000.0, "float16"), (True, "int8"),
                                        (-129, "int8"), (1e40, "float32"), (1.5, "int32"),
                                        (2.0, "bool"), (70000, "int16"), (-3.7, "int64")])
def test_tensor_conversion_edges(value, name):
    same_on_both(lambda lib: lib.tensor([value], dtype=D(lib, name)))


def test_requires_grad_needs_floating_point():
    same_on_both(lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True))
    same_on_both(lambda lib: lib.zeros(2, dtype=lib.int32).requires_grad_())
    same_on_both(lambda lib: lib.zeros(2, requires_grad=True))
    same_on_both(lambda lib: lib.tensor([1.0], requires_grad=True))


@given(st.sampled_from(["float16", "float32", "float64", "int32", "uint8", "bool"]),
       st.lists(st.integers(0, 3), max_size=3))
def test_tensor_from_numpy_array_copies(name, shape):
    arr = (np.arange(math.prod(shape)).reshape(shape) % 7).astype(name)

    def program(lib):
        t = lib.tensor(arr)
        return t, t.untyped_storage().data_ptr() == arr.__array_interface__["data"][0]

    same_on_both(program)


@given(st.one_of(st.integers(-20, 20), st.floats(-20, 20)),
       st.one_of(st.none(), st.integers(-20, 20), st.floats(-20, 20)),
       st.one_of(st.integers(-4, 4), st.floats(-4, 4).filter(lambda x: abs(x) > 0.05)))
def test_arange(a, b, step):
    assume(step != 0)
    if b is not None:
        assume(abs((b - a) / step) < 10_000)
    args = (a,) if b is None else (a, b, step)
    same_on_both(lambda lib: lib.arange(*args), ulps=1)
    if len(args) == 3 and math.ceil((args[1] - args[0]) / args[2]) < 16:
        same_on_both(lambda lib: lib.arange(*args))  # short: torch's scalar path, exact


@given(st.integers(-100, 100), st.integers(0, 20), dtype_names)
def test_arange_with_dtype(end, start, name):
    assume(name != "bool")
    same_on_both(lambda lib: lib.arange(start, end, dtype=D(lib, name)), ulps=1)


@given(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.integers(-2, 40),
       st.sampled_from(["float32", "float64", "float16"]))
def test_linspace(a, b, steps, name):
    same_on_both(lambda lib: lib.linspace(a, b, steps, dtype=D(lib, name)), ulps=2)


INT_DTYPES = st.sampled_from(["int64", "int32", "int16", "int8", "uint8"])
bounds = st.one_of(st.integers(-20, 20), st.floats(-20, 20).map(lambda x: round(x, 1)))


@given(bounds, bounds, st.one_of(st.integers(-4, 4), st.floats(-4, 4).map(lambda x: round(x, 1))),
       INT_DTYPES)
def test_arange_with_float_arguments_into_an_integer_dtype(a, b, step, name):
    """torch truncates the bounds and the step to int64 first, counts the elements in int64
    for int64 (a step that truncates to 0 is a ValueError there) and in float64 for the
    other integer dtypes: ``arange(3.1, dtype=int64)`` has 3 elements."""
    assume(step == 0 or abs((b - a) / step) < 1_000)
    same_on_both(lambda lib: lib.arange(a, b, step, dtype=D(lib, name)))


@given(bounds, bounds, st.integers(0, 12), INT_DTYPES)
def test_linspace_into_an_integer_dtype(a, b, steps, name):
    """The bounds are converted to the integer dtype first; the step is float64."""
    same_on_both(lambda lib: lib.linspace(a, b, steps, dtype=D(lib, name)))


@pytest.mark.parametrize("case", ["start 1-d", "end 1-d", "both 1-d", "start 0-d", "both 0-d"])
def test_linspace_takes_only_0d_tensor_bounds(case):
    def program(lib):
        one_d, zero_d = lib.tensor([1.0]), lib.tensor(1.5)
        start, end = {"start 1-d": (one_d, 2.0), "end 1-d": (1.0, one_d),
                      "both 1-d": (one_d, one_d), "start 0-d": (zero_d, 2.0),
                      "both 0-d": (zero_d, zero_d)}[case]
        return lib.linspace(start, end, 3)

    same_on_both(program)


def test_linspace_steps_must_be_int():
    same_on_both(lambda lib: lib.linspace(0, 1, 2.5))


# ------------------------------------------------------------------ layout queries
@given(strided_layouts(), dtype_names)
def test_empty_strided_layout(layout, name):
    shape, stride, _ = layout
    same_on_both(lambda lib: lib.empty_strided(shape, stride, dtype=D(lib, name)), values=False)


@given(strided_layouts())
def test_as_strided_views(layout):
    shape, stride, offset = layout

    def program(lib):
        base = lib.arange(40)
        view = base.as_strided(shape, stride, offset)
        # torch reports data_ptr() == 0 for an empty tensor
        where = view.data_ptr() - base.data_ptr() if view.numel() else view.data_ptr()
        return base, view, where

    same_on_both(program)


@given(strided_layouts(), st.integers(0, 60))
def test_as_strided_bounds_are_torchs(layout, storage_len):
    shape, stride, offset = layout
    same_on_both(lambda lib: lib.as_strided(lib.zeros(storage_len), shape, stride, offset))


@pytest.mark.parametrize("args", [((2,), (-1,), 0), ((2,), (1,), -1), ((2, 2), (1,), 0),
                                  ((-1,), (1,), 0), ((4,), (1,), 0), ((2, 0), (100, 1), 11)])
def test_as_strided_errors(args):
    same_on_both(lambda lib: lib.empty(3).as_strided(*args), values=False)


def test_view_of_view_records_the_original_base():
    def program(lib):
        x = lib.arange(12)
        v = x.as_strided((3, 4), (4, 1))
        w = v.as_strided((2,), (5,), 1)
        return x, v, w, w._base is x, v._base is x, x._base is None

    same_on_both(program)


@given(strided_layouts(shape_strategy=st.lists(st.sampled_from([0, 1, 2, 3]), min_size=4,
                                                max_size=4).map(tuple)))
def test_is_contiguous_both_formats(layout):
    shape, stride, _ = layout

    def program(lib):
        t = lib.empty_strided(shape, stride)
        return (t.is_contiguous(), t.is_contiguous(memory_format=lib.channels_last),
                t.is_contiguous(memory_format=lib.contiguous_format))

    same_on_both(program)


@given(strided_layouts())
def test_is_contiguous_any_rank(layout):
    shape, stride, _ = layout
    same_on_both(lambda lib: (lib.empty_strided(shape, stride).is_contiguous(),
                              lib.empty_strided(shape, stride).is_contiguous(
                                  memory_format=lib.channels_last)))


@given(strided_layouts())
def test_contiguous_returns_self_or_a_copy(layout):
    shape, stride, offset = layout

    def program(lib):
        base = lib.arange(60, dtype=lib.float64)
        view = base.as_strided(shape, stride, offset)
        c = view.contiguous()
        return view, c, c is view

    same_on_both(program)


@given(strided_layouts(shape_strategy=st.lists(st.sampled_from([0, 1, 2, 3]), min_size=4,
                                                max_size=4).map(tuple)))
def test_channels_last_conversions(layout):
    shape, stride, offset = layout

    def program(lib):
        base = lib.arange(400, dtype=lib.int16)
        view = base.as_strided(shape, stride, offset)
        a = view.to(memory_format=lib.channels_last)
        b = view.contiguous(memory_format=lib.channels_last)
        return view, a, b, a is view, b is view

    same_on_both(program)


@given(shapes)
def test_channels_last_needs_rank_4(shape):
    same_on_both(lambda lib: lib.zeros(shape).to(memory_format=lib.channels_last))
    same_on_both(lambda lib: lib.empty(shape, memory_format=lib.channels_last), values=False)


@given(strided_layouts(), dtype_names, dtype_names)
def test_to_dtype_preserves_dense_layouts(layout, src, dst):
    shape, stride, offset = layout

    def program(lib):
        base = lib.tensor([i % 5 for i in range(60)]).to(D(lib, src))
        view = base.as_strided(shape, stride, offset)
        out = view.to(D(lib, dst))
        return view, out, out is view

    same_on_both(program)


@given(strided_layouts())
def test_size_stride_accessors(layout):
    shape, stride, offset = layout

    def program(lib):
        t = lib.arange(60).as_strided(shape, stride, offset)
        dims = range(-len(shape) - 1, len(shape) + 1)
        out = [t.size(), t.stride(), t.storage_offset(), t.dim(), t.ndim, t.numel(),
               t.element_size(), t.nbytes, t.itemsize]
        for d in dims:
            try:
                out.append((t.size(d), t.stride(d)))
            except IndexError as e:
                out.append(type(e).__name__)
        return tuple(out)

    same_on_both(program)


# ------------------------------------------------------------------ reading elements
@given(strided_layouts(), dtype_names)
def test_item_tolist(layout, name):
    shape, stride, offset = layout

    def program(lib):
        values = [3 * i - 50 for i in range(60)]
        t = lib.tensor(values).to(D(lib, name)).as_strided(shape, stride, offset)
        return t.tolist(), t.item()

    same_on_both(program)


@pytest.mark.parametrize("expr", ["len(lib.tensor(1.0))", "bool(lib.ones(2))",
                                  "int(lib.ones(2))", "float(lib.ones(()))",
                                  "bool(lib.zeros(1, 1))", "int(lib.tensor([7]))",
                                  "lib.ones(2).item()", "lib.ones(0).item()",
                                  "len(lib.zeros(5, 2))", "lib.zeros(2).size(1)",
                                  "lib.tensor(3.0).stride(0)"])
def test_python_number_protocols(expr):
    same_on_both(lambda lib: eval(expr, {"lib": lib}))


@given(strided_layouts(), st.sampled_from(["float32", "int64", "uint8", "float16", "bool"]))
def test_numpy_shares_memory(layout, name):
    shape, stride, offset = layout

    def program(lib):
        t = lib.zeros(80, dtype=D(lib, name)).as_strided(shape, stride, offset)
        a = t.numpy()
        return (a.shape, a.strides, a.dtype.name,
                a.__array_interface__["data"][0] == t.data_ptr())

    same_on_both(program)


def test_numpy_refusals():
    same_on_both(lambda lib: lib.ones(2, dtype=lib.bfloat16).numpy())
    same_on_both(lambda lib: lib.ones(2, requires_grad=True).numpy())


@given(st.lists(st.integers(1, 4), min_size=1, max_size=3),
       st.sampled_from(["float32", "int64", "uint8", "float64", "bool", "int16"]),
       st.sampled_from(["plain", "transposed", "stepped", "scalar"]))
def test_from_numpy_shares(shape, name, kind):
    def make():
        a = np.arange(math.prod(shape) * 2).astype(name)
        if kind == "scalar":
            return np.array(a[0])
        a = a[: math.prod(shape)].reshape(shape)
        if kind == "transposed":
            return a.T
        if kind == "stepped":
            return np.arange(math.prod(shape) * 2).astype(name)[::2].reshape(shape)
        return a

    def program(lib):
        a = make()
        t = lib.from_numpy(a)
        shares = t.data_ptr() == a.__array_interface__["data"][0]
        a.flat[0] = 1  # a write through NumPy shows in the tensor
        return t, shares, lib.as_tensor(a).data_ptr() == t.data_ptr()

    same_on_both(program)


@pytest.mark.parametrize("make", [
    lambda: np.arange(6)[::-1], lambda: [1, 2], lambda: np.zeros(3, dtype="U3"),
    lambda: np.zeros(3, dtype=object), lambda: np.zeros(4, dtype=np.float32)[1:].view(np.int8),
])
def test_from_numpy_refusals(make):
    same_on_both(lambda lib: lib.from_numpy(make()))


def test_as_tensor_shares_when_it_can():
    def program(lib):
        t = lib.arange(4)
        same = lib.as_tensor(t) is t
        converted = lib.as_tensor(t, dtype=lib.float32)
        return same, converted, converted.data_ptr() == t.data_ptr()

    same_on_both(program)


def test_storage():
    def program(lib):
        t = lib.tensor([1, 2, 3], dtype=lib.int16)
        s = t.untyped_storage()
        return s.nbytes(), s.size(), len(s), s.tolist(), s[2], s.data_ptr() == t.data_ptr()

    same_on_both(program)


def test_storage_repr():
    for make in (lambda lib: lib.tensor([1, 2], dtype=lib.uint8), lambda lib: lib.zeros(0)):
        want = repr(make(torch).untyped_storage()).replace("torch.", "reftensor.")
        assert repr(make(reftensor).untyped_storage()) == want


@given(strided_layouts(), st.sampled_from(["float32", "int64", "bool", "float16"]))
def test_repr_of_strided_views(layout, name):
    shape, stride, offset = layout
    needed = reftensor.layout.required_storage_elements(shape, stride, offset)
    values = [(7 * i) % 11 - 3 for i in range(max(700, needed))]  # enough for any layout

    def make(lib):
        base = lib.tensor(values).to(getattr(lib, name))
        return base.as_strided(shape, stride, offset)

    assert repr(make(reftensor)) == repr(make(torch)).replace("torch.", "reftensor.")


def test_describe_reads_every_fact():
    facts = describe(reftensor.zeros(2, 3))
    assert set(facts) >= {"shape", "stride", "storage_offset", "dtype", "values", "_version"}


def test_import_reftensor_never_imports_torch():
    code = "import sys, reftensor, reftensor.layout; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_layout_rules_match_torch_on_fixed_shapes():
    # the reference rules themselves, against torch, on the shapes the notebook shows
    for shape in [(), (0,), (2, 0, 3), (2, 3, 4), (1, 1), (5, 1, 4, 1)]:
        assert L.contiguous_strides(shape) == torch.empty(shape).stride()
    for shape in [(2, 3, 4, 5), (1, 3, 1, 1), (0, 2, 3, 1)]:
        got = L.channels_last_strides(shape)
        assert got == torch.empty(shape, memory_format=torch.channels_last).stride()


@given(strided_layouts(shape_strategy=st.lists(st.integers(0, 4), min_size=2, max_size=5)
                       .map(tuple)))
def test_to_copy_of_non_dense_layouts(layout):
    shape, stride, offset = layout
    same_on_both(lambda lib: lib.empty_strided(shape, stride).to(lib.float64), values=False)


@given(spec=strategies.tensors())
def test_tolist_reads_numpys_view_as_the_storage_index_walk_reads_it(spec):
    """The reference's ``tolist`` reads NumPy's view of the elements; the student edition's
    walks them with ``layout.storage_index`` (chapter 1's piece): the same values."""
    from reftensor import tensor as tensor_module

    t = spec.make(reftensor)
    fast = t.tolist()
    tensor_module.TOLIST_WALKS = True
    try:
        walked = t.tolist()
    finally:
        tensor_module.TOLIST_WALKS = False
    assert repr(fast) == repr(walked) and _types(fast) == _types(walked)


def _types(value):
    return [_types(v) for v in value] if isinstance(value, list) else type(value).__name__


# ================================================================== pickling and deepcopy
def _pickling(lib: Any, how: str) -> Any:
    """What comes back from pickling (or ``copy.copy``/``copy.deepcopy``) a leaf that
    requires grad, a non-leaf, a tensor written twice, a Parameter, a meta tensor and a view
    with its base: values, layout, ``_version``, ``requires_grad``, leaf-ness, type, and
    whether the view still shares the base's memory and version counter."""
    x = lib.arange(6.0).reshape(2, 3).t().requires_grad_()
    written = lib.zeros(4)
    written.add_(1)
    written.add_(1)
    view = written[1:]
    objects = {"leaf": x, "nonleaf": x * 2, "written": written,
               "parameter": lib.nn.Parameter(lib.ones(2)),
               "meta": lib.empty(2, 3, device="meta").t(), "pair": [written, view]}
    found = {}
    for name, obj in objects.items():
        try:
            if how == "pickle":
                back = pickle.loads(pickle.dumps(obj))
            else:
                back = getattr(copy, how)(obj)
        except Exception as e:  # noqa: BLE001
            found[name] = type(e).__name__
            continue
        if name == "pair":
            base, part = back
            part.fill_(7)
            found[name] = (base.tolist(), base._version, part._version, part.storage_offset())
            continue
        found[name] = (tuple(back.shape), back.stride(), back.storage_offset(), back._version,
                       back.requires_grad, back.is_leaf, type(back).__name__, str(back.device),
                       None if back.is_meta else back.tolist())
    return found


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_pickling_and_copying_a_tensor_as_torch(how):
    """torch rebuilds an unpickled (or copied) tensor through ``set_``: ``_version`` 1, a
    leaf, ``requires_grad`` kept, its own storage (tensors pickled together no longer share
    memory); ``deepcopy`` refuses a non-leaf and copies a storage once per call, so a view
    and its base stay one storage, each with its own version counter."""
    same_on_both(lambda lib: _pickling(lib, how))


def test_deepcopy_copies_the_grad_as_torch():
    def program(lib: Any) -> Any:
        w = lib.ones(2, requires_grad=True)
        (w * 3).sum().backward()
        d = copy.deepcopy(w)
        return d.grad.tolist(), d.grad is w.grad, d.grad._version, d._version

    same_on_both(program)


# ---------------------------------------------------------------------------- Tensor.layout
@given(strategies.tensors())
def test_every_tensor_is_strided(spec):
    """``Tensor.layout`` is ``strided`` for every layout of sizes and strides (the word names
    the storage-plus-strides scheme, not a particular order); factories take
    ``layout=strided``; the layout objects pickle to themselves."""
    same_on_both(lambda lib: (
        spec.make(lib).layout is lib.strided, repr(spec.make(lib).layout).split(".")[-1],
        lib.zeros(2, layout=lib.strided), lib.empty_like(spec.make(lib), layout=lib.strided).shape,
        pickle.loads(pickle.dumps(lib.strided)) is lib.strided))


def test_a_sparse_layout_is_refused_clearly():
    """reftensor has the strided layout alone: a factory asked for a sparse one raises
    NotImplementedError naming it (torch would make a sparse tensor)."""
    with pytest.raises(NotImplementedError, match="only the strided layout, not "
                                                  "reftensor.sparse_coo"):
        reftensor.zeros(2, 3, layout=reftensor.sparse_coo)


# ------------------------------------------------------------------------ shared memory
def _written_by_a_forked_child(t: Any) -> list[float]:
    """``t`` after a forked child process set its element 2 to 7."""
    import os

    pid = os.fork()
    if pid == 0:
        t[2] = 7
        os._exit(0)
    os.waitpid(pid, 0)
    return t.tolist()


def test_share_memory_puts_the_storage_where_forked_processes_write_with_us():
    """``share_memory_`` (in place, every view sees it, ``_version`` unchanged) makes a
    forked child's write visible here; an ordinary storage is copied on write; a clone is
    not shared; a meta tensor is refused."""
    def program(lib):
        plain, shared = lib.zeros(4), lib.zeros(4)
        out = (shared.is_shared(), shared.share_memory_() is shared, shared.is_shared(),
               shared[1:].is_shared(), shared.untyped_storage().is_shared(),
               shared._version, shared.clone().is_shared(), lib.empty(0).share_memory_(),
               _written_by_a_forked_child(plain), _written_by_a_forked_child(shared))
        return out
    same_on_both(program)
    same_on_both(lambda lib: lib.empty(2, device="meta").share_memory_())


def test_a_shared_storage_is_not_resized():
    """torch 2.13 crashes resizing a shared storage; reftensor raises the error torch means
    ("Trying to resize storage that is not resizable")."""
    storage = reftensor.ones(3).share_memory_().untyped_storage()
    with pytest.raises(RuntimeError, match="not resizable"):
        storage.resize_(40)


# ------------------------------------------------------------ Tensor.storage(), the legacy one
def _named(text: str, lib: Any) -> str:
    return text.replace(lib.__name__, "LIB")


@given(strategies.tensors())
def test_storage_reads_the_whole_storage_as_elements_of_the_dtype(spec):
    """``Tensor.storage()`` is the whole storage (not the view's part) read in the tensor's
    dtype: its size, elements, address, printing; a write through it is the tensor's."""
    def program(lib):
        import warnings

        t = spec.make(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = t.storage()
        out = [len(s), s.size(), s.nbytes(), s.element_size(), s.data_ptr()
               == t.untyped_storage().data_ptr(), _named(str(s.dtype), lib), str(s.device)]
        if t.device.type != "meta":
            out += [s.tolist(), _named(repr(s), lib), [s[i] for i in range(-len(s), len(s))]]
            if len(s) and t.dtype != lib.bool:
                s[len(s) - 1] = 1
                out.append(t.tolist())
        return out
    same_on_both(program)


def test_storage_warns_once_that_typed_storage_is_deprecated():
    import warnings

    import torch.storage

    import reftensor.storage

    def program(lib):
        if lib is torch:
            torch.storage._reset_warn_typed_storage_removal()
        else:
            reftensor.storage._TYPED_STORAGE_WARNED = False
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            lib.ones(2).storage()
            lib.ones(3).storage()
        return [(w.category.__name__, str(w.message)) for w in seen]
    same_on_both(program)


# ------------------------------------------------------------------ Tensor.new_tensor
NEW_TENSOR_PROGRAMS = {
    "a list, self's dtype": lambda lib: lib.ones(2).new_tensor([1, 2]),
    "floats truncated into int64": lambda lib: lib.ones(2, dtype=lib.int64).new_tensor([1.7, -2.5]),
    "a number, float16": lambda lib: lib.ones(2, dtype=lib.float16).new_tensor(3),
    "dtype=": lambda lib: lib.ones(2).new_tensor([1, 2], dtype=lib.int8),
    "bools from ints": lambda lib: lib.ones(2, dtype=lib.bool).new_tensor([2, 0]),
    "a NumPy array": lambda lib: lib.ones(2).new_tensor(np.arange(3)),
    "a transposed tensor keeps its layout":
        lambda lib: lib.ones(2).new_tensor(lib.arange(6).view(2, 3).t()),
    "a tensor that requires grad":
        lambda lib: lib.ones(2).new_tensor(lib.ones(2, requires_grad=True)),
    "requires_grad=True": lambda lib: lib.ones(2).new_tensor([1.0], requires_grad=True),
    "self on meta": lambda lib: lib.ones(2, device="meta").new_tensor([1.0]),
    "device=meta": lambda lib: lib.ones(2).new_tensor([1.0], device="meta"),
    "data by keyword": lambda lib: lib.ones(2).new_tensor(data=[1]),
    "requires_grad for an integer dtype":
        lambda lib: lib.ones(2, dtype=lib.int64).new_tensor([1], requires_grad=True),
    "no data": lambda lib: lib.ones(2).new_tensor(),
    "a string": lambda lib: lib.ones(2).new_tensor("a"),
    "dtype by position": lambda lib: lib.ones(2).new_tensor([1], lib.int8),
    "an unknown keyword": lambda lib: lib.ones(2).new_tensor([1], pin_memory=False),
    "out of the dtype's range": lambda lib: lib.ones(2).new_tensor([300], dtype=lib.uint8),
    "ragged lists": lambda lib: lib.ones(2).new_tensor([[1, 2], [3]]),
}


@pytest.mark.parametrize("name", NEW_TENSOR_PROGRAMS)
def test_new_tensor_is_torchs(name):
    """``t.new_tensor(data)``: self's dtype and device unless given, torch's checks."""
    same_on_both(NEW_TENSOR_PROGRAMS[name])


@pytest.mark.parametrize("lib", [torch, reftensor], ids=["torch", "reftensor"])
def test_new_tensor_of_a_tensor_warns_and_copies(lib):
    source = lib.arange(3.0)
    with pytest.warns(UserWarning, match="rather than tensor.new_tensor"):
        copied = lib.ones(1).new_tensor(source)
    copied[0] = 5
    assert source[0].item() == 0 and not copied.requires_grad and copied._base is None


@pytest.mark.parametrize("op", ["zeros", "ones", "full", "add", "sum", "cat", "arange", "addbmm"])
def test_an_out_of_no_elements_grows_no_storage(op):
    """An ``out=`` of no elements whose storage offset lies past its (empty) storage, given
    another empty shape: torch's resize counts no bytes for a shape with a 0 in it, whatever
    the offset, so the storage stays empty (reftensor's factories grew it to the offset)."""
    def program(lib):
        out = lib.empty(0).as_strided((0,), (1,), 5)
        calls = {
            "zeros": lambda: lib.zeros(0, 2, out=out),
            "ones": lambda: lib.ones(0, 2, out=out),
            "full": lambda: lib.full((0, 2), 1.0, out=out),
            "add": lambda: lib.add(lib.ones(0, 3), 1, out=out),
            "sum": lambda: lib.sum(lib.ones(0, 3), 1, out=out),
            "cat": lambda: lib.cat([lib.ones(0, 3)], out=out),
            "arange": lambda: lib.arange(0, out=out),
            "addbmm": lambda: lib.addbmm(lib.ones(0, 3), lib.ones(2, 0, 2), lib.ones(2, 2, 3),
                                         out=out),
        }
        return calls[op]()

    same_on_both(program)
