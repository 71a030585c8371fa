"""Trustworthy grading of one chapter for a whole class, on top of nbgrader.

For each student, in its own worker (several in parallel):

1. **Pre-flight.** The submitted file is archived read-only under its SHA-256, then rebuilt
   from the release plus the student's answer-cell sources (``autograder.rebuild``). Nothing
   else of the submission is used.
2. **Trusted re-check.** For every exercise, the answer cells run in a sandbox
   (``autograder.sandbox``: its own unprivileged user, no network, no torch, limits) on inputs
   drawn from this run's secret seed; the sandbox returns plain tagged values and the grader
   compares them here with torch's references, which never enter a sandbox. Each exercise runs
   in its own sandbox, so a crash or a hang fails that exercise only. **This is the score.**
3. **The notebook's own verdict.** nbgrader autogrades the rebuilt notebook in a mini-course
   that lives wholly inside one sandbox (``autograder.own_run``: nbgrader, its gradebook copy
   and the kernel, in the sandbox's scratch memory), with references for the notebook's own
   (fixed-seed) checks; one bounded line of scores comes back over a pipe. The grader flags
   any test cell where this verdict and the trusted one disagree; it never sets a score.
4. **State.** ``graded``, ``needs review`` (with reasons) or ``quarantined`` (with reasons).

The driver then writes the trusted scores into the workspace's gradebook (one student at a
time), writes the feedback-safe notebook (built from trusted material only), and audits that
no other student's rows or files changed and that no sandboxed process survived. No
privileged process ever opens a path a sandbox could have written: sandboxes write only to a
tmpfs of their own, and what comes back is bounded bytes over pipes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from . import pipeline, rebuild, sandbox, sanitize, trusted
from .recheck import (
    DEFAULTS,
    Channel,
    ChannelError,
    ExerciseVerdict,
    Settings,
    _unconfined,
    flags_in_source,
    make_runtime,
    recheck_exercise,
    sandbox_env,
)
from .sanitize import safe_text


# ---------------------------------------------------------------- results
@dataclass
class Outcome:
    """Everything decided about one student's submission."""

    student: str
    state: str = "graded"  # graded | needs review | quarantined
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)  # trusted, per test cell
    max_scores: dict[str, float] = field(default_factory=dict)
    notebook_scores: dict[str, float | None] = field(default_factory=dict)
    written_answered: bool = False
    visible_failures: dict[str, str] = field(default_factory=dict)  # exercise -> message
    answers: dict[str, str] = field(default_factory=dict)  # grade_id -> rebuilt source
    sha256: str = ""
    seconds: float = 0.0
    peak_rss_mb: float = 0.0  # the grading process's own peak memory for this submission
    own_notebook: str | None = None  # the own run's notebook, only with safe_feedback off

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

    @classmethod
    def read(cls, release: Path, chapter: str) -> Layout:
        nb = nbformat.read(release, as_version=4)
        answers, written, points = [], [], {}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                (answers if cell.cell_type == "code" else written).append(meta["grade_id"])
            elif meta.get("grade"):
                points[meta["grade_id"]] = float(meta["points"])
        return cls(chapter, release, answers, written, points)

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
    its kernel run wholly inside one sandbox (``autograder.own_run``), and only one bounded
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
    argv = [sys.executable, "-m", "autograder.own_run", str(results_write), str(request_read)]
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
    started = time.perf_counter()
    layout = ctx.layout
    outcome = Outcome(student, max_scores=dict(layout.points))
    outcome.scores = {test: 0.0 for test in layout.points}
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
        outcome.seconds = time.perf_counter() - started
        return outcome
    outcome.written_answered = any(w in rebuilt.answered for w in layout.written)
    outcome.answers = {k: v for k, v in rebuilt.answers.items()
                       if k in layout.answers or k in layout.written}
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
    flagged = flags_in_source([rebuilt.answers.get(a, "") for a in layout.answers
                                if a in rebuilt.answered])
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
            layout, rebuilt.notebook, student, ctx.template_db, ctx.runtime, ctx.notebook_refs,
            ctx.settings, timeout=min(left, ctx.settings.cell_timeout
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
            if own is not None and own != trusted_score:
                outcome.review(f"{test}: the notebook's own check gave {own:g}, the trusted "
                               f"re-check {trusted_score:g}")
    outcome.seconds = time.perf_counter() - started
    if outcome.seconds > budget * ctx.settings.slow_fraction:
        outcome.review(f"took {outcome.seconds:.0f} s of its {budget:.0f} s time budget: an "
                       "answer may be stalling on purpose")
    return outcome


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


_ASSIGNMENTS: dict[str, Path] = {}  # hash of the source notebook -> a pristine generated copy


def _record_assignment(workspace: Path, chapter: str) -> None:
    """``nbgrader generate_assignment`` into the workspace (release + gradebook with the
    hidden tests). It takes seconds, so within one process a pristine result is reused for
    the same source notebook."""
    source = pipeline.SOLUTIONS / chapter / f"{chapter}.ipynb"
    key = hashlib.sha256(source.read_bytes() + chapter.encode()).hexdigest()
    cached = _ASSIGNMENTS.get(key)
    if cached is not None and not (workspace / "gradebook.db").exists():
        shutil.copy(cached / "gradebook.db", workspace / "gradebook.db")
        shutil.copytree(cached / "release", workspace / "release", dirs_exist_ok=True)
        return
    pipeline.prepare_workspace(workspace, [chapter])
    if cached is None and not (workspace / "submitted").exists():  # pristine: keep a copy
        keep = Path(tempfile.mkdtemp(prefix="rt-assignment-"))
        shutil.copy(workspace / "gradebook.db", keep / "gradebook.db")
        shutil.copytree(workspace / "release", keep / "release")
        _ASSIGNMENTS[key] = keep


def prepare(workspace: Path, chapter: str, seed: int | None = None,
            settings: Settings = DEFAULTS) -> GradingContext:
    """Record the chapter in the gradebook, draw the run's seed, compute references."""
    workspace.mkdir(parents=True, exist_ok=True)
    _record_assignment(workspace, chapter)
    release = workspace / "release" / chapter / f"{chapter}.ipynb"
    layout = Layout.read(release, chapter)
    # private/ holds the run's seed, references and the template gradebook (hidden tests):
    # root's alone, and no sandbox ever sees it (what a sandbox needs is sent to it as data).
    private = workspace / "private"
    private.mkdir(mode=0o700, exist_ok=True)
    plan = trusted.prepare_run(private / "run", list(layout.answers), seed,
                               default_seeds=not settings.fresh_seed)
    refs = trusted.notebook_references(private / "notebook_references.json", layout.answers)
    template = private / "template"
    shutil.rmtree(template, ignore_errors=True)
    template.mkdir(mode=0o700)
    shutil.copy(workspace / "gradebook.db", template / "gradebook.db")  # before any student
    _private_modes(private)
    os.chmod(workspace / "gradebook.db", 0o600)  # it holds the hidden tests too
    status = sandbox.status()
    if not status.available:
        print(f"WARNING: no sandbox ({status.reason}): no student code will run, and every "
              "submission is marked 'needs review'", file=sys.stderr)
    return GradingContext(workspace, layout, plan, make_runtime(), template / "gradebook.db",
                          refs, status.available, status.reason, settings)


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
        try:
            gb.remove_submission(chapter, outcome.student)
        except MissingEntry:
            pass
        submission = gb.add_submission(chapter, outcome.student)
        for nb in submission.notebooks:
            for grade in nb.grades:
                if grade.name in outcome.scores:
                    grade.auto_score = outcome.scores[grade.name]
                    grade.needs_manual_grade = False
                elif grade.name in layout.written:
                    grade.auto_score = None if outcome.written_answered else 0.0
                    grade.needs_manual_grade = outcome.written_answered
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
            elif kind == "hidden" and got < points:
                text += "Some freshly drawn inputs disagree with torch.\n"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    return nb


def _survivors(patience: float = 10.0) -> list[int]:
    """Sandboxed processes still alive once their namespaces have had time to die."""
    deadline = time.monotonic() + patience
    while True:
        left = sandbox.leftover_processes()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _describe(pids: list[int]) -> str:
    names = []
    for pid in pids[:5]:
        try:
            names.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                         .decode(errors="replace")[:80])
        except OSError:
            names.append(str(pid))
    return "; ".join(names)


