"""Trustworthy grading of one submission, on top of nbgrader (the class's run that calls it
for every student is ``autograder.grading.class_run``).

For each student, in its own process:

1. **Pre-flight.** The submitted file is archived read-only under its SHA-256, then rebuilt
   from the release plus the student's answer-cell sources (``autograder.grading.rebuild``). Nothing
   else of the submission is used.
2. **Trusted re-check.** For every exercise, the answer cells run in a sandbox
   (``autograder.sandbox.bwrap``: its own unprivileged user, no network, no torch, limits) on inputs
   drawn from this run's secret seed; the sandbox returns plain tagged values and the grader
   compares them here with torch's references, which never enter a sandbox. Each exercise runs
   in its own sandbox, so a crash or a hang fails that exercise only. **This is the score.**
3. **The notebook's own verdict.** nbgrader autogrades the rebuilt notebook in a mini-course
   that lives wholly inside one sandbox (``autograder.grading.own_run``: nbgrader, its
   gradebook copy and the kernel, in the sandbox's scratch memory), with references for the
   notebook's own (fixed-seed) checks; one bounded line of scores comes back over a pipe. The grader
   flags any test cell where this verdict and the trusted one disagree; it never sets a score.
4. **State.** ``graded``, ``needs review`` (with reasons) or ``quarantined`` (with reasons).

``record`` then writes the trusted scores into the workspace's gradebook (the class's run
calls it one student at a time) and writes the feedback-safe notebook (built from trusted
material only); the run audits that no other student's rows or files changed (each sandbox
proves its own pid namespace empty when it ends: other grading runs on the machine are none
of its business). No
privileged process ever opens a path a sandbox could have written: sandboxes write only to a
tmpfs of their own, and what comes back is bounded bytes over pipes.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import math
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.course import pipeline
from autograder.grading import rebuild, trusted
from autograder.grading.recheck import (
    DEFAULTS,
    Channel,
    ChannelError,
    ExerciseVerdict,
    Settings,
    _library,
    _unconfined,
    flags_in_source,
    hidden_failure_message,
    recheck_exercise,
    sandbox_env,
)
from autograder.sandbox import bwrap as sandbox
from autograder.sandbox import sanitize
from autograder.sandbox.runtime import make_runtime
from autograder.sandbox.sanitize import safe_text


# ---------------------------------------------------------------- results
@dataclass
class Outcome:
    """Everything decided about one student's submission."""

    student: str
    chapter: str = ""
    state: str = "graded"  # graded | needs review | quarantined
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)  # trusted, per test cell
    max_scores: dict[str, float] = field(default_factory=dict)
    notebook_scores: dict[str, float | None] = field(default_factory=dict)
    written_answered: bool = False
    written_points: dict[str, float] = field(default_factory=dict)  # graded by hand
    visible_failures: dict[str, str] = field(default_factory=dict)  # exercise -> message
    hidden_failures: dict[str, str] = field(default_factory=dict)  # exercise -> message
    answers: dict[str, str] = field(default_factory=dict)  # grade_id -> rebuilt source
    sha256: str = ""
    seconds: float = 0.0
    # of the seconds, spent in sandboxes: on a CPU, and waiting for a CPU the host's other
    # work held (the time-budget rule does not count the wait: see grade_rebuilt)
    cpu_seconds: float = 0.0
    wait_seconds: float = 0.0
    peak_rss_mb: float = 0.0  # the grading process's own peak memory for this submission
    own_notebook: str | None = None  # the own run's notebook, only with safe_feedback off
    submitted_at: str = ""  # the server's time, from ``collect``'s record (ISO 8601, UTC)
    late: bool | None = None  # past the due date given to ``collect``; None: not known

    @property
    def total(self) -> float:
        return sum(self.scores.values())

    @property
    def max_total(self) -> float:
        return sum(self.max_scores.values())

    def review(self, reason: str) -> None:
        reason = safe_text(reason)
        if reason not in self.reasons:
            self.reasons.append(reason)
        if self.state == "graded":
            self.state = "needs review"


