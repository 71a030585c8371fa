"""Exercise specifications: what each graded function takes, and what torch says it returns.

An :class:`Exercise` holds three separate pieces, so grading can split them across
processes (generate and compute references where torch lives, judge where the answer runs):

* cases: the visible ``fixed`` inputs and a Hypothesis ``strategy`` for hidden ones;
* the reference: ``reference(case)`` runs real torch and returns plain data;
* the comparison lives in ``autograder.checks`` and needs only (case, expected) pairs.
"""

from __future__ import annotations

from .spec import EXERCISES, Case, Exercise, register

__all__ = ["Case", "Exercise", "EXERCISES", "register", "get"]


def get(name: str) -> Exercise:
    """The exercise called ``name``. Raises KeyError listing the known names."""
    # importing a chapter's module registers its exercises (once: modules are cached)
    from . import (  # noqa: F401
        ch01_storage,
        ch02_views,
        ch03_broadcasting,
        ch04_dtype_device,
        ch05_autograd,
        ch06_modules,
        ch07_data,
        ch08_rng,
        ch09_dispatch,
        ch10_capstone,
    )
    try:
        return EXERCISES[name]
    except KeyError:
        raise KeyError(f"no exercise named {name!r}; known: {sorted(EXERCISES)}") from None
