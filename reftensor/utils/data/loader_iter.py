"""What ``iter(loader)`` returns without workers (torch's ``_BaseDataLoaderIter`` and
``_SingleProcessDataLoaderIter``), and what every loader iterator does first.

Making an iterator, in torch's order:

1. ``iter(index_sampler)`` (the batch sampler when batching, else the sampler); a sampler
   whose ``__iter__`` is a generator function draws nothing yet;
2. the **base seed**: one int64 draw, ``empty((), dtype=int64).random_(generator=
   loader.generator)``: from the loader's generator, or the default generator when it has
   none. It is drawn with or without workers, so every epoch moves that generator once
   before the sampler draws (a ``RandomSampler`` then draws at the first batch).

Each ``next``: the next index (or list of indices) from the sampler, fetched and collated
(``fetch.py``). For an iterable dataset whose ``len(loader)`` was asked, a warning when more
batches come than that length said.
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import dtypes
from ..._ops import aten
from . import fetch

__all__ = ["BaseDataLoaderIter", "SingleProcessDataLoaderIter", "PIN_MEMORY_WARNING"]

PIN_MEMORY_WARNING = ("'pin_memory' argument is set as true but no accelerator is found, then "
                      "device pinned memory won't be used.")


class BaseDataLoaderIter:
    """The state every loader iterator shares (see the module's docstring)."""

    def __init__(self, loader: Any) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be "
                          "used as the device,ignore pin_memory_device="
                          f"'{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory:  # reftensor has no accelerator: torch's warning, no pinning
            warnings.warn(PIN_MEMORY_WARNING, stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter: Any = iter(self._index_sampler)
        self._base_seed: int = aten.empty((), dtype=dtypes.int64).random_(
            generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self) -> BaseDataLoaderIter:
        return self

    def _reset(self, loader: Any, first_iter: bool = False) -> None:
        """A new epoch on the same iterator (persistent workers): a new sampler iterator."""
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self) -> Any:
        return next(self._sampler_iter)  # raises StopIteration at the end

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == fetch.ITERABLE
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            message = (f"Length of IterableDataset {self._dataset} was reported to be "
                       f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                       f"but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not "
                            "properly configuring the IterableDataset replica at each worker. "
                            "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                            "data.IterableDataset for examples.")
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class SingleProcessDataLoaderIter(BaseDataLoaderIter):
    """Loading in the main process (``num_workers=0``): fetch each batch when asked."""

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        self._dataset_fetcher = fetch.create_fetcher(self._dataset_kind, self._dataset,
                                                     self._auto_collation, self._collate_fn,
                                                     self._drop_last)

    def _next_data(self) -> Any:
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration
