"""Embedding and one-hot (chapter 6): a lookup table as a layer.

``embedding(weight, indices)`` reads the rows of ``weight`` (``(num_embeddings, dim)``) at
``indices``: the result has shape ``indices.shape + (dim,)``. It is the same as
``one_hot(indices, num_embeddings) @ weight``, without building the one-hot matrix; the two
ops live here together for that reason.

The gradient of a lookup is a scatter: ``embedding_dense_backward`` starts from zeros and
adds each row of the incoming gradient into the row its index names, in the order of the
indices (torch's CPU loop, so a repeated index sums in that order, rounded after each
addition). ``padding_idx`` names a row that gets no gradient (the padding token's vector
stays as it is); ``scale_grad_by_freq`` divides each addition by its index's count in the
batch. An index out of range is an error in the forward lookup, and silently skipped by the
backward (as torch's).

``embedding_renorm_`` is what ``nn.functional.embedding(..., max_norm=...)`` runs first: each
row named by an index whose norm exceeds ``max_norm`` is scaled down in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from ._casting import cast, compute_dtype
from ._kernels import fused_multiply_add
from ._layers import new_tensor, on_meta, values_of
from ._ops import DispatchKey, aten
from .device import CPU, META
from .tensor import Tensor

__all__: list[str] = []

_INDEX_TYPES = (dtypes.int64, dtypes.int32)


def _check_indices(indices: Tensor, position: int, op: str) -> None:
    if indices._dtype not in _INDEX_TYPES:
        name = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "bool": "Bool", "int8": "Char", "uint8": "Byte",
                "int16": "Short"}.get(indices._dtype.name, indices._dtype.name)
        raise RuntimeError(f"Expected tensor for argument #{position} 'indices' to have one "
                           f"of the following scalar types: Long, Int; but got torch.{name}"
                           f"Tensor instead (while checking arguments for {op})")


def _embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
               scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at ``indices`` (torch's ``index_select`` then ``view``)."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, 1, "embedding")
    shape = (*indices._shape, weight._shape[1])
    if on_meta(weight, indices):
        return new_tensor(shape, weight._dtype, None)
    where = values_of(indices).reshape(-1).astype(np.int64)
    if where.size and (where.min() < 0 or where.max() >= weight._shape[0]):
        raise IndexError("index out of range in self")
    return new_tensor(shape, weight._dtype, values_of(weight)[where])


def dense_backward_values(grad: np.ndarray, where: np.ndarray, num_weights: int,
                          padding_idx: int, scale_grad_by_freq: bool,
                          work: Any, d: Any) -> np.ndarray:
    """``embedding_dense_backward``'s values: ``grad`` (``(n, dim)``, in ``work``) added row
    by row into zeros of ``(num_weights, dim)`` at ``where``, each sum rounded to ``d``;
    indices out of range and ``padding_idx`` skipped."""
    out = np.zeros((num_weights, grad.shape[-1]), dtype=work.numpy)
    keep = (where != padding_idx) & (where >= 0) & (where < num_weights)
    rows, where = grad[keep], where[keep]
    scale = None
    if scale_grad_by_freq:
        counts = np.bincount(where, minlength=num_weights)
        # torch's ``1.0 / counts[k]``, a double, taken as the add kernel's alpha (``work``)
        scale = (1.0 / counts[where].astype(np.float64)).astype(work.numpy)[:, None]
    # the j-th occurrence of every index is added in round j: within an index the order of
    # the loop over ``i`` is kept, and different rows never meet
    order = np.argsort(where, kind="stable")
    sorted_where = where[order]
    first = np.searchsorted(sorted_where, sorted_where, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - first
    for j in range(int(rank.max()) + 1 if rank.size else 0):
        pick = rank == j
        k = where[pick]
        if scale is None:
            total = out[k] + rows[pick]
        else:  # ``vec::fmadd(grad, alpha, grad_weight)``: one rounding
            total = fused_multiply_add(rows[pick], np.broadcast_to(scale[pick], rows[pick]
                                                                     .shape), out[k])
        out[k] = cast(cast(total, d), work)
    return out


def _embedding_dense_backward(grad_output: Tensor, indices: Tensor, num_weights: int,
                              padding_idx: int, scale_grad_by_freq: bool) -> Tensor:
    _check_indices(indices, 2, "embedding_backward")
    dim = grad_output._shape[-1] if grad_output.dim() else 1
    shape = (num_weights, dim)
    d = grad_output._dtype
    if on_meta(grad_output, indices):
        return new_tensor(shape, d, None)
    work = compute_dtype(d)
    where = values_of(indices).reshape(-1).astype(np.int64)
    grad = values_of(grad_output, work).reshape(where.size, dim)
    values = dense_backward_values(grad, where, num_weights, padding_idx, scale_grad_by_freq,
                                   work, d)
    return new_tensor(shape, d, values)


@aten.embedding_backward.default.impl(DispatchKey.CompositeImplicitAutograd)
def embedding_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                       scale_grad_by_freq: bool, sparse: bool) -> Tensor:
    """torch's composite: the dense backward (a sparse gradient is not implemented)."""
    if sparse:
        raise NotImplementedError("embedding(..., sparse=True): reftensor has no sparse "
                                  "tensors, so no sparse gradient; use sparse=False")
    return aten.embedding_dense_backward.default.call(grad, indices, num_weights, padding_idx,
                                                      scale_grad_by_freq)


