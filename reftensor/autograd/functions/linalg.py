"""``matmul``'s kernel: torch's decomposition into ``dot``, ``mv``, ``mm`` and ``bmm``.

torch's ``matmul`` is ``CompositeImplicitAutograd``: it has no derivative of its own, it
calls the products (each an op of the table with a derivative row: ``MmBackward0``, ...)
and views, so its graph shows those nodes. This module registers that kernel. When nothing
would be recorded (no operand requires grad, no dispatch mode, CPU operands) it runs the
whole product as one NumPy call instead (``matmul.matmul_cpu``): the same values, layout
and errors, without building the views.

One step of the decomposition is not an op of the table yet, so it is recorded here: the
in-place ``squeeze_(0)`` that drops a 1-D left operand's row (``SqueezeBackward4``).
``_unsafe_view`` (a reshape that makes a fresh tensor, not a view: ``UnsafeViewBackward0``)
is the table's.
"""

from __future__ import annotations

import math

from ..._ops import DispatchKey, aten
from ..._ops.dispatcher import key_set
from ..._ops.state import state as dispatch_state
from ...broadcasting import broadcast_shapes
from ...device import META
from ...matmul import _should_fold as layout_folds
from ...matmul import check_matmul, matmul_cpu, result_shape
from ...tensor import Tensor
from ...views import view_strides
from ..graph import needs_grad, record
from .views import SqueezeBackward4

__all__: list[str] = []

_dot, _mv, _mm, _bmm = (aten.dot.default.call, aten.mv.default.call, aten.mm.default.call,
                        aten.bmm.default.call)


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``t`` with a new shape, recorded as ``UnsafeViewBackward0`` (not a view: no ``_base``)."""
    return aten._unsafe_view.default.call(t, shape)


def _squeeze_row(t: Tensor) -> Tensor:
    """torch's ``t.squeeze_(0)`` on the fresh ``(1, m)`` result of ``mm``: ``(m,)``, its
    version counter bumped, recorded as ``SqueezeBackward4``."""
    out = Tensor._make(t._storage, t._shape[1:], t._stride[1:], t._storage_offset, t._dtype)
    out._version_counter = t._version_counter
    out._version_counter.value += 1
    if needs_grad(t):
        record(SqueezeBackward4(t, lambda g: g.unsqueeze(0)), out)
    return out


def _should_fold(input: Tensor, other: Tensor) -> bool:
    """torch's ``should_fold``: fold when the layout allows it without a copy, and also
    (with a copy) when the smaller operand requires grad, so that its gradient is one
    ``mm`` instead of a large batched product summed down."""
    larger, smaller = (input, other) if input.dim() >= other.dim() else (other, input)
    if larger.dim() < 3 or smaller.dim() > 2:
        return False
    return smaller._requires_grad or layout_folds(input, other)


@aten.matmul.default.impl(DispatchKey.CompositeImplicitAutograd)
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``, decomposed as torch decomposes it: ``dot`` (1-d @ 1-d), ``mv``,
    ``mm`` (with an unsqueeze/squeeze_ around a 1-d left operand), and for batches either
    one ``mm``/``mv`` on the batch folded into the rows, or a ``bmm`` on expanded, reshaped
    operands, viewed back (``UnsafeViewBackward0``) to the shape chapter 4's
    ``matmul_shape`` gives. Of two 3-D operands, one with a batch of 1 that requires grad is
    squeezed to a matrix first (torch 2.13 does so, to fold)."""
    if not (input._requires_grad or other._requires_grad or dispatch_state.modes
            or input._storage._device is META or other._storage._device is META):
        return matmul_cpu(input, other)
    check_matmul(input, other)  # torch's checks and messages, on bad shapes
    da, db = input.dim(), other.dim()
    if da == 1 and db == 1:
        return _dot(input, other)
    if da == 2 and db == 1:
        return _mv(input, other)
    if da == 1 and db == 2:
        return _squeeze_row(_mm(input.unsqueeze(0), other))
    if da == 2 and db == 2:
        return _mm(input, other)
    if da == 3 and db == 3:  # a batch of one that requires grad is dropped, then folded
        if input.shape[0] == 1 and other.shape[0] != 1 and input._requires_grad:
            return matmul(input.squeeze(0), other)
        if other.shape[0] == 1 and input.shape[0] != 1 and other._requires_grad:
            return matmul(input, other.squeeze(0))
    if _should_fold(input, other):  # fold the batch into the rows: one mm (or mv)
        transpose = db > da  # then fold other.mT, and multiply it by input
        t1 = other.mT if transpose else input
        t2 = (input.t() if da == 2 else input) if transpose else other
        rows = t1.reshape(math.prod(t1.shape[:-1]), t1.shape[-1])  # -1: not if empty
        if t2.dim() == 1:
            return _unsafe_view(_mv(rows, t2), tuple(t1.shape[:-1]))
        out = _unsafe_view(_mm(rows, t2), (*t1.shape[:-1], t2.shape[-1]))
        return out.mT.contiguous() if transpose else out
    a = input.unsqueeze(0) if da == 1 else input
    b = other.unsqueeze(-1) if db == 1 else other
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
    count = math.prod(batch)
    a3 = a.expand(*batch, n, k).reshape(count, n, k)
    b3 = b.expand(*batch, k, m).reshape(count, k, m)
    out = _bmm(a3, b3)  # (count, n, m), viewed as chapter 4's matmul_shape says
    return _unsafe_view(out, result_shape(input._shape, other._shape, out.numel()))


