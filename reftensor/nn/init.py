"""``reftensor.nn.init`` (``torch.nn.init``): fill a parameter in place, without autograd.

Each function draws from the generator (the default one unless ``generator=`` is given),
through the tensor's own ``uniform_`` or ``normal_``: the same seed gives torch's exact values
(chapter 8), because the draws are the same and so is their order. The scale comes from the
weight's shape: ``fan_in`` is ``size(1)`` times the product of the sizes after dim 1 (a
convolution's kernel), ``fan_out`` is ``size(0)`` times the same product.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import factories
from .._ops import aten
from ..autograd import no_grad
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "kaiming_bound", "trunc_normal_"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


#: the gains that take no parameter (``calculate_gain``), by nonlinearity
_GAINS = {**dict.fromkeys(_LINEAR + ("sigmoid",), 1), "tanh": 5.0 / 3,
          "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps a layer's output variance after ``nonlinearity``
    (``torch.nn.init.calculate_gain``): 1 for linear layers and sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu (slope ``param``, default
    0.01), 3/4 for selu.

    Raises:
        ValueError: an unknown nonlinearity, or a slope that is not an int or float.
    """
    found = _GAINS.get(nonlinearity)
    if found is not None:
        return found
    if nonlinearity != "leaky_relu":
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")
    slope = 0.01 if param is None else param
    if isinstance(slope, bool) or not isinstance(slope, int | float):
        raise ValueError(f"negative_slope {param} not a valid number")
    return math.sqrt(2.0 / (1 + slope**2))


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``(out, in, *kernel)``.

    Raises:
        ValueError: fewer than 2 dims.
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of "
                         "['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Any = None) -> Tensor:
    """Fill ``tensor`` from U(a, b) (``torch.nn.init.uniform_``); returns it."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Any = None) -> Tensor:
    """Fill ``tensor`` from N(mean, std**2) (``torch.nn.init.normal_``); returns it."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val`` (``torch.nn.init.constant_``); returns it."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with 1 (``torch.nn.init.ones_``); returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with 0 (``torch.nn.init.zeros_``); returns it."""
    with no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-b, b) with ``b = gain * sqrt(6 / (fan_in + fan_out))``, computed as torch does,
    ``sqrt(3) * gain * sqrt(2 / (fan_in + fan_out))`` (``torch.nn.init.xavier_uniform_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``
    (``torch.nn.init.xavier_normal_``).

    Raises:
        ValueError: fewer than 2 dims.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_bound(shape: tuple[int, ...], a: Any = 0, mode: str = "fan_in",
                  nonlinearity: str = "leaky_relu") -> float | None:
    """The bound ``b`` of the interval U(-b, b) that ``torch.nn.init.kaiming_uniform_(w, a,
    mode, nonlinearity)`` draws a weight of shape ``shape`` from (``kaiming_uniform_`` runs
    it for every call, ``Linear``'s default initialisation included), to the last bit of the
    float torch computes; None for a shape with no elements (torch then draws nothing).

    Args:
        shape: the weight's sizes, ``(out, in, *kernel)``.
        a: the negative slope of ``leaky_relu`` (only that nonlinearity reads it).
        mode: ``"fan_in"`` or ``"fan_out"``, in any case.
        nonlinearity: a name ``torch.nn.init.calculate_gain`` knows.

    Raises:
        ValueError: torch's, for fewer than 2 dims, an unknown mode or nonlinearity, or a
            slope that is not an int or float.
    """
    # BEGIN PIECE kaiming_bound
    if 0 in shape:
        return None
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of "
                         "['fan_in', 'fan_out']")
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    receptive = math.prod(shape[2:])
    fan = (shape[1] if mode == "fan_in" else shape[0]) * receptive
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                        "conv_transpose2d", "conv_transpose3d", "sigmoid"):
        gain: float = 1
    elif nonlinearity == "tanh":
        gain = 5.0 / 3
    elif nonlinearity == "relu":
        gain = math.sqrt(2.0)
    elif nonlinearity == "selu":
        gain = 3.0 / 4
    elif nonlinearity != "leaky_relu":
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")
    elif a is None or (isinstance(a, int | float) and not isinstance(a, bool)):
        gain = math.sqrt(2.0 / (1 + (0.01 if a is None else a) ** 2))
    else:
        raise ValueError(f"negative_slope {a} not a valid number")
    return math.sqrt(3.0) * (gain / math.sqrt(fan))
    # END PIECE


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """U(-b, b) with ``b = sqrt(3) * gain / sqrt(fan)`` (``torch.nn.init.kaiming_uniform_``;
    ``a`` is leaky_relu's slope for the gain; ``kaiming_bound`` computes ``b``). ``Linear``
    and the convolutions call it with ``a=sqrt(5)``, which makes ``b`` about
    ``1 / sqrt(fan_in)``. A tensor with no elements is left as it is, with a warning, and
    draws nothing.

    Raises:
        ValueError: fewer than 2 dims, an unknown ``mode`` or ``nonlinearity``.
    """
    bound = kaiming_bound(tuple(tensor.shape), a, mode, nonlinearity)
    if bound is None:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """N(0, std**2) with ``std = gain / sqrt(fan)`` (``torch.nn.init.kaiming_normal_``).

    Raises:
        ValueError: fewer than 2 dims, an unknown ``mode`` or ``nonlinearity``.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def _norm_cdf(x: float) -> float:
    """The standard normal's CDF, ``(1 + erf(x / sqrt(2))) / 2``, in Python floats."""
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _log_pdf_minus_peak(candidates: Tensor, mean: float, std: float,
                        log_peak: float) -> Tensor:
    """In place: ``-0.5 * ((candidates - mean) / std) ** 2 - log_peak``, torch's steps."""
    return candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` from N(mean, std**2) truncated to ``[a, b]``
    (``torch.nn.init.trunc_normal_``, torch 2.13's algorithm, draw for draw); returns it.

    ``p``, the normal's mass inside ``[a, b]``, picks the method:

    * ``p > 0.3``: ``normal_`` the whole tensor, then redraw (a fresh ``normal_`` of a
      whole tensor, kept where a value is outside) until every value lies in ``[a, b]``,
      the bounds read in the tensor's dtype;
    * else rejection from the uniform: ``uniform_(a, b)`` candidates, each accepted when
      ``log(u) <= -0.5 ((x - mean) / std)**2 - log_peak`` for a fresh ``uniform_``
      ``u`` (``log_peak``: the same at ``clamp(mean, a, b)``); the pending ones draw
      again, whole tensors each round.

    The same seed gives torch's values and leaves the generator where torch's is
    (``uniform_``, ``normal_`` and ``log_`` as chapter 8 and chapter 3 compute them: a
    ``log`` one ulp from torch's could flip an acceptance that is a tie to the ulp).
    Nothing is drawn for a tensor on the meta device. Warns (UserWarning) when ``mean``
    is more than ``2 * std`` outside ``[a, b]``.
    """
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if p > 0.3:
            low = factories.tensor(a, dtype=tensor.dtype).item()
            high = factories.tensor(b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                fresh = aten.empty_like(result).normal_(mean, std, generator=generator)
                result = aten.where(outside, fresh, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
        candidates, accept = aten.empty_like(tensor), aten.empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        _log_pdf_minus_peak(candidates, mean, std, log_peak)
        pending = accept.uniform_(generator=generator).log_().gt(candidates)
        if not pending.any():
            return tensor
        result = tensor
        while True:
            candidates.uniform_(a, b, generator=generator)
            result = aten.where(pending, candidates, result)
            _log_pdf_minus_peak(candidates, mean, std, log_peak)
            pending = aten.where(pending,
                                 accept.uniform_(generator=generator).log_().gt(candidates),
                                 pending)
            if not pending.any():
                break
        tensor.copy_(result)
        return tensor
