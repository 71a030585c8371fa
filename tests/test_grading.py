"""The instructor pipeline on the sample class: real nbgrader, recorded points."""

from __future__ import annotations

import csv

import pytest

from autograder import demo

pytestmark = [pytest.mark.grading, pytest.mark.slow]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return demo.run(tmp_path_factory.mktemp("demo"), site=False, progress=lambda m: None)


def test_sample_class_grades_to_recorded_points(graded):
    assert demo.compare_with_recorded(graded["rows"]) == []


def test_sample_class_covers_the_mistakes_students_make(graded):
    totals = {r.student: r.autograded for r in graded["rows"]}
    assert len(totals) >= 5
    assert totals["ada_correct"] == 20
    assert all(totals[s] < 20 for s in totals if s != "ada_correct")
    states = {r.student: demo.state(r) for r in graded["rows"]}
    assert states["fay_crash"] == "autograde failed"
    assert "DeadKernelError" in next(r.error for r in graded["rows"] if r.student == "fay_crash")


def test_grades_csv_and_feedback_exist(graded):
    with open(graded["grades_csv"]) as f:
        rows = list(csv.DictReader(f))
    assert {r["student_id"] for r in rows} == {r.student for r in graded["rows"]}
    for r in graded["rows"]:
        if demo.state(r) == "graded":
            page = graded["feedback"] / r.student / "ch01_storage" / "ch01_storage.html"
            assert page.is_file() and page.stat().st_size > 1000


def test_table_shows_every_student_and_state(graded):
    text = demo.table(graded["rows"])
    for r in graded["rows"]:
        assert r.student in text
    assert "autograde failed" in text and "20/20" in text
