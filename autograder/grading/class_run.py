"""A class's grading run: every submission of one chapter, graded and recorded in order.

``grade_class`` takes the workspace's lock (one run at a time), prepares the run (its seed,
cases and torch references: ``grade.prepare``), grades each submission in a process of its
own (``grade.grade_in_own_process``) on this machine's threads, or as one task each on a dask
cluster (``cluster.grade_on_cluster``), and records the outcomes one at a time
(``grade.record``), auditing after each that no earlier student's rows or files changed. It
ends by merging the run into the workspace's term-wide reports (``report.json``,
``grades.csv``). A run that loses its cluster's scheduler leaves ``unfinished.json``; the
next run of the same chapter and submissions finishes it with the same seed.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autograder.grading import cluster, grade
from autograder.grading.grade import Outcome
from autograder.grading.recheck import DEFAULTS, Settings
from autograder.sandbox import sanitize
from autograder.sandbox.sanitize import safe_text

__all__ = ["grade_class", "collected_times", "write_report", "GRADES_COLUMNS"]


def grade_class(workspace: Path, submissions: Path, chapter: str, *, workers: int = 1,
                seed: int | None = None, progress: bool = True,
                only: list[str] | None = None, settings: Settings = DEFAULTS,
                scheduler: str | None = None, tls_dir: Path | None = None) -> list[Outcome]:
    """Grade every ``submissions/<student>/`` folder; return the outcomes, sorted by student.

    Results do not depend on the order or the number of workers: every student is graded
    from the same plan, and the driver records them one at a time. With ``scheduler``
    (``local:N`` or a dask scheduler's address, ``tls_dir`` its certificates), each
    submission's sandboxed grading is one task on that cluster (``autograder/grading/cluster.py``).
    """
    with _workspace_lock(workspace.resolve()):
        return _grade_class(workspace.resolve(), submissions, chapter, workers=workers,
                            seed=seed, progress=progress, only=only, settings=settings,
                            scheduler=scheduler, tls_dir=tls_dir)


@contextmanager
def _workspace_lock(workspace: Path) -> Iterator[None]:
    """One grading run at a time in a workspace (another run waits, and says so): runs of
    different chapters share the gradebook, the reports and ``private/``."""
    workspace.mkdir(parents=True, exist_ok=True)
    fd = os.open(workspace / ".grading.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another grading run in {workspace} to finish...",
                  file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def _grade_class(workspace: Path, submissions: Path, chapter: str, *, workers: int,
                 seed: int | None, progress: bool, only: list[str] | None,
                 settings: Settings, scheduler: str | None = None,
                 tls_dir: Path | None = None) -> list[Outcome]:
    from tqdm import tqdm

    _read_report(workspace)  # an unreadable report stops the run before any grading
    left = _unfinished(workspace, chapter, submissions)
    if left is not None and seed is None:
        seed = left["seed"]  # the interrupted run's cases and references, again
    ctx = grade.prepare(workspace, chapter, seed, settings)
    folders = {p.name: p / chapter if (p / chapter).is_dir() else p
               for p in sorted(submissions.iterdir()) if p.is_dir()}
    if only:
        folders = {k: v for k, v in folders.items() if k in only}
    done_before: list[str] = []
    if left is not None and ctx.plan.seed == left["seed"]:
        done_before = [s for s in left["done"] if s in folders]
        folders = {k: v for k, v in folders.items() if k not in done_before}
        print(f"finishing an interrupted run of {chapter}: {len(done_before)} submissions "
              f"were recorded, {len(folders)} left", file=sys.stderr)
    outcomes: dict[str, Outcome] = {}
    for name in [n for n in folders if not sanitize.safe_student_id(n)]:
        # A name that is not a plain id never reaches the gradebook, Formgrader or a file name.
        del folders[name]
        shown = safe_text(name, 80)
        outcomes[shown] = grade._failed(shown, ctx, "the folder name is not a usable student id "
                                  "(letters, digits and . _ @ + - only, at most 64): not graded")
    finished: list[str] = []
    lock = threading.Lock()
    bar = tqdm(total=len(folders), desc=f"grading {chapter}", unit="student",
               disable=not progress, file=sys.stderr)

    digests: dict[str, str] = {}  # finished students' rows and files, as recorded
    times = collected_times(submissions, chapter)

    def finish(outcome: Outcome) -> None:
        outcome.submitted_at, outcome.late = times.get(outcome.student, ("", None))
        with lock:
            # Audit: nothing of an earlier student may have changed since it was recorded,
            # whatever this student's code did while it ran.
            now = grade._snapshot(ctx.workspace, finished, chapter)
            changed = [s for s in finished if now[s] != digests[s]]
            if changed:
                outcome.review(f"audit: other students' records changed: {changed}")
            grade.record(ctx.workspace, outcome, ctx.layout, ctx.settings)
            finished.append(outcome.student)
            digests.update(grade._snapshot(ctx.workspace, finished, chapter))
            # (No process audit here: each sandbox proves its own pid namespace empty when it
            # ends, and fails its exercise if not; other runs' sandboxes are none of ours.)
            outcomes[outcome.student] = outcome
            bar.update(1)

    def work(student: str) -> Outcome:
        return grade.grade_in_own_process(student, folders[student], ctx)

    if scheduler is None:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(work, s) for s in folders]
            for future in as_completed(futures):
                finish(future.result())
    else:
        try:
            with cluster.connect(scheduler, tls_dir) as client:
                cluster.grade_on_cluster(client, ctx, folders, finish)
        except cluster.SchedulerLost:
            bar.close()
            write_report(ctx.workspace, chapter, [outcomes[s] for s in sorted(outcomes)])
            _write_atomically(_unfinished_path(ctx.workspace, chapter), json.dumps({
                "seed": ctx.plan.seed, "submissions": str(submissions.resolve()),
                "done": sorted({*done_before, *outcomes})}))
            raise
    bar.close()
    _unfinished_path(ctx.workspace, chapter).unlink(missing_ok=True)
    result = [outcomes[s] for s in sorted(outcomes)]
    write_report(ctx.workspace, chapter, result)
    return result


def _unfinished_path(workspace: Path, chapter: str) -> Path:
    return workspace / "private" / chapter / "unfinished.json"


def _unfinished(workspace: Path, chapter: str, submissions: Path) -> dict[str, Any] | None:
    """The record a run that lost its cluster's scheduler left for this chapter and these
    submissions (its seed, the students recorded), or None: grading again finishes it."""
    try:
        data = json.loads(_unfinished_path(workspace, chapter).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("submissions") != str(submissions.resolve()) \
            or not isinstance(data.get("seed"), int) or not isinstance(data.get("done"), list):
        return None
    return data


#: the layout of report.json: {"format": 2, "submissions": [one record per (student, chapter)]}
REPORT_FORMAT = 2
GRADES_COLUMNS = ["student", "chapter", "test", "kind", "points", "max_points", "state",
                  "reasons", "sha256", "submitted_at", "late"]
#: the largest ``collected.json`` read (``collect`` writes about 300 bytes a student)
COLLECTED_LIMIT = 50_000_000


def collected_times(submissions: Path, chapter: str) -> dict[str, tuple[str, bool | None]]:
    """Each student's trusted submission time and lateness, from the record ``python -m
    autograder collect`` wrote into ``submissions`` (``collected.json``, for ``chapter``);
    empty when there is none (a folder from ``nbgrader collect``: times unknown)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(submissions / "collected.json", flags)
    except OSError:
        return {}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {}
        data = os.read(fd, COLLECTED_LIMIT + 1)
    finally:
        os.close(fd)
    try:
        record = json.loads(data) if len(data) <= COLLECTED_LIMIT else {}
        if record.get("chapter") != chapter:
            return {}
        return {str(s["student"]): (str(s["submitted_at"]), bool(s["late"]))
                for s in record["submissions"]}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def write_report(workspace: Path, chapter: str, outcomes: list[Outcome]) -> Path:
    """Merge this run's outcomes into the workspace's term-wide reports and rewrite them:
    ``report.json`` (one record per student and chapter) and ``grades.csv`` (long format,
    one row per student, chapter and graded cell). A record is replaced only by a new
    grading of the same student and chapter, so every chapter graded here stays; each file
    is replaced whole and durably (``_write_atomically``). Every string from a submission is
    made safe (``sanitize.safe_text``)."""
    records = {(r["student"], r["chapter"]): r for r in _read_report(workspace)}
    for o in outcomes:
        records[(safe_text(o.student), chapter)] = _record_of(o, chapter)
    merged = [records[key] for key in sorted(records, key=lambda k: (k[1], k[0]))]
    _write_atomically(workspace / "report.json",
                      json.dumps({"format": REPORT_FORMAT, "submissions": merged}, indent=1))
    path = workspace / "grades.csv"
    _write_atomically(path, _grades_csv(merged))
    return path


def _record_of(o: Outcome, chapter: str) -> dict[str, Any]:
    written = {w: {"max": p, "answered": o.written_answered}
               for w, p in o.written_points.items()}
    return {"student": safe_text(o.student), "chapter": chapter, "state": o.state,
            "reasons": [safe_text(r) for r in o.reasons],
            "notes": [safe_text(n) for n in o.notes], "scores": o.scores,
            "max_scores": o.max_scores, "notebook_scores": o.notebook_scores,
            "written": written, "total": o.total, "max": o.max_total,
            "seconds": round(o.seconds, 2), "cpu_seconds": round(o.cpu_seconds, 2),
            "wait_seconds": round(o.wait_seconds, 2), "peak_rss_mb": round(o.peak_rss_mb, 1),
            "sha256": o.sha256, "submitted_at": o.submitted_at or None, "late": o.late}


def _read_report(workspace: Path) -> list[dict[str, Any]]:
    """The records of earlier runs in this workspace. A report in an older layout is moved
    aside (``report.json.old``), never dropped."""
    path = workspace / "report.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as err:
        raise RuntimeError(f"{path} cannot be read ({err}); move it aside to grade here") \
            from None
    if isinstance(data, dict) and data.get("format") == REPORT_FORMAT:
        return [r for r in data["submissions"] if isinstance(r, dict)
                and isinstance(r.get("student"), str) and isinstance(r.get("chapter"), str)]
    os.replace(path, path.with_name("report.json.old"))
    print(f"note: {path} was in an older layout; kept as report.json.old", file=sys.stderr)
    return []


def _grades_csv(records: list[dict[str, Any]]) -> str:
    import csv
    import io

    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(GRADES_COLUMNS)
    for r in records:
        reasons = _cell(" | ".join(r["reasons"]))
        head = [_cell(r["student"]), r["chapter"]]
        when = [_cell(r.get("submitted_at") or ""),
                {True: "late", False: "on time"}.get(r.get("late"), "")]
        for test, most in r["max_scores"].items():
            kind = test.rpartition("_")[2] if test.startswith("test_") else "test"
            writer.writerow([*head, test, kind, f"{r['scores'].get(test, 0.0):g}", f"{most:g}",
                             r["state"], reasons, r["sha256"], *when])
        for cell, about in r.get("written", {}).items():
            points, kind = ("", "written, awaits the instructor") if about["answered"] \
                else ("0", "written, unanswered")
            writer.writerow([*head, cell, kind, points, f"{about['max']:g}", r["state"],
                             reasons, r["sha256"], *when])
    return table.getvalue()


def _cell(text: str) -> str:
    """A CSV cell from a student-controlled string: made safe, and never read as a formula
    by a spreadsheet (a leading ``= + - @`` gets a quote mark before it)."""
    text = safe_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a temporary file beside ``path``, flush it to disk, then
    rename it over: a reader, or a run killed at any moment, sees the old file or the new
    one, never a mix."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # the bytes are on disk before the name points at them
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)  # and the rename itself survives a crash
    finally:
        os.close(folder)

