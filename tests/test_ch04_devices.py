"""Chapter 4: devices, meta tensors, ``.to()``, the default dtype, promotion and casts,
against torch.

Every program runs on both libraries (``tests/difftest.py``). Meta tensors are compared on
everything but values (they have none): shape, stride, offset, dtype, device, ``_version``,
storage size, aliasing, and the exception class.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import (
    STATS,
    Mismatch,
    _aliasing,
    _run,
    _tensors,
    compare_op,
    describe,
    same_on_both,
)
from tests.strategies import (
    ALL_NAMES,
    FLOAT_NAMES,
    INT_NAMES,
    TensorSpec,
    examples,
    shapes,
    tensors,
)

pytestmark = pytest.mark.ch04

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


# ================================================================== naming devices
device_types = st.sampled_from(DEVICE_TYPES + ("gpu", "CUDA", "Cpu", "", "cuda1", " cuda",
                                               "cuda ", "cu_da"))
index_texts = st.sampled_from(["0", "1", "7", "127", "01", "-1", "+1", "", "x", " 1", "1:2",
                               "2147483648", "99999999999999999999"])


@st.composite
def device_strings(draw: st.DrawFn) -> str:
    name = draw(device_types)
    return name if draw(st.booleans()) else f"{name}:{draw(index_texts)}"


@pytest.mark.filterwarnings("ignore:'mkldnn' is no longer used")
@settings(max_examples=examples(200))
@given(text=device_strings(), index=st.sampled_from([None, None, 0, 3, 127, -1, True, 1.0]))
def test_device_strings_parse_like_torch(text, index):
    def program(lib):
        d = lib.device(text) if index is None else lib.device(text, index)
        return d.type, d.index, str(d), repr(d), d == lib.device(str(d)), d == str(d)

    same_on_both(program)


@pytest.mark.parametrize("make", [
    lambda lib: lib.device(lib.device("cuda:1")),
    lambda lib: lib.device(lib.device("cuda:1"), 2),
    lambda lib: lib.device(3),
    lambda lib: lib.device(True),
    lambda lib: lib.device(None),
    lambda lib: lib.device(type="cuda", index=2),
    lambda lib: lib.device("cuda") == lib.device("cuda:0"),
    lambda lib: hash(lib.device("meta:2")) == hash(lib.device("meta", 2)),
    lambda lib: {lib.device("cpu"): 1}[lib.device("cpu")],
])
def test_device_construction_edges(make):
    same_on_both(make)


def test_device_indices_beyond_torchs_eight_bits_are_refused():
    """torch keeps a device index in 8 bits and silently renames ``cuda:255`` to ``cuda``
    and ``cuda:128`` to a huge index; reftensor refuses rather than name another device."""
    assert str(torch.device("cuda:255")) == "cuda"
    assert torch.device("cuda:128").index != 128
    for text in ("cuda:128", "cuda:255", "meta:1000"):
        with pytest.raises(RuntimeError):
            reftensor.device(text)


# ================================================================== allocating on devices
DEVICE_ARGS = [None, "cpu", "cpu:1", "meta", "meta:0", "cuda", "cuda:1", "mps", "xla", "gpu",
               "cuda:-1", 0]


def _device_arg(lib, d):
    return lib.device("meta") if d == "device(meta)" else d


FACTORIES = {
    "empty": lambda lib, d: lib.empty(2, 3, device=d),
    "zeros": lambda lib, d: lib.zeros((2, 0), dtype=lib.int8, device=d),
    "ones": lambda lib, d: lib.ones((), device=d),
    "full": lambda lib, d: lib.full((3,), 7, device=d),
    "arange": lambda lib, d: lib.arange(0.0, 1.0, 0.25, device=d),
    "linspace": lambda lib, d: lib.linspace(0, 1, 5, device=d),
    "tensor": lambda lib, d: lib.tensor([[1, 2], [3, 4]], device=d),
    "tensor of bools": lambda lib, d: lib.tensor([True], device=d),
    "empty_strided": lambda lib, d: lib.empty_strided((2, 3), (1, 2), device=d),
    "as_tensor": lambda lib, d: lib.as_tensor([1.5, 2.5], device=d),
}


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("where", [*DEVICE_ARGS, "device(meta)"])
def test_factories_allocate_on_cpu_and_meta_only(name, where):
    """cpu and meta allocate (a CPU or meta tensor reports no index); ``cuda`` raises
    AssertionError as a CPU-only torch does; other device types NotImplementedError."""
    same_on_both(lambda lib: FACTORIES[name](lib, _device_arg(lib, where)),
                 values=name != "empty" and name != "empty_strided")


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_meta_tensors_have_no_data():
    for program in (
        lambda lib: lib.ones(2, 3, device="meta").item(),
        lambda lib: lib.ones((), device="meta").item(),
        lambda lib: lib.ones(2, device="meta").tolist(),
        lambda lib: lib.ones(2, device="meta").numpy(),
        lambda lib: bool(lib.ones((), device="meta")),
        lambda lib: float(lib.ones(1, device="meta")),
        lambda lib: 1.0 in lib.ones(2, device="meta"),
        lambda lib: lib.ones(2, device="meta").untyped_storage()[0],
        lambda lib: lib.ones(2, device="meta").untyped_storage().tolist(),
        lambda lib: (lambda t: (t.data_ptr(), t.untyped_storage().data_ptr(),
                                t.untyped_storage().nbytes(), t.untyped_storage().device,
                                t.is_meta, t.is_cpu, t.is_cuda, t.get_device()))(
            lib.ones(2, 3, device="meta")),
        lambda lib: (lambda t: (t.is_meta, t.is_cpu, t.get_device()))(lib.ones(2)),
        lambda lib: list(lib.ones(2, 3, device="meta")),
        lambda lib: lib.ones(2, device="meta").cpu(),
        lambda lib: lib.ones(2).cpu(),
        lambda lib: lib.ones(2).cuda(),
        lambda lib: lib.tensor(lib.ones(2, device="meta")),
    ):
        same_on_both(program)


META_DTYPES = st.sampled_from(ALL_NAMES)


@settings(max_examples=examples(60))
@given(shape=shapes, dtype=META_DTYPES, requires_grad=st.booleans())
def test_meta_tensors_print_like_torch(shape, dtype, requires_grad):
    """``tensor(..., device='meta', size=(2, 3))``: no values, the device, the size, and
    the dtype unless it is the default float dtype."""
    requires_grad = requires_grad and dtype in FLOAT_NAMES
    t = torch.zeros(shape, dtype=getattr(torch, dtype), device="meta",
                    requires_grad=requires_grad)
    r = reftensor.zeros(shape, dtype=getattr(reftensor, dtype), device="meta",
                        requires_grad=requires_grad)
    assert repr(r) == repr(t).replace("torch.", "reftensor.")
    assert repr(r.untyped_storage()) == repr(t.untyped_storage()).replace("torch.",
                                                                          "reftensor.")


# ================================================================== every op on meta
def _mm(lib, x, y):
    return x @ (y.mT if y.dim() > 1 else y)


META_OPS = {
    # elementwise, with promotion and the output layout of TensorIterator
    "add": lambda lib, x, y: x + y,
    "sub with alpha": lambda lib, x, y: lib.sub(x, y, alpha=2),
    "mul by a number": lambda lib, x, y: x * 2.5,
    "true division": lambda lib, x, y: x / y,
    "floor division": lambda lib, x, y: x // y,
    "remainder": lambda lib, x, y: x % 3,
    "pow": lambda lib, x, y: x ** y,
    "integer to a negative power": lambda lib, x, y: x ** -1,
    "a number to a tensor power": lambda lib, x, y: 2 ** x,
    "comparison": lambda lib, x, y: x <= y,
    "where": lambda lib, x, y: lib.where(x == y, x, 1.5),
    "clamp": lambda lib, x, y: x.clamp(min=y),
    "bitwise and": lambda lib, x, y: x & y,
    "neg": lambda lib, x, y: -x,
    "exp": lambda lib, x, y: x.exp(),
    "sqrt": lambda lib, x, y: lib.sqrt(x),
    "abs": lambda lib, x, y: x.abs(),
    "sigmoid": lambda lib, x, y: x.sigmoid(),
    "relu": lambda lib, x, y: x.relu(),
    "uint8 plus 300": lambda lib, x, y: x + 300,
    # in place: checks, then only _version moves
    "add_": lambda lib, x, y: x.add_(y),
    "mul_ by a float": lambda lib, x, y: x.mul_(1.5),
    "copy_": lambda lib, x, y: x.copy_(y),
    "fill_": lambda lib, x, y: x.fill_(300),
    "zero_": lambda lib, x, y: x.zero_(),
    "setitem": lambda lib, x, y: x.__setitem__(..., 1),
    "setitem of a row": lambda lib, x, y: x.__setitem__(0, y[0]),
    # reductions
    "sum": lambda lib, x, y: x.sum(),
    "sum over the last dim": lambda lib, x, y: x.sum(-1, keepdim=True),
    "mean": lambda lib, x, y: x.mean((0,)),
    "prod": lambda lib, x, y: x.prod(0),
    "max": lambda lib, x, y: x.max(),
    "max along a dim": lambda lib, x, y: x.max(-1),
    "amin": lambda lib, x, y: x.amin(0),
    "argmax": lambda lib, x, y: x.argmax(),
    "argmin along a dim": lambda lib, x, y: x.argmin(0, keepdim=True),
    "all": lambda lib, x, y: x.all(),
    "any along a dim": lambda lib, x, y: x.any(-1),
    "var": lambda lib, x, y: x.var(0),
    "std": lambda lib, x, y: x.std(),
    # views
    "transpose": lambda lib, x, y: x.mT,
    "permute": lambda lib, x, y: x.permute(*reversed(range(x.dim()))),
    "view": lambda lib, x, y: x.view(-1),
    "reshape": lambda lib, x, y: x.reshape(-1),
    "flatten": lambda lib, x, y: x.flatten(),
    "unsqueeze": lambda lib, x, y: x.unsqueeze(0),
    "squeeze": lambda lib, x, y: x.squeeze(),
    "expand": lambda lib, x, y: x.expand(2, *x.shape),
    "narrow": lambda lib, x, y: x.narrow(0, 0, 1),
    "select": lambda lib, x, y: x.select(-1, 0),
    "unfold": lambda lib, x, y: x.unfold(0, 1, 1),
    "diagonal": lambda lib, x, y: x.diagonal(),
    "split": lambda lib, x, y: x.split(1),
    "unbind": lambda lib, x, y: x.unbind(),
    "as_strided beyond the storage": lambda lib, x, y: x.as_strided((2,), (1,), 100),
    "basic index": lambda lib, x, y: x[..., :1],
    "detach": lambda lib, x, y: x.detach(),
    # copies
    "clone": lambda lib, x, y: x.clone(),
    "contiguous": lambda lib, x, y: x.contiguous(),
    "flip": lambda lib, x, y: x.flip(0),
    "cat": lambda lib, x, y: lib.cat([x, y], -1),
    "stack": lambda lib, x, y: lib.stack([x, y], 1),
    "index with a CPU index tensor": lambda lib, x, y: x[lib.tensor([0, 0])],
    "index with a CPU mask": lambda lib, x, y: x[lib.tensor(True)],
    "index with a meta index tensor": lambda lib, x, y: x[lib.tensor([0], device="meta")],
    "index_put_": lambda lib, x, y: x.__setitem__(lib.tensor([0]), y[0]),
    "masked fill": lambda lib, x, y: x.__setitem__(lib.zeros(x.shape, dtype=lib.bool), 1),
    # matmul
    "matmul": _mm,
    # conversions
    "to float64": lambda lib, x, y: x.to(lib.float64),
    "half": lambda lib, x, y: x.half(),
    "long": lambda lib, x, y: x.long(),
    "to meta": lambda lib, x, y: x.to("meta"),
    "to cpu": lambda lib, x, y: x.to("cpu"),
}


@st.composite
def meta_pairs(draw: st.DrawFn) -> tuple[TensorSpec, TensorSpec]:
    shape = draw(shapes)
    x = draw(tensors(shape=shape))
    y = draw(tensors(shape=shape, dtypes=st.sampled_from([x.dtype, *ALL_NAMES])))
    return x, y


def _program(op, specs, device):
    def program(lib):
        built = [s.on(device).make(lib) for s in specs]
        return ("inputs after", tuple(built)), ("result", op(lib, *built))

    return program


def same_on_meta(op, *specs: TensorSpec, decomposed: bool = False) -> None:
    """Run ``op`` on meta tensors in both libraries and compare what a meta tensor has:
    shape, dtype, device, storage size, offset, ``_version``, autograd flags, aliasing, and
    the exception class. Two allowances, both checked rather than skipped:

    * errors: torch's meta kernels skip many checks its CPU kernels make (dtype support
      such as ``-bool_tensor``, overlap of in-place outputs, in-place casts, ``max()`` of
      nothing, index bounds) and sometimes raise another class. reftensor's meta device
      keeps the CPU's checks: where it raises, torch raises the same class on meta or on
      the CPU for the same program.
    * strides: torch's meta kernels may pick other strides for dims of size 1 and for
      tensors with no elements, where a stride never changes an address. Strides must agree
      at every dim of size > 1 of a non-empty tensor, except when an input is expanded or
      overlapping: several of torch's meta functions are Python decompositions whose stride
      rule departs from TensorIterator's for such inputs, and reftensor uses TensorIterator's
      rule on every device. Those cases are counted, not hidden.
    """
    non_dense = decomposed or any(s.kind in ("expanded", "overlapping") for s in specs)
    expected, t_exc = _run(_program(op, specs, "meta"), torch)
    got, r_exc = _run(_program(op, specs, "meta"), reftensor)
    STATS["programs"] += 1
    STATS["behaviours"] += 1
    if r_exc is not None:
        if type(t_exc) is type(r_exc):
            return
        _, cpu_exc = _run(_program(op, specs, "cpu"), torch)
        if type(cpu_exc) is not type(r_exc):
            raise Mismatch(f"reftensor raised {r_exc!r} on meta; torch raised {t_exc!r} on "
                           f"meta and {cpu_exc!r} on the CPU") from r_exc
        return
    if t_exc is not None:
        raise Mismatch(f"torch raised {t_exc!r} on meta, reftensor nothing") from t_exc
    _compare_meta(expected, got, non_dense)


def _compare_meta(expected, got, non_dense: bool) -> None:
    t_list, r_list = _tensors(expected), _tensors(got)
    if len(t_list) != len(r_list) or _aliasing(t_list) != _aliasing(r_list):
        raise Mismatch(f"results differ: torch {expected}, reftensor {got}")
    for t, r in zip(t_list, r_list, strict=True):
        e, g = describe(t, values=False), describe(r, values=False)
        for facts in (e, g):
            del facts["stride"], facts["is_contiguous"]
        STATS["behaviours"] += len(e) + 1
        if e != g:
            raise Mismatch(f"(torch, reftensor) differ on "
                           f"{ {k: (e[k], g[k]) for k in e if e[k] != g[k]} }")
        if t.numel() and any(n > 1 and a != b for n, a, b in zip(
                t.shape, t.stride(), r.stride(), strict=True)):
            if non_dense:
                STATS["meta strides from a decomposition"] += 1
                continue
            raise Mismatch(f"strides differ: torch {t.stride()}, reftensor {r.stride()} for "
                           f"shape {tuple(t.shape)}")


@pytest.mark.filterwarnings("ignore::UserWarning")  # var's degrees of freedom, masks
@pytest.mark.parametrize("name", META_OPS)
@settings(max_examples=examples(25))
@given(specs=meta_pairs())
def test_every_op_on_meta_tensors(name, specs):
    """The result's shape, strides, dtype, device and storage size, the inputs' versions and
    the aliasing pattern are torch's, and no kernel runs (so no value can raise)."""
    same_on_meta(META_OPS[name], *specs, decomposed=name in DECOMPOSED_ON_META)


