"""Chapter 7: ``reftensor.utils.data`` against ``torch.utils.data`` 2.13, batch for batch.

Every program runs on both libraries (``lib`` is ``torch`` or ``reftensor``, ``data`` its
``utils.data``) and the harness compares, as library-neutral plain data:

* what the program returns: every batch with its nesting (the container types by name, dict
  keys in order, named tuples by name) and each tensor's shape, strides, offset, dtype and
  values (``describe`` of ``tests/difftest.py``); generators by their 5056 state bytes;
* or the exception: its class and its message (torch's texts), where the program raises;
* the warnings it gave (category and text);
* the default generator's state afterwards.

Covered: every dataset class and its errors; ``random_split`` with lengths and fractions
(Hypothesis); every sampler with an explicit generator and with the global seed, two epochs,
and the generator states after (Hypothesis); ``default_collate``/``default_convert`` on
generated nested samples (tensors, NumPy arrays and scalars, numbers, strings, mappings,
named tuples, lists, tuples) and torch's errors for ragged input; the DataLoader with
``num_workers=0`` on generated options (two epochs, every batch and the states after each
epoch, ``len``) and every mutually exclusive option; worker processes (1 and 2 workers):
map-style and iterable datasets with and without sharding by ``get_worker_info``, what each
worker's ``initial_seed()``, ``random.random()`` and ``np.random.rand()`` draw,
``worker_init_fn``, ``persistent_workers`` over two epochs, in-order reassembly when a later
batch arrives first, a worker's exception (class, worker id, original message), a worker
killed by a signal, ``timeout``, and no worker process left behind.

Worker tests start at most 2 workers and stay small: the machine has 2 cores.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import hashlib
import math
import os
import pickle
import random
import re
import signal
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import psutil
import pytest
import torch
import torch.utils.data
from hypothesis import given
from hypothesis import strategies as st

import reftensor
import reftensor.utils.data
from tests.difftest import STATS, Mismatch, describe

pytestmark = pytest.mark.ch07

LIBS = (torch, reftensor)
seeds = st.integers(0, 2**64 - 1)


# ====================================================================== the harness
CROSSED = [False]  # set by the worker tests: see ``plain``


def plain(x: Any) -> Any:
    """``x`` as plain data that means the same for both libraries.

    While ``CROSSED[0]`` (a program whose tensors come from worker processes), a tensor's
    ``_version`` is left out: torch's unpickling rebuilds a tensor with ``set_``, so every
    tensor that crossed a process boundary has ``_version`` 1 there, while reftensor's
    pickling keeps the count (``test_an_unpickled_tensor_has_version_one_in_torch``)."""
    if isinstance(x, torch.Tensor | reftensor.Tensor):
        facts = describe(x)
        if CROSSED[0]:
            del facts["_version"]
        return ("Tensor", facts)
    if isinstance(x, torch.Generator | reftensor.Generator):
        return ("Generator", _state(x))
    if isinstance(x, dict):
        return (type(x).__name__, [(k, plain(v)) for k, v in x.items()])
    if isinstance(x, list | tuple):
        return (type(x).__name__, [plain(v) for v in x])
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.tolist())
    if isinstance(x, torch.dtype | reftensor.dtype):
        return ("dtype", str(x).split(".")[-1])
    if type(x).__module__.split(".")[0] in ("torch", "reftensor"):
        return (type(x).__name__, "an object")
    return (type(x).__name__, x)


def _one(program: Callable[[Any, Any], Any], lib: Any, messages: bool) -> Any:
    lib.manual_seed(20240607)  # the default generator starts alike on both sides
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome: Any = ("returned", plain(program(lib, lib.utils.data)))
        except Exception as e:  # noqa: BLE001 - the class and message are what we compare
            outcome = ("raised", type(e).__name__, _message(e) if messages else "")
    said = [(w.category.__name__, re.sub(" at 0x[0-9a-f]+", "", str(w.message)))
            for w in caught]
    return outcome, said, _state(lib.default_generator)


def _state(generator: Any) -> str:
    """A generator's seed and a digest of its 5056 state bytes."""
    raw = bytes(generator.get_state().tolist())
    return f"seed {generator.initial_seed()}, state {hashlib.sha1(raw).hexdigest()[:16]}"


def _message(e: BaseException) -> str:
    """The message with pids and file locations written neutrally."""
    text = re.sub(r"pid(\(s\))? \d+", "pid N", str(e))
    return re.sub(r'File "[^"]*", line \d+', "File F", text)


def same_on_both(program: Callable[[Any, Any], Any], *, messages: bool = True) -> Any:
    """Run ``program(lib, data)`` on torch and on reftensor and compare (module docstring);
    return torch's outcome."""
    expected = _one(program, torch, messages)
    got = _one(program, reftensor, messages)
    STATS["programs"] += 1
    STATS["behaviours"] += 3
    for what, e, g in zip(("outcome", "warnings", "default generator state"), expected, got,
                          strict=True):
        if e != g:
            raise Mismatch(f"{what} differs:\n torch     {str(e)[:3000]}\n"
                           f" reftensor {str(g)[:3000]}")
    return expected[0]


