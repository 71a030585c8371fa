"""The student edition of reftensor: the reference with every graded piece's body stubbed.

In the reference (``reftensor/``) a graded piece is the tail of a function's body, between
two comments at the body's indentation::

    def contiguous_strides(shape):
        \"\"\"...\"\"\"
        # BEGIN PIECE contiguous_strides
        ...the reference body...
        # END PIECE

:func:`write_student_edition` copies the package and replaces each such body by a stub that
runs the student's registered answer (``reftensor.pieces.answer``), keeping the markers, so
that a diff of the two editions is exactly the graded bodies. Pieces of the chapters named
in ``published`` keep their reference bodies, behind a check that runs the student's own
answer first (the instructor publishes a chapter's pieces after its deadline).

Malformed markers raise :class:`MarkerError`: unbalanced or nested pairs, a name that
``reftensor.pieces.PIECES`` does not list, a piece listed there but marked nowhere or twice,
a marker outside a function body, or code after ``# END PIECE``.
"""

from __future__ import annotations

import ast
import hashlib
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "reftensor"
#: The committed list of published chapters (an input of the release command).
PUBLISHED = Path(__file__).resolve().parent / "published.txt"

__all__ = ["MarkerError", "Marked", "find_pieces", "stub_source", "student_source",
           "student_files", "write_student_edition", "catalogue", "published_chapters",
           "publish"]

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN PIECE (?P<name>\S+)[ \t]*$")
END = re.compile(r"^(?P<indent>[ \t]*)# END PIECE[ \t]*$")
_SKIP = {"__pycache__"}


class MarkerError(ValueError):
    """A ``# BEGIN PIECE`` / ``# END PIECE`` pair the generator cannot use."""


@dataclass(frozen=True)
class Marked:
    """One graded piece found in a module: its name and where its markers are."""

    name: str
    begin: int  # line index (0-based) of ``# BEGIN PIECE``
    end: int  # line index of ``# END PIECE``
    indent: str
    function: ast.FunctionDef | ast.AsyncFunctionDef


