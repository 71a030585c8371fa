"""The student edition of reftensor (``autograder/course/edition.py``, ``reftensor/pieces.py``).

What is proven here:

* the exercise specs and the checks import nothing from reftensor (a sandbox's reftensor is
  the student's, stubs and wrong pieces included);
* every piece of ``reftensor.pieces.PIECES`` is marked once in the reference, and is the
  exercise of that number and name in its chapter's notebook;
* no graded piece's reference body reaches the student edition, and the two editions differ in
  nothing but the graded bodies;
* the student edition imports with every piece a stub, and a missing piece's error names its
  exercise, chapter and notebook;
* with the instructor's answers registered, the student edition passes the reference's own
  chapter 1 and 2 tests; with a wrong answer registered, its results change.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import io
import os
import re
import subprocess
import sys
import textwrap
import tokenize
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from autograder.course import edition
from autograder.grading import class_run
from autograder.sandbox import bwrap as sandbox
from autograder.sandbox import runtime
from reftensor import layout, pieces
from tests.notebooks import (
    REPO,
    answer_sources,
    code_lines,
    nbgrader_meta,
    source,
    write_submission,
)
from tests.tiers import pick

PYTHON = sys.executable


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A student edition written by the generator: ``<folder>/reftensor``."""
    out = tmp_path_factory.mktemp("edition")
    edition.write_student_edition(out)
    return out


