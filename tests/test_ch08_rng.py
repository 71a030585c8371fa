"""Chapter 8: random number generation, bit for bit against torch 2.13 CPU.

For the same seed and the same sequence of calls, reftensor's random functions must give what
torch gives, to the last bit. Every program here runs on both libraries (the code is one
string, executed with ``lib`` bound to ``torch`` or to ``reftensor``, so a failure prints the
exact program). After each call the harness compares:

* each returned or written tensor: shape, stride, storage offset, dtype, device,
  ``requires_grad``, ``is_leaf``, ``_version``, contiguity, storage size (``describe`` in
  ``tests/difftest.py``) and **every byte of its storage** (so values bit for bit, NaN-safe,
  -0.0 apart from 0.0, and the gaps of a strided view left untouched);
* the state bytes (``get_state()``, 5056 bytes) of the explicit generator ``g`` *and* of the
  default generator, so the draw count, the cached second normal and "the default generator
  is untouched when ``generator=`` is passed" are all checked after every call;
* for a program that raises: the exception class (after comparing what came before).

Covered: seeding (0, 1, 2**32 and above, up to 2**64 - 1, negative seeds, out-of-range
seeds), ``Generator()``'s fixed default seed, ``seed()``, ``initial_seed()``, the module-level
functions and ``reftensor.random``; ``get_state``/``set_state`` round trips (fresh state
left=1/next=0, mid-stream, with a cached normal) and the states ``set_state`` rejects;
``fork_rng``; ``rand``/``randn`` for sizes 0, 1, 15, 16, 17, 31, 32, 33 and 10,000 in four
float dtypes (the fill path, the serial path, the 16-draw tail); ``normal_``/``uniform_``/
``random_``/``bernoulli_``/``exponential_`` on contiguous, transposed, column- and row-stepped,
``channels_last``, offset and 0-d tensors; ``normal``'s four overloads; ``randint`` (ranges
below 2**28, from 2**28, from 2**32, negative lows) and ``random_`` on every dtype;
``randperm`` (the small path); ``bernoulli``; ``multinomial``; ``dropout``; the ``*_like``
factories on non-contiguous inputs (torch fills in memory order); ``device='meta'`` (draws
nothing) and ``requires_grad=True``; the error cases, by exception class; the ``x86_default``
profile against torch run with ``ATEN_CPU_CAPABILITY=default`` in a subprocess; and random
sequences of all of these interleaved (Hypothesis), which shrink to a minimal program.

Not covered, on purpose:

* ``randperm``'s large path (n >= 214,748,364) would take minutes and gigabytes on both
  libraries; only the small path is compared.

``multinomial`` without replacement takes the top k of float scores, and equal scores (every
zero weight scores 0) come out in the order libstdc++'s ``nth_element`` and ``sort`` leave
them; reftensor replays those (``sorting.topk_order``), so the samples are compared exactly
(``multinomial_program`` draws zeros and ties).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import STATS, Mismatch, describe
from tests.strategies import examples

pytestmark = pytest.mark.ch08

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
ALL = ("bool", *INTS, *FLOATS)
SIZES = (0, 1, 15, 16, 17, 31, 32, 33)
BIG = 10_000
SPECIAL_SEEDS = (0, 1, 42, 2**31, 2**32 - 1, 2**32, 2**32 + 42, 2**63 - 1, 2**63, 2**64 - 1,
                 -1, -42, -(2**63))
seeds = st.one_of(st.sampled_from(SPECIAL_SEEDS), st.integers(-(2**63), 2**64 - 1))
STATE_BYTES = 5056


@pytest.fixture(autouse=True, scope="module")
def profile_of_this_torch():
    """reftensor's profile must be the build this torch runs: ``x86_avx2`` unless torch was
    started with ``ATEN_CPU_CAPABILITY=default`` (then the ``x86_default`` profile)."""
    before = reftensor.random.get_profile()
    capability = torch.backends.cpu.get_cpu_capability()
    reftensor.random.set_profile("x86_default" if capability == "DEFAULT" else "x86_avx2")
    yield
    reftensor.random.set_profile(before)


# ================================================================== the comparison
NUMPY_DTYPES = {"bool": np.dtype(np.bool_), "uint8": np.dtype(np.uint8),
                "int8": np.dtype(np.int8), "int16": np.dtype(np.int16),
                "int32": np.dtype(np.int32), "int64": np.dtype(np.int64),
                "float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16),
                "float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}


def storage_bytes(t: Any) -> bytes:
    """Every byte of the tensor's storage (torch or reftensor)."""
    if isinstance(t, torch.Tensor):
        raw = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())
        return raw.numpy().tobytes()
    return bytes(t.untyped_storage().tolist())


def element_bytes(t: Any) -> bytes:
    """The bytes of the tensor's elements in row-major order."""
    return storage_bytes(t.clone(memory_format=_lib(t).contiguous_format))


def _lib(x: Any) -> Any:
    return torch if isinstance(x, torch.Tensor | torch.Generator) else reftensor


def state_bytes(generator: Any) -> bytes:
    return element_bytes(generator.get_state())


def decode_state(b: bytes) -> dict[str, Any]:
    """The fields of a CPU generator state (torch's ``CPUGeneratorImplState``, little-endian)."""
    if len(b) != STATE_BYTES:
        return {"size": len(b)}
    seed, left, seeded, nxt = struct.unpack_from("<QiiQ", b, 0)
    return {"seed": seed, "left": left, "seeded": seeded, "next": nxt,
            "state words": np.frombuffer(b, "<u8", 624, 24),
            "bytes 5016:5024": b[5016:5024],
            "cached double normal": struct.unpack_from("<d", b, 5024)[0],
            "bytes 5032:5040": b[5032:5040],
            "double normal valid": struct.unpack_from("<i", b, 5040)[0],
            "bytes 5044:5048": b[5044:5048],
            "cached float normal": struct.unpack_from("<f", b, 5048)[0],
            "float normal valid": b[5052], "bytes 5053:5056": b[5053:5056]}


def state_difference(e: bytes, g: bytes) -> str:
    de, dg = decode_state(e), decode_state(g)
    parts = []
    for key in de:
        a, b = de[key], dg.get(key)
        if isinstance(a, np.ndarray):
            differ = np.flatnonzero(a != b)
            if differ.size:
                k = int(differ[0])
                parts.append(f"{differ.size} state words differ, first word {k}: "
                             f"torch {int(a[k]):#x}, reftensor {int(b[k]):#x}")
        elif a != b and not (isinstance(a, float) and math.isnan(a) and math.isnan(b)):
            parts.append(f"{key}: torch {a!r}, reftensor {b!r}")
    return "; ".join(parts)


@dataclass(frozen=True)
class TensorSnapshot:
    """A tensor's observable facts and every byte of its storage, taken when recorded (a
    later in-place call must not change what was seen)."""

    facts: dict[str, Any]
    raw: bytes | None  # None on meta
    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int


@dataclass(frozen=True)
class Raised:
    """An exception a step raised: its class is compared, the message only shown."""

    name: str
    message: str = field(compare=False)


@dataclass(frozen=True)
class GeneratorSnapshot:
    state: bytes


def snapshot(value: Any) -> Any:
    if isinstance(value, torch.Tensor | reftensor.Tensor):
        return TensorSnapshot(describe(value, values=False),
                              None if value.is_meta else storage_bytes(value),
                              str(value.dtype).split(".")[-1], tuple(value.shape),
                              tuple(value.stride()), value.storage_offset())
    if isinstance(value, torch.Generator | reftensor.Generator):
        return GeneratorSnapshot(state_bytes(value))
    if isinstance(value, torch.device | reftensor.device | torch.dtype | reftensor.dtype):
        return ("device or dtype", str(value).replace("reftensor.", "torch."))
    return value


def short(value: Any) -> str:
    """A one-line account of a snapshot, for messages."""
    if isinstance(value, TensorSnapshot):
        return f"a {value.dtype} tensor of shape {value.shape}"
    if isinstance(value, GeneratorSnapshot):
        fields = decode_state(value.state)
        return f"a generator (seed {fields.get('seed')}, left {fields.get('left')})"
    return repr(value)


def element_difference(e: TensorSnapshot, g: TensorSnapshot) -> str:
    """Which elements differ, with their values and bit patterns."""
    dt = NUMPY_DTYPES[e.dtype]
    uint = np.dtype(f"<u{dt.itemsize}")
    assert e.raw is not None and g.raw is not None

    def elements(buf: bytes, view: np.dtype) -> np.ndarray:
        flat = np.frombuffer(buf, view)
        return np.lib.stride_tricks.as_strided(
            flat[e.offset:], e.shape, tuple(s * dt.itemsize for s in e.stride))

    bits_e, bits_g = elements(e.raw, uint), elements(g.raw, uint)
    where = np.argwhere(bits_e != bits_g)
    if not where.size:
        first = next(k for k in range(len(e.raw)) if e.raw[k] != g.raw[k])
        return f"the storage bytes outside the tensor's elements differ (first: byte {first})"
    vals_e, vals_g = elements(e.raw, dt), elements(g.raw, dt)
    shown = []
    for index in where[:4]:
        i = tuple(int(k) for k in index)
        shown.append(f"{list(i)}: torch {vals_e[i]!r} ({int(bits_e[i]):#x}), "
                     f"reftensor {vals_g[i]!r} ({int(bits_g[i]):#x})")
    return f"{len(where)} of {math.prod(e.shape)} elements differ; " + "; ".join(shown)


def check(label: str, expected: Any, got: Any) -> None:
    """Compare one snapshot taken on torch (``expected``) with reftensor's (``got``)."""
    if isinstance(expected, TensorSnapshot):
        if not isinstance(got, TensorSnapshot):
            raise Mismatch(f"{label}: torch gave a Tensor, reftensor gave {got!r}")
        e, g = expected.facts, got.facts
        STATS["behaviours"] += len(e)
        if e != g:
            diff = {k: (e[k], g[k]) for k in e if e[k] != g[k]}
            raise Mismatch(f"{label}: (torch, reftensor) differ on {diff}")
        if expected.raw is None:
            return
        STATS["behaviours"] += 1
        if expected.raw != got.raw:
            raise Mismatch(f"{label}: {element_difference(expected, got)}")
        return
    STATS["behaviours"] += 1
    if isinstance(expected, GeneratorSnapshot):
        if not isinstance(got, GeneratorSnapshot):
            raise Mismatch(f"{label}: torch gave a Generator, reftensor gave {got!r}")
        if expected.state != got.state:
            raise Mismatch(f"{label}: generator states differ: "
                           f"{state_difference(expected.state, got.state)}")
        return
    if isinstance(expected, float) and isinstance(got, float):
        if struct.pack("<d", expected) != struct.pack("<d", got):
            raise Mismatch(f"{label}: torch {expected!r}, reftensor {got!r}")
        return
    if type(expected) is not type(got) or expected != got:
        raise Mismatch(f"{label}: torch {expected!r}, reftensor {got!r}")