def catalogue() -> dict[str, tuple[str, int]]:
    """``reftensor.pieces.PIECES`` read from the reference's source (name -> (chapter,
    exercise)), without importing the package."""
    tree = ast.parse((REFERENCE / "pieces.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "PIECES":
            value = ast.literal_eval(ast.unparse(node.value).replace("Piece(", "("))
            return {name: tuple(where) for name, where in value.items()}
    raise MarkerError("reftensor/pieces.py defines no PIECES table")


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def find_pieces(source: str, where: str, known: Iterable[str]) -> list[Marked]:
    """The marked pieces of one module's ``source`` (``where`` names it in errors).

    Raises:
        MarkerError: see the module's docstring.
    """
    if "# BEGIN PIECE" not in source and "# END PIECE" not in source:
        return []  # no marker, well formed or not: nothing to parse
    known = set(known)
    lines = source.splitlines()
    tree = ast.parse(source)
    functions = _functions(tree)
    found: list[Marked] = []
    open_at: int | None = None
    name = indent = ""
    for i, line in enumerate(lines):
        begin, end = BEGIN.match(line), END.match(line)
        if line.lstrip().startswith(("# BEGIN PIECE", "# END PIECE")) and not (begin or end):
            raise MarkerError(f"{where}:{i + 1}: malformed marker: {line.strip()!r}")
        if begin:
            if open_at is not None:
                raise MarkerError(f"{where}:{i + 1}: BEGIN PIECE inside piece {name!r}")
            open_at, name, indent = i, begin["name"], begin["indent"]
            if name not in known:
                raise MarkerError(f"{where}:{i + 1}: {name!r} is not in reftensor.pieces.PIECES")
        elif end:
            if open_at is None:
                raise MarkerError(f"{where}:{i + 1}: END PIECE without BEGIN PIECE")
            if end["indent"] != indent:
                raise MarkerError(f"{where}:{i + 1}: END PIECE is not indented as its BEGIN")
            found.append(Marked(name, open_at, i, indent, _enclosing(functions, open_at, i,
                                                                      indent, where, name)))
            open_at = None
    if open_at is not None:
        raise MarkerError(f"{where}:{open_at + 1}: BEGIN PIECE {name!r} has no END PIECE")
    return found


def _enclosing(functions: list[ast.FunctionDef | ast.AsyncFunctionDef], begin: int, end: int,
               indent: str, where: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The function whose body the pair delimits: the piece must be the tail of its body,
    at its body's indentation, with at least one statement in it."""
    # ast line numbers are 1-based; begin and end are 0-based line indexes
    inside = [f for f in functions if f.lineno - 1 < begin and end < _last_line(f)]
    if not inside:
        raise MarkerError(f"{where}:{begin + 1}: piece {name!r} is not inside a function")
    function = max(inside, key=lambda f: f.lineno)
    if function.name != name:
        raise MarkerError(f"{where}:{begin + 1}: piece {name!r} is inside function "
                          f"{function.name!r}; a piece is named after its function")
    body = function.body
    if body[0].col_offset != len(indent.expandtabs()):
        raise MarkerError(f"{where}:{begin + 1}: the markers of {name!r} are not at the "
                          f"indentation of its function's body")
    inner = [s for s in body if begin < s.lineno - 1 < end]
    after = [s for s in body if s.lineno - 1 > end]
    if not inner:
        raise MarkerError(f"{where}:{begin + 1}: piece {name!r} holds no statement")
    if after:
        raise MarkerError(f"{where}:{after[0].lineno}: code after END PIECE of {name!r}; a "
                          f"piece is the end of its function's body")
    if any(s.lineno - 1 < begin < (s.end_lineno or s.lineno) - 1 for s in body):
        raise MarkerError(f"{where}:{begin + 1}: BEGIN PIECE of {name!r} splits a statement")
    return function


def _last_line(function: ast.AST) -> int:
    """0-based index of the line after the function's last line, as a bound for markers
    (a trailing ``# END PIECE`` comment is not part of the function's AST)."""
    return getattr(function, "end_lineno", 0) + 1


def _call(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The call that hands the function's own arguments on, as they were received."""
    a = function.args
    parts = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        parts.append(f"*{a.vararg.arg}")
    parts += [f"{p.arg}={p.arg}" for p in a.kwonlyargs]
    if a.kwarg:
        parts.append(f"**{a.kwarg.arg}")
    return ", ".join(parts)


def stub_source(marked: Marked) -> list[str]:
    """The student edition's body for a piece: it runs the student's registered answer."""
    i = marked.indent
    return [
        f"{i}from reftensor.pieces import answer  # the student edition: your answer runs here",
        "",
        f'{i}return answer("{marked.name}")({_call(marked.function)})',
    ]


def published_source(marked: Marked, body: list[str]) -> list[str]:
    """The student edition's body for a published piece: the student's own answer when
    there is one, else the reference ``body`` (its lines, as in the reference)."""
    i = marked.indent
    return [
        f"{i}from reftensor.pieces import own  # published: your own answer runs if you wrote one",
        "",
        f'{i}mine = own("{marked.name}")',
        f"{i}if mine is not None:",
        f"{i}    return mine({_call(marked.function)})",
        *body,
    ]


def student_source(source: str, where: str, known: dict[str, tuple[str, int]],
                   published: Iterable[str] = ()) -> tuple[str, list[Marked]]:
    """One module's student-edition source, and the pieces it stubbed."""
    published = set(published)
    pieces = find_pieces(source, where, known)
    lines = source.splitlines(keepends=True)
    stubbed = []
    for marked in reversed(pieces):
        body = lines[marked.begin + 1:marked.end]
        if known[marked.name][0] in published:
            new = published_source(marked, [line.rstrip("\n") for line in body])
        else:
            new = stub_source(marked)
            stubbed.append(marked)
        lines[marked.begin + 1:marked.end] = [line + "\n" for line in new]
    return "".join(lines), stubbed[::-1]


def published_chapters(path: Path | None = None) -> list[str]:
    """The chapters whose pieces the release publishes: the committed list in
    ``autograder/course/published.txt`` (one chapter folder per line; ``#`` starts a comment).

    Raises:
        ValueError: a line that names no chapter of ``reftensor.pieces.PIECES``.
    """
    text = (path or PUBLISHED).read_text() if (path or PUBLISHED).exists() else ""
    chapters = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    chapters = [c for c in chapters if c]
    known = {chapter for chapter, _ in catalogue().values()}
    unknown = [c for c in chapters if c not in known]
    if unknown:
        raise ValueError(f"{path or PUBLISHED}: no graded pieces in {', '.join(unknown)}; "
                         f"chapters with pieces: {', '.join(sorted(known))}")
    return chapters


def publish(chapter: str, path: Path | None = None) -> bool:
    """Add ``chapter`` to the published list; False if it was there already.

    Raises:
        ValueError: ``chapter`` has no graded pieces.
    """
    target = path or PUBLISHED
    if chapter not in {c for c, _ in catalogue().values()}:
        raise ValueError(f"{chapter} has no graded pieces")
    if chapter in published_chapters(target):
        return False
    text = target.read_text() if target.exists() else ""
    target.write_text(text + ("" if not text or text.endswith("\n") else "\n") + chapter + "\n")
    return True


def student_files(published: Iterable[str] = (),
                  reference: Path = REFERENCE) -> tuple[dict[str, bytes], list[str]]:
    """The student edition of ``reference``: its files by path (``reftensor/...``), and the
    names of the stubbed pieces.

    The edition is a function of the files' bytes and ``published``, so a process keeps the
    last few it made (by a hash of those) and hands out copies: a grading run asks for it in
    every ``prepare``, and making it parses every module that marks a piece.

    Raises:
        MarkerError: malformed markers, or a piece of ``PIECES`` marked nowhere or twice.
    """
    published = list(published)
    read: list[tuple[str, bytes]] = []
    for path in sorted(reference.rglob("*")):
        rel = path.relative_to(reference)
        if _SKIP & set(rel.parts) or path.is_symlink() or not path.is_file():
            continue
        read.append((f"reftensor/{rel}", path.read_bytes()))
    known = catalogue()
    digest = hashlib.sha256(f"{sorted(known.items())!r}\1{published!r}\1".encode())
    for name, data in read:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    key = digest.hexdigest()
    if key not in _EDITIONS:
        if len(_EDITIONS) >= 4:
            _EDITIONS.pop(next(iter(_EDITIONS)))
        _EDITIONS[key] = _student_files(read, published, known)
    files, stubbed = _EDITIONS[key]
    return dict(files), list(stubbed)


#: editions this process made, by the hash of their files and published chapters (oldest
#: first)
_EDITIONS: dict[str, tuple[dict[str, bytes], list[str]]] = {}


def _student_files(read: list[tuple[str, bytes]], published: list[str],
                   known: dict[str, tuple[str, int]]) -> tuple[dict[str, bytes], list[str]]:
    seen: dict[str, str] = {}
    stubbed: list[str] = []
    files: dict[str, bytes] = {}
    for name, data in read:
        if not name.endswith(".py"):
            files[name] = data
            continue
        source = data.decode()
        text, done = student_source(source, name, known, published)
        for marked in find_pieces(source, name, known):
            if marked.name in seen:
                raise MarkerError(f"piece {marked.name!r} is marked twice: in "
                                  f"{seen[marked.name]} and {name}")
            seen[marked.name] = name
        stubbed += [m.name for m in done]
        files[name] = text.encode()
    missing = sorted(set(known) - set(seen))
    if missing:
        raise MarkerError(f"pieces listed in reftensor.pieces.PIECES but marked nowhere: "
                          f"{', '.join(missing)}")
    return files, stubbed


def write_student_edition(out: Path, *, published: Iterable[str] = (),
                          reference: Path = REFERENCE) -> list[str]:
    """Write the student edition of ``reference`` to ``out/reftensor``, replacing what was
    there; returns the names of the stubbed pieces.

    Raises:
        MarkerError: see :func:`student_files` (nothing is written then).
    """
    files, stubbed = student_files(published, reference)
    staging = out / ".reftensor.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    for name, data in files.items():
        dest = staging / Path(name).relative_to("reftensor")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    target = out / "reftensor"
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return stubbed
