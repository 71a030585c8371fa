"""How a tensor prints: a plain re-implementation of ``repr(torch_tensor)`` (torch 2.13).

Only torch's default print options are supported: 4 digits after the point, summarization
with ``...`` above 1000 elements keeping 3 items at each edge, and 80-column lines.

Printing happens in three steps:

1. Choose one element format for the whole tensor (:func:`_choose_format`). Integers and
   booleans print as Python prints them. Floats print in one of three styles, decided by
   looking at the finite, nonzero values only:

   * integer style ``1.``, ``-3.`` when every such value is a whole number,
   * fixed style ``0.5000`` (4 digits after the point),
   * scientific style ``1.0000e+08`` when the values span more than a factor 1000, or the
     largest is above 1e8, or the smallest is below 1e-4 (scientific wins over integer).

   Every element is right-aligned to the width of the widest finite, nonzero value.
2. Lay the elements out in nested brackets (:func:`_format_block`), wrapping long rows at
   80 columns and replacing the middle of long dimensions by ``...`` when summarizing.
3. Append the suffixes ``size=``, ``dtype=``, and ``grad_fn=`` or ``requires_grad=True``
   (:func:`_add_suffixes`).

A meta tensor has no values: it prints ``...`` and its device, size and dtype
(:func:`meta_repr`).

The module uses NumPy only; it never imports torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reftensor import dtypes

__all__ = ["tensor_repr", "meta_repr"]

PRECISION = 4  # digits after the decimal point
THRESHOLD = 1000  # more elements than this are summarized
EDGEITEMS = 3  # items kept at each end of a summarized dimension
LINEWIDTH = 80  # columns per line

PREFIX = "tensor("


@dataclass(frozen=True)
class _ElementFormat:
    """How every element of one tensor is turned into text.

    Attributes:
        is_float: the tensor has a floating-point dtype.
        int_mode: floats are all whole numbers and print as ``3.``.
        sci_mode: floats print in scientific notation, ``3.0000e+00``.
        width: every element is right-aligned to at least this many characters.
    """

    is_float: bool
    int_mode: bool
    sci_mode: bool
    width: int

    def format(self, value: float | int | bool) -> str:
        """One element as text, padded on the left to ``self.width``."""
        if not self.is_float:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."  # the dot shows that the tensor holds floats
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.width)


def _python_values(values: np.ndarray, is_float: bool) -> list:
    """The elements of ``values`` as a flat list of Python numbers.

    Floats become Python floats (float64), which hold every float16, bfloat16 and float32
    value exactly, so the text is the same as for the original values.
    """
    if is_float:
        return values.astype(np.float64).ravel().tolist()
    return values.ravel().tolist()


def _edge_elements(values: np.ndarray) -> np.ndarray:
    """The part of ``values`` that a summarized print shows.

    Along every dimension longer than ``2 * EDGEITEMS``, only the first and last
    ``EDGEITEMS`` items are kept. The element format is chosen from these elements alone.
    """
    for axis, size in enumerate(values.shape):
        if size > 2 * EDGEITEMS:
            kept = list(range(EDGEITEMS)) + list(range(size - EDGEITEMS, size))
            values = np.take(values, kept, axis=axis)
    return values


def _choose_format(values: np.ndarray, is_float: bool) -> _ElementFormat:
    """The one element format used for every element of ``values``."""
    numbers = _python_values(values, is_float)
    if not is_float:
        width = max([1] + [len(str(v)) for v in numbers])
        return _ElementFormat(is_float=False, int_mode=False, sci_mode=False, width=width)

    finite_nonzero = [v for v in numbers if math.isfinite(v) and v != 0]
    if not finite_nonzero:
        # Only zeros, nan and inf: integer style, with no padding at all.
        return _ElementFormat(is_float=True, int_mode=True, sci_mode=False, width=1)

    int_mode = all(v == math.ceil(v) for v in finite_nonzero)
    smallest = min(abs(v) for v in finite_nonzero)
    largest = max(abs(v) for v in finite_nonzero)
    sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

    if sci_mode:
        texts = [f"{v:.{PRECISION}e}" for v in finite_nonzero]
    elif int_mode:
        texts = [f"{v:.0f}." for v in finite_nonzero]
    else:
        texts = [f"{v:.{PRECISION}f}" for v in finite_nonzero]
    width = max(len(text) for text in texts)
    return _ElementFormat(is_float=True, int_mode=int_mode, sci_mode=sci_mode, width=width)


def _format_row(row: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormat) -> str:
    """A 1-d array as ``[a, b, c]``, wrapped to fit in LINEWIDTH columns.

    ``indent`` is the column of the opening bracket; continuation lines start one column
    to its right. Every item, ``...`` included, is counted as ``fmt.width + 2`` columns
    wide (the element plus ``", "``).
    """
    numbers = _python_values(row, fmt.is_float)
    if summarize and len(numbers) > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in numbers[:EDGEITEMS]]
        items.append(" ...")
        items += [fmt.format(v) for v in numbers[-EDGEITEMS:]]
    else:
        items = [fmt.format(v) for v in numbers]

    per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_block(values: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormat) -> str:
    """An array of any dimension as nested brackets.

    Sub-arrays are separated by a comma and then one newline per dimension they have, so
    rows of a matrix sit on consecutive lines and matrices are separated by a blank line.
    """
    if values.ndim == 0:
        return fmt.format(_python_values(values, fmt.is_float)[0])
    if values.ndim == 1:
        return _format_row(values, indent, summarize, fmt)

    size = values.shape[0]
    if summarize and size > 2 * EDGEITEMS:
        kept = list(range(EDGEITEMS)) + list(range(size - EDGEITEMS, size))
        parts = [_format_block(values[i], indent + 1, summarize, fmt) for i in kept]
        parts.insert(EDGEITEMS, "...")
    else:
        parts = [_format_block(values[i], indent + 1, summarize, fmt) for i in range(size)]

    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _add_suffixes(text: str, suffixes: list[tuple[str, int]], indent: int) -> str:
    """Close ``text`` with ``)``, putting each ``(suffix, width)`` after a comma first.

    A suffix stays on the current line while it fits in LINEWIDTH columns, otherwise it
    starts a new line indented by ``indent``. Like torch, the first fit check counts two
    columns more than the last line really has. ``width`` is the suffix length torch
    would measure (its dtype names say ``torch.``), so lines break where torch breaks them.
    """
    used = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix, width in suffixes:
        if used + width + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            used = indent + width
        else:
            pieces.append(", " + suffix)
            used += width + 2
    pieces.append(")")
    return "".join(pieces)


def _dtype_suffix(dtype: dtypes.dtype) -> tuple[str, int]:
    """``dtype=reftensor.X``, with the width of torch's ``dtype=torch.X``."""
    return f"dtype={dtype!r}", len(f"dtype=torch.{dtype.name}")


