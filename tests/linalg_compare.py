"""Comparing factorizations whose factors LAPACK defines only up to sign.

torch's CPU wheel runs MKL's LAPACK, reftensor NumPy's (OpenBLAS): an eigenvector (a
singular vector) ``v`` and ``-v`` are both right, and the two libraries choose differently
about half of the time (``linalg.eigh``: 166 of 400 random matrices agreed in every sign).
Tests compare such factors through :func:`sign_normalized`, on both libraries alike.
"""

from __future__ import annotations

from typing import Any

__all__ = ["sign_normalized"]


def sign_normalized(vectors: Any) -> Any:
    """Each column of each matrix of ``vectors`` (a torch or reftensor tensor,
    ``(*, m, k)``) multiplied by the sign of its first entry whose magnitude is at least
    half of the column's largest (a zero column is left as it is). Where two entries are
    nearly equal in magnitude the largest one is not a stable pick across libraries (an
    ulp apart); "first of at least half the largest" is, unless an entry lies within
    ulps of exactly half. The result is recorded in autograd as a product with a constant
    sign (``sign``'s gradient is zero), so gradients of it are sign-invariant too."""
    magnitude = vectors.abs()
    large = magnitude >= 0.5 * magnitude.amax(-2, keepdim=True)
    first = large.to(vectors.dtype).argmax(-2, keepdim=True)
    sign = vectors.gather(-2, first).sign()
    return vectors * (sign + (sign == 0).to(vectors.dtype))


def eigh_sign_normalized(lib: Any, name: str) -> Any:
    """``lib.linalg.<name>`` (``eigh``, or an op returning ``(eigenvalues, eigenvectors)``)
    with its eigenvectors through :func:`sign_normalized`: a plain tuple."""
    fn = getattr(lib.linalg, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        values, vectors = fn(*args, **kwargs)
        return values, sign_normalized(vectors)

    return call
