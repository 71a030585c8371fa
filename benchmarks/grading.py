"""Grading throughput: submissions per minute for a class of chapter-1 submissions, graded by
the real pipeline (rebuild, sandboxed re-check, the notebook's own run in a sandbox), with 1
and with 2 workers, each in a fresh workspace.

Run it as root (the sandbox needs it) with ``make bench-grading`` or
``sudo .venv/bin/python -m benchmarks.grading [--students 100] [--workers 1 2] [--json F]``.
The class is the sample class's six students (honest, mistaken, crashing, unanswered)
repeated under new names, so the mix of work is a real class's. It is a measurement, not a
test: ``tests/test_bench.py`` only checks that a tiny run reports every row.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from autograder import demo, grade, pipeline, sandbox


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


def measure(students: int, workers: list[int], root: Path) -> dict:
    build_class(root, students)
    rows = []
    for count in workers:
        workspace = root / f"ws-{count}"
        started = time.perf_counter()
        outcomes = grade.grade_class(workspace, root / "class", demo.CHAPTER, workers=count,
                                     progress=True)
        seconds = time.perf_counter() - started
        states = {}
        for o in outcomes:
            states[o.state] = states.get(o.state, 0) + 1
        rows.append({"workers": count, "submissions": len(outcomes),
                     "seconds": round(seconds, 1),
                     "per_minute": round(60 * len(outcomes) / seconds, 1),
                     "states": states})
    return {"chapter": demo.CHAPTER, "students": students, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grading", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", help="also write the result as JSON")
    args = parser.parse_args(argv)
    status = sandbox.status()
    if not status.available:
        print(f"no sandbox ({status.reason}): run as root with bubblewrap installed",
              file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="rt-grading-bench-"))
    try:
        result = measure(args.students, args.workers, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\ngrading throughput, {result['students']} {result['chapter']} submissions:")
    for row in result["rows"]:
        print(f"  {row['workers']} worker(s): {row['seconds']:7.1f} s, "
              f"{row['per_minute']:5.1f} submissions per minute   {row['states']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