def epochs(loader: Any, generator: Any = None, count: int = 2) -> list[Any]:
    """Every batch of ``count`` epochs, ``len(loader)``, and the generator after each epoch."""
    out: list[Any] = [len(loader)]
    for _ in range(count):
        out.append([b for b in loader])
        if generator is not None:
            out.append(generator)
    return out


# ======================================================================= datasets
class Squares:
    """A map-style dataset without the base class: ``i -> (i, i * i)``."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[int, int]:
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range")
        return (i, i * i)


def make_stream(data: Any, start: int, stop: int, shard: bool = False,
                length: bool = False) -> Any:
    """An ``IterableDataset`` of ``range(start, stop)`` for ``data``'s library; ``shard``: each
    worker yields its own contiguous part (``get_worker_info``); ``length``: has ``len``."""

    class Stream(data.IterableDataset):
        def __iter__(self):  # type: ignore[no-untyped-def]
            lo, hi = start, stop
            info = data.get_worker_info()
            if shard and info is not None:
                per = -(-(stop - start) // info.num_workers)
                lo = start + info.id * per
                hi = min(lo + per, stop)
            return iter(range(lo, hi))

    if length:
        Stream.__len__ = lambda self: stop - start  # type: ignore[attr-defined]
    return Stream()


def test_tensor_dataset_rows_and_errors():
    same_on_both(lambda lib, data: [
        data.TensorDataset(lib.arange(12).reshape(4, 3), lib.arange(4.0))[i] for i in
        (0, 3, -1, slice(1, 3), [0, 2])] + [len(data.TensorDataset(lib.zeros(5, 2)))])
    same_on_both(lambda lib, data: len(data.TensorDataset(lib.zeros(3), lib.zeros(4))))
    same_on_both(lambda lib, data: data.TensorDataset(lib.zeros(3))[3])
    same_on_both(lambda lib, data: data.TensorDataset())


def test_stack_dataset_tuple_dict_and_errors():
    same_on_both(lambda lib, data: [data.StackDataset(Squares(3), lib.arange(3))[1],
                                    data.StackDataset(a=Squares(3), b=lib.arange(3))[2],
                                    len(data.StackDataset(Squares(4)))])
    same_on_both(lambda lib, data: data.StackDataset(
        data.Subset(data.TensorDataset(lib.arange(6)), [5, 4, 3]),
        Squares(3)).__getitems__([2, 0]))
    same_on_both(lambda lib, data: data.StackDataset(
        x=data.Subset(data.TensorDataset(lib.arange(6)), [5, 4, 3]),
        y=Squares(3)).__getitems__([1]))
    same_on_both(lambda lib, data: data.StackDataset(Squares(3), x=Squares(3)))
    same_on_both(lambda lib, data: data.StackDataset())
    same_on_both(lambda lib, data: data.StackDataset(Squares(3), Squares(4)))
    same_on_both(lambda lib, data: data.StackDataset(a=Squares(3), b=Squares(4)))


def test_concat_chain_subset_and_the_plus_operator():
    def program(lib, data):
        a, b = data.TensorDataset(lib.arange(3)), data.TensorDataset(lib.arange(10, 14))
        both = a + b
        out = [type(both).__name__, len(both), both.cumulative_sizes,
               [both[i] for i in range(-7, 7)]]
        sub = data.Subset(both, [6, 0, 3])
        out += [len(sub), sub[0], sub.__getitems__([2, 1])]
        chained = make_stream(data, 0, 3, length=True) + make_stream(data, 5, 7, length=True)
        out += [type(chained).__name__, list(chained), len(chained)]
        return out

    same_on_both(program)
    same_on_both(lambda lib, data: data.ConcatDataset([Squares(2), Squares(3)])[-6])
    same_on_both(lambda lib, data: data.ConcatDataset([]))
    same_on_both(lambda lib, data: data.ConcatDataset([Squares(2), make_stream(data, 0, 2)]))
    same_on_both(lambda lib, data: list(data.ChainDataset([make_stream(data, 0, 2),
                                                           Squares(2)])))
    same_on_both(lambda lib, data: len(data.ChainDataset([make_stream(data, 0, 2)])))
    same_on_both(lambda lib, data: data.Dataset()[0])
    same_on_both(lambda lib, data: len(data.Dataset()))


def test_a_subset_subclass_that_overrides_only_getitem_is_refused():
    def program(lib, data):
        class Doubled(data.Subset):
            def __getitem__(self, i):
                return 2 * super().__getitem__(i)

        return Doubled(Squares(3), [0, 1])

    same_on_both(program)


@given(n=st.integers(0, 40), parts=st.lists(st.integers(0, 40), min_size=1, max_size=4),
       fractions=st.booleans(), seed=seeds, explicit=st.booleans())
def test_random_split_gives_torchs_subsets(n, parts, fractions, seed, explicit):
    """Lengths that sum to ``n`` (or fractions of ``n``, with torch's round-robin remainder
    and its warning for an empty split): the same subsets and the same generator state."""
    total = sum(parts) or 1
    if fractions:
        lengths: list[Any] = [p / total for p in parts]
    else:
        lengths = [p * n // total for p in parts]
        lengths[-1] += n - sum(lengths)

    def program(lib, data):
        lib.manual_seed(seed)
        g = lib.Generator().manual_seed(seed) if explicit else None
        subsets = (data.random_split(range(n), lengths, generator=g) if explicit
                   else data.random_split(range(n), lengths))
        return [list(s) for s in subsets] + [g]

    same_on_both(program)


def test_random_split_errors():
    same_on_both(lambda lib, data: data.random_split(range(5), [2, 2]))
    same_on_both(lambda lib, data: data.random_split(range(5), [1.5, -0.5]))
    same_on_both(lambda lib, data: [list(s) for s in data.random_split(range(5),
                                                                       [0.5, 0.5, 0.0])])


# ======================================================================= samplers
@given(n=st.integers(1, 40), replacement=st.booleans(),
       num_samples=st.one_of(st.none(), st.integers(1, 100)), seed=seeds,
       explicit=st.booleans())
def test_random_sampler_draws_torchs_indices(n, replacement, num_samples, seed, explicit):
    """Two epochs; with ``generator=None`` each epoch seeds a fresh generator from the
    default one (compared through the default generator's state)."""
    def program(lib, data):
        lib.manual_seed(seed ^ 0x5DEECE66D)
        g = lib.Generator().manual_seed(seed) if explicit else None
        s = data.RandomSampler(range(n), replacement=replacement, num_samples=num_samples,
                               generator=g)
        return [len(s), list(s), g, list(s), g]

    same_on_both(program)


def test_random_sampler_draws_at_the_first_next_not_at_iter():
    def program(lib, data):
        lib.manual_seed(3)
        it = iter(data.RandomSampler(range(5)))
        before = lib.get_rng_state()
        first = next(it)
        return [before, first, list(it)]

    same_on_both(program)


@given(n=st.integers(1, 30), seed=seeds, explicit=st.booleans(),
       weights=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25, 10.0]), min_size=1,
                        max_size=12),
       replacement=st.booleans(), num_samples=st.integers(1, 40))
