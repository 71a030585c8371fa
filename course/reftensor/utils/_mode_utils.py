"""``reftensor.utils._mode_utils`` (``torch.utils._mode_utils``): ``no_dispatch()``, the
``with`` block whose calls no dispatch mode and no ``__torch_dispatch__`` of a Tensor subclass
sees (torch's ``torch._C._DisableTorchDispatch``): what a subclass's ``__torch_dispatch__``
uses to run an op on its own instances as on plain tensors."""

from __future__ import annotations

from .._ops.torch_dispatch import no_dispatch

__all__ = ["all_same_mode", "no_dispatch"]


def all_same_mode(modes: list) -> bool:
    """Are all ``modes`` equal to the first?"""
    return all(mode == modes[0] for mode in modes)
