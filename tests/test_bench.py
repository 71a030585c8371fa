"""Smoke test of the benchmark command: it runs and reports every row. No timing assertions.

Performance is measured by ``make bench`` (benchmarks/bench.py), never asserted in a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import reftensor._ops
from tests import tiers

REPO = Path(__file__).resolve().parent.parent
# The rows issues 5, 6, 41 (an Adam step of a Module), 44 (a dispatch mode, make_fx), 42 (a
# DataLoader epoch) and 45 (an epoch of the capstone's CNN) ask for.
# Not imported from benchmarks.bench: importing it would set the thread variables in this
# pytest process.
KEYS = ["add", "add_t", "sum", "matmul_small", "matmul_large", "tiny_add", "tiny_add_int64",
        "tiny_view", "tiny_tolist", "tiny_rand", "mlp_step", "adam_mlp_step", "moded_mlp_step",
        "make_fx_mlp", "epoch_0_workers",
        "epoch_2_workers", "capstone_epoch", "deep_graph", "rand", "randn", "import"]


def test_quick_benchmark_reports_every_row(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench", "--quick", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert "single-threaded" in report["threads"] and "WARNING" not in report["threads"]
    rows = {row["key"]: row for row in report["rows"]}
    assert list(rows) == KEYS
    for key, row in rows.items():
        assert row["operation"] in done.stdout
        if key == "sum" and "sum" not in reftensor._ops.aten:
            assert row["status"] == "not implemented yet"  # issue 5's sum is not written yet
            continue
        assert row["status"] == "measured", row
        assert row["reftensor_s"] > 0, row
        assert isinstance(row["met"], bool), row
        if key != "import":
            assert row["torch_s"] > 0, row
            assert row["ratio"] > 0, row


@pytest.mark.grading
@pytest.mark.slow
def test_grading_throughput_reports_every_worker_count(tmp_path: Path) -> None:
    from autograder.sandbox import bwrap as sandbox

    if not sandbox.status().available:
        pytest.skip(f"no sandbox: {sandbox.status().reason}")
    out = tmp_path / "grading.json"
    # the fast tier: one student, one configuration of each path; the full tier: two students
    # and every configuration `make bench-grading` measures
    students, workers, schedulers, startup = tiers.pick(
        (1, ["2"], ["local:1"], []), (2, ["1", "2"], ["local:2"], ["--startup"]))
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.grading", "--students", str(students), "--workers",
         *workers, "--schedulers", *schedulers, *startup, "--json", str(out)], cwd=REPO,
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert [row["label"] for row in report["rows"]] == [
        *(f"{n} worker(s)" for n in workers), *(f"scheduler {s}" for s in schedulers)]
    for row in report["rows"]:
        assert row["submissions"] == students and row["per_minute"] > 0
        assert row["orchestrator_cpu_per_submission"] > 0
        assert row["sandbox_cpu_per_submission"] > 0
        assert (row["startup_seconds"] > 0) == (row["label"].startswith("scheduler")
                                                and bool(startup))
        assert sum(row["states"].values()) == students
        assert row["label"] in done.stdout
