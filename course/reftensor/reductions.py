"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``all``/``any``, ``var``/``std``, with torch's rules.

Every reduction here follows the same four steps:

1. **Which dims.** ``dim`` is ``None`` (every dim), an int, or a tuple of ints (the argument
   parser has checked the types); negative dims count from the end, a repeated dim raises
   RuntimeError, a dim out of range raises IndexError. A 0-d tensor accepts dim 0 and -1
   (it is reduced as if it had one dim of size 1). An *empty* tuple means every dim too,
   except for ``all``/``any``, where it means no dim at all (an elementwise ``!= 0``).
2. **Which result dtype.** ``sum``/``prod`` turn bool and integers into int64; ``mean``,
   ``var`` and ``std`` need floating input; ``all``/``any`` give bool (uint8 input gives
   uint8); ``argmax``/``argmin`` and ``max(dim)``'s indices give int64. ``dtype=`` converts
   the input to that dtype *before* reducing (so ``sum(dtype=int8)`` wraps).
3. **The values**, computed by NumPy over ``input._elements()`` (only by the CPU kernel: the
   Meta kernel stops after steps 1-2 and gives the result's shape and dtype, and no data).
   In the student edition, ``sum``, ``mean``, ``prod``, ``amax``/``amin``, ``max()``/``min()``
   and ``all``/``any`` of an input with fewer than ``LOOP_NUMEL`` elements run the student's
   ``reduce_loop`` instead (chapter 3): it walks the output's index space and, for each
   output element, the reduced dims of the input through its strides and offset, folding
   the op's step (NumPy on one element: the same dtypes, wrap-around and rounding);
   ``argmax``/``argmin`` and ``max(dim)``/``min(dim)`` of such an input run the student's
   ``arg_reduce_loop`` (chapter 4): the same walk along one dim, keeping the first winner
   and its index. ``tests/test_ch04_reductions.py`` proves the two paths agree.
   float16 and bfloat16 are accumulated in float32 and rounded once at the end, as torch
   does. torch adds floats with a cascade (blocked pairwise) summation and NumPy with its
   own pairwise one, so float sums and means may differ in the last bits: the tests allow
   a few ulps.
4. **The output layout.** The result is always a fresh contiguous tensor, whatever the
   input's layout: torch's reductions allocate their output with no strides to copy
   (``set_output_raw_strided(..., strides={})``), so a permuted or channels-last input
   still gives a row-major result, with or without ``keepdim``.

Every op here is an entry of the op table (``reftensor/_ops/native_functions.py``), which
gives its overloads, Python bindings and ``out=`` forms; this module registers the CPU and
Meta kernels of each overload (a body called with ``meta=False`` or ``meta=True``), and the
derivative rows are in ``autograd/derivatives.py``.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import _casting, dtypes, layout, out_arguments, pieces
from ._ops import DispatchKey, OpOverload, aten
from .device import CPU
from .dtypes import dtype
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES, check_can_cast
from .storage import UntypedStorage
from .tensor import Tensor, wrap_dim

__all__: list[str] = []  # the ops are reftensor's generated bindings (reftensor.sum, ...)

Dims = int | Sequence[int] | None


class ValuesAndIndices(NamedTuple):
    """The values of a max-like reduction along a dim, and their int64 indices."""

    values: Tensor
    indices: Tensor


def _return_type(name: str) -> type[ValuesAndIndices]:
    """``max(input, dim)``'s result class (``torch.return_types.max``; ``max_out`` for a
    call with ``out=``): the named tuple, named and shown as torch's."""
    def __repr__(self: ValuesAndIndices) -> str:
        return (f"reftensor.return_types.{name}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")

    return type(name, (ValuesAndIndices,), {"__slots__": (), "__repr__": __repr__,
                                            "__module__": "reftensor.return_types"})


MaxResult = _return_type("max")
MinResult = _return_type("min")


# ---------------------------------------------------------------------------- helpers
def _reduced_dims(input: Tensor, dim: Dims, name: str, *, empty_means_all: bool = True,
                  nonempty: bool = False) -> tuple[int, ...]:
    """The dims to reduce, wrapped to ``0 <= d < ndim`` and sorted.

    Checks in torch's order: every dim's range, then (``nonempty``, for amax/amin/max/min)
    that there is something to pick from, then repeats. var/std instead look for repeats
    while wrapping, so ``(0, 0, 5)`` is an IndexError for ``sum`` but a RuntimeError for
    ``var``.

    Raises:
        IndexError: a dim is out of range; with ``nonempty``, a reduced dim of size 0.
        RuntimeError: a dim appears twice; with ``nonempty``, an empty input and no dim.
    """
    ndim = input.dim()
    given = (dim,) if isinstance(dim, int) else dim
    wrapped: list[int] = []
    for d in given or ():
        w = wrap_dim(d, builtins.max(ndim, 1))  # a 0-d tensor takes dim 0 and -1
        if w in wrapped and name in ("var", "std"):
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    if nonempty:
        _check_nonempty(input, wrapped, name)
    for w in wrapped:
        if wrapped.count(w) > 1:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
    if given is None or (not given and empty_means_all):
        return tuple(range(ndim))
    return tuple(sorted(d for d in wrapped if d < ndim))


def _out_shape(shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool
               ) -> tuple[int, ...]:
    """``shape`` with the reduced dims set to 1 (keepdim) or removed."""
    if keepdim:
        return tuple(1 if d in dims else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in dims)


def _fresh(shape: tuple[int, ...], out_dtype: dtype, where: str) -> Tensor:
    """A new contiguous tensor of ``shape`` on ``where`` (step 4's layout)."""
    storage = UntypedStorage(math.prod(shape) * out_dtype.itemsize, device=where)
    return Tensor._make(storage, shape, layout.contiguous_strides(shape), 0, out_dtype)


def _meta(shape: tuple[int, ...], out_dtype: dtype) -> Tensor:
    """The Meta kernels' result: the layout, no data."""
    return _fresh(shape, out_dtype, "meta")


def _new(values: np.ndarray, shape: tuple[int, ...], out_dtype: dtype) -> Tensor:
    """A fresh contiguous tensor of ``shape`` holding ``values`` (already of ``out_dtype``)."""
    out = _fresh(shape, out_dtype, "cpu")
    out._elements()[...] = np.asarray(values).reshape(shape)
    return out


def _comparable(values: np.ndarray) -> np.ndarray:
    """16-bit floats widened (exactly) to float32, so NumPy compares them with IEEE rules."""
    if values.dtype in (dtypes.float16.numpy, dtypes.bfloat16.numpy):
        return values.astype(np.float32)
    return values


def _check_nonempty(input: Tensor, wrapped: list[int], name: str) -> None:
    """torch refuses max-like reductions with nothing to pick from.

    Raises:
        RuntimeError: no dim was given and ``input`` is empty (IndexError for ``arg*``).
        IndexError: a dim to reduce has size 0 (the first one, in the order given).
    """
    if input.numel() != 0:
        return
    if not wrapped:
        message = f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
        if name.startswith("arg"):
            raise IndexError(message)  # argmax/argmin raise IndexError here, max RuntimeError
        raise RuntimeError(f"{message} Specify the reduction dim with the 'dim' argument.")
    for d in wrapped:
        if input._shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _register(overload: OpOverload, body: Callable[..., Any]) -> None:
    """``overload``'s CPU and Meta kernels: ``body(*arguments, meta=...)``."""
    overload.impl(DispatchKey.CPU)(lambda *args: body(*args, meta=False))
    overload.impl(DispatchKey.Meta)(lambda *args: body(*args, meta=True))


# ------------------------------------------------------------------------- the loop
#: One operand of ``reduce_loop``: (storage, shape, stride, offset), all plain data
Strided = tuple[Sequence[Any], Sequence[int], Sequence[int], int]


def reduce_loop(step: Callable[[Any, Any], Any], start: Any, out: Strided, input: Strided,
                dims: Sequence[int], keepdim: bool) -> None:
    """The loop of torch's CPU reductions (a ``TensorIterator`` built for a reduction, which
    ``sum``, ``mean``, ``prod``, ``amax``, ``amin``, ``max()``, ``min()``, ``all`` and ``any``
    run): ``out`` receives, at every index of its shape, the input's elements reduced into
    that index, combined by ``step``. Returns None; the result is in ``out``'s storage.

    Args:
        step: ``step(acc, x)``: the value reduced so far after one more element ``x``.
        start: the value reduced from no elements (the op's identity: 0 for a sum).
        out: ``(storage, shape, stride, offset)`` of the result; ``storage`` is a flat
            mutable sequence written in place, and no two indices of ``shape`` share a
            location. Its shape is the input's with the reduced dims removed, or, with
            ``keepdim``, kept as size 1.
        input: ``(storage, shape, stride, offset)`` of the tensor to reduce; ``storage`` a
            flat sequence. Strides may be 0 (an expanded input) or step over elements.
        dims: the dims of ``input`` to reduce: distinct, increasing, ``0 <= d < ndim``;
            ``()`` for a 0-d input.
        keepdim: does ``out``'s shape keep the reduced dims (as size 1)?

    The value at an index of ``out`` is
    ``step(...step(step(start, x_0), x_1)..., x_last)`` over the elements ``x`` of
    ``torch.as_strided(storage, shape, stride, offset)`` whose index matches it on the
    dims that are not reduced, visited in row-major order of the reduced dims (the last one
    fastest); ``start`` where there are none (a reduced dim of size 0). It goes where
    ``out``'s layout puts that index; locations that no index reaches are left as they
    are. torch: ``torch.sum(input, dims, keepdim, out=...)`` is this with ``step``
    adding.

    Raises:
        Whatever ``step`` raises; nothing of its own.
    """
    # BEGIN PIECE reduce_loop
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("reduce_loop")(step, start, out, input, dims, keepdim)
    # END PIECE


#: Inputs with fewer elements than this are reduced by ``reduce_loop`` when ``LOOP`` is set.
LOOP_NUMEL = 64
#: Does the library run ``reduce_loop`` on small inputs? Yes in the student edition (where
#: the piece runs the student's answer, or a published chapter's body); no in the
#: reference, whose NumPy reductions are faster. Asked once, here.
LOOP = pieces.stubbed(reduce_loop)


def _by_loop(input: Tensor) -> bool:
    """Does this reduction of ``input`` run ``reduce_loop``?"""
    return LOOP and input._storage._device is CPU and math.prod(input._shape) < LOOP_NUMEL


def _by_arg_loop(input: Tensor) -> bool:
    """Does this index reduction of ``input`` run ``arg_reduce_loop``?"""
    return ARG_LOOP and input._storage._device is CPU and math.prod(input._shape) < LOOP_NUMEL


def _looped(input: Tensor, dims: tuple[int, ...], keepdim: bool, step: Callable[[Any, Any], Any],
            start: Any, work: np.dtype[Any]) -> np.ndarray:
    """The reduction's values by ``reduce_loop``: an array of the result's shape in ``work``
    (``step`` sees the input's raw elements, as NumPy scalars of its dtype).

    The elements reduced into one output are visited in TensorIterator's order: the loop
    is handed the input with its dims permuted (kept dims first, then the reduced ones,
    outermost first by the input's strides, ``layout.innermost_first``), and the output
    with the same permutation of its row-major strides, so that the loop's row-major walk
    is torch's walk through memory. A float sum of at most 4 elements per output is then
    torch's to the bit (the order of longer ones also follows torch's vectorised partial
    sums, which a fold one element at a time does not reproduce)."""
    shape, stride = input._shape, input._stride
    out_shape = _out_shape(shape, dims, keepdim)
    out_stride = layout.contiguous_strides(out_shape)
    memory = layout.innermost_first(shape, [stride])[::-1]  # outermost first
    order = [d for d in range(len(shape)) if d not in dims] + [d for d in memory if d in dims]
    if keepdim:
        out_layout = (tuple(out_shape[d] for d in order), tuple(out_stride[d] for d in order))
    else:
        out_layout = (out_shape, out_stride)  # the kept dims keep their order
    storage: list[Any] = [start] * math.prod(out_shape)
    source = input._storage._typed(input._dtype.numpy)
    with np.errstate(all="ignore"):  # integers wrap, floats overflow, as NumPy's path
        reduce_loop(step, start, (storage, *out_layout, 0),
                    (source, tuple(shape[d] for d in order), tuple(stride[d] for d in order),
                     input._storage_offset),
                    tuple(range(len(shape) - len(dims), len(shape))), keepdim)
    return np.array(storage, dtype=work).reshape(out_shape)


def _converter(input: Tensor, to: dtype, work: np.dtype[Any]) -> Callable[[Any], Any]:
    """One raw element of ``input`` as ``_casting.cast`` converts it to ``to``, then in
    ``work`` (float16 and bfloat16 are summed in float32)."""
    if input._dtype is to and to.numpy == work:
        return lambda x: x
    return lambda x: _casting.cast(np.asarray(x), to).astype(work)[()]


# ----------------------------------------------------------------------- sum, mean, prod
#: Sums of at least this many float32/float64 elements go through BLAS (``_blas_total``).
_BLAS_SUM_MIN = 2**16
#: ... in rows of this many elements, each multiplied by a ones vector (made once, read-only).
_BLAS_SUM_ROW = 1024
_BLAS_SUM_ONES = {d.numpy: np.ones(_BLAS_SUM_ROW, d.numpy)
                  for d in (dtypes.float32, dtypes.float64)}
for _ones in _BLAS_SUM_ONES.values():
    _ones.flags.writeable = False


def _blas_total_ok(input: Tensor, dims: tuple[int, ...], out_dtype: dtype) -> bool:
    """Does ``sum`` take the BLAS path: a plain CPU tensor, float32 or float64 summed in its
    own dtype over every dim, many elements, laid out densely (in any dim order)?"""
    return (type(input) is Tensor and input._dtype is out_dtype
            and out_dtype in (dtypes.float32, dtypes.float64)
            and len(dims) == len(input._shape) and math.prod(input._shape) >= _BLAS_SUM_MIN
            and layout.is_non_overlapping_and_dense(input._shape, input._stride))


def _blas_total(values: np.ndarray) -> np.ndarray:
    """The sum of every element of a dense float32/float64 array, about three times faster
    than ``np.sum``: NumPy's pairwise summation is not vectorised well, while a BLAS
    matrix-vector product with a ones vector is. The elements, in memory order, are cut
    into rows of ``_BLAS_SUM_ROW``; BLAS sums each row (``rows @ ones``), then NumPy adds
    the row sums and the leftover tail pairwise. Like torch's cascade sum, no partial sum
    grows long, so the rounding error stays of the order of torch's (where the sum cancels,
    the result can be more than a few ulps away from torch's, as ``np.sum``'s can)."""
    flat = values.ravel(order="K")  # a view: the array is dense
    rows = flat.shape[0] // _BLAS_SUM_ROW
    head = flat[:rows * _BLAS_SUM_ROW].reshape(rows, _BLAS_SUM_ROW)
    row_sums = head @ _BLAS_SUM_ONES[flat.dtype]
    return np.add.reduce(row_sums) + np.add.reduce(flat[rows * _BLAS_SUM_ROW:])


def _sum(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None, *, meta: bool
         ) -> Tensor:
    """Sum over ``dim``. Bool and integer input give int64 unless ``dtype=``; ``dtype=``
    converts the input first. The sum of no elements is 0."""
    dims = _reduced_dims(input, dim, "sum")
    out_dtype = dtype or (input._dtype if input._dtype.is_floating_point else dtypes.int64)
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, out_dtype)
    if _by_loop(input):
        return _new(_casting.cast(_loop_sum(input, dims, keepdim, out_dtype), out_dtype),
                    shape, out_dtype)
    values = _casting.cast(input._elements(), out_dtype)
    if out_dtype is dtypes.bool:
        result = np.any(values, axis=dims)  # adding bools is "or"
    elif _blas_total_ok(input, dims, out_dtype):
        result = _blas_total(values)
    else:
        work = _casting.compute_dtype(out_dtype).numpy  # float32 for float16/bfloat16
        result = _casting.cast(np.sum(values, axis=dims, dtype=work), out_dtype)
    return _new(result, shape, out_dtype)