#: Ops whose meta function in torch is a Python decomposition with its own stride rule
#: (``a // b`` with a bool and a permuted float16 operand: torch's meta result follows the
#: second operand, its CPU result and every other op follow the first).
DECOMPOSED_ON_META = {"floor division"}


# ================================================================== mixing devices
#: Programs where torch does the wrong thing instead of raising, when a CPU tensor with
#: dims meets a meta tensor: see test_where_reftensor_raises_and_torch_does_not.
TORCH_SILENT = {"add_", "matmul", "index", "index_put_", "fill_"}

MIXED = {
    "add": lambda lib, x, y: x + y,
    "eq": lambda lib, x, y: x == y,
    "where": lambda lib, x, y: lib.where(x > 0, x, y),
    "clamp": lambda lib, x, y: x.clamp(max=y),
    "cat": lambda lib, x, y: lib.cat([x.reshape(-1), y.reshape(-1)]),
    "stack": lambda lib, x, y: lib.stack([x, y]),
    "copy_": lambda lib, x, y: x.copy_(y),
    "add_": lambda lib, x, y: x.add_(y),
    "fill_": lambda lib, x, y: x.fill_(y) if y.dim() == 0 else x.fill_(1),
    "matmul": lambda lib, x, y: x.reshape(1, -1) @ y.reshape(-1, 1),
    "index": lambda lib, x, y: x.reshape(-1)[y.reshape(-1).long() * 0],
    "index_put_": lambda lib, x, y: x.reshape(-1).__setitem__(
        lib.zeros(1, dtype=lib.long, device=y.device), y.reshape(-1)[0]),
    "to other": lambda lib, x, y: x.to(y),
}


