"""Plain 1-d tensors for grading chapter 6's ``sgd_update`` without reftensor or torch:
:class:`Vector` holds float32 or float64 values and has the tensor methods an SGD step uses,
each rounding as torch's CPU kernels round (``add(other, alpha=...)`` with one rounding, as
the fused multiply-add torch's loop compiles to). The exercise's call runs an answer on
Vectors; its reference runs ``torch.optim.SGD`` on tensors of the same values.

This module imports only NumPy: the sandbox runs it beside the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Vector"]

_DTYPES = {"float32": np.float32, "float64": np.float64}


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of float64 ``x`` into two 26-bit halves: ``hi + lo == x``."""
    c = 134217729.0 * x  # 2**27 + 1
    hi = c - (c - x)
    return hi, x - hi


def _fused(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``x * y + z`` rounded once (float32 through float64, where the product is exact;
    float64 with error-free transformations)."""
    if x.dtype != np.float64:
        wide = x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
        return wide.astype(x.dtype)
    with np.errstate(all="ignore"):
        p = x * y
        (xh, xl), (yh, yl) = _split(x), _split(y)
        p_err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
        s = p + z
        v = s - p
        s_err = (p - (s - v)) + (z - v)
        error = s_err + p_err
        result = np.where(error == 0, s, s + error)
        return np.where(np.isfinite(result), result, x * y + z)


class Vector:
    """A 1-d tensor of ``dtype`` ``"float32"`` or ``"float64"`` (``Vector([0.1, 2.0],
    "float32")``). Methods: ``add``, ``sub``, ``mul``, ``neg`` and their in-place forms
    (``add_``, ...), the operators ``+ - *`` and unary ``-``, ``clone``, ``detach`` (shares
    the values, as torch's does), ``copy_``, ``tolist``; ``alpha=`` as torch's. Another
    operand is a Vector of the same dtype and length, or a Python number."""

    __slots__ = ("_values", "dtype")

    def __init__(self, values: Sequence[float] | np.ndarray, dtype: str) -> None:
        self.dtype = dtype
        self._values = np.array(values, dtype=_DTYPES[dtype]).reshape(-1)

    @classmethod
    def _of(cls, values: np.ndarray, dtype: str) -> Vector:
        made = cls.__new__(cls)
        made.dtype, made._values = dtype, values
        return made

    def _operand(self, other: Any) -> np.ndarray:
        if isinstance(other, Vector):
            if other.dtype != self.dtype or other._values.shape != self._values.shape:
                raise RuntimeError(f"a {other.dtype} Vector of {len(other)} values does not "
                                   f"go with a {self.dtype} one of {len(self)}")
            return other._values
        if isinstance(other, bool) or not isinstance(other, int | float):
            raise TypeError(f"a Vector works with Vectors and numbers, not "
                            f"{type(other).__name__}")
        return np.full(self._values.shape, other, dtype=self._values.dtype)

    def _scale(self, alpha: Any) -> np.ndarray:
        return self._operand(alpha)

    def _added(self, other: Any, alpha: Any) -> np.ndarray:
        b = self._operand(other)
        if alpha == 1:
            return self._values + b
        return _fused(self._scale(alpha), b, self._values)

    # out of place
    def add(self, other: Any, *, alpha: float = 1) -> Vector:
        return Vector._of(self._added(other, alpha), self.dtype)

    def sub(self, other: Any, *, alpha: float = 1) -> Vector:
        return Vector._of(self._added(other, -alpha), self.dtype)

    def mul(self, other: Any) -> Vector:
        return Vector._of(self._values * self._operand(other), self.dtype)

    def neg(self) -> Vector:
        return Vector._of(-self._values, self.dtype)

    def clone(self) -> Vector:
        return Vector._of(self._values.copy(), self.dtype)

    def detach(self) -> Vector:
        return Vector._of(self._values, self.dtype)  # the same values, as torch shares them

    # in place
    def add_(self, other: Any, *, alpha: float = 1) -> Vector:
        self._values[...] = self._added(other, alpha)
        return self

    def sub_(self, other: Any, *, alpha: float = 1) -> Vector:
        self._values[...] = self._added(other, -alpha)
        return self

    def mul_(self, other: Any) -> Vector:
        self._values[...] = self._values * self._operand(other)
        return self

    def neg_(self) -> Vector:
        self._values[...] = -self._values
        return self

    def copy_(self, other: Any) -> Vector:
        self._values[...] = self._operand(other)
        return self

    # operators
    def __add__(self, other: Any) -> Vector:
        return self.add(other)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Vector:
        return self.sub(other)

    def __rsub__(self, other: Any) -> Vector:
        return self.neg().add(other)

    def __mul__(self, other: Any) -> Vector:
        return self.mul(other)

    __rmul__ = __mul__

    def __neg__(self) -> Vector:
        return self.neg()

    def __len__(self) -> int:
        return int(self._values.shape[0])

    def tolist(self) -> list[float]:
        return [float(v) for v in self._values]

    def __repr__(self) -> str:
        return f"Vector({self.tolist()}, {self.dtype!r})"
