"""Indexing along one dim (chapter 2): ``index_select``, ``index_add``, ``gather``,
``scatter``, ``scatter_add`` and ``masked_fill``.

Advanced indexing (``advanced_indexing.py``) picks elements with index tensors that are
broadcast together. These ops are its narrower relatives, each moving along one dim only:

* ``index_select(dim, index)`` keeps whole slices: slice ``index[i]`` of ``self`` along
  ``dim`` becomes slice ``i`` of the result (``t.index_select(0, idx)`` is ``t[idx]``);
  ``index_add(dim, index, source)`` is its reverse, adding slice ``i`` of ``source`` into
  slice ``index[i]`` of ``self``.
* ``gather(dim, index)`` picks one element per index element: ``out[i][j] =
  self[index[i][j]][j]`` for ``dim=0``; the index has ``self``'s number of dims and the
  result has the index's shape. ``scatter(dim, index, src)`` is its reverse, writing
  ``self[index[i][j]][j] = src[i][j]``; ``scatter_add`` adds instead.
* ``masked_fill(mask, value)`` writes one value wherever a bool mask (broadcast to
  ``self``) is True.

Where two index elements name the same destination, the order decides the result. torch's
CPU kernels walk the index along ``dim`` from first to last, so the last write wins
(``scatter``) and the additions happen in that order (``scatter_add``, ``index_add``);
reftensor does the same. float16 and bfloat16 ``scatter_add`` (and ``scatter`` with a
``reduce``) accumulate in float32 and round once, as torch's CPU kernel does. Every index
is checked before anything is written (torch checks while it writes, so an in-place call
that fails may have written part).
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _casting, dtypes, factories, iterator, layout, out_arguments, views
from . import _kernels as K
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .device import CPU, device
from .dtypes import dtype
from .masked import broadcast_sizes, checked_value
from .promotion import SCALAR_TYPE_NAMES
from .storage import no_data
from .tensor import Tensor, wrap_dim

__all__: list[str] = []  # the ops are the table's (reftensor.gather, Tensor.scatter_, ...)

_INDEX_DTYPES = (dtypes.int64, dtypes.int32)


# ----------------------------------------------------------------------- helpers
def _new(shape: tuple[int, ...], d: dtype, where: device,
         values: np.ndarray | None = None) -> Tensor:
    """A new contiguous tensor; ``values`` (of ``shape``) written into it on the CPU."""
    out = factories._allocate(shape, layout.contiguous_strides(shape), d, where)
    if values is not None and where == CPU:
        out._elements()[...] = values
    return out


def _one_dim(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A 0-d tensor seen as one element (torch's ``ensure_nonempty_dim``)."""
    return shape or (1,)


def _size(t: Tensor, d: int) -> int:
    return t._shape[d] if t._shape else 1


def _index_values(index: Tensor) -> np.ndarray:
    return index._elements().astype(np.int64)


def _device(self: Tensor, *others: Tensor) -> device:
    """The op's device: ``self``'s; an index or source elsewhere is refused (as torch's
    dispatcher does for a CPU tensor beside a meta one)."""
    for t in others:
        if t.device != self.device and t.dim() > 0:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at "
                               f"least two devices, {self.device} and {t.device}!")
    return self.device


def _meta_write(self: Tensor, meta: bool) -> None:
    """A CPU ``self`` cannot take a write computed on the meta device."""
    if meta and not self.is_meta:
        raise no_data()


def _check_writable(self: Tensor, *inputs: Tensor) -> None:
    """In place: ``self`` may not write one location twice, nor share memory with an
    input."""
    iterator.assert_no_internal_overlap(self)
    for t in inputs:
        iterator.assert_no_overlap(self, t)


# ----------------------------------------------------------------------- index_select
def _index_select_shape(self: Tensor, dim: int, index: Tensor) -> tuple[int, tuple[int, ...]]:
    """torch's checks of ``index_select``; the wrapped dim and the result's shape."""
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    n = index.numel()
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.dim() == 0 and n != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} "
                           "value(s)")
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if self.dim() == 0:
        return d, ()
    if self._shape[d] == 0 and n:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    return d, self._shape[:d] + (n,) + self._shape[d + 1:]


def _index_select(self: Tensor, dim: int, index: Tensor, *, meta: bool) -> Tensor:
    d, shape = _index_select_shape(self, dim, index)
    where = _device(self, index)
    if meta:
        return _new(shape, self._dtype, where)
    values = _index_values(index).reshape(-1)
    size = _size(self, d)
    bad = (values < 0) | (values >= size)
    if bad.any():
        if self.dim() > 1 and (d == 1 or self.numel() == 0):  # torch's dim-1 and empty paths
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={values[bad][0]} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    source = self._elements().reshape(_one_dim(self._shape))
    return _new(shape, self._dtype, where, np.take(source, values, axis=d).reshape(shape))


