"""``python -m autograder collect``: a submission counts only for the user who owns it, at the
time the server saw it, read without following links and copied into a root-only folder.

The inbound folders are made here as nbgrader 0.9.6 makes them (``<student>+<assignment>+
<time>+<random>``, the student's own) and given to made-up uids with ``chown``, which needs
root; the attacks are the ones seen on a real hub (``../shared/facts/jupyterhub``): a folder
named for a classmate, a back-dated name, a classmate's file in one's folder, links."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.classroom import collect, feedback
from autograder.grading import class_run

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="chown to other uids needs root")

UIDS = {"student1": 61001, "student2": 61002, "a+b": 61003, "root": 0}
CHAPTER = "ch01_storage"
REPO = Path(__file__).resolve().parents[1]


def uid_of(student: str) -> int | None:
    return UIDS.get(student)


@pytest.fixture
def exchange(tmp_path: Path) -> Path:
    inbound = tmp_path / "exchange" / "reftensor" / "inbound"
    inbound.mkdir(parents=True)
    os.chmod(inbound, 0o2733)  # as nbgrader makes it: students can write, not list
    return tmp_path / "exchange"


def submit(exchange: Path, student: str, owner: str, content: bytes = b'{"cells": []}',
           stamp: str = "2026-11-24 22:11:40.636869 UTC", suffix: str = "fveFlRZNYMCi",
           chapter: str = CHAPTER, notebook_owner: str | None = None) -> Path:
    """An inbound folder as a student's nbgrader submit writes it, owned by ``owner``."""
    folder = exchange / "reftensor" / "inbound" / f"{student}+{chapter}+{stamp}+{suffix}"
    folder.mkdir(mode=0o777)
    notebook = folder / f"{chapter}.ipynb"
    notebook.write_bytes(content)
    (folder / "timestamp.txt").write_text(stamp)
    os.chown(notebook, UIDS[notebook_owner or owner], UIDS[notebook_owner or owner])
    os.chown(folder, UIDS[owner], UIDS[owner])
    return folder


def run(exchange: Path, into: Path, **kwargs) -> collect.Collection:
    return collect.collect(exchange, "reftensor", CHAPTER, into, uid_of=uid_of, **kwargs)


def test_a_genuine_submission_is_copied_into_a_root_only_folder(exchange: Path,
                                                                tmp_path: Path):
    folder = submit(exchange, "student1", "student1", b'{"answer": 1}')
    into = tmp_path / "collected"
    result = run(exchange, into)
    assert [s.student for s in result.submissions] == ["student1"] and not result.refused
    copy = into / "student1" / CHAPTER / f"{CHAPTER}.ipynb"
    assert copy.read_bytes() == b'{"answer": 1}'
    for path, mode in ((into, 0o700), (into / "student1", 0o700), (copy.parent, 0o700),
                       (copy, 0o600), (into / "collected.json", 0o600)):
        info = path.lstat()
        assert stat.S_IMODE(info.st_mode) == mode and info.st_uid == 0, path
    # the time is the server's: the inode change time, not the folder's name or timestamp.txt
    ctime = max(folder.stat().st_ctime_ns, (folder / f"{CHAPTER}.ipynb").stat().st_ctime_ns)
    record = json.loads((into / "collected.json").read_text())
    assert record["submissions"][0]["submitted_at"] == collect._iso(ctime)
    assert record["submissions"][0]["late"] is False
    assert dt.datetime.fromisoformat(record["submissions"][0]["submitted_at"]).year >= 2026


def test_a_folder_named_for_a_classmate_is_refused_and_reported(exchange: Path,
                                                                tmp_path: Path):
    submit(exchange, "student1", "student1", b"mine", suffix="aaaaaaaaaaaa")
    submit(exchange, "student1", "student2", b"forged", stamp="2099-01-01 00:00:00.000000 UTC",
           suffix="forged000000")
    result = run(exchange, tmp_path / "collected")
    assert [(s.student, s.inbound.endswith("aaaaaaaaaaaa")) for s in result.submissions] == [
        ("student1", True)]
    assert (tmp_path / "collected" / "student1" / CHAPTER / f"{CHAPTER}.ipynb").read_bytes() \
        == b"mine"
    (refused,) = result.refused
    assert "forged" in refused.inbound and "belongs to uid 61002" in refused.reason


def test_only_a_forgery_gives_the_victim_no_submission(exchange: Path, tmp_path: Path):
    submit(exchange, "student1", "student2", b"forged")
    result = run(exchange, tmp_path / "collected")
    assert result.submissions == [] and len(result.refused) == 1
    assert not (tmp_path / "collected" / "student1").exists()


