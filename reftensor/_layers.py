"""What chapter 6's layer kernels share (``lookup``, ``normalization``, ``trilinear``): a
tensor's values as a NumPy array in a working dtype, a new contiguous tensor holding
computed values (on the meta device: only its shape, strides and dtype), and a fused
multiply-add (torch's kernels are compiled with contraction, and vectorised ones fuse)."""

from __future__ import annotations

import numpy as np

from . import factories, layout
from ._casting import cast
from .device import CPU, META, device
from .dtypes import dtype
from .tensor import Tensor

__all__ = ["values_of", "new_tensor", "on_meta", "fma"]


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


def fma(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x * a + b`` rounded once (a fused multiply-add), in ``x``'s dtype (float32 or
    float64): float32 through float64, where the product is exact; float64 with the
    product's and the sum's rounding errors added back (Dekker's and Knuth's exact
    transformations), within an ulp of a true fma."""
    if x.dtype != np.float64:
        return (x.astype(np.float64) * a.astype(np.float64) + b.astype(np.float64)).astype(
            x.dtype)
    with np.errstate(all="ignore"):
        p = x * a
        split = 134217729.0
        xc, ac = split * x, split * a
        xh, ah = xc - (xc - x), ac - (ac - a)
        xl, al = x - xh, a - ah
        product_error = ((xh * ah - p) + xh * al + xl * ah) + xl * al
        total = p + b
        back = total - p
        sum_error = (p - (total - back)) + (b - back)
        fused = total + (product_error + sum_error)
        return np.where(np.isfinite(fused), fused, total)
