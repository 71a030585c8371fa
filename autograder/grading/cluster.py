"""Grading on a ``dask.distributed`` cluster: one task per submission.

``python -m autograder grade ... --scheduler ADDRESS`` (or ``local:N`` for a
``LocalCluster`` of N worker processes on this machine) splits each submission's grading
where student code starts to run:

1. **here, the orchestrator**: the pre-flight (find the notebook, archive the original,
   rebuild it from the release; no student code runs), ``grade.preflight``;
2. **on a worker**: the trusted re-check and the notebook's own run, in that machine's
   sandboxes, in a process of its own (``grade.grade_rebuilt_in_own_process``); the task
   returns the outcome (plain data: scores, states, reasons, bounded messages), nothing a
   sandbox wrote;
3. **here again**: recording, one outcome at a time as they come back, exactly as a local
   run does: the gradebook, ``grades.csv``, ``report.json``, feedback and the archive are
   written by this process alone.

A worker gets what it needs as data, never a path on this machine: the chapter's layout,
the run's plan (cases and torch's expected values), the template gradebook and the
notebook's references (a :class:`Shipment`, sent once to every worker). So a run's results
equal a local run's with the same seed.

Faults. A worker that dies mid-task makes the scheduler run the task again on another
worker; a task that raises is retried once. A submission whose task fails twice (its worker
died twice, or it raised twice) ends ``needs review`` with the reason, never a silent zero.
If the scheduler goes away the run stops with :class:`SchedulerLost`, after recording every
outcome already received.

Trust. Workers run as root on machines the instructor controls (they need root and
bubblewrap for the sandboxes). Whoever can reach the scheduler can run code on every
worker, so a cluster on a network must require TLS with certificates only the instructor
holds (``autograder.classroom.certificates``, ``--tls-dir``); ``local:N`` uses fresh temporary
certificates on loopback.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.grading import grade, trusted
from autograder.sandbox import bwrap as sandbox
from autograder.sandbox.sanitize import safe_text

__all__ = ["Shipment", "SchedulerLost", "ClusterUnreachable", "connect", "grade_on_cluster",
           "CERTIFICATE_FILES"]

#: how often the scheduler may see a task's worker die before it gives up on the task
ALLOWED_FAILURES = 1
#: a task that raises (not a lost worker) runs once more
RETRIES = 1
CERTIFICATE_FILES = ("ca.pem", "cert.pem", "key.pem")


class SchedulerLost(RuntimeError):
    """The scheduler went away mid-run; the outcomes received before are recorded."""


class ClusterUnreachable(RuntimeError):
    """No scheduler could be reached (a wrong address, none listening, certificates missing
    or not the cluster's); nothing was graded."""


@dataclass
class Shipment:
    """Everything a worker needs to grade one chapter's submissions of one run, as data."""

    layout: grade.Layout
    plan: trusted.RunPlan
    template_db: bytes
    notebook_refs: bytes
    settings: grade.Settings
    key: str  # a digest of the rest: a worker prepares each shipment once


def shipment(ctx: grade.GradingContext) -> Shipment:
    template, refs = ctx.template_db.read_bytes(), ctx.notebook_refs.read_bytes()
    digest = hashlib.sha256(pickle.dumps((ctx.layout.chapter, ctx.plan.seed, ctx.settings))
                            + template + refs).hexdigest()
    return Shipment(ctx.layout, ctx.plan, template, refs, ctx.settings, digest)


_CONTEXTS: dict[str, grade.GradingContext] = {}  # in a worker process, by shipment key


def _context(ship: Shipment) -> grade.GradingContext:
    """The worker's grading context for ``ship``: its files in a private folder of this
    machine (0700, removed with the worker's temporary files), this machine's sandbox."""
    ctx = _CONTEXTS.get(ship.key)
    if ctx is None:
        folder = _private_folder()
        template, refs = folder / "gradebook.db", folder / "notebook_references.json"
        for path, content in ((template, ship.template_db), (refs, ship.notebook_refs)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(content)
        status = sandbox.status()
        ctx = grade.GradingContext(folder, ship.layout, ship.plan, grade.make_runtime(),
                                   template, refs, status.available, status.reason,
                                   ship.settings)
        _CONTEXTS[ship.key] = ctx
    return ctx


def _private_folder() -> Path:
    """A new 0700 folder in the dask worker's own local directory, which the worker removes
    when it closes (in the host's temp dir when not on a worker)."""
    try:
        from distributed import get_worker

        base: str | None = get_worker().local_directory
    except (ImportError, ValueError):  # ValueError: not in a worker
        base = None
    return Path(tempfile.mkdtemp(prefix="rt-worker-", dir=base))


def grade_task(ship: Shipment, outcome: grade.Outcome, rebuilt: Any,
               elapsed: float) -> grade.Outcome:
    """One submission, on a worker: its sandboxed grading in a process of its own."""
    return grade.grade_rebuilt_in_own_process(outcome, rebuilt, elapsed, _context(ship))


def _unpack(ship: Shipment) -> Shipment:
    """On a worker: the shipment, as a task result that the scheduler can compute again."""
    return ship


def _attempts(dask_scheduler: Any, key: str) -> int:
    """On the scheduler: how many times the task ``key`` was started (1 + the workers lost
    while it ran there + its retries used)."""
    ts = dask_scheduler.tasks.get(key)
    if ts is None:
        return 0
    return 1 + ts.suspicious + max(0, RETRIES - ts.retries)


def _tries(client: Any, key: str) -> int:
    """How many times the task ``key`` ran (0 when the scheduler cannot say)."""
    try:
        return int(client.run_on_scheduler(_attempts, key=key))
    except Exception:  # noqa: BLE001 - a note only: never costs the result
        return 0


def _scheduler_answers(client: Any, timeout: float = 5.0) -> bool:
    """Whether the client's scheduler still answers (a cancelled task alone does not say)."""
    try:
        client.sync(client.scheduler.identity, callback_timeout=timeout)
        return True
    except Exception:  # noqa: BLE001 - any failure to answer is no answer
        return False


def _failed_twice(outcome: grade.Outcome, err: BaseException) -> grade.Outcome:
    outcome.review(safe_text(f"grading this submission on the cluster failed twice "
                             f"({type(err).__name__}: {err}); grade it again", 300))
    return outcome


def grade_on_cluster(client: Any, ctx: grade.GradingContext, folders: dict[str, Path],
                     finish: Callable[[grade.Outcome], None], *,
                     task: Callable[..., grade.Outcome] = grade_task) -> None:
    """Grade each ``folders[student]`` with one task on ``client``'s cluster, calling
    ``finish`` with each outcome as it comes back (in this process, one at a time).
    ``task`` is what a worker runs (:func:`grade_task`; the tests give one that kills its
    worker).

    Raises:
        SchedulerLost: the scheduler went away; the outcomes received are finished.
    """
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    run = uuid.uuid4().hex[:8]
    # a task's result, not scattered data: scattered data held only by a worker that dies is
    # lost for good (every task needing it fails), a result the scheduler computes again
    ship = client.submit(_unpack, shipment(ctx), pure=False,
                         key=f"shipment-{ctx.layout.chapter}-{run}")
    waiting: dict[Any, grade.Outcome] = {}
    for student, folder in folders.items():
        started = time.perf_counter()
        outcome, rebuilt = grade.preflight(student, folder, ctx)
        if rebuilt is None:  # quarantined: nothing to run
            outcome.seconds = time.perf_counter() - started
            finish(outcome)
            continue
        future = client.submit(task, ship, outcome, rebuilt,
                               time.perf_counter() - started, retries=RETRIES, pure=False,
                               key=f"grade-{ctx.layout.chapter}-{run}-{len(waiting)}")
        waiting[future] = outcome
    lost: BaseException | None = None
    for future in as_completed(list(waiting)):
        try:
            result = future.result()
            tries = _tries(client, future.key)
            if tries > 1:  # a worker was lost under it, or it raised, and it ran again
                result.notes.append(f"graded on the cluster at try {tries}: the try before "
                                    "lost its worker or failed")
        except KilledWorker as err:
            result = _failed_twice(waiting[future], err)
        except FutureCancelledError as err:
            if not _scheduler_answers(client):  # the client lost the scheduler
                lost = err
                continue
            # the scheduler is there and dropped the task (a worker lost under load can end
            # a task so, "already forgotten"): this submission's failure, not the run's
            result = _failed_twice(waiting[future], err)
        except Exception as err:  # noqa: BLE001 - the task raised on its retry too
            result = _failed_twice(waiting[future], err)
        finish(result)
    if lost is not None:
        raise SchedulerLost(f"the scheduler went away ({type(lost).__name__}: {lost}); the "
                            "submissions graded before are recorded")


def _security(tls_dir: Path | None) -> Any:
    from distributed.security import Security

    if tls_dir is None:
        return Security.temporary()
    missing = [name for name in CERTIFICATE_FILES if not (tls_dir / name).is_file()]
    if missing:
        raise ClusterUnreachable(f"no {', '.join(missing)} in {tls_dir} (write them with "
                                 "python -m autograder certs --out DIR)")
    ca, cert, key = (str(tls_dir / name) for name in CERTIFICATE_FILES)
    return Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key,
                    tls_scheduler_cert=cert, tls_scheduler_key=key, tls_worker_cert=cert,
                    tls_worker_key=key, require_encryption=True)


@contextmanager
def connect(scheduler: str, tls_dir: Path | None = None, *, timeout: str = "30s"
            ) -> Iterator[Any]:
    """A client of the cluster ``scheduler`` names: ``local:N`` starts a ``LocalCluster``
    of N worker processes on loopback (TLS with temporary certificates), anything else is
    a scheduler's address, reached with the certificates in ``tls_dir`` when given (and
    given up after ``timeout``, also when the connection is lost)."""
    import dask
    from distributed import Client, LocalCluster

    settings = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                # one task per worker thread at a time, the rest queued at the scheduler: a
                # worker that dies takes only the task it was running with it
                "distributed.scheduler.worker-saturation": 1.0,
                # a worker starts a process of its own for each submission
                "distributed.worker.daemon": False}
    with dask.config.set(settings):
        if scheduler.startswith("local:"):
            workers = int(scheduler.removeprefix("local:"))
            security = _security(tls_dir)
            local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                 protocol="tls", host="127.0.0.1", security=security,
                                 dashboard_address=None, silence_logs=logging.ERROR)
            try:
                with Client(local, security=security) as client:
                    yield client
            finally:
                with contextlib.suppress(TimeoutError):  # a scheduler that went away
                    local.close(timeout=10)
        else:
            security = _security(tls_dir) if tls_dir is not None else None
            try:
                client = Client(scheduler, security=security, timeout=timeout)
            except (OSError, TimeoutError, ValueError) as err:
                why = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
                raise ClusterUnreachable(
                    f"cannot reach a scheduler at {safe_text(scheduler, 120)} within "
                    f"{timeout} ({why}): check the address, that the scheduler runs, and "
                    "that --tls-dir holds this cluster's certificates") from None
            with client:
                yield client
