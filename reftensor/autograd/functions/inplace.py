"""How an in-place op is recorded (``exp_``, ``t[0] = x``): check torch's in-place rules,
keep a copy of the old value (a formula may need it), write, then *rebase* self's history
onto the new node. When self is a view, the node goes on its base, wrapped in
``CopySlices``. (The out-of-place pattern is ``_record.call``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import copies
from ..._ops import aten
from ..._ops.torch_dispatch import python_tensor
from ...tensor import Tensor
from ..grad_mode import state
from ..graph import Node, meta, needs_grad, record
from ._record import forward
from .views import CopySlices

__all__ = ["call_", "check_inplace"]


def check_inplace(self: Tensor) -> None:
    """torch's rules for writing into ``self``."""
    m = self._autograd_meta
    if m is not None and m.inference and not state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if not state.enabled:
        return
    base = self._base  # torch: a view that requires grad, of a leaf (requiring grad or not)
    if base is not None and base._grad_fn is None and (self._requires_grad or
                                                       base._requires_grad):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if self._grad_fn is None and self._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.")


def _check_view_creation(self: Tensor) -> None:
    m = self._autograd_meta
    if m is None or not m.creation:
        return
    fn = self._grad_fn
    if m.creation == "multi":
        name = fn.name() if fn is not None else "a multi-output view function"
        raise RuntimeError(
            f"Output {self._output_nr} of {name.removesuffix('Backward0')} is a view and is "
            "being modified inplace. This view is the output of a function that returns "
            "multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one.")
    raise RuntimeError(
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
        "can clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked).")


def call_(kernel: Callable[..., Any], self: Tensor, args: tuple[Any, ...],
          make: Callable[[Tensor, Tensor], Node], **kwargs: Any) -> Tensor:
    """The in-place op ``kernel(self, *args)``; ``make(old_self, self)`` builds its node.

    Raises:
        RuntimeError: self is a leaf that requires grad, or a view of one (with grad mode
            on); an inference tensor outside inference mode; a view from a multi-output
            function or made under no_grad.
    """
    check_inplace(self)
    base = self._base
    tracked = base is not None and base._requires_grad
    if not needs_grad(self, *args) and not (state.enabled and tracked):
        return kernel(self, *args, **kwargs)
    if base is not None:
        _check_view_creation(self)
    # the old value, with self's place in the graph, for formulas that need it
    # (a Tensor subclass's instance, whose data its class holds: cloned through it)
    old = (aten.clone.default.call(self, None) if python_tensor(self)
           else copies._clone(self))
    if base is None:
        old._grad_fn, old._output_nr = self._grad_fn, self._output_nr
        old._requires_grad = self._requires_grad
    else:
        old._requires_grad = True  # its gradient is read off by CopySlices, not an edge
    # the inputs' places in the graph as they are before the write: an input that is a view
    # of what is written (``t.copy_(base[2:3])``) keeps the node it had (torch collects the
    # edges first), though its grad_fn, read afterwards, is regenerated from its base
    views = [a for a in args if isinstance(a, Tensor) and a is not self
             and a._autograd_meta is not None and a._autograd_meta.view_version is not None]
    for a in views:
        a.grad_fn  # noqa: B018 - regenerated now if an earlier write made it stale
    before = [a._autograd_meta.view_version for a in views]  # type: ignore[union-attr]
    forward(kernel, self, *args, **kwargs)
    for a in views:
        a._autograd_meta.view_version = a._version_counter.value  # type: ignore[union-attr]
    node = make(old, self)
    for a, version in zip(views, before, strict=True):
        a._autograd_meta.view_version = version  # type: ignore[union-attr]
    if base is None:
        record(node, self)
        return self
    record(CopySlices(base, self, node), base)
    record(node, self)
    meta(self).view_version = -1  # next read of self.grad_fn: AsStridedBackward0(CopySlices)
    return self

