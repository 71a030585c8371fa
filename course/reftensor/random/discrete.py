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

Order of exactly tied scores (zero probabilities all score 0): torch's top-k runs
libstdc++'s ``std::nth_element`` and ``std::sort``, which leave equal scores in an order of
their own; reftensor takes the same order from ``sorting.topk_order``.

In the student edition, every ``bernoulli_`` of fewer than ``BERNOULLI_FEW`` elements (and so
``torch.bernoulli`` and dropout's noise) is sampled by the student's ``bernoulli_from_draws``
(chapter 8), handed ``self``'s elements and their probabilities in the order of torch's loop;
the reference keeps the NumPy code. Likewise every ``multinomial`` of a float32 or float64
input of fewer than ``FEW`` probabilities is sampled by the student's
``multinomial_from_draws`` (chapter 8), which takes the raw draws from the generator itself;
the reference keeps the NumPy code below (``_race``, ``_with_replacement``).
``tests/test_ch08_rng.py`` proves each pair agrees.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

import numpy as np

from .. import dtypes, iterator, layout, pieces, sorting
from .._ops import DispatchKey, aten
from ..tensor import Tensor
from . import fill
from .generator import Generator
from .uniform import u24, u53

__all__ = ["bernoulli_tensor_", "bernoulli_float_", "bernoulli", "bernoulli_p", "bernoulli_out",
           "bernoulli_from_draws", "exponential_", "multinomial", "multinomial_out",
           "multinomial_from_draws"]


# ------------------------------------------------------------------------------ bernoulli
def bernoulli_from_draws(values: list, probs: Sequence[float], dtype: str,
                         draw: Callable[[int], Sequence[int]]) -> None:
    """torch's CPU kernel of ``self.bernoulli_(p)``: each element of ``self`` becomes 1
    with probability p, 0 otherwise, from a generator whose raw 32-bit draws come from
    ``draw``. (``torch.bernoulli(p)``, ``torch.bernoulli(input, p)`` and dropout's noise
    run it too.)

    Args:
        values: ``self``'s elements in the order torch's kernel visits them, a list the
            kernel writes into: element ``i`` becomes ``1`` or ``0`` (an int or a bool)
            when its sample is drawn.
        probs: the probability of each element, in the same order: a float per element.
        dtype: the dtype of ``p``: ``"float64"``, ``"float32"``, ``"float16"`` or
            ``"bfloat16"`` for a tensor ``p`` (expanded to ``self``'s shape); ``"float"``
            for a number ``p`` (``bernoulli_(0.3)``), which is then in ``[0, 1]`` (the
            library checked it) and repeated for every element.
        draw: ``draw(k)`` returns the generator's next ``k`` raw 32-bit draws (ints in
            ``[0, 2**32)``), as torch's ``random()`` gives them; call it for exactly the
            draws torch uses, in torch's order.

    Returns:
        None: the samples are in ``values``.

    Raises:
        RuntimeError: where torch's kernel raises while it samples, with the first
            sentence of torch's message; the elements sampled before keep their samples.
    """
    # BEGIN PIECE bernoulli_from_draws
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("bernoulli_from_draws")(values, probs, dtype, draw)
    # END PIECE


#: torch's message (its first sentence) for a probability of a tensor ``p`` outside [0, 1]
P_OUT_OF_RANGE = "Expected p_in >= 0 && p_in <= 1 to be true, but got false."
#: ``bernoulli_`` of fewer elements than this runs ``bernoulli_from_draws`` where
#: ``BERNOULLI_PIECE`` is set (the rule of ``uniform.FEW``).
BERNOULLI_FEW = 64
#: Does the library run ``bernoulli_from_draws``? Yes in the student edition (the
#: student's answer, or a published chapter's body); no in the reference. Asked once, here.
BERNOULLI_PIECE = pieces.stubbed(bernoulli_from_draws)


def _draw_words(gen: Generator) -> Callable[[int], list[int]]:
    def draw(k: int) -> list[int]:
        return gen._draw32(k).tolist()
    return draw


def _bernoulli_from_piece(target: np.ndarray, probs: np.ndarray, dtype: str,
                          gen: Generator) -> None:
    """``bernoulli_from_draws`` on ``target`` (``self``'s elements arranged in the order of
    torch's loop, a view) and ``probs`` (flat, in that order). What the piece wrote is
    stored even when it raises, as torch's loop leaves the elements it sampled."""
    values = target.reshape(-1).tolist()
    try:
        bernoulli_from_draws(values, probs.tolist(), dtype, _draw_words(gen))
    finally:
        target[...] = np.asarray(values).astype(target.dtype).reshape(target.shape)


def _bernoulli_scalar_kernel(t: Tensor, p: float, gen: Generator) -> None:
    if BERNOULLI_PIECE and t.numel() < BERNOULLI_FEW:
        target = t._elements()
        if not t.is_contiguous():
            target = target.transpose(fill.memory_order(t))
        _bernoulli_from_piece(target, np.full(t.numel(), p), "float", gen)
        return
    fill.write(t, (u53(gen._draw64(t.numel())) < p).astype(t.dtype.numpy))


def _bernoulli_tensor_kernel(t: Tensor, p: Tensor, gen: Generator) -> None:
    # (torch checks p inside its kernel: an empty ``t`` takes any p)
    fill.check_floating("bernoulli_tensor_cpu_p_", p.dtype)
    # self and the (expanded) p are walked together, in the order TensorIterator picks for
    # both layouts
    p = p.expand_as(t)
    order = layout.innermost_first(t.shape, [t.stride(), p.stride()])[::-1]
    probs = p._elements().transpose(order).reshape(-1)
    target = t._elements().transpose(order)
    if BERNOULLI_PIECE and t.numel() < BERNOULLI_FEW:
        _bernoulli_from_piece(target, probs.astype(np.float64), p.dtype.name, gen)
        return
    # each p is checked just before its draw: a bad one stops the loop there, after the
    # elements before it were drawn and written
    bad = np.flatnonzero(~((probs >= 0) & (probs <= 1)))
    n = int(bad[0]) if bad.size else probs.shape[0]
    if p.dtype == dtypes.float64:
        hits = u53(gen._draw64(n)) < probs[:n]
    else:
        hits = u24(gen._draw32(n)) < probs[:n].astype(np.float32)
    values = target.reshape(-1)  # the current values (a copy when strided) ...
    values[:n] = hits  # ... with the first n replaced
    target[...] = values.reshape(target.shape)
    if bad.size:
        raise RuntimeError(P_OUT_OF_RANGE)


def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


@aten.bernoulli_.Tensor.impl(DispatchKey.CPU)
def bernoulli_tensor_(self: Tensor, p: Tensor, generator: Generator | None) -> Tensor:
    """``self.bernoulli_(p)``: 1 where a draw falls below the element of ``p``."""
    return fill.inplace(_bernoulli_tensor_kernel, self, p, fill.resolve(generator))


@aten.bernoulli_.float.impl(DispatchKey.CPU)
def bernoulli_float_(self: Tensor, p: float, generator: Generator | None) -> Tensor:
    """``self.bernoulli_(p)`` for a number ``p``."""
    gen = fill.resolve(generator)
    _check_p(p)
    return fill.inplace(_bernoulli_scalar_kernel, self, p, gen)


# torch's meta kernels of bernoulli_ check nothing and draw nothing.
@aten.bernoulli_.Tensor.impl(DispatchKey.Meta)
def bernoulli_tensor_meta(self: Tensor, p: Tensor, generator: Generator | None) -> Tensor:
    return fill.bump(self)


@aten.bernoulli_.float.impl(DispatchKey.Meta)
def bernoulli_float_meta(self: Tensor, p: float, generator: Generator | None) -> Tensor:
    return fill.bump(self)


def _contiguous_like(input: Tensor) -> Tensor:
    return fill.like(input, None, None, layout.contiguous_format)


@aten.bernoulli.out.impl(DispatchKey.CPU)
def bernoulli_out(self: Tensor, generator: Generator | None, out: Tensor) -> Tensor:
    """torch's ``bernoulli_out``: ``out`` resized to ``input``'s shape, then
    ``out.bernoulli_(input)`` (drawn in ``out``'s layout and dtype)."""
    gen = fill.resolve(generator)
    if out.shape != self.shape:
        iterator.resize_output(out, self.shape, layout.contiguous_strides(self.shape))
    return fill.inplace(_bernoulli_tensor_kernel, out, self, gen)


@aten.bernoulli.out.impl(DispatchKey.Meta)
def bernoulli_out_meta(self: Tensor, generator: Generator | None, out: Tensor) -> Tensor:
    if out.shape != self.shape:
        iterator.resize_output(out, self.shape, layout.contiguous_strides(self.shape))
    return fill.bump(out)


@aten.bernoulli.default.impl(DispatchKey.CPU)
def bernoulli(self: Tensor, generator: Generator | None) -> Tensor:
    """``torch.bernoulli(input)``: ``empty(input's shape).bernoulli_(input)``."""
    gen = fill.resolve(generator)
    return fill.fresh(_bernoulli_tensor_kernel, _contiguous_like(self), self, gen)


@aten.bernoulli.p.impl(DispatchKey.CPU)
def bernoulli_p(self: Tensor, p: float, generator: Generator | None) -> Tensor:
    """``torch.bernoulli(input, p)``: ``empty(input's shape).bernoulli_(p)``."""
    gen = fill.resolve(generator)
    _check_p(p)
    return fill.fresh(_bernoulli_scalar_kernel, _contiguous_like(self), p, gen)


@aten.bernoulli.default.impl(DispatchKey.Meta)
def bernoulli_meta(self: Tensor, generator: Generator | None) -> Tensor:
    return _contiguous_like(self)


@aten.bernoulli.p.impl(DispatchKey.Meta)
def bernoulli_p_meta(self: Tensor, p: float, generator: Generator | None) -> Tensor:
    return _contiguous_like(self)


# ---------------------------------------------------------------------------- exponential
def exponentials(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """``n`` exponential numbers of rate ``lambd`` (float64, libm's ``log1p``)."""
    scale = -1.0 / lambd
    log1p = math.log1p
    return np.array([scale * log1p(-u) for u in u53(gen._draw64(n)).tolist()])


def _exponential_kernel(t: Tensor, lambd: float, gen: Generator) -> None:
    fill.write(t, exponentials(gen, t.numel(), lambd))


def _check_exponential(self: Tensor, lambd: float, *, empty_too: bool = False) -> None:
    """The dtype (checked by torch's CPU kernel: not for an empty ``self``; its meta
    function checks it always), then ``lambd``."""
    if (self.numel() or empty_too) and self.dtype not in fill.FLOATING:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{fill.SCALAR_TYPE[self.dtype]}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")


@aten.exponential_.default.impl(DispatchKey.CPU)
def exponential_(self: Tensor, lambd: float, generator: Generator | None) -> Tensor:
    """``self.exponential_(lambd)``: exponential numbers of rate ``lambd``."""
    gen = fill.resolve(generator)
    _check_exponential(self, lambd)
    return fill.inplace(_exponential_kernel, self, lambd, gen)


@aten.exponential_.default.impl(DispatchKey.Meta)
def exponential_meta(self: Tensor, lambd: float, generator: Generator | None) -> Tensor:
    """torch checks the dtype and ``lambd`` on the meta device too (and draws nothing)."""
    _check_exponential(self, lambd, empty_too=True)
    return fill.bump(self)


# ---------------------------------------------------------------------------- multinomial
def _check_multinomial(input: Tensor, num_samples: int, replacement: bool) -> None:
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
    if input.shape[-1] == 0 and (input.dim() == 1 or input.shape[0] > 0):
        # a row with no categories: torch's check of the probabilities' range fails first
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if input.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _check_race(p: np.ndarray) -> None:
    """torch's checks of the whole input before the race draws anything."""
    if not (np.isfinite(p).all() and (p >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = p.reshape(-1, p.shape[-1]) if p.shape[-1] else p.reshape(0, 0)
    if (rows.astype(np.float64).sum(axis=-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _race(input: Tensor, num_samples: int, gen: Generator) -> np.ndarray:
    """Without replacement (or one sample): the top ``num_samples`` of ``p / q``."""
    p = input._elements()
    _check_race(p)
    q = fill.like(input, None, None, layout.preserve_format)  # empty_like(p).exponential_(1)
    _exponential_kernel(q, 1.0, gen)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (p / q._elements()).astype(p.dtype)
    score = score.reshape(-1, p.shape[-1]).astype(np.float64)  # exact for every float dtype
    if num_samples == 1:
        return np.argmax(score, axis=-1)[:, None]  # the first maximum (or nan)
    return sorting.topk_order(score, num_samples, 1, True, True)


def _with_replacement(input: Tensor, num_samples: int, gen: Generator) -> np.ndarray:
    p = input._elements()
    rows = p.reshape(-1, p.shape[-1])
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        # each entry is checked in turn (val >= 0, then finite): nan fails the first
        bad = np.flatnonzero(~(row >= 0) | ~np.isfinite(row))
        if bad.size and not row[bad[0]] >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if bad.size:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        # a running sum in the input dtype (float32 for float16/bfloat16), then / total
        acc = np.float32 if row.dtype.itemsize == 2 else row.dtype
        cum = np.cumsum(row, dtype=acc)
        total = cum[-1] if cum.size else 0
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = (cum / total).astype(acc).astype(np.float64)
        cum[-1] = 1.0
        out[i] = np.searchsorted(cum, u53(gen._draw64(num_samples)), side="left")
    return out


def multinomial_from_draws(rows: Sequence[Sequence[float]], dtype: str, num_samples: int,
                           replacement: bool, draw: Callable[[int], Sequence[int]],
                           topk: Callable[[Sequence[float], int], Sequence[int]]
                           ) -> list[list[int]]:
    """``torch.multinomial(p, num_samples, replacement)`` on the CPU for a 2-d ``p`` of
    ``dtype`` whose rows are ``rows``, from a generator whose raw 32-bit draws come from
    ``draw`` (a 1-d ``p`` is one row).

    Args:
        rows: the probabilities (weights), one list of floats per row, every row of the
            same length n >= 1; each float is a value of ``dtype``.
        dtype: ``"float32"`` or ``"float64"``, ``p``'s dtype.
        num_samples: an int >= 1 (at most n unless ``replacement``).
        replacement: whether a category may be drawn more than once.
        draw: ``draw(k)`` returns the generator's next ``k`` raw 32-bit draws (ints in
            ``[0, 2**32)``), as torch's ``random()`` gives them; call it for exactly the
            draws torch uses, in torch's order. (Where torch draws for the elements of ``p``
            in memory order, the library hands them over in row-major order.)
        topk: ``topk(scores, k)`` returns the indices of the ``k`` largest of ``scores`` (a
            list of floats, nan the largest), as ``torch.topk(torch.tensor(scores),
            k).indices.tolist()`` does, ties in torch's order.

    Returns:
        One list of ``num_samples`` category indices per row.

    Raises:
        RuntimeError: where torch's CPU kernel raises while it samples, with torch's
            message. (The checks torch makes before it draws, such as a negative, infinite
            or nan probability or a row of zeros without replacement, are the library's.)
    """
    # BEGIN PIECE multinomial_from_draws
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("multinomial_from_draws")(rows, dtype, num_samples, replacement, draw, topk)
    # END PIECE


#: ``multinomial`` of fewer probabilities than this (float32 or float64) is sampled by
#: ``multinomial_from_draws`` where ``PIECE`` is set (the rule of ``uniform.FEW``).
FEW = 64
#: Does the library run ``multinomial_from_draws``? Yes in the student edition (where the
#: piece runs the student's answer, or a published chapter's body); no in the reference.
#: Asked once, here.
PIECE = pieces.stubbed(multinomial_from_draws)


def _topk(scores: Sequence[float], k: int) -> list[int]:
    """torch.topk's indices of the ``k`` largest ``scores``, ties in torch's order."""
    return sorting.topk_order(np.array(scores, dtype=np.float64)[None, :], k, 1, True,
                              True)[0].tolist()


def _from_piece(input: Tensor, num_samples: int, replacement: bool,
                gen: Generator) -> np.ndarray:
    """``multinomial_from_draws`` for ``input``: the samples, one row per row."""
    p = input._elements()
    if replacement and num_samples > 1:
        def draw(k: int) -> list[int]:
            return gen._draw32(k).tolist()
    else:
        _check_race(p)
        # torch draws the exponentials in the memory order of empty_like(input): the pair
        # of draws of each element, handed over in row-major order
        rank = fill.like(input, dtypes.int64, None, layout.preserve_format)
        fill.write(rank, np.arange(input.numel()))
        words = gen._draw32(2 * input.numel()).reshape(-1, 2)[rank._elements().reshape(-1)]
        pending = words.reshape(-1).tolist()

        def draw(k: int) -> list[int]:
            taken, pending[:k] = pending[:k], []
            return taken + (gen._draw32(k - len(taken)).tolist() if k > len(taken) else [])
    rows = p.reshape(-1, p.shape[-1]).tolist()
    return np.array(multinomial_from_draws(rows, input.dtype.name, num_samples, replacement,
                                           draw, _topk), dtype=np.int64)


def _samples_shape(input: Tensor, num_samples: int) -> tuple[int, ...]:
    return (num_samples,) if input.dim() == 1 else (input.shape[0], num_samples)


def _sample_into(out: Tensor, input: Tensor, num_samples: int, replacement: bool,
                 generator: Generator | None) -> None:
    """torch's ``multinomial_out`` without the version bump: the checks, ``out`` resized to
    ``(num_samples,)`` or ``(rows, num_samples)``, then the samples (with replacement a
    binary search of the cumulative sums, without it or for one sample the race)."""
    gen = fill.resolve(generator)
    _check_multinomial(input, num_samples, replacement)
    if out.dtype != dtypes.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: "
                           f"{fill.SCALAR_TYPE[out.dtype]}")
    shape = _samples_shape(input, num_samples)
    if out.shape != shape:
        iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    if out.numel() == 0:
        return
    if PIECE and input.numel() < FEW and input.dtype in (dtypes.float32, dtypes.float64):
        result = _from_piece(input, num_samples, replacement, gen)
    elif not replacement or num_samples == 1:
        result = _race(input, num_samples, gen)
    else:
        result = _with_replacement(input, num_samples, gen)
    out._elements()[...] = result.reshape(shape)


@aten.multinomial.out.impl(DispatchKey.CPU)
def multinomial_out(self: Tensor, num_samples: int, replacement: bool,
                    generator: Generator | None, out: Tensor) -> Tensor:
    _sample_into(out, self, num_samples, replacement, generator)
    return fill.bump(out)


@aten.multinomial.default.impl(DispatchKey.CPU)
def multinomial(self: Tensor, num_samples: int, replacement: bool,
                generator: Generator | None) -> Tensor:
    """``torch.multinomial``: the samples in a new int64 tensor."""
    out = aten.empty(0, dtype=dtypes.int64)
    _sample_into(out, self, num_samples, replacement, generator)
    return out


def _check_multinomial_meta(input: Tensor) -> None:
    """torch's meta function checks the dims only."""
    if not 1 <= input.dim() <= 2:
        raise RuntimeError("The probability distributions dimensions must be 1 or 2, but got "
                           f"{input.dim()}")


@aten.multinomial.default.impl(DispatchKey.Meta)
def multinomial_meta(self: Tensor, num_samples: int, replacement: bool,
                     generator: Generator | None) -> Tensor:
    _check_multinomial_meta(self)
    return aten.empty(_samples_shape(self, num_samples), dtype=dtypes.int64,
                           device="meta")


@aten.multinomial.out.impl(DispatchKey.Meta)
def multinomial_out_meta(self: Tensor, num_samples: int, replacement: bool,
                         generator: Generator | None, out: Tensor) -> Tensor:
    _check_multinomial_meta(self)
    shape = _samples_shape(self, num_samples)
    if out.shape != shape:
        iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    return fill.bump(out)
