"""Time reftensor against torch, in one run, and compare with the targets of issues 5-7.

Run it with ``make bench`` or ``.venv/bin/python -m benchmarks.bench``. It is a measurement,
not a test: nothing here fails because something is slow (``tests/test_bench.py`` only checks
that the command runs and writes every row).

Both libraries run single-threaded. ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` are set to 1 at the top of this module, before NumPy or torch is imported
(so NumPy's BLAS, which reftensor's matmul uses, starts with one thread), and
``torch.set_num_threads(1)`` is called as well.

Every row builds its inputs once, checks once (outside any timing) that reftensor and torch
give the same values, then times each library with ``timeit``: a warm-up that also picks a
loop count so that one measurement takes about 0.2 s, then the best of several repeats.

Options:
    --quick       smaller sizes and fewer, shorter repeats (a smoke test, not a measurement)
    --json PATH   also write the table as JSON
    --profile OP  instead of the table, run cProfile on the reftensor side of row OP and print
                  the 15 entries with the largest cumulative time (then the 15 by own time)
    --only OP...  measure only these rows (and "import" only if named)
"""

from __future__ import annotations

import os
import sys

# Before NumPy or torch is imported: their thread pools read these once, at import time.
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_IMPORTED_TOO_EARLY = sorted(m for m in ("numpy", "torch") if m in sys.modules)
for _name in _THREAD_VARIABLES:
    os.environ[_name] = "1"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from importlib import import_module  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import reftensor  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
NOT_IMPLEMENTED = "not implemented yet"

Operation = Callable[[], Any]


@dataclass(frozen=True)
class Settings:
    """How big the inputs are and how long each measurement runs."""

    elements: int  # elementwise and sum: this many float32 elements (a square number)
    matmul_sizes: tuple[int, int]  # the two square matmul sizes
    seconds_per_measurement: float  # the loop count is scaled up until one repeat takes this
    repeats: int  # best of this many measurements
    startup_runs: int  # fresh interpreters started for the import row, per command


FULL = Settings(elements=1_000_000, matmul_sizes=(256, 512), seconds_per_measurement=0.2,
                repeats=5, startup_runs=9)
QUICK = Settings(elements=10_000, matmul_sizes=(32, 64), seconds_per_measurement=0.01,
                 repeats=2, startup_runs=3)


@dataclass(frozen=True)
class Case:
    """One row of the table: an operation written once, run on either library.

    ``build(lib, settings)`` makes the inputs (outside the timed region) and returns the
    zero-argument callable that is timed.
    """

    key: str  # the name for --profile and in the JSON
    describe: Callable[[Settings], str]
    build: Callable[[ModuleType, Settings], Operation]
    target: float  # the largest acceptable reftensor/torch ratio


@dataclass
class Row:
    """One measured row, as printed and as written to JSON."""

    key: str
    operation: str
    torch_s: float | None  # seconds per call (None where torch has no side)
    reftensor_s: float | None  # seconds per call; for "import", the extra start-up time
    ratio: float | None  # reftensor_s / torch_s
    target: str
    met: bool | None  # None when nothing was measured
    status: str  # "measured" or NOT_IMPLEMENTED


