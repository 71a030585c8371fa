"""Chapter 7: the solution notebook's answers pass their checks on a fresh seed, typical
mistakes fail them, the references read torch's real objects, the library runs the student's
pieces, and the trusted grading pipeline gives the solutions full points."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest
import torch

from autograder import checks
from autograder.course import exercises
from autograder.course.exercises import ch07_data
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    REPO,
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)

pytestmark = pytest.mark.ch07

CHAPTER = "ch07_data"
NAMES = ["random_indices", "batch_indices", "collate", "worker_seeds", "next_in_order"]
FRESH_SEED = 20261207


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def random_no_unused_draw(n, num_samples, replacement, randperm, randint):
    """Draws the last permutation (or the last randint) only when a key of it is used."""
    if replacement:
        for _ in range(num_samples // 32):
            yield from randint(n, 32)
        if num_samples % 32:
            yield from randint(n, num_samples % 32)
        return
    for _ in range(num_samples // n):
        yield from randperm(n)
    if num_samples % n:
        yield from randperm(n)[:num_samples % n]


def random_all_at_once(n, num_samples, replacement, randperm, randint):
    """Draws the whole epoch before yielding anything (a list, not a generator)."""
    return list(RIGHT["random_indices"](n, num_samples, replacement, randperm, randint))


def random_one_permutation(n, num_samples, replacement, randperm, randint):
    """Cuts one permutation to num_samples (too few keys when num_samples > n)."""
    if replacement:
        yield from RIGHT["random_indices"](n, num_samples, replacement, randperm, randint)
        return
    yield from randperm(n)[:num_samples]


def random_one_randint(n, num_samples, replacement, randperm, randint):
    """Draws every key with replacement in one randint."""
    if replacement:
        yield from randint(n, num_samples)
        return
    yield from RIGHT["random_indices"](n, num_samples, replacement, randperm, randint)


def random_empty_dataset_gives_nothing(n, num_samples, replacement, randperm, randint):
    """Yields nothing for an empty dataset instead of raising as torch does."""
    if n == 0:
        return
    yield from RIGHT["random_indices"](n, num_samples, replacement, randperm, randint)


def batch_ignoring_drop_last(keys, batch_size, drop_last):
    """Yields a short last batch even with drop_last."""
    return RIGHT["batch_indices"](keys, batch_size, False)


def batch_empty_last(keys, batch_size, drop_last):
    """Yields the last batch whatever its length, an empty one included."""
    current = []
    for key in keys:
        current.append(key)
        if len(current) == batch_size:
            yield current
            current = []
    if not drop_last or len(current) == batch_size:
        yield current


def batch_all_keys_first(keys, batch_size, drop_last):
    """Takes every key before making the first batch (an endless sampler never ends)."""
    everything = list(keys)
    return RIGHT["batch_indices"](iter(everything), batch_size, drop_last)


def batch_one_key_ahead(keys, batch_size, drop_last):
    """Takes the next key before yielding the batch it completes."""
    current = []
    for key in keys:
        if len(current) == batch_size:
            yield current
            current = []
        current.append(key)
    if current and (len(current) == batch_size or not drop_last):
        yield current


def batch_one_list_reused(keys, batch_size, drop_last):
    """Empties and refills one list instead of making a new one per batch."""
    current: list = []
    for key in keys:
        current.append(key)
        if len(current) == batch_size:
            yield current
            current.clear()
    if current and not drop_last:
        yield current


def _collate_with(batch, collate_fn_map, *, tuple_kept=False, table_last=False,
                  no_length_check=False, plain_dicts=False, no_fallback=False, lists=False):
    import collections.abc

    from reftensor.utils.data.collate import default_collate_err_msg_format

    def again(parts):
        return _collate_with(parts, collate_fn_map, tuple_kept=tuple_kept,
                             table_last=table_last, no_length_check=no_length_check,
                             plain_dicts=plain_dicts, no_fallback=no_fallback, lists=lists)

    first = batch[0]
    table = collate_fn_map or {}

    def leaf():
        if type(first) in table:
            return table[type(first)]
        return next((table[k] for k in table if isinstance(first, k)), None)

    if not table_last and leaf() is not None:
        return leaf()(batch, collate_fn_map=collate_fn_map)
    if isinstance(first, collections.abc.Mapping):
        values = {key: again([d[key] for d in batch]) for key in first}
        if plain_dicts:
            return values
        if isinstance(first, collections.abc.MutableMapping):
            result = copy.copy(first)
            result.update(values)
            return result
        try:
            return type(first)(values)
        except TypeError:
            return values
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*[again(list(c) if lists else c) for c in zip(*batch, strict=False)])
    if isinstance(first, collections.abc.Sequence) and not (
            table_last and leaf() is not None):
        if not no_length_check and any(len(s) != len(first) for s in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [again(list(c) if lists else c) for c in zip(*batch, strict=False)]
        if isinstance(first, tuple):
            return tuple(columns) if tuple_kept else columns
        if isinstance(first, list):
            return columns
        if no_fallback:
            return type(first)(columns)
        try:
            return type(first)(columns)
        except TypeError:
            return columns
    if table_last and leaf() is not None:
        return leaf()(batch, collate_fn_map=collate_fn_map)
    raise TypeError(default_collate_err_msg_format.format(type(first)))


def collate_tuple_stays_tuple(batch, *, collate_fn_map=None):
    """Gives a tuple for tuples (torch gives a list)."""
    return _collate_with(batch, collate_fn_map, tuple_kept=True)


def collate_structure_before_table(batch, *, collate_fn_map=None):
    """Looks at mappings, named tuples and sequences before the table."""
    return _collate_with(batch, collate_fn_map, table_last=True)


def collate_without_length_check(batch, *, collate_fn_map=None):
    """Lets zip cut ragged sequences to the shortest."""
    return _collate_with(batch, collate_fn_map, no_length_check=True)


def collate_plain_dicts(batch, *, collate_fn_map=None):
    """Gives a plain dict for every mapping."""
    return _collate_with(batch, collate_fn_map, plain_dicts=True)


def collate_without_fallback(batch, *, collate_fn_map=None):
    """Builds type(elem)(items) for every other sequence, without the TypeError fallback."""
    return _collate_with(batch, collate_fn_map, no_fallback=True)


def collate_columns_as_lists(batch, *, collate_fn_map=None):
    """Hands each column on as a list instead of the tuple zip gives (strings come back as a
    list where torch gives a tuple)."""
    return _collate_with(batch, collate_fn_map, lists=True)


def seeds_all_alike(base_seed, worker_id):
    """Gives every worker the base seed itself (the pitfall the seeding avoids)."""
    return base_seed, RIGHT["worker_seeds"](base_seed, worker_id)[1]


def seeds_low_half_only(base_seed, worker_id):
    """Takes only the low 32 bits of the base seed into the entropy."""
    seed, _ = RIGHT["worker_seeds"](base_seed, worker_id)
    return seed, RIGHT["worker_seeds"](base_seed & 0xFFFFFFFF, worker_id)[1]


def _seeds(base_seed, worker_id, *, fresh_multiplier=False, swapped_mix=False):
    bits = 0xFFFFFFFF
    state = {"m": 0x43B0D7E5}

    def hashed(value):
        if fresh_multiplier:
            state["m"] = 0x43B0D7E5
        value = (value ^ state["m"]) & bits
        state["m"] = (state["m"] * 0x931E8875) & bits
        value = (value * state["m"]) & bits
        return value ^ (value >> 16)

    def mixed(x, y):
        r = (0xCA01F9DD * x - 0x4973F715 * y) & bits
        return r ^ (r >> 16)

    pool = [hashed(v) for v in (worker_id, base_seed & bits, base_seed >> 32, 0)]
    for s in range(4):
        for d in range(4):
            if d != s:
                pool[d] = (mixed(hashed(pool[s]), pool[d]) if swapped_mix
                           else mixed(pool[d], hashed(pool[s])))
    constant, words = 0x8B51F9DD, []
    for word in pool:
        word ^= constant
        constant = (constant * 0x58F38DED) & bits
        word = (word * constant) & bits
        words.append(word ^ (word >> 16))
    return base_seed + worker_id, words


def seeds_multiplier_per_hash(base_seed, worker_id):
    """Starts every hash from the first multiplier."""
    return _seeds(base_seed, worker_id, fresh_multiplier=True)


def seeds_mix_swapped(base_seed, worker_id):
    """Mixes the source's hash with the destination (the arguments swapped)."""
    return _seeds(base_seed, worker_id, swapped_mix=True)


