"""Pairwise distances: ``cdist`` (torch's ``Distance.cpp``) and its kernels.

``cdist(x1, x2, p)`` of ``x1`` ``(*, r1, c)`` and ``x2`` ``(*, r2, c)`` is the ``(*, r1, r2)``
tensor of the ``p``-norm distances between each row of ``x1`` and each row of ``x2``, the
batch dims broadcast. ``p`` 0 counts the coordinates that differ, ``inf`` takes the
largest difference, any other ``p >= 0`` is ``(sum |a - b|**p) ** (1/p)``.

torch's ``cdist`` is ``CompositeImplicitAutograd``: for ``p == 2`` with ``compute_mode`` 1,
or 0 (None, the default) and more than 25 rows in ``x1`` or ``x2``, it takes the matrix
product path ``_euclidean_dist`` (``|a|**2 - 2 a.b + |b|**2``, clamped at 0, square root:
``EuclideanDistBackward0``); otherwise ``_cdist_forward`` (``CdistBackward0``), whose CPU
kernel sums ``|a - b|**p`` over the coordinates one by one, in the dtype, as reftensor does
here. ``_cdist_backward`` is its gradient for ``x1``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import broadcasting, factories, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []


def _dims_checks(x1: Tensor, x2: Tensor) -> None:
    """``cdist``'s and ``_cdist_forward``'s first checks, in torch's order and words."""
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._shape[-1]} X2: {x2._shape[-1]}")


def _euclidean_path(p: float, mode: int, r1: int, r2: int) -> bool:
    """torch's condition for the matrix product path (kept in sync in ``cdist`` and
    ``cdist_impl``, as torch's note asks)."""
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


