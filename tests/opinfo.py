"""torch's own test inputs (its OpInfo database) run on torch and on reftensor.

``torch.testing._internal.common_methods_invocations.op_db`` lists, per op, sample inputs,
reference inputs (larger and extremal values, non-contiguous layouts) and error inputs, the
ones torch's test suite runs every op through. For an op reftensor has, each sample is
rebuilt in reftensor with the same sizes, strides and storage offset over a copy of its whole
storage (a leaf, not a view), run through the op's function, method and in-place variants on
both libraries, and compared: values (torch.testing's tolerances for the dtype), sizes,
strides, dtype, the exception class, and for float samples the gradients of the inputs.

As a script it lists every mismatch for every op of op_db that reftensor exports::

    python -m tests.opinfo                # a fixed number of samples per op and dtype
    python -m tests.opinfo --all exp log  # every sample and reference input of these ops

``tests/test_opinfo.py`` runs the ops of reftensor's op table in ``make test``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import types
import unittest
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.testing._internal import common_utils
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.opinfo import core as opinfo_core

import reftensor
from reftensor.storage import UntypedStorage
from tests import difftest

#: dtypes both libraries have, by name
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64")
#: torch.testing's default tolerances (rtol, atol) per dtype
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7)}
#: samples per op, dtype and kind (sample, reference) in the default profile
DEFAULT_SAMPLES = 6


def test_fn_on_the_stack() -> Any:
    """The unittest test method on the calling stack, or None: what torch's
    ``common_utils.extract_test_fn`` returns (the same frames, innermost first, the same rule),
    found by following ``f_back``. torch's own calls ``inspect.stack()``, which reads the
    source of every frame of pytest's deep stacks: it was 88% of this harness's time (every
    sample iterator asks it, to seed its draws by the test's name). OpInfo samples come out
    the same: torch seeds with its fixed ``SEED`` when this is None, as it is under pytest.
    Installed over torch's in both modules that call it, at import
    (``test_opinfo.py::test_the_stack_walk_finds_what_torchs_finds`` compares the two)."""
    try:
        frame = sys._getframe(1)
        while frame is not None:
            self_val = frame.f_locals.get("self")
            if isinstance(self_val, unittest.TestCase):
                *_, cls_name, test_name = self_val.id().rsplit(".", 2)
                if cls_name == type(self_val).__name__ and test_name.startswith("test"):
                    return getattr(self_val, test_name).__func__
            frame = frame.f_back
    except Exception:  # noqa: BLE001 - torch's gives None on any error too
        return None
    return None


#: torch's own stack walk (kept for the test that compares the two)
TORCHS_EXTRACT_TEST_FN = common_utils.extract_test_fn
common_utils.extract_test_fn = opinfo_core.extract_test_fn = test_fn_on_the_stack


@dataclass(frozen=True)
class Mismatch:
    op: str  # the OpInfo's name, with its variant test name
    variant: str  # function, method, inplace, error
    dtype: str
    sample: str  # a short description of the input's layout
    what: str  # what differs

    def __str__(self) -> str:
        return f"{self.op} [{self.variant}, {self.dtype}] {self.sample}: {self.what}"


def _name(op: Any) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


class AliasOf:
    """An OpInfo seen through one of its aliases (``sub`` as ``subtract``): the same
    samples, run through the alias's function and methods."""

    def __init__(self, op: Any, alias: Any) -> None:
        self._op, self._alias = op, alias

    def __getattr__(self, name: str) -> Any:
        return getattr(self._op, name)

    @property
    def name(self) -> str:
        return self._alias.name

    @property
    def op(self) -> Any:
        return self._alias.op

    @property
    def method_variant(self) -> Any:
        return self._alias.method_variant

    @property
    def inplace_variant(self) -> Any:
        return self._alias.inplace_variant


class Functional:
    """An ``nn.functional.<name>`` OpInfo run as ``torch.<name>`` (``relu``): the same
    samples, through the op's function and Tensor methods."""

    def __init__(self, op: Any, name: str) -> None:
        self._op, self.name = op, name
        self.op = getattr(torch, name)
        self.method_variant = getattr(torch.Tensor, name, None)
        self.inplace_variant = getattr(torch.Tensor, name + "_", None)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._op, attribute)


