"""Advanced indexing: ``torch.index`` (read) and ``Tensor.index_put_`` (write).

``t[idx]`` with tensors (or lists, or bools) among the indices ends here, once the basic
indices have been applied as views (``indexing.py``). ``indices`` is a list with one entry
per dim of ``self``: an index tensor, or None for a dim that is not indexed.

torch turns indexing into pointer arithmetic (``AdvancedIndex`` in ATen's IndexingUtils):

1. bool/uint8 masks become the columns of ``mask.nonzero()``, one long index per mask dim;
2. the index tensors are broadcast together; their shape is the *replacement shape*;
3. if the indexed dims are not adjacent, they are moved to the front (``transposeToFront``):
   that is why ``x[[0, 1], :, [0, 1]]`` puts the indexed dim first, like NumPy;
4. ``src`` is ``self`` restrided: the indexed dims are replaced by the replacement shape
   with stride 0, so ``src`` walks every position of the result while staying on the first
   element of the indexed dims; each index tensor then adds ``index * stride`` of its dim.

The read allocates its result with TensorIterator's rule (``iterator.output_strides``), with
``src`` and the index tensors as operands, so the result is not always contiguous: a
transposed source gives a transposed result. The write walks the same positions in
TensorIterator's order, so when an index repeats, the last write in that order wins.

In the student edition, the storage positions (and the result's shape) of every read and
write whose result has fewer than ``GATHER_NUMEL`` elements come from the student's
``index_positions`` (chapter 2), given the long indices after the masks are expanded; the
reference computes them with whole NumPy arrays (``_AdvancedIndex.positions``).
``tests/test_ch02_indexing.py`` proves the two agree.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import _casting, dtypes, iterator, layout, pieces, views
from ._ops import DispatchKey, aten
from .device import CPU
from .storage import UntypedStorage, no_data
from .tensor import Tensor

__all__ = ["SCALAR_TYPE_NAMES", "legacy_type_name", "index_positions"]

#: An index of ``index_positions``: None (the dim is not indexed) or (shape, values), the
#: values an index tensor holds, flat in row-major order
Index = tuple[Sequence[int], Sequence[int]] | None

#: torch's C++ ScalarType names, which its error messages use.
SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double",
}
_MASK_DTYPES = (dtypes.bool, dtypes.uint8)


def legacy_type_name(d: dtypes.dtype) -> str:
    """torch's legacy name for a CPU tensor type, as messages print it: "FloatTensor"."""
    return f"{SCALAR_TYPE_NAMES[d.name]}Tensor"


def _long_tensor(values: np.ndarray) -> Tensor:
    """A new contiguous int64 tensor holding ``values``."""
    shape = tuple(values.shape)
    storage = UntypedStorage(math.prod(shape) * dtypes.int64.itemsize)
    t = Tensor._make(storage, shape, layout.contiguous_strides(shape), 0, dtypes.int64)
    t._elements()[...] = values
    return t


def _expand(t: Tensor, target: tuple[int, ...]) -> Tensor:
    """An index tensor broadcast to ``target`` (torch's ``expand_outplace``: the op
    ``expand``, chapter 3's stride-0 view)."""
    if t._shape == target:
        return t
    return aten.expand.default.call(t, target, False)


