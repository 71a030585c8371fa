"""Comparing whole tensors: ``equal``, ``isclose`` and ``allclose``, as torch computes them.

``equal`` asks whether two tensors hold the same values (a reduction of ``==`` to one Python
bool); ``isclose`` asks, element by element, whether two values are within a tolerance of
each other, and ``allclose`` reduces that to one bool. All three are torch's composites of
chapter 3's elementwise ops and chapter 4's ``all``, written here with the op table's ops in
torch's order, so their corner cases are torch's:

- ``equal`` compares in the two tensors' ``result_type`` (``equal(ones(2), ones(2,
  dtype=int64))`` is True), never broadcasts (other shapes give False), and nan is not
  equal to itself;
- ``isclose`` is ``a == b``, or (``equal_nan``) both nan, or ``|a - b| <= atol + |rtol *
  b|`` with ``|a - b|`` finite: an infinity is close only to itself. Integer and bool
  inputs are converted to the default dtype before the subtraction (``uint8`` would wrap),
  and zero tolerances leave only ``==``.

Every op here is an entry of the op table (``reftensor/_ops/native_functions.py``); this
module registers their kernels. None has a gradient (their results are bool).
"""

from __future__ import annotations

from . import dtypes
from ._ops import DispatchKey, aten
from .promotion import SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []  # the ops are reftensor's generated bindings (reftensor.equal, ...)


def _equal(self: Tensor, other: Tensor) -> bool:
    """torch's ``cpu_equal``: same shape, and every element equal in the common dtype.

    Raises:
        NotImplementedError: a meta tensor (torch has no meta kernel for ``equal``).
        RuntimeError: the tensors are on two devices.
    """
    if self.is_meta or other.is_meta:
        raise NotImplementedError("aten::equal: attempted to run this operator with Meta "
                                  "tensors, but there was no fake impl or Meta kernel "
                                  "registered.")
    if self.device != other.device:
        raise RuntimeError(f"Cannot compare two tensors on different devices. Got: "
                           f"{self.device} and {other.device}")
    if self._shape != other._shape:
        return False
    return bool(aten.all.default.call(aten.eq.Tensor.call(self, other)))


def _isclose(self: Tensor, other: Tensor, rtol: float, atol: float, equal_nan: bool
             ) -> Tensor:
    """torch's ``isclose`` (a composite: the ops below, in its order).

    Raises:
        RuntimeError: two dtypes, a negative ``rtol`` or ``atol``, shapes that do not
            broadcast.
    """
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{SCALAR_TYPE_NAMES[self._dtype.name]} did not match "
                           f"{SCALAR_TYPE_NAMES[other._dtype.name]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = aten.eq.Tensor.call(self, other)
    if equal_nan and self._dtype.is_floating_point:  # (in place, as torch: _version 1)
        close.bitwise_or_(self.isnan().bitwise_and_(other.isnan()))
    if rtol == 0 and atol == 0:
        return close
    if not self._dtype.is_floating_point:  # (uint8's difference would wrap)
        self, other = self.to(dtypes.get_default_dtype()), other.to(dtypes.get_default_dtype())
    allowed = (other * rtol).abs() + atol
    actual = (self - other).abs()
    return close.bitwise_or_(actual.isfinite().bitwise_and_(actual <= allowed))


def _allclose(self: Tensor, other: Tensor, rtol: float, atol: float, equal_nan: bool
              ) -> bool:
    """``isclose(...).all().item()``.

    Raises:
        RuntimeError: as ``isclose``; a meta tensor (``item()``).
    """
    every = aten.all.default.call(_isclose(self, other, rtol, atol, equal_nan))
    if every.is_meta:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(every)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.equal.default.impl(_key)(_equal)
    aten.allclose.default.impl(_key)(_allclose)
aten.isclose.default.impl(DispatchKey.CompositeImplicitAutograd)(_isclose)
