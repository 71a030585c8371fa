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
3. **The notebook's own verdict.** nbgrader autogrades the rebuilt notebook in a private
   mini-course, its kernel inside the sandbox, with references for the notebook's own
   (fixed-seed) checks. This gives the student-facing feedback, and the grader flags any test
   cell where this verdict and the trusted one disagree.
4. **State.** ``graded``, ``needs review`` (with reasons) or ``quarantined`` (with reasons).

The driver then writes the trusted scores into the workspace's gradebook (one student at a
time), copies the feedback-safe autograded notebook, and audits that no other student's rows
or files changed and that no sandboxed process survived.
"""

from __future__ import annotations

import ast
import hashlib
import json
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

from . import pipeline, rebuild, sandbox, sandbox_kernel, trusted
from .plain import NotPlain, decode, same
from .references import Raises

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


# ---------------------------------------------------------------- results
@dataclass
class ExerciseVerdict:
    name: str
    visible: bool
    hidden: bool
    problem: str | None = None  # crash, timeout, missing function...
    imports: list[str] = field(default_factory=list)
    visible_failure: str | None = None  # the smallest failing fixed case, told the student


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
    sha256: str = ""
    seconds: float = 0.0
    autograded_notebook: Path | None = None

    @property
    def total(self) -> float:
        return sum(self.scores.values())

    @property
    def max_total(self) -> float:
        return sum(self.max_scores.values())

    def review(self, reason: str) -> None:
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
def _flags_in_source(sources: list[str]) -> set[str]:
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


def _sandbox_env(runtime: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
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
                     env=_sandbox_env(runtime), pass_fds=[write_end])
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


# ---------------------------------------------------------------- step 3: notebook verdict
def notebook_verdict(layout: Layout, notebook: nbformat.NotebookNode, student: str,
                     mini: Path, template_db: Path, runtime: Path, notebook_refs: Path,
                     settings: Settings = Settings(),
                     ) -> tuple[dict[str, float | None], Path | None, str]:
    """nbgrader's own scores for the rebuilt notebook, run with a sandboxed kernel."""
    shutil.rmtree(mini, ignore_errors=True)
    chapter = layout.chapter
    submitted = mini / "submitted" / student / chapter
    submitted.mkdir(parents=True)
    nbformat.write(notebook, submitted / f"{chapter}.ipynb")
    shutil.copy(template_db, mini / "gradebook.db")
    workdir = mini / "autograded" / student / chapter
    kernels = mini / "jupyter"
    env_inside = _sandbox_env(runtime, {checks_env(): str(notebook_refs)})
    config: dict[str, dict[str, Any]] = {
        "CourseDirectory": {"db_url": f"sqlite:///{mini / 'gradebook.db'}"},
        "Execute": {"timeout": settings.cell_timeout},
    }
    # Unix socket paths are limited to 107 bytes, so the kernel's sockets live in a short
    # private directory of their own rather than under the (possibly deep) workspace.
    sockets = Path(tempfile.mkdtemp(prefix="rtk-"))
    if settings.sandbox:
        sandbox_kernel.install_kernelspec(kernels, workdir=workdir,
                                          readable=[runtime, notebook_refs.parent],
                                          env=env_inside)
        os.environ["JUPYTER_PATH"] = str(kernels)
        config["Execute"]["kernel_name"] = "reftensor-sandbox"
        config["KernelManager"] = {"transport": "ipc", "ip": str(sockets / "k")}
    else:
        os.environ[checks_env()] = str(notebook_refs)
    try:
        problem = pipeline.autograde_here(mini, chapter, student, config)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    scores: dict[str, float | None] = {}
    if not problem:
        scores = {name: auto for name, auto, _ in
                  _grade_rows(mini / "gradebook.db", chapter, student)}
    autograded = workdir / f"{chapter}.ipynb"
    return scores, (autograded if autograded.exists() else None), problem


def checks_env() -> str:
    from .checks import REFERENCES_ENV

    return REFERENCES_ENV


# ---------------------------------------------------------------- one student
def grade_student(student: str, folder: Path, ctx: GradingContext) -> Outcome:
    started = time.perf_counter()
    layout = ctx.layout
    outcome = Outcome(student, max_scores=dict(layout.points))
    outcome.scores = {test: 0.0 for test in layout.points}
    path, found_notes = rebuild.find_submission(folder, layout.chapter)
    outcome.notes += found_notes
    if path is not None:
        try:
            rebuild.archive(path, ctx.workspace / "archive" / student / layout.chapter)
        except (OSError, ValueError) as err:
            outcome.notes.append(f"could not archive the original: {err}")
    rebuilt = rebuild.rebuild(path, layout.release)
    if not ctx.settings.rebuild:
        rebuilt = _as_submitted(path, layout, rebuilt)
    outcome.sha256 = rebuilt.sha256
    outcome.notes += rebuilt.notes
    for reason in rebuilt.review:
        outcome.review(reason)
    if rebuilt.quarantine or rebuilt.notebook is None:
        outcome.state = "quarantined"
        outcome.reasons.insert(0, rebuilt.quarantine or "the release could not be read")
        outcome.seconds = time.perf_counter() - started
        return outcome
    outcome.written_answered = any(w in rebuilt.answered for w in layout.written)
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
    flagged = _flags_in_source([rebuilt.answers.get(a, "") for a in layout.answers
                                if a in rebuilt.answered])
    work = ctx.workspace / "sandbox" / student
    verdicts = {}
    for name in layout.answers:
        if name not in ctx.plan.exercises:
            continue
        exercise_dir = work / name
        shutil.rmtree(exercise_dir, ignore_errors=True)
        exercise_dir.mkdir(parents=True)
        verdict = recheck_exercise(ctx.plan.exercises[name], sources, ctx.runtime,
                                   exercise_dir, ctx.settings)
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

    scores, autograded, problem = notebook_verdict(
        layout, rebuilt.notebook, student, ctx.workspace / "students" / student,
        ctx.template_db, ctx.runtime, ctx.notebook_refs, ctx.settings)
    outcome.autograded_notebook = autograded
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
    settings: Settings = Settings()


