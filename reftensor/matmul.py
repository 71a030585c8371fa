"""Matrix multiplication: ``matmul`` (``@``) and the kernels it dispatches to.

``matmul`` reads its operands' dims, and for a batch their strides and whether they require
grad, and picks a kernel exactly as torch's ``_matmul_impl`` does. That decision is
:func:`matmul_plan` (chapter 4, a function on plain shapes and strides), asked on every call:

=============  ==========================================================================
3-D @ 3-D      when exactly one of the two batches (dim 0) has size 1, and that operand
               requires grad (even under ``no_grad``, and with ``out=``), it is
               ``squeeze(0)``-ed to a matrix first, and the rows below decide.
1-D @ 1-D      ``dot``: a 0-d tensor.
2-D @ 1-D      ``mv``: a vector.
1-D @ 2-D      the vector becomes a 1-row matrix, ``mm``, and the row dim is dropped.
2-D @ 2-D      ``mm``.
N-D (N >= 3)   with a 1-D or 2-D operand, torch's ``should_fold`` may *fold* the larger
               operand's batch into its matrix rows (its ``mT`` when it is on the right):
               one ``mm`` or ``mv``, viewed back. It folds when the smaller operand
               requires grad (even under ``no_grad``; not with ``out=``), copying the larger
               one if it must; or else, unless the left operand is a matrix, when the larger
               one (its ``mT``) is empty or has ``stride[i] == stride[i + 1] * size[i + 1]``
               for every ``i < ndim - 2`` (a size-1 dim's stride counts), so that the merge
               is a view. So by layout, a new (row-major) tensor's batch on the left always
               folds, and on the right the ``.mT`` of one; a new tensor's ``.mT`` on the
               left, or a new tensor on the right, folds only where a size of 1 or 0 makes
               the strides agree; a matrix on the left folds only by grad. Otherwise the
               batched path: the dims before the last two broadcast, both operands are
               expanded to the broadcast batch and reshaped to 3-D (a 1-D operand as a row
               or a column), ``bmm``, and the result viewed back.
=============  ==========================================================================

The values are the same whichever kernel runs; the graph is not (``MmBackward0`` or
``MvBackward0`` under an ``UnsafeViewBackward0``, against ``BmmBackward0``), nor the errors,
which name the kernel that runs.

Unlike the elementwise ops, matmul does **not** promote: both operands must have one dtype
(``int64 @ float32`` raises), and bool is refused. The result is always a new contiguous
tensor. Products are summed in float32 for float16/bfloat16 and in int64 for integers
(which wrap around exactly as a narrower accumulator would).

``mm``, ``bmm``, ``mv`` and ``dot`` are ops of the table: this module registers their CPU
kernels (the values, with NumPy) and Meta kernels (shape and dtype only), and their rule for
``out=`` (exactly the result's dtype). ``matmul`` is torch's ``CompositeImplicitAutograd``
decomposition into them, registered by ``autograd/functions/linalg.py``; ``matmul_cpu``
below is its one-call shortcut when nothing is recorded. Both follow :func:`matmul_plan`:
the decomposition calls the kernel it names on the shapes it gives, the shortcut makes that
kernel's checks (:func:`check_matmul`, torch's messages) before one NumPy product.

``matmul``'s result shape is :func:`matmul_shape` (chapter 4, a meta function on plain
shapes): ``matmul_cpu`` allocates its result with it, and the batched decomposition views
``bmm``'s result as it says.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import (
    broadcasting,
    dtypes,
    elementwise,
    factories,
    iterator,
    layout,
    out_arguments,
    views,
)
from ._casting import cast, checked_number, compute_dtype
from ._ops import DispatchKey, aten
from ._ops.torch_dispatch import subclass_like
from .advanced_indexing import legacy_type_name
from .device import META, common_device
from .dtypes import dtype
from .promotion import (
    C_TYPE_NAMES,
    OUT_DTYPE_RULES,
    SCALAR_TYPE_NAMES,
    can_cast,
    check_can_cast,
    result_type,
)
from .tensor import Tensor, wrap_dim

__all__: list[str] = []  # the ops are the table's (reftensor.matmul, Tensor.mm, ...)


# ------------------------------------------------------------------ the result's shape
def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The shape of ``torch.matmul(A, B)`` (the ``@`` operator) for tensors ``A`` and ``B``
    of shapes ``a`` and ``b``, as its meta function (and its CPU kernel) gives it.

    Args:
        a, b: the operands' shapes, sequences of ints >= 0 (sizes may be 0).

    Returns:
        A tuple of ints.

    Raises:
        RuntimeError: a 0-d operand, inner sizes that differ, or batch dims that do not
            broadcast.
    """
    # BEGIN PIECE matmul_shape
    # A 1-d a is a row (1, K) and a 1-d b a column (K, 1); the last two dims multiply as
    # matrices, (N, K) @ (K, M) -> (N, M); the dims before them are batch dims and
    # broadcast (chapter 3). The result is (*batch, N, M) without the dims added for a 1-d
    # operand.
    if len(a) == 0 or len(b) == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{len(a)}D and {len(b)}D")
    rows = (1, *a) if len(a) == 1 else tuple(a)  # a 1-d a is a row...
    cols = (*b, 1) if len(b) == 1 else tuple(b)  # ...and a 1-d b a column
    if rows[-1] != cols[-2]:
        raise RuntimeError(f"matmul: the inner sizes {rows[-1]} and {cols[-2]} differ")
    batch = broadcasting.broadcast_shapes(rows[:-2], cols[:-2])
    shape = [*batch, rows[-2], cols[-1]]
    if len(b) == 1:
        del shape[-1]  # the column's dim
    if len(a) == 1:
        del shape[len(batch)]  # the row's dim
    return tuple(shape)
    # END PIECE


# ------------------------------------------------------------------ the plan
def matmul_plan(a_shape: Sequence[int], a_stride: Sequence[int], b_shape: Sequence[int],
                b_stride: Sequence[int], requires_grad: Sequence[bool] = (False, False),
                has_out: bool = False) -> tuple[Any, ...]:
    """torch's plan for ``torch.matmul(A, B)`` (the ``@`` operator, ATen's ``_matmul_impl``):
    which kernel runs, and on which shapes, for tensors ``A`` and ``B`` laid out as given.

    Args:
        a_shape, a_stride, b_shape, b_stride: the operands' shapes and strides (tuples of
            ints; each operand has at least 1 dim, sizes may be 0, strides are >= 0).
        requires_grad: whether ``A`` and ``B`` require grad (even under ``no_grad``).
        has_out: the call has ``out=``.

    Returns:
        ``(squeeze, kernel, shape1, shape2, output_shape)``:

        * ``squeeze``: ``0`` or ``1`` when operand ``A`` or ``B`` is first replaced by
          ``squeeze(0)`` of it (the rest of the plan is about the squeezed operands), else
          ``None``;
        * ``kernel``: ``"dot"``, ``"mv"``, ``"mm"`` (the operands as they are),
          ``"unsqueeze_mm"`` (``A.unsqueeze(0).mm(B).squeeze_(0)``), ``"fold"`` (``mm`` or
          ``mv`` of ``A.reshape(shape1)`` and ``B``), ``"fold_mT"`` (``mm`` or ``mv`` of
          ``B.mT.reshape(shape1)`` and ``A.t()``, or ``A`` when it is 1-D; the result of an
          ``mm`` is given back as ``.mT.contiguous()``) or ``"bmm"`` (``A`` and ``B``
          expanded to ``shape1`` and ``shape2``, their batch dims merged into one, a 1-D
          ``B`` given a last dim of 1 after that, then removed from ``bmm``'s result);
        * ``shape1``, ``shape2``: the shapes of the kernel's two operands (for ``"bmm"``:
          the shapes ``A`` and ``B`` are expanded to);
        * ``output_shape``: the shape of the kernel's result (for ``"fold"``, ``"fold_mT"``
          and ``"bmm"``: the shape it is viewed as by ``_unsafe_view``).

        Inner sizes are not compared (the kernels check them).

    Raises:
        RuntimeError: for ``"bmm"``, batch dims that do not broadcast.
    """
    # BEGIN PIECE matmul_plan
    a, b = tuple(a_shape), tuple(b_shape)
    a_stride, b_stride = tuple(a_stride), tuple(b_stride)
    squeeze = None
    # 3-D @ 3-D where exactly one batch is 1, of an operand that requires grad: that operand
    # becomes a matrix, and may fold (its gradient is then one product, not a sum of them).
    if len(a) == 3 and len(b) == 3 and (a[0] == 1) != (b[0] == 1) and \
            requires_grad[0 if a[0] == 1 else 1]:
        squeeze = 0 if a[0] == 1 else 1
        if squeeze == 0:
            a, a_stride = a[1:], a_stride[1:]
        else:
            b, b_stride = b[1:], b_stride[1:]
    if len(a) == 1 and len(b) == 1:
        return squeeze, "dot", a, b, ()
    if len(a) == 2 and len(b) == 1:
        return squeeze, "mv", a, b, a[:1]
    if len(a) == 1 and len(b) == 2:
        return squeeze, "unsqueeze_mm", (1, *a), b, b[1:]
    if len(a) == 2 and len(b) == 2:
        return squeeze, "mm", a, b, (a[0], b[1])
    # should_fold: t1 is the larger operand (b.mT when b is the larger), t2 the other one
    transpose = len(b) > len(a)
    if transpose:
        t1, t1_stride = (*b[:-2], b[-1], b[-2]), (*b_stride[:-2], b_stride[-1], b_stride[-2])
        t2, small_grad = a[::-1], requires_grad[0]  # a.t(), or a 1-D a itself
    else:
        t1, t1_stride, t2, small_grad = a, a_stride, b, requires_grad[1]
    if len(t2) <= 2 and (
            # the smaller operand's gradient is then one mm, not a bmm summed down (a copy)
            (small_grad and not has_out)
            # else only where t1.view(-1, k) is a view: never for a matrix on the left
            or (len(a) != 2 and (0 in t1 or all(
                t1_stride[i] == t1_stride[i + 1] * t1[i + 1] for i in range(len(t1) - 2))))):
        return (squeeze, "fold_mT" if transpose else "fold", (math.prod(t1[:-1]), t1[-1]),
                t2, (*t1[:-1], *t2[1:]))
    # the broadcast batch path: a 1-D a is a row (n = 1), a 1-D b a column (p = 1)
    batch = broadcasting.infer_broadcast_size(a[:-2], b[:-2])
    n = a[-2] if len(a) > 1 else 1
    shape2 = (*batch, *b[-2:]) if len(b) > 1 else (*batch, *b)
    output_shape = (*batch, *a[-2:-1], *b[-1:]) if len(b) > 1 else (*batch, *a[-2:-1])
    return squeeze, "bmm", (*batch, n, a[-1]), shape2, output_shape
    # END PIECE


def plan_of(a: Tensor, b: Tensor, has_out: bool = False) -> tuple[Any, ...]:
    """:func:`matmul_plan` for tensors ``a`` and ``b`` (each with at least one dim), asked on
    every ``matmul``. Batch dims that do not broadcast (only the ``bmm`` plan has two
    batches) raise torch's message first, whatever the plan's own."""
    broadcasting.infer_broadcast_size(a._shape[:-2], b._shape[:-2])
    return matmul_plan(a._shape, a._stride, b._shape, b._stride,
                       (a._requires_grad, b._requires_grad), has_out)


def result_shape(a: Sequence[int], b: Sequence[int], numel: int) -> tuple[int, ...]:
    """:func:`matmul_shape` of ``a`` and ``b``, for a product of ``numel`` elements.

    Raises:
        RuntimeError: the shape is not a tuple of sizes, or holds another number of
            elements than the product (a wrong ``matmul_shape``, named in the message).
    """
    shape = matmul_shape(tuple(a), tuple(b))
    if not (isinstance(shape, tuple | list)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
        raise RuntimeError(f"matmul_shape{(tuple(a), tuple(b))} returned {shape!r}, which is "
                           "not a tuple of sizes")
    if math.prod(shape) != numel:
        raise RuntimeError(f"matmul_shape{(tuple(a), tuple(b))} returned {tuple(shape)}, "
                           f"{math.prod(shape)} elements, but the product has {numel}")
    return tuple(shape)

def _name(d: dtype) -> str:
    return SCALAR_TYPE_NAMES[d.name]


def _not_for_bool(kernel: str, d: dtype, *, nothing_to_sum: bool = False) -> None:
    """Bool has no matrix kernels; ``mm``, ``mv`` and ``bmm`` return before looking for one
    when the result is empty or the inner size is 0 (``nothing_to_sum``)."""
    if d is dtypes.bool and not nothing_to_sum:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# ------------------------------------------------------------------ each kernel's checks
def _check_dot(a: Tensor, b: Tensor) -> None:
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_name(a._dtype)} and {_name(b._dtype)}")
    if a.numel() != b.numel():
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.numel()}] and src [{b.numel()}] "
            f"to have the same number of elements, but got {a.numel()} and {b.numel()} "
            "elements respectively")
    _not_for_bool("dot", a._dtype)


def _check_mv(mat: tuple[int, ...], vec: tuple[int, ...], mat_dtype: dtype,
              vec_dtype: dtype) -> None:
    if mat[1] != vec[0]:
        raise RuntimeError(f"size mismatch, got input ({mat[0]}), mat ({mat[0]}x{mat[1]}), "
                           f"vec ({vec[0]})")
    if mat_dtype is not vec_dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{_name(vec_dtype)}, {_name(mat_dtype)}, and {_name(vec_dtype)}")
    _not_for_bool("addmv_impl_cpu", mat_dtype, nothing_to_sum=0 in mat)


def _check_mm(s1: tuple[int, ...], s2: tuple[int, ...], d1: dtype, d2: dtype) -> bool:
    """``mm``'s checks. Returns True when torch's BLAS will compute the product as a bare
    outer product (inner size 1, more than one row and column, float32/float64): it then
    keeps the sign of a zero product (``0 * -1`` is ``-0.0``), where a sum starting from
    ``+0.0`` would not."""
    if s1[1] != s2[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and "
                           f"{s2[0]}x{s2[1]})")
    if d1 is not d2:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{C_TYPE_NAMES[d1.name]} != {C_TYPE_NAMES[d2.name]}")
    _not_for_bool("addmm_impl_cpu_", d1, nothing_to_sum=0 in (*s1, s2[1]))
    return s1[1] == 1 and s1[0] > 1 and s2[1] > 1 and d1 in (dtypes.float32, dtypes.float64)


def _check_batched(s1: tuple[int, ...], s2: tuple[int, ...], d1: dtype, d2: dtype) -> dtype:
    """The checks of ``bmm`` on operands of shapes ``s1`` and ``s2`` (or of matmul's batched
    path, on the shapes its plan expands them to, a 1-D second one without its column's dim).
    Returns the result's dtype: ``bmm`` takes it from the second operand, and skips the dtype
    checks when there is nothing to sum (an empty result or inner size 0), so only then can
    it differ from the first one's."""
    count, (n, m1) = math.prod(s1[:-2]), s1[-2:]
    m2 = s2[len(s1) - 2]
    p = s2[-1] if len(s2) == len(s1) else 1
    if m1 != m2:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {m1}] but got: [{count}, {m2}].")
    if 0 in (count, n, m1, p):
        return d2
    _not_for_bool("bmm", d1)  # the kernel is chosen by the first one's dtype, then reads b
    if d1 is not d2:
        raise RuntimeError(f"expected scalar type {_name(d1)} but found {_name(d2)}")
    return d2


def _check(a: Tensor, b: Tensor, plan: tuple[Any, ...]) -> tuple[dtype, bool]:
    """Every check ``matmul`` makes, in the order of the kernel its ``plan``
    (:func:`matmul_plan`) calls. Returns the result's dtype, and whether the kernel is
    ``mm`` computing a bare outer product."""
    _, kernel, s1, s2, _ = plan
    d1, d2 = (b._dtype, a._dtype) if kernel == "fold_mT" else (a._dtype, b._dtype)
    if kernel == "dot":
        _check_dot(a, b)
    elif kernel == "bmm":
        return _check_batched(s1, s2, d1, d2), False
    elif len(s2) == 1:
        _check_mv(s1, s2, d1, d2)
    else:
        return d1, _check_mm(s1, s2, d1, d2)
    return d1, False


# ------------------------------------------------------------------ the product
def _values(a: Tensor, b: Tensor, d: dtype, outer: bool, *,
            shaped: bool = False) -> Tensor:
    """The CPU product: ``np.matmul`` (same shape rules as torch) into a new contiguous
    tensor of ``d``; ``outer``: the inner size is 1, multiply without summing. ``shaped``:
    the tensor takes its shape from ``matmul_shape`` (``matmul``'s result)."""
    if d.is_floating_point:
        work = dtypes.float64 if d is dtypes.float64 else dtypes.float32
    else:
        work = dtypes.int64
    a_values, b_values = cast(a._elements(), work), cast(b._elements(), work)
    with np.errstate(all="ignore"):
        values = a_values * b_values if outer else np.matmul(a_values, b_values)
    values = np.asarray(values)
    shape = result_shape(a._shape, b._shape, values.size) if shaped else values.shape
    out = factories._allocate(shape, layout.contiguous_strides(shape), d)
    out._elements()[...] = cast(values.reshape(shape), d)
    return out


def _empty(shape: tuple[int, ...], d: dtype) -> Tensor:
    """The meta product: a contiguous result's shape, strides and dtype, and no values."""
    return factories._allocate(shape, layout.contiguous_strides(shape), d, META)


def _check_matmul_dims(input: Tensor, other: Tensor) -> None:
    if input.dim() == 0 or other.dim() == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{input.dim()}D and {other.dim()}D")


def matmul_cpu(input: Tensor, other: Tensor) -> Tensor:
    """``matmul`` of two CPU tensors in one NumPy call, when nothing is recorded and no
    dispatch mode watches (``autograd/functions/linalg.py`` decides): the same values,
    layout, errors and version counter as torch's decomposition into ``dot``, ``mv``,
    ``mm`` or ``bmm`` (see the module docstring), without building its views. The result
    has :func:`matmul_shape`'s shape."""
    _check_matmul_dims(input, other)
    out = _values(input, other, *_check(input, other, plan_of(input, other)), shaped=True)
    if input.dim() == 1 and other.dim() == 2:
        # torch computes (1, k) @ (k, m) and drops the row with the in-place squeeze_,
        # which bumps the result's version counter.
        out._version_counter.value += 1
    return out


def check_matmul(input: Tensor, other: Tensor, has_out: bool = False) -> tuple[Any, ...]:
    """Every check ``matmul`` makes, in torch's order, without computing anything. Returns
    its plan (:func:`matmul_plan`)."""
    _check_matmul_dims(input, other)
    plan = plan_of(input, other, has_out)
    _check(input, other, plan)
    return plan


# ------------------------------------------------------------------ mm, bmm, mv, dot
# Each body makes its op's checks and returns ``(dtype, outer, shape)``: the result's
# dtype, whether it is a bare outer product, and its shape. The CPU kernel computes the
# values, the Meta kernel only allocates.
def _mm(input: Tensor, mat2: Tensor) -> tuple[dtype, bool, tuple[int, ...]]:
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    outer = _check_mm(input._shape, mat2._shape, input._dtype, mat2._dtype)
    return input._dtype, outer, (input._shape[0], mat2._shape[1])


def _bmm(input: Tensor, mat2: Tensor, meta: bool) -> tuple[dtype, bool, tuple[int, ...]]:
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if mat2._shape[:2] != (input._shape[0], input._shape[2]):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input._shape[0]}, {input._shape[2]}] but got: "
                           f"[{mat2._shape[0]}, {mat2._shape[1]}].")
    if meta and input._dtype is not mat2._dtype:  # torch's meta bmm checks dtypes always
        raise RuntimeError(f"expected scalar type {_name(input._dtype)} but found "
                           f"{_name(mat2._dtype)}")
    d = _check_batched(input._shape, mat2._shape, input._dtype, mat2._dtype)
    return d, False, (*input._shape[:2], mat2._shape[2])


def _mv(input: Tensor, vec: Tensor) -> tuple[dtype, bool, tuple[int, ...]]:
    if input.dim() == 0:  # torch's CPU kernel reads the result's size first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{vec.dim()}")
    _check_mv(input._shape, vec._shape, input._dtype, vec._dtype)
    return input._dtype, False, input._shape[:1]


def _mv_meta(input: Tensor, vec: Tensor) -> tuple[dtype, bool, tuple[int, ...]]:
    """torch's meta ``mv`` words its first check otherwise, and has no IndexError."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"matrix @ vector expected, got {input.dim()}, {vec.dim()}")
    return _mv(input, vec)


def _dot(input: Tensor, tensor: Tensor) -> tuple[dtype, bool, tuple[int, ...]]:
    _check_dot(input, tensor)
    return input._dtype, False, ()


def _register(name: str, body: Any, meta_body: Any = None) -> None:
    """The CPU and Meta kernels of ``aten.<name>.default`` from the op's ``body`` (and its
    ``meta_body``, where torch's meta kernel checks otherwise). A CPU operand beside a meta
    one is refused (``common_device``), where torch's meta ``mm`` and ``bmm`` let it through
    and may even give a CPU result made of nothing."""
    overload = getattr(aten, name).default
    meta_body = meta_body or body

    @overload.impl(DispatchKey.CPU)
    def cpu(input: Tensor, other: Tensor) -> Tensor:
        d, outer, _ = body(input, other)
        return _values(input, other, d, outer)

    @overload.impl(DispatchKey.Meta)
    def meta(input: Tensor, other: Tensor) -> Tensor:
        common_device([input, other])
        d, _, shape = meta_body(input, other)
        return _empty(shape, d)


_register("mm", _mm)
_register("bmm", lambda a, b: _bmm(a, b, meta=False), lambda a, b: _bmm(a, b, meta=True))
_register("mv", _mv, _mv_meta)
_register("dot", _dot)


# ------------------------------------------------------------------ out=
def _expected_out_dtype(result: Tensor, out: Tensor) -> None:
    """``mm``, ``bmm``, ``mv`` (and ``matmul`` but for two vectors) write only into an
    ``out`` of the result's own dtype."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {C_TYPE_NAMES[result._dtype.name]},"
                           f" but got {C_TYPE_NAMES[out._dtype.name]} instead")


def _dot_out_dtype(result: Tensor, out: Tensor) -> None:
    if out._dtype is not result._dtype:
        raise RuntimeError(f"result dtype {_name(out._dtype)} does not match input dtype "
                           f"{_name(result._dtype)}")


def _matmul_out_dtype(result: Tensor, out: Tensor) -> None:
    (_dot_out_dtype if result.dim() == 0 else _expected_out_dtype)(result, out)


OUT_DTYPE_RULES.update(mm=_expected_out_dtype, bmm=_expected_out_dtype,
                       mv=_expected_out_dtype, dot=_dot_out_dtype, matmul=_matmul_out_dtype)


# ------------------------------------------------------------------ addmm
# ``beta * self + alpha * (mat1 @ mat2)``, the fused op of ``nn.functional.linear``. torch's
# meta function checks the dtypes, the operands' dims and the inner sizes, and allocates a
# contiguous ``(n, m)``; its CPU kernel then broadcasts ``self`` to that shape and calls
# BLAS, which reads ``self`` only when ``beta != 0`` and the product only when ``alpha !=
# 0``.
def _addmm_checks(self: Tensor, mat1: Tensor, mat2: Tensor) -> tuple[int, int]:
    """torch's checks (``ADDMM_META``), in its order. Returns the result's ``(n, m)``."""
    if self._dtype is not mat2._dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{_name(self._dtype)} and {_name(mat2._dtype)}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got "
                           f"{_name(mat1._dtype)} and {_name(mat2._dtype)}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    (n, k), (k2, m) = mat1._shape, mat2._shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and "
                           f"{k2}x{m})")
    return n, m


