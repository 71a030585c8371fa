"""Grading on a dask.distributed cluster (``autograder/grading/cluster.py``), on a LocalCluster over
loopback: the same results as a local run, a killed worker costs a retry, a submission
whose worker dies twice ends ``needs review``, the cluster speaks TLS only.

Each test starts a LocalCluster of two worker processes (a few seconds) and grades chapter
1 submissions (about 8 s each on 2 cores)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.classroom import certificates
from autograder.grading import class_run, cluster, grade
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import write_submission

pytestmark = [
    pytest.mark.skipif(not sandbox.status().available,
                       reason="no grading sandbox here (needs root and bubblewrap)"),
    # the fast tier grades chapter 1 less its demo cells (tests/conftest.py, tests/lean.py);
    # the command-line run, a process of its own, grades it as released
    pytest.mark.usefixtures("lean_chapter_1"),
]

CHAPTER = "ch01_storage"
WRONG = "def storage_index(shape, stride, offset, index):\n    return 0\n"
MARKERS = "REFTENSOR_TEST_MARKERS"


def _class(inbox: Path) -> Path:
    write_submission(CHAPTER, inbox / "right" / CHAPTER, {})
    write_submission(CHAPTER, inbox / "wrong" / CHAPTER, {"storage_index": WRONG})
    (inbox / "empty").mkdir()  # nothing submitted: quarantined before any task
    return inbox


def _records(workspace: Path) -> list[dict]:
    """report.json's records without the timings, which differ from run to run."""
    records = json.loads((workspace / "report.json").read_text())["submissions"]
    timings = ("seconds", "cpu_seconds", "wait_seconds", "peak_rss_mb")
    return [{k: v for k, v in r.items() if k not in timings} for r in records]


def test_a_cluster_run_records_what_a_local_run_records(tmp_path: Path):
    inbox = _class(tmp_path / "inbox")
    local = class_run.grade_class(tmp_path / "local", inbox, CHAPTER, workers=2, seed=2026,
                              progress=False)
    kept_before = set(Path(tempfile.gettempdir()).glob("rt-worker-*"))
    remote = class_run.grade_class(tmp_path / "remote", inbox, CHAPTER, seed=2026, progress=False,
                               scheduler="local:2")
    # each worker's copy of the chapter's files (hidden tests) left with the worker
    assert set(Path(tempfile.gettempdir()).glob("rt-worker-*")) <= kept_before
    assert [(o.student, o.total, o.state) for o in remote] == [
        ("empty", 0.0, "quarantined"), ("right", 20.0, "graded"), ("wrong", 16.0, "graded")]
    assert [(o.student, o.total, o.state, o.reasons) for o in local] == [
        (o.student, o.total, o.state, o.reasons) for o in remote]
    assert (tmp_path / "local" / "grades.csv").read_bytes() == \
        (tmp_path / "remote" / "grades.csv").read_bytes()
    assert _records(tmp_path / "local") == _records(tmp_path / "remote")
    # the orchestrator alone wrote the archive and the feedback-safe notebooks
    for kind in ("archive", "autograded"):
        local_files = sorted(p.relative_to(tmp_path / "local")
                             for p in (tmp_path / "local" / kind).rglob("*") if p.is_file())
        remote_files = sorted(p.relative_to(tmp_path / "remote")
                              for p in (tmp_path / "remote" / kind).rglob("*") if p.is_file())
        assert local_files == remote_files and local_files, kind


def dying_task(ship, outcome, rebuilt, elapsed):
    """Kills its own worker: every time for student ``twice``, the first time for the
    others (a marker file remembers it across the worker's restart)."""
    marker = Path(os.environ[MARKERS]) / outcome.student
    if outcome.student == "twice" or not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return cluster.grade_task(ship, outcome, rebuilt, elapsed)


def test_a_killed_worker_costs_a_retry_and_twice_ends_in_review(tmp_path: Path,
                                                                monkeypatch):
    inbox = tmp_path / "inbox"
    write_submission(CHAPTER, inbox / "once" / CHAPTER, {})
    write_submission(CHAPTER, inbox / "twice" / CHAPTER, {})
    (tmp_path / "markers").mkdir()
    monkeypatch.setenv(MARKERS, str(tmp_path / "markers"))  # the workers inherit it
    ctx = grade.prepare(tmp_path / "ws", CHAPTER, seed=7)
    outcomes: dict[str, grade.Outcome] = {}
    with cluster.connect("local:2") as client:
        # one at a time: two workers dying together could both have held a task
        for student in ("once", "twice"):
            cluster.grade_on_cluster(client, ctx, {student: inbox / student / CHAPTER},
                                     lambda o: outcomes.__setitem__(o.student, o),
                                     task=dying_task)
    once, twice = outcomes["once"], outcomes["twice"]
    assert (once.total, once.state) == (20.0, "graded"), once.reasons
    assert "graded on the cluster at try 2" in once.notes[-1], once.notes  # in its record
    assert twice.state == "needs review" and twice.total == 0.0
    # the second death ends the task as KilledWorker; on a loaded machine dask may instead
    # drop it ("already forgotten") while the scheduler still answers: the same failure
    assert any("failed twice" in r and ("KilledWorker" in r or "already forgotten" in r)
               for r in twice.reasons), twice.reasons


