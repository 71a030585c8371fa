"""Chapter 7 exercises: the DataLoader's mechanisms. Every right answer is what torch 2.13 does.

Each exercise is a piece of reftensor's ``utils.data``, graded on plain data and without a
worker process:

* ``random_indices``: given ``randperm`` and ``randint`` that draw from a plain copy of the
  generator ``torch.Generator().manual_seed(seed)`` (chapter 8's mt19937), the keys yielded
  and the draws made, in order, over one or more epochs; the reference runs
  ``torch.utils.data.RandomSampler`` on a real generator and logs its ``torch.randperm`` and
  ``torch.randint`` calls with a ``TorchFunctionMode``;
* ``batch_indices``: the keys taken from a sampler and the batches made, in order; the
  reference runs ``torch.utils.data.BatchSampler`` on the same logging sampler;
* ``collate``: nested samples of plain values (ints, floats, strings, tuples, lists, dicts,
  named tuples, read-only mappings, ranges, unknown objects) with a table of plain leaf
  functions; the reference is torch's ``torch.utils.data._utils.collate.collate`` with the
  same table;
* ``worker_seeds``: the reference reads torch's ``_generate_state`` (what ``_worker_loop``
  seeds NumPy with) and ``base_seed + worker_id`` (what it seeds ``random`` and torch with);
* ``next_in_order``: simulated workers answer in an order the case gives; the reference runs
  torch's own ``_MultiProcessingDataLoaderIter._next_data`` (with its ``_try_put_index``,
  ``_process_data`` and ``_mark_worker_as_unavailable``) on an iterator whose queues are the
  simulation's.

Strategies draw only with ``sampled_from`` (see chapter 5's module for why).
"""

from __future__ import annotations

import collections
import itertools
import random
import types
from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import strategies as st

from .ch08_rng import _seeded_words
from .spec import Case, Exercise, register

CHAPTER = "ch07_data"


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


RAISES = "raises"
#: how many keys or results a check takes at most from an answer (an endless answer stops)
CAP = 400


class TooMany(RuntimeError):
    """An answer asked for more than the case can give."""


# ---------------------------------------------------------------- random_indices
class PlainGenerator:
    """``torch.Generator().manual_seed(seed)`` for ``randperm(k)`` and ``randint(high, size)``
    with ``k`` and ``high`` below 2**28, in plain Python: Python's ``random`` is an mt19937
    too, so it is loaded with the 624 words torch's seed makes and then draws the 32-bit
    numbers torch's generator draws (chapter 8)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random()
        self.rng.setstate((3, (*_seeded_words(seed), 624), None))

    def randperm(self, n: int) -> list[int]:
        perm = list(range(n))
        for i in range(n - 1):
            z = i + self.rng.getrandbits(32) % (n - i)
            perm[i], perm[z] = perm[z], perm[i]
        return perm

    def randint(self, high: int, size: int) -> list[int]:
        if high <= 0:
            raise RuntimeError("random_ expects 'from' to be less than 'to', but got "
                               f"from=0 >= to={high}")
        return [self.rng.getrandbits(32) % high for _ in range(size)]


def _take(iterator: Iterator[Any], take: int | None, log: list) -> None:
    """Take ``take`` items (all when None) from ``iterator`` into ``log``; an error ends the
    epoch as ``("raises", class name)``."""
    try:
        for _ in range(CAP if take is None else take):
            log.append(next(iterator))
    except StopIteration:
        return
    except NotImplementedError:
        raise  # a piece not written yet: the check says which
    except (RuntimeError, ZeroDivisionError) as err:
        log.append((RAISES, type(err).__name__))


def _call_random(answer, case: Case) -> list:
    """How a check calls ``random_indices``: one generator for every epoch; per epoch, the
    answer is called and ``take`` keys are taken (all of them for None). Per epoch: the
    events in order, ``("randperm", k)`` and ``("randint", high, size)`` for each draw and
    each key as an int."""
    n, num_samples, replacement, seed, takes = case.args
    generator = PlainGenerator(seed)
    epochs: list[list] = []

    def randperm(k: int) -> list[int]:
        epochs[-1].append(("randperm", k))
        return generator.randperm(k)

    def randint(high: int, size: int) -> list[int]:
        epochs[-1].append(("randint", high, size))
        return generator.randint(high, size)

    for take in takes:
        epochs.append([])
        keys = answer(n, num_samples, replacement, randperm, randint)
        _take(iter(keys), take, epochs[-1])
    return epochs


def run_random(answer, n, num_samples, replacement, seed, takes) -> list:
    """Run ``answer`` (a ``random_indices``) on a failing case as the check does:
    ``run_random(random_indices, *case)`` gives each epoch's draws and keys."""
    return _call_random(answer, Case(args=(n, num_samples, replacement, seed, takes)))


