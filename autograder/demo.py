"""The demo class: six chapter-1 submissions, graded end to end with the real pipeline.

Each folder of ``sample_class/`` is one student: ``<grade_id>.py`` (or ``.md`` for the written
answer) replaces that answer cell of the release notebook; an answer cell without a file is
left as released. ``sample_class/expected.json`` records the points each test cell must get.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import nbformat

from . import pipeline

SAMPLE = Path(__file__).resolve().parent / "sample_class"
CHAPTER = "ch01_storage"


def expected_points() -> dict[str, dict[str, float]]:
    """Recorded points per student and test cell (a test checks the pipeline gives these)."""
    return json.loads((SAMPLE / "expected.json").read_text())["points"]


def build_submissions(release_dir: Path, out: Path) -> list[str]:
    """Write one submitted notebook per sample student into ``out/<student>/<chapter>/``."""
    released = nbformat.read(release_dir / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    students = []
    for folder in sorted(p for p in SAMPLE.iterdir() if p.is_dir()):
        nb = nbformat.from_dict(json.loads(json.dumps(released)))
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if not meta.get("solution"):
                continue
            suffix = ".md" if cell.cell_type == "markdown" else ".py"
            answer = folder / f"{meta['grade_id']}{suffix}"
            if answer.exists():
                cell.source = answer.read_text().rstrip("\n")
        target = out / folder.name / CHAPTER
        target.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target / f"{CHAPTER}.ipynb")
        students.append(folder.name)
    return students


def run(out: Path, *, site: bool = True, progress=print) -> dict:
    """Release, collect, autograde, feedback, export and (optionally) build the site.

    Returns a summary dict: rows (``StudentResult``), paths, seconds taken.
    """
    started = time.perf_counter()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    workspace = out / "workspace"

    progress("1/6 regenerating the release (course/) from solutions/")
    pipeline.release([CHAPTER])
    progress("2/6 writing the sample class's submissions")
    incoming = out / "incoming"
    build_submissions(pipeline.COURSE, incoming)
    progress("3/6 recording the assignment in a fresh gradebook")
    pipeline.prepare_workspace(workspace, [CHAPTER])
    students = pipeline.collect(workspace, incoming, CHAPTER)
    errors = {}
    for student in students:
        progress(f"4/6 autograding {student}")
        errors[student] = pipeline.autograde(workspace, CHAPTER, student)
    progress("5/6 feedback and grades.csv")
    feedback_dir = pipeline.feedback(workspace, CHAPTER)
    grades_csv = pipeline.export(workspace)
    site_index = None
    if site:
        progress("6/6 building the website")
        from .site import build_site

        site_index = build_site(pipeline.COURSE, out / "site")
    rows = pipeline.results(workspace, CHAPTER, students, errors)
    return {"rows": rows, "workspace": workspace, "feedback": feedback_dir,
            "grades_csv": grades_csv, "site": site_index,
            "seconds": time.perf_counter() - started}


EXERCISE_COLUMNS = [("storage_index", "index"), ("contiguous_strides", "strides"),
                    ("is_contiguous", "contig"), ("sliding_windows", "windows"),
                    ("channels_last_strides", "ch_last")]


def state(row: pipeline.StudentResult) -> str:
    """``graded``, or ``autograde failed`` when nbgrader recorded no result."""
    return "graded" if row.cells and not row.error else "autograde failed"


def table(rows: list[pipeline.StudentResult]) -> str:
    """The grade table: per exercise, visible+hidden points; totals; the written answer."""
    lines = [f"{'student':<15}" + "".join(f"{short:>9}" for _, short in EXERCISE_COLUMNS)
             + f"{'auto':>8}{'written':>9}  state",
             f"{'(visible+hidden)':<15}" + "".join(f"{'1+3':>9}" for _ in EXERCISE_COLUMNS)]
    for r in rows:
        scores = {c.grade_id: c for c in r.cells}
        cells = ""
        for name, _ in EXERCISE_COLUMNS:
            v, h = scores.get(f"test_{name}_visible"), scores.get(f"test_{name}_hidden")
            cells += f"{_pts(v) + '+' + _pts(h) if v or h else '-':>9}"
        written = scores.get("written_traversal")
        manual = "manual" if written and written.needs_manual_grade else (
            _pts(written) + "/2" if written else "-")
        total = f"{r.autograded:g}/{r.autograded_max:g}" if r.cells else "-"
        lines.append(f"{r.student:<15}{cells}{total:>8}{manual:>9}  {state(r)}")
    return "\n".join(lines)


def _pts(cell: pipeline.CellScore | None) -> str:
    return "?" if cell is None or cell.score is None else f"{cell.score:g}"


def _cell_order(grade_id: str) -> tuple[int, str]:
    order = ["storage_index", "contiguous_strides", "is_contiguous", "sliding_windows",
             "channels_last_strides"]
    for i, name in enumerate(order):
        if name in grade_id:
            return i, grade_id
    return len(order), grade_id


def compare_with_recorded(rows: list[pipeline.StudentResult]) -> list[str]:
    """Every difference between the pipeline's scores and ``expected.json``."""
    recorded = json.loads((SAMPLE / "expected.json").read_text())
    problems = []
    for r in rows:
        if state(r) != recorded["state"].get(r.student):
            problems.append(f"{r.student}: state {state(r)!r}, recorded "
                            f"{recorded['state'].get(r.student)!r}")
        got = {c.grade_id: c.score for c in r.cells if c.grade_id.startswith("test_")}
        want = recorded["points"].get(r.student)
        if got != want:
            problems.append(f"{r.student}: points {got}, recorded {want}")
    missing = set(recorded["points"]) - {r.student for r in rows}
    problems += [f"{s}: recorded but not graded" for s in sorted(missing)]
    return problems
