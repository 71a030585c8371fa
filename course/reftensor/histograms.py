"""Histograms: ``bincount`` and ``histc``, counting values into bins as torch's CPU kernels
do.

``bincount`` counts each non-negative integer of a 1-d tensor (or sums a weight per element
into its value's bin); ``histc`` cuts ``[min, max]`` into equal bins and counts the elements
that fall in each. Both are reductions of a kind: many elements, few results, and the result
has no gradient (``histc``'s is refused by torch's derivatives table; ``bincount`` has no row
there, so torch records a node whose backward raises, as here).

``histc``'s bin of an element is torch's ``int((x - min) * bins / (max - min))``, computed in
the input's dtype one operation at a time (a float16 input rounds after each, as c10's
``Half`` arithmetic does), so elements next to a bin edge land where torch puts them.

Every op here is an entry of the op table (``reftensor/_ops/native_functions.py``); this
module registers their kernels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _casting, dtypes, out_arguments
from ._ops import DispatchKey, aten
from .promotion import SCALAR_TYPE_NAMES
from .reductions import _meta, _new
from .tensor import Tensor

__all__: list[str] = []  # the ops are reftensor's generated bindings (reftensor.histc, ...)


def _bincount(input: Tensor, weights: Tensor | None, minlength: int) -> Tensor:
    """torch's ``_bincount_cpu``.

    Raises:
        NotImplementedError: a meta tensor; a float or bool input.
        RuntimeError: a negative ``minlength``; an input that is not 1-d or holds a negative
            value; ``weights`` that are not 1-d of the input's length.
    """
    if input.is_meta or (weights is not None and weights.is_meta):
        raise NotImplementedError("aten::bincount: attempted to run this operator with Meta "
                                  "tensors, but there was no fake impl or Meta kernel "
                                  "registered.")
    if input._dtype.is_floating_point or input._dtype is dtypes.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[input._dtype.name]}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    x = input._elements()
    if input.dim() == 1 and input.numel() == 0:
        size = minlength
    elif input.dim() != 1 or (x < 0).any():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    else:
        size = max(int(x.max()) + 1, minlength)
    if weights is not None and (weights.dim() != 1 or weights.numel() != input.numel()):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None or input.numel() == 0:  # (torch: int64 zeros for no input)
        counts = np.bincount(x.astype(np.int64), minlength=size) if x.size else \
            np.zeros(size, np.int64)
        return _new(counts.astype(np.int64), (size,), dtypes.int64)
    out_dtype = dtypes.float32 if weights._dtype is dtypes.float32 else dtypes.float64
    sums = np.zeros(size, out_dtype.numpy)
    np.add.at(sums, x.astype(np.int64), _casting.cast(weights._elements(), out_dtype))
    return _new(sums, (size,), out_dtype)  # (np.add.at adds in the input's order)


def _histc_range(input: Tensor, low: float, high: float) -> tuple[float, float]:
    """torch's ``histc_select_outer_bin_edges``.

    Raises:
        RuntimeError: a range that is not finite, or ``max <= min``.
    """
    if low == high and input.numel() > 0:
        values = _casting.cast(input._elements(), dtypes.float64)
        low, high = float(np.min(values)), float(np.max(values))  # (nan propagates)
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def _histc(input: Tensor, bins: int, min: Any, max: Any, *, meta: bool) -> Tensor:
    """torch's ``histogram_histc_out`` with its linear-interpolation kernel.

    Raises:
        RuntimeError: ``bins`` below 1, a bad range (``_histc_range``), in that order.
        NotImplementedError: then, an integer or bool input.
    """
    if meta:  # torch's Python meta function checks only these
        if bins <= 0:
            raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
        if not max >= min:
            raise RuntimeError("histc(): max must be larger than min")
        return _meta((bins,), input._dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    low, high = _histc_range(input, float(min), float(max))
    if not input._dtype.is_floating_point:  # after the range, as torch: the bin edges'
        # linspace refuses bool, the histogram kernel the integers
        kernel = "linspace_cpu" if input._dtype == dtypes.bool else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[input._dtype.name]}'")
    d = input._dtype.numpy
    left, right = _casting.cast(np.array([low, high]), input._dtype)  # the edges' dtype
    x = input._elements().reshape(-1)
    with np.errstate(invalid="ignore"):
        inside = x[(x >= left) & (x <= right)]  # (nan is neither)
        width = np.asarray(right - left, dtype=d)
        scaled = np.asarray((inside - left).astype(d) * np.asarray(bins, dtype=d), dtype=d)
        position = np.trunc((scaled / width).astype(d).astype(np.float64)).astype(np.int64)
    position[position == bins] = bins - 1  # the last bin holds max itself
    counts = np.bincount(position, minlength=bins)[:bins]
    return _new(_casting.cast(counts.astype(np.float64), input._dtype), (bins,),
                input._dtype)


def _histc_out_dtype(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """histc's ``out=`` of exactly the input's dtype, checked first. An ``out`` that is the
    input itself (of ``bins`` elements, so not resized): torch picks the bin edges from the
    input, then zeroes ``out`` and counts what the input holds then, its zeros (``histc(x,
    3, out=x)`` of ``[-1., 5., 2.]`` is ``[3., 0., 0.]``)."""
    input, out = inputs[0], outs[0]
    if out._dtype is not input._dtype:
        raise RuntimeError("torch.histogram: input tensor and hist tensor should have the "
                           f"same dtype, but got input {_c_name(input._dtype)} and hist "
                           f"{_c_name(out._dtype)}")
    bins, low, high = inputs[1:4]
    if (bins > 0 and out._storage is input._storage and out._shape == input._shape == (bins,)
            and out._stride == input._stride
            and out._storage_offset == input._storage_offset):
        low, high = _histc_range(input, float(low), float(high))
        return [input.new_zeros(input._shape), bins, low, high]
    return inputs


def _c_name(d: dtypes.dtype) -> str:
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)


def _checked_before(input: Tensor, result: Tensor, out: Tensor) -> None:
    """``out``'s dtype was checked before the op ran."""


for _key, _is_meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.bincount.default.impl(_key)(_bincount)
    aten.histc.default.impl(_key)(
        lambda self, bins, min, max, m=_is_meta: _histc(self, bins, min, max, meta=m))
out_arguments.set_rule(aten.histc.out, out_arguments.OutRule(prepare=_histc_out_dtype,
                                                             check=_checked_before))

