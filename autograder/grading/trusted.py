"""The trusted side of grading: seeds, cases and torch references for one grading run.

A grading run draws a fresh seed (kept in the workspace's ``private/`` folder, mode 0700,
which no sandbox ever sees), generates every exercise's cases from it, and computes the
expected values with real torch in this process, which never runs student code. The cases
(inputs only) go into sandboxes; the expected values never leave this side.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder import checks
from autograder.course import exercises, references
from autograder.course.exercises import Case
from autograder.course.plain import decode, encode

__all__ = ["ExercisePlan", "RunPlan", "prepare_run", "load_run", "notebook_references"]


@dataclass
class ExercisePlan:
    """One exercise in a run: its cases (fixed ones first) and torch's answers.

    ``notebook`` lists the cases the notebook's own hidden test cell checks (its first fixed
    case and the exercise's public default-seed cases), so that the grader compares the
    notebook's verdict with its own on the same cases: a bug that only freshly drawn inputs
    show is lost points, not a sign of tampering."""

    name: str
    cases: list[Case]
    expected: list[Any]
    fixed: int  # the first `fixed` cases are the visible test's
    notebook: list[int] = field(default_factory=list)

    def visible(self) -> range:
        return range(self.fixed)

    def hidden(self) -> list[int]:
        """The hidden test's cases: its first line (fixed case 0) and every case."""
        return list(range(len(self.cases)))


@dataclass
class RunPlan:
    seed: int
    torch_version: str
    exercises: dict[str, ExercisePlan]
    folder: Path


def tag(expected: Any) -> Any:
    if isinstance(expected, references.Raises):
        return {"raises": expected.exception}
    return {"value": encode(expected)}


def _untag(node: dict[str, Any]) -> Any:
    if "raises" in node:
        return references.Raises(node["raises"])
    return decode(node["value"])


def _write_private(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data))
    os.chmod(path, 0o600)


def prepare_run(folder: Path, names: list[str], seed: int | None = None, *,
                default_seeds: bool = False) -> RunPlan:
    """Draw a seed (unless given), generate cases and compute references into ``folder``.

    ``default_seeds`` uses each exercise's public default seed instead (the cases the
    notebook's own hidden tests use); only the test suite does that, to show why not.
    """
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    seed = secrets.randbits(63) if seed is None else seed
    plans = {name: _exercise_plan(name, None if default_seeds else seed) for name in names}
    plan = RunPlan(seed, references.torch_version(), plans, folder)
    _write_private(folder / "references.json", {
        "torch_version": plan.torch_version,
        "seed": seed,
        "exercises": {
            name: {"fixed": p.fixed, "notebook": p.notebook,
                   "cases": [{"args": encode(c.args), "context": encode(c.context)}
                             for c in p.cases],
                   "expected": [tag(e) for e in p.expected]}
            for name, p in plans.items()
        },
    })
    return plan


_PLANS: dict[tuple[str, int | None], ExercisePlan] = {}


def _exercise_plan(name: str, seed: int | None) -> ExercisePlan:
    """One exercise's cases and torch's answers for ``seed`` (None: its public default
    seed). The same seed gives the same plan, so a process computes each one once (grading
    again with a run's seed, or several runs of the test suite with one seed)."""
    kept = _PLANS.get((name, seed))
    if kept is None:
        ex = exercises.get(name)
        # fixed cases first (the visible test's), then edge and drawn ones, no duplicates
        cases = checks.cases(name, hidden=True, seed=seed)
        # then the notebook's own hidden cases that are not among them
        where = {_key(c): i for i, c in enumerate(cases)}
        notebook = [0]
        for case in checks.cases(name, hidden=True):
            if _key(case) not in where:
                where[_key(case)] = len(cases)
                cases.append(case)
            notebook.append(where[_key(case)])
        kept = _PLANS[name, seed] = ExercisePlan(name, cases, references.compute(ex, cases),
                                                 len(ex.fixed), sorted(set(notebook)))
    return ExercisePlan(kept.name, list(kept.cases), list(kept.expected), kept.fixed,
                        list(kept.notebook))


def _key(case: Case) -> str:
    return json.dumps([encode(case.args), encode(case.context)], sort_keys=True)


def load_run(folder: Path) -> RunPlan:
    """A run prepared earlier (to re-grade with the same seed and references)."""
    data = json.loads((folder / "references.json").read_text())
    plans = {}
    for name, p in data["exercises"].items():
        cases = [Case(decode(c["args"]), decode(c["context"])) for c in p["cases"]]
        plans[name] = ExercisePlan(name, cases, [_untag(e) for e in p["expected"]], p["fixed"],
                                   p.get("notebook", []))
    return RunPlan(data["seed"], data["torch_version"], plans, folder)


def notebook_references(path: Path, names: list[str]) -> Path:
    """References for the notebook's *own* check calls (fixed cases and the default hidden
    seed), for in-notebook feedback inside a sandbox without torch. The recorded score never
    depends on these: it comes from the fresh-seed cases above."""
    data = {}
    for name in names:
        plan = _exercise_plan(name, None)  # the public default-seed cases, fixed ones first
        data[name] = [[encode(plan.cases[i].args), encode(plan.cases[i].context),
                       tag(plan.expected[i])] for i in range(len(plan.cases))]
    path.write_text(json.dumps({"torch_version": references.torch_version(), "pairs": data}))
    return path
