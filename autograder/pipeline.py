"""The instructor's pipeline on top of nbgrader: release, collect, autograde, feedback, export.

Releasing writes ``course/`` in the repository from ``solutions/`` without touching any
gradebook. Grading happens in a *workspace* the instructor names, outside the tracked tree:

    <workspace>/gradebook.db           nbgrader's database
    <workspace>/release/<chapter>/     the release, regenerated with the database
    <workspace>/submitted/<student>/<chapter>/<chapter>.ipynb
    <workspace>/autograded/...         executed, scored notebooks
    <workspace>/feedback/...           HTML feedback per student
    <workspace>/grades.csv             the export

Every nbgrader step runs as its own process (``python -m nbgrader``) started in
``autograder/``, which is where nbgrader finds this course's ``nbgrader_config.py`` (it has no
option naming a config file); each student is autograded by a separate process, so one
submission's failure cannot stop the others.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
COURSE = REPO / "course"
CONFIG = REPO / "autograder" / "nbgrader_config.py"

__all__ = ["chapters", "release", "prepare_workspace", "collect", "autograde", "feedback",
           "export", "results", "CellScore", "StudentResult"]


def chapters() -> list[str]:
    """Chapter folders of ``solutions/`` that hold a notebook of the same name, in order."""
    return sorted(p.name for p in SOLUTIONS.iterdir() if (p / f"{p.name}.ipynb").is_file())


def nbgrader(*args: str, root: Path, quiet: bool = True,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run one nbgrader command on the course rooted at ``root``; raise on failure."""
    cmd = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
           f"--CourseDirectory.source_directory={SOLUTIONS}"]
    if quiet:
        cmd.append("--log-level=WARN")
    # nbgrader runs the `alembic` script of its own environment to manage the gradebook.
    env = dict(env or os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(cmd, cwd=CONFIG.parent, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader {args[0]} failed ({done.returncode}):\n"
                           f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


def release(names: list[str] | None = None, course_dir: Path = COURSE) -> list[Path]:
    """Regenerate the student release of each chapter into ``course_dir`` (no gradebook)."""
    written = []
    for name in names or chapters():
        shutil.rmtree(course_dir / name, ignore_errors=True)
        _generate(name, REPO, course_dir, db=False)
        written.append(course_dir / name / f"{name}.ipynb")
    return written


def _generate(name: str, root: Path, release_dir: Path, *, db: bool) -> None:
    args = ["generate_assignment", name, "--force",
            f"--CourseDirectory.release_directory={release_dir}"]
    if not db:
        args.append("--no-db")
    nbgrader(*args, root=root)


def prepare_workspace(workspace: Path, names: list[str] | None = None) -> None:
    """Create the workspace and record each chapter (with its hidden tests) in its gradebook."""
    workspace.mkdir(parents=True, exist_ok=True)
    for name in names or chapters():
        _generate(name, workspace, workspace / "release", db=True)


def collect(workspace: Path, submissions: Path, chapter: str) -> list[str]:
    """Copy ``submissions/<student>/<chapter>/*.ipynb`` into the workspace; return students."""
    students = []
    for folder in sorted(p for p in submissions.iterdir() if (p / chapter).is_dir()):
        target = workspace / "submitted" / folder.name / chapter
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(folder / chapter, target)
        students.append(folder.name)
    return students


def autograde(workspace: Path, chapter: str, student: str) -> str | None:
    """Autograde one student's submission in its own process; return an error text or None."""
    try:
        nbgrader("autograde", chapter, f"--student={student}", "--create", "--force",
                 root=workspace)
    except RuntimeError as err:
        return reason(str(err))
    return None


def reason(log: str) -> str:
    """The most telling line of a failed nbgrader run (the exception, not the epilogue)."""
    for marker in ("DeadKernelError", "CellTimeoutError", "Error:", "ERROR]"):
        hits = [line.strip() for line in log.splitlines() if marker in line]
        if hits:
            return hits[-1] if marker != "ERROR]" else hits[0]
    return log.strip().splitlines()[-1] if log.strip() else "unknown error"


def autograde_here(root: Path, chapter: str, student: str,
                   settings: dict[str, dict[str, object]]) -> str:
    """``nbgrader autograde`` for one student, in this process, through nbgrader's Python
    API, with this course's configuration plus ``settings``; return "" or what went wrong."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config, PyFileConfigLoader

    config = PyFileConfigLoader(CONFIG.name, path=str(CONFIG.parent)).load_config()
    config.merge(Config({"CourseDirectory": {"root": str(root),
                                             "source_directory": str(SOLUTIONS)}}))
    config.merge(Config(settings))
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    result = api.autograde(chapter, student, force=True, create=True)
    if result.get("success"):
        return ""
    return reason(f"{result.get('log', '')}\n{result.get('error', '')}")


def feedback(workspace: Path, chapter: str) -> Path:
    """HTML feedback for every autograded student of ``chapter``."""
    nbgrader("generate_feedback", chapter, "--force", root=workspace)
    return workspace / "feedback"


def export(workspace: Path, to: Path | None = None) -> Path:
    """The gradebook as CSV (nbgrader's exporter)."""
    target = to or workspace / "grades.csv"
    nbgrader("export", f"--CsvExportPlugin.to={target}", root=workspace)
    return target


@dataclass
class CellScore:
    grade_id: str
    score: float | None
    max_score: float
    needs_manual_grade: bool


@dataclass
class StudentResult:
    student: str
    cells: list[CellScore] = field(default_factory=list)
    error: str | None = None

    @property
    def autograded(self) -> float:
        return sum(c.score or 0.0 for c in self.cells if not c.needs_manual_grade)

    @property
    def autograded_max(self) -> float:
        return sum(c.max_score for c in self.cells if not c.grade_id.startswith("written"))


def results(workspace: Path, chapter: str, students: list[str],
            errors: dict[str, str | None] | None = None) -> list[StudentResult]:
    """Per-cell scores of each student, read back from the workspace's gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    rows = []
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb:
        for student in students:
            row = StudentResult(student, error=(errors or {}).get(student))
            try:
                nb = gb.find_submission_notebook(chapter, chapter, student)
            except MissingEntry:
                rows.append(row)
                continue
            for grade in nb.grades:
                row.cells.append(CellScore(grade.name, grade.score, grade.max_score,
                                           grade.needs_manual_grade))
            rows.append(row)
    return rows
