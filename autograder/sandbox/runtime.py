"""The trusted runtime: the only code a sandbox may import, installed read-only for it.

``runtime_files()`` is the *student edition* of reftensor (every graded piece a stub, except
those of the chapters ``autograder/course/published.txt`` publishes) and the parts of the
grader that carry no secrets (no sample class, no solutions, no expected values, no nbgrader
configuration). No sandbox ever holds an unpublished reference body. The hub's student
package (``deploy/jupyterhub/student_package.py``) is built from the same list.
"""

from __future__ import annotations

from pathlib import Path

from autograder.course import edition, pipeline
from autograder.sandbox import bwrap

__all__ = ["runtime_files", "make_runtime"]

#: folders of ``autograder/`` no sandbox sees (the sample classes hold right answers)
_SKIP = {"__pycache__", "sample_class", "sample_capstone"}


def runtime_files() -> dict[str, bytes]:
    """The runtime's files by path relative to the repository (``reftensor/...``,
    ``autograder/...``)."""
    files, _ = edition.student_files(edition.published_chapters())
    for path in sorted((pipeline.REPO / "autograder").rglob("*")):
        rel = path.relative_to(pipeline.REPO)
        if _SKIP & set(rel.parts) or not path.is_file() or path.is_symlink():
            continue
        if path.suffix == ".json" or path.name == "nbgrader_config.py":
            continue
        files[str(rel)] = path.read_bytes()
    return files


def make_runtime() -> Path:
    """A read-only, root-owned copy of ``runtime_files()`` outside every workspace, for
    sandboxes to run: no sandbox can write anywhere on the host, so none can change it."""
    return bwrap.install_files("runtime", runtime_files())
