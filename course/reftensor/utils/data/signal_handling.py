"""Noticing a dead worker at once (torch's ``_utils.signal_handling`` and the C function
``_error_if_any_worker_fails`` of its ``DataLoader.cpp``).

When a child process ends, the main process receives SIGCHLD. The handler installed here
(once, from the main thread, chaining any earlier Python handler) looks at every registered
worker without reaping it (``waitid`` with ``WNOHANG | WNOWAIT``) and raises in the main
process, which interrupts its wait on the result queue:

* a worker killed by a signal: RuntimeError("DataLoader worker (pid N) is killed by signal:
  <strsignal>. ");
* a worker that exited with a non-zero status: RuntimeError("DataLoader worker (pid N)
  exited unexpectedly with exit code C. Details are lost due to multiprocessing. Rerunning
  with num_workers=0 may give better error trace.").

A worker that exits normally raises nothing. After raising, that loader's pids are forgotten
(so the other workers' ends, which follow, do not raise again).
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

__all__ = ["set_worker_pids", "remove_worker_pids", "error_if_any_worker_fails",
           "set_sigchld_handler"]

_worker_pids: dict[int, tuple[int, ...]] = {}  # id(loader iterator) -> its workers' pids
_handler_set = [False]


def set_worker_pids(key: int, pids: tuple[int, ...]) -> None:
    """Register the worker pids of the loader iterator ``key``.

    Raises:
        RuntimeError: ``key`` already registered (torch's message).
    """
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each "
                           "_BaseDataLoaderIter.")
    _worker_pids[key] = pids


def remove_worker_pids(key: int) -> None:
    """Forget the pids of ``key``.

    Raises:
        RuntimeError: ``key`` not registered.
    """
    if key not in _worker_pids:
        raise RuntimeError("Cannot find worker information for _BaseDataLoaderIter with id "
                           f"{key}")
    del _worker_pids[key]


def error_if_any_worker_fails() -> None:
    """Raise RuntimeError if a registered worker has died abnormally (see the module's
    docstring); the worker is left unreaped."""
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue
            if info is None:  # still running
                continue
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                _worker_pids[key] = ()
                raise RuntimeError(
                    f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                    f"{info.si_status}. Details are lost due to multiprocessing. Rerunning "
                    "with num_workers=0 may give better error trace.")
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                message = (f"DataLoader worker (pid {pid}) is killed by signal: "
                           f"{signal.strsignal(info.si_status)}. ")
                if info.si_status == signal.SIGBUS:
                    message += ("It is possible that dataloader's workers are out of shared "
                                "memory. Please try to raise your shared memory limit.")
                _worker_pids[key] = ()
                raise RuntimeError(message)


def set_sigchld_handler() -> None:
    """Install the SIGCHLD handler once, from the main thread only (elsewhere Python refuses
    ``signal.signal``); it calls an earlier Python handler after its own check."""
    if _handler_set[0] or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)

    def handler(signum: int, frame: Any) -> None:
        error_if_any_worker_fails()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _handler_set[0] = True