def test_subset_and_weighted_samplers(n, seed, explicit, weights, replacement, num_samples):
    """``SubsetRandomSampler`` over a generated index list; ``WeightedRandomSampler`` with and
    without replacement (without: positive weights and at most that many samples, so no two
    of multinomial's scores tie; see ``test_ch08_rng.py``)."""
    if not replacement:
        weights = [w or 1.5 for w in weights]
        num_samples = min(num_samples, len(weights))
    elif not any(weights):
        weights[0] = 1.0

    def program(lib, data):
        lib.manual_seed(seed)
        g = lib.Generator().manual_seed(seed + 1) if explicit else None
        sub = data.SubsetRandomSampler(list(range(100, 100 + n, 3)), generator=g)
        w = data.WeightedRandomSampler(weights, num_samples, replacement=replacement,
                                       generator=g)
        return [len(sub), list(sub), list(sub), len(w), list(w), list(w), g,
                w.weights]

    same_on_both(program)


@given(n=st.integers(0, 30), batch_size=st.integers(1, 9), drop_last=st.booleans())
def test_batch_sampler_batches_and_len(n, batch_size, drop_last):
    same_on_both(lambda lib, data: [
        len(b := data.BatchSampler(data.SequentialSampler(range(n)), batch_size, drop_last)),
        list(b), list(data.SequentialSampler(range(n)))])


def test_sampler_errors():
    for make in (
        lambda lib, data: data.RandomSampler(range(3), replacement=1),
        lambda lib, data: data.RandomSampler(range(0)),
        lambda lib, data: data.RandomSampler(range(3), num_samples=0),
        lambda lib, data: data.RandomSampler(range(3), num_samples=2.0),
        lambda lib, data: data.WeightedRandomSampler([1.0, 2.0], 0),
        lambda lib, data: data.WeightedRandomSampler([1.0, 2.0], True),
        lambda lib, data: data.WeightedRandomSampler([1.0, 2.0], 2, replacement=None),
        lambda lib, data: data.WeightedRandomSampler([[1.0, 2.0]], 2),
        lambda lib, data: data.BatchSampler(range(3), 0, False),
        lambda lib, data: data.BatchSampler(range(3), True, False),
        lambda lib, data: data.BatchSampler(range(3), 2, None),
        lambda lib, data: len(data.BatchSampler(iter(range(3)), 2, False)),
        lambda lib, data: len(data.Sampler()),
        lambda lib, data: list(data.Sampler()),
    ):
        same_on_both(make)
    # multinomial's own errors come at iter
    same_on_both(lambda lib, data: list(data.WeightedRandomSampler([1.0, 0.0], 2, False)),
                 messages=False)
    same_on_both(lambda lib, data: list(data.WeightedRandomSampler([-1.0, 2.0], 2)),
                 messages=False)


