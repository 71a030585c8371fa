"""``reftensor.linalg`` (torch's ``torch.linalg``), and ``reftensor.norm`` (``torch.norm``).

``linalg.cross`` is the op table's ``linalg_cross`` (chapter 3's products, ``matmul.py``).

``linalg.multi_dot`` is the op table's ``linalg_multi_dot`` (``matmul.py``: torch's
decomposition into ``mm`` in the cheapest order).

``linalg.matrix_power`` is the op table's ``linalg_matrix_power`` (``matmul.py``: torch's
repeated squaring with ``matmul``).

``linalg.vector_norm`` is the op table's ``linalg_vector_norm`` (torch's
``python_module: linalg`` op; its kernels are in ``reductions.py``). ``norm`` is torch's
Python function (``torch/functional.py``), which ``Tensor.norm`` calls too: a number ``p``
(None: 2) or ``"fro"`` over at most two dims is ``linalg.vector_norm``; ``"nuc"`` and the
other strings are ``linalg.matrix_norm``'s, whose checks are torch's and whose nuclear norm
(a sum of singular values) reftensor does not compute.
"""

from __future__ import annotations

from typing import Any

from ._ops import aten
from ._ops.python_functions import set_function
from .promotion import SCALAR_TYPE_NAMES
from .tensor import Tensor, wrap_dim

__all__ = ["cross", "matrix_power", "multi_dot", "vector_norm"]


def cross(*args: Any, **kwargs: Any) -> Tensor:
    """cross(input, other, *, dim=-1, out=None) -> Tensor

    Cross product of 3-vectors along ``dim`` (``torch.linalg.cross``): the op
    ``linalg_cross`` (see its docstring: same number of dims, size 3 along ``dim``, the
    other dims broadcast; ``LinalgCrossBackward0``).

    Raises RuntimeError, IndexError or NotImplementedError as the op does; TypeError for
    arguments its signature does not take.
    """
    return aten.linalg_cross(*args, **kwargs)


def matrix_power(*args: Any, **kwargs: Any) -> Tensor:
    """matrix_power(A, n, *, out=None) -> Tensor

    ``A`` to the power ``n`` (``torch.linalg.matrix_power``): the op
    ``linalg_matrix_power`` (see its docstring: square matrices, torch's order of products;
    a negative ``n`` raises NotImplementedError, as reftensor has no ``linalg.inv``).

    Raises RuntimeError or NotImplementedError as the op does; TypeError for arguments its
    signature does not take.
    """
    return aten.linalg_matrix_power(*args, **kwargs)


def multi_dot(*args: Any, **kwargs: Any) -> Tensor:
    """multi_dot(tensors, *, out=None) -> Tensor

    The product of a chain of matrices (``torch.linalg.multi_dot``): the op
    ``linalg_multi_dot`` (see its docstring: a 1-D first tensor is a row, a 1-D last one a
    column, the products in the cheapest order, as torch's).

    Raises RuntimeError or NotImplementedError as the op does; TypeError for arguments its
    signature does not take.
    """
    return aten.linalg_multi_dot(*args, **kwargs)


def vector_norm(*args: Any, **kwargs: Any) -> Any:
    """vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    The vector ``ord``-norm of ``input`` over ``dim`` (``torch.linalg.vector_norm``):
    ``sum(|x|**ord)**(1/ord)``, ``ord`` inf the largest ``|x|``, -inf the smallest, 0 the
    count of nonzero elements; ``dim`` None or ``()`` is every dim. A float tensor of
    ``dtype`` (or the input's dtype) shaped as a reduction's result.

    Raises:
        RuntimeError: an integer or bool input, a ``dtype=`` that is not floating or is
            narrower than the input's, a negative or infinite ``ord`` over an empty dim, a
            dim listed twice, an ``out=`` of another dtype.
        IndexError: a dim out of range.
    """
    return aten.linalg_vector_norm(*args, **kwargs)


def _matrix_norm_checks(input: Tensor, ord: str, dim: list[int], dtype: Any) -> None:
    """torch's ``_linalg_matrix_norm_checks`` and order check (``linalg.matrix_norm``).

    Raises:
        RuntimeError: fewer than 2 dims, an integer or bool input (float16/bfloat16 for
            ``"nuc"``), ``dim`` not of 2 different dims, a ``dtype=`` that is not floating or
            narrower than the input's, an order other than ``"fro"`` and ``"nuc"``.
        IndexError: a dim out of range.
    """
    name = SCALAR_TYPE_NAMES[input.dtype.name]
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor "
                           f"as input. Got {name}")
    if ord == "nuc" and input.dtype.itemsize == 2:
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got {name}")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    first, second = (wrap_dim(d, input.dim()) for d in dim)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({first}, "
                           f"{second})")
    if dtype is not None and (not dtype.is_floating_point
                              or dtype.itemsize < input.dtype.itemsize):
        raise RuntimeError(f"linalg.matrix_norm: dtype {dtype} is not floating or narrows "
                           f"the input's ({name})")
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         out: Tensor | None = None, dtype: Any = None) -> Tensor:
    """The norm of ``input`` (``torch.norm``, deprecated in favour of ``torch.linalg``'s,
    and ``Tensor.norm``), torch's Python function for a strided tensor: a number ``p``
    (None: 2), or ``"fro"`` with ``dim`` None, an int or at most two dims, is
    ``linalg.vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)``
    (``LinalgVectorNormBackward0``); any other string is ``linalg.matrix_norm``'s over
    ``dim`` (every dim when None).

    Raises:
        RuntimeError: as ``linalg.vector_norm``; for a matrix norm, torch's checks
            (``dim`` not of 2 dims, an order other than ``"fro"`` and ``"nuc"``, ...).
        NotImplementedError: the nuclear norm (``"nuc"``) of a valid input: reftensor has no
            singular value decomposition.
    """
    dims = [dim] if isinstance(dim, int) else dim
    options: dict[str, Any] = {"dtype": dtype} if out is None else {"dtype": dtype, "out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return aten.linalg_vector_norm(input, 2, dims, keepdim, **options)
        dims = list(range(input.dim())) if dims is None else list(dims)
        _matrix_norm_checks(input, p, dims, dtype)
        raise NotImplementedError("reftensor.norm: the nuclear norm ('nuc', "
                                  "torch.linalg.matrix_norm's sum of singular values) is not "
                                  "implemented")
    return aten.linalg_vector_norm(input, 2.0 if p is None else p, dims, keepdim, **options)


set_function("norm", norm)