# ---------------------------------------------------------------- the release's layout
@dataclass
class Layout:
    """What the release notebook says: answer cells, test cells and their points."""

    chapter: str
    release: Path
    answers: list[str]  # grade_ids of code answer cells, in order
    written: list[str]  # grade_ids of markdown answer cells
    points: dict[str, float]  # test cell grade_id -> points
    written_points: dict[str, float] = field(default_factory=dict)  # graded by hand

    @classmethod
    def read(cls, release: Path, chapter: str) -> Layout:
        nb = nbformat.read(release, as_version=4)
        answers, written, points, written_points = [], [], {}, {}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                (answers if cell.cell_type == "code" else written).append(meta["grade_id"])
                if cell.cell_type != "code" and meta.get("grade"):
                    written_points[meta["grade_id"]] = float(meta["points"])
            elif meta.get("grade"):
                points[meta["grade_id"]] = float(meta["points"])
        return cls(chapter, release, answers, written, points, written_points)

    def outcome(self, student: str) -> Outcome:
        """A fresh outcome for ``student``: every test at 0 until the re-check says more."""
        return Outcome(student, self.chapter, max_scores=dict(self.points),
                       scores={test: 0.0 for test in self.points},
                       written_points=dict(self.written_points))

    def exercise_of(self, test_id: str) -> tuple[str, str]:
        """``test_storage_index_hidden`` -> (``storage_index``, ``hidden``)."""
        body = test_id.removeprefix("test_")
        name, _, kind = body.rpartition("_")
        return name, kind


# ---------------------------------------------------------------- step 3: notebook verdict
def notebook_verdict(layout: Layout, notebook: nbformat.NotebookNode, student: str,
                     template_db: Path, runtime: Path, notebook_refs: Path,
                     settings: Settings = DEFAULTS, timeout: float | None = None,
                     ) -> tuple[dict[str, float | None], str, str | None]:
    """nbgrader's own scores for the rebuilt notebook, what went wrong ("" if nothing), and
    (only with ``settings.safe_feedback`` off) the notebook as nbgrader left it. nbgrader and
    its kernel run wholly inside one sandbox (``autograder.grading.own_run``), and only one bounded
    line comes back."""
    request = json.dumps({
        "chapter": layout.chapter, "student": student,
        "notebook": nbformat.writes(notebook),
        "gradebook": base64.b64encode(template_db.read_bytes()).decode(),
        "references": notebook_refs.read_text(), "cell_timeout": settings.cell_timeout,
        "return_notebook": not settings.safe_feedback,
    }).encode()
    if timeout is None:
        timeout = settings.cell_timeout * (len(layout.points) + 2)
    results_read, results_write = os.pipe()
    request_read, request_write = os.pipe()
    found: dict[str, Any] = {}

    def talk() -> None:
        try:
            with os.fdopen(request_write, "wb") as pipe:
                pipe.write(request)
        except OSError:
            pass
        try:
            found["message"] = Channel(results_read).message()
        except ChannelError as err:
            found["problem"] = f"its verdict broke the result channel ({err})"

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    argv = [sys.executable, "-m", "autograder.grading.own_run", str(results_write),
            str(request_read)]
    scratch = None
    try:
        if settings.sandbox:
            result = sandbox.run(argv, readable=[runtime], timeout=max(timeout, 0.1),
                                 env=sandbox_env(runtime), pass_fds=[results_write,
                                                                     request_read],
                                 limits=sandbox.Limits(scratch_mb=256), output_limit=64 * 1024)
        else:
            scratch = Path(tempfile.mkdtemp(prefix="rt-own-run-"))
            result = _unconfined(argv, readable=[runtime], timeout=timeout,
                                 env=sandbox_env(runtime, {
                                     "REFTENSOR_OWN_RUN_ROOT": str(scratch / "course")}),
                                 pass_fds=[results_write, request_read])
    finally:
        os.close(results_write)
        os.close(request_read)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    talker.join(timeout=10)
    os.close(results_read)
    if result.timed_out:
        return {}, f"stopped after {timeout:.0f} s", None
    message = found.get("message")
    if found.get("problem") or not isinstance(message, dict):
        return {}, found.get("problem") or f"no verdict (exit status {result.returncode})", None
    raw = message.get("scores")
    problem = message.get("problem")
    if problem or not isinstance(raw, dict):
        return {}, safe_text(problem or "a malformed verdict", 200), None
    scores: dict[str, float | None] = {}
    for test in layout.points:
        value = raw.get(test)
        scores[test] = float(value) if isinstance(value, (int, float)) \
            and not isinstance(value, bool) and math.isfinite(value) else None
    notebook = message.get("notebook")
    return scores, "", notebook if isinstance(notebook, str) else None


# ---------------------------------------------------------------- one student
def grade_student(student: str, folder: Path, ctx: GradingContext) -> Outcome:
    """Grade one student's folder: the pre-flight, then the sandboxed checks."""
    started = time.perf_counter()
    outcome, rebuilt = preflight(student, folder, ctx)
    if rebuilt is None:
        outcome.seconds = time.perf_counter() - started
        return outcome
    return grade_rebuilt(outcome, rebuilt, ctx, started)


