"""Scans: ``cumsum`` and ``cumprod``, the running sum and product along one dim, with torch's
rules.

A scan keeps its input's shape: element ``i`` along ``dim`` combines elements ``0..i``.
torch's CPU kernel (``cpu_cum_base_kernel``) walks each line along ``dim`` one element at a
time, keeping the running value in the dtype's *accumulation type* (``acc_type``: float64
for float32 and float64, float32 for float16 and bfloat16, int64 for every integer) and
rounding each partial result to the result's dtype as it stores it. NumPy's
``cumsum``/``cumprod`` also go one element at a time, so accumulating in the same type
gives torch's values bit for bit (a float32 ``cumsum`` summed in float32 would differ in the
last bits after a few hundred elements).

The result dtype follows ``sum``: bool and integer inputs give int64, ``dtype=`` converts
the input first (so ``cumsum(dtype=int8)`` wraps), an ``out=`` without ``dtype=`` scans in
``out``'s dtype, and the in-place ``cumsum_`` in its input's. A 0-d input is copied (its
only running value is itself), an empty one gives an empty result; a bool result with
elements is refused (torch has no bool kernel). The result is a fresh row-major tensor
whatever the input's layout (torch's meta function gives no strides).

Every op here is an entry of the op table (``reftensor/_ops/native_functions.py``); this
module registers their CPU and Meta kernels, the derivative rows are in
``autograd/derivatives.py``.
"""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple

import numpy as np

from . import _casting, dtypes, iterator, out_arguments
from ._ops import DispatchKey, aten
from .dtypes import dtype
from .promotion import SCALAR_TYPE_NAMES
from .reductions import _dtype_from_out, _meta, _new
from .tensor import Tensor, wrap_dim

__all__: list[str] = []  # the ops are reftensor's generated bindings (reftensor.cumsum, ...)


def accumulation_dtype(d: dtype) -> dtype:
    """torch's CPU ``acc_type``: the type a running sum or product is kept in."""
    if d in (dtypes.float16, dtypes.bfloat16):
        return dtypes.float32
    if d.is_floating_point:
        return dtypes.float64
    return d if d is dtypes.bool else dtypes.int64


def _scan(input: Tensor, dim: int, dtype: dtype | None, name: str, *, meta: bool,
          into: Tensor | None = None) -> Tensor:
    """The running sum (``name`` ``cumsum``) or product (``cumprod``) along ``dim``; into
    ``into`` (the in-place form: ``input`` itself) when given.

    Raises:
        IndexError: ``dim`` is out of range.
        RuntimeError: in place, a ``dtype=`` that is not the input's.
        NotImplementedError: a bool result with elements (torch has no bool kernel).
    """
    d = wrap_dim(dim, builtins.max(input.dim(), 1))  # a 0-d input takes 0 and -1
    if into is not None:
        out_dtype = dtype or into._dtype
        if out_dtype is not into._dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{SCALAR_TYPE_NAMES[into._dtype.name].lower()} and output "
                               f"tensor dtype {SCALAR_TYPE_NAMES[out_dtype.name].lower()} "
                               "should match")
        iterator.assert_no_internal_overlap(into)
    else:
        out_dtype = dtype or (input._dtype if input._dtype.is_floating_point else dtypes.int64)
    if meta and into is None:
        return _meta(input._shape, out_dtype)
    if meta and into is not None:
        into._version_counter.value += 1
        return into
    values = _casting.cast(input._elements(), out_dtype)
    if input.dim() == 0 or input.numel() == 0:
        result = values.copy()  # (torch: ``fill_(self)``, ``zero_()``)
    elif out_dtype is dtypes.bool:
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
    else:
        work = accumulation_dtype(out_dtype).numpy
        scan = np.cumsum if name == "cumsum" else np.cumprod
        with np.errstate(all="ignore"):  # integers wrap, floats overflow to inf, as torch's
            scanned = scan(values.astype(work), axis=d)
            if name == "cumsum" and out_dtype.is_floating_point:
                scanned += 0.0  # torch's running sum starts at +0.0: never -0.0
            result = _casting.cast(scanned, out_dtype)
    if into is not None:
        into._elements()[...] = result
        into._version_counter.value += 1
        return into
    return _new(result, input._shape, out_dtype)


def _register() -> None:
    for name in ("cumsum", "cumprod"):
        for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
            def functional(self: Tensor, dim: int, dtype: dtype | None, *, n: str = name,
                           m: bool = meta) -> Tensor:
                return _scan(self, dim, dtype, n, meta=m)

            def inplace(self: Tensor, dim: int, dtype: dtype | None, *, n: str = name,
                        m: bool = meta) -> Tensor:
                return _scan(self, dim, dtype, n, meta=m, into=self)

            aten[name].default.impl(key)(functional)
            aten[name + "_"].default.impl(key)(inplace)
        # ``out=`` without ``dtype=`` scans in out's dtype; with it, out must be that dtype
        out_arguments.set_rule(aten[name].out, out_arguments.OutRule(prepare=_dtype_from_out))


_register()


# ------------------------------------------------------------------ cummax, cummin
class _ValuesAndIndices(NamedTuple):
    values: Tensor
    indices: Tensor