# ----------------------------------------------------------------------- the positions
def index_positions(shape: Sequence[int], stride: Sequence[int], offset: int,
                    indices: Sequence[Index]) -> tuple[tuple[int, ...], list[int]]:
    """Where ``torch.ops.aten.index.Tensor(x, indices)`` reads each of its elements, for ``x``
    of layout ``(shape, stride, offset)``: the result's shape, and the storage position of
    each result element in row-major order.

    Args:
        shape, stride, offset: ``x``'s layout (``x.as_strided(shape, stride, offset)`` of
            its storage).
        indices: at most ``len(shape)`` entries, one per leading dim of ``x`` (dims past the
            end are not indexed): None for a dim that is not indexed, or ``(index_shape,
            values)`` for an int64 index tensor of that shape holding ``values`` (flat,
            row-major). At least one entry is not None.

    Returns:
        ``(tuple(r.shape), positions)`` where ``r`` is the result: ``positions[k]`` is the
        storage position that ``r.flatten()[k]`` is read from.

    Raises:
        IndexError: where torch's index kernel raises IndexError: index shapes that do not
            broadcast together, or an index out of range of its dim.
    """
    # BEGIN PIECE index_positions
    dims = [d for d, entry in enumerate(indices) if entry is not None]
    broadcast: list[int] = []
    for d in dims:  # the index shapes broadcast together, right-aligned
        index_shape = list(indices[d][0])  # type: ignore[index]
        if len(index_shape) > len(broadcast):
            broadcast = [1] * (len(index_shape) - len(broadcast)) + broadcast
        for k, n in enumerate(index_shape, len(broadcast) - len(index_shape)):
            if n != broadcast[k] and broadcast[k] != 1 and n != 1:
                listed = ", ".join(str(list(indices[e][0])) for e in dims)  # type: ignore[index]
                raise IndexError("shape mismatch: indexing tensors could not be broadcast "
                                 f"together with shapes {listed}")
            if broadcast[k] == 1:
                broadcast[k] = n
    if 0 not in broadcast and any(shape[d] == 0 for d in dims):
        raise IndexError("index is out of bounds for dimension with size 0")
    rest = [d for d in range(len(shape)) if d not in dims]
    if dims[-1] - dims[0] + 1 == len(dims):  # one run: the index shape takes its place
        before = [d for d in rest if d < dims[0]]
        after = [d for d in rest if d > dims[0]]
    else:  # separated: the index shape goes first
        before, after = [], rest
    result = (tuple(shape[d] for d in before) + tuple(broadcast)
              + tuple(shape[d] for d in after))
    positions: list[int] = []
    plain = before + [None] * len(broadcast) + after  # the dim of x behind each result dim
    for where in itertools.product(*[range(n) for n in result]):
        position = offset + sum(i * stride[d] for i, d in zip(where, plain, strict=True)
                                if d is not None)
        j = where[len(before):len(before) + len(broadcast)]
        for k, d in enumerate(dims):
            index_shape, values = indices[d]  # type: ignore[misc]
            flat = 0
            for n, i in zip(index_shape, j[len(j) - len(index_shape):], strict=True):
                flat = flat * n + (i if n != 1 else 0)
            v = values[flat]
            if not -shape[d] <= v < shape[d]:
                raise IndexError(f"index {v} is out of bounds for dimension {k} with size "
                                 f"{shape[d]}")
            position += (v + shape[d] if v < 0 else v) * stride[d]
        positions.append(position)
    return result, positions
    # END PIECE


#: Reads and writes whose result has fewer elements than this take their positions from
#: ``index_positions`` when ``GATHER`` is set (the rule of ``elementwise.LOOP_NUMEL``).
GATHER_NUMEL = 64
#: Does the library run ``index_positions``? Yes in the student edition (where the piece
#: runs the student's answer, or a published chapter's body); no in the reference, whose
#: NumPy path is faster. Asked once, here.
GATHER = pieces.stubbed(index_positions)


def _plain_indices(indices: Sequence[Tensor | None]) -> list[Index]:
    """The long index tensors (masks expanded) as ``index_positions`` takes them."""
    return [None if idx is None else
            (idx._shape, idx._elements().astype(np.int64).reshape(-1).tolist())
            for idx in indices]


# ----------------------------------------------------------------------- make_info
def _check_index_types(indices: Sequence[Tensor | None]) -> None:
    """Raises IndexError for an index tensor that is not long, int, byte or bool."""
    allowed = (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool)
    for idx in indices:
        if idx is not None and idx._dtype not in allowed:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _check_mask(self: Tensor, mask: Tensor, first_dim: int) -> None:
    """A mask must match the sizes of the dims it covers (IndexError otherwise)."""
    for j, size in enumerate(mask._shape):
        src = first_dim + j
        if src >= self.ndim:  # torch asks self.size(src), which raises
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-self.ndim}, {self.ndim - 1}], but got {src})")
        if size != self._shape[src]:
            raise IndexError(
                f"The shape of the mask {list(mask._shape)} at index {j} does not match the "
                f"shape of the indexed tensor {list(self._shape)} at index {src}")