class Record:
    """The snapshots one program took on one library, in order, and how it ended."""

    def __init__(self) -> None:
        self.facts: list[tuple[str, Any]] = []
        self.exc: BaseException | None = None

    def __call__(self, label: str, value: Any) -> None:
        self.facts.append((label, snapshot(value)))


def functional(lib: Any) -> Any:
    return importlib.import_module(f"{lib.__name__}.nn.functional")


def conform(program: Any, text: str = "") -> list[tuple[str, Any]]:
    """Run ``program(lib, record)`` on torch and on reftensor and compare every recorded
    fact, then how the program ended (normally, or the class of its exception). Returns
    torch's facts. ``text`` (the program's code) goes in the failure message."""
    records = []
    for lib in (torch, reftensor):
        record = Record()
        try:
            program(lib, record)
        except Exception as exc:  # noqa: BLE001 - the exception class is what we compare
            record.exc = exc
        records.append(record)
    t, r = records
    STATS["programs"] += 1
    where = f"\nprogram:\n{text}" if text else ""
    try:
        for (label, expected), (r_label, got) in zip(t.facts, r.facts, strict=False):
            if label != r_label:
                raise Mismatch(f"torch: {label} = {short(expected)}; "
                               f"reftensor: {r_label} = {short(got)}")
            check(label, expected, got)
        STATS["behaviours"] += 1
        if len(t.facts) != len(r.facts) or type(t.exc) is not type(r.exc):
            raise Mismatch(
                f"torch recorded {len(t.facts)} facts and ended with {t.exc!r}; "
                f"reftensor recorded {len(r.facts)} facts and ended with {r.exc!r}")
    except Mismatch as mismatch:
        raise Mismatch(f"{mismatch}{where}") from (r.exc or t.exc)
    return t.facts


def run_code(prologue: str, steps: list[str] | tuple[str, ...]) -> list[tuple[str, Any]]:
    """Run ``prologue`` and then each step (Python code; ``lib`` is the library, ``F`` its
    ``nn.functional``, ``g`` whatever the prologue made it) on both libraries; after each
    step record the class of the exception it raised if it did (the program goes on), the
    variables ``x``, ``out``, ``same`` it set, then the states of ``g`` and of the default
    generator."""

    def program(lib: Any, record: Record) -> None:
        ns: dict[str, Any] = {"lib": lib, "F": functional(lib)}
        exec(prologue, ns)
        for k, step in enumerate(("", *steps)):
            try:
                exec(step, ns)
            except Exception as exc:  # noqa: BLE001 - the exception class is compared
                record(f"after step {k}: raised", Raised(type(exc).__name__, str(exc)))
            for name in ("x", "out", "same"):
                if name in ns:
                    record(f"after step {k}: {name}", ns.pop(name))
            if "g" in ns:
                record(f"after step {k}: g", ns["g"])
            record(f"after step {k}: the default generator", lib.default_generator)

    text = prologue + "".join(f"\n# step {k}\n{s}" for k, s in enumerate(steps, 1))
    return conform(program, text)


def seeded(seed_g: int = 7, seed_default: int = 2024) -> str:
    """A prologue: the default generator and an explicit ``g``, each seeded."""
    return (f"lib.manual_seed({seed_default})\ng = lib.Generator().manual_seed({seed_g})\n"
            f"saved_g = g.get_state()\nsaved_d = lib.get_rng_state()")


# ================================================================== program pieces
LAYOUTS = ("contiguous", "transposed", "column-stepped", "row-stepped", "channels_last",
           "offset", "0-d")


def target(layout: str, m: int, n: int, dtype: str, fill: str = "zeros") -> str:
    """Code for a tensor of ``layout`` (shape (m, n); channels_last: (2, m, n, 3))."""
    f, dt = f"lib.{fill}", f"dtype=lib.{dtype}"
    return {
        "contiguous": f"{f}({m}, {n}, {dt})",
        "transposed": f"{f}({n}, {m}, {dt}).t()",
        "column-stepped": f"{f}({m}, {2 * n}, {dt})[:, ::2]",
        "row-stepped": f"{f}({2 * m}, {n}, {dt})[::2]",
        "channels_last": f"{f}(2, {m}, {n}, 3, {dt}).contiguous(memory_format=lib.channels_last)",
        "offset": f"{f}({m * n + 3}, {dt})[3:].view({m}, {n})",
        "0-d": f"{f}((), {dt})",
    }[layout]


def last_dim(layout: str, n: int) -> int | None:
    return {"channels_last": 3, "0-d": None}.get(layout, n)


def call(*parts: str) -> str:
    return ", ".join(p for p in parts if p)


GEN = st.sampled_from(("", "generator=g"))
DIMS = st.sampled_from((0, 1, 2, 3, 4, 5, 8, 17))
SHAPES = st.sampled_from(((), (0,), (1,), (15,), (16,), (17,), (31,), (32,), (33,), (40,),
                          (3, 5), (4, 4), (2, 3, 3), (5, 7), (2, 0, 3)))
MEANS = (0.0, 1.5, -3.25, 1e3, 1e-3)
STDS = (1.0, 0.5, 2.0, 1e-3, 0.0, 7.25)
UNIFORM_RANGES = ((0, 1), (-1, 1), (-0.3, 0.3), (2, 2.5), (-1e3, 1e-3), (0.1, 0.1), (-5, 0))
RANDINT_RANGES = ((0, 1), (0, 2), (0, 10), (-5, 5), (3, 200), (0, 2**28 - 1), (0, 2**28),
                  (-(2**27), 2**27 + 5), (0, 2**31), (-(2**31), 2**31 - 1), (-(2**31), 2**31),
                  (0, 2**32), (0, 2**32 + 1), (-(2**40), 2**40), (-(2**62), 2**62),
                  (-(2**63), 2**63 - 1), (0, 2**63 - 1))
RANDOM_TO = (1, 2, 3, 10, 100, 2**8, 2**15, 2**16, 2**24, 2**24 + 1, 2**28, 2**31, 2**32,
             2**33, 2**53, 2**62, 2**63 - 1)
RANDOM_FROM = (-(2**63), -(2**31), -100, -1, 0, 1, 5)
PROBS = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0, width=32))


@st.composite
def factory_step(draw: st.DrawFn) -> str:
    fn = draw(st.sampled_from(("rand", "randn")))
    shape = draw(SHAPES)
    size = ", ".join(map(str, shape)) if shape and draw(st.booleans()) else repr(shape)
    meta = draw(st.sampled_from(("", "", "", "device='meta'")))
    dtype = f"dtype=lib.{draw(st.sampled_from(FLOATS))}"
    return f"out = lib.{fn}({call(size, dtype, meta, draw(GEN))})"


@st.composite
def fill_step(draw: st.DrawFn) -> str:
    """An in-place distribution on a tensor of some layout."""
    layout, m, n = draw(st.sampled_from(LAYOUTS)), draw(DIMS), draw(DIMS)
    kind = draw(st.sampled_from(("normal_", "uniform_", "exponential_", "bernoulli_",
                                 "random_")))
    dtype = draw(st.sampled_from(ALL if kind in ("random_", "bernoulli_") else FLOATS))
    if kind == "normal_":
        args = draw(st.sampled_from(("",) + tuple(f"{a}, {b}" for a in MEANS for b in STDS)))
    elif kind == "uniform_":
        args = draw(st.sampled_from(("",) + tuple(f"{a}, {b}" for a, b in UNIFORM_RANGES)))
    elif kind == "exponential_":
        args = draw(st.sampled_from(("", "1.0", "0.5", "3.0", "1e-3")))
    elif kind == "bernoulli_":
        size = last_dim(layout, n)
        if size is not None and draw(st.booleans()):
            probs = draw(st.lists(PROBS, min_size=size, max_size=size))
            pdt = draw(st.sampled_from(("float32", "float64")))
            args = f"lib.tensor({probs}, dtype=lib.{pdt})"
        else:
            args = draw(st.sampled_from(("", "0.0", "0.3", "0.5", "1.0", "0.999")))
    else:
        frm, to = draw(st.sampled_from(RANDOM_FROM)), draw(st.sampled_from(RANDOM_TO))
        args = draw(st.sampled_from(("", f"{to}", f"{frm}, {to}", f"{frm}, None")))
    return f"x = {target(layout, m, n, dtype)}\nout = x.{kind}({call(args, draw(GEN))})"


@st.composite
def integer_step(draw: st.DrawFn) -> str:
    shape = draw(SHAPES)
    if draw(st.booleans()):
        n = draw(st.sampled_from((0, 1, 2, 3, 15, 16, 17, 33, 100)))
        dtype = draw(st.sampled_from(("int64", "int32", "int16", "uint8", "float32",
                                      "float64", "float16")))
        return f"out = lib.randperm({call(str(n), f'dtype=lib.{dtype}', draw(GEN))})"
    low, high = draw(st.sampled_from(RANDINT_RANGES))
    bounds = f"{high}" if low == 0 and draw(st.booleans()) else f"{low}, {high}"
    dtype = draw(st.sampled_from(("", "", "int64", "int32", "int16", "uint8", "float32",
                                  "float64", "bool")))
    dtype = dtype and f"dtype=lib.{dtype}"
    return f"out = lib.randint({call(bounds, repr(shape), dtype, draw(GEN))})"


@st.composite
def like_step(draw: st.DrawFn) -> str:
    layout, m, n = draw(st.sampled_from(LAYOUTS)), draw(DIMS), draw(DIMS)
    source = target(layout, m, n, draw(st.sampled_from(FLOATS)))
    fn = draw(st.sampled_from(("rand_like", "randn_like", "randint_like")))
    bounds = draw(st.sampled_from(("10", "-3, 3", "2**30"))) if fn == "randint_like" else ""
    dtype = draw(st.sampled_from(("",) + tuple(f"dtype=lib.{d}" for d in FLOATS)))
    return f"out = lib.{fn}({call(source, bounds, dtype, draw(GEN))})"


