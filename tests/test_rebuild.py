"""Rebuilding submissions from the release: only answer sources are ever taken from a student."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import nbformat
import pytest

from autograder.grading.rebuild import archive, find_submission, rebuild

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / "course" / "ch01_storage" / "ch01_storage.ipynb"
SOLUTION = ROOT / "solutions" / "ch01_storage" / "ch01_storage.ipynb"


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _grade_id(cell: dict[str, Any]) -> str | None:
    metadata = cell.get("metadata")
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


RELEASE_JSON = _load(RELEASE)
ANSWERS = [_grade_id(c) for c in RELEASE_JSON["cells"]
           if c["metadata"].get("nbgrader", {}).get("solution")]
CODE_ANSWERS = [_grade_id(c) for c in RELEASE_JSON["cells"]
                if _grade_id(c) in ANSWERS and c["cell_type"] == "code"]
TESTS = [_grade_id(c) for c in RELEASE_JSON["cells"]
         if c["metadata"].get("nbgrader", {}).get("grade") and _grade_id(c) not in ANSWERS]


def _solutions() -> dict[str, str]:
    """Each answer as an honest student writes it: the solution without nbgrader's markers."""
    answers = {}
    for cell in _load(SOLUTION)["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            lines = _source(cell).splitlines(keepends=True)
            kept = [line for line in lines
                    if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")]
            answers[_grade_id(cell)] = "".join(kept)
    return answers


SOLUTIONS = _solutions()


def _release() -> dict[str, Any]:
    return copy.deepcopy(RELEASE_JSON)


def _honest() -> dict[str, Any]:
    """The release completed honestly and run: answers filled in, outputs and counts present."""
    nb = _release()
    for count, cell in enumerate(nb["cells"], start=1):
        if _grade_id(cell) in SOLUTIONS:
            cell["source"] = SOLUTIONS[_grade_id(cell)].splitlines(keepends=True)
        if cell["cell_type"] == "code":
            cell["execution_count"] = count
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
    return nb


def _cell(nb: dict[str, Any], grade_id: str) -> dict[str, Any]:
    return next(c for c in nb["cells"] if isinstance(c, dict) and _grade_id(c) == grade_id)


def _index(nb: dict[str, Any], grade_id: str) -> int:
    return nb["cells"].index(_cell(nb, grade_id))


def _write(tmp_path: Path, nb: Any, name: str = "ch01_storage.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _rebuilt(tmp_path: Path, nb: Any, **kwargs: Any):
    return rebuild(_write(tmp_path, nb), RELEASE, **kwargs)


def _rebuilt_source(result, grade_id: str) -> str:
    return next(c.source for c in result.notebook.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _assert_is_release_except_answers(result) -> None:
    """Every cell but the answers' sources, and the notebook's metadata, are the release's."""
    written = json.loads(nbformat.writes(result.notebook))
    assert written["metadata"] == RELEASE_JSON["metadata"]
    assert len(written["cells"]) == len(RELEASE_JSON["cells"])
    for mine, theirs in zip(written["cells"], RELEASE_JSON["cells"], strict=True):
        if _grade_id(theirs) in ANSWERS:
            mine, theirs = dict(mine), dict(theirs)
            assert _source(mine) == result.answers[_grade_id(theirs)]
            mine.pop("source")
            theirs.pop("source")
        assert mine == theirs


def _assert_quarantined(result, reason: str) -> None:
    assert result.quarantine == reason
    assert result.answered == set()
    assert result.answers == {gid: _source(_cell(RELEASE_JSON, gid)) for gid in ANSWERS}
    _assert_is_release_except_answers(result)


# ---------------------------------------------------------------------------------------------
# Honest submissions


def test_honest_submission_uses_every_answer(tmp_path):
    result = _rebuilt(tmp_path, _honest())
    assert result.quarantine is None
    assert result.review == []
    assert result.notes == []
    assert result.answered == set(ANSWERS)
    assert result.answers == SOLUTIONS
    assert "### BEGIN SOLUTION" not in json.dumps(result.answers)
    nbformat.validate(result.notebook)
    _assert_is_release_except_answers(result)


def test_rebuilt_test_cells_are_byte_identical_to_the_release(tmp_path):
    nb = _honest()
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            cell["source"] = "pass\n"
    result = _rebuilt(tmp_path, nb)
    out = tmp_path / "rebuilt.ipynb"
    nbformat.write(result.notebook, str(out))
    written = _load(out)
    assert len(TESTS) >= 10
    for cell in (_cell(RELEASE_JSON, gid) for gid in TESTS):
        mine = _cell(written, _grade_id(cell))
        assert json.dumps(mine, sort_keys=True) == json.dumps(cell, sort_keys=True)


def test_outputs_and_execution_counts_are_cleared(tmp_path):
    result = _rebuilt(tmp_path, _honest())
    code = [c for c in result.notebook.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def test_untouched_release_is_unanswered_without_review(tmp_path):
    result = _rebuilt(tmp_path, _release())
    assert result.answered == set()
    assert result.review == [] and result.notes == [] and result.quarantine is None


def test_stub_with_different_whitespace_is_not_answered(tmp_path):
    nb = _release()
    cell = _cell(nb, "storage_index")
    cell["source"] = "\n\n" + _source(cell) + "\n   \n"
    result = _rebuilt(tmp_path, nb)
    assert "storage_index" not in result.answered


def test_sha256_is_of_the_submitted_bytes(tmp_path):
    path = _write(tmp_path, _honest())
    assert rebuild(path, RELEASE).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Answer cells moved, copied, renamed, re-typed


def test_duplicated_answer_cell_grades_the_first_copy(tmp_path):
    nb = _honest()
    i = _index(nb, "storage_index")
    second = copy.deepcopy(nb["cells"][i])
    second["source"] = "def storage_index(index, stride, storage_offset):\n    return 0\n"
    nb["cells"].insert(i + 3, second)
    result = _rebuilt(tmp_path, nb)
    assert result.answers["storage_index"] == SOLUTIONS["storage_index"]
    assert result.review == ["duplicate answer cell storage_index: the first copy was graded"]
    _assert_is_release_except_answers(result)


def test_deleted_answer_cell_is_unanswered(tmp_path):
    nb = _honest()
    del nb["cells"][_index(nb, "is_contiguous")]
    result = _rebuilt(tmp_path, nb)
    assert "is_contiguous" not in result.answered
    assert result.answers["is_contiguous"] == _source(_cell(RELEASE_JSON, "is_contiguous"))
    assert "answer is_contiguous not found in the submission: graded as unanswered" in result.notes
    assert result.review == []
    _assert_is_release_except_answers(result)


def test_renamed_grade_id_is_found_by_function_name(tmp_path):
    nb = _honest()
    _cell(nb, "contiguous_strides")["metadata"]["nbgrader"]["grade_id"] = "my_strides"
    result = _rebuilt(tmp_path, nb)
    assert result.answers["contiguous_strides"] == SOLUTIONS["contiguous_strides"]
    assert "contiguous_strides" in result.answered
    assert result.notes == [
        "answer contiguous_strides found by its function name (its cell metadata was changed)"]
    _assert_is_release_except_answers(result)


def test_answer_found_by_function_name_when_the_cell_does_not_parse(tmp_path):
    nb = _honest()
    cell = _cell(nb, "unfold_layout")
    cell["metadata"] = {}
    cell["source"] = "%%time\n" + SOLUTIONS["unfold_layout"]
    result = _rebuilt(tmp_path, nb)
    assert result.answers["unfold_layout"] == "%%time\n" + SOLUTIONS["unfold_layout"]


def test_metadata_stripped_entirely(tmp_path):
    nb = _honest()
    for cell in nb["cells"]:
        del cell["metadata"]
    result = _rebuilt(tmp_path, nb)
    assert {gid: result.answers[gid] for gid in CODE_ANSWERS} == {
        gid: SOLUTIONS[gid] for gid in CODE_ANSWERS}
    assert result.answered == set(CODE_ANSWERS)  # a written answer cannot be recognised
    assert "answer written_traversal not found in the submission: graded as unanswered" \
        in result.notes
    assert len([n for n in result.notes if "found by its function name" in n]) == len(CODE_ANSWERS)
    _assert_is_release_except_answers(result)


def test_non_dict_metadata_is_read_as_none(tmp_path):
    nb = _honest()
    _cell(nb, "storage_index")["metadata"] = "storage_index"
    _cell(nb, "is_contiguous")["metadata"]["nbgrader"] = ["is_contiguous"]
    nb["metadata"] = 7
    result = _rebuilt(tmp_path, nb)
    assert result.answers == SOLUTIONS
    assert result.review == []


def test_code_answer_retyped_as_markdown_is_not_used(tmp_path):
    nb = _honest()
    _cell(nb, "storage_index")["cell_type"] = "markdown"
    number = _index(nb, "storage_index") + 1
    result = _rebuilt(tmp_path, nb)
    assert "storage_index" not in result.answered
    assert result.review == [f"answer cell storage_index was changed from code to markdown "
                             f"(cell {number}); it was not graded"]


def test_written_answer_retyped_as_code_is_not_used(tmp_path):
    nb = _honest()
    cell = _cell(nb, "written_traversal")
    cell.update(cell_type="code", outputs=[], execution_count=None)
    result = _rebuilt(tmp_path, nb)
    assert "written_traversal" not in result.answered
    assert result.answers["written_traversal"] == "YOUR ANSWER HERE"
    assert len(result.review) == 1 and "changed from markdown to code" in result.review[0]
    _assert_is_release_except_answers(result)


def test_relocked_answer_cell_keeps_the_release_metadata(tmp_path):
    nb = _honest()
    meta = _cell(nb, "storage_index")["metadata"]
    meta["nbgrader"].update(locked=True, solution=False, grade=True, points=100)
    meta["editable"] = False
    result = _rebuilt(tmp_path, nb)
    assert result.answers["storage_index"] == SOLUTIONS["storage_index"]
    assert result.notes == [
        "answer storage_index: changed nbgrader metadata (solution, grade, locked, points) ignored"]
    _assert_is_release_except_answers(result)


def test_tampered_test_cell_comes_back_as_the_release(tmp_path):
    nb = _honest()
    _cell(nb, "test_storage_index_hidden")["source"] = "assert True  # full marks\n"
    _cell(nb, "test_storage_index_visible")["metadata"]["nbgrader"]["locked"] = False
    result = _rebuilt(tmp_path, nb)
    original = _source(_cell(RELEASE_JSON, "test_storage_index_hidden"))
    assert _rebuilt_source(result, "test_storage_index_hidden") == original
    assert result.notes == [
        "edited in the submission, taken from the release: test_storage_index_hidden"]
    assert result.review == [] and result.answers == SOLUTIONS
    _assert_is_release_except_answers(result)


def test_copied_test_cell_is_ignored(tmp_path):
    nb = _honest()
    test = copy.deepcopy(_cell(nb, "test_is_contiguous_hidden"))
    test["source"] = "pass\n"
    nb["cells"].insert(3, test)
    result = _rebuilt(tmp_path, nb)
    assert result.review == [] and result.answers == SOLUTIONS
    _assert_is_release_except_answers(result)


def test_injected_code_cell_is_not_in_the_rebuilt_notebook(tmp_path):
    nb = _honest()
    injected = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                "source": "import builtins\nbuiltins.check = lambda *args: None\n"}
    nb["cells"].insert(2, injected)
    result = _rebuilt(tmp_path, nb)
    assert not any("builtins" in cell.source for cell in result.notebook.cells)
    assert result.answers == SOLUTIONS
    _assert_is_release_except_answers(result)


def test_nothing_submitted_is_executed(tmp_path):
    nb = _honest()
    cell = _cell(nb, "storage_index")
    cell["metadata"] = {}
    cell["source"] = "import os\nos._exit(3)\n" + SOLUTIONS["storage_index"]
    nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "outputs": [],
                           "execution_count": None, "source": "raise SystemExit(4)\n"})
    result = _rebuilt(tmp_path, nb)
    assert result.answers["storage_index"].startswith("import os\n")


def test_unknown_answer_cell_is_ignored_with_a_note(tmp_path):
    nb = _honest()
    extra = copy.deepcopy(_cell(nb, "storage_index"))
    extra["metadata"]["nbgrader"]["grade_id"] = "bonus"
    extra["source"] = "BONUS = 1\n"
    nb["cells"].insert(5, extra)
    result = _rebuilt(tmp_path, nb)
    assert result.notes == [
        "cell 6 is marked as an answer (grade_id 'bonus') but the release has no such answer; "
        "ignored"]
    _assert_is_release_except_answers(result)


def test_redefinition_outside_the_answer_cell_is_noted(tmp_path):
    nb = _honest()
    nb["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {},
                        "outputs": [], "source": "def is_contiguous(shape, stride):\n    1\n"})
    result = _rebuilt(tmp_path, nb)
    assert result.answers == SOLUTIONS
    assert result.notes == [
        f"cell {len(nb['cells'])} also defines is_contiguous(); only answer cell is_contiguous "
        "was graded"]


def test_changed_points_and_grade_flags_are_ignored(tmp_path):
    nb = _honest()
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader")
        if meta and meta["grade"]:
            meta["points"] = 1000
        if meta and meta["grade_id"] == "test_unfold_layout_hidden":
            meta["grade"] = False
    nb["cells"][0]["metadata"]["nbgrader"] = {"grade": True, "grade_id": "free", "points": 50,
                                             "solution": False, "locked": True}
    result = _rebuilt(tmp_path, nb)
    release_points = sum(c["metadata"].get("nbgrader", {}).get("points", 0)
                         for c in RELEASE_JSON["cells"])
    assert sum(c.metadata.get("nbgrader", {}).get("points", 0)
               for c in result.notebook.cells) == release_points
    _assert_is_release_except_answers(result)


def test_answer_attachments_are_dropped_with_a_note(tmp_path):
    nb = _honest()
    _cell(nb, "written_traversal")["attachments"] = {"a.png": {"image/png": "iVBORw0KGgo="}}
    result = _rebuilt(tmp_path, nb)
    assert result.notes == [
        "answer written_traversal had attachments (pasted images); they were not kept"]
    assert "attachments" not in _cell(json.loads(nbformat.writes(result.notebook)),
                                      "written_traversal")


# ---------------------------------------------------------------------------------------------
# Odd but readable JSON


def test_unknown_nbformat_and_schema_version(tmp_path):
    nb = _honest()
    nb["nbformat"], nb["nbformat_minor"] = 5, 99
    for cell in nb["cells"]:
        if "nbgrader" in cell["metadata"]:
            cell["metadata"]["nbgrader"]["schema_version"] = 99
    result = _rebuilt(tmp_path, nb)
    assert result.answers == SOLUTIONS and result.review == []
    assert result.notes == [
        "the file says nbformat 5 (expected 4); read anyway",
        "nbgrader schema_version 99 in the submission (the release uses 3); only grade ids and "
        "cell types were read"]


def test_cells_that_are_not_dicts_are_ignored(tmp_path):
    nb = _honest()
    nb["cells"][1:1] = [42, "cell", None, [], ["def storage_index(): pass"], True, 1.5]
    result = _rebuilt(tmp_path, nb)
    assert result.answers == SOLUTIONS and result.review == []
    assert result.notes == ["ignored cells 2, 3, 4, 5, 6 and 2 more: not a JSON object"]


def test_source_as_string_list_or_other(tmp_path):
    nb = _honest()
    _cell(nb, "storage_index")["source"] = SOLUTIONS["storage_index"]  # one string
    assert isinstance(_cell(nb, "is_contiguous")["source"], list)
    _cell(nb, "unfold_layout")["source"] = {"text": "def unfold_layout(): ..."}
    _cell(nb, "contiguous_strides")["source"] = ["def contiguous_strides(shape):\n", 7]
    numbers = sorted(_index(nb, gid) + 1 for gid in ("unfold_layout", "contiguous_strides"))
    result = _rebuilt(tmp_path, nb)
    for gid in ("storage_index", "is_contiguous", "channels_last_strides", "written_traversal"):
        assert result.answers[gid] == SOLUTIONS[gid]
    assert result.answered == set(ANSWERS) - {"unfold_layout", "contiguous_strides"}
    assert f"ignored cells {numbers[0]}, {numbers[1]}: the source is not text" in result.notes
    assert result.review == []


def test_crlf_line_endings_are_normalised(tmp_path):
    nb = _honest()
    for cell in nb["cells"]:
        cell["source"] = _source(cell).replace("\n", "\r\n")
    _cell(nb, "written_traversal")["source"] = SOLUTIONS["written_traversal"].replace("\n", "\r")
    result = _rebuilt(tmp_path, nb)
    assert result.answers == SOLUTIONS
    assert result.review == []


def test_nul_in_source_is_unanswered_for_review(tmp_path):
    nb = _honest()
    _cell(nb, "channels_last_strides")["source"] = SOLUTIONS["channels_last_strides"] + "\x00"
    result = _rebuilt(tmp_path, nb)
    assert "channels_last_strides" not in result.answered
    assert result.review == [
        "answer channels_last_strides contains NUL characters; graded as unanswered"]
    assert "\x00" not in nbformat.writes(result.notebook)


def test_lone_surrogate_in_source_is_unanswered_for_review(tmp_path):
    nb = _honest()
    _cell(nb, "written_traversal")["source"] = "caches \ud800"
    result = _rebuilt(tmp_path, nb)
    assert result.review == ["answer written_traversal contains characters that are not valid "
                             "Unicode; graded as unanswered"]
    nbformat.writes(result.notebook).encode("utf-8")


def test_huge_cell_is_unanswered_for_review(tmp_path):
    nb = _honest()
    source = SOLUTIONS["storage_index"] + "#" * 300_000
    _cell(nb, "storage_index")["source"] = source
    result = _rebuilt(tmp_path, nb)
    assert "storage_index" not in result.answered
    assert result.review == [f"answer storage_index is too long ({len(source)} characters; the "
                             "limit is 200000); graded as unanswered"]


def test_moderate_nesting_inside_metadata_is_fine(tmp_path):
    nb = _honest()
    nested: Any = []
    for _ in range(500):
        nested = [nested]
    _cell(nb, "storage_index")["metadata"]["deep"] = nested
    assert _rebuilt(tmp_path, nb).answers == SOLUTIONS


# ---------------------------------------------------------------------------------------------
# Unreadable submissions are quarantined


def test_huge_file_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    with open(path, "wb") as file:
        file.truncate(5_000_001)
    result = rebuild(path, RELEASE)
    _assert_quarantined(result, "file too large: 5000001 bytes")
    assert len(result.sha256) == 64


def test_max_bytes_is_a_parameter(tmp_path):
    result = rebuild(_write(tmp_path, _honest()), RELEASE, max_bytes=1000)
    assert result.quarantine is not None and result.quarantine.startswith("file too large: ")


def test_bad_utf8_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_bytes(b'{"cells": ["\xff"]}')
    _assert_quarantined(rebuild(path, RELEASE), "not valid UTF-8 (byte 12)")


def test_not_json_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_text("def storage_index(): return 0\n")
    _assert_quarantined(rebuild(path, RELEASE), "not JSON: Expecting value (line 1, column 1)")


def test_json_array_is_quarantined(tmp_path):
    _assert_quarantined(_rebuilt(tmp_path, [_honest()]),
                        "not a notebook: the JSON is a list, not an object")


@pytest.mark.parametrize("cells", [{"0": {}}, "cells", None])
def test_json_with_cells_not_a_list_is_quarantined(tmp_path, cells):
    nb = _honest()
    nb["cells"] = cells
    _assert_quarantined(_rebuilt(tmp_path, nb), "not a notebook: no list of cells")


def test_nbformat3_notebook_without_cells_is_quarantined(tmp_path):
    nb = {"nbformat": 3, "worksheets": [{"cells": _honest()["cells"]}], "metadata": {}}
    _assert_quarantined(_rebuilt(tmp_path, nb), "not a notebook: no list of cells")


def test_deeply_nested_json_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_text("[" * 100_000 + "]" * 100_000)
    _assert_quarantined(rebuild(path, RELEASE), "not JSON that can be read: nested too deeply")


def test_deeply_nested_metadata_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_text('{"cells": [{"metadata": ' + "{\"a\": " * 100_000 + "1" + "}" * 100_002 + "]}")
    _assert_quarantined(rebuild(path, RELEASE), "not JSON that can be read: nested too deeply")


def test_huge_integer_is_quarantined(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_text('{"cells": [], "nbformat": ' + "9" * 100_000 + "}")
    _assert_quarantined(rebuild(path, RELEASE), "not JSON that can be read: ValueError")


@pytest.mark.parametrize("content", [b"", b"  \n"])
def test_empty_file_is_quarantined(tmp_path, content):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_bytes(content)
    _assert_quarantined(rebuild(path, RELEASE), "empty file")


def test_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "ch01_storage.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_honest()).encode())
    result = rebuild(path, RELEASE)
    assert result.answers == SOLUTIONS
    assert result.notes == ["the file starts with a byte order mark; it was ignored"]


def test_symlink_is_not_followed(tmp_path):
    target = _write(tmp_path, _honest(), "elsewhere.ipynb")
    link = tmp_path / "ch01_storage.ipynb"
    link.symlink_to(target)
    result = rebuild(link, RELEASE)
    _assert_quarantined(result, "not a regular file: a symbolic link")
    assert result.sha256 == ""


def test_directory_instead_of_a_file_is_quarantined(tmp_path):
    folder = tmp_path / "ch01_storage.ipynb"
    folder.mkdir()
    _assert_quarantined(rebuild(folder, RELEASE), "not a regular file: a directory")


def test_fifo_is_never_opened(tmp_path):
    fifo = tmp_path / "ch01_storage.ipynb"
    os.mkfifo(fifo)
    _assert_quarantined(rebuild(fifo, RELEASE), "not a regular file")


def test_missing_file_is_quarantined(tmp_path):
    _assert_quarantined(rebuild(tmp_path / "ch01_storage.ipynb", RELEASE),
                        "no file: ch01_storage.ipynb")
    _assert_quarantined(rebuild(None, RELEASE), "no file submitted")


def test_unreadable_release_gives_no_notebook(tmp_path):
    release = tmp_path / "release.ipynb"
    release.write_text("not a notebook")
    result = rebuild(_write(tmp_path, _honest()), release)
    assert result.notebook is None
    assert len(result.review) == 1 and result.review[0].startswith("release notebook unreadable")


# ---------------------------------------------------------------------------------------------
# Finding and archiving submissions


def test_find_submission_prefers_the_chapter_notebook(tmp_path):
    _write(tmp_path, _honest())
    _write(tmp_path, _release(), "ch01_storage-Copy1.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    path, notes = find_submission(tmp_path, "ch01_storage")
    assert path == tmp_path / "ch01_storage.ipynb"
    assert notes == ["extra notebook ignored: ch01_storage-Copy1.ipynb"]


def test_find_submission_takes_the_only_notebook(tmp_path):
    _write(tmp_path, _honest(), "mine.ipynb")
    path, notes = find_submission(tmp_path, "ch01_storage")
    assert path == tmp_path / "mine.ipynb"
    assert notes == ["graded mine.ipynb, the only notebook in the folder "
                     "(expected ch01_storage.ipynb)"]


def test_find_submission_with_two_other_notebooks_grades_none(tmp_path):
    _write(tmp_path, _honest(), "a.ipynb")
    _write(tmp_path, _honest(), "b.ipynb")
    path, notes = find_submission(tmp_path, "ch01_storage")
    assert path is None
    assert notes == ["2 notebooks and none named ch01_storage.ipynb: a.ipynb, b.ipynb; "
                     "none graded"]


def test_find_submission_in_an_empty_or_missing_folder(tmp_path):
    assert find_submission(tmp_path, "ch01_storage") == (
        None, ["no notebook in the folder (expected ch01_storage.ipynb)"])
    assert find_submission(tmp_path / "nope", "ch01_storage") == (None, ["no folder nope"])


def test_archive_keeps_the_original_bytes_read_only(tmp_path):
    path = _write(tmp_path, _honest())
    store = tmp_path / "archive"
    sha = rebuild(path, RELEASE).sha256
    archived = archive(path, store)
    assert archived == store / f"{sha}.ipynb"
    assert archived.read_bytes() == path.read_bytes()
    assert stat.S_IMODE(archived.stat().st_mode) == 0o444
    assert archive(path, store) == archived  # idempotent
    manifest = _load(store / "manifest.json")
    assert len(manifest) == 1
    assert manifest[0]["sha256"] == sha
    assert manifest[0]["bytes"] == path.stat().st_size
    assert manifest[0]["file"] == str(path)
    assert manifest[0]["archived_at"]
    assert sorted(p.name for p in store.iterdir()) == sorted([archived.name, "manifest.json"])


def test_archive_lists_each_submission(tmp_path):
    store = tmp_path / "archive"
    first = _write(tmp_path, _honest(), "a.ipynb")
    second = _write(tmp_path, _release(), "b.ipynb")
    archive(first, store)
    archive(second, store)
    assert [entry["file"] for entry in _load(store / "manifest.json")] == [
        str(first), str(second)]


def test_archive_refuses_a_symlink(tmp_path):
    link = tmp_path / "link.ipynb"
    link.symlink_to(_write(tmp_path, _honest()))
    with pytest.raises(ValueError, match="not a regular file"):
        archive(link, tmp_path / "archive")
