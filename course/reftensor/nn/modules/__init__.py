"""The layers of ``reftensor.nn`` (``torch.nn.modules``), one kind per file."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter_containers import ParameterDict, ParameterList

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "Flatten", "Unflatten", "ReLU", "Tanh", "Sigmoid", "Dropout", "ParameterList",
           "ParameterDict", "Softmax", "LogSoftmax"]
# --- losses (chapter 6)
__all__ += ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]
