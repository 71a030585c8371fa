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
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    Fold,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    Unfold,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parameter_containers import ParameterDict, ParameterList
from .pooling import AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear",
           "Flatten", "Unflatten", "ReLU", "Tanh", "Sigmoid", "Dropout", "ParameterList",
           "ParameterDict", "Softmax", "LogSoftmax", "GELU", "Embedding", "LayerNorm",
           "BatchNorm1d", "Bilinear"]
# --- losses (chapter 6)
__all__ += ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
            "LogSigmoid"]
# --- pooling (chapter 10, the capstone)
__all__ += ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d"]
# --- padding and sliding windows (the capstone, issue 45)
__all__ += ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
            "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
            "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
            "CircularPad2d", "CircularPad3d", "Unfold", "Fold"]
# --- convolution (chapter 10, the capstone)
__all__ += ["Conv1d", "Conv2d"]