def _random_reference(c: Case) -> list:
    torch = _torch()
    from torch.overrides import TorchFunctionMode

    n, num_samples, replacement, seed, takes = c.args
    epochs: list[list] = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is torch.randperm:
                epochs[-1].append(("randperm", (*args, kwargs.get("n"))[0]))
            elif func is torch.randint:
                epochs[-1].append(("randint", kwargs["high"], kwargs["size"][0]))
            return func(*args, **kwargs)

    generator = torch.Generator().manual_seed(seed)
    sampler = torch.utils.data.RandomSampler(range(n), replacement=replacement,
                                             num_samples=num_samples, generator=generator)
    with Log():
        for take in takes:
            epochs.append([])
            _take(iter(sampler), take, epochs[-1])
    return epochs


def _random_truth(c: Case) -> str:
    n, num_samples, replacement, seed, takes = c.args
    return (f"g = torch.Generator().manual_seed({seed}); s = torch.utils.data.RandomSampler("
            f"range({n}), replacement={replacement}, num_samples={num_samples}, generator=g); "
            f"for each epoch take {list(takes)!r} keys of iter(s) (None: all), logging each "
            "torch.randperm(k) and torch.randint(high, (size,)) call as it happens")


SIZES = (1, 2, 3, 5, 8, 10, 17, 32, 33)
TAKES = (None, None, None, None, 0, 1, 5, 31, 33)


@st.composite
def _random_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, SIZES + (0,) if _pick(draw, range(12)) == 0 else SIZES)
    replacement = _pick(draw, (False, True))
    options = [n, n, 1, n - 1, n + 1, 2 * n, 3 * n, 31, 32, 33, 64, 65, 100]
    num_samples = _pick(draw, [k for k in options if 1 <= k <= 130])
    takes = tuple(_pick(draw, TAKES) for _ in range(_pick(draw, (1, 2, 2, 3))))
    return Case(args=(n, num_samples, replacement, _pick(draw, (0, 1, 7, 42, 2026)), takes))


register(Exercise(
    name="random_indices",
    chapter=CHAPTER,
    signature="random_indices(n, num_samples, replacement, randperm, randint) -> an iterator "
              "of keys; checked as each epoch's draws and keys (case: n, num_samples, "
              "replacement, seed, keys taken per epoch)",
    fixed=(
        Case(args=(5, 5, False, 0, (None,))),
        Case(args=(5, 3, False, 0, (None, None))),
        Case(args=(5, 12, False, 1, (None,))),
        Case(args=(4, 8, False, 2, (None, None))),     # a last empty permutation, drawn
        Case(args=(6, 10, True, 0, (None,))),
        Case(args=(6, 40, True, 3, (None,))),
        Case(args=(6, 64, True, 3, (None, None))),     # a last draw of no key
        Case(args=(10, 10, False, 4, (3, None))),     # an epoch left early
        Case(args=(10, 70, True, 5, (5, None))),
    ),
    edge=(
        Case(args=(1, 1, False, 0, (None, None))),
        Case(args=(1, 3, True, 0, (None,))),
        Case(args=(0, 4, False, 0, (None,))),
        Case(args=(0, 4, True, 0, (None,))),
        Case(args=(33, 100, True, 7, (0, 33, None))),
        Case(args=(3, 9, False, 42, (None, 2, None))),
    ),
    strategy=_random_cases,
    reference=_random_reference,
    truth=_random_truth,
    hidden_examples=100,
    call=_call_random,
    call_shown="autograder.course.exercises.ch07_data:run_random",
))


# ---------------------------------------------------------------- batch_indices
def _call_batches(answer, case: Case) -> tuple[list, list]:
    """How a check calls ``batch_indices``: on an iterator of the case's keys (repeated
    forever when ``endless``), taking ``take`` batches (all for None). Returns the events in
    order (``("key", k)`` for each key taken from the iterator, ``("batch", batch)`` for each
    batch, copied when it comes) and every batch as it is at the end."""
    keys, endless, batch_size, drop_last, take = case.args
    events: list = []

    def sampler() -> Iterator[Any]:
        for count, key in enumerate(itertools.cycle(keys) if endless else keys):
            if count >= CAP:
                raise TooMany(f"more than {CAP} keys taken")
            events.append(("key", key))
            yield key

    made = []
    batches = iter(answer(sampler(), batch_size, drop_last))
    for _ in range(CAP if take is None else take):
        try:
            batch = next(batches)
        except StopIteration:
            break
        made.append(batch)
        events.append(("batch", batch[:]))
    return events, [batch[:] for batch in made]


