"""Chapter 4 exercises: dtype and device. Every right answer is what torch 2.13 does."""

from __future__ import annotations

import contextlib
import math
import os

from hypothesis import strategies as st

from .layouts import DTYPE_NAMES, row_major
from .spec import Case, Exercise, register

CHAPTER = "ch04_dtype_device"
MEMORY_FORMATS = ["preserve_format", "contiguous_format", "channels_last"]


def _torch():
    import torch  # imported only where references are computed

    return torch


def _name(dtype) -> str:
    """``torch.float32`` -> ``"float32"``."""
    return str(dtype).removeprefix("torch.")


# ---------------------------------------------------------------- promote_types
@st.composite
def _promote_cases(draw: st.DrawFn) -> Case:
    return Case(args=(draw(st.sampled_from(DTYPE_NAMES)), draw(st.sampled_from(DTYPE_NAMES))))


def _promote_reference(c: Case) -> str:
    torch = _torch()
    return _name(torch.promote_types(getattr(torch, c.args[0]), getattr(torch, c.args[1])))


register(Exercise(
    name="promote_types",
    chapter=CHAPTER,
    signature="promote_types(a, b) -> str; a and b are dtype names such as 'int8'",
    fixed=(
        Case(args=("int32", "int64")),
        Case(args=("uint8", "int8")),
        Case(args=("int64", "float16")),
        Case(args=("float16", "bfloat16")),
    ),
    edge=tuple(Case(args=(a, b)) for a in DTYPE_NAMES for b in DTYPE_NAMES),  # all 100 pairs
    strategy=_promote_cases,
    reference=_promote_reference,
    truth=lambda c: f"str(torch.promote_types(torch.{c.args[0]}, torch.{c.args[1]}))[6:]",
    hidden_examples=10,
))


# ---------------------------------------------------------------- result_dtype
SCALARS = [True, False, 0, 2, -3, 7, 2.5, -0.5, 1e10]


@st.composite
def _operand(draw: st.DrawFn) -> tuple:
    if draw(st.integers(0, 2)) == 2:
        return ("scalar", draw(st.sampled_from(SCALARS)))
    return ("tensor", draw(st.sampled_from(DTYPE_NAMES)), draw(st.sampled_from([0, 1, 1, 2])))


@st.composite
def _result_cases(draw: st.DrawFn) -> Case:
    a, b = draw(_operand()), draw(_operand())
    if a[0] == b[0] == "scalar":  # at least one tensor: two Python numbers make no tensor
        a = ("tensor", draw(st.sampled_from(DTYPE_NAMES)), draw(st.sampled_from([0, 1])))
    if draw(st.booleans()):
        a, b = b, a
    return Case(args=(a, draw(st.sampled_from(["+", "/"])), b))


def _build_operand(operand):
    if operand[0] == "scalar":
        return operand[1]
    torch = _torch()
    _, dtype, ndim = operand
    return torch.ones((2,) * ndim, dtype=getattr(torch, dtype))


def _result_reference(c: Case) -> str:
    a, op, b = c.args
    x, y = _build_operand(a), _build_operand(b)
    return _name((x + y if op == "+" else x / y).dtype)


def _operand_text(operand) -> str:
    if operand[0] == "scalar":
        return repr(operand[1])
    _, dtype, ndim = operand
    return f"torch.ones({(2,) * ndim!r}, dtype=torch.{dtype})"


register(Exercise(
    name="result_dtype",
    chapter=CHAPTER,
    signature="result_dtype(a, op, b) -> str; a and b are ('tensor', dtype, ndim) or "
              "('scalar', value), op is '+' or '/'",
    fixed=(
        Case(args=(("tensor", "int8", 1), "+", ("tensor", "int16", 1))),
        Case(args=(("tensor", "int8", 1), "+", ("scalar", 7))),
        Case(args=(("tensor", "int32", 2), "+", ("scalar", 2.5))),
        Case(args=(("tensor", "float16", 1), "+", ("tensor", "float64", 0))),
        Case(args=(("tensor", "int64", 1), "/", ("scalar", 2))),
    ),
    edge=(
        Case(args=(("tensor", "bool", 1), "+", ("scalar", True))),
        Case(args=(("tensor", "bool", 1), "+", ("scalar", 2))),
        Case(args=(("tensor", "uint8", 1), "+", ("scalar", -3))),
        Case(args=(("tensor", "int32", 1), "+", ("tensor", "float64", 0))),
        Case(args=(("tensor", "int32", 0), "+", ("tensor", "float16", 0))),
        Case(args=(("tensor", "bfloat16", 1), "+", ("tensor", "float16", 0))),
        Case(args=(("tensor", "int8", 0), "+", ("scalar", 2.5))),
        Case(args=(("tensor", "bool", 0), "/", ("tensor", "bool", 1))),
        Case(args=(("scalar", 1e10), "/", ("tensor", "float16", 2))),
    ),
    strategy=_result_cases,
    reference=_result_reference,
    truth=lambda c: (f"str(({_operand_text(c.args[0])} {c.args[1]} "
                     f"{_operand_text(c.args[2])}).dtype)[6:]"),
    hidden_examples=100,
))


# ---------------------------------------------------------------- cast_value
def _float32(x: float) -> float:
    """x rounded to float32 (one nan object for every nan, so equal cases compare equal)."""
    import struct

    return math.nan if x != x else struct.unpack("f", struct.pack("f", x))[0]


def _bits(draw: st.DrawFn, n: int) -> int:
    """An n-bit unsigned integer made of booleans. Hypothesis's integers() and floats() also
    draw constants found in the loaded modules, so their cases would differ between the
    grader's process and the notebook's kernel; booleans draw none."""
    return sum(bit << k for k, bit in enumerate(draw(st.lists(st.booleans(), min_size=n,
                                                               max_size=n))))


