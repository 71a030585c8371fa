"""The exercise checks: they pass torch-exact answers, fail every typical mistake with a
readable message, and work from (case, expected) pairs without torch."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from autograder import checks
from autograder.course import exercises, references
from autograder.course.plain import NotPlain, decode, encode, same, to_plain
from reftensor import layout

pytestmark = pytest.mark.ch01

CH01 = ["contiguous_strides", "storage_index", "is_contiguous", "unfold_layout",
        "channels_last_strides"]

RIGHT = {
    "storage_index": layout.storage_index,
    "contiguous_strides": layout.contiguous_strides,
    "is_contiguous": layout.is_contiguous,
    "unfold_layout": layout.unfold_layout,
    "channels_last_strides": layout.channels_last_strides,
}


def unfold_last_stride_one(shape, stride, d, size, step):
    """The 1-d picture taken for the rule: a window walks with stride 1."""
    new_shape, new_stride = list(shape), list(stride)
    new_shape[d] = (shape[d] - size) // step + 1
    new_stride[d] = step * stride[d]
    return (*new_shape, size), (*new_stride, 1)


def unfold_count_off_by_one(shape, stride, d, size, step):
    new_shape, new_stride = list(shape), list(stride)
    new_shape[d] = (shape[d] - size) // step
    new_stride[d] = step * stride[d]
    return (*new_shape, size), (*new_stride, stride[d])


def unfold_step_not_scaled(shape, stride, d, size, step):
    new_shape, new_stride = list(shape), list(stride)
    new_shape[d] = (shape[d] - size) // step + 1
    new_stride[d] = step
    return (*new_shape, size), (*new_stride, stride[d])


def col_major(shape):
    out, step = [], 1
    for n in shape:
        out.append(step)
        step *= max(n, 1)
    return tuple(out)


def no_size1_skip(shape, stride):
    expected = 1
    for n, s in zip(reversed(shape), reversed(stride), strict=True):
        if s != expected and 0 not in shape:
            return False
        expected *= n
    return True


# The catalogue of common mistakes: each one fails the visible test, not only the hidden one
# (the visible cases hold one case per rule the chapter states).
WRONG = [
    ("contiguous_strides", col_major),
    ("contiguous_strides", lambda s: tuple(int(np.prod(s[k + 1:])) for k in range(len(s)))),
    ("contiguous_strides", lambda s: list(layout.contiguous_strides(s))),
    ("storage_index", lambda i, st, off: sum(a * b for a, b in zip(i, st, strict=True))),
    ("storage_index", lambda i, st, off: off + sum(i)),
    ("is_contiguous", no_size1_skip),
    ("is_contiguous", lambda shape, stride: stride == layout.contiguous_strides(shape)),
    ("unfold_layout", unfold_last_stride_one),
    ("unfold_layout", unfold_count_off_by_one),
    ("unfold_layout", unfold_step_not_scaled),
    ("channels_last_strides", lambda s: layout.contiguous_strides(s)),
    ("channels_last_strides",
     lambda s: (s[1] * max(s[2], 1) * max(s[3], 1), 1, s[1] * max(s[3], 1), s[1])),
]


@pytest.mark.parametrize("name", CH01)
def test_torch_exact_answers_pass_visible_and_hidden(name, capsys):
    checks.check(name, RIGHT[name])
    checks.check(name, RIGHT[name], hidden=True)
    assert "agree with torch 2.13.0" in capsys.readouterr().out


@pytest.mark.parametrize("name,answer", WRONG)
def test_typical_mistakes_fail_the_visible_test_and_the_hidden_one(name, answer):
    with pytest.raises(checks.CheckFailed) as failure:
        checks.check(name, answer, hidden=True)
    message = str(failure.value)
    assert "Smallest failing case" in message and "truth:    torch." in message
    assert "expected:" in message and "got:" in message
    with pytest.raises(checks.CheckFailed):
        checks.check(name, answer)


@pytest.mark.parametrize("name", CH01)
def test_unanswered_exercise_raises_not_implemented(name):
    def stub(*args):
        raise NotImplementedError()

    for kwargs in ({}, {"hidden": True}, {"sample": checks.SAMPLE}, {"quick": True}):
        with pytest.raises(NotImplementedError):
            checks.check(name, stub, **kwargs)


def test_a_sample_spreads_over_the_hidden_cases_and_says_how_many(capsys):
    """A notebook's hidden cell checks ``SAMPLE`` hidden cases spread over the set: the first
    fixed case first, some edge cases, some drawn ones; the printed line says how many of
    how many, and an answer wrong only on a case of the sample fails it."""
    everything = checks.cases("contiguous_strides", hidden=True)
    sample = checks.sample_of(everything, checks.SAMPLE)
    assert len(sample) == checks.SAMPLE == len(set(sample))
    assert sample[0] == everything[0] and sample[-1] in everything[len(everything) // 2:]
    assert checks.sample_of(everything[:5], checks.SAMPLE) == everything[:5]
    right = layout.contiguous_strides  # the reference's own
    checks.check("contiguous_strides", right, sample=checks.SAMPLE)
    assert capsys.readouterr().out.startswith(
        f"contiguous_strides: a sample of {checks.SAMPLE} of the {len(everything)} hidden "
        "cases agrees with torch")
    late = next(c.args for c in reversed(sample) if c.args[0])  # a shape of some dims

    def wrong_on_a_drawn_case(shape):
        return (0,) * len(shape) if tuple(shape) == tuple(late[0]) else right(shape)

    with pytest.raises(checks.CheckFailed):
        checks.check("contiguous_strides", wrong_on_a_drawn_case, sample=checks.SAMPLE)


def test_errors_in_answers_are_reported_with_the_case():
    with pytest.raises(checks.CheckFailed, match=r"raised ZeroDivisionError"):
        checks.check("contiguous_strides", lambda shape: 1 // 0)


def test_message_is_short_and_shows_the_smallest_case():
    with pytest.raises(checks.CheckFailed) as failure:
        checks.check("is_contiguous", no_size1_skip, hidden=True)
    lines = str(failure.value).splitlines()
    assert len(lines) == 5
    assert "is_contiguous((1,)" in lines[1] or "is_contiguous((" in lines[1]
    assert len(lines[1]) < 60


@pytest.mark.parametrize("name", CH01)
def test_hidden_cases_are_deterministic_and_cover_hard_layouts(name):
    first, again = checks.cases(name, hidden=True), checks.cases(name, hidden=True)
    assert first == again and len(first) >= 50
    other = checks.cases(name, hidden=True, seed=12345)
    assert other != first
    assert set(exercises.get(name).fixed) <= set(first)


def test_hidden_cases_include_0d_empty_and_size1():
    shapes = [c.args[0] for c in checks.cases("contiguous_strides", hidden=True)]
    assert () in shapes
    assert any(0 in s for s in shapes) and any(1 in s for s in shapes)
    layouts = checks.cases("is_contiguous", hidden=True)
    assert any(0 in c.args[1] for c in layouts)  # stride 0
    index_cases = checks.cases("storage_index", hidden=True)
    assert any(c.args[2] > 0 for c in index_cases)  # storage offsets


@pytest.mark.parametrize("name", CH01)
def test_references_are_torch(name):
    """The expected values come from torch: spot-check against torch called directly."""
    ex = exercises.get(name)
    cases = checks.cases(name)
    expected = references.compute(ex, cases)
    assert expected == [to_plain(ex.reference(c)) for c in cases]
    assert references.torch_version() == torch.__version__.split("+")[0] == "2.13.0"


def test_check_pairs_needs_no_torch():
    """Judging from precomputed pairs runs where torch cannot be imported (issue 3's sandbox)."""
    ex = exercises.get("contiguous_strides")
    cases = checks.cases("contiguous_strides", hidden=True)
    pairs = [[list(c.args), encode(e)] for c, e in zip(cases, references.compute(ex, cases),
                                                        strict=True)]
    program = """
import json, sys
sys.modules["torch"] = None  # any import of torch now fails
from autograder import checks
from autograder.course.exercises import Case
from autograder.course.plain import decode
from reftensor import layout
raw = json.load(sys.stdin)
pairs = [(Case(args=tuple(tuple(a) if isinstance(a, list) else a for a in args)), decode(e))
         for args, e in raw]
verdict = checks.judge("contiguous_strides", layout.contiguous_strides, pairs)
flipped = lambda s: tuple(reversed(layout.contiguous_strides(s)))  # noqa: E731
wrong = checks.judge("contiguous_strides", flipped, pairs)
print(verdict.passed, len(wrong.failures) > 0, verdict.total)
"""
    done = subprocess.run([sys.executable, "-c", program], input=json.dumps(pairs),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", str(len(cases))]


# ---------------------------------------------------------------- plain data
def test_to_plain_refuses_lookalikes():
    Point = collections.namedtuple("Point", "x y")

    class AlwaysEqual:
        def __eq__(self, other):
            return True

    class SneakyInt(int):
        pass

    for bad in (torch.Size([2, 3]), Point(1, 2), AlwaysEqual(), SneakyInt(3),
                np.array([1, 2]), {"a": 1}, (1, AlwaysEqual())):
        with pytest.raises(NotPlain):
            to_plain(bad)
    assert to_plain((np.int64(3), np.bool_(True), np.float32(0.5))) == (3, True, 0.5)
    assert type(to_plain(np.int64(3))) is int and type(to_plain(np.bool_(True))) is bool


def test_same_keeps_types_apart():
    assert same((3, 1), (3, 1))
    assert not same((3, 1), [3, 1])
    assert not same(True, 1) and not same(1, 1.0) and not same((), [])
    assert same(float("nan"), float("nan"))


plain_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple),
    max_leaves=20,
)


