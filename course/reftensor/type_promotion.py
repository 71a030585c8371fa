"""Type promotion by dtype name: the rules behind ``torch.promote_types`` and, for two
operands, ``torch.result_type``.

``dtypes.promote_types`` (which takes and returns dtype objects) asks :func:`promote_types`
here whenever its two dtypes differ, and ``promotion.result_type`` asks :func:`result_dtype`
for the dtype of a binary op. The rules work on names only, so this module needs nothing
else of reftensor.
"""

from __future__ import annotations

__all__ = ["promote_types", "result_dtype"]

#: (category, bytes) of each dtype: category 0 is bool, 1 the integers, 2 the floats.
KINDS: dict[str, tuple[int, int]] = {
    "bool": (0, 1), "uint8": (1, 1), "int8": (1, 1), "int16": (1, 2), "int32": (1, 4),
    "int64": (1, 8), "float16": (2, 2), "bfloat16": (2, 2), "float32": (2, 4),
    "float64": (2, 8),
}


def promote_types(a: str, b: str) -> str:
    """The name of ``torch.promote_types(torch.<a>, torch.<b>)``: the dtype that two tensors
    of dtypes ``a`` and ``b`` (with dims) promote to.

    Args:
        a, b: dtype names, each one of the ten keys of :data:`KINDS` (``"bool"``,
            ``"uint8"``, ``"int8"``, ..., ``"float64"``).

    Returns:
        One of those ten names; the same for ``(a, b)`` and ``(b, a)``, and ``a`` for
        ``(a, a)``.

    Raises:
        KeyError: a name that is not one of the ten.
    """
    # BEGIN PIECE promote_types
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("promote_types")(a, b)
    # END PIECE


def result_dtype(a: tuple, op: str, b: tuple) -> str:
    """The dtype name of ``A op B`` with the default float dtype ``float32``:
    ``torch.result_type(A, B)`` for ``op == "+"``, and the dtype of ``torch.div(A, B)`` (true
    division) for ``op == "/"``.

    Args:
        a, b: the operands ``A`` and ``B``, each ``("tensor", dtype_name, ndim)``, a tensor
            of one of the ten dtypes of :data:`KINDS` with ``ndim`` dims (0 for a 0-d tensor),
            or ``("scalar", value)``, a Python bool, int or float. At least one is a tensor.
        op: ``"+"`` (the rule of every binary op but true division) or ``"/"``.

    Returns:
        One of the ten dtype names of :data:`KINDS`.
    """
    # BEGIN PIECE result_dtype
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("result_dtype")(a, op, b)
    # END PIECE
