"""Rebuild a submitted notebook from the release, so that grading never trusts the student's JSON.

What is taken from a submission
    Only the *source text* of the answer cells: the cells that the release marks as answers
    (nbgrader ``solution: true``), i.e. the function stubs under ``# YOUR CODE HERE`` and the
    written answer under "YOUR ANSWER HERE". Each answer is found by its nbgrader ``grade_id``
    and cell type; a code answer whose cell metadata was changed or lost is found instead by the
    function it defines (``def storage_index(...)``), and this is noted.

What is never taken from a submission
    Everything else: test cells (visible and hidden), locked cells, the text and demos around
    the exercises, nbgrader metadata (grade ids, points, grade/solution/locked flags,
    checksums), cell ids, notebook metadata (kernel), outputs and execution counts, attachments,
    and any cell the student added. The rebuilt notebook is a copy of the release in which only
    the answer sources are replaced; its outputs are cleared. Editing a test cell, re-locking a
    cell, raising its points or injecting a cell (``import builtins; ...``) therefore changes
    nothing in the grade.

Nothing in a submission is executed here: it is read as bytes, decoded as UTF-8, parsed as JSON
and inspected. A file that cannot be read that way (a link, a directory, too large, not UTF-8,
not JSON, not a notebook) is *quarantined*: it is graded as the plain release, with every answer
unanswered, and the reason is reported. Anything odd but readable (duplicated or re-typed answer
cells, answers too long or containing NUL characters) is graded as far as it safely can be and
listed under ``review`` for a person to look at.

``archive`` keeps the original bytes, read-only, under their SHA-256, so the instructor can always
see exactly what was handed in.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import nbformat

__all__ = ["Rebuilt", "rebuild", "archive", "find_submission", "python_source"]

CHUNK = 1 << 20
LISTED = 5  # cell numbers listed in one note before "and N more"
FLAGS = ("solution", "grade", "locked", "points")
PARSE_LIMIT = 1_000_000  # longer sources are searched with TOP_LEVEL_DEF only
TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)


@dataclass
class Rebuilt:
    """The notebook to grade, and what the instructor should know about how it was made."""

    notebook: nbformat.NotebookNode | None  # None only if the release itself is unreadable
    answers: dict[str, str] = field(default_factory=dict)  # grade_id -> source used
    answered: set[str] = field(default_factory=set)  # grade_ids answered by the student
    notes: list[str] = field(default_factory=list)  # informational
    review: list[str] = field(default_factory=list)  # reasons a person should look
    quarantine: str | None = None  # why the submission could not be read at all
    sha256: str = ""  # of the submitted bytes ("" if no file)


@dataclass
class _Answer:
    """An answer cell of the release."""

    grade_id: str
    cell_type: str
    stub: str
    function: str | None  # the function a code stub defines, for finding renamed cells
    flags: dict[str, Any]  # the release's solution/grade/locked/points
    cell: nbformat.NotebookNode  # the cell in the rebuilt notebook


@dataclass
class _Cell:
    """What is read from one cell of a submission; nothing else of it is ever used."""

    number: int  # 1-based position in the submission
    cell_type: str | None
    grade_id: str | None
    solution: bool
    source: str
    has_attachments: bool
    nbgrader: dict[str, Any]

    @cached_property
    def functions(self) -> list[str]:
        return _functions(self.source) if self.cell_type == "code" else []


# ---------------------------------------------------------------------------------------------
# Reading the submission


def _read_bytes(path: Path, max_bytes: int) -> tuple[bytes | None, str, str | None]:
    """(content, sha256, quarantine reason). Never follows a link or opens a special file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, "", f"no file: {path.name}"
    except OSError as err:
        return None, "", f"cannot read the file: {err.strerror}"
    if stat.S_ISLNK(info.st_mode):
        return None, "", "not a regular file: a symbolic link"
    if stat.S_ISDIR(info.st_mode):
        return None, "", "not a regular file: a directory"
    if not stat.S_ISREG(info.st_mode):
        return None, "", "not a regular file"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        return None, "", f"cannot read the file: {err.strerror}"
    digest = hashlib.sha256()
    kept = bytearray()
    total = 0
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # replaced since the lstat
            return None, "", "not a regular file"
        while chunk := file.read(CHUNK):
            digest.update(chunk)
            total += len(chunk)
            if total <= max_bytes:
                kept += chunk
    if total > max_bytes:
        return None, digest.hexdigest(), f"file too large: {total} bytes"
    return bytes(kept), digest.hexdigest(), None


