"""``TorchDispatchMode`` (``torch.utils._python_dispatch``): see the aten ops a program runs
(below the ``CompositeImplicitAutograd`` ones, which the mode sees decomposed).

While a mode is active (``with MyMode():``), every op call gets the ``Python`` dispatch key
(``reftensor._ops.dispatcher``), whose kernel pops the innermost mode off the stack and calls
its ``__torch_dispatch__(func, types, args, kwargs)`` with:

* ``func``: the :class:`~reftensor._ops.OpOverload` called, ``aten.add.Tensor`` (``str``),
  ``func.name()`` ``"aten::add.Tensor"``, ``func.overloadpacket`` ``aten.add``,
  ``func._schema`` its schema, ``func.__name__`` ``"add.Tensor"``;
* ``types``: the Tensor subclasses among the arguments that define ``__torch_dispatch__``:
  ``()`` for plain tensors;
* ``args``, ``kwargs``: the schema's arguments, keyword-only ones by keyword; the keyword-only
  ones that hold their default are left out, and so are the positional ones that do at the end
  (``x.sum(1)`` arrives as ``(x, [1])``; ``x[1:]`` keeps ``slice``'s ``dim=0``).

The mode is off the stack while ``__torch_dispatch__`` runs, so calling ``func(*args,
**kwargs)`` there runs the op below the mode (the next mode, or the kernel), and is put back
afterwards. The ``Autograd`` key is above ``Python``: a mode sees the ops below autograd, and
during ``backward()`` the ops each node's backward runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .._ops.state import state

__all__ = ["TorchDispatchMode"]


class TorchDispatchMode:
    """A dispatch mode: override ``__torch_dispatch__``, then ``with MyMode():``.

    Modes nest: the innermost (last entered) sees a call first; when it calls ``func``, the
    next one out sees it. ``__enter__`` pushes the mode, ``__exit__`` pops it.
    """

    def __init__(self, _dispatch_key: Any = None) -> None:
        pass

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        """Handle one op call. The base class's raises NotImplementedError, as torch's."""
        raise NotImplementedError

    def __enter__(self) -> TorchDispatchMode:
        _push_mode(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        _pop_mode()

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False


def _get_current_dispatch_mode() -> TorchDispatchMode | None:
    """The innermost mode (the one a call goes to next), or None."""
    return state.modes[-1] if state.modes else None


def _get_current_dispatch_mode_stack() -> list[TorchDispatchMode]:
    """The active modes, outermost first (the last is the one a call goes to next)."""
    return list(state.modes)


def _len_torch_dispatch_stack() -> int:
    return len(state.modes)


def _push_mode(mode: TorchDispatchMode) -> None:
    """Put ``mode`` on top of the stack."""
    state.modes.append(mode)


def _pop_mode(k: Any = None) -> TorchDispatchMode:
    """Take the innermost mode off the stack and return it.

    Raises:
        RuntimeError: the stack is empty.
    """
    if not state.modes:
        raise RuntimeError("trying to pop from empty mode stack")
    return state.modes.pop()


@contextlib.contextmanager
def _pop_mode_temporarily(k: Any = None) -> Iterator[TorchDispatchMode]:
    """Off the stack for the ``with`` block, the innermost mode (yielded), then back."""
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)
