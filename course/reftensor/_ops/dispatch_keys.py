"""Dispatch keys, the key set of a call, and the key whose kernel runs (chapter 9).

An op has a kernel per **dispatch key** (torch's ``DispatchKey``). A key set is an ``int``
with one bit per key; a higher bit is a key of higher priority, whose kernel runs first:

==============================  =====  ===================================================
key                             bit    its kernel
==============================  =====  ===================================================
``Autograd``                    8      records a node of the backward graph (chapter 5)
``Python``                      4      hands the call to the innermost ``TorchDispatchMode``,
                                       or to the ``__torch_dispatch__`` of a Tensor subclass
``Meta``                        2      computes only sizes, strides and dtype (chapter 4)
``CPU``                         1      computes the values with NumPy
==============================  =====  ===================================================

torch orders its keys the same way (``torch._C._dispatch_keyset_full_after(key)`` is every key
below ``key``): ``AutogradCPU`` above ``Python``, the backend keys (``CPU``, ``Meta``) at the
bottom. The dispatcher asks :func:`dispatch_key_set` for the key set of a call made while a
dispatch mode is active or with a tensor argument whose class defines ``__torch_dispatch__``,
and :func:`next_key` for the key whose kernel runs next; the other calls compute the same key
set inline (``OpOverload.call``: the common case, kept fast; a test checks that the two
agree).
"""

from __future__ import annotations

import enum

__all__ = ["DispatchKey", "dispatch_key_set", "next_key"]


class DispatchKey(enum.IntFlag):
    """One bit per key; a key set is their ``|``. A higher bit runs first."""

    CPU = 1
    Meta = 2
    Python = 4
    Autograd = 8
    # an alias key, as torch's: a kernel written with other ops, run before any key
    CompositeImplicitAutograd = 16


def dispatch_key_set(devices: list[str], requires_grad: list[bool],
                     python_tensors: list[bool], *, factory_device: str | None, modes: int,
                     below_autograd: bool) -> int:
    """The key set of one op call, as a :class:`DispatchKey` ``|`` (torch computes it from the
    key sets of the tensor arguments and the thread's included and excluded keys).

    Args:
        devices: each tensor argument's ``device.type``, ``"cpu"`` or ``"meta"``.
        requires_grad: each tensor argument's ``requires_grad``, in the same order.
        python_tensors: for each tensor argument, in the same order, whether its class defines
            ``__torch_dispatch__`` (a Tensor subclass such as ``LoggingTensor``; a plain tensor,
            an ``nn.Parameter``: no).
        factory_device: a factory's ``device=`` argument (``zeros(2, device="meta")``) as its
            type, ``"meta"`` or ``"cpu"``, or None where the op has none or it was not given.
        modes: how many dispatch modes are active.
        below_autograd: the call is made by a kernel below ``Autograd`` (torch excludes the
            autograd keys there: the op was recorded once, above).

    Returns:
        The backend key (``Meta`` if ``factory_device`` is ``"meta"``, or if there is none and
        some tensor is a meta tensor; else ``CPU``), with ``Autograd`` when some tensor
        requires grad, unless ``below_autograd``, and ``Python`` while a mode is active or
        when some tensor's class defines ``__torch_dispatch__``.

    torch keeps ``Autograd`` in every tensor's key set and lets its kernel find that nothing
    needs recording; reftensor leaves the key out instead, which saves a kernel call per op.
    Grad mode is not part of the key set in either library: the ``Autograd`` kernel reads it.
    (The dispatcher also adds ``Autograd`` for an in-place op whose ``self`` is a view or has
    autograd history, whose version and ``grad_fn`` must be updated: torch's
    ``ADInplaceOrView`` key, which reftensor folds into ``Autograd``.)
    """
    # BEGIN PIECE dispatch_key_set
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("dispatch_key_set")(devices, requires_grad, python_tensors, factory_device=factory_device, modes=modes, below_autograd=below_autograd)
    # END PIECE


def next_key(keys: int, registered: int) -> tuple[int, int]:
    """The key whose kernel runs for the key set ``keys``, and the key set its kernel
    redispatches with (torch's ``keys & _dispatch_keyset_full_after(key)``).

    Args:
        keys: the call's key set.
        registered: the keys the op has a kernel for (a key set).

    Returns:
        ``(key, below)``: the highest key in ``keys`` that has a kernel, and every key of
        ``keys`` below it; ``(0, 0)`` when no key of ``keys`` has a kernel.
    """
    # BEGIN PIECE next_key
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("next_key")(keys, registered)
    # END PIECE
