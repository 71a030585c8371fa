"""The capstone's full run (issue 45): the four runs of :mod:`autograder.course.capstone`'s
``SETTINGS`` (the CNN and the MLP baseline, each with SGD and momentum and with Adam) trained on
torch and on reftensor, each to its end, and compared.

Usage::

    python -m autograder.course.capstone_run --out build/capstone/full_run.json [--max-steps N]

The eight trainings run in ``--workers`` processes (2 by default: one per core of the course's
machines), each single-threaded (``torch.set_num_threads(1)`` and the BLAS variables), so torch's
sums are made in the same order on every machine. The output is plain JSON (:func:`full_run`);
chapter 10's notebook shows it (its figures on the website come from the run the site build
makes: ``autograder.course.site``). ``--max-steps`` shortens every run (the site's test uses
it); a shortened run says so (``max_steps`` in the output).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import torch  # noqa: E402 - after the thread settings

import reftensor  # noqa: E402
import reftensor.utils.data  # noqa: E402,F401 - lib.utils.data for capstone.train
from autograder.course import capstone  # noqa: E402

__all__ = ["LIBRARIES", "full_run", "read", "main"]

torch.set_num_threads(1)

#: The libraries by name, as the worker processes find them.
LIBRARIES = {"torch": torch, "reftensor": reftensor}

def _train(model: str, optimizer: str, library: str, max_steps: int | None) -> dict[str, Any]:
    """One training (a worker process's task), as plain data."""
    return asdict(capstone.train(LIBRARIES[library], model, optimizer, max_steps=max_steps))


def full_run(max_steps: int | None = None, workers: int = 2) -> dict[str, Any]:
    """Train every run of ``capstone.SETTINGS`` on both libraries (``workers`` processes) and
    compare them. Returns ``{"max_steps", "wall_seconds", "runs": [{"model", "optimizer",
    "settings", "torch", "reftensor", "report"}, ...]}``: each library's record
    (:class:`capstone.Record` as a dict) and ``capstone.compare``'s report, in ``SETTINGS``'
    order. ``wall_seconds`` is the whole run's, from the first training's start to the last
    one's end."""
    start = time.perf_counter()
    tasks = [(model, optimizer, library) for model, optimizer in capstone.SETTINGS
             for library in LIBRARIES]
    context = multiprocessing.get_context("spawn")  # no thread pool of the parent is copied
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {task: pool.submit(_train, *task, max_steps) for task in tasks}
        records = {task: future.result() for task, future in futures.items()}
    runs = []
    for model, optimizer in capstone.SETTINGS:
        pair = {library: records[(model, optimizer, library)] for library in LIBRARIES}
        report = capstone.compare(capstone.Record(**pair["torch"]),
                                  capstone.Record(**pair["reftensor"]))
        runs.append({"model": model, "optimizer": optimizer,
                     "settings": capstone.SETTINGS[(model, optimizer)], **pair,
                     "report": report})
    return {"max_steps": max_steps, "wall_seconds": time.perf_counter() - start, "runs": runs}


def read(path: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """The full run written at ``path`` (by default the file ``capstone.RUN_VARIABLE`` names), or
    None when there is none."""
    path = path if path is not None else os.environ.get(capstone.RUN_VARIABLE)
    if not path or not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    parser.add_argument("--max-steps", type=int, default=None,
                        help="stop every run after this many steps (a shortened run)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    result = full_run(args.max_steps, args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result))
    for run in result["runs"]:
        report = run["report"]
        print(f"{run['model']:>4} {run['optimizer']:>4}: {report['steps']} steps, largest "
              f"relative loss difference {report['max_loss_rel_diff_first_epoch']:.1e} "
              f"(first epoch) and {report['max_loss_rel_diff']:.1e} (whole run); test "
              f"accuracy {report['test_accuracy'][0]:.3f} (torch) and "
              f"{report['test_accuracy'][1]:.3f} (reftensor)")
    print(f"wall: {result['wall_seconds']:.0f} s")


if __name__ == "__main__":
    main()