class NNFunctional:
    """An ``nn.functional.<name>`` OpInfo of an op that torch offers only there (``linear``
    is ``torch._C._nn.linear``): the same samples, through ``reftensor.nn.functional``."""

    def __init__(self, op: Any, name: str) -> None:
        self._op, self.name = op, name
        self.method_variant = self.inplace_variant = None

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._op, attribute)


class Linalg:
    """A ``linalg.<name>`` OpInfo (``linalg.cross``), named as its op in the table
    (``linalg_cross``): the same samples, through ``reftensor.linalg.<name>``."""

    def __init__(self, op: Any, name: str) -> None:
        self._op, self.short, self.name = op, name, "linalg_" + name
        self.method_variant = self.inplace_variant = None

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._op, attribute)


class Compared:
    """An OpInfo whose results are compared through a function of both libraries' results
    (``linalg.eigh``'s eigenvectors up to sign: ``tests/linalg_compare.py``): ``op`` is
    torch's call followed by it, ``reftensor_op`` reftensor's. Gradients are compared in
    ``grad_dtypes`` only (the samples of the others do not require grad)."""

    def __init__(self, op: Any, torch_op: Any, reftensor_op: Any, *,
                 grad_dtypes: tuple[Any, ...] = (torch.float32, torch.float64)) -> None:
        self._op, self.op, self.reftensor_op = op, torch_op, reftensor_op
        self.name = op.name
        self.method_variant = self.inplace_variant = None
        self.grad_dtypes = grad_dtypes

    def sample_inputs(self, device: Any, dtype: Any, requires_grad: bool = False,
                      **kwargs: Any) -> Any:
        return self._op.sample_inputs(device, dtype, requires_grad=requires_grad
                                      and dtype in self.grad_dtypes, **kwargs)

    def reference_inputs(self, device: Any, dtype: Any, requires_grad: bool = False,
                         **kwargs: Any) -> Any:
        return self._op.reference_inputs(device, dtype, requires_grad=requires_grad
                                         and dtype in self.grad_dtypes, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._op, attribute)


#: ``nn.functional.<name>`` OpInfos whose ``torch.<name>`` takes its arguments in another
#: order (``torch.embedding(weight, indices)``, ``F.embedding(input, weight)``;
#: ``torch.batch_norm`` has no defaults and ``cudnn_enabled`` last): run as
#: ``nn.functional.<name>`` on both libraries
_OTHER_ORDER = {"embedding", "batch_norm"}


def _method_wrapper(op: Any) -> bool:
    """An op torch offers as a method only (``Tensor.view``), whose OpInfo calls it through
    a function of its own (``lambda x, shape: x.view(shape)``): run as that function."""
    fn = getattr(op, "op", None)
    return (isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing.")
            and hasattr(reftensor.Tensor, op.name))


def entries(names: set[str] | None = None) -> list[Any]:
    """The OpInfos (and aliases of them) that reftensor exports as a function
    (``reftensor.<name>``), or as a method that the OpInfo calls through a function of its
    own; an op may have several (``div``: one per rounding mode)."""
    found: list[Any] = []
    for op in op_db:
        views = [op, *[AliasOf(op, a) for a in op.aliases]]
        short = op.name.removeprefix("nn.functional.")
        if short != op.name and hasattr(torch, short) and short not in _OTHER_ORDER:
            views.append(Functional(op, short))
        elif short != op.name and hasattr(reftensor.nn.functional, short):
            views.append(NNFunctional(op, short))
        short = op.name.removeprefix("linalg.")
        if short != op.name and hasattr(reftensor.linalg, short):
            views.append(Linalg(op, short))
        for view in views:
            if "." in view.name or not (hasattr(reftensor, view.name) or _method_wrapper(view)
                                        or isinstance(view, NNFunctional | Linalg)):
                continue
            if names is None or view.name in names:
                found.append(view)
    return found