def _failed(student: str, ctx: GradingContext, why: str) -> Outcome:
    failed = Outcome(student, max_scores=dict(ctx.layout.points))
    failed.scores = {t: 0.0 for t in ctx.layout.points}
    failed.state = "quarantined"
    failed.reasons.append(safe_text(why))
    return failed


def _student_process(student: str, folder: Path, ctx: GradingContext, conn: Any) -> None:
    import warnings

    warnings.simplefilter("ignore")  # nbgrader's SQLAlchemy session warnings
    # What this student's kernels and tools print goes to a log, not the instructor's screen.
    logs = ctx.workspace / "logs"
    logs.mkdir(exist_ok=True)
    log = os.open(logs / f"{student}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    try:
        outcome = grade_student(student, folder, ctx)
    except Exception as err:  # noqa: BLE001 - reported as this student's state
        outcome = _failed(student, ctx, f"the grader failed on this submission: "
                                        f"{type(err).__name__}: {err}")
    import resource

    outcome.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send(outcome)
    conn.close()


_FORKSERVER: Any = None


def _processes() -> Any:
    """A forkserver that has already imported the grader and nbgrader: each student gets a
    fresh process in milliseconds instead of seconds of imports."""
    global _FORKSERVER
    if _FORKSERVER is None:
        import multiprocessing

        _FORKSERVER = multiprocessing.get_context("forkserver")
        _FORKSERVER.set_forkserver_preload(["autograder.grade", "nbgrader.apps.api"])
    return _FORKSERVER


def grade_in_own_process(student: str, folder: Path, ctx: GradingContext) -> Outcome:
    """Grade one student in a process of its own: whatever happens to it (an exception, a
    crash, a hang) ends as this student's state and never touches the others."""
    mp = _processes()
    receive, send = mp.Pipe(duplex=False)
    proc = mp.Process(target=_student_process, args=(student, folder, ctx, send))
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


def grade_class(workspace: Path, submissions: Path, chapter: str, *, workers: int = 1,
                seed: int | None = None, progress: bool = True,
                only: list[str] | None = None, settings: Settings = DEFAULTS) -> list[Outcome]:
    """Grade every ``submissions/<student>/`` folder; return the outcomes, sorted by student.

    Results do not depend on the order or the number of workers: every student is graded
    from the same plan, and the driver records them one at a time.
    """
    from tqdm import tqdm

    ctx = prepare(workspace.resolve(), chapter, seed, settings)
    folders = {p.name: p / chapter if (p / chapter).is_dir() else p
               for p in sorted(submissions.iterdir()) if p.is_dir()}
    if only:
        folders = {k: v for k, v in folders.items() if k in only}
    outcomes: dict[str, Outcome] = {}
    for name in [n for n in folders if not sanitize.safe_student_id(n)]:
        # A name that is not a plain id never reaches the gradebook, Formgrader or a file name.
        del folders[name]
        shown = safe_text(name, 80)
        outcomes[shown] = _failed(shown, ctx, "the folder name is not a usable student id "
                                  "(letters, digits and . _ @ + - only, at most 64): not graded")
    finished: list[str] = []
    lock = threading.Lock()
    bar = tqdm(total=len(folders), desc=f"grading {chapter}", unit="student",
               disable=not progress, file=sys.stderr)

    digests: dict[str, str] = {}  # finished students' rows and files, as recorded

    def finish(outcome: Outcome) -> None:
        with lock:
            # Audit: nothing of an earlier student may have changed since it was recorded,
            # whatever this student's code did while it ran.
            now = _snapshot(ctx.workspace, finished, chapter)
            changed = [s for s in finished if now[s] != digests[s]]
            if changed:
                outcome.review(f"audit: other students' records changed: {changed}")
            record(ctx.workspace, outcome, ctx.layout, ctx.settings)
            finished.append(outcome.student)
            digests.update(_snapshot(ctx.workspace, finished, chapter))
            survivors = _survivors() if workers == 1 else []
            if survivors:
                outcome.review(f"audit: {len(survivors)} sandboxed processes survived: "
                               f"{_describe(survivors)}")
            outcomes[outcome.student] = outcome
            bar.update(1)

    def work(student: str) -> Outcome:
        return grade_in_own_process(student, folders[student], ctx)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, s) for s in folders]
        for future in as_completed(futures):
            finish(future.result())
    bar.close()
    leftovers = _survivors()
    if leftovers:
        for outcome in outcomes.values():
            outcome.review(f"audit: {len(leftovers)} sandboxed processes survived the run")
    result = [outcomes[s] for s in sorted(outcomes)]
    write_report(ctx.workspace, chapter, result)
    return result


