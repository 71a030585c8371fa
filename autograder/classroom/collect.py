"""Collect submissions from nbgrader's exchange, trusting only what the server knows.

nbgrader's own ``collect`` takes a submission's student from the name of its inbound folder
and its time from the student's ``timestamp.txt``, and only warns when the folder belongs to
someone else (nbgrader issues #1097 and #1104). Every student can write the inbound folder, so
a student can submit as a classmate, or back-date a submission. This command runs as root and
believes only the file system:

* a folder ``<student>+<assignment>+<time>+<random>`` counts for ``<student>`` only when the
  folder and its notebook are owned by ``<student>``'s uid; anything else is refused and
  reported, never graded;
* the submission's time is the latest inode change time (ctime) of the folder and the
  notebook: no user can set a ctime, and changing either later moves it later;
* of a student's submissions the latest by that time counts (with a due date and
  ``late="use-on-time"``, the latest before the due date, if any);
* the notebook is read without following a symlink, at most :data:`MAX_NOTEBOOK_BYTES`, from
  a regular file, and copied at once into a root-only folder
  (``<into>/<student>/<chapter>/<chapter>.ipynb``, folders 0700, files 0600), which
  ``python -m autograder grade --submissions <into>`` then grades. ``<into>/collected.json``
  records each submission's trusted time, whether it is late, and its SHA-256; ``refused``
  lists what was not collected, and why.

Nothing read from the exchange reaches the output unescaped: names go through
``sanitize.safe_text`` and only safe student ids (``sanitize.safe_student_id``) become
folders.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import pwd
import stat
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.sandbox.sanitize import safe_student_id, safe_text

__all__ = ["Submission", "Refusal", "Collection", "collect", "read_roster", "LATE_RULES"]

#: the largest notebook collected (the grader reads at most as much)
MAX_NOTEBOOK_BYTES = 5_000_000
#: the most inbound entries one owner (uid) may have looked at one by one: a student who
#: floods inbound exhausts only this bound of their own (counted, named once), never anyone
#: else's folder
PER_OWNER_ENTRIES = 1_000
#: refusals listed one by one per owner; the rest are counted on one line naming the owner
REFUSALS_SHOWN = 20
#: the most inbound entries listed in one run, whoever owns them (a safety bound on the
#: listing itself: a student of the roster not yet collected when it is reached is unknown)
MAX_ENTRIES = 5_000_000
#: what a late submission gets: ``mark`` collects the latest and marks it late;
#: ``use-on-time`` collects the latest submission made before the due date when there is one
#: (else the latest, marked late); ``refuse`` collects only submissions made before it
LATE_RULES = ("mark", "use-on-time", "refuse")

#: how root opens what students could have made: never through a symlink, a FIFO never
#: blocks (``feedback`` opens the same way)
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass
class Submission:
    """One collected submission, as ``collected.json`` records it."""

    student: str
    chapter: str
    inbound: str  # the inbound folder's name, made safe
    submitted_at: str  # the trusted time, ISO 8601 in UTC
    late: bool
    sha256: str
    bytes: int
    # nbgrader's submission_secret.txt (hex), which names the student's feedback file in the
    # exchange; "" when the folder had none. Only in the root-only collected.json.
    secret: str = ""


@dataclass
class Refusal:
    """An inbound entry that was not collected, and why (or, for an owner of more entries
    than are listed one by one, how many more, on one line)."""

    inbound: str  # the entry's name, made safe
    reason: str
    owner: str = ""  # the entry's owner: a user name or "uid N", made safe


@dataclass
class Collection:
    chapter: str
    collected_at: str
    due: str | None
    late_rule: str
    submissions: list[Submission] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    # every student of the roster (when one is given): "collected", "collected, late",
    # "refused: <why>", "no submission" or "unknown: <why>"
    roster: dict[str, str] = field(default_factory=dict)
    entries: int = 0  # inbound entries listed

    def unknown(self) -> list[str]:
        """Students of the roster whose state this run could not tell."""
        return [s for s, state in self.roster.items() if state.startswith("unknown")]


@dataclass
class _Candidate:
    student: str
    name: str
    time_ns: int
    content: bytes
    secret: str = ""


def _uid_of(student: str) -> int | None:
    """The uid of the Linux user named ``student``, or None if there is none."""
    try:
        return pwd.getpwnam(student).pw_uid
    except KeyError:
        return None


def _owner_name(uid: int) -> str:
    try:
        return safe_text(pwd.getpwuid(uid).pw_name, 64)
    except KeyError:
        return f"uid {uid}"


def _iso(time_ns: int) -> str:
    seconds, nanos = divmod(time_ns, 1_000_000_000)
    moment = dt.datetime.fromtimestamp(seconds, dt.UTC).replace(microsecond=nanos // 1000)
    return moment.isoformat()


def open_dir(path: Path) -> int:
    """A descriptor of ``path``, refusing a symlink at its last step."""
    return os.open(path, DIR_FLAGS)


def _read_notebook(folder_fd: int, name: str, uid: int) -> tuple[bytes | None, int, str]:
    """The notebook ``name`` inside the open folder: (content, ctime_ns, problem)."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=folder_fd)
    except FileNotFoundError:
        return None, 0, f"no {name} in it"
    except OSError as err:  # ELOOP: a symlink, never followed
        return None, 0, f"{name} cannot be opened without following a link ({err.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, 0, f"{name} is not a regular file"
        if info.st_uid != uid:
            return None, 0, f"{name} belongs to uid {info.st_uid}, not to the student"
        if info.st_size > MAX_NOTEBOOK_BYTES:
            return None, 0, f"{name} is larger than {MAX_NOTEBOOK_BYTES} bytes"
        chunks, total = [], 0
        while total <= MAX_NOTEBOOK_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_NOTEBOOK_BYTES:  # it grew while being read
            return None, 0, f"{name} is larger than {MAX_NOTEBOOK_BYTES} bytes"
        return b"".join(chunks), os.fstat(fd).st_ctime_ns, ""
    finally:
        os.close(fd)