def _silent_in_torch(name: str, x: TensorSpec, y: TensorSpec) -> bool:
    """Does torch skip its device check here (a CPU ``self``/input and a meta operand)?"""
    if name not in TORCH_SILENT:
        return False
    if name == "matmul":
        return x.device != y.device
    return x.device == "cpu" and y.device == "meta"


@settings(max_examples=examples(30))
@given(x=tensors(dtypes=("float32",), shape=st.sampled_from([(), (1,), (2,), (2, 1)]),
                 kinds=("contiguous",)),
       y=tensors(dtypes=("float32",), shape=st.sampled_from([(), (1,), (2,), (2, 1)]),
                 kinds=("contiguous",)),
       devices=st.sampled_from([("cpu", "meta"), ("meta", "cpu"), ("meta", "meta")]))
@pytest.mark.parametrize("name", MIXED)
def test_mixing_devices_raises_torchs_error(name, x, y, devices):
    """A 0-d CPU tensor joins a meta tensor (as a number would); any other CPU tensor with
    a meta one raises torch's RuntimeError ("Tensor on device cpu is not on the expected
    device meta!"); copying out of meta raises NotImplementedError."""
    x, y = x.on(devices[0]), y.on(devices[1])
    if _silent_in_torch(name, x, y):
        return
    compare_op(MIXED[name], x, y)


