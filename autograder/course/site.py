"""Build the self-learner website from the student release notebooks.

Usage::

    python -m autograder.course.site --course course --out build/site

Every ``course/<chapter>/*.ipynb`` and the Sphinx sources in ``docs/`` are copied into a
staging folder next to the output (``<out>-src``). Each notebook is prepared for readers by
:func:`prepare_notebook`:

* answer code cells (nbgrader ``solution: true``) keep their stub, get the myst-nb tag
  ``skip-execution`` and an "Exercise" box in front of them;
* autograded test cells (``grade: true``, ``solution: false``) are dropped, since they only
  fail against the stubs and would leak the checks;
* written-answer markdown cells (``solution: true, grade: true``) become an "Exercise" box;
* after an answer cell that is a graded piece of reftensor (``reftensor/pieces.py``), the
  reference piece follows behind a fold (an HTML ``<details>``): the function as the
  reference library writes it. ``reference="none"`` leaves every fold out (a site for a
  class still being graded), ``"published"`` keeps only the chapters that
  ``autograder/course/published.txt`` publishes;
* all other cells stay; demo code cells are executed by myst-nb during the build.

Sphinx then runs with warnings as errors (``-W --keep-going``) and myst-nb in ``force``
execution mode, so an error in any demo cell fails the build. The build is offline: MathJax
3 (TeX input, SVG output) is copied from the ``sphinx-mathjax-offline`` package into
``_static/mathjax``.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbformat.corpus.words import generate_corpus_id as random_cell_id

from autograder.course import edition
from autograder.course.capstone import RUN_VARIABLE

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs"
STAGING_MARKER = ".reftensor-site-src"
MATHJAX_PACKAGE = "sphinx-mathjax-offline"  # the package's folder name has dashes
MATHJAX_DIRS = ("input/tex/extensions", "ui", "a11y", "sre", "adaptors")
ASSET_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg"}

EXERCISE_TAG = "skip-execution"
#: ``--capstone``'s choices (:func:`run_capstone`), and the steps of a short run.
CAPSTONE_CHOICES = ("full", "short", "none")
SHORT_CAPSTONE_STEPS = 30
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
ANSWER_PLACEHOLDER = "YOUR ANSWER HERE"
FORBIDDEN_MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")

CODE_EXERCISE_NOTE = """\
```{{admonition}} Exercise: write this code yourself
:class: exercise tip

The cell below{name} is yours to write. On this site it is shown as a stub and is not run.
In the chapter notebook, replace `raise NotImplementedError()` with your code, then run the
check cell that follows it.
```
"""

WRITTEN_EXERCISE_NOTE = """\
```{{admonition}} Exercise: answer in your own words
:class: exercise tip

This is a written question{name}. Answer it in the notebook's answer cell before reading on.
```
"""


REFERENCE_FOLD = """\
<details class="reference-piece">
<summary>The reference piece: <code>{name}</code> in <code>{path}</code> (open it after writing
your own)</summary>

```python
{source}
```

