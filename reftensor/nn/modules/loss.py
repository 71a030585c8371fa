"""The losses as layers (``torch.nn.MSELoss``, ``L1Loss``, ``NLLLoss``, ``CrossEntropyLoss``,
``BCELoss``, ``BCEWithLogitsLoss``): no parameters; the options kept as attributes and a
class ``weight`` (and ``pos_weight``) registered as a buffer, so it follows ``.to()`` and is
in ``state_dict`` (None when not given: a registered name with no tensor, left out of
``state_dict``). ``forward(input, target)`` calls the function of ``nn.functional``.

The deprecated ``size_average`` and ``reduce`` arguments, when either is given, set
``reduction`` as torch maps them (with its warning): see ``nn._reduction``. The repr is the
class name alone (``MSELoss()``), as torch prints it.
"""

from __future__ import annotations

from ...tensor import Tensor
from .. import _reduction
from .. import functional as F
from .module import Module

__all__ = ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]


class _Loss(Module):
    """A loss: ``reduction`` ('none', 'mean' or 'sum') from the arguments."""

    reduction: str

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _reduction.legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a per-class ``weight``, a buffer."""

    weight: Tensor | None

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """``|input - target|``, reduced (``torch.nn.L1Loss``): ``F.l1_loss``."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """``(input - target) ** 2``, reduced (``torch.nn.MSELoss``): ``F.mse_loss``."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """The negative log likelihood of class indices (``torch.nn.NLLLoss(weight=None,
    size_average=None, ignore_index=-100, reduce=None, reduction='mean')``):
    ``F.nll_loss``."""

    __constants__ = ["ignore_index", "reduction"]
    ignore_index: int

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or probabilities
    (``torch.nn.CrossEntropyLoss(weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0)``): ``F.cross_entropy``."""

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]
    ignore_index: int
    label_smoothing: float

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (``torch.nn.BCELoss(weight=None,
    size_average=None, reduce=None, reduction='mean')``): ``F.binary_cross_entropy``."""

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (``torch.nn.BCEWithLogitsLoss(weight=None,
    size_average=None, reduce=None, reduction='mean', pos_weight=None)``): ``weight`` and
    ``pos_weight`` are buffers; ``F.binary_cross_entropy_with_logits``."""

    weight: Tensor | None
    pos_weight: Tensor | None

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)
