"""``reftensor.linalg`` (torch's ``torch.linalg``).

``linalg.cross`` is the op table's ``linalg_cross`` (chapter 3's products, ``matmul.py``).

``linalg.det``, ``linalg.inv``, ``linalg.inv_ex``, ``linalg.solve`` and ``linalg.solve_ex`` (and
``det``, ``inverse``) are the op table's LU-based ops, whose kernels are below (a singular
matrix raises :class:`LinAlgError`, torch's ``torch.linalg.LinAlgError``).

``linalg.multi_dot`` is the op table's ``linalg_multi_dot`` (``matmul.py``: torch's
decomposition into ``mm`` in the cheapest order).

``linalg.matrix_power`` is the op table's ``linalg_matrix_power`` (``matmul.py``: torch's
repeated squaring with ``matmul``, of ``linalg.inv(A)`` for a negative power).

``linalg.vector_norm`` is the op table's ``linalg_vector_norm`` (torch's
``python_module: linalg`` op; its kernels are in ``reductions.py``). ``linalg.matrix_norm``
is the op ``linalg_matrix_norm``, torch's composite of ``linalg_vector_norm``, ``amax`` and
``amin``, and of ``linalg_svdvals`` for the orders 2, -2 and ``"nuc"``. ``linalg.norm`` is
the op ``linalg_norm``, torch's composite that picks one of the two from ``ord`` and
``dim``. (``reftensor.norm``, torch's deprecated ``torch.norm``, is in ``functional.py``.)

``linalg.svd`` and ``linalg.svdvals`` are the op table's ``linalg_svd`` and
``linalg_svdvals`` (``linalg_svd.py``: LAPACK's ``gesdd``; singular vectors only up to sign).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np

from . import broadcasting, dtypes, factories, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .promotion import C_TYPE_NAMES, OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor, wrap_dim

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh", "inv",
           "inv_ex", "matrix_norm", "matrix_power", "multi_dot", "norm", "qr", "solve", "solve_ex",
           "svd", "svdvals", "vector_norm"]


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
    a negative ``n`` raises ``linalg.inv(A)`` to ``-n``).

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


def _matrix_norm_checks(input: Tensor, dim: list[int], dtype: Any, *,
                        low_precision: bool) -> list[int]:
    """torch's ``_linalg_matrix_norm_checks`` (``linalg.matrix_norm``): the dims wrapped.

    Raises:
        RuntimeError: fewer than 2 dims, an integer or bool input (float16/bfloat16 unless
            ``low_precision``), ``dim`` not of 2 different dims, a ``dtype=`` that is not
            floating or narrower than the input's.
        IndexError: a dim out of range.
    """
    name = SCALAR_TYPE_NAMES[input.dtype.name]
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor "
                           f"as input. Got {name}")
    if not low_precision and input.dtype.itemsize == 2:
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
    return [first, second]


def _singular_value_norm(self: Tensor, dims: list[int], keepdim: bool, dtype: Any,
                         reduce: Any) -> Tensor:
    """``ord`` 2, -2 (the largest or smallest singular value) and ``"nuc"`` (their sum), as
    torch's composite: ``A`` (cast to ``dtype`` first) permuted so that the two dims come
    last (``create_dim_backshift_permutation``), ``linalg_svdvals`` of that, ``reduce``
    over the last dim (``amax``, ``amin`` or ``sum``, keeping it with ``keepdim``); with
    ``keepdim`` the result unsqueezed and permuted back."""
    A = self if dtype is None else self.to(dtype)
    order = [d for d in range(self.dim()) if d not in dims] + dims
    values = aten.linalg_svdvals.default.call(aten.permute.default.call(A, order))
    result = reduce(values, [-1], keepdim)
    if keepdim:
        back = [order.index(d) for d in range(self.dim())]
        result = aten.permute.default.call(aten.unsqueeze.default.call(result, -1), back)
    return result


def _largest(values: Tensor, dim: list[int], keepdim: bool) -> Tensor:
    """``amax`` over the one dim of ``dim``, but the largest of no values (that dim of size
    0) is 0 (torch's: a new tensor, filled in place, so at _version 1, not recorded)."""
    d = wrap_dim(dim[0], values.dim())
    if values._shape[d] != 0:
        return aten.amax.default.call(values, dim, keepdim)
    shape = list(values.shape)
    shape[d:d + 1] = [1] if keepdim else []
    zeros = factories._allocate(tuple(shape), layout.contiguous_strides(tuple(shape)),
                                values.dtype, values.device)
    zeros._version_counter.value += 1
    return zeros


@aten.linalg_matrix_norm.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_matrix_norm(self: Tensor, ord: Any, dim: Any = (-2, -1), keepdim: bool = False,
                       dtype: Any = None) -> Tensor:
    """torch's ``linalg_matrix_norm`` for a number ``ord``: 1 (-1) is the largest (smallest)
    column sum of ``|A|``, ``amax``/``amin`` of ``linalg_vector_norm(A, 1, dim[0])`` over
    the other dim; inf (-inf) the same over rows; 2 and -2 are singular values'."""
    order = float(ord)
    if abs(order) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {order:g} not supported.")
    dims = _matrix_norm_checks(self, list(dim), dtype, low_precision=abs(order) != 2)
    if abs(order) == 2:
        return _singular_value_norm(self, dims, keepdim, dtype,
                                    _largest if order > 0 else aten.amin.default.call)
    if abs(order) == math.inf:
        dims = [dims[1], dims[0]]
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1
    sums = aten.linalg_vector_norm.default.call(self, 1.0, [dims[0]], keepdim, dtype)
    if order > 0:  # (the largest of no sums, a reduced dim of size 0, is 0; the smallest
        return _largest(sums, [dims[1]], keepdim)  # raises as amin does)
    return aten.amin.default.call(sums, [dims[1]], keepdim)


def _out_dtype_as(name: str) -> Callable[[Tensor, Tensor], None]:
    """torch's ``linalg_<name>_out`` check, in its words: ``out`` of exactly the result's
    dtype."""
    def check(result: Tensor, out: Tensor) -> None:
        if out._dtype is not result._dtype:
            raise RuntimeError(f"linalg.{name} expected out tensor dtype "
                               f"{SCALAR_TYPE_NAMES[result._dtype.name]} but got: "
                               f"{SCALAR_TYPE_NAMES[out._dtype.name]}")
    return check


OUT_DTYPE_RULES.update(linalg_matrix_norm=_out_dtype_as("matrix_norm"))


@aten.linalg_matrix_norm.str_ord.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_matrix_norm_str(self: Tensor, ord: str = "fro", dim: Any = (-2, -1),
                           keepdim: bool = False, dtype: Any = None) -> Tensor:
    """torch's ``linalg_matrix_norm`` for ``"fro"`` (``linalg_vector_norm(A, 2, dim)``)
    and ``"nuc"`` (the sum of the singular values)."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = _matrix_norm_checks(self, list(dim), dtype, low_precision=ord != "nuc")
    if ord == "nuc":
        return _singular_value_norm(self, dims, keepdim, dtype,
                                    lambda values, dim, keep: aten.sum.dim_IntList.call(
                                        values, dim, keep, None))
    return aten.linalg_vector_norm.default.call(self, 2, dims, keepdim, dtype)


def matrix_norm(*args: Any, **kwargs: Any) -> Tensor:
    """matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None) -> Tensor

    The matrix ``ord``-norm of ``A`` over the two dims ``dim`` (``torch.linalg.matrix_norm``):
    ``"fro"`` the square root of the sum of squares, 1 (-1) the largest (smallest) sum of
    ``|A|`` down a column, inf (-inf) along a row, 2 (-2) the largest (smallest) singular
    value and ``"nuc"`` their sum (``linalg.svdvals`` of ``A`` with the two dims moved last;
    ``LinalgSvdBackward0``); a float tensor of ``dtype`` (or ``A``'s) with the two dims
    reduced (kept as size 1 with ``keepdim``).

    Raises:
        RuntimeError: an order not supported, fewer than 2 dims, an integer or bool input
            (float16 and bfloat16 too for 2, -2 and ``"nuc"``), ``dim`` not of 2 different
            dims, a bad ``dtype=``.
        IndexError: a dim out of range.
    """
    return aten.linalg_matrix_norm(*args, **kwargs)


def _norm_checks(A: Tensor, ord_given: bool, dim: Any) -> None:
    """torch's checks in ``linalg_norm`` (its C++ composite), before either norm's own."""
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dim)}")
    elif ord_given and A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")


@aten.linalg_norm.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_norm(self: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:
    """torch's ``linalg_norm`` for a number ``ord`` (or None): a matrix norm where ``ord`` is
    given and ``dim`` names two dims (or is None for a 2-d input: dims 0 and 1), else the
    vector norm of ``ord`` (None: 2) over ``dim``."""
    _norm_checks(self, ord is not None, dim)
    if ord is not None and ((dim is not None and len(dim) == 2)
                            or (dim is None and self.dim() == 2)):
        dims = [0, 1] if dim is None else list(dim)
        return aten.linalg_matrix_norm.default.call(self, ord, dims, keepdim, dtype)
    return aten.linalg_vector_norm.default.call(self, 2.0 if ord is None else ord, dim,
                                                keepdim, dtype)


@aten.linalg_norm.ord_str.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_norm_str(self: Tensor, ord: str, dim: Any = None, keepdim: bool = False,
                    dtype: Any = None) -> Tensor:
    """torch's ``linalg_norm`` for a string ``ord``: always a matrix norm, over ``dim``
    (None: dims 0 and 1 of a 1-d or 2-d input)."""
    _norm_checks(self, True, dim)
    dims = [0, 1] if dim is None else list(dim)
    return aten.linalg_matrix_norm.str_ord.call(self, ord, dims, keepdim, dtype)


OUT_DTYPE_RULES.update(linalg_norm=_out_dtype_as("norm"))


def norm(*args: Any, **kwargs: Any) -> Tensor:
    """norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    The vector or matrix norm of ``A`` (``torch.linalg.norm``): with ``ord`` given and
    ``dim`` of two dims (or None with a 2-d ``A``), ``linalg.matrix_norm(A, ord, dim)``
    (dims 0 and 1 when None); otherwise ``linalg.vector_norm(A, ord, dim)`` (``ord`` None:
    2, every dim when ``dim`` is None). A string ``ord`` (``"fro"``, ``"nuc"``) is always a
    matrix norm. A float tensor of ``dtype`` (or ``A``'s), the dims reduced.

    Raises:
        RuntimeError: ``dim`` of neither 1 nor 2 dims; ``ord`` given without ``dim`` for an
            input that is not 1-d or 2-d; each norm's own errors (an integer input, an
            order not supported, ...); an ``out=`` of another dtype.
        IndexError: a dim out of range.
    """
    return aten.linalg_norm(*args, **kwargs)




# ------------------------------------------------------------------ LU: det, inv, solve
# torch's ``_linalg_det``, ``linalg_inv_ex`` and ``_linalg_solve_ex`` are structured kernels
# built on LAPACK's LU factorization with partial pivoting (``getrf``) and its solve
# (``getrs``). reftensor factors and solves in NumPy, in the input's own dtype, column by
# column as LAPACK's unblocked ``getf2`` does (the pivot is the first row of largest
# magnitude); LAPACK's blocked code rounds in another order, so values may differ from
# torch's in the last bits. Like torch, a contiguous ``A`` is factored as ``A.mT``
# (``det(A.mT) == det(A)``; ``A X = B`` is then solved as ``(A.mT).mT X = B``), so ``LU``
# and ``pivots`` are those of the matrix torch factors.
def _user_stacklevel() -> int:
    """The ``stacklevel`` of a warning issued by this function's caller that points at the
    first frame outside reftensor (the user's call, however deep the dispatch went)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(
            "reftensor"):
        frame, level = frame.f_back, level + 1
    return level


class _WarnOnce:
    """torch's ``TORCH_WARN_ONCE`` for a deprecated op: ``message`` once per process from
    each call site (``"function"``, ``"out"``), pointing at the user's call."""

    def __init__(self, message: str) -> None:
        self.message, self.warned = message, set[str]()

    def __call__(self, site: str) -> None:
        if site not in self.warned:
            self.warned.add(site)
            warnings.warn(self.message, UserWarning, stacklevel=_user_stacklevel())


class LinAlgError(RuntimeError):
    """A matrix that the algorithm cannot handle (``torch.linalg.LinAlgError``, torch's
    ``_LinAlgError``): a singular matrix to invert or solve with."""


def _result_type(name: str, fields: tuple[str, ...]) -> type:
    """A named tuple printed as ``torch.return_types.<name>`` is (``reftensor.return_types``)."""
    def __repr__(self: tuple[Any, ...]) -> str:
        parts = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=True))
        return f"reftensor.return_types.{name}(\n{parts})"

    base = NamedTuple(name, [(f, Tensor) for f in fields])  # type: ignore[misc]
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__module__": "reftensor.return_types"})


