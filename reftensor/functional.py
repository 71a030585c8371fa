"""Functions that torch writes in Python (``torch/functional.py``) rather than as ops.

``torch.broadcast_shapes`` takes shapes as tuples, lists, single ints (a 1-d shape) or
``None`` (skipped), and answers with a ``Size``; the rule itself is
``broadcasting.broadcast_shapes``, which every broadcasting op follows too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import broadcasting
from .size import Size

__all__ = ["broadcast_shapes"]


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``).

    Each shape is a tuple/list of ints, or one int for a 1-d shape; ``None`` is skipped.

    Raises:
        RuntimeError: shapes that do not broadcast, or an argument that is not a shape.
        ValueError: a negative size that would be broadcast.
        TypeError: a size that is not an int.
    """
    given = [(x,) if isinstance(x, int) else x for x in shapes if x is not None]
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    # torch walks the shapes in order, each from its last dim, and refuses the first negative
    # size it meets (a size that cannot be compared with 0 raises TypeError there), unless
    # a clash met before it raises first: the rule on the shapes up to that size says which
    for index, shape in enumerate(given):
        for d in reversed(range(len(shape))):
            try:
                negative = shape[d] < 0
            except TypeError:
                broadcasting.broadcast_shapes(*given[:index], shape[d:])
                raise
            if negative:
                broadcasting.broadcast_shapes(*given[:index], shape[d:])
                raise ValueError("Attempting to broadcast a dimension with negative length!")
    common = broadcasting.broadcast_shapes(*given)
    for size in common:
        if not isinstance(size, int):
            raise TypeError(
                f"Size() takes an iterable of 'int' (item 0 is '{type(size).__name__}')"
            )
    return Size(common)
