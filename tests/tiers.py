"""The suite's two tiers, chosen by ``REFTENSOR_TEST_TIER`` (``make test`` and ``make test-full``).

* ``fast`` (the default, what ``make test`` and CI run): every failure mode the suite checks has
  at least one test here, at a size that keeps the tier within the time README states.
* ``full`` (``make test-full``): everything at full size. Tests marked ``full`` run only here,
  and tests that size themselves with :func:`pick` take their full size.

``tests/README.md`` lists, for each failure mode, the tests that check it in each tier;
``tests/test_suite.py`` checks that every test it names exists and is in the tier it says.
"""

from __future__ import annotations

import os
from typing import TypeVar

__all__ = ["TIER", "FULL", "pick"]

T = TypeVar("T")

TIER = os.environ.get("REFTENSOR_TEST_TIER", "fast").strip().lower() or "fast"
if TIER not in ("fast", "full"):
    raise RuntimeError(f"REFTENSOR_TEST_TIER must be 'fast' or 'full', not {TIER!r}")
FULL = TIER == "full"


def pick(fast: T, full: T) -> T:
    """``full`` in the full tier, ``fast`` in the fast one: a test's size in each tier."""
    return full if FULL else fast
