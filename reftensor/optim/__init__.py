"""``reftensor.optim`` (``torch.optim``), chapter 6: optimizers that update a Module's
parameters from their gradients, in torch's order of operations."""

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