def _expand_masks(self: Tensor, indices: Sequence[Tensor | None]) -> list[Tensor | None]:
    """Replace each k-dim mask by k long indices: the columns of ``mask.nonzero()``
    (torch's ``expandTensors``). torch's nonzero result is column-major, so every column
    is a contiguous 1-d tensor."""
    result: list[Tensor | None] = []
    for idx in indices:
        if idx is None or idx._dtype not in _MASK_DTYPES:
            result.append(idx)
            continue
        if idx._dtype is dtypes.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                          "dtype torch.bool instead.", UserWarning, stacklevel=5)
        _check_mask(self, idx, len(result))
        if idx.ndim == 0:  # nonzero() of a 0-d mask has shape (k, 0): no column, no index
            continue
        result.extend(_long_tensor(column) for column in np.nonzero(idx._elements()))
    return result


def _broadcast(indices: list[Tensor | None]) -> list[Tensor | None]:
    """Broadcast the index tensors together (``expand_outplace``); IndexError if they can't."""
    shapes = [idx._shape for idx in indices if idx is not None]
    try:
        common = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = ", ".join(str(list(s)) for s in shapes)
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {listed}") from None
    return [None if idx is None else _expand(idx, common) for idx in indices]


def _adjacent(indices: Sequence[Tensor | None]) -> bool:
    """Do the indexed dims form one run (torch's ``hasContiguousSubspace``)?"""
    dims = [d for d, idx in enumerate(indices) if idx is not None]
    return not dims or dims[-1] - dims[0] + 1 == len(dims)


@dataclass
class _AdvancedIndex:
    """What torch's ``AdvancedIndex`` knows: ``src`` (self restrided: the indexed dims are
    replaced by the index shape, with stride 0) and the index tensors reshaped to line up
    with ``src`` (size 1 in every other dim)."""

    storage_offset: int
    src_shape: tuple[int, ...]
    src_stride: tuple[int, ...]
    indices: list[Tensor]  # reshaped: (1,) * dims_before + index shape + (1,) * dims_after
    indexed_sizes: list[int]
    indexed_strides: list[int]
    #: ``self``'s layout and the long indices before broadcasting, as ``index_positions``
    #: takes them (kept only where ``GATHER`` is set)
    plain: tuple[tuple[int, ...], tuple[int, ...], list[Index]] | None = field(default=None)

    def operands(self) -> list[tuple[Sequence[int], Sequence[int]]]:
        """(shape, stride) of ``src`` and the indices: TensorIterator's inputs."""
        return [(self.src_shape, self.src_stride)] + [(i._shape, i._stride) for i in self.indices]

    def positions(self) -> np.ndarray:
        """The storage index of every result element: the pointer arithmetic of torch's
        index kernel, ``src`` position plus ``index * stride`` for each indexed dim.

        Raises:
            IndexError: an index outside ``[-size, size)``; only checked when the result
                has elements, as torch's kernel checks while it runs.

        In the student edition, a result of fewer than ``GATHER_NUMEL`` elements takes its
        positions, and its shape, from ``index_positions``.
        """
        if self.plain is not None and math.prod(self.src_shape) < GATHER_NUMEL:
            self_shape, self_stride, indices = self.plain
            shape, found = index_positions(self_shape, self_stride, self.storage_offset,
                                           indices)
            return np.array(found, dtype=np.int64).reshape(tuple(shape))
        shape = self.src_shape
        position = np.zeros((1,) * len(shape), dtype=np.int64) + self.storage_offset
        for d, (size, stride) in enumerate(zip(shape, self.src_stride, strict=True)):
            along_d = np.arange(size, dtype=np.int64) * stride
            position = position + along_d.reshape([-1 if k == d else 1 for k in range(len(shape))])
        for k, (idx, size, stride) in enumerate(
                zip(self.indices, self.indexed_sizes, self.indexed_strides, strict=True)):
            values = idx._elements().astype(np.int64)
            if math.prod(shape) > 0:
                bad = (values < -size) | (values >= size)
                if bad.any():
                    raise IndexError(f"index {values[bad].flat[0]} is out of bounds for "
                                     f"dimension {k} with size {size}")
            values = np.where(values < 0, values + size, values)
            position = position + values * stride
        return np.broadcast_to(position, shape)


