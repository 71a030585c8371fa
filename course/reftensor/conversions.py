"""What ``t.to(...)`` returns: ``t`` itself, or a copy laid out how (chapter 4).

:func:`to_result` decides both by names and numbers only (the dtype's name, the shape and
strides, the call's options), so this module needs nothing of reftensor but the layout
rules. ``Tensor.to`` (``tensor.to_options``) asks it whether ``t`` itself comes back, and
the ``_to_copy`` kernels ask it for the copy's strides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import layout

__all__ = ["to_result", "to_call"]

#: one option of a ``to()`` call: ``("dtype", "float64")``, ``("device", "cpu")``,
#: ``("other", "int64")`` (the dtype of ``t.to(other)``, a CPU tensor), ``("copy", True)``,
#: ``("memory_format", "channels_last")``
Option = tuple[str, Any]


def to_result(dtype: str, shape: Sequence[int], stride: Sequence[int],
              call: Sequence[Option]) -> tuple[bool, tuple[int, ...]]:
    """``(out is t, out.stride())`` for ``t = torch.empty_strided(shape, stride,
    dtype=torch.<dtype>)`` on the CPU and ``out = t.to(...)`` called with the options
    ``call`` lists (``torch.Tensor.to``: ATen's ``to_impl`` and ``_to_copy``).

    Args:
        dtype: ``t``'s dtype name (``"float32"``, ...).
        shape, stride: ``t``'s layout, in elements (stride 0 and overlapping layouts
            included).
        call: ``(key, value)`` pairs, each an :data:`Option`: ``("dtype", name)``,
            ``("device", "cpu" | "meta")``, ``("other", name)`` for
            ``t.to(torch.empty(1, dtype=torch.<name>))``, ``("copy", flag)``, and
            ``("memory_format", name)`` with ``name`` one of ``"preserve_format"`` (the
            default), ``"contiguous_format"`` and ``"channels_last"``.

    Returns:
        ``(is_t, stride)``: whether ``t`` itself comes back (not a copy, not a view), and
        the result's strides.

    Raises:
        RuntimeError: ``channels_last`` for a tensor that is not 4-d.
    """
    # BEGIN PIECE to_result
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("to_result")(dtype, shape, stride, call)
    # END PIECE


def to_call(dtype: str | None, device: str | None, copy: bool,
            memory_format: str | None) -> tuple[Option, ...]:
    """The options of a ``to()`` call, as :func:`to_result` takes them: only those given
    (a device by its name, ``"cpu"`` or ``"cpu:0"``; ``copy`` only when True)."""
    call: list[Option] = []
    if device is not None:
        call.append(("device", device))
    if dtype is not None:
        call.append(("dtype", dtype))
    if copy:
        call.append(("copy", True))
    if memory_format is not None and memory_format != "preserve_format":
        call.append(("memory_format", memory_format))
    return tuple(call)
