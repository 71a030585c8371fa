"""reftensor's import structure (issue 23): no import cycle, no import made inside a
function (the usual way to dodge a cycle), no dynamic import (``importlib``,
``__import__``), and no import from a later chapter's module into an earlier one's
(``CHAPTERS``), so that chapter N's code reads, and runs, before chapter N+1 exists. (This
was a ratchet whose counts could only fall while the op table was built; it reached zero.)

The graph is read from the source (``ast``), not by importing anything: an edge A -> B for
every ``import``/``from ... import`` in A that names reftensor module B (a name imported from
a package counts as an import of that package's ``__init__``, unless the name is itself a
submodule). The parent package that Python imports first is not an edge: that is how packages
work, not a choice of the module's.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "reftensor"

#: Which chapter each module belongs to (the longest prefix that matches): chapter 0 is the
#: core below every chapter (the op table, the dispatcher, dtypes, layouts, storage), and a
#: module may import only modules of its own chapter or earlier ones, so that chapter N's
#: code reads (and runs) before chapter N+1 exists. A helper belongs to the chapter that
#: first needs it (``promotion``: ``cat``'s result dtype in chapter 2). ``reftensor`` itself
#: (``__init__``) gathers every chapter.
CHAPTERS = {
    "reftensor._ops": 0, "reftensor._bindings": 0, "reftensor._casting": 0,
    "reftensor._formatting": 0, "reftensor._kernels": 0, "reftensor.device": 0,
    "reftensor.dtype_info": 0, "reftensor.dtypes": 0, "reftensor.layout": 0,
    "reftensor.size": 0, "reftensor.storage": 0, "reftensor.pieces": 0,
    "reftensor.subclasses": 1,  # the constructors of chapter 9's subclasses, which Tensor holds
    "reftensor.type_promotion": 0, "reftensor.conversions": 0, "reftensor._C": 0,
    "reftensor.tensor": 1, "reftensor.factories": 1, "reftensor.iterator": 1,
    "reftensor.views": 2, "reftensor.indexing": 2, "reftensor.advanced_indexing": 2,
    "reftensor.gather_scatter": 2, "reftensor.masked": 2, "reftensor.sorted_search": 2,
    "reftensor.copies": 2, "reftensor.promotion": 2, "reftensor.out_arguments": 2,
    "reftensor.broadcasting": 3, "reftensor.functional": 3, "reftensor.elementwise": 3,
    "reftensor.arithmetic": 3, "reftensor.comparison": 3, "reftensor.unary": 3,
    "reftensor.matmul": 3, "reftensor.pointwise": 3,
    "reftensor.reductions": 4, "reftensor.scans": 4, "reftensor.sorting": 4,
    "reftensor.closeness": 4, "reftensor.histograms": 4, "reftensor.linalg": 4,
    "reftensor.cholesky": 4, "reftensor.qr": 4,
    "reftensor.eigh": 4, "reftensor.distance": 4,
    "reftensor.linalg_svd": 4,
    "reftensor.cuda": 4, "reftensor.backends": 4, "reftensor.accelerator": 4,
    "reftensor.autograd": 5,
    "reftensor.nn": 6, "reftensor.optim": 6, "reftensor.activation": 6,
    "reftensor.loss": 6, "reftensor.log_sigmoid": 6,  # --- losses (chapter 6)
    # --- layers (chapter 6)
    "reftensor.gelu": 6, "reftensor.lookup": 6, "reftensor.normalization": 6,
    "reftensor.moments": 6, "reftensor.trilinear": 6, "reftensor._layers": 6,
    "reftensor._gelu_cpu": 6,
    "reftensor.special_functions": 6,  # --- erfinv (chapter 6)
    "reftensor.utils": 7,
    "reftensor.utils._python_dispatch": 9, "reftensor.ops": 9,  # dispatch modes (chapter 9)
    "reftensor.library": 9,  # ops of your own, registered per dispatch key (chapter 9)
    "reftensor.testing": 9, "reftensor.fx": 9,  # the logging mode, make_fx (chapter 9)
    "reftensor.overrides": 9,  # __torch_function__ (chapter 9)
    "reftensor.random": 8,
    "reftensor.pooling": 10,  # --- pooling (chapter 10, the capstone)
    # --- the capstone (chapter 10, issue 45): padding, unfold/fold
    "reftensor.padding": 10, "reftensor.folding": 10,
    "reftensor.convolution": 10,  # --- convolution (chapter 10, the capstone)
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(package: Path | None = None,
             skip: frozenset[str] = frozenset()) -> dict[str, Path]:
    """The modules of ``package`` (reftensor by default) by dotted name, leaving out files
    under a folder named in ``skip``."""
    package = package or PACKAGE
    return {_module_name(p): p for p in sorted(package.rglob("*.py"))
            if not skip & set(p.relative_to(package).parts)}


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` starts from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(modules: dict[str, Path]) -> dict[str, list[tuple[str, bool]]]:
    """module -> [(imported reftensor module, whether the import is inside a function)]."""
    found: dict[str, list[tuple[str, bool]]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        inner = {id(n) for f in ast.walk(tree)
                 if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                 for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)}
        edges = []
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                while target and target not in modules:  # reftensor.x.y: the nearest module
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges.append((target, id(node) in inner))
        found[module] = edges
    return found


def _cycle_members(graph: dict[str, set[str]]) -> set[str]:
    """Modules in a strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    members: set[str] = set()
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                members.update(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return members


def _dynamic_imports(modules: dict[str, Path]) -> list[str]:
    found = []
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names]
                source = node.module if isinstance(node, ast.ImportFrom) else ""
                if "importlib" in names or (source or "").startswith("importlib"):
                    found.append(f"{module}: imports importlib")
            elif isinstance(node, ast.Name) and node.id == "__import__":
                found.append(f"{module}: calls __import__")
    return found