def test_where_reftensor_raises_and_torch_does_not():
    """Where torch's meta kernels skip the device check, torch leaves a CPU tensor unchanged
    or even reads garbage from a storage that has no bytes; reftensor raises instead. The
    torch side is asserted too, so a fix in torch shows up here."""
    cpu, meta = torch.ones(2, 3), torch.ones(2, 3, device="meta")
    assert torch.equal(cpu.clone().add_(meta), cpu)  # no error, no change
    assert (meta @ cpu.T).is_meta and not (cpu @ meta.T).is_meta  # a CPU result from nothing
    r_cpu, r_meta = reftensor.ones(2, 3), reftensor.ones(2, 3, device="meta")
    for program in (lambda: r_cpu.add_(r_meta), lambda: r_meta @ r_cpu.T,
                    lambda: r_cpu @ r_meta.T,
                    lambda: r_cpu[reftensor.tensor([0], device="meta")]):
        with pytest.raises(RuntimeError, match="device"):
            program()
    with pytest.raises(NotImplementedError, match="meta"):
        r_cpu[reftensor.tensor([0])] = r_meta[0]


# ================================================================== .to()
def _to_arguments(lib, choice):
    other = {"f64 cpu": lib.zeros(1, dtype=lib.float64), "f32 meta": lib.zeros(
        1, device="meta"), "i64 cpu": lib.zeros(1, dtype=lib.int64)}
    return {
        "dtype same": ((lib.float32,), {}),
        "dtype": ((lib.float64,), {}),
        "dtype keyword": ((), {"dtype": lib.int32}),
        "device cpu": (("cpu",), {}),
        "device cpu:0": (("cpu:0",), {}),
        "device object": ((lib.device("cpu"),), {}),
        "device meta": (("meta",), {}),
        "device meta:0": (("meta:0",), {}),
        "device and dtype": (("meta", lib.float16), {}),
        "device keyword": ((), {"device": "cpu", "dtype": lib.float32}),
        "non_blocking positional": ((lib.float32, True), {}),
        "copy positional": ((lib.float32, False, True), {}),
        "copy keyword": ((), {"copy": True}),
        "copy False": ((lib.float32,), {"copy": False}),
        "memory format": ((), {"memory_format": lib.channels_last}),
        "contiguous format": ((), {"memory_format": lib.contiguous_format}),
        "other float64": ((other["f64 cpu"],), {}),
        "other on meta": ((other["f32 meta"],), {}),
        "other int64, copy": ((other["i64 cpu"],), {"copy": True}),
        "cuda": (("cuda",), {}),
        "mps": (("mps",), {}),
        "an int device": ((0,), {}),
        "a bad string": (("gpu",), {}),
    }[choice]