def run_batches(answer, keys, endless, batch_size, drop_last, take) -> tuple[list, list]:
    """Run ``answer`` (a ``batch_indices``) on a failing case as the check does."""
    return _call_batches(answer, Case(args=(keys, endless, batch_size, drop_last, take)))


def _batches_reference(c: Case) -> tuple[list, list]:
    torch = _torch()
    keys, endless, batch_size, drop_last, take = c.args

    class Logged:
        def __init__(self) -> None:
            self.events: list = []

        def __iter__(self) -> Iterator[Any]:
            for key in itertools.cycle(keys) if endless else keys:
                self.events.append(("key", key))
                yield key

    sampler = Logged()
    made = []
    batches = iter(torch.utils.data.BatchSampler(sampler, batch_size, drop_last))
    for batch in itertools.islice(batches, take):
        made.append(batch)
        sampler.events.append(("batch", batch[:]))
    return sampler.events, [batch[:] for batch in made]


def _batches_truth(c: Case) -> str:
    keys, endless, batch_size, drop_last, take = c.args
    source = f"itertools.cycle({list(keys)!r})" if endless else repr(list(keys))
    return (f"torch.utils.data.BatchSampler(sampler, {batch_size}, drop_last={drop_last}) "
            f"over a sampler yielding {source}, {'all' if take is None else take} batches "
            "taken: each key the sampler gives and each batch, in order, then the batches")


@st.composite
def _batch_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, range(13))
    keys: tuple = tuple(range(n))
    kind = _pick(draw, ("ints", "ints", "ints", "shuffled", "words", "endless"))
    if kind == "shuffled":
        keys = tuple(sorted(keys, key=lambda k: (k * 7) % 13))
    elif kind == "words":
        keys = tuple("abcdefghijklm"[:n])
    endless = kind == "endless"
    if endless:
        keys = _pick(draw, ((None,), (0, 1, 2)))
    take = _pick(draw, (1, 2, 3)) if endless else _pick(draw, (None, None, None, 0, 1, 2))
    return Case(args=(keys, endless, _pick(draw, (1, 2, 3, 4, 5, 8, 16)),
                      _pick(draw, (False, True)), take))


register(Exercise(
    name="batch_indices",
    chapter=CHAPTER,
    signature="batch_indices(keys, batch_size, drop_last) -> an iterable of lists of keys; "
              "checked as the keys taken and batches made, in order (case: keys, endless, "
              "batch_size, drop_last, batches taken)",
    fixed=(
        Case(args=(tuple(range(10)), False, 3, False, None)),
        Case(args=(tuple(range(10)), False, 3, True, None)),
        Case(args=(tuple(range(8)), False, 4, False, None)),
        Case(args=(tuple(range(8)), False, 4, True, None)),
        Case(args=((3, 0, 4, 1, 2), False, 2, False, None)),
        Case(args=(tuple(range(3)), False, 5, True, None)),
        Case(args=((None,), True, 4, False, 2)),       # an iterable dataset's keys
        Case(args=(tuple(range(10)), False, 3, False, 2)),
    ),
    edge=(
        Case(args=((), False, 2, False, None)),
        Case(args=((), False, 1, True, None)),
        Case(args=(tuple(range(5)), False, 1, True, None)),
        Case(args=(tuple(range(3)), False, 5, False, None)),
        Case(args=(("a", "b", "c"), False, 2, False, None)),
        Case(args=((0, 1, 2), True, 2, True, 3)),
        Case(args=(tuple(range(6)), False, 3, False, 0)),
    ),
    strategy=_batch_cases,
    reference=_batches_reference,
    truth=_batches_truth,
    hidden_examples=100,
    call=_call_batches,
    call_shown="autograder.course.exercises.ch07_data:run_batches",
))


# ---------------------------------------------------------------- collate
class Leaf:
    """What a leaf function of the tests' tables returns: its name, the type of the sequence
    it was given (torch's ``collate_str_fn`` returns that sequence as it is) and its values."""

    def __init__(self, kind: str, values) -> None:
        self.kind = kind
        self.given = type(values).__name__
        self.values = list(values)


def _leaf(kind: str):
    def collate_leaf(batch, *, collate_fn_map=None):
        return Leaf(kind, batch)

    collate_leaf.__name__ = f"collate_{kind}"
    return collate_leaf


