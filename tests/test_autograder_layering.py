"""autograder's import structure (issue 39): laid out by role, each role importing only the
roles a class meets before it, and no import cycle.

The roles, lowest first: the course content (``autograder.checks`` and ``autograder.course``),
the sandbox (``autograder.sandbox``), the grading run (``autograder.grading``), the class
around it (``autograder.classroom``), the instructor's command line (``autograder.cli``). The
graph is read from the source with ``tests/test_layering.py``'s reader; unlike reftensor,
the grader may import inside a function (the command line starts faster when it imports only
what a command needs), so those imports count here like the others, cycles included. The
sample class's answers (student code) are not modules of the grader.
"""

from __future__ import annotations

from tests.test_layering import (
    ROOT,
    _cycle_members,
    _dynamic_imports,
    _imports,
    _modules,
    rank,
)

PACKAGE = ROOT / "autograder"
SKIP = frozenset({"sample_class", "sample_capstone"})

#: Each role's rank: a module may import modules of its own rank or a lower one.
ROLES = {
    "autograder": 0, "autograder.checks": 0, "autograder.course": 0,
    "autograder.sandbox": 1,
    "autograder.grading": 2,
    "autograder.classroom": 3,
    "autograder.cli": 4, "autograder.__main__": 4,
}


def role(module: str) -> int:
    """The rank of ``module`` (its longest prefix in ``ROLES``)."""
    return rank(module, ROLES, "role")


def upward_imports(imports: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """Every import of a module of a later role than the importer's."""
    return [f"{m} (role {role(m)}) imports {t} (role {role(t)})"
            for m, edges in imports.items() for t, _ in edges if role(t) > role(m)]


def test_roles_in_order_and_no_cycle():
    modules = _modules(PACKAGE, SKIP)
    imports = _imports(modules)
    graph = {m: {t for t, _ in edges} for m, edges in imports.items()}
    assert not _cycle_members(graph), f"on an import cycle: {sorted(_cycle_members(graph))}"
    assert not upward_imports(imports)
    assert not _dynamic_imports(modules)


def test_every_module_has_a_role_and_every_role_has_modules():
    modules = _modules(PACKAGE, SKIP)
    for module in modules:
        role(module)
    for prefix in ROLES:
        assert any(m == prefix or m.startswith(prefix + ".") for m in modules), prefix


def test_the_measure_sees_an_upward_import_and_a_cycle_through_a_function():
    """The grading run reaching up to the class counts, and so does a cycle made of an
    import inside a function (the shape ``grade`` and ``cluster`` had)."""
    found = upward_imports({"autograder.grading.grade": [("autograder.classroom.demo", True)]})
    assert found == ["autograder.grading.grade (role 2) imports autograder.classroom.demo "
                     "(role 3)"]
    graph = {"autograder.grading.grade": {"autograder.grading.cluster"},
             "autograder.grading.cluster": {"autograder.grading.grade"}}
    assert _cycle_members(graph) == set(graph)
