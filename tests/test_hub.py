"""The JupyterHub recipe (``deploy/jupyterhub/``) end to end, on this machine, over HTTP and
in headless Chromium.

Part of ``make test`` when it runs as root (skipped otherwise: it creates Linux users and
runs the hub as root; ``REFTENSOR_HUB_TESTS=0`` leaves it out). It installs the hub's venv
with ``deploy/jupyterhub/install.sh`` into ``$REFTENSOR_HUB_TEST_VENV`` (default
``/opt/reftensor/test-venv``, left in place and reused while its pins match: the first run
adds about a minute and 1.6 GB; a course's real venv is never touched, since setting a course
up writes the venv's site-wide nbgrader settings), creates throwaway Linux users (an
instructor, who is the course's grader, and two students), sets a course up with
``setup_course.sh`` (a student who made the course's exchange folder first stops it), starts
the hub on free loopback ports, and then, as a class would:

- the instructor releases ch01_storage;
- student 1 logs in through the login form, fetches, answers and submits through the server's
  REST API, then back-dates the submission's ``timestamp.txt``; student 2, who learned its
  folder's name, can neither replace its notebook nor rename or remove its folder, and drops
  a folder named for student 1 into the inbound folder (nbgrader issue #1097);
- ``python -m autograder collect`` (as root) takes student 1's real submission at the
  server's time (late: the due date was before the class began) and refuses the forgery;
  student 2 cannot change the collected copy; ``grade`` gives it 20 of 20 points; the
  feedback is released and fetched; students can read neither the course folder, its
  gradebook, root's grading folder nor a classmate's home; Formgrader answers 403 to a
  student and opens for a grader, with ``frame-ancestors 'none'`` kept;
- student 2 in the browser: the Nbgrader menu has no instructor entries, fetch in the
  Assignments tab, type a right answer and a wrong one, run the notebook and read the wrong
  one's check message, Validate and read the dialog, save, submit;
- the grader in the browser: root hands the graded chapter to the Formgrader service
  (``formgrader-sync``); the instructor opens it in a tab of its own, lists the chapter and
  its submissions by clicking, gives the written answer points and a comment; root takes them
  back, makes the feedback again and releases it; student 1 fetches it by clicking and reads
  both in JupyterLab's HTML viewer;
- the hub stops on SIGTERM, no process of the class outlives it, and its log (the hub's, the
  proxy's, every server's and the service's) has no error.

Every browser page fails its test on a console error, a failed request or an HTTP error;
screenshots of each step land in ``build/hub-test/``. The hub is stopped (and waited for), the
users and everything they own are removed, even when a step fails. ``-s`` prints each step's
time.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.browser import spawn_progress_cut

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy" / "jupyterhub"
CHAPTER = "ch01_storage"
SOLUTION = REPO / "solutions" / CHAPTER / f"{CHAPTER}.ipynb"
DEFAULT_VENV = Path("/opt/reftensor/test-venv")
VENV = Path(os.environ.get("REFTENSOR_HUB_TEST_VENV") or DEFAULT_VENV)
# The test writes its course's nbgrader settings into the venv's etc/jupyter: it only ever
# uses a venv of its own, one it made (and marked with this file) or the default path's
MARK = "reftensor-hub-test-venv"
# REFTENSOR_HUB_THROUGHPUT=30: a class of 30 students (2 by default), and the throughput test
# runs: every student submits, then collect, grade, release feedback and every student's
# fetch are timed (build/hub-throughput.json)
CLASS_SIZE = max(2, int(os.environ.get("REFTENSOR_HUB_THROUGHPUT") or 2))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.full,  # minutes, and a class's worth of users and services: the full tier
    pytest.mark.skipif(os.geteuid() != 0,
                       reason="the JupyterHub end-to-end test creates Linux users and runs "
                              "the hub as root: run the suite as root to include it"),
    pytest.mark.skipif(os.environ.get("REFTENSOR_HUB_TESTS") == "0",
                       reason="REFTENSOR_HUB_TESTS=0 leaves the JupyterHub test out"),
]

TIMES: dict[str, float] = {}


@contextlib.contextmanager
def timed(step: str) -> Iterator[None]:
    start = time.monotonic()
    try:
        yield
    finally:
        TIMES[step] = round(time.monotonic() - start, 1)


def free_ports(n: int) -> list[int]:
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def run(argv: list[str], *, check: bool = True, timeout: float = 300, **kw) \
        -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    if check and result.returncode != 0:
        raise AssertionError(f"{argv} exited {result.returncode}\nstdout:\n{result.stdout[-3000:]}"
                             f"\nstderr:\n{result.stderr[-3000:]}")
    return result


def as_user(user: str, command: str, **kw) -> subprocess.CompletedProcess[str]:
    """``command`` in a login shell of ``user``, with the hub venv's bin first on PATH."""
    return run(["runuser", "-l", user, "-c", f"export PATH={VENV}/bin:$PATH && {command}"], **kw)


@dataclass
class Hub:
    url: str
    course: str
    instructor: str
    students: tuple[str, ...]
    passwords: dict[str, str]
    exchange: Path
    grading: Path
    etc: Path
    log: Path
    process: subprocess.Popen
    started: float  # time.time() before anyone submitted