@st.composite
def multinomial_args(draw: st.DrawFn, dtype: str) -> tuple[str, str, str]:
    """Code for multinomial's probabilities (1-d or 2-d, some zero), number of samples and
    ``replacement``. Without replacement, never more samples than non-zero probabilities:
    scores of zero tie, and torch then returns zero-probability categories in an unspecified
    order (it does not raise)."""
    rows, n = draw(st.integers(1, 3)), draw(st.integers(1, 40))
    weights = st.one_of(st.just(0.0), st.floats(1e-3, 10.0))
    probs = [draw(st.lists(weights, min_size=n, max_size=n)) for _ in range(rows)]
    replacement = draw(st.booleans())
    positive = min(sum(p > 0 for p in row) for row in probs)
    k = draw(st.integers(1, 3 * n if replacement else max(1, positive)))
    t = f"lib.tensor({probs if rows > 1 else probs[0]}, dtype=lib.{dtype})"
    return t, str(k), f"replacement={replacement}"


@st.composite
def sampling_step(draw: st.DrawFn) -> str:
    """bernoulli of a probability tensor, multinomial, or normal's tensor overloads."""
    kind = draw(st.sampled_from(("bernoulli", "multinomial", "normal")))
    dtype = draw(st.sampled_from(("float32", "float64")))
    if kind == "bernoulli":
        probs = draw(st.lists(PROBS, min_size=0, max_size=40))
        t = f"lib.tensor({probs}, dtype=lib.{draw(st.sampled_from(FLOATS))})"
        form, gen = draw(st.sampled_from(("function", "with p", "method"))), draw(GEN)
        if form == "method":
            return f"out = {t}.bernoulli({gen})"
        return f"out = lib.bernoulli({call(t, '0.25' if form == 'with p' else '', gen)})"
    if kind == "multinomial":
        probs, k, replacement = draw(multinomial_args(dtype))
        return f"out = lib.multinomial({call(probs, k, replacement, draw(GEN))})"
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 20))
    means = draw(st.lists(st.sampled_from(MEANS), min_size=n, max_size=n))
    stds = draw(st.lists(st.sampled_from(STDS), min_size=m, max_size=m))
    mean_t = f"lib.tensor({means}, dtype=lib.{dtype})"
    std_t = f"lib.tensor({[[s] for s in stds]}, dtype=lib.{dtype})"
    args = draw(st.sampled_from((
        f"{mean_t}, {std_t}", f"{mean_t}, {stds[0]}", f"{means[0]}, {std_t}",
        f"{means[0]}, {stds[0]}, ({m}, {n})", f"{means[0]}, {stds[0]}, size=({n},)")))
    return f"out = lib.normal({call(args, draw(GEN))})"


@st.composite
def dropout_step(draw: st.DrawFn) -> str:
    layout, m, n = draw(st.sampled_from(LAYOUTS)), draw(DIMS), draw(DIMS)
    p = draw(st.sampled_from((0.0, 0.2, 0.5, 1.0, 0.9)))
    training, inplace = draw(st.booleans()), draw(st.booleans())
    x = target(layout, m, n, draw(st.sampled_from(FLOATS)), fill="ones")
    return (f"x = {x}\nout = F.dropout(x, p={p}, training={training}, inplace={inplace})\n"
            f"same = out is x")


@st.composite
def state_step(draw: st.DrawFn) -> str:
    return draw(st.sampled_from((
        "saved_g = g.get_state()", "g.set_state(saved_g)", "saved_d = lib.get_rng_state()",
        "lib.set_rng_state(saved_d)", "g.set_state(saved_d)", "out = g.get_state()",
        "with lib.random.fork_rng():\n    out = lib.randn(5)",
        f"g.manual_seed({draw(seeds)})", f"lib.manual_seed({draw(seeds)})",
    )))


any_step = st.one_of(factory_step(), fill_step(), integer_step(), like_step(),
                     sampling_step(), dropout_step(), state_step())


# ================================================================== random sequences
@settings(max_examples=examples(120), deadline=None)
@given(seed_g=seeds, seed_default=seeds, steps=st.lists(any_step, min_size=1, max_size=6))
def test_random_sequences_of_calls(seed_g, seed_default, steps):
    """Any sequence of random calls, on ``g`` or the default generator, interleaved."""
    run_code(seeded(seed_g, seed_default), steps)


# ================================================================== seeding and state
@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds)
def test_manual_seed_on_a_generator_and_the_default(seed):
    run_code("lib.manual_seed(2024)\ng = lib.Generator()", [
        "out = g.initial_seed()", f"same = g.manual_seed({seed}) is g", "out = g.initial_seed()",
        "saved = g.get_state()",
        "out = g.get_state()", "out = lib.rand(3, generator=g)",
        f"same = lib.manual_seed({seed}) is lib.default_generator",
        "out = lib.initial_seed()", "out = lib.get_rng_state()", "out = lib.rand(3)",
        f"lib.random.manual_seed({seed + 1})", "out = lib.random.initial_seed()",
        "out = lib.random.get_rng_state()", "out = lib.random.set_rng_state(saved)",
        "out = lib.rand(2)",
    ])


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1, 2**70, 1.5, "3", None, True])
@pytest.mark.parametrize("where", ["g.manual_seed", "lib.manual_seed", "lib.random.manual_seed"])
def test_manual_seed_rejects_what_torch_rejects(where, seed):
    """Out of [-2**63, 2**64 - 1], not an integer: the same exception class (or none)."""
    run_code(seeded(), [f"out = {where}({seed!r})", "out = lib.rand(2)"])


def test_seeds_that_agree_mod_2_to_32_give_the_same_stream():
    run_code(seeded(), [
        f"g.manual_seed({s})\nout = lib.randn(20, generator=g)\nsame = g.initial_seed()"
        for s in (5, 5 + 2**32, 5 - 2**32, 5 + 2**33, 5 - 2**63)])


def test_generator_defaults_and_device():
    run_code("lib.manual_seed(2024)", [
        "g = lib.Generator()\nout = g.initial_seed()",
        "g = lib.Generator(device='cpu')\nout = g.device",
        "g = lib.Generator(device=lib.device('cpu'))\nout = g.get_state()",
        "out = lib.rand(5, generator=g)",
        "out = lib.default_generator.device",
        "same = lib.Generator() is lib.Generator()",
    ])


@pytest.mark.parametrize("who", ["g", "lib.default_generator", "lib", "lib.random"])
def test_seed_draws_a_fresh_seed_and_reseeds(who):
    """``seed()`` is not deterministic: compare what it does, not the value."""
    state = "g.get_state()" if who == "g" else "lib.get_rng_state()"
    run_code(seeded(), [
        f"s = {who}.seed()\nout = (type(s).__name__, 0 <= s < 2**64, {who}.initial_seed() == s,"
        f" {state}.tolist() == lib.Generator().manual_seed(s).get_state().tolist())\n"
        "g.manual_seed(7)\nlib.manual_seed(2024)",  # the seeds differ: reseed before comparing
        "out = lib.rand(3, generator=g)",
    ])


def test_state_tensor_facts_and_round_trips():
    """get_state's tensor; set_state returns the generator; mid-stream and fresh states."""
    run_code(seeded(), [
        "out = g.get_state()", "out = lib.get_rng_state()",
        "out = lib.rand(7, generator=g)\ns = g.get_state()",
        "out = lib.rand(700, generator=g)",  # crosses a twist of the 624 words
        "same = g.set_state(s) is g", "out = lib.rand(707, generator=g)",
        "fresh = lib.Generator().manual_seed(99).get_state()\ng.set_state(fresh)",
        "out = lib.rand(3, generator=g)", "out = lib.set_rng_state(s)",
        "out = lib.rand(5)", "out = lib.randn(3, dtype=lib.float64)",
        "x = lib.get_rng_state()\nout = lib.randn(1)\nlib.set_rng_state(x)\nout = lib.randn(2)",
    ])


def test_cached_second_normal_lives_in_the_state():
    """The serial path caches r*sin(theta); the state bytes carry it; the fill path ignores it;
    manual_seed clears it."""
    run_code(seeded(), [
        *["out = lib.randn(3, generator=g)"] * 5,
        "out = lib.randn(1, generator=g)\ns = g.get_state()",
        "out = lib.randn(16, generator=g)",
        "out = lib.randn(1, generator=g)",
        "g.set_state(s)\nout = lib.randn(1, dtype=lib.float64, generator=g)",
        "out = lib.randn(1, generator=g)\ng.manual_seed(7)\nout = lib.randn(1, generator=g)",
        "out = lib.randn(17)", "x = lib.zeros(16, 2).t()\nout = x.normal_()",
        "out = lib.randn(5)", "out = lib.randn(3, dtype=lib.float16)",
        "out = lib.randn(3, dtype=lib.bfloat16)",
    ])


STATE_FIELDS = {"seed": (0, "<Q"), "left": (8, "<i"), "seeded": (12, "<i"), "next": (16, "<Q"),
                "word 5 upper half": (24 + 8 * 5 + 4, "<I"), "word 0": (24, "<Q"),
                "double normal": (5024, "<d"), "double valid": (5040, "<i"),
                "float normal": (5048, "<f"), "float valid": (5052, "<B")}


def _state_with(fields: dict[str, int | float]) -> str:
    """Code making ``bad``: ``g``'s state (left=622, next=3) with fields overwritten."""
    code = "import struct\nb = bytearray(g.get_state().tolist())\n"
    for name, value in fields.items():
        offset, fmt = STATE_FIELDS[name]
        code += f"struct.pack_into({fmt!r}, b, {offset}, {value!r})\n"
    return code + "bad = lib.tensor(list(b), dtype=lib.uint8)"


