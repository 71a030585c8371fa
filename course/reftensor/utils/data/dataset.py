"""Datasets (``torch.utils.data.dataset``): what a DataLoader reads samples from.

Two kinds, as in torch:

* a **map-style** dataset (``Dataset``) answers ``dataset[i]`` (and usually ``len``); the
  loader's sampler chooses the indices;
* an **iterable-style** dataset (``IterableDataset``) is a stream: the loader calls
  ``iter(dataset)`` and takes samples in the order it yields them. With worker processes each
  worker iterates its own copy, so without sharding (``get_worker_info``) every worker yields
  every sample.

The combinators here are torch's, with torch's errors: ``TensorDataset`` (rows of tensors),
``StackDataset`` (samples side by side, as a tuple or a dict), ``ConcatDataset`` (one after
the other, by index), ``ChainDataset`` (streams one after the other) and ``Subset`` (a
dataset seen through a list of indices). ``random_split`` is in ``split.py``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ...tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually ints ``0 .. len - 1``) to samples (``torch.utils.data.Dataset``).

    A subclass defines ``__getitem__`` and, for the default samplers, ``__len__`` (there is no
    default ``__len__``: ``len`` of a dataset without one raises TypeError, as in torch). It
    may define ``__getitems__(indices) -> list`` to fetch a whole batch at once; the loader
    uses it when present. ``a + b`` is ``ConcatDataset([a, b])``.
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples (``torch.utils.data.IterableDataset``): a subclass defines
    ``__iter__``. ``a + b`` is ``ChainDataset([a, b])``.

    The DataLoader accepts no ``sampler``, ``batch_sampler`` or ``shuffle`` for it (the keys
    mean nothing to a stream); ``len(loader)`` uses ``len(dataset)`` if the subclass has one.
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Row ``i`` of each tensor, as a tuple (``torch.utils.data.TensorDataset``).

    Args:
        *tensors: tensors with the same size of dim 0 (``N``); sample ``i`` is
            ``(t[i] for t in tensors)``, views of shape ``t.shape[1:]`` with each tensor's dtype.

    Raises:
        AssertionError: "Size mismatch between tensors" when the sizes of dim 0 differ.
        IndexError: no tensor (torch reads ``tensors[0]``).
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset[Any]):
    """Samples of several datasets side by side (``torch.utils.data.StackDataset``):
    ``StackDataset(a, b)[i] == (a[i], b[i])``, ``StackDataset(x=a, y=b)[i] == {"x": a[i],
    "y": b[i]}``.

    Raises:
        ValueError: positional and keyword datasets together; no dataset; datasets of
            different lengths ("Size mismatch between datasets"); a nested ``__getitems__``
            that returns the wrong number of samples.
    """

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            # torch's message, its missing space included
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def _column(self, dataset: Any, indices: list[Any]) -> list[Any]:
        """One dataset's samples for ``indices``: its ``__getitems__`` if it has one."""
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError("Nested dataset's output size mismatch. "
                                 f"Expected {len(indices)}, got {len(items)}")
            return list(items)
        return [dataset[i] for i in indices]

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        if isinstance(self.datasets, dict):
            columns = {k: self._column(d, indices) for k, d in self.datasets.items()}
            return [{k: c[j] for k, c in columns.items()} for j in range(len(indices))]
        lists = [self._column(d, indices) for d in self.datasets]
        return [tuple(c[j] for c in lists) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Datasets one after the other (``torch.utils.data.ConcatDataset``): index ``i`` goes to
    the dataset whose range holds it (``cumulative_sizes``, a bisection); a negative index
    counts from the end.

    Raises:
        AssertionError: no dataset; an ``IterableDataset`` among them.
        ValueError: a negative index below ``-len``.
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running totals of the lengths: ``[len(a), len(a) + len(b), ...]``."""
        totals, total = [], 0
        for d in sequence:
            total += len(d)
            totals.append(total)
        return totals

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset[Any]):
    """Streams one after the other (``torch.utils.data.ChainDataset``), chained lazily.

    Raises:
        AssertionError: when iterating or taking ``len``, a dataset that is not an
            ``IterableDataset`` ("ChainDataset only supports IterableDataset").
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset[T_co]):
    """``dataset`` seen through ``indices`` (``torch.utils.data.Subset``): ``subset[i] ==
    dataset[indices[i]]``; a list index takes ``dataset[[indices[j] for j in i]]``.

    Raises:
        NotImplementedError: a subclass that overrides ``__getitem__`` but not
            ``__getitems__`` (the loader would call the latter and skip the override).
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            name = type(self).__name__
            raise NotImplementedError(
                f"{name} overrides __getitem__ but not __getitems__. When subclassing Subset "
                "and overriding __getitem__, you must also override __getitems__ to ensure "
                "DataLoader works correctly with your custom logic. A simple implementation:"
                "\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])  # type: ignore[attr-defined]
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)
