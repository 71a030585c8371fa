"""Type promotion: which dtype an operation computes in when its operands' dtypes differ.

``promote_types(a, b)`` (in ``dtypes.py``) answers the question for two dtypes. An operation
sees *operands* instead, and torch does not treat them all alike. It sorts them into three
priority groups:

1. tensors with at least one dim;
2. 0-d tensors;
3. Python numbers ("wrapped numbers"): a bool counts as ``bool``, an int as ``int64`` and a
   float as the default dtype (``float32``).

Each group promotes within itself. Then a lower group is consulted only when it *raises the
category* (bool < integer < floating) of the higher one: ``int8_tensor + 1000`` stays int8
(and wraps around), ``int8_tensor + 2.5`` becomes float32, ``float16_tensor + 2.5`` stays
float16, ``float16_tensor + float64_0d_tensor`` stays float16.

``can_cast`` is the rule for in-place ops and outputs: the result may be written into a
tensor of a lower type of the same category, but never from floating into an integer, nor
from anything but bool into bool.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import dtypes, type_promotion
from ._ops.tensor_type import TensorType
from .dtypes import dtype, promote_types

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["result_type", "can_cast"]

#: torch's ``ScalarType`` names, which its error messages use ("result type Float ...").
SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double",
}
#: The C++ type names other messages of torch give a dtype ("Expected out tensor to have
#: dtype double, but got float instead", "can't be cast to the desired output type long int").
C_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}

Number = builtins.bool | int | builtins.float


def is_number(x: Any) -> builtins.bool:
    """True for a Python bool, int or float (the operands torch wraps as numbers)."""
    return isinstance(x, builtins.bool | int | builtins.float)


def number_dtype(x: builtins.bool | int | builtins.float) -> dtype:
    """The dtype a Python number counts as: bool, int64, or the default floating dtype."""
    if isinstance(x, builtins.bool):
        return dtypes.bool
    if isinstance(x, int):
        return dtypes.int64
    return dtypes.get_default_dtype()


def _category(d: dtype) -> int:
    """0 for bool, 1 for the integer types, 2 for the floating types."""
    if d is dtypes.bool:
        return 0
    return 2 if d.is_floating_point else 1


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Let a lower-priority group speak only if it raises the category of ``higher``."""
    if higher is None:
        return lower
    if lower is None or _category(lower) <= _category(higher):
        return higher
    return promote_types(higher, lower)


def _described(x: Any) -> tuple | None:
    """An operand as ``type_promotion.result_dtype`` takes it, or None for one it does not
    cover (not a tensor or number, or an int that only torch's uint64 holds)."""
    if isinstance(x, TensorType):
        return ("tensor", x.dtype.name, x.dim())
    if is_number(x) and not (isinstance(x, int) and not isinstance(x, builtins.bool)
                             and not -(2**63) <= x < 2**63):
        return ("scalar", x)
    return None


def binary_result_type(a: Any, op: str, b: Any) -> dtype | None:
    """The dtype of ``a op b`` for ``op`` ``"+"`` (every binary op) or ``"/"`` (true
    division), from the rule on names (``type_promotion.result_dtype``, chapter 4); None
    where that rule does not answer (an operand it does not cover, or a default float dtype
    other than float32), and ``result_type`` must. Two tensors of one dtype need no rule
    for ``"+"``."""
    if (op == "+" and isinstance(a, TensorType) and isinstance(b, TensorType)
            and a.dtype is b.dtype):
        return a.dtype
    da, db = _described(a), _described(b)
    if da is None or db is None or dtypes.get_default_dtype() is not dtypes.float32:
        return None
    return getattr(dtypes, type_promotion.result_dtype(da, op, db))


def result_type(*operands: Tensor | builtins.bool | int | builtins.float) -> dtype:
    """The dtype torch computes ``operands`` in (``torch.result_type``).

    Operands are tensors or Python bool/int/float, in any number. Groups by priority:
    tensors with dims, then 0-d tensors, then Python numbers; see the module docstring. Two
    operands go to ``binary_result_type`` first.

    Raises:
        TypeError: an operand that is neither a tensor nor a Python number.
        RuntimeError: bool tensors with a Python int of 2**63 or more (torch's uint64).
    """
    if len(operands) == 2:
        found = binary_result_type(operands[0], "+", operands[1])
        if found is not None:
            return found
    groups: list[dtype | None] = [None, None, None]
    for x in operands:
        if isinstance(x, TensorType):  # (the Tensor class, without importing its module)
            group, d = (0 if x.dim() > 0 else 1), x.dtype
        elif is_number(x):
            group, d = 2, number_dtype(x)
        else:
            raise TypeError(
                f"result_type(): expected a Tensor or a Number, but got {type(x).__name__}"
            )
        groups[group] = d if groups[group] is None else promote_types(groups[group], d)
    tensors = _combine(groups[0], groups[1])
    if (tensors is None or tensors is dtypes.bool) and any(
            isinstance(x, int) and not isinstance(x, builtins.bool) and x >= 2**63
            for x in operands):
        # torch holds such an int as uint64, and it would decide the result here
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           "attempted to promote Bool and UInt64")
    result = _combine(tensors, groups[2])
    if result is None:
        raise TypeError("result_type() needs at least one operand")
    return result


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """May a value of type ``from_`` be written into a tensor of type ``to``
    (``torch.can_cast``)? Yes unless floating goes into an integer type, or a non-bool into
    bool. Narrowing within a category (float64 into float16, int64 into uint8) is allowed.

    Raises:
        TypeError: an argument that is not a dtype.
    """
    if not isinstance(from_, dtype) or not isinstance(to, dtype):
        raise TypeError("can_cast(): arguments 'from_' and 'to' must be dtypes")
    return _category(from_) <= _category(to)


#: An op's own check of an ``out=`` tensor's dtype, by op name, where torch's is not
#: ``check_can_cast``: ``rule(result, out)`` raises. ``matmul.py`` adds the matrix products'
#: (``out`` must have exactly the result's dtype); ``out_arguments.py`` applies them.
OUT_DTYPE_RULES: dict[str, Callable[[Tensor, Tensor], None]] = {}


def check_can_cast(result: dtype, output: dtype) -> None:
    """Raise torch's RuntimeError when an op's ``result`` type cannot go into ``output``."""
    if not can_cast(result, output):
        raise RuntimeError(
            f"result type {SCALAR_TYPE_NAMES[result.name]} can't be cast to the desired "
            f"output type {SCALAR_TYPE_NAMES[output.name]}"
        )
