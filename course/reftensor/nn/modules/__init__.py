"""The layers of ``reftensor.nn`` (``torch.nn.modules``), one kind per file."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .module import Module
from .parameter_containers import ParameterDict, ParameterList

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "Flatten", "Unflatten", "ReLU", "Tanh", "Sigmoid", "Dropout", "ParameterList",
           "ParameterDict", "Softmax", "LogSoftmax"]