# ------------------------------------------------------------------ rebuilding a sample
def convert(x: Any) -> Any:
    """A torch tensor rebuilt in reftensor: the same sizes, strides and storage offset over
    a copy of its whole storage, as a leaf; ``requires_grad`` kept. Lists, tuples and
    dicts are converted element by element; everything else is passed as it is."""
    if isinstance(x, torch.Tensor):
        dtype = getattr(reftensor, str(x.dtype).removeprefix("torch."))
        raw = _storage_bytes(x)
        t = reftensor.Tensor._make(UntypedStorage._wrap(raw), tuple(x.shape), x.stride(),
                                   x.storage_offset(), dtype)
        if x.requires_grad:
            t.requires_grad_()
        return t
    if isinstance(x, torch.dtype | torch.memory_format):
        return getattr(reftensor, str(x).removeprefix("torch."))
    if isinstance(x, torch.device):
        return reftensor.device(str(x))
    if x is torch.strided:  # reftensor's one layout, which its factories take as None
        return None
    if isinstance(x, list | tuple):
        return type(x)(convert(e) for e in x)
    if isinstance(x, dict):
        return {k: convert(v) for k, v in x.items()}
    return x


def rebuild(x: Any) -> Any:
    """The same for torch: a fresh leaf with ``x``'s layout over a copy of its storage (a
    sample's input may be a view that was made to require grad, and torch's autograd treats
    such a view unlike a leaf)."""
    if isinstance(x, torch.Tensor):
        storage = torch.UntypedStorage.from_buffer(_storage_bytes(x).tobytes(), dtype=torch.uint8)
        with torch.no_grad():
            t = torch.empty(0, dtype=x.dtype).set_(storage, x.storage_offset(),
                                                   tuple(x.shape), x.stride())
        return t.requires_grad_(x.requires_grad)
    if isinstance(x, list | tuple):
        return type(x)(rebuild(e) for e in x)
    if isinstance(x, dict):
        return {k: rebuild(v) for k, v in x.items()}
    return x


def _storage_bytes(x: Any) -> np.ndarray:
    """A copy of every byte of ``x``'s storage, as a NumPy uint8 array."""
    storage = x.untyped_storage()
    with torch.no_grad():
        as_bytes = torch.empty(0, dtype=torch.uint8).set_(storage, 0, (storage.nbytes(),), (1,))
    return as_bytes.numpy().copy()


def describe(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return (f"{list(x.shape)} stride={x.stride()} offset={x.storage_offset()}"
                + (" requires_grad" if x.requires_grad else ""))
    return repr(x)[:40]


def _has_dtypes(sample: Any) -> bool:
    """Does every tensor of the sample have a dtype reftensor has (``DTYPES``)?"""
    def ok(x: Any) -> bool:
        if isinstance(x, torch.Tensor):
            return str(x.dtype).removeprefix("torch.") in DTYPES
        if isinstance(x, list | tuple):
            return all(ok(e) for e in x)
        if isinstance(x, dict):
            return all(ok(e) for e in x.values())
        return True

    return ok((sample.input, *sample.args, sample.kwargs))


def _overlaps(t: Any) -> bool:
    """Do two elements of ``t`` share memory (torch's in-place ops do not check this)?"""
    if not isinstance(t, torch.Tensor) or t.numel() <= 1:
        return False
    return torch._debug_has_internal_overlap(t) != 0


# ------------------------------------------------------------------ comparing results
#: ops whose results hold uninitialised memory: their values are not compared (OpInfo's own
#: tests skip them too); dtype, shape and strides are.
UNINITIALISED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                 "new_empty_strided"}


