"""Loading with worker processes (torch's ``_MultiProcessingDataLoaderIter``).

The main process starts ``num_workers`` processes (Python's ``multiprocessing``, the default
context: ``fork`` on Linux, as torch), each with its own **index queue**, all sharing one
**result queue**. Tasks are numbered in the order the sampler gives them (``send_idx``) and
handed to the workers round-robin, ``prefetch_factor * num_workers`` ahead. Results can come
back in any order; ``_task_info`` holds those that came early until their turn (``rcvd_idx``),
so batches leave in the sampler's order. Each batch returned frees a slot, which sends the next
task.

An iterable dataset's worker that has ended answers ``IterableDatasetStopIteration``: it
gets no more tasks and its outstanding tasks are skipped. At the end of an epoch the workers
are stopped (``None`` on each index queue, then ``join``, then ``terminate`` for any left),
unless ``persistent_workers``: then the next ``iter(loader)`` sends ``ResumeIteration`` to each
and reuses them (a new base seed is drawn by the loader, but the workers keep their seeds).

Errors, as torch raises them: a worker's exception is re-raised here naming the worker
(``ExceptionWrapper``); no batch within ``timeout`` seconds raises RuntimeError("DataLoader
timed out after N seconds"); a worker that died raises RuntimeError("DataLoader worker (pid(s)
...) exited unexpectedly"), noticed when the result queue has been silent for
``worker.MP_STATUS_CHECK_INTERVAL`` seconds, or at once through ``signal_handling``'s SIGCHLD
handler for a worker killed by a signal.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import queue
from typing import Any

from . import fetch, signal_handling, worker
from .loader_iter import BaseDataLoaderIter

__all__ = ["MultiProcessingDataLoaderIter", "next_in_order"]

_python_exiting = [False]  # torch's python_exit_status: no shutdown work while exiting
atexit.register(lambda: _python_exiting.__setitem__(0, True))


class MultiProcessingDataLoaderIter(BaseDataLoaderIter):
    """Loading in worker processes (see the module's docstring)."""

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        self._prefetch_factor: int = loader.prefetch_factor
        self._in_order: bool = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = context.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        for i in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            w = context.Process(target=worker.worker_loop, args=(
                self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                self._workers_done_event, self._auto_collation, self._collate_fn,
                self._drop_last, self._base_seed, self._worker_init_fn, i,
                self._num_workers, self._persistent_workers))
            w.daemon = True
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._data_queue = self._worker_result_queue
        signal_handling.set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        signal_handling.set_sigchld_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader: Any, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to return
        # task index -> (worker id,) while outstanding, (worker id, data) once arrived early
        self._task_info: dict[int, tuple[Any, ...]] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: wait until each has reset
            for q in self._index_queues:
                q.put(worker.ResumeIteration())
            waiting = self._num_workers
            while waiting > 0:
                idx, _ = self._get_data()
                if isinstance(idx, worker.ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float | None = None) -> tuple[bool, Any]:
        """One result from the queue within ``timeout`` seconds: ``(True, result)``, or
        ``(False, None)`` when none came and every worker is alive.

        Raises:
            RuntimeError: a worker has died ("DataLoader worker (pid(s) ...) exited
                unexpectedly").
        """
        if timeout is None:
            timeout = worker.MP_STATUS_CHECK_INTERVAL
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            failed = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed.append(w)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self) -> Any:
        """The next result from any worker, waiting as long as ``timeout`` allows.

        Raises:
            RuntimeError: "DataLoader timed out after N seconds".
        """
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if not success:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _receive(self) -> tuple[int, Any] | None:
        """The next result from any worker, ``(task index, data)``; None when it was an
        iterable dataset's worker saying its stream has ended: that worker is then marked
        inactive, gets no more tasks, and the next index goes to another."""
        idx, data = self._get_data()
        self._tasks_outstanding -= 1
        if self._dataset_kind == fetch.ITERABLE and isinstance(
                data, worker.IterableDatasetStopIteration):
            if self._persistent_workers:
                self._workers_status[data.worker_id] = False
            else:
                self._mark_worker_as_unavailable(data.worker_id)
            self._try_put_index()
            return None
        return idx, data

    def _next_data(self) -> Any:
        found = next_in_order(self)
        if found is None:
            if not self._persistent_workers:
                self._shutdown_workers()
            raise StopIteration
        worker_id, data = found
        return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        """Send the sampler's next index to the next active worker, round-robin."""
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(
                        self._workers_status):
                    break
        else:
            return  # no active worker left
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data: Any, worker_idx: int) -> Any:
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, worker.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        """Tell worker ``worker_id`` to stop (``None`` on its index queue)."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        """Stop every worker: the done event, ``None`` to each, ``join`` (up to
        ``MP_STATUS_CHECK_INTERVAL`` each), then ``terminate`` whichever is still alive."""
        if _python_exiting[0] or self._shutdown:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=worker.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            if self._worker_pids_set:
                signal_handling.remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=worker.MP_STATUS_CHECK_INTERVAL)

    def __del__(self) -> None:
        if hasattr(self, "_workers"):
            self._shutdown_workers()


def next_in_order(it: Any) -> tuple[int, Any] | None:
    """The next result to hand out, in the order the tasks were sent (torch's
    ``_MultiProcessingDataLoaderIter._next_data``, the reorder buffer): every ``next`` on a
    loader with workers runs it.

    Args:
        it: the loader's iterator. It reads and updates:

            * ``it._rcvd_idx``: the task to hand out next (tasks are numbered from 0);
            * ``it._send_idx``: how many tasks have been sent (``0 .. _send_idx - 1``);
            * ``it._task_info``: task -> ``(worker id,)`` while its result is awaited,
              ``(worker id, data)`` once it came early; a task handed out or skipped
              leaves it;
            * ``it._workers_status``: per worker, whether it is still active;
            * ``it._in_order``: False hands results out as they arrive;
            * ``it._receive()``: waits for the next result, ``(task, data)``, or None when a
              worker announced the end of its stream (it may then send another task).

    Returns:
        ``(worker id, data)`` of the result handed out, or None when no task is left to wait
        for (the epoch's end).
    """
    # BEGIN PIECE next_in_order
    while True:
        while it._rcvd_idx < it._send_idx:
            info = it._task_info.get(it._rcvd_idx)
            if info and (len(info) == 2 or it._workers_status[info[0]]):
                break
            it._task_info.pop(it._rcvd_idx, None)  # its worker ended without it
            it._rcvd_idx += 1
        else:
            return None
        info = it._task_info[it._rcvd_idx]
        if len(info) == 2:  # it came early
            del it._task_info[it._rcvd_idx]
            it._rcvd_idx += 1
            return info
        received = it._receive()
        if received is None:
            continue
        idx, data = received
        if idx == it._rcvd_idx or not it._in_order:
            worker_id = it._task_info.pop(idx)[0]
            if idx == it._rcvd_idx:
                it._rcvd_idx += 1
            return worker_id, data
        it._task_info[idx] += (data,)
    # END PIECE
