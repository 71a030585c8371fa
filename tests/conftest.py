import os
import sys

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests import lean, tiers  # noqa: E402 - needs the repository on sys.path

# How many examples Hypothesis draws per property test. The fast tier (``make test``: profiles
# ``default`` and ``ci``) draws a third of the full depth; the full tier (``make test-full``)
# loads ``full``. The strategies generate every hard layout (0-d, empty and size-1 dims,
# permuted, stepped, offset, stride 0, overlapping) in every profile. Tests with their own
# count write it as ``examples(n)`` (tests/strategies.py), which scales the same way.
#   HYPOTHESIS_PROFILE=full      the full depth: 60 per test (and each examples(n) at n)
#   HYPOTHESIS_PROFILE=thorough  a long hunt for mismatches: 1,500 per test, 25 x n
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", max_examples=20, **_COMMON)
settings.register_profile("ci", max_examples=20, derandomize=True, **_COMMON)
settings.register_profile("full", max_examples=60, **_COMMON)
settings.register_profile(
    "thorough", max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("full" if tiers.FULL else "ci" if os.environ.get("CI") else "default"))


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(WholeModulesButSweeps(), "whole-modules-but-sweeps")
    config.addinivalue_line("markers", "fast: in the fast tier (every test not marked full)")
    config.addinivalue_line("markers", "full: only in the full tier (make test-full)")


#: Modules whose fixtures grade whole classes (and the OpInfo sweep), longest first: they
#: start first, so that with two pytest-xdist workers (``make test``) the many short modules
#: come last and fill the end evenly instead of one long module trailing alone. Every other
#: module keeps its place after these.
LONGEST_FIRST = ("test_adversarial_host", "test_adversarial", "test_opinfo", "test_term",
                 "test_notebooks", "test_cluster", "test_grading", "test_site", "test_edition",
                 "test_ch02_ch03_exercises", "test_ch05_exercises", "test_ch08_exercises",
                 "test_ch04_exercises", "test_ch06_exercises", "test_ch07_exercises",
                 "test_ch09_exercises", "test_ch10_exercises", "test_sanitize", "test_bench")


#: Modules of many short tests that share nothing costly (the conformance sweeps): under
#: pytest-xdist (``make test``) their tests are handed out one at a time to whichever worker
#: is free, and they run last, filling the end of both workers evenly. Every other module runs
#: whole on one worker, its fixtures once (``pytest_xdist_make_scheduler``).
SHARED_OUT = ("test_op_table", "test_corners", "test_ch02_indexing", "test_ch06_losses",
              "test_ch03_elementwise", "test_ch04_devices", "test_ch05_autograd")


def _module_name(item) -> str:
    return item.module.__name__.rpartition(".")[2] if item.module else ""


def _module_rank(item) -> tuple[int, int]:
    name = _module_name(item)
    rank = LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
    return (name in SHARED_OUT, rank)


def pytest_collection_modifyitems(config, items):
    """Mark every test of the fast tier ``fast``; in the fast tier, leave the ``full`` ones
    out (they are reported as deselected, with the tier named in the header); run the
    modules of ``LONGEST_FIRST`` first and those of ``SHARED_OUT`` last."""
    items.sort(key=_module_rank)  # stable: each module's tests keep their order
    kept, left = [], []
    for item in items:
        if item.get_closest_marker("full") is None:
            item.add_marker(pytest.mark.fast)
            kept.append(item)
        else:
            left.append(item)
    if not tiers.FULL and left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_report_header(config):
    return (f"test tier: {tiers.TIER} (REFTENSOR_TEST_TIER); Hypothesis profile: "
            f"{settings.get_current_profile_name()}")


def pytest_sessionfinish(session):
    """In a pytest-xdist worker: hand this worker's conformance counts to the controller."""
    from tests.difftest import STATS

    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["difftest"] = dict(STATS)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook
def pytest_testnodedown(node, error):
    """In the controller: add a finished worker's conformance counts."""
    from tests.difftest import STATS

    STATS.update(getattr(node, "workeroutput", {}).get("difftest", {}))


def pytest_terminal_summary(terminalreporter):
    from tests.difftest import STATS

    if STATS["programs"]:
        terminalreporter.write_line(
            f"conformance with torch: {STATS['programs']} programs run on both libraries, "
            f"{STATS['behaviours']} behaviours compared, no mismatch unless reported above"
        )



class WholeModulesButSweeps:
    """A plugin for pytest-xdist (registered only where it runs): its scheduler for
    ``--dist loadfile``, but that each test of ``SHARED_OUT``'s modules is a unit of work of its
    own, where every other module is one."""

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadScopeScheduling

        class Scheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                module = nodeid.split("::", 1)[0]
                return nodeid if os.path.basename(module)[:-3] in SHARED_OUT else module

        return Scheduling(config, log)


@pytest.fixture(scope="module")
def lean_chapter_1(tmp_path_factory):
    """For the modules that use it, the chapter 1 their grading runs grade: in the fast tier
    chapter 1 less its demo cells (``tests/lean.py``: the same answer and test cells, half the
    notebook's own run), in the full tier chapter 1 as released."""
    if tiers.FULL:
        yield
        return
    with lean.use_lean_course(tmp_path_factory.mktemp("lean")):
        yield
