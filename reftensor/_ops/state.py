"""The dispatch state: the switches that every op call reads (torch keeps them per thread,
in its "thread-local state"; reftensor has one thread).

* ``grad_enabled``: when False, no op records a node of the backward graph (``no_grad``);
* ``inference``: inside ``inference_mode``, new tensors are inference tensors;
* ``modes``: the stack of dispatch modes (chapter 9's ``TorchDispatchMode``): while it is not
  empty, every op call goes to the innermost mode's ``__torch_dispatch__`` first (the
  ``Python`` dispatch key);
* ``below_autograd``: while a mode handles a call that ``Autograd`` already recorded, the
  calls the mode makes skip ``Autograd``;
* ``python_disabled``: inside ``no_dispatch()`` (``_ops/torch_dispatch.py``), calls have no
  ``Python`` key: no mode and no Tensor subclass's ``__torch_dispatch__`` sees them.

``reftensor.autograd.grad_mode`` holds the context managers that change the first two.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DispatchState", "state"]


class DispatchState:
    __slots__ = ("below_autograd", "enabled", "inference", "modes", "python_disabled")

    def __init__(self) -> None:
        self.enabled = True  # grad mode
        self.inference = False
        self.modes: list[Any] = []
        # > 0 while a dispatch mode handles a call that came through ``Autograd``: the ops
        # it runs (``func`` itself) skip the ``Autograd`` key, as torch's autograd kernels
        # exclude it (``AutoDispatchBelowADInplaceOrView``) for the calls below them
        self.below_autograd = 0
        # > 0 inside ``no_dispatch()``: torch's ``_DisableTorchDispatch`` (the Python key
        # excluded)
        self.python_disabled = 0


state = DispatchState()