NOTABLE = [0.0, -0.0, 1.0, 2049.0, 2051.0, 257.0, 259.0, 65504.0, 65519.0, 65520.0, 65536.0,
           -70000.0, 1e-8, 3e-8, 5.960464477539063e-08, 6.1e-05, 0.1, 1 / 3, 1e38, 3.4e38,
           math.inf, -math.inf, math.nan, 1.00390625, 1.005859375, 100000.0]


@st.composite
def _cast_cases(draw: st.DrawFn) -> Case:
    kind = draw(st.sampled_from([0, 1, 2, 3]))
    sign = draw(st.sampled_from([1, -1]))
    if kind == 0:
        x = draw(st.sampled_from(NOTABLE))
    elif kind == 1:  # an integer: where do integers stop being exact?
        x = float(sign * (_bits(draw, 17) % 70001))
    elif kind == 2:  # a halfway point between two float16 or bfloat16 neighbours
        e = _bits(draw, 6) % 44 - 26
        x = sign * (_bits(draw, 11) * 2 + 1) * 2.0 ** (e - 11)
    else:  # any float32 value: a 24-bit integer times a power of two
        x = sign * _bits(draw, 24) * 2.0 ** (_bits(draw, 8) % 254 - 149)
    return Case(args=(_float32(x), draw(st.sampled_from(["float16", "bfloat16"]))))


def _cast_reference(c: Case) -> float:
    torch = _torch()
    x, dtype = c.args
    return torch.tensor(x, dtype=torch.float32).to(getattr(torch, dtype)).item()


register(Exercise(
    name="cast_value",
    chapter=CHAPTER,
    signature="cast_value(x, dtype) -> float; x is a float32 value, dtype 'float16' or "
              "'bfloat16'",
    fixed=(
        Case(args=(0.1, "float16")),
        Case(args=(2049.0, "float16")),
        Case(args=(70000.0, "float16")),
        Case(args=(70000.0, "bfloat16")),
        # the rules the text states: rounding past the largest value, the subnormal step,
        # nan and inf
        Case(args=(65520.0, "float16")),
        Case(args=(3e-8, "float16")),
        Case(args=(math.nan, "bfloat16")),
        Case(args=(-math.inf, "float16")),
    ),
    edge=(
        Case(args=(65504.0, "float16")),
        Case(args=(65519.0, "float16")),
        Case(args=(65520.0, "float16")),
        Case(args=(257.0, "bfloat16")),
        Case(args=(259.0, "bfloat16")),
        Case(args=(1e-8, "float16")),
        Case(args=(3e-8, "float16")),
        Case(args=(_float32(1e-40), "bfloat16")),
        Case(args=(math.nan, "bfloat16")),
        Case(args=(-math.inf, "float16")),
        Case(args=(_float32(3.4e38), "bfloat16")),
    ),
    strategy=_cast_cases,
    reference=_cast_reference,
    truth=lambda c: (f"torch.tensor({c.args[0]!r}, dtype=torch.float32)"
                     f".to(torch.{c.args[1]}).item()"),
    hidden_examples=100,
))


# ---------------------------------------------------------------- to_result
def _channels_last_strides(shape) -> tuple[int, ...]:
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