# ======================================================================== collate
Point = collections.namedtuple("Point", ["x", "y"])


@st.composite
def templates(draw: Any, depth: int = 0) -> Any:
    """The shape of one sample: a leaf kind or a container of templates."""
    leaves = st.sampled_from([("int",), ("float",), ("bool",), ("str",), ("bytes",),
                              ("np_scalar", "float32"), ("np_scalar", "int64"),
                              ("np_scalar", "bool"), ("array", "float64", (2,)),
                              ("array", "int32", (2, 1)), ("array", "uint8", ()),
                              ("tensor", "float32", (3,)), ("tensor", "int64", ()),
                              ("tensor", "bfloat16", (1, 2)), ("tensor", "bool", (2,))])
    if depth >= 2 or draw(st.booleans()):
        return draw(leaves)
    kind = draw(st.sampled_from(["tuple", "list", "dict", "Point"]))
    if kind == "Point":
        return ("Point", draw(templates(depth + 1)), draw(templates(depth + 1)))
    children = draw(st.lists(templates(depth + 1), min_size=1, max_size=3))
    return (kind, *children)


def build(template: Any, lib: Any, k: int) -> Any:
    """Sample ``k`` of ``template`` for ``lib`` (values differ between samples)."""
    kind = template[0]
    if kind == "int":
        return k * 7 - 3
    if kind == "float":
        return k / 4 - 0.5
    if kind == "bool":
        return k % 2 == 0
    if kind == "str":
        return f"s{k}"
    if kind == "bytes":
        return f"b{k}".encode()
    if kind == "np_scalar":
        return np.dtype(template[1]).type(k % 2 if template[1] == "bool" else k + 0.5)
    if kind == "array":
        return np.full(template[2], k + 1, dtype=template[1])
    if kind == "tensor":
        return lib.full(template[2], k % 2 if template[1] == "bool" else k + 1.5,
                        dtype=getattr(lib, template[1]))
    if kind == "Point":
        return Point(build(template[1], lib, k), build(template[2], lib, k))
    children = [build(t, lib, k) for t in template[1:]]
    if kind == "dict":
        return {f"k{i}": c for i, c in enumerate(children)}
    return tuple(children) if kind == "tuple" else children


@given(template=templates(), size=st.integers(1, 4))
def test_default_collate_and_default_convert_of_nested_samples(template, size):
    same_on_both(lambda lib, data: data.default_collate(
        [build(template, lib, k) for k in range(size)]))
    same_on_both(lambda lib, data: data.default_convert(build(template, lib, 0)))


def test_default_collate_errors_for_ragged_and_unknown_input():
    for program in (
        lambda lib, data: data.default_collate([[1, 2], [3]]),
        lambda lib, data: data.default_collate([(1, 2), (3, 4, 5)]),
        lambda lib, data: data.default_collate([lib.zeros(2), lib.zeros(3)]),
        lambda lib, data: data.default_collate([np.zeros(2), np.zeros(3)]),
        lambda lib, data: data.default_collate([np.array(["a"]), np.array(["b"])]),
        lambda lib, data: data.default_collate([object(), object()]),
        lambda lib, data: data.default_collate([None, None]),
        lambda lib, data: data.default_collate([]),
        lambda lib, data: data.default_collate([{"a": 1}, {"b": 2}]),
        lambda lib, data: data.default_collate([1, 2.5]),
        lambda lib, data: data.default_collate([1.5, 2]),
        lambda lib, data: data.default_collate([lib.zeros(2), lib.zeros(2, dtype=lib.int64)]),
    ):
        same_on_both(program)


def test_default_convert_keeps_non_numpy_values_and_string_arrays():
    same_on_both(lambda lib, data: [data.default_convert(x) for x in (
        3, "s", b"b", (np.int8(1), 2.5), [np.zeros(2, np.float16)], {"a": np.ones(1)},
        np.array(["x", "y"]), np.str_("z"), Point(np.float64(1.5), "y"))])


# ==================================================== the DataLoader, no workers
@given(n=st.integers(1, 25), batch_size=st.one_of(st.none(), st.integers(1, 8)),
       shuffle=st.booleans(), drop_last=st.booleans(), seed=seeds, explicit=st.booleans(),
       kind=st.sampled_from(["tensors", "squares", "dicts"]))