def _processes_of(uids: set[int]) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}").st_uid in uids:
                    pids.append(int(entry))
    return pids


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM the hub (it stops the proxy, the servers and the service), wait for it; kill
    its own process group only if it does not exit."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _remove_users(users: list[str]) -> None:
    known = {}
    for user in users:
        with contextlib.suppress(KeyError):
            known[user] = pwd.getpwnam(user).pw_uid
    # servers started for them by the hub should be gone with it; anything left is ended
    for _ in range(20):
        left = _processes_of(set(known.values()))
        if not left:
            break
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.25)
    for user in known:
        subprocess.run(["userdel", "-r", user], capture_output=True)
        subprocess.run(["groupdel", user], capture_output=True)  # if userdel left it
    for top in ("/tmp", "/var/tmp", "/dev/shm"):  # what they left outside their homes
        for uid in known.values():
            found = subprocess.run(["find", top, "-xdev", "-uid", str(uid), "-prune", "-print0"],
                                   capture_output=True).stdout.split(b"\0")
            for path in filter(None, found):
                with contextlib.suppress(OSError):
                    p = Path(os.fsdecode(path))
                    shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def readme_release_command(instructor: str, course: str) -> str:
    """README's step 4 (release a chapter, as the instructor, from root's shell) with this
    class's names: the README's instructor ``ada``, course ``reftensor`` and venv."""
    [line] = [line.strip() for line in (REPO / "README.md").read_text().splitlines()
              if line.strip().startswith("runuser -l ada -c ")]
    assert f"generate_assignment {CHAPTER}" in line, line
    return (line.replace("runuser -l ada ", f"runuser -l {instructor} ")
            .replace("/opt/reftensor/venv/", f"{VENV}/").replace("~/reftensor ", f"~/{course} "))