def _array(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Float32 values in [0, 1): sums stay far from zero, so relative tolerances work."""
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def _side(elements: int) -> int:
    """The side of the square matrix that holds ``elements`` elements."""
    side = int(round(elements**0.5))
    assert side * side == elements, elements
    return side


def _add(lib: ModuleType, s: Settings) -> Operation:
    a, b = lib.from_numpy(_array((s.elements,), 1)), lib.from_numpy(_array((s.elements,), 2))
    return lambda: a + b


def _add_transposed(lib: ModuleType, s: Settings) -> Operation:
    n = _side(s.elements)
    a, b = lib.from_numpy(_array((n, n), 1)).t(), lib.from_numpy(_array((n, n), 2)).t()
    return lambda: a + b


def _sum(lib: ModuleType, s: Settings) -> Operation:
    x = lib.from_numpy(_array((s.elements,), 3))
    return lambda: x.sum()


def _matmul(index: int) -> Callable[[ModuleType, Settings], Operation]:
    def build(lib: ModuleType, s: Settings) -> Operation:
        n = s.matmul_sizes[index]
        a, b = lib.from_numpy(_array((n, n), 4)), lib.from_numpy(_array((n, n), 5))
        return lambda: lib.matmul(a, b)

    return build


def _tiny_add(lib: ModuleType, s: Settings) -> Operation:
    a, b = lib.from_numpy(_array((4,), 6)), lib.from_numpy(_array((4,), 7))
    return lambda: a + b


def _tiny_add_int64(lib: ModuleType, s: Settings) -> Operation:
    a, b = lib.tensor([1, 2, 3, 4]), lib.tensor([5, 6, 7, 8])
    return lambda: a + b


def _tiny_view(lib: ModuleType, s: Settings) -> Operation:
    x = lib.arange(12)
    return lambda: x.view(3, 4)


def _tiny_tolist(lib: ModuleType, s: Settings) -> Operation:
    x = lib.tensor([1, 2, 3, 4])
    return lambda: x.tolist()


def _mlp_step(lib: ModuleType, s: Settings) -> Operation:
    """One training step's autograd work: forward and backward of a two-layer MLP."""
    batch, width = (64, 128) if s.elements >= 1_000_000 else (8, 16)
    x, target = lib.from_numpy(_array((batch, 32), 8)), lib.from_numpy(_array((batch, 10), 9))
    w1 = lib.from_numpy(_array((32, width), 10) - 0.5).requires_grad_()
    b1 = lib.from_numpy(_array((width,), 11) - 0.5).requires_grad_()
    w2 = lib.from_numpy(_array((width, 10), 12) - 0.5).requires_grad_()
    b2 = lib.from_numpy(_array((10,), 13) - 0.5).requires_grad_()

    def step() -> Any:
        for p in (w1, b1, w2, b2):
            p.grad = None
        hidden = (x @ w1 + b1).relu()
        loss = ((hidden @ w2 + b2 - target) ** 2).mean()
        loss.backward()
        return w1.grad

    return step


def _deep_graph(lib: ModuleType, s: Settings) -> Operation:
    """``y = y + y`` 25 times, then backward: 25 nodes, 2**25 paths (linear if each node
    runs once)."""
    x = lib.from_numpy(_array((4,), 14)).requires_grad_()

    def step() -> Any:
        x.grad = None
        y = x
        for _ in range(25):
            y = y + y
        y.sum().backward()
        return x.grad

    return step


def _adam_mlp_step(lib: ModuleType, s: Settings) -> Operation:
    """One training step of chapter 6: ``zero_grad``, a forward pass of a 64-128-10
    ``nn.Sequential`` (``Linear``, ``ReLU``, ``Linear``), an MSE loss, backward and an
    ``optim.Adam`` step. Both sides start from the same weights (``manual_seed(0)`` before
    the layers are made: chapter 6's default initialisation is torch's, bit for bit)."""
    batch = 64 if s.elements >= 1_000_000 else 8
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(64, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, target = lib.from_numpy(_array((batch, 64), 15)), lib.from_numpy(_array((batch, 10), 16))

    def step() -> Any:
        optimizer.zero_grad()
        loss = ((model(x) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        return model[0].weight.detach()

    return step


def _moded_mlp_step(lib: ModuleType, s: Settings) -> Operation:
    """Chapter 9: ``mlp_step`` run under a ``TorchDispatchMode`` that passes every aten call
    on (``func(*args, **kwargs)``): what the ``Python`` key costs per op, forward and backward.
    """
    step = _mlp_step(lib, s)
    dispatch = import_module(f"{lib.__name__}.utils._python_dispatch")

    class PassThrough(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            return func(*args, **(kwargs or {}))

    def moded() -> Any:
        with PassThrough():
            return step()

    return moded


def _make_fx_mlp(lib: ModuleType, s: Settings) -> Operation:
    """Chapter 9: ``make_fx`` traces the MLP's forward and backward (``autograd.grad``) into
    a graph of aten ops, then the graph runs once on the same inputs."""
    proxy_tensor = import_module(f"{lib.__name__}.fx.experimental.proxy_tensor")
    batch, width = (64, 128) if s.elements >= 1_000_000 else (8, 16)
    x = lib.from_numpy(_array((batch, 32), 8))
    w1, w2 = lib.from_numpy(_array((32, width), 10) - 0.5), lib.from_numpy(_array((width, 10), 12))

    def forward_backward(x: Any, w1: Any, w2: Any) -> Any:
        w1 = w1.detach().requires_grad_()
        loss = ((x @ w1).relu() @ w2).pow(2).mean()
        return lib.autograd.grad(loss, w1)[0]

    def trace_and_run() -> Any:
        return proxy_tensor.make_fx(forward_backward)(x, w1, w2)(x, w1, w2)

    return trace_and_run


def _epoch_samples(s: Settings) -> int:
    return 10_000 if s.elements >= 1_000_000 else 1_000


def _epoch(workers: int) -> Callable[[ModuleType, Settings], Operation]:
    """One epoch of chapter 7's ``DataLoader`` over a ``TensorDataset`` of 10,000 samples
    (1,000 with ``--quick``; features (8,) float32 and an int64 label), ``batch_size=64,
    shuffle=True``, with ``workers`` worker processes; the loader's generator is seeded 0 on
    each side, so the first epoch (the agreement check) yields the same batches in both
    libraries."""
    def build(lib: ModuleType, s: Settings) -> Operation:
        data = import_module(f"{lib.__name__}.utils.data")
        n = _epoch_samples(s)
        features = lib.from_numpy(_array((n, 8), 17))
        labels = lib.from_numpy(np.arange(n, dtype=np.int64) % 10)
        loader = data.DataLoader(data.TensorDataset(features, labels), batch_size=64,
                                 shuffle=True, num_workers=workers,
                                 generator=lib.Generator().manual_seed(0))

        def epoch() -> Any:
            batches = [features for features, _ in loader]
            return batches[-1]

        return epoch
    return build


def _capstone_epoch(lib: ModuleType, s: Settings) -> Operation:
    """One training epoch of the capstone's CNN (``autograder/course/capstone.py``: two 3x3
    convolutions with ReLU and 2x2 max-pooling, then Linear) on the digits' training split
    (1,257 images; the first 128 with ``--quick``), ``batch_size=64``, shuffled by a generator
    seeded 1, cross-entropy, ``SGD(lr=0.05, momentum=0.9)``. Both sides start from the same
    weights (``manual_seed(0)``), so the first epoch (the agreement check) ends with weights
    equal up to float32 rounding; later epochs go on training."""
    from autograder.course import capstone

    import_module(f"{lib.__name__}.utils.data")
    images, labels = capstone.load_digits_tensors(lib)
    train_set = capstone.split(lib, lib.utils.data.TensorDataset(images, labels))[0]
    if s.elements < 1_000_000:
        train_set = lib.utils.data.Subset(train_set, range(128))
    lib.manual_seed(0)
    model = capstone.cnn(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = lib.utils.data.DataLoader(train_set, batch_size=64, shuffle=True,
                                       generator=lib.Generator().manual_seed(1))

    def epoch() -> Any:
        for batch_images, batch_labels in loader:
            optimizer.zero_grad()
            lib.nn.functional.cross_entropy(model(batch_images), batch_labels).backward()
            optimizer.step()
        return model[0].weight.detach()

    return epoch


def _rand(name: str) -> Callable[[ModuleType, Settings], Operation]:
    """``rand``/``randn`` from a generator seeded 0 on each side: the first call (the
    agreement check) draws the same numbers in both libraries."""
    def build(lib: ModuleType, s: Settings) -> Operation:
        g = lib.Generator().manual_seed(0)
        sample = getattr(lib, name)
        return lambda: sample(s.elements, generator=g)
    return build


def _tiny_rand(lib: ModuleType, s: Settings) -> Operation:
    """A few draws at a time from a generator seeded 0 on each side (the path of draws
    taken fewer than 64 at a time)."""
    g = lib.Generator().manual_seed(0)
    return lambda: lib.rand(8, generator=g)


CASES = [
    Case("add", lambda s: f"a + b, {s.elements:,} float32, contiguous", _add, 1.5),
    Case("add_t", lambda s: f"a.t() + b.t(), ({_side(s.elements)}, {_side(s.elements)}) float32",
         _add_transposed, 2.0),
    Case("sum", lambda s: f"x.sum(), {s.elements:,} float32", _sum, 1.5),
    Case("matmul_small", lambda s: f"matmul {s.matmul_sizes[0]}x{s.matmul_sizes[0]} float32",
         _matmul(0), 1.5),
    Case("matmul_large", lambda s: f"matmul {s.matmul_sizes[1]}x{s.matmul_sizes[1]} float32",
         _matmul(1), 1.5),
    Case("tiny_add", lambda s: "a + b, 4 float32 (per-call overhead)", _tiny_add, 5.0),
    Case("tiny_add_int64", lambda s: "a + b, 4 int64 (per-call overhead)", _tiny_add_int64, 5.0),
    Case("tiny_view", lambda s: "x.view(3, 4), 12 int64 (per-call overhead)", _tiny_view, 5.0),
    Case("tiny_tolist", lambda s: "x.tolist(), 4 int64 (per-call overhead)", _tiny_tolist, 5.0),
    Case("tiny_rand", lambda s: "rand(8, generator=g) float32, bit-exact (per-call overhead)",
         _tiny_rand, 5.0),
    Case("mlp_step", lambda s: "MLP forward + backward (x @ w1 + b1, relu, @ w2 + b2, MSE)",
         _mlp_step, 10.0),
    Case("adam_mlp_step", lambda s: "a 64-128-10 nn.Sequential's training step: zero_grad, "
         "forward, MSE, backward, optim.Adam.step()", _adam_mlp_step, 5.0),
    Case("moded_mlp_step", lambda s: "mlp_step under a TorchDispatchMode that passes every "
         "aten call on (chapter 9)", _moded_mlp_step, 10.0),
    Case("make_fx_mlp", lambda s: "make_fx of an MLP's forward and autograd.grad, then one run "
         "of the graph (chapter 9)", _make_fx_mlp, 10.0),
    Case("epoch_0_workers", lambda s: f"one DataLoader epoch, {_epoch_samples(s):,}-sample "
         "TensorDataset, batch_size=64, shuffle=True, num_workers=0", _epoch(0), 3.0),
    Case("epoch_2_workers", lambda s: "the same epoch with num_workers=2 (two worker "
         "processes started per epoch)", _epoch(2), 3.0),
    Case("capstone_epoch", lambda s: "one epoch of the capstone CNN on the digits "
         f"({'1,257' if s.elements >= 1_000_000 else '128'} images, batch_size=64, SGD with "
         "momentum)", _capstone_epoch, 5.0),
    Case("deep_graph", lambda s: "y = y + y 25 times, then y.sum().backward()",
         _deep_graph, 10.0),
    Case("rand", lambda s: f"rand({s.elements:,}) float32, bit-exact", _rand("rand"), 1.5),
    Case("randn", lambda s: f"randn({s.elements:,}) float32, bit-exact", _rand("randn"), 10.0),
]
IMPORT_KEY = "import"
IMPORT_TARGET_S = 0.150
KEYS = [case.key for case in CASES] + [IMPORT_KEY]


def _values(result: Any) -> np.ndarray:
    """A result's values as a NumPy array (a copy, whatever its strides)."""
    return np.array(result.numpy(), copy=True)


def _agree(case: Case, torch_op: Operation, ref_op: Operation) -> None:
    """Raise AssertionError unless both libraries compute the same values and shape."""
    expected, actual = torch_op(), ref_op()
    if isinstance(expected, list):  # ``tolist``
        assert actual == expected, (case.key, actual, expected)
        return
    assert tuple(actual.shape) == tuple(expected.shape), (case.key, actual.shape, expected.shape)
    if not np.allclose(_values(actual), _values(expected), rtol=1e-4, atol=1e-5):
        raise AssertionError(f"{case.key}: reftensor and torch disagree; nothing was timed")


def _loops(timer: timeit.Timer, seconds: float) -> int:
    """Loop count for one measurement of about ``seconds`` (this is also the warm-up).

    Like ``timeit.Timer.autorange`` (1, 2, 5, 10, 20, 50, ...), with a chosen duration.
    """
    scale = 1
    while True:
        for number in (scale, 2 * scale, 5 * scale):
            if timer.timeit(number) >= seconds:
                return number
        scale *= 10


def best_time(op: Operation, settings: Settings) -> float:
    """Seconds per call of ``op``: the best of ``settings.repeats`` timed loops."""
    timer = timeit.Timer(op)
    number = _loops(timer, settings.seconds_per_measurement)
    return min(timer.repeat(repeat=settings.repeats, number=number)) / number


def measure(case: Case, settings: Settings) -> Row:
    """Check, then time, one case on both libraries."""
    operation = case.describe(settings)
    torch_op = case.build(torch, settings)
    try:
        ref_op = case.build(reftensor, settings)
        _agree(case, torch_op, ref_op)
    except (AttributeError, NotImplementedError):
        return Row(case.key, operation, None, None, None, f"<= {case.target:g}x", None,
                   NOT_IMPLEMENTED)
    torch_s, ref_s = best_time(torch_op, settings), best_time(ref_op, settings)
    ratio = ref_s / torch_s
    return Row(case.key, operation, torch_s, ref_s, ratio, f"<= {case.target:g}x",
               ratio <= case.target, "measured")


def _startup(code: str) -> float:
    """Wall-clock seconds of one fresh ``python -c code``."""
    start = timeit.default_timer()
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
    return timeit.default_timer() - start


def measure_import(settings: Settings) -> Row:
    """Extra interpreter start-up time that ``import reftensor`` costs.

    The two commands are interleaved, so a burst of load on the machine hits both. Reported:
    the difference of the medians.
    """
    bare, loaded = [], []
    _startup("pass")  # warm the file system caches
    _startup("import reftensor")
    for _ in range(settings.startup_runs):
        bare.append(_startup("pass"))
        loaded.append(_startup("import reftensor"))
    extra = statistics.median(loaded) - statistics.median(bare)
    return Row(IMPORT_KEY, "import reftensor (extra interpreter start-up)", None, extra, None,
               f"< {IMPORT_TARGET_S * 1000:g} ms", extra < IMPORT_TARGET_S, "measured")


def _ms(seconds: float | None) -> str:
    """A duration for the table, in the unit that reads best."""
    if seconds is None:
        return "-"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def format_table(rows: list[Row]) -> str:
    """The rows as an aligned plain-text table."""
    header = ("operation", "torch", "reftensor", "ratio", "target", "met")
    lines = [header]
    for row in rows:
        if row.status != "measured":
            lines.append((row.operation, "-", NOT_IMPLEMENTED, "-", row.target, "-"))
            continue
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}x"
        lines.append((row.operation, _ms(row.torch_s), _ms(row.reftensor_s), ratio, row.target,
                      "yes" if row.met else "NO"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                  for i, (cell, w) in enumerate(zip(line, widths, strict=True)))
        for line in lines
    ]
    text.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(text)


def threads_note() -> str:
    """How the run was made single-threaded, for the output and the JSON."""
    note = (f"single-threaded: {', '.join(_THREAD_VARIABLES)}=1 set in the environment before "
            f"numpy and torch were imported; torch.set_num_threads(1) "
            f"(torch now uses {torch.get_num_threads()} thread)")
    if _IMPORTED_TOO_EARLY:
        note += (f". WARNING: {' and '.join(_IMPORTED_TOO_EARLY)} was imported before this "
                 "module, so its thread pool may not be single-threaded; run "
                 "`python -m benchmarks.bench`")
    return note


def machine_note() -> str:
    """The machine and library versions, for the output and the JSON."""
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"numpy {np.__version__}, torch {torch.__version__}")


def profile(key: str, settings: Settings) -> None:
    """Print cProfile's 15 largest entries for the reftensor side of one row.

    First by cumulative time (which call chain costs what), then by own time. The timed
    callable runs as many times as one measurement would, after the same warm-up.
    """
    if key == IMPORT_KEY:
        # reftensor is already imported here, so profile the import in a fresh interpreter.
        code = ("import cProfile, pstats; p = cProfile.Profile(); p.enable(); "
                "import reftensor; p.disable(); "
                "pstats.Stats(p).sort_stats('cumulative').print_stats(15)")
        subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
        return
    case = next(c for c in CASES if c.key == key)
    op = case.build(reftensor, settings)
    timer = timeit.Timer(op)
    number = _loops(timer, settings.seconds_per_measurement)  # warm-up and loop count
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(number):
        op()
    profiler.disable()
    print(f"cProfile of reftensor, {case.describe(settings)}: {number} calls")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(15)
    print("The same calls by own time (tottime), where the time is actually spent:")
    stats.sort_stats("tottime").print_stats(15)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table (or a profile); return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, few short repeats: a smoke test, not a measurement")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the table as JSON")
    parser.add_argument("--profile", choices=KEYS, metavar="OP",
                        help=f"profile the reftensor side of one row instead: {', '.join(KEYS)}")
    parser.add_argument("--only", nargs="+", choices=KEYS, metavar="OP",
                        help="measure only these rows")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    torch.set_num_threads(1)

    if args.profile:
        profile(args.profile, settings)
        return 0

    print(f"reftensor vs torch; {machine_note()}")
    print(threads_note())
    print("times are per call, best of repeats; ratio = reftensor / torch"
          + (" (--quick: sizes reduced, not a measurement)" if args.quick else ""))
    print()
    rows = []
    for case in CASES:
        if args.only and case.key not in args.only:
            continue
        rows.append(measure(case, settings))
        print(f"  {case.key}: done", file=sys.stderr, flush=True)
    if not args.only or IMPORT_KEY in args.only:
        rows.append(measure_import(settings))
    print(format_table(rows))
    missed = [row.key for row in rows if row.met is False]
    if missed:
        print(f"\nmissed: {', '.join(missed)}; see where the time goes with "
              f"`python -m benchmarks.bench --profile OP`")
    if args.json:
        args.json.write_text(json.dumps({
            "machine": machine_note(), "threads": threads_note(), "quick": args.quick,
            "rows": [asdict(row) for row in rows],
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
