"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``all``/``any``, ``var``/``std``, with torch's rules.

Every reduction here follows the same four steps:

1. **Which dims.** ``dim`` is ``None`` (every dim), an int, or a tuple/list of ints; negative
   dims count from the end, a repeated dim raises RuntimeError, a dim out of range raises
   IndexError. A 0-d tensor accepts dim 0 and -1 (it is reduced as if it had one dim of
   size 1). An *empty* tuple means every dim too, except for ``all``/``any``, where it
   means no dim at all (an elementwise ``!= 0``).
2. **Which result dtype.** ``sum``/``prod`` turn bool and integers into int64; ``mean``,
   ``var`` and ``std`` need floating input; ``all``/``any`` give bool (uint8 input gives
   uint8); ``argmax``/``argmin`` and ``max(dim)``'s indices give int64. ``dtype=`` converts
   the input to that dtype *before* reducing (so ``sum(dtype=int8)`` wraps).
3. **The values**, computed by NumPy over ``input._elements()`` (skipped for a meta
   input: its result has the shape and dtype of steps 1-2, and no data). float16 and bfloat16 are
   accumulated in float32 and rounded once at the end, as torch does. torch adds floats
   with a cascade (blocked pairwise) summation and NumPy with its own pairwise one, so
   float sums and means may differ in the last bits: the tests allow a few ulps.
4. **The output layout.** The result is always a fresh contiguous tensor, whatever the
   input's layout: torch's reductions allocate their output with no strides to copy
   (``set_output_raw_strided(..., strides={})``), so a permuted or channels-last input
   still gives a row-major result, with or without ``keepdim``.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from . import _casting, dtypes, layout
from .dtypes import dtype
from .promotion import SCALAR_TYPE_NAMES
from .storage import UntypedStorage
from .tensor import Tensor, wrap_dim

__all__ = [
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any",
    "var", "std",
]

Dims = int | Sequence[int] | None


class MaxResult(NamedTuple):
    """``max(input, dim)``'s result (``torch.return_types.max``): values and their indices."""

    values: Tensor
    indices: Tensor


class MinResult(NamedTuple):
    """``min(input, dim)``'s result (``torch.return_types.min``)."""

    values: Tensor
    indices: Tensor


# ---------------------------------------------------------------------------- helpers
def _check_int(name: str, d: Any) -> None:
    """torch's argument parser takes ints only: bool, float and str are TypeErrors."""
    if isinstance(d, builtins.bool) or not isinstance(d, int):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(d).__name__}")


def _reduced_dims(input: Tensor, dim: Dims, name: str, *, empty_means_all: bool = True,
                  nonempty: bool = False) -> tuple[int, ...]:
    """The dims to reduce, wrapped to ``0 <= d < ndim`` and sorted.

    Checks in torch's order: argument types, then every dim's range, then (``nonempty``,
    for amax/amin/max/min) that there is something to pick from, then repeats. var/std
    instead look for repeats while wrapping, so ``(0, 0, 5)`` is an IndexError for ``sum``
    but a RuntimeError for ``var``.

    Raises:
        TypeError: ``dim`` is not None, an int, or a tuple/list of ints.
        IndexError: a dim is out of range; with ``nonempty``, a reduced dim of size 0.
        RuntimeError: a dim appears twice; with ``nonempty``, an empty input and no dim.
    """
    ndim = input.dim()
    given = [dim] if isinstance(dim, int) and not isinstance(dim, builtins.bool) else dim
    if given is not None and not isinstance(given, list | tuple):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not "
                        f"{type(dim).__name__}")
    for d in given or ():
        _check_int(name, d)
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
    """The result of reducing a meta tensor: the layout, no data."""
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