@st.composite
def _to_tensor(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, stride) of a contiguous, transposed, sliced, expanded or channels-last tensor,
    a sliced permutation (not dense, and not in row-major order), or an (N, 1, 1, 1)."""
    small = st.integers(1, 4)
    kind = draw(st.sampled_from(["contiguous", "transposed", "sliced", "expanded",
                                 "channels_last", "contiguous4d", "sliced_permuted", "any",
                                 "any4d", "n111"]))
    if kind == "n111":  # torch's guess reads only the order of C's, W's and H's strides:
        # climbing (channels_last), all equal (ambiguous), or in row-major order
        c, w, h = sorted(draw(st.lists(st.sampled_from([1, 1, 2, 3, 4]), min_size=3,
                                       max_size=3)))
        n = h * draw(st.sampled_from([1, 2, 3]))
        stride = (n, h, w, c) if draw(st.booleans()) else (n, c, h, w)
        return (draw(st.sampled_from([1, 2, 3])), 1, 1, 1), stride
    if kind in ("any", "any4d"):  # sizes 0 and 1, stride 0, overlap: every rule's corners
        ndim = 4 if kind == "any4d" else draw(st.integers(0, 3))
        shape = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), min_size=ndim,
                                    max_size=ndim)))
        stride = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 6, 12, 24]),
                                     min_size=ndim, max_size=ndim)))
        return shape, stride
    if kind == "sliced_permuted":  # dense strides of a permuted shape, one dim stepped
        shape = tuple(draw(st.lists(small, min_size=2, max_size=3)))
        order = draw(st.permutations(range(len(shape))))  # innermost first
        stride, running = [0] * len(shape), 1
        for d in order:
            stride[d] = running
            running *= shape[d]
        stepped = draw(st.sampled_from(order))
        stride[stepped] *= draw(st.integers(2, 3))
        return shape, tuple(stride)
    if kind == "contiguous":
        shape = tuple(draw(st.lists(small, max_size=3)))
        return shape, row_major(shape)
    if kind in ("channels_last", "contiguous4d"):  # sizes >= 2: no ambiguous layouts
        shape = tuple(draw(st.lists(st.integers(2, 3), min_size=4, max_size=4)))
        if kind == "contiguous4d":
            return shape, row_major(shape)
        return shape, _channels_last_strides(shape)
    n, m = draw(small), draw(small)
    if kind == "transposed":
        return (n, m), (1, n)
    if kind == "sliced":
        return (n, m), (2 * m, 2)
    return (n, m), (1, 0)


@st.composite
def _to_call(draw: st.DrawFn, dtype: str) -> tuple:
    call = []
    target = draw(st.sampled_from([None, None, dtype, dtype, "float64", "int64", "float16"]))
    if draw(st.integers(0, 3)) == 3:
        call.append(("other", target or dtype))
    else:
        if draw(st.integers(0, 2)) == 2:
            call.append(("device", draw(st.sampled_from(["cpu", "cpu", "meta"]))))
        if target is not None:
            call.append(("dtype", target))
    if draw(st.integers(0, 2)) == 2:
        call.append(("copy", draw(st.booleans())))
    if draw(st.booleans()):
        call.append(("memory_format", draw(st.sampled_from(MEMORY_FORMATS))))
    return tuple(call)


@st.composite
def _to_cases(draw: st.DrawFn) -> Case:
    dtype = draw(st.sampled_from(["float32", "float32", "int64", "float16", "bool"]))
    shape, stride = draw(_to_tensor())
    call = draw(_to_call(dtype))
    if len(shape) == 4 and shape[1:] == (1, 1, 1) and "memory_format" not in dict(call) \
            and draw(st.booleans()):  # an (N, 1, 1, 1) asked for a format: torch's guess
        call += (("memory_format", draw(st.sampled_from(["channels_last", "contiguous_format"]))),)
    return Case(args=(dtype, tuple(shape), tuple(stride), call))


def _to_reference(c: Case) -> tuple[bool, tuple[int, ...]]:
    torch = _torch()
    dtype, shape, stride, call = c.args
    t = torch.empty_strided(shape, stride, dtype=getattr(torch, dtype))
    options = dict(call)
    kwargs = {}
    if "copy" in options:
        kwargs["copy"] = options["copy"]
    if "memory_format" in options:
        kwargs["memory_format"] = getattr(torch, options["memory_format"])
    if "other" in options:
        out = t.to(torch.empty(1, dtype=getattr(torch, options["other"])), **kwargs)
    else:
        if "device" in options:
            kwargs["device"] = options["device"]
        if "dtype" in options:
            kwargs["dtype"] = getattr(torch, options["dtype"])
        out = t.to(**kwargs)
    return out is t, out.stride()


def _call_text(call) -> str:
    parts = []
    for key, value in call:
        if key == "other":
            parts.insert(0, f"torch.empty(1, dtype=torch.{value})")
        elif key in ("dtype", "memory_format"):
            parts.append(f"{key}=torch.{value}")
        else:
            parts.append(f"{key}={value!r}")
    return ", ".join(parts)


def _to_truth(c: Case) -> str:
    dtype, shape, stride, call = c.args
    return (f"t = torch.empty_strided({shape!r}, {stride!r}, dtype=torch.{dtype}); "
            f"out = t.to({_call_text(call)}); (out is t, out.stride())")


def _to_case(dtype, shape, stride, *call) -> Case:
    return Case(args=(dtype, tuple(shape), tuple(stride), tuple(call)))


register(Exercise(
    name="to_result",
    chapter=CHAPTER,
    signature="to_result(dtype, shape, stride, call) -> (bool, stride); raises RuntimeError",
    fixed=(
        _to_case("float32", (2, 3), (3, 1), ("dtype", "float32")),
        _to_case("float32", (2, 3), (3, 1), ("dtype", "float64")),
        _to_case("float32", (3, 2), (1, 3), ("dtype", "float64")),
        _to_case("int64", (3, 2), (1, 3), ("memory_format", "contiguous_format")),
        _to_case("float32", (2, 3), (3, 1), ("device", "cpu"), ("copy", True)),
        _to_case("float32", (3, 4), (1, 6), ("dtype", "float64")),
        _to_case("float32", (3, 4), (1, 0), ("dtype", "float64")),
        # the corners: an empty tensor, a size-1 dim, torch's channels-last guess
        _to_case("float32", (3, 0), (2, 2), ("dtype", "float64")),
        _to_case("float32", (2, 1, 3), (3, 7, 1), ("dtype", "float64")),
        # (N, 1, 1, 1): ambiguous when H has C's stride, else read from the climbing strides
        _to_case("float32", (2, 1, 1, 1), (1, 1, 1, 1), ("memory_format", "channels_last")),
        _to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "channels_last")),
        _to_case("float32", (2, 3, 1, 4), (24, 1, 20, 3), ("memory_format", "channels_last")),
        _to_case("float32", (2, 3, 2, 2), (24, 1, 12, 3), ("memory_format", "channels_last")),
        _to_case("float32", (2, 3, 2, 2), (12, 0, 6, 3), ("memory_format", "contiguous_format")),
        _to_case("float32", (2, 3, 0, 2), (6, 1, 6, 3), ("memory_format", "channels_last")),
        _to_case("float32", (2, 3), (2, 2), ("dtype", "float64")),
        _to_case("float32", (3, 4), (0, 1), ("dtype", "float64")),
        # the device, another tensor, and channels_last on a tensor that is not 4-d
        _to_case("float32", (2, 3), (1, 2), ("device", "meta")),
        _to_case("int64", (2, 3), (3, 1), ("other", "float32")),
        _to_case("float32", (2, 3), (3, 1), ("memory_format", "channels_last")),
    ),
    edge=(
        _to_case("float32", (2, 0, 2, 2), (4, 1, 2, 1), ("memory_format", "channels_last")),
        _to_case("float32", (2, 0, 3), (1, 1, 1), ("memory_format", "contiguous_format")),
        _to_case("float32", (), (), ("dtype", "float32")),
        _to_case("float32", (2, 3, 4), (1, 2, 12), ("copy", True)),
        _to_case("float32", (3, 2), (4, 2), ("dtype", "float16")),
        _to_case("float32", (2, 3, 2, 2), (12, 1, 6, 3), ("memory_format", "contiguous_format")),
        _to_case("float32", (2, 3, 2, 2), (12, 1, 6, 3), ("dtype", "float64")),
        _to_case("float32", (2, 3, 2, 2), (12, 4, 2, 1), ("memory_format", "channels_last")),
        _to_case("int64", (2, 3), (3, 1), ("other", "int64"), ("copy", False)),
        # (N, 1, 1, 1) with climbing C, W, H strides: torch suggests channels_last; with
        # C's stride for H (all three equal) the layout is ambiguous: contiguous_format
        _to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "channels_last")),
        _to_case("float32", (2, 1, 1, 1), (9, 1, 3, 2), ("memory_format", "contiguous_format")),
        _to_case("float32", (3, 1, 1, 1), (4, 1, 4, 2), ("memory_format", "channels_last")),
        _to_case("float32", (3, 1, 1, 1), (4, 2, 2, 2), ("memory_format", "channels_last")),
        # C of stride 0 is never channels_last; copy=False still copies for a new dtype
        _to_case("float32", (2, 3, 2, 2), (12, 0, 6, 3), ("memory_format", "channels_last")),
        _to_case("float32", (2, 3), (3, 1), ("dtype", "float64"), ("copy", False)),
    ),
    strategy=_to_cases,
    reference=_to_reference,
    truth=_to_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- matmul_shape
@st.composite
def _matmul_shapes(draw: st.DrawFn) -> Case:
    """Two shapes for ``matmul``: 0-d to 4-d, sizes 0 to 3, mostly ones that fit (the inner
    sizes match, the batch dims broadcast), with now and then a 0-d operand, inner sizes
    that differ, or batch dims that clash."""
    size = st.sampled_from([0, 1, 2, 2, 3, 3])
    n, k, m = draw(size), draw(size), draw(size)
    batch = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 3]), max_size=2)))

    def operand(last: tuple[int, ...]) -> tuple[int, ...]:
        ndim = draw(st.sampled_from([1, 2, 2, 3, 4]))
        if ndim == 1:
            return (k,)
        keep = draw(st.sampled_from(range(min(ndim - 2, len(batch)) + 1)))
        own = tuple(1 if draw(st.sampled_from([0, 0, 0, 1])) else b
                    for b in batch[len(batch) - keep:])
        extra = tuple(draw(st.sampled_from([1, 1, 2])) for _ in range(ndim - 2 - keep))
        return (*extra, *own, *last)

    a, b = operand((n, k)), operand((k, m))
    trouble = draw(st.sampled_from(range(10)))
    if trouble == 0:  # a 0-d operand
        a, b = ((), b) if draw(st.booleans()) else (a, ())
    elif trouble == 1:  # inner sizes that differ
        b = (*b[:-2], k + 1, b[-1]) if len(b) > 1 else (k + 1,)
    elif trouble == 2 and len(a) > 2 and len(b) > 2:  # batch dims that clash
        d = draw(st.sampled_from(range(1, min(len(a), len(b)) - 1)))
        a = (*a[:-2 - d], 2, *a[len(a) - 1 - d:])
        b = (*b[:-2 - d], 3, *b[len(b) - 1 - d:])
    return Case(args=(a, b))


def _matmul_reference(c: Case) -> tuple[int, ...]:
    torch = _torch()
    a, b = c.args
    return tuple(torch.matmul(torch.empty(a, device="meta"), torch.empty(b, device="meta")).shape)


def _matmul_truth(c: Case) -> str:
    a, b = c.args
    return (f"tuple(torch.matmul(torch.empty({a!r}, device='meta'), "
            f"torch.empty({b!r}, device='meta')).shape)")


register(Exercise(
    name="matmul_shape",
    chapter=CHAPTER,
    signature="matmul_shape(a, b) -> shape; a and b are shapes (tuples of ints); raises "
              "RuntimeError",
    fixed=(
        Case(args=((2, 3), (3, 4))),
        # the rules the text states: a 0-d operand, inner sizes that differ
        Case(args=((), (3,))),
        Case(args=((3,), ())),
        Case(args=((2, 3), (4, 5))),
        Case(args=((2, 5, 4), (3,))),
        # a 1-d operand is a row or a column, whose dim is removed again
        Case(args=((3,), (3,))),
        Case(args=((3,), (3, 4))),
        Case(args=((2, 3), (3,))),
        Case(args=((3,), (2, 3, 4))),
        Case(args=((2, 5, 3), (3,))),
        # the batch dims broadcast, or clash
        Case(args=((2, 1, 4, 3), (5, 3, 2))),
        Case(args=((4, 3), (2, 3, 5))),
        Case(args=((2, 4, 3), (3, 3, 5))),
        # sizes 0 (a batch size 0 broadcasts with 1, and clashes with 2)
        Case(args=((0, 3), (3, 2))),
        Case(args=((2, 0), (0, 3))),
        Case(args=((2, 0, 4, 3), (1, 3, 2))),
        Case(args=((0, 2, 3), (2, 3, 4))),
    ),
    edge=(
        Case(args=((), ())),
        Case(args=((0,), (0,))),
        Case(args=((0,), (2, 0, 3))),
        Case(args=((3, 0, 2), (0,))),
        Case(args=((1, 1, 2), (1, 2, 1))),
        Case(args=((0, 2, 3), (1, 3, 4))),
        Case(args=((3, 1, 2, 3), (2, 3, 1))),
        Case(args=((2, 3, 4), (4,))),
        Case(args=((4,), (2, 3, 4))),
        Case(args=((2, 2, 3), (3, 2, 1))),
    ),
    strategy=_matmul_shapes,
    reference=_matmul_reference,
    truth=_matmul_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- matmul_plan
def _plan_tensor(shape, stride, requires_grad: bool):
    torch = _torch()
    return torch.empty_strided(shape, stride).requires_grad_(requires_grad)


@contextlib.contextmanager
def _quiet_stderr():
    """The process's stderr (file descriptor 2) sent to the null device: the profiler's
    library writes a line there as it starts and stops, which a notebook would show."""
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _plan_reference(c: Case) -> tuple:
    """torch's plan, read off the aten ops its ``matmul`` calls as ``torch.profiler`` records
    them with their arguments (a ``TorchDispatchMode`` would change the plan: under one, a
    3-d operand's batch of 1 is squeezed whether it requires grad or not): the squeeze of an
    operand, the kernel and its operands' shapes (``bmm``'s: the sizes ``expand`` gets),
    and the size ``_unsafe_view`` gives its result."""
    torch = _torch()
    a_shape, a_stride, b_shape, b_stride, requires_grad, has_out = c.args
    a = _plan_tensor(a_shape, a_stride, requires_grad[0])
    b = _plan_tensor(b_shape, b_stride, requires_grad[1])
    grad = torch.no_grad() if has_out else contextlib.nullcontext()
    with _quiet_stderr(), grad, torch.autograd.profiler.profile(record_shapes=True) as recorded:
        result = torch.matmul(a, b, out=torch.empty(0)) if has_out else torch.matmul(a, b)
    calls = [(e.name.removeprefix("aten::"), e.input_shapes, e.concrete_inputs)
             for e in sorted(recorded.function_events, key=lambda e: e.time_range.start)]
    k = next(i for i, call in enumerate(calls) if call[0] in ("dot", "mv", "mm", "bmm"))
    before, (name, shapes, _), after = calls[:k], calls[k], calls[k + 1:]
    squeeze = next((int(shape[0] != [*a_shape]) for op, shape, args in before
                    if op == "squeeze" and args[1] == 0), None)
    views = [tuple(args[1]) for op, _, args in after if op == "_unsafe_view"]
    output_shape = views[0] if views and not has_out else tuple(result.shape)  # (out=: resized)
    if name == "bmm":  # the sizes the operands are expanded to
        sizes = [tuple(args[1]) for op, _, args in before if op == "expand"]
        return squeeze, "bmm", sizes[0], sizes[1], output_shape
    kernel = name
    if any(op == "squeeze_" for op, _, _ in after):
        kernel = "unsqueeze_mm"
    elif any(op == "reshape" for op, _, _ in before):  # a fold; of B.mT where B is taken mT
        kernel = "fold_mT" if any(op == "mT" for op, _, _ in before) else "fold"
    return squeeze, kernel, tuple(shapes[0]), tuple(shapes[1]), output_shape


def _plan_truth(c: Case) -> str:
    a_shape, a_stride, b_shape, b_stride, requires_grad, has_out = c.args
    a = f"torch.empty_strided({a_shape!r}, {a_stride!r}, requires_grad={requires_grad[0]})"
    b = f"torch.empty_strided({b_shape!r}, {b_stride!r}, requires_grad={requires_grad[1]})"
    call = f"torch.matmul({a}, {b}, out=torch.empty(0))" if has_out else f"{a} @ {b}"
    return (f"{call}{' under no_grad' if has_out else ''}: the aten ops it calls, recorded by "
            "torch.profiler with their arguments (squeeze, dot/mv/mm/bmm and their operands' "
            "shapes, expand, _unsafe_view)")


def _call_plan(fn, case: Case) -> tuple:
    squeeze, kernel, shape1, shape2, output_shape = fn(*case.args)
    return squeeze, kernel, tuple(shape1), tuple(shape2), tuple(output_shape)


def _plan_layout(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides for ``shape``: contiguous, the last two dims swapped (``mT``), batch dims
    swapped, a batch dim expanded (stride 0), stepped, or a size-1 dim with any stride."""
    kind = draw(st.sampled_from(["contiguous", "contiguous", "mT", "batch", "expanded",
                                 "stepped", "size-1"]))
    order = list(range(len(shape)))
    if kind == "mT" and len(shape) > 1:
        order[-2:] = order[:-3:-1]
    elif kind == "batch" and len(shape) > 3:
        order[:2] = order[1::-1]
    base = row_major([shape[d] for d in order])
    stride = [0] * len(shape)
    for pos, d in enumerate(order):
        stride[d] = base[pos]
    if kind == "expanded" and len(shape) > 2:
        stride[draw(st.sampled_from(range(len(shape) - 2)))] = 0
    elif kind == "stepped":
        stride = [s * draw(st.sampled_from([1, 2])) for s in stride]
    elif kind == "size-1" and 1 in shape:
        stride[shape.index(1)] = draw(st.sampled_from([0, 1, 5, 9]))
    return tuple(stride)


