"""The notebook's own run, wholly inside one sandbox: nbgrader autogrades the rebuilt notebook.

Runs inside the sandbox as ``python -m autograder.grading.own_run <out-fd> <in-fd>``. It reads one
request (JSON) from ``in-fd``:

    {"chapter": "ch01_storage", "student": "ada", "notebook": "<notebook JSON text>",
     "gradebook": "<base64 of the chapter's template gradebook>",
     "references": "<the notebook references' JSON text>", "cell_timeout": 60}

builds a private mini-course in the sandbox's scratch tmpfs, runs nbgrader's ``autograde`` on
it through nbgrader's Python API (its kernel is a child of this process, in the same sandbox),
and writes one line to ``out-fd``:

    {"scores": {"test_storage_index_visible": 1.0, ...}, "problem": ""}

Everything nbgrader and the kernel write (the autograded notebook, the gradebook copy, the
kernel's sockets and connection file) stays in the tmpfs and dies with the sandbox; the
grader reads only that one bounded line. Because the student's code runs as the same user as
nbgrader here, this verdict is the student's to forge: the grader only ever compares it with
its own trusted verdict and flags a difference, it never scores from it.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

# The mini-course, in the sandbox's scratch tmpfs (elsewhere only when a test runs this
# unconfined, to show what the sandbox prevents).
COURSE = Path(os.environ.get("REFTENSOR_OWN_RUN_ROOT", "/tmp/course"))


def _settings(cell_timeout: int) -> dict[str, dict[str, Any]]:
    """The course's nbgrader settings that autograding uses (``nbgrader_config.py`` holds the
    same; the runtime carries no configuration file)."""
    return {
        "CourseDirectory": {"root": str(COURSE), "source_directory": str(COURSE / "source"),
                            "course_id": "reftensor", "db_url": f"sqlite:///{COURSE}/gradebook.db",
                            "ignore": [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback",
                                       ".hypothesis", ".DS_Store"]},
        "Execute": {"timeout": cell_timeout, "kernel_name": "python3",
                    "interrupt_on_timeout": True},
    }


def autograde(request: dict[str, Any]) -> dict[str, Any]:
    """Autograde the request's notebook here; return the verdict to send."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    chapter, student = str(request["chapter"]), str(request["student"])
    submitted = COURSE / "submitted" / student / chapter
    submitted.mkdir(parents=True)
    (COURSE / "source" / chapter).mkdir(parents=True)
    (submitted / f"{chapter}.ipynb").write_text(request["notebook"])
    (COURSE / "gradebook.db").write_bytes(base64.b64decode(request["gradebook"]))
    references = COURSE / "notebook_references.json"
    references.write_text(request["references"])
    os.environ["REFTENSOR_REFERENCES"] = str(references)
    config = Config(_settings(int(request["cell_timeout"])))
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    result = api.autograde(chapter, student, force=True, create=True)
    if not result.get("success"):
        log = f"{result.get('log', '')}\n{result.get('error', '')}"
        return {"scores": {}, "problem": _reason(log)}
    with Gradebook(f"sqlite:///{COURSE}/gradebook.db") as gb:
        try:
            nb = gb.find_submission_notebook(chapter, chapter, student)
        except MissingEntry:
            return {"scores": {}, "problem": "nbgrader recorded no submission"}
        verdict: dict[str, Any] = {"scores": {g.name: g.auto_score for g in nb.grades},
                                   "problem": ""}
    if request.get("return_notebook"):  # only when a test switches safe feedback off
        autograded = COURSE / "autograded" / student / chapter / f"{chapter}.ipynb"
        verdict["notebook"] = autograded.read_text()
    return verdict


def _reason(log: str) -> str:
    """The most telling line of a failed nbgrader run (the exception, not the epilogue)."""
    for marker in ("DeadKernelError", "CellTimeoutError", "Error:", "ERROR]"):
        hits = [line.strip() for line in log.splitlines() if marker in line]
        if hits:
            return (hits[-1] if marker != "ERROR]" else hits[0])[:300]
    return (log.strip().splitlines()[-1] if log.strip() else "unknown error")[:300]


def main() -> None:
    out = os.fdopen(int(sys.argv[1]), "w")
    with os.fdopen(int(sys.argv[2]), "rb") as source:
        request = json.loads(source.read())
    for name in ("runtime", "data", "config"):
        os.environ[f"JUPYTER_{name.upper()}_DIR"] = str(COURSE.parent / "jupyter" / name)
    os.environ["IPYTHONDIR"] = str(COURSE.parent / "ipython")
    os.environ["MPLCONFIGDIR"] = str(COURSE.parent / "matplotlib")
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    try:
        verdict = autograde(request)
    except Exception as err:  # noqa: BLE001 - reported as this run's problem
        verdict = {"scores": {}, "problem": f"{type(err).__name__}: {err}"[:300]}
    out.write(json.dumps(verdict) + "\n")
    out.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