def _transb_path(into: Tensor | None, mat1: Tensor, mat2: Tensor) -> bool:
    """Does torch's ``addmm_impl_cpu_`` call its own float16/bfloat16 ``gemm_transb_`` loop?
    It reads the operands as column-major BLAS matrices: the result (``into``'s layout, or a
    new contiguous one) as ``c``, swapping ``mat1`` and ``mat2`` when ``c`` is row-major; each
    operand is used as it is, transposed, or copied contiguous (transposed when ``c`` is not).
    That loop, with ``beta`` 0, sums the products into zeros (``c_accum = 0``), so a zero result
    is +0.0, where the other loops scale a dot product by ``alpha`` (``0 * -1.0`` is -0.0)."""
    n, m = mat1._shape[0], mat2._shape[1]
    k = mat1._shape[1]
    rs = into._stride if into is not None else layout.contiguous_strides((n, m))
    if rs[0] == 1 and (m == 1 or rs[1] >= max(1, n)):
        swapped = False
    elif rs[1] == 1 and (n == 1 or rs[0] >= max(1, m)):
        swapped = True
    else:
        swapped = False
    first, second = (mat2, mat1) if swapped else (mat1, mat2)
    rows, cols = (m, n) if swapped else (n, m)
    inner, outer = (1, 0) if swapped else (0, 1)

    def transposed(stride: tuple[int, ...], lead: int, other: int) -> bool:
        if stride[inner] == 1 and stride[outer] >= max(1, lead):
            return False
        if stride[outer] == 1 and stride[inner] >= max(1, other):
            return True
        return not swapped  # (copied contiguous)

    return not transposed(first._stride, rows, k) and transposed(second._stride, k, cols)


def _addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any, alpha: Any,
           into: Tensor | None, meta: bool) -> Tensor:
    """``addmm`` (``into`` None) and ``addmm_`` (``into`` is ``self``)."""
    n, m = _addmm_checks(self, mat1, mat2)
    common_device([self, mat1, mat2])
    d = mat2._dtype
    if into is not None and into._shape != (n, m):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(into._shape)} and "
                           f"output tensor size {[n, m]} should match")
    if into is None and (self.dim() > 2 or any(
            size not in (1, target)
            for size, target in zip(self._shape[::-1], (m, n), strict=False))):
        raise RuntimeError(f"The expanded size of the tensor must match the existing size: "
                           f"target sizes {[n, m]}, tensor sizes {list(self._shape)}")
    if meta:
        if into is not None:
            into._version_counter.value += 1
            return into
        return _empty((n, m), d)
    beta, alpha = (x.item() if isinstance(x, Tensor) else x for x in (beta, alpha))
    k = mat1._shape[1]
    if n and m and k == 0 and beta != 0:
        # torch copies ``self`` into the result, then ``result.mul_(beta)``: a ``beta``
        # that ``mul_`` would promote past the result's dtype is refused (bool by 1)
        check_can_cast(result_type(_empty((n, m), d), beta), d)
    outer = _check_mm(mat1._shape, mat2._shape, mat1._dtype, d)  # (and bool's refusal)
    work = dtypes.float64 if d is dtypes.float64 else (
        dtypes.float32 if d.is_floating_point else dtypes.int64)
    b, a = (checked_number(x, work if d.is_floating_point else d) for x in (beta, alpha))
    b, a = cast(b, work), cast(a, work)
    values = np.zeros((n, m), dtype=work.numpy)
    # BLAS (float32, float64) skips the product when alpha is 0; torch's own loops for
    # float16 and bfloat16 multiply it by 0 (a nan stays, -0.0 keeps its sign)
    blas = d in (dtypes.float32, dtypes.float64)
    with np.errstate(all="ignore"):
        if k and (a != 0 or (d.is_floating_point and not blas)):
            m1, m2 = cast(mat1._elements(), work), cast(mat2._elements(), work)
            product = m1 * m2 if outer else np.matmul(m1, m2)
            transb = not blas and _transb_path(into, mat1, mat2)
            if not blas and not transb:
                product = product + work.numpy.type(0)  # (a dot product summed from +0)
            values = product if a == 1 else a * product
            if transb and b == 0:
                values = values + work.numpy.type(0)  # (accumulated from +0: no -0.0 result)
        if b != 0:
            seen = np.broadcast_to(cast(self._elements(), work), (n, m))
            scaled = seen if b == 1 else b * seen
            # nothing summed (k == 0: torch copies self and scales it), or BLAS with alpha 0
            # (beta * C alone): no zero is added, so a -0.0 keeps its sign
            values = scaled if not k or (blas and a == 0) else values + scaled
    out = into if into is not None else factories._allocate(
        (n, m), layout.contiguous_strides((n, m)), d)
    out._elements()[...] = cast(np.asarray(values, dtype=work.numpy), d)
    if into is not None:
        into._version_counter.value += 1
    return out


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.addmm.default.impl(_key)(
        lambda s, a, b, beta, alpha, meta=_meta: _addmm(s, a, b, beta, alpha, None, meta))
    aten.addmm_.default.impl(_key)(
        lambda s, a, b, beta, alpha, meta=_meta: _addmm(s, a, b, beta, alpha, s, meta))
OUT_DTYPE_RULES.update(addmm=_expected_out_dtype, linear=_matmul_out_dtype)


# ------------------------------------------------------------------ linear
# ``nn.functional.linear`` is an op of the table whose only kernel is torch's
# ``CompositeImplicitAutograd`` decomposition (aten/src/ATen/native/Linear.cpp): the ops it
# calls dispatch, and record, themselves.
@aten.linear.default.impl(DispatchKey.CompositeImplicitAutograd)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``input @ weight.t() + bias`` as torch decomposes it: one ``addmm`` for a 2-d input
    with a bias; for a contiguous input with a contiguous bias of one dim (after
    ``squeeze``), ``addmm`` of the input flattened to 2-d, viewed back; else ``matmul``,
    then ``add_`` of the bias in place."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is not None and input.dim() == 2:
        return aten.addmm.default.call(bias, input, aten.t.default.call(weight), 1, 1)
    if (bias is not None and input.is_contiguous() and bias.is_contiguous()
            and (bias.dim() == 1 or aten.squeeze.default.call(bias).dim() == 1)):
        # torch's ``_flatten_nd_linear``: the input flattened, then ``weight.t()``
        sizes = input._shape
        flat = aten.reshape.default.call(input, (math.prod(sizes[:-1]), sizes[-1]))
        result = aten.addmm.default.call(bias, flat, aten.t.default.call(weight), 1, 1)
        return aten.view.default.call(result, (*sizes[:-1], result._shape[1]))
    output = aten.matmul.default.call(input, aten.t.default.call(weight))
    if bias is not None:
        if subclass_like(bias):  # torch: "subclass-like" (under a mode too): out of place
            return aten.add.Tensor.call(output, bias, 1)
        output.add_(bias)
    return output


def linear_out(input: Tensor, weight: Tensor, bias: Tensor | None, out: Tensor) -> Tensor:
    """torch's ``linear_out``: ``addmm(..., out=out)`` for a 2-d input with a bias, else
    ``matmul(..., out=out)`` then ``out.add_(bias)`` (no flattening: a 1-d input with a
    ``(1, n)`` bias is refused here, where ``linear`` without ``out=`` takes it). torch runs
    it below autograd, where the writes inside do not count: ``out._version`` goes up by
    one."""
    version = out._version_counter.value
    transposed = aten.t.default.call(weight)
    if bias is not None and input.dim() == 2:
        aten.addmm.out.call(bias, input, transposed, 1, 1, out)
    else:
        aten.matmul.out.call(input, transposed, out)
        if bias is not None:
            out.add_(bias)
    out._version_counter.value = version + 1
    return out


aten.linear.out.impl(DispatchKey.CPU)(linear_out)
aten.linear.out.impl(DispatchKey.Meta)(linear_out)


# ------------------------------------------------------------------ vdot, trace
# ``vdot`` conjugates its first operand; reftensor has no complex dtypes, so its kernels are
# ``dot``'s (torch's CPU ``vdot`` makes ``dot``'s checks, in ``dot``'s words).
_register("vdot", _dot)
OUT_DTYPE_RULES.update(vdot=_dot_out_dtype)


def _dot_out(name: str) -> Any:
    """``dot(..., out=out)`` and ``vdot``'s, as torch's ``dot_out``: ``out`` is resized to 0-d
    first, then its dtype is checked, then ``dot`` runs. An ``out`` that is ``self`` is
    therefore 0-d by the time ``dot`` checks it ("1D tensors expected, but got 0D and 1D
    tensors")."""
    functional = getattr(aten, name).default

    def writes(self: Tensor, tensor: Tensor, out: Tensor) -> Tensor:
        common_device([self, tensor, out])
        if out._shape != ():
            iterator.resize_output(out, (), ())
        if out._dtype is not self._dtype:
            raise RuntimeError(f"result dtype {_name(out._dtype)} does not match input dtype "
                               f"{_name(self._dtype)}")
        out_arguments.writer(out, functional.call(self, tensor))
        return out

    return writes


for _dot_name in ("dot", "vdot"):
    out_arguments.set_rule(getattr(aten, _dot_name).out,
                           out_arguments.OutRule(writes=_dot_out(_dot_name)))


def _trace(self: Tensor) -> dtype:
    """torch's ``trace`` checks (the CPU kernel picks its loop by dtype first, so bool is
    refused before the dims are read; the meta kernel words the dims otherwise and takes
    bool). Returns the result's dtype: int64 for integers, else the input's."""
    if self.dim() != 2:
        raise RuntimeError(f"expected a matrix, but got tensor with dim {self.dim()}")
    d = self._dtype
    return dtypes.int64 if not d.is_floating_point else d


@aten.trace.default.impl(DispatchKey.CPU)
def trace_cpu(self: Tensor) -> Tensor:
    """The sum of ``self``'s main diagonal, a 0-d tensor (torch's ``trace_cpu``): added
    one by one from the first element, in float64 for float32 (torch's CPU accumulator),
    float32 for float16 and bfloat16, int64 for every integer dtype (wrapping)."""
    _not_for_bool("trace", self._dtype)
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    d = _trace(self)
    work = (dtypes.float64 if d in (dtypes.float32, dtypes.float64) else
            dtypes.float32 if d.is_floating_point else dtypes.int64)
    diagonal = cast(np.diagonal(self._elements()), work)
    with np.errstate(all="ignore"):
        # cumsum adds in order, one element at a time (np.sum adds pairwise)
        total = np.cumsum(diagonal)[-1] if diagonal.size else work.numpy.type(0)
    out = factories._allocate((), (), d)
    out._elements()[...] = cast(np.asarray(total, dtype=work.numpy), d)
    return out


@aten.trace.default.impl(DispatchKey.Meta)
def trace_meta(self: Tensor) -> Tensor:
    return _empty((), _trace(self))


# ------------------------------------------------------------------ outer, kron, inner
# torch's ``CompositeImplicitAutograd`` decompositions (aten/src/ATen/native/LinearAlgebra.cpp
# and Linear.cpp): the ops they call dispatch, and record, themselves.
def _check_device_type(tensors: Sequence[Tensor], where: str) -> None:
    """torch's ``checkDeviceType``: every tensor on the first one's device type."""
    expected = tensors[-2].device.type  # ``self``'s
    for t in tensors:
        if t.device.type != expected:
            raise RuntimeError(f"Expected tensor to have {expected} DeviceType, but got tensor "
                               f"with {t.device.type} DeviceType (while checking arguments "
                               f"for {where})")


def _check_1d(t: Tensor, argument: str, op: str) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"{op}: Expected 1-D argument {argument}, but got {t.dim()}-D")


def _column(self: Tensor, vec2: Tensor) -> Tensor:
    """``outer``'s checks, then ``self`` as a column ``(n, 1)``."""
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return aten.reshape.default.call(self, (self._shape[0], 1))


@aten.outer.default.impl(DispatchKey.CompositeImplicitAutograd)
def outer(self: Tensor, vec2: Tensor) -> Tensor:
    """``self.reshape(n, 1) * vec2``: ``(n, m)``, promoted as ``mul`` promotes."""
    return aten.mul.Tensor.call(_column(self, vec2), vec2)


@aten.outer.out.impl(DispatchKey.CompositeImplicitAutograd)
def outer_out(self: Tensor, vec2: Tensor, out: Tensor) -> Tensor:
    """``mul(self.reshape(n, 1), vec2, out=out)``: ``mul``'s ``out=`` rules and errors."""
    return aten.mul.out.call(_column(self, vec2), vec2, out)


_GER_WARNING = ("torch.ger is deprecated and will be removed in a future PyTorch release. Use "
                "torch.outer instead.")


@aten.ger.default.impl(DispatchKey.CompositeImplicitAutograd)
def ger(self: Tensor, vec2: Tensor) -> Tensor:
    """torch's deprecated ``ger``: its warning (once per process), then ``outer``."""
    views._warn_once(_GER_WARNING)
    return aten.outer.default.call(self, vec2)


