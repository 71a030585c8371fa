"""Searching a sorted sequence (chapter 2): ``searchsorted`` and ``bucketize``.

``searchsorted(seq, v)`` is, for each value of ``v``, the index where it would be inserted
into ``seq`` to keep it sorted: the first position whose element is ``>= v`` (``right=True``
or ``side="right"``: ``> v``). With a ``seq`` of several dims, each row (its last dim) is
searched for the values of the matching row of ``v``. ``bucketize(v, boundaries)`` is the
same search with the arguments the other way round.

torch runs a binary search with exactly these comparisons and never checks that ``seq`` is
sorted; reftensor runs the same search (vectorised over the values), so an unsorted
sequence and NaNs (every comparison with NaN is False) give torch's answers too. The values
and the sequence are compared in their ``result_type``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes, factories, layout, out_arguments
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .device import device
from .promotion import SCALAR_TYPE_NAMES, result_type
from .tensor import Tensor

__all__: list[str] = []  # the ops are the table's (reftensor.searchsorted, ...)


def _checks(boundaries: Tensor, values: Tensor | Any, right: bool, side: str | None,
            sorter: Tensor | None) -> bool:
    """torch's ``searchsorted_pre_check``; whether the search is ``right``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
    if sorter is not None:
        if sorter._dtype is not dtypes.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype "
                               f"but got dtype {SCALAR_TYPE_NAMES[sorter._dtype.name]}")
        if sorter._shape != boundaries._shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(boundaries._shape)}and "
                               f"got sorter tensor {list(sorter._shape)}")
    if boundaries.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    shape = values._shape if isinstance(values, Tensor) else ()
    if boundaries.dim() != 1 and not shape:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           "boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({boundaries.dim()}) and input value's dim(0) numel(1)")
    if boundaries.dim() != 1 and (len(shape) != boundaries.dim()
                                  or shape[:-1] != boundaries._shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           "tensor must match, but we got boundaries tensor "
                           f"{list(boundaries._shape)} and input value tensor {list(shape)}")
    return side == "right" if side is not None else right


def binary_search(seq: np.ndarray, values: np.ndarray, right: bool,
                  sorter: np.ndarray | None = None) -> np.ndarray:
    """torch's ``cus_lower_bound``/``cus_upper_bound`` for every value at once: ``seq`` is
    1-d, or has the values' leading dims (each row searched for its values)."""
    n = seq.shape[-1]
    start = np.zeros(values.shape, np.int64)
    end = np.full(values.shape, n, np.int64)
    rows = seq if seq.ndim > 1 else None
    for _ in range(max(n, 1).bit_length() + 1):
        active = start < end
        if not active.any():
            break
        mid = start + ((end - start) >> 1)
        at = np.minimum(mid, n - 1)
        if sorter is not None:
            at = sorter[at] if rows is None else np.take_along_axis(sorter, at, axis=-1)
        found = seq[at] if rows is None else np.take_along_axis(rows, at, axis=-1)
        with np.errstate(invalid="ignore"):
            further = ~(found > values) if right else ~(found >= values)
        start = np.where(active & further, mid + 1, start)
        end = np.where(active & ~further, mid, end)
    return start


def _search(boundaries: Tensor, values: Tensor | Any, out_int32: bool, right: bool,
            side: str | None, sorter: Tensor | None, *, meta: bool) -> Tensor:
    is_right = _checks(boundaries, values, right, side, sorter)
    shape = values._shape if isinstance(values, Tensor) else ()
    result_dtype = dtypes.int32 if out_int32 else dtypes.int64
    where: device = boundaries.device
    out = factories._allocate(shape, layout.contiguous_strides(shape), result_dtype, where)
    if meta or math.prod(shape) == 0:  # (torch returns before it picks a kernel by dtype)
        return out
    common = result_type(boundaries, values)
    if common is dtypes.bool:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    order = None
    if sorter is not None:
        order = sorter._elements().astype(np.int64)
        if order.size and (order.min() < 0 or order.max() >= boundaries._shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    work = compute_dtype(common)
    seq = cast(cast(boundaries._elements(), common), work)
    if isinstance(values, Tensor):
        found = cast(cast(values._elements(), common), work)
    else:
        found = cast(np.asarray(values), common).astype(work.numpy)
    out._elements()[...] = binary_search(seq, found, is_right, order)
    return out


@aten.searchsorted.Tensor.impl(DispatchKey.CPU)
def searchsorted(sorted_sequence: Tensor, self: Tensor, out_int32: bool = False,
                 right: bool = False, side: str | None = None,
                 sorter: Tensor | None = None) -> Tensor:
    """Where each value of ``self`` goes in ``sorted_sequence`` (``torch.searchsorted``): an
    int64 (``out_int32``: int32) tensor of ``self``'s shape, contiguous.

    Raises:
        RuntimeError: as torch's ``searchsorted_pre_check`` (side, sorter, dims).
        NotImplementedError: bool values and sequence.
    """
    return _search(sorted_sequence, self, out_int32, right, side, sorter, meta=False)


def _register() -> None:
    for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
        def tensor(sorted_sequence: Tensor, self: Any, out_int32: bool = False,
                   right: bool = False, side: str | None = None, sorter: Tensor | None = None,
                   meta: bool = meta) -> Tensor:
            return _search(sorted_sequence, self, out_int32, right, side, sorter, meta=meta)

        def bucketize(self: Any, boundaries: Tensor, out_int32: bool = False,
                      right: bool = False, meta: bool = meta) -> Tensor:
            if boundaries.dim() != 1:
                raise RuntimeError("boundaries tensor must be 1 dimension, but got "
                                   f"dim({boundaries.dim()})")
            return _search(boundaries, self, out_int32, right, None, None, meta=meta)

        if key is DispatchKey.Meta:
            aten.searchsorted.Tensor.impl(key)(tensor)
        aten.searchsorted.Scalar.impl(key)(tensor)
        aten.bucketize.Tensor.impl(key)(bucketize)
        aten.bucketize.Scalar.impl(key)(bucketize)


_register()


def _check_out(inputs: Any, result: Tensor, out: Tensor) -> None:
    """``out=`` must be int64, or int32 with ``out_int32``."""
    if out._dtype is not result._dtype:
        flag = "True" if result._dtype is dtypes.int32 else "False"
        raise RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can only "
                           "be Int(int32) or Long(int64) depending on whether out_int32 flag "
                           "is True, but we got output tensor's dtype "
                           f"{SCALAR_TYPE_NAMES[out._dtype.name]} and out_int32 flag is {flag}")


for _out in (aten.searchsorted.Tensor_out, aten.searchsorted.Scalar_out,
             aten.bucketize.Tensor_out):
    out_arguments.set_rule(_out, out_arguments.OutRule(check=_check_out))

