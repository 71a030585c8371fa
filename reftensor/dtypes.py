"""Element types: what one element of a storage means and how many bytes it takes.

A ``dtype`` is a small, immutable description of an element type. It carries the same
attributes as ``torch.dtype`` (``itemsize``, ``is_floating_point``, ``is_signed``,
``is_complex``) plus the NumPy dtype reftensor uses to read the bytes of a storage.
``bfloat16`` comes from ml_dtypes, because NumPy has no 16-bit brain float of its own.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from . import type_promotion

__all__ = [
    "dtype",
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "half",
    "float",
    "double",
    "short",
    "int",
    "long",
    "get_default_dtype",
    "set_default_dtype",
    "ALL_DTYPES",
]

_builtin_bool = bool


class dtype:
    """One element type, mirroring ``torch.dtype``.

    Attributes:
        name: the torch name, for example ``"float32"``.
        itemsize: bytes per element (``torch.dtype.itemsize``).
        is_floating_point: True for float16, bfloat16, float32 and float64.
        is_signed: True for every type that can hold a negative number.
        is_complex: always False here (reftensor has no complex types).
        numpy: the NumPy dtype used to read and write the bytes of a storage.
    """

    __slots__ = ("name", "itemsize", "is_floating_point", "is_signed", "numpy")

    name: str
    itemsize: int
    is_floating_point: _builtin_bool
    is_signed: _builtin_bool
    numpy: np.dtype

    def __init__(self, name: str, numpy_dtype: object, is_floating_point: _builtin_bool) -> None:
        np_dtype = np.dtype(numpy_dtype)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "numpy", np_dtype)
        object.__setattr__(self, "itemsize", np_dtype.itemsize)
        object.__setattr__(self, "is_floating_point", is_floating_point)
        object.__setattr__(self, "is_signed", name not in ("bool", "uint8"))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("dtype objects are immutable")

    @property
    def is_complex(self) -> _builtin_bool:
        return False

    def __repr__(self) -> str:
        return f"reftensor.{self.name}"

    __str__ = __repr__

    def __reduce__(self) -> str:
        # Pickle by name so the module-level singletons stay singletons.
        return self.name


bool = dtype("bool", np.bool_, False)
uint8 = dtype("uint8", np.uint8, False)
int8 = dtype("int8", np.int8, False)
int16 = dtype("int16", np.int16, False)
int32 = dtype("int32", np.int32, False)
int64 = dtype("int64", np.int64, False)
float16 = dtype("float16", np.float16, True)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, True)
float32 = dtype("float32", np.float32, True)
float64 = dtype("float64", np.float64, True)

# torch's aliases: torch.half is torch.float16, and so on.
half = float16
float = float32
double = float64
short = int16
int = int32  # torch.int is int32, not int64
long = int64

ALL_DTYPES: tuple[dtype, ...] = (
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
)

_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}

_default_dtype = float32


def get_default_dtype() -> dtype:
    """The floating type that factories use for Python floats (``torch.get_default_dtype``)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the default floating type (``torch.set_default_dtype``).

    Raises:
        TypeError: ``d`` is not one of float16, bfloat16, float32, float64.
    """
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The reftensor dtype that reads bytes the way ``np_dtype`` does.

    Raises:
        TypeError: NumPy types torch has no counterpart for (strings, objects, uint16, ...),
            worded as ``torch.from_numpy`` words it.
    """
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}. The only supported "
            "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to safely (``torch.promote_types``).

    Equal dtypes need no rule; for two different ones the rule on their names is
    ``type_promotion.promote_types`` (chapter 4).
    """
    if a is b:
        return a
    return _BY_NAME[type_promotion.promote_types(a.name, b.name)]
