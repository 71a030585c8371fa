"""``random_split`` (``torch.utils.data.random_split``): non-overlapping random subsets.

One permutation of ``range(len(dataset))`` is drawn (``randperm(n, generator=generator)``,
chapter 8's Fisher-Yates through the op table) and cut into consecutive pieces of the given
lengths, so the same seed gives torch's subsets exactly.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any, TypeVar

from ..._ops import aten
from .dataset import Dataset, Subset

__all__ = ["random_split"]

T = TypeVar("T")


def _lengths_from_fractions(n: int, fractions: Sequence[float]) -> list[int]:
    """``floor(n * f)`` for each fraction, then the remainder handed out one by one,
    round-robin from the first split (torch's rule); a split of length 0 warns.

    Raises:
        ValueError: a fraction outside [0, 1].
    """
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          "This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset: Dataset[T], lengths: Sequence[int | float],
                 generator: Any = None) -> list[Subset[T]]:
    """Split ``dataset`` into ``len(lengths)`` random ``Subset``s.

    Args:
        dataset: a map-style dataset with ``len``.
        lengths: the sizes (ints summing to ``len(dataset)``), or fractions: when they sum to
            1 (``math.isclose``, and not above 1), each split gets ``floor(len * f)`` and the
            remainder goes round-robin to the first splits.
        generator: the generator of the permutation; ``None`` is the default generator
            (torch's default argument is ``default_generator`` itself, the same thing).

    Returns:
        A list of ``Subset``s; subset ``k`` holds the permutation's entries
        ``[offset_k, offset_k + lengths[k])``.

    Raises:
        ValueError: a fraction outside [0, 1]; lengths that do not sum to ``len(dataset)``.
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(len(dataset), lengths)  # type: ignore[arg-type]
    if sum(lengths) != len(dataset):  # type: ignore[arg-type]
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = aten.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths, strict=True)]