#: the tables a case may name (``collate_fn_map``): type or tuple of types -> leaf function
TABLES: dict[str, dict | None] = {
    "leaves": {int: _leaf("ints"), float: _leaf("floats"), str: _leaf("strs")},
    "numbers": {str: _leaf("strs"), (int, float): _leaf("numbers")},
    "tuples": {int: _leaf("ints"), float: _leaf("floats"), str: _leaf("strs"),
               tuple: _leaf("tuples")},
    "none": None,
}

Point = collections.namedtuple("Point", ["x", "y"])


class Record(Mapping):
    """A read-only mapping that cannot be built from a dict (``Record(**fields)``)."""

    def __init__(self, **fields: Any) -> None:
        self._fields = dict(fields)

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


class Opaque:
    """A sample of a type that nothing collates."""

    def __repr__(self) -> str:
        return "Opaque()"


def build(spec) -> Any:
    """The sample a spec describes: ``("int", 3)``, ``("float", 2.5)``, ``("str", "a")``,
    ``("bool", True)``, ``("none",)``, ``("opaque",)``, ``("range", n)``, ``("tuple", specs)``,
    ``("list", specs)``, ``("point", (x, y))``, and mappings of ``(key, spec)`` pairs:
    ``("dict", ...)``, ``("odict", ...)`` (OrderedDict), ``("proxy", ...)``
    (MappingProxyType), ``("record", ...)`` (``Record``)."""
    kind = spec[0]
    if kind in ("int", "float", "str", "bool"):
        return spec[1]
    if kind == "none":
        return None
    if kind == "opaque":
        return Opaque()
    if kind == "range":
        return range(spec[1])
    if kind in ("tuple", "list"):
        items = [build(s) for s in spec[1]]
        return tuple(items) if kind == "tuple" else items
    if kind == "point":
        return Point(*(build(s) for s in spec[1]))
    pairs = {key: build(s) for key, s in spec[1]}
    if kind == "dict":
        return pairs
    if kind == "odict":
        return collections.OrderedDict(pairs)
    if kind == "proxy":
        return types.MappingProxyType(pairs)
    if kind == "record":
        return Record(**pairs)
    raise ValueError(f"unknown spec {spec!r}")


def describe(value: Any) -> Any:
    """A collated batch as plain data: each container with its type's name."""
    if isinstance(value, Leaf):
        return ("leaf", value.kind, value.given, [describe(v) for v in value.values])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return ("namedtuple", type(value).__name__, [describe(v) for v in value])
    if isinstance(value, Mapping):
        return (type(value).__name__, [(k, describe(value[k])) for k in value])
    if type(value) in (list, tuple):
        return (type(value).__name__, [describe(v) for v in value])
    if value is None or type(value) in (int, float, str, bool):
        return value
    return ("object", type(value).__name__, repr(value))


def _call_collate(answer, case: Case):
    """How a check calls ``collate``: on the samples the specs build, with the table the
    case names; the batch as plain data (``describe``), or ``("raises", class name,
    message)`` for a RuntimeError, TypeError, KeyError or IndexError."""
    specs, table = case.args
    batch = [build(spec) for spec in specs]
    try:
        return describe(answer(batch, collate_fn_map=TABLES[table]))
    except NotImplementedError:
        raise  # a piece not written yet: the check says which
    except (RuntimeError, TypeError, KeyError, IndexError) as err:
        return RAISES, type(err).__name__, str(err)


def run_collate(answer, specs, table):
    """Run ``answer`` (a ``collate``) on a failing case as the check does."""
    return _call_collate(answer, Case(args=(specs, table)))


def _collate_reference(c: Case):
    torch = _torch()
    specs, table = c.args
    batch = [build(spec) for spec in specs]
    try:
        return describe(torch.utils.data._utils.collate.collate(
            batch, collate_fn_map=TABLES[table]))
    except (RuntimeError, TypeError, KeyError, IndexError) as err:
        return RAISES, type(err).__name__, str(err)


def _collate_truth(c: Case) -> str:
    specs, table = c.args
    samples = ", ".join(_shown(s) for s in specs)
    return (f"torch.utils.data._utils.collate.collate([{samples}], collate_fn_map={table}) "
            "(see TABLES in autograder.course.exercises.ch07_data)")