@st.composite
def _plan_cases(draw: st.DrawFn) -> Case:
    """Two operands that multiply: 1-d to 4-d on either side (a matrix or a vector beside a
    batch, both ways round; two 3-d ones with a batch of 1), sizes 0 to 3, every layout of
    ``_plan_layout``, either operand requiring grad, now and then ``out=``, and now and then
    batch dims that clash."""
    size = st.sampled_from([0, 1, 2, 3, 3])
    n, k, m = draw(size), draw(size), draw(size)
    batch = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=1, max_size=2)))

    def operand(last: tuple[int, ...], ndim: int) -> tuple[int, ...]:
        if ndim == 1:
            return (k,)
        own = tuple(1 if draw(st.sampled_from([0, 0, 1])) else s for s in batch)
        return (*own[len(own) - (ndim - 2):], *last) if ndim - 2 <= len(own) else \
            (*(1,) * (ndim - 2 - len(own)), *own, *last)

    da, db = draw(st.sampled_from([(3, 1), (3, 2), (4, 2), (1, 3), (2, 3), (2, 4), (3, 3),
                                   (3, 3), (4, 3), (1, 1), (2, 1), (1, 2), (2, 2)]))
    a, b = operand((n, k), da), operand((k, m), db)
    if da == db == 3 and draw(st.booleans()):  # a batch of 1 on one side only
        one = draw(st.booleans())
        a, b = ((1, *a[1:]), (draw(st.sampled_from([0, 2, 3])), *b[1:])) if one else \
            ((draw(st.sampled_from([0, 2, 3])), *a[1:]), (1, *b[1:]))
    if da > 2 and db > 2 and draw(st.sampled_from(range(8))) == 0:  # batch dims that clash
        a, b = (2, *a[1:]), (3, *b[1:])
    requires_grad = (draw(st.booleans()), draw(st.booleans()))
    has_out = draw(st.sampled_from([False, False, False, True]))
    return Case(args=(a, _plan_layout(draw, a), b, _plan_layout(draw, b), requires_grad,
                      has_out))