def preflight(student: str, folder: Path, ctx: GradingContext
              ) -> tuple[Outcome, rebuild.Rebuilt | None]:
    """Step 1, which runs no student code: find the notebook, archive the original, rebuild
    it from the release and the student's answer sources. Returns the outcome so far and
    the rebuilt notebook, or None (and a quarantined outcome) when nothing can be graded."""
    layout = ctx.layout
    outcome = layout.outcome(student)
    path, found_notes = rebuild.find_submission(folder, layout.chapter)
    outcome.notes += [safe_text(n) for n in found_notes]
    if path is not None:
        try:
            rebuild.archive(path, ctx.workspace / "archive" / student / layout.chapter)
        except (OSError, ValueError) as err:
            outcome.notes.append(f"could not archive the original: {err}")
    rebuilt = rebuild.rebuild(path, layout.release)
    if not ctx.settings.rebuild:
        rebuilt = _as_submitted(path, layout, rebuilt)
    outcome.sha256 = rebuilt.sha256
    outcome.notes += [safe_text(n) for n in rebuilt.notes]
    for reason in rebuilt.review:
        outcome.review(reason)
    if rebuilt.quarantine or rebuilt.notebook is None:
        outcome.state = "quarantined"
        outcome.reasons.insert(0, safe_text(rebuilt.quarantine
                                            or "the release could not be read"))
        return outcome, None
    outcome.written_answered = any(w in rebuilt.answered for w in layout.written)
    outcome.answers = {k: v for k, v in rebuilt.answers.items()
                       if k in layout.answers or k in layout.written}
    return outcome, rebuilt


def grade_rebuilt(outcome: Outcome, rebuilt: rebuild.Rebuilt, ctx: GradingContext,
                  started: float) -> Outcome:
    """Steps 2 and 3: the trusted re-check of every exercise and the notebook's own run,
    each in sandboxes, within the submission's time budget counted from ``started``
    (``time.perf_counter()``); then the states. Runs on the grading machine or a worker."""
    layout = ctx.layout
    used_before = sandbox.usage()
    if ctx.settings.sandbox and not ctx.sandboxed:
        # Never run student code unconfined: say so, loudly, on every submission.
        outcome.review(f"not graded: no sandbox on this machine ({ctx.sandbox_reason}); "
                       "install bubblewrap and grade again as root")
        outcome.seconds = time.perf_counter() - started
        return outcome

    if ctx.settings.rebuild:
        sources = [rebuilt.answers[a] for a in layout.answers]
    else:
        sources = [v for k, v in rebuilt.answers.items() if k.startswith("cell ")]
    flagged: set[str] = set()
    for a in layout.answers:
        if a in rebuilt.answered:
            # an answer written with reftensor (``Exercise.library``) may name it
            allowed = {"reftensor"} if a in ctx.plan.exercises and _library(a) else set()
            flagged |= flags_in_source([rebuilt.answers.get(a, "")]) - allowed
    budget = ctx.settings.submission_budget
    deadline = started + budget
    verdicts = {}
    for name in layout.answers:
        if name not in ctx.plan.exercises:
            continue
        left = deadline - time.perf_counter()
        if left < 1:
            verdict = ExerciseVerdict(name, False, False, problem=(
                f"{name}: not run, the submission's {budget:.0f} s time budget was used up"))
        else:
            try:
                verdict = recheck_exercise(ctx.plan.exercises[name], sources, ctx.runtime,
                                           ctx.settings,
                                           timeout=min(ctx.settings.exercise_timeout, left))
            except Exception as err:  # noqa: BLE001 - costs this exercise only
                verdict = ExerciseVerdict(name, False, False, problem=(
                    f"{name}: the re-check failed ({type(err).__name__}: {err})"))
        verdicts[name] = verdict
        if verdict.visible_failure:
            outcome.visible_failures[name] = verdict.visible_failure
        flagged |= {m.split(".")[0] for m in verdict.imports}
        if verdict.problem:
            outcome.review(verdict.problem)
    for name, verdict in verdicts.items():
        # A drawn case the answer fails, told in the feedback (asked again of a fresh sandbox
        # that sees that input alone), where the visible cases pass and time is left.
        left = deadline - time.perf_counter()
        if verdict.hidden_failure is None or not verdict.visible or verdict.problem \
                or left < 1:
            continue
        try:
            outcome.hidden_failures[name] = hidden_failure_message(
                ctx.plan.exercises[name], verdict.hidden_failure, sources, ctx.runtime,
                ctx.settings, timeout=min(ctx.settings.exercise_timeout, left))
        except Exception as err:  # noqa: BLE001 - the score stands; only the quote is lost
            outcome.notes.append(f"{name}: the failing drawn case could not be quoted "
                                 f"({type(err).__name__})")
    for test in layout.points:
        name, kind = layout.exercise_of(test)
        verdict = verdicts.get(name)
        passed = verdict is not None and (verdict.hidden if kind == "hidden" else verdict.visible)
        outcome.scores[test] = layout.points[test] if passed else 0.0
    for module in sorted(flagged):
        outcome.review(f"an answer uses {module}; the exercises ask you to compute it yourself")

    left = deadline - time.perf_counter()
    if left < 1:
        scores: dict[str, float | None] = {}
        problem = f"not run, the submission's {budget:.0f} s time budget was used up"
    else:
        scores, problem, outcome.own_notebook = notebook_verdict(
            layout, rebuilt.notebook, outcome.student, ctx.template_db, ctx.runtime,
            ctx.notebook_refs, ctx.settings, timeout=min(left, ctx.settings.cell_timeout
                                      * (len(layout.points) + 2)))
    if not ctx.settings.trusted:  # stock nbgrader: the notebook decides its own grade
        outcome.scores = {t: float(scores.get(t) or 0.0) for t in layout.points}
    if problem:
        outcome.notes.append(f"the notebook's own run failed ({problem}); scores come from "
                             "the trusted re-check of each exercise")
    else:
        outcome.notebook_scores = {t: scores.get(t) for t in layout.points}
        for test, trusted_score in outcome.scores.items():
            own = scores.get(test)
            if own is None:
                continue
            same_cases = _on_notebook_cases(test, trusted_score, layout, verdicts.get(
                layout.exercise_of(test)[0]))
            if own != same_cases:  # the two disagree on the very same cases: look
                outcome.review(f"{test}: the notebook's own check gave {own:g}, the trusted "
                               f"re-check {same_cases:g} on the same cases")
            elif own != trusted_score:
                outcome.notes.append(f"{test}: passes the notebook's own cases, fails "
                                     "freshly drawn ones")
    outcome.seconds = time.perf_counter() - started
    _time_rule(outcome, sandbox.usage().since(used_before), ctx.settings)
    return outcome


