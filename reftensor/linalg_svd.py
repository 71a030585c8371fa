"""The singular value decomposition (chapter 4, issue 43): torch's ``_linalg_svd`` and the
ops built on it, ``linalg_svd``, ``linalg_svdvals`` and the legacy ``svd``.

``A = U diag(S) Vh`` for each matrix of ``A`` (``(*, m, n)``, float32 or float64), ``k =
min(m, n)``: ``S`` (``(*, k)``) the singular values in decreasing order, ``U`` (``(*, m, k)``,
or ``(*, m, m)`` with ``full_matrices``) and ``Vh`` (``(*, k, n)`` or ``(*, n, n)``) with
orthonormal columns and rows. As torch's CPU kernel, LAPACK's divide-and-conquer ``gesdd``
computes them (NumPy's, on OpenBLAS, where torch's wheel calls MKL's): the values agree
within a few ulps, but each pair of singular vectors (a column of ``U`` and the row of
``Vh`` beside it) is only defined up to a common sign, and MKL and OpenBLAS may choose
different signs. reftensor cannot reproduce MKL's choice: compare ``U`` and ``Vh`` in a
sign-invariant form (``tests/linalg_compare.py``). ``U`` and ``Vh`` are laid out as torch's,
each matrix column-major (on the meta device ``Vh`` row-major, as torch's meta function).

Measured against torch on 800 decompositions (400 matrices of 0 to 8 rows and columns, some
batched, float32 and float64, half of them badly conditioned, singular values down to 1e-6
or 1e-12 of the largest; ``full_matrices`` both ways): ``S`` within 4.4 ulps of the
largest singular value (small singular values are accurate only to that, in both
libraries); ``U diag(S) Vh`` within 38 ulps of the largest ``|A|`` of ``A``; the signs of
2136 of 2332 singular vectors agree with MKL's (the others are flipped, as a pair), and
aligned they are within 63 ulps (float32) and 14 ulps (float64) of torch's for well
conditioned matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import factories, iterator, layout
from ._ops import DispatchKey, aten
from ._ops.state import state as dispatch_state
from .device import CPU, META
from .linalg import (
    LinAlgError,
    _exact_out_dtype,
    _floating,
    _matrix_strides,
    _new,
    _result_type,
)
from .out_arguments import OutRule, set_rule
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__ = ["SvdResult", "LinalgSvdResult"]

SvdResult = _result_type("svd", ("U", "S", "V"))
LinalgSvdResult = _result_type("linalg_svd", ("U", "S", "Vh"))
_LinalgSvdRaw = _result_type("_linalg_svd", ("U", "S", "Vh"))


def _svd_checks(A: Tensor, driver: Any) -> None:
    """torch's ``_linalg_svd`` meta function's checks, in its order and words."""
    if A.dim() < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.svd")
    if driver is not None:  # (reftensor has no CUDA tensors)
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


def _identities(shape: tuple[int, ...]) -> np.ndarray:
    """Identity matrices of ``shape`` (an empty matrix's ``U`` or ``Vh`` with
    ``full_matrices``, as torch fills them)."""
    return np.broadcast_to(np.eye(shape[-2], shape[-1]), shape)


def _check_finite(a: np.ndarray, is_matrix: bool) -> None:
    """torch's ``_linalg_check_errors`` for ``gesdd``'s ``info`` of -4: a NaN in a matrix
    (LAPACK refuses it; an infinity gives NaN singular values and no error)."""
    nan = np.isnan(a).reshape((-1,) + a.shape[-2:]).any(axis=(-2, -1))
    found = np.flatnonzero(nan)
    if len(found):
        where = "" if is_matrix else f"(Batch element {found[0]}): "
        raise LinAlgError(f"linalg.svd: {where}The algorithm failed to converge because the "
                          "input matrix contained non-finite values.")


def _svd(A: Tensor, full_matrices: bool, compute_uv: bool, driver: Any, *,
         meta: bool) -> Any:
    """``_linalg_svd``'s CPU and Meta kernels."""
    _svd_checks(A, driver)
    where = META if meta else CPU
    shape = A._shape
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    k = min(m, n)
    s_shape = batch + (k,)
    u_shape = batch + (m, m if full_matrices else k)
    vh_shape = batch + (n if full_matrices else k, n)
    if not compute_uv:
        u_shape = vh_shape = (0,)
    # (torch's meta function lays ``Vh`` out row-major: its Python meta registration takes
    # a meta tensor for a CUDA one, as cuSOLVER's; LAPACK's is column-major)
    u_strides, vh_strides = _matrix_strides(u_shape), _matrix_strides(vh_shape, not meta)
    s_strides = layout.contiguous_strides(s_shape)
    if meta or A.numel() == 0:
        U = factories._allocate(u_shape, u_strides, A._dtype, where)
        S = factories._allocate(s_shape, s_strides, A._dtype, where)
        Vh = factories._allocate(vh_shape, vh_strides, A._dtype, where)
        for t in (U, Vh):
            if not meta and t.numel():  # (``full_matrices``: torch's identities)
                t._elements()[...] = _identities(t._shape)
        return _LinalgSvdRaw(U, S, Vh)
    if A._dtype.itemsize == 2:
        raise NotImplementedError("\"linalg_svd_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[A._dtype.name]}'")
    a = A._elements()
    _check_finite(a, A.dim() == 2)
    with np.errstate(all="ignore"):
        finite = np.isfinite(a).all(axis=(-2, -1), keepdims=True)
        safe = np.where(finite, a, 0)  # an infinity: NaN values (gesdd's), vectors of 0
        if compute_uv:
            u, s, vh = np.linalg.svd(safe, full_matrices=full_matrices)
            u = np.where(finite, u, np.nan)
            vh = np.where(finite, vh, np.nan)
        else:
            s = np.linalg.svd(safe, compute_uv=False)
        s = np.where(finite[..., 0], s, np.nan)
    S = _new(s, s_shape, s_strides, A._dtype)
    if not compute_uv:
        return _LinalgSvdRaw(factories._allocate(u_shape, u_strides, A._dtype, CPU), S,
                             factories._allocate(vh_shape, vh_strides, A._dtype, CPU))
    return _LinalgSvdRaw(_new(u, u_shape, u_strides, A._dtype), S,
                         _new(vh, vh_shape, vh_strides, A._dtype))