def _loop_sum(input: Tensor, dims: tuple[int, ...], keepdim: bool, out_dtype: dtype
              ) -> np.ndarray:
    """``sum``'s values by ``reduce_loop``, in ``compute_dtype(out_dtype)`` (bools: "or")."""
    if out_dtype is dtypes.bool:
        truth = _converter(input, dtypes.bool, np.dtype(np.bool_))
        return _looped(input, dims, keepdim, lambda acc, x: acc | truth(x), np.False_,
                       np.dtype(np.bool_))
    work = _casting.compute_dtype(out_dtype).numpy
    read = _converter(input, out_dtype, work)
    return _looped(input, dims, keepdim, lambda acc, x: acc + read(x), work.type(0), work)


def _mean(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None, *, meta: bool
          ) -> Tensor:
    """The sum divided by the count, in the input's dtype (or ``dtype=``). The mean of no
    elements is nan.

    Raises:
        RuntimeError: the input is not floating and no ``dtype=`` is given, or ``dtype=``
            is not floating.
    """
    if dtype is None and not input._dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{SCALAR_TYPE_NAMES[input._dtype.name]}")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{SCALAR_TYPE_NAMES[dtype.name]}")
    dims = _reduced_dims(input, dim, "mean")
    out_dtype = dtype or input._dtype
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, out_dtype)
    work = _casting.compute_dtype(out_dtype).numpy
    count = math.prod(input._shape[d] for d in dims)
    if _by_loop(input):
        total = _loop_sum(input, dims, keepdim, out_dtype)
    else:
        total = np.sum(_casting.cast(input._elements(), out_dtype), axis=dims, dtype=work)
    with np.errstate(all="ignore"):  # 0 / 0 is nan for an empty reduction
        result = total / work.type(count)
    return _new(_casting.cast(result.astype(work), out_dtype), shape, out_dtype)


