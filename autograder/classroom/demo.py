"""The demo classes, graded end to end with the real pipeline: seven chapter-1 submissions
(``sample_class/``) and a few of the capstone, chapter 10 (``sample_capstone/``).

Each folder of a sample class is one student: ``<grade_id>.py`` (or ``.md`` for the written
answer) replaces that answer cell of the release notebook. A ``based_on`` file names another
student of the same class whose answers this one shares wherever it has no file of its own; an
answer cell with no file either way is left as released. Each class's ``expected.json``
records the points and state each submission must get.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat

from autograder.course import edition, pipeline

SAMPLE = Path(__file__).resolve().parent / "sample_class"
CHAPTER = "ch01_storage"
CAPSTONE_SAMPLE = Path(__file__).resolve().parent / "sample_capstone"
CAPSTONE = "ch10_capstone"
#: each sample class, by the chapter its students submit
CLASSES = {CHAPTER: SAMPLE, CAPSTONE: CAPSTONE_SAMPLE}


def build_submissions(release_dir: Path, out: Path, chapter: str = CHAPTER) -> list[str]:
    """Write one submitted notebook per student of ``chapter``'s sample class into
    ``out/<student>/<chapter>/``."""
    released = nbformat.read(release_dir / chapter / f"{chapter}.ipynb", as_version=4)
    students = []
    for folder in sorted(p for p in CLASSES[chapter].iterdir() if p.is_dir()):
        nb = nbformat.from_dict(json.loads(json.dumps(released)))
        answers = _answers(folder)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution") and meta["grade_id"] in answers:
                cell.source = answers[meta["grade_id"]]
        target = out / folder.name / chapter
        target.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target / f"{chapter}.ipynb")
        students.append(folder.name)
    return students


def _answers(folder: Path) -> dict[str, str]:
    """grade_id -> answer source for one sample student, following ``based_on``."""
    base = folder / "based_on"
    answers = _answers(folder.parent / base.read_text().strip()) if base.exists() else {}
    for path in sorted(folder.glob("*.py")) + sorted(folder.glob("*.md")):
        answers[path.stem] = path.read_text().rstrip("\n")
    return answers


def run(out: Path, *, site: bool = True, workers: int = 2, progress=print,
        course: Path | None = None, capstone: bool = True) -> dict:
    """Release, collect, grade (trusted re-check in sandboxes), feedback, export, site:
    chapter 1's sample class, then (``capstone``) the capstone's, in one workspace.

    ``course``: where the release is regenerated (the repository's ``course/`` by default,
    as ``make demo`` does; the test suite gives a folder of its own, so that nothing else
    reading ``course/`` meanwhile sees it half written).

    Returns a summary dict: outcomes (chapter 1's ``grade.Outcome`` list), capstone (the
    capstone's, or None), paths, seconds taken.
    """
    from autograder.classroom import feedback
    from autograder.grading import class_run

    started = time.perf_counter()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    workspace = out / "workspace"

    course = pipeline.COURSE if course is None else course
    chapters = [CHAPTER, CAPSTONE] if capstone else [CHAPTER]
    progress(f"1/5 regenerating the release ({course.name}/) from solutions/")
    pipeline.release(chapters, course_dir=course)
    by_chapter = {}
    for chapter in chapters:
        progress(f"2/5 writing the {chapter} sample class's submissions")
        incoming = out / "incoming" / chapter
        build_submissions(course, incoming, chapter)
        progress(f"3/5 grading {len(list(incoming.iterdir()))} {chapter} submissions "
                 f"({workers} workers)")
        with _published(EARLIER if chapter == CAPSTONE else [], out):
            by_chapter[chapter] = class_run.grade_class(workspace, incoming, chapter,
                                                        workers=workers, progress=True)
    outcomes = by_chapter[CHAPTER]
    progress("4/5 feedback")
    for chapter in chapters:
        feedback_dir = feedback.generate(workspace, chapter)
    site_index = None
    if site:
        progress("5/5 building the website")
        from autograder.course.site import build_site

        site_index = build_site(course, out / "site")
    return {"outcomes": outcomes, "capstone": by_chapter.get(CAPSTONE),
            "workspace": workspace, "feedback": feedback_dir,
            "grades_csv": workspace / "grades.csv", "site": site_index,
            "seconds": time.perf_counter() - started}


def table(outcomes: list) -> str:
    """The grade table of one chapter's outcomes: per exercise, visible+hidden points (the
    columns come from the chapter's own tests); the autograded total; the written answer;
    the state, and each reason on a line of its own."""
    exercises: dict[str, dict[str, float]] = {}  # exercise -> kind -> max points
    written = 0.0
    for o in outcomes:
        for test, most in o.max_scores.items():
            name, _, kind = test.removeprefix("test_").rpartition("_")
            exercises.setdefault(name, {})[kind] = most
        written = max(written, sum(o.written_points.values()))
    width = {name: max(7, min(len(name), 12)) + 2 for name in exercises}
    student_width = max([15, *(len(o.student) + 2 for o in outcomes)])
    lines = [f"{'student':<{student_width}}"
             + "".join(f"{name[:width[name] - 2]:>{width[name]}}" for name in exercises)
             + f"{'auto':>8}{'written':>9}  state",
             f"{'(visible+hidden)':<{student_width}}"
             + "".join(f"{'+'.join(f'{p:g}' for p in kinds.values()):>{width[name]}}"
                       for name, kinds in exercises.items())]
    for o in outcomes:
        cells = "".join(
            "+".join(_pts(o.scores.get(f"test_{name}_{kind}")) for kind in kinds)
            .rjust(width[name]) for name, kinds in exercises.items())
        hand = "manual" if o.written_answered else f"0/{written:g}"
        total = f"{o.total:g}/{o.max_total:g}"
        lines.append(f"{o.student:<{student_width}}{cells}{total:>8}{hand:>9}  {o.state}")
        for reason in o.reasons:
            lines.append(f"{'':<{student_width + 2}}- {reason}")
    return "\n".join(lines)


def _pts(score: float | None) -> str:
    return "?" if score is None else f"{score:g}"


#: the chapters whose pieces the capstone's training exercise runs on: a class grades the
#: capstone after their deadlines, with them published (``autograder/course/published.txt``)
EARLIER = ["ch01_storage", "ch02_views", "ch03_broadcasting", "ch04_dtype_device",
           "ch05_autograd", "ch06_modules", "ch07_data", "ch08_rng", "ch09_dispatch"]


@contextmanager
def _published(chapters: list[str], out: Path) -> Iterator[None]:
    """While open, the grader's sandboxes hold these chapters' reference bodies too, as
    they would after their deadlines (a list of the demo's own, under ``out``; the
    repository's ``published.txt`` is left as it is). No chapter: nothing changes."""
    if not chapters:
        yield
        return
    listed = out / "published.txt"
    listed.write_text("".join(f"{c}\n" for c in [*edition.published_chapters(), *chapters]))
    saved, edition.PUBLISHED = edition.PUBLISHED, listed
    try:
        yield
    finally:
        edition.PUBLISHED = saved


def compare_with_recorded(outcomes: list, chapter: str = CHAPTER) -> list[str]:
    """Every difference between the grader's results and the sample class's
    ``expected.json``."""
    recorded = json.loads((CLASSES[chapter] / "expected.json").read_text())
    problems = []
    for o in outcomes:
        if o.state != recorded["state"].get(o.student):
            problems.append(f"{o.student}: state {o.state!r}, recorded "
                            f"{recorded['state'].get(o.student)!r} ({o.reasons})")
        want = recorded["points"].get(o.student)
        if o.scores != want:
            problems.append(f"{o.student}: points {o.scores}, recorded {want}")
    missing = set(recorded["points"]) - {o.student for o in outcomes}
    problems += [f"{s}: recorded but not graded" for s in sorted(missing)]
    return problems