def _embedding_renorm_(self: Tensor, indices: Tensor, max_norm: float,
                       norm_type: float) -> Tensor:
    """Each distinct row named by ``indices``, in increasing order: its ``norm_type``-norm
    (computed in float64, rounded to the row's dtype as torch's ``norm().item()``), and if
    above ``max_norm``, the row times ``max_norm / (norm + 1e-7)`` (a double, applied in
    the row's working dtype)."""
    if self.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {self.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    _check_indices(indices, 2, "embedding_renorm_")
    self._version_counter.value += 1
    if on_meta(self, indices):
        return self
    rows = self._elements()
    work = compute_dtype(self._dtype)
    for k in np.unique(values_of(indices).reshape(-1).astype(np.int64)):
        row = cast(rows[k], dtypes.float64)
        if norm_type == float("inf"):
            norm = float(np.max(np.abs(row))) if row.size else 0.0
        elif norm_type == 0:
            norm = float(np.count_nonzero(row))
        else:
            norm = float(np.sum(np.abs(row) ** norm_type) ** (1.0 / norm_type))
        norm = float(cast(np.asarray(norm), self._dtype if self._dtype.is_floating_point
                          else dtypes.float64))
        if norm > max_norm:
            if self._shape[1] > 1 and self._stride[1] == 0:  # torch's ``row *= scale``
                raise RuntimeError(
                    "unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")
            scale = work.numpy.type(max_norm / (norm + 1e-7))
            rows[k] = cast(cast(rows[k], work) * scale, self._dtype)
    return self


# ---------------------------------------------------------------- one_hot
@aten.one_hot.default.impl(DispatchKey.CompositeImplicitAutograd)
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    """int64 zeros of ``self.shape + (num_classes,)``, with 1 at each class (torch's checks,
    in its order: dtype, an empty input, negative values, values too large)."""
    if self._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.device == META:  # torch's functional form: ``eq(self.unsqueeze(-1), arange)``
        if num_classes == -1:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return new_tensor((*self._shape, num_classes), dtypes.int64, None)
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return new_tensor((*self._shape, num_classes), dtypes.int64, None, CPU)
    classes = values_of(self)
    if classes.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(classes.max()) + 1
    elif classes.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    values = (classes[..., None] == np.arange(num_classes)).astype(np.int64)
    out = new_tensor((*self._shape, num_classes), dtypes.int64, values)
    out._version_counter.value = 2  # torch writes it twice: ``zeros`` (zero_), then scatter_
    return out


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.embedding.default.impl(_key)(_embedding)
    aten.embedding_dense_backward.default.impl(_key)(_embedding_dense_backward)
    aten.embedding_renorm_.default.impl(_key)(_embedding_renorm_)
