"""Bernoulli, exponential and multinomial sampling.

* ``bernoulli_(p)`` with a float ``p``: one 53-bit uniform per element, ``1`` when
  ``u < p``. With a tensor of probabilities: 53-bit uniforms for float64 ``p``, 24-bit
  ones (compared in float) for float32/float16/bfloat16 ``p``.
* ``exponential_(lambd)``: ``-1/lambd * log1p(-u)`` in float64 for a 53-bit ``u``.
* ``multinomial``: without replacement (or for one sample), the "exponential race":
  ``score = p / q`` with ``q ~ Exp(1)`` per category, and the largest scores win (argmax
  for one sample, top-k for several). With replacement: a cumulative sum of each row in
  the input dtype (float32 for float16/bfloat16), divided by its total, the last entry set
  to exactly 1; each sample is the first entry ``>= u`` for a 53-bit ``u`` (binary search).

Order of exactly tied scores: torch's top-k uses an unstable sort, so two categories with
*bit-identical* scores may come out in either order; reftensor puts the lower index first.
Ties need equal ``p / q``: rare in float64, uncommon in float32 (equal probabilities, many
categories), and frequent in float16/bfloat16, whose scores have 11 and 8 bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, layout
from .._ops import aten
from ..tensor import Tensor
from . import fill
from .generator import Generator
from .uniform import u24, u53

__all__ = ["bernoulli_", "bernoulli", "exponential_", "multinomial"]


# ------------------------------------------------------------------------------ bernoulli
def _bernoulli_scalar_kernel(t: Tensor, p: float, gen: Generator) -> None:
    fill.write(t, (u53(gen._draw64(t.numel())) < p).astype(t.dtype.numpy))


def _bernoulli_tensor_kernel(t: Tensor, p: Tensor, gen: Generator) -> None:
    # self and the (expanded) p are walked together, in the order TensorIterator picks for
    # both layouts
    p = p.expand_as(t)
    order = layout.innermost_first(t.shape, [t.stride(), p.stride()])[::-1]
    probs = p._elements().transpose(order).reshape(-1)
    # each p is checked just before its draw: a bad one stops the loop there, after the
    # elements before it were drawn and written
    bad = np.flatnonzero(~((probs >= 0) & (probs <= 1)))
    n = int(bad[0]) if bad.size else probs.shape[0]
    if p.dtype == dtypes.float64:
        hits = u53(gen._draw64(n)) < probs[:n]
    else:
        hits = u24(gen._draw32(n)) < probs[:n].astype(np.float32)
    target = t._elements().transpose(order)
    values = target.reshape(-1)  # the current values (a copy when strided) ...
    values[:n] = hits  # ... with the first n replaced
    target[...] = values.reshape(target.shape)
    if bad.size:
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with 1 (probability ``p``) or 0 (``Tensor.bernoulli_``);
    ``p`` a float or a tensor of probabilities broadcastable to ``self``.

    Raises:
        RuntimeError: a float ``p`` outside [0, 1].
    """
    gen = fill.resolve(generator)
    if isinstance(p, Tensor):
        fill.check_floating("bernoulli_tensor_cpu_p_", p.dtype)
        return fill.inplace("BernoulliBackward1", _bernoulli_tensor_kernel, self, p, gen)
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return fill.inplace("BernoulliBackward2", _bernoulli_scalar_kernel, self, p, gen)


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None) -> Tensor:
    """``torch.bernoulli``: 1 with probability ``input`` (elementwise), or with probability
    ``p`` when given; a new contiguous tensor of ``input``'s shape and dtype."""
    gen = fill.resolve(generator)
    out = fill.like(input, None, None, layout.contiguous_format)
    if p is None:
        fill.check_floating("bernoulli_tensor_cpu_p_", input.dtype)
        return fill.fresh(_bernoulli_tensor_kernel, out, input, gen)
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return fill.fresh(_bernoulli_scalar_kernel, out, p, gen)