def _shown(spec) -> str:
    """A spec as the Python expression of its sample."""
    kind = spec[0]
    if kind in ("int", "float", "str", "bool"):
        return repr(spec[1])
    if kind in ("none", "opaque"):
        return "None" if kind == "none" else "Opaque()"
    if kind == "range":
        return f"range({spec[1]})"
    if kind in ("tuple", "list", "point"):
        inner = ", ".join(_shown(s) for s in spec[1])
        return {"tuple": f"({inner}{',' if len(spec[1]) == 1 else ''})", "list": f"[{inner}]",
                "point": f"Point({inner})"}[kind]
    inner = ", ".join(f"{k!r}: {_shown(s)}" for k, s in spec[1])
    return {"dict": f"{{{inner}}}", "odict": f"OrderedDict({{{inner}}})",
            "proxy": f"MappingProxyType({{{inner}}})",
            "record": "Record(" + ", ".join(f"{k}={_shown(s)}" for k, s in spec[1]) + ")"}[kind]


LEAF_VALUES = {"int": (0, 1, 7, -3), "float": (0.5, 2.0, -1.25), "str": ("a", "b", "cat"),
               "bool": (True, False)}
KEYS = ("x", "label", "id")


@st.composite
def _template(draw: st.DrawFn, depth: int = 0) -> tuple:
    """A sample's shape: a leaf kind, or a container of shapes."""
    leaves = ("int", "int", "float", "str", "bool")
    if depth >= 2 or _pick(draw, range(3)) == 0:
        return ("leaf", _pick(draw, leaves))
    kind = _pick(draw, ("tuple", "tuple", "list", "list", "dict", "dict", "odict", "point",
                        "proxy", "record", "range"))
    if kind == "range":
        return ("range", _pick(draw, (0, 2, 3)))
    if kind == "point":
        return ("point", tuple([draw(_template(depth + 1)) for _ in range(2)]))
    if kind in ("tuple", "list"):
        return (kind, tuple(draw(_template(depth + 1))
                            for _ in range(_pick(draw, (0, 1, 2, 2, 3)))))
    keys = KEYS[:_pick(draw, (1, 2, 2, 3))]
    return (kind, tuple((k, draw(_template(depth + 1))) for k in keys))


def _sample(draw: st.DrawFn, template: tuple) -> tuple:
    kind = template[0]
    if kind == "leaf":
        return (template[1], _pick(draw, LEAF_VALUES[template[1]]))
    if kind == "range":
        return template
    if kind in ("tuple", "list", "point"):
        return (kind, tuple(_sample(draw, t) for t in template[1]))
    return (kind, tuple((k, _sample(draw, t)) for k, t in template[1]))


def _spoil(draw: st.DrawFn, spec: tuple) -> tuple:
    """One sample made unlike the others: a sequence one longer or shorter, a key gone, or a
    leaf of another type, somewhere in it."""
    kind = spec[0]
    if kind in ("tuple", "list") and (not spec[1] or _pick(draw, (0, 1))):
        longer = _pick(draw, (True, False)) or not spec[1]
        return (kind, spec[1] + (("int", 5),) if longer else spec[1][:-1])
    if kind == "range":
        return ("range", spec[1] + 1)
    if kind in ("tuple", "list", "point") and spec[1]:
        i = _pick(draw, range(len(spec[1])))
        return (kind, spec[1][:i] + (_spoil(draw, spec[1][i]),) + spec[1][i + 1:])
    if kind in ("dict", "odict", "proxy", "record") and spec[1]:
        if _pick(draw, (0, 1)):
            return (kind, spec[1][1:])
        i = _pick(draw, range(len(spec[1])))
        key, inner = spec[1][i]
        return (kind, spec[1][:i] + ((key, _spoil(draw, inner)),) + spec[1][i + 1:])
    return _pick(draw, (("opaque",), ("none",), ("float", 0.5), ("str", "z")))


@st.composite
def _collate_cases(draw: st.DrawFn) -> Case:
    template = draw(_template())
    specs = [_sample(draw, template) for _ in range(_pick(draw, (1, 2, 2, 3, 4)))]
    if len(specs) > 1 and _pick(draw, range(5)) == 0:
        i = _pick(draw, range(len(specs)))
        specs[i] = _spoil(draw, specs[i])
    table = _pick(draw, ("leaves", "leaves", "leaves", "numbers", "tuples", "none"))
    if table == "none" and "str" in repr(specs):
        table = "leaves"  # torch recurses into a string without a table, until it overflows
    return Case(args=(tuple(specs), table))


def _c(*specs, table: str = "leaves") -> Case:
    return Case(args=(tuple(specs), table))


_PAIR = ("tuple", (("list", (("int", 1), ("int", 2))), ("int", 0)))
_PAIR2 = ("tuple", (("list", (("int", 3), ("int", 4))), ("int", 1)))

