"""Type promotion for two dtypes, by name: the rule behind ``torch.promote_types``.

``dtypes.promote_types`` (which takes and returns dtype objects) asks
:func:`promote_types` here whenever its two dtypes differ. The rule works on names only, so
this module needs nothing else of reftensor.
"""

from __future__ import annotations

__all__ = ["promote_types"]

#: (category, bytes) of each dtype: category 0 is bool, 1 the integers, 2 the floats.
KINDS: dict[str, tuple[int, int]] = {
    "bool": (0, 1), "uint8": (1, 1), "int8": (1, 1), "int16": (1, 2), "int32": (1, 4),
    "int64": (1, 8), "float16": (2, 2), "bfloat16": (2, 2), "float32": (2, 4),
    "float64": (2, 8),
}


def promote_types(a: str, b: str) -> str:
    """The name of ``torch.promote_types(torch.<a>, torch.<b>)`` for dtype names ``a`` and
    ``b`` (``"bool"``, ``"uint8"``, ..., ``"float64"``): the smallest dtype that holds the
    values of both.

    A higher category wins outright (bool < integer < floating point). Within a category
    the wider type wins, with two exceptions where neither holds the other: ``uint8`` with
    ``int8`` meets at ``int16``, ``float16`` with ``bfloat16`` at ``float32``.

    Raises:
        KeyError: a name that is not one of the ten dtypes.
    """
    # BEGIN PIECE promote_types
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("promote_types")(a, b)
    # END PIECE