def compare(expected: Any, got: Any, *, values: bool = True,
            tolerances: dict[str, tuple[float, float]] | None = None) -> str | None:
    """What differs between torch's result and reftensor's, or None (``values=False``:
    everything but the elements' values; ``tolerances``: (rtol, atol) per dtype in place
    of ``TOLERANCES``')."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, reftensor.Tensor):
            return f"torch gave a Tensor, reftensor {type(got).__name__}"
        dtype = str(expected.dtype).removeprefix("torch.")
        if str(got.dtype).removeprefix("reftensor.") != dtype:
            return f"dtype {dtype} vs {got.dtype}"
        if tuple(expected.shape) != tuple(got.shape):
            return f"shape {list(expected.shape)} vs {list(got.shape)}"
        if expected.numel() > 1 and _significant(expected.shape, expected.stride()) != \
                _significant(got.shape, got.stride()):
            return f"strides {expected.stride()} vs {got.stride()}"
        return _compare_values(expected, got, dtype, tolerances) if values else None
    if isinstance(expected, tuple | list):
        if not isinstance(got, tuple | list) or len(got) != len(expected):
            return f"torch gave {len(expected)} results, reftensor {got!r:.60}"
        for e, g in zip(expected, got, strict=True):
            problem = compare(e, g, values=values, tolerances=tolerances)
            if problem:
                return problem
        return None
    if expected != got and not (isinstance(expected, float) and math.isnan(expected)
                                and isinstance(got, float) and math.isnan(got)):
        return f"{expected!r} vs {got!r}"
    return None


def _significant(shape: Any, stride: Any) -> tuple[int, ...]:
    """Strides of the dims of size > 1 (the others are never read)."""
    return tuple(s for n, s in zip(shape, stride, strict=True) if n > 1)


def _compare_values(expected: Any, got: Any, dtype: str,
                    tolerances: dict[str, tuple[float, float]] | None = None) -> str | None:
    if expected.device.type == "meta":
        return None
    e = expected.detach().to(torch.float64 if dtype in TOLERANCES else expected.dtype)
    e = e.numpy()
    g = got.detach()
    g = (g.double() if dtype in TOLERANCES else g).numpy()
    if dtype in TOLERANCES:
        rtol, atol = {**TOLERANCES, **(tolerances or {})}[dtype]
        ok = np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = np.array_equal(g, e)
    if ok:
        return None
    bad = np.argwhere(~np.isclose(g, e, equal_nan=True)) if dtype in TOLERANCES else \
        np.argwhere(g != e)
    index = tuple(bad[0]) if len(bad) else ()
    return f"values differ at {list(index)}: torch {e[index]!r}, reftensor {g[index]!r}"


# ------------------------------------------------------------------ running one sample
def _run(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    try:
        return fn(*args, **kwargs), None
    except Exception as error:  # noqa: BLE001 - the class is compared
        return None, error


def _seeded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """OpInfo's ``wrapper_set_seed``, in reftensor."""
    reftensor.manual_seed(42)
    return fn(*args, **kwargs)


def reftensor_function(op: Any) -> Any:
    """The op's function in reftensor: ``reftensor.<name>``, or, where the OpInfo wraps the
    call in a function of its own (``lambda self, condition, other: torch.where(condition,
    self, other)``, ``lambda x, *a: x.half(*a)``), that very code with ``torch`` read as
    ``reftensor``. (torch's own Python functions, such as ``torch.broadcast_tensors``, are
    not OpInfo's: their reftensor counterpart is ``reftensor.<name>``.)"""
    if hasattr(op, "reftensor_function"):  # a view that says (``SvdCompared``)
        return op.reftensor_function
    fn = op.op
    if isinstance(op, Compared):
        return op.reftensor_op
    if isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing."):
        names = {**fn.__globals__, "torch": reftensor, "wrapper_set_seed": _seeded}
        return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
    if isinstance(op, NNFunctional):
        return getattr(reftensor.nn.functional, op.name)
    if isinstance(op, Linalg):
        return getattr(reftensor.linalg, op.short)
    if op.name.startswith("linalg."):  # torch.linalg.vector_norm: reftensor.linalg's
        return getattr(reftensor.linalg, op.name.removeprefix("linalg."))
    return getattr(reftensor, op.name)


def _variants(op: Any) -> dict[str, Any]:
    name = op.name
    found = {"function": (op.op, reftensor_function(op))}
    if op.method_variant is not None and hasattr(reftensor.Tensor, name):
        found["method"] = (op.method_variant,
                           lambda self, *a, **k: getattr(self, name)(*a, **k))
    if op.inplace_variant is not None and hasattr(reftensor.Tensor, name + "_"):
        found["inplace"] = (op.inplace_variant,
                            lambda self, *a, **k: getattr(self, name + "_")(*a, **k))
    return found


