"""The self-learner website (``autograder/course/site.py``): build it and look at it in a browser.

The build runs from the real release notebooks in ``course/`` (set ``REFTENSOR_SITE_COURSE``
to build from another folder of ``<chapter>/<chapter>.ipynb`` notebooks). The page checks
use headless Chromium (``scripts/ensure-system-packages.sh`` installs it) so that they see what a
reader sees: MathJax has run, figures are there, no solutions or test code are visible.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import capstone
from autograder.course.site import (
    SHORT_CAPSTONE_STEPS,
    build_site,
    find_notebooks,
    prepare_notebook,
    run_capstone,
    stage_sources,
)
from reftensor import pieces

REPO = Path(__file__).resolve().parents[1]
COURSE = Path(os.environ.get("REFTENSOR_SITE_COURSE", REPO / "course"))
CHAPTER = "ch01_storage"
FORBIDDEN = ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS")


# --------------------------------------------------------------------------- helpers


def _nbg(cell, grade_id, *, solution=False, grade=False, locked=False, points=None):
    md = {
        "grade_id": grade_id,
        "solution": solution,
        "grade": grade,
        "locked": locked,
        "schema_version": 3,
        "task": False,
    }
    if points is not None:
        md["points"] = points
    cell.metadata["nbgrader"] = md
    return cell


def synthetic_release() -> nbformat.NotebookNode:
    """A small notebook with every kind of cell a release notebook has."""
    return new_notebook(
        cells=[
            _nbg(new_markdown_cell("# Title\n\nStrides: $s_k$."), "intro", locked=True),
            new_code_cell("import torch\nprint(torch.arange(3))"),
            _nbg(
                new_code_cell("def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"),
                "f",
                solution=True,
            ),
            _nbg(new_code_cell('check("f", f)'), "test_f", grade=True, locked=True, points=1),
            _nbg(new_markdown_cell("Why is `t.T` not contiguous?"), "q", locked=True),
            _nbg(new_markdown_cell("YOUR ANSWER HERE"), "why", solution=True, grade=True, points=1),
            new_code_cell("x = 1"),
        ]
    )


def _cell_text(cell) -> str:
    src = cell.source
    return "".join(src) if isinstance(src, list) else src


def solution_lines() -> list[str]:
    """Lines (> 20 characters) of every ``### BEGIN SOLUTION`` block in ``solutions/``."""
    lines = []
    for path in sorted(REPO.glob("solutions/*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            inside = False
            for line in _cell_text(cell).splitlines():
                if "### BEGIN SOLUTION" in line:
                    inside = True
                elif "### END SOLUTION" in line:
                    inside = False
                elif inside and len(line.strip()) > 20:
                    lines.append(line.strip())
    return lines


def page_text(markup: str) -> str:
    """All text of an HTML file with tags removed (highlighted code becomes plain code)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


class VisibleText(HTMLParser):
    """Prose a reader sees: skips scripts, styles, typeset math and code blocks."""

    SKIP = {
        "script",
        "style",
        "noscript",
        "template",
        "textarea",
        "svg",
        "math",
        "mjx-container",
        "pre",
        "code",
    }
    VOID = {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if not any(t in self.SKIP for t in self.stack):
            self.parts.append(data)

    @classmethod
    def of(cls, markup: str) -> str:
        parser = cls()
        parser.feed(markup)
        parser.close()
        return " ".join(" ".join(parser.parts).split())


def chapter_title(nb_path: Path) -> str:
    """The first ``# `` heading of a notebook, without inline markdown."""
    nb = nbformat.read(nb_path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for line in _cell_text(cell).splitlines():
            if line.startswith("# "):
                return re.sub(r"[*_`]", "", line[2:]).strip()
    raise AssertionError(f"{nb_path} has no '# ' title")


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium")
    if exe is None:
        pytest.skip("chromium is not installed (run scripts/ensure-system-packages.sh)")
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    cmd = [
        exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # the page must work offline
        "--virtual-time-budget=15000",  # let MathJax finish typesetting
        *args,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


# --------------------------------------------------------------------------- pure parts


def test_prepare_notebook_tags_and_removes_cells():
    nb = synthetic_release()
    before = json.dumps(nb, sort_keys=True)
    out = prepare_notebook(nb)
    assert json.dumps(nb, sort_keys=True) == before, "the input notebook must not change"
    nbformat.validate(out)

    texts = [_cell_text(c) for c in out.cells]
    assert not any("check(" in t for t in texts), "test cells are dropped"

    (stub,) = [
        c for c in out.cells if c.cell_type == "code" and "NotImplementedError" in _cell_text(c)
    ]
    assert "skip-execution" in stub.metadata["tags"]
    assert stub.outputs == []
    note = out.cells[out.cells.index(stub) - 1]
    assert note.cell_type == "markdown"
    assert "{admonition}" in note.source and "Exercise" in note.source

    (written,) = [c for c in out.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "why"]
    assert "YOUR ANSWER HERE" not in written.source
    assert "{admonition}" in written.source and "Exercise" in written.source

    # narrative and demo cells are kept as they are, and are executed (no skip tag)
    for src in ("# Title\n\nStrides: $s_k$.", "import torch\nprint(torch.arange(3))", "x = 1"):
        (cell,) = [c for c in out.cells if _cell_text(c) == src]
        assert "skip-execution" not in cell.metadata.get("tags", [])
        assert "remove-cell" not in cell.metadata.get("tags", [])
    assert len({c.id for c in out.cells}) == len(out.cells)
    assert out.metadata["kernelspec"]["name"] == "python3"


def test_prepare_notebook_refuses_instructor_notebooks():
    nb = synthetic_release()
    nb.cells[2].source = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION"
    with pytest.raises(ValueError, match="BEGIN SOLUTION"):
        prepare_notebook(nb)


def test_stage_sources(tmp_path):
    course = tmp_path / "course"
    for chapter in ("ch02_views", "ch01_storage"):
        (course / chapter).mkdir(parents=True)
        nbformat.write(synthetic_release(), course / chapter / f"{chapter}.ipynb")
    assert [p.parent.name for p in find_notebooks(course)] == ["ch01_storage", "ch02_views"]

    src = tmp_path / "site-src"
    staged = stage_sources(course, src)
    assert [p.relative_to(src).as_posix() for p in staged] == [
        "ch01_storage/ch01_storage.ipynb",
        "ch02_views/ch02_views.ipynb",
    ]
    assert (src / "conf.py").is_file() and (src / "index.md").is_file()
    assert (src / "_static" / "mathjax" / "tex-svg.js").is_file()
    nb = nbformat.read(staged[0], as_version=4)
    assert not any("check(" in _cell_text(c) for c in nb.cells)
    stage_sources(course, src)  # a second run replaces the staging folder


# --------------------------------------------------------------------------- built site


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """Build the website once from the release notebooks; return the output folder."""
    if not (COURSE / CHAPTER / f"{CHAPTER}.ipynb").is_file():
        pytest.skip(
            f"no release notebook {COURSE / CHAPTER / CHAPTER}.ipynb yet "
            "(generate course/ with nbgrader first)"
        )
    out = tmp_path_factory.mktemp("site") / "html"
    index = build_site(COURSE, out, capstone="short")  # the full run: README, make site
    assert index == out / "index.html" and index.is_file()
    return out


RELEASED = sorted(p.name for p in COURSE.iterdir() if (p / f"{p.name}.ipynb").is_file())


@pytest.fixture(scope="session", params=RELEASED)
def chapter(request) -> str:
    """Every released chapter in turn."""
    return request.param


@pytest.fixture(scope="session")
def chapter_page(site, chapter) -> Path:
    page = site / chapter / f"{chapter}.html"
    assert page.is_file(), sorted(p.name for p in site.iterdir())
    return page


@pytest.fixture(scope="session")
def browser(site, tmp_path_factory) -> dict[tuple[str, str], Future]:
    """Headless Chromium on every chapter page, once: it dumps the DOM after scripts ran
    (``"dom"``: its standard output) and takes a screenshot (``"shot"``: to
    ``<its folder>/chapter.png``), the same run under both keys. Each run has a folder and
    profile of its own; they run two at a time (each mostly waits on one core)."""
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed (run scripts/ensure-system-packages.sh)")
    runs = {}
    with ThreadPoolExecutor(2) as pool:
        for name in RELEASED:
            uri = (site / name / f"{name}.html").as_uri()
            folder = tmp_path_factory.mktemp("chromium")
            run = pool.submit(chromium, folder, "--dump-dom", "--window-size=1280,2400",
                              f"--screenshot={folder / 'chapter.png'}", uri)
            runs[name, "dom"] = runs[name, "shot"] = run
        return runs


@pytest.fixture(scope="session")
def rendered_dom(chapter_page, chapter, browser) -> str:
    """The chapter page's DOM after scripts (MathJax) ran in headless Chromium."""
    proc = browser[chapter, "dom"].result()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "</html>" in proc.stdout, proc.stderr[-3000:]
    return proc.stdout


def test_index_lists_chapters_in_order(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "reftensor: how PyTorch works inside" in index
    links = re.findall(r'href="([^"#]+\.html)"', index)
    chapters = [p.parent.name for p in find_notebooks(COURSE)]
    order = [
        next(i for i, link in enumerate(links) if link.startswith(f"{ch}/")) for ch in chapters
    ]
    assert order == sorted(order)


def test_no_network_resources(site):
    external = re.compile(
        r'<(?:script|link|img|iframe|source|audio|video)\b[^>]*\b(?:src|href)="(?:https?:)?//',
        re.IGNORECASE,
    )
    for page in site.rglob("*.html"):
        match = external.search(page.read_text(encoding="utf-8"))
        assert match is None, f"{page.relative_to(site)}: {match.group(0)}"
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8", errors="replace")
        assert not re.search(r"(?:url\(|@import)\s*['\"]?(?:https?:)?//", text), css


def test_title_and_typeset_math(rendered_dom, chapter_page, chapter):
    title = chapter_title(COURSE / chapter / f"{chapter}.ipynb")
    visible = VisibleText.of(rendered_dom)
    assert title in visible

    static = chapter_page.read_text(encoding="utf-8")
    math_nodes = len(re.findall(r'class="math notranslate', static))
    typeset = rendered_dom.count("<mjx-container")
    assert math_nodes > 0, "the chapter has no math"
    assert typeset >= math_nodes, f"MathJax typeset {typeset} of {math_nodes} formulas"
    assert "data-mjx-error" not in rendered_dom, "MathJax reported a TeX error"
    undefined = re.findall(r'<mtext mathcolor="red">(\\[A-Za-z]+)</mtext>', rendered_dom)
    assert not undefined, f"undefined TeX macros: {undefined}"


def test_no_raw_latex_in_visible_text(rendered_dom):
    visible = VisibleText.of(rendered_dom)
    for pattern in (r"\$\$", r"\$[^$\s][^$]*\$", r"\\[()\[\]]", r"\\[A-Za-z]{2,}"):
        match = re.search(pattern, visible)
        context = visible[max(0, match.start() - 60) : match.end() + 60] if match else ""
        assert match is None, f"raw LaTeX {pattern!r} in the page: ...{context}..."


def test_figure_from_executed_cell(chapter_page, site):
    static = chapter_page.read_text(encoding="utf-8")
    srcs = re.findall(r'<img\b[^>]*\bsrc="([^"]+\.png)"', static)
    built = [s for s in srcs if "_images/" in s and "_static/" not in s]
    assert built, f"no figure from an executed cell; images: {srcs}"
    for src in built:
        image = (chapter_page.parent / src).resolve()
        assert image.is_file() and image.stat().st_size > 0, image
        assert image.is_relative_to(site.resolve())


FOLD = re.compile(r'<details class="reference-piece">.*?</details>', re.S)


def test_no_solutions_or_tests(site, chapter_page):
    """Outside the reference pieces' folds (which hold reftensor's own code for the pieces)."""
    files = [*site.rglob("*.html"), *site.rglob("*.ipynb"), site / "searchindex.js"]
    secret = solution_lines()
    for path in files:
        raw = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            raw = FOLD.sub("", raw.replace("\\n", "\n").replace('\\"', '"'))
        else:
            raw = FOLD.sub("", raw)
        text = page_text(raw) if path.suffix == ".html" else raw
        for marker in FORBIDDEN:
            assert marker not in raw and marker not in text, f"{marker!r} in {path}"
        for line in secret:
            assert line not in raw and line not in text, f"solution line {line!r} in {path}"
    chapter = chapter_page.read_text(encoding="utf-8")
    assert "check(" not in chapter and "check(" not in page_text(chapter)


def test_screenshot(chapter_page, chapter, browser):
    proc = browser[chapter, "shot"].result()
    shot = Path(proc.args[-2].removeprefix("--screenshot="))
    assert proc.args[-1] == chapter_page.as_uri()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert shot.is_file() and shot.stat().st_size > 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_each_piece_is_followed_by_its_reference_behind_a_fold(site):
    """Chapter 1's five exercises are pieces of reftensor: after each, the reference
    function, folded (closed until opened), with the body the student edition leaves out."""
    page = (site / "ch01_storage" / "ch01_storage.html").read_text(encoding="utf-8")
    folds = FOLD.findall(page)
    names = [re.search(r"<code>(\w+)</code>", f)[1] for f in folds]
    assert names == ["contiguous_strides", "storage_index", "is_contiguous", "unfold_layout",
                     "channels_last_strides"]
    assert all(" open" not in f.split(">", 1)[0] for f in folds)
    unfold = page_text(folds[3])
    assert "new_stride[dimension] = step * stride[dimension]" in unfold
    assert "reftensor/layout.py" in unfold


def test_the_capstone_page_shows_the_run_its_build_made(site):
    """Chapter 10's full-run cells read the run ``build_site`` made (here a short one): its
    table, one row per run of ``capstone.SETTINGS`` with identical split, batches and first
    weights, and the figure of the CNN's losses."""
    page = (site / "ch10_capstone" / "ch10_capstone.html").read_text(encoding="utf-8")
    text = page_text(page)
    assert f"each stopped after {SHORT_CAPSTONE_STEPS} steps" in text
    rows = re.findall(r"\b(cnn|mlp) (sgd|adam) +(\d+) +(True|False) ", text)
    assert [(m, o) for m, o, _, _ in rows] == [(m, o) for m, o in capstone.SETTINGS]
    assert all(int(n) == SHORT_CAPSTONE_STEPS and same == "True" for _, _, n, same in rows)
    # the loss figure: an image of the build's between the table and the next section
    table = page.index(f"each stopped after {SHORT_CAPSTONE_STEPS} steps")
    after = page[table:page.index("Written answer", table)]
    assert re.search(r'<img\b[^>]*\bsrc="[^"]*_images/[^"]+\.png"', after), after[-2000:]


def test_the_capstone_run_choices(tmp_path):
    assert run_capstone(tmp_path, "none") is None and not any(tmp_path.iterdir())
    with pytest.raises(ValueError, match="capstone must be one of"):
        run_capstone(tmp_path, "some")


def test_a_site_for_a_class_being_graded_has_no_reference_pieces():
    from autograder.course import edition
    from autograder.course.site import reference_pieces

    nb = nbformat.read(COURSE / "ch01_storage" / "ch01_storage.ipynb", as_version=4)
    shown = prepare_notebook(nb, reference_pieces("all"))
    hidden = prepare_notebook(nb, reference_pieces("none"))
    text = lambda n: "\n".join(c.source for c in n.cells)  # noqa: E731
    assert text(shown).count('<details class="reference-piece">') == 5
    assert '<details' not in text(hidden)
    assert len(shown.cells) == len(hidden.cells) + 5
    published = reference_pieces("published")
    assert {p.chapter for n, p in pieces.PIECES.items()
            if n in published} <= set(edition.published_chapters())
    with pytest.raises(ValueError, match="reference must be one of"):
        reference_pieces("some")
