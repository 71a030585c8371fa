"""Grade the adversarial corpus (without the resource-exhaustion samples) with 1 and with 2
workers and print seconds per submission (median, 95th percentile) and the wall time.

    .venv/bin/python scripts/measure_grading.py [--out build/grading-times.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.grading import class_run
from tests.adversarial import corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="build/grading-times.json")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="measure-"))
    samples = [s for s in corpus.samples() if not s.heavy]
    corpus.build(root / "inbox", samples)
    report = {}
    for workers in (1, 2):
        started = time.perf_counter()
        outcomes = class_run.grade_class(root / f"ws{workers}", root / "inbox", corpus.CHAPTER,
                                     workers=workers, progress=False)
        wall = time.perf_counter() - started
        seconds = sorted(o.seconds for o in outcomes if o.state != "quarantined")
        report[f"{workers} worker(s)"] = {
            "submissions": len(outcomes),
            "median seconds": round(statistics.median(seconds), 2),
            "p95 seconds": round(seconds[max(0, int(0.95 * len(seconds)) - 1)], 2),
            "wall seconds": round(wall, 1),
            "wall seconds per submission": round(wall / len(outcomes), 2),
        }
        print(workers, report[f"{workers} worker(s)"], flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
