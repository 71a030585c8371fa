"""Gradient clipping (``torch.nn.utils.clip_grad``), run after ``backward`` and before an
optimizer's step, with autograd off.

``clip_grad_norm_`` treats every parameter's ``.grad`` as one long vector: its p-norm is the
p-norm of the per-tensor norms (``torch.linalg.vector_norm`` of each, stacked); when that is
above ``max_norm`` every gradient is multiplied, in place, by ``max_norm / (norm + 1e-6)``
(the factor is clamped at 1, so small gradients are never scaled up, and it is multiplied in
anyway, as torch does to avoid a branch). It returns the total norm. ``clip_grad_value_``
clamps each gradient into ``[-clip_value, clip_value]`` in place.

torch's ``foreach`` argument picks its batched kernels (the default on the CPU) or a loop;
both give the same numbers, and so does reftensor's one path. Each norm is computed in
float64 by NumPy and rounded to the gradient's dtype: within an ulp or two of torch's
(its own summation order).
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

import numpy as np

from ... import factories
from ..._casting import cast
from ..._ops import aten
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

Tensors = Tensor | Iterable[Tensor]


def _vector_norm(t: Tensor, p: float) -> Tensor:
    """``torch.linalg.vector_norm(t, p)`` of a float tensor: a 0-d tensor of its dtype."""
    x = np.abs(t._elements().astype(np.float64)).reshape(-1)
    if p == math.inf or p == -math.inf:
        if x.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty "
                               "tensor because the operation does not have an identity")
        value = x.max() if p > 0 else x.min()
    elif p == 0:
        value = float(np.count_nonzero(x))
    elif p == 1:
        value = x.sum()
    elif p == 2:
        value = math.sqrt(float(np.dot(x, x)))
    else:
        with np.errstate(all="ignore"):
            value = np.sum(x ** p) ** (1.0 / p)
    out = factories._allocate((), (), t.dtype)
    out._elements()[...] = cast(np.asarray(value, dtype=np.float64), t.dtype)
    return out


def _listed(tensors: Tensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _total_norm(grads: list[Tensor], norm_type: float, error_if_nonfinite: bool) -> Tensor:
    """torch's ``_get_total_norm``: the ``norm_type``-norm of the per-tensor norms."""
    if not grads:
        return factories.tensor(0.0)
    norms = [_vector_norm(g, norm_type) for g in grads]
    total = _vector_norm(aten.stack(norms), norm_type)
    value = total.item()
    if error_if_nonfinite and (math.isnan(value) or math.isinf(value)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters: Tensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total ``norm_type``-norm
    is at most ``max_norm`` (``torch.nn.utils.clip_grad_norm_``): each ``.grad`` times
    ``min(max_norm / (total + 1e-6), 1)``. ``norm_type`` may be ``inf`` (the largest
    absolute value) or any float; parameters without a gradient are skipped; ``foreach``
    is accepted and gives the same numbers (the CPU has no other kernel to pick).

    Returns:
        The total norm before clipping: a 0-d tensor (of the gradients' dtype; 0.0 when
        there is none).

    Raises:
        RuntimeError: ``error_if_nonfinite`` and a total norm that is nan or infinite.
    """
    with no_grad():
        if isinstance(parameters, Tensor):
            parameters = [parameters]
        else:
            is_generator = isinstance(parameters, types.GeneratorType)
            parameters = list(parameters)
            if is_generator and not parameters:
                warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                              "occur.", stacklevel=2)
        grads = [p.grad for p in parameters if p.grad is not None]
        total = _total_norm(grads, float(norm_type), error_if_nonfinite)
        if grads:
            clip_coef = float(max_norm) / (total + 1e-6)
            clamped = clip_coef.clamp(max=1.0)
            for g in grads:
                g.mul_(clamped)
        return total


def clip_grad_norm(parameters: Tensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """``clip_grad_norm_``, under its old name, with torch's FutureWarning."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Tensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]`` in place
    (``torch.nn.utils.clip_grad_value_``); parameters without a gradient are skipped."""
    with no_grad():
        value = float(clip_value)
        for p in _listed(parameters):
            if p.grad is None:
                continue
            if foreach is False:  # torch's loop
                p.grad.clamp_(min=-value, max=value)
            else:  # torch's ``_foreach_clamp_min_`` then ``_foreach_clamp_max_``: two writes
                p.grad.clamp_min_(-value)
                p.grad.clamp_max_(value)