def check_sample(op: Any, sample: Any, dtype: str, variant: str,
                 fns: tuple[Any, Any]) -> list[Mismatch]:
    """Run one sample through one variant on both libraries; the mismatches found."""
    torch_fn, ref_fn = fns
    if variant != "function" and not isinstance(sample.input, torch.Tensor):
        return []  # a method of a number: no op behaviour to compare
    if variant == "inplace" and _overlaps(sample.input):
        return []  # torch writes without checking; the result depends on its loop order
    if not _has_dtypes(sample):
        return []  # an argument of a dtype reftensor does not have (addcmul's complex128)
    where = describe(sample.input)
    ref_args = convert((sample.input, *sample.args))
    ref_kwargs = convert(dict(sample.kwargs))
    torch_args = rebuild((sample.input, *sample.args))
    # the CPU generator alone: torch.manual_seed also queues a seed for every accelerator
    # module, formatting the call stack each time (a quarter of this harness's time)
    torch.default_generator.manual_seed(42)
    reftensor.manual_seed(42)
    expected, torch_error = _run(torch_fn, torch_args, rebuild(dict(sample.kwargs)))
    got, ref_error = _run(ref_fn, ref_args, ref_kwargs)
    mismatch = _outcome(torch_error, ref_error, expected, got,
                        values=_name(op) not in UNINITIALISED)
    found = []
    if mismatch:
        found.append(Mismatch(_name(op), variant, dtype, where, mismatch))
    elif torch_error is None and variant == "function" and op.supports_autograd:
        problem = _compare_gradients(torch_args, ref_args, expected, got,
                                     getattr(op, "gradient_tolerances", None))
        if problem:
            found.append(Mismatch(_name(op), "gradient", dtype, where, problem))
    return found


def _outcome(torch_error: Any, ref_error: Any, expected: Any, got: Any, *,
             values: bool = True) -> str | None:
    if torch_error is not None or ref_error is not None:
        if difftest.same_class(torch_error, ref_error):
            return None
        return (f"torch raised {type(torch_error).__name__}, reftensor "
                f"{type(ref_error).__name__}: {str(ref_error or torch_error)[:100]}")
    return compare(expected, got, values=values)


def _compare_gradients(torch_args: Any, ref_args: Any, expected: Any, got: Any,
                       tolerances: dict[str, tuple[float, float]] | None = None) -> str | None:
    """Backward from the sum of every output that requires grad; compare the inputs'
    gradients (within ``tolerances``, where the op's view gives its own: an SVD's)."""
    t_inputs = [x for x in torch_args if isinstance(x, torch.Tensor) and x.requires_grad]
    r_inputs = [x for x in ref_args if isinstance(x, reftensor.Tensor) and x.requires_grad]
    t_outs = [o for o in (expected if isinstance(expected, tuple | list) else [expected])
              if isinstance(o, torch.Tensor) and o.requires_grad]
    r_outs = [o for o in (got if isinstance(got, tuple | list) else [got])
              if isinstance(o, reftensor.Tensor) and o.requires_grad]
    if not t_inputs or len(t_outs) != len(r_outs):
        return None if not t_inputs else "different outputs require grad"
    torch_grads = torch.autograd.grad([o.sum() for o in t_outs], t_inputs, allow_unused=True)
    try:
        ref_grads = reftensor.autograd.grad([o.sum() for o in r_outs], r_inputs,
                                            allow_unused=True)
    except Exception as exc:  # noqa: BLE001
        return f"reftensor's backward raised {type(exc).__name__}: {exc}"[:160]
    for e, g in zip(torch_grads, ref_grads, strict=True):
        if (e is None) != (g is None):
            return f"gradient None in one library only (torch {e is None})"
        if e is not None and e._is_zerotensor():
            # torch's "efficient zero tensor" (SgnBackward0 of a real input) has zeros for
            # values and no storage to read them from: compared as contiguous zeros
            e = torch.zeros(e.shape, dtype=e.dtype)
        if e is not None:
            problem = compare(e, g, tolerances=tolerances)
            if problem:
                return f"gradient: {problem}"
    return None