def _prod(input: Tensor, dim: int | None, keepdim: bool, dtype: dtype | None, *, meta: bool
          ) -> Tensor:
    """Product over one dim, or over every element. Bool and integers give int64 unless
    ``dtype=``. The product of no elements is 1.

    Floats are multiplied one after another in their own dtype, rounding at each step (torch
    does this even for float16, unlike ``sum``). The order matters (in float16,
    ``2 * 181 * 181 * 0`` is nan but ``2 * 0 * 181 * 181`` is 0), so a full product visits
    the elements in TensorIterator's order, innermost dim (smallest stride) first; torch's
    vectorised loops may still group long contiguous runs differently, so float products
    are compared to a few ulps.
    """
    dims = _reduced_dims(input, dim, "prod")
    out_dtype = dtype or (input._dtype if input._dtype.is_floating_point else dtypes.int64)
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, out_dtype)
    if _by_loop(input):
        read = _converter(input, out_dtype, out_dtype.numpy)
        if out_dtype is dtypes.bool:  # multiplying bools is "and"
            looped = _looped(input, dims, keepdim, lambda acc, x: acc & read(x), np.True_,
                             out_dtype.numpy)
        else:  # one rounding per step, in out_dtype, in memory order
            looped = _looped(input, dims, keepdim, lambda acc, x: acc * read(x),
                             out_dtype.numpy.type(1), out_dtype.numpy)
        return _new(looped, shape, out_dtype)
    values = _casting.cast(input._elements(), out_dtype)
    if out_dtype is dtypes.bool:
        result = np.all(values, axis=dims)  # multiplying bools is "and"
    else:
        if dim is None:  # one long product, in the order torch's iterator walks memory
            order = layout.innermost_first(input._shape, [input._stride])
            values = np.transpose(values, order[::-1]).reshape(-1)
            dims = tuple(range(input.dim()))
        axis = 0 if dim is None else builtins.max(dims, default=None)
        result = _product(values, axis, out_dtype)
    return _new(np.asarray(result, dtype=out_dtype.numpy), shape, out_dtype)


def _product(values: np.ndarray, axis: int | None, out_dtype: dtype) -> np.ndarray:
    """The product along ``axis`` (None: a 0-d input, nothing to reduce). Integers wrap, so
    their order does not matter; floats are multiplied one element at a time, rounding to
    ``out_dtype`` after each step (NumPy's own float16 reduce keeps a float32 accumulator)."""
    if axis is None:
        return values
    if not out_dtype.is_floating_point:
        return np.multiply.reduce(values, axis=axis, dtype=out_dtype.numpy)
    result = np.ones(np.delete(values.shape, axis), dtype=out_dtype.numpy)
    with np.errstate(all="ignore"):
        for k in range(values.shape[axis]):
            result = np.multiply(result, np.take(values, k, axis=axis), dtype=out_dtype.numpy)
    return result


_register(aten.sum.default, lambda self, dtype, *, meta: _sum(self, None, False, dtype,
                                                              meta=meta))
_register(aten.sum.dim_IntList, _sum)
_register(aten.mean.default, lambda self, dtype, *, meta: _mean(self, None, False, dtype,
                                                                meta=meta))
_register(aten.mean.dim, _mean)
_register(aten.prod.default, lambda self, dtype, *, meta: _prod(self, None, False, dtype,
                                                                meta=meta))
_register(aten.prod.dim_int, _prod)


