"""The eigendecomposition of symmetric matrices: ``linalg.eigh`` and ``linalg.eigvalsh``
(torch's ``_linalg_eigh``, a structured kernel on LAPACK's ``syevd``, and its composites).

``A = V diag(L) V.mT`` for a symmetric ``A`` of ``(*, n, n)``: the eigenvalues ``L``
(``(*, n)``, ascending) and the orthonormal eigenvectors, the columns of ``V`` (each matrix
column-major, as LAPACK writes it). Only the lower (``UPLO="L"``) or upper (``"U"``)
triangle of ``A`` is read.

reftensor calls NumPy's ``eigh`` and ``eigvalsh`` (OpenBLAS's ``syevd``); torch's CPU wheel
runs MKL's. The eigenvalues agree within a few ulps of the largest magnitude (measured:
at most 7 on 400 random matrices, sizes 1 to 8, float32 and float64). An eigenvector is
defined up to its sign, and the two libraries choose differently about half of the time
(166 of 400 matrices agreed in every sign): reftensor cannot reproduce MKL's choice, so
compare eigenvectors up to sign (``tests/linalg_compare.py``'s ``sign_normalized``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes, factories, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from ._ops.state import state as dispatch_state
from .device import CPU, META
from .linalg import (
    LinAlgError,
    _exact_out_dtype,
    _matrix_strides,
    _new,
    _result_type,
    _square,
)
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []

LinalgEighResult = _result_type("_linalg_eigh", ("eigenvalues", "eigenvectors"))
EighResult = _result_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
EighOutResult = _result_type("linalg_eigh_out", ("eigenvalues", "eigenvectors"))


def _check_uplo(uplo: str) -> bool:
    """torch's ``checkUplo`` (the first letter read in either case): True for ``"U"``."""
    first = uplo[:1].upper()
    if len(uplo) != 1 or first not in ("U", "L"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")
    return first == "U"


def _eigh(A: Tensor, UPLO: str, compute_v: bool, *, meta: bool) -> Any:
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix of ``A`` (torch's
    ``_linalg_eigh``); without ``compute_v`` the eigenvectors are an empty ``(0,)`` tensor."""
    _square(A, "linalg.eigh")
    upper = _check_uplo(UPLO)
    where, shape = META if meta else CPU, A._shape
    batch_n = shape[:-1]
    value_strides = layout.contiguous_strides(batch_n)
    if compute_v:
        vector_shape, vector_strides = shape, _matrix_strides(shape)
    else:
        vector_shape, vector_strides = (0,), (1,)
    if meta or A.numel() == 0:
        return LinalgEighResult(_new(None, batch_n, value_strides, A._dtype, where),
                                _new(None, vector_shape, vector_strides, A._dtype, where))
    if A._dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[A._dtype.name]}'")
    m = A._elements()
    uplo = "U" if upper else "L"
    try:
        if compute_v:
            values, vectors = np.linalg.eigh(m, UPLO=uplo)
        else:
            values, vectors = np.linalg.eigvalsh(m, UPLO=uplo), None
    except np.linalg.LinAlgError as error:
        raise LinAlgError("linalg.eigh: The algorithm failed to converge because the input "
                          "matrix is ill-conditioned or has too many repeated eigenvalues "
                          f"(error code: {error}).") from None
    vector_values = vectors.astype(m.dtype, copy=False) if compute_v else None
    return LinalgEighResult(
        _new(values.astype(m.dtype, copy=False), batch_n, value_strides, A._dtype),
        _new(vector_values, vector_shape, vector_strides, A._dtype))


aten._linalg_eigh.default.impl(DispatchKey.CPU)(
    lambda A, UPLO="L", compute_v=True: _eigh(A, UPLO, compute_v, meta=False))
aten._linalg_eigh.default.impl(DispatchKey.Meta)(
    lambda A, UPLO="L", compute_v=True: _eigh(A, UPLO, compute_v, meta=True))
OUT_DTYPE_RULES.update(_linalg_eigh=_exact_out_dtype)
LinalgEighOutResult = _result_type("_linalg_eigh_out", ("eigenvalues", "eigenvectors"))


def _eigenvalues_of_resized_input(A: Tensor, uplo: str) -> np.ndarray:
    """What torch's kernel computes when ``out=`` is ``A`` itself and ``compute_v`` is False:
    the eigenvalues out was resized to ``(*, n)`` first, so ``A`` is now that; its column-major
    clone is read as LAPACK reads it, ``n = A.size(-1)`` with a leading dimension ``n``
    (entry ``(i, j)`` at ``i + j n`` of each matrix's ``rows * n`` elements, zeros past
    them), over ``A``'s batch."""
    if A.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {A.dim()}-D tensor.")
    rows, n = A._shape[-2], A._shape[-1]
    columns = np.swapaxes(A._elements(), -1, -2).reshape((-1, rows * n))
    buffer = np.zeros((columns.shape[0], max(rows * n, n * n)), columns.dtype)
    buffer[:, :rows * n] = columns
    matrices = np.swapaxes(buffer[:, :n * n].reshape((-1, n, n)), -1, -2)
    return np.linalg.eigvalsh(matrices, UPLO=uplo).astype(columns.dtype, copy=False)


def _eigh_out(A: Tensor, UPLO: str, compute_v: bool, eigenvalues: Tensor,
              eigenvectors: Tensor) -> Any:
    """torch's structured ``_linalg_eigh.eigenvalues``: the checks, the outs' dtypes, the
    outs resized (with the deprecation warning), then the kernel, which reads ``A`` as it is
    after the resize (an ``A`` that is the eigenvalues' out has become ``(*, n)``)."""
    found = _eigh(A, UPLO, compute_v, meta=True)
    outs = (eigenvalues, eigenvectors)
    for r, out in zip(found, outs, strict=True):
        _exact_out_dtype(r, out)
    for r, out in zip(found, outs, strict=True):
        if out._shape != r._shape:
            iterator.resize_output(out, r._shape, r._stride)
    if A.numel() and A is eigenvalues and not compute_v:
        values = _eigenvalues_of_resized_input(A, "U" if _check_uplo(UPLO) else "L")
        eigenvalues._elements().reshape(-1)[:values.size] = values.reshape(-1)
    elif A.numel():
        computed = _eigh(A, UPLO, compute_v, meta=False)
        for r, out in zip(computed, outs, strict=True):
            if r.numel():
                out._elements()[...] = r._elements()
    for out in outs:  # (each out= written once, as torch counts it)
        out._version_counter.value += 1
    return LinalgEighOutResult(*outs)


out_arguments.set_rule(aten._linalg_eigh.eigenvalues, out_arguments.OutRule(
    returns=LinalgEighOutResult, writes=_eigh_out))


@aten.linalg_eigh.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_eigh(self: Tensor, UPLO: str = "L") -> Any:
    """``_linalg_eigh(self, UPLO, compute_v=True)``."""
    found = aten._linalg_eigh.default.call(self, UPLO, True)
    return EighResult(found[0], found[1])


@aten.linalg_eigh.eigvals.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_eigh_out(self: Tensor, UPLO: str, eigvals: Tensor, eigvecs: Tensor) -> Any:
    """``_linalg_eigh`` written into ``eigvals`` and ``eigvecs``."""
    aten._linalg_eigh.eigenvalues.call(self, UPLO, True, eigvals, eigvecs)
    return EighOutResult(eigvals, eigvecs)


def _may_require_grad(A: Tensor) -> bool:
    """torch's ``_may_require_fw_or_bw_grad``: grad mode on and ``A`` requiring grad."""
    return dispatch_state.enabled and A.requires_grad


@aten.linalg_eigvalsh.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:
    """``_linalg_eigh``'s eigenvalues, the eigenvectors computed only when ``self``
    requires grad (the backward needs them)."""
    return aten._linalg_eigh.default.call(self, UPLO, _may_require_grad(self))[0]


@aten.linalg_eigvalsh.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_eigvalsh_out(self: Tensor, UPLO: str, out: Tensor) -> Tensor:
    """``_linalg_eigh(self, UPLO, compute_v=False)``'s eigenvalues written into ``out``."""
    vectors = factories._allocate((0,), (1,), self._dtype, self.device)
    aten._linalg_eigh.eigenvalues.call(self, UPLO, False, out, vectors)
    return out
