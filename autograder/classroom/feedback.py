"""Feedback for the class: the pages nbgrader writes, and their release to each student.

``generate`` runs nbgrader's ``generate_feedback`` on the feedback-safe notebooks the grading
run wrote (built from trusted material only), with the graders' comments made safe
(``safe_comments``) and no script on the page (``FEEDBACK_DATA``). ``release_feedback`` then
puts each collected student's page where nbgrader's *Fetch Feedback* finds it for that student
only. Both run as root, after ``grade`` (and after ``formgrader-sync`` on a hub, to carry the
grades given by hand).
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path

from autograder.classroom.collect import DIR_FLAGS, FILE_FLAGS, open_dir, write_all
from autograder.classroom.safe_comments import FEEDBACK_PREPROCESSORS
from autograder.course import pipeline
from autograder.sandbox.sanitize import safe_student_id

__all__ = ["FEEDBACK_DATA", "generate", "release_feedback"]

#: A Jupyter data folder whose ``base/mathjax.html.j2`` writes nothing: the feedback run has
#: it first on its JUPYTER_PATH, so feedback pages carry no script (``generate``).
FEEDBACK_DATA = Path(__file__).resolve().parent / "feedback_data"


def generate(workspace: Path, chapter: str) -> Path:
    """nbgrader's HTML feedback for every autograded student of ``chapter``, from the
    feedback-safe notebooks: ``<workspace>/feedback/<student>/<chapter>/<chapter>.html``."""
    env = pipeline.jupyter_path_first(dict(os.environ), FEEDBACK_DATA)
    pipeline.nbgrader("generate_feedback", chapter, "--force",
                      *[f"--GenerateFeedback.preprocessors={name}"
                        for name in FEEDBACK_PREPROCESSORS],
                      root=workspace, env=env)
    return workspace / "feedback"


#: the largest feedback page released
MAX_FEEDBACK_BYTES = 20_000_000


def _read_private(path: Path, limit: int) -> bytes | None:
    """A root-written file, not through a link, at most ``limit`` bytes; None otherwise."""
    try:
        fd = os.open(path, FILE_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = b""
        while len(data) <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
        return data if len(data) <= limit else None
    finally:
        os.close(fd)


def release_feedback(workspace: Path, submissions: Path, exchange: Path, course: str,
                     chapter: str) -> list[tuple[str, str]]:
    """Put each collected student's feedback page where nbgrader's *Fetch Feedback* finds it,
    and only that student: ``<exchange>/<course>/feedback/<md5(secret + chapter)>.html``,
    named by the ``submission_secret.txt`` of the submission ``collect`` took (which only its
    student has), in a folder others cannot list (0711). Runs as root after ``grade`` (and
    after ``feedback``, to include grades given by hand).

    Returns (student, what happened) for each collected submission.

    Raises:
        OSError: the course's exchange folder cannot be opened without following a link,
            or its ``feedback`` folder is not a folder.
    """
    from nbgrader.utils import notebook_hash

    raw = _read_private(submissions / "collected.json", 50_000_000)
    record = json.loads(raw) if raw else {}
    if record.get("chapter") != chapter:
        raise ValueError(f"{submissions} holds no collected submissions of {chapter}")
    course_fd = open_dir(exchange / course)
    try:
        try:
            os.mkdir("feedback", 0o711, dir_fd=course_fd)
        except FileExistsError:
            pass
        feedback_fd = os.open("feedback", DIR_FLAGS, dir_fd=course_fd)
    finally:
        os.close(course_fd)
    done = []
    try:
        os.fchmod(feedback_fd, 0o711)
        for sub in record.get("submissions", []):
            student, secret = str(sub.get("student", "")), str(sub.get("secret", ""))
            if not safe_student_id(student):
                continue
            if not secret:
                done.append((student, "no submission secret (not made by nbgrader's Submit): "
                                      "Fetch Feedback cannot find a page; hand over the "
                                      f"workspace's feedback/{student}/{chapter}/{chapter}.html"))
                continue
            page = _read_private(workspace / "feedback" / student / chapter / f"{chapter}.html",
                                 MAX_FEEDBACK_BYTES)
            if page is None:
                done.append((student, "no feedback page in the workspace (run grade first)"))
                continue
            name = notebook_hash(secret=secret, notebook_id=chapter)
            # a fresh name (O_EXCL: never an entry someone left there), then renamed over
            # the page's name, which replaces whatever entry had it and follows nothing
            temporary = f".{name}-{secrets.token_hex(8)}.tmp"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o644, dir_fd=feedback_fd)
            try:
                os.fchmod(fd, 0o644)
                write_all(fd, page)
            finally:
                os.close(fd)
            os.replace(temporary, f"{name}.html", src_dir_fd=feedback_fd,
                       dst_dir_fd=feedback_fd)
            done.append((student, "released"))
    finally:
        os.close(feedback_fd)
    return done