@aten.matmul.out.impl(DispatchKey.CompositeImplicitAutograd)
def matmul_out(input: Tensor, other: Tensor, out: Tensor) -> Tensor:
    """``torch.matmul(input, other, out=out)``: a 1-D ``input`` times a matrix is written by
    ``mm`` into ``out`` as a row (``out`` resized to ``(1, m)``, with torch's warning when
    that changes its shape), then ``out.squeeze_(0)``, a second bump of its version, as in
    torch. A folded product whose ``out`` no view can fold goes through a copy
    (:func:`_folded_out_shape`). Every other case is the generic ``out=`` kernel
    (``out_arguments.py``)."""
    if input.dim() == 1 and other.dim() == 2:
        aten.mm.out.call(input.unsqueeze(0), other, out)
        out._shape, out._stride = out._shape[1:], out._stride[1:]
        out._version_counter.value += 1
        return out
    op = aten.matmul.out
    keys = key_set(op.tensors((input, other, out)), inplace=False)
    folded = _folded_out_shape(input, other, out)
    if folded is not None:  # torch's product goes to a copy of ``out``, copied back
        scratch = out.new_empty((0,))
        op.redispatch(keys, input, other, scratch)
        out.copy_(scratch.reshape(folded))  # (folded shapes do not broadcast: torch's error)
        return out
    return op.redispatch(keys, input, other, out)


def _folded_out_shape(input: Tensor, other: Tensor, out: Tensor) -> tuple[int, ...] | None:
    """torch's ``matmul(..., out=out)`` of a batch times a vector or matrix that folds
    (``should_fold``) writes ``mm``/``mv`` into ``out.reshape(rows, ...)``, and where that
    reshape is a copy (``out`` already has the result's shape, with elements, in a layout no
    view folds), copies it back with ``out.copy_``, which broadcasts the folded product
    against ``out``'s shape. Returns the folded shape in that case, else None."""
    if not layout_folds(input, other):
        return None
    if input.dim() == 1:  # a vector times a folded ``other.mT``
        shape = (*other._shape[:-2], other._shape[-1])
        folded: tuple[int, ...] = (math.prod(shape),)
    elif other.dim() == 1:
        shape, folded = input._shape[:-1], (math.prod(input._shape[:-1]),)
    else:
        shape = (*input._shape[:-1], other._shape[-1])
        folded = (math.prod(input._shape[:-1]), other._shape[-1])
    if out._shape != tuple(shape) or out.numel() == 0:
        return None
    return folded if view_strides(out._shape, out._stride, folded) is None else None