LinalgDetResult = _result_type("_linalg_det", ("result", "LU", "pivots"))
LinalgInvExResult = _result_type("linalg_inv_ex", ("inverse", "info"))
LinalgSolveExResult = _result_type("_linalg_solve_ex", ("result", "LU", "pivots", "info"))
SolveExResult = _result_type("linalg_solve_ex", ("result", "info"))


def _square(A: Tensor, name: str, arg: str = "A") -> None:
    """torch's ``squareCheckInputs``."""
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")


def _floating(A: Tensor, name: str, *, low_precision: bool = True) -> None:
    """torch's ``checkFloatingOrComplex``."""
    type_name = SCALAR_TYPE_NAMES[A._dtype.name]
    if not A._dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name}")
    if not low_precision and A._dtype.itemsize == 2:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {type_name}")


def _lapack_dtype(A: Tensor) -> None:
    """The CPU kernels' dispatch: LAPACK has float32 and float64 (and complex)."""
    if A._dtype.itemsize == 2 and A.numel():  # (nothing to factor: no kernel is looked up)
        raise NotImplementedError(f"\"lu_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[A._dtype.name]}'")


def _matrix_strides(shape: tuple[int, ...], f_contig: bool = True) -> tuple[int, ...]:
    """torch's ``batched_matrix_contiguous_strides``: the batch contiguous, each matrix
    column-major (``f_contig``) or row-major."""
    if not f_contig or len(shape) < 2:
        return layout.contiguous_strides(shape)
    return (*layout.contiguous_strides(shape)[:-2], 1, max(shape[-2], 1))


