"""The layers of ``reftensor.nn`` (``torch.nn.modules``), one kind per file."""

from .activation import GELU, LogSigmoid, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .normalization import LayerNorm
from .parameter_containers import ParameterDict, ParameterList
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "Flatten", "Unflatten", "ReLU", "Tanh", "Sigmoid", "Dropout", "ParameterList",
           "ParameterDict", "Softmax", "LogSoftmax", "GELU", "Embedding", "LayerNorm",
           "BatchNorm1d", "Bilinear"]
# --- losses (chapter 6)
__all__ += ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
            "LogSigmoid"]
# --- convolution (chapter 10, the capstone)
__all__ += ["Conv1d", "Conv2d"]
