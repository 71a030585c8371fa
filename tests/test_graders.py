"""``autograder/classroom/graders.py``: what root takes from the hub's Formgrader, and how it reads
it.

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

from autograder.classroom import graders

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


def test_a_score_cleared_in_formgrader_is_cleared_unless_given_here_since(workspace,
                                                                        monkeypatch):
    """What the account held after the last give is recorded (private/<chapter>/): a score
    or comment cleared there since is cleared in the workspace; one the workspace changed
    since the give (given here) stays."""
    take(workspace, {"grades": [["ada", CH, WRITTEN, 1.5, None], ["bob", CH, WRITTEN, 2, None]],
                     "comments": [["ada", CH, WRITTEN, "Names the stride."]]}, monkeypatch)
    record = graders._given_path(workspace, CH)
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({
        "grades": [["ada", CH, WRITTEN, 1.5, None], ["bob", CH, WRITTEN, 1.0, None]],
        "comments": [["ada", CH, WRITTEN, "Names the stride."]]}))
    # bob's 2 was given in the workspace after the give (the account was given 1.0)
    moved = take(workspace, {"grades": [["ada", CH, WRITTEN, None, None],
                                        ["bob", CH, WRITTEN, None, None]],
                             "comments": [["ada", CH, WRITTEN, ""]]}, monkeypatch)
    assert (moved.cleared, moved.grades, moved.comments) == (2, 0, 0), moved
    assert stored(workspace) == (None, None, True, None)  # needs a hand again
    assert stored(workspace, "bob")[:3] == (2.0, None, False)


def _run_here(course, script, args, stdin=b""):
    """The grader account's step, run by this process's Python instead (no account)."""
    return graders.run_bounded([sys.executable, "-I", "-c", script, *args], stdin)


def test_sync_shows_graded_submissions_and_keeps_grades_saved_while_it_runs(workspace,
                                                                            tmp_path,
                                                                            monkeypatch):
    """formgrader-sync end to end with nbgrader's own code on both sides (the account's
    steps run here, as root): Formgrader counts every submission as autograded, with its
    score; a grade saved in Formgrader between the take and the give is kept there and
    taken into the workspace; what the account holds afterwards is recorded."""
    import datetime as dt

    from nbgrader.api import Gradebook
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb:
        gb.find_submission(CH, "ada").timestamp = dt.datetime(2026, 11, 29, 5, 0, 1, 250)
        gb.db.commit()
    for student in ("ada", "bob"):
        page = workspace / "autograded" / student / CH / f"{CH}.ipynb"
        page.parent.mkdir(parents=True)
        page.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    account = tmp_path / "account"
    account.mkdir()
    course = graders.HubCourse("rt", Path(sys.prefix), "grader-rt", account)
    monkeypatch.setattr(graders, "read_hub_course", lambda etc: course)
    monkeypatch.setattr(graders, "_as_account", _run_here)
    took, gave = graders.sync(workspace, CH, tmp_path)  # the first: the account had nothing
    assert (took.grades, gave.notebooks, gave.kept) == (0, 2, 0)

    config = Config({"CourseDirectory": {"root": str(account), "course_id": "rt"}})
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    assert {s["student"]: s["autograded"] for s in api.get_submissions(CH)} == \
        {"ada": True, "bob": True}  # not "needs autograding"

    # a grader saves a score in Formgrader while a sync runs, after its take
    real_give = graders.give_chapter

    def give_after_a_save(*args, **kwargs):
        with Gradebook(f"sqlite:///{account / 'gradebook.db'}") as gb:
            gb.find_grade(WRITTEN, CH, CH, "bob").manual_score = 1.5
            gb.db.commit()
        return real_give(*args, **kwargs)

    monkeypatch.setattr(graders, "give_chapter", give_after_a_save)
    took, gave = graders.sync(workspace, CH, tmp_path)
    assert (gave.kept, took.grades) == (1, 1)
    assert stored(workspace, "bob")[:3] == (1.5, None, False)  # taken after the give
    with Gradebook(f"sqlite:///{account / 'gradebook.db'}") as gb:
        assert gb.find_grade(WRITTEN, CH, CH, "bob").manual_score == 1.5  # not lost
    record = json.loads(graders._given_path(workspace, CH).read_text())
    assert ["bob", CH, WRITTEN, 1.5, None] in record["grades"]


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


def test_formgraders_autograde_is_refused_on_the_hub_and_formgrader_still_works(tmp_path):
    """The hub's Formgrader service loads deploy/jupyterhub/reftensor_formgrader_guard.py
    beside nbgrader's formgrader extension (jupyterhub_config.py): the Autograde button's
    request runs nothing and answers why, in the shape nbgrader's error dialog shows;
    Formgrader's other requests answer as before; without a login the request is refused."""
    import socket
    import subprocess
    import time
    import urllib.error
    import urllib.request

    deploy = Path(__file__).resolve().parents[1] / "deploy" / "jupyterhub"
    config = (deploy / "jupyterhub_config.py").read_text()
    assert "reftensor_formgrader_guard=True" in config
    assert "reftensor_formgrader_guard.py" in (deploy / "install.sh").read_text()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
         f"--port={port}", "--ServerApp.token=secret-token",
         "--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=True",
         "--ServerApp.jpserver_extensions=reftensor_formgrader_guard=True"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(deploy),
                           "JUPYTER_CONFIG_DIR": str(tmp_path / "config")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": "token secret-token"}

    def call(path: str, method: str = "GET", headers=auth) -> tuple[int, bytes]:
        request = urllib.request.Request(url + path, method=method, headers=headers,
                                         data=b"" if method == "POST" else None)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                types[path] = answer.headers.get("Content-Type", "")
                return answer.status, answer.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    types: dict[str, str] = {}

    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if call("/formgrader/api/status")[0] == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "no server"
            time.sleep(0.3)
        status, body = call("/formgrader/api/submission/ch01_storage/ada/autograde", "POST")
        answer = json.loads(body)
        assert status == 200 and answer["success"] is False, (status, body)
        assert "outside the grading sandbox" in answer["error"] == answer["log"]
        # not application/json: Formgrader's page JSON.parses the text itself, as it does
        # nbgrader's own answers (a parsed object there is an error in the page)
        assert "json" not in types["/formgrader/api/submission/ch01_storage/ada/autograde"]
        assert call("/formgrader/api/submission/ch01_storage/ada/autograde", "POST",
                    headers={})[0] == 403
        assert json.loads(call("/formgrader/api/status")[1]) == {"status": True}
        assert not (tmp_path / "autograded").exists()  # nothing ran
    finally:
        server.terminate()
        server.wait(timeout=30)
