"""``Size``: the shape of a tensor, a tuple of ints (``torch.Size``)."""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["Size"]


class Size(tuple):
    """A tensor's shape: a tuple of non-negative ints, printed as ``reftensor.Size([2, 3])``.

    Mirrors ``torch.Size``: it compares equal to a plain tuple with the same ints, and
    ``numel()`` is the product of its entries (1 for the empty shape of a 0-d tensor).
    """

    def __new__(cls, sizes: Iterable[int] = ()) -> Size:
        return super().__new__(cls, (int(s) for s in sizes))

    def numel(self) -> int:
        """Number of elements a tensor of this shape holds."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"reftensor.Size({list(self)})"

    def __getitem__(self, key):  # type: ignore[override]
        item = super().__getitem__(key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):  # type: ignore[override]
        return Size(tuple(self) + tuple(other))
