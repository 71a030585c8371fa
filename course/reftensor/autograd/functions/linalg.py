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
from ..._ops.torch_dispatch import subclass_like
from ...device import CPU
from ...matmul import check_matmul, matmul_cpu, plan_of, result_shape
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
    version counter bumped, recorded as ``SqueezeBackward4``. Under a dispatch mode, the op
    itself (``aten.squeeze_.dim``), so that the mode sees it as in torch."""
    if subclass_like(t):
        return aten.squeeze_.dim.call(t, 0)
    out = Tensor._make(t._storage, t._shape[1:], t._stride[1:], t._storage_offset, t._dtype)
    out._version_counter = t._version_counter
    out._version_counter.value += 1
    if needs_grad(t):
        record(SqueezeBackward4(t, lambda g: g.unsqueeze(0)), out)
    return out


@aten.matmul.default.impl(DispatchKey.CompositeImplicitAutograd)
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``, decomposed as torch decomposes it, by chapter 4's plan
    (``matmul.matmul_plan``): ``dot``, ``mv``, ``mm`` (with an unsqueeze/squeeze_ around a
    1-d left operand), one ``mm``/``mv`` on the larger operand's batch folded into its rows
    (``.mT`` of the right one, when it is the larger), or a ``bmm`` on the operands expanded
    to the broadcast batch and reshaped to 3-D, viewed back (``UnsafeViewBackward0``) to the
    shape chapter 4's ``matmul_shape`` gives. An operand whose batch of 1 the plan drops is
    squeezed first (``SqueezeBackward1``)."""
    if not (input._requires_grad or other._requires_grad or dispatch_state.modes
            or input._storage._device is not CPU or other._storage._device is not CPU):
        return matmul_cpu(input, other)
    shapes = input._shape, other._shape
    squeeze, kernel, shape1, shape2, output_shape = check_matmul(input, other)  # the checks
    if squeeze == 0:
        input = input.squeeze(0)
    elif squeeze == 1:
        other = other.squeeze(0)
    if kernel == "dot":
        return _dot(input, other)
    if kernel == "mv":
        return _mv(input, other)
    if kernel == "mm":
        return _mm(input, other)
    if kernel == "unsqueeze_mm":
        return _squeeze_row(_mm(input.unsqueeze(0), other))
    if kernel in ("fold", "fold_mT"):
        transpose = kernel == "fold_mT"  # fold other.mT, and multiply it by input
        t1 = other.mT if transpose else input
        t2 = (input.t() if input.dim() == 2 else input) if transpose else other
        rows = t1.reshape(shape1)
        if t2.dim() == 1:
            return _unsafe_view(_mv(rows, t2), output_shape)
        out = _unsafe_view(_mm(rows, t2), output_shape)
        return out.mT.contiguous() if transpose else out
    count = math.prod(shape1[:-2])  # bmm: the batch merged into one dim
    a3 = input.expand(shape1).reshape(count, *shape1[-2:])
    if other.dim() == 1:  # a vector gets its column's dim after the reshape, and loses it
        b3 = other.expand(shape2).reshape(count, shape2[-1]).unsqueeze(2)
        out = _bmm(a3, b3).squeeze(-1)
    else:
        out = _bmm(a3, other.expand(shape2).reshape(count, *shape2[-2:]))
    return _unsafe_view(out, result_shape(*shapes, out.numel()))


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
    _, kernel, shape1, shape2, shape = plan_of(input, other, has_out=True)
    if kernel not in ("fold", "fold_mT"):  # (with out=, only a 1-D input folds other.mT)
        return None
    folded = (shape1[0], *shape2[1:])  # the rows, and the columns of a matrix
    if out._shape != tuple(shape) or out.numel() == 0:
        return None
    return folded if view_strides(out._shape, out._stride, folded) is None else None
