"""Fetchers (``torch.utils.data._utils.fetch``): from an index (or a batch of indices) to a
collated batch; the same code runs in the main process and in a worker.

* map-style: ``dataset.__getitems__(indices)`` when the dataset has one, else
  ``[dataset[i] for i in indices]``; without batching, ``dataset[index]``;
* iterable-style: ``next`` on one iterator of the dataset, made once per fetcher; with
  batching, up to ``len(indices)`` samples (the indices are placeholders). A short last batch
  is returned unless ``drop_last``; an exhausted stream raises StopIteration.

Then ``collate_fn`` of what was fetched.

The reference takes one shortcut (``collate.GATHER``, off in the student edition): a batch of
a ``TensorDataset`` collated by ``default_collate`` is ``[stack([t[i] for i in indices]) for t
in tensors]``, so ``gathered`` copies those rows with one NumPy ``take`` per tensor into a
tensor laid out as ``stack`` lays it out, without making a view per sample. Where anything
could make the two routes differ (see ``collate.gathered``), the sample-by-sample route runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import collate
from .dataset import TensorDataset

__all__ = ["MapDatasetFetcher", "IterableDatasetFetcher", "create_fetcher", "MAP",
           "ITERABLE"]

MAP, ITERABLE = 0, 1  # torch's _DatasetKind.Map and _DatasetKind.Iterable


class MapDatasetFetcher:
    """Fetch from a map-style dataset by key."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any],
                 drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index: Any) -> Any:
        """The collated samples for ``index`` (a list of keys when batching, else one key)."""
        if self.auto_collation:
            if hasattr(self.dataset, "__getitems__") and self.dataset.__getitems__:
                data = self.dataset.__getitems__(index)
            else:
                if (collate.GATHER and type(self.dataset) is TensorDataset
                        and self.collate_fn is collate.default_collate):
                    batch = collate.gathered(self.dataset.tensors, index)
                    if batch is not None:
                        return batch
                data = [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class IterableDatasetFetcher:
    """Fetch the next samples of an iterable-style dataset (one iterator per fetcher)."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable[[Any], Any],
                 drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index: Any) -> Any:
        """The collated next ``len(index)`` samples (batching) or the next sample.

        Raises:
            StopIteration: the stream has ended (or only a short batch is left and
                ``drop_last``).
        """
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(kind: int, dataset: Any, auto_collation: bool,
                   collate_fn: Callable[[Any], Any], drop_last: bool) -> Any:
    """The fetcher for a dataset of ``kind`` (``MAP`` or ``ITERABLE``)."""
    fetcher = MapDatasetFetcher if kind == MAP else IterableDatasetFetcher
    return fetcher(dataset, auto_collation, collate_fn, drop_last)