aten._linalg_svd.default.impl(DispatchKey.CPU)(
    lambda A, full_matrices=False, compute_uv=True, driver=None:
    _svd(A, full_matrices, compute_uv, driver, meta=False))
aten._linalg_svd.default.impl(DispatchKey.Meta)(
    lambda A, full_matrices=False, compute_uv=True, driver=None:
    _svd(A, full_matrices, compute_uv, driver, meta=True))


OUT_DTYPE_RULES.update(_linalg_svd=_exact_out_dtype)
set_rule(aten._linalg_svd.U, OutRule(returns=_result_type("_linalg_svd_out",
                                                           ("U", "S", "Vh"))))
_LinalgSvdOut = _result_type("linalg_svd_out", ("U", "S", "Vh"))
_SvdOut = _result_type("svd_out", ("U", "S", "V"))


def _check_floating(A: Tensor) -> None:
    """``linalg_svd``'s own check, before ``_linalg_svd``'s."""
    if not A._dtype.is_floating_point:
        raise RuntimeError("linalg.svd: Expected a floating point or complex tensor as input. "
                           f"Got {SCALAR_TYPE_NAMES[A._dtype.name]}")


@aten.linalg_svd.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_svd(A: Tensor, full_matrices: bool = True, driver: Any = None) -> Any:
    """``_linalg_svd(A, full_matrices, compute_uv=True)``."""
    _check_floating(A)
    return LinalgSvdResult(*aten._linalg_svd.default.call(A, full_matrices, True, driver))


@aten.linalg_svd.U.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_svd_out(A: Tensor, full_matrices: bool, driver: Any, U: Tensor, S: Tensor,
                   Vh: Tensor) -> Any:
    """``_linalg_svd`` written into ``U``, ``S`` and ``Vh``."""
    _check_floating(A)
    aten._linalg_svd.U.call(A, full_matrices, True, driver, U, S, Vh)
    return _LinalgSvdOut(U, S, Vh)