TO_CHOICES = [
    "dtype same", "dtype", "dtype keyword", "device cpu", "device cpu:0", "device object",
    "device meta", "device meta:0", "device and dtype", "device keyword",
    "non_blocking positional", "copy positional", "copy keyword", "copy False",
    "memory format", "contiguous format", "other float64", "other on meta",
    "other int64, copy", "cuda", "mps", "an int device", "a bad string"]

to_shapes = st.one_of(shapes, st.sampled_from([(2, 3, 1, 2), (1, 2, 2, 1)]))


@settings(max_examples=examples(40))
@given(spec=tensors(dtypes=("float32", "float64", "int64"), shape=to_shapes),
       device=st.sampled_from(["cpu", "cpu", "meta"]))
@pytest.mark.parametrize("choice", TO_CHOICES)
def test_to_returns_self_exactly_when_torch_does(choice, spec, device):
    """``.to()`` returns the same object when dtype, device (compared exactly: ``cpu:0`` is
    not ``cpu``) and memory format already match and ``copy`` is False; else a new tensor
    with ``to``'s layout."""

    def program(lib, x):
        args, kwargs = _to_arguments(lib, choice)
        y = x.to(*args, **kwargs)
        return y, y is x

    compare_op(program, spec.on(device))


# ================================================================== the default dtype
DEFAULT_DTYPE_PROGRAMS = {
    "tensor of floats": lambda lib: lib.tensor([1.5, 2.0]),
    "tensor of ints": lambda lib: lib.tensor([1, 2]),
    "tensor of a float and an int": lambda lib: lib.tensor([1, 2.5]),
    "empty list": lambda lib: lib.tensor([]),
    "ones": lambda lib: lib.ones(2),
    "zeros": lambda lib: lib.zeros(()),
    "full of a float": lambda lib: lib.full((2,), 1.5),
    "full of an int": lambda lib: lib.full((2,), 3),
    "arange of ints": lambda lib: lib.arange(3),
    "arange with a float": lambda lib: lib.arange(0, 1, 0.25),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "int / int": lambda lib: lib.tensor([1, 2]) / lib.tensor([2, 4]),
    "int tensor + float number": lambda lib: lib.tensor([1, 2]) + 0.5,
    "int tensor * 0-d float64": lambda lib: lib.tensor([1, 2]) * lib.tensor(0.5,
                                                                            dtype=lib.float64),
    "float16 tensor + float number": lambda lib: lib.ones(2, dtype=lib.float16) + 0.5,
    "result_type of a float": lambda lib: lib.result_type(lib.tensor([1]), 1.0),
    "exp of ints": lambda lib: lib.tensor([0, 1]).exp(),
    "finfo()": lambda lib: lib.finfo().bits,
    "meta ones": lambda lib: lib.ones(2, device="meta"),
    "printed": lambda lib: repr(lib.tensor([0.5], dtype=lib.float32)).replace("torch.",
                                                                            "reftensor."),
    "printed meta": lambda lib: repr(lib.ones(1, device="meta", dtype=lib.float32)).replace(
        "torch.", "reftensor."),
    "an integer default": lambda lib: lib.set_default_dtype(lib.int64),
}