def _new(values: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...],
         d: dtypes.dtype, where: Any = CPU) -> Tensor:
    t = factories._allocate(shape, strides, d, where)
    if where is CPU and t.numel():
        t._elements()[...] = values
    return t


def _lu_factor(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``m`` (``(..., n, n)``) factored as ``P m = L U``: the packed ``LU`` (``L``'s unit
    diagonal left out), the 1-based ``pivots`` (row ``j`` was swapped with ``pivots[j] - 1``)
    and LAPACK's ``info`` (0, or the 1-based index of the first zero on ``U``'s diagonal)."""
    batch, n = m.shape[:-2], m.shape[-1]
    count = math.prod(batch)
    lu = np.array(m.reshape((count, n, n)), copy=True)
    pivots = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    rows = np.arange(count)
    with np.errstate(all="ignore"):
        for j in range(n):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=-1)
            pivots[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
            pivot = lu[:, j, j]
            zero = pivot == 0
            info[(info == 0) & zero] = j + 1
            below = lu[:, j + 1:, j]
            tiny = np.abs(pivot) < ml_dtypes.finfo(lu.dtype).tiny  # (LAPACK's sfmin: divide)
            below[~zero & tiny] /= pivot[~zero & tiny, None]
            scale = ~zero & ~tiny
            below[scale] *= (1 / pivot[scale])[:, None]
            lu[:, j + 1:, j + 1:] -= below[:, :, None] * lu[:, j, None, j + 1:]
    return lu.reshape(m.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """``X`` with ``M X = B`` (``M.mT X = B`` when ``adjoint``), ``M`` the matrix that
    ``lu`` and ``pivots`` factor: LAPACK's ``getrs``. The batch dims broadcast."""
    batch = broadcasting.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    n, k = b.shape[-2], b.shape[-1]
    count = math.prod(batch)
    lu = np.broadcast_to(lu, batch + (n, n)).reshape((count, n, n))
    pivots = np.broadcast_to(pivots, batch + (n,)).reshape((count, n)) - 1
    x = np.array(np.broadcast_to(b, batch + (n, k)), copy=True).reshape((count, n, k))
    rows = np.arange(x.shape[0])
    with np.errstate(all="ignore"):
        if not adjoint:
            for j in range(n):  # P B
                p = pivots[:, j]
                top = x[rows, j].copy()
                x[rows, j] = x[rows, p]
                x[rows, p] = top
            for j in range(n):  # L Y = P B
                x[:, j + 1:] -= lu[:, j + 1:, j, None] * x[:, j, None]
            for j in reversed(range(n)):  # U X = Y
                x[:, j] *= 1 / lu[:, j, j, None]
                x[:, :j] -= lu[:, :j, j, None] * x[:, j, None]
        else:
            for j in range(n):  # U.mT Z = B
                x[:, j] *= 1 / lu[:, j, j, None]
                x[:, j + 1:] -= lu[:, j, j + 1:, None] * x[:, j, None]
            for j in reversed(range(n)):  # L.mT W = Z
                x[:, :j] -= lu[:, j, :j, None] * x[:, j, None]
            for j in reversed(range(n)):  # X = P.mT W
                p = pivots[:, j]
                top = x[rows, j].copy()
                x[rows, j] = x[rows, p]
                x[rows, p] = top
    return x.reshape(batch + (n, k))


