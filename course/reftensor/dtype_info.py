"""``finfo`` and ``iinfo``: the limits of each dtype, as torch reports them.

A floating dtype has a sign bit, exponent bits and mantissa bits; ``eps`` is the gap between
1.0 and the next number, ``max`` the largest finite number, ``tiny`` (``smallest_normal``)
the smallest positive normal one. float16 spends more bits on the mantissa (finer steps,
``max`` 65504), bfloat16 on the exponent (float32's range, coarse steps). An integer dtype
just has ``min`` and ``max``.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from . import dtypes
from .dtypes import dtype

__all__ = ["finfo", "iinfo"]


class _Info:
    """Two infos are equal when they describe the same dtype."""

    dtype: str

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.dtype == other.dtype  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self.dtype)


class finfo(_Info):
    """Machine limits of a floating dtype (``torch.finfo``); the default dtype if none given.

    Attributes: ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``smallest_normal``,
    ``resolution`` (``10 ** -precision``, the decimal digits it keeps), ``dtype`` (a name).

    Raises:
        TypeError: ``type`` is not a floating dtype.
    """

    def __init__(self, type: dtype | None = None) -> None:
        d = dtypes.get_default_dtype() if type is None else type
        if not isinstance(d, dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = ml_dtypes.finfo(d.numpy)
        self.bits = d.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(_Info):
    """Limits of an integer dtype (``torch.iinfo``): ``bits``, ``min``, ``max``, ``dtype``.

    Raises:
        TypeError: ``type`` is floating or bool.
    """

    def __init__(self, type: dtype) -> None:
        if type is dtypes.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, dtype) or type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits = type.itemsize * 8
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # %g, as torch