@pytest.mark.parametrize("default", FLOAT_NAMES)
@pytest.mark.parametrize("name", DEFAULT_DTYPE_PROGRAMS)
def test_what_the_default_dtype_changes(default, name):
    """``set_default_dtype`` changes the dtype of Python floats: in ``tensor``, ``ones``,
    ``arange`` with a float, true division of integers and int-with-float promotion, and
    what printing leaves unnamed. Ints still give int64."""

    def program(lib):
        lib.set_default_dtype(getattr(lib, default))
        try:
            return DEFAULT_DTYPE_PROGRAMS[name](lib), lib.get_default_dtype()
        finally:
            lib.set_default_dtype(lib.float32)

    same_on_both(program, ulps=4 if name == "exp of ints" else 0)  # exp: 4 ulps, as in ch03


# ================================================================== promotion and casts
DTYPES = ALL_NAMES


def test_promote_types_of_every_pair():
    for a in DTYPES:
        for b in DTYPES:
            same_on_both(lambda lib, a=a, b=b: lib.promote_types(getattr(lib, a),
                                                                 getattr(lib, b)))


@pytest.mark.parametrize("a", DTYPES)
def test_every_binary_promotion_pair_on_tensors(a):
    """The dtype of ``x + y`` for every pair, with dims and 0-d, and of ``x / y``."""
    for b in DTYPES:
        for shape_a, shape_b in (((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())):
            def program(lib, b=b, sa=shape_a, sb=shape_b):
                x = lib.ones(sa, dtype=getattr(lib, a))
                y = lib.ones(sb, dtype=getattr(lib, b))
                return (x + y if a != "bool" or b != "bool" else x | y).dtype, (x / y).dtype

            same_on_both(program)


def _values_of(dtype: str) -> st.SearchStrategy:
    if dtype == "bool":
        return st.booleans()
    if dtype in INT_NAMES:
        info = torch.iinfo(getattr(torch, dtype))
        return st.one_of(st.integers(info.min, info.max),
                         st.sampled_from([info.min, info.max, 0, -1 if info.min else 1]))
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, width=64),
        st.floats(-70000, 70000), st.floats(-1e-4, 1e-4),
        st.sampled_from([65504.0, 65520.0, 65519.99, 2.0**-24, 2.0**-25, 3.0 * 2.0**-26,
                         3.3895313892515355e38, 3.4e38, 1e39, -0.0, 0.5, 1.5, 2.5, -2.5,
                         2049.0, 2051.0, 16777217.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-9]),
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("src", DTYPES)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_casts_between_every_pair_of_dtypes(src, data):
    """``x.to(dst)`` for every (src, dst), on values across the whole range: rounding to
    nearest-even for float16/bfloat16 (overflow to inf), truncation toward zero for floats
    to ints, wraparound for ints, nonzero for bool. Float values outside an integer type's
    range are undefined in C++; torch gives what x86 gives, and so does reftensor."""
    dst = data.draw(st.sampled_from(DTYPES), label="dst")
    values = data.draw(st.lists(_values_of(src if src in ("bool", *INT_NAMES) else "float"),
                                min_size=1, max_size=8), label="values")

    def program(lib):
        wide = lib.float64 if src in FLOAT_NAMES else getattr(lib, src)
        x = lib.tensor(values, dtype=wide).to(getattr(lib, src))
        return x, x.to(getattr(lib, dst))

    same_on_both(program)


