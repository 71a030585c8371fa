"""The instructor pipeline on the sample class: rebuild, sandboxed trusted re-check, nbgrader
notebook verdict, feedback and export, against the recorded points and states."""

from __future__ import annotations

import csv
import json
import re

import pytest

from autograder.classroom import demo
from autograder.grading import class_run, grade
from autograder.sandbox import bwrap as sandbox
from tests import tiers

pytestmark = [pytest.mark.grading, pytest.mark.slow]

needs_sandbox = pytest.mark.skipif(not sandbox.status().available,
                                   reason=f"no sandbox: {sandbox.status().reason}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    # a release of its own: course/ is read by tests running beside this one
    # (the capstone's sample class, as ``make demo`` grades it, in the full tier)
    summary = demo.run(out / "run", site=False, progress=lambda m: None, course=out / "course",
                       capstone=tiers.FULL)
    return summary


@needs_sandbox
def test_sample_class_grades_to_recorded_points_and_states(graded):
    assert demo.compare_with_recorded(graded["outcomes"]) == []


@needs_sandbox
@pytest.mark.full
def test_the_capstone_sample_class_grades_to_recorded_points_and_states(graded):
    """``make demo``'s second class: capstone submissions (one right in other words than the
    solution's, one mistake each in window_layout and max_pool_window) get the recorded
    points, and each mistake costs its own exercise only."""
    assert graded["capstone"] is not None
    assert demo.compare_with_recorded(graded["capstone"], demo.CAPSTONE) == []
    page = graded["feedback"] / "ivy_correct" / demo.CAPSTONE / f"{demo.CAPSTONE}.html"
    assert page.is_file()


def test_every_capstone_sample_answer_names_an_answer_cell_of_the_release():
    """The capstone sample class's files each replace an answer cell the release has (a
    renamed exercise would leave a sample student silently unanswered)."""
    import nbformat

    from autograder.course import pipeline

    nb = nbformat.read(pipeline.COURSE / demo.CAPSTONE / f"{demo.CAPSTONE}.ipynb", as_version=4)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells
             if c.metadata.get("nbgrader", {}).get("solution")}
    files = {p.stem for p in demo.CAPSTONE_SAMPLE.glob("*/*") if p.suffix in (".py", ".md")}
    assert files and files <= cells, files - cells
    recorded = json.loads((demo.CAPSTONE_SAMPLE / "expected.json").read_text())
    assert set(recorded["points"]) == {p.name for p in demo.CAPSTONE_SAMPLE.iterdir()
                                       if p.is_dir()}


@needs_sandbox
def test_sample_class_covers_the_mistakes_students_make(graded):
    by = {o.student: o for o in graded["outcomes"]}
    assert len(by) >= 5 and by["ada_correct"].total == 20
    assert all(o.total < 20 for s, o in by.items() if s != "ada_correct")
    crash = by["fay_crash"]
    assert crash.state == "needs review"
    assert any("killed its sandbox" in r for r in crash.reasons)
    # the crash costs the crashing exercise only
    assert crash.scores["test_contiguous_strides_hidden"] == 3


@needs_sandbox
def test_grades_csv_shows_states_and_feedback_exists(graded):
    with open(graded["grades_csv"]) as f:
        every = list(csv.DictReader(f))
    # the workspace's one grades.csv: chapter 1's class, and in the full tier the capstone's
    rows = [r for r in every if r["chapter"] == "ch01_storage"]
    by = {r["student"]: r for r in rows}
    assert set(by) == {o.student for o in graded["outcomes"]}
    capstone = {r["student"] for r in every if r["chapter"] == demo.CAPSTONE}
    assert capstone == ({o.student for o in graded["capstone"]} if graded["capstone"] else set())
    assert len(rows) + sum(r["chapter"] == demo.CAPSTONE for r in every) == len(every)
    assert by["fay_crash"]["state"] == "needs review" and by["fay_crash"]["reasons"]
    eve = [r for r in rows if r["student"] == "eve_untouched"]
    assert eve[0]["state"] == "graded"
    assert {r["points"] for r in eve} == {"0"}  # every test, and the unanswered written one
    for o in graded["outcomes"]:
        page = graded["feedback"] / o.student / "ch01_storage" / "ch01_storage.html"
        assert page.is_file() and page.stat().st_size > 1000