</details>
"""
REFERENCE_CHOICES = ("all", "published", "none")


class SiteBuildError(RuntimeError):
    """Sphinx (or a notebook cell executed by it) failed."""


def _nbgrader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_test_cell(cell: dict) -> bool:
    """An autograded test cell: ``grade: true`` without ``solution``."""
    md = _nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(md.get("grade")) and not md.get("solution")


def is_answer_code_cell(cell: dict) -> bool:
    """A code cell the student writes (``solution: true``)."""
    return cell.get("cell_type") == "code" and bool(_nbgrader(cell).get("solution"))


def is_written_answer_cell(cell: dict) -> bool:
    """A manually graded markdown answer (``solution: true``)."""
    return cell.get("cell_type") == "markdown" and bool(_nbgrader(cell).get("solution"))


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _title_suffix(cell: dict) -> str:
    grade_id = _nbgrader(cell).get("grade_id")
    return f" (task `{grade_id}`)" if grade_id else ""


def _add_tag(cell: dict, tag: str) -> None:
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def reference_pieces(reference: str = "all") -> dict[str, tuple[str, str]]:
    """The graded pieces the site shows behind folds: name -> (file, the function's source
    in the reference, from its ``def`` to its ``# END PIECE``).

    Raises:
        ValueError: ``reference`` is not one of :data:`REFERENCE_CHOICES`.
    """
    if reference not in REFERENCE_CHOICES:
        raise ValueError(f"reference must be one of {REFERENCE_CHOICES}, not {reference!r}")
    if reference == "none":
        return {}
    known = edition.catalogue()
    published = set(edition.published_chapters())
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(edition.REFERENCE.rglob("*.py")):
        text = path.read_text()
        rel = f"reftensor/{path.relative_to(edition.REFERENCE)}"
        lines = text.splitlines()
        for marked in edition.find_pieces(text, rel, known):
            if reference == "published" and known[marked.name][0] not in published:
                continue
            first = min([marked.function.lineno, *(d.lineno for d in
                                                   marked.function.decorator_list)]) - 1
            found[marked.name] = (rel, "\n".join(lines[first:marked.end + 1]))
    return found


def prepare_notebook(nb: nbformat.NotebookNode,
                     references: dict[str, tuple[str, str]] | None = None,
                     ) -> nbformat.NotebookNode:
    """Return a copy of a release notebook ready for the website (``nb`` is not changed);
    ``references`` (from :func:`reference_pieces`) are the pieces to show behind folds.

    Raises ``ValueError`` if the notebook still holds solution or hidden-test markers: the
    site must be built from the student release, never from the instructor notebooks.
    """
    references = references or {}
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        text = _source(cell)
        for marker in FORBIDDEN_MARKERS:
            if marker in text:
                raise ValueError(
                    f"cell {_nbgrader(cell).get('grade_id', '?')!r} contains {marker!r}: "
                    "build the site from the student release (course/), not from solutions/"
                )
        if is_test_cell(cell):
            continue
        if is_answer_code_cell(cell):
            _add_tag(cell, EXERCISE_TAG)
            cell["outputs"] = []
            cell["execution_count"] = None
            note = CODE_EXERCISE_NOTE.format(name=_title_suffix(cell))
            cells.append(nbformat.v4.new_markdown_cell(note))
            cells.append(cell)
            piece = references.get(_nbgrader(cell).get("grade_id", ""))
            if piece is not None:
                path, source = piece
                cells.append(nbformat.v4.new_markdown_cell(REFERENCE_FOLD.format(
                    name=_nbgrader(cell)["grade_id"], path=path, source=source)))
            continue
        if is_written_answer_cell(cell):
            rest = text.replace(ANSWER_PLACEHOLDER, "").strip()
            note = WRITTEN_EXERCISE_NOTE.format(name=_title_suffix(cell))
            cell["source"] = note + ("\n" + rest + "\n" if rest else "")
            cells.append(cell)
            continue
        cells.append(cell)
    # The inserted cells carry ids (nbformat 4.5); give older notebooks ids everywhere.
    seen: set[str] = set()
    for cell in cells:
        if not cell.get("id") or cell["id"] in seen:
            cell["id"] = random_cell_id()
        seen.add(cell["id"])
    nb.cells = cells
    # Always run the demo cells with the build's own Python (the one with reftensor and torch),
    # whatever kernel the notebook was last saved with.
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.nbformat, nb.nbformat_minor = 4, max(5, nb.get("nbformat_minor", 5))
    return nb


def find_notebooks(course_dir: Path) -> list[Path]:
    """``course/<chapter>/*.ipynb``, sorted (chapter folders sort in course order)."""
    return sorted(p for p in course_dir.glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def find_mathjax() -> Path:
    """The MathJax 3 tree shipped by the ``sphinx-mathjax-offline`` package.

    Only its files are used (it is not loaded as a Sphinx extension: that would switch to
    CHTML output, whose web fonts browsers refuse to load from ``file://`` pages).
    """
    spec = importlib.util.find_spec(MATHJAX_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SiteBuildError(
            "MathJax is served from a local copy: pip install sphinx-mathjax-offline==0.0.2"
        )
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"
    if not (root / "tex-svg.js").is_file():  # pragma: no cover - broken install
        raise SiteBuildError(f"no tex-svg.js in {root}")
    return root


def copy_mathjax(dest: Path) -> None:
    """Copy the parts of MathJax the pages use: the TeX+SVG bundle and what it loads lazily
    (TeX extensions via autoload, the context menu, accessibility and speech rules)."""
    root = find_mathjax()
    dest.mkdir(parents=True)
    shutil.copy2(root / "tex-svg.js", dest / "tex-svg.js")
    for sub in MATHJAX_DIRS:
        if (root / sub).is_dir():
            shutil.copytree(root / sub, dest / sub)


def _reset_dir(path: Path) -> None:
    """Empty a staging folder this module created before (refuse to wipe anything else)."""
    if path.exists():
        if not (path / STAGING_MARKER).exists():
            raise SiteBuildError(f"{path} exists and was not made by autograder.course.site")
        shutil.rmtree(path)
    path.mkdir(parents=True)
    (path / STAGING_MARKER).write_text("staging folder of autograder.course.site; safe to delete\n")


def stage_sources(course_dir: Path, src_dir: Path, reference: str = "all") -> list[Path]:
    """Fill ``src_dir`` with docs/, MathJax and the prepared notebooks; return the latter."""
    references = reference_pieces(reference)
    notebooks = find_notebooks(course_dir)
    if not notebooks:
        raise SiteBuildError(f"no notebooks found under {course_dir}/*/*.ipynb")
    _reset_dir(src_dir)
    shutil.copytree(DOCS_DIR, src_dir, dirs_exist_ok=True)
    copy_mathjax(src_dir / "_static" / "mathjax")
    staged = []
    for nb_path in notebooks:
        chapter = nb_path.parent.name
        dest_dir = src_dir / chapter
        dest_dir.mkdir(exist_ok=True)
        for asset in nb_path.parent.iterdir():  # images a markdown cell may reference
            if asset.is_file() and asset.suffix.lower() in ASSET_SUFFIXES:
                shutil.copy2(asset, dest_dir / asset.name)
        nb = nbformat.read(nb_path, as_version=4)
        dest = dest_dir / nb_path.name
        nbformat.write(prepare_notebook(nb, references), dest)
        staged.append(dest)
    return staged


def _kernel_env(src_dir: Path) -> dict[str, str]:
    """Environment for Sphinx and its kernels: ``reftensor`` importable from any folder, and
    a private IPython profile (no user startup files; kernel log noise turned off)."""
    profile = src_dir / "_ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text('c.IPKernelApp.log_level = "ERROR"\n')
    env = dict(os.environ)
    paths = [str(REPO_ROOT)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["IPYTHONDIR"] = str(src_dir / "_ipython")
    env.pop("MPLBACKEND", None)  # keep ipykernel's inline backend, which captures figures
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # silence a debugpy warning at kernel start
    return env


def run_capstone(src_dir: Path, capstone: str) -> Path | None:
    """The capstone's run for chapter 10's page (``autograder.course.capstone_run``, in a
    process of its own): ``"full"`` every run to its end (about a minute on 2 cores),
    ``"short"`` each run's first :data:`SHORT_CAPSTONE_STEPS` steps, ``"none"`` no run (the
    page then says how to make one). Returns the JSON's path, or None."""
    if capstone == "none":
        return None
    out = src_dir / "capstone_run.json"
    cmd = [sys.executable, "-m", "autograder.course.capstone_run", "--out", str(out)]
    if capstone == "short":
        cmd += ["--max-steps", str(SHORT_CAPSTONE_STEPS)]
    elif capstone != "full":
        raise ValueError(f"capstone must be one of {CAPSTONE_CHOICES}, not {capstone!r}")
    proc = subprocess.run(cmd, cwd=REPO_ROOT, check=False)
    if proc.returncode != 0 or not out.is_file():
        raise SiteBuildError(f"the capstone's run failed (exit code {proc.returncode})")
    return out


def build_site(course_dir: Path, out_dir: Path, reference: str = "all",
               capstone: str = "full") -> Path:
    """Build the website for the notebooks in ``course_dir`` into ``out_dir``, with the
    reference pieces behind folds as ``reference`` says (:func:`reference_pieces`) and
    chapter 10's full run as ``capstone`` says (:func:`run_capstone`).

    Returns the path of the built ``index.html``. Raises :class:`SiteBuildError` if Sphinx
    reports a warning or error, including an exception in an executed demo cell.
    """
    course_dir = Path(course_dir).resolve()
    out_dir = Path(out_dir).resolve()
    src_dir = out_dir.parent / f"{out_dir.name}-src"
    if out_dir.exists() and any(out_dir.iterdir()):
        if not (out_dir / ".buildinfo").is_file():  # written by Sphinx's html builder
            raise SiteBuildError(f"{out_dir} is not empty and is not a previous site build")
        shutil.rmtree(out_dir)
    stage_sources(course_dir, src_dir, reference)
    env = _kernel_env(src_dir)
    run = run_capstone(src_dir, capstone)
    if run is not None:
        env[RUN_VARIABLE] = str(run)
    cmd = [
        sys.executable, "-m", "sphinx",
        "-W", "--keep-going",  # warnings are errors, but report them all
        "-E",  # fresh environment: always re-read and re-execute every notebook
        "-q",
        "-b", "html",
        "-d", str(src_dir / "_doctrees"),
        str(src_dir), str(out_dir),
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, cwd=REPO_ROOT, check=False)
    index = out_dir / "index.html"
    if proc.returncode != 0 or not index.is_file():
        raise SiteBuildError(f"sphinx failed (exit code {proc.returncode}); see output above")
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.course.site", description="Build the self-learner website."
    )
    parser.add_argument(
        "--course",
        type=Path,
        default=Path("course"),
        help="folder with <chapter>/<chapter>.ipynb release notebooks",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("build/site"), help="output folder for the HTML site"
    )
    parser.add_argument(
        "--reference", choices=REFERENCE_CHOICES, default="all",
        help="which reference pieces to show behind folds (none: for a class being graded)",
    )
    parser.add_argument(
        "--capstone", choices=CAPSTONE_CHOICES, default="full",
        help="chapter 10's full run: every run to its end, its first steps, or none",
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        index = build_site(args.course, args.out, args.reference, args.capstone)
    except (SiteBuildError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"built {index} in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