def tensor_repr(
    values: np.ndarray,
    dtype: dtypes.dtype,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = PREFIX,
) -> str:
    """The text ``repr`` gives for a tensor, as torch 2.13 prints it.

    Args:
        values: the tensor's elements, with the tensor's shape (any strides) and NumPy
            dtype ``dtype.numpy``.
        dtype: the tensor's reftensor dtype.
        requires_grad: the tensor is a leaf that requires grad.
        grad_fn_name: name of the node that made the tensor, e.g. ``"MulBackward0"``;
            when given, it is printed instead of ``requires_grad=True``.
        prefix: ``"tensor("``, or for a subclass its name and ``(`` (``Logged(``), as
            torch's ``_str_intern`` writes it.

    Returns:
        For example ``tensor([1, 2], dtype=reftensor.int32)``.
    """
    values = np.asarray(values)
    indent = len(prefix)
    suffixes: list[tuple[str, int]] = []
    default_dtype = dtypes.get_default_dtype()

    if values.size == 0:
        # An empty tensor gives no elements to guess the dtype from, so only the default
        # float dtype goes unnamed; the shape is named unless it is (0,).
        body = "[]"
        if values.ndim != 1:
            size_text = f"size={tuple(values.shape)}"
            suffixes.append((size_text, len(size_text)))
        if dtype is not default_dtype:
            suffixes.append(_dtype_suffix(dtype))
    else:
        summarize = values.size > THRESHOLD
        shown = _edge_elements(values) if summarize else values
        fmt = _choose_format(shown, dtype.is_floating_point)
        body = _format_block(values, indent, summarize, fmt)
        # The default float dtype, int64 and bool can be told from the printed values.
        if dtype not in (default_dtype, dtypes.int64, dtypes.bool):
            suffixes.append(_dtype_suffix(dtype))

    suffixes += _autograd_suffix(requires_grad, grad_fn_name)
    return _add_suffixes(prefix + body, suffixes, indent)


def _autograd_suffix(requires_grad: bool, grad_fn_name: str | None) -> list[tuple[str, int]]:
    if grad_fn_name is not None:
        grad_text = f"grad_fn=<{grad_fn_name}>"
        return [(grad_text, len(grad_text))]
    if requires_grad:
        return [("requires_grad=True", len("requires_grad=True"))]
    return []


def meta_repr(
    shape: tuple[int, ...],
    dtype: dtypes.dtype,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = PREFIX,
) -> str:
    """The text ``repr`` gives for a meta tensor, as torch 2.13 prints it: no values, so
    ``...``, then the device, the size (always) and the dtype unless it is the default float
    dtype (int64 and bool are named too: there are no values to tell them from).

    Returns:
        For example ``tensor(..., device='meta', size=(2, 3), dtype=reftensor.int64)``.
    """
    suffixes = [("device='meta'", len("device='meta'"))]
    size_text = f"size={tuple(shape)}"
    suffixes.append((size_text, len(size_text)))
    if dtype is not dtypes.get_default_dtype():
        suffixes.append(_dtype_suffix(dtype))
    suffixes += _autograd_suffix(requires_grad, grad_fn_name)
    return _add_suffixes(prefix + "...", suffixes, len(prefix))