def test_dataloader_gives_torchs_batches_epoch_after_epoch(n, batch_size, shuffle, drop_last,
                                                          seed, explicit, kind):
    """Two epochs: every batch, ``len(loader)``, the loader's generator after each epoch and
    the default generator at the end (the base seed is drawn every epoch, workers or not)."""
    if batch_size is None:
        drop_last = False

    def program(lib, data):
        lib.manual_seed(seed)
        g = lib.Generator().manual_seed(seed // 3) if explicit else None
        if kind == "tensors":
            ds = data.TensorDataset(lib.arange(n * 2.0).reshape(n, 2), lib.arange(n))
        elif kind == "squares":
            ds = Squares(n)
        else:
            ds = [{"x": np.float32(i), "name": f"n{i}", "pair": (i, [i, -i])} for i in range(n)]
        loader = data.DataLoader(ds, batch_size=batch_size, shuffle=shuffle,
                                 drop_last=drop_last, generator=g)
        return epochs(loader, g)

    same_on_both(program)


def test_dataloader_with_samplers_batch_samplers_and_collate_fn():
    def program(lib, data):
        g = lib.Generator().manual_seed(11)
        ds = data.TensorDataset(lib.arange(10))
        out = epochs(data.DataLoader(ds, batch_size=3, sampler=data.RandomSampler(
            ds, replacement=True, num_samples=7, generator=g)), g)
        out += epochs(data.DataLoader(ds, batch_sampler=data.BatchSampler(
            data.SubsetRandomSampler([1, 3, 5, 7, 9], generator=g), 2, False)), g)
        out += epochs(data.DataLoader(ds, batch_size=4, collate_fn=lambda b: b, drop_last=True))
        out += epochs(data.DataLoader(ds, batch_size=None, sampler=[4, 2]))
        out += epochs(data.DataLoader(Squares(5), sampler=data.WeightedRandomSampler(
            [1.0, 2.0, 3.0, 0.0, 1.0], 6, generator=g), batch_size=2), g)
        out += epochs(data.DataLoader(Squares(5), batch_sampler=[[0, 1], [4]]))
        return out

    same_on_both(program)


def test_shuffle_with_the_global_seed_moves_with_other_draws():
    """The pitfall: without ``generator=``, a random call before the loop changes the order
    (the base seed and the sampler's seed both come from the default generator)."""
    def program(lib, data):
        orders = []
        for extra in (False, True):
            lib.manual_seed(0)
            if extra:
                lib.rand(1)
            orders.append([b[0].tolist() for b in data.DataLoader(
                data.TensorDataset(lib.arange(8)), batch_size=4, shuffle=True)])
        return orders

    out = same_on_both(program)
    assert out[1][1][0] != out[1][1][1]


@pytest.mark.parametrize("options", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(num_workers=1, prefetch_factor=-1), dict(persistent_workers=True),
    dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], sampler=[0]),
    dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
    dict(multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nope"),
    dict(num_workers=1, multiprocessing_context=3), dict(batch_size=0),
    dict(batch_size=-1), dict(batch_size=1.5), dict(num_workers=4096),
])
def test_dataloader_option_errors(options):
    same_on_both(lambda lib, data: data.DataLoader(Squares(3), **options))


@pytest.mark.parametrize("options", [dict(shuffle=True), dict(sampler=[0]),
                                     dict(batch_sampler=[[0]]), dict(shuffle=False)])
def test_iterable_dataset_refuses_samplers_and_shuffle(options):
    same_on_both(lambda lib, data: epochs(data.DataLoader(make_stream(data, 0, 3), **options)))


def test_attributes_are_frozen_after_construction():
    def program(lib, data):
        loader = data.DataLoader(Squares(3))
        loader.num_workers = 0  # allowed
        loader.batch_size = 2

    same_on_both(program)


@given(n=st.integers(0, 20), batch_size=st.one_of(st.none(), st.integers(1, 6)),
       drop_last=st.booleans(), has_len=st.booleans())
def test_iterable_dataset_batches_and_len(n, batch_size, drop_last, has_len):
    """``len(loader)`` is ``len(dataset)`` over ``batch_size`` (a TypeError without
    ``len``), and asking it makes a warning when more batches come than it said."""
    if batch_size is None:
        drop_last = False

    def program(lib, data):
        stream = make_stream(data, 0, n, length=has_len)
        loader = data.DataLoader(stream, batch_size=batch_size, drop_last=drop_last)
        out: list[Any] = [list(loader)]
        try:
            out.append(len(loader))
        except TypeError as e:
            out.append(str(e).split("'")[0])
        out.append(list(loader))
        return out

    same_on_both(program)