def test_a_classmates_file_inside_ones_folder_is_refused(exchange: Path, tmp_path: Path):
    """A classmate who learned the folder's name replaced the notebook in it."""
    submit(exchange, "student1", "student1", notebook_owner="student2")
    result = run(exchange, tmp_path / "collected")
    assert result.submissions == []
    assert "belongs to uid 61002" in result.refused[0].reason


def test_the_latest_by_the_servers_clock_counts_not_by_the_name(exchange: Path,
                                                                 tmp_path: Path):
    submit(exchange, "student1", "student1", b"second", stamp="2000-01-01 00:00:00.000000 UTC",
           suffix="bbbbbbbbbbbb")
    time.sleep(0.02)
    submit(exchange, "student1", "student1", b"third", stamp="1999-01-01 00:00:00.000000 UTC",
           suffix="cccccccccccc")
    result = run(exchange, tmp_path / "collected")
    assert result.submissions[0].inbound.endswith("cccccccccccc")
    assert "counts instead" in result.refused[0].reason


def test_a_back_dated_name_is_late_by_the_servers_clock(exchange: Path, tmp_path: Path):
    folder = submit(exchange, "student1", "student1", stamp="2000-01-01 00:00:00.000000 UTC")
    seen = dt.datetime.fromtimestamp(folder.stat().st_ctime, dt.UTC)
    late = run(exchange, tmp_path / "a", due=seen - dt.timedelta(seconds=5))
    assert late.submissions[0].late is True
    on_time = run(exchange, tmp_path / "b", due=seen + dt.timedelta(hours=1))
    assert on_time.submissions[0].late is False
    refused = run(exchange, tmp_path / "c", due=seen - dt.timedelta(seconds=5),
                  late_rule="refuse")
    assert refused.submissions == [] and "late" in refused.refused[0].reason


def test_use_on_time_takes_the_last_submission_before_the_due_date(exchange: Path,
                                                                   tmp_path: Path):
    first = submit(exchange, "student1", "student1", b"on time", suffix="aaaaaaaaaaaa")
    time.sleep(0.05)
    submit(exchange, "student1", "student1", b"late", suffix="bbbbbbbbbbbb")
    due = dt.datetime.fromtimestamp(first.stat().st_ctime, dt.UTC) + dt.timedelta(
        milliseconds=20)
    marked = run(exchange, tmp_path / "a", due=due)
    assert (marked.submissions[0].late, marked.submissions[0].bytes) == (True, len(b"late"))
    chosen = run(exchange, tmp_path / "b", due=due, late_rule="use-on-time")
    assert (chosen.submissions[0].late, chosen.submissions[0].bytes) == (False,
                                                                         len(b"on time"))


@pytest.mark.parametrize("attack", ["notebook-link", "folder-link", "fifo", "too-large",
                                    "no-notebook", "unknown-user", "bad-name"])
def test_links_odd_files_and_odd_names_are_refused_without_being_followed(
        exchange: Path, tmp_path: Path, attack: str):
    secret = tmp_path / "secret.ipynb"
    secret.write_text("the instructor's solutions")
    inbound = exchange / "reftensor" / "inbound"
    if attack == "folder-link":
        target = submit(exchange, "student2", "student2", suffix="realrealreal")
        (inbound / f"student1+{CHAPTER}+2026-11-24 22:11:40 UTC+linklinklink").symlink_to(target)
        os.lchown(inbound / f"student1+{CHAPTER}+2026-11-24 22:11:40 UTC+linklinklink",
                  UIDS["student1"], UIDS["student1"])
    elif attack == "bad-name":
        folder = inbound / f"x\x1b[31m+{CHAPTER}+t+r"
        folder.mkdir()
    elif attack == "unknown-user":
        folder = inbound / f"nobody9+{CHAPTER}+t+r"
        folder.mkdir()
    else:
        folder = submit(exchange, "student1", "student1")
        notebook = folder / f"{CHAPTER}.ipynb"
        notebook.unlink()
        if attack == "notebook-link":
            notebook.symlink_to(secret)
            os.lchown(notebook, UIDS["student1"], UIDS["student1"])
        elif attack == "fifo":
            os.mkfifo(notebook)
            os.chown(notebook, UIDS["student1"], UIDS["student1"])
        elif attack == "too-large":
            with open(notebook, "wb") as f:
                f.truncate(collect.MAX_NOTEBOOK_BYTES + 1)
            os.chown(notebook, UIDS["student1"], UIDS["student1"])
    result = run(exchange, tmp_path / "collected")
    assert [s.student for s in result.submissions] == (
        ["student2"] if attack == "folder-link" else [])
    refusals = [r for r in result.refused if "student2" not in r.inbound]
    assert len(refusals) == 1, result.refused
    assert "\x1b" not in refusals[0].inbound
    copies = list((tmp_path / "collected").rglob("*.ipynb"))
    assert all(b"solutions" not in p.read_bytes() for p in copies)