@aten.cdist.default.impl(DispatchKey.CompositeImplicitAutograd)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: int | None = None) -> Tensor:
    """torch's ``cdist``: an empty input, and every case but the matrix product path, is
    ``_cdist_forward``; the matrix product path runs ``cdist_impl`` here, so that its
    graph is of the ops it calls."""
    _dims_checks(x1, x2)
    if x1.numel() == 0 or x2.numel() == 0:
        return aten._cdist_forward.default.call(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    if _euclidean_path(p, mode, x1._shape[-2], x2._shape[-2]):
        return _cdist_impl(x1, x2, p, compute_mode, meta=x1.device is META)
    return aten._cdist_forward.default.call(x1, x2, p, compute_mode)


def _impl_checks(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None) -> int:
    """``cdist_impl``'s checks: floating dtypes, a non-negative ``p``, one device type, a
    known mode; the mode (0 for None)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{SCALAR_TYPE_NAMES[x._dtype.name]}")
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.device.type != x2.device.type:
        raise RuntimeError(f"X1 and X2 must have the same device type. X1: {x1.device.type} "
                           f"X2: {x2.device.type}")
    mode = 0 if compute_mode is None else compute_mode
    if not 0 <= mode <= 2:
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    return mode


def _cdist_impl(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None, *,
                meta: bool) -> Tensor:
    """torch's ``cdist_impl``: the batch dims broadcast (ATen's ``infer_size``), an empty
    result for no rows or batch, zeros for no columns, the matrix product path (ops, so
    recorded), or the direct kernel (:func:`_direct`) into a new contiguous tensor."""
    mode = _impl_checks(x1, x2, p, compute_mode)
    r1, r2, c1 = x1._shape[-2], x2._shape[-2], x1._shape[-1]
    batch = broadcasting.infer_broadcast_size(x1._shape[:-2], x2._shape[:-2])
    count = math.prod(batch)
    shape = (*batch, r1, r2)
    where = META if meta else x1.device
    if r1 == 0 or r2 == 0 or count == 0:
        return factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype, where)
    if c1 == 0:
        zeros = factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype, where)
        if not meta:
            zeros._elements()[...] = 0
        return zeros
    if _euclidean_path(p, mode, r1, r2):
        if count == 1:  # (viewed as the result's shape all the same: ViewBackward0)
            return aten._euclidean_dist.default.call(x1, x2).view(*shape)
        a = x1.expand(*batch, r1, c1).reshape(count, r1, c1)
        b = x2.expand(*batch, r2, c1).reshape(count, r2, c1)
        return aten._euclidean_dist.default.call(a, b).view(*shape)
    result = factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype, where)
    if meta:
        return result
    if x1._dtype.itemsize == 2:
        raise NotImplementedError(f"\"cdist\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[x1._dtype.name]}'")
    if x2._dtype is not x1._dtype:
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[x1._dtype.name]} but "
                           f"found {SCALAR_TYPE_NAMES[x2._dtype.name]}")
    a = np.broadcast_to(x1._elements(), (*batch, r1, c1)).reshape(count, r1, c1)
    b = np.broadcast_to(x2._elements(), (*batch, r2, c1)).reshape(count, r2, c1)
    result._elements()[...] = _direct(a, b, p).reshape(shape)
    return result


def _direct(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """torch's CPU ``cdist`` kernel: for each pair of rows, ``|a - b|`` mapped (``p`` 0:
    1 where nonzero; 1: itself; 2: its square; inf: itself; else its ``p``-th power) and
    reduced over the columns one by one (a sum; inf: the largest) in the dtype, then
    finished (2: the square root; else, but 0, 1 and inf: the ``1/p``-th power)."""
    dtype = a.dtype
    power, root = dtype.type(p), dtype.type(1 / p) if p else dtype.type(0)
    agg = np.zeros((a.shape[0], a.shape[1], b.shape[1]), dtype)
    with np.errstate(all="ignore"):
        for k in range(a.shape[-1]):
            diff = np.abs(a[:, :, None, k] - b[:, None, :, k])
            if p == 0:
                agg = agg + np.minimum(np.ceil(diff), dtype.type(1))
            elif p == 1:
                agg = agg + diff
            elif p == 2:
                agg = agg + diff * diff
            elif math.isinf(p):
                agg = np.maximum(agg, diff)
            else:
                agg = agg + np.power(diff, power)
        if p == 2:
            return np.sqrt(agg)
        if p in (0, 1) or math.isinf(p):
            return agg
        return np.power(agg, root)


def _cdist_forward(x1: Tensor, x2: Tensor, p: float, compute_mode: int | None, *,
                   meta: bool) -> Tensor:
    _dims_checks(x1, x2)
    if meta:  # torch's Python meta function (``meta_cdist_forward``), its words
        for name, x in (("X1", x1), ("X2", x2)):
            if not x._dtype.is_floating_point:
                raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                                   f"{x._dtype}".replace("reftensor.", "torch."))
        if not p >= 0:
            raise RuntimeError("cdist only supports non-negative p values")
        if compute_mode not in (None, 0, 1, 2):
            raise RuntimeError(f"possible modes: None, 0, 1, 2, but was: {compute_mode}")
        batch = broadcasting.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])
        shape = (*batch, x1._shape[-2], x2._shape[-2])
        return factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype, META)
    return _cdist_impl(x1, x2, p, compute_mode, meta=False)


aten._cdist_forward.default.impl(DispatchKey.CPU)(
    lambda x1, x2, p, compute_mode: _cdist_forward(x1, x2, p, compute_mode, meta=False))
aten._cdist_forward.default.impl(DispatchKey.Meta)(
    lambda x1, x2, p, compute_mode: _cdist_forward(x1, x2, p, compute_mode, meta=True))


def _euclidean_dist(x1: Tensor, x2: Tensor, *, meta: bool) -> Tensor:
    """torch's ``_euclidean_dist`` (``CompositeExplicitAutograd``: its own
    ``EuclideanDistBackward0`` above the ops it runs, which reftensor runs in NumPy, in the
    dtype): ``[-2 x1, |x1|**2, 1] @ [x2, 1, |x2|**2].mT``, clamped at 0 and square-rooted;
    contiguous, the batch dims broadcast as ``matmul``'s."""
    batch = broadcasting.infer_broadcast_size(x1._shape[:-2], x2._shape[:-2])
    shape = (*batch, x1._shape[-2], x2._shape[-2])
    result = factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype,
                                 META if meta else CPU)
    if x1._dtype is not x2._dtype:  # (matmul's check)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{C_TYPE_NAMES[x1._dtype.name]} != {C_TYPE_NAMES[x2._dtype.name]}")
    if meta or not result.numel():
        return result
    a, b = x1._elements(), x2._elements()
    with np.errstate(all="ignore"):
        a_norm = np.sum(a * a, axis=-1, keepdims=True)
        b_norm = np.sum(b * b, axis=-1, keepdims=True)
        a_ = np.concatenate([a * a.dtype.type(-2), a_norm, np.ones_like(a_norm)], axis=-1)
        b_ = np.concatenate([b, np.ones_like(b_norm), b_norm], axis=-1)
        product = np.matmul(a_, np.swapaxes(b_, -1, -2))
        result._elements()[...] = np.sqrt(np.maximum(product, 0))
    return result


aten._euclidean_dist.default.impl(DispatchKey.CPU)(
    lambda x1, x2: _euclidean_dist(x1, x2, meta=False))
aten._euclidean_dist.default.impl(DispatchKey.Meta)(
    lambda x1, x2: _euclidean_dist(x1, x2, meta=True))


