"""``reftensor.nn.utils`` (``torch.nn.utils``): helpers around training. ``clip_grad``:
``clip_grad_norm_`` and ``clip_grad_value_``."""

from . import clip_grad
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]
