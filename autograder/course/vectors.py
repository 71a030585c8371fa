"""Plain 1-d tensors for grading chapter 6's ``sgd_update`` and ``adam_update`` without
reftensor or torch: :class:`Vector` holds float32 or float64 values and has the tensor methods
an SGD or Adam step uses, each rounding as torch's CPU kernels round (``add(other, alpha=...)``,
``lerp_`` and ``addcmul_`` with one rounding of their multiply-add, as the fused multiply-add
torch's loop compiles to; ``addcdiv_`` as ``self + (value * t1) / t2``; a Python number
operand rounded to the Vector's dtype first). The exercise's call runs an answer on Vectors;
its reference runs ``torch.optim.SGD`` or ``torch.optim.Adam`` on tensors of the same values.

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
    "float32")``). Methods: ``add``, ``sub``, ``mul``, ``div``, ``neg``, ``sqrt``, ``lerp``,
    ``addcmul``, ``addcdiv``, ``maximum`` and the in-place forms of all but ``maximum``
    (``add_``, ...), the operators ``+ - * /`` and unary ``-``, ``clone``, ``detach`` (shares
    the values, as torch's does), ``copy_``, ``tolist``; ``alpha=``, ``weight`` and
    ``value=`` as torch's. Another operand is a Vector of the same dtype and length, or a
    Python number."""

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

    def div(self, other: Any) -> Vector:
        with np.errstate(all="ignore"):
            return Vector._of(self._values / self._operand(other), self.dtype)

    def sqrt(self) -> Vector:
        with np.errstate(all="ignore"):
            return Vector._of(np.sqrt(self._values), self.dtype)

    def maximum(self, other: Any) -> Vector:
        if not isinstance(other, Vector):
            raise TypeError(f"maximum takes a Vector, not {type(other).__name__}")
        return Vector._of(np.maximum(self._values, self._operand(other)), self.dtype)

    def _lerped(self, end: Any, weight: Any) -> np.ndarray:
        if not isinstance(end, Vector):
            raise TypeError(f"lerp's end is a Vector, not {type(end).__name__}")
        if isinstance(weight, Vector) or not isinstance(weight, int | float):
            raise TypeError("lerp's weight here is a Python number")
        start, stop = self._values, self._operand(end)
        w = self._values.dtype.type(weight)
        with np.errstate(all="ignore"):
            diff = stop - start
            if abs(w) < 0.5:  # torch's two formulas, each a fused multiply-add
                return _fused(np.full_like(start, w), diff, start)
            return _fused(np.full_like(start, -(1 - w)), diff, stop)

    def _addcmuled(self, t1: Any, t2: Any, value: Any) -> np.ndarray:
        scaled = self._operand(value) * self._tensor(t1)  # (value * t1) * t2 + self, fused
        return _fused(scaled, self._tensor(t2), self._values)

    def _addcdived(self, t1: Any, t2: Any, value: Any) -> np.ndarray:
        with np.errstate(all="ignore"):
            return self._values + (self._operand(value) * self._tensor(t1)) / self._tensor(t2)

    def _tensor(self, other: Any) -> np.ndarray:
        if not isinstance(other, Vector):
            raise TypeError(f"expected a Vector, not {type(other).__name__}")
        return self._operand(other)

    def lerp(self, end: Any, weight: Any) -> Vector:
        return Vector._of(self._lerped(end, weight), self.dtype)

    def addcmul(self, tensor1: Any, tensor2: Any, *, value: float = 1) -> Vector:
        return Vector._of(self._addcmuled(tensor1, tensor2, value), self.dtype)

    def addcdiv(self, tensor1: Any, tensor2: Any, *, value: float = 1) -> Vector:
        return Vector._of(self._addcdived(tensor1, tensor2, value), self.dtype)

    # in place
    def div_(self, other: Any) -> Vector:
        self._values[...] = self.div(other)._values
        return self

    def sqrt_(self) -> Vector:
        self._values[...] = self.sqrt()._values
        return self

    def lerp_(self, end: Any, weight: Any) -> Vector:
        self._values[...] = self._lerped(end, weight)
        return self

    def addcmul_(self, tensor1: Any, tensor2: Any, *, value: float = 1) -> Vector:
        self._values[...] = self._addcmuled(tensor1, tensor2, value)
        return self

    def addcdiv_(self, tensor1: Any, tensor2: Any, *, value: float = 1) -> Vector:
        self._values[...] = self._addcdived(tensor1, tensor2, value)
        return self

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

    def __truediv__(self, other: Any) -> Vector:
        return self.div(other)

    def __neg__(self) -> Vector:
        return self.neg()

    def __len__(self) -> int:
        return int(self._values.shape[0])

    def tolist(self) -> list[float]:
        return [float(v) for v in self._values]

    def __repr__(self) -> str:
        return f"Vector({self.tolist()}, {self.dtype!r})"