@aten.index_select.default.impl(DispatchKey.CPU)
def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``self`` along ``dim`` at ``index`` (``torch.index_select``): a new
    contiguous tensor, ``self``'s shape with ``dim``'s size ``index.numel()``.

    Raises:
        IndexError: an index of more than one dim, an index outside ``[0, size)`` (no
            negative indices), a dim out of range.
        RuntimeError: an index that is not int64 or int32; more or fewer than one index
            for a 0-d ``self``; an index into a dim of size 0; an index out of range along
            dim 1 of a tensor of 2 dims or more, or into an empty one of 2 dims or more
            (torch's kernels for those cases say so).
    """
    return _index_select(self, dim, index, meta=False)


@aten.index_select.default.impl(DispatchKey.Meta)
def index_select_meta(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return _index_select(self, dim, index, meta=True)


# ----------------------------------------------------------------------- gather
def _gather_checks(self: Tensor, dim: int, index: Tensor) -> int:
    """torch's ``gather`` meta function: the dtype and shape checks (none for an empty
    index). Returns the wrapped dim."""
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    if index.numel() == 0:
        return d
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if builtins.max(self.dim(), 1) != builtins.max(index.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for k in range(index.dim()):
        if k != d and index._shape[k] > _size(self, k):
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{list(index._shape)} to be no larger than self "
                               f"{list(self._shape)} apart from dimension {d}")
    return d


def _check_bounds(values: np.ndarray, d: int, size: int) -> None:
    """The scatter/gather kernels' bound check (RuntimeError; no negative indices)."""
    bad = (values < 0) | (values >= size)
    if bad.any():
        raise RuntimeError(f"index {values[bad].flat[0]} is out of bounds for dimension {d} "
                           f"with size {size}")


def _gather(self: Tensor, dim: int, index: Tensor, *, meta: bool) -> Tensor:
    d = _gather_checks(self, dim, index)
    where = _device(self, index)
    if meta or index.numel() == 0:
        return _new(index._shape, self._dtype, where,
                    None if meta else np.zeros(index._shape, self._dtype.numpy))
    values = _index_values(index).reshape(_one_dim(index._shape))
    _check_bounds(values, d, _size(self, d))
    source = self._elements().reshape(_one_dim(self._shape))
    window = tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(values.shape))
    picked = np.take_along_axis(source[window], values, axis=d)
    return _new(index._shape, self._dtype, where, picked.reshape(index._shape))


