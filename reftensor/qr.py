"""The QR decomposition (torch's ``linalg_qr`` and the deprecated ``qr``;
``reftensor.linalg.qr``).

Each matrix ``A`` (``m x n``, ``k = min(m, n)``) is reduced to an upper triangular ``R`` by
``k`` Householder reflections ``H(i) = I - tau_i v_i v_i.mT``, as LAPACK's ``geqrf``
computes them: the ``i``-th reflection maps column ``i`` below the diagonal onto
``beta e_1``, where ``beta = -sign(alpha) * norm`` (``alpha`` the diagonal element, ``norm``
the column's norm from the diagonal down), so ``R``'s diagonal has the sign opposite to
``alpha``'s; a column already zero below its diagonal is left alone (``tau = 0``). ``Q`` is
the product ``H(0) H(1) ... H(k-1)`` of its first ``k`` columns (``'reduced'``) or all ``m``
(``'complete'``), built from the last reflection to the first as LAPACK's ``orgqr`` does.
Since reftensor takes the same reflections as LAPACK, the signs of ``Q``'s columns and
``R``'s rows are torch's (MKL's); values may differ in the last bits (the sums run in
another order; measured: see ``tests/op_db.py``'s entry), and a column whose part below the
diagonal is zero only up to rounding may be reflected by one library and not the other.

Results are laid out as torch's: each matrix column-major, the batch contiguous; with
``mode='r'`` ``Q`` is an empty tensor of shape ``(0,)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .linalg import (
    _exact_out_dtype,
    _floating,
    _matrix_strides,
    _new,
    _result_type,
    _WarnOnce,
)
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__ = ["QRResult", "householder_qr", "parse_mode"]

QRResult = _result_type("linalg_qr", ("Q", "R"))
QROutResult = _result_type("linalg_qr_out", ("Q", "R"))
LegacyQRResult = _result_type("qr", ("Q", "R"))
LegacyQROutResult = _result_type("qr_out", ("Q", "R"))

_warn_once = _WarnOnce(
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
    "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
    "torch.linalg.qr(A, 'reduced' if some else 'complete')")


def parse_mode(mode: str) -> tuple[bool, bool]:
    """torch's ``_parse_qr_mode``: ``(compute_q, reduced)``.

    Raises:
        RuntimeError: a mode other than ``'reduced'``, ``'complete'`` and ``'r'``.
    """
    if mode == "reduced":
        return True, True
    if mode == "complete":
        return True, False
    if mode == "r":
        return False, True
    raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                       "'reduced' (default), 'r', or 'complete'")


def _reflect(a: np.ndarray, v: np.ndarray, tau: np.ndarray) -> None:
    """``a`` (``(b, r, c)``) replaced by ``(I - tau v v.mT) a`` (LAPACK's ``larf``, from the
    left: ``w = a.mT v``, then ``a -= tau v w.mT``)."""
    w = np.einsum("brc,br->bc", a, v)
    a -= (tau[:, None] * v)[:, :, None] * w[:, None, :]


def householder_qr(m: np.ndarray, columns: int | None) -> tuple[np.ndarray | None,
                                                                np.ndarray]:
    """``m`` (``(..., rows, cols)``) as ``Q R``: ``Q`` of ``columns`` columns (None: not
    computed) and the upper triangular ``R`` of ``min(rows, cols)`` rows (``columns`` equal
    to ``rows`` and more rows than columns: ``rows`` rows, zero below the diagonal)."""
    batch, rows, cols = m.shape[:-2], m.shape[-2], m.shape[-1]
    count, k = math.prod(batch), min(rows, cols)
    a = np.array(m.reshape((count, rows, cols)), copy=True)
    tau = np.zeros((count, k), a.dtype)
    with np.errstate(all="ignore"):
        for i in range(k):  # geqr2
            alpha = a[:, i, i].copy()
            below = a[:, i + 1:, i]
            norm = np.sqrt(np.einsum("br,br->b", below, below))
            moves = norm != 0
            beta = -np.copysign(np.hypot(alpha, norm), alpha)
            tau[:, i] = np.where(moves, (beta - alpha) / beta, 0)
            scale = np.where(moves, 1 / (alpha - beta), 1)
            a[:, i + 1:, i] = below * scale[:, None]
            a[:, i, i] = np.where(moves, beta, alpha)
            if i < cols - 1:
                v = a[:, i:, i].copy()
                v[:, 0] = 1
                _reflect(a[:, i:, i + 1:], v, tau[:, i])
    r_rows = rows if columns == rows and rows > cols else k
    r = np.triu(a[:, :r_rows, :])
    if columns is None:
        return None, r.reshape(batch + (r_rows, cols))
    q = np.zeros((count, rows, columns), a.dtype)
    q[:, :, :k] = a[:, :, :k]
    for j in range(k, columns):
        q[:, j, j] = 1
    with np.errstate(all="ignore"):
        for i in reversed(range(k)):  # org2r
            if i < columns - 1:
                v = q[:, i:, i].copy()
                v[:, 0] = 1
                _reflect(q[:, i:, i + 1:], v, tau[:, i])
            q[:, i + 1:, i] *= -tau[:, i, None]
            q[:, i, i] = 1 - tau[:, i]
            q[:, :i, i] = 0
    return q.reshape(batch + (rows, columns)), r.reshape(batch + (r_rows, cols))


def _linalg_qr(A: Tensor, mode: str, *, meta: bool) -> Any:
    """torch's structured ``linalg_qr``: its meta checks (at least 2 dims, a floating
    input, the mode), then ``Q`` and ``R``, each matrix column-major."""
    if A.dim() < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.qr")
    compute_q, reduced = parse_mode(mode)
    where = META if meta else CPU
    batch, rows, cols = A._shape[:-2], A._shape[-2], A._shape[-1]
    k = min(rows, cols)
    q_shape = batch + (rows, k if reduced else rows) if compute_q else (0,)
    r_shape = batch + (k if reduced else rows, cols)
    q_strides, r_strides = _matrix_strides(q_shape), _matrix_strides(r_shape)
    if meta:
        return QRResult(_new(None, q_shape, q_strides, A._dtype, where),
                        _new(None, r_shape, r_strides, A._dtype, where))
    if A._dtype.itemsize == 2:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[A._dtype.name]}'")
    q = r = None
    if A.numel():
        q, r = householder_qr(A._elements(), q_shape[-1] if compute_q else None)
    elif compute_q and q_shape[-1] and math.prod(q_shape):  # no columns: Q is I's columns
        q = np.broadcast_to(np.eye(rows, q_shape[-1], dtype=A._dtype.numpy), q_shape)
    return QRResult(_new(q, q_shape, q_strides, A._dtype),
                    _new(r if r is not None else np.zeros(r_shape, A._dtype.numpy), r_shape,
                         r_strides, A._dtype))


aten.linalg_qr.default.impl(DispatchKey.CPU)(
    lambda A, mode="reduced": _linalg_qr(A, mode, meta=False))
aten.linalg_qr.default.impl(DispatchKey.Meta)(
    lambda A, mode="reduced": _linalg_qr(A, mode, meta=True))
OUT_DTYPE_RULES.update(linalg_qr=_exact_out_dtype)
out_arguments.set_rule(aten.linalg_qr.out, out_arguments.OutRule(returns=QROutResult))


# ---- qr (deprecated)
@aten.qr.default.impl(DispatchKey.CompositeImplicitAutograd)
def qr(self: Tensor, some: bool = True) -> Any:
    """torch's ``qr``: the warning, then ``linalg_qr(self, 'reduced' if some else
    'complete')``."""
    _warn_once("function")
    Q, R = aten.linalg_qr.default.call(self, "reduced" if some else "complete")
    return LegacyQRResult(Q, R)


@aten.qr.Q.impl(DispatchKey.CompositeImplicitAutograd)
def qr_out(self: Tensor, some: bool, Q: Tensor, R: Tensor) -> Any:
    """torch's ``qr_out``: the warning, then ``linalg_qr``'s ``out=``."""
    _warn_once("out")
    aten.linalg_qr.out.call(self, "reduced" if some else "complete", Q, R)
    return LegacyQROutResult(Q, R)