def readme_step(number: int) -> list[str]:
    """The commands of README's hub step ``number`` (its first fenced bash block, each command
    on one line: continuation lines joined), as written there."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Running a class on JupyterHub"):]
    step = section[section.index(f"\n{number}. **"):]
    block = step[step.index("```bash\n") + len("```bash\n"):]
    block = block[:block.index("```")]
    return _commands(block)


def _commands(block: str) -> list[str]:
    commands, current = [], ""
    for line in block.splitlines():
        current += line.strip()
        if current.endswith("\\"):
            current = current[:-1].rstrip() + " "
            continue
        if current:
            commands.append(current)
        current = ""
    return commands


def readme_grading_steps(exchange: Path, course: str, grading: Path,
                         due: str) -> dict[str, list[str]]:
    """README's steps 6 (collect, grade) and 7 (release the feedback), as written there, with
    this class's exchange, course, grading folder and due date: each command is run by bash
    from the checkout, where README runs it. Step 7 relies on the defaults for the exchange
    and the course, so they are given."""
    names = {"/srv/nbgrader/exchange": str(exchange), "--course reftensor": f"--course {course}",
             "--due 2026-12-01T23:59:00+00:00": f"--due {due}"}
    six = readme_step(6)
    assert six[0] == "G=/var/lib/reftensor/reftensor", six
    steps = {}
    for command in six[1:] + readme_step(7):
        for old, new in names.items():
            command = command.replace(old, new)
        if " release-feedback " in command:
            command += f" --exchange {exchange} --course {course}"
        steps[command.split(" -m autograder ")[1].split()[0]] = [
            "bash", "-c", f"G={grading} && {command}"]
    assert list(steps) == ["collect", "grade", "release-feedback"], steps
    return steps


def foreign_venv(venv: Path) -> str | None:
    """Why the hub test must not use ``venv`` (None: it may): a venv that exists, is not the
    default test venv and carries no mark of the test's may be a class's, whose nbgrader
    settings the test would point at its own throw-away exchange and course."""
    if not venv.exists() or venv.resolve() == DEFAULT_VENV or (venv / MARK).is_file():
        return None
    return (f"REFTENSOR_HUB_TEST_VENV={venv} is a venv this test did not make (no {MARK} "
            "in it): the test writes its own course's nbgrader settings into the venv it "
            "uses, which would break a class that runs on it. Point REFTENSOR_HUB_TEST_VENV "
            "at a new folder (the test installs it, about 1.6 GB) or leave it unset.")


@pytest.fixture(scope="module")
def hub() -> Iterator[Hub]:
    tag = secrets.token_hex(3)
    course = f"rtc{tag}"
    instructor = f"rt{tag}in"
    students = tuple(f"rt{tag}s{n}" for n in range(1, CLASS_SIZE + 1))
    s1, s2 = students[:2]
    users = [instructor, *students, f"grader-{course}"]
    for user in users:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(user)
            pytest.fail(f"user {user} exists already")
    refusal = foreign_venv(VENV)
    if refusal:
        pytest.fail(refusal)
    started = time.time()
    top = Path(tempfile.mkdtemp(prefix="reftensor-hub-"))
    os.chmod(top, 0o755)  # students may cross it: what is private must be private by itself
    process = None
    try:
        with timed("install"):
            out = run(["bash", str(DEPLOY / "install.sh"), str(VENV)], timeout=900)
        print(out.stdout.strip().splitlines()[-1])
        (VENV / MARK).write_text("made by tests/test_hub.py: its settings name test courses\n")

        passwords = {}
        for user in (instructor, *students):
            run(["useradd", "-m", "-s", "/bin/bash", user])
            passwords[user] = secrets.token_urlsafe(12)
            run(["chpasswd"], input=f"{user}:{passwords[user]}\n")
        exchange, grading, etc = top / "exchange", top / "grading", top / "etc"
        setup = ["bash", str(DEPLOY / "setup_course.sh")]
        setup_env = {**os.environ, "COURSE": course, "INSTRUCTOR": instructor,
                     "STUDENTS": " ".join(students), "CHAPTERS": CHAPTER, "VENV": str(VENV),
                     "EXCHANGE": str(exchange), "HUB_ETC": str(etc), "GRADING": str(grading)}
        # a student who squats the course's exchange folder first stops the setup
        exchange.mkdir(mode=0o755)
        os.chmod(exchange, 0o1777)
        run(["runuser", "-u", s2, "--", "mkdir", "-p", str(exchange / course / "outbound")])
        refused = run(setup, env=setup_env, check=False)
        assert refused.returncode != 0 and "someone made it first" in refused.stderr, refused
        shutil.rmtree(exchange / course)
        with timed("setup_course"):
            run(setup, env=setup_env)

        port, api, proxy_api, grader = free_ports(4)
        state = top / "state"
        state.mkdir(mode=0o700)
        log = state / "hub.log"
        env = {**os.environ, "PATH": f"{VENV}/bin:{os.environ['PATH']}",
               "REFTENSOR_HUB_ETC": str(etc), "REFTENSOR_HUB_STATE": str(state),
               "REFTENSOR_HUB_PORT": str(port), "REFTENSOR_HUB_API_PORT": str(api),
               "REFTENSOR_PROXY_API_PORT": str(proxy_api), "REFTENSOR_GRADER_PORT": str(grader)}
        env.pop("PYTHONPATH", None)
        url = f"http://127.0.0.1:{port}"
        with timed("hub_start"), open(log, "wb") as out_log:
            process = subprocess.Popen(
                [str(VENV / "bin" / "jupyterhub"), "-f", str(DEPLOY / "jupyterhub_config.py")],
                cwd=state, env=env, stdout=out_log, stderr=subprocess.STDOUT,
                start_new_session=True)
            deadline = time.monotonic() + 90
            while True:
                assert process.poll() is None, f"the hub exited:\n{log.read_text()[-3000:]}"
                with contextlib.suppress(requests.RequestException):
                    if requests.get(f"{url}/hub/api/", timeout=2).status_code == 200:
                        break
                assert time.monotonic() < deadline, f"no hub after 90 s:\n{log.read_text()[-3000:]}"
                time.sleep(0.5)
        yield Hub(url, course, instructor, students, passwords, exchange, grading, etc, log,
                  process, started)
    finally:
        with timed("cleanup"):
            if process is not None:
                _stop(process)
            _remove_users(users)
        shutil.rmtree(top, ignore_errors=True)
        print("times (s):", json.dumps(TIMES))


class Student:
    """A browser-less user: the hub's login form, the spawn, the single-user REST API."""

    def __init__(self, hub: Hub, user: str, next_url: str = ""):
        self.hub, self.user = hub, user
        self.session = requests.Session()
        self.session.get(f"{hub.url}/hub/login", timeout=30)
        r = self.session.post(f"{hub.url}/hub/login?next={next_url}", timeout=30,
                              allow_redirects=False,
                              data={"username": user, "password": hub.passwords[user],
                                    "_xsrf": self.session.cookies.get("_xsrf")})
        assert r.status_code == 302, (r.status_code, r.text[:500])
        self.after_login = r.headers["location"]
        self.base = f"{hub.url}/user/{user}"

    def start_server(self) -> None:
        self.session.get(self.hub.url + self.after_login, timeout=120)  # spawns
        deadline = time.monotonic() + 120
        while True:  # /user/<u>/lab is 200 once spawned and the server's OAuth is done
            r = self.session.get(f"{self.base}/lab", timeout=30)
            if r.status_code == 200 and r.url.rstrip("/").endswith("/lab"):
                return
            assert time.monotonic() < deadline, f"no server for {self.user}: {r.status_code}"
            time.sleep(0.5)

    def call(self, method: str, path: str, **kw):
        xsrf = (self.session.cookies.get("_xsrf", path=f"/user/{self.user}/")
                or self.session.cookies.get("_xsrf"))
        r = self.session.request(method, self.base + path, headers={"X-XSRFToken": xsrf},
                                 timeout=60, **kw)
        assert r.status_code < 300, (method, path, r.status_code, r.text[:500])
        return r


def answers_from_solution() -> dict[str, str]:
    solution = json.loads(SOLUTION.read_text())
    markers = {"### BEGIN SOLUTION", "### END SOLUTION"}  # nbgrader's, not the student's
    return {c["metadata"]["nbgrader"]["grade_id"]:
            "".join(line for line in c["source"] if line.strip() not in markers)
            for c in solution["cells"] if c["metadata"].get("nbgrader", {}).get("solution")}