def sum(input: Tensor, dim: Dims = None, keepdim: bool = False, *,
        dtype: dtype | None = None) -> Tensor:
    """Sum over ``dim`` (``torch.sum``). Bool and integer input give int64 unless ``dtype=``;
    ``dtype=`` converts the input first. The sum of no elements is 0.

    Raises:
        IndexError, RuntimeError, TypeError: a bad ``dim`` (see ``_reduced_dims``).
    """
    dims = _reduced_dims(input, dim, "sum")
    out_dtype = dtype or (input.dtype if input.dtype.is_floating_point else dtypes.int64)
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), out_dtype)
    values = _casting.cast(input._elements(), out_dtype)
    if out_dtype is dtypes.bool:
        result = np.any(values, axis=dims)  # adding bools is "or"
    elif _blas_total_ok(input, dims, out_dtype):
        result = _blas_total(values)
    else:
        work = _casting.compute_dtype(out_dtype).numpy  # float32 for float16/bfloat16
        result = _casting.cast(np.sum(values, axis=dims, dtype=work), out_dtype)
    return _new(result, _out_shape(input._shape, dims, keepdim), out_dtype)


def mean(input: Tensor, dim: Dims = None, keepdim: bool = False, *,
         dtype: dtype | None = None) -> Tensor:
    """Mean over ``dim`` (``torch.mean``): the sum divided by the count, in the input's dtype
    (or ``dtype=``). The mean of no elements is nan.

    Raises:
        RuntimeError: the input is not floating and no floating ``dtype=`` is given, or
            ``dtype=`` is not floating.
        IndexError, TypeError: a bad ``dim``.
    """
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{SCALAR_TYPE_NAMES[input.dtype.name]}")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{SCALAR_TYPE_NAMES[dtype.name]}")
    dims = _reduced_dims(input, dim, "mean")
    out_dtype = dtype or input.dtype
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), out_dtype)
    work = _casting.compute_dtype(out_dtype).numpy
    values = _casting.cast(input._elements(), out_dtype)
    count = math.prod(input._shape[d] for d in dims)
    with np.errstate(all="ignore"):  # 0 / 0 is nan for an empty reduction
        result = np.sum(values, axis=dims, dtype=work) / work.type(count)
    return _new(_casting.cast(result.astype(work), out_dtype),
                _out_shape(input._shape, dims, keepdim), out_dtype)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
         dtype: dtype | None = None) -> Tensor:
    """Product over one dim, or over every element (``torch.prod``). Bool and integers give
    int64 unless ``dtype=``. The product of no elements is 1.

    Floats are multiplied one after another in their own dtype, rounding at each step (torch
    does this even for float16, unlike ``sum``). The order matters (in float16,
    ``2 * 181 * 181 * 0`` is nan but ``2 * 0 * 181 * 181`` is 0), so a full product visits
    the elements in TensorIterator's order, innermost dim (smallest stride) first; torch's
    vectorised loops may still group long contiguous runs differently, so float products
    are compared to a few ulps.

    Raises:
        TypeError: ``dim`` is a tuple (torch's prod takes one dim), or keepdim without dim.
        IndexError: ``dim`` is out of range.
    """
    if dim is None and keepdim:
        raise TypeError("prod() received an invalid combination of arguments")
    if dim is not None:
        _check_int("prod", dim)
    dims = _reduced_dims(input, dim, "prod")
    out_dtype = dtype or (input.dtype if input.dtype.is_floating_point else dtypes.int64)
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), out_dtype)
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
    shape = _out_shape(input._shape, dims, keepdim)
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


# ---------------------------------------------------------------- amax, amin, max, min
def _extreme(input: Tensor, dim: Dims, keepdim: bool, name: str) -> Tensor:
    dims = _reduced_dims(input, dim, name, nonempty=True)
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), input.dtype)
    pick = np.max if "max" in name else np.min  # NumPy's max/min propagate nan, as torch's
    result = pick(_comparable(input._elements()), axis=dims)
    return _new(np.asarray(result).astype(input.dtype.numpy),
                _out_shape(input._shape, dims, keepdim), input.dtype)