def _candidate(inbound_fd: int, name: str, chapter: str, uid_of: Callable[[str], int | None]
               ) -> _Candidate | Refusal | None:
    """The submission in inbound folder ``name``; None when it is another assignment's."""
    parts = name.rsplit("+", 3)  # nbgrader's layout; a student id may itself hold a "+"
    if len(parts) != 4:
        return Refusal(safe_text(name, 120), "not a submission folder's name")
    student, assignment = parts[0], parts[1]
    if assignment != chapter:
        return None
    shown = safe_text(name, 120)
    if not safe_student_id(student):
        return Refusal(shown, "the student id is not a plain id")
    uid = uid_of(student)
    if uid is None:
        return Refusal(shown, f"no user is named {student}")
    try:
        folder_fd = os.open(name, DIR_FLAGS, dir_fd=inbound_fd)
    except OSError as err:
        return Refusal(shown, f"not a folder that can be opened without following a link "
                              f"({err.strerror})")
    try:
        info = os.fstat(folder_fd)
        if info.st_uid != uid:
            return Refusal(shown, f"claims to be {student}'s but belongs to uid {info.st_uid}:"
                                  " forged, not collected")
        content, file_ctime, problem = _read_notebook(folder_fd, f"{chapter}.ipynb", uid)
        if content is None:
            return Refusal(shown, problem)
        secret = _read_secret(folder_fd, uid)
        folder_ctime = os.fstat(folder_fd).st_ctime_ns
    finally:
        os.close(folder_fd)
    return _Candidate(student, shown, max(folder_ctime, file_ctime), content, secret)


def _read_secret(folder_fd: int, uid: int) -> str:
    """nbgrader's ``submission_secret.txt`` in the open folder: hex digits, the student's
    own regular file, at most 1 KiB; "" otherwise."""
    try:
        fd = os.open("submission_secret.txt", FILE_FLAGS, dir_fd=folder_fd)
    except OSError:
        return ""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != uid:
            return ""
        text = os.read(fd, 1025).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return text if 0 < len(text) <= 1024 and all(c in "0123456789abcdef" for c in text) \
        else ""


def write_all(fd: int, content: bytes) -> None:
    """Write all of ``content`` to ``fd`` (``os.write`` may write less)."""
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view):]


def _write_private(path: Path, content: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600)
    try:
        os.fchmod(fd, 0o600)
        write_all(fd, content)
    finally:
        os.close(fd)


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.is_symlink() or not path.is_dir():
        raise RuntimeError(f"{path} is not a folder of its own")
    os.chmod(path, 0o700, follow_symlinks=False)


