"""``backward``, ``grad`` and the per-tensor autograd rules (``torch.autograd``).

Every error below is raised where torch raises it, with torch's exception class.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from .._ops import aten
from .._ops.variable_hooks import VariableHooks
from ..layout import contiguous_format, preserve_format
from ..tensor import Tensor
from . import graph
from .engine import run_backward
from .grad_mode import state

__all__ = ["backward", "grad"]

NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.")


# ------------------------------------------------------------------ per-tensor rules
def set_requires_grad(t: Tensor, value: bool) -> None:
    if value and not t._dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if t._grad_fn is not None:
        if not value:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        return
    if value and t.is_inference() and not state.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not "
            "allowed.")
    t._requires_grad = value


def get_grad(t: Tensor) -> Tensor | None:
    if t._grad_fn is not None and not t.retains_grad and t._grad is None:
        warnings.warn(NONLEAF_GRAD, UserWarning, stacklevel=3)
    return t._grad


def set_grad(t: Tensor, value: Tensor | None) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value._shape != t._shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value._shape)}' to a tensor of "
                f"size '{list(t._shape)}'. Please ensure that the gradient and the tensor are "
                "the same size")
        if value._dtype is not t._dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{value._dtype}' to a tensor with "
                f"grad_dtype '{t._dtype}'. The gradient must match the tensor's grad_dtype "
                "(defaults to the tensor's dtype).")
    t._grad = value


def retain_grad(t: Tensor) -> None:
    if not t._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._grad_fn is None or t.retains_grad:
        return  # a leaf keeps its .grad anyway
    ref = weakref.ref(t)

    def retain_grad_hook(grad: Tensor | None) -> None:
        # torch's hook (VariableHooks::retain_grad): a contiguous copy of the first
        # gradient, then ``grad + new``, a new tensor each time
        kept = ref()
        if kept is not None and grad is not None:
            kept._grad = (grad.clone(memory_format=contiguous_format) if kept._grad is None
                          else kept._grad + grad)

    t.grad_fn._retained[t._output_nr] = retain_grad_hook
    graph.meta(t).retains_grad = True


def register_hook(t: Tensor, hook: Callable[[Tensor], Tensor | None]) -> graph.RemovableHandle:
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is None:  # a leaf: its AccumulateGrad runs the hooks
        return graph.handle(graph.meta(t).hooks, hook)
    hooks = t.grad_fn._tensor_pre_hooks.setdefault(t._output_nr, {})
    return graph.handle(hooks, hook)


def detach_(t: Tensor) -> Tensor:
    if t._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
            "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
            "called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    t._grad_fn = None
    t._output_nr = 0
    t._requires_grad = False
    return t


# ------------------------------------------------------------------ backward and grad
def _as_list(x: Any, what: str) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_grads(outputs: list[Tensor], grads: list[Tensor | None]) -> list[Tensor]:
    """The gradient each output starts with: the given one (same shape), or ones for a
    one-element output."""
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(grads)} gradients "
                           f"for {len(outputs)} outputs")
    made = []
    for i, (out, g) in enumerate(zip(outputs, grads, strict=True)):
        if g is None:
            if out._requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            # ``torch.ones_like(out, memory_format=torch.preserve_format)``, as torch's
            # ``_make_grads`` (a dispatch mode sees ``aten.ones_like.default``): the overload
            # itself, every schema argument given as torch's binding gives it
            g = aten.ones_like.default.call(out, None, None, None, False, preserve_format)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        elif g._shape != out._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of Size({list(g._shape)}) "
                f"and output[{i}] has a shape of Size({list(out._shape)}).")
        made.append(g)
    return made


def _roots(outputs: list[Tensor], grads: list[Tensor]) -> list[tuple[graph.Edge, Tensor]]:
    roots = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        g = grads[i]
        if g.device != out.device:  # (torch's ``validate_outputs`` of the roots)
            if g.dim():
                raise RuntimeError(f"invalid gradient at index {i} - expected device "
                                   f"{out.device} but got {g.device}")
            g = g.to(out.device)  # a 0-d gradient moves to the output's device
        if g._dtype is not out._dtype:
            g = g.to(out._dtype)  # (and takes the output's dtype, before any hook sees it)
        roots.append((graph.gradient_edge(out), g))
    return roots


def _input_edge(t: Tensor) -> graph.Edge:
    if not isinstance(t, Tensor):
        raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
    if not t._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return graph.gradient_edge(t)


def backward(tensors: Tensor | Sequence[Tensor], grad_tensors: Any = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: Tensor | Sequence[Tensor] | None = None) -> None:
    """Accumulate the gradient of ``tensors`` into ``.grad`` of the leaves (or only of
    ``inputs``) (``torch.autograd.backward``).

    ``grad_tensors``: d(loss)/d(tensor) for each tensor, needed unless it has one element.
    ``retain_graph`` (default ``create_graph``): keep saved tensors for another backward.
    ``create_graph``: record the backward itself, so gradients have a ``grad_fn``.

    Raises:
        RuntimeError: a tensor that does not require grad; a tensor without a gradient
            that does not have exactly one element; a gradient of the wrong shape; a second
            backward through a node whose saved tensors were freed;
            a saved tensor modified in place; an empty ``inputs``.
    """
    outputs = _as_list(tensors, "tensors")
    given = _as_list(grad_tensors, "grad_tensors") if grad_tensors is not None else \
        [None] * len(outputs)
    grads = _make_grads(outputs, given)
    keep = create_graph if retain_graph is None else retain_graph
    roots = _roots(outputs, grads)
    if inputs is None:
        run_backward(roots, keep_graph=keep, create_graph=create_graph)
        return
    targets_list = _as_list(inputs, "inputs")
    if not targets_list:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    edges = [_input_edge(t) for t in targets_list]
    for t in targets_list:  # a non-leaf input gets its .grad as torch gives it: retain_grad
        if t._grad_fn is not None:
            retain_grad(t)
    targets = {node for node, _ in edges if node is not None}
    leaves = {node for (node, _), t in zip(edges, targets_list, strict=True)
              if t._grad_fn is None}
    run_backward(roots, keep_graph=keep, create_graph=create_graph, targets=targets,
                 accumulate=leaves)


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False
         ) -> tuple[Tensor | None, ...]:
    """d(outputs)/d(inputs), returned instead of accumulated into ``.grad``
    (``torch.autograd.grad``).

    Returns one gradient per input; ``None`` for an input the outputs do not depend on
    when ``allow_unused`` (zeros instead with ``materialize_grads``).

    Raises:
        RuntimeError: an input that does not require grad; an input not used in the graph
            without ``allow_unused``; and ``backward``'s errors.
    """
    if is_grads_batched:
        raise NotImplementedError("reftensor.autograd.grad: is_grads_batched is not supported")
    outs = _as_list(outputs, "outputs")
    ins = _as_list(inputs, "inputs")
    given = _as_list(grad_outputs, "grad_outputs") if grad_outputs is not None else \
        [None] * len(outs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _make_grads(outs, given)
    keep = create_graph if retain_graph is None else retain_graph
    roots = _roots(outs, grads)
    edges = [_input_edge(t) for t in ins]
    captured = run_backward(roots, keep_graph=keep, create_graph=create_graph,
                            captures=edges, targets={n for n, _ in edges if n is not None})
    result: list[Tensor | None] = []
    for k, g in enumerate(captured):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = aten.zeros(ins[k]._shape, dtype=ins[k]._dtype)
        result.append(g)
    return tuple(result)


# ------------------------------------------------------------------ the tensor's way in
class AutogradHooks(VariableHooks):
    """What ``Tensor``'s autograd methods run (``t.grad``, ``t.backward()``, ...),
    registered by ``reftensor.autograd`` when it is imported (see ``_ops/variable_hooks.py``:
    the tensor module, chapter 1, does not import autograd)."""

    def set_requires_grad(self, t: Tensor, value: bool) -> None:
        set_requires_grad(t, value)

    def grad(self, t: Tensor) -> Tensor | None:
        return get_grad(t)

    def set_grad(self, t: Tensor, value: Tensor | None) -> None:
        set_grad(t, value)

    def retain_grad(self, t: Tensor) -> None:
        retain_grad(t)

    def register_hook(self, t: Tensor, hook: Any) -> graph.RemovableHandle:
        return register_hook(t, hook)

    def backward(self, t: Tensor, gradient: Tensor | None, retain_graph: bool | None,
                 create_graph: bool, inputs: Any) -> None:
        backward(t, gradient, retain_graph, create_graph, inputs=inputs)

    def detach_(self, t: Tensor) -> Tensor:
        return detach_(t)

    def regenerate_grad_fn(self, t: Tensor) -> Any:
        return graph.regenerate_view_grad_fn(t)

    def mark_inference(self, t: Tensor) -> None:
        graph.meta(t).inference = True