def rank(module: str, table: dict[str, int], what: str) -> int:
    """``table``'s number for ``module``: that of its longest prefix in the table (a module
    in none fails the test, naming ``what`` the table gives)."""
    matches = [p for p in table if module == p or module.startswith(p + ".")]
    assert matches, f"{module}: no {what} in the table"
    return table[max(matches, key=len)]


def chapter(module: str) -> int:
    """The chapter of a module (``CHAPTERS``); a module that is in none fails the test."""
    if module == "reftensor":
        return max(CHAPTERS.values()) + 1
    return rank(module, CHAPTERS, "chapter")


def later_chapter_imports(imports: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """Every import of a module of a later chapter than the importer's."""
    return [f"{m} (chapter {chapter(m)}) imports {t} (chapter {chapter(t)})"
            for m, edges in imports.items() for t, _ in edges if chapter(t) > chapter(m)]


def measure() -> dict[str, int]:
    modules = _modules()
    imports = _imports(modules)
    graph = {m: {t for t, _ in edges} for m, edges in imports.items()}
    return {
        "modules on an import cycle": len(_cycle_members(graph)),
        "imports inside functions": sum(inner for edges in imports.values()
                                        for _, inner in edges),
        "dynamic imports (importlib, __import__)": len(_dynamic_imports(modules)),
        "imports from a later chapter": len(later_chapter_imports(imports)),
    }


def test_no_cycle_no_inner_import_no_dynamic_import_and_chapters_in_order():
    modules = _modules()
    imports = _imports(modules)
    graph = {m: {t for t, _ in edges} for m, edges in imports.items()}
    assert not _cycle_members(graph), f"modules on an import cycle: {_cycle_members(graph)}"
    inner = [f"{m} imports {t}" for m, edges in imports.items() for t, i in edges if i]
    assert not inner, f"imports inside functions: {inner}"
    assert not _dynamic_imports(modules)
    assert not later_chapter_imports(imports)


def test_every_module_has_a_chapter():
    for module in _modules():
        chapter(module)


def test_the_measure_sees_a_later_chapter_import():
    """``reftensor.tensor`` (chapter 1) importing ``reftensor.random`` (chapter 8) counts."""
    found = later_chapter_imports({"reftensor.tensor": [("reftensor.random", False)],
                                   "reftensor.random": [("reftensor.tensor", False)]})
    assert found == ["reftensor.tensor (chapter 1) imports reftensor.random (chapter 8)"]


def test_the_measure_sees_a_cycle_and_an_inner_import(tmp_path, monkeypatch):
    """The counts can move: a package of two modules that import each other, one of them
    inside a function, counts 2 cycle members and 1 inner import (and the chapter-1 module
    importing the chapter-2 one, 1 later-chapter import)."""
    package = tmp_path / "reftensor"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from .a import x\n    return x\n")
    (package / "c.py").write_text("import importlib\n")
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "ROOT", tmp_path)
    monkeypatch.setattr(here, "PACKAGE", package)
    monkeypatch.setattr(here, "CHAPTERS", {"reftensor.a": 1, "reftensor.b": 2,
                                           "reftensor.c": 0})
    assert measure() == {"modules on an import cycle": 2, "imports inside functions": 1,
                         "dynamic imports (importlib, __import__)": 1,
                         "imports from a later chapter": 1}