def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor, *,
                    meta: bool) -> Tensor:
    """torch's ``_cdist_backward``: ``x1``'s gradient, of ``x1``'s shape with the batch
    broadcast against ``x2``'s (the engine sums it back), contiguous; zeros like ``x1``
    when there is nothing to differentiate."""
    r1, r2, c1 = x1._shape[-2], x2._shape[-2], x1._shape[-1]
    batch = broadcasting.infer_broadcast_size(x1._shape[:-2], x2._shape[:-2])
    count = math.prod(batch)
    where = META if meta else CPU
    if r1 == 0 or r2 == 0 or c1 == 0 or count == 0:
        return aten.zeros_like.default(x1)
    shape = (*batch, r1, c1)
    result = factories._allocate(shape, layout.contiguous_strides(shape), x1._dtype, where)
    if meta:
        return result
    a = np.broadcast_to(x1._elements(), shape).reshape(count, r1, c1)
    b = np.broadcast_to(x2._elements(), (*batch, r2, c1)).reshape(count, r2, c1)
    g = np.broadcast_to(grad._elements(), (*batch, r1, r2)).reshape(count, r1, r2)
    d = np.broadcast_to(cdist._elements(), (*batch, r1, r2)).reshape(count, r1, r2)
    result._elements()[...] = _backward_values(g, a, b, p, d).reshape(shape)
    return result


def _backward_values(grad: np.ndarray, a: np.ndarray, b: np.ndarray, p: float,
                     dist: np.ndarray) -> np.ndarray:
    """torch's CPU ``cdist_backward`` kernel: for each row ``i`` of ``a`` and column ``k``,
    the terms of the rows ``j`` of ``b`` summed in order, each from ``diff = a - b``, the
    gradient and the distance (``p`` 0: none; 1: ``sign(diff) grad``; below 2:
    ``sign(diff) |diff|**(p-1) grad / dist**(p-1)``, 0 where ``dist`` is 0 or, for
    ``p < 1``, ``diff`` is; 2: ``grad diff / dist``; inf: ``grad sign(diff)`` where
    ``|diff|`` is the distance; else ``diff |diff|**(p-2) grad / dist**(p-1)``)."""
    dtype = a.dtype
    one = dtype.type(1)
    out = np.zeros(a.shape, dtype)
    if p == 0:
        return out
    with np.errstate(all="ignore"):
        for j in range(b.shape[1]):
            diff = a - b[:, j, None, :]
            g = grad[:, :, j, None]
            d = dist[:, :, j, None]
            sign = (np.sign(diff)).astype(dtype)
            if p == 1:
                term = sign * g
            elif p < 2:
                term = sign * np.power(np.abs(diff), dtype.type(p - 1)) * g \
                    / np.power(d, dtype.type(p - 1))
                term = np.where((d == 0) | ((diff == 0) & (p < 1)), dtype.type(0), term)
            elif p == 2:
                term = np.where(d == 0, dtype.type(0), g * diff / d)
            elif math.isinf(p):
                term = g * sign * (one - np.minimum(one, np.ceil(np.abs(np.abs(diff) - d))))
            else:
                term = diff * np.power(np.abs(diff), dtype.type(p - 2)) * g \
                    / np.power(d, dtype.type(p - 1))
                term = np.where(d == 0, dtype.type(0), term)
            out = out + term
    return out


aten._cdist_backward.default.impl(DispatchKey.CPU)(
    lambda grad, x1, x2, p, cdist: _cdist_backward(grad, x1, x2, p, cdist, meta=False))
aten._cdist_backward.default.impl(DispatchKey.Meta)(
    lambda grad, x1, x2, p, cdist: _cdist_backward(grad, x1, x2, p, cdist, meta=True))


def _autogen_out(functional: Any) -> Any:
    """torch's generated ``out=`` of an op with no out kernel of its own (``autogen``): the
    functional op's result, ``out`` of exactly its dtype resized to its shape (contiguous,
    with the deprecation warning), the result copied in."""
    def writes(*values: Any) -> Tensor:
        *inputs, out = values
        result = functional.call(*inputs)
        if out._dtype is not result._dtype:
            raise RuntimeError(f"Expected out tensor to have dtype "
                               f"{C_TYPE_NAMES[result._dtype.name]}, but got "
                               f"{C_TYPE_NAMES[out._dtype.name]} instead")
        if out._shape != result._shape:
            iterator.resize_output(out, result._shape,
                                   layout.contiguous_strides(result._shape))
        return aten.copy_.default.call(out, result, False)

    return writes


for _op in (aten._cdist_forward, aten._cdist_backward, aten._euclidean_dist):
    out_arguments.set_rule(_op.out, out_arguments.OutRule(writes=_autogen_out(_op.default)))