@needs_sandbox
def test_feedback_has_no_hidden_tests_or_solutions(graded):
    from tests.notebooks import readable_text, secret_lines

    hidden = secret_lines("ch01_storage", solutions=False)
    assert hidden
    for page in graded["feedback"].rglob("*.html"):
        text = readable_text(page)
        # (the notebook tells students, in general words, to run check with hidden=True)
        assert not re.search(r'check\(\\?"\w+\\?", \w+, hidden=True\)', text)
        assert "BEGIN HIDDEN" not in text
        assert not [line for line in hidden if line in text]


@needs_sandbox
def test_table_shows_every_student_state_and_reason(graded):
    text = demo.table(graded["outcomes"])
    for o in graded["outcomes"]:
        assert o.student in text
    assert "needs review" in text and "killed its sandbox" in text


def test_without_a_sandbox_no_student_code_runs_and_every_submission_says_so(
        monkeypatch, tmp_path):
    """Where bubblewrap is missing, grading refuses to run student code unconfined and marks
    every submission 'needs review' with the reason, instead of a silent zero."""
    import nbformat

    from autograder.course import pipeline

    marker = tmp_path / "student-code-ran"
    nb = nbformat.read(pipeline.COURSE / "ch01_storage" / "ch01_storage.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "storage_index":
            cell.source = f"open({str(marker)!r}, 'w').close()\n" + cell.source
    folder = tmp_path / "inbox" / "mallory" / "ch01_storage"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "ch01_storage.ipynb")
    monkeypatch.setattr(sandbox, "status", lambda: sandbox.Status(
        False, "bwrap not found", None, None))
    [outcome] = class_run.grade_class(tmp_path / "ws", tmp_path / "inbox", "ch01_storage",
                                  progress=False)
    assert outcome.state == "needs review"
    assert any("no sandbox" in r and "bwrap not found" in r for r in outcome.reasons)
    assert not marker.exists()
    assert "needs review" in (tmp_path / "ws" / "grades.csv").read_text()


@needs_sandbox
def test_results_do_not_depend_on_worker_count_or_order(tmp_path):
    from autograder.course import pipeline

    inbox = tmp_path / "inbox"
    demo.build_submissions(pipeline.COURSE, inbox)
    keep = tiers.pick({"ada_correct", "fay_crash"}, {"ada_correct", "ben_colmajor", "fay_crash"})
    for folder in inbox.iterdir():
        if folder.name not in keep:
            import shutil

            shutil.rmtree(folder)
    runs = []
    for workers in (1, 2):
        outcomes = class_run.grade_class(tmp_path / f"ws{workers}", inbox, "ch01_storage",
                                     workers=workers, seed=20261121, progress=False)
        runs.append({o.student: (o.scores, o.state, o.reasons) for o in outcomes})
    assert runs[0] == runs[1] and set(runs[0]) == keep


@needs_sandbox
def test_a_bug_only_drawn_inputs_show_is_graded_with_the_input_in_its_feedback(graded):
    """gus_empty's is_contiguous is wrong only on inputs the hidden test draws: graded (not
    "needs review"), and its feedback quotes the smallest failing drawn input, which torch
    itself confirms is one the answer gets wrong."""
    import torch

    from tests.notebooks import readable_text

    gus = {o.student: o for o in graded["outcomes"]}["gus_empty"]
    assert gus.state == "graded", gus.reasons
    message = gus.hidden_failures["is_contiguous"]
    call, truth, expected, got = message.splitlines()
    assert call.startswith("is_contiguous(") and truth.lstrip().startswith("truth:")
    shape, stride = eval(call.removeprefix("is_contiguous"))  # noqa: S307 - our own repr
    answer = got.split("got:", 1)[1].strip()
    assert answer in ("True", "False")
    assert torch.empty_strided(shape, stride).is_contiguous() != (answer == "True")
    page = graded["feedback"] / "gus_empty" / "ch01_storage" / "ch01_storage.html"
    assert call in readable_text(page)


