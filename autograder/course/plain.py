"""Plain data: the only values that cross between a student's answer and the grader.

``to_plain`` turns an answer into exact built-in types (NumPy scalars become the Python
number they hold); anything else is refused rather than trusted, so an object with a rigged
``__eq__`` can never pass a comparison. ``same`` compares plain values *with their types*: a
list is not a tuple, a bool is not an int, a tuple subclass is not a tuple. ``encode`` and
``decode`` carry plain values through JSON with a type tag on every node (never pickle).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["NotPlain", "to_plain", "same", "close_to", "agree", "encode", "decode", "show"]

_SCALARS = (type(None), bool, int, float, str)


class NotPlain(TypeError):
    """An answer held something other than None, bool, int, float, str, list or tuple."""


def to_plain(value: Any, *, _depth: int = 0) -> Any:
    """``value`` rebuilt from exact built-in types, or NotPlain.

    NumPy scalars (``np.int64(3)``, ``np.bool_(True)``, ``np.float32(0.5)``) become the
    Python value they hold. Subclasses of built-ins (``torch.Size``, namedtuples, a custom
    ``int``) are refused: their behaviour is not the built-in's.
    """
    if _depth > 50:
        raise NotPlain("the answer is nested more than 50 levels deep")
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if kind is list or kind is tuple:
        items = [to_plain(v, _depth=_depth + 1) for v in value]
        return items if kind is list else tuple(items)
    raise NotPlain(
        f"the answer contains a {kind.__module__}.{kind.__qualname__}; return plain Python "
        "values (int, bool, float, tuple, list)"
    )


def same(expected: Any, got: Any) -> bool:
    """Equal values of identical types, all the way down (nan equals nan)."""
    if type(expected) is not type(got):
        return False
    if type(expected) in (list, tuple):
        return len(expected) == len(got) and all(
            same(e, g) for e, g in zip(expected, got, strict=True)
        )
    if type(expected) is float and math.isnan(expected):
        return math.isnan(got)
    return expected == got


def close_to(rtol: float) -> Callable[[Any, Any], bool]:
    """A comparison like :func:`same` in everything (types, lengths, ints, bools, strings,
    nan equals nan) but finite floats, which agree within a relative ``rtol`` of the larger
    of the two: for an exercise whose answer computes in float32 with reftensor, whose sums
    are not made in torch's order (``Exercise.close``)."""

    def close(expected: Any, got: Any) -> bool:
        if type(expected) is not type(got):
            return False
        if type(expected) in (list, tuple):
            return len(expected) == len(got) and all(
                close(e, g) for e, g in zip(expected, got, strict=True))
        if type(expected) is float and math.isfinite(expected) and math.isfinite(got):
            return abs(expected - got) <= rtol * max(abs(expected), abs(got))
        return same(expected, got)

    close.rtol = rtol  # type: ignore[attr-defined]
    return close


def agree(close: Callable[[Any, Any], bool] | None, expected: Any, got: Any) -> bool:
    """The one rule both sides of grading compare an expected plain value and an answer's
    with: the exercise's ``close`` where it has one, else :func:`same` (exact)."""
    return (close or same)(expected, got)


def encode(value: Any) -> Any:
    """A JSON-ready form of a plain value, every node tagged with its type."""
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return {"t": "float", "v": repr(value)}
    if kind in _SCALARS:
        return {"t": kind.__name__, "v": value}
    if kind is list or kind is tuple:
        return {"t": kind.__name__, "v": [encode(v) for v in value]}
    raise NotPlain(f"cannot encode a {kind.__name__}")


def decode(node: Any) -> Any:
    """The plain value ``encode`` produced; anything malformed raises NotPlain."""
    if type(node) is not dict or set(node) != {"t", "v"}:
        raise NotPlain(f"malformed plain-data node: {node!r:.80}")
    tag, v = node["t"], node["v"]
    if tag in ("list", "tuple") and type(v) is list:
        items = [decode(x) for x in v]
        return items if tag == "list" else tuple(items)
    if tag == "float" and type(v) is str:
        return float(v)
    expected = {"NoneType": type(None), "bool": bool, "int": int, "float": float, "str": str}
    if tag in expected and type(v) is expected[tag]:
        return v
    if tag == "float" and type(v) is int:  # JSON writes 2.0 as 2.0, but be lenient on read
        return float(v)
    raise NotPlain(f"malformed plain-data node: {node!r:.80}")


def show(value: Any) -> str:
    """``repr`` for messages, with the type spelled out when it could be mistaken."""
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
