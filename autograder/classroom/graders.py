"""The hub's Formgrader and root's workspace: written answers graded by hand on a hub.

On a hub (``deploy/jupyterhub/``) root grades in its own workspace (0700, ``gradebook.db``
0600), while the graders grade written answers in the Formgrader service, the single-user
server of the course's grader account, on that account's own nbgrader course folder. This
module moves grades between the two, one way each, without root ever opening a path in the
grader account's folder (the account's own programs, Formgrader's buttons included, can put
links and files there):

- **take**: the hand-given grades (manual score, extra credit) and comments of a chapter are
  read from the account's gradebook *by a process running as that account* (``runuser``,
  the course's venv, ``python -I``, an empty environment, cwd ``/``), which prints them as
  JSON. Root reads at most :data:`OUTPUT_LIMIT` bytes of that, checks every entry against
  its own gradebook (a submission root graded, a graded cell of it, a finite score between 0
  and the cell's points, a comment of at most :data:`COMMENT_LIMIT` characters) and writes
  what passes into its gradebook; what does not is reported, never written. A score or
  comment cleared in Formgrader is cleared in the workspace when the workspace still holds
  what the account was last given (recorded by *give* in ``private/<chapter>/``); one given
  in the workspace itself since then stays.
- **give**: root's gradebook (a consistent snapshot, SQLite's own serialization) and the
  chapter's feedback-safe autograded notebooks (built from trusted material by ``grade``) are
  handed, on standard input, to a process running as the account, which writes them into its
  course folder (each notebook as ``submitted/`` and ``autograded/``, with nbgrader's
  ``timestamp.txt`` saying what the gradebook says: Formgrader counts submissions in the
  first, shows the second, and calls a submission autograded only when the two times
  agree): the gradebook through SQLite's backup API into the same file, so the running
  Formgrader sees the new rows at once; each notebook under a fresh name, renamed into
  place. A grade or comment saved in Formgrader after *take* read the account's gradebook
  is written into root's copy before the backup, so it is kept there.

``python -m autograder formgrader-sync`` does *take*, then *give*, then *take* again when
*give* kept something saved meanwhile: after a grading run it shows the new submissions in
Formgrader, with their scores; after grading by hand it brings the grades into the
workspace (then run ``feedback`` and ``release-feedback``). What is saved in the few
milliseconds between *give* reading the account's gradebook and its backup is the only edit
that can be lost.

The graders' comments reach the feedback pages only through ``safe_comments``, which cleans
them as written answers are cleaned.
"""

from __future__ import annotations

import base64
import inspect
import json
import math
import os
import re
import select
import sqlite3
import stat
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.course import pipeline
from autograder.sandbox import sanitize

__all__ = ["HubCourse", "Exchange", "read_hub_course", "take_grades", "give_chapter", "sync",
           "GraderAccountError", "OUTPUT_LIMIT", "COMMENT_LIMIT", "FORMGRADER_DATA",
           "formgrader_environment"]

OUTPUT_LIMIT = 8 * 1024 * 1024  # bytes root reads of what the grader account's process prints
COMMENT_LIMIT = 20_000  # characters of one comment
COURSE_JSON_LIMIT = 1024 * 1024
TIMEOUT = 300  # seconds for one step run as the account

#: A Jupyter data folder whose nbconvert template ``base/mathjax.html.j2`` makes Formgrader's
#: pages load MathJax 2 from the copy the ``jupyter-server-mathjax`` package serves, so they
#: work offline; it is put first on the JUPYTER_PATH of the server Formgrader runs in.
FORMGRADER_DATA = Path(__file__).resolve().parent / "formgrader"