def _plan_case(a, a_stride, b, b_stride, grad=(False, False), has_out=False) -> Case:
    return Case(args=(a, a_stride, b, b_stride, grad, has_out))


register(Exercise(
    name="matmul_plan",
    chapter=CHAPTER,
    signature="matmul_plan(a_shape, a_stride, b_shape, b_stride, requires_grad, has_out) -> "
              "(squeeze, kernel, shape1, shape2, output_shape); raises RuntimeError",
    fixed=(
        # one kernel for each pair of dims up to 2
        _plan_case((3,), (1,), (3,), (1,)),
        _plan_case((2, 3), (3, 1), (3,), (1,)),
        _plan_case((3,), (1,), (3, 4), (4, 1)),
        _plan_case((2, 3), (3, 1), (3, 4), (4, 1)),
        # a batch on the left folds into the rows where its layout lets a view do it...
        _plan_case((2, 3, 4), (12, 4, 1), (4, 5), (5, 1)),
        _plan_case((2, 3, 4), (12, 4, 1), (4,), (1,)),
        # ...and otherwise is a bmm on the broadcast batch (a vector gets its column after)
        _plan_case((2, 3, 4), (12, 1, 3), (4, 5), (5, 1)),
        _plan_case((2, 3, 4), (4, 8, 1), (4,), (1,)),
        # unless the smaller operand requires grad (not with out=)
        _plan_case((2, 3, 4), (12, 1, 3), (4, 5), (5, 1), (False, True)),
        _plan_case((2, 3, 4), (12, 1, 3), (4, 5), (5, 1), (True, False)),
        _plan_case((2, 3, 4), (12, 1, 3), (4, 5), (5, 1), (False, True), True),
        # a batch on the right folds its mT, for a vector on the left (by layout or grad),
        # for a matrix only by grad
        _plan_case((4,), (1,), (2, 4, 5), (20, 1, 4)),
        _plan_case((4,), (1,), (2, 4, 5), (20, 5, 1)),
        _plan_case((4,), (1,), (2, 4, 5), (20, 5, 1), (True, False)),
        _plan_case((3, 4), (4, 1), (2, 4, 5), (20, 1, 4)),
        _plan_case((3, 4), (4, 1), (2, 4, 5), (20, 5, 1), (True, False)),
        # a size-1 dim's stride counts too
        _plan_case((2, 1, 4), (4, 7, 1), (4, 5), (5, 1)),
        _plan_case((2, 1, 4), (4, 4, 1), (4, 5), (5, 1)),
        # two batches broadcast
        _plan_case((2, 1, 3, 4), (12, 12, 4, 1), (5, 4, 2), (8, 2, 1)),
        # two 3-d operands, one with a batch of 1 that requires grad: it is squeezed first
        _plan_case((1, 3, 4), (12, 4, 1), (2, 4, 5), (20, 5, 1)),
        _plan_case((1, 3, 4), (12, 4, 1), (2, 4, 5), (20, 5, 1), (False, True)),
        _plan_case((2, 3, 4), (12, 4, 1), (1, 4, 5), (20, 5, 1), (False, True)),
        _plan_case((2, 3, 4), (12, 4, 1), (1, 4, 5), (20, 5, 1), (True, False)),
        _plan_case((1, 3, 4), (12, 4, 1), (2, 4, 5), (20, 5, 1), (True, False)),
        _plan_case((1, 3, 4), (12, 4, 1), (1, 4, 5), (20, 5, 1), (True, True)),
        # batch dims that clash
        _plan_case((2, 3, 4), (12, 4, 1), (3, 4, 5), (20, 5, 1)),
    ),
    edge=(
        # size 0: an empty batch always folds
        _plan_case((2, 0, 4), (4, 4, 1), (4, 5), (5, 1)),
        _plan_case((0, 3, 4), (1, 0, 5), (4, 5), (5, 1)),
        _plan_case((4,), (1,), (2, 4, 0), (4, 1, 1)),
        _plan_case((3, 0), (1, 3), (2, 0, 2), (1, 1, 1)),
        # an expanded batch does not fold
        _plan_case((3, 2, 4), (0, 4, 1), (4,), (1,)),
        # 4-d batches: permuted batch dims, the last two swapped
        _plan_case((2, 3, 4, 5), (60, 20, 5, 1), (5,), (1,)),
        _plan_case((2, 3, 4, 5), (20, 40, 5, 1), (5,), (1,)),
        _plan_case((5,), (1,), (2, 3, 5, 4), (60, 20, 1, 5)),
        _plan_case((4, 5), (5, 1), (2, 3, 5, 4), (60, 20, 1, 5), (True, True)),
        # squeezed 3-d operands: a batch of 0 beside a batch of 1; with out= (no fold by grad)
        _plan_case((1, 3, 4), (12, 4, 1), (0, 4, 5), (20, 5, 1), (True, False)),
        _plan_case((2, 3, 4), (12, 1, 3), (1, 4, 5), (20, 5, 1), (False, True), True),
        _plan_case((2, 3, 4), (12, 4, 1), (1, 4, 5), (20, 5, 1), (False, True), True),
        # 1-d @ 4-d through bmm
        _plan_case((4,), (1,), (2, 1, 4, 5), (20, 20, 5, 1)),
    ),
    strategy=_plan_cases,
    reference=_plan_reference,
    truth=_plan_truth,
    call=_call_plan,
    hidden_examples=100,
))


