"""How chapter 7 reaches chapter 8's generator without importing it.

Chapter 7 (``reftensor.utils``) comes before chapter 8 (``reftensor.random``), so it may not
import it (``tests/test_layering.py``). Most of what the samplers draw goes through the op
table, which takes any generator object (``randperm(n, generator=g)``, ``multinomial``,
``random_``; ``generator=None`` is the default generator). Two things torch's data loading
does need the generator *class* and the *default generator's seeding*, which no op provides:

* ``RandomSampler`` without a ``generator`` makes a fresh ``Generator()`` seeded with a 64-bit
  number drawn from the default generator;
* each DataLoader worker calls ``torch.manual_seed(base_seed + worker_id)``.

``reftensor/__init__.py``, which gathers every chapter, hands both to this module once chapter
8 is imported (``provide``). Without them (chapter 8 absent) the two calls raise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["provide", "new_generator", "manual_seed"]

_generator_class: Callable[[], Any] | None = None
_manual_seed: Callable[[int], Any] | None = None


def provide(generator_class: Callable[[], Any], manual_seed: Callable[[int], Any]) -> None:
    """Record chapter 8's ``Generator`` class and its module-level ``manual_seed`` (the
    default generator's)."""
    global _generator_class, _manual_seed
    _generator_class, _manual_seed = generator_class, manual_seed


def new_generator(seed: int) -> Any:
    """``torch.Generator().manual_seed(seed)``: a fresh CPU generator with that seed.

    Raises:
        RuntimeError: chapter 8's generator was not provided.
    """
    if _generator_class is None:
        raise RuntimeError("reftensor.utils needs chapter 8's Generator (reftensor.random)")
    return _generator_class().manual_seed(seed)


def manual_seed(seed: int) -> None:
    """``torch.manual_seed(seed)``: reseed the default generator.

    Raises:
        RuntimeError: chapter 8's generator was not provided.
    """
    if _manual_seed is None:
        raise RuntimeError("reftensor.utils needs chapter 8's manual_seed (reftensor.random)")
    _manual_seed(seed)