@aten.ger.out.impl(DispatchKey.CompositeImplicitAutograd)
def ger_out(self: Tensor, vec2: Tensor, out: Tensor) -> Tensor:
    views._warn_once(_GER_WARNING)
    return aten.outer.out.call(self, vec2, out)


def _kron_views(self: Tensor, other: Tensor) -> tuple[Tensor, Tensor, tuple[int, ...]]:
    """torch's ``KronImpl``: both operands padded to the same number of dims ``n`` (1s in
    front), ``self`` viewed as ``(s0, 1, s1, 1, ...)`` and ``other`` as ``(1, o0, 1, o1,
    ...)`` with ``_unsafe_view``; and the result's shape ``(s0 * o0, s1 * o1, ...)``."""
    n = max(self.dim(), other.dim())
    sizes = [(1,) * (n - self.dim()) + self._shape, (1,) * (n - other.dim()) + other._shape]
    a = tuple(x for s in sizes[0] for x in (s, 1))
    b = tuple(x for s in sizes[1] for x in (1, s))
    shape = tuple(s * o for s, o in zip(*sizes, strict=True))
    return (aten._unsafe_view.default.call(self, a), aten._unsafe_view.default.call(other, b),
            shape)


@aten.kron.default.impl(DispatchKey.CompositeImplicitAutograd)
def kron(self: Tensor, other: Tensor) -> Tensor:
    """``_unsafe_view(mul(self's view, other's view), shape)``: a new contiguous tensor."""
    a, b, shape = _kron_views(self, other)
    return aten._unsafe_view.default.call(aten.mul.Tensor.call(a, b), shape)


@aten.kron.out.impl(DispatchKey.CompositeImplicitAutograd)
def kron_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    """torch's ``kron_out``: ``out`` resized to the result's shape (with torch's warning when
    it had other elements), then ``mul(..., out=)`` into its view with the interleaved
    dims, whose rules and errors (dtype, autograd) apply; ``out._version`` does not move."""
    a, b, shape = _kron_views(self, other)
    if out._shape != shape:
        iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    interleaved = tuple(a._shape[i] if i % 2 == 0 else b._shape[i] for i in range(a.dim()))
    # torch's ``_unsafe_view`` gives its result a version counter of its own: the write
    # through it leaves ``out._version`` as it was
    version = out._version_counter.value
    aten.mul.out.call(a, b, aten._unsafe_view.default.call(out, interleaved))
    out._version_counter.value = version
    return out


@aten.inner.default.impl(DispatchKey.CompositeImplicitAutograd)
def inner(self: Tensor, other: Tensor) -> Tensor:
    """``self * other`` when either is 0-d; else ``tensordot`` over the last dims."""
    _check_device_type([self, other], "inner()")
    if self.dim() == 0 or other.dim() == 0:
        return aten.mul.Tensor.call(self, other)
    _check_inner(self, other)
    return aten.tensordot.default.call(self, other, [-1], [-1])


def _check_inner(self: Tensor, other: Tensor) -> None:
    if self._shape[-1] != other._shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(self._shape)} and {list(other._shape)}")


@aten.inner.out.impl(DispatchKey.CompositeImplicitAutograd)
def inner_out(self: Tensor, other: Tensor, out: Tensor) -> Tensor:
    """``mul(..., out=out)`` when either is 0-d, else ``tensordot(..., out=out)``."""
    _check_device_type([out, self, other], "inner()")
    if self.dim() == 0 or other.dim() == 0:
        return aten.mul.out.call(self, other, out)
    _check_inner(self, other)
    return aten.tensordot.out.call(self, other, [-1], [-1], out)


# ------------------------------------------------------------------ tensordot
def _contract(input1: Tensor, input2: Tensor, dims1: Sequence[int],
              dims2: Sequence[int]) -> Tensor:
    """torch's ``tensordot`` (Linear.cpp), step by step:

    1. a contracted dim of size 1 on one side is summed away (``sum(dim, keepdim=True)``)
       on the other, whose size there may be anything;
    2. ``self``'s free dims then its contracted ones (``permute``), ``other``'s contracted
       dims then its free ones;
    3. when neither has a free element left (a one-element result), the two are multiplied
       as vectors: ``dot`` of their ``flatten()`` when both permuted tensors are
       contiguous, else ``(a.squeeze() * b.squeeze()).sum(dtype=a.dtype)``; otherwise
       both are reshaped to matrices and multiplied with ``mm``;
    4. the product is reshaped to the free sizes, ``self``'s then ``other``'s."""
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if input1._dtype is not input2._dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, contracted = input1, input2, 1
    for d1, d2 in zip(dims1, dims2, strict=True):
        s1 = input1._shape[wrap_dim(d1, input1.dim())]
        s2 = input2._shape[wrap_dim(d2, input2.dim())]
        if s2 == 1:
            t1 = aten.sum.dim_IntList.call(t1, [d1], True, t1._dtype)
        elif s1 == 1:
            t2 = aten.sum.dim_IntList.call(t2, [d2], True, t2._dtype)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                               f"in dim {d1} and second has size {s2} in dim {d2}")
        else:
            contracted *= s1
    c1, c2 = _dim_set(dims1, input1.dim()), _dim_set(dims2, input2.dim())
    free1 = [i for i in range(input1.dim()) if i not in c1]
    free2 = [i for i in range(input2.dim()) if i not in c2]
    sizes = [t1._shape[i] for i in free1] + [t2._shape[i] for i in free2]
    size1 = math.prod(t1._shape[i] for i in free1)
    size2 = math.prod(t2._shape[i] for i in free2)
    t1 = aten.permute.default.call(t1, [*free1, *dims1])
    t2 = aten.permute.default.call(t2, [*dims2, *free2])
    if size1 == 1 and size2 == 1:
        if t1.is_contiguous() and t2.is_contiguous():
            product = aten.dot.default.call(aten.flatten.using_ints.call(t1, 0, -1),
                                            aten.flatten.using_ints.call(t2, 0, -1))
        else:
            product = aten.sum.default.call(aten.mul.Tensor.call(
                aten.squeeze.default.call(t1), aten.squeeze.default.call(t2)), t1._dtype)
        return aten.reshape.default.call(product, sizes)
    t1 = aten.reshape.default.call(t1, (size1, contracted))
    t2 = aten.reshape.default.call(t2, (contracted, size2))
    return aten.reshape.default.call(aten.mm.default.call(t1, t2), sizes)


def _dim_set(dims: Sequence[int], ndim: int) -> set[int]:
    """torch's ``dim_list_to_bitset``: the dims wrapped, each at most once."""
    found: set[int] = set()
    for d in dims:
        d = wrap_dim(d, max(ndim, 1))
        if d in found:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        found.add(d)
    return found


aten.tensordot.default.impl(DispatchKey.CompositeImplicitAutograd)(_contract)


@aten.tensordot.out.impl(DispatchKey.CompositeImplicitAutograd)
def tensordot_out(input1: Tensor, input2: Tensor, dims1: Sequence[int], dims2: Sequence[int],
                  out: Tensor) -> Tensor:
    """torch's ``tensordot_out``: the functional result, then checks (one device, exactly
    its dtype), ``out`` resized, and ``out.copy_(result)`` (recorded: ``CopyBackwards``)."""
    result = _contract(input1, input2, dims1, dims2)
    devices = (out.device, input1.device, input2.device)
    if len(set(devices)) != 1:
        raise RuntimeError("tensordot: Expected the output and input tensors to be on the "
                           f"same device, but got the output tensor on {devices[0]}, input "
                           f"tensor a on {devices[1]}, and input tensor b on {devices[2]}")
    if result._dtype is not out._dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype "
                           f"{_name(result._dtype)}, but got an output tensor with dtype "
                           f"{_name(out._dtype)}")
    if out._shape != result._shape:
        iterator.resize_output(out, result._shape, layout.contiguous_strides(result._shape))
    return aten.copy_.default.call(out, result, False)


# ------------------------------------------------------------------ addmv
# ``beta * self + alpha * product``, structured kernels as ``addmm``: the meta function checks
# and allocates a contiguous result of the product's shape (``self`` broadcast to it), the
# CPU kernel copies ``self`` in (unless ``beta`` is 0: its values, nans too, are ignored) and
# adds the product. The scalars are converted to the dtype (an integer result truncates a
# float ``beta`` or ``alpha``); float16 and bfloat16 are computed in float32, rounded once.
def _work(d: dtype) -> dtype:
    return dtypes.float64 if d is dtypes.float64 else (
        dtypes.float32 if d.is_floating_point else dtypes.int64)


def _scalars(beta: Any, alpha: Any, d: dtype) -> tuple[Any, Any]:
    """``beta`` and ``alpha`` as the kernel's ``scalar_t`` (checked as ``Scalar.to``), in
    the work dtype."""
    beta, alpha = (x.item() if isinstance(x, Tensor) else x for x in (beta, alpha))
    work = _work(d)
    found = (checked_number(x, work if d.is_floating_point else d) for x in (beta, alpha))
    return tuple(cast(np.asarray(x), work)[()] for x in found)  # type: ignore[return-value]


def _in_place_shape(into: Tensor | None, shape: tuple[int, ...]) -> None:
    if into is not None and into._shape != shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(into._shape)} and "
                           f"output tensor size {list(shape)} should match")


def _write(values: np.ndarray, shape: tuple[int, ...], d: dtype,
           into: Tensor | None) -> Tensor:
    out = into if into is not None else factories._allocate(
        shape, layout.contiguous_strides(shape), d)
    out._elements()[...] = cast(np.asarray(values, dtype=_work(d).numpy), d)
    if into is not None:
        into._version_counter.value += 1
    return out


def _addmv_meta(self: Tensor, mat: Tensor, vec: Tensor, beta: Any,
                into: Tensor | None) -> Tensor:
    """``addmv`` on the meta device, which torch 2.13 runs as its Python decomposition
    (torch/_decomp/decompositions.py), not the CPU kernel's checks: the dtypes first, then
    ``mv``'s; then ``alpha * mv(mat, vec)`` alone when ``beta`` is 0 (read as an int for
    integer and bool dtypes), ``beta * self`` alone when that product is empty (so ``self``'s
    own shape, where the CPU kernel broadcasts it to ``(n,)`` or refuses it), else the
    product plus ``beta * self``, broadcast as any sum (a 2-d ``self`` gives a 2-d result)."""
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           "torch.{}, torch.{}, and torch.{}".format(
                               *(t._dtype.name for t in (self, mat, vec))))
    if not (mat.dim() == 2 and vec.dim() == 1):
        raise RuntimeError(f"matrix @ vector expected, got {mat.dim()}, {vec.dim()}")
    n, k = mat._shape
    if k != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({n}x{k}), vec ({vec._shape[0]})")
    raw = beta.item() if isinstance(beta, Tensor) else beta
    if not vec._dtype.is_floating_point:
        raw = int(raw)
    if raw == 0:
        shape: tuple[int, ...] = (n,)
    elif n == 0:
        shape = self._shape
    else:
        shape = broadcasting.broadcast_shapes((n,), self._shape)
    if into is None:
        return _empty(shape, vec._dtype)
    if broadcasting.broadcast_shapes(into._shape, shape) != into._shape:
        raise RuntimeError(f"output with shape {list(into._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    into._version_counter.value += 1
    return into


def _addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Any, alpha: Any,
           into: Tensor | None, meta: bool) -> Tensor:
    """``addmv`` (``into`` None) and ``addmv_`` (``into`` is ``self``): ``(n,)``."""
    if meta:
        return _addmv_meta(self, mat, vec, beta, into)
    if not (mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1):
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{self.dim()}, {mat.dim()}, {vec.dim()}")
    n = mat._shape[0]
    if mat._shape[1] != vec._shape[0] or self.numel() not in (n, 1):
        if self.dim() == 0:  # torch's message reads self.size(0)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"size mismatch, got input ({self._shape[0]}), mat "
                           f"({n}x{mat._shape[1]}), vec ({vec._shape[0]})")
    common_device([self, mat, vec])
    if not (self._dtype is mat._dtype is vec._dtype):
        names = (_name(t._dtype) for t in (self, mat, vec))
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           + "{}, {}, and {}".format(*names))
    d = vec._dtype
    _in_place_shape(into, (n,))
    b, a = _scalars(beta, alpha, d)
    work = _work(d)
    seen = np.broadcast_to(cast(self._elements(), work), (n,))
    raw_beta = beta.item() if isinstance(beta, Tensor) else beta
    with np.errstate(all="ignore"):
        if mat.numel() == 0 and raw_beta != 0:
            # torch: ``mul(self, scalar_tensor(beta, self's dtype), out=result)``, which
            # resizes the result to ``self``'s own shape (a 0-d or one-element ``self``
            # gives a 0-d or ``(1,)`` result, whatever ``n``)
            if into is not None:
                return _write(cast(self._elements(), work) * b, self._shape, d, into)
            # the (n,) result torch allocated first keeps its storage when resized
            out = factories._allocate((max(n, self.numel()),), (1,), d)
            out._shape, out._stride = self._shape, layout.contiguous_strides(self._shape)
            out._elements()[...] = cast(cast(self._elements(), work) * b, d)
            return out
        if mat.numel() == 0:
            values = np.zeros((n,), work.numpy)
        else:
            _not_for_bool("addmv_impl_cpu", d)
            blas = d in (dtypes.float32, dtypes.float64)
            values = np.zeros((n,), work.numpy)
            if a != 0 or not blas:  # BLAS's gemv skips the product when alpha is 0
                m, v = cast(mat._elements(), work), cast(vec._elements(), work)
                values = a * np.matmul(m, v)
            if b != 0:
                values = b * seen if blas and a == 0 else values + b * seen
    return _write(values, (n,), d, into)


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    for _name_, _body in (("addmv", _addmv),):
        getattr(aten, _name_).default.impl(_key)(
            lambda s, a, b, beta, alpha, meta=_meta, body=_body: body(s, a, b, beta, alpha,
                                                                        None, meta))
        getattr(aten, _name_ + "_").default.impl(_key)(
            lambda s, a, b, beta, alpha, meta=_meta, body=_body: body(s, a, b, beta, alpha,
                                                                        s, meta))
