"""Helpers shared by the notebook tests: run a notebook, and read its nbgrader cells."""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import Any

import nbclient
import nbformat

from autograder import checks
from autograder.course import exercises, references
from autograder.grading import class_run

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p.name for p in (REPO / "solutions").iterdir()
                  if (p / f"{p.name}.ipynb").is_file())
SOLUTION_BLOCK = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)
HIDDEN_BLOCK = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)


def source(chapter: str) -> Path:
    return REPO / "solutions" / chapter / f"{chapter}.ipynb"


def released(chapter: str) -> Path:
    return REPO / "course" / chapter / f"{chapter}.ipynb"


def execute(path: Path, *, allow_errors: bool,
            env: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """Run a copy of the notebook in a fresh kernel, in the notebook's folder; ``env`` adds
    to the kernel's environment (``PYTHONPATH`` naming a student edition, for example)."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     allow_errors=allow_errors,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(**({"env": {**os.environ, **env}} if env else {}))
    return nb


def nbgrader_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


SOLUTION_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\n", re.M)


def answer_sources(chapter: str) -> dict[str, str]:
    """grade_id -> the solution notebook's answer cell, as a student would write it."""
    nb = nbformat.read(source(chapter), as_version=4)
    return {nbgrader_meta(c)["grade_id"]: SOLUTION_MARKERS.sub("", c.source)
            for c in nb.cells if nbgrader_meta(c).get("solution")}


def register_every_answer() -> None:
    """Run the answer cells of every piece in the solution notebooks, as a student who answered
    them all: each registers its function with the ``reftensor.pieces`` imported here (one
    namespace per notebook: an answer may call an earlier one of its notebook)."""
    from reftensor import pieces

    for chapter in sorted({p.chapter for p in pieces.PIECES.values()}):
        namespace: dict[str, object] = {"pieces": pieces}
        for name, text in answer_sources(chapter).items():
            if name in pieces.PIECES:
                exec(text, namespace)  # noqa: S102 - the instructor's answer cell


def code_lines(text: str) -> int:
    """Lines of code in an answer cell: lines holding a token that is not a comment, blank
    lines and docstrings left out (a ``def`` line and a decorator count)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            docstrings.update(range(body[0].lineno, (body[0].end_lineno or 0) + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


class JudgePieces:
    """``pieces`` as an answer cell sees it where it is judged alone (as in
    ``autograder.sandbox.judge``): ``@pieces.register`` returns the function and registers
    nothing."""

    @staticmethod
    def register(fn: object) -> object:
        return fn


def answer_namespace() -> dict[str, object]:
    """A fresh namespace to run answer cells in, as the grader's judge does."""
    return {"pieces": JudgePieces()}


def write_submission(chapter: str, folder: Path, replace: dict[str, str]) -> None:
    """The release notebook with the solution's answers (and ``replace``'s) filled in,
    written to ``folder/<chapter>.ipynb`` as a student would hand it in."""
    answers = {**answer_sources(chapter), **replace}
    nb = nbformat.read(released(chapter), as_version=4)
    for cell in nb.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if nbgrader_meta(cell).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{chapter}.ipynb")


def is_test_cell(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and not meta.get("solution") and cell.cell_type == "code"


def secret_lines(chapter: str, *, solutions: bool = True) -> list[str]:
    """Every line of hidden tests (and solutions) long enough to be recognised elsewhere."""
    nb = nbformat.read(source(chapter), as_version=4)
    lines = []
    for cell in nb.cells:
        blocks = HIDDEN_BLOCK.findall(cell.source)
        if solutions:
            blocks += SOLUTION_BLOCK.findall(cell.source)
        for block in blocks:
            lines += [line.strip() for line in block.splitlines() if len(line.strip()) > 20]
    return lines


def readable_text(path: Path) -> str:
    """A file's text as a reader sees it: HTML without tags (code highlighting splits code
    into many spans), entities decoded; any other file as it is."""
    import html

    text = path.read_text(errors="replace")
    if path.suffix == ".html":
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return text


@functools.cache
def hidden_pairs(name: str, seed: int | None = None) -> list[tuple[object, object]]:
    """(case, what torch gives) for an exercise's hidden cases, computed once per exercise
    and seed."""
    cases = checks.cases(name, hidden=True, seed=seed)
    return list(zip(cases, references.compute(exercises.get(name), cases), strict=True))


def assert_solution_passes(name: str, answer: object, printed: str, seed: int,
                           minimum: int) -> None:
    """A solution passes its visible check (``printed`` is what that check printed) and at
    least ``minimum`` hidden cases drawn from ``seed``."""
    assert "agree with torch 2.13.0" in printed
    verdict = checks.check_pairs(name, answer, hidden_pairs(name, seed))
    assert verdict.passed and verdict.total >= minimum


def assert_mistake_fails(name: str, answer: object, passes_visible: bool) -> None:
    """A typical mistake fails the hidden cases with a smallest failing case, and passes or
    fails the visible check as stated."""
    import pytest

    verdict = checks.judge(name, answer, hidden_pairs(name))
    assert not verdict.passed
    assert "Smallest failing case" in verdict.message()
    if passes_visible:
        checks.check(name, answer)
    else:
        with pytest.raises(checks.CheckFailed):
            checks.check(name, answer)


def assert_grading_full_points_and_one_loss(tmp_path: Path, chapter: str, name: str,
                                            mistake: object, points: int,
                                            more: dict[str, object] | None = None) -> Any:
    """The trusted pipeline on a fresh seed: the solution gets all ``points`` automatic
    points; ``mistake`` (a function, or an answer cell's source) written as exercise
    ``name`` loses that exercise only, and so does each of ``more``'s (exercise -> mistake),
    each handed in by a student of its own. Returns the first mistaken submission's outcome."""
    import inspect

    def cell(exercise: str, wrong: object) -> str:
        return (wrong if isinstance(wrong, str)
                else inspect.getsource(wrong).replace(wrong.__name__, exercise, 1))

    mistakes = {name: mistake, **(more or {})}
    inbox = tmp_path / "inbox"
    write_submission(chapter, inbox / "right" / chapter, {})
    students = {}
    for number, (exercise, wrong) in enumerate(mistakes.items()):
        student = "wrong" if number == 0 else f"wrong{number}"
        students[student] = exercise
        write_submission(chapter, inbox / student / chapter, {exercise: cell(exercise, wrong)})
    outcomes = class_run.grade_class(tmp_path / "ws", inbox, chapter, workers=2, progress=False)
    by = {o.student: o for o in outcomes}
    right = by["right"]
    assert right.max_total == points and right.total == points, (right.scores, right.reasons)
    assert right.state == "graded", right.reasons
    assert right.written_answered
    assert right.notebook_scores == right.scores, (right.notebook_scores, right.scores,
                                                   right.reasons, right.notes)
    for student, exercise in students.items():
        wrong = by[student]
        assert wrong.scores[f"test_{exercise}_hidden"] == 0 and wrong.total < points, (
            exercise, wrong.scores)
        others = {t: p for t, p in wrong.scores.items() if not t.startswith(f"test_{exercise}_")}
        assert others == {t: right.max_scores[t] for t in others}, exercise
        assert wrong.state == "graded", wrong.reasons
    return by["wrong"]


#: What a student-edition program (:func:`assert_the_edition_runs_the_pieces`) does after
#: defining ``program()``: run it with the instructor's answers registered, then with each
#: wrong answer in turn in place of its piece.
EDITION_TRAILER = """
with pieces.trace() as used:
    right = program()
seen = {"right": right, "used": sorted(used)}
for wrong, name in WRONG:
    keep = pieces.answer(name)
    wrong.__name__ = name
    pieces.register(wrong)
    try:
        seen[name] = program()
    except Exception as err:  # noqa: BLE001 - a wrong piece may make the program raise
        seen[name] = f"{type(err).__name__}: {err}"
    pieces.register(keep)
print(json.dumps(seen))
"""


def run_on_student_edition(folder: Path, code: str, *,
                           published: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Write the student edition (``published``'s chapters published) into ``folder`` and run
    ``code`` in a fresh interpreter that imports it (``-P``: never the working directory;
    this repository after the edition on the path, for the grader and these tests)."""
    from autograder.course import edition

    edition.write_student_edition(folder, published=list(published))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(folder), str(REPO)))}
    return subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)


def assert_the_edition_runs_the_pieces(folder: Path, program: str,
                                       wrong: dict[str, Any]) -> dict[str, Any]:
    """An ordinary program on the student edition runs the student's pieces ``wrong`` names
    (piece -> a wrong answer, a function of a test module): ``program`` (source that defines
    ``program()``, returning plain data) gives, with the instructor's answers to every
    piece, what it gives on the reference, runs each of those pieces, and gives something
    else (or raises) with any one wrong answer in place. Returns what it gave (``"right"``,
    ``"used"``, and one entry per piece)."""
    imports = "".join(f"from {fn.__module__} import {fn.__name__}\n" for fn in wrong.values())
    table = ", ".join(f"({fn.__name__}, {name!r})" for name, fn in wrong.items())
    head = ("import json\n\nimport reftensor\nfrom reftensor import pieces\n"
            f"from tests.notebooks import register_every_answer\n{imports}\n"
            f"WRONG = [{table}]\n")
    check = f"assert reftensor.__file__.startswith({str(folder / 'reftensor')!r})\n"
    body = f"register_every_answer()\n{program}\n"
    done = run_on_student_edition(folder, head + check + body + EDITION_TRAILER)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    reference = subprocess.run(
        [sys.executable, "-P", "-c", head + body + "print(json.dumps(program()))"],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert reference.returncode == 0, reference.stderr[-3000:]
    assert seen["right"] == json.loads(reference.stdout.strip().splitlines()[-1])
    assert set(wrong) <= set(seen["used"]), seen["used"]
    unchanged = [name for name in wrong if seen[name] == seen["right"]]
    assert unchanged == []
    return seen