def order_as_they_arrive(it):
    """Hands every result out as it arrives, whatever _in_order says."""
    keep = it._in_order
    it._in_order = False
    try:
        return RIGHT["next_in_order"](it)
    finally:
        it._in_order = keep


def order_never_skips(it):
    """Waits for every task sent, even those of a worker whose stream has ended."""
    while True:
        if it._rcvd_idx >= it._send_idx:
            return None
        waiting = it._task_info[it._rcvd_idx]
        if len(waiting) == 2:
            del it._task_info[it._rcvd_idx]
            it._rcvd_idx += 1
            return waiting
        result = it._receive()
        if result is None:
            continue
        task, data = result
        if task == it._rcvd_idx:
            del it._task_info[task]
            it._rcvd_idx += 1
            return waiting[0], data
        it._task_info[task] = (it._task_info[task][0], data)


def order_drops_early_results(it):
    """Throws an early result away instead of keeping it for its turn."""
    while True:
        while it._rcvd_idx < it._send_idx:
            waiting = it._task_info.get(it._rcvd_idx)
            if waiting is not None and (len(waiting) == 2 or it._workers_status[waiting[0]]):
                break
            it._task_info.pop(it._rcvd_idx, None)
            it._rcvd_idx += 1
        else:
            return None
        result = it._receive()
        if result is None:
            continue
        task, data = result
        worker = it._task_info.pop(task)[0]
        if task == it._rcvd_idx:
            it._rcvd_idx += 1
            return worker, data