def _parse(content: bytes, notes: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """(notebook JSON, quarantine reason)."""
    if not content.strip():
        return None, "empty file"
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, f"not valid UTF-8 (byte {err.start})"
    if text.startswith("\ufeff"):
        text = text[1:]
        notes.append("the file starts with a byte order mark; it was ignored")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        return None, f"not JSON: {err.msg} (line {err.lineno}, column {err.colno})"
    except RecursionError:
        return None, "not JSON that can be read: nested too deeply"
    except (ValueError, MemoryError) as err:
        return None, f"not JSON that can be read: {type(err).__name__}"
    if not isinstance(data, dict):
        return None, f"not a notebook: the JSON is a {type(data).__name__}, not an object"
    if not isinstance(data.get("cells"), list):
        return None, "not a notebook: no list of cells"
    return data, None


def _source(value: Any) -> str | None:
    """A cell's source as one string with \\n line endings, or None if it is not text."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        value = "".join(value)
    if not isinstance(value, str):
        return None
    return value.replace("\r\n", "\n").replace("\r", "\n")


def _cells(data: dict[str, Any], notes: list[str]) -> list[_Cell]:
    """The submission's cells, keeping only what may be used; odd cells are noted, never fatal."""
    version = data.get("nbformat")
    if version != 4:
        notes.append(f"the file says nbformat {_short(version)} (expected 4); read anyway")
    not_objects: list[int] = []
    not_text: list[int] = []
    schemas: set[str] = set()
    cells = []
    for number, raw in enumerate(data["cells"], start=1):
        if not isinstance(raw, dict):
            not_objects.append(number)
            continue
        metadata = raw.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        nbgrader = metadata.get("nbgrader")
        nbgrader = nbgrader if isinstance(nbgrader, dict) else {}
        if "schema_version" in nbgrader and nbgrader["schema_version"] != 3:
            schemas.add(_short(nbgrader["schema_version"]))
        source = _source(raw.get("source"))
        if source is None:
            not_text.append(number)
            continue
        cell_type = raw.get("cell_type")
        grade_id = nbgrader.get("grade_id")
        cells.append(_Cell(
            number=number,
            cell_type=cell_type if isinstance(cell_type, str) else None,
            grade_id=grade_id if isinstance(grade_id, str) else None,
            solution=nbgrader.get("solution") is True,
            source=source,
            has_attachments=bool(raw.get("attachments")),
            nbgrader=nbgrader,
        ))
    if not_objects:
        notes.append(f"ignored {_numbers(not_objects)}: not a JSON object")
    if not_text:
        notes.append(f"ignored {_numbers(not_text)}: the source is not text")
    if schemas:
        notes.append(f"nbgrader schema_version {', '.join(sorted(schemas))} in the submission "
                     "(the release uses 3); only grade ids and cell types were read")
    return cells


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _numbers(numbers: list[int]) -> str:
    """'cell 3' / 'cells 3, 4, 5, 6, 7 and 2 more', for notes."""
    if len(numbers) == 1:
        return f"cell {numbers[0]}"
    listed = ", ".join(str(n) for n in numbers[:LISTED])
    more = f" and {len(numbers) - LISTED} more" if len(numbers) > LISTED else ""
    return f"cells {listed}{more}"


# ---------------------------------------------------------------------------------------------
# The release


def _read_release(release: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(str(release), as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return notebook


def _release_answers(notebook: nbformat.NotebookNode) -> dict[str, _Answer]:
    answers: dict[str, _Answer] = {}
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if meta.get("solution") and isinstance(grade_id, str) and grade_id not in answers:
            function = None
            if cell.cell_type == "code":
                function = next(iter(_functions(cell.source)), None)
            flags = {key: meta[key] for key in FLAGS if key in meta}
            answers[grade_id] = _Answer(grade_id, cell.cell_type, cell.source, function, flags,
                                        cell)
    return answers


def python_source(source: str) -> str:
    """An answer cell as Python: the cell itself when it parses, otherwise what IPython's own
    input transformer makes of it (``%%time``, ``!ls``, ``%load_ext`` ...), as in the
    student's notebook. Only text is transformed; nothing runs."""
    try:
        ast.parse(source)
        return source
    except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError
        pass
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - an untransformable cell stays as it is
        return source


def _functions(source: str) -> list[str]:
    """Names of the functions a code cell defines at top level, in order. Parsed, never run.
    A cell with IPython syntax is read as IPython turns it into Python; a function defined in
    a cell magic's body (``%%time``) is found by its ``def`` line."""
    if len(source) <= PARSE_LIMIT:
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
        python = python_source(source)
        try:
            tree = ast.parse(python)
        except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError
            pass
        else:
            names = [node.name for node in tree.body if isinstance(node, kinds)]
            if python == source:
                return names
            return list(dict.fromkeys(names + TOP_LEVEL_DEF.findall(source)))
    return TOP_LEVEL_DEF.findall(source)


# ---------------------------------------------------------------------------------------------
# Matching answers


def _problem(source: str, max_cell_chars: int) -> str | None:
    """Why a source cannot be graded, or None."""
    if "\x00" in source:
        return "contains NUL characters"
    if len(source) > max_cell_chars:
        return f"is too long ({len(source)} characters; the limit is {max_cell_chars})"
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return "contains characters that are not valid Unicode"
    return None


def _match(answers: dict[str, _Answer], cells: list[_Cell], result: Rebuilt) -> dict[str, _Cell]:
    """The submission cell used for each answer found; notes and review reasons on the way."""
    found: dict[str, _Cell] = {}
    used: set[int] = set()
    duplicated: set[str] = set()
    # (1) by grade_id and cell type
    for cell in cells:
        answer = answers.get(cell.grade_id or "")
        if answer is None:
            continue
        if cell.cell_type != answer.cell_type:
            result.review.append(
                f"answer cell {answer.grade_id} was changed from {answer.cell_type} to "
                f"{cell.cell_type} (cell {cell.number}); it was not graded")
        elif answer.grade_id in found:
            if answer.grade_id not in duplicated:
                duplicated.add(answer.grade_id)
                result.review.append(
                    f"duplicate answer cell {answer.grade_id}: the first copy was graded")
        else:
            found[answer.grade_id] = cell
            used.add(cell.number)
            changed = [key for key in FLAGS
                       if key in cell.nbgrader and cell.nbgrader[key] != answer.flags.get(key)]
            if changed:
                result.notes.append(f"answer {answer.grade_id}: changed nbgrader metadata "
                                    f"({', '.join(changed)}) ignored")
    claimed = {cell.number for cell in cells if cell.grade_id in answers}
    # (2) code answers by the function they define
    for answer in answers.values():
        if answer.grade_id in found or answer.function is None:
            continue
        for cell in cells:
            if cell.cell_type != "code" or cell.number in used:
                continue
            if cell.number in claimed:
                continue
            if answer.function in cell.functions:
                found[answer.grade_id] = cell
                used.add(cell.number)
                result.notes.append(f"answer {answer.grade_id} found by its function name "
                                    "(its cell metadata was changed)")
                break
    # (3) not found
    for answer in answers.values():
        if answer.grade_id not in found:
            result.notes.append(f"answer {answer.grade_id} not found in the submission: "
                                "graded as unanswered")
    _note_ignored(answers, cells, used | claimed, result)
    return found


def _note_ignored(answers: dict[str, _Answer], cells: list[_Cell], used: set[int],
                  result: Rebuilt) -> None:
    """Note the ignored cells that a student may have meant as an answer."""
    functions = {answer.function: answer.grade_id for answer in answers.values()
                 if answer.function}
    unknown: list[_Cell] = []
    defining: dict[str, list[int]] = {}
    for cell in cells:
        if cell.number in used:
            continue
        if cell.solution:
            unknown.append(cell)
        elif "def" in cell.source:
            for name in set(cell.functions) & functions.keys():
                defining.setdefault(name, []).append(cell.number)
    if len(unknown) == 1:
        result.notes.append(
            f"cell {unknown[0].number} is marked as an answer (grade_id "
            f"{_short(unknown[0].grade_id)}) but the release has no such answer; ignored")
    elif unknown:
        ids = sorted({_short(cell.grade_id) for cell in unknown})
        listed = ", ".join(ids[:LISTED]) + (", ..." if len(ids) > LISTED else "")
        result.notes.append(
            f"{_numbers([cell.number for cell in unknown])} are marked as answers (grade_id "
            f"{listed}) but the release has no such answers; ignored")
    for name, numbers in sorted(defining.items()):
        verb = "defines" if len(numbers) == 1 else "define"
        result.notes.append(f"{_numbers(numbers)} also {verb} {name}(); only answer cell "
                            f"{functions[name]} was graded")


def _note_edited(notebook: nbformat.NotebookNode, answers: dict[str, _Answer],
                 cells: list[_Cell], notes: list[str]) -> None:
    """Note the test cells (any graded cell that is not an answer) the submission changed."""
    release: dict[str, str] = {}
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if isinstance(grade_id, str) and grade_id not in answers:
            release.setdefault(grade_id, cell.source)
    edited: list[str] = []
    for cell in cells:
        original = release.get(cell.grade_id or "")
        if original is None or cell.grade_id in edited:
            continue
        if cell.source.strip() != original.strip():
            edited.append(cell.grade_id or "")
    if edited:
        notes.append(f"edited in the submission, taken from the release: {', '.join(edited)}")


# ---------------------------------------------------------------------------------------------
# Public API


def rebuild(submitted: Path | None, release: Path, *, max_bytes: int = 5_000_000,
            max_cell_chars: int = 200_000) -> Rebuilt:
    """The release notebook with the student's answer sources, and notes on how it was made."""
    try:
        notebook = _read_release(release)
    except Exception as err:  # the instructor's file: report, never crash the batch
        return Rebuilt(notebook=None, review=[f"release notebook unreadable: {err}"])
    answers = _release_answers(notebook)
    result = Rebuilt(notebook=notebook, answers={a.grade_id: a.stub for a in answers.values()})

    if submitted is None:
        result.quarantine = "no file submitted"
        return result
    content, result.sha256, result.quarantine = _read_bytes(Path(submitted), max_bytes)
    if content is None:
        return result
    notes: list[str] = []
    data, result.quarantine = _parse(content, notes)
    if data is None:
        return result
    result.notes.extend(notes)

    cells = _cells(data, result.notes)
    found = _match(answers, cells, result)
    _note_edited(notebook, answers, cells, result.notes)
    for grade_id, cell in found.items():
        source = cell.source
        problem = _problem(source, max_cell_chars)
        if problem:
            result.review.append(f"answer {grade_id} {problem}; graded as unanswered")
            continue
        if cell.has_attachments:
            result.notes.append(f"answer {grade_id} had attachments (pasted images); "
                                "they were not kept")
        answers[grade_id].cell.source = source
        result.answers[grade_id] = source
        if source.strip() != answers[grade_id].stub.strip():
            result.answered.add(grade_id)
    return result


def archive(submitted: Path, archive_dir: Path) -> Path:
    """Copy the submitted bytes to ``archive_dir/<sha256>.ipynb`` (read-only) and list them in
    ``archive_dir/manifest.json``; "file" there is the path as given. Archiving the same file
    again changes nothing. Raises ValueError for anything but a regular file."""
    submitted, archive_dir = Path(submitted), Path(archive_dir)
    if not stat.S_ISREG(os.lstat(submitted).st_mode):
        raise ValueError(f"not a regular file: {submitted}")
    archive_dir.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    digest = hashlib.sha256()
    size = 0
    with os.fdopen(os.open(submitted, flags), "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            raise ValueError(f"not a regular file: {submitted}")
        with tempfile.NamedTemporaryFile(dir=archive_dir, suffix=".part", delete=False) as out:
            partial = Path(out.name)
            try:
                while chunk := source.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            except BaseException:
                partial.unlink()
                raise
    sha256 = digest.hexdigest()
    target = archive_dir / f"{sha256}.ipynb"
    if target.exists():
        partial.unlink()
    else:
        partial.chmod(0o444)
        os.replace(partial, target)

    manifest_path = archive_dir / "manifest.json"
    manifest: list[dict[str, Any]] = []
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if not isinstance(manifest, list):
            raise ValueError(f"{manifest_path} is not a JSON list")
    entry: dict[str, Any] = {"file": str(submitted), "sha256": sha256, "bytes": size}
    if not any(isinstance(old, dict) and all(old.get(k) == v for k, v in entry.items())
               for old in manifest):
        entry["archived_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        manifest.append(entry)
        written = manifest_path.with_name("manifest.json.part")
        written.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        os.replace(written, manifest_path)
    return target


def find_submission(folder: Path, chapter: str) -> tuple[Path | None, list[str]]:
    """The notebook to grade in a student's chapter folder, and notes on the choice."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return None, [f"no folder {folder.name}"]
    expected = f"{chapter}.ipynb"
    names = sorted(entry.name for entry in folder.iterdir()
                   if entry.name.endswith(".ipynb") and not entry.name.startswith("."))
    if expected in names:
        others = [name for name in names if name != expected]
        notes = [f"extra notebook ignored: {name}" for name in others]
        return folder / expected, notes
    if len(names) == 1:
        return folder / names[0], [f"graded {names[0]}, the only notebook in the folder "
                                   f"(expected {expected})"]
    if not names:
        return None, [f"no notebook in the folder (expected {expected})"]
    return None, [f"{len(names)} notebooks and none named {expected}: {', '.join(names)}; "
                  "none graded"]