# ---------------------------------------------------------------- arg_reduce_loop
NAN = float("nan")
#: The ops a case names, with the ``beats`` the answer gets: ``x`` takes the winner's place
#: when it is larger (smaller), or a NaN where the winner is not.
ARG_OPS = {
    "max": lambda x, best: best == best and (x != x or x > best),
    "min": lambda x, best: best == best and (x != x or x < best),
    "argmax": lambda x, best: best == best and (x != x or x > best),
    "argmin": lambda x, best: best == best and (x != x or x < best),
}


def _arg_plain(operand):
    """``operand`` as the answer gets it, with a list to write into (None stays None)."""
    if operand is None:
        return None
    return list(operand[0]), tuple(operand[1]), tuple(operand[2]), operand[3]


def _call_arg(fn, case: Case) -> tuple:
    """Run an answer to ``arg_reduce_loop`` on a case; its result is (the values' storage,
    or None for argmax/argmin, the indices' storage) after the call."""
    op, values, indices, x, dim, keepdim = case.args
    v, i = _arg_plain(values), _arg_plain(indices)
    fn(ARG_OPS[op], v, i, (tuple(x[0]), tuple(x[1]), tuple(x[2]), x[3]), dim, keepdim)
    return (None if v is None else v[0]), i[0]


def _arg_dtype(case: Case) -> str:
    """The input's (and the values') dtype: float64 where the input's or the values'
    storage holds a float (an empty input's values can be the only floats of a case)."""
    _, values, _, x, _, _ = case.args
    storages = (x[0],) if values is None else (x[0], values[0])
    return "float64" if any(isinstance(v, float) for s in storages for v in s) else "int64"


