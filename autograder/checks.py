"""``check``: what a notebook test cell calls to compare an answer with real torch.

    check("contiguous_strides", contiguous_strides)               # visible: fixed cases
    check("contiguous_strides", contiguous_strides, hidden=True)  # hidden: generated cases

A check has three separate steps, so a grader can run them in different processes:

1. :func:`cases` lists inputs (fixed ones, or ones Hypothesis generates from a seed);
2. :func:`autograder.course.references.compute` runs torch on them (needs torch);
3. :func:`judge` calls the answer on each input and compares with the expected value
   (needs no torch): :func:`check_pairs` is steps 3 alone, from (case, expected) pairs.

A failure raises :class:`CheckFailed` naming the smallest failing case, the torch expression
that defines the truth, what torch gives and what the answer gave. ``NotImplementedError``
from an unanswered exercise passes through unchanged.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import tempfile
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Hypothesis keeps a cache directory; keep it out of notebook folders (and releases).
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "reftensor-hypothesis")
)

from hypothesis import HealthCheck, Phase, find, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis.errors import NoSuchExample, Unsatisfiable  # noqa: E402

from autograder.course import exercises  # noqa: E402
from autograder.course.exercises import Case, Exercise  # noqa: E402
from autograder.course.plain import NotPlain, agree, decode, encode, same, show, to_plain  # noqa: E402

#: Set by the grader inside its sandbox (no torch there): a file of precomputed references
#: for the notebook's own check calls, written by
#: ``autograder.grading.trusted.notebook_references``.
REFERENCES_ENV = "REFTENSOR_REFERENCES"

__all__ = ["CheckFailed", "Verdict", "cases", "judge", "check", "check_pairs"]


class CheckFailed(AssertionError):
    """The answer disagrees with torch on at least one case."""


@dataclass
class Failure:
    case: Case
    expected: Any
    got: Any = None
    error: BaseException | None = None


@dataclass
class Verdict:
    """The outcome of judging one answer on a list of cases."""

    exercise: Exercise
    total: int
    failures: list[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def message(self, smallest: Failure | None = None) -> str:
        ex = self.exercise
        worst = smallest or min(self.failures, key=lambda f: f.case.size())
        lines = [
            f"{ex.name} disagrees with torch on {len(self.failures)} of {self.total} cases. "
            "Smallest failing case:",
            f"    {ex.call_text(worst.case)}",
            f"  truth:    {ex.truth(worst.case)}",
            f"  expected: {_describe_expected(worst.expected)}",
        ]
        if worst.error is not None:
            lines.append(f"  got:      raised {type(worst.error).__name__}: {worst.error}")
        else:
            lines.append(f"  got:      {show(worst.got)}{_type_hint(worst.expected, worst.got)}")
            lines += _first_difference(worst.expected, worst.got, close=ex.close)
        return "\n".join(lines)


def _first_difference(expected: Any, got: Any, where: str = "",
                      close: Callable[[Any, Any], bool] | None = None) -> list[str]:
    """For two long lists (or tuples) too long to show whole: a line naming the first place
    they differ (by the exercise's rule, ``close``), inside nested ones too (``index
    [1][227]``), or where a long list has another length (an empty list otherwise)."""
    if not (type(expected) in (list, tuple) and type(got) is type(expected)
            and len(repr(expected)) > 200):
        return []
    if len(expected) != len(got):
        return [f"  {'at index ' + where if where else 'length'}: torch gives "
                f"{len(expected)} values, yours {len(got)}"]
    for k, (e, g) in enumerate(zip(expected, got, strict=True)):
        if not agree(close, e, g):
            place = f"{where}[{k}]" if where or type(e) in (list, tuple) else str(k)
            return _first_difference(e, g, place, close) or [
                f"  first difference at index {place}: torch {show(e)}, yours {show(g)}"]
    return []


def _describe_expected(expected: Any) -> str:
    from autograder.course.references import Raises

    if isinstance(expected, Raises):
        return f"torch raises {expected.exception}"
    return show(expected)


def _loose(value: Any) -> Any:
    """Lists as tuples, bools as ints: the value with its container types forgotten."""
    if type(value) in (list, tuple):
        return tuple(_loose(v) for v in value)
    return int(value) if type(value) is bool else value


def _type_hint(expected: Any, got: Any) -> str:
    if not same(expected, got) and _loose(expected) == _loose(got):
        return (f"  (the same numbers, but torch gives {_type_name(expected)} "
                f"and you gave {_type_name(got)})")
    return ""


def _type_name(value: Any) -> str:
    """``tuple[int, ...]``-style names of plain values, for messages."""
    if type(value) in (list, tuple):
        inner = sorted({_type_name(v) for v in value})
        return f"{type(value).__name__}[{' | '.join(inner)}]" if inner else type(value).__name__
    return type(value).__name__


# ---------------------------------------------------------------- step 1: cases
def default_seed(name: str) -> int:
    """A fixed seed per exercise, so hidden cases are the same on every run."""
    return zlib.crc32(name.encode())


def cases(name: str, *, hidden: bool = False, seed: int | None = None) -> list[Case]:
    """The inputs of a check: the fixed visible cases, or the hidden ones.

    Hidden cases are the fixed and edge cases followed by up to ``hidden_examples`` cases
    that Hypothesis draws from the exercise's strategy with ``seed``; duplicates removed.
    The same seed draws the same cases, so a process draws them once per exercise and seed.
    """
    if not hidden:
        return list(exercises.get(name).fixed)
    return list(_hidden_cases(name, default_seed(name) if seed is None else seed))


@functools.lru_cache(maxsize=512)
def _hidden_cases(name: str, seed: int) -> tuple[Case, ...]:
    ex = exercises.get(name)
    drawn: list[Case] = []

    @settings(max_examples=ex.hidden_examples, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @hypothesis_seed(seed)
    @given(ex.strategy())
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return tuple(dict.fromkeys([*ex.fixed, *ex.edge, *drawn]))


# ---------------------------------------------------------------- step 3: judge
def _run(answer: Callable[..., Any], case: Case,
         call: Callable[[Callable[..., Any], Case], Any] = exercises.spec.call_with_args,
         ) -> tuple[Any, BaseException | None]:
    """Call the answer on one case (through its exercise's ``call``). What it prints or
    warns is swallowed: honest debugging output must never fail a test cell (nbgrader fails
    a cell that writes to stderr)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = call(answer, copy.deepcopy(case))
        return to_plain(value), None
    except NotImplementedError:
        raise
    except NotPlain as exc:
        return None, exc
    except Exception as exc:  # noqa: BLE001 - any error in the answer is a wrong answer
        return None, exc


def _agrees(expected: Any, got: Any, error: BaseException | None,
            close: Callable[[Any, Any], bool] | None = None) -> bool:
    from autograder.course.references import Raises

    if isinstance(expected, Raises):
        return error is not None and type(error).__name__ == expected.exception
    return error is None and agree(close, expected, got)


def judge(name: str, answer: Callable[..., Any], pairs: Sequence[tuple[Case, Any]]) -> Verdict:
    """Call ``answer`` on every case (through the exercise's ``call``) and compare with the
    expected plain value."""
    verdict = Verdict(exercises.get(name), total=len(pairs))
    for case, expected in pairs:
        got, error = _run(answer, case, verdict.exercise.call)
        if not _agrees(expected, got, error, verdict.exercise.close):
            verdict.failures.append(Failure(case, expected, got, error))
    return verdict


def check_pairs(name: str, answer: Callable[..., Any],
                pairs: Sequence[tuple[Case, Any]]) -> Verdict:
    """Judge from precomputed (case, expected) pairs; raise CheckFailed on any failure."""
    verdict = judge(name, answer, pairs)
    if not verdict.passed:
        raise CheckFailed(verdict.message())
    return verdict


# ---------------------------------------------------------------- all three, live
def _shrink(ex: Exercise, answer: Callable[..., Any]) -> Failure | None:
    """Ask Hypothesis for the simplest failing input (live checks only: needs torch)."""
    from autograder.course.references import compute

    def fails(case: Case) -> bool:
        expected = compute(ex, [case])[0]
        got, error = _run(answer, case, ex.call)
        return not _agrees(expected, got, error, ex.close)

    try:
        case = find(ex.strategy(), fails, settings=settings(
            max_examples=200, database=None, deadline=None, derandomize=True,
            suppress_health_check=list(HealthCheck)))
    except (NoSuchExample, Unsatisfiable):
        return None
    expected = compute(ex, [case])[0]
    got, error = _run(answer, case, ex.call)
    return Failure(case, expected, got, error)


#: how many hidden cases a notebook's hidden test cell checks (``check(..., sample=SAMPLE)``)
SAMPLE = 16


def sample_of(items: Sequence[Any], size: int) -> list[Any]:
    """``size`` items spread evenly over ``items`` (all of them when there are fewer), the
    first one included: the fixed and edge cases at the front of a hidden list, and drawn
    ones from the rest."""
    if size >= len(items):
        return list(items)
    return [items[i * len(items) // size] for i in range(size)]


def check(name: str, answer: Callable[..., Any], *, hidden: bool = False,
          sample: int | None = None, quick: bool = False, seed: int | None = None) -> None:
    """Compare ``answer`` with torch; print a one-line summary or raise CheckFailed.

    Args:
        name: the exercise, e.g. ``"contiguous_strides"``.
        answer: the student's function.
        hidden: use the generated hidden cases instead of the fixed visible ones.
        sample: check only this many of the hidden cases, spread over them (:func:`sample_of`;
            the fixed and edge cases first among them): what a notebook's hidden test cell
            runs in a second or two; the grader checks them all, on cases drawn afresh.
        quick: only the first fixed case (what hidden test cells of releases before
            ``sample`` call).
        seed: Hypothesis seed for the hidden cases (default: fixed per exercise).
    """
    ex = exercises.get(name)
    hidden = hidden or sample is not None
    precomputed = os.environ.get(REFERENCES_ENV)
    if precomputed and hidden and seed is None:
        # the stored default-seed hidden cases, in the order ``cases`` draws them: the same
        # inputs, without drawing them again
        stored = _stored_in_order(name, precomputed)
        every = len(stored)
        stored = stored[:1] if quick else sample_of(stored, sample) if sample else stored
        pairs = [(Case(decode(args), decode(context)), _untag(tagged))
                 for args, context, tagged in stored]
    else:
        inputs = cases(name, hidden=hidden, seed=seed)
        every = len(inputs)
        inputs = inputs[:1] if quick else sample_of(inputs, sample) if sample else inputs
        expected = _stored(name, inputs, precomputed) if precomputed else _computed(ex, inputs)
        pairs = list(zip(inputs, expected, strict=True))
    verdict = judge(name, answer, pairs)
    if not verdict.passed:
        smallest = _shrink(ex, answer) if hidden and not precomputed else None
        if smallest is not None and smallest.case.size() >= min(
                f.case.size() for f in verdict.failures):
            smallest = None
        raise CheckFailed(verdict.message(smallest))
    if quick:
        print(f"{name}: the first fixed case agrees with torch {_version()}")
    elif sample and verdict.total < every:
        print(f"{name}: a sample of {verdict.total} of the {every} hidden cases agrees with "
              f"torch {_version()} (the grader checks all of them, drawn afresh)")
    else:
        kind = "hidden" if hidden else "fixed"
        print(f"{name}: all {verdict.total} {kind} cases agree with torch {_version()}")


def _computed(ex: Exercise, inputs: list[Case]) -> list[Any]:
    from autograder.course.references import compute

    return compute(ex, inputs)


def _untag(tagged: dict[str, Any]) -> Any:
    from autograder.course.references import Raises

    return Raises(tagged["raises"]) if "raises" in tagged else decode(tagged["value"])


def _references(path: str) -> tuple[str, dict[str, str]]:
    """A references file (see ``REFERENCES_ENV``): the torch version, and each exercise's
    pairs as JSON text. A process reads the file once (it can hold megabytes: chapter 8's
    generator states); a check parses only its own exercise's pairs, and decodes only the
    ones it checks."""
    info = os.stat(path)
    return _read_references(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=2)
def _read_references(path: str, mtime_ns: int, size: int) -> tuple[str, dict[str, str]]:
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    return str(data["torch_version"]), {name: json.dumps(pairs)
                                       for name, pairs in data["pairs"].items()}


def _stored_in_order(name: str, path: str) -> list[list[Any]]:
    """Every stored ``[args, context, expected]`` of exercise ``name``, encoded, in the
    file's order: for ``trusted.notebook_references``, the default-seed hidden cases."""
    text = _references(path)[1].get(name)
    stored = json.loads(text) if text else None
    if not stored:
        raise RuntimeError(f"no stored reference for {name}")
    return stored


def _stored(name: str, inputs: list[Case], path: str) -> list[Any]:
    """Expected values from a references file (see ``REFERENCES_ENV``)."""
    table = {json.dumps([args, context]): tagged
             for args, context, tagged in json.loads(_references(path)[1].get(name, "[]"))}
    missing = object()
    found = [table.get(json.dumps([encode(c.args), encode(c.context)]), missing)
             for c in inputs]
    if any(f is missing for f in found):
        raise RuntimeError(f"no stored reference for some {name} cases (seed differs?)")
    return [_untag(f) for f in found]


def _version() -> str:
    if os.environ.get(REFERENCES_ENV):
        return _references(os.environ[REFERENCES_ENV])[0]
    from autograder.course.references import torch_version

    return torch_version()
