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
    # t itself comes back when the dtype and device stay, copy is not True, and the memory
    # format is preserve_format or the one torch suggests for t (channels_last for a 4-d t
    # that strides_like_channels_last, else contiguous_format). Otherwise a copy: laid out
    # as its memory format says; preserve_format keeps a non-overlapping and dense layout
    # and makes any other dense in t's dim order (dense_strides_like).
    options = dict(call)
    target = options.get("other", options.get("dtype", dtype))
    fmt = options.get("memory_format", "preserve_format")
    suggested = ("channels_last" if layout.strides_like_channels_last(shape, stride)
                 else "contiguous_format")
    if (target == dtype and options.get("device", "cpu") == "cpu"
            and not options.get("copy", False) and fmt in ("preserve_format", suggested)):
        return True, tuple(stride)
    if fmt == "channels_last":
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return False, layout.channels_last_strides(shape)
    if fmt == "contiguous_format":
        return False, layout.contiguous_strides(shape)
    if layout.is_non_overlapping_and_dense(shape, stride):
        return False, tuple(stride)
    return False, layout.dense_strides_like(shape, stride)
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