register(Exercise(
    name="collate",
    chapter=CHAPTER,
    signature="collate(batch, *, collate_fn_map=None) -> the batch; checked on samples of "
              "plain values with tables of plain leaf functions (case: sample specs, table)",
    fixed=(
        _c(("int", 1), ("int", 2), ("int", 3)),
        _c(("float", 0.5), ("int", 2)),
        _c(_PAIR, _PAIR2),                                     # a tuple gives a list
        _c(("list", (("int", 1), ("str", "a"))), ("list", (("int", 2), ("str", "b")))),
        _c(("dict", (("x", ("float", 0.5)), ("label", ("int", 1)))),
           ("dict", (("label", ("int", 0)), ("x", ("float", 2.0))))),
        _c(("point", (("int", 1), ("float", 0.5))), ("point", (("int", 2), ("float", 2.0)))),
        _c(("odict", (("id", ("str", "a")),)), ("odict", (("id", ("str", "b")),))),
        _c(("list", (("int", 1), ("int", 2))), ("list", (("int", 3),))),  # ragged
        _c(("opaque",), ("opaque",)),
        _c(("bool", True), ("bool", False)),
        _c(("point", (("int", 1), ("int", 2))), ("point", (("int", 3), ("int", 4))),
           table="tuples"),                                    # the table comes first
        _c(("int", 1), ("float", 2.0), table="numbers"),
    ),
    edge=(
        _c(),
        _c(("list", ()), ("list", ())),
        _c(("range", 2), ("range", 2)),
        _c(("record", (("x", ("int", 1)),)), ("record", (("x", ("int", 2)),))),
        _c(("proxy", (("x", ("int", 1)),)), ("proxy", (("x", ("int", 2)),))),
        _c(("dict", (("x", ("int", 1)),)), ("dict", (("label", ("int", 2)),))),
        _c(("tuple", (("int", 1), ("int", 2))), ("tuple", (("int", 3),))),
        _c(("none",), ("none",)),
        _c(("int", 1), ("int", 2), table="none"),
        _c(("tuple", (("int", 1), ("float", 2.0))), table="none"),
        _c(("dict", (("x", ("opaque",)),)), ("dict", (("x", ("opaque",)),))),
    ),
    strategy=_collate_cases,
    reference=_collate_reference,
    truth=_collate_truth,
    hidden_examples=100,
    call=_call_collate,
    call_shown="autograder.course.exercises.ch07_data:run_collate",
))


# ---------------------------------------------------------------- worker_seeds
BASE_SEEDS = (0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 63 - 1, 5489, 8_675_309,
              3_523_641_223_781_654_091, 7_219_116_455_012_307_455, 4_294_967_296_123)


def _call_seeds(answer, case: Case):
    """How a check calls ``worker_seeds``: ``(seed, words)``, the words as a list."""
    seed, words = answer(*case.args)
    return seed, list(words)


@st.composite
def _seed_cases(draw: st.DrawFn) -> Case:
    return Case(args=(_pick(draw, BASE_SEEDS), _pick(draw, (0, 0, 1, 2, 3, 7, 15))))


def _seeds_reference(c: Case):
    _torch()
    from torch.utils.data._utils.worker import _generate_state

    base_seed, worker_id = c.args
    return base_seed + worker_id, [int(w) for w in _generate_state(base_seed, worker_id)]


def _seeds_truth(c: Case) -> str:
    base_seed, worker_id = c.args
    return (f"(base_seed + worker_id, torch.utils.data._utils.worker._generate_state("
            f"{base_seed}, {worker_id})): the seed torch's _worker_loop gives random.seed and "
            "torch.manual_seed, and the words it gives np.random.seed")


register(Exercise(
    name="worker_seeds",
    chapter=CHAPTER,
    signature="worker_seeds(base_seed, worker_id) -> (seed, [four 32-bit words])",
    fixed=(
        Case(args=(0, 0)),
        Case(args=(0, 1)),
        Case(args=(5489, 0)),
        Case(args=(5489, 3)),
        Case(args=(2 ** 32, 0)),
        Case(args=(3_523_641_223_781_654_091, 2)),
    ),
    edge=(
        Case(args=(2 ** 63 - 1, 0)),
        Case(args=(2 ** 32 - 1, 1)),
        Case(args=(2 ** 32 + 1, 7)),
        Case(args=(1, 15)),
    ),
    strategy=_seed_cases,
    reference=_seeds_reference,
    truth=_seeds_truth,
    hidden_examples=60,
    call=_call_seeds,
))


# ---------------------------------------------------------------- next_in_order
# A case: (kind, workers, prefetch, work, schedule, in_order). kind "map": work is the number
# of tasks (the sampler gives 0, 1, ..., a worker answers task i with ("batch", i)); kind
# "iterable": work is each worker's number of batches (the sampler gives None forever; a
# worker answers with ("batch", worker, j) for its j-th, then announces its end once and
# answers nothing more). schedule: the order workers' results arrive in (see Workers).


