"""The trusted re-check: run each exercise's answer in a sandbox and judge it here.

For every exercise, the student's answer cells run in a fresh sandbox (``autograder.judge``)
on the cases of this grading run, and send back plain tagged values over a private file
descriptor. They are compared here with torch's references, which never enter a sandbox.
Lines arrive one per case, so a crash or a hang fails the cases it did not reach and the
exercise it happened in, nothing else. ``Settings`` also carries the switches the test suite
uses to turn one defence off at a time.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import pipeline, sandbox, trusted
from .plain import NotPlain, decode, same
from .references import Raises

__all__ = ["WATCHED", "Settings", "DEFAULTS", "ExerciseVerdict", "make_runtime", "flags_in_source",
           "sandbox_env", "recheck_exercise"]

WATCHED = ["torch", "reftensor"]


@dataclass(frozen=True)
class Settings:
    """Time limits, and the defences. Real grading runs with every defence on; the test
    suite turns one off at a time to show the attack that defence stops."""

    exercise_timeout: float = 30.0  # wall seconds for one exercise's trusted re-check
    cell_timeout: int = 60  # seconds per cell in the notebook's own run
    rebuild: bool = True  # off: the submitted JSON is graded as is, every code cell counts
    sandbox: bool = True  # off: student code runs as a plain process and a plain kernel
    trusted: bool = True  # off: the recorded score is the notebook's own verdict
    fresh_seed: bool = True  # off: the re-check uses the notebook's public default seeds
    plain_data: bool = True  # off: expected values enter the sandbox, compared there with ==
    safe_feedback: bool = True  # off: feedback shows the student's own run as nbgrader left it


DEFAULTS = Settings()  # real grading: every defence on


@dataclass
class ExerciseVerdict:
    name: str
    visible: bool
    hidden: bool
    problem: str | None = None  # crash, timeout, missing function...
    imports: list[str] = field(default_factory=list)
    visible_failure: str | None = None  # the smallest failing fixed case, told the student


# ---------------------------------------------------------------- the runtime a sandbox sees
def make_runtime(folder: Path) -> Path:
    """A read-only copy of the code a sandbox may import: reftensor, and the parts of the
    grader that carry no secrets (no sample class, no solutions, no references)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copytree(pipeline.REPO / "reftensor", folder / "reftensor",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(pipeline.REPO / "autograder", folder / "autograder",
                    ignore=shutil.ignore_patterns("__pycache__", "sample_class", "*.json",
                                                  "nbgrader_config.py"))
    for path in folder.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    os.chmod(folder, 0o755)
    return folder


# ---------------------------------------------------------------- step 2: trusted re-check
def flags_in_source(sources: list[str]) -> set[str]:
    """Modules of WATCHED that the answer cells import or name."""
    found = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Name):
                names = [node.id]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "__import__" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)]
            found |= {n.split(".")[0] for n in names if n.split(".")[0] in WATCHED}
    return found


def _agrees(expected: Any, line: dict[str, Any] | None) -> bool:
    if line is None:
        return False
    if isinstance(expected, Raises):
        return line.get("error") == expected.exception
    if "ok" not in line:
        return False
    try:
        return same(expected, decode(line["ok"]))
    except NotPlain:
        return False


def sandbox_env(runtime: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {"PYTHONPATH": str(runtime), "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env.update(extra or {})
    return env


def recheck_exercise(plan: trusted.ExercisePlan, sources: list[str], runtime: Path,
                     workdir: Path, settings: Settings = Settings()) -> ExerciseVerdict:
    """Run one exercise's cases in a fresh sandbox and judge the returned values here."""
    from .plain import encode

    request: dict[str, Any] = {"sources": sources, "function": plan.name,
                               "cases": [encode(c.args) for c in plan.cases], "watch": WATCHED}
    if not settings.plain_data:  # the classic design: the sandbox gets the answers too
        request["expected"] = [trusted.tag(e) for e in plan.expected]
    read_end, write_end = os.pipe()
    lines: list[str] = []

    def collect() -> None:
        with os.fdopen(read_end, "r", errors="replace") as stream:
            for line in stream:
                if len(lines) < len(plan.cases) + 10:
                    lines.append(line)

    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    argv = [sys.executable, "-m", "autograder.judge", str(write_end)]
    run = sandbox.run if settings.sandbox else _unconfined
    try:
        result = run(argv, workdir=workdir, readable=[runtime],
                     input=json.dumps(request).encode(), timeout=settings.exercise_timeout,
                     env=sandbox_env(runtime), pass_fds=[write_end])
    finally:
        os.close(write_end)
    reader.join(timeout=10)
    by_case: dict[int, dict[str, Any]] = {}
    done: dict[str, Any] | None = None
    for line in lines:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if message.get("event") == "done":
            done = message
        elif isinstance(message.get("case"), int) and message["case"] not in by_case:
            by_case[message["case"]] = message
    if settings.plain_data:
        agree = [_agrees(e, by_case.get(i)) for i, e in enumerate(plan.expected)]
    else:
        agree = [by_case.get(i, {}).get("agree") is True for i in range(len(plan.cases))]
    verdict = ExerciseVerdict(
        plan.name,
        visible=all(agree[i] for i in plan.visible()),
        hidden=all(agree[i] for i in plan.hidden()),
        imports=list(done.get("imports", [])) if done else [],
    )
    failing = [i for i in plan.visible() if not agree[i]]
    if failing:
        verdict.visible_failure = _visible_message(plan, failing[0], by_case.get(failing[0]))
    if result.timed_out:
        verdict.problem = (f"{plan.name}: stopped after {settings.exercise_timeout:.0f} s "
                           "(hang or loop)")
    elif done is None:
        verdict.problem = (f"{plan.name}: the answer killed its sandbox (exit status "
                           f"{result.returncode}) after {len(by_case)} of {len(plan.cases)} "
                           "cases")
    return verdict


def _visible_message(plan: trusted.ExercisePlan, index: int,
                     line: dict[str, Any] | None) -> str:
    """What the student is told about a failing *visible* case, written on the trusted side
    (visible cases are public; nothing of the hidden ones is ever told)."""
    from . import exercises
    from .plain import show

    ex = exercises.get(plan.name)
    case, expected = plan.cases[index], plan.expected[index]
    if line is None:
        got = "no answer (the function crashed, hung or was missing)"
    elif "error" in line:
        got = f"raised {line['error']}"
    else:
        try:
            got = show(decode(line["ok"]))
        except NotPlain:
            got = "a value that is not plain data"
    want = (f"torch raises {expected.exception}" if isinstance(expected, Raises)
            else show(expected))
    return (f"{ex.call_text(case)}\n  truth:    {ex.truth(case)}\n  expected: {want}\n"
            f"  got:      {got}")


def _unconfined(argv: list[str], *, workdir: Path, readable: list[Path], input: bytes,
                timeout: float, env: dict[str, str], pass_fds: list[int]) -> sandbox.Result:
    """The judge as a plain process: for showing what the sandbox prevents (tests only)."""
    import subprocess

    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=workdir, env=dict(os.environ, **env), pass_fds=pass_fds,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(input, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        timed_out = True
    return sandbox.Result(proc.returncode, out, err, timed_out, time.perf_counter() - started)
