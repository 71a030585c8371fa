import os
import sys

from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(  # a long hunt for mismatches: HYPOTHESIS_PROFILE=thorough pytest
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