def _time_rule(outcome: Outcome, used: sandbox.Usage, settings: Settings) -> None:
    """Flag a submission that used more than ``slow_fraction`` of its time budget, counting
    its wall time less the time its sandboxes waited for a CPU that other work held (so an
    honest answer graded on a loaded host is not flagged for the host's load, while one that
    sleeps or stalls is), or its sandboxes' CPU time, whichever is larger."""
    outcome.cpu_seconds = used.cpu_seconds
    outcome.wait_seconds = used.seconds - used.unloaded_seconds
    counted = max(outcome.seconds - outcome.wait_seconds, used.cpu_seconds)
    budget = settings.submission_budget
    if counted > budget * settings.slow_fraction:
        waited = (f" ({outcome.wait_seconds:.0f} s of it waiting for a busy CPU, not counted)"
                  if outcome.wait_seconds >= 1 else "")
        outcome.review(f"took {counted:.0f} s of its {budget:.0f} s time budget{waited}: an "
                       "answer may be stalling on purpose")


def _on_notebook_cases(test: str, trusted_score: float, layout: Layout,
                       verdict: ExerciseVerdict | None) -> float:
    """What the trusted re-check gives ``test`` on the cases the notebook's own test cell
    checks: a visible test checks the same fixed cases; a hidden one checks the public
    default-seed cases, which the re-check runs besides this run's fresh ones."""
    if layout.exercise_of(test)[1] != "hidden" or verdict is None \
            or verdict.notebook_hidden is None:
        return trusted_score
    return layout.points[test] if verdict.notebook_hidden else 0.0


def _as_submitted(path: Path | None, layout: Layout,
                  rebuilt: rebuild.Rebuilt) -> rebuild.Rebuilt:
    """With the rebuild defence off: the submitted notebook itself, and every code cell that
    is not a test cell counts as an answer, in order (tests only)."""
    if rebuilt.quarantine or path is None:
        return rebuilt
    nb = nbformat.reads(path.read_text(), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not (c.metadata.get("nbgrader", {}).get("grade")
                     and not c.metadata.get("nbgrader", {}).get("solution"))]
    answers = {f"cell {i}": source for i, source in enumerate(code)}
    answers.update({w: rebuilt.answers.get(w, "") for w in layout.written})
    return rebuild.Rebuilt(notebook=nb, answers=answers, answered=set(rebuilt.answered),
                           notes=[], review=[], quarantine=None, sha256=rebuilt.sha256)