def _check_errors(info: Tensor, name: str, is_matrix: bool) -> None:
    """torch's ``_linalg_check_errors``: the first nonzero ``info`` (and its batch element)
    as a :class:`LinAlgError`; nothing for a meta ``info``, which has no values."""
    if info.device.type == "meta":
        return
    values = info._elements().reshape(-1) if info.numel() else np.zeros(0, np.int32)
    found = np.flatnonzero(values)
    if not len(found):
        return
    where = "" if is_matrix else f": (Batch element {found[0]})"
    if "inv" in name:
        raise LinAlgError(f"{name}{where}: The diagonal element {values[found[0]]} is zero, "
                          "the inversion could not be completed because the input matrix is "
                          "singular.")
    raise LinAlgError(f"{name}{where}: The solver failed because the input matrix is "
                      "singular.")


def lu_solve_values(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
                    adjoint: bool = False) -> Tensor:
    """``linalg.lu_solve``'s values, not recorded (what torch's backward formulas of
    ``_linalg_det`` and ``_linalg_solve_ex`` call outside grad mode): ``X`` with
    ``M X = B`` (``left``) or ``X M = B``, ``M`` the matrix ``LU`` and ``pivots`` factor, or
    its transpose (``adjoint``); a new tensor laid out as torch's (each matrix column-major
    for ``left``)."""
    b = B._elements()
    if not left:
        b = np.swapaxes(b, -1, -2)
    x = _lu_solve(LU._elements(), pivots._elements(), b, adjoint if left else not adjoint)
    if not left:
        x = np.swapaxes(x, -1, -2)
    return _new(x, x.shape, _matrix_strides(x.shape, left), B._dtype)


# ---- _linalg_det
def _det_checks(A: Tensor) -> None:
    _square(A, "linalg.det")
    _floating(A, "linalg.det")


def _det(A: Tensor, *, meta: bool) -> Any:
    """``det(A)`` with the LU factorization it comes from (``torch._linalg_det``)."""
    _det_checks(A)
    shape, where = A._shape, META if meta else CPU
    batch, n = shape[:-2], shape[-1]
    if meta:
        return LinalgDetResult(_new(None, batch, layout.contiguous_strides(batch), A._dtype,
                                    where),
                               _new(None, shape, _matrix_strides(shape), A._dtype, where),
                               _new(None, batch + (n,), layout.contiguous_strides(batch + (n,)),
                                    dtypes.int32, where))
    _lapack_dtype(A)
    m = A._elements()
    lu, pivots, _ = _lu_factor(np.swapaxes(m, -1, -2) if A.is_contiguous() else m)
    swaps = np.count_nonzero(pivots != np.arange(1, n + 1, dtype=np.int32), axis=-1)
    sign = np.where(swaps % 2 == 0, 1, -1).astype(m.dtype)
    with np.errstate(all="ignore"):
        det = sign * np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
    return LinalgDetResult(_new(det, batch, layout.contiguous_strides(batch), A._dtype),
                           _new(lu, shape, _matrix_strides(shape), A._dtype),
                           _new(pivots, batch + (n,), layout.contiguous_strides(batch + (n,)),
                                dtypes.int32))