WRONG = [  # (exercise, answer, whether it still passes the visible test)
    ("random_indices", random_no_unused_draw, False),
    ("random_indices", random_all_at_once, False),
    ("random_indices", random_one_permutation, False),
    ("random_indices", random_one_randint, False),
    ("random_indices", random_empty_dataset_gives_nothing, True),
    ("batch_indices", batch_ignoring_drop_last, False),
    ("batch_indices", batch_empty_last, False),
    ("batch_indices", batch_all_keys_first, False),
    ("batch_indices", batch_one_key_ahead, False),
    ("batch_indices", batch_one_list_reused, False),
    ("collate", collate_tuple_stays_tuple, False),
    ("collate", collate_structure_before_table, False),
    ("collate", collate_without_length_check, False),
    ("collate", collate_plain_dicts, False),
    ("collate", collate_without_fallback, True),
    ("collate", collate_columns_as_lists, False),
    ("worker_seeds", seeds_all_alike, False),
    ("worker_seeds", seeds_low_half_only, False),
    ("worker_seeds", seeds_multiplier_per_hash, False),
    ("worker_seeds", seeds_mix_swapped, False),
    ("next_in_order", order_as_they_arrive, False),
    ("next_in_order", order_never_skips, False),
    ("next_in_order", order_drops_early_results, False),
]


# ---------------------------------------------------------------- the checks
@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED, 50)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


def test_hidden_cases_are_deterministic_and_reach_the_errors():
    """Each exercise's hidden cases are the default seed's, hold its fixed cases, and reach
    the errors torch raises (logged as ("raises", ...) by the checks)."""
    errors = {"random_indices": 2, "collate": 10}
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
        assert set(exercises.get(name).fixed) <= set(cases)
        raised = sum("'raises'" in repr(expected) for _, expected in pairs)
        assert raised >= errors.get(name, 0), (name, raised)
        assert raised <= len(cases) // 2, name


def test_the_reference_pieces_get_full_marks():
    """reftensor's own bodies are right answers on every hidden case (the default seed's and
    a fresh one's): the library and the exercises say the same."""
    from reftensor.utils.data.collate import collate
    from reftensor.utils.data.multiprocess_iter import next_in_order
    from reftensor.utils.data.sampler import batch_indices, random_indices
    from reftensor.utils.data.worker import worker_seeds

    for name, fn in (("random_indices", random_indices), ("batch_indices", batch_indices),
                     ("collate", collate), ("worker_seeds", worker_seeds),
                     ("next_in_order", next_in_order)):
        assert checks.judge(name, fn, hidden_pairs(name)).passed, name
        assert checks.judge(name, fn, hidden_pairs(name, FRESH_SEED)).passed, name


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 32 - 1])
def test_the_plain_generator_draws_torchs_numbers(seed):
    """What random_indices is graded with: the plain generator's randperm and randint give
    torch's, call after call, from the same seed."""
    plain = ch07_data.PlainGenerator(seed)
    g = torch.Generator().manual_seed(seed)
    for n in (1, 2, 5, 33, 100, 1000):
        assert plain.randperm(n) == torch.randperm(n, generator=g).tolist()
        assert plain.randint(n, 32) == torch.randint(n, (32,), generator=g).tolist()
        assert plain.randint(n, 0) == torch.randint(n, (0,), generator=g).tolist()
    with pytest.raises(RuntimeError) as theirs:
        torch.randint(0, (3,), generator=g)
    with pytest.raises(RuntimeError) as ours:
        plain.randint(0, 3)
    assert str(ours.value) == str(theirs.value)