_ASSIGNMENTS: dict[str, Path] = {}  # hash of the source notebook -> a pristine generated copy


def _record_assignment(workspace: Path, chapter: str) -> None:
    """``nbgrader generate_assignment`` into the workspace (release + gradebook with the
    hidden tests). It takes seconds, so within one process a pristine result is reused for
    the same source notebook."""
    source = pipeline.SOLUTIONS / chapter / f"{chapter}.ipynb"
    key = hashlib.sha256(source.read_bytes() + chapter.encode()).hexdigest()
    if (workspace / "gradebook.db").exists() or key not in _ASSIGNMENTS:
        pipeline.prepare_workspace(workspace, [chapter])
        if not (workspace / "submitted").exists():
            keep = Path(tempfile.mkdtemp(prefix="rt-assignment-"))
            shutil.copy(workspace / "gradebook.db", keep / "gradebook.db")
            shutil.copytree(workspace / "release", keep / "release")
            _ASSIGNMENTS[key] = keep
        return
    shutil.copy(_ASSIGNMENTS[key] / "gradebook.db", workspace / "gradebook.db")
    shutil.copytree(_ASSIGNMENTS[key] / "release", workspace / "release", dirs_exist_ok=True)


def prepare(workspace: Path, chapter: str, seed: int | None = None,
            settings: Settings = Settings()) -> GradingContext:
    """Record the chapter in the gradebook, draw the run's seed, compute references."""
    workspace.mkdir(parents=True, exist_ok=True)
    _record_assignment(workspace, chapter)
    release = workspace / "release" / chapter / f"{chapter}.ipynb"
    layout = Layout.read(release, chapter)
    private = workspace / "private"
    plan = trusted.prepare_run(private / "run", list(layout.answers), seed,
                               default_seeds=not settings.fresh_seed)
    shared = workspace / "shared"
    shared.mkdir(exist_ok=True)
    refs = trusted.notebook_references(shared / "notebook_references.json", layout.answers)
    os.chmod(shared, 0o755)
    os.chmod(refs, 0o644)
    template = private / "template"
    shutil.rmtree(template, ignore_errors=True)
    template.mkdir(parents=True)
    shutil.copy(workspace / "gradebook.db", template / "gradebook.db")  # before any student
    status = sandbox.status()
    if not status.available:
        print(f"WARNING: no sandbox ({status.reason}): no student code will run, and every "
              "submission is marked 'needs review'", file=sys.stderr)
    return GradingContext(workspace, layout, plan, make_runtime(workspace / "runtime"),
                          template / "gradebook.db", refs, status.available, status.reason,
                          settings)


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


def record(workspace: Path, outcome: Outcome, layout: Layout) -> None:
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
    student = nbformat.read(outcome.autograded_notebook, as_version=4) \
        if outcome.autograded_notebook else None
    answers = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
               for c in (student.cells if student else [])
               if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if meta.get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
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
    failed.reasons.append(why)
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
    budget = 60 + 12 * (ctx.settings.exercise_timeout + 2 * ctx.settings.cell_timeout)
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
                only: list[str] | None = None, settings: Settings = Settings()) -> list[Outcome]:
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
    finished: list[str] = []
    lock = threading.Lock()
    bar = tqdm(total=len(folders), desc=f"grading {chapter}", unit="student",
               disable=not progress, file=sys.stderr)

    def finish(outcome: Outcome) -> None:
        with lock:
            before = _snapshot(ctx.workspace, finished, chapter)
            record(ctx.workspace, outcome, ctx.layout)
            after = _snapshot(ctx.workspace, finished, chapter)
            changed = [s for s in finished if before[s] != after[s]]
            if changed:
                outcome.review(f"audit: other students' records changed: {changed}")
            survivors = _survivors() if workers == 1 else []
            if survivors:
                outcome.review(f"audit: {len(survivors)} sandboxed processes survived: "
                               f"{_describe(survivors)}")
            finished.append(outcome.student)
            outcomes[outcome.student] = outcome
            # scratch copies (the mini-course holds the hidden tests nbgrader restored)
            for scratch in ("students", "sandbox"):
                shutil.rmtree(ctx.workspace / scratch / outcome.student, ignore_errors=True)
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
    """``grades.csv`` with the state and reasons of every submission, and ``report.json``."""
    import csv

    tests = sorted({t for o in outcomes for t in o.max_scores})
    path = workspace / "grades.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "chapter", "state", "autograded", "max", *tests,
                         "written_answer", "reasons", "sha256"])
        for o in outcomes:
            written = "needs manual grade" if o.written_answered else "unanswered (0)"
            writer.writerow([o.student, chapter, o.state, f"{o.total:g}", f"{o.max_total:g}",
                             *[f"{o.scores.get(t, 0):g}" for t in tests], written,
                             " | ".join(o.reasons), o.sha256])
    report = [{"student": o.student, "state": o.state, "reasons": o.reasons, "notes": o.notes,
               "scores": o.scores, "notebook_scores": o.notebook_scores, "total": o.total,
               "max": o.max_total, "seconds": round(o.seconds, 2), "sha256": o.sha256}
              for o in outcomes]
    (workspace / "report.json").write_text(json.dumps(report, indent=1))
    return path


def run_feedback(workspace: Path, chapter: str) -> Path:
    """nbgrader's HTML feedback from the feedback-safe notebooks."""
    return pipeline.feedback(workspace, chapter)