# ---------------------------------------------------------------- amax, amin, max, min
def _extreme(input: Tensor, dim: Dims, keepdim: bool, name: str, *, meta: bool) -> Tensor:
    """The largest (``name`` has "max") or smallest value over ``dim``; nan wins.

    Signed zeros are not reproduced: torch's vectorised kernels may pick either of ``-0.0``
    and ``0.0`` (``amax([-0.0, 0.0])`` is ``-0.0`` in torch, ``max()`` of it ``0.0``).

    Raises:
        RuntimeError: ``input`` is empty and no dim is given.
        IndexError: a reduced dim has size 0, or a dim is out of range.
    """
    dims = _reduced_dims(input, dim, name, nonempty=True)
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, input._dtype)
    if _by_loop(input):
        result = _loop_extreme(input, dims, keepdim, "max" in name)
        return _new(result.astype(input._dtype.numpy), shape, input._dtype)
    pick = np.max if "max" in name else np.min  # NumPy's max/min propagate nan, as torch's
    result = pick(_comparable(input._elements()), axis=dims)
    return _new(np.asarray(result).astype(input._dtype.numpy), shape, input._dtype)


def _loop_extreme(input: Tensor, dims: tuple[int, ...], keepdim: bool, largest: bool
                  ) -> np.ndarray:
    """amax/amin's values by ``reduce_loop``: NumPy's ``maximum``/``minimum`` of one element
    at a time (nan wins), 16-bit floats compared as float32; the start is the dtype's
    identity (-inf, an integer type's smallest value, False, ...)."""
    d = input._dtype
    work = np.dtype(np.float32) if d.numpy in (dtypes.float16.numpy, dtypes.bfloat16.numpy) \
        else d.numpy
    if d is dtypes.bool:
        start: Any = np.bool_(not largest)
    elif d.is_floating_point:
        start = work.type(-math.inf if largest else math.inf)
    else:
        info = np.iinfo(work)
        start = work.type(info.min if largest else info.max)
    pick = np.maximum if largest else np.minimum
    if work == d.numpy:
        return _looped(input, dims, keepdim, pick, start, work)
    return _looped(input, dims, keepdim, lambda acc, x: pick(acc, work.type(x)), start, work)


def arg_reduce_loop(beats: Callable[[Any, Any], bool], values: Strided | None,
                    indices: Strided, input: Strided, dim: int, keepdim: bool) -> None:
    """The loop of torch's index reductions (``argmax``, ``argmin``, ``max(input, dim)`` and
    ``min(input, dim)`` on the CPU): at every index of the outputs' shape, the element of
    ``input`` along ``dim`` that wins, and its index along ``dim``. Returns None; the
    results are in the outputs' storages.

    Args:
        beats: ``beats(x, best)``: does element ``x`` take the place of ``best``, the
            winner so far? (For ``argmax``: ``x`` is larger, or ``x`` is NaN and ``best`` is
            not.)
        values: ``(storage, shape, stride, offset)`` receiving the winning elements, or None
            (``argmax`` gives only indices); ``storage`` a flat mutable sequence written in
            place, no two indices of ``shape`` on one location.
        indices: the same, receiving the winners' indices along ``dim`` (ints).
        input: ``(storage, shape, stride, offset)`` of the tensor to reduce; ``storage`` a
            flat sequence; any strides, 0 included.
        dim: the dim to reduce, ``0 <= dim < ndim``; it has size > 0 (torch refuses an
            empty one before the loop runs).
        keepdim: do the outputs keep ``dim`` as size 1? (Their shape is the input's without
            ``dim`` otherwise; both outputs have that shape, each with its own strides and
            offset.)

    Along ``dim``, the element at index 0 is the first winner; each later element replaces
    the winner when ``beats(x, winner)`` is true, so that of equal elements the first one
    wins, as torch documents. Locations that no index of the outputs reaches are left as
    they are; an output with no elements gets nothing. torch:
    ``torch.max(input, dim, keepdim, out=(values, indices))``.

    Raises:
        Whatever ``beats`` raises; nothing of its own.
    """
    # BEGIN PIECE arg_reduce_loop
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("arg_reduce_loop")(beats, values, indices, input, dim, keepdim)
    # END PIECE


