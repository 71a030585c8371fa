"""Chapters without their demos: what the fast tier's grading-machinery tests grade.

An attack on the grader does not depend on the chapter's teaching cells: every sample's answers
go into the answer cells, and the grader runs the same steps whatever else the notebook holds.
But the notebook's own run (nbgrader in a sandbox, one per submission) executes every cell, and
chapter 1's demos (torch and matplotlib imported, tensors printed on both libraries, a timing
loop) are about half of a submission's grading time. The fast tier therefore grades the corpora
on chapter 1 as the instructor wrote it less its demo cells: every markdown cell, the first code
cell (the imports the answers and checks use) and every cell nbgrader grades or marks as an
answer, unchanged and in order. ``make test-full`` grades them on the chapter as released. The
cluster tests, whose failure modes (what a cluster records, a killed worker, a lost scheduler)
do not depend on what the chapter teaches either, grade chapter 1 made lean the same way; each
chapter's own grading test, the sample class, the term and the load test grade the chapters as
released.

:func:`lean_course` writes that source notebook and its student release (``nbgrader
generate_assignment``, as ``make release`` runs it) under a folder of the test's own;
:func:`use_lean_course` points the grading pipeline at them for one test module (a grading
command started as a process of its own still reads the real ones).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from autograder.course import pipeline

CHAPTER = "ch01_storage"


def lean_cells(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``cells`` less every code cell after the first that nbgrader neither grades nor marks
    as an answer (the chapter's demos)."""
    kept, first = [], True
    for cell in cells:
        marked = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or first or marked.get("grade") or marked.get("solution"):
            kept.append(cell)
        first = first and cell["cell_type"] != "code"
    return kept


def lean_course(root: Path, chapters: tuple[str, ...] = (CHAPTER,)) -> tuple[Path, Path]:
    """Write each chapter's source notebook less its demos to ``root/solutions`` and its
    release to ``root/course``; return the two folders (what ``pipeline.SOLUTIONS`` and
    ``pipeline.COURSE`` are for the real chapters)."""
    solutions, course = root / "solutions", root / "course"
    real = pipeline.SOLUTIONS
    for chapter in chapters:
        source = json.loads((real / chapter / f"{chapter}.ipynb").read_text())
        source["cells"] = lean_cells(source["cells"])
        (solutions / chapter).mkdir(parents=True, exist_ok=True)
        (solutions / chapter / f"{chapter}.ipynb").write_text(json.dumps(source, indent=1))
    pipeline.SOLUTIONS = solutions
    try:
        for chapter in chapters:
            pipeline.nbgrader("generate_assignment", chapter, "--force", "--no-db",
                              f"--CourseDirectory.release_directory={course}", root=root)
    finally:
        pipeline.SOLUTIONS = real
    return solutions, course


@contextmanager
def use_lean_course(root: Path, chapters: tuple[str, ...] = (CHAPTER,)) -> Iterator[None]:
    """While open, the grading pipeline reads the chapters' sources and releases from
    :func:`lean_course`'s folders (submissions are written from those releases, and the
    grader's pristine courses are generated from those sources)."""
    solutions, course = lean_course(root, chapters)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "SOLUTIONS", solutions)
        patch.setattr(pipeline, "COURSE", course)
        yield