# ---------------------------------------------------------------- the class
@dataclass
class GradingContext:
    workspace: Path
    layout: Layout
    plan: trusted.RunPlan
    runtime: Path
    template_db: Path
    notebook_refs: Path
    sandboxed: bool
    sandbox_reason: str
    settings: Settings = DEFAULTS


_PRISTINE: dict[str, Path] = {}  # hash of the chapter's sources -> a freshly generated course


#: what nbgrader leaves out of a release (the course's ``CourseDirectory.ignore``)
_UNREAD = {".ipynb_checkpoints", "__pycache__", "feedback", ".hypothesis", ".DS_Store"}


def _pristine_key(chapter: str) -> str:
    """A hash of everything ``nbgrader generate_assignment`` reads for ``chapter``: its
    source folder, the course's nbgrader settings, and nbgrader's and Python's versions."""
    import nbgrader  # (the grading run imports it anyway, to record grades)

    digest = hashlib.sha256(f"{chapter}\0{nbgrader.__version__}\0{sys.version}\0".encode())
    folder = pipeline.SOLUTIONS / chapter
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if _UNREAD & set(path.relative_to(folder).parts) or path.suffix == ".pyc":
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    digest.update(pipeline.CONFIG.read_bytes())
    return digest.hexdigest()


def _pristine_root() -> Path | None:
    """The folder that keeps pristine courses between grading runs (they hold hidden tests):
    this user's own, 0700, in the host's temporary folder, which no sandbox sees (a sandbox's
    /tmp is a tmpfs of its own). None if something else holds that name."""
    root = Path(tempfile.gettempdir()) / f"reftensor-pristine-{os.geteuid()}"
    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        return None
    return root


def _pristine(chapter: str) -> Path:
    """A course holding ``chapter`` alone, freshly generated by ``nbgrader
    generate_assignment``: its gradebook (the chapter's cells and hidden tests, no student)
    and its release. Generating takes seconds (an nbgrader process), so it is done once for
    each version of the chapter's sources and kept (``_pristine_root``) for every later
    grading run; a process of its own generates only if that folder is not this user's."""
    key = _pristine_key(chapter)
    kept = _PRISTINE.get(key)
    if kept is not None and (kept / "gradebook.db").is_file():
        return kept
    root = _pristine_root()
    if root is None:
        kept = Path(tempfile.mkdtemp(prefix="rt-assignment-"))
        pipeline.prepare_workspace(kept, [chapter])
    else:
        kept = root / f"{chapter}-{key[:32]}"
        if not _is_own_folder(kept) or not (kept / "gradebook.db").is_file():
            staging = Path(tempfile.mkdtemp(prefix=".generating-", dir=root))
            pipeline.prepare_workspace(staging, [chapter])
            try:
                os.rename(staging, kept)  # atomic: a run at the same time sees all or nothing
            except OSError:  # another run kept its own first, or a broken one is in the way
                if _is_own_folder(kept) and (kept / "gradebook.db").is_file():
                    shutil.rmtree(staging, ignore_errors=True)
                else:
                    kept = staging  # this process's own, then
    _PRISTINE[key] = kept
    return kept