def _arg_by_loop(input: Strided, kind: np.dtype[Any], d: int, keepdim: bool, largest: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Values and int64 indices along ``d`` of ``input`` (plain data holding elements of
    NumPy dtype ``kind``) by ``arg_reduce_loop``, as arrays of the result's shape: 16-bit
    floats compared as float32, NaN beating everything else, the first of equal elements
    winning."""
    shape = _out_shape(tuple(input[1]), (d,), keepdim)
    stride = layout.contiguous_strides(shape)
    count = math.prod(shape)
    picked: list[Any] = [None] * count
    where: list[int] = [0] * count
    wide = kind in (dtypes.float16.numpy, dtypes.bfloat16.numpy)

    def beats(x: Any, best: Any) -> bool:
        if wide:
            x, best = np.float32(x), np.float32(best)
        if best != best:  # a NaN has won: nothing takes its place
            return False
        return bool(x != x or (x > best if largest else x < best))

    arg_reduce_loop(beats, (picked, shape, stride, 0), (where, shape, stride, 0), input, d,
                    keepdim)
    return (np.array(picked, dtype=kind).reshape(shape),
            np.array(where, dtype=np.int64).reshape(shape))


#: Does the library run ``arg_reduce_loop`` on small inputs? (As ``LOOP``.)
ARG_LOOP = pieces.stubbed(arg_reduce_loop)


def _arg_extreme(input: Tensor, dim: int, keepdim: bool, name: str, *, meta: bool
                 ) -> tuple[Tensor, Tensor]:
    """Values and int64 indices of the extreme along one dim: the first occurrence on ties,
    and the first nan when there is one (nan counts as larger *and* smaller than all)."""
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    _check_nonempty(input, [d], name)
    shape = _out_shape(input._shape, (d,) if input.dim() else (), keepdim)
    if meta:
        return _meta(shape, input._dtype), _meta(shape, dtypes.int64)
    values = input._elements()
    if input.dim() == 0:  # a 0-d tensor is its own extreme, at index 0
        index = np.zeros((), np.int64)
        return _new(values.copy(), (), input._dtype), _new(index, (), dtypes.int64)
    if _by_arg_loop(input):
        picked, where = _arg_by_loop(
            (input._storage._typed(input._dtype.numpy), input._shape, input._stride,
             input._storage_offset), input._dtype.numpy, d, keepdim, "max" in name)
        return _new(picked, shape, input._dtype), _new(where, shape, dtypes.int64)
    find = np.argmax if "max" in name else np.argmin  # both pick the first occurrence
    index = np.expand_dims(find(_comparable(values), axis=d), d)
    picked = np.take_along_axis(values, index, axis=d)
    return _new(picked, shape, input._dtype), _new(index.astype(np.int64), shape, dtypes.int64)


def _argmax_or_argmin(input: Tensor, dim: int | None, keepdim: bool, name: str, *,
                      meta: bool) -> Tensor:
    """The index of the extreme, int64: along ``dim``, or into the flattened (row-major)
    tensor.

    Raises:
        RuntimeError: bool input.
        IndexError: empty input with no dim, a reduced dim of size 0, a dim out of range.
    """
    if input._dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
        return _arg_extreme(input, dim, keepdim, name, meta=meta)[1]
    _check_nonempty(input, [], name)
    shape = (1,) * input.dim() if keepdim else ()
    if meta:
        return _meta(shape, dtypes.int64)
    if _by_arg_loop(input) and input.dim() > 0:  # the flattened tensor, row-major
        flat = np.reshape(input._elements(), -1)
        where = _arg_by_loop((flat, flat.shape, (1,), 0), input._dtype.numpy, 0, False,
                             name == "argmax")[1]
        return _new(where.reshape(()), shape, dtypes.int64)
    flat = np.reshape(_comparable(input._elements()), -1)  # row-major order of the indices
    find = np.argmax if name == "argmax" else np.argmin
    return _new(np.asarray(find(flat), np.int64), shape, dtypes.int64)


for _name, _result in (("max", MaxResult), ("min", MinResult)):
    _register(getattr(aten, _name).default,
              lambda self, *, meta, n=_name: _extreme(self, None, False, n, meta=meta))
    _register(getattr(aten, _name).dim,
              lambda self, dim, keepdim, *, meta, n=_name, r=_result:
              r(*_arg_extreme(self, dim, keepdim, n, meta=meta)))
    # ``max(input, other)`` is ``maximum`` (torch's max.other calls it; it records
    # MaximumBackward0)
    getattr(aten, _name).other.impl(DispatchKey.CompositeImplicitAutograd)(
        getattr(aten, _name + "imum").default.call)
    _register(getattr(aten, "a" + _name).default,
              lambda self, dim, keepdim, *, meta, n="a" + _name:
              _extreme(self, dim, keepdim, n, meta=meta))
    _register(getattr(aten, "arg" + _name).default,
              lambda self, dim, keepdim, *, meta, n="arg" + _name:
              _argmax_or_argmin(self, dim, keepdim, n, meta=meta))


# ----------------------------------------------------------------------------- all, any
def _logical(input: Tensor, dim: Dims, keepdim: bool, name: str, *, meta: bool) -> Tensor:
    """True where every (``all``) or some (``any``) element over ``dim`` is nonzero; True
    (``all``) or False (``any``) for no elements. The result is bool, except uint8 input
    gives uint8 (0 or 1). ``dim=()`` reduces no dim (an elementwise ``!= 0``)."""
    dims = _reduced_dims(input, dim, name, empty_means_all=False)
    out_dtype = dtypes.uint8 if input._dtype is dtypes.uint8 else dtypes.bool  # torch's quirk
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, out_dtype)
    if _by_loop(input):
        truth = _converter(input, dtypes.bool, np.dtype(np.bool_))
        if name == "all":
            result = _looped(input, dims, keepdim, lambda acc, x: acc & truth(x), np.True_,
                             np.dtype(np.bool_))
        else:
            result = _looped(input, dims, keepdim, lambda acc, x: acc | truth(x), np.False_,
                             np.dtype(np.bool_))
        return _new(result.astype(out_dtype.numpy), shape, out_dtype)
    nonzero = _casting.cast(input._elements(), dtypes.bool)
    result = (np.all if name == "all" else np.any)(nonzero, axis=dims)
    return _new(np.asarray(result).astype(out_dtype.numpy), shape, out_dtype)


for _name in ("all", "any"):
    _register(getattr(aten, _name).default,
              lambda self, *, meta, n=_name: _logical(self, None, False, n, meta=meta))
    _register(getattr(aten, _name).dims,
              lambda self, dim, keepdim, *, meta, n=_name: _logical(self, dim, keepdim, n,
                                                                    meta=meta))
    _register(getattr(aten, _name).dim,
              lambda self, dim, keepdim, *, meta, n=_name: _logical(self, dim, keepdim, n,
                                                                    meta=meta))


# ----------------------------------------------------------------------------- var, std
def _var(input: Tensor, dim: Dims, correction: float | None, keepdim: bool, name: str, *,
         meta: bool) -> Tensor:
    """``sum((x - mean)**2) / max(0, N - correction)`` (``correction`` None: 1), its square
    root for ``std``. N - correction <= 0 gives nan (0/0) or inf, with a warning. Computed
    in float64 (torch's CPU kernel accumulates in double), rounded once to the input's
    dtype.

    Raises:
        RuntimeError: integer or bool input.
    """
    correction = 1.0 if correction is None else float(correction)
    if not input._dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _reduced_dims(input, dim, name)
    count = math.prod(input._shape[d] for d in dims)
    divisor = builtins.max(0.0, count - correction)  # degrees of freedom, never negative
    if divisor == 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, input._dtype)
    x = input._elements().astype(np.float64)  # torch's CPU kernel accumulates in double
    with np.errstate(all="ignore"):  # 0/0 is nan and m2/0 is inf, as in torch
        centred = x - np.sum(x, axis=dims, keepdims=True) / count  # two passes: mean first
        result = np.sum(centred * centred, axis=dims) / divisor
        if count == 0:
            result = result * np.nan  # torch: no elements, no mean, nan whatever the divisor
        if name == "std":
            result = np.sqrt(result)
    return _new(_casting.cast(np.asarray(result), input._dtype), shape, input._dtype)


def _register_corrected(name: str, kernel: Callable[..., Tensor]) -> None:
    """``name.correction``'s kernels (``kernel(self, dim, correction, keepdim, name, *,
    meta)``), and its ``unbiased`` overloads: ``unbiased`` is ``correction=1`` or ``0``, and
    torch's ``var.dim`` and ``var`` run ``var.correction`` (CompositeImplicitAutograd
    kernels), so they record ``VarBackward0`` too (``std``, ``var_mean``, ``std_mean`` as
    ``var``)."""
    correction = getattr(aten, name).correction
    _register(correction, lambda self, dim, c, keepdim, *, meta:
              kernel(self, dim, c, keepdim, name, meta=meta))
    getattr(aten, name).dim.impl(DispatchKey.CompositeImplicitAutograd)(
        lambda self, dim, unbiased, keepdim: correction.call(self, dim, 1 if unbiased else 0,
                                                             keepdim))
    getattr(aten, name).default.impl(DispatchKey.CompositeImplicitAutograd)(
        lambda self, unbiased: correction.call(self, None, 1 if unbiased else 0, False))


for _name in ("var", "std"):
    _register_corrected(_name, _var)


# ------------------------------------------------------------------------------ out=
# torch's reductions check ``out=`` otherwise than "can the result be cast to it".
def _dtype_from_out(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """sum, prod, mean: without ``dtype=``, the op runs in ``out``'s dtype; with it,
    ``out`` must have exactly that dtype."""
    if inputs[-1] is not None and inputs[-1] is not outs[0]._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {C_TYPE_NAMES[inputs[-1].name]}, "
                           f"but got {C_TYPE_NAMES[outs[0]._dtype.name]} instead")
    return [*inputs[:-1], inputs[-1] or outs[0]._dtype]


def _mean_from_out(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """mean: as :func:`_dtype_from_out`, once the input's dtype can be cast to out's; an
    integer input without ``dtype=`` is refused whatever ``out`` is (torch's message)."""
    if inputs[-1] is None:
        if not inputs[0]._dtype.is_floating_point:
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{SCALAR_TYPE_NAMES[inputs[0]._dtype.name]}")
        check_can_cast(inputs[0]._dtype, outs[0]._dtype)
    return _dtype_from_out(inputs, outs)


def _same_dtype(input: Tensor, result: Tensor, out: Tensor) -> None:
    """amax, amin: ``out`` of exactly the input's dtype."""
    if out._dtype is not input._dtype:
        raise RuntimeError(
            "Expected the dtype for input and out to match, but got "
            f"{SCALAR_TYPE_NAMES[input._dtype.name]} for input's dtype and "
            f"{SCALAR_TYPE_NAMES[out._dtype.name]} for out's dtype.")


def _exact_dtype(input: Tensor, result: Tensor, out: Tensor) -> None:
    """argmax, argmin, max(dim), min(dim): ``out`` of exactly the result's dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{C_TYPE_NAMES[result._dtype.name]}, but got "
                           f"{C_TYPE_NAMES[out._dtype.name]} instead")


def _bool_or_uint8(name: str) -> Callable[[list[Any], list[Tensor]], list[Any]]:
    """all, any: a bool or uint8 ``out``, checked before anything else, the dims too (torch's
    ``check_allany_for_meta`` runs first: ``all(t, dim=5, out=float_out)`` names the dtype);
    a uint8 ``out`` reduces the input cast to uint8."""
    def prepare(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
        if outs[0]._dtype not in (dtypes.bool, dtypes.uint8):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: "
                               f"{SCALAR_TYPE_NAMES[outs[0]._dtype.name]}")
        if outs[0]._dtype is dtypes.uint8 and inputs[0]._dtype is not dtypes.uint8:
            # torch reduces in ``out``'s dtype: the input is cast to uint8 first, so
            # ``any(tensor([0.25]), out=uint8_out)`` is 0
            inputs = [inputs[0].to(dtypes.uint8), *inputs[1:]]
        return inputs

    return prepare


def _checked_before(input: Tensor, result: Tensor, out: Tensor) -> None:
    """``out``'s dtype was checked before the op ran (``prepare``)."""


def _castable_from_input(input: Tensor, result: Tensor, out: Tensor) -> None:
    """max(), min(): the input's dtype must cast to out's."""
    check_can_cast(input._dtype, out._dtype)


def _extreme_into_out(name: str) -> Callable[[Tensor], Tensor]:
    """max(), min() with ``out=``: an empty input gives the reduction's identity (-inf for
    max, the dtype's largest value for min, ...) where ``max(empty)`` raises: torch's
    ``max.unary_out`` reduces without the check."""
    overload = getattr(aten, name).default

    def compute(input: Tensor) -> Tensor:
        if input.numel() != 0:
            return overload.call(input)
        d = input._dtype
        if input.is_meta:
            return _meta((), d)
        if d is dtypes.bool:
            identity: Any = name == "min"
        elif d.is_floating_point:
            identity = -math.inf if name == "max" else math.inf
        else:
            info = np.iinfo(d.numpy)
            identity = info.min if name == "max" else info.max
        return _new(np.asarray(identity, dtype=d.numpy), (), d)

    return compute


def _var_into_out(name: str) -> Callable[[list[Any], list[Tensor]], list[Any]]:
    """var, std: a float16/bfloat16 input with elements, reduced over every dim into an
    ``out`` of another dtype, is refused (torch's ``std_var_all`` kernel has no 16-bit
    path of its own)."""

    def prepare(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
        input, dim = inputs[0], inputs[1]
        every = dim is None or len(_reduced_dims(input, dim, name)) == input.dim()
        if (every and input.numel() and input._dtype in (dtypes.float16, dtypes.bfloat16)
                and outs[0]._dtype is not input._dtype):
            raise RuntimeError("std_var_all: Unsupported dtype "
                               f"{SCALAR_TYPE_NAMES[input._dtype.name]}")
        return inputs

    return prepare


_OUT_RULES = {
    aten.var.correction_out: out_arguments.OutRule(prepare=_var_into_out("var")),
    aten.std.correction_out: out_arguments.OutRule(prepare=_var_into_out("std")),
    aten.var.out: out_arguments.OutRule(prepare=_var_into_out("var")),
    aten.std.out: out_arguments.OutRule(prepare=_var_into_out("std")),
    aten.sum.IntList_out: out_arguments.OutRule(prepare=_dtype_from_out),
    aten.prod.int_out: out_arguments.OutRule(prepare=_dtype_from_out),
    aten.mean.out: out_arguments.OutRule(prepare=_mean_from_out),
    aten.mean.dtype_out: out_arguments.OutRule(prepare=_mean_from_out),
    aten.max.unary_out: out_arguments.OutRule(compute=_extreme_into_out("max"),
                                              check=_castable_from_input),
    aten.min.unary_out: out_arguments.OutRule(compute=_extreme_into_out("min"),
                                              check=_castable_from_input),
    aten.max.dim_max: out_arguments.OutRule(check=_exact_dtype,
                                            returns=_return_type("max_out")),
    aten.min.dim_min: out_arguments.OutRule(check=_exact_dtype,
                                            returns=_return_type("min_out")),
    aten.amax.out: out_arguments.OutRule(check=_same_dtype),
    aten.amin.out: out_arguments.OutRule(check=_same_dtype),
    aten.argmax.out: out_arguments.OutRule(check=_exact_dtype),
    aten.argmin.out: out_arguments.OutRule(check=_exact_dtype),
    **{getattr(aten[name], overload): out_arguments.OutRule(prepare=_bool_or_uint8(name),
                                                            check=_checked_before)
       for name in ("all", "any") for overload in ("all_out", "dims_out", "out")},
}
for _overload, _rule in _OUT_RULES.items():
    out_arguments.set_rule(_overload, _rule)


# ---------------------------------------------------------------------------- logsumexp
def _logsumexp(input: Tensor, dim: Sequence[int], keepdim: bool) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, as torch's composite kernel (``logsumexp`` ->
    ``logsumexp_out_impl``) computes it, with the table's ops: the maximum (``amax`` with
    keepdim) taken off first so that ``exp`` does not overflow, set to 0 where it is
    infinite (``exp(inf - inf)`` would be nan); ``sum(exp(x - m)).log_().add_(m)``. An
    empty input has no maximum: ``sum(exp(x)).log_()``. Bool and integer inputs are
    converted to the default dtype first. The Meta kernel runs the same ops on meta
    tensors.

    Raises:
        RuntimeError: a dim listed twice; ``dim=()`` of an input of one dim or more (the
            sum reduces every dim while the kept maximum is not squeezed: torch's shape
            mismatch in ``add_``).
        IndexError: a dim out of range.
    """
    if not input._dtype.is_floating_point:
        input = input.to(dtypes.get_default_dtype())
    if input.numel() == 0:
        return _unversioned(aten.sum.dim_IntList.call(input.exp(), dim, keepdim, None).log_())
    maxes = aten.amax.default.call(input, dim, True)
    squeezed = maxes
    if not keepdim:  # torch's squeeze_multiple: a view of maxes, so the fill reaches both
        ndim = builtins.max(input.dim(), 1)
        for d in sorted({wrap_dim(d, ndim) for d in dim}, reverse=True):
            if d < maxes.dim():
                squeezed = squeezed.squeeze(d)
    squeezed.masked_fill_(squeezed.abs() == math.inf, 0)
    result = aten.sum.dim_IntList.call((input - maxes).exp_(), dim, keepdim, None)
    return _unversioned(result.log_().add_(squeezed))


def _unversioned(result: Tensor) -> Tensor:
    """A fresh result written in place inside the kernel: torch's composite runs below the
    layer that counts versions, so its result has ``_version`` 0."""
    result._version_counter.value = 0
    return result


def _logsumexp_out(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """logsumexp's ``out=`` must be floating (torch checks it first). (torch then sums in
    ``out``'s dtype; reftensor computes in the input's and converts.)"""
    if not outs[0]._dtype.is_floating_point:
        raise RuntimeError("logsumexp(): Expected floating point type for result tensor, but "
                           f"got: {SCALAR_TYPE_NAMES[outs[0]._dtype.name]}")
    return inputs


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.logsumexp.default.impl(_key)(_logsumexp)
out_arguments.set_rule(aten.logsumexp.out, out_arguments.OutRule(prepare=_logsumexp_out))


# ------------------------------------------------------------- var_mean, std_mean
def _var_mean(input: Tensor, dim: Dims, correction: float | None, keepdim: bool, name: str,
              *, meta: bool) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` (``name`` ``var_mean``) or ``(std, mean)`` (``std_mean``): the
    variance as ``var``'s kernel computes it, the mean in float64 too, each rounded once to
    the input's dtype; no elements: nan for both.

    Raises:
        RuntimeError: integer or bool input.
    """
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spread = _var(input, dim, correction, keepdim, name.partition("_")[0], meta=meta)
    if caught:  # the degrees-of-freedom warning, named as torch names it
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
    dims = _reduced_dims(input, dim, "var")
    if meta:
        return spread, _meta(spread._shape, input._dtype)
    count = math.prod(input._shape[d] for d in dims)
    x = input._elements().astype(np.float64)
    with np.errstate(all="ignore"):
        if 0 < count <= WELFORD_MAX and x.size:
            mean = _welford_mean(x, dims, input._stride)
        else:
            mean = np.sum(x, axis=dims) / count
    return spread, _new(_casting.cast(np.asarray(mean), input._dtype), spread._shape,
                        input._dtype)