@given(plain_values)
def test_encode_decode_round_trip_through_json(value):
    back = decode(json.loads(json.dumps(encode(value))))
    assert same(value, back)


@pytest.mark.parametrize("node", [[1], {"t": "int", "v": "1"}, {"t": "bool", "v": 1},
                                  {"t": "tuple", "v": 3}, {"t": "int"}, {"t": "x", "v": 1}])
def test_decode_rejects_malformed(node):
    with pytest.raises(NotPlain):
        decode(node)


def test_honest_printing_and_warnings_never_reach_the_test_cell(capsys):
    import warnings

    def chatty(shape):
        print("debugging", shape)
        print("to stderr", file=sys.stderr)
        warnings.warn("just a warning", stacklevel=1)
        return layout.contiguous_strides(shape)

    checks.check("contiguous_strides", chatty, hidden=True)
    out, err = capsys.readouterr()
    assert err == "" and "debugging" not in out and "agree with torch" in out


def test_check_from_stored_references_without_torch(tmp_path):
    """How the notebook's own checks run in the grading sandbox: torch blocked, references
    read from a file the grader wrote."""
    from autograder.grading import trusted

    refs = trusted.notebook_references(tmp_path / "refs.json", CH01)
    program = f"""
import os, sys
sys.modules["torch"] = None
os.environ["REFTENSOR_REFERENCES"] = {str(refs)!r}
from autograder import checks
from reftensor import layout
checks.check("storage_index", layout.storage_index)
checks.check("storage_index", layout.storage_index, hidden=True)
try:
    checks.check("storage_index", lambda i, s, o: 0, hidden=True)
except checks.CheckFailed as e:
    print("FAILED AS IT SHOULD")
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "all 92 hidden cases agree" in done.stdout or "hidden cases agree" in done.stdout
    assert "FAILED AS IT SHOULD" in done.stdout


def test_stored_references_are_read_once_per_file_and_again_when_it_changes(tmp_path,
                                                                           monkeypatch):
    """A process parses a references file once (chapter 8's is megabytes: parsed at every
    check call, it cost the sandbox's own run of the chapter 30 s instead of 12), decodes only
    the pairs a check asks for, and reads the file again once it is rewritten."""
    from autograder.grading import trusted
    from reftensor import layout

    refs = trusted.notebook_references(tmp_path / "refs.json", CH01)
    monkeypatch.setenv(checks.REFERENCES_ENV, str(refs))
    loads = []
    real_load = json.load
    monkeypatch.setattr(json, "load", lambda f, **kw: loads.append(f.name) or real_load(f, **kw))
    checks.check("storage_index", layout.storage_index)
    checks.check("storage_index", layout.storage_index, sample=checks.SAMPLE)
    checks.check("contiguous_strides", layout.contiguous_strides, hidden=True)
    assert loads == [str(refs)]
    # a sample decodes only what it checks: the other stored pairs may be anything
    with open(refs) as file:
        data = real_load(file)
    stored = data["pairs"]["storage_index"]
    kept = {id(p) for p in checks.sample_of(stored, 4)}
    data["pairs"]["storage_index"] = [p if id(p) in kept else ["not", "a", "pair"]
                                      for p in stored]
    refs.write_text(json.dumps(data))
    os.utime(refs, ns=(1, 1))  # a file rewritten is another (size, mtime): read again
    checks.check("storage_index", layout.storage_index, sample=4)
    assert loads == [str(refs)] * 2
    # and a rewritten expected value is what the next check compares with
    data["pairs"]["storage_index"][0][2] = trusted.tag(-1)
    refs.write_text(json.dumps(data))
    os.utime(refs, ns=(2, 2))
    with pytest.raises(checks.CheckFailed):
        checks.check("storage_index", layout.storage_index, sample=4)


def test_reduce_loop_cases_give_out_the_inputs_kind_of_values():
    """A drawn ``reduce_loop`` case's out storage holds floats only where the case is float64:
    an empty float input reads as int64 (``_reduce_dtype``), and torch then turns floats in
    out's storage into ints, which no answer could know (a run's fresh seed drew one)."""
    from hypothesis import find, settings
    from hypothesis.errors import NoSuchExample

    from autograder.course.exercises import ch03_broadcasting as ch03

    def floats_in_an_int_out(case) -> bool:
        return ch03._reduce_out_dtype(case) == "int64" and any(
            isinstance(v, float) for v in case.args[1][0])

    with pytest.raises(NoSuchExample):
        find(ch03._reduce_cases(), floats_in_an_int_out,
             settings=settings(max_examples=1000, database=None))