def test_the_cluster_speaks_tls_only(tmp_path: Path):
    from distributed import Client
    from distributed.security import Security

    with cluster.connect("local:1") as client:
        address = client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        with pytest.raises((OSError, TimeoutError)):  # another CA's certificate: refused
            Client(address, security=Security.temporary(), timeout="3s")


def test_written_certificates_let_a_client_in(tmp_path: Path):
    """``write_certificates`` makes a CA and a certificate that a scheduler, a worker and a
    client started with them accept; the key is the owner's alone."""
    from distributed import Client, LocalCluster
    from distributed.security import Security

    paths = certificates.write_certificates(tmp_path / "certs")
    assert [p.name for p in paths] == list(cluster.CERTIFICATE_FILES)
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in paths)
    security = cluster._security(tmp_path / "certs")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls",
                      host="127.0.0.1", security=security, dashboard_address=None) as local, \
            cluster.connect(local.scheduler_address, tmp_path / "certs") as client:
        assert client.submit(sum, [1, 2]).result(timeout=30) == 3
        with pytest.raises((OSError, TimeoutError)):
            Client(local.scheduler_address, security=Security.temporary(), timeout="3s")


def stopping_task(ship, outcome, rebuilt, elapsed):
    """A stand-in for grading: ``second`` shuts the scheduler down, the others return."""
    import time

    from distributed import get_client

    if outcome.student == "second":
        time.sleep(3)
        get_client().shutdown()  # the scheduler goes away, and its workers with it
        time.sleep(5)
    outcome.notes.append("graded by a stand-in")
    return outcome


def test_a_lost_scheduler_stops_the_run_and_grading_again_finishes_it(tmp_path: Path,
                                                                     monkeypatch):
    """The scheduler goes away mid-run: the run stops with SchedulerLost, what came back is
    recorded, and the same command again grades only what is left, with the same seed."""
    inbox = tmp_path / "inbox"
    for student in ("first", "second"):
        write_submission(CHAPTER, inbox / student / CHAPTER, {})
    real = cluster.grade_on_cluster
    monkeypatch.setattr(cluster, "grade_on_cluster",
                        lambda *args, **kw: real(*args, **kw, task=stopping_task))
    with pytest.raises(cluster.SchedulerLost, match="went away"):
        class_run.grade_class(tmp_path / "ws", inbox, CHAPTER, progress=False,
                          scheduler="local:2")
    records = json.loads((tmp_path / "ws" / "report.json").read_text())["submissions"]
    assert [(r["student"], r["notes"][-1]) for r in records] == [
        ("first", "graded by a stand-in")]
    unfinished = json.loads((tmp_path / "ws" / "private" / CHAPTER / "unfinished.json")
                            .read_text())
    assert unfinished["done"] == ["first"]
    monkeypatch.setattr(cluster, "grade_on_cluster", real)
    again = class_run.grade_class(tmp_path / "ws", inbox, CHAPTER, progress=False,
                              scheduler="local:2")
    assert [(o.student, o.total, o.state) for o in again] == [("second", 20.0, "graded")]
    records = json.loads((tmp_path / "ws" / "report.json").read_text())["submissions"]
    assert [r["student"] for r in records] == ["first", "second"]
    assert not (tmp_path / "ws" / "private" / CHAPTER / "unfinished.json").exists()
    seeds = {json.loads((tmp_path / "ws" / "private" / CHAPTER / "run" / "references.json")
                        .read_text())["seed"], unfinished["seed"]}
    assert len(seeds) == 1  # the second run drew the first one's cases again


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path):
    """A wrong address, or certificates that are missing: one error saying what to check,
    and on the command line one line (exit 2), not dask's tracebacks."""
    paths = certificates.write_certificates(tmp_path / "certs")
    with socket.socket() as free:  # a loopback port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(cluster.ClusterUnreachable, match="cannot reach a scheduler at"):
        with cluster.connect(f"tls://127.0.0.1:{port}", tmp_path / "certs", timeout="3s"):
            pass
    paths[0].unlink()
    with pytest.raises(cluster.ClusterUnreachable, match="no ca.pem|no .* in"):
        with cluster.connect(f"tls://127.0.0.1:{port}", tmp_path / "certs", timeout="3s"):
            pass
    inbox = tmp_path / "inbox"
    write_submission(CHAPTER, inbox / "right" / CHAPTER, {})
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "--workspace", str(tmp_path / "ws"),
         "--submissions", str(inbox), "--chapter", CHAPTER, "--scheduler",
         f"tls://127.0.0.1:{port}", "--tls-dir", str(tmp_path / "certs")],
        cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    said = [line for line in done.stderr.replace("]grade:", "]\ngrade:").splitlines()
            if line.strip() and not line.startswith("grading ")]  # (the progress bar)
    assert len(said) == 1 and said[0].startswith("grade: no "), done.stderr
    assert "python -m autograder certs" in said[0]