def test_uint8_wraps_and_int8_plus_uint8_is_int16():
    for program in (
        lambda lib: lib.tensor([250], dtype=lib.uint8) + 10,
        lambda lib: lib.tensor([5], dtype=lib.uint8) - 10,
        lambda lib: lib.tensor([-7, 7], dtype=lib.int8) + lib.tensor([200, 1], dtype=lib.uint8),
        lambda lib: lib.tensor([-7, 7]) // lib.tensor([2, -2]),
        lambda lib: lib.tensor([-7, 7]) % lib.tensor([2, -2]),
        lambda lib: lib.tensor([-7.5, 7.5]) % lib.tensor([2.0, -2.0]),
        lambda lib: lib.ones(3, dtype=lib.float32) + lib.tensor(1.0, dtype=lib.float64),
        lambda lib: lib.ones(3, dtype=lib.int32) + lib.tensor(1.0, dtype=lib.float64),
        lambda lib: lib.tensor([1, 2]) / 2,
    ):
        same_on_both(program)


def test_float16_overflows_where_bfloat16_does_not():
    same_on_both(lambda lib: lib.tensor([60000.0, 70000.0, 1e30]).half())
    same_on_both(lambda lib: lib.tensor([60000.0, 70000.0, 1e30]).bfloat16())
    same_on_both(lambda lib: lib.tensor([2049, 2050, 2051, 4097]).half().long())
    assert math.isinf(reftensor.tensor([70000.0]).half().item())


