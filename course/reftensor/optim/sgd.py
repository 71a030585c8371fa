"""``reftensor.optim.SGD`` (``torch.optim.SGD``): stochastic gradient descent, with momentum,
dampening, Nesterov momentum, weight decay and ``maximize``, in torch's single-tensor order."""

from __future__ import annotations

from typing import Any

from .optimizer import Optimizer

__all__ = ["SGD", "sgd_update"]


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False, foreach=None, differentiable=False, fused=None)``.

    Each step, for each parameter ``p`` with a gradient ``g`` (``-g`` with ``maximize``):
    ``g = g + weight_decay * p``; with momentum, the buffer ``b`` is ``g``'s copy on the first
    step and ``b = momentum * b + (1 - dampening) * g`` after; ``g = g + momentum * b``
    (Nesterov) or ``g = b``; then ``p -= lr * g``. Parameters without a gradient are skipped
    and get no state.

    Raises:
        ValueError: a negative ``lr``, ``momentum`` or ``weight_decay``; Nesterov without
            momentum or with dampening.
    """

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Any, group: dict[str, Any]) -> None:
        momentum = group["momentum"]
        buf = self.state[p].get("momentum_buffer") if momentum != 0 else None
        buf = sgd_update(p, p.grad, buf, group["lr"], momentum, group["dampening"],
                         group["weight_decay"], group["nesterov"], group["maximize"])
        if momentum != 0:
            self.state[p]["momentum_buffer"] = buf


def sgd_update(param: Any, grad: Any, momentum_buffer: Any, lr: float, momentum: float,
               dampening: float, weight_decay: float, nesterov: bool, maximize: bool) -> Any:
    """One SGD step of one parameter, in place, as torch's single-tensor SGD
    (``torch.optim.sgd._single_tensor_sgd``) takes it: ``SGD.step`` runs it for every
    parameter that has a gradient.

    Args:
        param: the parameter (updated in place; the caller has turned autograd off).
        grad: its gradient, which must not change.
        momentum_buffer: the parameter's momentum buffer from the step before (the
            optimizer's ``state[param]["momentum_buffer"]``), or None on the first step.
        lr, momentum, dampening, weight_decay, nesterov, maximize: the parameter group's
            settings (``torch.optim.SGD``'s arguments).

    Returns:
        The momentum buffer to keep for the next step (None when ``momentum`` is 0).
    """
    # BEGIN PIECE sgd_update
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("sgd_update")(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize)
    # END PIECE