OUT_DTYPE_RULES.update(addmv=_expected_out_dtype)


def _addmv_out(self: Tensor, mat: Tensor, vec: Tensor, beta: Any, alpha: Any,
               out: Tensor) -> Tensor:
    """``addmv(..., out=out)`` as torch's structured kernel: ``out`` resized to ``(n,)``
    first, then, where the CPU kernel computes ``mul(self, beta, out=out)`` (an empty
    ``mat``), resized again to ``self``'s shape, keeping its storage. An ``out`` that is
    ``self`` is read after that first resize (``addmv(s, empty((0, 0)), empty(0), out=s)``
    of a 0-d ``s`` is 1-d)."""
    if out is self and out._shape != (mat._shape[0],) and mat.dim() == 2:
        iterator.resize_output(out, (mat._shape[0],), (1,))
    result = aten.addmv.default.call(self, mat, vec, beta, alpha)
    iterator.assert_no_internal_overlap(out)
    for t in (self, mat, vec):
        if t is not out:
            iterator.assert_no_partial_overlap(out, t)
    _expected_out_dtype(result, out)
    for shape in ((mat._shape[0],), result._shape):
        if out._shape != shape:
            iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    out_arguments.writer(out, result)
    return out


out_arguments.set_rule(aten.addmv.out, out_arguments.OutRule(writes=_addmv_out))



# ------------------------------------------------------------------ einsum
# torch's ``CompositeImplicitAutograd`` ``einsum`` (aten/src/ATen/native/Linear.cpp): the
# equation parsed into labels, every operand viewed with one dim per label of the whole
# equation (output labels first, then the ellipsis' dims, then the summed labels), and the
# operands contracted two at a time, left to right, each pair by ``bmm``.
_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the code of ``...`` among the labels' codes (0-51)


def _label_code(byte: int) -> int:
    """``A``-``Z`` are 0-25, ``a``-``z`` 26-51 (torch's order, so upper case sorts first)."""
    return byte - ord("A") if byte < ord("a") else byte - ord("a") + _LETTERS


def _code_label(code: int) -> str:
    return chr(code + ord("A")) if code < _LETTERS else chr(code - _LETTERS + ord("a"))


def _is_letter(byte: int) -> bool:
    return ord("A") <= byte <= ord("Z") or ord("a") <= byte <= ord("z")


def _einsum_inputs(lhs: bytes, count: int) -> list[list[int]]:
    """The labels of each operand (``_ELLIPSIS`` for ``...``), with torch's checks."""
    labels: list[list[int]] = [[] for _ in range(count)]
    current, ellipsis, i = 0, False, 0
    while i < len(lhs):
        byte = lhs[i]
        if byte == ord(" "):
            pass
        elif byte == ord("."):
            if ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an "
                                   "ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == lhs[i + 2] == ord(".")):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not "
                                   "part of any ellipsis")
            i += 2
            labels[current].append(_ELLIPSIS)
            ellipsis = True
        elif byte == ord(","):
            current += 1
            if current >= count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ellipsis = False
        elif _is_letter(byte):
            labels[current].append(_label_code(byte))
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return labels


def _einsum_output(rhs: bytes, at: int, counts: list[int], ell_dims: int,
                   places: list[int]) -> tuple[int, int, bool]:
    """The explicit output's labels given their places (``places``, in order) with torch's
    checks; returns the number of places taken, the ellipsis' first place and whether the
    ellipsis is in the output."""
    place, ell_place, ellipsis, i = 0, 0, False, 0
    while i < len(rhs):
        byte = rhs[i]
        if byte == ord(" "):
            pass
        elif byte == ord("."):
            if ellipsis:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == rhs[i + 2] == ord(".")):
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            i += 2
            ell_place, ellipsis = place, True
            place += ell_dims
        elif _is_letter(byte):
            code = _label_code(byte)
            if counts[code] == 0 or places[code] != -1:
                why = ("appears more than once in the output" if places[code] != -1 else
                       "does not appear in the equation for any input operand")
                raise RuntimeError(f"einsum(): output subscript {chr(byte)} {why}")
            places[code] = place
            place += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {at + i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1
    return place, ell_place, ellipsis


def _einsum_align(operand: Tensor, index: int, labels: list[int], places: list[int],
                  ell_place: int, ell_dims: int, width: int, sizes: dict[int, int],
                  counts: list[int]) -> Tensor:
    """One operand with a dim at each of the ``width`` places: a repeated label's diagonal
    taken (``diagonal`` then ``movedim`` to the first one's place), missing labels
    ``unsqueeze``\\ d, then ``permute``. ``sizes`` keeps each place's size other than 1 seen
    so far (checking they broadcast) and ``counts`` how many operands have one there."""
    op = operand
    permutation = [-1] * width
    dim = 0
    for code in labels:
        if code == _ELLIPSIS:
            covered = operand.dim() - (len(labels) - 1)
            for j in range(ell_dims - covered, ell_dims):
                size = op._shape[dim]
                if size != 1:
                    seen = sizes.get(ell_place + j, 1)
                    if seen not in (1, size):
                        raise RuntimeError(
                            f"einsum(): dimension {dim} covered by ellipsis in operand "
                            f"{index}has size {size} which does not broadcast with previously "
                            f"seen ellipsis with size {seen} for the respective dimension")
                    sizes[ell_place + j] = size
                    counts[ell_place + j] += 1
                permutation[ell_place + j] = dim
                dim += 1
        elif permutation[places[code]] == -1:
            size = op._shape[dim]
            if size != 1:
                seen = sizes.get(places[code], 1)
                if seen not in (1, size):
                    raise RuntimeError(
                        f"einsum(): subscript {_code_label(code)} has size {size} for operand "
                        f"{index} which does not broadcast with previously seen size {seen}")
                sizes[places[code]] = size
                counts[places[code]] += 1
            permutation[places[code]] = dim
            dim += 1
        else:
            first = permutation[places[code]]
            if op._shape[dim] != op._shape[first]:
                raise RuntimeError(
                    f"einsum(): subscript {_code_label(code)} is repeated for operand {index} "
                    f"but the sizes don't match, {op._shape[dim]} != {op._shape[first]}")
            op = aten.movedim.int.call(aten.diagonal.default.call(op, 0, first, dim), -1, first)
    for k in range(width):
        if permutation[k] == -1:
            op = aten.unsqueeze.default.call(op, dim)
            permutation[k] = dim
            dim += 1
    return aten.permute.default.call(op, permutation)


def _sumproduct_pair(left: Tensor, right: Tensor, summed: list[int]) -> Tensor:
    """torch's ``sumproduct_pair`` (keeping the summed dims as 1s): ``left * right`` when
    nothing is summed; else a dim of size other than 1 on one side only is summed there at
    once, and the rest is one ``bmm``: batch dims (on both sides, kept), ``left``'s own,
    the summed ones, ``right``'s own (the two sides swapped when all of ``right``'s own
    dims come first); the product viewed and permuted back, so its strides are torch's."""
    if not summed:
        return aten.mul.Tensor.call(left, right)
    n = left.dim()
    both: list[int] = []
    left_only: list[int] = []
    right_only: list[int] = []
    both_size = left_size = right_size = summed_size = 1
    for i in range(n):
        sl, sr = left._shape[i] != 1, right._shape[i] != 1
        if i in summed:
            if sl and sr:
                if left._shape[i] != right._shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                summed_size *= left._shape[i]
            elif sl:
                left = aten.sum.dim_IntList.call(left, [i], True, None)
            elif sr:
                right = aten.sum.dim_IntList.call(right, [i], True, None)
        elif sl and sr:
            if left._shape[i] != right._shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            both.append(i)
            both_size *= left._shape[i]
        elif sl:
            left_only.append(i)
            left_size *= left._shape[i]
        else:
            right_only.append(i)
            right_size *= right._shape[i]
    if left_only and right_only and right_only[-1] < left_only[0]:
        # torch 2.13: when every dim of ``right``'s own comes before ``left``'s own, the two
        # swap places, so that the bmm writes the result in the output's order
        left, right, left_only, right_only = right, left, right_only, left_only
        left_size, right_size = right_size, left_size
    shape = ([left._shape[d] for d in both] + [left._shape[d] for d in left_only]
             + [1] * len(summed) + [right._shape[d] for d in right_only])
    order = both + left_only + summed + right_only
    back = [0] * len(order)
    for place, d in enumerate(order):
        back[d] = place
    left = aten.reshape.default.call(aten.permute.default.call(left, order),
                                     (both_size, left_size, summed_size))
    right = aten.reshape.default.call(
        aten.permute.default.call(right, both + summed + right_only + left_only),
        (both_size, summed_size, right_size))
    product = aten.view.default.call(aten.bmm.default.call(left, right), shape)
    return aten.permute.default.call(product, back)


@aten.einsum.default.impl(DispatchKey.CompositeImplicitAutograd)
def einsum(equation: str, tensors: Sequence[Tensor], path: Sequence[int] | None = None
           ) -> Tensor:
    """torch's ``einsum``: see the section's comment. Without ``path`` the operands are
    contracted left to right (the product put first each time); with it, the pairs it
    names (opt_einsum's format), each product put last."""
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    count = len(tensors)
    if path is not None:
        expected = 1 if count == 1 else (count - 1) * 2
        if len(path) != expected:
            raise RuntimeError("einsum(): expected contraction path given in path parameter "
                               f"to have size {expected} but got {len(path)}")
    text = equation.encode()
    arrow = text.find(b"->")
    lhs = text if arrow == -1 else text[:arrow]
    labels = _einsum_inputs(lhs, count)
    counts = [0] * (2 * _LETTERS)
    ell_dims = 0
    for index, (operand, own) in enumerate(zip(tensors, labels, strict=True)):
        named = sum(code != _ELLIPSIS for code in own)
        for code in own:
            if code == _ELLIPSIS:
                ell_dims = max(ell_dims, operand.dim() - named)
            else:
                counts[code] += 1
        ellipsis = _ELLIPSIS in own
        if not (named <= operand.dim() if ellipsis else named == operand.dim()):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) "
                + ("is more than" if ellipsis else "does not match")
                + f" the number of dimensions ({operand.dim()}) for operand {index}"
                + ("" if ellipsis else " and no ellipsis was given"))
    places = [-1] * (2 * _LETTERS)
    if arrow == -1:
        # the implicit output: the ellipsis' dims, then the labels seen once, sorted
        place, ell_place, ell_out = ell_dims, 0, True
        for code in range(2 * _LETTERS):
            if counts[code] == 1:
                places[code] = place
                place += 1
    else:
        place, ell_place, ell_out = _einsum_output(text[arrow + 2:], len(lhs) + 2, counts,
                                                   ell_dims, places)
    out_dims = place
    if not ell_out:
        ell_place = place
        place += ell_dims
    for code in range(2 * _LETTERS):
        if counts[code] > 0 and places[code] == -1:
            places[code] = place
            place += 1
    width = place
    sizes: dict[int, int] = {}
    dim_counts = [0] * width
    ops = [_einsum_align(t, i, own, places, ell_place, ell_dims, width, sizes, dim_counts)
           for i, (t, own) in enumerate(zip(tensors, labels, strict=True))]
    steps = list(path) if path is not None else []
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = steps.pop(0), steps.pop(0)
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                why = ("cannot contract an operand with itself" if i == j else
                       "operand index is out of bounds")
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}) {why}")
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        summed: list[int] = []
        a_sum: list[int] = []
        b_sum: list[int] = []
        for d in range(out_dims, width):
            if a._shape[d] != 1 and b._shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    summed.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b._shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = aten.sum.dim_IntList.call(a, a_sum, True, None)
        if b_sum:
            b = aten.sum.dim_IntList.call(b, b_sum, True, None)
        product = _sumproduct_pair(a, b, summed)
        if path is not None:
            ops.append(product)
        else:
            ops.insert(0, product)
    if width > out_dims:
        if count > 1:
            return aten.view.default.call(ops[0], ops[0]._shape[:out_dims])
        return aten.sum.dim_IntList.call(ops[0], list(range(out_dims, width)), False, None)
    return ops[0]