# ================================================== the guards of a CPU-only build
#: what published programs ask before choosing a device; torch 2.13's CPU build answers each
GUARDS = {
    "cuda.is_available": lambda lib: lib.cuda.is_available(),
    "cuda.device_count": lambda lib: lib.cuda.device_count(),
    "cuda.is_initialized": lambda lib: lib.cuda.is_initialized(),
    "cuda.is_bf16_supported": lambda lib: lib.cuda.is_bf16_supported(),
    "cuda.current_device": lambda lib: lib.cuda.current_device(),
    "cuda.get_device_name": lambda lib: lib.cuda.get_device_name(0),
    "cuda.get_device_capability": lambda lib: lib.cuda.get_device_capability(),
    "cuda.get_device_properties": lambda lib: lib.cuda.get_device_properties(0),
    "cuda.synchronize": lambda lib: lib.cuda.synchronize(),
    "cuda.init": lambda lib: lib.cuda.init(),
    "cuda.get_rng_state": lambda lib: lib.cuda.get_rng_state(),
    "cuda.manual_seed": lambda lib: lib.cuda.manual_seed(0),
    "cuda.manual_seed_all": lambda lib: lib.cuda.manual_seed_all(0),
    "cuda.seed_all": lambda lib: lib.cuda.seed_all(),
    "cuda.empty_cache": lambda lib: lib.cuda.empty_cache(),
    "cuda.memory_allocated": lambda lib: lib.cuda.memory_allocated(),
    "cuda.max_memory_allocated": lambda lib: lib.cuda.max_memory_allocated(),
    "cuda.memory_reserved": lambda lib: lib.cuda.memory_reserved(),
    "cuda.set_device": lambda lib: lib.cuda.set_device(0),
    "cuda.reset_peak_memory_stats": lambda lib: lib.cuda.reset_peak_memory_stats(),
    "cuda.device entered": lambda lib: lib.cuda.device(0).__enter__(),
    "cuda.Stream": lambda lib: lib.cuda.Stream(),
    "cuda.Event": lambda lib: lib.cuda.Event(),
    "backends.mps.is_available": lambda lib: lib.backends.mps.is_available(),
    "backends.mps.is_built": lambda lib: lib.backends.mps.is_built(),
    "backends.cuda.is_built": lambda lib: lib.backends.cuda.is_built(),
    "backends.cudnn.is_available": lambda lib: lib.backends.cudnn.is_available(),
    "backends.cudnn.version": lambda lib: lib.backends.cudnn.version(),
    "backends.cudnn switches": lambda lib: (lib.backends.cudnn.enabled,
                                            lib.backends.cudnn.benchmark,
                                            lib.backends.cudnn.deterministic),
    "accelerator.is_available": lambda lib: lib.accelerator.is_available(),
    "accelerator.current_accelerator": lambda lib: lib.accelerator.current_accelerator(),
    "accelerator.device_count": lambda lib: lib.accelerator.device_count(),
    "the usual device choice": lambda lib: str(lib.device(
        "cuda" if lib.cuda.is_available()
        else "mps" if lib.backends.mps.is_available() else "cpu")),
}


@pytest.mark.parametrize("name", list(GUARDS))
def test_the_guards_answer_as_a_cpu_only_torch(name):
    """``torch.cuda``, ``torch.backends`` and ``torch.accelerator`` as torch 2.13's CPU build
    answers them: the value, or the exception class (AssertionError "Torch not compiled with
    CUDA enabled" where torch asks the missing device)."""
    same_on_both(GUARDS[name])