def test_more_batches_than_len_said_warns():
    def program(lib, data):
        class Liar(data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 2

        loader = data.DataLoader(Liar(), batch_size=2)
        return [len(loader), list(loader)]

    same_on_both(program)


def test_pin_memory_without_an_accelerator_warns_and_changes_nothing():
    same_on_both(lambda lib, data: list(data.DataLoader(Squares(3), batch_size=2,
                                                        pin_memory=True)))
    same_on_both(lambda lib, data: list(data.DataLoader(Squares(2), pin_memory=True,
                                                        pin_memory_device="cpu")))



# ============================ the reference's shortcut for a TensorDataset's batches
@contextlib.contextmanager
def gathering(on: bool):
    """The fetcher's route for a ``TensorDataset`` batched by ``default_collate``: one
    ``take`` per tensor (``True``, the reference's) or sample by sample through ``collate``
    (``False``, the student edition's)."""
    from reftensor.utils.data import collate

    saved = collate.GATHER
    collate.GATHER = on
    try:
        yield
    finally:
        collate.GATHER = saved


def gather_case_tensor(lib: Any, n: int, sizes: list[int], perm: list[int], step: int,
                       expand: bool, dtype: str) -> Any:
    """An ``(n, *sizes)`` tensor whose sample dims are laid out in the order ``perm`` (a
    permutation that moves the last dim second gives channels-last-looking samples), every
    ``step``-th row of a longer tensor, or one row expanded to ``n`` (stride 0)."""
    rows = 1 if expand else n * step
    stored = [sizes[p] for p in perm]
    numel = rows * math.prod(stored)
    t = lib.arange(numel).reshape(rows, *stored).to(getattr(lib, dtype))
    t = t.permute(0, *[1 + perm.index(d) for d in range(len(sizes))])
    return t.expand(n, *sizes) if expand else t[::step]


@st.composite
def gather_cases(draw):
    n = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(0, 3), max_size=4))
    perm = draw(st.permutations(range(len(sizes))))
    index = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=8))
    if draw(st.integers(0, 9)) == 0:  # a key out of range: t[i] raises, in both routes
        index[draw(st.integers(0, len(index) - 1))] = draw(st.sampled_from([n, -n - 1]))
    return dict(n=n, sizes=sizes, perm=list(perm), step=draw(st.sampled_from([1, 2])),
                expand=draw(st.booleans()),
                dtype=draw(st.sampled_from(["float32", "float64", "int64", "uint8", "bool",
                                            "float16", "bfloat16"])),
                index=index)


@given(case=gather_cases())
def test_gathered_batches_are_the_sample_by_sample_batches(case):
    """The reference's ``gathered`` and the student edition's route (``t[i]`` per sample,
    then the ``collate`` piece) give torch's batch: values, shape, strides, dtype,
    ``_version``, storage size (or torch's IndexError), on generated layouts: permuted
    sample dims (channels-last-looking ones too), every other row, a row expanded, empty
    and size-1 dims, negative and repeated keys."""
    index = case.pop("index")

    def program(lib, data):
        ds = data.TensorDataset(gather_case_tensor(lib, **case), lib.arange(case["n"]))
        return list(data.DataLoader(ds, batch_sampler=[index]))

    for on in (True, False):
        with gathering(on):
            same_on_both(program)


@given(case=gather_cases())
def test_gathered_batches_in_a_worker_are_collates(case):
    """In a worker ``collate`` stacks into a new tensor (``_version`` 1, contiguous even for
    channels-last-looking samples): ``gathered`` gives the same there."""
    from reftensor.utils.data import fetch, worker_info

    index = case.pop("index")
    ds = reftensor.utils.data.TensorDataset(gather_case_tensor(reftensor, **case),
                                            reftensor.arange(case["n"]))
    saved = worker_info.get_worker_info()
    worker_info.set_worker_info(worker_info.WorkerInfo(id=0, num_workers=1, seed=0, dataset=ds))
    try:
        outcomes = []
        for on in (True, False):
            with gathering(on):
                try:
                    batch = fetch.MapDatasetFetcher(ds, True, reftensor.utils.data.
                                                    default_collate, False).fetch(index)
                    outcomes.append(plain(batch))
                except IndexError as e:
                    outcomes.append(("raised", str(e)))
    finally:
        worker_info.set_worker_info(saved)
    assert outcomes[0] == outcomes[1]