aten._linalg_det.default.impl(DispatchKey.CPU)(lambda A: _det(A, meta=False))
aten._linalg_det.default.impl(DispatchKey.Meta)(lambda A: _det(A, meta=True))


def _exact_out_dtype(result: Tensor, out: Tensor) -> None:
    """A structured kernel's ``out=``: exactly the result's dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{C_TYPE_NAMES[result._dtype.name]}, but got "
                           f"{C_TYPE_NAMES[out._dtype.name]} instead")


OUT_DTYPE_RULES.update(_linalg_det=_exact_out_dtype, linalg_inv_ex=_exact_out_dtype,
                       _linalg_solve_ex=_exact_out_dtype)
_LinalgDetOut = _result_type("_linalg_det_out", ("result", "LU", "pivots"))


def _linalg_det_out(A: Tensor, result: Tensor, LU: Tensor, pivots: Tensor) -> Any:
    """``_linalg_det(A, out=(result, LU, pivots))`` as torch's structured kernel: its meta
    function checks ``A`` and gives each out its shape in turn (dtype exactly the result's,
    then resized), and only then does the kernel read ``A``. An out that *is* ``A`` has
    its new shape by then: ``linalg.det(A, out=A)`` of a ``(2, 3, 3)`` ``A`` reads a 1-d
    ``A`` ("tensor.mH is only supported on matrices or batches of matrices")."""
    outs = (result, LU, pivots)
    for out in outs:
        iterator.assert_no_internal_overlap(out)
        if out is not A:
            iterator.assert_no_partial_overlap(out, A)
    _det_checks(A)
    shape = A._shape
    batch, n = shape[:-2], shape[-1]
    wanted = ((batch, layout.contiguous_strides(batch), A._dtype),
              (shape, _matrix_strides(shape), A._dtype),
              (batch + (n,), layout.contiguous_strides(batch + (n,)), dtypes.int32))
    for out, (size, stride, d) in zip(outs, wanted, strict=True):
        if out._dtype is not d:
            raise RuntimeError(f"Expected out tensor to have dtype {C_TYPE_NAMES[d.name]}, "
                               f"but got {C_TYPE_NAMES[out._dtype.name]} instead")
        if out._shape != size:
            iterator.resize_output(out, size, stride)
    if A.ndim == 1:  # (the kernel factors ``A.mH`` of a contiguous ``A``)
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    if A.ndim == 0:
        raise RuntimeError("torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           "size: [] instead")
    for out, value in zip(outs, _det(A, meta=False), strict=True):
        if out._shape != value._shape:  # (``A`` was an out: a 0-d det of its new 0 x 0)
            iterator.resize_output(out, value._shape, value._stride)
        out_arguments.writer(out, value)
    return _LinalgDetOut(*outs)


out_arguments.set_rule(aten._linalg_det.result, out_arguments.OutRule(
    returns=_LinalgDetOut, writes=_linalg_det_out))


@aten.linalg_det.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_det(A: Tensor) -> Tensor:
    """``_linalg_det(A).result``."""
    return aten._linalg_det.default.call(A)[0]


@aten.linalg_det.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_det_out(A: Tensor, out: Tensor) -> Tensor:
    """``_linalg_det`` written into ``out`` (its ``LU`` and ``pivots`` into temporaries)."""
    LU = factories._allocate((0,), (1,), A._dtype, A.device)
    pivots = factories._allocate((0,), (1,), dtypes.int32, A.device)
    aten._linalg_det.result.call(A, out, LU, pivots)
    return out


@aten.det.default.impl(DispatchKey.CompositeImplicitAutograd)
def det_composite(self: Tensor) -> Tensor:
    """``linalg_det(self)`` (``torch.det``)."""
    return aten.linalg_det.default.call(self)


# ---- _linalg_solve_ex
def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """torch's ``linalg_solve_is_vector_rhs``: ``B`` is a vector or a batch of vectors."""
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and B._shape == A._shape[:-1])


def _solve_shapes(A: Tensor, B: Tensor, left: bool) -> tuple[tuple[int, ...], bool]:
    """The meta function's checks, in its order: the result's shape, and the vector case."""
    _floating(A, "linalg.solve")
    if A._dtype is not B._dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {SCALAR_TYPE_NAMES[A._dtype.name]} and B of type "
                           f"{SCALAR_TYPE_NAMES[B._dtype.name]} instead")
    vector = _is_vector_rhs(A, B)
    b_shape = B._shape + (1,) if vector else B._shape
    _square(A, "linalg.solve")
    if len(b_shape) < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if (A._shape[-2] != b_shape[-2]) if left else (A._shape[-1] != b_shape[-1]):
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A._shape[-2]}x{A._shape[-1]} "
                           f"and {b_shape[-2]}x{b_shape[-1]})")
    batch = broadcasting.broadcast_shapes(b_shape[:-2], A._shape[:-2])
    if not left and vector:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")
    return (batch + b_shape[-2:-1] if vector else batch + b_shape[-2:]), vector