@aten.gather.default.impl(DispatchKey.CPU)
def gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = self[index[i][j]][j]`` for ``dim=0`` (``torch.gather``): a new contiguous
    tensor of the index's shape. The index has as many dims as ``self`` and, apart from
    ``dim``, no size larger than self's. ``sparse_grad`` only changes the gradient's
    layout in torch (reftensor has no sparse tensors: its gradient refuses it).

    Raises:
        RuntimeError: an index that is not int64 or int32, of another number of dims, too
            large apart from ``dim``, or outside ``[0, size)`` (no negative indices).
        IndexError: a dim out of range.
    """
    return _gather(self, dim, index, meta=False)


@aten.gather.default.impl(DispatchKey.Meta)
def gather_meta(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False
                ) -> Tensor:
    return _gather(self, dim, index, meta=True)


# ----------------------------------------------------------------------- scatter
def _scatter_checks(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> int:
    """torch's ``scatter_gather_dtype_check`` and ``scatter_shape_check``; the wrapped
    dim."""
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    empty = index.numel() == 0
    if not empty and index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src is not None and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if empty:
        return d
    if builtins.max(index.dim(), 1) != builtins.max(self.dim(), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self "
                           "tensor")
    ndim = builtins.max(self.dim(), 1)
    wrong = any(k != d and _size(index, k) > _size(self, k) for k in range(ndim))
    if not wrong and src is not None:  # (src.size(k) raises IndexError past src's dims)
        wrong = any(_size(index, k) > (_size(src, wrap_dim(k, src.dim())) if src.dim()
                                       else 1) for k in range(ndim))
    if wrong:
        message = (f"Expected index {list(index._shape)} to be no larger than self "
                   f"{list(self._shape)} apart from dimension {d}")
        if src is not None:
            message += f" and to be no larger size than src {list(src._shape)}"
        raise RuntimeError(message)
    return d


Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]


def scatter_along(target: np.ndarray, d: int, values: np.ndarray, source: np.ndarray | None,
                  fill: Any, combine: Combine | None) -> None:
    """torch's CPU scatter loop, in place on ``target`` (at least 1-d): for each position
    ``i`` along ``d`` of the index, in order, the destinations ``target[..., values[..., i,
    ...], ...]`` get ``source``'s elements at the index's position (or ``fill``),
    ``combine``d with what is there (None: replaced). One step never names a destination
    twice (its other coordinates differ), so each step is one vectorised write."""
    if source is not None:
        source = source[tuple(slice(0, n) for n in values.shape)]
    for i in range(values.shape[d]):
        step = np.take(values, i, axis=d)
        grid = list(np.indices(step.shape, sparse=True)) if step.ndim else []
        where = tuple(grid[:d] + [step] + grid[d:])
        new = fill if source is None else np.take(source, i, axis=d)
        target[where] = new if combine is None else combine(target[where], new)


_REDUCES = {"add": np.add, "multiply": np.multiply}


def _scatter(self: Tensor, dim: int, index: Tensor, src: Tensor | None, value: Any,
             reduce: str | None, *, into: Tensor | None, add: bool = False,
             meta: bool) -> Tensor:
    """``scatter`` (``src`` or ``value``, with ``reduce``) and ``scatter_add`` (``add``),
    into a new tensor or (``into is self``) in place."""
    d = _scatter_checks(self, dim, index, src)
    others = [index] if src is None else [index, src]
    where = _device(self, *others)
    if reduce is not None and reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is not None and reduce is not None:
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=4)
    fill = None
    if src is None:
        fill = checked_value(value.item() if isinstance(value, Tensor) else value,
                             self._dtype)
    if into is not None:
        _check_writable(into, *others)
        _meta_write(into, meta)
    out = into if into is not None else _new(self._shape, self._dtype, where)
    if meta:
        return out
    if into is None:
        out._elements()[...] = self._elements()
    if index.numel() == 0:
        return out
    values = _index_values(index).reshape(_one_dim(index._shape))
    _check_bounds(values, d, _size(self, d))
    work = compute_dtype(self._dtype) if add or reduce is not None else self._dtype
    target = cast(out._elements().reshape(_one_dim(out._shape)), work).copy()
    source = None if src is None else cast(src._elements().reshape(_one_dim(src._shape)), work)
    combine = np.add if add else None if reduce is None else _REDUCES[reduce]
    if self._dtype is dtypes.bool and combine is not None:  # C++'s bool arithmetic
        combine = np.logical_or if combine is np.add else np.logical_and
    with np.errstate(all="ignore"):
        scatter_along(target, d, values, source, fill, combine)
    out._elements()[...] = cast(target, self._dtype).reshape(out._shape)
    return out


def _register_scatter(overload: str, *, inplace: bool, add: bool = False) -> None:
    """The CPU and Meta kernels of one scatter overload (``src``, ``value``, ``reduce``,
    ``value_reduce``; or ``scatter_add``)."""
    packet = (aten.scatter_add_ if inplace else aten.scatter_add) if add else (
        aten.scatter_ if inplace else aten.scatter)
    op = getattr(packet, overload)

    def kernel(meta: bool) -> Callable[..., Tensor]:
        def run(self: Tensor, dim: int, index: Tensor, second: Any,
                reduce: str | None = None) -> Tensor:
            src = second if overload in ("src", "reduce", "default") else None
            out = _scatter(self, dim, index, src, None if src is not None else second,
                           reduce, into=self if inplace else None, add=add, meta=meta)
            if inplace:
                self._version_counter.value += 1
            return out
        return run

    op.impl(DispatchKey.CPU)(kernel(False))
    op.impl(DispatchKey.Meta)(kernel(True))


for _overload in ("src", "value", "reduce", "value_reduce"):
    _register_scatter(_overload, inplace=False)
    _register_scatter(_overload, inplace=True)
_register_scatter("default", inplace=False, add=True)
_register_scatter("default", inplace=True, add=True)


# ----------------------------------------------------------------------- index_add
def _index_add_checks(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """torch's ``index_add`` meta function; the wrapped dim."""
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    n = index.numel()
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {SCALAR_TYPE_NAMES[index._dtype.name]} "
                         f"and size: {list(index._shape)}")
    if index._dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{SCALAR_TYPE_NAMES[index._dtype.name]}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"index_add_(): self ({SCALAR_TYPE_NAMES[self._dtype.name]}) and "
                           f"source ({SCALAR_TYPE_NAMES[source._dtype.name]}) must have the "
                           "same scalar type")
    if not (d == 0 or d < source.dim()):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {source.dim()}")
    count = 1 if source.dim() == 0 else source._shape[d]
    if n != count:
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {d}")
    mismatch = self.dim() != source.dim() or any(
        a != b for k, (a, b) in enumerate(zip(self._shape, source._shape, strict=True))
        if k != d)
    if mismatch:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self._shape)} "
                           f"source.shape = {list(source._shape)}")
    return d


