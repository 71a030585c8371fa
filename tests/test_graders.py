"""``autograder/graders.py``: what root takes from the hub's Formgrader, and how it reads it.

The grader account's process is replaced here by what it might print (the end-to-end path,
with a real account and the real Formgrader in a browser, is in ``tests/test_hub.py``); the
workspace's gradebook is a real nbgrader gradebook with one chapter, one written answer and
one test cell.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from autograder import graders

CH = "ch01_storage"
WRITTEN, TEST = "written_traversal", "test_storage_index"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from nbgrader.api import Gradebook

    folder = tmp_path_factory.mktemp("template")
    # a new gradebook is made by nbgrader's `alembic`, found on PATH
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"
    try:
        with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
            gb.add_assignment(CH)
            gb.add_notebook(CH, CH)
            gb.add_grade_cell(WRITTEN, CH, CH, max_score=2, cell_type="markdown")
            gb.add_solution_cell(WRITTEN, CH, CH)
            gb.add_grade_cell(TEST, CH, CH, max_score=3, cell_type="code")
            for student in ("ada", "bob"):
                gb.add_student(student)
                gb.add_submission(CH, student)
            gb.db.commit()
    finally:
        os.environ["PATH"] = path
    return folder / "gradebook.db"


@pytest.fixture()
def workspace(template: Path, tmp_path: Path) -> Path:
    shutil.copyfile(template, tmp_path / "gradebook.db")
    return tmp_path


COURSE = graders.HubCourse("rt", Path("/nonexistent"), "grader-rt", Path("/nonexistent/rt"))


def take(workspace: Path, printed: object, monkeypatch: pytest.MonkeyPatch) -> graders.Exchange:
    monkeypatch.setattr(graders, "_as_account", lambda *a, **k: printed)
    return graders.take_grades(workspace, CH, COURSE)


def stored(workspace: Path, student: str = "ada") -> tuple:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb:
        grade = gb.find_grade(WRITTEN, CH, CH, student)
        comment = gb.find_comment(WRITTEN, CH, CH, student)
        return grade.manual_score, grade.extra_credit, grade.needs_manual_grade, \
            comment.manual_comment


def test_a_grade_and_a_comment_given_in_formgrader_are_taken(workspace, monkeypatch):
    moved = take(workspace, {"grades": [["ada", CH, WRITTEN, 1.5, None],
                                        ["bob", CH, WRITTEN, None, None]],
                             "comments": [["ada", CH, WRITTEN, "Names the stride."],
                                          ["bob", CH, WRITTEN, None]]}, monkeypatch)
    assert (moved.grades, moved.comments, moved.refused) == (1, 1, [])
    assert stored(workspace) == (1.5, None, False, "Names the stride.")
    assert stored(workspace, "bob") == (None, None, True, None)  # not graded there
    # taken again: nothing changes, and nothing given by hand in the workspace is cleared
    again = take(workspace, {"grades": [["ada", CH, WRITTEN, None, None]],
                             "comments": [["ada", CH, WRITTEN, ""]]}, monkeypatch)
    assert (again.grades, again.comments) == (0, 0)
    assert stored(workspace) == (1.5, None, False, "Names the stride.")


@pytest.mark.parametrize("row, why", [
    (["ada", CH, WRITTEN, 2.5, None], "between 0 and 2"),
    (["ada", CH, WRITTEN, -1, None], "between 0 and 2"),
    (["ada", CH, WRITTEN, float("nan"), None], "between 0 and 2"),
    (["ada", CH, WRITTEN, float("inf"), None], "between 0 and 2"),
    (["ada", CH, WRITTEN, "2", None], "not a number"),
    (["ada", CH, WRITTEN, True, None], "not a number"),
    (["ada", CH, WRITTEN, 1, 99], "between 0 and 2"),
    (["eve", CH, WRITTEN, 1, None], "no such graded cell"),
    (["ada", CH, "written_other", 1, None], "no such graded cell"),
    (["ada", "other_notebook", WRITTEN, 1, None], "no such graded cell"),
    (["ada", CH, WRITTEN, 1], "malformed"),
    ([1, CH, WRITTEN, 1, None], "malformed"),
    ("ada", "malformed"),
])
def test_a_grade_root_cannot_accept_is_refused_and_not_written(workspace, monkeypatch, row, why):
    moved = take(workspace, {"grades": [row], "comments": []}, monkeypatch)
    assert moved.grades == 0 and len(moved.refused) == 1 and why in moved.refused[0], moved
    assert stored(workspace) == (None, None, True, None)


@pytest.mark.parametrize("row, why", [
    (["ada", CH, WRITTEN, "x" * (graders.COMMENT_LIMIT + 1)], "at most"),
    (["ada", CH, WRITTEN, ["a list"]], "at most"),
    (["ada", CH, TEST, "a test cell has no comment"], "no such comment"),
    (["mallory\x1b[2J", CH, WRITTEN, "hi"], "no such comment"),
])
def test_a_comment_root_cannot_accept_is_refused(workspace, monkeypatch, row, why):
    moved = take(workspace, {"grades": [], "comments": [row]}, monkeypatch)
    assert moved.comments == 0 and len(moved.refused) == 1 and why in moved.refused[0], moved
    assert "\x1b" not in moved.refused[0]  # a student id is made safe before it is shown
    assert stored(workspace)[3] is None


@pytest.mark.parametrize("printed", [None, [], {"grades": "x", "comments": []},
                                     {"comments": []}])
def test_output_of_the_wrong_shape_is_an_error(workspace, monkeypatch, printed):
    with pytest.raises(graders.GraderAccountError):
        take(workspace, printed, monkeypatch)
    assert stored(workspace) == (None, None, True, None)


def test_run_bounded_reads_json_and_bounds_everything(monkeypatch):
    py = sys.executable
    assert graders.run_bounded([py, "-c", "import sys; print(sys.stdin.read())"],
                               b'{"a": 1}') == {"a": 1}
    with pytest.raises(graders.GraderAccountError, match="not JSON"):  # nested too deep
        graders.run_bounded([py, "-c", "print('[' * 200000 + ']' * 200000)"])
    monkeypatch.setattr(graders, "OUTPUT_LIMIT", 1000)
    with pytest.raises(graders.GraderAccountError, match="more than 1000 bytes"):
        graders.run_bounded([py, "-c", "import sys\nwhile True: sys.stdout.write('x' * 999)"])
    with pytest.raises(graders.GraderAccountError, match="still running"):
        graders.run_bounded([py, "-c", "import time; time.sleep(60)"], timeout=1)
    with pytest.raises(graders.GraderAccountError, match="not JSON"):
        graders.run_bounded([py, "-c", "print('<html>')"])
    with pytest.raises(graders.GraderAccountError, match=r"exited 3: .*\\x1b"):
        graders.run_bounded([py, "-c", "import sys; sys.stderr.write('\\x1b[31mred'); "
                                       "sys.exit(3)"])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to own and chown files")
def test_course_json_is_read_only_when_only_root_can_change_it(tmp_path):
    course = {"course": "rt", "venv": "/opt/v", "grader_account": "grader-rt",
              "grader_course_dir": "/home/grader-rt/rt"}
    path = tmp_path / "course.json"
    path.write_text(json.dumps(course))
    os.chmod(path, 0o644)
    assert graders.read_hub_course(tmp_path).grader_account == "grader-rt"
    os.chmod(path, 0o664)
    with pytest.raises(PermissionError):
        graders.read_hub_course(tmp_path)
    os.chmod(path, 0o644)
    os.chown(path, 65534, 65534)
    with pytest.raises(PermissionError):
        graders.read_hub_course(tmp_path)
    os.chown(path, 0, 0)
    (tmp_path / "real.json").write_text(json.dumps(course))
    path.unlink()
    path.symlink_to(tmp_path / "real.json")
    with pytest.raises(OSError):
        graders.read_hub_course(tmp_path)
