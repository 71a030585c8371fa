"""What a DataLoader worker knows about itself (``torch.utils.data.get_worker_info``):
``WorkerInfo`` and the one per process, set when a worker starts (``worker.worker_loop``)
and read by the dataset's code and by ``collate`` (which stacks into a new tensor in a
worker). ``None`` in the main process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info", "set_worker_info"]


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker (``torch.utils.data.WorkerInfo``).

    Attributes:
        id: this worker's id, ``0 .. num_workers - 1``.
        num_workers: how many workers the loader started.
        seed: ``base_seed + id``, the seed of this worker's generators.
        dataset: this process's copy of the dataset.
        rng: unused (torch's thread workers); None.
        worker_method: ``"multiprocessing"``.
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's ``WorkerInfo``; ``None`` in the main process
    (``torch.utils.data.get_worker_info``)."""
    return _worker_info


def set_worker_info(info: WorkerInfo | None) -> None:
    """Set this process's ``WorkerInfo`` (a worker, as it starts; None: the main process)."""
    global _worker_info
    _worker_info = info