def _solve(A: Tensor, B: Tensor, left: bool, check_errors: bool, *, meta: bool) -> Any:
    """``X`` with ``A X = B`` (``left``) or ``X A = B``, and ``A``'s LU factorization
    (``torch._linalg_solve_ex``)."""
    shape, vector = _solve_shapes(A, B, left)
    where, n = META if meta else CPU, A._shape[-1]
    batch = A._shape[:-2]
    strides = _matrix_strides(shape, left)
    lu_strides = _matrix_strides(A._shape)
    if meta:
        return LinalgSolveExResult(
            _new(None, shape, strides, B._dtype, where),
            _new(None, A._shape, lu_strides, A._dtype, where),
            _new(None, batch + (n,), layout.contiguous_strides(batch + (n,)), dtypes.int32,
                 where),
            _new(None, batch, layout.contiguous_strides(batch), dtypes.int32, where))
    _lapack_dtype(A)
    use_transpose = A.is_contiguous()
    m = A._elements()
    lu, pivots, info = _lu_factor(np.swapaxes(m, -1, -2) if use_transpose else m)
    info_t = _new(info, batch, layout.contiguous_strides(batch), dtypes.int32)
    if check_errors:
        _check_errors(info_t, "torch.linalg.solve_ex", A.dim() == 2)
    b = B._elements()[..., None] if vector else B._elements()
    if left:
        x = _lu_solve(lu, pivots, b, use_transpose)
    else:
        x = np.swapaxes(_lu_solve(lu, pivots, np.swapaxes(b, -1, -2), not use_transpose),
                        -1, -2)
    return LinalgSolveExResult(
        _new(x[..., 0] if vector else x, shape, strides, B._dtype),
        _new(lu, A._shape, lu_strides, A._dtype),
        _new(pivots, batch + (n,), layout.contiguous_strides(batch + (n,)), dtypes.int32),
        info_t)


aten._linalg_solve_ex.default.impl(DispatchKey.CPU)(
    lambda A, B, left=True, check_errors=False: _solve(A, B, left, check_errors, meta=False))
aten._linalg_solve_ex.default.impl(DispatchKey.Meta)(
    lambda A, B, left=True, check_errors=False: _solve(A, B, left, check_errors, meta=True))
out_arguments.set_rule(aten._linalg_solve_ex.result, out_arguments.OutRule(
    returns=_result_type("_linalg_solve_ex_out", ("result", "LU", "pivots", "info"))))


@aten.linalg_solve_ex.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_solve_ex(A: Tensor, B: Tensor, left: bool = True, check_errors: bool = False
                    ) -> Any:
    """``_linalg_solve_ex``'s ``result`` and ``info``."""
    found = aten._linalg_solve_ex.default.call(A, B, left, check_errors)
    return SolveExResult(found[0], found[3])


SolveExOutResult = _result_type("linalg_solve_ex_out", ("result", "info"))


@aten.linalg_solve_ex.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_solve_ex_out(A: Tensor, B: Tensor, left: bool, check_errors: bool, result: Tensor,
                        info: Tensor) -> Any:
    """``_linalg_solve_ex`` written into ``result`` and ``info`` (its ``LU`` and ``pivots``
    into temporaries)."""
    LU = factories._allocate((0,), (1,), B._dtype, B.device)
    pivots = factories._allocate((0,), (1,), dtypes.int32, B.device)
    aten._linalg_solve_ex.result.call(A, B, left, check_errors, result, LU, pivots, info)
    return SolveExOutResult(result, info)


@aten.linalg_solve.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:
    """``linalg_solve_ex``'s result; a singular ``A`` raises."""
    result, info = aten.linalg_solve_ex.default.call(A, B, left, False)
    _check_errors(info, "torch.linalg.solve", A.dim() == 2)
    return result


@aten.linalg_solve.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_solve_out(A: Tensor, B: Tensor, left: bool, out: Tensor) -> Tensor:
    info = factories._allocate((0,), (1,), dtypes.int32, B.device)
    aten.linalg_solve_ex.out.call(A, B, left, False, out, info)
    _check_errors(info, "torch.linalg.solve", A.dim() == 2)
    return out


# ---- linalg_inv_ex
def _inv(A: Tensor, check_errors: bool, *, meta: bool) -> Any:
    """``A``'s inverse, solved as ``A X = I`` (torch's ``linalg_inv_ex``), and ``info``."""
    _square(A, "linalg.inv")
    _floating(A, "linalg.inv", low_precision=False)
    where, batch = META if meta else CPU, A._shape[:-2]
    if meta:
        return LinalgInvExResult(
            _new(None, A._shape, _matrix_strides(A._shape), A._dtype, where),
            _new(None, batch, layout.contiguous_strides(batch), dtypes.int32, where))
    eye = np.broadcast_to(np.eye(A._shape[-1], dtype=A._dtype.numpy), A._shape)
    identity = _new(eye, A._shape, _matrix_strides(A._shape), A._dtype)
    found = _solve(A, identity, True, False, meta=False)
    if check_errors:
        _check_errors(found[3], "linalg.inv_ex", A.dim() == 2)
    return LinalgInvExResult(found[0], found[3])


