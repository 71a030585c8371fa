"""``torch.linalg``'s functions that reftensor's op table has (torch's ``python_module:
linalg`` ops, bound in ``torch._C._linalg``): ``linalg.cross`` is the op ``linalg_cross``.
"""

from __future__ import annotations

from typing import Any

from ._ops import aten
from .tensor import Tensor

__all__ = ["cross"]


def cross(*args: Any, **kwargs: Any) -> Tensor:
    """cross(input, other, *, dim=-1, out=None) -> Tensor

    Cross product of 3-vectors along ``dim`` (``torch.linalg.cross``): the op
    ``linalg_cross`` (see its docstring: same number of dims, size 3 along ``dim``, the
    other dims broadcast; ``LinalgCrossBackward0``).

    Raises RuntimeError, IndexError or NotImplementedError as the op does; TypeError for
    arguments its signature does not take.
    """
    return aten.linalg_cross(*args, **kwargs)