def _index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any, *,
               into: Tensor | None, meta: bool) -> Tensor:
    d = _index_add_checks(self, dim, index, source)
    where = _device(self, index, source)
    if meta:  # torch's meta function (a Python decomposition) checks alpha's Python type
        _check_alpha_type(alpha, self._dtype)
    scale = _casting.checked_number(alpha.item() if isinstance(alpha, Tensor) else alpha,
                                    self._dtype)
    if into is not None:
        _check_writable(into, index, source)
        _meta_write(into, meta)
    out = into if into is not None else _new(self._shape, self._dtype, where)
    if meta:
        return out
    if into is None:
        out._elements()[...] = self._elements()
    values = _index_values(index).reshape(-1)
    if self.dim() > 1 and (values.size == 0 or self.numel() == 0):
        return out
    size = _size(self, d)
    scatter_path = (self.dim() > 1 and d in (0, self.dim() - 1) and scale == 1
                    and index._dtype is dtypes.int64)
    if scatter_path:  # torch's shortcut: scatter_add_ with the index expanded
        _check_bounds(values, d, size)
    elif ((values < 0) | (values >= size)).any():
        raise IndexError("index out of range in self")
    target = out._elements().reshape(_one_dim(out._shape))
    added = source._elements().reshape(_one_dim(source._shape))
    if scatter_path:
        work = compute_dtype(self._dtype)
        shape = [1] * target.ndim
        shape[d] = values.size
        spread = np.broadcast_to(values.reshape(shape), added.shape)
        acc = cast(target, work).copy()
        with np.errstate(all="ignore"):
            scatter_along(acc, d, spread, cast(added, work), None, np.add)
        target[...] = cast(acc, self._dtype)
        return out
    with np.errstate(all="ignore"):
        for i, j in enumerate(values):  # torch's loop: one slice (or element) at a time
            now = np.take(target, j, axis=d)
            step = np.take(added, i, axis=d) if added.ndim else added
            if self._dtype is dtypes.bool:
                new = np.logical_or(now, np.logical_and(step, scale))
            elif scale == 1:
                new = now + step
            else:
                new = _scaled_add(now, step, scale, self._dtype, one_dim=self.dim() <= 1)
            index_at = tuple(j if k == d else slice(None) for k in range(target.ndim))
            target[index_at] = new
    return out


def _check_alpha_type(alpha: Any, d: dtype) -> None:
    """torch's meta function's check of ``alpha`` (its CPU kernel truncates instead):
    measured on torch 2.13, only a float ``alpha`` for an integer (not bool) tensor fails.

    Raises:
        RuntimeError: a float ``alpha`` for an integer tensor."""
    if type(alpha) is float and not d.is_floating_point and d is not dtypes.bool:
        raise RuntimeError(f"alpha argument of type {float} cannot be safely cast to type "
                           f"{int}!")


def _scaled_add(now: np.ndarray, step: np.ndarray, scale: np.ndarray, d: dtype, *,
                one_dim: bool) -> np.ndarray:
    """``now + step * scale``: the 1-d loop rounds the product to the dtype, then the sum
    (C++'s ``*p += s * alpha`` in the element type); the slice loop is ``add_``'s kernel
    (chapter 3's ``arithmetic._add_kernel``): float32 and float64 fuse the multiply-add,
    float16 and bfloat16 round ``alpha * b`` to 16 bits before adding in float32."""
    if one_dim or not d.is_floating_point:
        return now + step * scale
    work = compute_dtype(d)
    if work is d:
        return K.fused_multiply_add(np.broadcast_to(scale, step.shape), step, now)
    product = cast(cast(cast(step, work) * cast(scale, work), d), work)
    return cast(cast(now, work) + product, d)


@aten.index_add.default.impl(DispatchKey.CPU)
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor,
              alpha: Any = 1) -> Tensor:
    """``self`` with ``alpha * source``'s slice ``i`` along ``dim`` added into slice
    ``index[i]`` (``torch.index_add``): a new contiguous tensor; repeated indices add up, in
    the index's order.

    Raises:
        IndexError: an index of more than one dim, an index outside ``[0, size)`` (or
            RuntimeError where torch's kernel goes through ``scatter_add_``).
        RuntimeError: an index that is not int64 or int32, a source of another dtype or of
            a shape that does not match ``self`` apart from ``dim``, or whose size along
            ``dim`` is not the number of indices; an ``alpha`` the dtype cannot hold.
    """
    return _index_add(self, dim, index, source, alpha, into=None, meta=False)