# ---------------------------------------------------------------------------- exponential
def exponentials(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """``n`` exponential numbers of rate ``lambd`` (float64, libm's ``log1p``)."""
    scale = -1.0 / lambd
    log1p = math.log1p
    return np.array([scale * log1p(-u) for u in u53(gen._draw64(n)).tolist()])


def _exponential_kernel(t: Tensor, lambd: float, gen: Generator) -> None:
    fill.write(t, exponentials(gen, t.numel(), lambd))


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None
                 ) -> Tensor:
    """Fill ``self`` in place with exponential numbers of rate ``lambd``
    (``Tensor.exponential_``).

    Raises:
        RuntimeError: ``lambd <= 0``, or an integer/bool tensor.
    """
    gen = fill.resolve(generator)
    lambd = float(lambd)
    if self.dtype not in fill.FLOATING:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{fill.SCALAR_TYPE[self.dtype]}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return fill.inplace("ExponentialBackward0", _exponential_kernel, self, lambd, gen)


# ---------------------------------------------------------------------------- multinomial
def _check_multinomial(input: Tensor, num_samples: int, replacement: bool) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if not 1 <= input.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype not in fill.FLOATING:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{fill.SCALAR_TYPE[input.dtype]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if input.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _race(input: Tensor, num_samples: int, gen: Generator) -> np.ndarray:
    """Without replacement (or one sample): the top ``num_samples`` of ``p / q``."""
    p = input._elements()
    if not (np.isfinite(p).all() and (p >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = p.reshape(-1, p.shape[-1]) if p.shape[-1] else p.reshape(0, 0)
    if (rows.astype(np.float64).sum(axis=-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = fill.like(input, None, None, layout.preserve_format)  # empty_like(p).exponential_(1)
    _exponential_kernel(q, 1.0, gen)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (p / q._elements()).astype(p.dtype)
    score = score.reshape(rows.shape).astype(np.float64)  # exact for every float dtype
    if num_samples == 1:
        return np.argmax(score, axis=-1)[:, None]
    return np.argsort(-score, axis=-1, kind="stable")[:, :num_samples]


def _with_replacement(input: Tensor, num_samples: int, gen: Generator) -> np.ndarray:
    p = input._elements()
    rows = p.reshape(-1, p.shape[-1])
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        if (row < 0).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if not np.isfinite(row).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        # a running sum in the input dtype (float32 for float16/bfloat16), then / total
        acc = np.float32 if row.dtype.itemsize == 2 else row.dtype
        cum = np.cumsum(row, dtype=acc)
        total = cum[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = (cum / total).astype(acc).astype(np.float64)
        cum[-1] = 1.0
        out[i] = np.searchsorted(cum, u53(gen._draw64(num_samples)), side="left")
    return out


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Sample category indices from each row of ``input`` (``torch.multinomial``).

    Args:
        input: 1-d or 2-d float tensor of non-negative weights (rows need not sum to 1).
        num_samples: samples per row. replacement: draw with replacement.

    Returns:
        int64 tensor of shape ``(num_samples,)`` or ``(rows, num_samples)``.

    Raises:
        RuntimeError: bad dims or dtype, ``num_samples <= 0``, more samples than categories
        without replacement, negative/inf/nan weights, or a row summing to 0.
    """
    gen = fill.resolve(generator)
    num_samples = int(num_samples)
    _check_multinomial(input, num_samples, bool(replacement))
    shape = (num_samples,) if input.dim() == 1 else (input.shape[0], num_samples)
    if input.is_meta:
        return aten.empty(shape, dtype=dtypes.int64, device="meta")
    if input.numel() == 0:
        return aten.empty(shape, dtype=dtypes.int64)
    if not replacement or num_samples == 1:
        result = _race(input, num_samples, gen)
    else:
        result = _with_replacement(input, num_samples, gen)
    out = aten.empty(shape, dtype=dtypes.int64)
    out._elements()[...] = result.reshape(shape)
    return out
