"""Copies: new storage, never shared with the inputs. The ops of the op table
(``reftensor/_ops/native_functions.py``) whose CPU and Meta kernels are registered here:

* ``clone`` keeps the layout of a dense, non-overlapping input (a transposed tensor's clone
  is transposed too), and makes other layouts dense in the same dim order;
* ``contiguous`` (a method) is ``clone`` when the layout is not already the one asked for,
  and ``self`` itself when it is;
* ``flip`` copies with the elements reversed along some dims (``fliplr``, ``flipud`` and
  ``rot90`` are flips too);
* ``repeat`` (and ``tile``) copies where ``expand`` would view; ``roll`` shifts elements
  round along dims;
* ``tril`` and ``triu`` copy a triangle of each matrix and zero the rest;
* ``cat`` joins tensors along an existing dim, ``stack`` along a new one. Both promote the
  dtypes of their inputs, and the result is contiguous unless every input looks
  channels-last. With ``out=`` they write straight into ``out``, in its dtype.
  ``hstack``, ``vstack``, ``dstack`` and ``column_stack`` are ``cat`` after
  ``atleast_1d``/``2d``/``3d``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _casting, conversions, dtypes, factories, layout
from ._ops import DispatchKey, aten
from .device import CPU, META, as_device, device, wrong_device
from .iterator import assert_no_internal_overlap, assert_no_overlap, resize_output
from .layout import memory_format
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES, can_cast
from .storage import no_data
from .tensor import Tensor, to_options
from .views import _view, _wrap, at_least, unsqueeze, view_strides

__all__: list[str] = []  # every op here is a binding of the op table


# ------------------------------------------------------------------ clone, contiguous
def _clone_strides(self: Tensor, memory_format: memory_format | None) -> tuple[int, ...]:
    """The strides of ``clone(self, memory_format=...)``.

    Raises:
        RuntimeError: ``channels_last`` for a tensor that is not 4-d.
    """
    if memory_format is layout.channels_last and self.dim() != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    return self._strides_for(layout.preserve_format if memory_format is None
                             else memory_format)


def _clone(self: Tensor, memory_format: memory_format | None = None) -> Tensor:
    """``clone`` on either device, without dispatch (what other kernels and the autograd
    engine copy with)."""
    return self._copy_with_strides(_clone_strides(self, memory_format), self._dtype)


# ------------------------------------------------------------------ _to_copy, type_as
# ``Tensor.to`` and the conversion methods (``t.float()``) run ``aten._to_copy`` when
# something changes (``tensor.to_options``). The kernel is picked by the input's device; the
# result goes to ``device`` (default: the input's).
def _copy_strides(self: Tensor, dtype: dtypes.dtype | None, where: device,
                  memory_format: memory_format | None) -> tuple[int, ...]:
    """The strides of ``self``'s copy by ``_to_copy``, from ``conversions.to_result``
    (asked about a copy: ``copy=True``).

    Raises:
        RuntimeError: ``channels_last`` for a tensor that is not 4-d.
    """
    call = conversions.to_call(None if dtype is None else dtype.name, str(where), True,
                               None if memory_format is None else memory_format.name)
    return conversions.to_result(self._dtype.name, self._shape, self._stride, call)[1]


@aten._to_copy.default.impl(DispatchKey.CPU)
def to_copy(self: Tensor, dtype: dtypes.dtype | None, layout: None, device: device | None,
            pin_memory: bool | None, non_blocking: bool,
            memory_format: memory_format | None) -> Tensor:
    """A copy converted to ``dtype``, on the CPU or (no values copied) on the meta device,
    laid out as ``conversions.to_result`` says a copy is (``clone``'s layout)."""
    where = CPU if device is None else as_device(device, copying=True)
    return self._copy_with_strides(_copy_strides(self, dtype, where, memory_format),
                                   self._dtype if dtype is None else dtype, where)


@aten._to_copy.default.impl(DispatchKey.Meta)
def to_copy_meta(self: Tensor, dtype: dtypes.dtype | None, layout: None,
                 device: device | None, pin_memory: bool | None, non_blocking: bool,
                 memory_format: memory_format | None) -> Tensor:
    """Only to the meta device: a meta tensor has no values to copy onto the CPU."""
    where = META if device is None else as_device(device, copying=True)
    strides = _copy_strides(self, dtype, where, memory_format)
    if where is not META:
        raise no_data()
    return factories._allocate(self._shape, strides, self._dtype if dtype is None else dtype,
                               META)


@aten.type_as.default.impl(DispatchKey.CompositeImplicitAutograd)
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """torch's ``self.to(other.options())``: other's dtype and device."""
    return to_options(self, other._dtype, other.device, False, False, None, options=True)


@aten.clone.default.impl(DispatchKey.CPU)
def clone(self: Tensor, memory_format: memory_format | None) -> Tensor:
    return self._copy_with_strides(_clone_strides(self, memory_format), self._dtype)


@aten.clone.default.impl(DispatchKey.Meta)
def clone_meta(self: Tensor, memory_format: memory_format | None) -> Tensor:
    return factories._allocate(self._shape, _clone_strides(self, memory_format), self._dtype,
                               self.device)


@aten.contiguous.default.impl(DispatchKey.CompositeImplicitAutograd)
def contiguous(self: Tensor, memory_format: memory_format) -> Tensor:
    """Written with ``clone``, which dispatches (and records ``CloneBackward0``) itself.
    (``preserve_format`` is checked as torch checks it: as ``contiguous_format``, and
    refused only when a copy is needed.)"""
    preserve = memory_format is layout.preserve_format
    if self.is_contiguous(layout.contiguous_format if preserve else memory_format):
        return self
    if preserve:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return aten.clone.default.call(self, memory_format)


# ------------------------------------------------------------------ flip
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


@aten.flip.default.impl(DispatchKey.CPU)
def flip(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    chosen = _flip_dims(self, dims)
    out = _clone(self)
    if self.dim():
        out._elements()[...] = np.flip(self._elements(), axis=chosen)
    return out


@aten.flip.default.impl(DispatchKey.Meta)
def flip_meta(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    _flip_dims(self, dims)
    return clone_meta(self, None)


# ------------------------------------------------------------------ fliplr, flipud, rot90
@aten.fliplr.default.impl(DispatchKey.CompositeImplicitAutograd)
def fliplr(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return aten.flip.default.call(self, (1,))


@aten.flipud.default.impl(DispatchKey.CompositeImplicitAutograd)
def flipud(self: Tensor) -> Tensor:
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return aten.flip.default.call(self, (0,))


def rot90(self: Tensor, k: int, dims: Sequence[int]) -> Tensor:
    """torch's ``rot90`` kernel (the same code on meta), after its checks in its order."""
    n = self.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    a, b = _wrap(dims[0], n), _wrap(dims[1], n)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = "
                           f"{dims[0]} and dim1 = {dims[1]}")
    turns = k % 4
    if turns == 2:
        return aten.flip.default.call(self, (a, b))
    if turns == 0:
        return _clone(self, layout.contiguous_format)
    # torch transposes the fresh flip in place (``transpose_``): no copy, no view
    flipped = aten.flip.default.call(self, (b,) if turns == 1 else (a,))
    shape, stride = list(flipped._shape), list(flipped._stride)
    shape[a], shape[b], stride[a], stride[b] = shape[b], shape[a], stride[b], stride[a]
    flipped._shape, flipped._stride = tuple(shape), tuple(stride)
    return flipped


aten.rot90.default.impl(DispatchKey.CPU)(rot90)
aten.rot90.default.impl(DispatchKey.Meta)(rot90)


# ------------------------------------------------------------------ repeat, tile
def _repeat(self: Tensor, repeats: Sequence[int], *, meta: bool) -> Tensor:
    """torch's ``repeat``: ``self`` seen with 1s before its sizes, then copied
    ``repeats[i]`` times along each dim into a contiguous result."""
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                           "number of dimensions of tensor")
    padded = (1,) * (len(repeats) - self.dim()) + self._shape
    target = tuple(n * r for n, r in zip(padded, repeats, strict=True))
    factories._check_sizes(target)
    out = factories._allocate(target, layout.contiguous_strides(target), self._dtype,
                              META if meta else CPU)
    if not meta and out.numel():
        out._elements()[...] = np.tile(self._elements().reshape(padded), tuple(repeats))
    return out


aten.repeat.default.impl(DispatchKey.CPU)(lambda self, repeats: _repeat(self, repeats,
                                                                         meta=False))
aten.repeat.default.impl(DispatchKey.Meta)(lambda self, repeats: _repeat(self, repeats,
                                                                          meta=True))


@aten.tile.default.impl(DispatchKey.CompositeImplicitAutograd)
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    """torch's ``tile``: ``repeat``, with 1s first when ``dims`` is shorter than the
    number of dims."""
    reps = (1,) * (self.dim() - len(dims)) + tuple(dims)
    return aten.repeat.default.call(self, reps)


# ------------------------------------------------------------------ repeat_interleave
def _repeat_indices(repeats: Tensor, output_size: int | None, *, meta: bool) -> Tensor:
    """``repeat_interleave(repeats)``: ``i`` written ``repeats[i]`` times, as torch's
    ``repeat_interleave_cpu``."""
    if repeats._dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{SCALAR_TYPE_NAMES[repeats._dtype.name]}'")
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if meta:  # even for empty repeats: torch's meta kernel asks first
        if output_size is None:
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        return factories._allocate((output_size,), (1,), repeats._dtype, META)
    if repeats.numel() == 0:
        return factories._allocate((0,), (1,), repeats._dtype, CPU)
    counts = repeats._elements().astype(np.int64)
    if output_size is None and (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    total = int(counts.sum()) if output_size is None else output_size
    if total != int(np.maximum(counts, 0).sum()):
        raise RuntimeError("allocated size does not match required size")
    out = factories._allocate((total,), (1,), repeats._dtype, CPU)
    out._elements()[...] = np.repeat(np.arange(len(counts)), np.maximum(counts, 0))
    return out


aten.repeat_interleave.Tensor.impl(DispatchKey.CPU)(
    lambda repeats, output_size: _repeat_indices(repeats, output_size, meta=False))
aten.repeat_interleave.Tensor.impl(DispatchKey.Meta)(
    lambda repeats, output_size: _repeat_indices(repeats, output_size, meta=True))


@aten.repeat_interleave.self_int.impl(DispatchKey.CompositeImplicitAutograd)
def repeat_interleave_int(self: Tensor, repeats: int, dim: int | None,
                          output_size: int | None) -> Tensor:
    """torch's composite: a new dim after ``dim`` expanded to ``repeats``, copied
    contiguous, and merged into ``dim``."""
    input = self if dim is not None else aten.flatten.using_ints.call(self, 0, -1)
    d = _wrap(0 if dim is None else dim, input.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    input = aten.unsqueeze.default.call(input, d + 1)
    shape = list(input._shape)
    shape[d + 1] = repeats
    input = aten.expand.default.call(input, shape, False)
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{repeats * shape[d]} but got {output_size}")
    copy = aten.clone.default.call(input, layout.contiguous_format)
    return aten.flatten.using_ints.call(copy, d, d + 1)


@aten.repeat_interleave.self_Tensor.impl(DispatchKey.CompositeImplicitAutograd)
def repeat_interleave_tensor(self: Tensor, repeats: Tensor, dim: int | None,
                             output_size: int | None) -> Tensor:
    """torch's composite: ``index_select`` of the indices ``repeat_interleave(repeats)``
    gives (one count is expanded to every slice)."""
    input = self
    if dim is None:
        input, dim = aten.flatten.using_ints.call(self, 0, -1), 0
    if input.dim() == 0:  # (torch's ``sym_size(dim)`` of a 0-d tensor)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    size = input._shape[_wrap(dim, input.dim())]
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats._shape[0] == 1):
        repeats = aten.expand.default.call(aten.reshape.default.call(repeats, (1,)),
                                           (size,), False)
    elif repeats.dim() == 1:
        if repeats._shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats._shape[0]} and input.size({dim}) "
                               f"= {size}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    indices = aten.repeat_interleave.Tensor.call(repeats, output_size)
    return aten.index_select.default.call(input, dim, indices)


# ------------------------------------------------------------------ roll
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int]) -> Tensor:
    """torch's CPU ``roll`` (the same code on meta): one dim is the ``cat`` of two
    ``narrow`` slices; no dims rolls the flattened tensor; several roll one at a time."""
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        flat = aten.view.default.call(aten.contiguous.default.call(
            self, layout.contiguous_format), (self.numel(),))
        return aten.view.default.call(roll(flat, shifts, (0,)), self._shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if len(dims) > 1:
        return roll(roll(self, shifts[:1], dims[:1]), shifts[1:], dims[1:])
    if self.numel() == 0:
        return _clone(self, layout.preserve_format)
    d = _wrap(dims[0], self.dim())
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    size = self._shape[d]
    start = (size - shifts[0]) % size
    return aten.cat.default.call([aten.narrow.default.call(self, d, start, size - start),
                                  aten.narrow.default.call(self, d, 0, start)], d)


aten.roll.default.impl(DispatchKey.CPU)(roll)
aten.roll.default.impl(DispatchKey.Meta)(roll)


# ------------------------------------------------------------------ atleast_*d, *stack
# torch's composites: ``cat`` of the tensors given enough dims (``views.at_least``).
def _stacked(name: str, tensors: Sequence[Tensor]) -> tuple[list[Tensor], int]:
    """The tensors ``hstack``, ``vstack``, ``dstack`` or ``column_stack`` hand to ``cat``,
    and the dim."""
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    if name == "column_stack":
        tensors = [aten.reshape.default.call(t, (t.numel(), 1)) if t.dim() <= 1 else t
                   for t in tensors]
        name = "hstack"
    if name == "hstack":
        rep = [at_least(t, 1) for t in tensors]
        return rep, 0 if rep[0].dim() == 1 else 1
    if name == "vstack":
        return [at_least(t, 2) for t in tensors], 0
    return [at_least(t, 3) for t in tensors], 2


def _register_stack(name: str) -> None:
    packet = aten[name]
    packet.default.impl(DispatchKey.CompositeImplicitAutograd)(
        lambda tensors: aten.cat.default.call(*_stacked(name, tensors)))
    packet.out.impl(DispatchKey.CompositeImplicitAutograd)(
        lambda tensors, out: aten.cat.out.call(*_stacked(name, tensors), out))


for _name in ("hstack", "vstack", "dstack", "column_stack"):
    _register_stack(_name)


# ------------------------------------------------------------------ diag_embed, diag
def diag_embed(self: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """torch's ``diag_embed`` (the same code on meta): zeros with the input's last dim
    written along the diagonal of a new (dim1, dim2) plane; written directly, so the
    result's version stays 0 as torch's."""
    n = self.dim() + 1
    a, b = _wrap(dim1, n), _wrap(dim2, n)
    if a == b:  # (torch's words, as ``diagonal``'s)
        same = f"diagonal dimensions cannot be identical {dim1}, {dim2}"
        raise RuntimeError(same)
    if self.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    side = abs(offset) + self._shape[-1]
    sizes = list(self._shape[:-1])
    sizes.insert(min(a, b), side)
    sizes.insert(max(a, b), side)
    result = factories._allocate(tuple(sizes), layout.contiguous_strides(sizes),
                                 self._dtype, self.device)
    if self.device is CPU and self.numel():
        diagonal = aten.diagonal.default.call(result, offset, a, b)
        diagonal._elements()[...] = self._elements()
    return result


def diagonal_copy(self: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """torch's ``*_copy`` kernels: the view, cloned contiguous."""
    return _clone(aten.diagonal.default.call(self, offset, dim1, dim2),
                  layout.contiguous_format)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.diag_embed.default.impl(_key)(diag_embed)
    aten.diagonal_copy.default.impl(_key)(diagonal_copy)


@aten.diag.default.impl(DispatchKey.CompositeImplicitAutograd)
def diag(self: Tensor, diagonal: int) -> Tensor:
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")
    if self.dim() == 1:
        return aten.diag_embed.default.call(self, diagonal, -2, -1)
    return aten.diagonal_copy.default.call(self, diagonal, 0, 1)


@aten.diagflat.default.impl(DispatchKey.CompositeImplicitAutograd)
def diagflat(self: Tensor, offset: int) -> Tensor:
    flat = aten.view.default.call(aten.contiguous.default.call(
        self, layout.contiguous_format), (-1,))
    return diag(flat, offset)


# ------------------------------------------------------------------ tril, triu
# A triangle of each matrix (the last two dims) kept, the rest zeroed: torch's structured
# kernels write a contiguous result of the input's dtype.
def _triangle(self: Tensor, diagonal: int, *, lower: bool, meta: bool) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least "
                           "2 dimensions")
    out = factories._allocate(self._shape, layout.contiguous_strides(self._shape),
                              self._dtype, META if meta else CPU)
    if not meta and out.numel():
        keep = np.tril if lower else np.triu
        out._elements()[...] = keep(self._elements(), diagonal)
    return out


def _triangle_(self: Tensor, diagonal: int, *, lower: bool, meta: bool) -> Tensor:
    """``tril_`` and ``triu_``: as torch's in-place kernel, only the elements outside the
    triangle are written (zeros), through ``self``'s strides; an expanded or overlapping
    ``self`` is taken, each location zeroed if any element reading it is."""
    _triangle(self, diagonal, lower=lower, meta=True)  # the checks
    if not meta and self.numel():
        rows, cols = self._shape[-2:]
        offsets = np.arange(cols)[None, :] - np.arange(rows)[:, None]
        zeroed = offsets > diagonal if lower else offsets < diagonal
        elements = self._elements()
        elements[..., zeroed] = 0
    self._version_counter.value += 1
    return self


def _exact_out_dtype(result: Tensor, out: Tensor) -> None:
    """A structured kernel's ``out=`` has exactly the result's dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{SCALAR_TYPE_NAMES[result._dtype.name]}, but got "
                           f"{SCALAR_TYPE_NAMES[out._dtype.name]} instead")


OUT_DTYPE_RULES.update(tril=_exact_out_dtype, triu=_exact_out_dtype,
                       diagonal_copy=_exact_out_dtype, diag=_exact_out_dtype)
for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    for _lower, _name in ((True, "tril"), (False, "triu")):
        aten[_name].default.impl(_key)(
            lambda self, diagonal, meta=_meta, lower=_lower: _triangle(
                self, diagonal, lower=lower, meta=meta))
        aten[_name + "_"].default.impl(_key)(
            lambda self, diagonal, meta=_meta, lower=_lower: _triangle_(
                self, diagonal, lower=lower, meta=meta))


# ------------------------------------------------------------------ cat
def _skipped(t: Tensor) -> bool:
    """torch's legacy rule: a 1-d empty tensor takes no part in ``cat``."""
    return t._shape == (0,)


class _Joined:
    """What ``cat`` of some tensors gives, before any value is copied: the result's shape,
    strides, dtype and device, the dim joined along, and the tensors that take part."""

    def __init__(self, tensors: Sequence[Tensor], dim: int, out: Tensor | None) -> None:
        """torch's checks, in torch's order (``cat``'s meta function).

        Raises:
            RuntimeError: a 0-d input; inputs on different devices; different numbers of
                dims or sizes that differ outside ``dim``.
            IndexError: ``dim`` out of range for the first tensor that is not skipped.
            ValueError: no tensors.
            TypeError: an ``out`` whose dtype the inputs' dtype cannot be cast to.
        """
        for k, x in enumerate(tensors):
            if x.dim() == 0:
                raise RuntimeError(
                    f"zero-dimensional tensor (at position {k}) cannot be concatenated")
        self.kept = [(k, x) for k, x in enumerate(tensors) if not _skipped(x)]
        if self.kept:  # ``dim`` is wrapped for the first tensor taking part
            dim = _wrap(dim, self.kept[0][1].dim())
        if not tensors:
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        self.dtype = tensors[0]._dtype
        for x in tensors[1:]:
            self.dtype = dtypes.promote_types(self.dtype, x._dtype)
        if out is not None:
            if not can_cast(self.dtype, out._dtype):
                raise TypeError("torch.cat(): input types can't be cast to the desired "
                                f"output type {SCALAR_TYPE_NAMES[out._dtype.name]}")
            self.dtype = out._dtype
        self.device: device = tensors[0].device  # every input must be on the first one's
        for x in tensors[1:]:
            if x.device != self.device:
                raise wrong_device(x.device, self.device)
        self.dim = dim
        if not self.kept:  # only skipped tensors: the result is empty, ``dim`` unchecked
            self.shape: tuple[int, ...] = (0,)
        else:
            self.shape = self._joined_shape()
        formats = {x._suggest_memory_format() for x in tensors}
        self.memory_format = (layout.channels_last if formats == {layout.channels_last}
                              else layout.contiguous_format)
        self.stride = (layout.channels_last_strides(self.shape)
                       if self.memory_format is layout.channels_last
                       else layout.contiguous_strides(self.shape))

    def _joined_shape(self) -> tuple[int, ...]:
        reference = self.kept[0][1]
        d = self.dim
        for k, x in self.kept:
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
        shape[d] = sum(x._shape[d] for _, x in self.kept)
        return tuple(shape)

    def empty(self) -> Tensor:
        """The result, allocated (zeros on the CPU, sizes only on meta)."""
        return factories._allocate(self.shape, self.stride, self.dtype, self.device)

    def write(self, out: Tensor) -> None:
        """Copy the inputs' values into ``out`` (of the result's shape), each converted to
        ``out``'s dtype."""
        values = out._elements()
        start = 0
        for _, x in self.kept:
            index = [slice(None)] * len(self.shape)
            index[self.dim] = slice(start, start + x._shape[self.dim])
            values[tuple(index)] = _casting.cast(x._elements(), out._dtype)
            start += x._shape[self.dim]

    def into(self, out: Tensor, tensors: Sequence[Tensor]) -> None:
        """``out=``: resized to the result's shape when it has another (laid out in the
        result's memory format), then checked for overlap with itself and every input."""
        if out.device != self.device:
            raise RuntimeError(f"Expected out tensor to have device {self.device}, but got "
                               f"{out.device} instead")
        if out._shape != self.shape:
            resize_output(out, self.shape, self.stride)
        if self.kept:
            assert_no_internal_overlap(out)
            for x in tensors:
                assert_no_overlap(out, x)


@aten.cat.default.impl(DispatchKey.CPU)
def cat(tensors: Sequence[Tensor], dim: int) -> Tensor:
    joined = _Joined(tensors, dim, None)
    out = joined.empty()
    joined.write(out)
    return out


@aten.cat.default.impl(DispatchKey.Meta)
def cat_meta(tensors: Sequence[Tensor], dim: int) -> Tensor:
    return _Joined(tensors, dim, None).empty()


@aten.cat.out.impl(DispatchKey.CPU)
def cat_out(tensors: Sequence[Tensor], dim: int, out: Tensor) -> Tensor:
    joined = _Joined(tensors, dim, out)
    joined.into(out, tensors)
    joined.write(out)
    out._version_counter.value += 1
    return out


@aten.cat.out.impl(DispatchKey.Meta)
def cat_out_meta(tensors: Sequence[Tensor], dim: int, out: Tensor) -> Tensor:
    _Joined(tensors, dim, out).into(out, tensors)
    out._version_counter.value += 1
    return out


# ------------------------------------------------------------------ stack
def _stack_dim(tensors: Sequence[Tensor], dim: int) -> int:
    """``dim`` wrapped for ``dim() + 1`` dims, after torch's checks.

    Raises:
        RuntimeError: no tensors, or tensors of different shapes.
        IndexError: ``dim`` out of range.
    """
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _wrap(dim, tensors[0].dim() + 1)
    for k, x in enumerate(tensors):
        if x._shape != tensors[0]._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(tensors[0]._shape)} at entry 0 and {list(x._shape)} at entry {k}")
    return d


def _stacked_shape(tensors: Sequence[Tensor], d: int) -> tuple[int, ...]:
    shape = list(tensors[0]._shape)
    shape.insert(d, len(tensors))
    return tuple(shape)


def _stack(tensors: Sequence[Tensor], dim: int, *, write: bool) -> Tensor:
    """torch joins along the existing dim ``d`` and splits that dim with a view, so the
    result takes cat's layout (the view happens inside the op: no ``_base``); at the end
    (``d == dim()``) it joins the inputs seen with one more dim."""
    d = _stack_dim(tensors, dim)
    at_end = d == tensors[0].dim()
    joined = _Joined([unsqueeze(x, d) for x in tensors] if at_end else tensors, d, None)
    out = joined.empty()
    if write:
        joined.write(out)
    if at_end:
        return out
    shape = _stacked_shape(tensors, d)
    stride = view_strides(out._shape, out._stride, shape)
    assert stride is not None  # splitting one dim is always possible
    return Tensor._make(out._storage, shape, stride, 0, out._dtype)


@aten.stack.default.impl(DispatchKey.CPU)
def stack(tensors: Sequence[Tensor], dim: int) -> Tensor:
    return _stack(tensors, dim, write=True)


@aten.stack.default.impl(DispatchKey.Meta)
def stack_meta(tensors: Sequence[Tensor], dim: int) -> Tensor:
    return _stack(tensors, dim, write=False)


def _stack_out(tensors: Sequence[Tensor], dim: int, out: Tensor, *, write: bool) -> Tensor:
    """torch's ``stack_out``: ``out`` resized to the stacked shape, then ``cat``'s ``out=``
    into a view of it with the joined dim (at the end, or where ``out``'s layout has no such
    view: into ``out`` itself, from the inputs seen with one more dim)."""
    d = _stack_dim(tensors, dim)
    if d == tensors[0].dim():
        target, parts = out, [unsqueeze(x, d) for x in tensors]
    else:
        shape = _stacked_shape(tensors, d)
        if out._shape != shape:
            resize_output(out, shape, layout.contiguous_strides(shape))
        joined_shape = list(tensors[0]._shape)
        joined_shape[d] *= len(tensors)
        stride = view_strides(out._shape, out._stride, joined_shape)
        if stride is None:  # an ``out`` laid out otherwise (permuted): cat of the inputs
            target, parts = out, [unsqueeze(x, d) for x in tensors]  # with one more dim
        else:
            target, parts = _view(out, joined_shape, stride, out._storage_offset), list(tensors)
    joined = _Joined(parts, d, target)
    joined.into(target, parts)
    if write:
        joined.write(target)
    out._version_counter.value += 1
    return out


@aten.stack.out.impl(DispatchKey.CPU)
def stack_out(tensors: Sequence[Tensor], dim: int, out: Tensor) -> Tensor:
    return _stack_out(tensors, dim, out, write=True)


@aten.stack.out.impl(DispatchKey.Meta)
def stack_out_meta(tensors: Sequence[Tensor], dim: int, out: Tensor) -> Tensor:
    return _stack_out(tensors, dim, out, write=False)