def _make_info(self: Tensor, raw: Sequence[Tensor | None], *, meta: bool) -> _AdvancedIndex:
    """torch's ``make_info``: validate, expand masks, broadcast, move indexed dims together,
    then build the :class:`_AdvancedIndex`.

    Raises:
        IndexError: an index tensor of another dtype, a mask whose shape does not match,
            index shapes that do not broadcast, or an index into a dim of size 0.
    """
    _check_index_types(raw)
    expanded = _expand_masks(self, raw)
    plain = (self._shape, self._stride, _plain_indices(expanded)) if GATHER and not meta \
        else None
    indices = _broadcast(expanded)
    indices += [None] * (self.ndim - len(indices))
    shape, stride = self._shape, self._stride
    if not _adjacent(indices):  # transposeToFront: indexed dims first, the rest after
        order = ([d for d, i in enumerate(indices) if i is not None]
                 + [d for d, i in enumerate(indices) if i is None])
        shape = tuple(shape[d] for d in order)
        stride = tuple(stride[d] for d in order)
        indices = [indices[d] for d in order]
    # int32 indices are converted (keeping their layout when dense, like .to() does)
    indices = [i.to(dtypes.int64) if i is not None and i._dtype is dtypes.int32 else i
               for i in indices]

    dims = [d for d, i in enumerate(indices) if i is not None]
    if not dims:  # only 0-d masks: src is self, and torch's kernel has no index to read
        if math.prod(self._shape) and not meta:
            raise RuntimeError("index: 0-d boolean indices leave no index tensor for a "
                               "non-empty tensor (torch's CPU kernel fails its internal "
                               "assert 'ntensor >= 3')")
        return _AdvancedIndex(storage_offset=self._storage_offset, src_shape=shape,
                              src_stride=stride, indices=[], indexed_sizes=[],
                              indexed_strides=[])
    before, after = dims[0], len(indices) - dims[-1] - 1
    replacement = indices[dims[0]]._shape  # type: ignore[union-attr]
    indexed_sizes = [shape[d] for d in dims]
    if 0 in indexed_sizes and 0 not in replacement and not meta:  # the CPU kernel's check
        raise IndexError("index is out of bounds for dimension with size 0")
    end = dims[-1] + 1
    reshaped = []
    for d in dims:
        idx = indices[d]
        assert idx is not None
        new_shape = (1,) * before + idx._shape + (1,) * after
        new_stride = views.view_strides(idx._shape, idx._stride, new_shape)  # always viewable
        assert new_stride is not None
        reshaped.append(Tensor._make(idx._storage, new_shape, new_stride, idx._storage_offset,
                                     idx._dtype, base=idx))
    return _AdvancedIndex(
        storage_offset=self._storage_offset,
        src_shape=shape[:before] + replacement + shape[end:],
        src_stride=stride[:before] + (0,) * len(replacement) + stride[end:],
        indices=reshaped,
        indexed_sizes=indexed_sizes,
        indexed_strides=[stride[d] for d in dims],
        plain=plain,
    )


def _too_many(self: Tensor, indices: Sequence[Tensor | None]) -> None:
    if len(indices) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} "
                         f"(got {len(indices)})")


# ----------------------------------------------------------------------- devices
def _check_index_devices(self: Tensor, indices: Sequence[Tensor | None]) -> None:
    """Index tensors may live on the CPU whatever ``self``'s device (a CPU mask even indexes
    a meta tensor: its nonzero positions are known), or on ``self``'s device.

    Raises:
        RuntimeError: a meta index into a CPU tensor (torch returns garbage or leaves
            ``self`` unchanged there; reftensor refuses).
    """
    for idx in indices:
        if idx is not None and idx.device not in (CPU, self.device):
            raise RuntimeError("indices should be either on cpu or on the same device as the "
                               f"indexed tensor ({self.device})")


# ----------------------------------------------------------------------- read
def _index_result(self: Tensor, indices: Sequence[Tensor | None], *, meta: bool
                  ) -> tuple[Tensor, _AdvancedIndex]:
    """The checks of ``index`` and its result, allocated by TensorIterator's rule (on the
    meta device, an empty ``self`` gives a row-major result, as torch's meta function)."""
    _too_many(self, indices)
    _check_index_devices(self, indices)
    info = _make_info(self, indices, meta=meta)
    shape = info.src_shape
    stride = iterator.output_strides(shape, info.operands())
    if meta and self.numel() == 0:
        stride = layout.contiguous_strides(shape)
    nbytes = layout.required_storage_elements(shape, stride) * self._dtype.itemsize
    out = Tensor._make(UntypedStorage(nbytes, device=self.device), shape, stride, 0,
                       self._dtype)
    return out, info