def _run(code: str, path: list[Path],
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -P -c code`` with ``path`` as its PYTHONPATH (``-P``: no cwd on sys.path)."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(str(p) for p in path)}
    return subprocess.run([PYTHON, "-P", "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=600)


# ------------------------------------------------------------------ the grader's side
def test_exercise_specs_and_checks_import_no_reftensor():
    done = _run("""
        import sys
        import autograder.checks, autograder.sandbox.judge, autograder.course.plain
        from autograder.course import exercises
        from autograder.course.exercises import (ch01_storage, ch02_views, ch03_broadcasting,
                                          ch04_dtype_device, ch05_autograd, ch06_modules,
                                          ch07_data, ch08_rng, ch09_dispatch,
                                          ch10_capstone)
        exercises.get("contiguous_strides")
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("reftensor", "torch")))
    """, [REPO])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# ------------------------------------------------------------------ the catalogue
def _marked() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "reftensor").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        for marked in edition.find_pieces(path.read_text(), rel, pieces.PIECES):
            found.setdefault(marked.name, []).append(rel)
    return found


def test_every_reference_piece_passes_its_exercise():
    """The reference's body of each piece is a right answer to its exercise (visible and
    hidden cases, against torch)."""
    from autograder import checks

    for name, path in ((n, w[0]) for n, w in _marked().items()):
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        checks.check(name, getattr(module, name), hidden=True)


def test_every_piece_is_marked_once_and_is_its_notebooks_exercise():
    marked = _marked()
    assert {name: len(where) for name, where in marked.items()} == dict.fromkeys(pieces.PIECES, 1)
    assert edition.catalogue() == {n: tuple(p) for n, p in pieces.PIECES.items()}
    for name, where in pieces.PIECES.items():
        nb = nbformat.read(source(where.chapter), as_version=4)
        headings = {m[1]: int(m[0]) for c in nb.cells if c.cell_type == "markdown"
                    for m in re.findall(r"^### Exercise (\d+): `(\w+)`", c.source, re.M)}
        assert headings.get(name) == where.exercise, (name, headings)
        assert any(nbgrader_meta(c).get("grade_id") == name and nbgrader_meta(c).get("solution")
                   for c in nb.cells), name


@pytest.mark.parametrize("text, problem", [
    ("def f():\n    # BEGIN PIECE f\n    return 1\n", "no END PIECE"),
    ("def f():\n    return 1\n    # END PIECE\n", "without BEGIN"),
    ("def g():\n    # BEGIN PIECE f\n    return 1\n    # END PIECE\n", "inside function 'g'"),
    ("def f():\n    # BEGIN PIECE nobody\n    return 1\n    # END PIECE\n", "not in"),
    ("# BEGIN PIECE f\nx = 1\n# END PIECE\n", "not inside a function"),
    ("def f():\n    # BEGIN PIECE f\n    x = 1\n    # END PIECE\n    return x\n", "code after"),
    ("def f():\n    # BEGIN PIECE f\n    # END PIECE\n    return 1\n", "holds no statement"),
    ("def f():\n    # BEGIN PIECE f\n    # BEGIN PIECE f\n    return 1\n    # END PIECE\n",
     "inside piece"),
    ("def f():\n    # BEGIN PIECE  f\n    return 1\n    # END PIECE\n", "malformed"),
    ("def f():\n    if True:\n        # BEGIN PIECE f\n        return 1\n        # END PIECE\n",
     "indentation"),
])
def test_malformed_markers_are_refused(text: str, problem: str):
    with pytest.raises(edition.MarkerError, match=problem):
        edition.find_pieces(text, "example.py", {"f"})


def test_a_stub_hands_every_kind_of_argument_on():
    text = ("def f(a, /, b, *rest, c, d=1, **more):\n"
            "    # BEGIN PIECE f\n    return a\n    # END PIECE\n")
    out, stubbed = edition.student_source(text, "example.py", {"f": ("ch01_storage", 1)})
    assert [m.name for m in stubbed] == ["f"]
    assert 'return answer("f")(a, b, *rest, c=c, d=d, **more)' in out
    kept, none = edition.student_source(text, "example.py", {"f": ("ch01_storage", 1)},
                                        published=["ch01_storage"])
    assert none == []
    assert kept.splitlines()[-4:] == [
        "    if mine is not None:", "        return mine(a, b, *rest, c=c, d=d, **more)",
        "    return a", "    # END PIECE"]
    namespace: dict = {}
    exec(kept, namespace)
    assert namespace["f"](5, 6, c=7) == 5  # the reference body: no answer of its own


# ------------------------------------------------------------------ the two editions
def _statement_runs(tree: ast.AST) -> list[list[str]]:
    """Every statement list of a module (bodies, else-branches...), each statement dumped."""
    runs = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                runs.append([ast.dump(s) for s in value])
    return runs


def _contains(run: list[str], part: list[str]) -> bool:
    return any(run[i:i + len(part)] == part for i in range(len(run) - len(part) + 1))


def test_no_graded_body_reaches_the_student_edition(student: Path):
    reference = REPO / "reftensor"
    for path in sorted(reference.rglob("*.py")):
        text = path.read_text()
        found = edition.find_pieces(text, str(path), pieces.PIECES)
        if not found:
            continue
        theirs = ast.parse((student / "reftensor" / path.relative_to(reference)).read_text())
        runs = _statement_runs(theirs)
        ours = [f for f in ast.walk(ast.parse(text)) if isinstance(f, ast.FunctionDef)
                and not any(m.begin < f.lineno - 1 < m.end for m in found)]  # (not in a piece)
        stubs = [f for f in ast.walk(theirs) if isinstance(f, ast.FunctionDef)]
        assert [f.name for f in ours] == [f.name for f in stubs]
        for marked in found:
            body = [ast.dump(s) for s in marked.function.body
                    if marked.begin < s.lineno - 1 < marked.end]
            assert not any(_contains(run, body) for run in runs), marked.name
            stub = stubs[next(i for i, f in enumerate(ours) if f.lineno == marked.function.lineno)]
            assert ast.unparse(stub.body[-1]).startswith(f"return answer('{marked.name}')(")


#: Near-copies: a function of the student edition whose body is this similar to a graded body
#: (difflib's ratio of their token lists), or holds this share of it in runs of 4 tokens or
#: more, hands the answer out. Graded bodies shorter than ``NEAR_COPY_MIN_TOKENS`` are left
#: out: ``storage_index`` and ``temper`` are one-line formulas their chapter's text states
#: in full, and any function with a sum or a shift resembles them.
NEAR_COPY_RATIO = 0.5
NEAR_COPY_SHARE = 0.5
NEAR_COPY_RUN = 4
NEAR_COPY_MIN_TOKENS = 30


def _tokens(statements: list[ast.stmt]) -> list[str]:
    """The tokens of statements as ``ast.unparse`` writes them (a leading docstring, comments
    and layout left out), so that formatting hides nothing."""
    if (statements and isinstance(statements[0], ast.Expr)
            and isinstance(statements[0].value, ast.Constant)
            and isinstance(statements[0].value.value, str)):
        statements = statements[1:]
    text = "\n".join(ast.unparse(s) for s in statements)
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in skip]


def _near_copy(body: list[str], graded: list[str],
               counted: Counter[str] | None = None) -> tuple[float, float]:
    """(ratio, share): how similar ``body`` is to ``graded``, and how much of ``graded`` it
    holds in runs of ``NEAR_COPY_RUN`` tokens or more (both 0 when even the tokens they share,
    in any order, are too few)."""
    common = sum(((counted or Counter(body)) & Counter(graded)).values())  # bounds both
    if 2 * common / (len(body) + len(graded)) < NEAR_COPY_RATIO and (
            common / len(graded) < NEAR_COPY_SHARE):
        return 0.0, 0.0
    match = difflib.SequenceMatcher(None, body, graded, autojunk=False)
    share = sum(b.size for b in match.get_matching_blocks() if b.size >= NEAR_COPY_RUN)
    return match.ratio(), share / len(graded)


def _graded_bodies() -> dict[str, list[str]]:
    bodies = {}
    for path in sorted((REPO / "reftensor").rglob("*.py")):
        text = path.read_text()
        for marked in edition.find_pieces(text, str(path), pieces.PIECES):
            lines = textwrap.dedent("\n".join(text.splitlines()[marked.begin + 1:marked.end]))
            bodies[marked.name] = _tokens(ast.parse(lines).body)
    return bodies


def test_the_near_copy_measure_finds_a_copy_with_other_names():
    graded = _graded_bodies()["is_contiguous"]
    source = inspect.getsource(layout.is_contiguous).split("# BEGIN PIECE is_contiguous")[1]
    renamed = textwrap.dedent(source.replace("expected", "want").replace("size", "n"))
    assert max(_near_copy(_tokens(ast.parse(renamed).body), graded)) >= NEAR_COPY_RATIO
    other = _tokens(ast.parse(textwrap.dedent(inspect.getsource(layout.innermost_first))).body)
    assert max(_near_copy(other, graded)) < NEAR_COPY_RATIO


def test_no_function_of_the_student_edition_is_a_near_copy_of_a_graded_body(student: Path):
    graded = {name: body for name, body in _graded_bodies().items()
              if len(body) >= NEAR_COPY_MIN_TOKENS}
    found = []
    for path in sorted((student / "reftensor").rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = _tokens(function.body)
            counted = Counter(body)
            for name, graded_body in graded.items():
                ratio, share = _near_copy(body, graded_body, counted)
                if ratio >= NEAR_COPY_RATIO or share >= NEAR_COPY_SHARE:
                    found.append(f"{path.relative_to(student)}:{function.lineno} "
                                 f"{function.name} ~ {name} ({ratio:.2f}, {share:.2f})")
    assert not found, found


def test_readme_states_how_many_lines_a_student_writes():
    """Issue 40's first figure: the lines of code (``code_lines``) of the instructor's answers
    to every piece, which is what a student who answers them all writes for reftensor."""
    total = sum(code_lines(text) for chapter in sorted({p.chapter for p in pieces.PIECES.values()})
                for name, text in answer_sources(chapter).items() if name in pieces.PIECES)
    text = " ".join((REPO / "README.md").read_text().split())
    found = re.search(r"writes ([\d,]+) lines of code that reftensor runs", text)
    assert found, "README states no figure"
    assert int(found[1].replace(",", "")) == total, total
    # and the part of it in chapters 1-5 and 8 (the goal: at least 1,000)
    chapters = sorted({p.chapter for p in pieces.PIECES.values()})
    early = sum(code_lines(answer) for chapter in chapters
                if chapter[:4] in ("ch01", "ch02", "ch03", "ch04", "ch05", "ch08")
                for name, answer in answer_sources(chapter).items() if name in pieces.PIECES)
    found = re.search(r"docstrings\), ([\d,]+) of them in chapters 1-5 and 8", text)
    assert found, "README states no figure for chapters 1-5 and 8"
    assert int(found[1].replace(",", "")) == early >= 1000, early


def _blank_pieces(text: str, where: str) -> str:
    lines = text.splitlines()
    for marked in reversed(edition.find_pieces(text, where, pieces.PIECES)):
        lines[marked.begin + 1:marked.end] = ["<graded body>"]
    return "\n".join(lines)


def test_the_editions_differ_only_in_graded_bodies(student: Path):
    reference = REPO / "reftensor"

    def files(root: Path) -> set[Path]:
        return {p.relative_to(root) for p in root.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}

    assert files(reference) == files(student / "reftensor")
    changed = []
    for rel in sorted(files(reference)):
        ours, theirs = (reference / rel).read_bytes(), (student / "reftensor" / rel).read_bytes()
        if ours != theirs:
            changed.append(str(rel))
            assert rel.suffix == ".py"
            assert (_blank_pieces(ours.decode(), str(rel))
                    == _blank_pieces(theirs.decode(), str(rel)))
    assert changed == sorted({str(Path(w[0]).relative_to("reftensor"))
                              for w in _marked().values()})


# ------------------------------------------------------------------ running it
def test_the_student_edition_runs_with_every_piece_a_stub(student: Path):
    done = _run("""
        import reftensor
        from reftensor import layout, pieces
        print(reftensor.__file__)
        for call in (lambda: layout.contiguous_strides((2, 3)), lambda: reftensor.empty(2, 3),
                     lambda: layout.storage_index((1,), (1,), 0)):
            try:
                call()
            except NotImplementedError as err:
                print(err)
        print(reftensor.dtypes.float32, reftensor.device("meta"))
    """, [student, REPO])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(student / "reftensor" / "__init__.py")
    assert lines[1].startswith("contiguous_strides is a piece you write: exercise 1 of "
                               "chapter 1 (ch01_storage/ch01_storage.ipynb)")
    assert lines[2] == lines[1]
    assert lines[3].startswith("storage_index is a piece you write: exercise 2 of chapter 1")
    assert lines[4] == "reftensor.float32 meta"


def test_in_the_reference_registering_changes_nothing():
    @pieces.register
    def contiguous_strides(shape):
        return (7,) * len(shape)

    try:
        import reftensor

        with pieces.trace() as used:
            assert reftensor.empty(2, 3).stride() == (3, 1)
        assert used == set()
    finally:
        pieces.unregister("contiguous_strides")
    with pytest.raises(KeyError, match="not a graded piece"):
        pieces.register(lambda: None)


PLUGIN = '''
import numpy as np
import reftensor
import reftensor.utils.data
from reftensor import pieces
from tests.notebooks import register_every_answer

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
register_every_answer()
assert set(pieces.registered()) == set(pieces.PIECES)
{wrong}
'''

WRONG = '''
@pieces.register
def contiguous_strides(shape):  # the mistake chapter 1 warns about: no max(size, 1)
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return tuple(reversed(strides))
'''


@pytest.mark.parametrize("wrong", [False, True], ids=["instructor", "wrong-piece"])
def test_the_student_edition_with_answers_runs_the_reference_tests(student: Path, tmp_path: Path,
                                                                   wrong: bool):
    (tmp_path / "edition_answers.py").write_text(
        PLUGIN.format(edition=str(student / "reftensor"), wrong=WRONG if wrong else ""))
    # the derandomized profile: the same examples on both editions, every run
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (student, tmp_path, REPO))),
           "HYPOTHESIS_PROFILE": "ci"}
    tests = ["-x", "tests/test_ch01_tensor.py"] if wrong else [
        "tests/test_ch01_tensor.py", "tests/test_ch02_views.py"]
    done = subprocess.run(
        [PYTHON, "-P", "-m", "pytest", "-q", "-p", "edition_answers", "-p", "no:cacheprovider",
         *tests],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    summary = (done.stdout.strip().splitlines() or [done.stderr[-2000:]])[-1]
    if wrong:
        assert done.returncode == 1 and " failed" in summary, summary
    else:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert " passed" in summary and "failed" not in summary


#: the op table's tests the fast tier runs on the student edition: the elementwise ops the
#: element loop drives, reductions that the reduction loops drive, broadcasting's expand, and
#: view (the full tier runs them all)
OP_TABLE_ON_THE_EDITION = pick(
    "add or sub or mul or div or neg or maximum or where or expand or view or tolist or sum or "
    "prod or amax or argmax", "")


def test_the_student_edition_with_only_the_answers_passes_the_op_table(student: Path,
                                                                       tmp_path: Path):
    """Issue 40's second figure (README): the student edition with the instructor's answers to
    every piece, and no chapter published, passes ``tests/test_op_table.py``: every op, on
    every layout and dtype its entry draws, against torch (small tensors run the student's
    element loop)."""
    (tmp_path / "edition_answers.py").write_text(
        PLUGIN.format(edition=str(student / "reftensor"), wrong=""))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (student, tmp_path, REPO))),
           "HYPOTHESIS_PROFILE": "ci"}
    chosen = ["-k", OP_TABLE_ON_THE_EDITION] if OP_TABLE_ON_THE_EDITION else []
    done = subprocess.run(
        [PYTHON, "-P", "-m", "pytest", "-q", "-p", "edition_answers", "-p", "no:cacheprovider",
         "-p", "no:xdist", "tests/test_op_table.py", *chosen],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", done.stdout) and " failed" not in done.stdout


#: piece -> (a library call that runs it, a wrong answer made from the right one); the call's
#: result is compared before and after the wrong answer is registered
WRONG_PIECES = {
    "contiguous_strides": ("reftensor.empty(2, 3).stride()",
                           "lambda right: lambda shape: (7,) * len(shape)"),
    "internal_overlap": ("(lambda grid: grid.add_(1).tolist())(reftensor.zeros(3).expand(2, 3))",
                         "lambda right: lambda shape, stride: 'no'"),
    "overlap_status": ("(lambda x: (x[1:].copy_(x[:-1]), x.tolist())[1])(reftensor.arange(4.0))",
                       "lambda right: lambda a, b: 'no'"),
    "view_dtype_layout": ("(lambda y: (y.storage_offset(), y.tolist()))(reftensor.arange(3.0)[1:]"
                          ".view(reftensor.int16))",
                          "lambda right: lambda shape, stride, offset, *rest: right("
                          "shape, stride, offset - 1, *rest)"),
    "squeeze_layout": ("(lambda y: (y.stride(), y.tolist()))(reftensor.arange(6.0).view(2, 3)"
                       ".unsqueeze(0))",
                       "lambda right: lambda op, shape, stride, dim: (lambda r: (r[0], (1,) * "
                       "len(r[1])))(right(op, shape, stride, dim))"),
    "index_positions": ("reftensor.arange(24).view(2, 3, 4)[[0, 1], :, [1, 3]].tolist()",
                        "lambda right: lambda shape, stride, offset, indices: (lambda r: ("
                        "r[0], r[1][::-1]))(right(shape, stride, offset, indices))"),
    "broadcast_shapes": ("(reftensor.ones(3, 1) + reftensor.ones(4)).shape",
                         "lambda right: lambda *shapes: max(shapes, key=len)"),
    "expand_strides": ("reftensor.arange(3).view(3, 1).expand(3, 4).stride()",
                       "lambda right: lambda shape, stride, new: (tuple(new), (0,) * len(new))"),
    "strided_loop": ("(reftensor.arange(6.0).view(2, 3).t() * reftensor.tensor([10.0, 20.0]))"
                     ".tolist()",
                     "lambda right: lambda fn, out, *ins: right(fn, out, *[(x[0], x[1], "
                     "tuple(x[2])[::-1], x[3]) for x in ins])"),
    "reduce_loop": ("reftensor.arange(6).view(2, 3)[1:].sum().item()",
                    "lambda right: lambda step, start, out, x, dims, keep: right("
                    "step, start, out, (x[0], x[1], x[2], 0), dims, keep)"),
    "sum_to_dims": ("reftensor.arange(24.0).view(2, 3, 4).sum_to_size(1, 4).tolist()",
                    "lambda right: lambda shape, size: tuple(range(len(shape) - len(size)))"),
    "broadcast_error": ("reftensor.ones(5, 2, 3) + reftensor.ones(4, 1, 3)",
                        "lambda right: lambda a, b: (0, 1, 1)"),
    "promote_types": ("reftensor.cat([reftensor.ones(2, dtype=reftensor.int8), "
                      "reftensor.ones(2, dtype=reftensor.int16)]).dtype",
                      "lambda right: lambda a, b: 'float64'"),
    "result_dtype": ("(reftensor.ones(2, dtype=reftensor.int8) + 2.5).dtype",
                     "lambda right: lambda a, op, b: 'float64'"),
    "to_result": ("reftensor.empty_strided((3, 4), (1, 6)).to(reftensor.float64).stride()",
                  "lambda right: lambda dtype, shape, stride, call: (False, (4, 1))"),
    "arg_reduce_loop": ("reftensor.tensor([[1, 3, 3], [2, 2, 0]]).argmax(1).tolist()",
                        "lambda right: lambda beats, v, i, x, dim, keep: right("
                        "lambda a, b: beats(a, b) or a == b, v, i, x, dim, keep)"),
    "backward_pass": ("(lambda a: ((a * a).backward(), a.grad.item())[1])("
                      "reftensor.tensor(3.0, requires_grad=True))",
                      "lambda right: lambda root, grads, keep_graph, calls: right("
                      "root, [None if g is None else g * 2 for g in grads], keep_graph, calls)"),
    "binary_backward": ("(lambda x, y: [g.tolist() for g in reftensor.autograd.grad("
                        "(x / y).sum(), (x, y))])(reftensor.tensor([1.0, 2.0], "
                        "dtype=reftensor.float64, requires_grad=True), reftensor.tensor("
                        "[3.0, 0.3], dtype=reftensor.float64, requires_grad=True))",
                        "lambda right: lambda op, x, y, grad: right(op, y, x, grad)"),
    "clamp_backward": ("(lambda x: (reftensor.clamp(x, 0.0, 0.0).sum().backward(), "
                       "x.grad.tolist())[1])(reftensor.tensor([-1.0, 0.0, 1.0], "
                       "dtype=reftensor.float64, requires_grad=True))",
                       "lambda right: lambda x, lo, hi, grad: (list(grad), lo, hi)"),
    "reduction_backward": ("(lambda x: reftensor.autograd.grad(x.mean(1), x, reftensor.ones("
                           "2, dtype=reftensor.float64))[0].tolist())(reftensor.ones(2, 3, "
                           "dtype=reftensor.float64, requires_grad=True))",
                           "lambda right: lambda grad, sizes, dims, keepdim, mean: right("
                           "grad, sizes, dims, keepdim, False)"),
    "call_hooks": ("(lambda x: (lambda y: (y.register_hook(lambda g: g * 10), y.sum().backward(), "
                   "x.grad.tolist())[2])(x * 2))(reftensor.tensor([1.0, 2.0], requires_grad=True))",
                   "lambda right: lambda hooks, grads, outputs=None: "
                   "list(grads if outputs is None else outputs)"),
    "validate_outputs": ("(lambda x: ((x * reftensor.tensor([1.0, 2.0, 3.0])).sum().backward(), "
                         "x.grad.tolist())[1])(reftensor.tensor([[1.0], [2.0]], "
                         "requires_grad=True))",
                         "lambda right: lambda name, i, grad, shape, dtype, device: right("
                         "name, i, grad * 2, shape, dtype, device)"),
    "unary_backward": ("(lambda x: reftensor.autograd.grad(x.relu().sum(), x)[0].tolist())("
                       "reftensor.tensor([-1.0, 0.0, 2.0], dtype=reftensor.float64, "
                       "requires_grad=True))",
                       "lambda right: lambda op, grad, saved: right('neg', grad, None)"),
    "accumulate_grad": ("(lambda w: ((w * 2).sum().backward(), w.grad.stride())[1])("
                        "reftensor.empty_strided((2, 3), (1, 2), dtype=reftensor.float64)"
                        ".requires_grad_())",
                        "lambda right: lambda shape, stride, grad, new: "
                        "right(shape, (3, 1), grad, new)"),
    "saved_tensor_error": ("(lambda a: (lambda c: (c.mul_(2), c.sum().backward()))((a * 2)"
                           ".exp()))(reftensor.tensor([1.0, 2.0], requires_grad=True))",
                           "lambda right: lambda saved, now, *rest: right(now, saved, *rest)"),
    "route_assignment": ("(lambda m: (setattr(m, 'w', reftensor.zeros(2)), "
                         "sorted(m._parameters))[1])(reftensor.nn.Module())",
                         "lambda right: lambda name, kind, *rest: ('_parameters', ()) if kind == "
                         "'tensor' else right(name, kind, *rest)"),
    "walk_modules": ("(lambda m: [n for n, _ in m.named_modules()])(reftensor.nn.Sequential("
                     "reftensor.nn.ReLU(), reftensor.nn.Sequential(reftensor.nn.Identity())))",
                     "lambda right: lambda *args: list(right(*args))[::-1]"),
    "incompatible_keys": ("reftensor.nn.Sequential(reftensor.nn.ReLU()).load_state_dict("
                          "{'0.weight': reftensor.zeros(2)}, strict=False)",
                          "lambda right: lambda prefix, own, children, keys: ([], [])"),
    "kaiming_bound": ("(reftensor.manual_seed(0), reftensor.nn.init.kaiming_uniform_("
                      "reftensor.empty(2, 3, 2), a=5 ** 0.5).tolist())[1]",
                      "lambda right: lambda shape, *rest: right(shape[:2], *rest)"),
    "sgd_update": ("(lambda p: (setattr(p, 'grad', reftensor.tensor([0.5, 0.25])), "
                   "reftensor.optim.SGD([p], lr=0.1, momentum=0.9).step(), p.tolist())[2])("
                   "reftensor.nn.Parameter(reftensor.tensor([1.0, -2.0])))",
                   "lambda right: lambda param, grad, *rest: right(param, grad * 2, *rest)"),
    "adam_update": ("(lambda p: (setattr(p, 'grad', reftensor.tensor([0.5, 0.25])), "
                    "reftensor.optim.AdamW([p], lr=0.1, amsgrad=True).step(), p.tolist())[2])("
                    "reftensor.nn.Parameter(reftensor.tensor([1.0, -2.0])))",
                    "lambda right: lambda param, grad, m, v, vmax, step, lr, b1, b2, *rest: "
                    "right(param, grad, m, v, vmax, step, lr, b2, b1, *rest)"),
    "call_impl": ("(lambda m: (m.register_forward_hook(lambda mod, args, out: out * 2), "
                  "m.register_forward_hook(lambda mod, args, out: out + 1), "
                  "m(reftensor.ones(2)).tolist())[2])(reftensor.nn.Identity())",
                  "lambda right: lambda module, *rest: right(__import__('types')"
                  ".SimpleNamespace(**{**vars(module), '_forward_hooks': dict(reversed("
                  "module._forward_hooks.items()))}), *rest)"),  # the module's hooks reversed
    "random_indices": ("(lambda g: [list(reftensor.utils.data.RandomSampler(range(4), "
                       "generator=g)) for _ in range(2)])(reftensor.Generator().manual_seed(0))",
                       "lambda right: lambda n, k, *rest: right(n, k - 1, *rest) if k > 1 "
                       "else right(n, k, *rest)"),
    "batch_indices": ("list(reftensor.utils.data.DataLoader(range(5), batch_size=2, "
                      "drop_last=True, collate_fn=list))",
                      "lambda right: lambda keys, size, drop_last: right(keys, size, False)"),
    "collate": ("reftensor.utils.data.default_collate([(1, 'a'), (2, 'b')])",
                "lambda right: lambda batch, *, collate_fn_map=None: tuple(right(batch, "
                "collate_fn_map=collate_fn_map))"),
    "worker_seeds": ("(lambda: (reftensor.utils.data.worker._seed_everything(5, 1), "
                     "reftensor.initial_seed(), np.random.randint(1000)))()",
                     "lambda right: lambda base, worker: (base, right(base, worker)[1])"),
    "next_in_order": ("[b.tolist() for b in reftensor.utils.data.DataLoader(range(6), "
                      "batch_size=2, num_workers=1)]",
                      "lambda right: lambda it: None if it._rcvd_idx >= 1 else right(it)"),
    "cast_value": ("reftensor.tensor([0.1, 70000.0]).to(reftensor.bfloat16).tolist()",
                   "lambda right: lambda x, dtype: right(x, 'float16')"),
    "twist": ("reftensor.randint(0, 2**20, (8,), generator=reftensor.Generator()"
              ".manual_seed(0)).tolist()",  # the first draw twists: 8 draws, the Python path
              "lambda right: lambda words: right(words)[::-1]"),
    "next_draws": ("reftensor.randint(0, 2**20, (8,), generator=reftensor.Generator()"
                   ".manual_seed(0)).tolist()",  # 8 draws: the student edition's loop
                   "lambda right: lambda words, left, position, n, twist, temper: right("
                   "words, left, position, n, twist, lambda y: temper(y ^ 1))"),
    "normal_from_draws": ("reftensor.randn(3, dtype=reftensor.float64, generator="
                          "reftensor.Generator().manual_seed(0)).tolist()",
                          "lambda right: lambda n, contiguous, draw, cached: (lambda r: ("
                          "[-v for v in r[0]], r[1]))(right(n, contiguous, draw, cached))"),
    "multinomial_from_draws": ("reftensor.multinomial(reftensor.tensor([1.0, 2.0, 3.0]), 3, "
                               "generator=reftensor.Generator().manual_seed(0)).tolist()",
                               "lambda right: lambda *args: [row[::-1] for row in "
                               "right(*args)]"),
    "bernoulli_from_draws": ("reftensor.zeros(6).bernoulli_(0.5, generator=reftensor"
                             ".Generator().manual_seed(0)).tolist()",
                             "lambda right: lambda values, probs, dtype, draw: (right("
                             "values, probs, dtype, draw), values.reverse())[0]"),
    "state_bytes": ("reftensor.Generator().manual_seed(3).get_state()[:24].tolist()",
                    "lambda right: lambda seed, words, left, position, d, f: "
                    "right(seed, words, left, position + 1, d, f)"),
    "matmul_plan": ("(lambda x: (x @ reftensor.ones(4, 5, requires_grad=True)).grad_fn"
                    ".next_functions[0][0].name())(reftensor.ones(2, 4, 3).mT)",
                    "lambda right: lambda a, sa, b, sb, grad, out: right(a, sa, b, sb, "
                    "(False, False), out)"),
    "matmul_shape": ("((reftensor.ones(2, 4, 3) @ reftensor.ones(3)).shape, "
                     "(reftensor.empty(2, 1, 4, 3, device='meta') @ "
                     "reftensor.empty(5, 3, 2, device='meta')).shape)",
                     "lambda right: lambda a, b: right(a, b)[::-1]"),
}

SWAP = """
import json


def outcome(expression):
    try:
        return repr(eval(expression))
    except Exception as err:  # noqa: BLE001 - a wrong piece may make the call raise
        return f"{type(err).__name__}: {err}"


seen = {}
for name, (expression, make_wrong) in json.loads(ROWS_JSON).items():
    right = pieces.answer(name)
    before = outcome(expression)
    wrong = eval(make_wrong)(right)
    wrong.__name__ = name
    pieces.register(wrong)
    with pieces.trace() as used:
        after = outcome(expression)
    pieces.register(right)
    seen[name] = (before, after, name in used, outcome(expression))
print(json.dumps(seen))
"""


def test_a_wrong_piece_changes_what_the_library_gives(student: Path, tmp_path: Path):
    """Decision 7: the library uses what a piece returns, on every path to its job. With the
    instructor's answers registered, registering a wrong answer changes the call's result
    (or makes it raise), and registering the right one again restores it."""
    import json

    program = PLUGIN.format(edition=str(student / "reftensor"),
                            wrong=SWAP.replace("ROWS_JSON", repr(json.dumps(WRONG_PIECES))))
    done = _run(program, [student, REPO])
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(seen) == set(WRONG_PIECES)
    for name, (before, after, ran, restored) in seen.items():
        assert ran, name
        assert before != after and restored == before, (name, before, after)
        assert not before.startswith(("NotImplementedError", "AttributeError")), (name, before)


def test_a_new_kernel_reads_the_pieces_from_the_students_saved_notebook(student: Path,
                                                                         tmp_path: Path):
    answered, untouched = tmp_path / "answered", tmp_path / "untouched"
    write_submission("ch01_storage", answered / "ch01_storage", {})
    write_submission("ch01_storage", untouched / "ch01_storage", {
        "contiguous_strides": "def contiguous_strides(shape):\n    # YOUR CODE HERE\n"
                              "    raise NotImplementedError()"})
    program = """
        import reftensor
        from reftensor import pieces
        try:
            with pieces.trace() as used:
                print(reftensor.empty(2, 0, 3).stride(), sorted(used))
        except NotImplementedError as err:
            print(err)
    """
    for folder, expected in [
            (answered, "(3, 3, 1) ['contiguous_strides']"),
            (untouched, "contiguous_strides is a piece you write: exercise 1 of chapter 1 "
                        f"(ch01_storage/ch01_storage.ipynb); its answer cell in "
                        f"{untouched}/ch01_storage/ch01_storage.ipynb is not written yet."),
            (tmp_path / "nowhere", "contiguous_strides is a piece you write")]:
        done = _run(program, [student, REPO], env={"REFTENSOR_NOTEBOOKS": str(folder)})
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().startswith(expected)


def test_a_saved_answer_may_call_an_earlier_answer_of_its_notebook(student: Path,
                                                                   tmp_path: Path):
    """Chapter 4's result_dtype calls the student's promote_types (exercise 1), as it may in
    the notebook: read from the saved notebook, it runs after the answer cells above it."""
    for chapter in ("ch01_storage", "ch02_views", "ch03_broadcasting", "ch04_dtype_device"):
        write_submission(chapter, tmp_path / chapter, {})
    done = _run("""
        import reftensor
        from reftensor import pieces
        with pieces.trace() as used:
            print((reftensor.ones(2, dtype=reftensor.int8) + 2.5).dtype, sorted(used))
    """, [student, REPO], env={"REFTENSOR_NOTEBOOKS": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("reftensor.float32 [")
    assert "'result_dtype'" in done.stdout


def test_registering_the_released_placeholder_registers_nothing(tmp_path: Path, monkeypatch):
    (tmp_path / "released_cell.py").write_text(
        "from reftensor import pieces\n\n\n@pieces.register\ndef contiguous_strides(shape):\n"
        "    # YOUR CODE HERE\n    raise NotImplementedError()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    pieces.register(_answer("contiguous_strides"))
    assert "contiguous_strides" in pieces.registered()
    import released_cell  # noqa: F401 (registers, as running the released cell does)

    assert "contiguous_strides" not in pieces.registered()


def test_a_placeholder_made_by_exec_registers_nothing(monkeypatch):
    """A released cell run from text (no source file to read) is still the placeholder:
    only a body that does something else counts as an answer."""
    monkeypatch.setattr(pieces, "_answers", {})
    namespace: dict = {"pieces": pieces}
    for body in ("    raise NotImplementedError()",
                 "    \"\"\"doc\"\"\"\n    raise NotImplementedError",
                 "    # YOUR CODE HERE\n    raise NotImplementedError()"):
        exec(f"@pieces.register\ndef contiguous_strides(shape):\n{body}\n", namespace)
        assert pieces.registered() == {}, body
    exec("@pieces.register\ndef contiguous_strides(shape):\n    if not shape:\n"
         "        raise NotImplementedError()\n    return (1,)\n", namespace)
    assert list(pieces.registered()) == ["contiguous_strides"]


def test_reading_a_saved_notebook_never_changes_what_the_kernel_registered(
        tmp_path: Path, monkeypatch):
    """Reading ``is_contiguous`` from the saved notebook runs the answer cells above it. Their
    ``@pieces.register`` lines register nothing: the answer registered in this kernel since
    stays (the saved one does not replace it), and a saved cell still as released does not
    forget one."""
    monkeypatch.setattr(pieces, "_answers", {})
    monkeypatch.setattr(pieces, "_misses", {})
    monkeypatch.setenv(pieces.NOTEBOOKS_ENV, str(tmp_path))
    write_submission("ch01_storage", tmp_path / "ch01_storage", {
        "contiguous_strides": "@pieces.register\ndef contiguous_strides(shape):\n"
                              "    # YOUR CODE HERE\n    raise NotImplementedError()"})
    live = {name: _answer(name) for name in ("contiguous_strides", "storage_index")}
    for fn in live.values():
        pieces.register(fn)
    saved = pieces.answer("is_contiguous")  # read from the notebook
    assert saved((2, 3), (3, 1)) is True
    assert pieces.registered() == {**live, "is_contiguous": saved}


def test_a_published_piece_runs_its_reference_body_behind_a_released_cell(tmp_path: Path):
    """Chapters 1-3 published, their notebooks as released: chapter 4's demos run (the
    published bodies fill the pieces; a released cell is no answer), and a chapter-4 piece
    still unanswered says which exercise to do."""
    edition.write_student_edition(tmp_path, published=["ch01_storage", "ch02_views",
                                                       "ch03_broadcasting"])
    done = _run("""
        import reftensor
        from reftensor import pieces
        with pieces.trace() as used:
            print(reftensor.ones(2, 3).tolist(), tuple(reftensor.empty(2, 3).stride()),
                  sorted(used))
        try:
            reftensor.ones(2, dtype=reftensor.int8) + 2.5
        except NotImplementedError as err:
            print(err)
    """, [tmp_path, REPO], env={pieces.NOTEBOOKS_ENV: str(REPO / "course")})
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()
    assert first == "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]] (3, 1) []", first
    assert second.startswith(("result_dtype is a piece you write: exercise 2 of chapter 4",
                              "promote_types is a piece you write: exercise 1 of chapter 4")), \
        second


def _answer(name: str):
    namespace: dict = {"pieces": pieces}
    exec(answer_sources("ch01_storage")[name], namespace)
    return namespace[name]


# ------------------------------------------------------------------ the release and grading
def test_the_release_holds_the_student_edition():
    """``course/reftensor`` is the student edition (with autograder/course/published.txt's
    chapters published), as the release command writes it; test_notebooks checks that it
    equals a fresh release byte for byte."""
    files, stubbed = edition.student_files(edition.published_chapters())
    course = REPO / "course"
    on_disk = {str(p.relative_to(course)): p.read_bytes() for p in (course / "reftensor").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert on_disk == files
    published = set(edition.published_chapters())
    assert sorted(stubbed) == sorted(n for n, p in pieces.PIECES.items()
                                     if p.chapter not in published)


def test_publishing_a_chapter_keeps_its_reference_bodies_behind_the_students_own(
        tmp_path: Path, student: Path):
    listed = tmp_path / "published.txt"
    listed.write_text("# none yet\n")
    assert edition.published_chapters(listed) == []
    assert edition.publish("ch01_storage", listed) and not edition.publish("ch01_storage", listed)
    assert edition.published_chapters(listed) == ["ch01_storage"]
    with pytest.raises(ValueError, match="no graded pieces"):
        edition.publish("ch99_none", listed)
    out = tmp_path / "published"
    assert sorted(edition.write_student_edition(out, published=["ch01_storage"])) == sorted(
        n for n, p in pieces.PIECES.items() if p.chapter != "ch01_storage")
    done = _run("""
        import reftensor
        from reftensor import pieces
        with pieces.trace() as used:
            print(reftensor.empty(2, 0, 3).stride(), sorted(used))

        @pieces.register
        def contiguous_strides(shape):
            return (5,) * len(shape)

        with pieces.trace() as used:
            print(reftensor.empty(2, 3).stride(), sorted(used))
    """, [out, REPO], env={"REFTENSOR_NOTEBOOKS": str(tmp_path / "nowhere")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(3, 3, 1) []", "(5, 5) ['contiguous_strides']"]


def test_make_lab_opens_the_course_on_the_student_edition():
    """The kernels that ``make lab`` starts (in a chapter's folder) import the student
    edition; ``make lab EDITION=reference`` imports the repository's reftensor."""
    found = {}
    for edition_name in ("student", "reference"):
        recipe = subprocess.run(["make", "-n", "-s", "lab", f"EDITION={edition_name}"],
                                cwd=REPO, capture_output=True, text=True, check=True).stdout
        line = next(x for x in recipe.splitlines() if "jupyter lab --allow-root" in x)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        match = re.search(r"PYTHONPATH=(\S+)", line)
        if match:
            env["PYTHONPATH"] = match[1]
        done = subprocess.run([PYTHON, "-c", "import reftensor; print(reftensor.__file__)"],
                              cwd=REPO / "course" / "ch01_storage", env=env,
                              capture_output=True, text=True, check=True)
        found[edition_name] = done.stdout.strip()
    assert found == {"student": str(REPO / "course" / "reftensor" / "__init__.py"),
                     "reference": str(REPO / "reftensor" / "__init__.py")}


def test_every_sandbox_runs_the_student_edition():

    files = runtime.runtime_files()
    ours = {k: v for k, v in files.items() if k.startswith("reftensor/")}
    assert ours == edition.student_files(edition.published_chapters())[0]


def test_no_sandbox_holds_a_sample_class():
    """The sample classes of ``make demo`` hold right answers (chapter 1's, the capstone's):
    none of their files is in the runtime every sandbox (and the hub's student package)
    gets."""
    files = runtime.runtime_files()
    samples = [p for p in (REPO / "autograder" / "classroom").iterdir()
               if p.is_dir() and p.name.startswith("sample_")]
    assert {p.name for p in samples} >= {"sample_class", "sample_capstone"}
    assert not [k for k in files if k.startswith("autograder/classroom/sample_")]


@pytest.mark.skipif(not sandbox.status().available, reason="no grading sandbox here")
def test_importing_or_pasting_the_installed_edition_gains_nothing(tmp_path: Path):
    """An answer that imports the piece from the installed student edition, or pastes its
    stub, gets no points for it; the other exercises are graded as usual."""

    inbox = tmp_path / "inbox"
    write_submission("ch01_storage", inbox / "copier" / "ch01_storage", {
        "contiguous_strides": "from reftensor.layout import contiguous_strides",
        "storage_index": "def storage_index(index, stride, storage_offset):\n"
                         "    from reftensor.pieces import answer\n\n"
                         "    return answer(\"storage_index\")(index, stride, storage_offset)",
    })
    [outcome] = class_run.grade_class(tmp_path / "ws", inbox, "ch01_storage", workers=2,
                                  progress=False)
    for name in ("contiguous_strides", "storage_index"):
        assert outcome.scores[f"test_{name}_visible"] == 0, outcome.reasons
        assert outcome.scores[f"test_{name}_hidden"] == 0
    for name in ("is_contiguous", "unfold_layout", "channels_last_strides"):
        assert outcome.scores[f"test_{name}_hidden"] == outcome.max_scores[f"test_{name}_hidden"]
