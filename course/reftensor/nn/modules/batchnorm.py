"""``BatchNorm1d`` (``torch.nn.BatchNorm1d``): normalize each channel over the batch.

In training the batch's statistics normalize and the running ones move towards them (the
buffers ``running_mean``, ``running_var``, and ``num_batches_tracked``, which counts the
training steps); with ``momentum=None`` the running stats are the cumulative average of
every batch seen (factor ``1 / num_batches_tracked``). After ``eval()`` the running stats
normalize and nothing changes. With ``track_running_stats=False`` there are no buffers and
the batch's statistics are used in both modes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import dtypes, factories
from ..._ops import aten
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d"]


class _NormBase(Module):
    """Parameters and buffers shared by the batch norms (torch's ``_NormBase``)."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(aten.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(aten.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", aten.zeros(num_features, device=device,
                                                            dtype=dtype))
            self.register_buffer("running_var", aten.ones(num_features, device=device,
                                                          dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 factories.tensor(0, dtype=dtypes.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Running stats reset; ``weight`` ones, ``bias`` zeros (nothing is drawn)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str,
                              local_metadata: Mapping[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        """A state dict of version 1 (before ``num_batches_tracked``) loads with the count
        kept as it is."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = self.num_batches_tracked  # type: ignore[index]
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative average
                factor = 1.0 / float(self.num_batches_tracked)
            else:
                factor = self.momentum
        bn_training = self.training or (self.running_mean is None
                                        and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight,
                            self.bias, bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """``BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, device=None, dtype=None, *, bias=True)``: input ``(N, C)`` or
    ``(N, C, L)``; each of the ``C`` channels normalized as ``F.batch_norm`` does.

    Raises:
        ValueError: an input that is not 2-d or 3-d; a batch of one value per channel in
            training (torch's messages).
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
