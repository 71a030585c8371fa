"""``reftensor.nn.functional`` (``torch.nn.functional``): functions without parameters.

``linear`` is the op table's ``linear`` (torch's ``nn.functional.linear`` is its C++ op,
``torch._C._nn.linear``): torch's decomposition into ``addmm`` or ``matmul``.

``relu`` is chapter 6's layer as a function. ``dropout`` belongs to chapter 8: its mask comes
from the generator, one 53-bit uniform per element in memory order, so with the same seed it
zeroes exactly the elements torch zeroes.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import layout
from .._ops import aten
from ..tensor import Tensor

__all__ = ["dropout", "linear", "relu", "softmax", "log_softmax"]


def linear(*args: Any, **kwargs: Any) -> Any:
    """linear(input, weight, bias=None) -> Tensor

    ``input @ weight.T + bias`` (``torch.nn.functional.linear``): ``input`` of shape ``(*,
    in_features)``, ``weight`` ``(out_features, in_features)``, ``bias`` ``(out_features,)``;
    gives ``(*, out_features)``. The op table's ``linear``, torch's decomposition: a 2-d
    ``input`` with a bias is one ``addmm`` (``AddmmBackward0``), a contiguous one with a 1-d
    bias a flattened ``addmm`` viewed back (``ViewBackward0``), anything else ``matmul`` and
    an in-place ``add_``. ``out=`` as torch's.

    Raises:
        RuntimeError: a 0-d ``input`` or ``weight``, sizes or dtypes that do not match.
        TypeError: an argument that is not a tensor (torch's parser's text).
    """
    return aten.linear(*args, **kwargs)


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


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``torch.nn.functional.relu``); ``inplace`` writes into ``input``."""
    return input.relu_() if inplace else input.relu()


def _implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dim torch picks when none is given, with its deprecation warning: 0 for 0-, 1- and
    3-d inputs, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.nn.functional.softmax``), computed in
    ``dtype`` when given; without ``dim``, torch's deprecated guess (see above)."""
    if dim is None:
        dim = _implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim`` (``torch.nn.functional.log_softmax``); as
    ``softmax`` for ``dim`` and ``dtype``."""
    if dim is None:
        dim = _implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)
