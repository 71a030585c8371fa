"""``reftensor.optim.Adam`` and ``AdamW`` (``torch.optim.Adam``, ``torch.optim.AdamW``), in
torch's single-tensor order (its default for CPU tensors), so a step agrees with torch's to
float rounding."""

from __future__ import annotations

from typing import Any

from .. import dtypes, factories
from .._ops import aten
from ..layout import preserve_format
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW", "adam_update"]


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
    *, foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
    decoupled_weight_decay=False)``.

    State per parameter, made on its first step with a gradient: ``step`` (a float32 0-d
    tensor), ``exp_avg`` and ``exp_avg_sq`` (zeros shaped like it; ``max_exp_avg_sq`` too
    with ``amsgrad``). A step, with ``t`` the new step count:

    * weight decay: ``g += weight_decay * p`` (Adam), or ``p *= 1 - lr * weight_decay``
      (decoupled, AdamW);
    * ``exp_avg.lerp_(g, 1 - beta1)``; ``exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) g g``;
    * ``denom = sqrt(exp_avg_sq) / sqrt(1 - beta2**t) + eps`` (the running maximum of
      ``exp_avg_sq`` with amsgrad);
    * ``p -= lr / (1 - beta1**t) * exp_avg / denom``.

    Raises:
        ValueError: a negative ``lr``, ``eps`` or ``weight_decay``; a beta outside [0, 1).
    """

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _state_of(self, p: Any, amsgrad: bool) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            state["step"] = factories.tensor(0.0, dtype=dtypes.float32)
            state["exp_avg"] = aten.zeros_like(p, memory_format=preserve_format)
            state["exp_avg_sq"] = aten.zeros_like(p, memory_format=preserve_format)
            if amsgrad:
                state["max_exp_avg_sq"] = aten.zeros_like(p, memory_format=preserve_format)
        return state

    def _update(self, p: Any, group: dict[str, Any]) -> None:
        state = self._state_of(p, group["amsgrad"])
        state["step"] += 1
        beta1, beta2 = group["betas"]
        adam_update(p, p.grad, state["exp_avg"], state["exp_avg_sq"],
                    state.get("max_exp_avg_sq") if group["amsgrad"] else None,
                    state["step"].item(), group["lr"], beta1, beta2, group["eps"],
                    group["weight_decay"], group["decoupled_weight_decay"], group["maximize"])


def adam_update(param: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, max_exp_avg_sq: Any,
                step: float, lr: float, beta1: float, beta2: float, eps: float,
                weight_decay: float, decoupled_weight_decay: bool, maximize: bool) -> None:
    """One Adam (or AdamW) step of one parameter, in place, as torch's single-tensor Adam
    (``torch.optim.adam._single_tensor_adam``) takes it: ``Adam.step`` and ``AdamW.step`` run
    it for every parameter that has a gradient, after adding 1 to the parameter's step count.

    Args:
        param: the parameter (updated in place; the caller has turned autograd off).
        grad: its gradient, which must not change.
        exp_avg, exp_avg_sq: the parameter's running averages of the gradient and of its
            square (the optimizer's ``state[param]``; zeros before the first step), updated in
            place.
        max_exp_avg_sq: with ``amsgrad``, the running maximum of ``exp_avg_sq`` (updated in
            place); None without.
        step: the step count, this step included (1.0 on the first step), a float as
            ``state[param]["step"].item()`` gives it.
        lr, beta1, beta2, eps, weight_decay, maximize: the parameter group's settings
            (``torch.optim.Adam``'s arguments, ``betas=(beta1, beta2)``).
        decoupled_weight_decay: True for AdamW's decay of the parameter itself, False for
            Adam's decay added to the gradient.
    """
    # BEGIN PIECE adam_update
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("adam_update")(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, maximize)
    # END PIECE


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
    *, maximize=False, foreach=None, capturable=False, differentiable=False, fused=None)``:
    Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the update)."""

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
