"""The suite's own promises: the tier table (tests/README.md) names real tests, every test of
the full tier has a representative in the fast tier, and the helpers the browser tests share."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.browser import spawn_progress_cut

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
NAMED = re.compile(r"`(test_\w+\.py)(?:::(test_\w+))?`")


def _is_full_mark(node: ast.expr) -> bool:
    """``pytest.mark.full`` (or ``pytest.mark.full(...)``)."""
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node) == "pytest.mark.full"


def _tests(path: Path) -> dict[str, bool]:
    """Test function name -> whether it is marked ``full`` (itself or its module)."""
    tree = ast.parse(path.read_text())
    module_full = False
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            module_full = any(_is_full_mark(m) for m in marks)
    return {node.name: module_full or any(_is_full_mark(d) for d in node.decorator_list)
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def _table() -> list[tuple[str, str, str]]:
    rows = []
    text = (TESTS / "README.md").read_text().split("## Where each failure mode is tested")[1]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and not set(cells[0]) <= {"-"} and cells[0] != "failure mode":
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_the_tier_table_names_real_tests_in_the_right_tier():
    modules = {p.name: _tests(p) for p in TESTS.glob("test_*.py")}
    rows = _table()
    assert len(rows) >= 25
    named_full: set[tuple[str, str]] = set()
    for mode, fast, full in rows:
        fast_named = NAMED.findall(fast)
        assert fast_named, f"{mode}: no fast-tier test"
        for module, name in fast_named:
            assert module in modules, (mode, module)
            if name:
                assert name in modules[module], (mode, module, name)
                assert not modules[module][name], f"{module}::{name} is full-only: {mode}"
            else:
                assert not all(modules[module].values()), (mode, module)
        for module, name in NAMED.findall(full):
            assert module in modules and name in modules[module], (mode, module, name)
            named_full.add((module, name))
    marked_full = {(m, n) for m, tests in modules.items() for n, full in tests.items() if full}
    assert marked_full, "no test is marked full"
    assert marked_full <= named_full, marked_full - named_full


def test_every_test_module_is_in_the_table():
    named = {module for row in _table() for cell in row[1:] for module, _ in NAMED.findall(cell)}
    assert {p.name for p in TESTS.glob("test_*.py")} <= named


@pytest.mark.parametrize("url, failure, forgiven", [
    ("http://127.0.0.1:8000/hub/api/users/student-1/server/progress", "net::ERR_ABORTED", True),
    ("http://h/course/hub/api/users/s/servers/x/progress", "net::ERR_ABORTED", True),
    ("http://127.0.0.1:8000/hub/api/users/s/server/progress", "net::ERR_FAILED", False),
    ("http://127.0.0.1:8000/hub/api/users/s/server/progress/../../x", "net::ERR_ABORTED", False),
    ("http://127.0.0.1:8000/hub/api/users/s/server", "net::ERR_ABORTED", False),
    ("http://127.0.0.1:8000/user/s/api/kernels?progress", "net::ERR_ABORTED", False),
    ("http://127.0.0.1:8000/hub/api/users/s/server/progress", None, False),
])
def test_only_the_cut_spawn_progress_stream_is_forgiven(url, failure, forgiven):
    """The hub's browser tests count every failed request as an error but one: the spawn
    page's progress stream, which the browser aborts when the page moves on to the lab."""
    assert spawn_progress_cut(url, failure) is forgiven


def test_the_hub_recipe_parses():
    """The fast tier's look at the hub recipe that the full tier runs end to end: its shell
    scripts parse, its JupyterHub configuration compiles, and install.sh installs the exact
    pins of requirements.txt."""
    deploy = REPO / "deploy" / "jupyterhub"
    for script in sorted(deploy.glob("*.sh")):
        done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, (script.name, done.stderr)
    for module in sorted(deploy.glob("*.py")):
        compile(module.read_text(), str(module), "exec")
    assert '-r "$REPO/requirements.txt"' in (deploy / "install.sh").read_text()


def test_the_hub_tests_release_step_is_readmes_and_it_never_uses_a_class_venv(tmp_path):
    """The full tier's hub test runs README's steps 4, 6 and 7 as written (names substituted),
    and refuses a venv it did not make, whose nbgrader settings belong to a class."""
    from tests import test_hub

    command = test_hub.readme_release_command("inst", "course7")
    assert command.startswith("runuser -l inst -c 'export PATH=") and "~/course7 &&" in command
    assert f"{test_hub.VENV}/bin:$PATH" in command
    assert subprocess.run(["bash", "-n", "-c", command]).returncode == 0
    # and steps 6 and 7 (collect, grade, release the feedback), as written there
    steps = test_hub.readme_grading_steps(Path("/x/exchange"), "course7", Path("/x/g"),
                                          "2026-01-02T03:04:05+00:00")
    collect, grade, release = (steps[k][2] for k in ("collect", "grade", "release-feedback"))
    assert collect.startswith("G=/x/g && .venv/bin/python -m autograder collect --exchange "
                              "/x/exchange --course course7 --chapter ch01_storage --into "
                              "$G/inbox/ch01_storage --due 2026-01-02T03:04:05+00:00 "
                              "--roster $G/roster.txt"), collect
    assert "autograder grade --workspace $G/workspace --submissions $G/inbox/ch01_storage" in grade
    assert release.endswith("--chapter ch01_storage --exchange /x/exchange --course course7")
    for _, _, command in steps.values():
        assert subprocess.run(["bash", "-n", "-c", command]).returncode == 0
    assert test_hub.foreign_venv(tmp_path / "new") is None  # the test makes and marks it
    assert "did not make" in test_hub.foreign_venv(tmp_path)  # someone's venv
    (tmp_path / test_hub.MARK).write_text("")
    assert test_hub.foreign_venv(tmp_path) is None


def test_the_students_package_is_this_checkouts_even_over_an_installed_one(tmp_path):
    """``install.sh`` runs ``student_package.py`` with the class's venv, which holds the last
    students' release: what it writes must come from this checkout (an older release laid
    ``autograder`` out otherwise, and shadowed it)."""
    import sys

    stale = tmp_path / "site" / "autograder"
    stale.mkdir(parents=True)
    (stale / "__init__.py").write_text("")
    (stale / "sandbox.py").write_text("raise ImportError('the installed, older release')\n")
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(repo / "deploy/jupyterhub/student_package.py"),
                           str(tmp_path / "out")], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "site")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "autograder" / "sandbox" / "judge.py").is_file()
    assert not (tmp_path / "out" / "solutions").exists()


def test_a_lean_chapter_keeps_every_graded_cell_and_drops_only_demos():
    """``tests/lean.py``: what the fast tier's grading-machinery tests grade is the chapter
    less the code cells nbgrader neither grades nor marks as answers (the first code cell,
    the imports, stays); every other cell is kept, unchanged and in order."""
    import json

    from tests.lean import CHAPTER, lean_cells

    cells = json.loads((REPO / "solutions" / CHAPTER / f"{CHAPTER}.ipynb").read_text())["cells"]
    kept = lean_cells(cells)
    code = [c for c in cells if c["cell_type"] == "code"]

    def graded(cell):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        return bool(meta.get("grade") or meta.get("solution"))

    dropped = [c for c in cells if not any(c is k for k in kept)]
    assert kept == [c for c in cells if c["cell_type"] != "code" or c is code[0] or graded(c)]
    assert dropped and all(c["cell_type"] == "code" and not graded(c) for c in dropped)
    assert sum(graded(c) for c in kept) == sum(graded(c) for c in cells) >= 10