def test_the_student_edition_runs_collate_for_a_tensor_dataset():
    """``collate.GATHER`` is off exactly where ``collate`` is a stub (the student edition);
    off, a loader over a ``TensorDataset`` runs ``collate`` for every batch; on, it does not
    (and neither when the dataset, the collate function or the keys leave the shortcut)."""
    from unittest import mock

    from reftensor import pieces
    from reftensor.utils.data import collate

    data = reftensor.utils.data
    assert collate.GATHER == (not pieces.stubbed(collate.collate))
    ds = data.TensorDataset(reftensor.arange(10.0).reshape(5, 2), reftensor.arange(5))
    for on, loader, calls in (
            (False, data.DataLoader(ds, batch_size=2), 3),
            (True, data.DataLoader(ds, batch_size=2), 0),
            (True, data.DataLoader(data.Subset(ds, range(5)), batch_size=2), 3),
            (True, data.DataLoader(ds, batch_size=2, collate_fn=lambda b: collate.collate(
                b, collate_fn_map=collate.default_collate_fn_map)), 3),
            (True, data.DataLoader(ds, batch_sampler=[(0, 1), [np.int64(2)]]), 2)):
        with gathering(on), mock.patch.object(collate, "collate", wraps=collate.collate) as spy:
            list(loader)
        assert len([c for c in spy.call_args_list if len(c.args[0]) and isinstance(
            c.args[0][0], tuple)]) == calls, (on, loader)


# ============================================================== worker processes
def workers_left() -> list[int]:
    """Pids of this process's children that are still running (zombies excluded)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                found.append(child.pid)
        except psutil.NoSuchProcess:
            pass
    return found


@pytest.fixture
def no_worker_left():
    """Every worker test ends with no worker process alive (and compares tensors without
    ``_version``: see ``plain``)."""
    before = set(workers_left())
    CROSSED[0] = True
    try:
        yield
    finally:
        CROSSED[0] = False
    deadline = time.monotonic() + 10
    collected = False
    while set(workers_left()) - before and time.monotonic() < deadline:
        if not collected and time.monotonic() > deadline - 9.5:
            gc.collect()  # torch's iterator sits in a reference cycle after a worker raised
            collected = True
        time.sleep(0.05)
    assert not set(workers_left()) - before, "a worker process outlived its loader"


class SeedReport:
    """Map-style: sample ``i`` is what the worker that fetches it knows and draws."""

    def __init__(self, lib: Any, data: Any, n: int) -> None:
        self.lib, self.data, self.n = lib, data, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        info = self.data.get_worker_info()
        where = None if info is None else (info.id, info.num_workers, info.seed,
                                           info.dataset is self)
        return {"i": i, "worker": where, "initial_seed": self.lib.initial_seed(),
                "random": random.random(), "numpy": float(np.random.rand()),
                "draw": self.lib.rand(2)}


@pytest.mark.usefixtures("no_worker_left")
@pytest.mark.parametrize("num_workers", [1, 2])
def test_workers_give_torchs_batches_and_seeds(num_workers):
    """Map-style with shuffle and an explicit generator, two epochs: the same batches, each
    worker's seed (``base_seed + id``) as ``initial_seed()`` and ``get_worker_info().seed``,
    Python's and NumPy's draws, a tensor drawn from the worker's default generator."""
    def program(lib, data):
        g = lib.Generator().manual_seed(2024)
        loader = data.DataLoader(SeedReport(lib, data, 7), batch_size=2, shuffle=True,
                                 num_workers=num_workers, generator=g)
        return epochs(loader, g)

    same_on_both(program)


@pytest.mark.usefixtures("no_worker_left")
def test_workers_with_the_global_seed_worker_init_fn_and_no_batching():
    def program(lib, data):
        lib.manual_seed(5)

        def init(worker_id):
            random.seed(100 + worker_id)

        loader = data.DataLoader(SeedReport(lib, data, 5), batch_size=None, num_workers=2,
                                 worker_init_fn=init, prefetch_factor=1)
        return [list(loader), lib.rand(1)]

    same_on_both(program)


@pytest.mark.usefixtures("no_worker_left")
@pytest.mark.parametrize("shard", [False, True])
def test_iterable_dataset_in_two_workers(shard):
    """Without sharding every worker yields the whole stream (duplicates); with sharding by
    ``get_worker_info`` each sample comes once. Batches alternate between workers."""
    def program(lib, data):
        loader = data.DataLoader(make_stream(data, 0, 7, shard=shard), batch_size=2,
                                 num_workers=2)
        return [b.tolist() for b in loader]

    same_on_both(program)


@pytest.mark.usefixtures("no_worker_left")
def test_persistent_workers_keep_their_seeds_across_epochs():
    def program(lib, data):
        g = lib.Generator().manual_seed(9)
        loader = data.DataLoader(SeedReport(lib, data, 4), batch_size=2, shuffle=True,
                                 num_workers=2, persistent_workers=True, generator=g)
        out = epochs(loader, g)
        out.append(make_stream is not None)
        stream = data.DataLoader(make_stream(data, 0, 5, shard=True), batch_size=2,
                                 num_workers=2, persistent_workers=True)
        out += [[b.tolist() for b in stream], [b.tolist() for b in stream]]
        return out

    same_on_both(program)


