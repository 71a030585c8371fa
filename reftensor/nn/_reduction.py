"""The ``reduction`` argument of the losses (``torch.nn._reduction``): the strings of
``nn.functional`` and the ints of the op table, and the deprecated ``size_average`` and
``reduce`` flags that older code still passes.

``'none'`` is 0 (one loss per element), ``'mean'`` 1, ``'sum'`` 2. ``size_average`` and
``reduce``, when either is given, decide instead (with a warning): ``reduce=False`` is
``'none'``, else ``size_average=False`` is ``'sum'``, else ``'mean'`` (a missing flag counts
as True).
"""

from __future__ import annotations

import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]


def get_enum(reduction: str) -> int:
    """0, 1 or 2 for ``'none'``, ``'mean'``, ``'sum'`` (``'elementwise_mean'``, deprecated,
    is ``'mean'`` with a warning).

    Raises:
        ValueError: any other value.
    """
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average: bool | None, reduce: bool | None,
                      emit_warning: bool = True) -> str:
    """The reduction that the deprecated flags stand for, with torch's UserWarning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        found = "mean"
    elif reduce:
        found = "sum"
    else:
        found = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{found}' instead.", stacklevel=2)
    return found


def legacy_get_enum(size_average: bool | None, reduce: bool | None,
                    emit_warning: bool = True) -> int:
    """``get_enum(legacy_get_string(...))``."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
