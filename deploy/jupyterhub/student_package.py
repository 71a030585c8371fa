"""Write the students' release of the course package to a folder pip can install.

Usage (from the repository root, with any Python that has the course's requirements):

    python deploy/jupyterhub/student_package.py OUT

OUT receives ``pyproject.toml`` and exactly what a grading sandbox gets
(``autograder.sandbox.runtime.runtime_files()``): the *student edition* of ``reftensor`` (each
graded piece a stub, except the chapters ``autograder/course/published.txt`` publishes) and the
parts of ``autograder`` that notebooks import (``autograder.checks`` and the exercises it checks
against), without the sample class, recorded references (JSON) or nbgrader's configuration.
No file of ``solutions/`` and no reference body of an unpublished piece is written.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "reftensor-course-student"
version = "{version}"
description = "The students' release of the reftensor course (student edition, checks)."
requires-python = ">=3.11"

[tool.setuptools.packages.find]
include = ["reftensor*", "autograder*"]

[tool.setuptools.package-data]
"*" = ["*.txt", "*.j2", "**/*.j2"]
"""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    # this checkout's autograder, not one installed where this Python runs (the venv being
    # updated holds an older students' release)
    sys.path.insert(0, str(REPO))
    from autograder.sandbox import runtime

    out = Path(argv[0]).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = runtime.runtime_files()
    if any(name.startswith("solutions/") for name in files):
        raise SystemExit("refusing: a file of solutions/ is in the students' release")
    for name, content in files.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    (out / "pyproject.toml").write_text(PYPROJECT.format(version=version))
    print(f"wrote {len(files)} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