def _is_own_folder(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _record_assignment(workspace: Path, chapter: str) -> Path:
    """Record the chapter in the workspace's gradebook, beside any chapter graded there
    before; return the pristine course it came from."""
    pristine = _pristine(chapter)
    if (workspace / "gradebook.db").exists():
        pipeline.prepare_workspace(workspace, [chapter])  # adds or refreshes this chapter only
    else:
        shutil.copy(pristine / "gradebook.db", workspace / "gradebook.db")
        shutil.copytree(pristine / "release", workspace / "release", dirs_exist_ok=True)
        pipeline.course_files(workspace, chapter)
    return pristine


def prepare(workspace: Path, chapter: str, seed: int | None = None,
            settings: Settings = DEFAULTS) -> GradingContext:
    """Record the chapter in the gradebook, draw the run's seed, compute references."""
    workspace.mkdir(parents=True, exist_ok=True)
    pristine = _record_assignment(workspace, chapter)
    release = workspace / "release" / chapter / f"{chapter}.ipynb"
    layout = Layout.read(release, chapter)
    # private/ holds each chapter's seed, references and template gradebook (hidden tests):
    # root's alone, and no sandbox ever sees it (what a sandbox needs is sent to it as data).
    private = workspace / "private"
    private.mkdir(mode=0o700, exist_ok=True)
    mine = private / chapter
    mine.mkdir(mode=0o700, exist_ok=True)
    plan = trusted.prepare_run(mine / "run", list(layout.answers), seed,
                               default_seeds=not settings.fresh_seed)
    refs = trusted.notebook_references(mine / "notebook_references.json", layout.answers)
    template = mine / "template"
    shutil.rmtree(template, ignore_errors=True)
    template.mkdir(mode=0o700)
    # The notebook's own run gets the chapter's pristine gradebook: no student is in it, so
    # no sandbox ever sees another student's grades, whatever was graded here before.
    shutil.copy(pristine / "gradebook.db", template / "gradebook.db")
    _private_modes(private)
    os.chmod(workspace / "gradebook.db", 0o600)  # it holds the hidden tests too
    status = sandbox.status()
    if not status.available:
        print(f"WARNING: no sandbox ({status.reason}): no student code will run, and every "
              "submission is marked 'needs review'", file=sys.stderr)
    unpublished = unpublished_for_library(list(layout.answers))
    if unpublished:
        print(f"WARNING: {chapter}'s exercises written with reftensor run on the sandbox's "
              f"student edition, whose pieces of {', '.join(unpublished)} are stubs (not "
              "published): they fail on every submission; publish those chapters first",
              file=sys.stderr)
    return GradingContext(workspace, layout, plan, make_runtime(), template / "gradebook.db",
                          refs, status.available, status.reason, settings)


def unpublished_for_library(names: list[str]) -> list[str]:
    """The chapters with pieces, other than their own, that are not published while some of
    the exercises ``names`` are written with reftensor (``Exercise.library``): such an
    answer runs in the sandbox on the student edition, where an unpublished piece is a stub."""
    from autograder.course import edition, exercises
    from reftensor.pieces import PIECES

    own = set()
    for name in names:
        try:
            ex = exercises.get(name)
        except KeyError:
            continue
        if ex.library:
            own.add(ex.chapter)
    if not own:
        return []
    published = set(edition.published_chapters())
    return sorted({p.chapter for p in PIECES.values()} - published - own)


def _private_modes(folder: Path) -> None:
    """Folders 0700 and files 0600 under ``folder`` (written by root alone; links are left
    as they are and never followed)."""
    os.chmod(folder, 0o700, follow_symlinks=False)
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            if not os.path.islink(os.path.join(root, name)):
                os.chmod(os.path.join(root, name), 0o700, follow_symlinks=False)
        for name in files:
            if not os.path.islink(os.path.join(root, name)):
                os.chmod(os.path.join(root, name), 0o600, follow_symlinks=False)


def _grade_rows(db: Path, chapter: str,
                student: str) -> list[tuple[str, float | None, float | None]]:
    """(grade_id, auto_score, manual_score) of every graded cell of one submission."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{db}") as gb:
        try:
            nb = gb.find_submission_notebook(chapter, chapter, student)
        except MissingEntry:
            return []
        return sorted((g.name, g.auto_score, g.manual_score) for g in nb.grades)


def _snapshot(workspace: Path, students: list[str], chapter: str) -> dict[str, str]:
    """Hashes of each finished student's gradebook rows and files, for the audit."""
    digest = {}
    for student in students:
        rows = _grade_rows(workspace / "gradebook.db", chapter, student)
        h = hashlib.sha256(repr(rows).encode())
        for base in ("autograded", "archive", "submitted"):
            for path in sorted((workspace / base / student).rglob("*")):
                if path.is_file():
                    h.update(path.name.encode() + path.read_bytes())
        digest[student] = h.hexdigest()
    return digest


def record(workspace: Path, outcome: Outcome, layout: Layout,
           settings: Settings = DEFAULTS) -> None:
    """Write one student's trusted scores and feedback-safe notebook into the workspace."""
    import warnings

    from nbgrader.api import Gradebook, MissingEntry

    chapter = layout.chapter
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy session warnings
        gb.update_or_create_student(outcome.student)
        kept = _manual_work(gb, chapter, outcome.student)
        try:
            gb.remove_submission(chapter, outcome.student)
        except MissingEntry:
            pass
        # the trusted time of a collected submission (collect), for nbgrader's own late rules
        when = {}
        if outcome.submitted_at:
            at = dt.datetime.fromisoformat(outcome.submitted_at).astimezone(dt.UTC)
            when["timestamp"] = at.replace(tzinfo=None)  # nbgrader keeps naive UTC times
        submission = gb.add_submission(chapter, outcome.student, **when)
        for nb in submission.notebooks:
            for grade in nb.grades:
                if grade.name in outcome.scores:
                    grade.auto_score = outcome.scores[grade.name]
                    grade.needs_manual_grade = False
                elif grade.name in layout.written:
                    grade.auto_score = None if outcome.written_answered else 0.0
                    grade.needs_manual_grade = outcome.written_answered
                manual_score, extra_credit = kept["grades"].get((nb.name, grade.name),
                                                                (None, None))
                if manual_score is not None or extra_credit is not None:
                    # a grade given by hand before this re-grade stays, and counts
                    grade.manual_score, grade.extra_credit = manual_score, extra_credit
                    grade.needs_manual_grade = False
            for comment in nb.comments:
                if (nb.name, comment.name) in kept["comments"]:
                    comment.manual_comment = kept["comments"][(nb.name, comment.name)]
        gb.db.commit()
    target = workspace / "autograded" / outcome.student / chapter
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if not settings.safe_feedback and outcome.own_notebook:  # stock nbgrader's feedback source
        nb = nbformat.reads(outcome.own_notebook, as_version=4)
    else:
        nb = safe_feedback_notebook(outcome, layout)
    nbformat.write(nb, target / f"{chapter}.ipynb")
    submitted = workspace / "submitted" / outcome.student / chapter
    submitted.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, submitted / f"{chapter}.ipynb")