#: var_mean's mean follows torch's Welford loop (in float64, one element at a time) for up
#: to this many elements per result, NumPy's sum / count above (a few ulps apart)
WELFORD_MAX = 4096


def _welford_mean(x: np.ndarray, dims: tuple[int, ...], stride: tuple[int, ...]
                  ) -> np.ndarray:
    """torch's ``WelfordOps`` mean over ``dims``: ``mean += (x - mean) / n`` for each
    element, in the order torch's iterator walks them (the smallest stride first)."""
    order = sorted(dims, key=lambda d: (stride[d], -d), reverse=True)  # outermost first
    kept = [d for d in range(x.ndim) if d not in dims]
    lines = np.transpose(x, kept + order).reshape(
        [x.shape[d] for d in kept] + [-1]) if x.ndim else x.reshape(1)
    mean = np.zeros(lines.shape[:-1])
    for n in range(lines.shape[-1]):
        mean = mean + (lines[..., n] - mean) / (n + 1)
    return mean


for _name in ("var_mean", "std_mean"):
    _register_corrected(_name, _var_mean)  # (VarMeanBackward0, StdMeanBackward0)


# ------------------------------------------------------------------- nansum, nanmean
def _nansum(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None, *, meta: bool
            ) -> Tensor:
    """``sum`` with nan counted as 0: an integer or bool input is ``sum``; a float one has
    its nans set to 0, is converted to ``dtype`` (an integer dtype truncates each
    element; a float16 infinity becomes +-65504 first, as in torch's kernel, where
    float32's and bfloat16's convert as any cast does), then summed as ``sum`` sums."""
    if not input._dtype.is_floating_point:
        result = _sum(input, dim, keepdim, dtype, meta=meta)
        if meta:
            return _meta(_nansum_meta_shape(input, dim, result._shape), result._dtype)
        return result
    dims = _reduced_dims(input, dim, "nansum")
    out_dtype = dtype or input._dtype
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(_nansum_meta_shape(input, dim, shape), out_dtype)
    x = input._elements()
    x = np.where(np.isnan(x), np.zeros((), x.dtype), x)
    if input._dtype is dtypes.float16 and not out_dtype.is_floating_point:
        x = np.clip(x, -65504, 65504)  # (torch's kernel turns a float16 inf into +-65504)
    values = _casting.cast(x, out_dtype)
    if out_dtype is dtypes.bool:
        result = np.any(values, axis=dims)
    else:
        work = _casting.compute_dtype(out_dtype).numpy
        with np.errstate(all="ignore"):
            result = _casting.cast(np.asarray(np.sum(values, axis=dims, dtype=work)),
                                   out_dtype)
    return _new(result, shape, out_dtype)