def test_a_class_on_the_hub(hub: Hub) -> None:
    s1, s2 = hub.students[:2]
    course_folder = Path(pwd.getpwnam(hub.instructor).pw_dir) / hub.course

    # the instructor releases the chapter
    with timed("release"):  # README's step 4, as written there (names substituted)
        run(["bash", "-c", readme_release_command(hub.instructor, hub.course)])
    assert (hub.exchange / hub.course / "outbound" / CHAPTER / f"{CHAPTER}.ipynb").is_file()

    # student 1: log in, get a server, fetch, answer, submit, through the REST API
    with timed("student_login_spawn"):
        student = Student(hub, s1)
        student.start_server()
    with timed("student_fetch_answer_submit"):
        assert hub.course in student.call("GET", "/courses").json()["value"]
        listed = student.call("GET", "/assignments", params={"course_id": hub.course}).json()
        assert [(a["assignment_id"], a["status"]) for a in listed["value"]] == \
            [(CHAPTER, "released")]
        form = {"course_id": hub.course, "assignment_id": CHAPTER}
        assert student.call("POST", "/assignments/fetch", data=form).json()["success"]
        path = f"/api/contents/{CHAPTER}/{CHAPTER}.ipynb"
        notebook = student.call("GET", path).json()["content"]
        answers = answers_from_solution()
        filled = 0
        for cell in notebook["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if cell["metadata"].get("nbgrader", {}).get("solution") and grade_id in answers:
                cell["source"] = answers[grade_id]
                filled += 1
        assert filled == len(answers) > 0
        student.call("PUT", path, json={"type": "notebook", "format": "json",
                                        "content": notebook})
        assert student.call("POST", "/assignments/submit", data=form).json()["success"]
        listed = student.call("GET", "/assignments", params={"course_id": hub.course}).json()
        assert sorted(a["status"] for a in listed["value"]) == ["fetched", "submitted"]

    # student 1 back-dates the submission (their own folder: they may write in it)
    inbound = hub.exchange / hub.course / "inbound"
    [mine] = [p for p in inbound.iterdir() if p.name.startswith(f"{s1}+")]
    as_user(s1, f"echo '2000-01-01 00:00:00.000000 UTC' > '{mine}/timestamp.txt'")
    assert (mine / "timestamp.txt").read_text().startswith("2000-")
    # student 2, who learned its name, can neither replace its notebook nor move it away
    # (inbound is sticky: nobody renames or removes a classmate's folder there)
    assert oct(inbound.stat().st_mode & 0o7777) == "0o3733"
    for attack in (f"echo x > '{mine}/{CHAPTER}.ipynb'", f"rm -f '{mine}/{CHAPTER}.ipynb'",
                   f"mv '{mine}' '{mine}-moved'", f"rm -rf '{mine}'",
                   f"mv '{mine}' '{inbound}/{s2}+{CHAPTER}+2000-01-01 00:00:00.000000 UTC+x'"):
        result = run(["runuser", "-u", s2, "--", "sh", "-c", attack], check=False)
        assert result.returncode != 0, attack
    assert mine.is_dir() and (mine / f"{CHAPTER}.ipynb").stat().st_uid == pwd.getpwnam(s1).pw_uid

    # the student's server: as the student, from the venv, told where the chapters are
    servers = [pid for pid in _processes_of({pwd.getpwnam(s1).pw_uid})
               if b"jupyterhub-singleuser" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert servers, "no single-user server runs as the student"
    environ = dict(item.split(b"=", 1) for item in
                   Path(f"/proc/{servers[0]}/environ").read_bytes().split(b"\0") if b"=" in item)
    assert environ[b"REFTENSOR_NOTEBOOKS"].decode() == pwd.getpwnam(s1).pw_dir
    assert environ[b"PATH"].decode().startswith(f"{VENV}/bin:")
    # what the notebooks import there: the student edition in the venv, never the checkout
    where = as_user(s1, "python -c 'import reftensor, autograder.checks; "
                        "print(reftensor.__file__); print(autograder.checks.__file__)'").stdout
    assert where.count(f"{VENV}/lib/") == 2, where
    assert as_user(s1, "python -c 'import solutions'", check=False).returncode != 0

    # student 2 forges a submission in student 1's name, dated after everything
    forged = f"{s1}+{CHAPTER}+2099-01-01 00:00:00.000000 UTC+forged000000"
    forge = ('mkdir "$1" && cat > "$1/$2"'
             ' && echo "2000-01-01 00:00:00.000000 UTC" > "$1/timestamp.txt"')
    run(["runuser", "-u", s2, "--", "sh", "-c", forge, "forge", str(inbound / forged),
         f"{CHAPTER}.ipynb"], input=SOLUTION.read_text())
    real_sha = hashlib.sha256((mine / f"{CHAPTER}.ipynb").read_bytes()).hexdigest()

    # root collects: student 1's own submission counts, at the server's time (late: due
    # before the class began), the forgery is refused
    inbox, workspace = hub.grading / "inbox" / CHAPTER, hub.grading / "workspace"
    due = dt.datetime.fromtimestamp(hub.started - 60, dt.UTC).isoformat()
    roster = hub.grading / "roster.txt"
    roster.write_text(f"# the class\n{s1}\n{s2}\n")
    # README's steps 6 and 7, as written there (this class's names substituted)
    steps = readme_grading_steps(hub.exchange, hub.course, hub.grading, due)
    with timed("collect"):
        out = run(steps["collect"], cwd=REPO)
    record = json.loads((inbox / "collected.json").read_text())
    # every student of the roster has a state: student 2's only entry was the forgery
    assert record["roster"][s1] == "collected, late", record["roster"]
    assert record["roster"][s2].startswith("refused: ") and "forged" in record["roster"][s2]
    assert [(s["student"], s["sha256"]) for s in record["submissions"]] == [(s1, real_sha)], out
    submitted_at = dt.datetime.fromisoformat(record["submissions"][0]["submitted_at"])
    assert hub.started - 5 <= submitted_at.timestamp() <= time.time(), submitted_at
    assert record["submissions"][0]["late"] is True
    assert [r["inbound"] for r in record["refused"]] == [forged], record["refused"]
    assert "forged" in record["refused"][0]["reason"]
    # the collected copy is root's alone: student 2 cannot replace it either
    collected = inbox / s1 / CHAPTER / f"{CHAPTER}.ipynb"
    for attack in (f"echo x > '{collected}'", f"rm -rf '{inbox / s1}'"):
        assert run(["runuser", "-u", s2, "--", "sh", "-c", attack], check=False).returncode
    assert hashlib.sha256(collected.read_bytes()).hexdigest() == real_sha

    # root grades it
    with timed("grade"):
        out = run(steps["grade"], cwd=REPO, timeout=600)
    report = json.loads((workspace / "report.json").read_text())["submissions"]
    assert [(r["student"], r["chapter"], r["total"], r["max"]) for r in report] == \
        [(s1, CHAPTER, 20.0, 20.0)], out.stdout[-2000:]
    assert report[0]["sha256"] == real_sha
    assert (report[0]["submitted_at"], report[0]["late"]) == \
        (record["submissions"][0]["submitted_at"], True)
    # the gradebook (Formgrader, nbgrader's late rules) has the same trusted time
    with contextlib.closing(sqlite3.connect(workspace / "gradebook.db")) as db:
        [(stamp,)] = db.execute("select timestamp from submitted_assignment").fetchall()
    assert dt.datetime.fromisoformat(stamp).replace(tzinfo=dt.UTC) == submitted_at, stamp

    # root releases the feedback; student 1 fetches it in the Assignments tab's way, and
    # finds their score; the page is named by their submission's secret alone
    with timed("release_fetch_feedback"):
        run(steps["release-feedback"], cwd=REPO)
        assert student.call("POST", "/assignments/fetch_feedback",
                            data=form).json()["success"]
    pages = list((Path(pwd.getpwnam(s1).pw_dir) / CHAPTER / "feedback").glob("*/*.html"))
    assert len(pages) == 1 and "Score: 20.0 / " in pages[0].read_text(), pages
    feedback_dir = hub.exchange / hub.course / "feedback"
    assert run(["runuser", "-u", s2, "--", "ls", str(feedback_dir)],
               check=False).returncode != 0  # nobody can list the released pages

    # what students must not read
    private = [course_folder / "source" / CHAPTER / f"{CHAPTER}.ipynb",
               course_folder / "gradebook.db", course_folder / "nbgrader_config.py",
               inbox / "collected.json", inbox / s1 / CHAPTER / f"{CHAPTER}.ipynb",
               workspace / "grades.csv", workspace / "gradebook.db", workspace / "report.json"]
    for path in private:
        assert path.is_file(), path
        result = run(["runuser", "-u", s2, "--", "cat", str(path)], check=False)
        assert result.returncode != 0 and not result.stdout, f"{s2} read {path}"
    home1 = pwd.getpwnam(s1).pw_dir
    assert run(["runuser", "-u", s2, "--", "ls", home1], check=False).returncode != 0

    # Formgrader, as a hub service: the graders only, in its own tab, still unframable
    formgrader = f"{hub.url}/services/{hub.course}/formgrader/manage_assignments"
    r = student.session.get(formgrader, timeout=60)
    assert r.status_code == 403, (r.status_code, r.url)
    with timed("grader_formgrader"):
        grader = Student(hub, hub.instructor, next_url=f"/services/{hub.course}/formgrader")
        r = grader.session.get(formgrader, timeout=60)
        assert r.status_code == 200 and "Manage Assignments" in r.text, (r.status_code, r.url)
        assert "frame-ancestors 'none'" in r.headers.get("Content-Security-Policy", "")
        api = grader.session.get(f"{hub.url}/services/{hub.course}/formgrader/api/assignments",
                                 timeout=60)
        assert api.status_code == 200 and CHAPTER in api.text, (api.status_code, api.text[:300])



CHROMIUM = "/usr/lib/chromium/chromium"
SHOTS = REPO / "build" / "hub-test"
WRONG_STORAGE_INDEX = ("def storage_index(index, stride, storage_offset):\n"
                       "    return sum(i * s for i, s in zip(index, stride))  # no offset")


@contextlib.contextmanager
def browser_page(hub: Hub, user: str, next_url: str = "") -> Iterator:
    """A headless Chromium page logged in to the hub as ``user`` (then at ``next_url``, else
    at the user's JupyterLab), whose console errors and failed requests fail the test."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(60_000)
            page.on("console", lambda m: errors.append(f"{user}: {m.text}")
                    if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"{user}: {e}"))
            page.on("requestfailed", lambda r: None if spawn_progress_cut(r.url, r.failure)
                    else errors.append(f"{user}: failed {r.url} ({r.failure})"))
            page.on("response", lambda r: errors.append(f"{user}: {r.status} {r.request.method} "
                                                        f"{r.url}") if r.status >= 400 else None)
            page.goto(f"{hub.url}/hub/login" + (f"?next={next_url}" if next_url else ""))
            page.fill("#username_input", user)
            page.fill("#password_input", hub.passwords[user])
            page.click("#login_submit")
            if next_url:
                page.wait_for_url(f"**{next_url}**", timeout=120_000)
            else:
                page.wait_for_url(f"**/user/{user}/lab**", timeout=120_000)
                page.wait_for_selector("#jp-main-dock-panel")
            yield page
        finally:
            browser.close()
            (SHOTS / f"{user}-browser-errors.txt").write_text("\n".join(errors))
    assert not errors, errors


def replace_answer(page, source: str) -> None:
    """Type ``source`` over the first answer cell that still holds its stub."""
    cell = page.locator(".jp-CodeCell").filter(has_text="YOUR CODE HERE").first
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)
    page.keyboard.press("Escape")


def open_assignments(page) -> None:
    page.get_by_role("menuitem", name="Nbgrader").click()
    page.get_by_role("menuitem", name="Assignment List").click()


def test_a_student_in_the_browser(hub: Hub) -> None:
    """Student 2's path by clicking, in headless Chromium (Playwright, Debian's chromium):
    log in, fetch in the Assignments tab, type a right answer and a wrong one, run the
    notebook and read the wrong one's check message, Validate, save, submit. Students'
    Nbgrader menu has no instructor entries. Screenshots land in build/hub-test/."""
    user = hub.students[1]
    first = next(iter(answers_from_solution().items()))  # (grade_id, source)
    with timed("browser_student"), browser_page(hub, user) as page:
        page.get_by_role("menuitem", name="Nbgrader").click()
        entries = page.locator(".lm-Menu-content .lm-Menu-item:visible").all_inner_texts()
        assert any("Assignment List" in e for e in entries), entries
        assert not [e for e in entries if "Formgrader" in e or "Create" in e
                    or "Course List" in e], entries
        page.keyboard.press("Escape")
        assert page.request.get(f"{hub.url}/user/{user}/formgrader").status == 404
        open_assignments(page)
        released = page.locator("#released_assignments_list .list_item", has_text=CHAPTER)
        released.get_by_role("button", name="Fetch").click()
        page.locator("#fetched_assignments_list .list_item", has_text=CHAPTER).first.wait_for()
        page.screenshot(path=SHOTS / "student_1_fetched.png")

        page.goto(f"{hub.url}/user/{user}/lab/tree/{CHAPTER}/{CHAPTER}.ipynb")
        replace_answer(page, first[1])  # contiguous_strides, right
        replace_answer(page, WRONG_STORAGE_INDEX)  # storage_index, forgets the offset
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        message = page.locator(".jp-OutputArea-output",
                               has_text="storage_index disagrees with torch")
        message.first.wait_for(timeout=180_000)
        message.first.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "student_2_wrong_answer.png")
        text = message.first.inner_text()
        assert "Smallest failing case" in text and "expected:" in text, text

        page.locator(".jp-NotebookPanel jp-button.validate-button").first.click()  # saves
        header = page.locator(".jp-Dialog .jp-Dialog-header")
        header.filter(has_text="Validation Results").wait_for(timeout=180_000)
        page.screenshot(path=SHOTS / "student_3_validated.png")
        # the right answer passes; the wrong one fails with the check's message
        body = page.locator(".jp-Dialog .jp-Dialog-body").inner_text()
        assert "storage_index disagrees with torch" in body, body[:2000]
        assert f'check("{first[0]}"' not in body, body[:2000]
        page.locator(".jp-Dialog-footer button").first.click()
        page.keyboard.press("Control+s")

        open_assignments(page)
        fetched = page.locator("#fetched_assignments_list .list_item", has_text=CHAPTER)
        fetched.first.get_by_role("button", name="Submit").click()
        page.locator("#submitted_assignments_list .list_item", has_text=CHAPTER).first \
            .wait_for()
        page.screenshot(path=SHOTS / "student_4_submitted.png")

    inbound = hub.exchange / hub.course / "inbound"
    mine = [p for p in inbound.iterdir() if p.name.startswith(f"{user}+{CHAPTER}+")]
    assert len(mine) == 1 and mine[0].stat().st_uid == pwd.getpwnam(user).pw_uid, mine
    cells = json.loads((mine[0] / f"{CHAPTER}.ipynb").read_text())["cells"]
    typed = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]).strip()
             for c in cells if c["metadata"].get("nbgrader", {}).get("solution")}
    assert typed[first[0]] == first[1].strip()
    assert typed["storage_index"] == WRONG_STORAGE_INDEX.strip()


def test_the_graders_path_in_the_browser(hub: Hub) -> None:
    """Root hands the graded chapter to the course's Formgrader service; the instructor (a
    grader) opens it in a tab of its own, finds the chapter and its submission by clicking,
    gives the written answer points and a comment; root takes them back, makes the feedback
    again and releases it; student 1 fetches it by clicking and sees both."""
    s1 = hub.students[0]
    inbox, workspace = hub.grading / "inbox" / CHAPTER, hub.grading / "workspace"
    written = next(g for g in answers_from_solution() if g.startswith("written_"))
    sync = [sys.executable, "-m", "autograder", "formgrader-sync", "--workspace",
            str(workspace), "--chapter", CHAPTER, "--hub-etc", str(hub.etc)]
    with timed("formgrader_sync"):
        out = run(sync, cwd=REPO)
    assert "given to it: the gradebook and 1 autograded notebooks" in out.stdout, out.stdout
    comment = "Names the stride of **x.t()**. <script>alert('comment')</script>"
    base = f"/services/{hub.course}/formgrader"
    with timed("browser_grader"), \
            browser_page(hub, hub.instructor, f"{base}/manage_assignments") as page:
        row = page.locator("tr", has_text=CHAPTER)
        row.locator(f'a[href$="/formgrader/manage_submissions/{CHAPTER}"]').click()
        page.wait_for_url(f"**/manage_submissions/{CHAPTER}")
        page.locator("td", has_text=s1).first.wait_for()
        page.screenshot(path=SHOTS / "grader_1_submissions.png")
        # listed with its score, not as "needs autograding" (formgrader-sync's timestamp.txt)
        listed = page.locator("tr", has_text=s1).first
        assert "needs autograding" not in listed.inner_text(), listed.inner_text()
        assert re.search(r"\d+(\.\d+)? / \d+", listed.inner_text()), listed.inner_text()
        # its Autograde button runs nothing and says why (reftensor_formgrader_guard.py)
        listed.locator("span.glyphicon-flash").click()
        page.get_by_text("outside the grading sandbox").first.wait_for()
        page.screenshot(path=SHOTS / "grader_1_autograde_refused.png")
        page.reload()
        page.locator("td", has_text=s1).first.wait_for()
        page.locator('a[href$="/formgrader/gradebook"]').first.click()
        page.locator(f'a[href$="/formgrader/gradebook/{CHAPTER}"]').first.click()
        page.locator(f'a[href$="/formgrader/gradebook/{CHAPTER}/{CHAPTER}"]').first.click()
        page.get_by_role("link", name="Submission #1").click()
        score = page.locator(f"input.score#{written}")
        score.wait_for()
        # Formgrader binds the inputs once its grades and comments are loaded, and has
        # typeset the page with the MathJax the service itself serves
        page.wait_for_function("() => window.formgrader && formgrader.grades?.loaded"
                               " && formgrader.comments?.loaded && window.MathJax"
                               " && MathJax.loaded === true", timeout=120_000)
        page.screenshot(path=SHOTS / "grader_2_formgrade.png")
        with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url
                                  and r.request.method == "PUT") as saved:
            score.fill("1.5")
            score.press("Tab")
        assert saved.value.ok, (saved.value.status, saved.value.text()[:500])
        box = page.locator(f"textarea#{written}-comment")
        with page.expect_response(lambda r: "/formgrader/api/comment/" in r.url
                                  and r.request.method == "PUT") as saved:
            box.fill(comment)
            box.press("Tab")
        assert saved.value.ok, (saved.value.status, saved.value.text()[:500])
        box.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "grader_2_graded.png")

    with timed("take_feedback_release"):
        out = run(sync, cwd=REPO)
        assert "taken from Formgrader: 1 grades, 1 comments" in out.stdout, out.stdout
        run([sys.executable, "-m", "autograder", "feedback", "--workspace", str(workspace),
             "--chapter", CHAPTER], cwd=REPO)
        run([sys.executable, "-m", "autograder", "release-feedback", "--workspace",
             str(workspace), "--submissions", str(inbox), "--chapter", CHAPTER, "--exchange",
             str(hub.exchange), "--course", hub.course], cwd=REPO)

    home = Path(pwd.getpwnam(s1).pw_dir)
    for old in (home / CHAPTER / "feedback").glob("*/*.html"):
        old.unlink()  # the first test fetched feedback before the grading by hand
    with timed("browser_feedback"), browser_page(hub, s1) as page:
        open_assignments(page)
        row = page.locator("#submitted_assignments_list .list_item", has_text=CHAPTER)
        row.first.get_by_role("button", name="Fetch Feedback").click()
        deadline = time.monotonic() + 60
        while not (pages := list((home / CHAPTER / "feedback").glob("*/*.html"))):
            assert time.monotonic() < deadline, "no feedback fetched"
            page.wait_for_timeout(250)
        [fetched] = pages
        # as a student does: "(view feedback)" opens the folder, the page opens in
        # JupyterLab's HTML viewer (sandboxed: the page's scripts do not run)
        open_assignments(page)
        row = page.locator("#submitted_assignments_list .list_item", has_text=CHAPTER)
        row.first.get_by_text("(view feedback)").click()
        page.locator(".jp-DirListing-item", has_text=fetched.name).dblclick()
        frame = page.frame_locator(".jp-HTMLViewer iframe").first
        frame.get_by_text("Names the stride of").first.wait_for()
        text = frame.locator("body").inner_text()
        page.screenshot(path=SHOTS / "student_5_feedback.png")
    assert "Names the stride of x.t()." in text and "1.5 / 2" in text, text[:3000]
    assert "Score: 21.5 / " in text, text[:1000]
    assert "alert(" not in fetched.read_text()


@pytest.mark.skipif(CLASS_SIZE <= 2, reason="set REFTENSOR_HUB_THROUGHPUT=30 to measure")
def test_the_throughput_of_a_class(hub: Hub) -> None:
    """The rest of the class submits (as the first test's student did), then the hub path is
    timed from collection to every student's fetched feedback."""
    form = {"course_id": hub.course, "assignment_id": CHAPTER}
    answers = answers_from_solution()
    path = f"/api/contents/{CHAPTER}/{CHAPTER}.ipynb"
    sessions = {}
    started = time.perf_counter()
    for user in hub.students[2:]:
        student = Student(hub, user)
        student.start_server()
        student.call("POST", "/assignments/fetch", data=form)
        notebook = student.call("GET", path).json()["content"]
        for cell in notebook["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if cell["metadata"].get("nbgrader", {}).get("solution") and grade_id in answers:
                cell["source"] = answers[grade_id]
        student.call("PUT", path, json={"type": "notebook", "format": "json",
                                        "content": notebook})
        assert student.call("POST", "/assignments/submit", data=form).json()["success"]
        sessions[user] = student
    submitting = time.perf_counter() - started
    inbox, workspace = hub.grading / "inbox-all" / CHAPTER, hub.grading / "workspace-all"
    steps = {}
    t = time.perf_counter()
    run([sys.executable, "-m", "autograder", "collect", "--exchange", str(hub.exchange),
         "--course", hub.course, "--chapter", CHAPTER, "--into", str(inbox)], cwd=REPO)
    steps["collect"] = time.perf_counter() - t
    t = time.perf_counter()
    run([sys.executable, "-m", "autograder", "grade", "--workspace", str(workspace),
         "--submissions", str(inbox), "--chapter", CHAPTER, "--workers", "2"], cwd=REPO,
        timeout=1800)
    steps["grade (with feedback pages)"] = time.perf_counter() - t
    t = time.perf_counter()
    run([sys.executable, "-m", "autograder", "release-feedback", "--workspace",
         str(workspace), "--submissions", str(inbox), "--chapter", CHAPTER, "--exchange",
         str(hub.exchange), "--course", hub.course], cwd=REPO)
    steps["release feedback"] = time.perf_counter() - t
    t = time.perf_counter()
    for student in sessions.values():
        assert student.call("POST", "/assignments/fetch_feedback",
                            data=form).json()["success"]
    steps["every student fetches"] = time.perf_counter() - t
    report = json.loads((workspace / "report.json").read_text())["submissions"]
    graded = len(report)
    assert graded == CLASS_SIZE  # the first two students submitted in the tests above
    assert all(r["total"] == 20.0 for r in report if r["student"] in sessions)
    total = sum(steps.values())
    result = {"students": graded, "submitting (the rest of the class, s)": round(submitting, 1),
              "steps (s)": {k: round(v, 1) for k, v in steps.items()},
              "collect to fetched feedback (s)": round(total, 1),
              "students per minute": round(60 * graded / total, 1)}
    (REPO / "build").mkdir(exist_ok=True)
    (REPO / "build" / "hub-throughput.json").write_text(json.dumps(result, indent=1))
    print(result)


def test_the_hub_stops_and_leaves_nothing_running(hub: Hub) -> None:
    before_stop = len(hub.log.read_text().splitlines())
    with timed("hub_stop"):
        _stop(hub.process)
    users = (hub.instructor, *hub.students, f"grader-{hub.course}")
    uids = {pwd.getpwnam(u).pw_uid for u in users}
    deadline = time.monotonic() + 10  # a kernel may take a moment to follow its server
    while _processes_of(uids) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = {}
    for pid in _processes_of(uids):
        with contextlib.suppress(OSError):
            left[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    assert not left, f"processes of the class outlived the hub: {left}"
    refused = (f"User <User({hub.students[0]} 1/1 running)> not allowed to access "
               "JupyterHub service")
    # test 1's 403 is expected; while it stops, the hub may still check the Formgrader
    # service it is stopping, and log that the check failed
    errors = [line for n, line in enumerate(hub.log.read_text().splitlines())
              if line.startswith("[E ") and refused not in line
              and not (n >= before_stop and "check_services_health" in line)]
    assert not errors, errors