def write_report(workspace: Path, chapter: str, outcomes: list[Outcome]) -> Path:
    """``grades.csv`` with the state and reasons of every submission, and ``report.json``,
    each replaced whole (never half-written); every string from a submission is made safe
    (``sanitize.safe_text``)."""
    import csv
    import io

    tests = sorted({t for o in outcomes for t in o.max_scores})
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(["student", "chapter", "state", "autograded", "max", *tests,
                     "written_answer", "reasons", "sha256"])
    for o in outcomes:
        written = "needs manual grade" if o.written_answered else "unanswered (0)"
        writer.writerow([_cell(o.student), chapter, o.state, f"{o.total:g}",
                         f"{o.max_total:g}", *[f"{o.scores.get(t, 0):g}" for t in tests],
                         written, _cell(" | ".join(safe_text(r) for r in o.reasons)),
                         o.sha256])
    report = [{"student": safe_text(o.student), "state": o.state,
               "reasons": [safe_text(r) for r in o.reasons],
               "notes": [safe_text(n) for n in o.notes], "scores": o.scores,
               "notebook_scores": o.notebook_scores, "total": o.total, "max": o.max_total,
               "seconds": round(o.seconds, 2), "peak_rss_mb": round(o.peak_rss_mb, 1),
               "sha256": o.sha256}
              for o in outcomes]
    path = workspace / "grades.csv"
    _write_atomically(path, table.getvalue())
    _write_atomically(workspace / "report.json", json.dumps(report, indent=1))
    return path


def _cell(text: str) -> str:
    """A CSV cell from a student-controlled string: made safe, and never read as a formula
    by a spreadsheet (a leading ``= + - @`` gets a quote mark before it)."""
    text = safe_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file beside ``path``, then rename it over."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run_feedback(workspace: Path, chapter: str) -> Path:
    """nbgrader's HTML feedback from the feedback-safe notebooks."""
    return pipeline.feedback(workspace, chapter)

