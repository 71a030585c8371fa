"""How a differentiable op runs: the kernel, then (when needed) a node of the graph.

``call`` is the out-of-place pattern every op in this package follows::

    out = kernel(inputs)                  # chapters 2-4, grad mode off inside
    if grad mode is on and an input requires grad:
        out.grad_fn = make_node(out)      # its edges point at the inputs' grad_fns

The in-place pattern is ``inplace.call_``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...tensor import Tensor
from ..grad_mode import state
from ..graph import Node, meta, needs_grad, record

__all__ = ["call", "forward"]


def forward(kernel: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a kernel with grad mode off, so nothing it does inside is recorded."""
    previous = state.enabled
    state.enabled = False
    try:
        return kernel(*args, **kwargs)
    finally:
        state.enabled = previous


def call(kernel: Callable[..., Any], args: tuple[Any, ...], inputs: tuple[Any, ...],
         make: Callable[[Any], Node], *, view: bool = False, recorded: int | None = None,
         **kwargs: Any) -> Any:
    """``kernel(*args, **kwargs)``, recorded with ``make(out)`` when an input needs grad.
    An op that returns its input itself (``positive``, a no-op ``contiguous``) records
    nothing. ``recorded``: of several outputs, only that many leading ones are recorded."""
    if not needs_grad(*inputs):
        out = kernel(*args, **kwargs)
        if view:
            _mark_view(out, inputs[0])
        return out
    out = forward(kernel, *args, **kwargs)
    if out is inputs[0]:
        return out
    if recorded is None:
        record(make(out), out, view=view)
    else:
        record(make(out), [*out[:recorded], *[None] * (len(out) - recorded)], view=view)
    return out


def _mark_view(out: Any, base: Tensor) -> None:
    """A view made while nothing is recorded: under no_grad of a base that requires grad,
    torch forbids modifying it in place later with grad mode on."""
    if not state.enabled and isinstance(base, Tensor) and base._requires_grad:
        for t in (out if isinstance(out, tuple) else (out,)):
            if t is not base:
                meta(t).creation = "no_grad"
                t._requires_grad = True  # torch: a leaf that requires grad, with no grad_fn