def test_a_student_id_holding_a_plus_is_split_from_the_right(exchange: Path, tmp_path: Path):
    submit(exchange, "a+b", "a+b")
    result = run(exchange, tmp_path / "collected")
    assert [s.student for s in result.submissions] == ["a+b"]


def test_other_assignments_are_left_alone(exchange: Path, tmp_path: Path):
    submit(exchange, "student1", "student1", chapter="ch02_views")
    result = run(exchange, tmp_path / "collected")
    assert result.submissions == [] and result.refused == []


def test_a_symlinked_inbound_folder_is_refused(tmp_path: Path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "exchange" / "reftensor").mkdir(parents=True)
    (tmp_path / "exchange" / "reftensor" / "inbound").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        run(tmp_path / "exchange", tmp_path / "collected")


def test_the_command_line_collects_with_the_systems_users(exchange: Path, tmp_path: Path):
    """The command looks students up among the Linux users: root's folder counts for root,
    a folder named for root but owned by another uid does not; ``--due`` marks it late."""
    notebook = REPO / "course" / CHAPTER / f"{CHAPTER}.ipynb"
    submit(exchange, "root", "root", notebook.read_bytes(), suffix="rootrootroot")
    submit(exchange, "root", "student2", b"forged", suffix="forgedforged")
    into = tmp_path / "collected"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "collect", "--exchange", str(exchange),
         "--chapter", CHAPTER, "--into", str(into), "--due", "2000-01-01T00:00:00+00:00"],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "LATE" in done.stdout and "forgedforged" in done.stdout
    record = json.loads((into / "collected.json").read_text())
    assert [(s["student"], s["late"]) for s in record["submissions"]] == [("root", True)]
    # the layout the grader reads: <into>/<student>/<chapter>/<chapter>.ipynb
    assert (into / "root" / CHAPTER / f"{CHAPTER}.ipynb").read_bytes() == notebook.read_bytes()
    bad = subprocess.run(
        [sys.executable, "-m", "autograder", "collect", "--exchange", str(exchange),
         "--chapter", CHAPTER, "--into", str(into), "--due", "tomorrow"],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--due" in bad.stderr


def test_the_grader_reads_the_trusted_times_into_its_records(exchange: Path, tmp_path: Path):
    from autograder.grading import grade

    submit(exchange, "student1", "student1")
    into = tmp_path / "collected"
    result = run(exchange, into, due=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))
    times = class_run.collected_times(into, CHAPTER)
    assert times == {"student1": (result.submissions[0].submitted_at, True)}
    assert class_run.collected_times(into, "ch02_views") == {}  # another chapter's record
    outcome = grade.Outcome("student1", CHAPTER, scores={"test_x_visible": 1.0},
                            max_scores={"test_x_visible": 1.0})
    outcome.submitted_at, outcome.late = times["student1"]
    rows = class_run._grades_csv([class_run._record_of(outcome, CHAPTER)]).splitlines()
    assert rows[0].endswith("submitted_at,late") and rows[1].endswith(
        f"{result.submissions[0].submitted_at},late")
    (into / "collected.json").unlink()
    (into / "collected.json").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text(json.dumps({"chapter": CHAPTER, "submissions": [
        {"student": "student1", "submitted_at": "forged", "late": False}]}))
    assert class_run.collected_times(into, CHAPTER) == {}  # a link is not followed


def test_feedback_goes_where_only_its_student_can_fetch_it(exchange: Path, tmp_path: Path):
    """release_feedback names each page as nbgrader's Fetch Feedback looks for it: by the
    md5 of the submission's secret and the notebook's name, which only the submitter has."""
    from nbgrader.utils import notebook_hash

    folder = submit(exchange, "student1", "student1")
    (folder / "submission_secret.txt").write_text("ab12" * 32)
    os.chown(folder / "submission_secret.txt", UIDS["student1"], UIDS["student1"])
    submit(exchange, "student2", "student2")  # no secret (an nbgrader before 0.9)
    into = tmp_path / "collected"
    result = run(exchange, into)
    assert [s.secret for s in result.submissions] == ["ab12" * 32, ""]
    assert "ab12" not in collect.table(result)  # the secret is never printed
    workspace = tmp_path / "ws"
    for student in ("student1", "student2"):
        page = workspace / "feedback" / student / CHAPTER / f"{CHAPTER}.html"
        page.parent.mkdir(parents=True)
        page.write_text(f"<p>feedback of {student}</p>")
    done = feedback.release_feedback(workspace, into, exchange, "reftensor", CHAPTER)
    assert done == [("student1", "released"),
                    ("student2", "no submission secret (not made by nbgrader's Submit): "
                     "Fetch Feedback cannot find a page; hand over the workspace's "
                     f"feedback/student2/{CHAPTER}/{CHAPTER}.html")]
    pages = exchange / "reftensor" / "feedback"
    released = pages / f"{notebook_hash(secret='ab12' * 32, notebook_id=CHAPTER)}.html"
    assert released.read_text() == "<p>feedback of student1</p>"
    assert [p.name for p in pages.iterdir()] == [released.name]
    assert stat.S_IMODE(pages.stat().st_mode) == 0o711  # nobody else can list it
    assert stat.S_IMODE(released.stat().st_mode) == 0o644


