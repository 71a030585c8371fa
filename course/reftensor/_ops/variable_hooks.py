"""How a tensor reaches autograd without importing it (torch's ``VariableHooksInterface``).

``Tensor`` is chapter 1 and autograd chapter 5, yet ``t.grad``, ``t.backward()`` and
``t.requires_grad = True`` are methods of the tensor. torch solves the same problem in C++:
``TensorBase`` calls autograd through an interface (``at::impl::VariableHooksInterface``)
that the autograd library registers when it loads (``at::impl::SetVariableHooks``).
reftensor does the same: :class:`VariableHooks` lists what a tensor asks of autograd,
``reftensor.autograd`` registers its implementation with :func:`set_variable_hooks` when it
is imported, and ``Tensor`` calls :func:`variable_hooks`. Before that registration each
question raises a RuntimeError that says autograd is missing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VariableHooks", "set_variable_hooks", "variable_hooks"]


class VariableHooks:
    """What ``Tensor`` asks of autograd; autograd's implementation overrides every method."""

    def set_requires_grad(self, t: Any, value: bool) -> None:
        """``t.requires_grad = value``."""
        raise _missing()

    def grad(self, t: Any) -> Any:
        """``t.grad``."""
        raise _missing()

    def set_grad(self, t: Any, value: Any) -> None:
        """``t.grad = value``."""
        raise _missing()

    def retain_grad(self, t: Any) -> None:
        raise _missing()

    def register_hook(self, t: Any, hook: Any) -> Any:
        raise _missing()

    def backward(self, t: Any, gradient: Any, retain_graph: bool | None, create_graph: bool,
                 inputs: Any) -> None:
        raise _missing()

    def detach_(self, t: Any) -> Any:
        raise _missing()

    def regenerate_grad_fn(self, t: Any) -> Any:
        """The ``grad_fn`` of a view whose base was written in place since it was made."""
        raise _missing()

    def mark_inference(self, t: Any) -> None:
        """Make ``t`` an inference tensor (made inside ``inference_mode``, or a view of
        one)."""
        raise _missing()


def _missing() -> RuntimeError:
    return RuntimeError("reftensor.autograd is not loaded: import reftensor first")


class _Registry:
    __slots__ = ("hooks",)

    def __init__(self) -> None:
        self.hooks = VariableHooks()


_registry = _Registry()


def set_variable_hooks(hooks: VariableHooks) -> None:
    """Register autograd's implementation (``reftensor.autograd`` does, when imported)."""
    _registry.hooks = hooks


def variable_hooks() -> VariableHooks:
    """The registered implementation."""
    return _registry.hooks