def _arg_tensor(operand, dtype: str):
    storage, shape, stride, offset = operand
    torch = _torch()
    s = torch.tensor(list(storage), dtype=getattr(torch, dtype))
    return s, s.as_strided(shape, stride, offset)


def _arg_reference(c: Case) -> tuple:
    """The outputs' storages after torch's op writes into them (``out=``, through their own
    strides and offsets)."""
    op, values, indices, x, dim, keepdim = c.args
    torch = _torch()
    _, input = _arg_tensor(x, _arg_dtype(c))
    i_storage, i_out = _arg_tensor(indices, "int64")
    if values is None:
        getattr(torch, op)(input, dim, keepdim, out=i_out)
        return None, i_storage.tolist()
    v_storage, v_out = _arg_tensor(values, _arg_dtype(c))
    getattr(torch, op)(input, dim, keepdim, out=(v_out, i_out))
    return v_storage.tolist(), i_storage.tolist()


def _arg_text(operand, dtype: str) -> str:
    storage, shape, stride, offset = operand
    return (f"torch.tensor({list(storage)!r}, dtype=torch.{dtype}).as_strided({shape!r}, "
            f"{stride!r}, {offset})")


def _arg_truth(c: Case) -> str:
    op, values, indices, x, dim, keepdim = c.args
    outs = "i" if values is None else "(v, i)"
    lines = [f"x = {_arg_text(x, _arg_dtype(c))}"]
    if values is not None:
        lines.append(f"v = {_arg_text(values, _arg_dtype(c))}")
    lines.append(f"i = {_arg_text(indices, 'int64')}")
    lines.append(f"torch.{op}(x, {dim}, {keepdim}, out={outs}); the storages' tolist()")
    return "; ".join(lines)


@st.composite
def _arg_out(draw: st.DrawFn, shape: tuple[int, ...], values: st.SearchStrategy) -> tuple:
    """An output to write into: its dims in any order, stepped by 1-2, an offset, storage to
    spare."""
    order = draw(st.permutations(range(len(shape))))
    stride = [0] * len(shape)
    running = 1
    for d in reversed(order):
        stride[d] = running * draw(st.sampled_from([1, 1, 2]))
        running = stride[d] * max(shape[d], 1)
    offset = draw(st.sampled_from([0, 0, 1, 2]))
    needed = 0 if 0 in shape else offset + 1 + sum((n - 1) * s
                                                   for n, s in zip(shape, stride, strict=True))
    length = max(needed, offset) + draw(st.integers(0, 2))
    return (tuple(draw(st.lists(values, min_size=length, max_size=length))), tuple(shape),
            tuple(stride), offset)


