"""Attacks on the grading host (issue 21), graded by the real grader as root, and the measures
that say whether the host came through: every crafted submission ends as recorded, honest
ones keep every point, and the measures below are 0.

The samples (``tests/adversarial/host.py``) are graded in three runs: ``main`` (two workers),
``report`` (strings that may stop a whole batch from writing its report) and ``cross``
(attacks on the runtime and the gradebook, one student at a time, with an honest student
graded between them). After each run, its feedback and its export, the canaries (host files
outside the workspace, the workspace's gradebook, the runtime the sandboxes run) must be as
they were. While grading runs, a watcher polls ``/proc`` and the workspaces for each
student's grading process (its peak memory and lifetime) and for the files kept for it.

The figures are written to ``build/adversarial-host-measures.json``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import secrets
import sqlite3
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from autograder.classroom import demo, feedback
from autograder.course import pipeline
from autograder.course.plain import decode
from autograder.grading import class_run, grade
from autograder.sandbox import bwrap as sandbox
from autograder.sandbox import sanitize
from tests.adversarial import host

pytestmark = [
    pytest.mark.grading,
    pytest.mark.slow,
    pytest.mark.skipif(not sandbox.status().available,
                       reason=f"no sandbox: {sandbox.status().reason}"),
    # the fast tier grades chapter 1 less its demo cells (tests/conftest.py, tests/lean.py)
    pytest.mark.usefixtures("lean_chapter_1"),
]

MEASURES = pipeline.REPO / "build" / "adversarial-host-measures.json"
WORKERS = {"main": 2, "report": 2, "cross": 1}  # cross: in name order, one at a time
BUDGET = 45.0  # seconds per submission: about 9 times an honest chapter-1 submission here
SLACK = 15.0  # for starting and ending a student's process around the budget
MEMORY_LIMIT_MB = 1024  # the grader's own peak while grading one student
DISK_LIMIT_MB = 64  # what may be kept on the host for one student, at any moment
#: the seed of the three grading runs: drawn afresh by each process, and one for all three, so
#: that their cases and torch's answers are computed once (``trusted._exercise_plan``)
SEED = secrets.randbits(63)
LONGEST_FIELD = 32_767  # characters in one report field (a spreadsheet cell's limit)
# controls (C0 but tab, DEL, C1), bidirectional and invisible formatting, lone surrogates
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                    "\ufeff\ud800-\udfff]")
STALLS = ("flood_stall_exercises", "flood_stall_everywhere")
FLOODS = ("flood_prints", "flood_files", "channel_huge_line", "channel_many_lines",
          "flood_stall_everywhere")


#: the share of BUDGET past which a submission is flagged as stalling (the grader's default
#: is half of 120 s). Half of this module's short budget is too close to an honest
#: submission: ``ipython_extensions`` (``%autoreload 2`` checks every module before each
#: cell) counted 23 s of 45 in a fast-tier run on 2 busy cores (CPU 17 s; 19 s more waiting
#: for a CPU, not counted) and 17.6 s alone; the stall that counts least,
#: ``flood_stall_exercises``, counted 33 s alone (2026-12-01). 0.6 is 27 s, between them.
SLOW_FRACTION = 0.6


def settings() -> grade.Settings:
    """The module's short limits (``host.EXERCISE_TIMEOUT``, ``host.CELL_TIMEOUT``) and its
    time budget."""
    return grade.Settings(exercise_timeout=host.EXERCISE_TIMEOUT, cell_timeout=host.CELL_TIMEOUT,
                          submission_budget=BUDGET,
                          slow_fraction=SLOW_FRACTION)


# ---------------------------------------------------------------- watching the host
class Watcher:
    """Polls, while grading runs: each student's grading processes (root processes whose
    stdout is that student's log), their peak memory and lifetime; and the bytes kept in the
    workspaces for each student."""

    PER_STUDENT = ("sandbox", "students", "autograded", "feedback", "archive", "submitted")

    def __init__(self, workspaces: list[Path]) -> None:
        self.workspaces = workspaces
        self.memory_mb: dict[str, float] = {}
        self.alive: dict[str, list[float]] = {}
        self.disk: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Watcher:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)

    def _loop(self) -> None:
        turn = 0
        while not self.stop.is_set():
            try:
                self._processes()
                if turn % 5 == 0:
                    self._files()
            except Exception:  # noqa: BLE001 - a vanished file or process; poll again
                pass
            turn += 1
            time.sleep(0.1)

    def _processes(self) -> None:
        logs = {str(ws / "logs") for ws in self.workspaces}
        now = time.monotonic()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                target = os.readlink(f"/proc/{pid}/fd/1")
                if os.path.dirname(target) not in logs or not target.endswith(".log"):
                    continue
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if fields.get("Uid", "").split()[:1] != ["0"]:
                continue  # a sandboxed process (the kernel) that writes to the log
            student = os.path.basename(target)[:-4]
            peak = int(fields.get("VmHWM", "0 kB").split()[0]) / 1024
            self.memory_mb[student] = max(self.memory_mb.get(student, 0.0), peak)
            seen = self.alive.setdefault(student, [now, now])
            seen[1] = now

    def _files(self) -> None:
        for ws in self.workspaces:
            sizes: dict[str, int] = {}
            for base in self.PER_STUDENT:
                folder = ws / base
                if folder.is_dir():
                    for entry in os.scandir(folder):
                        sizes[entry.name] = sizes.get(entry.name, 0) + _size(Path(entry.path))
            logs = ws / "logs"
            if logs.is_dir():
                for entry in os.scandir(logs):
                    name = entry.name[:-4] if entry.name.endswith(".log") else entry.name
                    sizes[name] = sizes.get(name, 0) + _size(Path(entry.path))
            for student, size in sizes.items():
                self.disk[student] = max(self.disk.get(student, 0), size)


def _size(path: Path) -> int:
    """Bytes a file or folder takes on disk, links not followed."""
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    total = info.st_blocks * 512
    if stat.S_ISDIR(info.st_mode):
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512
                except OSError:
                    pass
    return total


# ---------------------------------------------------------------- grading the samples
def _check_canaries(canaries: host.Canaries, before: dict[str, Any], when: str,
                    changes: list[str]) -> None:
    """Record each canary that changed since it was last looked at (``before`` is updated, so
    a change is counted once, by the step that made it)."""
    for label, path in canaries.files().items():
        now = host.fingerprint(path)
        if now != before[label]:
            changes.append(f"{label} changed {when}: {before[label]} -> {now}")
            before[label] = now


def _grade_run(run: str, ws: Path, inbox: Path, canaries: host.Canaries,
               before: dict[str, Any], result: dict[str, Any]) -> list[grade.Outcome]:
    """One ``grade_class`` run, then its feedback and export, with every canary checked after
    each. Outcomes are also taken as each student's grading process returns them, so that a
    batch that stops half-way still tells what it decided for each student."""
    errors, changes = result["errors"], result["changes"]
    seen: dict[str, Any] = {"graded": [], "report": None}
    real_prepare = grade.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        ctx = real_prepare(*args, **kwargs)
        seen["runtime"] = Path(ctx.runtime)
        seen["runtime before"] = host.fingerprint(Path(ctx.runtime))
        seen["gradebook before"] = host.fingerprint(ws / "gradebook.db", content=False)
        return ctx

    def runtime_and_gradebook(when: str) -> None:
        if "runtime" not in seen:
            return
        now = host.fingerprint(seen["runtime"])
        if now != seen["runtime before"]:
            changes.append(f"{run}: the runtime {seen['runtime']} changed {when}: "
                           f"{seen['runtime before']} -> {now}")
            seen["runtime before"] = now
        now = host.fingerprint(ws / "gradebook.db", content=False)
        if now != seen["gradebook before"]:
            changes.append(f"{run}: the workspace's gradebook changed {when}: "
                           f"{seen['gradebook before']} -> {now}")
            seen["gradebook before"] = now

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(grade, "prepare", prepare)
        real_student, real_write = grade.grade_in_own_process, class_run.write_report

        def grade_in_own_process(*args: Any, **kwargs: Any) -> Any:
            outcome = real_student(*args, **kwargs)
            seen["graded"].append(outcome)
            return outcome

        def write_report(workspace: Path, chapter: str, outcomes: list, *args: Any,
                         **kwargs: Any) -> Any:
            seen["report"] = list(outcomes)
            return real_write(workspace, chapter, outcomes, *args, **kwargs)

        mp.setattr(grade, "grade_in_own_process", grade_in_own_process)
        mp.setattr(class_run, "write_report", write_report)
        started = time.monotonic()
        try:
            outcomes = class_run.grade_class(ws, inbox, host.CHAPTER, workers=WORKERS[run],
                                         progress=False, settings=settings(), seed=SEED)
        except Exception as err:  # noqa: BLE001 - an aborted run is a measure
            errors.append(f"{run}: grading raised {type(err).__name__}: {str(err)[:300]}")
            outcomes = seen["report"] or seen["graded"]
        result["run seconds"][run] = round(time.monotonic() - started, 1)
    _check_canaries(canaries, before, f"by grading run {run}", changes)
    runtime_and_gradebook("while grading")
    gradebook = ws / "gradebook.db"
    digest = host.fingerprint(gradebook)
    for step, call in (("feedback", lambda: feedback.generate(ws, host.CHAPTER)),
                       ("export", lambda: pipeline.export(ws))):
        try:
            call()
        except Exception as err:  # noqa: BLE001
            errors.append(f"{run}: {step} raised {type(err).__name__}: {str(err)[:300]}")
        _check_canaries(canaries, before, f"by {run}'s {step}", changes)
        runtime_and_gradebook(f"by {step}")
    if host.fingerprint(gradebook) != digest:
        changes.append(f"{run}: feedback or export wrote to the gradebook")
    for name in ("grades.csv", "report.json"):
        if not (ws / name).is_file():
            errors.append(f"{run}: no {name} was written")
    return outcomes


def _match(outcomes: list[grade.Outcome], folders: dict[str, str]) -> dict[str, Any]:
    """kind -> outcome, by folder name; an odd folder name also by the ASCII tag it holds."""
    by_student = {o.student: o for o in outcomes}
    found = {}
    for folder, kind in folders.items():
        if folder in by_student:
            found[kind] = by_student.pop(folder)
    for kind in folders.values():
        if kind in found or kind not in host.FOLDER_NAMES:
            continue
        tag = host.folder_tag(kind)
        for student in list(by_student):
            if tag in student:
                found[kind] = by_student.pop(student)
                break
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory, lean_chapter_1):
    root = tmp_path_factory.mktemp("adversarial-host")
    workspaces = {run: root / f"ws-{run}" for run in host.RUNS}
    canaries = host.Canaries(root / "canaries")
    # where the cross run's gradebook and runtime will be, as grading itself makes them
    ctx = grade.prepare(workspaces["cross"], host.CHAPTER, seed=SEED, settings=settings())
    canaries.aim("cross", workspaces["cross"] / "gradebook.db", Path(ctx.runtime))
    samples = host.samples(canaries, device=os.stat(root).st_dev)
    canaries.make([s.kind for s in samples if s.category == "planting"])
    before = {label: host.fingerprint(path) for label, path in canaries.files().items()}
    folders: dict[str, dict[str, str]] = {run: {} for run in host.RUNS}
    for sample in samples:
        run = host.run_of(sample)
        folders[run][host.write(sample, root / f"inbox-{run}")] = sample.kind

    result: dict[str, Any] = {"errors": [], "changes": [], "run seconds": {}, "outcomes": {},
                              "run of": {s.kind: host.run_of(s) for s in samples}}
    per_run: dict[str, list[grade.Outcome]] = {}
    with Watcher(list(workspaces.values())) as watcher:
        for run in host.RUNS:
            per_run[run] = _grade_run(run, workspaces[run], root / f"inbox-{run}", canaries,
                                      before, result)
            result["outcomes"].update(_match(per_run[run], folders[run]))
    result["leftovers"] = sandbox.escaped_processes()  # others' sandboxes may be running
    result.update(samples={s.kind: s for s in samples}, per_run=per_run, folders=folders,
                  workspaces=workspaces, watcher=watcher, canaries=canaries)
    result["leaks"] = _hidden_inputs_in_feedback(workspaces, folders, per_run)
    result["report problems"] = _report_problems(workspaces, per_run)
    result["private problems"] = _private_problems(workspaces)
    result["gradebook problems"] = _gradebook_problems(workspaces, per_run)
    _write_measures(result)
    return result


# ---------------------------------------------------------------- what the measures look at
def _references(ws: Path) -> dict[str, Any]:
    found = sorted((ws / "private").rglob("references.json"))
    if not found:
        raise AssertionError(f"no references.json under {ws / 'private'}: the hidden inputs "
                             "of this run cannot be checked")
    return json.loads(found[0].read_text())["exercises"]


def _hidden_inputs_in_feedback(workspaces: dict[str, Path],
                               folders: dict[str, dict[str, str]],
                               per_run: dict[str, list[grade.Outcome]]) -> list[tuple[str, ...]]:
    """(kind, exercise, input) for every hidden-only input of the run that appears in what a
    student gets back (feedback page, autograded and submitted notebooks): anywhere when
    written '<repr>' (how the attacks write what they find), and on a 'got:' line as a bare
    repr (an answer that returns the inputs themselves). The one failing drawn input the
    grader itself chose to tell (``Outcome.hidden_failures``) is the exception."""
    from autograder.course import exercises
    from tests.notebooks import readable_text

    leaks = []
    for run, ws in workspaces.items():
        told = {o.student: o.hidden_failures for o in per_run[run]}
        hidden = {}
        for name, data in _references(ws).items():
            cases = [(decode(c["args"]), decode(c["context"])) for c in data["cases"]]
            visible = {repr(args) for args, _ in cases[:data["fixed"]]}
            hidden[name] = {repr(args): exercises.get(name).call_text(exercises.Case(args, ctx))
                            for args, ctx in cases[data["fixed"]:] if repr(args) not in visible}
        for folder, kind in folders[run].items():
            texts = []
            for base in ("feedback", "autograded", "submitted"):
                for path in sorted((ws / base / folder).rglob("*")):
                    if path.is_file():
                        texts.append(readable_text(path))
            text = "\n".join(texts)
            got = "\n".join(line for line in text.splitlines() if "got:" in line)
            for name, calls in hidden.items():
                quoted = told.get(folder, {}).get(name, "")
                for r, call in calls.items():
                    if quoted.startswith(call + "\n"):
                        continue  # the grader's own choice
                    if f"<{r}>" in text or r in got:
                        leaks.append((kind, name, r))
    return leaks


def _unsafe(text: str, where: str, problems: list[str], *, one_field: bool = True) -> None:
    bad = UNSAFE.search(text)
    if bad:
        problems.append(f"{where}: holds {bad.group()!r} ({text[:60]!r}...)")
    if one_field and len(text) > LONGEST_FIELD:
        problems.append(f"{where}: a field of {len(text)} characters")


def _report_problems(workspaces: dict[str, Path],
                     per_run: dict[str, list[grade.Outcome]]) -> list[str]:
    """What is wrong with grades.csv, report.json and the terminal table of each run: not
    written, not UTF-8, raw control or formatting characters, lone surrogates, fields too
    long, or a table line that is not a row, a reason or the header."""
    problems = []
    for run, ws in workspaces.items():
        for name in ("grades.csv", "report.json"):
            path = ws / name
            if not path.is_file():
                problems.append(f"{run}: {name} missing")
                continue
            try:
                text = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError as err:
                problems.append(f"{run}: {name} is not UTF-8 ({err})")
                continue
            if name == "grades.csv":
                for row in csv.reader(io.StringIO(text, newline="")):
                    for value in row:
                        _unsafe(value, f"{run}: grades.csv", problems)
            else:
                _unsafe(text.replace("\n", " "), f"{run}: report.json (raw)", problems,
                        one_field=False)
                for value in _strings(json.loads(text)):
                    _unsafe(value, f"{run}: report.json", problems)
        outcomes = per_run[run]
        try:
            table = demo.table(outcomes)
        except Exception as err:  # noqa: BLE001
            problems.append(f"{run}: the terminal table fails: {type(err).__name__}: {err}"[:300])
            continue
        try:
            table.encode("utf-8")
        except UnicodeEncodeError as err:
            problems.append(f"{run}: the terminal table cannot be printed: {err}"[:300])
        starts = {o.student for o in outcomes}
        for line in table.splitlines()[2:]:
            _unsafe(line, f"{run}: terminal table", problems)
            if not line.startswith(" ") and not any(line.startswith(s) for s in starts):
                problems.append(f"{run}: terminal table line is not a row: {line[:60]!r}")
    return problems


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _private_problems(workspaces: dict[str, Path]) -> list[str]:
    """Anything under a workspace's private/ that is not root's alone (0700 folders, 0600
    files)."""
    problems = []
    for ws in workspaces.values():
        private = ws / "private"
        for path in [private, *sorted(private.rglob("*"))]:
            info = os.lstat(path)
            if info.st_uid != 0 or stat.S_IMODE(info.st_mode) & 0o077:
                problems.append(f"{path.relative_to(ws)}: {stat.filemode(info.st_mode)} "
                                f"uid {info.st_uid}")
    return problems


def _gradebook_problems(workspaces: dict[str, Path],
                        per_run: dict[str, list[grade.Outcome]]) -> list[str]:
    """The class gradebook after grading: a sound SQLite database holding, for every student
    graded, the automatic scores the grader decided."""
    problems = []
    for run, ws in workspaces.items():
        try:
            with sqlite3.connect(f"file:{ws / 'gradebook.db'}?mode=ro", uri=True) as db:
                check = db.execute("pragma integrity_check").fetchone()[0]
                rows = db.execute(
                    "select s.student_id, c.name, g.auto_score from grade g "
                    "join base_cell c on g.cell_id = c.id "
                    "join submitted_notebook n on g.notebook_id = n.id "
                    "join submitted_assignment s on n.assignment_id = s.id").fetchall()
        except sqlite3.Error as err:
            problems.append(f"{run}: the gradebook cannot be read: {err}")
            continue
        if check != "ok":
            problems.append(f"{run}: gradebook integrity check: {check}")
        stored: dict[str, dict[str, Any]] = {}
        for student, name, score in rows:
            stored.setdefault(student, {})[name] = score
        for o in per_run[run]:
            if not sanitize.safe_student_id(o.student):
                continue  # a folder name that is not a student id is never recorded
            mine = {t: stored.get(o.student, {}).get(t) for t in o.scores}
            if mine != o.scores:
                problems.append(f"{run}: {o.student[:40]!r} holds {mine} in the gradebook, "
                                f"the grader decided {o.scores}")
    return problems


def _write_measures(result: dict[str, Any]) -> None:
    samples, outcomes, watcher = result["samples"], result["outcomes"], result["watcher"]
    folder_of = {kind: folder for run in result["folders"].values()
                 for folder, kind in run.items()}
    attacks = [k for k, s in samples.items() if not s.honest]
    honest = [k for k, s in samples.items() if s.honest]

    def memory(kind: str) -> float | None:
        o = outcomes.get(kind)
        figures = [watcher.memory_mb.get(folder_of[kind]),
                   o.peak_rss_mb if o else None]
        figures = [f for f in figures if f is not None]
        return round(max(figures), 1) if figures else None

    def seconds(kind: str) -> float:
        o = outcomes.get(kind)
        alive = watcher.alive.get(folder_of[kind], [0.0, 0.0])
        return round(max(o.seconds if o else 0.0, alive[1] - alive[0]), 1)

    mem = {k: memory(k) for k in samples}
    disk = {k: round(watcher.disk.get(folder_of[k], 0) / 2**20, 1) for k in samples}
    secs = {k: seconds(k) for k in samples}
    measures = {
        "submissions": len(samples),
        "attack kinds": len(attacks),
        "categories": len({s.category for k, s in samples.items() if k in attacks}),
        "honest controls": len(honest),
        "wrongly awarded points": sum(max(0.0, outcomes[k].total - samples[k].total)
                                      for k in attacks if k in outcomes),
        "honest points lost": sum(samples[k].total - (outcomes[k].total if k in outcomes
                                                      else 0.0) for k in honest),
        "aborted runs": len(result["errors"]),
        "submissions without an outcome": len(set(samples) - set(outcomes)),
        "host files changed": len(result["changes"]),
        "hidden inputs in feedback": len(result["leaks"]),
        "surviving processes": len(result["leftovers"]),
        "unflagged stalls": sum(1 for k in STALLS if k not in outcomes
                                or outcomes[k].state != "needs review"
                                or not any("time" in r.lower() for r in outcomes[k].reasons)),
        "unsafe report strings": len(result["report problems"]),
        "private files open to others": len(result["private problems"]),
        "gradebook problems": len(result["gradebook problems"]),
        "students over the time budget": sum(1 for s in secs.values() if s > BUDGET + SLACK),
        "students over the memory limit": sum(1 for m in mem.values()
                                              if m is not None and m > MEMORY_LIMIT_MB),
        "students without a memory figure": sum(1 for m in mem.values() if m is None),
        "students over the disk limit": sum(1 for d in disk.values() if d > DISK_LIMIT_MB),
        "limits": {"budget s": BUDGET, "memory MB": MEMORY_LIMIT_MB, "disk MB": DISK_LIMIT_MB},
        "grader peak memory per student, flooding kinds (MB)": {k: mem[k] for k in FLOODS},
        "grader peak memory per student, median (MB)": sorted(
            m for m in mem.values() if m is not None)[len(mem) // 2] if any(mem.values())
        else None,
        "disk use per student, flooding kinds (MB)": {k: disk[k] for k in FLOODS},
        "disk use per student, largest (MB)": max(disk.values()),
        "worst per-student seconds": max(secs.values()),
        "per-student seconds, stalls": {k: secs[k] for k in STALLS},
        "run seconds": result["run seconds"],
        "details": {
            "errors": result["errors"], "host changes": result["changes"],
            "leaks": [list(x) for x in result["leaks"][:50]],
            "report problems": result["report problems"][:50],
            "private problems": result["private problems"],
            "gradebook problems": result["gradebook problems"][:20],
            "leftovers": result["leftovers"][:20],
            "memory MB": mem, "disk MB": disk, "seconds": secs,
        },
    }
    MEASURES.parent.mkdir(exist_ok=True)
    MEASURES.write_text(json.dumps(measures, indent=1, ensure_ascii=True))
    result["measures"] = measures


ZERO = ("wrongly awarded points", "honest points lost", "aborted runs",
        "submissions without an outcome", "host files changed", "hidden inputs in feedback",
        "surviving processes", "unflagged stalls", "unsafe report strings",
        "private files open to others", "gradebook problems", "students over the time budget",
        "students over the memory limit", "students without a memory figure",
        "students over the disk limit")


# ---------------------------------------------------------------- the tests
def _kinds() -> list[str]:
    placeholder = host.Canaries(Path("/nonexistent/canaries"))
    placeholder.aim("cross", Path("/nonexistent/gradebook.db"), Path("/nonexistent/runtime"))
    return [s.kind for s in host.samples(placeholder)]


def test_the_samples_cover_every_category():
    placeholder = host.Canaries(Path("/nonexistent/canaries"))
    placeholder.aim("cross", Path("/nonexistent/gradebook.db"), Path("/nonexistent/runtime"))
    samples = host.samples(placeholder)
    by_category: dict[str, int] = {}
    for s in samples:
        by_category[s.category] = by_category.get(s.category, 0) + 1
    assert len({s.kind for s in samples}) == len(samples)
    for category in ("planting", "hidden-input extraction", "report-breaking strings",
                     "malformed result channel", "flooding and stalling", "IPython syntax"):
        assert by_category.get(category, 0) >= 3, (category, by_category)
    assert sum(s.honest for s in samples) >= 5


@pytest.mark.parametrize("kind", _kinds())
def test_sample_ends_as_recorded(graded, kind):
    sample, outcome = graded["samples"][kind], graded["outcomes"].get(kind)
    assert outcome is not None, ("no outcome", graded["errors"])
    assert outcome.total == sample.total and outcome.state in sample.state.split("|"), \
        (outcome.total, outcome.state, outcome.reasons)
    if sample.reason:
        assert any(sample.reason in r.lower() for r in outcome.reasons), outcome.reasons
    own = [c for c in graded["changes"] if c.startswith(f"{kind}:")]
    assert not own, own
    leaked = [leak for leak in graded["leaks"] if leak[0] == kind]
    assert not leaked, leaked[:5]


def test_every_measure_is_zero(graded):
    measures = json.loads(MEASURES.read_text())
    nonzero = {key: measures[key] for key in ZERO if measures[key]}
    assert not nonzero, (nonzero, measures["details"]["errors"],
                         measures["details"]["host changes"][:5])


def test_the_host_is_untouched(graded):
    """Canaries, the runtime and the gradebook are as they were after every run, feedback
    and export; the gradebook holds exactly what the grader decided."""
    assert not graded["changes"], graded["changes"][:10]
    assert not graded["gradebook problems"], graded["gradebook problems"][:10]


def test_reports_are_written_and_clean(graded):
    assert not graded["errors"], graded["errors"]
    assert not graded["report problems"], graded["report problems"][:10]


def test_no_hidden_input_reaches_a_student(graded):
    assert not graded["leaks"], graded["leaks"][:10]


def test_private_folder_is_root_only(graded):
    assert not graded["private problems"], graded["private problems"]


def test_time_memory_and_disk_are_bounded(graded):
    measures = graded["measures"]
    details = measures["details"]
    slow = {k: s for k, s in details["seconds"].items() if s > BUDGET + SLACK}
    heavy = {k: m for k, m in details["memory MB"].items() if m is None or m > MEMORY_LIMIT_MB}
    large = {k: d for k, d in details["disk MB"].items() if d > DISK_LIMIT_MB}
    assert not (slow or heavy or large), {"seconds": slow, "memory MB": heavy, "disk MB": large}


def test_stalls_are_flagged(graded):
    for kind in STALLS:
        outcome = graded["outcomes"].get(kind)
        assert outcome is not None and outcome.state == "needs review" and any(
            "time" in r.lower() for r in outcome.reasons), (kind, outcome and outcome.reasons)


def test_no_sandboxed_process_survives(graded):
    assert graded["leftovers"] == []
