"""Comparing factorizations whose factors are defined only up to sign (issue 43).

A singular vector (a column of ``U`` and the row of ``Vh`` beside it) is defined only up to
a common sign; LAPACK's implementations choose it differently (torch's wheel calls MKL's,
reftensor NumPy's OpenBLAS's), and reftensor cannot reproduce MKL's choice. Where the
singular values are distinct, each vector is unique once its sign is fixed:
:func:`sign_normalized` multiplies each by the sign of its entry of largest magnitude.
Where they repeat (a rank-deficient matrix, a matrix of repeated rows), only the
reconstruction ``U diag(S) Vh`` and the orthonormality of the factors are unique.

Each function takes torch's or reftensor's tensors alike (the same methods), so the tests
apply it to both libraries' results and compare what comes out (values within ulps, layout).
"""

from __future__ import annotations

from typing import Any

__all__ = ["sign_normalized", "svd_compared"]


def sign_normalized(vectors: Any, dim: int) -> Any:
    """``vectors`` (a tensor of either library) with each vector along ``dim`` multiplied
    by the sign of its entry of largest magnitude (the first of equal ones), so that entry
    is positive; a zero vector stays as it is. Differentiable (the signs are constants)."""
    if vectors.numel() == 0 or vectors.device.type == "meta":
        return vectors
    index = vectors.abs().argmax(dim, keepdim=True)
    signs = vectors.gather(dim, index).sign()
    return vectors * (signs + (signs == 0).to(signs.dtype))


def svd_compared(result: Any, *, legacy: bool = False, vectors: bool = True) -> Any:
    """The form of an SVD's result (``(U, S, Vh)``, or ``(U, S, V)`` for the legacy ``svd``)
    that both libraries must agree on: the factors' shapes and strides, ``S``, and, with
    ``vectors``, the first ``k = S.shape[-1]`` columns of ``U`` and rows of ``Vh``
    sign-normalized (for matrices of distinct singular values: torch's OpInfo samples);
    without, the reconstruction ``U_k diag(S) Vh_k`` and the Gram matrices ``U_k^T U_k``
    and ``Vh_k Vh_k^T`` (unique for any matrix: the op table's drawn inputs). A result
    without vectors (``compute_uv=False``: ``U`` and ``Vh`` empty) is compared with its
    layout as it is, a meta one (no values) as a plain tuple."""
    U, S, Vh = result
    if U.device.type == "meta":  # (no values: the factors themselves)
        return tuple(result)
    layout = (tuple(U.shape), U.stride(), tuple(Vh.shape), Vh.stride())
    if legacy:
        Vh = Vh.mT
    if U.dim() < 2:
        return (*layout, U, S, Vh)
    k = S.shape[-1]
    Uk, Vhk = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    if vectors:
        return (*layout, sign_normalized(Uk, -2), S, sign_normalized(Vhk, -1))
    return (*layout, S, (Uk * S.unsqueeze(-2)) @ Vhk, Uk.mT @ Uk, Vhk @ Vhk.mT)
