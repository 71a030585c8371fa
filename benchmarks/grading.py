"""Grading throughput: submissions per minute for a class of chapter-1 submissions, graded by
the real pipeline (rebuild, sandboxed re-check, the notebook's own run in a sandbox), with 1
and with 2 local workers and on a dask cluster (``--scheduler local:2``: a LocalCluster of
two worker processes), each in a fresh workspace; and the orchestrating process's own CPU
time per submission (the pre-flight, recording, feedback; with a cluster, also its scheduler,
which a LocalCluster runs in this process), the sandboxes' CPU time per submission, and
(``--startup``) how long a cluster takes to start and stop alone.

Run it as root (the sandbox needs it) with ``make bench-grading`` or
``sudo .venv/bin/python -m benchmarks.grading [--students 100] [--workers 1 2]
[--schedulers local:2] [--startup] [--json F]``.
The class is the sample class's six students (honest, mistaken, crashing, unanswered)
repeated under new names, so the mix of work is a real class's. It is a measurement, not a
test: ``tests/test_bench.py`` only checks that a tiny run reports every row.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from autograder.classroom import demo
from autograder.course import pipeline
from autograder.grading import class_run
from autograder.sandbox import bwrap as sandbox


def build_class(out: Path, students: int) -> list[str]:
    """``students`` submissions under ``out``: the sample class's, repeated, renamed."""
    samples = out / "samples"
    demo.build_submissions(pipeline.COURSE, samples)
    kinds = sorted(p.name for p in samples.iterdir())
    names = []
    for n in range(students):
        kind = kinds[n % len(kinds)]
        name = f"s{n:03d}_{kind}"
        shutil.copytree(samples / kind, out / "class" / name)
        names.append(name)
    shutil.rmtree(samples)
    return names


def _cpu_seconds() -> float:
    """This process's own CPU time (not its children's, not other processes')."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def startup_seconds(scheduler: str) -> float:
    """How long starting and stopping the cluster ``scheduler`` names takes, alone (for
    ``local:N``: N worker processes and the scheduler), a cost each run pays once."""
    from autograder.grading import cluster

    started = time.perf_counter()
    with cluster.connect(scheduler):
        pass
    return time.perf_counter() - started


def measure(students: int, workers: list[int], root: Path,
            schedulers: list[str] = (), startup: bool = False) -> dict:
    build_class(root, students)
    rows = []
    runs = [(f"{count} worker(s)", {"workers": count}) for count in workers]
    runs += [(f"scheduler {address}", {"scheduler": address}) for address in schedulers]
    for n, (label, how) in enumerate(runs):
        workspace = root / f"ws-{n}"
        started, cpu = time.perf_counter(), _cpu_seconds()
        outcomes = class_run.grade_class(workspace, root / "class", demo.CHAPTER, progress=True,
                                     **how)
        seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
        states = {}
        for o in outcomes:
            states[o.state] = states.get(o.state, 0) + 1
        graded = [o for o in outcomes if o.cpu_seconds]
        rows.append({"label": label, **how, "submissions": len(outcomes),
                     "seconds": round(seconds, 1),
                     "per_minute": round(60 * len(outcomes) / seconds, 1),
                     "orchestrator_cpu_per_submission": round(cpu / len(outcomes), 3),
                     # the sandboxes' own CPU time (scheduler statistics), per submission
                     "sandbox_cpu_per_submission": round(
                         sum(o.cpu_seconds for o in graded) / max(1, len(graded)), 3),
                     "startup_seconds": (round(startup_seconds(how["scheduler"]), 1)
                                         if startup and "scheduler" in how else 0.0),
                     "states": states})
    return {"chapter": demo.CHAPTER, "students": students, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grading", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--schedulers", nargs="*", default=[],
                        help="also grade on these dask clusters (local:N or an address)")
    parser.add_argument("--startup", action="store_true",
                        help="also time each cluster's start and stop alone")
    parser.add_argument("--json", help="also write the result as JSON")
    args = parser.parse_args(argv)
    status = sandbox.status()
    if not status.available:
        print(f"no sandbox ({status.reason}): run as root with bubblewrap installed",
              file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="rt-grading-bench-"))
    try:
        result = measure(args.students, args.workers, root, args.schedulers, args.startup)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\ngrading throughput, {result['students']} {result['chapter']} submissions:")
    for row in result["rows"]:
        print(f"  {row['label']:<20} {row['seconds']:7.1f} s, "
              f"{row['per_minute']:5.1f} submissions per minute, the orchestrator's own CPU "
              f"{row['orchestrator_cpu_per_submission']:.2f} s per submission, the "
              f"sandboxes' {row['sandbox_cpu_per_submission']:.2f} s, start-up "
              f"{row['startup_seconds']:.1f} s   {row['states']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