@aten.index.Tensor.impl(DispatchKey.CPU)
def index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    """``self[indices]`` for a list of index tensors (``torch.ops.aten.index``): a new tensor
    (a copy, ``_base`` None) laid out by TensorIterator's rule.

    Raises:
        IndexError: more indices than dims, a bad index dtype or mask shape, shapes that do
            not broadcast, or an index out of range.
    """
    out, info = _index_result(self, indices, meta=False)
    positions = info.positions()
    if positions.shape != out._shape:  # the student's index_positions gave another shape
        shape = tuple(positions.shape)
        out = Tensor._make(UntypedStorage(math.prod(shape) * self._dtype.itemsize), shape,
                           layout.contiguous_strides(shape), 0, self._dtype)
    if out.numel():
        out._elements()[...] = self._storage._typed(self._dtype.numpy)[positions]
    return out


@aten.index.Tensor.impl(DispatchKey.Meta)
def index_meta(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    """The layout only: no positions are read, no bounds checked."""
    return _index_result(self, indices, meta=True)[0]


# ----------------------------------------------------------------------- write
def _masked_fill_mask(self: Tensor, indices: Sequence[Tensor | None], value: Tensor
                      ) -> Tensor | None:
    """torch's ``canDispatchToMaskedFill``: with one mask as the only index tensor and a
    one-element value, ``index_put_`` becomes ``masked_fill_``. Returns the mask, with size-1
    dims appended up to ``self.dim()``, or None.

    Raises:
        IndexError: the mask's shape does not match the dims it covers.
    """
    if value.numel() != 1:
        return None
    covered, mask = 0, None
    for idx in indices:
        if idx is None:
            covered += 1
        elif idx._dtype not in _MASK_DTYPES or mask is not None:
            return None
        else:
            _check_mask(self, idx, covered)
            mask, covered = idx, covered + idx.ndim
    assert mask is not None
    extra = self.ndim - covered  # mask.unsqueeze(-1) this many times: new strides are 1
    return Tensor._make(mask._storage, mask._shape + (1,) * extra, mask._stride + (1,) * extra,
                        mask._storage_offset, mask._dtype, base=mask)


def _masked_fill(self: Tensor, mask: Tensor, value: Tensor, *, meta: bool) -> None:
    """``self.masked_fill_(mask, value.item())``: the value goes through the checked
    ``Scalar`` conversion, so ``uint8_tensor[mask] = torch.tensor(300)`` raises.

    Raises:
        RuntimeError: a uint8 mask (masked_fill_ takes bool masks only, though indexing
            accepts uint8 ones elsewhere), a value the dtype cannot hold, or a mask partly
            overlapping self.
    """
    if mask._dtype is dtypes.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                           "dtype unsigned char")
    if iterator.has_internal_overlap(self) == "yes":
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                      "the tensor before performing this operation. This also applies to "
                      "advanced indexing e.g. tensor[mask] = scalar", UserWarning, stacklevel=5)
    iterator.assert_no_partial_overlap(self, mask)
    if meta:
        return
    fill = _casting.checked_number(value.item(), self._dtype)
    where = np.broadcast_to(mask._elements() != 0, self._shape)
    self._elements()[where] = fill


def _iteration_order(operands: list[tuple[Sequence[int], Sequence[int]]],
                     shape: tuple[int, ...]) -> list[int]:
    """The dims from outermost to innermost, in the order TensorIterator walks them: the
    order of a new output's strides (size-0 and size-1 dims may tie; they never matter)."""
    strides = iterator.output_strides(shape, operands)
    return sorted(range(len(shape)), key=lambda d: -strides[d])