def _nansum_meta_shape(input: Tensor, dim: Dims, shape: tuple[int, ...]) -> tuple[int, ...]:
    """torch's meta function for nansum reads ``dim=()`` as no dim at all (its CPU kernel:
    every dim): the input's shape."""
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        return input._shape
    return shape


def _nansum_out(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """nansum's ``out=``: an integer input as ``sum``'s; a float one sums in ``out``'s
    dtype, which must be ``dtype=`` when given, and floating."""
    if not inputs[0]._dtype.is_floating_point:
        return _dtype_from_out(inputs, outs)
    given, into = inputs[-1], outs[0]._dtype
    if given is not None and given is not into:
        raise RuntimeError("nansum: provided dtype must match dtype of result. Got "
                           f"{SCALAR_TYPE_NAMES[given.name]} and "
                           f"{SCALAR_TYPE_NAMES[into.name]}.")
    # (torch's kernel picks its loop by dtype only when there is something to sum: an
    # empty input fills ``out`` with 0 in any dtype)
    if given is None and not into.is_floating_point and inputs[0].numel():
        raise NotImplementedError(
            f"\"nansum_cpu\" not implemented for '{SCALAR_TYPE_NAMES[into.name]}'")
    return [*inputs[:-1], into]


def _nanmean(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None) -> Tensor:
    """torch's composite: ``nansum(input, dim, keepdim, dtype=dtype) / (count of
    non-nan)``.

    Raises:
        RuntimeError: an integer or bool input.
    """
    count = _nanmean_count(input, dim, keepdim, dtype)
    return aten.nansum.default.call(input, dim, keepdim, dtype).div(count)


def _nanmean_count(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None) -> Tensor:
    """nanmean's checks, then how many elements over ``dim`` are not nan.

    Raises:
        RuntimeError: an integer or bool input, or ``dtype=``.
    """
    if not input._dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex "
                           f"dtype but got {SCALAR_TYPE_NAMES[input._dtype.name]}")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be "
                           "either a floating point or complex dtype. Got: "
                           f"{SCALAR_TYPE_NAMES[dtype.name]}")
    return aten.sum.dim_IntList.call(input.isnan().logical_not_(), dim, keepdim, None)