# ------------------------------------------------------------------ cross
# ``linalg_cross``, torch's structured kernel (aten/src/ATen/native/Cross.cpp): the meta
# function checks the dims and sizes and allocates a contiguous result of the broadcast shape
# in ``self``'s dtype; the CPU kernel (cpu/CrossKernel.cpp) reads both operands in that dtype
# (another dtype is refused there) and computes ``a1 * b2 - a2 * b1``, ... element by element.
# ``cross`` is torch's ``CompositeImplicitAutograd`` wrapper, whose ``dim`` defaults to the
# first dim of size 3 (deprecated, with a warning once).
_CROSS_WARNING = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                  "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                  "default value of dim will change to agree with that of linalg.cross in a "
                  "future release.")


def _linalg_cross(self: Tensor, other: Tensor, dim: int) -> tuple[tuple[int, ...], int]:
    """The meta function's checks: the result's shape and the wrapped dim."""
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, self.dim())
    if self._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self._shape[d]} and {other._shape[d]}")
    return broadcasting.broadcast_shapes(self._shape, other._shape), d


def _cross_values(a: np.ndarray, b: np.ndarray, d: dtype) -> np.ndarray:
    """``a`` and ``b`` (3 along the last axis, in ``d``'s NumPy dtype) crossed as torch's CPU
    loop computes ``x * y - z * w`` in ``scalar_t``: float16 and bfloat16 round each product
    and the difference; float64 as written; float32 as the AVX2 build's contraction,
    ``fma(x, y, -(z * w))`` (the exact ``x * y`` less the rounded ``z * w``, rounded once:
    float32 products are exact in float64); integers wrap."""
    def component(i: int, j: int) -> np.ndarray:
        x, y, z, w = a[..., i], b[..., j], a[..., j], b[..., i]
        if d is dtypes.float32:
            exact = x.astype(np.float64) * y.astype(np.float64)
            return (exact - (z * w).astype(np.float64)).astype(np.float32)
        if d in (dtypes.float16, dtypes.bfloat16):
            wide = dtypes.float32.numpy
            first = cast(x.astype(wide) * y.astype(wide), d)
            second = cast(z.astype(wide) * w.astype(wide), d)
            return cast(first.astype(wide) - second.astype(wide), d)
        return x * y - z * w

    with np.errstate(all="ignore"):
        return np.stack([component(1, 2), component(2, 0), component(0, 1)], axis=-1)


def _cross(self: Tensor, other: Tensor, dim: int, out: Tensor | None) -> Tensor:
    """The CPU kernel: the meta function's checks; then, for ``out=``, its dtype (exactly
    ``self``'s), its resizing, and the CPU kernel's overlap checks (``out`` may share no
    memory with either operand); the loop's dtype checks; the values written."""
    shape, d = _linalg_cross(self, other, dim)
    common_device([self, other])
    if out is None:
        out = factories._allocate(shape, layout.contiguous_strides(shape), self._dtype)
    else:
        _expected_out_dtype(self, out)
        if out._shape != shape:
            iterator.resize_output(out, shape, layout.contiguous_strides(shape))
        iterator.assert_no_internal_overlap(out)
        iterator.assert_no_overlap(out, self)
        iterator.assert_no_overlap(out, other)
        out._version_counter.value += 1
    _not_for_bool("cross", self._dtype)  # (the kernel picks its loop by dtype first)
    if self._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[self._dtype.name]} but "
                           f"found {SCALAR_TYPE_NAMES[other._dtype.name]}")
    if out.numel():
        a = np.moveaxis(np.broadcast_to(self._elements(), shape), d, -1)
        b = np.moveaxis(np.broadcast_to(other._elements(), shape), d, -1)
        np.moveaxis(out._elements(), d, -1)[...] = _cross_values(a, b, self._dtype)
    return out


@aten.linalg_cross.default.impl(DispatchKey.CPU)
def linalg_cross_cpu(self: Tensor, other: Tensor, dim: int) -> Tensor:
    """``self x other`` along ``dim``, both broadcast to one shape: a contiguous result."""
    return _cross(self, other, dim, None)


@aten.linalg_cross.default.impl(DispatchKey.Meta)
def linalg_cross_meta(self: Tensor, other: Tensor, dim: int) -> Tensor:
    shape, _ = _linalg_cross(self, other, dim)
    return _empty(shape, self._dtype)


out_arguments.set_rule(aten.linalg_cross.out, out_arguments.OutRule(
    writes=lambda self, other, dim, out: _cross(self, other, dim, out)))
OUT_DTYPE_RULES.update(linalg_cross=_expected_out_dtype)


def _cross_dim(self: Tensor, dim: int | None) -> int:
    """torch's ``_default_cross_dim``: ``dim``, or the first dim of size 3 (warning once)."""
    if dim is not None:
        return dim
    views._warn_once(_CROSS_WARNING)
    for i, size in enumerate(self._shape):
        if size == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


@aten.cross.default.impl(DispatchKey.CompositeImplicitAutograd)
def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``linalg_cross(self, other, dim)``, ``dim`` defaulting as torch's ``cross``."""
    return aten.linalg_cross.default.call(self, other, _cross_dim(self, dim))


@aten.cross.out.impl(DispatchKey.CompositeImplicitAutograd)
def cross_out(self: Tensor, other: Tensor, dim: int | None, out: Tensor) -> Tensor:
    return aten.linalg_cross.out.call(self, other, _cross_dim(self, dim), out)


# ------------------------------------------------------------------ addr
# ``beta * self + alpha * outer(vec1, vec2)``, torch's CPU kernel (LinearAlgebra.cpp's
# ``addr``/``addr_out``, cpu/LinearAlgebraKernel.cpp): one TensorIterator over ``self``
# (expanded to ``(n, m)`` unless written in place), ``vec1`` viewed as a column and
# ``vec2``, promoting to their common dtype; ``beta`` 0 ignores ``self`` (its nans too);
# bool computes ``(beta and self) or (alpha and vec1 and vec2)``. ``addr_`` is
# ``addr(..., out=self)``.
def _addr_scalar(d: dtype, scalar: Any, name: str) -> None:
    """torch's ``check_addr_scalar``."""
    value = scalar.item() if isinstance(scalar, Tensor) else scalar
    if isinstance(value, bool) and d is not dtypes.bool:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if not d.is_floating_point and isinstance(value, float):
        raise RuntimeError("For integral input tensors, argument "
                           f"{name} must not be a floating point number.")


def _addr_operands(self: Tensor, vec1: Tensor, vec2: Tensor, in_place: bool
                   ) -> tuple[list[Tensor], dtype]:
    """torch's ``build_addr_iter``'s checks and operands (and their common dtype)."""
    _check_1d(vec1, "vec1", "addr")
    _check_1d(vec2, "vec2", "addr")
    n, m = vec1._shape[0], vec2._shape[0]
    seen = self
    if not in_place:
        seen = aten.expand.default.call(self, (n, m), False)
    if seen.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {seen.dim()}D tensor for input")
    if seen._shape != (n, m):
        raise RuntimeError(f"size mismatch, input: {list(seen._shape)}, v1: [{n}], v2: [{m}]")
    column = aten.reshape.default.call(vec1, (n, 1))
    # (``self`` expanded has dims: a 0-d ``self`` takes part in the promotion as a tensor)
    return [seen, column, vec2], result_type(seen, column, vec2)


def _addr_kernel(d: dtype, beta: Any, alpha: Any) -> Any:
    b = beta.item() if isinstance(beta, Tensor) else beta
    a = alpha.item() if isinstance(alpha, Tensor) else alpha
    if d is dtypes.bool:
        b, a = bool(b), bool(a)
        if not b:
            return lambda s, x, y: np.logical_and(a, np.logical_and(x, y))
        return lambda s, x, y: np.logical_or(np.logical_and(b, s),
                                             np.logical_and(a, np.logical_and(x, y)))
    work = compute_dtype(d)
    b, a = (cast(np.asarray(checked_number(v, d)), d) for v in (b, a))
    b, a = b.astype(work.numpy)[()], a.astype(work.numpy)[()]
    if work is not d:
        # float16/bfloat16: torch's ``scalar_t`` arithmetic rounds after every operation
        def r(x: np.ndarray) -> np.ndarray:
            return cast(cast(np.asarray(x), d), work)

        if b == 0:
            return lambda s, x, y: r(r(a * x) * y)
        return lambda s, x, y: r(r(b * s) + r(r(a * x) * y))
    if b == 0:
        return lambda s, x, y: a * x * y
    if d is dtypes.float32:
        # torch's vectorised loop is compiled as ``fma(a * x, y, b * s)`` (float32 products
        # are exact in float64, so the sum is rounded once): measured equal to torch's on
        # 120,000 elements of contiguous operands; torch's scalar loop (short rows, the end
        # of a row, strided operands) rounds otherwise, up to an ulp apart (op_db's ulps)
        def fused(s: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
            wide = np.float64
            return (np.asarray(a * x).astype(wide) * np.asarray(y).astype(wide)
                    + np.asarray(b * s).astype(wide)).astype(np.float32)

        return fused
    return lambda s, x, y: b * s + a * x * y


def _addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any, alpha: Any, meta: bool
          ) -> Tensor:
    operands, d = _addr_operands(self, vec1, vec2, False)
    _addr_scalar(d, beta, "beta")
    _addr_scalar(d, alpha, "alpha")
    shape = operands[0]._shape
    if meta:
        # torch's meta result is its Python reference's (torch._refs.addr), promoted over
        # ``self`` as given (0-d or not), ``vec1`` and ``vec2``
        d = result_type(self, vec1, vec2)
        return elementwise.finish_meta(None, operands, d, shape)  # type: ignore[arg-type]
    return elementwise.finish_cpu(_addr_kernel(d, beta, alpha), operands, d, shape)


def _addr_out(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any, alpha: Any,
              out: Tensor, in_place: bool = False) -> Tensor:
    """torch's ``addr_out``: the iterator built with ``out`` as its output (resized to
    ``(n, m)``, a dtype ``out`` can hold), then the loop. ``addr_`` passes ``self`` as
    ``out`` (``in_place``: not expanded); ``out=`` given the input itself is not that case,
    the input is expanded as for any ``out``."""
    operands, d = _addr_operands(self, vec1, vec2, in_place)
    _addr_scalar(d, beta, "beta")
    _addr_scalar(d, alpha, "alpha")
    shape = operands[0]._shape
    iterator.assert_no_internal_overlap(out)
    for t in operands:
        if t is not out:
            iterator.assert_no_partial_overlap(out, t)
    check_can_cast(d, out._dtype)
    if out._shape != shape:
        iterator.resize_output(out, shape, elementwise.output_strides(operands, d, shape))
    if out.device.type == "meta":
        out._version_counter.value += 1
        return out
    kernel = _addr_kernel(d, beta, alpha)
    if not in_place and iterator._overlap(out, operands[0]) != "no":
        # ``out=`` the input itself, resized: the expanded input reads the memory the loop
        # writes, element by element in ``out``'s order, as torch's loop does
        work = compute_dtype(d)
        seen = operands[0]._elements()
        x = np.broadcast_to(operands[1]._elements(), shape)
        y = np.broadcast_to(operands[2]._elements(), shape)
        written = out._elements()
        with np.errstate(all="ignore"):
            for i in np.ndindex(*shape):
                value = kernel(*(cast(np.asarray(v[i]), d).astype(work.numpy)
                                 for v in (seen, x, y)))
                written[i] = cast(cast(np.asarray(value), d), out._dtype)
    else:
        result = elementwise.finish_cpu(kernel, operands, d, shape)
        out._elements()[...] = cast(result._elements(), out._dtype)
    out._version_counter.value += 1
    return out


