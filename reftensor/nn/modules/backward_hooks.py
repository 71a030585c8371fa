"""How a Module's full backward hooks see the gradients of its inputs and outputs
(``torch.utils.hooks.BackwardHook``).

A module is a piece of Python, not a node of the graph, so torch marks its boundary in the
graph: on each call, the tensor inputs and the tensor outputs pass through an identity
``autograd.Function`` (``BackwardHookFunctionBackward`` in the graph). The output node's hook
sees the gradients of the outputs first: the backward pre-hooks run there, and may replace
them. The input node's hook then sees the gradients of the inputs and calls the full backward
hooks with ``(module, grad_input, grad_output)``; they may replace ``grad_input``. When no
input requires grad, the hooks run at the output node with ``grad_input`` all None, after a
warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ...autograd import Function, is_grad_enabled
from ...tensor import Tensor

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """The identity, as a node of the graph: returns its tensor inputs, marking those that
    do not require grad as non-differentiable."""

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple[Tensor, ...]:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        return grads


def _spread(positions: Sequence[int], values: Sequence[Any], size: int) -> tuple[Any, ...]:
    """``size`` slots, None except ``values`` at ``positions``."""
    slots: list[Any] = [None] * size
    for i, value in zip(positions, values, strict=True):
        slots[i] = value
    return tuple(slots)


class BackwardHook:
    """One call's boundary: made by ``Module.__call__`` when the module has full backward
    hooks or backward pre-hooks."""

    def __init__(self, module: Any, hooks: list[Callable[..., Any]],
                 pre_hooks: list[Callable[..., Any]]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = -1
        self.input_positions: list[int] | None = None
        self.n_outputs = -1
        self.output_positions: list[int] | None = None

    def _wrap(self, args: tuple[Any, ...],
              on_node: Callable[[Any], None]) -> tuple[tuple[Any, ...], list[int] | None]:
        """Pass the tensors of ``args`` through the identity node and give the node to
        ``on_node``; unchanged (and no positions) when no tensor requires grad or grad mode
        is off."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        passed = BackwardHookFunction.apply(*tensors)
        if not isinstance(passed, tuple):
            passed = (passed,)
        if not passed:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        nodes = [t.grad_fn for t in passed
                 if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not nodes:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        on_node(nodes[0])
        new = list(args)
        for i, t in zip(positions, passed, strict=True):
            new[i] = t
        return tuple(new), positions

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Wrap the call's inputs; their node's hook will call the full backward hooks."""
        def on_node(node: Any) -> None:
            def hook(grad_input: tuple[Any, ...], _: Any) -> Any:
                if self.grad_outputs is None:
                    return None
                assert self.input_positions is not None
                grads = _spread(self.input_positions, grad_input, self.n_inputs)
                for user_hook in self.hooks:
                    out = user_hook(self.module, grads, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(grads):
                        raise RuntimeError("Backward hook returned an invalid number of "
                                           f"grad_input, got {len(out)}, but expected "
                                           f"{len(grads)}")
                    grads = out
                self.grad_outputs = None
                return tuple(grads[i] for i in self.input_positions)
            node.register_hook(hook)

        wrapped, self.input_positions = self._wrap(args, on_node)
        self.n_inputs = len(args)
        return wrapped

    def setup_output_hook(self, result: Any) -> Any:
        """Wrap the outputs (a tensor or a tuple); their node's hook records the output
        gradients and runs the pre-hooks."""
        def on_node(node: Any) -> None:
            def hook(_: Any, grad_output: tuple[Any, ...]) -> Any:
                assert self.output_positions is not None
                self.grad_outputs = _spread(self.output_positions, grad_output,
                                            self.n_outputs)
                for pre_hook in self.pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError("Backward pre hook returned an invalid number of "
                                           f"grad_output, got {len(new)}, but expected "
                                           f"{len(self.grad_outputs)}")
                    self.grad_outputs = new
                current = self.grad_outputs
                if self.input_positions is None:  # no input requires grad: run them here
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=5)
                    nothing = (None,) * self.n_inputs
                    for user_hook in self.hooks:
                        out = user_hook(self.module, nothing, self.grad_outputs)
                        if out is not None and not (isinstance(out, tuple)
                                                    and all(g is None for g in out)):
                            raise RuntimeError("Backward hook for Modules where no input "
                                               "requires gradient should always return None "
                                               "or None for all gradients.")
                    self.grad_outputs = None
                return tuple(current[i] for i in self.output_positions)
            node.register_hook(hook)

        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        wrapped, self.output_positions = self._wrap(outputs, on_node)
        self.n_outputs = len(outputs)
        return wrapped[0] if single else wrapped