@st.composite
def _arg_cases(draw: st.DrawFn) -> Case:
    from .layouts import storage_needed, strided_layouts

    op = draw(st.sampled_from(list(ARG_OPS)))
    kind = draw(st.sampled_from(["int64", "int64", "float64"]))
    shape = draw(st.lists(st.sampled_from([2, 3, 1, 0, 2, 3, 4]), min_size=1, max_size=3)
                 .map(tuple))
    dim = draw(st.integers(0, len(shape) - 1))
    if shape[dim] == 0:  # torch refuses to pick from nothing
        shape = (*shape[:dim], draw(st.sampled_from([1, 2, 3])), *shape[dim + 1:])
    shape, stride, offset = draw(strided_layouts(st.just(shape)))
    keepdim = draw(st.booleans())
    out_shape = tuple(1 if d == dim else n for d, n in enumerate(shape)) if keepdim else \
        tuple(n for d, n in enumerate(shape) if d != dim)
    values = st.integers(-2, 2) if kind == "int64" else \
        st.sampled_from([0.5, -1.0, 2.0, 2.0, NAN, float("inf"), -0.0, 0.0])
    length = max(storage_needed(shape, stride, offset), offset) + draw(st.integers(0, 2))
    source = tuple(draw(st.lists(values, min_size=length, max_size=length)))
    filler = st.integers(-9, 9) if kind == "int64" else st.integers(-9, 9).map(float)
    v_out = None if op.startswith("arg") else draw(_arg_out(out_shape, filler))
    i_out = draw(_arg_out(out_shape, st.integers(-9, 9)))
    return Case(args=(op, v_out, i_out, (source, shape, stride, offset), dim, keepdim))


def _arg_case(op: str, values, indices, x, dim: int, keepdim: bool = False) -> Case:
    def plain(o):
        return None if o is None else (tuple(o[0]), tuple(o[1]), tuple(o[2]), o[3])

    return Case(args=(op, plain(values), plain(indices), plain(x), dim, keepdim))


register(Exercise(
    name="arg_reduce_loop",
    chapter=CHAPTER,
    signature="arg_reduce_loop(beats, values, indices, input, dim, keepdim) -> None; values "
              "(None for argmax/argmin), indices and input are (storage, shape, stride, "
              "offset), beats is the case's op ('max': x larger, or a NaN over a number); "
              "the result is (values' storage or None, indices' storage) after the call",
    fixed=(
        # along dim 1, then dim 0: the winner and its index along the dim
        _arg_case("max", ((0, 0), (2,), (1,), 0), ((0, 0), (2,), (1,), 0),
                  ((1, 5, 2, 7, 3, 4), (2, 3), (3, 1), 0), 1),
        _arg_case("argmin", None, ((0, 0, 0), (3,), (1,), 0),
                  ((1, 5, 2, 7, 3, 4), (2, 3), (3, 1), 0), 0),
        # ties: the first of equal elements wins
        _arg_case("argmax", None, ((9,), (), (), 0), ((2, 0, 2, 2), (4,), (1,), 0), 0),
        # NaN wins over every number, and the first NaN over a later one
        _arg_case("min", ((0.0, 0.0), (2,), (1,), 0), ((0, 0), (2,), (1,), 0),
                  ((1.0, NAN, -1.0, 2.0, NAN, -1.0), (2, 3), (3, 1), 0), 1),
        # keepdim, the outputs' own strides and offsets, storage they do not reach
        _arg_case("max", ((-1, -1, -1, -1, -1), (1, 2), (1, 2), 1), ((7, 7, 7), (1, 2), (2, 1), 1),
                  ((4, 5, 6, 1), (2, 2), (1, 2), 0), 0, True),
        # the input's offset and steps; a stride-0 (expanded) dim
        _arg_case("argmax", None, ((0, 0), (2,), (1,), 0),
                  ((9, 1, 0, 3, 0, 2, 0, 8), (2, 3), (1, 2), 1), 1),
        _arg_case("min", ((0, 0, 0), (3,), (1,), 0), ((0, 0, 0), (3,), (1,), 0),
                  ((3, 1, 2), (3, 4), (1, 0), 0), 1),
    ),
    edge=(
        _arg_case("argmax", None, ((5,), (), (), 0), ((4,), (1,), (1,), 0), 0),
        _arg_case("max", ((), (0,), (1,), 0), ((), (0,), (1,), 0), ((), (0, 3), (3, 1), 0), 1),
        _arg_case("argmin", None, ((1, 1, 1), (3, 1), (1, 1), 0),
                  ((2, 2, 1, 1, 0, 0), (3, 2), (2, 1), 0), 1, True),
        _arg_case("max", ((0.0,) * 2, (2,), (1,), 0), ((0, 0), (2,), (1,), 0),
                  ((-0.0, 0.0, float("inf"), 2.0), (2, 2), (2, 1), 0), 1),
        _arg_case("argmax", None, ((0,) * 4, (2, 1, 2), (2, 1, 1), 0),
                  (tuple(range(12)), (2, 3, 2), (1, 2, 6), 0), 1, True),
        _arg_case("argmax", None, ((0,) * 7, (3, 2), (1, 3), 1),
                  (tuple(k * 7 % 5 for k in range(12)), (3, 2, 2), (4, 2, 1), 0), 1),
        _arg_case("min", ((0, 0), (1, 2), (2, 1), 0), ((0, 0, 0, 0), (1, 2), (1, 2), 1),
                  ((0, 0, 1, 5), (3, 2), (1, 0), 1), 0, True),
    ),
    strategy=_arg_cases,
    reference=_arg_reference,
    truth=_arg_truth,
    call=_call_arg,
))
