"""Functions that torch writes in Python (``torch/functional.py``) rather than as ops.

``torch.tensordot`` reads its ``dims`` (an int, two lists, or a tensor holding either) and
calls the op ``aten.tensordot`` with two lists of dims.

``torch.einsum`` takes the equation then the operands (one by one or as one list), or the
sublist format (operand, its subscripts as ints, operand, ..., and the output's last), and
calls the op ``aten.einsum``.

``torch.chain_matmul`` takes its matrices one by one and calls the op
``aten.chain_matmul`` with them as one list.

``torch.norm`` (deprecated in favour of ``torch.linalg.norm`` and its kin) picks
``linalg.vector_norm`` or ``linalg.matrix_norm`` from its ``p`` and ``dim``; ``Tensor.norm``
calls it.

``torch.broadcast_shapes`` takes shapes as tuples, lists, single ints (a 1-d shape) or
``None`` (skipped), and answers with a ``Size``; the rule itself is
``broadcasting.broadcast_shapes``, which every broadcasting op follows too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import broadcasting
from ._ops import aten
from ._ops.python_functions import set_function
from .size import Size
from .tensor import Tensor

__all__ = ["broadcast_shapes", "cdist", "chain_matmul", "einsum", "norm", "tensordot"]


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``).

    Each shape is a tuple/list of ints, or one int for a 1-d shape; ``None`` is skipped.

    Raises:
        RuntimeError: shapes that do not broadcast, or an argument that is not a shape.
        ValueError: a negative size that would be broadcast.
        TypeError: a size that is not an int.
    """
    given = [(x,) if isinstance(x, int) else x for x in shapes if x is not None]
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    # torch walks the shapes in order, each from its last dim, and refuses the first negative
    # size it meets (a size that cannot be compared with 0 raises TypeError there), unless
    # a clash met before it raises first: the rule on the shapes up to that size says which
    for index, shape in enumerate(given):
        for d in reversed(range(len(shape))):
            try:
                negative = shape[d] < 0
            except TypeError:
                broadcasting.broadcast_shapes(*given[:index], shape[d:])
                raise
            if negative:
                broadcasting.broadcast_shapes(*given[:index], shape[d:])
                raise ValueError("Attempting to broadcast a dimension with negative length!")
    common = broadcasting.broadcast_shapes(*given)
    for size in common:
        if not isinstance(size, int):
            raise TypeError(
                f"Size() takes an iterable of 'int' (item 0 is '{type(size).__name__}')"
            )
    return Size(common)


