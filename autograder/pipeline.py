"""The instructor's pipeline on top of nbgrader: release, collect, autograde, feedback, export.

Releasing writes ``course/`` in the repository from ``solutions/`` without touching any
gradebook. Grading happens in a *workspace* the instructor names, outside the tracked tree
(``autograder.grade`` runs nbgrader's autograding itself, inside the sandbox):

    <workspace>/gradebook.db           nbgrader's database
    <workspace>/release/<chapter>/     the release, regenerated with the database
    <workspace>/submitted/<student>/<chapter>/<chapter>.ipynb
    <workspace>/autograded/...         executed, scored notebooks
    <workspace>/feedback/...           HTML feedback per student
    <workspace>/grades.csv             the grader's export, with each submission's state

nbgrader commands run as their own process (``python -m nbgrader``) started in
``autograder/``, which is where nbgrader finds this course's ``nbgrader_config.py`` (it has no
option naming a config file).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
COURSE = REPO / "course"
CONFIG = REPO / "autograder" / "nbgrader_config.py"

__all__ = ["chapters", "release", "prepare_workspace", "feedback", "export"]


def chapters() -> list[str]:
    """Chapter folders of ``solutions/`` that hold a notebook of the same name, in order."""
    return sorted(p.name for p in SOLUTIONS.iterdir() if (p / f"{p.name}.ipynb").is_file())


def nbgrader(*args: str, root: Path,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run one nbgrader command on the course rooted at ``root``; raise on failure."""
    cmd = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
           f"--CourseDirectory.source_directory={SOLUTIONS}", "--log-level=WARN"]
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


def feedback(workspace: Path, chapter: str) -> Path:
    """HTML feedback for every autograded student of ``chapter``."""
    nbgrader("generate_feedback", chapter, "--force", root=workspace)
    return workspace / "feedback"


def export(workspace: Path, to: Path | None = None) -> Path:
    """The gradebook as CSV (nbgrader's exporter, with manual grades; no states). The
    grader's own ``grades.csv``, with each submission's state, is written by grading."""
    target = to or workspace / "nbgrader_grades.csv"
    nbgrader("export", f"--CsvExportPlugin.to={target}", root=workspace)
    return target