@pytest.mark.parametrize("fields", [
    {"seeded": 0}, {"seeded": 2}, {"left": 0}, {"left": 625}, {"left": -1}, {"next": 625},
    {"next": 2**40}, {"next": 2**32 + 3}, {"next": 2**32 + 625}, {"left": 1, "next": 0},
    {"left": 1, "next": 624}, {"left": 624, "next": 1},
    {"left": 300, "next": 325}, {"left": 624, "next": 3}, {"left": 3, "next": 624},
    {"word 5 upper half": 0xDEADBEEF}, {"word 0": 0x1234_5678_9ABC_DEF0},
    {"seed": 2**64 - 1}, {"double normal": 0.75}, {"double valid": 1},
    {"double normal": -2.5, "double valid": 1}, {"float normal": 0.5},
    {"float normal": 0.5, "float valid": 1},
], ids=repr)
def test_set_state_fields(fields):
    """Fields set_state accepts (then what get_state shows and what is drawn) or rejects.
    A state it accepts but whose next + left > 625 would make torch read past its 624 words
    (undefined behaviour): there only get_state is compared, nothing is drawn."""
    left, nxt = fields.get("left", 622), fields.get("next", 3) % 2**32  # torch reads 32 bits
    draws = ["out = lib.randn(2, generator=g)", "out = lib.rand(2, generator=g)",
             "out = lib.randn(2, dtype=lib.float64, generator=g)"]
    run_code(seeded(), [
        "out = lib.rand(3, generator=g)", _state_with(fields) + "\ng.set_state(bad)",
        "out = g.get_state()", *(draws if 1 <= left and left + nxt <= 625 else []),
        _state_with(fields) + "\nout = lib.set_rng_state(bad)", "out = lib.get_rng_state()",
    ])


@pytest.mark.parametrize("bad", [
    "g.get_state()[:-1]", "lib.cat([g.get_state(), g.get_state()[:1]])",
    "lib.zeros(0, dtype=lib.uint8)", "g.get_state().to(lib.float32)",
    "g.get_state().to(lib.int8)", "g.get_state().view(2, 2528)", "g.get_state()[::2]",
    "lib.zeros(5056, dtype=lib.uint8)",
])
def test_set_state_rejects_bad_tensors(bad):
    run_code(seeded(), [f"g.set_state({bad})", "out = lib.rand(2, generator=g)",
                        f"lib.set_rng_state({bad.replace('g.get_state', 'lib.get_rng_state')})"])


def test_fork_rng_restores_the_default_state():
    run_code(seeded(), [
        "out = lib.rand(3)",
        "with lib.random.fork_rng():\n    out = lib.randn(100)\n    x = lib.rand(1, generator=g)",
        "out = lib.rand(3)",
        "with lib.random.fork_rng(devices=[]):\n    lib.manual_seed(5)",
        "with lib.random.fork_rng(enabled=False):\n    out = lib.randn(3)",
        "try:\n    with lib.random.fork_rng():\n        lib.randn(5)\n        raise KeyError\n"
        "except KeyError:\n    out = lib.randn(2)",
        "with lib.random.fork_rng():\n    lib.set_rng_state(saved_g)\n    out = lib.rand(2)",
        "out = lib.rand(2)",
    ])


# ================================================================== the draw loop: Python and C
#: Calls on ``g`` of ``k`` elements, by the raw draws each element takes (1 or 2): in the
#: student edition, below 64 draws the generator takes them with ``generator.next_draws``
#: (the student's piece, which twists with ``twist`` and tempers with ``temper``), from 64 on
#: in NumPy's C loop; the reference takes them all in C. The tests below run both routes.
CHUNK_CALLS = (
    ("out = lib.empty({k}, dtype=lib.int32).random_(generator=g)", 1),
    ("out = lib.rand({k}, generator=g)", 1),
    ("out = lib.randint(0, 10, ({k},), generator=g)", 1),
    ("out = lib.randint(-2**40, 2**40, ({k},), generator=g)", 2),
    ("out = lib.rand({k}, dtype=lib.float64, generator=g)", 2),
    ("out = lib.empty({k}, dtype=lib.int64).random_(-2**63, None, generator=g)", 2),
)
#: draws that leave a seeded generator at, just before or just after the end of its words
STARTS = (0, 1, 2, 560, 600, 620, 622, 623, 624, 625, 1240, 1247, 1248)
CHUNKS = st.one_of(st.integers(1, 63), st.integers(1, 63),
                   st.sampled_from((64, 65, 100, 623, 624, 625, 700, 1300)))
#: set_state's counters (left, next): fresh, just twisted, left + next != 625 (two draws from
#: word 100, then a twist; 623 from word 0), at the end of the words
LOADED = ((1, 0), (624, 1), (3, 100), (624, 0), (1, 624), (5, 619), (2, 0))


@contextlib.contextmanager
def draws_in_python(python: bool):
    """The generator's route for draws taken fewer than 64 at a time: ``next_draws``
    (``True``, the student edition's) or NumPy's C loop (``False``, the reference's)."""
    from reftensor.random import generator

    saved = generator.PYTHON_DRAWS
    generator.PYTHON_DRAWS = python
    try:
        yield
    finally:
        generator.PYTHON_DRAWS = saved


def _after(position: int, draws: int) -> int:
    """mt19937's position (words used since the last twist, 1..624) after ``draws`` more."""
    total = position + draws
    return total if total <= 624 else (total - 1) % 624 + 1


@st.composite
def twist_crossing_program(draw: st.DrawFn) -> list[str]:
    """A start that leaves ``g`` near the end of its words (or loads counters with
    ``set_state``), then calls of a few draws (small ones: ``next_draws`` when they are in
    Python) and now and then a bulk one, with states saved and loaded between them."""
    steps = [f"out = lib.rand({draw(st.sampled_from(STARTS))}, generator=g)"]
    if draw(st.integers(0, 3)) == 0:
        left, nxt = draw(st.sampled_from(LOADED))
        steps.append("import struct\nb = bytearray(g.get_state().tolist())\n"
                     f"struct.pack_into('<iiQ', b, 8, {left}, 1, {nxt})\n"
                     "g.set_state(lib.tensor(list(b), dtype=lib.uint8))")
    for _ in range(draw(st.integers(2, 20))):
        if draw(st.integers(0, 9)) == 0:
            steps.append(draw(st.sampled_from(("saved_g = g.get_state()", "g.set_state(saved_g)",
                                               "g.set_state(saved_d)"))))
            continue
        template, per = draw(st.sampled_from(CHUNK_CALLS))
        k = draw(CHUNKS)
        steps.append(template.format(k=max(1, k // per) if k < 64 else k))
    return steps


@pytest.mark.parametrize("python", [True, False], ids=["next_draws", "numpy"])
@settings(max_examples=examples(60), deadline=None)
@given(seed=seeds, steps=twist_crossing_program())
def test_small_draws_across_twists_match_torch(python, seed, steps):
    """Calls of a few draws that reach the end of the words (a twist in ``next_draws``, or in
    NumPy's loop), interleaved with bulk calls (NumPy's twist) and ``set_state``: torch's
    values and whole state (the 624 words, ``left``, ``next``) after every call."""
    with draws_in_python(python):
        run_code(seeded(seed, seed + 1), steps)


@pytest.mark.parametrize("python", [True, False], ids=["next_draws", "numpy"])
def test_seven_at_a_time_across_two_twists_match_torch(python):
    """The chapter's demo: 700 bytes drawn seven at a time (twists at draws 1 and 625), the
    same with ``randint``, draws of 1 to 63 that reach the second and the third twist after a
    bulk draw, and states loaded with counters whose sum is not 625."""
    loaded = [f"g.manual_seed(5)\nx = lib.rand(3, generator=g)\nimport struct\n"
              f"b = bytearray(g.get_state().tolist())\n"
              f"struct.pack_into('<iiQ', b, 8, {left}, 1, {nxt})\n"
              f"g.set_state(lib.tensor(list(b), dtype=lib.uint8))\n"
              f"out = lib.randint(0, 2**20, ({k},), generator=g)"
              for left, nxt, k in ((3, 100, 4), (624, 0, 2), (2, 0, 63), (5, 619, 9))]
    with draws_in_python(python):
        run_code("lib.manual_seed(0)\ng = lib.Generator().manual_seed(5)",
                 ["out = lib.cat([lib.empty(7, dtype=lib.uint8).random_() for _ in range(100)])",
                  "out = lib.cat([lib.randint(0, 10, (7,)) for _ in range(100)])"]
                 + [f"g.manual_seed(5)\nx = lib.rand({start}, generator=g)\n"
                    f"out = lib.randint(0, 2**20, ({k},), generator=g)"
                    for start, k in ((624, 1), (623, 4), (620, 5), (600, 63), (1247, 2),
                                     (1248, 1))] + loaded)


@settings(max_examples=examples(40), deadline=None)
@given(seed=seeds, chunks=st.lists(CHUNKS, min_size=1, max_size=40),
       loaded=st.sampled_from((None, 0, 1, 2, 623, 624, 625, 1000)))
def test_next_draws_gives_numpys_stream(seed, chunks, loaded):
    """The reference ``next_draws`` (the route of fewer than 64 draws in the student edition,
    switched on here) and NumPy's C loop (one bulk draw) give the same raw draws from the
    same words, seeded or loaded by ``set_state`` from torch after ``loaded`` draws;
    ``next_draws`` runs once per small call, its ``twist`` exactly when a small call reaches
    a twist, its ``temper`` once per small draw; the state after it all is torch's."""
    from unittest import mock

    from reftensor.random import generator

    g = reftensor.Generator().manual_seed(seed)
    bulk = np.random.MT19937()
    bulk.state = {"bit_generator": "MT19937",
                  "state": {"key": np.array(generator.seed_words(seed), np.uint32), "pos": 624}}
    theirs = torch.Generator().manual_seed(seed)
    if loaded is not None:
        torch.rand(loaded, generator=theirs)
        g.set_state(reftensor.tensor(theirs.get_state().tolist(), dtype=reftensor.uint8))
        bulk.random_raw(loaded)
    position = int(bulk.state["state"]["pos"])
    calls = twists = small = 0
    for k in chunks:
        if k < 64:
            calls += 1
            twists += position + k > 624
            small += k
        position = _after(position, k)
    with draws_in_python(True), \
            mock.patch.object(generator, "next_draws", wraps=generator.next_draws) as loop_spy, \
            mock.patch.object(generator, "twist", wraps=generator.twist) as twist_spy, \
            mock.patch.object(generator, "temper", wraps=generator.temper) as temper_spy:
        got = np.concatenate([g._draw32(k) for k in chunks])
    STATS["programs"] += 1
    STATS["behaviours"] += 4
    assert np.array_equal(got, bulk.random_raw(sum(chunks)).astype(np.uint32))
    assert (loop_spy.call_count, twist_spy.call_count, temper_spy.call_count) == (
        calls, twists, small)
    torch.rand(sum(chunks), generator=theirs)  # float32: one raw draw an element
    assert state_bytes(g) == state_bytes(theirs), state_difference(state_bytes(theirs),
                                                                   state_bytes(g))


def test_next_draws_runs_only_on_small_calls_and_only_where_asked():
    """The reference takes every draw in C unless this is the student edition (whose
    ``next_draws`` is a stub); switched on, only calls of fewer than 64 draws run it."""
    from unittest import mock

    from reftensor import pieces
    from reftensor.random import generator

    assert generator.PYTHON_DRAWS == pieces.stubbed(generator.next_draws)
    g = reftensor.Generator().manual_seed(1)
    with mock.patch.object(generator, "next_draws", wraps=generator.next_draws) as spy:
        with draws_in_python(False):
            reftensor.rand(3, generator=g)
        assert spy.call_count == 0
        with draws_in_python(True):
            reftensor.rand(63, generator=g)
            reftensor.rand(64, generator=g)  # too many: C
            reftensor.rand(31, dtype=reftensor.float64, generator=g)  # 62 draws
            reftensor.rand(32, dtype=reftensor.float64, generator=g)  # 64: C
    assert [c.args[3] for c in spy.call_args_list] == [63, 62]


# ================================================================== rand, randn, normal
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_factory_sizes(fn, dtype):
    """Sizes 0, 1, 15, 16, 17, 31, 32, 33 (the fill path and its tail block), 0-d and 2-d,
    on ``g`` and on the default generator, in one stream."""
    sizes = [*(f"{n}" for n in SIZES), "()", "(4, 4)", "(3, 11)", "2, 3, 3"]
    run_code(seeded(), [f"out = lib.{fn}({s}, dtype=lib.{dtype}{gen})"
                        for s in sizes for gen in (", generator=g", "")])


@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds, size=st.sampled_from(SIZES + (47, 48, 64, 100)),
       dtype=st.sampled_from(FLOATS), fn=st.sampled_from(("rand", "randn")))
def test_factories_over_seeds(seed, size, dtype, fn):
    run_code(f"g = lib.Generator().manual_seed({seed})\nlib.manual_seed({seed} + 1)",
             [f"out = lib.{fn}({size}, dtype=lib.{dtype}, generator=g)",
              f"out = lib.{fn}({size}, dtype=lib.{dtype})"])


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_tensors(dtype):
    """10,000 elements through each float kernel."""
    run_code(seeded(), [
        f"out = lib.rand({BIG}, dtype=lib.{dtype}, generator=g)",
        f"out = lib.randn({BIG}, dtype=lib.{dtype}, generator=g)",
        f"x = lib.empty(100, {BIG // 100}, dtype=lib.{dtype}).t()\nout = x.normal_(0.5, 3.0)",
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).normal_(-2.0, 0.125, generator=g)",
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).uniform_(-0.3, 0.3)",
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).uniform_(0, 1)",  # bf16/f16: the clamp
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).exponential_(2.5, generator=g)",
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).bernoulli_(0.3)",
        f"out = lib.empty({BIG}, dtype=lib.{dtype}).random_(generator=g)",
        f"out = F.dropout(lib.ones({BIG}, dtype=lib.{dtype}), 0.2)",
        f"out = lib.bernoulli(lib.rand({BIG}, dtype=lib.{dtype}))",
    ])