def samples(op: Any, dtype: str, *, limit: int | None,
            requires_grad: bool) -> Iterator[Any]:
    """The op's sample inputs, then its reference inputs, ``limit`` of each (None: all)."""
    torch_dtype = getattr(torch, dtype)
    kinds = [op.sample_inputs]
    if op.reference_inputs_func is not None:
        kinds.append(op.reference_inputs)
    for kind in kinds:
        made = 0
        try:
            for sample in itertools.islice(kind("cpu", torch_dtype,
                                                requires_grad=requires_grad), limit):
                made += 1
                yield sample
        except ValueError:
            # torch's own sample function asked make_tensor for an integer tensor that
            # requires grad (``reference_inputs_elementwise_ternary``, addcmul's): the rest
            # of that kind without requires_grad
            rest = kind("cpu", torch_dtype, requires_grad=False)
            yield from itertools.islice(rest, made, None if limit is None else limit)


def rotated_dtypes(name: str, supported: set[str], count: int) -> tuple[str, ...]:
    """``count`` of the dtypes in ``supported`` for the op ``name``: float32 where the op has
    it (the dtype of its gradients), then the others in ``DTYPES`` order starting at a place
    that the op's name picks (a stable hash), so that across the table every dtype runs on
    about as many ops. The fast tier's choice; the full tier runs every dtype."""
    ordered = [d for d in DTYPES if d in supported]
    first = [d for d in ordered if d == "float32"]
    rest = [d for d in ordered if d != "float32"]
    if rest:
        start = zlib.crc32(name.encode()) % len(rest)
        rest = rest[start:] + rest[:start]
    return tuple((first + rest)[:count])


def check_op(op: Any, *, limit: int | None = DEFAULT_SAMPLES,
             dtypes: int | None = None) -> list[Mismatch]:
    """Every variant of ``op`` on its samples in every dtype both libraries have (or in
    ``dtypes`` of them, chosen by :func:`rotated_dtypes`), then its error inputs."""
    found: list[Mismatch] = []
    supported = {str(d).removeprefix("torch.") for d in op.dtypes}
    chosen = set(DTYPES) if dtypes is None else set(
        rotated_dtypes(_name(op), supported & set(DTYPES), dtypes))
    for dtype in DTYPES:
        if dtype not in supported or dtype not in chosen:
            continue
        grad = op.supports_autograd and dtype in ("float32", "float64")
        for sample in samples(op, dtype, limit=limit, requires_grad=grad):
            for variant, fns in _variants(op).items():
                found.extend(check_sample(op, sample, dtype, variant, fns))
    found.extend(check_errors(op))
    return found


def check_errors(op: Any) -> list[Mismatch]:
    """torch's error inputs for the op's function: reftensor raises the class torch raises
    (torch's entry may name a base class, such as ``Exception``; the class torch actually
    raises is compared)."""
    if op.error_inputs_func is None:
        return []
    found = []
    for error_input in op.error_inputs("cpu"):
        sample = error_input.sample_input
        if not _has_dtypes(sample):
            continue  # a dtype reftensor does not have (masked_fill's complex value)
        torch_args = rebuild((sample.input, *sample.args))
        _, torch_error = _run(op.op, torch_args, rebuild(dict(sample.kwargs)))
        args = convert((sample.input, *sample.args))
        _, ref_error = _run(reftensor_function(op), args, convert(dict(sample.kwargs)))
        if not difftest.same_class(torch_error, ref_error):
            found.append(Mismatch(
                _name(op), "error", "-", describe(sample.input),
                f"torch raises {type(torch_error).__name__} "
                f"({str(torch_error)[:60]!r}), reftensor "
                f"{type(ref_error).__name__ if ref_error else 'nothing'}"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="List where reftensor and torch disagree "
                                                 "on torch's OpInfo samples.")
    parser.add_argument("ops", nargs="*", help="op names (default: every op reftensor has)")
    parser.add_argument("--all", action="store_true", help="every sample, not a fixed number")
    args = parser.parse_args(argv)
    ops = entries(set(args.ops) if args.ops else None)
    total = 0
    for op in ops:
        try:
            found = check_op(op, limit=None if args.all else DEFAULT_SAMPLES)
        except Exception as error:  # noqa: BLE001 - a broken sample function is reported
            print(f"{_name(op)}: could not run: {type(error).__name__}: {error}"[:200])
            continue
        for m in found:
            print(m)
        total += len(found)
    print(f"{len(ops)} OpInfo entries, {total} mismatches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