@aten.linalg_svdvals.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_svdvals(A: Tensor, driver: Any = None) -> Tensor:
    """``_linalg_svd``'s ``S``; ``U`` and ``Vh`` computed only where a gradient may be asked
    for (grad mode on and ``A`` requiring grad: ``S``'s node is ``LinalgSvdBackward0``)."""
    compute_uv = dispatch_state.enabled and A.requires_grad
    return aten._linalg_svd.default.call(A, False, compute_uv, driver)[1]


@aten.linalg_svdvals.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_svdvals_out(A: Tensor, driver: Any, out: Tensor) -> Tensor:
    """``_linalg_svd`` without ``U`` and ``Vh`` (written into empty temporaries)."""
    U = factories._allocate((0,), (1,), A._dtype, A.device)
    Vh = factories._allocate((0,), (1,), A._dtype, A.device)
    aten._linalg_svd.U.call(A, False, False, driver, U, out, Vh)
    return out


def _legacy_dims(self: Tensor) -> None:
    if self.dim() < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has "
                           f"{self.dim()} dimensions instead")


def _zero_factors(self: Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``svd``'s ``U`` and ``V`` shapes without ``compute_uv``: ``(*, m, m)``, ``(*, n, n)``."""
    batch, m, n = self._shape[:-2], self._shape[-2], self._shape[-1]
    return batch + (m, m), batch + (n, n)


@aten.svd.default.impl(DispatchKey.CompositeImplicitAutograd)
def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """torch's legacy ``svd``: ``linalg_svd(self, not some)`` with ``V = Vh.mH`` (a view);
    without ``compute_uv``, ``linalg_svdvals`` and ``U``, ``V`` of zeros, ``(*, m, m)`` and
    ``(*, n, n)`` (``V`` the transpose of a contiguous tensor)."""
    _legacy_dims(self)
    if compute_uv:
        U, S, Vh = aten.linalg_svd.default.call(self, not some)
    else:
        S = aten.linalg_svdvals.default.call(self)
        u_shape, v_shape = _zero_factors(self)
        U = aten.zeros(u_shape, dtype=self._dtype, device=self.device)
        Vh = aten.zeros(v_shape, dtype=self._dtype, device=self.device)
        for t in (U, Vh):  # (torch's at::zeros: an empty tensor zeroed in place; on the
            if self.device.type != "meta":  # meta device its zero_ counts no version)
                t._version_counter.value += 1
    return SvdResult(U, S, aten.transpose.int.call(Vh, -2, -1))


@aten.svd.U.impl(DispatchKey.CompositeImplicitAutograd)
def svd_out(self: Tensor, some: bool, compute_uv: bool, U: Tensor, S: Tensor,
            V: Tensor) -> Any:
    """torch's ``svd_out``: ``linalg_svd_out`` into ``U``, ``S`` and ``V`` seen transposed
    (``V.transpose_(-2, -1)`` before, when ``V`` is a matrix, and after); without
    ``compute_uv``, ``U`` and ``V`` of exactly ``self``'s dtype, resized and zeroed."""
    _legacy_dims(self)
    if compute_uv:
        if V.dim() >= 2:
            aten.transpose_.default.call(V, -2, -1)
        aten.linalg_svd.U.call(self, not some, None, U, S, V)
        aten.transpose_.default.call(V, -2, -1)
        return _SvdOut(U, S, V)
    for out in (U, V):
        if out._dtype is not self._dtype:
            raise RuntimeError("torch.svd: Expected out tensor to have dtype "
                               f"{SCALAR_TYPE_NAMES[self._dtype.name]} but got "
                               f"{SCALAR_TYPE_NAMES[out._dtype.name]} instead")
    aten.linalg_svdvals.out.call(self, None, S)
    for out, shape in zip((U, V), _zero_factors(self), strict=True):
        if out._shape != shape:
            iterator.resize_output(out, shape, layout.contiguous_strides(shape))
        aten.zero_.default.call(out)
    return _SvdOut(U, S, V)