@aten.index_add.default.impl(DispatchKey.Meta)
def index_add_meta(self: Tensor, dim: int, index: Tensor, source: Tensor,
                   alpha: Any = 1) -> Tensor:
    return _index_add(self, dim, index, source, alpha, into=None, meta=True)


@aten.index_add_.default.impl(DispatchKey.CPU)
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor,
               alpha: Any = 1) -> Tensor:
    """``index_add`` in place; bumps ``_version`` once."""
    _index_add(self, dim, index, source, alpha, into=self, meta=False)
    self._version_counter.value += 1
    return self


@aten.index_add_.default.impl(DispatchKey.Meta)
def index_add_meta_(self: Tensor, dim: int, index: Tensor, source: Tensor,
                    alpha: Any = 1) -> Tensor:
    _index_add(self, dim, index, source, alpha, into=self, meta=True)
    self._version_counter.value += 1
    return self



# ----------------------------------------------------------------------- take and put
def _flat_positions(self: Tensor, index: Tensor) -> np.ndarray:
    """``index``'s values as positions in ``self`` read in row-major order (negative ones
    from the end), checked as torch's ``take``/``put_`` kernels check them."""
    values = _index_values(index)
    n = self.numel()
    bad = (values < -n) | (values >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {values[bad].flat[0]} on a "
                         f"tensor of {n} elements.")
    return np.where(values < 0, values + n, values)


def _take(self: Tensor, index: Tensor, *, meta: bool) -> Tensor:
    if index._dtype is not dtypes.int64:
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{SCALAR_TYPE_NAMES[index._dtype.name]}")
    where = _device(self, index)
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if meta or index.numel() == 0:
        return _new(index._shape, self._dtype, where,
                    None if meta else np.zeros(index._shape, self._dtype.numpy))
    positions = _flat_positions(self, index)
    flat = self._elements().reshape(-1)
    return _new(index._shape, self._dtype, where, flat[positions])


@aten.take.default.impl(DispatchKey.CPU)
def take(self: Tensor, index: Tensor) -> Tensor:
    """``self``'s elements at ``index``, ``self`` read as 1-d in row-major order whatever
    its layout (``torch.take``): a new contiguous tensor of the index's shape.

    Raises:
        RuntimeError: an index that is not int64.
        IndexError: a value outside ``[-numel, numel)``; an index into an empty tensor.
    """
    return _take(self, index, meta=False)


@aten.take.default.impl(DispatchKey.Meta)
def take_meta(self: Tensor, index: Tensor) -> Tensor:
    return _take(self, index, meta=True)


def _put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool, *, meta: bool
         ) -> None:
    """``put_``'s checks and write (into ``self``, without the ``_version`` bump)."""
    if index._dtype is not dtypes.int64:
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{SCALAR_TYPE_NAMES[index._dtype.name]}")
    if self._dtype is not source._dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {SCALAR_TYPE_NAMES[self._dtype.name]} and "
                           f"source.dtype = {SCALAR_TYPE_NAMES[source._dtype.name]}")
    _device(self, index, source)
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_writable(self, index, source)
    _meta_write(self, meta)
    if meta or index.numel() == 0:
        return
    positions = _flat_positions(self, index).reshape(source._shape)
    # TensorIterator's order over source and the index (reshaped to source's shape)
    index_stride = views.view_strides(index._shape, index._stride, source._shape)
    operands = [(source._shape, source._stride),
                (source._shape, index_stride or layout.contiguous_strides(source._shape))]
    strides = iterator.output_strides(source._shape, operands)
    order = sorted(range(source.dim()), key=lambda k: -strides[k])
    where = positions.transpose(order).reshape(-1)
    written = source._elements().transpose(order).reshape(-1)
    flat = self._elements().reshape(-1).copy()
    with np.errstate(all="ignore"):
        if accumulate:
            if self._dtype is dtypes.bool:
                np.logical_or.at(flat, where, written)
            else:
                for p, v in zip(where.tolist(), written, strict=True):  # in order, rounded
                    flat[p] = flat[p] + v  # each time, as torch's serial loop
        else:  # the last write to each element wins
            targets, last = np.unique(where[::-1], return_index=True)
            flat[targets] = written[::-1][last]
    self._elements()[...] = flat.reshape(self._shape)