def amax(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Largest value over ``dim`` (``torch.amax``); ``()`` means every dim. nan wins.

    Signed zeros are not reproduced: torch's vectorised kernels may pick either of ``-0.0``
    and ``0.0`` (``amax([-0.0, 0.0])`` is ``-0.0`` in torch, ``max()`` of it ``0.0``).

    Raises:
        RuntimeError: ``input`` is empty and no dim is given.
        IndexError: a reduced dim has size 0, or a dim is out of range.
    """
    return _extreme(input, dim, keepdim, "amax")


def amin(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Smallest value over ``dim`` (``torch.amin``); same rules as :func:`amax`."""
    return _extreme(input, dim, keepdim, "amin")


def _arg_extreme(input: Tensor, dim: int, keepdim: bool, name: str) -> tuple[Tensor, Tensor]:
    """Values and int64 indices of the extreme along one dim: the first occurrence on ties,
    and the first nan when there is one (nan counts as larger *and* smaller than all)."""
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    _check_nonempty(input, [d], name)
    if input.is_meta:
        shape = _out_shape(input._shape, (d,) if input.dim() else (), keepdim)
        return _meta(shape, input.dtype), _meta(shape, dtypes.int64)
    values = input._elements()
    if input.dim() == 0:  # a 0-d tensor is its own extreme, at index 0
        index = np.zeros((), np.int64)
        return _new(values.copy(), (), input.dtype), _new(index, (), dtypes.int64)
    find = np.argmax if "max" in name else np.argmin  # both pick the first occurrence
    index = np.expand_dims(find(_comparable(values), axis=d), d)
    picked = np.take_along_axis(values, index, axis=d)
    shape = _out_shape(input._shape, (d,), keepdim)
    return _new(picked, shape, input.dtype), _new(index.astype(np.int64), shape, dtypes.int64)


def max(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """``max(input)``: the largest element as a 0-d tensor (like ``amax()``);
    ``max(input, dim, keepdim=False)``: a ``(values, indices)`` named tuple
    (``torch.max``). Ties give the first index; nan wins and gives its index.

    ``torch.max(input, other_tensor)`` (elementwise maximum) is not implemented.

    Raises:
        RuntimeError: ``max()`` of an empty tensor.
        IndexError: the reduced dim has size 0, or is out of range.
        TypeError: ``dim`` is not an int, or ``keepdim`` without ``dim``.
    """
    return _max_or_min(input, dim, keepdim, "max", MaxResult)


def min(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """``min(input)`` or ``min(input, dim, keepdim=False)`` (``torch.min``); see :func:`max`."""
    return _max_or_min(input, dim, keepdim, "min", MinResult)


def _max_or_min(input: Tensor, dim: int | None, keepdim: bool, name: str, result: type) -> Any:
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        return _extreme(input, None, False, name)
    _check_int(name, dim)
    return result(*_arg_extreme(input, dim, keepdim, name))


def _argmax_or_argmin(input: Tensor, dim: int | None, keepdim: bool, name: str) -> Tensor:
    if dim is not None:
        _check_int(name, dim)  # argument types are checked first, then the dtype
    if input.dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
        return _arg_extreme(input, dim, keepdim, name)[1]
    _check_nonempty(input, [], name)
    shape = (1,) * input.dim() if keepdim else ()
    if input.is_meta:
        return _meta(shape, dtypes.int64)
    flat = np.reshape(_comparable(input._elements()), -1)  # row-major order of the indices
    find = np.argmax if name == "argmax" else np.argmin
    return _new(np.asarray(find(flat), np.int64), shape, dtypes.int64)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the largest value (``torch.argmax``), int64. With no dim, the index into the
    flattened (row-major) tensor. First occurrence on ties; the first nan if there is one.

    Raises:
        RuntimeError: bool input.
        IndexError: empty input with no dim, a reduced dim of size 0, a dim out of range.
        TypeError: ``dim`` is not an int.
    """
    return _argmax_or_argmin(input, dim, keepdim, "argmax")


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest value (``torch.argmin``); see :func:`argmax`."""
    return _argmax_or_argmin(input, dim, keepdim, "argmin")


# ----------------------------------------------------------------------------- all, any
def _logical(input: Tensor, dim: Dims, keepdim: bool, name: str) -> Tensor:
    dims = _reduced_dims(input, dim, name, empty_means_all=False)  # all(x, ()) reduces nothing
    out_dtype = dtypes.uint8 if input.dtype is dtypes.uint8 else dtypes.bool  # torch's quirk
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), out_dtype)
    nonzero = _casting.cast(input._elements(), dtypes.bool)
    result = (np.all if name == "all" else np.any)(nonzero, axis=dims)
    return _new(np.asarray(result).astype(out_dtype.numpy),
                _out_shape(input._shape, dims, keepdim), out_dtype)


def all(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """True where every element over ``dim`` is nonzero (``torch.all``); True for no elements.
    The result is bool, except uint8 input gives uint8 (0 or 1). ``dim=()`` reduces no dim.

    Raises:
        IndexError, RuntimeError, TypeError: a bad ``dim``.
    """
    return _logical(input, dim, keepdim, "all")


def any(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """True where some element over ``dim`` is nonzero (``torch.any``); see :func:`all`."""
    return _logical(input, dim, keepdim, "any")


# ----------------------------------------------------------------------------- var, std
def _parse_var_args(dim: Any, args: tuple[Any, ...], kwargs: dict[str, Any], name: str
                    ) -> tuple[Dims, float, bool]:
    """torch's three signatures: ``var(unbiased)``, ``var(dim, unbiased=True, keepdim=False)``
    and ``var(dim=None, *, correction=1, keepdim=False)``; returns (dim, correction, keepdim).
    """
    bad = TypeError(f"{name}() received an invalid combination of arguments")
    if set(kwargs) - {"unbiased", "correction", "keepdim"} or len(args) > 2:
        raise bad
    if isinstance(dim, builtins.bool):  # var(True): the first argument is ``unbiased``
        if args or kwargs:
            raise bad
        return None, float(dim), False
    if "unbiased" in kwargs and ("correction" in kwargs or args):
        raise bad
    if args and "correction" in kwargs or len(args) == 2 and "keepdim" in kwargs:
        raise bad
    unbiased = args[0] if args else kwargs.get("unbiased", True)
    keepdim = args[1] if len(args) == 2 else kwargs.get("keepdim", False)
    if not isinstance(unbiased, builtins.bool) or not isinstance(keepdim, builtins.bool):
        raise bad
    correction = kwargs.get("correction")
    if correction is None:
        correction = 1 if unbiased else 0
    return dim, float(correction), keepdim


def _var(input: Tensor, dim: Any, args: tuple[Any, ...], kwargs: dict[str, Any], name: str
         ) -> Tensor:
    dim, correction, keepdim = _parse_var_args(dim, args, kwargs, name)
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _reduced_dims(input, dim, name)
    count = math.prod(input._shape[d] for d in dims)
    divisor = builtins.max(0.0, count - correction)  # degrees of freedom, never negative
    if divisor == 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    if input.is_meta:
        return _meta(_out_shape(input._shape, dims, keepdim), input.dtype)
    x = input._elements().astype(np.float64)  # torch's CPU kernel accumulates in double
    with np.errstate(all="ignore"):  # 0/0 is nan and m2/0 is inf, as in torch
        centred = x - np.sum(x, axis=dims, keepdims=True) / count  # two passes: mean first
        result = np.sum(centred * centred, axis=dims) / divisor
        if count == 0:
            result = result * np.nan  # torch: no elements, no mean, nan whatever the divisor
        if name == "std":
            result = np.sqrt(result)
    return _new(_casting.cast(np.asarray(result), input.dtype),
                _out_shape(input._shape, dims, keepdim), input.dtype)


def var(input: Tensor, dim: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """Variance over ``dim`` (``torch.var``): ``sum((x - mean)**2) / max(0, N - correction)``.

    ``correction`` defaults to 1 (Bessel's); ``unbiased=False`` means 0, and a bool in place
    of ``dim`` is ``unbiased``. N - correction <= 0 gives nan (0/0) or inf, with a warning.
    Computed in float64 (torch's CPU kernel accumulates in double), rounded once to the
    input's dtype.

    Raises:
        RuntimeError: integer or bool input.
        TypeError: ``unbiased`` together with ``correction``, or other bad arguments.
        IndexError: a dim out of range.
    """
    return _var(input, dim, args, kwargs, "var")


def std(input: Tensor, dim: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """Standard deviation, ``sqrt(var)`` (``torch.std``); same arguments as :func:`var`."""
    return _var(input, dim, args, kwargs, "std")