class _Owners:
    """What each owner (uid) of inbound entries has had looked at and refused: bounds per
    owner, so that one student's flood costs only that student's bound."""

    def __init__(self) -> None:
        self.looked: dict[int, int] = {}
        self.skipped: dict[int, int] = {}
        self.refused: dict[int, int] = {}

    def admit(self, uid: int) -> bool:
        """Whether an entry of ``uid`` is looked at (else it is counted, not examined)."""
        if self.looked.get(uid, 0) >= PER_OWNER_ENTRIES:
            self.skipped[uid] = self.skipped.get(uid, 0) + 1
            return False
        self.looked[uid] = self.looked.get(uid, 0) + 1
        return True

    def refuse(self, uid: int, refusal: Refusal, into: list[Refusal]) -> None:
        self.refused[uid] = self.refused.get(uid, 0) + 1
        refusal.owner = _owner_name(uid)
        if self.refused[uid] <= REFUSALS_SHOWN:
            into.append(refusal)

    def summaries(self) -> list[Refusal]:
        """One line for each owner with more entries than are shown or looked at."""
        lines = []
        for uid in sorted(set(self.skipped) | set(self.refused)):
            hidden = max(0, self.refused.get(uid, 0) - REFUSALS_SHOWN)
            skipped = self.skipped.get(uid, 0)
            if not hidden and not skipped:
                continue
            name = _owner_name(uid)
            parts = ([f"{hidden} more refused entries not listed"] if hidden else []) + (
                [f"{skipped} more entries not looked at (more than {PER_OWNER_ENTRIES} of "
                 "one owner)"] if skipped else [])
            lines.append(Refusal(f"{hidden + skipped} entries of {name}", "; ".join(parts),
                                 name))
        return lines