def _index_put_checks(self: Tensor, indices: Sequence[Tensor | None], value: Tensor,
                      accumulate: bool, *, meta: bool) -> _AdvancedIndex | None:
    """What ``index_put_`` checks before it writes. Returns the advanced index, or None when
    the write was ``masked_fill_`` (done then, on the CPU)."""
    _too_many(self, indices)
    _check_index_devices(self, indices)
    if iterator.has_internal_overlap(self) == "yes":
        warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      "indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=4)
    mask = None if accumulate else _masked_fill_mask(self, indices, value)
    if mask is not None:
        _masked_fill(self, mask, value, meta=meta)
        return None
    iterator.assert_no_overlap(self, value)
    for idx in indices:
        if idx is not None:
            iterator.assert_no_overlap(self, idx)
    info = _make_info(self, indices, meta=meta)
    shape = info.src_shape
    lead = len(shape) - len(value._shape)
    if lead < 0 or any(v not in (1, shape[lead + k]) for k, v in enumerate(value._shape)):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._shape)} cannot "
                           f"be broadcast to indexing result of shape {list(shape)}")
    if value._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{SCALAR_TYPE_NAMES[self._dtype.name]} for the destination and "
            f"{SCALAR_TYPE_NAMES[value._dtype.name]} for the source.")
    return info


def _write(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
           accumulate: bool) -> None:
    """The CPU write of ``index_put_`` (without the ``_version`` bump)."""
    info = _index_put_checks(self, indices, values, accumulate, meta=False)
    if info is None:  # masked_fill_ wrote it
        return
    positions = info.positions()
    if positions.size:
        shape = info.src_shape
        # Walk the positions in TensorIterator's order (outermost dim first).
        order = _iteration_order([(shape, info.src_stride), (values._shape, values._stride),
                                  *info.operands()[1:]], shape)
        if positions.shape != shape:  # the student's index_positions gave another shape
            shape, order = positions.shape, list(range(positions.ndim))
        where = positions.transpose(order).ravel()
        written = np.broadcast_to(values._elements(), shape).transpose(order).ravel()
        storage = self._storage._typed(self._dtype.numpy)
        if accumulate:
            np.add.at(storage, where, written)
        else:  # the last write to each storage element is the value torch leaves there
            targets, first_seen = np.unique(where[::-1], return_index=True)
            storage[targets] = written[::-1][first_seen]


def _write_meta(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                accumulate: bool) -> None:
    """The checks only; a meta ``values`` cannot be written into a CPU ``self``. A meta
    mask has no positions to count: then only what needs no data is checked."""
    if not self.is_meta:
        _too_many(self, indices)
        _check_index_devices(self, indices)
        raise no_data()
    if any(i is not None and i._dtype in _MASK_DTYPES and i.is_meta for i in indices):
        _too_many(self, indices)
        _check_index_types(indices)
        return
    _index_put_checks(self, indices, values, accumulate, meta=True)


@aten.index_put_.default.impl(DispatchKey.CPU)
def index_put_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
               accumulate: bool = False) -> Tensor:
    """``self[indices] = values`` for a list of index tensors (``Tensor.index_put_``); bumps
    ``_version`` once, on success.

    The values must have self's dtype and broadcast to the indexing result. With repeated
    indices the last write in TensorIterator's order wins, or with ``accumulate`` every one
    is added, in that order. Writing into an expanded tensor only warns (torch deprecates it).

    Raises:
        IndexError: as :func:`index`.
        RuntimeError: the values (or an index) overlap self's memory, the values' shape does
            not broadcast, or their dtype differs.
    """
    _write(self, indices, values, accumulate)
    self._version_counter.value += 1
    return self


@aten.index_put_.default.impl(DispatchKey.Meta)
def index_put_meta(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                   accumulate: bool = False) -> Tensor:
    _write_meta(self, indices, values, accumulate)
    self._version_counter.value += 1
    return self


@aten.index_put.default.impl(DispatchKey.CPU)
def index_put(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
              accumulate: bool = False) -> Tensor:
    """``torch.index_put``: ``index_put_`` into a clone of ``self`` (whose ``_version``
    stays 0: torch's kernel writes below the layer that counts versions)."""
    out = aten.clone.default.call(self, None)
    _write(out, indices, values, accumulate)
    return out


@aten.index_put.default.impl(DispatchKey.Meta)
def index_put_functional_meta(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                              accumulate: bool = False) -> Tensor:
    out = aten.clone.default.call(self, None)
    _write_meta(out, indices, values, accumulate)
    return out
