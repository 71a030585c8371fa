"""``reftensor.optim.Optimizer`` (``torch.optim.Optimizer``): parameter groups and state.

An optimizer holds ``param_groups``, a list of dicts: each has ``"params"`` (a list of leaf
tensors) and one value per hyperparameter (``lr``, ``momentum``, ...), the optimizer's default
where the group gives none. ``state`` maps each parameter to what its update keeps between
steps (a momentum buffer, Adam's averages and step count), created on the first step that
finds a gradient. ``state_dict()`` replaces each parameter by its position in the groups
(0, 1, ...), so it can be saved and loaded into another optimizer over other tensors of the
same shapes.
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from ..autograd import enable_grad, set_grad_enabled
from ..nn.modules.hooks import RemovableHandle
from ..nn.parameter import clear_grad, typename
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _Required:
    """The default of a hyperparameter every group must give (``torch.optim.optimizer.
    required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class of the optimizers: ``Optimizer(params, defaults)``.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (one per
    parameter group, each with a ``"params"`` entry and any hyperparameters of its own).

    Raises:
        TypeError: ``params`` is a single tensor, a group is not a dict, a group's params are
            a set, or an item is not a tensor.
        ValueError: no parameters, a non-leaf tensor, a tensor in two groups, a required
            hyperparameter missing.
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (a dict with ``"params"``); hyperparameters it leaves out take the
        optimizer's defaults.

        Raises:
            TypeError, ValueError: as for the constructor.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        items = [params] if isinstance(params, Tensor) else list(params)
        names = [item[0] for item in items if isinstance(item, tuple)]
        tensors = [item[1] if isinstance(item, tuple) else item for item in items]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(t))
            if not self.defaults.get("differentiable") and not (t.is_leaf or t.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(t) for t in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken: set[int] = set()
        for group in self.param_groups:
            taken.update(id(t) for t in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if any(id(t) in taken for t in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: None (the default), or zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient (``_update``, the subclass's
        rule, in group order); returns ``closure()``'s loss (computed first, with grad
        enabled) or None. Runs without recording unless ``differentiable``."""
        return self._hooked_step(lambda: self._step(closure), closure)

    def _step(self, closure: Callable[[], Any] | None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with set_grad_enabled(self.defaults.get("differentiable", False)):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _hooked_step(self, update: Callable[[], Any], closure: Any) -> Any:
        """Run the step pre-hooks, ``update()`` and the post-hooks (what torch wraps around
        every subclass's ``step``). A hook gets ``(optimizer, args, kwargs)`` where ``args``
        are step's own, self first, as torch passes them."""
        args: tuple[Any, ...] = (self,) if closure is None else (self, closure)
        kwargs: dict[str, Any] = {}
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("optimizer_pre_hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        self._opt_called = True  # a scheduler's step() checks that this came first
        out = update()
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before each ``step``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after each ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ saving and loading
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: per-parameter state}, "param_groups": [group with "params" as
        indices]}``: parameters numbered in group order, a repeated one keeping its first
        number. The state's tensors are the optimizer's own (not copies)."""
        numbers: dict[int, int] = {}
        groups = []
        start = 0
        for group in self.param_groups:
            for i, p in enumerate(group["params"], start):
                numbers.setdefault(id(p), i)
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [numbers[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(numbers[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the hyperparameters and per-parameter state of ``state_dict`` (copied; each
        tensor cast to its parameter's floating dtype, ``step`` kept as it is).

        Raises:
            ValueError: a different number of groups, or of parameters in a group.
        """
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        sizes = [(len(g["params"]), len(s["params"])) for g, s in
                 zip(self.param_groups, saved, strict=True)]
        if any(mine != theirs for mine, theirs in sizes):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        by_number = dict(zip(chain.from_iterable(s["params"] for s in saved),
                             chain.from_iterable(g["params"] for g in self.param_groups),
                             strict=True))

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                if key == "step":
                    return value
                return (value.to(dtype=param.dtype) if param.is_floating_point()
                        else value.to(device=param.device))
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v) for v in value)  # type: ignore[call-arg]
            return value

        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in by_number:
                state[by_number[k]] = cast(by_number[k], v)
            else:
                state[k] = v
        for group, new in zip(self.param_groups, saved, strict=True):
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