class SlowFirst:
    """Sample 0 takes 0.3 s: with two workers, batch 1 arrives before batch 0."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        if i == 0:
            time.sleep(0.3)
        return (i, time.monotonic())


@pytest.mark.usefixtures("no_worker_left")
def test_batches_come_out_in_order_when_a_later_one_arrives_first():
    for lib in LIBS:
        batches = list(lib.utils.data.DataLoader(SlowFirst(), batch_size=2, num_workers=2,
                                                 collate_fn=lambda b: b))
        assert [[i for i, _ in b] for b in batches] == [[0, 1], [2, 3]]
        assert batches[1][0][1] < batches[0][1][1], "batch 1 was made before batch 0 ended"


@pytest.mark.usefixtures("no_worker_left")
def test_in_order_false_returns_batches_as_they_arrive():
    for lib in LIBS:
        batches = list(lib.utils.data.DataLoader(SlowFirst(), batch_size=2, num_workers=2,
                                                 collate_fn=lambda b: b, in_order=False))
        assert [[i for i, _ in b] for b in batches] == [[2, 3], [0, 1]]


class Failing:
    """Sample 3 raises (KeyError: torch quotes it specially); sample 5 kills its worker."""

    def __len__(self) -> int:
        return 5

    def __getitem__(self, i: int) -> int:
        if i == 3:
            raise KeyError(f"no sample {i}")
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def _first_and_last_lines(lib: Any, data: Any, shut: bool = True) -> Any:
    """The batches before a worker raises, and the re-raised exception's class and first
    and last lines. ``shut``: end the workers explicitly (torch's iterator is left in a
    reference cycle, and its shutdown from the garbage collector takes 10 s)."""
    it = iter(data.DataLoader(Failing(), batch_size=2, num_workers=2))
    got = []
    try:
        for b in it:
            got.append(b.tolist())
    except Exception as e:  # noqa: BLE001
        lines = _message(e).strip().splitlines()
        return got, type(e).__name__, lines[0], lines[-1]
    finally:
        if shut:
            it._shutdown_workers()
        del it
    return got


@pytest.mark.usefixtures("no_worker_left")
def test_a_workers_exception_is_reraised_naming_the_worker():
    out = same_on_both(lambda lib, data: _first_and_last_lines(lib, data))
    assert "in DataLoader worker process 1" in str(out)


def test_a_workers_exception_leaves_no_process_behind():
    """Without the garbage collector: once the exception is dropped, reftensor's iterator
    is freed and its workers are ended (torch's waits for a collection: its re-raise leaves
    a reference cycle)."""
    gc.collect()
    before = set(workers_left())
    gc.disable()
    try:
        out = _first_and_last_lines(reftensor, reftensor.utils.data, shut=False)
        left = set(workers_left()) - before
    finally:
        gc.enable()
    assert out[1] == "KeyError" and not left


@pytest.mark.usefixtures("no_worker_left")
def test_a_worker_killed_by_a_signal_is_reported_at_once():
    def program(lib, data):
        start = time.monotonic()
        loader = data.DataLoader(Failing(), batch_sampler=[[5], [0], [1]], num_workers=2)
        got = []
        try:
            for b in loader:
                got.append(b.tolist())
        except RuntimeError as e:
            return got, _message(e), _message(e.__cause__), time.monotonic() - start < 4
        return got

    out = same_on_both(program)
    assert "exited unexpectedly" in str(out) and "is killed by signal: Killed" in str(out)


class Sleepy:
    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> int:
        time.sleep(0.6)
        return i


@pytest.mark.usefixtures("no_worker_left")
def test_timeout():
    same_on_both(lambda lib, data: list(data.DataLoader(Sleepy(), num_workers=1,
                                                        timeout=0.2)))


@pytest.mark.usefixtures("no_worker_left")
def test_an_abandoned_iterator_ends_its_workers():
    for lib in LIBS:
        it = iter(lib.utils.data.DataLoader(Squares(20), batch_size=2, num_workers=2))
        next(it)
        assert len(workers_left()) >= 2
        del it  # the no_worker_left fixture checks the rest


def test_an_unpickled_tensor_has_version_one_as_torchs():
    def program(lib, data):
        x = lib.zeros(2)
        for _ in range(3):
            x.add_(1)
        return [pickle.loads(pickle.dumps(t))._version for t in (lib.zeros(2), x)]

    assert same_on_both(program) == ("returned", ("list", [("int", 1), ("int", 1)]))


def test_import_path_and_names_are_torchs():
    names = set(torch.utils.data.__all__) - {
        "DFIterDataPipe", "DataChunk", "DistributedSampler", "IterDataPipe", "MapDataPipe",
        "_DatasetKind", "argument_validation", "functional_datapipe",
        "guaranteed_datapipes_determinism", "non_deterministic", "runtime_validation",
        "runtime_validation_disabled"}
    assert names <= set(reftensor.utils.data.__all__)
    for name in names:
        assert hasattr(reftensor.utils.data, name), name
