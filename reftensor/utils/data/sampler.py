"""Samplers (``torch.utils.data.sampler``): the order in which a DataLoader asks for keys.

A sampler is an iterable of dataset keys (``SequentialSampler``, ``RandomSampler``,
``SubsetRandomSampler``, ``WeightedRandomSampler``) or, for ``BatchSampler``, of lists of keys.
The random ones draw from chapter 8's generator through the op table, in torch's order, so a
seed gives torch's indices bit for bit and leaves the generator in torch's state:

* ``RandomSampler``: ``random_indices`` decides which draws, and when (``randperm`` without
  replacement, ``randint`` with it).
  Without a ``generator``, each ``iter`` first draws a 64-bit seed from the default generator
  (``empty((), dtype=int64).random_()``) and seeds a fresh generator with it; the draw happens
  at the first ``next``, not at ``iter`` (``__iter__`` is a generator function).
* ``SubsetRandomSampler``: ``randperm(len(indices))``.
* ``WeightedRandomSampler``: ``multinomial(weights as float64, num_samples, replacement)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from ... import dtypes, factories
from ..._ops import aten
from ...tensor import Tensor
from .. import _generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "random_indices", "batch_indices"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """The base class of samplers (``torch.utils.data.Sampler``): a subclass defines
    ``__iter__`` and may define ``__len__`` (there is no default ``__len__``, as in torch)."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1`` (``torch.utils.data.SequentialSampler``); the length
    is read at each ``iter``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def random_indices(n: int, num_samples: int, replacement: bool,
                   randperm: Callable[[int], list[int]],
                   randint: Callable[[int, int], list[int]]) -> Iterator[int]:
    """The keys ``torch.utils.data.RandomSampler`` yields, drawn as it draws them:
    ``RandomSampler.__iter__`` (and so every ``DataLoader(shuffle=True)`` epoch) runs it.

    Args:
        n: the dataset's length.
        num_samples: how many keys to yield.
        replacement: draw keys independently instead of permuting.
        randperm: ``randperm(k)``: a permutation of ``range(k)`` drawn from the sampler's
            generator (``torch.randperm(k, generator=g).tolist()``).
        randint: ``randint(high, size)``: ``size`` keys in ``[0, high)`` drawn from it
            (``torch.randint(high, (size,), generator=g).tolist()``).

    Returns:
        An iterator of keys that draws only when the keys it has are used up, call for call
        as torch's sampler draws (a later epoch on the same generator depends on it).

    Raises:
        ZeroDivisionError, RuntimeError: where torch's sampler raises for ``n == 0``.
    """
    # BEGIN PIECE random_indices
    if replacement:
        for _ in range(num_samples // 32):
            yield from randint(n, 32)
        yield from randint(n, num_samples % 32)
    else:
        for _ in range(num_samples // n):
            yield from randperm(n)
        yield from randperm(n)[:num_samples % n]
    # END PIECE


class RandomSampler(Sampler[int]):
    """Random keys of ``data_source`` (``torch.utils.data.RandomSampler``).

    Args:
        data_source: anything with ``len`` (read at each ``iter``: ``n``).
        replacement: draw each key independently (``randint``) instead of permuting.
        num_samples: how many keys per ``iter`` (default ``n``); without replacement more
            than ``n`` means several permutations in a row.
        generator: the generator to draw from; ``None``: a fresh one per ``iter``, seeded
            from the default generator (see the module's docstring).

    Raises:
        TypeError: ``replacement`` not a bool.
        ValueError: ``num_samples`` (or ``n`` by default) not a positive int.
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """``num_samples`` if given, else ``len(data_source)`` now."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            seed = aten.empty((), dtype=dtypes.int64).random_().item()
            generator = _generator.new_generator(seed)

        def randperm(k: int) -> list[int]:
            return aten.randperm(k, generator=generator).tolist()

        def randint(high: int, size: int) -> list[int]:
            return aten.randint(high, (size,), dtype=dtypes.int64, generator=generator).tolist()

        yield from random_indices(n, self.num_samples, self.replacement, randperm, randint)

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a random order (``torch.utils.data.SubsetRandomSampler``):
    ``indices[j]`` for ``j`` in ``randperm(len(indices), generator=generator)``, a new
    permutation per ``iter`` (``generator=None``: the default generator)."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for j in aten.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[j]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Keys ``0 .. len(weights) - 1`` drawn with probabilities proportional to ``weights``
    (``torch.utils.data.WeightedRandomSampler``): one ``multinomial(weights, num_samples,
    replacement, generator=generator)`` per ``iter``.

    Args:
        weights: a 1-d sequence (or tensor) of non-negative weights, kept as float64.
        num_samples: a positive int (not a bool).
        replacement: a bool; without replacement ``num_samples`` may not exceed the number
            of non-zero weights (``multinomial``'s RuntimeError, at ``iter``).
        generator: ``None``: the default generator.

    Raises:
        ValueError: ``num_samples`` or ``replacement`` of the wrong kind; weights not 1-d.
    """

    weights: Tensor

    def __init__(self, weights: Sequence[float] | Tensor, num_samples: int,
                 replacement: bool = True, generator: Any = None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = factories.as_tensor(weights, dtype=dtypes.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = aten.multinomial(self.weights, self.num_samples, self.replacement,
                                 generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of ``batch_size`` consecutive keys of ``sampler`` (``torch.utils.data.BatchSampler``);
    the last list is shorter, or dropped when ``drop_last``.

    ``len``: ``len(sampler) // batch_size`` with ``drop_last``, else rounded up.

    Raises:
        ValueError: ``batch_size`` not a positive int (a bool is refused); ``drop_last`` not
            a bool.
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        return iter(batch_indices(iter(self.sampler), self.batch_size, self.drop_last))

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size


def batch_indices(keys: Iterator[Any], batch_size: int, drop_last: bool) -> Iterable[list[Any]]:
    """The batches ``torch.utils.data.BatchSampler`` makes of a sampler's keys:
    ``BatchSampler.__iter__`` (and so every batching ``DataLoader`` epoch) runs it.

    Args:
        keys: an iterator of the sampler's keys (possibly endless: an iterable dataset's).
        batch_size: keys per batch, a positive int.
        drop_last: leave out a last batch shorter than ``batch_size``.

    Returns:
        An iterable of lists of keys, each a new list, that takes a key from ``keys`` only
        when the batch being made needs it.
    """
    # BEGIN PIECE batch_indices
    while True:
        batch = list(itertools.islice(keys, batch_size))
        if not batch or (drop_last and len(batch) < batch_size):
            return
        yield batch
    # END PIECE