def test_large_integer_and_sampling_calls():
    run_code(seeded(), [
        f"out = lib.randint(-5, 2**40, ({BIG},), generator=g)",
        f"out = lib.randint(0, 7, ({BIG},), dtype=lib.int32)",
        f"out = lib.randperm({BIG}, generator=g)",
        f"out = lib.multinomial(lib.rand({BIG}, dtype=lib.float64), 5, generator=g)",
        f"out = lib.multinomial(lib.rand(2, {BIG // 2}), 300, replacement=True)",
        "out = lib.multinomial(lib.rand(2000, dtype=lib.float64) + 0.01, 2000)",
        f"out = lib.empty({BIG}, dtype=lib.int64).random_(-(2**63), 2**63 - 1)",
    ])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_in_place_distributions_on_every_layout(layout, dtype):
    """Non-contiguous tensors take normal's serial path in memory order; contiguous ones with
    at least 16 elements the fill path, also at a storage offset. The other in-place
    distributions fill in memory order too."""
    steps = []
    for m, n in ((1, 1), (4, 4), (3, 5), (5, 7), (17, 2)):
        x = target(layout, m, n, dtype)
        steps += [f"x = {x}\nout = x.normal_(1.5, 0.5, generator=g)",
                  f"x = {x}\nout = x.normal_()", f"x = {x}\nout = x.uniform_(-2, 3)",
                  f"x = {x}\nout = x.exponential_(2.5, generator=g)",
                  f"x = {x}\nout = x.bernoulli_(0.3)", f"x = {x}\nout = x.random_(0, 10)"]
    run_code(seeded(), steps)


def test_normal_overloads():
    steps = []
    for dt in ("float32", "float64"):
        mean = f"lib.tensor([0.0, 1.5, -3.25, 100.0, 2.0], dtype=lib.{dt})"
        std = f"lib.tensor([[1.0], [0.5], [2.0]], dtype=lib.{dt})"
        long_mean = f"lib.arange(40, dtype=lib.{dt})"
        steps += [f"out = lib.normal({mean}, {std}, generator=g)",
                  f"out = lib.normal({mean}, {std})",
                  f"out = lib.normal({long_mean}, {long_mean} / 4)",
                  f"out = lib.normal({mean}, 2.5, generator=g)",
                  f"out = lib.normal({long_mean}, 0.5)",
                  f"out = lib.normal(-1.0, {std}, generator=g)",
                  f"out = lib.normal(3.0, {long_mean})",
                  "out = lib.normal(0.5, 2.0, (4, 5), generator=g)",
                  f"out = lib.normal(0.5, 2.0, size=(40,), dtype=lib.{dt})",
                  f"out = lib.normal({mean}.flip(0), {std}.flip(0).t())"]
    run_code(seeded(), steps)


# ================================================================== integers
@pytest.mark.parametrize("low,high", RANDINT_RANGES)
def test_randint_regimes(low, high):
    """Ranges below 2**28 (one 32-bit draw), from 2**28 and from 2**32 (64-bit draws),
    negative lows, on every integer dtype (out-of-range bounds raise as in torch)."""
    steps = [f"out = lib.randint({low}, {high}, (33,), generator=g)",
             f"out = lib.randint({low}, {high}, (5, 3))"]
    steps += [f"out = lib.randint({low}, {high}, (17,), dtype=lib.{d}, generator=g)"
              for d in (*INTS, "float32", "float64", "bool")]
    run_code(seeded(), steps)


@pytest.mark.parametrize("dtype", ALL)
def test_random_on_every_dtype(dtype):
    steps = [f"x = lib.zeros(33, dtype=lib.{dtype})\nout = x.random_(generator=g)",
             f"x = lib.zeros(5, 4, dtype=lib.{dtype}).t()\nout = x.random_()"]
    steps += [f"x = lib.zeros(9, dtype=lib.{dtype})\nout = x.random_({to}, generator=g)"
              for to in RANDOM_TO]
    steps += [f"x = lib.zeros(9, dtype=lib.{dtype})\nout = x.random_({frm}, {to})"
              for frm in RANDOM_FROM for to in (*RANDOM_TO[::3], None)]
    run_code(seeded(), steps)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float16", "float32",
                                   "float64", "bfloat16"])
def test_randperm_small_path(dtype):
    run_code(seeded(), [f"out = lib.randperm({n}, dtype=lib.{dtype}{gen})"
                        for n in (0, 1, 2, 3, 15, 16, 17, 33, 255, 256, 257, 1000)
                        for gen in (", generator=g", "")])


# ================================================================== sampling
@pytest.mark.parametrize("pdt", FLOATS)
def test_bernoulli(pdt):
    probs = "[0.0, 1.0, 0.5, 0.25, 1e-8, 0.99999994, 0.3, 0.7, 0.1, 0.9, 0.5, 0.6, 0.2, 0.8, " \
            "0.45, 0.55, 0.05]"
    p = f"lib.tensor({probs}, dtype=lib.{pdt})"
    run_code(seeded(), [
        f"out = lib.bernoulli({p}, generator=g)", f"out = lib.bernoulli({p})",
        f"out = {p}.bernoulli()", f"out = lib.bernoulli({p}, 0.4)",
        f"out = lib.bernoulli({p}.view(1, 17).t())",
        f"x = lib.zeros(4, 17, dtype=lib.{pdt})\nout = x.bernoulli_({p}, generator=g)",
        f"x = lib.zeros(17, 4, dtype=lib.{pdt}).t()\nout = x.bernoulli_({p}.to(lib.float64))",
        f"x = lib.zeros(17, 4, dtype=lib.{pdt}).t()\nout = x.bernoulli_(0.5)",
        f"x = lib.zeros(30, dtype=lib.{pdt})\nout = x.bernoulli_()",
        "x = lib.zeros(20, dtype=lib.int64)\nout = x.bernoulli_(0.5, generator=g)",
        "x = lib.zeros(20, dtype=lib.bool)\nout = x.bernoulli_(0.5)",
    ])


