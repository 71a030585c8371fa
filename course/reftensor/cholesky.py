"""The Cholesky factorization (torch's ``linalg_cholesky_ex``, ``linalg_cholesky`` and the
deprecated ``cholesky``; ``reftensor.linalg.cholesky``, ``reftensor.linalg.cholesky_ex``).

A symmetric positive-definite matrix ``A`` is ``L L.mT`` for exactly one lower triangular
``L`` with a positive diagonal. Column ``j`` of ``L`` comes from the columns before it:

    L[j, j] = sqrt(A[j, j] - sum(L[j, :j] ** 2))
    L[i, j] = (A[i, j] - sum(L[i, :j] * L[j, :j])) / L[j, j]       (i > j)

which is LAPACK's unblocked ``potf2`` (``uplo='L'``), what torch's CPU kernel reaches through
``potrf``. Only the lower triangle of ``A`` is read (with ``upper=True`` the upper one: the
upper factor ``U = L.mT`` of ``A.mT``, as ``potrf`` with ``uplo='U'`` computes it). When the
number under the square root is not positive (or is nan) the leading minor of order ``j + 1``
is not positive-definite: LAPACK stops there, leaving that number on the diagonal and the
columns after it as they were, and ``info`` is ``j + 1``; reftensor leaves the same partial
factor. MKL's blocked and vectorised loops add the products in another order than this
one, so values may differ from torch's in the last bits (measured: see
``tests/op_db.py``'s entry).

Results are laid out as torch's: each matrix column-major (LAPACK's), the batch contiguous.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes, factories, layout, out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .iterator import resize_output
from .linalg import (
    LinAlgError,
    _exact_out_dtype,
    _floating,
    _matrix_strides,
    _new,
    _result_type,
    _square,
    _WarnOnce,
)
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES, can_cast
from .tensor import Tensor

__all__ = ["CholeskyExResult", "check_not_positive_definite", "solve_triangular_values"]

CholeskyExResult = _result_type("linalg_cholesky_ex", ("L", "info"))

_warn_once = _WarnOnce(
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
    "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
    "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
    "for all valid (symmetric positive definite) inputs.")


def _factor(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each matrix of ``m`` (``(..., n, n)``) factored as ``L L.mT`` from its lower
    triangle, column by column (``potf2``): ``L`` (lower triangular, the upper triangle
    zero) and ``info`` (0, or the order of the first leading minor that is not
    positive-definite, where that matrix's factorization stopped)."""
    batch, n = m.shape[:-2], m.shape[-1]
    count = math.prod(batch)
    a = np.array(m.reshape((count, n, n)), copy=True)
    info = np.zeros(count, np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            going = info == 0
            row = a[:, j, :j]
            ajj = a[:, j, j] - np.einsum("bk,bk->b", row, row)
            failed = going & ~(ajj > 0)
            a[failed, j, j] = ajj[failed]
            info[failed] = j + 1
            going &= ~failed
            root = np.sqrt(ajj[going])
            a[going, j, j] = root
            below = a[going, j + 1:, j] - np.einsum("bik,bk->bi", a[going, j + 1:, :j],
                                                    row[going])
            a[going, j + 1:, j] = below * (1 / root)[:, None]
    a = np.tril(a)
    return a.reshape(m.shape), info.reshape(batch)


def check_not_positive_definite(info: Tensor, name: str, is_matrix: bool) -> None:
    """torch's ``_linalg_check_errors`` for a Cholesky factorization: the first nonzero
    ``info`` as a :class:`~reftensor.linalg.LinAlgError` (nothing for a meta ``info``)."""
    if info.device.type == "meta" or not info.numel():
        return
    values = info._elements().reshape(-1)
    found = np.flatnonzero(values)
    if not len(found):
        return
    where = "" if is_matrix else f": (Batch element {found[0]})"
    raise LinAlgError(f"{name}{where}: The factorization could not be completed because the "
                      "input is not positive-definite (the leading minor of order "
                      f"{values[found[0]]} is not positive-definite).")


def _no_kernel(A: Tensor) -> None:
    """The CPU kernel's dispatch on the dtype: LAPACK has float32 and float64 (and
    complex); nothing is looked up for an empty input."""
    if A.numel() and (A._dtype.itemsize == 2 or not A._dtype.is_floating_point):
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[A._dtype.name]}'")


