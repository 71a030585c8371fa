"""Copies: new storage, never shared with the inputs.

* ``clone`` keeps the layout of a dense, non-overlapping input (a transposed tensor's clone
  is transposed too), and makes other layouts dense in the same dim order;
* ``flip`` (an op of the op table) copies with the elements reversed along some dims;
* ``cat`` joins tensors along an existing dim, ``stack`` along a new one. Both promote the
  dtypes of their inputs, and the result is contiguous unless every input looks
  channels-last.

``Tensor.contiguous`` (chapter 1) is the fourth way to copy: it returns ``self`` when there is
nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import dtypes, layout
from ._ops import DispatchKey, aten
from .device import META, wrong_device
from .layout import memory_format
from .storage import UntypedStorage
from .tensor import Tensor
from .views import _wrap, unsqueeze, view_strides

__all__ = ["clone", "cat", "concat", "concatenate", "stack"]


def clone(input: Tensor, *, memory_format: memory_format = layout.preserve_format) -> Tensor:
    """A copy with its own storage and no ``_base`` (``torch.clone``).

    ``preserve_format`` keeps the strides of a dense non-overlapping input (an empty tensor
    counts as dense), and otherwise makes them dense in the input's dim order.

    Raises:
        RuntimeError: ``memory_format=channels_last`` for a tensor that is not 4-d.
    """
    if memory_format is layout.channels_last and input.dim() != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    return input._copy_with_strides(input._strides_for(memory_format), input._dtype)


def _flip_dims(input: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """``dims`` wrapped, each once.

    Raises:
        RuntimeError: a dim listed twice. IndexError: a dim out of range.
    """
    chosen: list[int] = []
    for d in dims:
        d = _wrap(d, input.dim())
        if d in chosen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        chosen.append(d)
    return tuple(chosen)


# ``flip`` is an entry of the op table (``reftensor/_ops/native_functions.py``): a copy with
# the elements in reverse order along each of ``dims``, laid out like ``clone``.
@aten.flip.default.impl(DispatchKey.CPU)
def flip(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    chosen = _flip_dims(self, dims)
    out = clone(self)
    if self.dim():
        out._elements()[...] = np.flip(self._elements(), axis=chosen)
    return out


@aten.flip.default.impl(DispatchKey.Meta)
def flip_meta(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    _flip_dims(self, dims)
    return clone(self)


def _check_tensors(name: str, tensors: Sequence[Tensor]) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise TypeError(f"{name}(): argument 'tensors' must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for k, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along ``dim`` into a new tensor (``torch.cat``).

    The result dtype promotes all inputs' dtypes. 1-d empty tensors (shape ``(0,)``) are
    skipped, for backward compatibility, as in torch.

    Raises:
        ValueError: no tensors.
        RuntimeError: a 0-d input, different numbers of dims, or sizes that
            differ outside ``dim``.
        IndexError: ``dim`` out of range.
    """
    tensors = _check_tensors("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, x in enumerate(tensors):
        if x.dim() == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    result_dtype = tensors[0].dtype
    for x in tensors[1:]:
        result_dtype = dtypes.promote_types(result_dtype, x.dtype)
    where = tensors[0].device  # every input must be on the first one's device
    for x in tensors[1:]:
        if x.device != where:
            raise wrong_device(x.device, where)
    kept = [(k, x) for k, x in enumerate(tensors) if x._shape != (0,)]
    if not kept:  # only skipped tensors: ``dim`` is never even checked
        return Tensor._make(UntypedStorage(0, device=where), (0,), (1,), 0, result_dtype)
    reference = kept[0][1]
    d = _wrap(dim, reference.dim())
    for k, x in kept:
        if x.dim() != reference.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{reference.dim()} and {x.dim()}")
        for j in range(x.dim()):
            if j != d and x._shape[j] != reference._shape[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{reference._shape[j]} but got size {x._shape[j]} for tensor number "
                    f"{k} in the list.")
    shape = list(reference._shape)
    shape[d] = sum(x._shape[d] for _, x in kept)
    formats = {x._suggest_memory_format() for x in tensors}
    stride = (layout.channels_last_strides(shape) if formats == {layout.channels_last}
              else layout.contiguous_strides(shape))
    storage = UntypedStorage(layout.required_storage_elements(shape, stride)
                             * result_dtype.itemsize, device=where)
    out = Tensor._make(storage, tuple(shape), stride, 0, result_dtype)
    if where == META:
        return out
    start = 0
    for _, x in kept:
        index = [slice(None)] * len(shape)
        index[d] = slice(start, start + x._shape[d])
        out._elements()[tuple(index)] = x._elements().astype(result_dtype.numpy)
        start += x._shape[d]
    return out


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim ``dim`` (``torch.stack``): their ``cat``
    along ``dim`` seen with one more dim when ``dim`` is an existing dim, else ``cat`` of
    their ``unsqueeze(dim)``.

    Raises:
        RuntimeError: no tensors, or tensors of different shapes.
        IndexError: ``dim`` out of range for ``dim() + 1`` dims.
    """
    tensors = _check_tensors("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _wrap(dim, tensors[0].dim() + 1)
    for k, x in enumerate(tensors):
        if x._shape != tensors[0]._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(tensors[0]._shape)} at entry 0 and {list(x._shape)} at entry {k}")
    if d < tensors[0].dim():
        # torch joins along the existing dim ``d`` and splits that dim with a view, so the
        # result takes cat's layout; the view happens inside the op, so ``_base`` stays None.
        shape = list(tensors[0]._shape)
        shape.insert(d, len(tensors))
        joined = cat(tensors, d)
        stride = view_strides(joined._shape, joined._stride, shape)
        assert stride is not None  # splitting one dim is always possible
        return Tensor._make(joined._storage, tuple(shape), stride, 0, joined._dtype)
    return cat([unsqueeze(x, d) for x in tensors], d)