@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds, dtype=st.sampled_from(("float32", "float64")), data=st.data())
def test_multinomial(seed, dtype, data):
    """With and without replacement, 1 and several samples, 1-d and 2-d, on ``g``, on the
    default generator and as a method."""
    probs, k, replacement = data.draw(multinomial_args(dtype), label="multinomial")
    run_code(f"g = lib.Generator().manual_seed({seed})\nlib.manual_seed({seed} // 3)", [
        f"out = lib.multinomial({probs}, {k}, {replacement}, generator=g)",
        f"out = lib.multinomial({probs}, {k}, {replacement})",
        f"out = {probs}.multinomial({k}, {replacement})",
    ])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_multinomial_grid(dt):
    w = f"lib.tensor([0.5, 2.0, 0.0, 1.25, 3.0, 0.75, 0.1, 6.0, 0.0, 1.0], dtype=lib.{dt})"
    w2 = f"lib.stack([{w}, {w}.flip(0) + 0.5])"
    run_code(seeded(), [
        f"out = lib.multinomial({w}, 1, generator=g)",
        f"out = lib.multinomial({w}, 1, replacement=True)",
        f"out = lib.multinomial({w}, 8)", f"out = lib.multinomial({w}, 5, generator=g)",
        f"out = lib.multinomial({w}, 20, replacement=True, generator=g)",
        f"out = lib.multinomial({w2}, 1)", f"out = lib.multinomial({w2}, 8, generator=g)",
        f"out = lib.multinomial({w2}, 40, True)", f"out = {w2}.multinomial(3, generator=g)",
        f"out = {w}.multinomial(2, replacement=True)",
        f"out = lib.multinomial({w2}.t().contiguous().t(), 4)",
    ])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_dropout(layout, dtype):
    """p in {0, 0.2, 0.5, 1}, training and not, in place and not: dropout draws from the
    default generator, one 53-bit uniform per element in memory order."""
    steps = []
    for p in (0.0, 0.2, 0.5, 1.0):
        for training, inplace in ((True, False), (True, True), (False, False)):
            x = target(layout, 5, 7, dtype, fill="ones")
            steps.append(f"x = {x}\nout = F.dropout(x, p={p}, training={training}, "
                         f"inplace={inplace})\nsame = out is x")
    run_code(seeded(), steps)


def test_dropout_of_an_input_that_requires_grad():
    run_code(seeded(), [
        "x = lib.ones(20, requires_grad=True)\nout = F.dropout(x, 0.5)",
        "x = lib.ones(20, requires_grad=True)\nout = F.dropout(x, 0.5, training=False)\n"
        "same = out is x",
    ])


def test_dropout_takes_no_generator():
    """torch's dropout always draws from the default generator: ``generator=`` is a
    TypeError in both libraries."""
    for lib in (torch, reftensor):
        with pytest.raises(TypeError):
            functional(lib).dropout(lib.ones(3), 0.5, generator=lib.Generator())


# ================================================================== *_like, meta, grad
@pytest.mark.parametrize("layout", ["transposed", "column-stepped", "channels_last", "offset",
                                    "expanded", "overlapping", "0-d"])
def test_like_factories_fill_in_memory_order(layout):
    src = {"expanded": "lib.zeros(5, 1).expand(5, 7)",
           "overlapping": "lib.zeros(40).as_strided((5, 7), (2, 1))"}.get(
        layout, target(layout if layout in LAYOUTS else "contiguous", 5, 7, "float32"))
    run_code(seeded(), [
        f"out = lib.rand_like({src}, generator=g)", f"out = lib.randn_like({src})",
        f"out = lib.randn_like({src}, dtype=lib.float64, generator=g)",
        f"out = lib.rand_like({src}, dtype=lib.bfloat16)",
        f"out = lib.randint_like({src}, 10)", f"out = lib.randint_like({src}, -3, 2**30)",
        f"out = lib.randint_like({src}, 7, dtype=lib.int16, generator=g)",
        f"out = lib.randn_like({src}, memory_format=lib.contiguous_format)",
    ])


def test_meta_draws_nothing_and_requires_grad():
    run_code(seeded(), [
        "out = lib.rand(3, 4, device='meta')", "out = lib.randn(40, device='meta', generator=g)",
        "out = lib.randint(0, 5, (3,), device='meta')", "out = lib.randperm(9, device='meta')",
        "out = lib.rand_like(lib.zeros(3, device='meta'))",
        "out = lib.randn(3, 4, device='meta').normal_()",
        "out = lib.rand(3, requires_grad=True)",
        "out = lib.randn(20, dtype=lib.float64, requires_grad=True, generator=g)",
        "out = lib.randn_like(lib.zeros(2, 3), requires_grad=True)",
        "out = lib.randint(0, 5, (3,), requires_grad=True)",
        "out = lib.rand(3, dtype=lib.int64)", "out = lib.randn(3, dtype=lib.int32)",
        "out = lib.rand(3, 4)",
    ])


# ================================================================== errors
@pytest.mark.parametrize("code", [
    "lib.randint(5, 5, (3,))", "lib.randint(5, 2, (3,))", "lib.randint(0, (3,))",
    "lib.randperm(-1)", "lib.randperm(300, dtype=lib.uint8)", "lib.randperm(5, dtype=lib.bool)",
    "lib.normal(0.0, -1.0, (3,))", "lib.normal(lib.zeros(3), lib.tensor([1.0, -1.0, 1.0]))",
    "lib.normal(lib.zeros(3), -2.0)", "lib.normal(1.0, lib.tensor([-1.0]))",
    "lib.zeros(3).normal_(0, -1)", "lib.zeros(3, dtype=lib.int64).normal_()",
    "lib.zeros(3).uniform_(1, 0)", "lib.zeros(3, dtype=lib.int32).uniform_()",
    "lib.zeros(3).exponential_(0)", "lib.zeros(3).exponential_(-1)",
    "lib.zeros(3, dtype=lib.int64).exponential_()",
    "lib.zeros(3).bernoulli_(1.5)", "lib.zeros(3).bernoulli_(-0.1)",
    "lib.bernoulli(lib.tensor([0.5, 1.5]))", "lib.bernoulli(lib.tensor([-0.5]))",
    "lib.zeros(3).bernoulli_(lib.tensor([0.5, 2.0, 0.1]))",
    "lib.zeros(3).random_(5, 3)", "lib.zeros(3, dtype=lib.uint8).random_(0, 300)",
    "lib.zeros(3, dtype=lib.int8).random_(-200, 0)", "lib.zeros(3).random_(0, 2**25)",
    "lib.multinomial(lib.tensor([0.5, -0.1, 0.6]), 1)",
    "lib.multinomial(lib.tensor([0.5, 0.5]), 3)",
    "lib.multinomial(lib.tensor([0.5, 0.0, 0.0]), 1, True)",
    "lib.multinomial(lib.tensor([0.0, 0.0]), 1)", "lib.multinomial(lib.tensor([0.5, 0.5]), 0)",
    "lib.multinomial(lib.zeros(0), 1)", "lib.multinomial(lib.ones(2, 2, 2), 1)",
    "lib.multinomial(lib.tensor([1, 2]), 1)",
    "lib.multinomial(lib.tensor([0.5, float('inf')]), 1)",
    "lib.multinomial(lib.tensor([0.5, float('nan')]), 1)",
    "F.dropout(lib.ones(3), -0.1)", "F.dropout(lib.ones(3), 1.5)",
    "lib.rand(3, generator=lib.default_generator)", "lib.rand(-1)",
    "lib.Generator(device='meta')",
])
def test_errors(code):
    """Each call either raises the same exception class on both libraries or returns the
    same thing; afterwards the generators are compared (a failing call draws nothing)."""
    run_code(seeded(), [f"out = {code}"])


# ================================================================== the x86_default profile
PROFILE_PROGRAMS = [
    "lib.manual_seed(7)\nout = lib.empty(1000).uniform_(-0.3, 0.3)",
    "lib.manual_seed(8)\nout = lib.empty(1000, dtype=lib.float64).uniform_(-0.3, 0.3)",
    "lib.manual_seed(9)\nout = lib.empty(1000, dtype=lib.float16).uniform_(-2, 3)",
    "lib.manual_seed(10)\nout = lib.empty(50, 20).t().normal_(0.1, 0.3)",
    "lib.manual_seed(11)\nout = lib.empty(50, 20, dtype=lib.float64).t().normal_(0.1, 0.3)",
    "lib.manual_seed(12)\nout = lib.randn(1000)",
    "lib.manual_seed(13)\nout = lib.empty(1003).normal_(-1.5, 3.0)",
    "lib.manual_seed(14)\nout = lib.randn(1000, dtype=lib.float64)",
    "lib.manual_seed(15)\nout = lib.randn(1000, dtype=lib.bfloat16)",
    "lib.manual_seed(16)\nout = lib.normal(lib.zeros(40), 3.0)",
    "lib.manual_seed(17)\nout = lib.rand(100, dtype=lib.float64)",
]

_TORCH_DEFAULT_BUILD = """
import json, sys, torch
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
results = []
for code in json.load(sys.stdin):
    ns = {"lib": torch}
    exec(code, ns)
    out = ns["out"]
    raw = torch.empty(0, dtype=torch.uint8).set_(out.untyped_storage()).numpy().tobytes()
    state = torch.get_rng_state().numpy().tobytes()
    results.append([str(out.dtype), list(out.shape), list(out.stride()), raw.hex(), state.hex()])
json.dump(results, sys.stdout)
"""


def _observed(lib: Any, code: str) -> list[Any]:
    ns = {"lib": lib}
    exec(code, ns)
    out = ns["out"]
    return [str(out.dtype).replace("reftensor.", "torch."), list(out.shape),
            list(out.stride()), storage_bytes(out).hex(), state_bytes(lib.default_generator).hex()]


def test_default_profile_is_avx2_in_a_fresh_process():
    code = "import reftensor; print(reftensor.random.get_profile())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True, timeout=120)
    STATS["programs"] += 1
    STATS["behaviours"] += 1
    assert done.stdout.strip() == "x86_avx2"


