"""``reftensor.nn.functional`` (``torch.nn.functional``): functions without parameters.

``linear`` and ``relu`` are chapter 6's layers as functions. ``dropout`` belongs to
chapter 8: its mask comes from the generator, one 53-bit uniform per
element in memory order, so with the same seed it zeroes exactly the elements torch zeroes.
"""

from __future__ import annotations

from .. import layout
from .._ops import aten
from ..tensor import Tensor

__all__ = ["dropout", "linear", "relu"]


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (``torch.nn.functional.dropout``), as torch's CPU kernel does:

    ``noise = empty_like(input).bernoulli_(1 - p)``, then ``noise.div_(1 - p)`` (in the
    input's dtype), then ``input * noise`` (``input.mul_(noise)`` when ``inplace``).

    With ``p == 0``, ``training=False`` or an empty input, ``input`` itself is returned and
    nothing is drawn; ``p == 1`` multiplies by zero and draws nothing. The mask comes from
    the default generator (torch's dropout takes no ``generator=``).

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = aten.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    noise = aten.empty_strided(input.shape, input._strides_for(layout.preserve_format),
                               dtype=input.dtype, device=input.device)
    noise.bernoulli_(1.0 - p)  # the op table's sampler (chapter 8's kernel)
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``): ``input`` of shape
    ``(*, in_features)``, ``weight`` ``(out_features, in_features)``, ``bias``
    ``(out_features,)``; gives ``(*, out_features)``.

    torch computes it as one ``addmm`` for a 2-d input with a bias, and with a flattened
    ``addmm`` for other contiguous inputs; here it is ``matmul`` then ``+``: the values agree
    to rounding, but the graph's nodes differ (``AddBackward0`` for torch's
    ``AddmmBackward0``) until ``addmm`` is in the op table.

    Raises:
        RuntimeError: the inner sizes differ, or the dtypes do.
    """
    output = input.matmul(weight.t())
    return output if bias is None else output + bias


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``torch.nn.functional.relu``); ``inplace`` writes into ``input``."""
    return input.relu_() if inplace else input.relu()
