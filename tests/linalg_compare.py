"""Comparing factorizations whose factors LAPACK defines only up to sign (issue 43).

torch's CPU wheel runs MKL's LAPACK, reftensor NumPy's (OpenBLAS). An eigenvector ``v`` and
``-v`` are both right, and so are a singular vector pair (a column of ``U`` and the row of
``Vh`` beside it) and its negation; the two libraries choose differently (``linalg.eigh``:
166 of 400 random matrices agreed in every sign; ``linalg.svd``: 2,136 of 2,332 singular
vectors), and reftensor cannot reproduce MKL's choice. Where the eigenvalues (singular
values) are distinct, each vector is unique once its sign is fixed: :func:`sign_normalized`
fixes it. Where they repeat (a rank-deficient matrix, a matrix of repeated rows), only the
reconstruction ``U diag(S) Vh`` and the orthonormality of the factors are unique
(:func:`svd_compared` with ``vectors=False``).

Each function takes torch's or reftensor's tensors alike (the same methods), so the tests
apply it to both libraries' results and compare what comes out (values within ulps, layout).
"""

from __future__ import annotations

from typing import Any

__all__ = ["eigh_sign_normalized", "sign_normalized", "svd_compared"]


def sign_normalized(vectors: Any, dim: int = -2) -> Any:
    """``vectors`` (a tensor of either library) with each vector along ``dim`` (the columns
    of each matrix by default) multiplied by the sign of its first entry whose magnitude is
    at least half of the vector's largest; a zero vector stays as it is. Where two entries
    are nearly equal in magnitude the largest one is not a stable pick across libraries (an
    ulp apart); "first of at least half the largest" is, unless an entry lies within ulps
    of exactly half. Recorded in autograd as a product with a constant sign (``sign``'s
    gradient is zero), so gradients of it are sign-invariant too."""
    if vectors.numel() == 0 or vectors.device.type == "meta":
        return vectors
    magnitude = vectors.abs()
    large = magnitude >= 0.5 * magnitude.amax(dim, keepdim=True)
    first = large.to(vectors.dtype).argmax(dim, keepdim=True)
    sign = vectors.gather(dim, first).sign()
    return vectors * (sign + (sign == 0).to(vectors.dtype))


def eigh_sign_normalized(lib: Any, name: str) -> Any:
    """``lib.linalg.<name>`` (``eigh``, or an op returning ``(eigenvalues, eigenvectors)``)
    with its eigenvectors through :func:`sign_normalized`: a plain tuple."""
    fn = getattr(lib.linalg, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        values, vectors = fn(*args, **kwargs)
        return values, sign_normalized(vectors)

    return call


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