def test_x86_default_profile_matches_torch_default_build():
    """``ATEN_CPU_CAPABILITY=default`` makes torch run its non-AVX2 kernels (no fused
    multiply-adds, libm float32 normals); reftensor's ``x86_default`` must match them."""
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default"}
    done = subprocess.run([sys.executable, "-c", _TORCH_DEFAULT_BUILD],
                          input=json.dumps(PROFILE_PROGRAMS), capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    before = reftensor.random.get_profile()
    reftensor.random.set_profile("x86_default")
    try:
        got = [_observed(reftensor, code) for code in PROFILE_PROGRAMS]
    finally:
        reftensor.random.set_profile(before)
    wrong = []
    for code, e, g in zip(PROFILE_PROGRAMS, expected, got, strict=True):
        STATS["programs"] += 1
        STATS["behaviours"] += len(e)
        if e != g:
            fields = ["dtype", "shape", "stride", "storage bytes", "default generator state"]
            wrong.append(f"{code!r}: differ on "
                         f"{[f for f, a, b in zip(fields, e, g, strict=True) if a != b]}")
    assert not wrong, "x86_default profile differs from torch's DEFAULT build:\n" + "\n".join(
        wrong)
    if torch.backends.cpu.get_cpu_capability() != "DEFAULT":
        # The comparison is not vacuous: this torch (AVX2/AVX-512) gives other bits.
        here = [_observed(torch, code) for code in PROFILE_PROGRAMS]
        assert here != expected, "ATEN_CPU_CAPABILITY=default changed nothing on this machine"


# ================================================================== the normal piece
@contextlib.contextmanager
def normals_from_the_piece(on: bool):
    """The route of normal draws of fewer than ``normal.FEW`` elements (serial path, or a
    float64 fill): ``normal_from_draws`` (``True``, the student edition's) or NumPy
    (``False``, the reference's)."""
    from reftensor.random import normal

    saved = normal.PIECE
    normal.PIECE = on
    try:
        yield
    finally:
        normal.PIECE = saved


#: normal draws on every path the piece takes: sizes around 16 (the fill path and its tail),
#: odd counts (a cached normal left for the next call), every float dtype, strided targets
#: (the serial path whatever the size), mean and std, and the tensor overloads
NORMAL_STEPS = tuple(
    [f"out = lib.randn({n}, dtype=lib.{d}, generator=g)" for n in (0, 1, 3, 15, 16, 17, 33, 63)
     for d in ("float64", "float32")]
    + [f"out = lib.randn({n}, dtype=lib.{d})" for n in (1, 2, 31) for d in ("float16",
                                                                            "bfloat16")]
    + [f"x = {target(lay, 3, 7, 'float64')}\nout = x.normal_(0.5, 3.0, generator=g)"
       for lay in LAYOUTS]
    + [f"x = {target(lay, 4, 5, 'float32')}\nout = x.normal_(-2.0, 0.125)" for lay in LAYOUTS]
    + ["out = lib.normal(lib.zeros(5, dtype=lib.float64), 2.0, generator=g)",
       "out = lib.normal(1.0, lib.ones(3, 7, dtype=lib.float64))",
       "out = lib.randn(100, dtype=lib.float64, generator=g)",  # too many: NumPy
       "out = lib.randn(64, generator=g)", "out = lib.randn(9, 2, generator=g).t()"])


@pytest.mark.parametrize("piece", [True, False], ids=["normal_from_draws", "numpy"])
@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds, steps=st.lists(st.sampled_from(NORMAL_STEPS), min_size=1, max_size=12))
def test_normal_draws_from_the_piece_match_torch(piece, seed, steps):
    """The reference ``normal_from_draws`` (switched on) and NumPy give torch's values and
    whole state (the cached normal included) after every call."""
    with normals_from_the_piece(piece):
        run_code(seeded(seed, seed + 1), steps)


def test_normal_draws_every_step_from_the_piece():
    with normals_from_the_piece(True):
        run_code(seeded(), list(NORMAL_STEPS))


def test_normal_from_draws_runs_only_on_small_draws_and_only_where_asked():
    from unittest import mock

    from reftensor import pieces
    from reftensor.random import normal

    assert normal.PIECE == pieces.stubbed(normal.normal_from_draws)
    g = reftensor.Generator().manual_seed(1)
    with mock.patch.object(normal, "normal_from_draws", wraps=normal.normal_from_draws) as spy:
        with normals_from_the_piece(False):
            reftensor.randn(3, generator=g)
        assert spy.call_count == 0
        with normals_from_the_piece(True):
            reftensor.randn(5, generator=g)  # serial
            reftensor.randn(40, dtype=reftensor.float64, generator=g)  # fill, float64
            reftensor.randn(40, generator=g)  # float32's fill: its own kernel
            reftensor.randn(20, 2, generator=g).t().normal_()  # serial, any size below 64
            reftensor.randn(64, dtype=reftensor.float64, generator=g)  # too many: NumPy
    assert [c.args[:2] for c in spy.call_args_list] == [(5, True), (40, True), (40, False)]


# ================================================================== the multinomial piece
@contextlib.contextmanager
def multinomial_from_the_piece(on: bool):
    """The route of ``multinomial`` of fewer than ``discrete.FEW`` float32/float64
    probabilities: ``multinomial_from_draws`` (``True``, the student edition's) or NumPy
    (``False``, the reference's)."""
    from reftensor.random import discrete

    saved = discrete.PIECE
    discrete.PIECE = on
    try:
        yield
    finally:
        discrete.PIECE = saved


#: weights with zeros (tied scores of 0), equal weights, tiny and large ones
MULTINOMIAL_WEIGHTS = (0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.25, 3.0, 0.1, 1e-3, 7.5, 2.0 ** -20)


@st.composite
def multinomial_program(draw: st.DrawFn) -> str:
    """One ``multinomial`` call: 1-d or 2-d weights (zeros, ties, a single nonzero one, now
    and then a weight or a row torch refuses), either dtype, transposed or not, any number of
    samples that torch takes, with and without replacement, on ``g`` or the default."""
    dtype = draw(st.sampled_from(("float32", "float64", "float32", "float64", "float16")))
    rows, n = draw(st.sampled_from((1, 1, 2, 3))), draw(st.integers(1, 21))
    weights = st.sampled_from(MULTINOMIAL_WEIGHTS)
    probs = [draw(st.lists(weights, min_size=n, max_size=n)) for _ in range(rows)]
    for row in probs:
        if not any(row) and draw(st.integers(0, 7)):
            row[draw(st.integers(0, n - 1))] = 1.0
    if draw(st.integers(0, 9)) == 0:
        probs[draw(st.integers(0, rows - 1))][draw(st.integers(0, n - 1))] = draw(
            st.sampled_from((-1.0, math.inf, math.nan)))
    replacement = draw(st.booleans())
    k = draw(st.integers(1, 3 * n if replacement else n))
    text = repr(probs if rows > 1 or draw(st.booleans()) else probs[0]).replace(
        "nan", "math.nan").replace("inf", "math.inf")
    t = f"lib.tensor({text}, dtype=lib.{dtype})"
    if rows > 1 and draw(st.booleans()):  # column-major: torch draws the q's in that order
        t += ".t().contiguous().t()"
    return f"out = lib.multinomial({call(t, str(k), f'replacement={replacement}', draw(GEN))})"


MULTINOMIAL_STEPS = (
    "out = lib.multinomial(lib.tensor([0.0, 1.0, 0.0, 2.0, 0.0, 0.0]), 6, generator=g)",
    "out = lib.multinomial(lib.ones(7, 9, dtype=lib.float64).t(), 9, generator=g)",  # 63
    "out = lib.multinomial(lib.ones(8, 8, dtype=lib.float64), 8)",  # 64: NumPy
    "out = lib.multinomial(lib.tensor([[1.0, 1.0], [1.0, math.nan]]), 3, True, generator=g)",
    "out = lib.multinomial(lib.tensor([[1.0, 1.0], [0.0, 0.0]]), 3, True)",
    "out = lib.multinomial(lib.tensor([math.inf, -1.0]), 2, True)",
    "out = lib.multinomial(lib.tensor([0.5, 0.25, 0.25], dtype=lib.float64), 1, True)",
    "out = lib.multinomial(lib.tensor([2.0 ** -20, 1.0]), 40, True, generator=g)",
    "out = lib.multinomial(lib.zeros(0, 3), 2)",
    "out = lib.multinomial(lib.tensor([0.0, 1.0]), 2, out=lib.zeros(5, dtype=lib.int64))",
)


@pytest.mark.parametrize("piece", [True, False], ids=["multinomial_from_draws", "numpy"])
@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds, steps=st.lists(multinomial_program(), min_size=1, max_size=6))
def test_multinomial_from_the_piece_matches_torch(piece, seed, steps):
    """The reference ``multinomial_from_draws`` (switched on) and NumPy give torch's samples
    (ties among equal scores in torch's order) and whole state after every call."""
    with multinomial_from_the_piece(piece):
        run_code(seeded(seed, seed + 1), steps)


def test_multinomial_every_step_from_the_piece():
    with multinomial_from_the_piece(True):
        run_code(seeded(), list(MULTINOMIAL_STEPS))


@settings(max_examples=examples(40), deadline=None)
@given(program=multinomial_program(), seed=st.integers(0, 2**32 - 1))
def test_multinomial_piece_and_numpy_agree(program, seed):
    """Samples, error messages (not only classes) and the generator state, piece or NumPy."""
    outcomes = []
    for on in (True, False):
        g = reftensor.Generator().manual_seed(seed)
        reftensor.manual_seed(seed)
        namespace = {"lib": reftensor, "g": g, "math": math}
        with multinomial_from_the_piece(on):
            try:
                exec(program, namespace)
                result = namespace["out"].tolist()
            except RuntimeError as error:
                result = str(error)
        outcomes.append((result, g.get_state().tolist(), reftensor.get_rng_state().tolist()))
    assert outcomes[0] == outcomes[1]


def test_multinomial_from_draws_runs_only_on_small_inputs_and_only_where_asked():
    from unittest import mock

    from reftensor import pieces
    from reftensor.random import discrete

    assert discrete.PIECE == pieces.stubbed(discrete.multinomial_from_draws)
    g = reftensor.Generator().manual_seed(1)
    with mock.patch.object(discrete, "multinomial_from_draws",
                           wraps=discrete.multinomial_from_draws) as spy:
        with multinomial_from_the_piece(False):
            reftensor.multinomial(reftensor.ones(3), 2, generator=g)
        assert spy.call_count == 0
        with multinomial_from_the_piece(True):
            reftensor.multinomial(reftensor.ones(3), 2, generator=g)  # the race
            reftensor.multinomial(reftensor.ones(2, 3, dtype=reftensor.float64), 5, True)
            reftensor.multinomial(reftensor.ones(3, 21).t(), 1, generator=g)  # 63 weights
            reftensor.multinomial(reftensor.ones(64), 2)  # too many: NumPy
            reftensor.multinomial(reftensor.ones(3, dtype=reftensor.float16), 2)  # NumPy
            reftensor.multinomial(reftensor.ones(0, 3), 2)  # no samples to take
            with pytest.raises(RuntimeError):  # torch's check before the race: the library's
                reftensor.multinomial(reftensor.tensor([1.0, -1.0]), 1)
    assert [c.args[1:4] for c in spy.call_args_list] == [
        ("float32", 2, False), ("float64", 5, True), ("float32", 1, False)]
    assert [len(c.args[0]) for c in spy.call_args_list] == [1, 2, 21]


