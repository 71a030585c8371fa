"""``autograd.Function``: an op with a forward and a backward you write yourself.

Subclass it with two static methods and call ``apply``::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

``forward`` runs with grad mode off; ``apply`` then records one node (named after the class
with ``Backward`` appended, as torch names it) whose ``apply`` calls your ``backward``.
"""

from __future__ import annotations

from typing import Any

from .. import indexing
from .._ops import aten
from ..tensor import Tensor
from .functions._record import forward as run_without_grad
from .graph import Node, needs_grad, node_class, record

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` and ``backward``."""

    def __init__(self) -> None:
        self._to_save: tuple[Any, ...] = ()
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._node: BackwardCFunction | None = None
        self._non_differentiable: set[int] = set()

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``backward`` (checked against in-place writes, freed after)."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """What ``save_for_backward`` kept. Raises RuntimeError once the graph was freed or
        when a saved tensor was modified in place."""
        node = self._node
        if node is None:
            return tuple(self._to_save)
        return tuple(node.saved(str(k)) if str(k) in node._saved else None
                     for k in range(len(self._to_save)))

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class BackwardCFunction(Node):
    """The node ``Function.apply`` records; ``apply`` calls the user's ``backward``."""

    def __init__(self, fn: type[Function], ctx: FunctionCtx, inputs: tuple[Any, ...]) -> None:
        super().__init__(*(x for x in inputs if isinstance(x, Tensor)))  # edges: tensors only
        self._is_tensor = [isinstance(x, Tensor) for x in inputs]
        self._fn = fn
        self._ctx = ctx

    def apply(self, grads: Any) -> tuple[Any, ...]:
        if self._ctx.materialize_grads:
            grads = [aten.zeros(*info[0], dtype=info[1]) if g is None and info is not None else g
                     for g, info in zip(grads, self._output_info, strict=True)]
        result = self._fn.backward(self._ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._is_tensor)  # one gradient per forward input, tensor or not
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(result)})")
        for i, (r, is_tensor) in enumerate(zip(result, self._is_tensor, strict=False)):
            if r is not None and not is_tensor:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable")
        return tuple(r for r, is_tensor in zip(result, self._is_tensor, strict=False)
                     if is_tensor)


class Function:
    """Base class of custom differentiable ops (``torch.autograd.Function``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run ``forward`` without recording, then record one node for the outputs."""
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        outputs = run_without_grad(cls.forward, ctx, *args)
        if not needs_grad(*args):
            return outputs
        node_cls = node_class(f"{cls.__name__}Backward", BackwardCFunction, cls.__module__)
        node = node_cls(cls, ctx, args)
        ctx._node = node
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        recorded = []
        for i, out in enumerate(outs):
            if not isinstance(out, Tensor) or id(out) in ctx._non_differentiable:
                recorded.append(None)
                continue
            if any(out is a for a in args):  # an input returned as it is: a view of it
                out = indexing._alias(out)
                outs = outs[:i] + (out,) + outs[i + 1:]
            recorded.append(out)
        record(node, recorded)
        for i, out in enumerate(outs):  # a non-differentiable output keeps its slot: its
            if isinstance(out, Tensor) and recorded[i] is None:  # gradient is zeros when
                node._output_info[i] = (out._shape, out._dtype)  # materialized, as in torch
        for k, t in enumerate(ctx._to_save):  # checked against in-place writes, freed after
            node.save(str(k), t, is_output=any(t is o for o in recorded))
        return outs if isinstance(outputs, tuple) else outs[0]


def once_differentiable(fn: Any) -> Any:
    """Mark a ``backward`` as not differentiable again (accepted; reftensor runs it as is)."""
    return fn