@pytest.mark.parametrize("wall, runs, cpu, wait, flagged", [
    (30.0, 20.0, 18.0, 2.0, False),   # an honest submission on an idle host
    (70.0, 65.0, 20.0, 45.0, False),  # the same on a loaded host: the wait is not counted
    (70.0, 65.0, 5.0, 1.0, True),     # one that sleeps: no wait to leave out
    (40.0, 38.0, 70.0, 36.0, True),   # one that keeps many CPUs busy: its CPU time counts
])
def test_the_time_rule_leaves_out_the_wait_for_a_busy_cpu(wall, runs, cpu, wait, flagged):
    """A submission is flagged when it used more than half its budget (120 s), counting its
    wall time less the time its sandboxes waited for a CPU, or their CPU time."""
    from autograder.sandbox.bwrap import Usage

    outcome = grade.Outcome("ada", seconds=wall)
    used = Usage(runs=6, seconds=runs, cpu_seconds=cpu, wait_seconds=wait,
                 unloaded_seconds=runs - wait)
    grade._time_rule(outcome, used, grade.Settings())
    assert (outcome.state == "needs review") == flagged, outcome.reasons
    assert outcome.wait_seconds == wait and outcome.cpu_seconds == cpu
    if flagged:
        assert outcome.reasons[0].startswith("took ") and "time budget" in outcome.reasons[0]


def test_a_pristine_course_is_generated_once_per_version_of_its_sources(tmp_path, monkeypatch):
    """Grading runs in other processes reuse the chapter's pristine course (nbgrader's
    ``generate_assignment`` takes seconds); a change to the chapter's sources makes a new one;
    a keeping folder that is not this user's own and private is never used."""
    import os
    import shutil
    import tempfile

    from autograder.course import pipeline

    generated = []

    def generate(folder, names):  # what prepare_workspace leaves that grading reads
        generated.append(folder)
        (folder / "gradebook.db").write_text("db")
        (folder / "release").mkdir()

    solutions = tmp_path / "solutions"
    shutil.copytree(pipeline.SOLUTIONS / "ch01_storage", solutions / "ch01_storage")
    monkeypatch.setattr(pipeline, "SOLUTIONS", solutions)
    monkeypatch.setattr(pipeline, "prepare_workspace", generate)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(grade, "_PRISTINE", {})

    first = grade._pristine("ch01_storage")
    monkeypatch.setattr(grade, "_PRISTINE", {})  # as a new process would start
    assert grade._pristine("ch01_storage") == first
    assert len(generated) == 1 and first.parent == tmp_path / f"reftensor-pristine-{os.geteuid()}"
    assert oct(first.parent.stat().st_mode & 0o777) == oct(0o700)
    # an editor's checkpoint or bytecode beside the notebook is not part of the sources
    (solutions / "ch01_storage" / "__pycache__").mkdir()
    (solutions / "ch01_storage" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    monkeypatch.setattr(grade, "_PRISTINE", {})
    assert grade._pristine("ch01_storage") == first and len(generated) == 1

    notebook = solutions / "ch01_storage" / "ch01_storage.ipynb"
    notebook.write_text(notebook.read_text() + "\n")
    monkeypatch.setattr(grade, "_PRISTINE", {})
    second = grade._pristine("ch01_storage")
    assert second != first and len(generated) == 2

    # another user could have made the folder first: a shared one is never trusted
    os.chmod(first.parent, 0o777)
    monkeypatch.setattr(grade, "_PRISTINE", {})
    third = grade._pristine("ch01_storage")
    assert third.parent != first.parent and len(generated) == 3
    os.chmod(first.parent, 0o700)
