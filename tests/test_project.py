"""Project-level promises: pins agree, CI runs the README's command, nothing drifts."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _pins(text: str) -> dict[str, str]:
    pins = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(?:-\s+)?([A-Za-z0-9_.\-]+)==([^\s#]+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def test_environment_yml_pins_match_requirements():
    req = _pins((REPO / "requirements.txt").read_text())
    env = _pins((REPO / "environment.yml").read_text())
    assert req == env
    assert req["torch"] == "2.13.0"


def test_every_requirement_is_pinned_exactly():
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][^\s]*", line), line


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in readme and "make test" in ci
    assert "make demo" in readme


def test_reftensor_depends_on_numpy_only():
    for path in (REPO / "reftensor").rglob("*.py"):
        assert not re.search(r"^\s*(import torch|from torch)", path.read_text(), re.M), path


def test_the_slow_iri_checker_is_not_installed():
    """The project's install steps remove rfc3987-syntax (Makefile, deploy/jupyterhub/install.sh):
    it builds a parser at import time, 1.2 s in every process that imports nbformat."""
    import importlib.util

    assert importlib.util.find_spec("rfc3987_syntax") is None
    for path in ("Makefile", "deploy/jupyterhub/install.sh"):
        assert "uninstall --quiet --disable-pip-version-check --yes rfc3987-syntax" in \
            (REPO / path).read_text(), path