def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of the matrices, one by one (``torch.chain_matmul``, deprecated: torch's
    warning once per process): the op ``chain_matmul`` on the list, as torch's Python
    function calls it (one matrix: a clone; more: ``linalg.multi_dot``'s order and
    values).

    Raises:
        RuntimeError: a tensor that is not 2-D, no matrices, dtypes that differ, sizes that
            cannot be multiplied, an ``out=`` of another dtype.
        TypeError: an argument that is not a tensor (a list of them too).
    """
    if out is None:
        return aten.chain_matmul(matrices)
    return aten.chain_matmul(matrices, out=out)


#: torch's ``cdist`` names its ``compute_mode``; the op takes these numbers
_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (``(*, r1, c)``) and each row of
    ``x2`` (``(*, r2, c)``), batch dims broadcast: a ``(*, r1, r2)`` tensor (``torch.cdist``,
    torch's Python function): the op ``cdist`` with ``compute_mode`` read as a number
    (``"use_mm_for_euclid_dist_if_necessary"``: None, the matrix product for ``p == 2`` over
    more than 25 rows; ``"use_mm_for_euclid_dist"``: 1, always for ``p == 2``;
    ``"donot_use_mm_for_euclid_dist"``: 2, never).

    Raises:
        ValueError: another ``compute_mode``.
        RuntimeError, NotImplementedError: as the op ``cdist``.
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return aten.cdist(x1, x2, p, _CDIST_MODES[compute_mode])


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """The sum of products of ``a`` and ``b`` over the dims ``dims`` names
    (``torch.tensordot``): the result has ``a``'s remaining dims, then ``b``'s.

    ``dims``: an int ``n`` (``a``'s last ``n`` dims with ``b``'s first ``n``), two lists
    (``([dims of a], [dims of b])``, contracted pairwise), or a tensor holding either (one
    element: ``n``; else two rows). The op itself is ``aten.tensordot`` (one dtype, sizes
    that match or are 1; see its docstring).

    Raises:
        RuntimeError: ``dims`` of another type, a negative ``n`` or one above either
            operand's dims; then the op's errors.
        IndexError: a dim out of range.
    """
    if not isinstance(dims, tuple | list | Tensor | int):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, tuple | list):
        dims_a, dims_b = dims
    elif isinstance(dims, Tensor) and dims.numel() > 1:
        if dims.shape[0] != 2:
            raise AssertionError
        dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
    else:
        n = int(dims.item()) if isinstance(dims, Tensor) else dims
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if isinstance(dims, int) and n > min(a.dim(), b.dim()):
            raise RuntimeError("tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        dims_a, dims_b = list(range(-n, 0)), list(range(n))
    if out is None:
        return aten.tensordot.default(a, b, dims_a, dims_b)
    return aten.tensordot.out(a, b, dims_a, dims_b, out=out)


def _subscript(n: Any) -> str:
    """torch's ``parse_subscript``: ``...`` for ``Ellipsis``, 0-25 ``A``-``Z``, 26-51
    ``a``-``z``."""
    if n == Ellipsis:
        return "..."
    if n >= 0 and n < 26:  # torch's comparisons: a str raises its TypeError
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def einsum(*args: Any) -> Tensor:
    """Sums of products of the operands over the labels the equation leaves out of the
    output (``torch.einsum``): ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    ``einsum(equation, *operands)``, ``einsum(equation, [operands])``, or the sublist format
    ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` (ints 0-51 for ``A``-``Z``, ``a``-``z``,
    ``...`` for ``Ellipsis``; the output's list last, optional). The op is ``aten.einsum``
    (torch's left-to-right contraction: opt_einsum is not installed with torch here); see
    its docstring for the rules and the graph.

    Raises:
        ValueError: fewer than two arguments; a sublist subscript outside 0-51.
        TypeError: an operand that is not a tensor; a sublist subscript that is not an int.
        RuntimeError: the op's errors (a malformed equation, operands that do not fit it).
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one "
                         "operand, or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(s) for s in args[-1])
            operands: Any = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        return einsum(equation, *operands[0])
    return aten.einsum(equation, operands)  # the parser: torch's TypeError for a non-tensor


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         out: Tensor | None = None, dtype: Any = None) -> Tensor:
    """The norm of ``input`` (``torch.norm``, deprecated in favour of ``torch.linalg``'s,
    and ``Tensor.norm``), torch's Python function for a strided tensor: a number ``p``
    (None: 2), or ``"fro"`` with ``dim`` None, an int or at most two dims, is
    ``linalg.vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)``
    (``LinalgVectorNormBackward0``); any other string is ``linalg.matrix_norm``'s over
    ``dim`` (every dim when None).

    Raises:
        RuntimeError: as ``linalg.vector_norm``; for a matrix norm, as
            ``linalg.matrix_norm`` (``dim`` not of 2 dims, an order other than ``"fro"``
            and ``"nuc"``, ...).
    """
    dims = [dim] if isinstance(dim, int) else dim
    options: dict[str, Any] = {"dtype": dtype} if out is None else {"dtype": dtype, "out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return aten.linalg_vector_norm(input, 2, dims, keepdim, **options)
        dims = list(range(input.dim())) if dims is None else list(dims)
        return aten.linalg_matrix_norm(input, p, dims, keepdim, **options)
    return aten.linalg_vector_norm(input, 2.0 if p is None else p, dims, keepdim, **options)


set_function("norm", norm)