aten.linalg_inv_ex.default.impl(DispatchKey.CPU)(
    lambda A, check_errors=False: _inv(A, check_errors, meta=False))
aten.linalg_inv_ex.default.impl(DispatchKey.Meta)(
    lambda A, check_errors=False: _inv(A, check_errors, meta=True))
def _inverse_into_itself(inputs: list[Any], outs: list[Tensor]) -> list[Any]:
    """``linalg_inv_ex(A, out=(A, info))``: torch's kernel fills its ``inverse`` with the
    identity and then solves ``A X = inverse`` into it. When that ``inverse`` is ``A`` itself
    (already of the result's layout, so that no temporary stands in for it), ``A`` is the
    identity by then and so is the result: ``linalg.inv(a, out=a)`` of a ``1 x 1`` ``a`` is
    ``[[1.]]``. (Not on the meta device: nothing to fill.)"""
    A = inputs[0]
    if (outs[0] is A and A.ndim >= 2 and A._shape[-1] == A._shape[-2]
            and A._dtype.is_floating_point and A._stride == _matrix_strides(A._shape)
            and A.device is CPU):
        A._elements()[...] = np.eye(A._shape[-1], dtype=A._dtype.numpy)  # (no _version bump)
    return inputs


out_arguments.set_rule(aten.linalg_inv_ex.inverse, out_arguments.OutRule(
    prepare=_inverse_into_itself,
    returns=_result_type("linalg_inv_ex_out", ("inverse", "info"))))


@aten.linalg_inv.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_inv(A: Tensor) -> Tensor:
    """``linalg_inv_ex``'s inverse; a singular ``A`` raises."""
    inverse, info = aten.linalg_inv_ex.default.call(A, False)
    _check_errors(info, "linalg.inv", A.dim() == 2)
    return inverse


@aten.linalg_inv.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_inv_out(A: Tensor, out: Tensor) -> Tensor:
    info = factories._allocate((0,), (1,), dtypes.int32, A.device)
    aten.linalg_inv_ex.inverse.call(A, False, out, info)
    _check_errors(info, "linalg.inv", A.dim() == 2)
    return out


@aten.inverse.default.impl(DispatchKey.CompositeImplicitAutograd)
def inverse(self: Tensor) -> Tensor:
    """``linalg_inv(self)`` (``torch.inverse``)."""
    return aten.linalg_inv.default.call(self)


@aten.inverse.out.impl(DispatchKey.CompositeImplicitAutograd)
def inverse_out(self: Tensor, out: Tensor) -> Tensor:
    return aten.linalg_inv.out.call(self, out)


def det(*args: Any, **kwargs: Any) -> Tensor:
    """det(A, *, out=None) -> Tensor

    The determinant of each square matrix of ``A`` (``(*, n, n)``, float32 or float64;
    ``torch.linalg.det``): a tensor of shape ``(*)`` (``LinalgDetBackward0``).

    Raises RuntimeError for fewer than 2 dims, matrices that are not square, an integer or
    bool input; NotImplementedError for float16 and bfloat16.
    """
    return aten.linalg_det(*args, **kwargs)


def inv(*args: Any, **kwargs: Any) -> Tensor:
    """inv(A, *, out=None) -> Tensor

    The inverse of each square matrix of ``A`` (``(*, n, n)``, float32 or float64;
    ``torch.linalg.inv``): each matrix column-major (``LinalgInvExBackward0``).

    Raises RuntimeError for fewer than 2 dims, matrices that are not square, an integer,
    bool, float16 or bfloat16 input; :class:`LinAlgError` for a singular matrix.
    """
    return aten.linalg_inv(*args, **kwargs)


def inv_ex(*args: Any, **kwargs: Any) -> Any:
    """inv_ex(A, *, check_errors=False, out=None) -> (Tensor, Tensor)

    ``(inverse, info)`` (``torch.linalg.inv_ex``): ``info`` (int32, shape ``(*)``) is 0, or
    the 1-based index of the first zero pivot of a singular matrix.

    Raises ``inv``'s errors; :class:`LinAlgError` only with ``check_errors=True``.
    """
    return aten.linalg_inv_ex(*args, **kwargs)


def solve(*args: Any, **kwargs: Any) -> Tensor:
    """solve(A, B, *, left=True, out=None) -> Tensor

    ``X`` with ``A X = B`` (``left``) or ``X A = B`` (``torch.linalg.solve``): ``A`` of
    ``(*, n, n)``, ``B`` of ``(*, n, k)`` or vectors (``(*, n)`` where ``A`` is ``(*, n, n)``,
    or ``(n,)``), batch dims broadcast (``LinalgSolveExBackward0``).

    Raises RuntimeError for an integer or bool ``A``, dtypes that differ, shapes that do not
    match or broadcast; :class:`LinAlgError` for a singular ``A``; NotImplementedError for
    float16 and bfloat16.
    """
    return aten.linalg_solve(*args, **kwargs)


def solve_ex(*args: Any, **kwargs: Any) -> Any:
    """solve_ex(A, B, *, left=True, check_errors=False, out=None) -> (Tensor, Tensor)

    ``(result, info)`` (``torch.linalg.solve_ex``): ``solve``'s result and ``info`` (int32,
    0 or the first zero pivot, 1-based).

    Raises ``solve``'s errors; :class:`LinAlgError` only with ``check_errors=True``.
    """
    return aten.linalg_solve_ex(*args, **kwargs)