def _nanmean_out(input: Tensor, dim: Dims, keepdim: bool, dtype: dtype | None, out: Tensor
                 ) -> Tensor:
    """torch's ``nanmean_out``: ``nansum`` into ``out``, then ``out.div_(count)`` (two
    writes: ``out._version`` goes up by 2)."""
    count = _nanmean_count(input, dim, keepdim, dtype)
    return aten.nansum.out.call(input, dim, keepdim, dtype, out).div_(count)


_register(aten.nansum.default, _nansum)
aten.nanmean.default.impl(DispatchKey.CompositeImplicitAutograd)(_nanmean)
aten.nanmean.out.impl(DispatchKey.CompositeImplicitAutograd)(_nanmean_out)
out_arguments.set_rule(aten.nansum.out, out_arguments.OutRule(prepare=_nansum_out))


# ------------------------------------------------------------- count_nonzero, aminmax
def _count_nonzero(input: Tensor, dim: Sequence[int], *, meta: bool) -> Tensor:
    """How many elements over ``dim`` (``()``: every dim) are not 0, int64."""
    dims = _reduced_dims(input, tuple(dim), "count_nonzero")
    shape = _out_shape(input._shape, dims, False)
    if meta:
        return _meta(shape, dtypes.int64)
    nonzero = _casting.cast(input._elements(), dtypes.bool)
    return _new(np.asarray(np.sum(nonzero, axis=dims, dtype=np.int64)), shape, dtypes.int64)


_register(aten.count_nonzero.dim_IntList, _count_nonzero)
# torch's count_nonzero(dim=None) is count_nonzero.dim_IntList of () or of (dim,)
for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.count_nonzero.default.impl(_key)(
        lambda self, dim: aten.count_nonzero.dim_IntList.call(
            self, () if dim is None else (dim,)))

class _MinMax(NamedTuple):
    """``aminmax``'s result (``torch.return_types.aminmax``)."""

    min: Tensor
    max: Tensor


def _min_max_type(name: str) -> type[_MinMax]:
    def __repr__(self: _MinMax) -> str:
        return f"reftensor.return_types.{name}(\nmin={self.min!r},\nmax={self.max!r})"

    return type(name, (_MinMax,), {"__slots__": (), "__repr__": __repr__,
                                   "__module__": "reftensor.return_types"})


AminmaxResult = _min_max_type("aminmax")


def _aminmax(input: Tensor, dim: int | None, keepdim: bool, *, meta: bool) -> _MinMax:
    """``amin`` and ``amax`` at once: of every element (``dim`` None) or along ``dim``.

    Raises:
        RuntimeError: no dim and an empty input.
        IndexError: a dim of size 0 or out of range.
    """
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is not None:
        d = wrap_dim(dim, builtins.max(input.dim(), 1))
        if input.dim() and input._shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    dims = _reduced_dims(input, dim, "aminmax")
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return AminmaxResult(_meta(shape, input._dtype), _meta(shape, input._dtype))
    values = _comparable(input._elements())
    low, high = np.min(values, axis=dims), np.max(values, axis=dims)
    return AminmaxResult(_new(np.asarray(low).astype(input._dtype.numpy), shape, input._dtype),
                         _new(np.asarray(high).astype(input._dtype.numpy), shape,
                              input._dtype))


_register(aten.aminmax.default, _aminmax)
out_arguments.set_rule(aten.aminmax.out, out_arguments.OutRule(
    check=_exact_dtype, returns=_min_max_type("aminmax_out")))


# -------------------------------------------------------------------------- vector norms
def _scalar_text(value: float) -> str:
    """A number as torch's messages print a ``Scalar`` (C++'s stream: ``-1``, ``0.5``,
    ``inf``)."""
    if isinstance(value, builtins.bool):
        return "true" if value else "false"
    if isinstance(value, builtins.int) or (math.isfinite(value) and value == int(value)):
        return str(int(value))
    return f"{value:g}"


def _vector_norm(input: Tensor, ord: Any, dim: Dims, keepdim: bool, dtype: dtype | None, *,
                 meta: bool) -> Tensor:
    """``linalg_vector_norm``: the ``ord``-norm of the elements over ``dim``, checked in
    the order of torch's meta function (the input's dtype, ``ord``, an empty input with no
    identity, ``dtype=``, then the dims). The values are computed in float64 from the input
    converted to the result's dtype, and rounded once: ``ord`` 0 counts the nonzero
    elements (nan counts), inf and -inf take the largest and smallest ``|x|`` (nan wins),
    1 sums ``|x|``, 2 is ``sqrt(sum(x*x))``, any other ``sum(|x|**ord)**(1/ord)``.

    Raises:
        RuntimeError: integer or bool input; a complex ``ord``; ``ord`` < 0 or inf over
            every dim of an empty input, or over a dim of size 0; a ``dtype=`` that is not
            floating, or narrower than the input's; a dim listed twice.
        IndexError: a dim out of range.
    """
    if not input._dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {SCALAR_TYPE_NAMES[input._dtype.name]}")
    if isinstance(ord, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order "
                           "of norm.")
    p = float(ord)
    given = (dim,) if isinstance(dim, int) else dim
    if input.numel() == 0 and (p < 0 or p == math.inf):
        if not given:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_text(ord)} "
                               "norm on an empty tensor because the operation does not have "
                               "an identity")
        for d in given:
            if input._shape[wrap_dim(d, builtins.max(input.dim(), 1))] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the "
                                   f"{_scalar_text(ord)} norm on the dimension {d}because "
                                   "this dimension is empty and the operation does not have "
                                   "an identity")
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError("linalg.vector_norm: dtype should be floating point or complex, "
                               f"but got {SCALAR_TYPE_NAMES[dtype.name]}")
        if dtypes.promote_types(input._dtype, dtype) is not dtype:
            raise RuntimeError(
                "linalg.vector_norm: the dtype of the input "
                f"({SCALAR_TYPE_NAMES[input._dtype.name]}) should be convertible without "
                f"narrowing to the specified dtype ({SCALAR_TYPE_NAMES[dtype.name]})")
    out_dtype = dtype or input._dtype
    dims = _reduced_dims(input, dim, "linalg.vector_norm")
    shape = _out_shape(input._shape, dims, keepdim)
    if meta:
        return _meta(shape, out_dtype)
    x = np.abs(_casting.cast(input._elements(), out_dtype).astype(np.float64))
    with np.errstate(all="ignore"):  # inf - inf, 0 ** negative: IEEE's answers, as torch's
        if p == 0:
            result = np.sum(x != 0, axis=dims).astype(np.float64)
        elif p == math.inf:
            result = np.max(x, axis=dims, initial=0.0)
        elif p == -math.inf:
            result = np.min(x, axis=dims, initial=math.inf)
        elif p == 1:
            result = np.sum(x, axis=dims)
        elif p == 2:
            result = np.sqrt(np.sum(x * x, axis=dims))
        else:
            result = np.sum(x ** p, axis=dims) ** (1.0 / p)
    return _new(_casting.cast(np.asarray(result), out_dtype), shape, out_dtype)


_register(aten.linalg_vector_norm.default, _vector_norm)
out_arguments.set_rule(aten.linalg_vector_norm.out, out_arguments.OutRule(check=_exact_dtype))