def _manual_work(gb: Any, chapter: str, student: str) -> dict[str, dict]:
    """What an instructor entered by hand for one submission (manual scores, extra credit,
    comments), by (notebook, cell), so that re-grading it keeps them."""
    from nbgrader.api import MissingEntry

    kept: dict[str, dict] = {"grades": {}, "comments": {}}
    try:
        submission = gb.find_submission(chapter, student)
    except MissingEntry:
        return kept
    for nb in submission.notebooks:
        for grade in nb.grades:
            if grade.manual_score is not None or grade.extra_credit is not None:
                kept["grades"][(nb.name, grade.name)] = (grade.manual_score, grade.extra_credit)
        for comment in nb.comments:
            if comment.manual_comment:
                kept["comments"][(nb.name, comment.name)] = comment.manual_comment
    return kept


def safe_feedback_notebook(outcome: Outcome, layout: Layout) -> nbformat.NotebookNode:
    """The notebook nbgrader turns into feedback, built only from trusted material: the
    release, the student's answer sources, and the grader's own verdict for every test cell.
    No output of the student's run is kept, so nothing the kernel saw (hidden tests, hidden
    inputs, references) can reach the feedback, whatever the answer printed or hooked."""
    nb = nbformat.read(layout.release, as_version=4)
    answers = outcome.answers
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if meta.get("solution") and grade_id in answers:
            # A written answer is markdown, which feedback pages and Formgrader render
            # without escaping HTML: it is stored as sanitized HTML instead.
            cell.source = (sanitize.written_answer(answers[grade_id])
                           if cell.cell_type == "markdown" else answers[grade_id])
        if cell.cell_type != "code":
            continue
        cell.outputs, cell.execution_count = [], None
        if meta.get("grade") and not meta.get("solution"):
            name, kind = layout.exercise_of(grade_id)
            got, points = outcome.scores.get(grade_id, 0.0), layout.points[grade_id]
            text = f"{got:g} of {points:g} points ({kind} test, trusted re-check).\n"
            if kind == "visible" and name in outcome.visible_failures:
                text += "Smallest failing case:\n    " + outcome.visible_failures[name] + "\n"
            elif kind == "hidden" and name in outcome.hidden_failures:
                text += ("Smallest failing case among this run's drawn inputs (each grading "
                         "run draws new ones):\n    " + outcome.hidden_failures[name] + "\n")
            elif kind == "hidden" and got < points and name in outcome.visible_failures:
                text += "The visible test fails too: fix the case it shows first.\n"
            elif kind == "hidden" and got < points:
                text += "Some freshly drawn inputs disagree with torch.\n"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    title = 1 if nb.cells and nb.cells[0].source.lstrip().startswith("#") else 0
    nb.cells.insert(title, nbformat.v4.new_markdown_cell(_summary(outcome)))
    return nb