class Workers:
    """Simulated workers: an inbox of tasks per worker, answered when the schedule says.

    ``result()`` gives the next result: the schedule's next worker (cycling through the
    schedule) that has a task to answer answers its oldest; when none of the schedule's has,
    the lowest-numbered one that has. A worker stops at ``None`` in its inbox; an iterable
    one that has ended takes tasks and answers none."""

    def __init__(self, kind: str, count: int, work, schedule, stop) -> None:
        self.kind = kind
        self.inboxes: list[list] = [[] for _ in range(count)]
        self.left = list(work) if kind == "iterable" else None
        self.made = [0] * count
        self.ended = [False] * count
        self.stopped = [False] * count
        self.schedule = schedule
        self.turn = 0
        self.stop = stop  # makes an iterable worker's end announcement

    def _answer(self, w: int):
        while self.inboxes[w] and not self.stopped[w]:
            task = self.inboxes[w].pop(0)
            if task is None:
                self.stopped[w] = True
                return None
            if self.ended[w]:
                continue
            idx, index = task
            if self.kind == "map":
                return idx, ("batch", index)
            if self.left[w] == 0:
                self.ended[w] = True
                return idx, self.stop(w)
            self.left[w] -= 1
            self.made[w] += 1
            return idx, ("batch", w, self.made[w] - 1)
        return None

    def result(self):
        order = [self.schedule[(self.turn + k) % len(self.schedule)]
                 for k in range(len(self.schedule))]
        self.turn += 1
        for w in order + list(range(len(self.inboxes))):
            found = self._answer(w)
            if found is not None:
                return found
        raise TooMany("every task sent has been answered: the iterator waits forever")


def _sampler(kind: str, work) -> Iterator[Any]:
    return iter(range(work)) if kind == "map" else itertools.repeat(None)


