"""reftensor: PyTorch's strided tensor, written to be read.

The same names and semantics as torch (``reftensor.tensor``, ``Tensor.stride()``,
``reftensor.channels_last``, ...), so one program runs on both libraries. Built on NumPy;
torch is never imported.
"""

import importlib

from . import dtypes, layout

# Chapters 2 and 3: each module lists its public functions in ``__all__``.
from .broadcasting import *  # noqa: F403
from .copies import *  # noqa: F403
from .device import device
from .dtype_info import finfo, iinfo
from .dtypes import (
    bfloat16,
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from .elementwise import *  # noqa: F403
from .factories import (
    arange,
    as_strided,
    as_tensor,
    empty,
    empty_strided,
    from_numpy,
    full,
    linspace,
    ones,
    tensor,
    zeros,
)
from .layout import channels_last, contiguous_format, memory_format, preserve_format
from .matmul import *  # noqa: F403
from .promotion import *  # noqa: F403
from .reductions import *  # noqa: F403
from .size import Size
from .storage import UntypedStorage
from .tensor import Tensor
from .views import *  # noqa: F403

__version__ = "0.1.0"


def is_tensor(obj: object) -> "builtins.bool":  # noqa: F821, F405
    """True for a ``reftensor.Tensor`` (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> "builtins.int":  # noqa: F821, F405
    """Number of elements of ``input`` (``torch.numel``)."""
    return input.numel()


__all__ = [
    "Size", "Tensor", "UntypedStorage", "arange", "as_strided", "as_tensor", "bfloat16",
    "bool", "channels_last", "contiguous_format", "device", "double", "dtype", "dtypes",
    "empty", "empty_strided", "float", "float16", "float32", "float64", "from_numpy", "full",
    "get_default_dtype", "half", "int", "int8", "int16", "int32", "int64", "is_tensor",
    "layout", "linspace", "long", "memory_format", "numel", "ones", "preserve_format",
    "promote_types", "set_default_dtype", "short", "tensor", "uint8", "zeros", "finfo", "iinfo",
    *(name for module in ("broadcasting", "copies", "elementwise", "matmul", "promotion",
                          "reductions", "views")
      for name in importlib.import_module(f".{module}", __name__).__all__),
]