def _summary(outcome: Outcome) -> str:
    """The feedback's first words: the autograded points, apart from the answers an
    instructor grades by hand (which the page's total counts as 0 until they are graded)."""
    text = (f"**Autograded: {outcome.total:g} of {outcome.max_total:g} points** (the trusted "
            "re-check of every exercise, on fresh inputs).")
    hand = sum(outcome.written_points.values())
    if hand and outcome.written_answered:
        text += (f"\n\n**Written answer: {hand:g} points, graded by hand.** Until your "
                 "instructor has graded it, the total score of this page counts it as 0; "
                 "it is not a final grade.")
    elif hand:
        text += f"\n\n**Written answer: unanswered, 0 of {hand:g} points.**"
    return text


def _failed(student: str, ctx: GradingContext, why: str) -> Outcome:
    failed = ctx.layout.outcome(student)
    failed.state = "quarantined"
    failed.reasons.append(safe_text(why))
    return failed


def _in_own_process(student: str, ctx: GradingContext, conn: Any,
                    grade: Callable[[], Outcome]) -> None:
    """The body of a student's own process: ``grade()`` with its output in the student's
    log, and whatever it raises as the student's state; the outcome goes back on ``conn``."""
    import warnings

    warnings.simplefilter("ignore")  # nbgrader's SQLAlchemy session warnings
    # What this student's kernels and tools print goes to a log, not the instructor's screen.
    logs = ctx.workspace / "logs"
    logs.mkdir(exist_ok=True)
    log = os.open(logs / f"{student}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    try:
        outcome = grade()
    except Exception as err:  # noqa: BLE001 - reported as this student's state
        outcome = _failed(student, ctx, f"the grader failed on this submission: "
                                        f"{type(err).__name__}: {err}")
    import resource

    outcome.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send(outcome)
    conn.close()


def _student_process(student: str, folder: Path, ctx: GradingContext, conn: Any) -> None:
    _in_own_process(student, ctx, conn, lambda: grade_student(student, folder, ctx))


def _rebuilt_process(outcome: Outcome, rebuilt: rebuild.Rebuilt, elapsed: float,
                     ctx: GradingContext, conn: Any) -> None:
    _in_own_process(outcome.student, ctx, conn, lambda: grade_rebuilt(
        outcome, rebuilt, ctx, time.perf_counter() - elapsed))


_FORKSERVER: Any = None


def _processes() -> Any:
    """A forkserver that has already imported the grader and nbgrader: each student gets a
    fresh process in milliseconds instead of seconds of imports."""
    global _FORKSERVER
    if _FORKSERVER is None:
        import multiprocessing

        _FORKSERVER = multiprocessing.get_context("forkserver")
        _FORKSERVER.set_forkserver_preload(["autograder.grading.grade", "nbgrader.apps.api"])
    return _FORKSERVER


def _isolated(student: str, ctx: GradingContext, target: Callable[..., None],
              args: tuple[Any, ...]) -> Outcome:
    """Run ``target(*args, conn)`` in a process of its own and take the outcome it sends:
    whatever happens to it (an exception, a crash, a hang) ends as this student's state
    and never touches the others."""
    mp = _processes()
    receive, send = mp.Pipe(duplex=False)
    proc = mp.Process(target=target, args=(*args, send))
    proc.start()
    send.close()
    # the submission's own budget, plus time to rebuild, archive and start its sandboxes
    budget = ctx.settings.submission_budget + 60
    outcome = None
    try:
        if receive.poll(budget):
            outcome = receive.recv()
    except (EOFError, OSError):
        pass
    proc.join(10)
    if proc.is_alive():
        proc.kill()
        proc.join()
    if outcome is None:
        outcome = _failed(student, ctx, f"the grading process for this submission died or "
                                        f"hung (exit code {proc.exitcode})")
    return outcome


def grade_in_own_process(student: str, folder: Path, ctx: GradingContext) -> Outcome:
    """Grade one student in a process of its own (see ``_isolated``)."""
    return _isolated(student, ctx, _student_process, (student, folder, ctx))


def grade_rebuilt_in_own_process(outcome: Outcome, rebuilt: rebuild.Rebuilt, elapsed: float,
                                 ctx: GradingContext) -> Outcome:
    """``grade_rebuilt`` in a process of its own, ``elapsed`` seconds of the submission's
    budget already spent (on the pre-flight, elsewhere): what a cluster's worker runs."""
    return _isolated(outcome.student, ctx, _rebuilt_process, (outcome, rebuilt, elapsed, ctx))