def _cholesky_values(A: Tensor, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """The factor (``upper``: ``U``, from the upper triangle) and ``info``."""
    m = A._elements()
    if upper:
        L, info = _factor(np.swapaxes(m, -1, -2))
        return np.swapaxes(L, -1, -2), info
    return _factor(m)


# ---- linalg_cholesky_ex
def _cholesky_ex(A: Tensor, upper: bool, check_errors: bool, *, meta: bool) -> Any:
    """torch's structured ``linalg_cholesky_ex``: its meta checks, then the factor."""
    _square(A, "linalg.cholesky")
    _floating(A, "linalg.cholesky")
    shape, batch, where = A._shape, A._shape[:-2], META if meta else CPU
    strides = _matrix_strides(shape)
    if meta:
        return CholeskyExResult(
            _new(None, shape, strides, A._dtype, where),
            _new(None, batch, layout.contiguous_strides(batch), dtypes.int32, where))
    _no_kernel(A)
    if A.numel():
        L, info = _cholesky_values(A, upper)
    else:
        L, info = None, np.zeros(batch, np.int32)
    result = CholeskyExResult(_new(L, shape, strides, A._dtype),
                              _new(info, batch, layout.contiguous_strides(batch), dtypes.int32))
    if check_errors:
        check_not_positive_definite(result.info, "linalg.cholesky_ex", A.dim() == 2)
    return result


aten.linalg_cholesky_ex.default.impl(DispatchKey.CPU)(
    lambda self, upper=False, check_errors=False: _cholesky_ex(self, upper, check_errors,
                                                               meta=False))
aten.linalg_cholesky_ex.default.impl(DispatchKey.Meta)(
    lambda self, upper=False, check_errors=False: _cholesky_ex(self, upper, check_errors,
                                                               meta=True))


OUT_DTYPE_RULES.update(linalg_cholesky_ex=_exact_out_dtype)
out_arguments.set_rule(aten.linalg_cholesky_ex.L, out_arguments.OutRule(
    returns=_result_type("linalg_cholesky_ex_out", ("L", "info"))))


# ---- linalg_cholesky
@aten.linalg_cholesky.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_cholesky(self: Tensor, upper: bool = False) -> Tensor:
    """``linalg_cholesky_ex``'s ``L``; a matrix that is not positive-definite raises."""
    L, info = aten.linalg_cholesky_ex.default.call(self, upper, False)
    check_not_positive_definite(info, "linalg.cholesky", self.dim() == 2)
    return L


@aten.linalg_cholesky.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_cholesky_out(self: Tensor, upper: bool, out: Tensor) -> Tensor:
    """``linalg_cholesky_ex`` written into ``out`` (its ``info`` into a temporary)."""
    info = factories._allocate((0,), (1,), dtypes.int32, self.device)
    aten.linalg_cholesky_ex.L.call(self, upper, False, out, info)
    check_not_positive_definite(info, "linalg.cholesky", self.dim() == 2)
    return out


# ---- cholesky (deprecated)
def _cholesky(self: Tensor, upper: bool, *, meta: bool) -> Tensor:
    """torch's ``cholesky``: the warning; an empty input's ``empty_like``; the square
    check; the factor (an error for a matrix that is not positive-definite)."""
    _warn_once("function")
    where = META if meta else CPU
    if not self.numel():
        shape = self._shape
        return _new(None, shape, layout.contiguous_strides(shape), self._dtype, where)
    _square(self, "cholesky")
    shape = self._shape
    strides = _matrix_strides(shape)
    if meta:
        return _new(None, shape, strides, self._dtype, where)
    _no_kernel(self)
    L, info = _cholesky_values(self, upper)
    batch = shape[:-2]
    check_not_positive_definite(
        _new(info, batch, layout.contiguous_strides(batch), dtypes.int32), "cholesky",
        self.dim() == 2)
    return _new(L, shape, strides, self._dtype)


aten.cholesky.default.impl(DispatchKey.CPU)(
    lambda self, upper=False: _cholesky(self, upper, meta=False))
aten.cholesky.default.impl(DispatchKey.Meta)(
    lambda self, upper=False: _cholesky(self, upper, meta=True))


def _cholesky_out(self: Tensor, upper: bool, out: Tensor) -> Tensor:
    """torch's ``cholesky_out``: the warning, ``cholesky`` (which warns from its own site),
    ``checkLinalgCompatibleDtype``, then ``out`` resized as ``resize_output`` (contiguous)
    and copied into."""
    _warn_once("out")
    result = aten.cholesky.default.call(self, upper)
    if not can_cast(result._dtype, out._dtype):
        raise RuntimeError(f"cholesky: Expected result to be safely castable from "
                           f"{SCALAR_TYPE_NAMES[result._dtype.name]} dtype, but got result "
                           f"with dtype {SCALAR_TYPE_NAMES[out._dtype.name]}")
    if out._shape != result._shape:
        resize_output(out, result._shape, layout.contiguous_strides(result._shape))
    out.copy_(result)
    return out


out_arguments.set_rule(aten.cholesky.out, out_arguments.OutRule(writes=_cholesky_out))


# ---- triangular solves (the backward's)
def solve_triangular_values(T: Tensor, B: Tensor, *, upper: bool, left: bool) -> Tensor:
    """``X`` with ``T X = B`` (``left``) or ``X T = B`` for triangular ``T`` (its other
    triangle not read), by substitution, not recorded (the values of torch's
    ``linalg_solve_triangular``, which ``cholesky_backward`` calls); the batch dims
    broadcast; a new tensor, each matrix column-major (as torch's, from either side)."""
    t, b = T._elements(), B._elements()
    if not left:  # X T = B is T.mT X.mT = B.mT
        t, b, upper = np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2), not upper
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    n = t.shape[-1]
    t = np.broadcast_to(t, batch + (n, n))
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), copy=True)
    order = reversed(range(n)) if upper else range(n)
    with np.errstate(all="ignore"):
        for j in order:
            x[..., j, :] /= t[..., j, j, None]
            if upper:
                x[..., :j, :] -= t[..., :j, j, None] * x[..., j, None, :]
            else:
                x[..., j + 1:, :] -= t[..., j + 1:, j, None] * x[..., j, None, :]
    if not left:
        x = np.swapaxes(x, -1, -2)
    return _new(x, x.shape, _matrix_strides(x.shape), B._dtype)