class PlainIterator:
    """What ``next_in_order`` gets in a check: the bookkeeping of torch's
    ``_MultiProcessingDataLoaderIter`` over simulated workers, and the library's code around
    the piece (``_receive``, then ``_process_data`` and the next task sent)."""

    def __init__(self, kind: str, count: int, prefetch: int, work, schedule,
                 in_order: bool) -> None:
        self._kind = kind
        self._workers = Workers(kind, count, work, schedule, lambda w: ("end", w))
        self._num_workers = count
        self._prefetch_factor = prefetch
        self._in_order = in_order
        self._sampler = _sampler(kind, work)
        self._rcvd_idx = 0
        self._send_idx = 0
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * count
        self._workers_num_tasks = [0] * count
        self._cycle = itertools.cycle(range(count))
        for _ in range(prefetch * count):
            self._try_put_index()

    def _try_put_index(self) -> None:  # torch's, over the simulated inboxes
        max_tasks = self._prefetch_factor * self._num_workers
        index = next(self._sampler, StopIteration)
        if index is StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._cycle)
            if self._workers_status[w] and (
                    self._in_order
                    or self._workers_num_tasks[w] < max_tasks // sum(self._workers_status)):
                break
        else:
            return
        self._workers.inboxes[w].append((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._workers_num_tasks[w] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _receive(self):
        idx, data = self._workers.result()
        self._tasks_outstanding -= 1
        if data[0] == "end":
            self._workers.inboxes[data[1]].append(None)
            self._workers_status[data[1]] = False
            self._try_put_index()
            return None
        return idx, data


def _call_order(answer, case: Case) -> list:
    """How a check calls ``next_in_order``: as the loader's ``next`` does, until it says the
    epoch has ended; each result as ``(worker id, data)``, then ``"end"``."""
    it = PlainIterator(*case.args)
    out: list = []
    for _ in range(CAP):
        found = answer(it)
        if found is None:
            out.append("end")
            break
        worker_id, data = found
        out.append((worker_id, data))
        it._workers_num_tasks[worker_id] -= 1
        it._try_put_index()
    return out


def run_order(answer, kind, workers, prefetch, work, schedule, in_order) -> list:
    """Run ``answer`` (a ``next_in_order``) on a failing case as the check does."""
    return _call_order(answer, Case(args=(kind, workers, prefetch, work, schedule, in_order)))


def _order_reference(c: Case) -> list:
    torch = _torch()
    from torch.utils.data import dataloader
    from torch.utils.data._utils.worker import _IterableDatasetStopIteration

    kind, count, prefetch, work, schedule, in_order = c.args
    out: list = []

    class Inbox:
        def __init__(self, inbox: list) -> None:
            self.inbox = inbox

        def put(self, item) -> None:
            self.inbox.append(item)

    class Done:
        def is_set(self) -> bool:
            return False

    class Simulated(dataloader._MultiProcessingDataLoaderIter):
        def __init__(self) -> None:  # torch's bookkeeping, without processes
            self.workers = Workers(kind, count, work, schedule, _IterableDatasetStopIteration)
            self._sampler_iter = _sampler(kind, work)
            self._dataset_kind = (dataloader._DatasetKind.Map if kind == "map"
                                  else dataloader._DatasetKind.Iterable)
            self._num_workers = count
            self._prefetch_factor = prefetch
            self._in_order = in_order
            self._persistent_workers = False
            self._shutdown = False
            self._workers_done_event = Done()
            self._index_queues = [Inbox(inbox) for inbox in self.workers.inboxes]
            self._send_idx = self._rcvd_idx = self._tasks_outstanding = 0
            self._task_info = {}
            self._workers_status = [True] * count
            self._workers_num_tasks = [0] * count
            self._worker_queue_idx_cycle = itertools.cycle(range(count))
            for _ in range(prefetch * count):
                self._try_put_index()

        def _get_data(self):
            return self.workers.result()

        def _process_data(self, data, worker_idx):
            out.append((worker_idx, data))
            return super()._process_data(data, worker_idx)

        def _shutdown_workers(self) -> None:
            out.append("end")

        def __del__(self) -> None:
            pass

    it = Simulated()
    for _ in range(CAP):
        try:
            it._next_data()
        except StopIteration:
            break
    assert torch is not None
    return out


def _order_truth(c: Case) -> str:
    kind, count, prefetch, work, schedule, in_order = c.args
    what = (f"a map-style dataset, {work} tasks" if kind == "map"
            else f"an iterable dataset whose workers have {list(work)} batches each")
    return (f"torch's _MultiProcessingDataLoaderIter._next_data, called until StopIteration, "
            f"on {what}, {count} simulated workers, prefetch_factor={prefetch}, "
            f"in_order={in_order}, results arriving in the schedule {list(schedule)} "
            "(see Workers in autograder.course.exercises.ch07_data): each (worker id, "
            "data) handed out, then 'end'")


@st.composite
def _order_cases(draw: st.DrawFn) -> Case:
    kind = _pick(draw, ("map", "map", "map", "iterable", "iterable"))
    count = _pick(draw, (1, 2, 2, 3, 3))
    if kind == "map":
        work: Any = _pick(draw, (0, 1, 2, 3, 5, 6, 8, 9))
    else:
        work = tuple(_pick(draw, (0, 1, 2, 3, 4)) for _ in range(count))
    schedule = tuple(_pick(draw, range(count)) for _ in range(_pick(draw, (1, 2, 3, 4, 6))))
    return Case(args=(kind, count, _pick(draw, (1, 2, 2, 3)), work, schedule,
                      _pick(draw, (True, True, True, False))))


register(Exercise(
    name="next_in_order",
    chapter=CHAPTER,
    signature="next_in_order(it) -> (worker id, data), or None at the epoch's end; checked "
              "on simulated workers (case: kind, workers, prefetch_factor, work, schedule, "
              "in_order)",
    fixed=(
        Case(args=("map", 1, 2, 4, (0,), True)),
        Case(args=("map", 2, 2, 6, (0, 1), True)),
        Case(args=("map", 2, 2, 6, (1, 1, 0), True)),        # results arrive out of order
        Case(args=("map", 3, 1, 7, (2, 1, 0), True)),
        Case(args=("map", 2, 2, 6, (1, 1, 0), False)),       # in_order=False
        Case(args=("iterable", 2, 2, (3, 1), (0, 1), True)),  # a worker ends early
        Case(args=("iterable", 2, 2, (2, 2), (1,), True)),
    ),
    edge=(
        Case(args=("map", 2, 2, 0, (0,), True)),
        Case(args=("iterable", 1, 2, (0,), (0,), True)),
        Case(args=("iterable", 3, 2, (0, 4, 0), (0, 2, 1), True)),
        Case(args=("iterable", 2, 1, (2, 0), (1, 0), False)),
        Case(args=("map", 3, 3, 9, (2, 2, 1, 1), False)),
    ),
    strategy=_order_cases,
    reference=_order_reference,
    truth=_order_truth,
    hidden_examples=100,
    call=_call_order,
    call_shown="autograder.course.exercises.ch07_data:run_order",
))