def _cum_extreme(input: Tensor, dim: int, name: str, *, meta: bool
                 ) -> tuple[Tensor, Tensor]:
    """The running maximum (``name`` ``cummax``) or minimum along ``dim`` and where it was
    found, as torch's ``cummax_cummin_helper``: walking the line, an element that is nan, or
    at least as large (small) as the running value while that is not nan, replaces it.

    Raises:
        IndexError: ``dim`` is out of range (checked for 0-d and non-empty inputs only).
    """
    if input.dim() == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    if input.numel() != 0:
        dim = wrap_dim(dim, builtins.max(input.dim(), 1))
    result = _return_types[name]
    if meta:
        return result(_meta(input._shape, input._dtype), _meta(input._shape, dtypes.int64))
    x = input._elements()
    if input.dim() == 0 or input.numel() == 0:
        return result(_new(x.copy(), input._shape, input._dtype),
                      _new(np.zeros(input._shape, np.int64), input._shape, dtypes.int64))
    lines = np.moveaxis(x, dim, 0)
    values, indices = np.empty_like(lines), np.empty(lines.shape, np.int64)
    wider = lines.astype(np.float32) if lines.dtype in (
        dtypes.float16.numpy, dtypes.bfloat16.numpy) else lines
    best, where = wider[0].copy(), np.zeros(lines.shape[1:], np.int64)
    for i in range(lines.shape[0]):
        current = wider[i]
        with np.errstate(invalid="ignore"):
            beats = current >= best if name == "cummax" else current <= best
        if lines.dtype.kind == "f" or wider.dtype.kind == "f":
            beats = np.isnan(current) | (~np.isnan(best) & beats)
        best = np.where(beats, current, best)
        where = np.where(beats, i, where)
        values[i], indices[i] = best, where
    return result(_new(np.moveaxis(values, 0, dim), input._shape, input._dtype),
                  _new(np.moveaxis(indices, 0, dim), input._shape, dtypes.int64))


def _named(name: str) -> type[_ValuesAndIndices]:
    def __repr__(self: _ValuesAndIndices) -> str:
        return (f"reftensor.return_types.{name}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")

    return type(name, (_ValuesAndIndices,), {"__slots__": (), "__repr__": __repr__,
                                             "__module__": "reftensor.return_types"})


_return_types = {name: _named(name) for name in ("cummax", "cummin", "cummax_out",
                                                  "cummin_out")}


def _same_scalar_types(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """torch's ``check_scalar_type_device_layout_equal``, before anything is computed: the
    values' ``out`` of exactly the input's dtype, the indices' int64."""
    for out, wanted in zip(outs, (inputs[0]._dtype, dtypes.int64), strict=False):
        if out._dtype is not wanted:
            raise RuntimeError(f"expected scalar_type {SCALAR_TYPE_NAMES[wanted.name]} but "
                               f"found {SCALAR_TYPE_NAMES[out._dtype.name]}")
    return inputs


def _checked_before(input: Tensor, result: Tensor, out: Tensor) -> None:
    """``out``'s dtype was checked before the op ran (``_same_scalar_types``)."""


# ------------------------------------------------------------------------ logcumsumexp
def _logcumsumexp(input: Tensor, dim: int, *, meta: bool) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim`` as torch's ``logcumsumexp_cpu_kernel``: the
    running value (in the accumulation type) and the next element ``x`` combine as
    ``log1p(exp(min - max)) + max`` (``std::min``/``std::max``, a nan running value kept),
    or ``x`` itself when both are the same infinity; the running value starts at -inf.

    Raises:
        IndexError: ``dim`` is out of range.
        NotImplementedError: an integer or bool input (on the CPU).
    """
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    if meta:
        return _meta(input._shape, input._dtype)
    if not input._dtype.is_floating_point:
        raise NotImplementedError("\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[input._dtype.name]}'")
    x = input._elements()
    if input.dim() == 0 or input.numel() == 0:
        return _new(x.copy(), input._shape, input._dtype)
    work = accumulation_dtype(input._dtype).numpy
    lines = np.moveaxis(x, d, 0).astype(work)
    out = np.empty_like(lines)
    running = np.full(lines.shape[1:], -np.inf, work)
    with np.errstate(all="ignore"):
        for i in range(lines.shape[0]):
            current = lines[i]
            nan = np.isnan(running)
            low = np.where(nan, running, np.where(running < current, running, current))
            high = np.where(nan, running, np.where(current < running, running, current))
            combine = (low != high) | np.isfinite(low)
            running = np.where(combine, np.log1p(np.exp(low - high)) + high, current)
            out[i] = running
    return _new(_casting.cast(np.moveaxis(out, 0, d), input._dtype), input._shape,
                input._dtype)


def _register_more() -> None:
    for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
        for name in ("cummax", "cummin"):
            aten[name].default.impl(key)(
                lambda self, dim, n=name, m=meta: _cum_extreme(self, dim, n, meta=m))
        aten.logcumsumexp.default.impl(key)(
            lambda self, dim, m=meta: _logcumsumexp(self, dim, meta=m))
    for name in ("cummax", "cummin"):
        out_arguments.set_rule(aten[name].out, out_arguments.OutRule(
            prepare=_same_scalar_types, check=_checked_before,
            returns=_return_types[name + "_out"]))
    out_arguments.set_rule(aten.logcumsumexp.out, out_arguments.OutRule(
        prepare=_same_scalar_types, check=_checked_before))


_register_more()