def test_a_wrong_multinomial_piece_changes_the_library():
    from unittest import mock

    from reftensor.random import discrete

    right = discrete.multinomial_from_draws

    def reversed_samples(*args):
        return [row[::-1] for row in right(*args)]

    def sample(on: bool, fn=right):
        with multinomial_from_the_piece(on), \
                mock.patch.object(discrete, "multinomial_from_draws", fn):
            g = reftensor.Generator().manual_seed(5)
            return reftensor.multinomial(reftensor.tensor([1.0, 2.0, 3.0]), 3, generator=g)
    assert sample(True).tolist() == sample(False).tolist()
    assert sample(True, reversed_samples).tolist() == sample(True).tolist()[::-1]
    assert sample(False, reversed_samples).tolist() == sample(False).tolist()


# ================================================================== the bernoulli piece
@contextlib.contextmanager
def bernoulli_from_the_piece(on: bool):
    """The route of ``bernoulli_`` on fewer than ``discrete.BERNOULLI_FEW`` elements:
    ``bernoulli_from_draws`` (``True``, the student edition's) or NumPy (``False``, the
    reference's)."""
    from reftensor.random import discrete

    saved = discrete.BERNOULLI_PIECE
    discrete.BERNOULLI_PIECE = on
    try:
        yield
    finally:
        discrete.BERNOULLI_PIECE = saved


#: probabilities of 0 and 1, ties with a uniform's grid, tiny ones
BERNOULLI_PROBS = (0.0, 1.0, 0.5, 0.25, 0.3, 0.999, 1e-8, 2.0 ** -24, 1 - 2.0 ** -24)
#: probabilities the kernel refuses when its loop reaches them
BERNOULLI_BAD = ("1.5", "-0.5", "math.nan", "math.inf")


@st.composite
def bernoulli_program(draw: st.DrawFn) -> str:
    """One call that samples coin flips: ``bernoulli_`` with a number or a tensor ``p`` of
    any float dtype (broadcast along the last dim or of ``x``'s whole shape, transposed or
    not, now and then one value out of range) on an ``x`` of any dtype and layout;
    ``torch.bernoulli(p)``, ``bernoulli(x, p)``, dropout's noise."""
    layout, m, n = draw(st.sampled_from(LAYOUTS)), draw(DIMS), draw(DIMS)
    x = target(layout, m, n, draw(st.sampled_from(ALL)), draw(st.sampled_from(("zeros",
                                                                               "ones"))))
    gen, pdt = draw(GEN), f"dtype=lib.{draw(st.sampled_from(FLOATS))}"
    probs = st.sampled_from(BERNOULLI_PROBS).map(repr)

    def some(count: int) -> list[str]:
        items = draw(st.lists(probs, min_size=count, max_size=count))
        if items and draw(st.integers(0, 5)) == 0:
            items[draw(st.integers(0, count - 1))] = draw(st.sampled_from(BERNOULLI_BAD))
        return items

    kind = draw(st.sampled_from(("number", "row", "whole", "function", "with p", "dropout")))
    if kind == "number" or (kind in ("row", "whole") and layout in ("0-d", "channels_last")):
        return f"x = {x}\nout = x.bernoulli_({call(draw(probs), gen)})"
    if kind == "row":  # broadcast along the last dim
        row = f"lib.tensor([{', '.join(some(n))}], {pdt})"
        return f"x = {x}\nout = x.bernoulli_({call(row, gen)})"
    if kind == "whole":  # p of x's shape, in row-major order or column-major
        rows = ", ".join(f"[{', '.join(some(n))}]" for _ in range(m))
        p = f"lib.tensor([{rows}], {pdt})" + (".t().contiguous().t()" if draw(st.booleans())
                                              and m and n else "")
        if not m or not n:
            p = f"lib.zeros({m}, {n}, {pdt})"
        return f"x = {x}\nout = x.bernoulli_({call(p, gen)})"
    if kind == "function":
        rows = ", ".join(f"[{', '.join(some(n))}]" for _ in range(max(m, 1)))
        t = f"lib.tensor([{rows}], {pdt})" + (".t()" if draw(st.booleans()) else "")
        return f"out = lib.bernoulli({call(t, gen)})"
    if kind == "with p":
        return f"out = lib.bernoulli({call(x, draw(probs), gen)})"
    p = draw(st.sampled_from(("0.0", "0.2", "0.5", "0.9", "1.0")))
    return f"out = F.dropout({target(layout, m, n, 'float32', 'ones')}, {p})"


BERNOULLI_STEPS = (
    "x = lib.zeros(3, 4)\nout = x.t().bernoulli_(0.5, generator=g)",
    "x = lib.full((4,), 7.0)\nout = x.bernoulli_(lib.tensor([1.0, 1.0, 2.0, 1.0]))",
    "x = lib.full((2, 3), 7.0)\nout = x.t().bernoulli_(lib.tensor([[1.0, math.nan, 1.0]]).t())",
    "x = lib.zeros(7, 9, dtype=lib.bool)\nout = x.bernoulli_(0.3, generator=g)",  # 63
    "x = lib.zeros(8, 8)\nout = x.bernoulli_(0.3)",  # 64: NumPy
    "x = lib.zeros(2, 3, dtype=lib.uint8)\nout = x.bernoulli_(lib.tensor([0.0, 1.0, 0.5], "
    "dtype=lib.bfloat16), generator=g)",
    "out = lib.bernoulli(lib.tensor([[0.5, 0.25], [1.0, 0.0]], dtype=lib.float64).t())",
    "out = lib.bernoulli(lib.tensor([0.5, 0.25], dtype=lib.float16), 0.75, generator=g)",
    "out = F.dropout(lib.ones(2, 5), 0.4)",
    "x = lib.zeros(0, 3)\nout = x.bernoulli_(lib.tensor([5.0, 5.0, 5.0]))",
    "x = lib.tensor(2.0)\nout = x.bernoulli_(lib.tensor(0.5, dtype=lib.float64), generator=g)",
    "out = lib.zeros(3).bernoulli_(1.5)",
)


@pytest.mark.parametrize("piece", [True, False], ids=["bernoulli_from_draws", "numpy"])
@settings(max_examples=examples(20), deadline=None)
@given(seed=seeds, steps=st.lists(bernoulli_program(), min_size=1, max_size=6))
def test_bernoulli_from_the_piece_matches_torch(piece, seed, steps):
    """The reference ``bernoulli_from_draws`` (switched on) and NumPy give torch's samples,
    the values left by a refused p, the exception, and the whole state after every call."""
    with bernoulli_from_the_piece(piece):
        run_code(seeded(seed, seed + 1), steps)


def test_bernoulli_every_step_from_the_piece():
    with bernoulli_from_the_piece(True):
        run_code(seeded(), list(BERNOULLI_STEPS))


@settings(max_examples=examples(40), deadline=None)
@given(program=bernoulli_program(), seed=st.integers(0, 2**32 - 1))
def test_bernoulli_piece_and_numpy_agree(program, seed):
    """Values (those a refused p leaves too), error messages and the generator states,
    piece or NumPy."""
    outcomes = []
    for on in (True, False):
        g = reftensor.Generator().manual_seed(seed)
        reftensor.manual_seed(seed)
        namespace = {"lib": reftensor, "g": g, "math": math, "F": functional(reftensor)}
        with bernoulli_from_the_piece(on), np.errstate(invalid="ignore"):
            try:
                exec(program, namespace)
                error = None
            except RuntimeError as exc:
                error = str(exc)
        seen = [namespace[k].tolist() for k in ("x", "out") if k in namespace]
        outcomes.append((repr(seen), error, g.get_state().tolist(),
                         reftensor.get_rng_state().tolist()))
    assert outcomes[0] == outcomes[1]


def test_bernoulli_from_draws_runs_only_on_small_tensors_and_only_where_asked():
    from unittest import mock

    from reftensor import pieces
    from reftensor.random import discrete

    assert discrete.BERNOULLI_PIECE == pieces.stubbed(discrete.bernoulli_from_draws)
    g = reftensor.Generator().manual_seed(1)
    with mock.patch.object(discrete, "bernoulli_from_draws",
                           wraps=discrete.bernoulli_from_draws) as spy:
        with bernoulli_from_the_piece(False):
            reftensor.zeros(3).bernoulli_(0.5, generator=g)
        assert spy.call_count == 0
        with bernoulli_from_the_piece(True):
            reftensor.zeros(3).bernoulli_(0.5, generator=g)
            reftensor.zeros(2, 3).bernoulli_(reftensor.full((3,), 0.5, dtype=reftensor.float16))
            reftensor.bernoulli(reftensor.full((7, 9), 0.5, dtype=reftensor.float64))  # 63
            reftensor.nn.functional.dropout(reftensor.ones(4), 0.5)
            reftensor.zeros(64).bernoulli_(0.5)  # too many: NumPy
            reftensor.zeros(0).bernoulli_(0.5)  # nothing to sample
            reftensor.zeros(2, device="meta").bernoulli_(0.5)  # nothing drawn on meta
            with pytest.raises(RuntimeError):  # a number p: the library's check
                reftensor.zeros(3).bernoulli_(1.5)
    assert [(len(c.args[1]), c.args[2]) for c in spy.call_args_list] == [
        (3, "float"), (6, "float16"), (63, "float64"), (4, "float")]
    assert spy.call_args_list[3].args[1] == [0.5] * 4  # dropout's noise: bernoulli_(1 - p)


def test_a_wrong_bernoulli_piece_changes_the_library():
    from unittest import mock

    from reftensor.random import discrete

    right = discrete.bernoulli_from_draws

    def flipped(values, probs, dtype, draw):
        right(values, probs, dtype, draw)
        values[:] = [1 - v for v in values]

    def sample(on: bool, fn=right):
        with bernoulli_from_the_piece(on), mock.patch.object(discrete, "bernoulli_from_draws",
                                                              fn):
            g = reftensor.Generator().manual_seed(5)
            return reftensor.zeros(6).bernoulli_(0.5, generator=g).tolist()
    assert sample(True) == sample(False)
    assert sample(True, flipped) == [1 - v for v in sample(True)]
    assert sample(False, flipped) == sample(False)