aten.addr.default.impl(DispatchKey.CPU)(
    lambda s, v1, v2, beta, alpha: _addr(s, v1, v2, beta, alpha, False))
aten.addr.default.impl(DispatchKey.Meta)(
    lambda s, v1, v2, beta, alpha: _addr(s, v1, v2, beta, alpha, True))
out_arguments.set_rule(aten.addr.out, out_arguments.OutRule(writes=_addr_out))


@aten.addr_.default.impl(DispatchKey.CPU)
@aten.addr_.default.impl(DispatchKey.Meta)
def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any, alpha: Any) -> Tensor:
    """torch's ``addr_``: ``addr(self, vec1, vec2, beta=, alpha=, out=self)``."""
    return _addr_out(self, vec1, vec2, beta, alpha, self, True)


# ------------------------------------------------------------------ baddbmm, addbmm
# ``beta * self + alpha * (batch1 @ batch2)``: ``baddbmm`` keeps the batch, ``addbmm`` sums
# over it. torch's ``baddbmm`` is a structured kernel (LinearAlgebra.cpp): its meta function
# expands ``self`` to ``(b, n, m)``, checks, allocates a contiguous result of ``batch2``'s
# dtype and copies ``self`` into it (unless ``beta`` is 0); the CPU kernel then works in
# place on the result: an inner size of 0 gives ``result.mul_(beta)`` (or zeros), small
# products (``k * n * m < 400``) run torch's own loop (the products summed one by one in
# the dtype's ``opmath`` type, then ``result * beta + alpha * sum``, or ``alpha * sum`` when
# ``beta`` is 0), larger ones go to BLAS, matrix by matrix. ``addbmm`` is no structured
# kernel: it copies ``self`` (expanded to ``(n, m)``) into its result and calls ``addmm_``
# once per matrix, ``beta`` for the first and 1 after it.
_SMALL_PRODUCT = 400


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, Tensor) else value


def _expand_size(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """torch's ``expand_size``: ``self`` itself when it has ``shape``, else expanded to it
    (torch's words for too many dims)."""
    if self._shape == shape:
        return self
    if self.dim() > len(shape):
        raise RuntimeError(
            f"expand(torch.{legacy_type_name(self._dtype)}{{{list(self._shape)}}}, "
            f"size={list(shape)}): the number of sizes provided ({len(shape)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({self.dim()})")
    return aten.expand.default.call(self, shape, False)


def _baddbmm_checks(self: Tensor, batch1: Tensor, batch2: Tensor, meta: bool
                    ) -> tuple[tuple[int, int, int], Tensor]:
    """torch's checks, in its order (``TORCH_META_FUNC(baddbmm)``, or the Python meta
    function). Returns the result's shape and ``self`` expanded to it."""
    shape = (batch1.size(0), batch1.size(1), batch2.size(2))
    seen = _expand_size(self, shape)
    if not meta and self._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input "
                           f"{C_TYPE_NAMES[self._dtype.name]}, batch1: "
                           f"{C_TYPE_NAMES[batch1._dtype.name]}, batch2: "
                           f"{C_TYPE_NAMES[batch2._dtype.name]}")
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if meta and not (self._dtype is batch1._dtype is batch2._dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input: torch."
                           f"{self._dtype.name}, batch1: torch.{batch1._dtype.name}, "
                           f"batch2: torch.{batch2._dtype.name}")
    count, _, k = batch1._shape
    if batch2._shape[:2] != (count, k):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {k}] but got: [{batch2._shape[0]}, "
                           f"{batch2._shape[1]}].")
    common_device([self, batch1, batch2])
    return shape, seen


def _copy_in(result: Tensor, seen: Tensor) -> None:
    """``result.copy_(seen)`` as torch's copy: refused where the two share part of their
    memory in layouts it can compare; read and written element by element, in order, where
    they overlap otherwise (``out=`` the input itself, resized: the expanded input reads
    the memory the copy writes)."""
    if result is seen:
        return
    iterator.assert_no_internal_overlap(result)
    iterator.assert_no_partial_overlap(result, seen)
    source = seen._elements()
    written = result._elements()
    if iterator._overlap(result, seen) == "no":
        written[...] = cast(source, result._dtype)
        return
    for i in np.ndindex(*result._shape):
        written[i] = source[i]


def _mul_beta(result: Tensor, beta: Any) -> None:
    """``result.mul_(beta)`` (``beta`` not 0): a ``beta`` that would promote past the
    result's dtype is refused; integers wrap around, floats may overflow to inf."""
    d = result._dtype
    check_can_cast(result_type(result, beta), d)
    values = result._elements()
    if d is dtypes.bool:
        return  # (True: the only beta bool takes)
    work = _work(d)
    if d.is_floating_point:
        factor = np.asarray(float(beta), np.float64).astype(work.numpy)
    else:
        factor = np.asarray(int(beta) & 0xFFFFFFFFFFFFFFFF, np.uint64).astype(np.int64)
    with np.errstate(all="ignore"):
        values[...] = cast(cast(values, work) * factor, d)


def _baddbmm_kernel(result: Tensor, batch1: Tensor, batch2: Tensor, beta: Any,
                    alpha: Any) -> None:
    """torch's ``baddbmm_out_cpu`` on a result that holds ``self`` already (unless ``beta``
    is 0): the values written in place."""
    raw_beta = _scalar(beta)
    count, n, k = batch1._shape
    m = batch2._shape[2]
    if result.numel() == 0:
        return
    if k == 0:
        if raw_beta == 0:
            result._elements()[...] = 0
        else:
            _mul_beta(result, raw_beta)
        return
    small = k * n * m < _SMALL_PRODUCT
    d = batch1._dtype
    _not_for_bool("baddbmm" if small else "addmm_impl_cpu_", d)
    b, a = _scalars(beta, alpha, d)
    if batch2._dtype is not d:
        first, second = (d, batch2._dtype) if small else (batch2._dtype, d)
        raise RuntimeError(f"expected scalar type {_name(first)} but found {_name(second)}")
    work = _work(d)
    x, y = cast(batch1._elements(), work), cast(batch2._elements(), work)
    written = result._elements()
    with np.errstate(all="ignore"):
        if small:
            # torch's loop: each product rounded, summed from the first k up
            total = np.zeros((count, n, m), work.numpy)
            for i in range(k):
                total = total + x[:, :, i, None] * y[:, None, i, :]
            values = a * total if b == 0 else cast(written, work) * b + a * total
        elif a == 0 and d in (dtypes.float32, dtypes.float64):
            # BLAS reads no product when alpha is 0 (and no C when beta is 0)
            values = np.zeros((count, n, m), work.numpy) if b == 0 else b * cast(written, work)
        else:
            product = a * np.matmul(x, y)
            values = product if b == 0 else product + b * cast(written, work)
    written[...] = cast(np.asarray(values, work.numpy), d)


def _baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
             meta: bool) -> Tensor:
    shape, seen = _baddbmm_checks(self, batch1, batch2, meta)
    result = (_empty if meta else lambda s, d: factories._allocate(
        s, layout.contiguous_strides(s), d))(shape, batch2._dtype if not meta else seen._dtype)
    if meta:
        return result
    if _scalar(beta) != 0:
        _copy_in(result, seen)
    _baddbmm_kernel(result, batch1, batch2, beta, alpha)
    return result