@aten.put_.default.impl(DispatchKey.CPU)
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``source``'s elements written at ``index`` into ``self`` read as 1-d in row-major
    order (``Tensor.put_``); with ``accumulate`` added, repeated indices adding up in
    TensorIterator's order over ``source``; else the last write wins. Bumps ``_version``.

    Raises:
        RuntimeError: an index that is not int64, a source of another dtype, ``self``
            overlapping itself, the index or the source.
        IndexError: a value outside ``[-numel, numel)``, a source whose number of elements
            is not the index's, an index into an empty tensor.
    """
    _put(self, index, source, accumulate, meta=False)
    self._version_counter.value += 1
    return self


@aten.put_.default.impl(DispatchKey.Meta)
def put_meta_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    _put(self, index, source, accumulate, meta=True)
    self._version_counter.value += 1
    return self


def _put_functional(self: Tensor, index: Tensor, source: Tensor, accumulate: bool, *,
                    meta: bool) -> Tensor:
    out = aten.clone.default.call(self, layout.preserve_format)
    _put(out, index, source, accumulate, meta=meta)
    return out


@aten.put.default.impl(DispatchKey.CPU)
def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``torch.put``: ``put_`` into a clone of ``self`` (its layout preserved)."""
    return _put_functional(self, index, source, accumulate, meta=False)


