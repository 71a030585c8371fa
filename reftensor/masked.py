"""Writing through a bool mask (chapter 2): ``masked_fill``.

``t.masked_fill(mask, value)`` is ``t`` with ``value`` wherever ``mask`` is True: the mask
broadcasts against ``t`` (out of place the result takes the broadcast shape; in place the
mask must broadcast *to* ``t``'s shape). It is what ``t[mask] = value`` becomes for a
one-element value (``advanced_indexing.py``). The value is one number: a Python number or
a 0-d tensor, converted to ``t``'s dtype with torch's overflow check.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _casting, dtypes, factories, iterator, layout
from ._ops import DispatchKey, aten
from .device import CPU
from .storage import no_data
from .tensor import Tensor

__all__: list[str] = []  # the ops are the table's (reftensor.masked_fill, ...)

#: how torch's messages name a mask's dtype (C++'s type names)
_C_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}


def broadcast_sizes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """torch's ``infer_size``: RuntimeError where the sizes do not broadcast."""
    n = max(len(a), len(b))
    sizes = []
    for k in range(n):
        x = a[k - n + len(a)] if k - n + len(a) >= 0 else 1
        y = b[k - n + len(b)] if k - n + len(b) >= 0 else 1
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {k}")
        sizes.append(y if x == 1 else x)
    return tuple(sizes)


def checked_value(number: Any, d: dtypes.dtype) -> np.ndarray:
    """A fill value converted to ``d`` with torch's ``Scalar.to<T>()`` checks: a complex
    number keeps its real part when its imaginary part is 0.

    Raises:
        RuntimeError: a value ``d`` cannot hold (a complex one with an imaginary part)."""
    if isinstance(number, complex):
        if number.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_casting.C_NAMES[d.name]} "
                               "without overflow")
        number = number.real
    return _casting.checked_number(number, d)


def _value_number(value: Any) -> Any:
    """The fill value as a Python number (a 0-d tensor's ``item()``).

    Raises:
        RuntimeError: a value tensor with dims."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.dim()} dimension(s).")
        return value.item() if not value.is_meta else 0
    return value


def _fill_(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> None:
    """torch's ``masked_fill_impl_cpu`` (no ``_version`` bump)."""
    number = _value_number(value)
    if mask._dtype is not dtypes.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {_C_TYPE_NAMES[mask._dtype.name]}")
    if iterator.has_internal_overlap(self) == "yes":
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                      "the tensor before performing this operation. This also applies to "
                      "advanced indexing e.g. tensor[mask] = scalar", UserWarning, stacklevel=4)
    iterator.assert_no_partial_overlap(self, mask)
    shape = broadcast_sizes(self._shape, mask._shape)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    if mask.device != self.device and mask.dim() > 0:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at "
                           f"least two devices, {self.device} and {mask.device}!")
    if meta:
        if not self.is_meta:
            raise no_data()
        return
    fill = checked_value(number, self._dtype)
    where = np.broadcast_to(mask._elements(), self._shape)
    if where.any():
        self._elements()[where] = fill


def _masked_fill_(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> Tensor:
    _fill_(self, mask, value, meta=meta)
    self._version_counter.value += 1
    return self


def _masked_fill(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> Tensor:
    """torch's ``masked_fill``: ``self`` expanded to the broadcast shape, cloned
    contiguous, then filled in place."""
    _value_number(value)  # (its check comes first)
    shape = broadcast_sizes(mask._shape, self._shape)
    where = self.device
    out = factories._allocate(shape, layout.contiguous_strides(shape), self._dtype, where)
    if where == CPU:
        out._elements()[...] = np.broadcast_to(self._elements(), shape)
    _fill_(out, mask, value, meta=meta)
    return out


def _register() -> None:
    for overload in ("Scalar", "Tensor"):
        for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
            getattr(aten.masked_fill, overload).impl(key)(
                lambda self, mask, value, meta=meta: _masked_fill(self, mask, value, meta=meta))
            getattr(aten.masked_fill_, overload).impl(key)(
                lambda self, mask, value, meta=meta: _masked_fill_(self, mask, value,
                                                                   meta=meta))


_register()
