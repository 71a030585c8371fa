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
            result = _casting.cast(scan(values.astype(work), axis=d), out_dtype)
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
