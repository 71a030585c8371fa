"""What chapter 6's layer kernels share (``lookup``, ``normalization``, ``trilinear``): a
tensor's values as a NumPy array in a working dtype, and a new contiguous tensor holding
computed values (on the meta device: only its shape, strides and dtype)."""

from __future__ import annotations

import numpy as np

from . import factories, layout
from ._casting import cast
from .device import CPU, META, device
from .dtypes import dtype
from .tensor import Tensor

__all__ = ["values_of", "new_tensor", "on_meta"]


def on_meta(*tensors: Tensor | None) -> bool:
    """Is any of the given tensors on the meta device?"""
    return any(t is not None and t.device == META for t in tensors)


def values_of(t: Tensor, work: dtype | None = None) -> np.ndarray:
    """``t``'s elements in its shape, converted to ``work`` (default: its own dtype)."""
    found = t._elements().reshape(t._shape)
    return found if work is None else cast(found, work)


def new_tensor(shape: tuple[int, ...], d: dtype, values: np.ndarray | None,
               where: device | None = None) -> Tensor:
    """A contiguous tensor of ``shape`` and dtype ``d``, holding ``values`` (rounded to
    ``d``); with ``values`` None, on ``where`` (default: meta), nothing written."""
    place = (where or META) if values is None else CPU
    out = factories._allocate(shape, layout.contiguous_strides(shape), d, place)
    if values is not None and out.numel():
        out._elements()[...] = cast(np.asarray(values).reshape(shape), d)
    return out
