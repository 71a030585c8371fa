"""``out=``: an op that writes its result into a tensor the caller passes (torch's ``.out``
overloads, such as ``exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)``).

``reftensor.exp(x, out=o)`` runs the op, then writes the result into ``o`` with torch's
rules, in torch's order:

1. ``o`` may not overlap itself (an expanded tensor) or partly overlap an input
   (``exp(z[:3], out=z[1:])``); being the input itself is fine;
2. ``o``'s dtype must be able to hold the result's ("result type Float can't be cast to the
   desired output type Long");
3. an ``o`` of another shape is resized to the result's shape and takes the result's strides
   (torch warns when ``o`` had elements: that resizing is deprecated);
4. the values are written through ``o``'s strides, ``o._version`` goes up by one, and ``o``
   itself is returned.

Autograd does not record ``out=`` calls: with grad mode on, an input or ``o`` that requires
grad is a RuntimeError for a differentiable op (one with a derivative row). ``register_all``
gives every ``.out`` overload of the op table these kernels, where its chapter module
registered none of its own.
"""

from __future__ import annotations

from typing import Any

from . import dtypes, factories, iterator
from ._ops import DispatchKey, OpOverload, aten, state
from .promotion import check_can_cast
from .tensor import Tensor

__all__ = ["register", "register_all"]


def _kernel(out_overload: OpOverload) -> Any:
    functional = out_overload.functional
    assert functional is not None
    writes = [a.writes and a.kwarg_only for a in out_overload.schema.arguments]

    def out_kernel(*values: Any) -> Tensor:
        (out,) = [v for v, w in zip(values, writes, strict=True) if w]
        if not isinstance(out, Tensor):  # ``add``'s parser takes a number for any tensor
            out = _wrapped_number(out)
        inputs = [v for v, w in zip(values, writes, strict=True) if not w]
        result = functional.call(*inputs)
        iterator.assert_no_internal_overlap(out)
        for t in functional.tensors(inputs):
            if t is not out:
                iterator.assert_no_partial_overlap(out, t)
        check_can_cast(result._dtype, out._dtype)
        if out._shape != result._shape:
            iterator.resize_output(out, result._shape, result._stride)
        return out.copy_(result)

    return out_kernel


def _wrapped_number(value: Any) -> Tensor:
    """A Python number as torch wraps it into a 0-d tensor: bool, int64 or float64."""
    d = (dtypes.bool if isinstance(value, bool) else
         dtypes.int64 if isinstance(value, int) else dtypes.float64)
    return factories.tensor(value, dtype=d)


def _autograd(op: OpOverload, keys: int, *values: Any) -> Tensor:
    differentiable = op.functional is not None and op.functional.has_kernel(
        DispatchKey.Autograd)  # (``eq`` is not: its out= takes anything)
    if differentiable and state.enabled and any(t._requires_grad for t in op.tensors(values)):
        raise RuntimeError(
            f"{op.schema.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    return op.redispatch(keys, *values)


def register(out_overload: OpOverload) -> None:
    """The CPU, Meta and Autograd kernels of one ``.out`` overload, for each key that its
    chapter module gave no kernel of its own (``cat.out`` writes straight into ``out``)."""
    kernel = _kernel(out_overload)
    for key, k in ((DispatchKey.CPU, kernel), (DispatchKey.Meta, kernel),
                   (DispatchKey.Autograd, _autograd)):
        if not out_overload.has_kernel(key):
            out_overload.impl(key)(k)


def register_all() -> None:
    """Give every ``.out`` overload of the table its kernels; run once, after the chapter
    modules registered theirs (``reftensor/__init__.py``)."""
    for packet in aten:
        for overload in packet.all_overloads():
            if overload.functional is not None:
                register(overload)
