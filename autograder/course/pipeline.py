"""The course as an nbgrader course: release, the grading workspace, export.

Releasing writes ``course/`` in the repository from ``solutions/`` without touching any
gradebook. Grading happens in a *workspace* the instructor names, outside the tracked tree
(``autograder.grading`` runs nbgrader's autograding itself, inside the sandbox;
``autograder.classroom.feedback`` writes the feedback pages):

    <workspace>/gradebook.db           nbgrader's database
    <workspace>/release/<chapter>/     the release, regenerated with the database
    <workspace>/submitted/<student>/<chapter>/<chapter>.ipynb
    <workspace>/autograded/...         executed, scored notebooks
    <workspace>/feedback/...           HTML feedback per student
    <workspace>/grades.csv             the grader's export, with each submission's state

nbgrader commands run as their own process (``python -m nbgrader``) started in
``autograder/course/``, which is where nbgrader finds this course's ``nbgrader_config.py`` (it has
no option naming a config file).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.course import edition

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO / "solutions"
COURSE = REPO / "course"
CONFIG = REPO / "autograder" / "course" / "nbgrader_config.py"

__all__ = ["chapters", "nbgrader", "release", "prepare_workspace", "course_files",
           "jupyter_path_first", "export"]


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
    """Regenerate the student release of each chapter into ``course_dir`` (no gradebook),
    and the student edition of reftensor beside them (``course_dir/reftensor``, with the
    pieces of the chapters in ``autograder/course/published.txt`` published)."""
    written = []
    for name in names or chapters():
        shutil.rmtree(course_dir / name, ignore_errors=True)
        _generate(name, REPO, course_dir, db=False)
        written.append(course_dir / name / f"{name}.ipynb")
    edition.write_student_edition(course_dir, published=edition.published_chapters())
    written.append(course_dir / "reftensor")
    return written


def _generate(name: str, root: Path, release_dir: Path, *, db: bool) -> None:
    args = ["generate_assignment", name, "--force",
            f"--CourseDirectory.release_directory={release_dir}"]
    if not db:
        args.append("--no-db")
    nbgrader(*args, root=root)


def prepare_workspace(workspace: Path, names: list[str] | None = None) -> None:
    """Create the workspace and record each chapter (with its hidden tests) in its gradebook;
    make the workspace a complete nbgrader course for Formgrader (``course_files``)."""
    workspace.mkdir(parents=True, exist_ok=True)
    for name in names or chapters():
        _generate(name, workspace, workspace / "release", db=True)
        course_files(workspace, name)


WORKSPACE_CONFIG = """\
# Written by `python -m autograder grade`: this workspace as an nbgrader course, for the
# instructor's Formgrader (start Jupyter in this folder). Rewritten on every grading run.
c = get_config()  # noqa: F821
load_subconfig({course_config!r})  # noqa: F821 - the course's own nbgrader settings
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.Exchange.root = {exchange!r}
"""


def course_files(workspace: Path, chapter: str) -> None:
    """What Formgrader needs besides the gradebook to list ``chapter``, its submissions and
    its written answers: the chapter's source notebook under ``source/`` (nbgrader lists
    assignments from there) and a ``nbgrader_config.py`` naming this folder as the course.
    ``source/`` holds solutions and hidden tests: folders 0700, files 0600."""
    folder = workspace / "source" / chapter
    folder.mkdir(parents=True, exist_ok=True)
    for path in (workspace / "source", folder):
        os.chmod(path, 0o700)
    target = folder / f"{chapter}.ipynb"
    shutil.copyfile(SOLUTIONS / chapter / f"{chapter}.ipynb", target)
    os.chmod(target, 0o600)
    config = workspace / "nbgrader_config.py"
    config.write_text(WORKSPACE_CONFIG.format(
        course_config=str(CONFIG), root=str(workspace), exchange=str(workspace / "exchange")))
    os.chmod(config, 0o600)


def jupyter_path_first(env: dict[str, str], folder: Path) -> dict[str, str]:
    """``env`` with ``folder`` first on its JUPYTER_PATH."""
    paths = [str(folder), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))]
    return {**env, "JUPYTER_PATH": os.pathsep.join(paths)}


def export(workspace: Path, to: Path | None = None) -> Path:
    """The gradebook as CSV (nbgrader's exporter, with manual grades; no states). The
    grader's own ``grades.csv``, with each submission's state, is written by grading."""
    target = to or workspace / "nbgrader_grades.csv"
    nbgrader("export", f"--CsvExportPlugin.to={target}", root=workspace)
    return target