def collect(exchange: Path, course: str, chapter: str, into: Path, *,
            due: dt.datetime | None = None, late_rule: str = "mark",
            uid_of: Callable[[str], int | None] = _uid_of,
            roster: list[str] | None = None,
            now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> Collection:
    """Collect ``chapter``'s submissions from ``<exchange>/<course>/inbound`` into ``into``.

    Every entry of inbound is listed (up to :data:`MAX_ENTRIES`); each owner's first
    :data:`PER_OWNER_ENTRIES` are looked at one by one, and the rest are counted and named on
    one line with their owner. So a student who floods inbound hides nobody else's folder.

    Args:
        exchange: nbgrader's ``Exchange.root`` (``/srv/nbgrader/exchange``).
        course: the course id (``reftensor``).
        chapter: the assignment, named as the chapter folder (``ch01_storage``).
        into: the root-only folder to write; made 0700, its notebooks 0600. A student's
            earlier collected notebook there is replaced.
        due: the due date (an aware datetime); None: nothing is late.
        late_rule: one of :data:`LATE_RULES`.
        uid_of: a student id's uid (the Linux user of that name by default).
        roster: the class's student ids: each gets a state in ``Collection.roster``
            ("unknown" when this run cannot tell, see ``Collection.unknown``).

    Returns:
        The collection, also written to ``<into>/collected.json``.

    Raises:
        ValueError: an unknown late rule, or a due date without a time zone.
        OSError: the course's inbound folder cannot be opened (or is a symlink).
    """
    if late_rule not in LATE_RULES:
        raise ValueError(f"late_rule must be one of {LATE_RULES}, not {late_rule!r}")
    if due is not None and due.tzinfo is None:
        raise ValueError("the due date needs a time zone (for example +00:00)")
    due_ns = None if due is None else int(due.timestamp() * 1_000_000_000)
    result = Collection(chapter, now().isoformat(), None if due is None else due.isoformat(),
                        late_rule)
    course_fd = open_dir(exchange / course)
    try:
        inbound_fd = os.open("inbound", DIR_FLAGS, dir_fd=course_fd)
    finally:
        os.close(course_fd)
    by_student: dict[str, list[_Candidate]] = {}
    owners = _Owners()
    refused_uids: dict[int, str] = {}  # owner -> the first refusal's reason, this chapter's
    complete = True
    try:
        with os.scandir(inbound_fd) as entries:
            for entry in entries:
                if result.entries >= MAX_ENTRIES:
                    complete = False
                    result.refused.append(Refusal("...", f"more than {MAX_ENTRIES} entries in "
                                                         "inbound: the rest not listed"))
                    break
                result.entries += 1
                try:
                    uid = entry.stat(follow_symlinks=False).st_uid
                except OSError:
                    continue  # gone meanwhile
                if not owners.admit(uid):
                    continue
                found = _candidate(inbound_fd, entry.name, chapter, uid_of)
                if isinstance(found, Refusal):
                    owners.refuse(uid, found, result.refused)
                    if found.reason != "not a submission folder's name":
                        refused_uids.setdefault(uid, found.reason)
                elif found is not None:
                    by_student.setdefault(found.student, []).append(found)
    finally:
        os.close(inbound_fd)
    result.refused += owners.summaries()

    _private_dir(into)
    for student in sorted(by_student):
        ordered = sorted(by_student[student], key=lambda c: (c.time_ns, c.name))
        on_time = [c for c in ordered if due_ns is None or c.time_ns <= due_ns]
        if late_rule == "refuse" and not on_time:
            for c in ordered:
                result.refused.append(Refusal(c.name, "late, and the late rule is refuse"))
            continue
        chosen = on_time[-1] if on_time and late_rule != "mark" else ordered[-1]
        for c in ordered:
            if c is not chosen:
                result.refused.append(Refusal(c.name, f"{student} has a submission that "
                                                      "counts instead"))
        folder = into / student / chapter
        _private_dir(into / student)
        _private_dir(folder)
        _write_private(folder / f"{chapter}.ipynb", chosen.content)
        result.submissions.append(Submission(
            student, chapter, chosen.name, _iso(chosen.time_ns),
            due_ns is not None and chosen.time_ns > due_ns,
            hashlib.sha256(chosen.content).hexdigest(), len(chosen.content), chosen.secret))
    for student in roster or []:
        result.roster[student] = _state(student, result, uid_of, owners, refused_uids,
                                        complete)
    _write_private(into / "collected.json",
                   json.dumps(asdict(result), indent=1).encode())
    return result


def _state(student: str, result: Collection, uid_of: Callable[[str], int | None],
           owners: _Owners, refused_uids: dict[int, str], complete: bool) -> str:
    """A rostered student's state after the run."""
    for sub in result.submissions:
        if sub.student == student:
            return "collected, late" if sub.late else "collected"
    uid = uid_of(student) if safe_student_id(student) else None
    if uid is None:
        return "unknown: no user has this id"
    if owners.skipped.get(uid):
        return (f"unknown: more than {PER_OWNER_ENTRIES} of this student's own entries in "
                "inbound, the rest not looked at")
    if uid in refused_uids:
        return f"refused: {refused_uids[uid]}"
    if not complete:
        return f"unknown: inbound holds more than {MAX_ENTRIES} entries, not all listed"
    return "no submission"


def table(collection: Collection) -> str:
    """The collection as lines for a terminal (every name already made safe)."""
    lines = [f"{s.student:<24} {s.submitted_at}  {'LATE' if s.late else 'on time'}  "
             f"{s.sha256[:12]}" for s in collection.submissions]
    lines += [f"refused: {r.inbound}: {r.reason}" + (f" (owner: {r.owner})" if r.owner else "")
              for r in collection.refused]
    if collection.roster:
        lines += ["", "the roster:"]
        lines += [f"  {safe_text(s, 64):<24} {state}" for s, state in collection.roster.items()]
    return "\n".join(lines) if lines else "nothing to collect"


def read_roster(path: Path) -> list[str]:
    """The class's student ids: from an nbgrader gradebook (``*.db``: its students) or a
    text file (one id a line; blank lines and ``#`` comments skipped).

    Raises:
        ValueError: an id that is not a plain student id.
        OSError: the file cannot be read.
    """
    if path.suffix == ".db":
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{path}") as gb:
            ids = [s.id for s in gb.students]
    else:
        ids = [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()]
        ids = [i for i in ids if i]
    bad = [safe_text(i, 40) for i in ids if not safe_student_id(i)]
    if bad:
        raise ValueError(f"{path}: not plain student ids: {', '.join(bad[:5])}")
    return list(dict.fromkeys(ids))