def _meta_out(out: Tensor, result: Tensor) -> Tensor:
    """``out=`` on the meta device for ``baddbmm`` and ``addbmm``: ``out`` of exactly
    ``result``'s dtype (RuntimeError otherwise), resized to its shape, ``_version`` + 1."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype torch.{result._dtype.name} "
                           f"but got torch.{out._dtype.name} instead")
    if out._shape != result._shape:
        iterator.resize_output(out, result._shape, result._stride)
    out._version_counter.value += 1
    return out


def _baddbmm_out(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
                 out: Tensor) -> Tensor:
    """``baddbmm(..., out=out)`` as torch's structured kernel: ``out`` of exactly the
    result's dtype, resized to ``(b, n, m)`` (with torch's warning), ``self`` copied in (the
    input itself, resized, is read through its old layout, as torch reads it; a 0-d input
    whose result has one element is refused, as torch's copy refuses it), the kernel run
    on it."""
    meta = out.device.type == "meta"
    if meta:
        return _meta_out(out, _baddbmm(self, batch1, batch2, beta, alpha, True))
    shape, seen = _baddbmm_checks(self, batch1, batch2, False)
    if out._dtype is not batch2._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{C_TYPE_NAMES[batch2._dtype.name]}, but got "
                           f"{C_TYPE_NAMES[out._dtype.name]} instead")
    if out._shape != shape:
        iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    if _scalar(beta) != 0:
        _copy_in(out, seen)
    _baddbmm_kernel(out, batch1, batch2, beta, alpha)
    out._version_counter.value += 1
    return out


def _baddbmm_in_place(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
                      meta: bool) -> Tensor:
    """``baddbmm_``: as ``out=self``, where ``self`` must have the result's dtype and shape
    (torch's ``check_inplace``); torch's meta ``baddbmm_`` is ``baddbmm`` then ``copy_``."""
    shape, _ = _baddbmm_checks(self, batch1, batch2, meta)
    if meta and self._shape != shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    if batch2._dtype is not self._dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype "
                           f"{C_TYPE_NAMES[self._dtype.name]} and output tensor dtype "
                           f"{C_TYPE_NAMES[batch2._dtype.name]} should match")
    _in_place_shape(self, shape)
    if not meta:
        _baddbmm_kernel(self, batch1, batch2, beta, alpha)
    self._version_counter.value += 1
    return self


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.baddbmm.default.impl(_key)(
        lambda s, b1, b2, beta, alpha, meta=_meta: _baddbmm(s, b1, b2, beta, alpha, meta))
    aten.baddbmm_.default.impl(_key)(
        lambda s, b1, b2, beta, alpha, meta=_meta: _baddbmm_in_place(s, b1, b2, beta, alpha,
                                                                     meta))
out_arguments.set_rule(aten.baddbmm.out, out_arguments.OutRule(writes=_baddbmm_out))


def _addbmm_checks(self: Tensor, batch1: Tensor, batch2: Tensor) -> Tensor:
    """torch's ``addbmm_out``'s checks, in its order; returns ``self`` expanded to
    ``(n, m)``."""
    shape = (batch1.size(1), batch2.size(2))
    seen = _expand_size(self, shape)
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._shape[0] != batch2._shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1._shape[0]} and {batch2._shape[0]}")
    if batch1._shape[2] != batch2._shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1._shape[1]}x"
                           f"{batch1._shape[2]} and {batch2._shape[1]}x{batch2._shape[2]})")
    common_device([self, batch1, batch2])
    return seen


def _gemm_step(out: Tensor, mat1: Tensor, mat2: Tensor, beta: Any, alpha: Any) -> None:
    """``out.addmm_(mat1, mat2, beta, alpha)`` for float32/float64 (an inner size above 0):
    as torch's BLAS (MKL's sgemm/dgemm) rounds, ``out`` scaled by ``beta`` first (ignored
    when ``beta`` is 0), then ``(alpha * mat1[:, i]) * mat2[i]`` added for each ``i`` in
    turn, each operation rounded (measured equal to torch's for results of more than one
    column and inner sizes below 8; about 60% of elements' results for larger inner
    sizes, the rest an ulp or two apart); ``alpha`` 0 skips the products."""
    b, a = _scalars(beta, alpha, out._dtype)
    work = out._dtype.numpy
    written = out._elements()
    with np.errstate(all="ignore"):
        total = np.zeros(out._shape, work) if b == 0 else written * b
        if a != 0:
            x = a * mat1._elements() if a != 1 else mat1._elements()
            y = mat2._elements()
            for i in range(mat1._shape[1]):
                total = total + x[:, i, None] * y[None, i, :]
    written[...] = total


def _addbmm_out(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
                out: Tensor) -> Tensor:
    """torch's ``addbmm_out`` (``addbmm_`` is it with ``out=self``): ``out`` resized as
    ``self`` expanded (``resize_as_``: no warning, a tensor of that shape keeps its
    strides), ``self`` copied in unless ``beta`` is 0 or ``out`` is ``self`` itself, then
    ``out.addmm_(batch1[i], batch2[i])`` for each matrix, ``beta`` for the first and 1
    after it (the dtype checks are ``addmm_``'s, against ``out``'s dtype); no matrices:
    ``out.mul_(beta)``, or zeros. ``out._version`` goes up by one."""
    seen = _addbmm_checks(self, batch1, batch2)
    if out.device.type == "meta":
        return _meta_out(out, aten.addbmm.default.call(self, batch1, batch2, beta, alpha))
    version = out._version_counter.value
    factories._resize(out, seen._shape)
    raw_beta = _scalar(beta)
    if raw_beta != 0:
        _copy_in(out, seen)
    count = batch1._shape[0]
    if count == 0:
        if raw_beta != 0:
            _mul_beta(out, raw_beta)
        else:
            out._elements()[...] = 0
    blas = (dtypes.float32, dtypes.float64)
    for i in range(count):
        mat1, mat2 = aten.select.int.call(batch1, 0, i), aten.select.int.call(batch2, 0, i)
        if out._dtype in blas and batch1._shape[2] and out.numel():
            _addmm_checks(out, mat1, mat2)
            _gemm_step(out, mat1, mat2, beta if i == 0 else 1, alpha)
        else:
            _addmm(out, mat1, mat2, beta if i == 0 else 1, alpha, out, False)
    out._version_counter.value = version + 1
    return out


def _addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
            meta: bool) -> Tensor:
    """``addbmm``: ``addbmm_out`` into a new tensor of ``self``'s dtype (torch's meta
    function checks no dtypes)."""
    if meta:
        seen = _addbmm_checks(self, batch1, batch2)
        return _empty(seen._shape, self._dtype)
    out = factories._allocate((0,), (1,), self._dtype)
    _addbmm_out(self, batch1, batch2, beta, alpha, out)
    out._version_counter.value = 0
    return out


def _addbmm_in_place(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any, alpha: Any,
                     meta: bool) -> Tensor:
    """``addbmm_``: ``addbmm_out`` with ``out=self``; torch's meta ``addbmm_`` is
    ``addbmm`` then ``copy_``, which refuses a ``self`` of another shape."""
    if meta:
        result = _addbmm(self, batch1, batch2, beta, alpha, True)
        if self._shape != result._shape:
            raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                               f"broadcast shape {list(result._shape)}")
        self._version_counter.value += 1
        return self
    return _addbmm_out(self, batch1, batch2, beta, alpha, self)


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.addbmm.default.impl(_key)(
        lambda s, b1, b2, beta, alpha, meta=_meta: _addbmm(s, b1, b2, beta, alpha, meta))
    aten.addbmm_.default.impl(_key)(
        lambda s, b1, b2, beta, alpha, meta=_meta: _addbmm_in_place(s, b1, b2, beta, alpha,
                                                                    meta))
out_arguments.set_rule(aten.addbmm.out, out_arguments.OutRule(writes=_addbmm_out))


# ------------------------------------------------------------------ multi_dot, chain_matmul
# torch's ``linalg_multi_dot`` and ``chain_matmul`` are ``CompositeImplicitAutograd``
# (LinearAlgebra.cpp's ``multi_dot_impl``): a 1-D first operand is viewed as a row, a 1-D
# last one as a column, the chain multiplied with ``mm`` in the cheapest order (counting
# ``p * q * r`` multiplications for a ``(p, q) @ (q, r)``; for three matrices one
# comparison of the two orders, ties to ``(A @ B) @ C``; for more, the dynamic programme
# of Cormen et al., ties to the first split), and the result viewed back without the
# rows or columns the vectors added.
_CHAIN_MATMUL_WARNING = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
    "than multiple parameters.")
#: torch warns once per process from each of its two call sites (function, ``out=``)
_chain_matmul_warned = {"function": False, "out": False}


def _chain_order(sizes: list[int]) -> list[list[int]]:
    """``split[i][j]``: where the cheapest product of matrices ``i..j`` splits (matrix
    ``i`` is ``(sizes[i], sizes[i + 1])``)."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if best is None or q < best:
                    best, split[i][j] = q, k
            cost[i][j] = best  # type: ignore[assignment]
    return split


def _chain(mats: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return aten.mm.default.call(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def _multi_dot(tensors: Sequence[Tensor], out: Tensor | None) -> Tensor:
    """torch's ``multi_dot_impl``: the checks in its order, then the products."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    shape: list[int] = []
    mats = list(tensors)
    if first.dim() == 1:
        mats[0] = aten.unsqueeze.default.call(first, 0)
    elif first.dim() == 2:
        shape.append(first._shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.dim()}D")
    if last.dim() == 1:
        mats[-1] = aten.unsqueeze.default.call(last, -1)
    elif last.dim() == 2:
        shape.append(last._shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got "
                           f"{last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got "
                               f"{tensors[i].dim()}D")
    d = mats[0]._dtype
    for i in range(1, n):
        if mats[i]._dtype is not d:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {C_TYPE_NAMES[d.name]} and tensor {i} "
                               f"{C_TYPE_NAMES[mats[i]._dtype.name]}")
        common_device([mats[0], mats[i]])
        if mats[i - 1]._shape[-1] != mats[i]._shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(tensors[i - 1]._shape)} and "
                               f"{list(tensors[i]._shape)} cannot be multiplied")
    into = None
    if out is not None:
        if out._dtype is not d:
            raise RuntimeError(f"multi_dot(): expected out tensor to have dtype "
                               f"{C_TYPE_NAMES[d.name]} but got {C_TYPE_NAMES[out._dtype.name]}")
        common_device([mats[0], out])
        if out._shape != tuple(shape):
            iterator.resize_output(out, tuple(shape), layout.contiguous_strides(tuple(shape)))
        # (sizes read after the resize, as torch reads them: ``out`` may be an operand)
        into = aten.view.default.call(out, (mats[0].size(0), mats[-1].size(-1)))
    if n == 3:
        a, b, c, e = mats[0].size(0), mats[1].size(0), mats[2].size(0), mats[2].size(1)
        if a * c * (b + e) > b * e * (a + c):
            left, right = mats[0], aten.mm.default.call(mats[1], mats[2])
        else:
            left, right = aten.mm.default.call(mats[0], mats[1]), mats[2]
    elif n == 2:
        left, right = mats
    else:
        split = _chain_order([m.size(0) for m in mats] + [mats[-1].size(1)])
        k = split[0][n - 1]
        left, right = _chain(mats, split, 0, k), _chain(mats, split, k + 1, n - 1)
    if into is not None:
        if any(iterator._overlap(into, t) != "no" for t in (left, right)):
            # ``out`` is an operand (the first tensor, say): torch's ``mm`` writes into it
            # unchecked, where reftensor's ``mm.out`` refuses the overlap; the product
            # computed first, then copied (torch's values on every case drawn)
            aten.copy_.default.call(into, aten.mm.default.call(left, right), False)
        else:
            aten.mm.out.call(left, right, into)
        return out  # type: ignore[return-value]
    return aten.view.default.call(aten.mm.default.call(left, right), tuple(shape))


@aten.linalg_multi_dot.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    return _multi_dot(tensors, None)


@aten.linalg_multi_dot.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_multi_dot_out(tensors: Sequence[Tensor], out: Tensor) -> Tensor:
    return _multi_dot(tensors, out)


def _chain_matmul_checks(matrices: Sequence[Tensor], site: str) -> None:
    """torch's warning (once per process and call site), ``checkAllSameDim(matrices, 2)``,
    then at least one matrix."""
    if not _chain_matmul_warned[site]:
        _chain_matmul_warned[site] = True
        warnings.warn(_CHAIN_MATMUL_WARNING, UserWarning, stacklevel=4)
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")


@aten.chain_matmul.default.impl(DispatchKey.CompositeImplicitAutograd)
def chain_matmul(matrices: Sequence[Tensor]) -> Tensor:
    """torch's ``chain_matmul``: one matrix is cloned, more are ``multi_dot``'s."""
    _chain_matmul_checks(matrices, "function")
    if len(matrices) == 1:
        return aten.clone.default.call(matrices[0], None)
    return _multi_dot(matrices, None)


@aten.chain_matmul.out.impl(DispatchKey.CompositeImplicitAutograd)
def chain_matmul_out(matrices: Sequence[Tensor], out: Tensor) -> Tensor:
    """One matrix: ``out`` resized to its shape and ``copy_`` (any dtype it casts to)."""
    _chain_matmul_checks(matrices, "out")
    if len(matrices) == 1:
        shape = matrices[0]._shape
        if out._shape != shape:
            iterator.resize_output(out, shape, layout.contiguous_strides(shape))
        return aten.copy_.default.call(out, matrices[0], False)
    return _multi_dot(matrices, out)


# ------------------------------------------------------------------ matrix_power
# torch's ``linalg_matrix_power`` is ``CompositeImplicitAutograd`` (LinearAlgebra.cpp's
# ``linalg_matrix_power_impl``): powers 0 and 1 are copies (of the identity, of the input),
# 2 and 3 are ``matmul(a, a)`` and ``matmul(matmul(a, a), a)``, larger ones repeated
# squaring from the least significant bit up (``z`` squared at each bit, multiplied into the
# result on the right where the bit is set), so floats round as torch's. A negative power
# is ``linalg.inv(a)`` (-1: into ``out``) raised to ``-n`` the same way.
def _matrix_power(self: Tensor, n: int, out: Tensor | None) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if self._shape[-1] != self._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {self._shape[-2]} by {self._shape[-1]} matrices")
    if out is not None:
        common_device([out, self])
        if not can_cast(self._dtype, out._dtype):
            raise RuntimeError(f"matrix_power: Expected result to be safely castable from "
                               f"{_name(self._dtype)} dtype, but got result with dtype "
                               f"{_name(out._dtype)}")
        if out._shape != self._shape:
            iterator.resize_output(out, self._shape, layout.contiguous_strides(self._shape))
    if n == 0:
        into = out if out is not None else aten.clone.default.call(
            self, layout.contiguous_format)
        identity = aten.eye.default.call(self._shape[-2], self._dtype, None, self.device, None)
        return aten.copy_.default.call(into, identity, False)
    if n == 1:
        if out is not None:
            return aten.copy_.default.call(out, self, False)
        return aten.clone.default.call(self, layout.contiguous_format)
    if n == -1:
        if out is not None:
            return aten.linalg_inv.out.call(self, out)
        return aten.linalg_inv.default.call(self)
    a = aten.linalg_inv.default.call(self) if n < 0 else self
    n = abs(n)

    def product(a: Tensor, b: Tensor, last: bool = False) -> Tensor:
        if last and out is not None:
            return aten.matmul.out.call(a, b, out)
        return aten.matmul.default.call(a, b)

    if n == 2:
        return product(a, a, True)
    if n == 3:
        return product(product(a, a), a, True)
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else product(z, z)
        if bit:
            if out is not None and n == 0:
                if result is None:
                    return aten.copy_.default.call(out, z, False)
                return product(result, z, True)
            result = z if result is None else product(result, z)
    return result  # type: ignore[return-value]


@aten.linalg_matrix_power.default.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_matrix_power(self: Tensor, n: int) -> Tensor:
    return _matrix_power(self, n, None)


@aten.linalg_matrix_power.out.impl(DispatchKey.CompositeImplicitAutograd)
def linalg_matrix_power_out(self: Tensor, n: int, out: Tensor) -> Tensor:
    return _matrix_power(self, n, out)


@aten.matrix_power.default.impl(DispatchKey.CompositeImplicitAutograd)
def matrix_power(self: Tensor, n: int) -> Tensor:
    """torch's ``matrix_power``: ``linalg_matrix_power``."""
    return aten.linalg_matrix_power.default.call(self, n)


@aten.matrix_power.out.impl(DispatchKey.CompositeImplicitAutograd)
def matrix_power_out(self: Tensor, n: int, out: Tensor) -> Tensor:
    return aten.linalg_matrix_power.out.call(self, n, out)