def formgrader_environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` for the Jupyter server that runs Formgrader: :data:`FORMGRADER_DATA` first on
    its JUPYTER_PATH."""
    return pipeline.jupyter_path_first(env, FORMGRADER_DATA)


class GraderAccountError(RuntimeError):
    """A step run as the grader account failed or printed something root does not accept."""


@dataclass(frozen=True)
class HubCourse:
    """What ``setup_course.sh`` wrote to ``<hub etc>/course.json`` that this module uses."""

    course: str
    venv: Path
    grader_account: str
    grader_course_dir: Path


def read_hub_course(etc: Path) -> HubCourse:
    """``etc/course.json``, accepted only as root's own file that nobody else can change
    (it names the account and the venv that root runs programs as and from)."""
    path = etc / "course.json"
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
            raise PermissionError(f"{path}: not a file that only root can change")
        data = os.read(fd, COURSE_JSON_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > COURSE_JSON_LIMIT:
        raise ValueError(f"{path}: larger than {COURSE_JSON_LIMIT} bytes")
    course = json.loads(data)
    return HubCourse(course=course["course"], venv=Path(course["venv"]),
                     grader_account=course["grader_account"],
                     grader_course_dir=Path(course["grader_course_dir"]))


# What runs as the grader account: the course venv's own nbgrader and sqlite3, nothing from
# the account's folders (python -I, cwd /). argv: the course folder, the chapter.
def hand_given(db: str, chapter: str) -> dict[str, list[list[Any]]]:
    """The hand-given grades (student, notebook, cell, manual score, extra credit) and
    comments (student, notebook, cell, text) of ``chapter`` in the nbgrader gradebook ``db``.
    Runs as the grader account too (its source is part of the scripts below), so it imports
    what it needs itself."""
    import os
    import warnings

    out: dict[str, list[list[Any]]] = {"grades": [], "comments": []}
    if not os.path.isfile(db):
        return out
    warnings.simplefilter("ignore")
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook("sqlite:///" + db) as gb:
        try:
            submissions = gb.find_assignment(chapter).submissions
        except MissingEntry:
            submissions = []
        for sub in submissions:
            for nb in sub.notebooks:
                for g in nb.grades:
                    out["grades"].append([sub.student.id, nb.name, g.name, g.manual_score,
                                          g.extra_credit])
                for c in nb.comments:
                    out["comments"].append([sub.student.id, nb.name, c.name,
                                            c.manual_comment])
    return out


_READ = "import json, os, sys\nfrom typing import Any\n" + inspect.getsource(hand_given)

_TAKE = _READ + r"""
folder, chapter = sys.argv[1:3]
json.dump(hand_given(os.path.join(folder, "gradebook.db"), chapter), sys.stdout)
"""

_GIVE = _READ + r"""
import base64, sqlite3, tempfile
folder, chapter = sys.argv[1:3]
payload = json.load(sys.stdin)
os.umask(0o077)
def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".sync-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
db = os.path.join(folder, "gradebook.db")
fd, tmp = tempfile.mkstemp(dir=folder, prefix=".gradebook-sync-")
with os.fdopen(fd, "wb") as f:
    f.write(base64.b64decode(payload["gradebook"]))
# what was saved in Formgrader since root took the grades: kept, written into root's copy
now, taken = hand_given(db, chapter), payload["taken"] or hand_given(db, chapter)
kept = {key: [row for row in now[key] if row not in taken[key]] for key in now}
if kept["grades"] or kept["comments"]:
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook("sqlite:///" + tmp) as gb:
        for student, nb, cell, manual, extra in kept["grades"]:
            try:
                g = gb.find_grade(cell, nb, chapter, student)
            except MissingEntry:
                continue
            g.manual_score, g.extra_credit = manual, extra
        for student, nb, cell, text in kept["comments"]:
            try:
                gb.find_comment(cell, nb, chapter, student).manual_comment = text
            except MissingEntry:
                continue
        gb.db.commit()
source, target = sqlite3.connect(tmp), sqlite3.connect(db)
source.backup(target)
source.close(); target.close(); os.unlink(tmp)
notebook = chapter + ".ipynb"
src = os.path.join(folder, "source", chapter, notebook)
if not os.path.exists(src):
    put(src, payload["source"].encode())
for student, text in payload["autograded"].items():
    for kind in ("submitted", "autograded"):
        put(os.path.join(folder, kind, student, chapter, notebook), text.encode())
    # Formgrader shows a submission as autograded only when the submitted folder's
    # timestamp.txt says what the gradebook says (no file: the gradebook has none either)
    stamp = os.path.join(folder, "submitted", student, chapter, "timestamp.txt")
    when = payload["timestamps"].get(student)
    if when:
        put(stamp, when.encode())
    elif os.path.lexists(stamp):
        os.unlink(stamp)
json.dump({"notebooks": len(payload["autograded"]),
           "kept": len(kept["grades"]) + len(kept["comments"]),
           "given": hand_given(db, chapter)}, sys.stdout)
"""


def _as_account(course: HubCourse, script: str, args: Sequence[str],
                stdin: bytes = b"") -> Any:
    """Run ``script`` with the course venv's Python as the grader account; its JSON output,
    read up to :data:`OUTPUT_LIMIT` bytes."""
    import pwd

    home = pwd.getpwnam(course.grader_account).pw_dir
    python = course.venv / "bin" / "python"
    argv = ["runuser", "-u", course.grader_account, "--", "/usr/bin/env", "-i",
            f"HOME={home}", f"PATH={course.venv / 'bin'}:/usr/bin:/bin", "LANG=C.UTF-8",
            str(python), "-I", "-c", script, *args]
    return run_bounded(argv, stdin, who=course.grader_account)


def run_bounded(argv: Sequence[str], stdin: bytes = b"", who: str = "",
                timeout: float = TIMEOUT) -> Any:
    """Run ``argv`` (cwd ``/``, ``stdin`` on its standard input); its standard output parsed
    as JSON. At most :data:`OUTPUT_LIMIT` bytes of it are read (more ends the process), and
    ``timeout`` seconds waited; a failure raises :class:`GraderAccountError`, with the
    first 1,000 characters of what it printed on standard error, made safe."""
    who = who or str(argv[0])
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as errors:
        given.write(stdin)
        given.seek(0)
        process = subprocess.Popen(argv, stdin=given, stdout=subprocess.PIPE, stderr=errors,
                                   cwd="/")
        assert process.stdout is not None
        fd, deadline = process.stdout.fileno(), time.monotonic() + timeout
        chunks, size, late = [], 0, False
        try:
            while size <= OUTPUT_LIMIT:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    late = True
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            if late or size > OUTPUT_LIMIT:
                process.kill()
            try:
                code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                code, late = process.wait(), True
            process.stdout.close()
        errors.seek(0)
        said = sanitize.safe_text(errors.read(4000).decode("utf-8", "replace"), 1000)
    if size > OUTPUT_LIMIT:
        raise GraderAccountError(f"{who}: printed more than {OUTPUT_LIMIT} bytes")
    if late:
        raise GraderAccountError(f"{who}: still running after {timeout:g} s")
    if code != 0:
        raise GraderAccountError(f"{who}: exited {code}: {said}")
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError) as err:  # RecursionError: nested too deep
        raise GraderAccountError(f"{who}: not JSON ({type(err).__name__})") from None


def _score(value: object, top: float) -> float | None:
    """A hand-given score root accepts: None, or a finite number from 0 to ``top``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {sanitize.safe_text(repr(value), 60)}")
    if not math.isfinite(value) or not 0 <= value <= top:
        raise ValueError(f"{value!r} is not between 0 and {top:g}")
    return float(value)


@dataclass
class Exchange:
    """What one ``take`` or ``give`` moved, and what ``take`` refused."""

    grades: int = 0
    comments: int = 0
    notebooks: int = 0
    refused: list[str] = field(default_factory=list)
    cleared: int = 0  # scores and comments cleared in Formgrader, cleared in the workspace
    kept: int = 0  # saved in Formgrader while ``give`` ran: kept there (and taken again)
    taken: dict[str, Any] | None = None  # what ``take`` read, as the account printed it


def _rows(found: Any, key: str, width: int, moved: Exchange) -> list[list[Any]]:
    """The well-formed rows of ``found[key]``: lists of ``width`` items, the first three text
    (student, notebook, cell); the others are counted as refused."""
    rows = found.get(key) if isinstance(found, dict) else None
    if not isinstance(rows, list):
        raise GraderAccountError(f"no list of {key}")
    good = [r for r in rows if isinstance(r, list) and len(r) == width
            and all(isinstance(x, str) for x in r[:3])]
    if len(good) < len(rows):
        moved.refused.append(f"{len(rows) - len(good)} malformed {key} rows")
    return good


def _given_path(workspace: Path, chapter: str) -> Path:
    """Root's record of what the grader account's gradebook held after the last ``give``
    (``private/<chapter>/``, root's alone): what tells a score cleared in Formgrader from one
    given in the workspace since."""
    return workspace / "private" / chapter / "formgrader-given.json"


def _given(workspace: Path, chapter: str) -> dict[tuple[str, ...], tuple[Any, ...]]:
    path = _given_path(workspace, chapter)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    given: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for kind, width in (("grades", 5), ("comments", 4)):
        for row in data.get(kind, []) if isinstance(data, dict) else []:
            if isinstance(row, list) and len(row) == width:
                given[(kind, *map(str, row[:3]))] = tuple(row[3:])
    return given


def take_grades(workspace: Path, chapter: str, course: HubCourse) -> Exchange:
    """Bring the hand-given grades and comments of ``chapter`` from the grader account's
    gradebook into ``workspace/gradebook.db`` (see the module's text for the checks). A
    score or comment cleared in Formgrader is cleared here only when the workspace still
    holds what Formgrader was last given (else it was given here since, and stays)."""
    import warnings

    from nbgrader.api import Gradebook, MissingEntry

    found = _as_account(course, _TAKE, [str(course.grader_course_dir), chapter])
    moved = Exchange()
    grades, comments = _rows(found, "grades", 5, moved), _rows(found, "comments", 4, moved)
    moved.taken = {"grades": grades, "comments": comments}
    given = _given(workspace, chapter)
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for student, notebook, cell, manual, extra in grades:
            where = sanitize.safe_text(f"{student}/{notebook}/{cell}", 200)
            try:
                grade = gb.find_grade(cell, notebook, chapter, student)
                manual = _score(manual, grade.max_score)
                extra = _score(extra, grade.max_score)
            except MissingEntry:
                moved.refused.append(f"{where}: no such graded cell in the workspace")
                continue
            except ValueError as err:
                moved.refused.append(f"{where}: {err}")
                continue
            now = (grade.manual_score, grade.extra_credit)
            if manual is None and extra is None:
                before = given.get(("grades", student, notebook, cell))
                if before is None or before == (None, None) or now != before:
                    continue  # never given there, or given here since: it stays
                moved.cleared += 1  # cleared in Formgrader: cleared here
            elif now == (manual, extra):
                continue
            else:
                moved.grades += 1
            grade.manual_score, grade.extra_credit = manual, extra
            # as Formgrader does: a cell without a score of either kind needs a hand again
            grade.needs_manual_grade = manual is None and grade.auto_score is None
        for student, notebook, cell, text in comments:
            where = sanitize.safe_text(f"{student}/{notebook}/{cell}", 200)
            if text is not None and (not isinstance(text, str) or len(text) > COMMENT_LIMIT):
                moved.refused.append(f"{where}: a comment must be text of at most "
                                     f"{COMMENT_LIMIT} characters")
                continue
            try:
                comment = gb.find_comment(cell, notebook, chapter, student)
            except MissingEntry:
                moved.refused.append(f"{where}: no such comment cell in the workspace")
                continue
            if not text:
                before = given.get(("comments", student, notebook, cell))
                if not before or not before[0] or comment.manual_comment != before[0]:
                    continue
                comment.manual_comment = None
                moved.cleared += 1
            elif comment.manual_comment != text:
                comment.manual_comment = text
                moved.comments += 1
        gb.db.commit()
    return moved


def _count(value: object) -> int:
    """A count the account printed: a whole number from 0 (anything else is refused)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GraderAccountError(f"not a count: {sanitize.safe_text(repr(value), 60)}")
    return value


def give_chapter(workspace: Path, chapter: str, course: HubCourse,
                 taken: dict[str, Any] | None = None) -> Exchange:
    """Hand root's gradebook and ``chapter``'s autograded notebooks to the grader account's
    course folder (written there by the account itself). ``taken``: what ``take_grades``
    read just before; whatever the account's gradebook holds that differs from it was saved
    in Formgrader meanwhile, and is kept there (``Exchange.kept`` counts it). Records what
    the account holds afterwards (see ``take_grades``)."""
    import warnings

    from nbgrader.api import Gradebook, MissingEntry

    with sqlite3.connect(f"file:{workspace / 'gradebook.db'}?mode=ro", uri=True) as db:
        snapshot = db.serialize()
    db.close()
    autograded, timestamps = {}, {}
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}") as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for folder in sorted((workspace / "autograded").glob(f"*/{chapter}")):
            notebook = folder / f"{chapter}.ipynb"
            student = folder.parent.name
            if notebook.is_file() and sanitize.safe_student_id(student):
                autograded[student] = notebook.read_text(encoding="utf-8")
                try:
                    when = gb.find_submission(chapter, student).timestamp
                except MissingEntry:
                    when = None
                # nbgrader's own timestamp.txt format, in UTC, as its gradebook keeps it
                timestamps[student] = (when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
                                       if when is not None else None)
    source = (pipeline.SOLUTIONS / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8")
    payload = json.dumps({"gradebook": base64.b64encode(snapshot).decode(),
                          "source": source, "autograded": autograded,
                          "timestamps": timestamps, "taken": taken}).encode()
    done = _as_account(course, _GIVE, [str(course.grader_course_dir), chapter], payload)
    if not isinstance(done, dict):
        raise GraderAccountError("the give step printed no object")
    moved = Exchange(notebooks=_count(done.get("notebooks")), kept=_count(done.get("kept")))
    after = Exchange()
    record = {"grades": _rows(done.get("given", {}), "grades", 5, after),
              "comments": _rows(done.get("given", {}), "comments", 4, after)}
    path = _given_path(workspace, chapter)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".given-")  # 0600
    with os.fdopen(fd, "w") as handle:
        json.dump(record, handle)
    os.replace(temporary, path)
    return moved


def sync(workspace: Path, chapter: str, etc: Path) -> tuple[Exchange, Exchange]:
    """``take_grades`` then ``give_chapter``, for the hub course described in ``etc``."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", chapter):
        raise ValueError(f"not a chapter name: {sanitize.safe_text(chapter, 80)}")
    course = read_hub_course(etc)
    if not (workspace / "gradebook.db").is_file():
        raise FileNotFoundError(f"{workspace / 'gradebook.db'}: grade the chapter first")
    took = take_grades(workspace, chapter, course)
    gave = give_chapter(workspace, chapter, course, took.taken)
    if gave.kept:  # saved in Formgrader while this ran: kept there, and now taken here too
        again = take_grades(workspace, chapter, course)
        took.grades += again.grades
        took.comments += again.comments
        took.cleared += again.cleared
        took.refused += again.refused
    return took, gave
