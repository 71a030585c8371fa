"""``DataLoader`` (``torch.utils.data.DataLoader``): a dataset, a sampler and a collate
function, iterated batch by batch, in the main process or in worker processes.

What the options become, in torch's order of checks:

* a map-style dataset gets a ``sampler``: the one given, else ``RandomSampler(dataset,
  generator=generator)`` when ``shuffle``, else ``SequentialSampler``; an iterable dataset gets
  an endless sampler of ``None`` (and refuses ``shuffle``, ``sampler`` and ``batch_sampler``);
* with a ``batch_size`` (default 1) the sampler is wrapped in ``BatchSampler(sampler,
  batch_size, drop_last)``, and batches are collated by ``default_collate``; a
  ``batch_sampler`` given instead excludes ``batch_size``, ``shuffle``, ``sampler`` and
  ``drop_last``; ``batch_size=None`` turns batching off and ``default_convert`` is applied to
  each sample;
* ``len(loader)``: ``len`` of the batch sampler (or sampler); for an iterable dataset
  ``len(dataset)`` divided by ``batch_size`` (rounded up, or down with ``drop_last``).

Each ``iter(loader)`` draws a base seed from ``generator`` (or the default generator) before
anything else (``loader_iter.py``); workers seed themselves from it (``worker.py``).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from . import collate, fetch
from .dataset import IterableDataset
from .loader_iter import BaseDataLoaderIter, SingleProcessDataLoaderIter
from .multiprocess_iter import MultiProcessingDataLoaderIter
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler[None]):
    """``None`` forever: the sampler of an iterable dataset."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _worker_count_warning(num_workers: int) -> str | None:
    """torch's warning when more workers are asked for than CPUs this process may use."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return None
    checked = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
    suggestion = (f"Our suggested max number of worker in current system is {cpus}{checked}, "
                  "which is smaller than what this DataLoader is going to create."
                  if cpus is not None else
                  "DataLoader is not able to compute a suggested max number of worker in "
                  "current system.")
    return (f"This DataLoader will create {num_workers} worker processes in total. "
            f"{suggestion} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.")


class DataLoader:
    """Batches of ``dataset`` (``torch.utils.data.DataLoader``); see the module's docstring.

    Args:
        dataset: a map-style ``Dataset`` (or anything with ``__getitem__``) or an
            ``IterableDataset``.
        batch_size: samples per batch (default 1); ``None``: no batching.
        shuffle: a new ``RandomSampler`` order every epoch (map-style only).
        sampler: the keys' order (an iterable with ``len`` for ``len(loader)``).
        batch_sampler: lists of keys, replacing ``batch_size``/``shuffle``/``sampler``/
            ``drop_last``.
        num_workers: worker processes; 0 loads in the main process.
        collate_fn: list of samples -> batch (default ``default_collate``, or
            ``default_convert`` without batching).
        pin_memory: accepted; reftensor has no accelerator, so it warns and does nothing,
            as torch 2.13 does on a machine without one.
        drop_last: drop a last batch shorter than ``batch_size``.
        timeout: seconds to wait for a worker's batch (0: forever, checking the workers
            are alive).
        worker_init_fn: called in each worker with its id, after seeding.
        multiprocessing_context: a start method's name or a ``multiprocessing`` context
            (default: Python's default context, ``fork`` on Linux).
        generator: the generator of the base seed and of the default ``RandomSampler``.
        prefetch_factor: batches in flight per worker (default 2 with workers; must be
            None without).
        persistent_workers: keep the workers between epochs.
        pin_memory_device: deprecated in torch; warns with ``pin_memory``.
        in_order: with workers, False returns batches as they arrive.

    Raises:
        ValueError: torch's messages for a negative ``num_workers`` or ``timeout``;
            ``prefetch_factor`` without workers or negative; ``persistent_workers`` without
            workers; ``shuffle``/``sampler``/``batch_sampler`` with an iterable dataset;
            ``sampler`` with ``shuffle``; ``batch_sampler`` with ``batch_size``/``shuffle``/
            ``sampler``/``drop_last``; ``batch_size=None`` with ``drop_last``; a
            ``multiprocessing_context`` without workers or naming no start method; setting
            ``batch_size``, ``batch_sampler``, ``sampler``, ``drop_last``, ``dataset`` or
            ``persistent_workers`` after construction.
        TypeError: a ``multiprocessing_context`` that is neither a string nor a context.
    """

    _initialized = False

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler[Any] | Iterable[Any] | None = None,
                 batch_sampler: Sampler[Any] | Iterable[Any] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[Any], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = fetch.ITERABLE
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = fetch.MAP

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == fetch.ITERABLE:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = (collate.default_collate if self._auto_collation
                          else collate.default_convert)
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        self._IterableDataset_len_called: int | None = None
        self._iterator: BaseDataLoaderIter | None = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self) -> Any:
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self._multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self) -> BaseDataLoaderIter:
        if self.num_workers == 0:
            return SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> BaseDataLoaderIter:
        """A new iterator per epoch; with persistent workers, the same one, reset."""
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        """What the iterator takes indices from: the batch sampler when batching."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        """Batches per epoch (see the module's docstring).

        Raises:
            TypeError: the sampler (or an iterable dataset) has no ``len``.
        """
        if self._dataset_kind == fetch.ITERABLE:
            length = len(self.dataset)
            self._IterableDataset_len_called = length
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn (torch's text) when ``num_workers`` exceeds the CPUs this process may use."""
        if self.num_workers:
            message = _worker_count_warning(self.num_workers)
            if message is not None:
                warnings.warn(message, stacklevel=2)