@aten.put.default.impl(DispatchKey.Meta)
def put_meta(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return _put_functional(self, index, source, accumulate, meta=True)


# ----------------------------------------------------------------------- take_along_dim
def _take_along_dim_operands(self: Tensor, indices: Tensor, dim: int | None
                             ) -> tuple[Tensor, int, Tensor]:
    """torch's ``take_along_dim`` decomposition up to its ``gather``: the input and the
    indices broadcast against each other apart from ``dim`` (``expand``), the indices
    taken modulo ``dim``'s size (negative ones count from the end); without ``dim``, both
    viewed as 1-d."""
    if dim is None:
        flat_self = aten.view.default.call(self, (-1,))
        return flat_self, 0, aten.view.default.call(indices, (-1,))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {self.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    if indices._dtype is not dtypes.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{SCALAR_TYPE_NAMES[indices._dtype.name]}")
    d = wrap_dim(dim, self.dim())
    wrapped = aten.remainder.Scalar.call(indices, self._shape[d])
    self_sizes = list(self._shape)
    self_sizes[d] = indices._shape[d]
    shape = broadcast_sizes(self_sizes, indices._shape)
    indices_b = aten.expand.default.call(wrapped, shape, False)
    index_sizes = list(indices._shape)
    index_sizes[d] = self._shape[d]
    shape = broadcast_sizes(index_sizes, self._shape)
    self_b = aten.expand.default.call(self, shape, False)
    return self_b, d, indices_b


@aten.take_along_dim.default.impl(DispatchKey.CompositeImplicitAutograd)
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` along ``dim`` after broadcasting (``torch.take_along_dim``, torch's
    decomposition: ``expand`` of both, ``gather``; ``GatherBackward0``). The indices are
    int64 with ``self``'s number of dims and are taken modulo ``dim``'s size (so -1 is the
    last); without ``dim`` both are flattened (``view(-1)``) and the indices are not
    wrapped.

    Raises:
        RuntimeError: indices of another dtype or number of dims, sizes that do not
            broadcast; without ``dim``, an input that cannot be viewed as 1-d or an index
            out of range.
        IndexError: a dim out of range.
    """
    self_b, d, indices_b = _take_along_dim_operands(self, indices, dim)
    return aten.gather.default.call(self_b, d, indices_b, False)


def take_along_dim_out(self: Tensor, indices: Tensor, dim: int | None, out: Tensor) -> Tensor:
    """torch's ``take_along_dim_out``: the same decomposition into ``gather(..., out=out)``."""
    self_b, d, indices_b = _take_along_dim_operands(self, indices, dim)
    return aten.gather.out.call(self_b, d, indices_b, False, out)


aten.take_along_dim.out.impl(DispatchKey.CPU)(take_along_dim_out)
aten.take_along_dim.out.impl(DispatchKey.Meta)(take_along_dim_out)


# ----------------------------------------------------------------------- index_fill
def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any, *, meta: bool) -> None:
    """torch's ``index_fill_`` (no ``_version`` bump): ``value`` written into the slices
    ``index`` along ``dim``; negative indices count from the end."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        value = value.item() if not value.is_meta else 0
    if index._dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    iterator.assert_no_overlap(self, index)
    if iterator.has_internal_overlap(self) == "yes":
        warnings.warn("Use of index_fill_ on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      "indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=4)
    if isinstance(value, complex):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is "
                           "not supported")
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    _device(self, index)
    _meta_write(self, meta)
    if meta:
        return
    fill = _casting.checked_number(value, self._dtype)
    size = _size(self, d)
    values = _index_values(index).reshape(-1)
    bad = (values < -size) | (values >= size)
    if bad.any():
        raise IndexError(f"index {values[bad][0]} is out of bounds for dimension {d} with "
                         f"size {size}")
    target = self._elements().reshape(_one_dim(self._shape))
    for j in np.where(values < 0, values + size, values).tolist():
        target[tuple(j if k == d else slice(None) for k in range(target.ndim))] = fill


def _register_index_fill() -> None:
    for overload in ("int_Scalar", "int_Tensor"):
        for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
            def inplace(self: Tensor, dim: int, index: Tensor, value: Any,
                        meta: bool = meta) -> Tensor:
                _index_fill_(self, dim, index, value, meta=meta)
                self._version_counter.value += 1
                return self

            def functional(self: Tensor, dim: int, index: Tensor, value: Any,
                           meta: bool = meta) -> Tensor:
                out = aten.clone.default.call(self, layout.preserve_format)
                _index_fill_(out, dim, index, value, meta=meta)
                return out

            getattr(aten.index_fill_, overload).impl(key)(inplace)
            getattr(aten.index_fill, overload).impl(key)(functional)


_register_index_fill()


# ----------------------------------------------------------------------- index_copy
def _index_copy_checks(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """torch's ``index_copy`` meta function; the wrapped dim."""
    d = wrap_dim(dim, builtins.max(self.dim(), 1))
    if index.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if source.dim() != self.dim() and source.dim() != 0 and self.dim() != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.dim()}), "
                         f"destination dimensionality ({self.dim()})")
    if index._dtype is not dtypes.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{SCALAR_TYPE_NAMES[index._dtype.name]}")
    if self._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {SCALAR_TYPE_NAMES[self._dtype.name]} and (source) "
                           f"{SCALAR_TYPE_NAMES[source._dtype.name]}")
    _device(self, index, source)
    sliced = [s for k, s in enumerate(self._shape) if k != d]
    source_sliced = [s for k, s in enumerate(source._shape) if k != d]
    if sliced != source_sliced:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {sliced} at dimension {d} and "
                           f"source slice shape: {source_sliced} at dimension 0.")
    if source.dim() != 0 and n != source._shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source._shape[d]})")
    return d


def _index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor, *,
                into: Tensor | None, meta: bool) -> Tensor:
    d = _index_copy_checks(self, dim, index, source)
    if into is not None:
        _check_writable(into, index, source)
        _meta_write(into, meta)
    out = into if into is not None else _new(self._shape, self._dtype, self.device)
    if meta:
        return out
    if into is None:
        out._elements()[...] = self._elements()
    size = _size(self, d)
    values = _index_values(index).reshape(-1)
    bad = (values < 0) | (values >= size)
    if bad.any():
        raise IndexError(f"index_copy_(): index {values[bad][0]} is out of bounds for "
                         f"dimension {d} with size {size}")
    target = out._elements().reshape(_one_dim(out._shape))
    copied = source._elements().reshape(_one_dim(source._shape))
    for i, j in enumerate(values.tolist()):  # the last copy into a slice wins
        at = tuple(j if k == d else slice(None) for k in range(target.ndim))
        target[at] = np.take(copied, i, axis=d)
    return out


@aten.index_copy.default.impl(DispatchKey.CPU)
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``self`` with ``source``'s slice ``i`` along ``dim`` copied into slice ``index[i]``
    (``torch.index_copy``): a new contiguous tensor; a repeated index keeps the last copy.

    Raises:
        IndexError: an index of 2 dims or more, a value outside ``[0, size)``, a number of
            indices that is not ``source.size(dim)``, dims that do not match.
        RuntimeError: an index that is not int64, a source of another dtype or slice shape.
    """
    return _index_copy(self, dim, index, source, into=None, meta=False)


@aten.index_copy.default.impl(DispatchKey.Meta)
def index_copy_meta(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return _index_copy(self, dim, index, source, into=None, meta=True)


@aten.index_copy_.default.impl(DispatchKey.CPU)
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``index_copy`` in place; bumps ``_version`` once."""
    _index_copy(self, dim, index, source, into=self, meta=False)
    self._version_counter.value += 1
    return self


@aten.index_copy_.default.impl(DispatchKey.Meta)
def index_copy_meta_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    _index_copy(self, dim, index, source, into=self, meta=True)
    self._version_counter.value += 1
    return self


# ----------------------------------------------------------------------- scatter_reduce
#: scatter_reduce's reductions (torch also takes "max" and "min" for "amax" and "amin")
_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
               "max": "amax", "min": "amin"}


def _reduce_init(reduce: str, d: dtype) -> Any:
    """What ``include_self=False`` first writes at the destinations: the reduction's
    identity (for amax the lowest value: -inf for floats)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if d is dtypes.bool:
        return reduce == "amin"
    if d.is_floating_point:
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(d.numpy)
    return info.min if reduce == "amax" else info.max


def _scatter_reduce(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                    include_self: bool, *, into: Tensor | None, meta: bool) -> Tensor:
    d = _scatter_checks(self, dim, index, src)
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if meta and reduce in ("max", "min"):  # torch's meta function takes only the five
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin.")
    op = _REDUCTIONS[reduce]
    where = _device(self, index, src)
    if into is not None:
        _check_writable(into, index, src)
        _meta_write(into, meta)
    out = into if into is not None else _new(self._shape, self._dtype, where)
    if meta:
        return out
    if into is None:
        out._elements()[...] = self._elements()
    if op == "mean" and self._dtype is dtypes.bool:  # (torch: its kernel, or with an empty
        # index the floor division by the counts that follows it)
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for '
                                  "'Bool'")
    if index.numel() == 0:
        return out
    values = _index_values(index).reshape(_one_dim(index._shape))
    _check_bounds(values, d, _size(self, d))
    work = compute_dtype(self._dtype)
    target = cast(out._elements().reshape(_one_dim(out._shape)), work).copy()
    source = cast(src._elements().reshape(_one_dim(src._shape)), work)
    if not include_self:
        scatter_along(target, d, values, None, cast(np.asarray(_reduce_init(op, self._dtype)),
                                                    work), None)
    boolean = self._dtype is dtypes.bool
    combine: Combine = {
        "sum": np.logical_or if boolean else np.add, "mean": np.add,
        "prod": np.logical_and if boolean else np.multiply,
        "amax": np.maximum, "amin": np.minimum}[op]
    with np.errstate(all="ignore"):
        scatter_along(target, d, values, source, None, combine)
        result = cast(target, self._dtype)
        if op == "mean":  # torch's count: 1 for self (if included) and 1 per index
            count = np.full(target.shape, 1 if include_self else 0, np.int64)
            scatter_along(count, d, values, np.ones(values.shape, np.int64), None, np.add)
            count[count == 0] = 1
            if self._dtype.is_floating_point:
                result = cast(cast(result, work) / count.astype(work.numpy), self._dtype)
            else:
                result = np.floor_divide(result, count.astype(result.dtype))
    out._elements()[...] = result.reshape(out._shape)
    return out


for _inplace in (False, True):
    for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
        def _kernel(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                    include_self: bool = True, meta: bool = _meta,
                    inplace: bool = _inplace) -> Tensor:
            out = _scatter_reduce(self, dim, index, src, reduce, include_self,
                                  into=self if inplace else None, meta=meta)
            if inplace:
                self._version_counter.value += 1
            return out

        (aten.scatter_reduce_ if _inplace else aten.scatter_reduce).two.impl(_key)(_kernel)


def _out_apart(full: tuple[int, ...], partial: tuple[int, ...] = ()) -> Callable[..., Any]:
    """The checks torch makes before it writes the ``out=`` of ``index_select``, ``take``
    and ``gather``: ``out`` may not write one location twice, nor share any memory with the
    inputs at ``full``, nor part of its memory with those at ``partial`` (RuntimeError:
    "unsupported operation: some elements of the input tensor and the written-to tensor refer
    to a single memory location")."""
    def prepare(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
        iterator.assert_no_internal_overlap(outs[0])
        for i in full:
            iterator.assert_no_overlap(outs[0], inputs[i])
        for i in partial:
            iterator.assert_no_partial_overlap(outs[0], inputs[i])
        return inputs
    return prepare


out_arguments.set_rule(aten.index_select.out, out_arguments.OutRule(prepare=_out_apart((0, 2))))
def _take_laid_as_index(self: Tensor, index: Tensor) -> Tensor:
    """``take``'s result as ``take.out`` lays it: torch's CPU kernel writes through a
    ``TensorIterator`` over ``out`` and the index, so an ``out`` it resizes takes the index's
    order of dims (``iterator.output_strides``), where ``take`` returns a contiguous tensor
    (so does the meta kernel's resize)."""
    result = aten.take.default.call(self, index)
    if result.device.type == "meta":
        return result
    stride = iterator.output_strides(index._shape, [(index._shape, index._stride)])
    if stride == result._stride:
        return result
    laid = aten.empty_strided.default.call(result._shape, stride, result._dtype, None,
                                           result.device, None)
    return laid.copy_(result)


out_arguments.set_rule(aten.take.out, out_arguments.OutRule(
    prepare=_out_apart((0, 1)), compute=_take_laid_as_index))
out_arguments.set_rule(aten.gather.out, out_arguments.OutRule(prepare=_out_apart((0,), (2,))))
