import os
import sys

from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# How many examples Hypothesis draws per property test. ``default`` and ``ci`` (what
# `make test` runs) draw half of the full depth, to keep the suite within CI's time budget;
# the strategies still generate every hard layout (0-d, empty and size-1 dims, permuted,
# stepped, offset, stride 0, overlapping). Tests with their own count write it as
# ``examples(n)`` (tests/strategies.py), which scales the same way.
#   HYPOTHESIS_PROFILE=full      the full depth: 60 per test (and each examples(n) at n)
#   HYPOTHESIS_PROFILE=thorough  a long hunt for mismatches: 1,500 per test, 25 x n
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", max_examples=30, **_COMMON)
settings.register_profile("ci", max_examples=30, derandomize=True, **_COMMON)
settings.register_profile("full", max_examples=60, **_COMMON)
settings.register_profile(
    "thorough", max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "default"))


def pytest_terminal_summary(terminalreporter):
    from tests.difftest import STATS

    if STATS["programs"]:
        terminalreporter.write_line(
            f"conformance with torch: {STATS['programs']} programs run on both libraries, "
            f"{STATS['behaviours']} behaviours compared, no mismatch unless reported above"
        )