def cholesky(*args: Any, **kwargs: Any) -> Tensor:
    """cholesky(A, *, upper=False, out=None) -> Tensor

    The Cholesky factor ``L`` (lower triangular, ``A = L L.mH``; ``upper``: ``L.mH``) of
    each symmetric positive-definite matrix of ``A`` (``(*, n, n)``, float32 or float64,
    only its lower triangle read; ``torch.linalg.cholesky``): each matrix column-major
    (``LinalgCholeskyExBackward0``; the kernels are in ``cholesky.py``).

    Raises RuntimeError for fewer than 2 dims, matrices that are not square, an integer or
    bool input; :class:`LinAlgError` for a matrix that is not positive-definite;
    NotImplementedError for float16 and bfloat16.
    """
    return aten.linalg_cholesky(*args, **kwargs)


def cholesky_ex(*args: Any, **kwargs: Any) -> Any:
    """cholesky_ex(A, *, upper=False, check_errors=False, out=None) -> (Tensor, Tensor)

    ``(L, info)`` (``torch.linalg.cholesky_ex``): ``info`` (int32, shape ``(*)``) is 0, or
    the order of the first leading minor that is not positive-definite (``L`` then holds
    LAPACK's partial factor).

    Raises ``cholesky``'s errors; :class:`LinAlgError` only with ``check_errors=True``.
    """
    return aten.linalg_cholesky_ex(*args, **kwargs)


def qr(*args: Any, **kwargs: Any) -> Any:
    """qr(A, mode='reduced', *, out=None) -> (Tensor, Tensor)

    ``(Q, R)`` with ``A = Q R`` for each matrix of ``A`` (``(*, m, n)``, float32 or float64;
    ``torch.linalg.qr``), by LAPACK's Householder reflections (so the signs are torch's):
    ``mode`` ``'reduced'`` (``Q`` ``(*, m, k)``, ``R`` ``(*, k, n)``, ``k = min(m, n)``),
    ``'complete'`` (``Q`` ``(*, m, m)``, ``R`` ``(*, m, n)``) or ``'r'`` (``Q`` empty);
    each matrix column-major (``LinalgQrBackward0``; the kernels are in ``qr.py``).

    Raises RuntimeError for fewer than 2 dims, an integer or bool input, an unknown mode;
    NotImplementedError for float16 and bfloat16.
    """
    return aten.linalg_qr(*args, **kwargs)
def eigh(*args: Any, **kwargs: Any) -> Any:
    """eigh(A, UPLO='L', *, out=None) -> (Tensor, Tensor)

    ``(eigenvalues, eigenvectors)`` of each symmetric matrix of ``A`` (``(*, n, n)``,
    float32 or float64; ``torch.linalg.eigh``): the eigenvalues ascending (``(*, n)``), the
    eigenvectors the columns of each matrix (column-major), read from the lower or upper
    (``UPLO='U'``) triangle (``LinalgEighBackward0``; the op ``_linalg_eigh``, kernels in
    ``eigh.py``). Each eigenvector's sign is LAPACK's choice: OpenBLAS's here, MKL's in
    torch, which may differ.

    Raises RuntimeError for fewer than 2 dims, matrices that are not square, a ``UPLO``
    other than L or U; NotImplementedError for integer, bool, float16 and bfloat16 inputs.
    """
    return aten.linalg_eigh(*args, **kwargs)


def eigvalsh(*args: Any, **kwargs: Any) -> Tensor:
    """eigvalsh(A, UPLO='L', *, out=None) -> Tensor

    The eigenvalues of each symmetric matrix of ``A``, ascending (``torch.linalg.eigvalsh``):
    ``eigh``'s first result (``LinalgEighBackward0``).

    Raises ``eigh``'s errors.
    """
    return aten.linalg_eigvalsh(*args, **kwargs)
def svd(*args: Any, **kwargs: Any) -> Any:
    """svd(A, full_matrices=True, *, driver=None, out=None) -> (Tensor, Tensor, Tensor)

    ``(U, S, Vh)`` with ``A = U diag(S) Vh`` (``torch.linalg.svd``): the op ``linalg_svd``
    (see its docstring: ``A`` of ``(*, m, n)``, float32 or float64; ``S`` decreasing; each
    column of ``U`` and row of ``Vh`` only defined up to a common sign, which may be the
    other one than in torch's result (MKL's choice); ``LinalgSvdBackward0``).

    Raises RuntimeError for fewer than 2 dims, an integer or bool input, a ``driver=``;
    :class:`LinAlgError` for a matrix holding NaN; NotImplementedError for float16 and
    bfloat16.
    """
    return aten.linalg_svd(*args, **kwargs)


def svdvals(*args: Any, **kwargs: Any) -> Tensor:
    """svdvals(A, *, driver=None, out=None) -> Tensor

    The singular values of each matrix of ``A`` (``torch.linalg.svdvals``): the op
    ``linalg_svdvals``, a tensor of ``(*, min(m, n))`` in decreasing order.

    Raises ``svd``'s errors.
    """
    return aten.linalg_svdvals(*args, **kwargs)