def test_the_order_reference_is_torchs_loader_on_the_simulation():
    """Results that arrive out of order come out in task order; in_order=False hands them
    out as they arrive; a worker whose stream ends has its outstanding tasks skipped."""
    ex = exercises.get("next_in_order")
    found = [ex.reference(c) for c in (ex.fixed[2], ex.fixed[4], ex.fixed[5])]
    assert [data[1] for _, data in found[0][:-1]] == list(range(6))
    assert [data[1] for _, data in found[1][:-1]] != list(range(6))
    assert found[2] == [(0, ("batch", 0, 0)), (1, ("batch", 1, 0)), (0, ("batch", 0, 1)),
                        (0, ("batch", 0, 2)), "end"]


# ---------------------------------------------------------------- the student edition
EDITION_PROGRAM = """
import json
import random

import reftensor
import reftensor.utils.data as data
from reftensor import pieces
from tests.notebooks import register_every_answer
from tests.test_ch07_exercises import (batch_ignoring_drop_last, collate_tuple_stays_tuple,
                                       random_no_unused_draw, seeds_all_alike)

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
register_every_answer()


class Samples(data.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        info = data.get_worker_info()
        return {{"x": (i, float(i) / 2), "seed": -1 if info is None else info.seed,
                 "draw": random.random()}}


def program():
    g = reftensor.Generator().manual_seed(3)
    epochs = []
    for workers in (0, 0, 2):
        loader = data.DataLoader(Samples(), batch_size=4, shuffle=True, drop_last=True,
                                 generator=g, num_workers=workers)
        epochs.append([[type(b["x"]).__name__, b["x"][0].tolist(), b["x"][1].tolist(),
                        b["seed"].tolist() if workers else None] for b in loader])
    return epochs


with pieces.trace() as used:
    right = program()
seen = {{"right": right, "used": sorted(used)}}
for wrong in (random_no_unused_draw, batch_ignoring_drop_last, collate_tuple_stays_tuple,
              seeds_all_alike):
    name = {{"random": "random_indices", "batch": "batch_indices", "collate": "collate",
             "seeds": "worker_seeds"}}[wrong.__name__.split("_")[0]]
    keep = pieces.answer(name)
    wrong.__name__ = name
    pieces.register(wrong)
    try:
        seen[name] = program()
    except Exception as err:  # noqa: BLE001 - a wrong piece may make the program raise
        seen[name] = f"{{type(err).__name__}}: {{err}}"
    pieces.register(keep)
print(json.dumps(seen))
"""


def test_the_student_editions_loader_runs_the_students_pieces(tmp_path):
    """In the student edition an ordinary program (a shuffled loader over dict samples with
    drop_last, two epochs in the main process and one with two worker processes) runs the
    student's pieces; with the instructor's answers it gives the reference's batches, and a
    wrong answer to any one of four of them changes what the loader yields."""
    from autograder.course import edition

    edition.write_student_edition(tmp_path)
    code = EDITION_PROGRAM.format(edition=str(tmp_path / "reftensor"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO)))}
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    reference = subprocess.run(
        [sys.executable, "-P", "-c", code.split("with pieces.trace()")[0].replace(
            "assert reftensor.__file__", "# ") + "print(json.dumps(program()))"],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert reference.returncode == 0, reference.stderr[-3000:]
    assert seen["right"] == json.loads(reference.stdout.strip().splitlines()[-1])
    assert {"random_indices", "batch_indices", "collate", "next_in_order"} <= set(seen["used"])
    for name in ("random_indices", "batch_indices", "collate", "worker_seeds"):
        assert seen[name] != seen["right"], name


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "batch_indices",
                                            batch_empty_last, 20)
