"""A DataLoader worker process (``torch.utils.data._utils.worker``): its seeding, its
``get_worker_info()``, and its loop.

A worker is started (``fork``) with its id, the loader's ``base_seed`` and its own index queue;
it then

1. seeds (``worker_seeds``): Python's ``random.seed(seed)`` and the default generator's
   ``manual_seed(seed)`` (so ``initial_seed()`` in the worker is ``seed``) with the worker's
   seed, and NumPy's global ``np.random.seed`` with four 32-bit words made from ``base_seed``
   and the id (torch's ``_generate_state``, after NumPy's ``SeedSequence``);
2. sets ``get_worker_info()`` (id, num_workers, seed, its copy of the dataset), calls
   ``worker_init_fn(worker_id)`` and makes its fetcher (an exception here is sent back
   with the first task);
3. loops: takes ``(task index, keys)`` from its index queue, fetches, and puts
   ``(task index, batch)`` on the shared result queue; an exception travels as an
   ``ExceptionWrapper`` (its traceback as text) and the main process re-raises it naming the
   worker; an iterable dataset's end travels as ``IterableDatasetStopIteration``. ``None``
   ends the loop; ``ResumeIteration`` (persistent workers, a new epoch) makes a new fetcher.

The loop also ends when the main process has gone (its parent pid changed).
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from .. import _generator
from . import fetch, worker_info
from .worker_info import WorkerInfo, get_worker_info

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "IterableDatasetStopIteration",
           "ResumeIteration", "worker_seeds", "worker_loop", "MP_STATUS_CHECK_INTERVAL"]

#: Seconds between checks that the other side is alive (torch's MP_STATUS_CHECK_INTERVAL).
MP_STATUS_CHECK_INTERVAL = 5.0


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """Sent by a worker whose iterable dataset has ended."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Sent to persistent workers at a new epoch; echoed back once the worker has reset."""

    seed: int | None = None


class ExceptionWrapper:
    """An exception with its traceback as text, to re-raise in another process
    (``torch._utils.ExceptionWrapper``).

    Args:
        exc_info: ``sys.exc_info()`` of the exception (default: the one being handled).
        where: where it happened, e.g. ``"in DataLoader worker process 1"``.
    """

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type: type[BaseException] = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> NoReturn:
        """Raise an exception of the same class whose message is ``"Caught <Name> <where>.\\n
        Original <traceback>"``; a class that cannot be built from one string gives a
        RuntimeError with that message (torch's rules, KeyError's quoting included).

        Unlike torch's, it leaves no reference cycle through its frame (see the end)."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)  # type: ignore[call-arg]
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:  # no cycle exception -> traceback -> this frame -> exception: once the
            del exception  # caller drops the exception, the loader iterator (and its
            #                workers) go at once, without waiting for the garbage collector



class KeyErrorMessage(str):
    """A str whose ``repr`` is itself: KeyError prints ``repr`` of its argument."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def worker_seeds(base_seed: int, worker_id: int) -> tuple[int, list[int]]:
    """What worker ``worker_id`` seeds its generators with, from the loader's base seed (as
    torch's ``_worker_loop`` and its ``_generate_state``): every worker process of a
    DataLoader runs it first.

    Args:
        base_seed: the loader's base seed, an int in ``[0, 2**63)``.
        worker_id: the worker's id, ``0 <= worker_id < num_workers``.

    Returns:
        ``(seed, words)``: the seed of Python's ``random`` and of the default generator (what
        ``get_worker_info().seed`` and ``initial_seed()`` give in the worker), and the four
        ints in ``[0, 2**32)`` NumPy's global generator is seeded with
        (``np.random.seed(words)``), built after NumPy's ``SeedSequence``.
    """
    # BEGIN PIECE worker_seeds
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("worker_seeds")(base_seed, worker_id)
    # END PIECE


def _seed_everything(base_seed: int, worker_id: int) -> int:
    """Seed Python's ``random``, the default generator and NumPy's global generator for this
    worker (``worker_seeds``), as torch does; return the worker's seed."""
    seed, words = worker_seeds(base_seed, worker_id)
    random.seed(seed)
    _generator.manual_seed(seed)
    np.random.seed(words)
    return seed


def worker_loop(dataset_kind: int, dataset: Any, index_queue: Any, data_queue: Any,
                done_event: Any, auto_collation: bool, collate_fn: Callable[[Any], Any],
                drop_last: bool, base_seed: int, init_fn: Callable[[int], None] | None,
                worker_id: int, num_workers: int, persistent_workers: bool) -> None:
    """The body of worker ``worker_id`` (the target of its process); see the module's
    docstring. Returns when told to stop (``None``), or when the main process has gone."""
    try:
        seed = _seed_everything(base_seed, worker_id)
        worker_info.set_worker_info(WorkerInfo(id=worker_id, num_workers=num_workers,
                                               seed=seed, dataset=dataset))
        init_exception: ExceptionWrapper | None = None
        fetcher: Any = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                           drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        parent = os.getppid()
        while os.getppid() == parent:
            try:
                task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(task, ResumeIteration):
                data_queue.put((task, None))
                iteration_end = False
                fetcher = fetch.create_fetcher(dataset_kind, dataset, auto_collation,
                                               collate_fn, drop_last)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = task
            data: Any
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == fetch.ITERABLE:
                        data = IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, task
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
