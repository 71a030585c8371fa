"""``reftensor.nn``: neural-network building blocks (``torch.nn``), chapter 6.

``Parameter`` (parameter.py), ``Module`` and the layers (modules/), ``init`` (how layers
draw their first values) and ``functional`` (the layers' ops as functions; ``dropout`` is
chapter 8's).
"""

from . import functional, init, utils
from .modules import (  # --- padding and sliding windows (the capstone, issue 45)
    GELU,
    BatchNorm1d,
    BCELoss,
    BCEWithLogitsLoss,
    Bilinear,
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Fold,
    Identity,
    L1Loss,
    LayerNorm,
    Linear,
    LogSigmoid,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterDict,
    ParameterList,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReLU,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    Unflatten,
    Unfold,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parameter import Parameter

__all__ = ["functional", "init", "Parameter", "Module", "Sequential", "ModuleList",
           "ModuleDict", "Identity", "Linear", "Flatten", "Unflatten", "ReLU", "Tanh",
           "Sigmoid", "Dropout", "ParameterList", "ParameterDict", "Softmax", "LogSoftmax", "GELU",
           "Embedding", "LayerNorm", "BatchNorm1d", "Bilinear"]
# --- losses (chapter 6)
__all__ += ["utils", "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss",
            "BCEWithLogitsLoss", "LogSigmoid"]
# --- pooling (chapter 10, the capstone)
# isort: split
from .modules import AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d  # noqa: E402

__all__ += ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d"]
# --- padding and sliding windows (the capstone, issue 45)
__all__ += ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
            "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
            "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
            "CircularPad2d", "CircularPad3d", "Unfold", "Fold"]
# --- convolution (chapter 10, the capstone)
__all__ += ["Conv1d", "Conv2d"]