def test_a_secret_written_by_a_classmate_is_not_believed(exchange: Path, tmp_path: Path):
    folder = submit(exchange, "student1", "student1")
    (folder / "submission_secret.txt").write_text("cd34" * 32)
    os.chown(folder / "submission_secret.txt", UIDS["student2"], UIDS["student2"])
    result = run(exchange, tmp_path / "collected")
    assert result.submissions[0].secret == ""


def _flood(exchange: Path, owner: str, count: int, start: int = 0) -> None:
    """``count`` empty files in inbound, owned by ``owner``, as a student can make them."""
    inbound = exchange / "reftensor" / "inbound"
    for n in range(start, start + count):
        fd = os.open(inbound / f"junk{n:07d}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.fchown(fd, UIDS[owner], UIDS[owner])
        os.close(fd)


def test_a_flood_of_inbound_hides_no_other_student(exchange: Path, tmp_path: Path,
                                                   monkeypatch):
    """One student fills inbound with empty files, before and after the others submit: every
    honest student is collected, the flooder is named once with a count, the record stays
    small, and every student of the roster has a state."""
    monkeypatch.setattr(collect, "PER_OWNER_ENTRIES", 200)
    _flood(exchange, "student2", 1500)
    submit(exchange, "student1", "student1")
    submit(exchange, "a+b", "a+b")
    _flood(exchange, "student2", 1500, start=1500)
    result = run(exchange, tmp_path / "collected", roster=["student1", "a+b", "student2"])
    assert sorted(s.student for s in result.submissions) == ["a+b", "student1"]
    assert result.entries == 3002
    flooder = [r for r in result.refused if r.owner == "uid 61002"]
    summary = [r for r in flooder if "more" in r.reason]
    assert len(summary) == 1 and len(flooder) == collect.REFUSALS_SHOWN + 1, flooder
    assert "180 more refused entries" in summary[0].reason  # 200 looked at, 20 listed
    assert "2800 more entries not looked at" in summary[0].reason
    assert result.roster == {
        "student1": "collected", "a+b": "collected",
        "student2": "unknown: more than 200 of this student's own entries in inbound, the "
                    "rest not looked at"}
    assert result.unknown() == ["student2"]
    assert (tmp_path / "collected" / "collected.json").stat().st_size < 20_000
    assert "the roster:" in collect.table(result)


def test_past_the_listing_bound_a_student_not_collected_is_unknown(exchange: Path,
                                                                   tmp_path: Path,
                                                                   monkeypatch):
    monkeypatch.setattr(collect, "MAX_ENTRIES", 100)
    _flood(exchange, "student2", 300)
    result = run(exchange, tmp_path / "collected", roster=["student1"])
    assert result.roster["student1"].startswith("unknown: inbound holds more than 100")
    assert any("the rest not listed" in r.reason for r in result.refused)


def test_the_roster_states_refused_and_no_submission(exchange: Path, tmp_path: Path):
    folder = submit(exchange, "student1", "student1")
    (folder / f"{CHAPTER}.ipynb").unlink()
    result = run(exchange, tmp_path / "collected", roster=["student1", "student2"])
    assert result.roster == {"student1": f"refused: no {CHAPTER}.ipynb in it",
                             "student2": "no submission"}
    assert result.unknown() == []


def test_the_command_line_reads_a_roster_and_exits_1_on_an_unknown_state(exchange: Path,
                                                                        tmp_path: Path):
    submit(exchange, "root", "root", suffix="rootrootroot")
    roster = tmp_path / "roster.txt"
    roster.write_text("# the class\nroot\n\nnosuchuser-rt9\n")
    into = tmp_path / "collected"
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "collect", "--exchange", str(exchange),
         "--chapter", CHAPTER, "--into", str(into), "--roster", str(roster)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "root" in done.stdout and "unknown: no user has this id" in done.stdout
    assert "nosuchuser-rt9" in done.stderr.splitlines()[-1]
    roster.write_text("root\n")
    again = subprocess.run(
        [sys.executable, "-m", "autograder", "collect", "--exchange", str(exchange),
         "--chapter", CHAPTER, "--into", str(into), "--roster", str(roster)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    roster.write_text("root\nbad id;rm\n")
    bad = subprocess.run(
        [sys.executable, "-m", "autograder", "collect", "--exchange", str(exchange),
         "--chapter", CHAPTER, "--into", str(into), "--roster", str(roster)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not plain student ids" in bad.stderr
