"""``reftensor.nn``: neural-network building blocks (``torch.nn``), chapter 6.

``Parameter`` (parameter.py), ``Module`` and the layers (modules/), ``init`` (how layers
draw their first values) and ``functional`` (the layers' ops as functions; ``dropout`` is
chapter 8's).
"""

from . import functional, init, utils
from .modules import (
    GELU,
    BatchNorm1d,
    BCELoss,
    BCEWithLogitsLoss,
    Bilinear,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
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
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    Unflatten,
)
from .parameter import Parameter

__all__ = ["functional", "init", "Parameter", "Module", "Sequential", "ModuleList",
           "ModuleDict", "Identity", "Linear", "Flatten", "Unflatten", "ReLU", "Tanh",
           "Sigmoid", "Dropout", "ParameterList", "ParameterDict", "Softmax", "LogSoftmax", "GELU",
           "Embedding", "LayerNorm", "BatchNorm1d", "Bilinear"]
# --- losses (chapter 6)
__all__ += ["utils", "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss",
            "BCEWithLogitsLoss", "LogSigmoid"]
# --- convolution (chapter 10, the capstone)
__all__ += ["Conv1d", "Conv2d"]
