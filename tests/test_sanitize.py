"""Stored XSS through written answers, and student text in reports (autograder.sandbox.sanitize).

A written answer is markdown that nbgrader's feedback pages and Formgrader render without
escaping HTML, so grading stores it as sanitized HTML (``sanitize.written_answer``). These
tests hold it to three properties, on a catalogue of known payloads and on generated text
that mixes their pieces:

(a) what nbconvert's ``markdown2html`` makes of the stored answer has no script, no
    event-handler attribute, no style, no frame, object or form, and no link that is not
    http(s) or mailto (checked by a parser of their own, not by the sanitizer's policy);
(b) the stored answer is a fixed point: ``markdown2html`` passes it through unchanged and
    cleaning it again with the same policy changes nothing;
(c) ordinary markdown (paragraphs, lists, code, emphasis, links, tables, inline math) keeps
    its text and its structure.

The slow end-to-end tests grade a chapter-1 submission holding every payload, then open its
feedback page and its Formgrader submission view in headless Chromium (tests/browser.py) and
find nothing run; the same payloads rendered without sanitizing are caught, so the check can
fail.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Callable
from html.parser import HTMLParser

import nbformat
import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st
from nbconvert.filters.markdown import markdown2html
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.filters.strings import strip_files_prefix

from autograder.classroom import feedback
from autograder.grading import class_run
from autograder.sandbox import sanitize
from tests.strategies import examples

# ---------------------------------------------------------------------------------------
# The payload catalogue: each one calls the browser harness's sentinel with its own mark.
# ---------------------------------------------------------------------------------------


def _call(mark: str) -> str:
    """JavaScript that reports ``mark`` to the browser harness's sentinel."""
    return f"window.top.__xss('{mark}')"


#: name -> (payload maker, what the harness must see on an unsanitized page: "runs" (code
#: ran), "found" (a dangerous element or address was reported), "inert" (neither: it needs
#: a hover, MathJax from the network, or a browser that no longer exists))
PAYLOADS: dict[str, tuple[Callable[[str], str], str]] = {
    # Markdown syntax first: an HTML block further up could swallow what follows it.
    "md_js_link": (lambda m: f"[md link](javascript:{_call(m)})", "runs"),
    "md_js_link_upper": (lambda m: f"[upper](JAVASCRIPT:{_call(m)})", "runs"),
    "md_ref_link": (lambda m: f"[ref link][r{m}]\n\n[r{m}]: javascript:{_call(m)}", "runs"),
    "md_autolink": (lambda m: f"<javascript:{_call(m)}>", "runs"),
    "md_data_link": (lambda m: f"[md data](data:text/html,{m})", "found"),
    "md_vbscript_link": (lambda m: f"[vb](vbscript:msgbox({m}))", "found"),
    "md_image": (lambda m: f"![img {m}](javascript:{_call(m)})", "inert"),
    "math_href": (lambda m: f"$\\href{{javascript:{_call(m)}}}{{math link}}$", "inert"),
    "math_block_href": (lambda m: f"$$\n\\href{{javascript:{_call(m)}}}{{x}}\n$$", "inert"),
    "script": (lambda m: f"<script>{_call(m)}</script>", "runs"),
    "img_onerror": (lambda m: f'<img src=x onerror="{_call(m)}">', "runs"),
    "img_mixed_case": (lambda m: f'<IMG SRC=x OnErRoR="{_call(m)}">', "runs"),
    "svg_onload": (lambda m: f'<svg onload="{_call(m)}"></svg>', "runs"),
    "svg_anchor": (lambda m: f'<svg><a xlink:href="javascript:{_call(m)}"><text x="9" y="9">'
                             f"svg link</text></a></svg>", "found"),
    "details_ontoggle": (lambda m: f'<details open ontoggle="{_call(m)}"><summary>s'
                                   f"</summary>d</details>", "runs"),
    "body_onload": (lambda m: f'<body onload="{_call(m)}">', "runs"),
    "input_autofocus": (lambda m: f'<input autofocus onfocus="{_call(m)}">', "runs"),
    "html_js_link": (lambda m: f'<a href="javascript:{_call(m)}">html link</a>', "runs"),
    "entity_tab_link": (lambda m: f'<a href="jav&#x09;ascript:{_call(m)}">tab link</a>',
                        "runs"),
    "entity_link": (lambda m: f'<a href="&#106;avascript:{_call(m)}">entity link</a>', "runs"),
    "space_link": (lambda m: f'<a href=" javascript:{_call(m)}">space link</a>', "runs"),
    "vbscript_link": (lambda m: f"<a href=\"vbscript:msgbox('{m}')\">vb link</a>", "found"),
    "data_link": (lambda m: f'<a href="data:text/html,&lt;script&gt;{_call(m)}&lt;/script&gt;">'
                            f"data link</a>", "found"),
    "iframe_srcdoc": (lambda m: f'<iframe srcdoc="&lt;script&gt;{_call(m)}&lt;/script&gt;">'
                                f"</iframe>", "runs"),
    "iframe_js_src": (lambda m: f'<iframe src="javascript:{_call(m)}"></iframe>', "runs"),
    "object_data": (lambda m: f'<object data="data:text/html,&lt;script&gt;top.postMessage('
                              f"'__xss {m}','*')&lt;/script&gt;\"></object>", "runs"),
    "embed_src": (lambda m: f'<embed src="javascript:{_call(m)}">', "found"),
    "meta_refresh": (lambda m: f'<meta http-equiv="refresh" content="9;url=javascript:'
                               f'{_call(m)}">', "found"),
    "form_action": (lambda m: f'<form action="javascript:{_call(m)}"><button>go</button>'
                              f"</form>", "found"),
    "style_expression": (lambda m: f'<div style="width: expression({_call(m)})">css</div>',
                         "found"),
    "style_url": (lambda m: f'<div style="background:url(javascript:{_call(m)})">css</div>',
                  "found"),
    "style_element": (lambda m: f"<style>@import 'javascript:{_call(m)}';</style>", "found"),
    "nested_script": (lambda m: f"<scr<script>ipt>{_call(m)}</scr</script>ipt>", "found"),
    "comment_break": (lambda m: f'<!--><img src=x onerror="{_call(m)}">-->', "runs"),
    "cdata_break": (lambda m: f'<![CDATA[><img src=x onerror="{_call(m)}">]]>', "runs"),
    "noscript_mxss": (lambda m: f'<noscript><p title="</noscript><img src=x onerror='
                                f'{_call(m)}>"></p></noscript>', "runs"),
    "broken_attr": (lambda m: f'<img src="x` `<script>{_call(m)}</script>"` `>', "runs"),
    "mouseover": (lambda m: f'<div onmouseover="{_call(m)}">hover</div>', "found"),
    "base_href": (lambda m: f'<base href="javascript:{_call(m)}//">', "found"),
    "video_source": (lambda m: f'<video><source onerror="{_call(m)}"></video>', "runs"),
    "math_element": (lambda m: f'<math><maction actiontype="statusline" xlink:href='
                               f'"javascript:{_call(m)}">m</maction></math>', "found"),
    # Last: mistune looks for a lowercase </script>, so this one swallows the rest as HTML.
    "script_mixed_case": (lambda m: f"<ScRiPt>{_call(m)}</sCrIpT>", "runs"),
}


def mark(name: str) -> str:
    """The unique mark of one payload (letters, digits and underscores only)."""
    return f"xss_{name}"


def catalogue_markdown() -> str:
    """Every payload, each with its own mark, as one written answer (blank-line separated)."""
    return "\n\n".join(make(mark(name)) for name, (make, _) in PAYLOADS.items())


# ---------------------------------------------------------------------------------------
# An independent reading of rendered HTML: what is dangerous in it, whatever the policy.
# ---------------------------------------------------------------------------------------

DANGEROUS_TAGS = {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet",
                  "svg", "math", "link", "meta", "base", "form", "input", "button", "textarea",
                  "select", "img", "image", "video", "audio", "source", "track", "template",
                  "noscript", "marquee", "details", "body", "html", "head", "title", "xmp",
                  "plaintext", "isindex", "portal", "canvas"}
URL_ATTRS = {"href", "src", "action", "formaction", "data", "xlink:href", "poster",
             "background", "lowsrc", "dynsrc", "codebase", "cite", "ping", "srcset"}
SAFE_URL = re.compile(r"(https?://|mailto:)", re.I)
RISKY_TEX = re.compile(r"\\(href|url|class|cssId|style|require|def|newcommand|let)(?![A-Za-z])")


class _Reader(HTMLParser):
    """Tags, attributes, text and <pre> text of an HTML fragment, as a browser reads them
    (entities decoded; the newline right after <pre> dropped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.pre: list[str] = []
        self._in_pre = 0
        self._pre_start = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, name, value or "") for name, value in attrs]
        self._pre_start = tag == "pre"
        if tag == "pre":
            self._in_pre += 1
            self.pre.append("")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._in_pre:
            self._in_pre -= 1

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            if self._pre_start and data.startswith("\n"):
                data = data[1:]
            self.pre[-1] += data
        self._pre_start = False
        self.text.append(data)


def read(fragment: str) -> _Reader:
    """``fragment`` as :class:`_Reader` sees it."""
    reader = _Reader()
    reader.feed(fragment)
    reader.close()
    return reader


def dangers(fragment: str) -> list[str]:
    """Everything in ``fragment`` that could run code, load something, or link anywhere but
    an http(s) or mailto address."""
    found = []
    if re.search(r"<\s*/?\s*(script|iframe|object|embed|svg|math|style|img)\b", fragment, re.I):
        found.append("a dangerous tag in the raw text")
    reader = read(fragment)
    found += [f"<{t}>" for t in reader.tags if t in DANGEROUS_TAGS]
    for tag, name, value in reader.attrs:
        squeezed = re.sub(r"[\x00-\x20\x7f-\x9f]+", "", value)
        if name.startswith("on") or name in {"style", "srcdoc", "id", "name", "formaction"}:
            found.append(f"<{tag} {name}={value!r}>")
        elif name in URL_ATTRS and not SAFE_URL.match(squeezed):
            found.append(f"<{tag} {name}={value!r}>")
        elif name not in URL_ATTRS and "javascript:" in squeezed.lower():
            found.append(f"<{tag} {name}={value!r}>")
    text = "".join(reader.text)
    if RISKY_TEX.search(text) and sanitize.NO_MATH_CLASS not in fragment.split(">", 1)[0]:
        found.append("TeX that makes links or macros, left to MathJax")
    return found


def rendered(answer_markdown: str) -> tuple[str, str]:
    """(the stored answer, what nbconvert's markdown2html makes of it)."""
    stored = sanitize.written_answer(answer_markdown)
    return stored, markdown2html(stored)


def assert_safe_fixed_point(answer_markdown: str) -> str:
    """Properties (a) and (b) for one answer; the stored answer."""
    stored, page = rendered(answer_markdown)
    assert stored.startswith('<div class="written-answer') and stored.endswith("</div>")
    assert not re.search("[\n\r\u2028\u2029]", stored), "the stored answer spans lines"
    assert page.rstrip("\n") == stored, "markdown2html changed the stored answer"
    assert dangers(page) == []
    # nbgrader's templates also apply strip_files_prefix, which deletes "files/" after
    # 'href="' or '](' even in text, and nbconvert's HTMLExporter then parses the whole page
    # with Python's html.parser (BeautifulSoup) and writes it out again: what is left after
    # both must be as harmless.
    assert dangers(str(BeautifulSoup(strip_files_prefix(page), features="html.parser"))) == []
    assert sanitize._clean(stored) == stored, "cleaning again changes the stored answer"
    stored.encode("utf-8")
    return stored


# ---------------------------------------------------------------------------------------
# (a), (b): the catalogue, alone and together, and generated mixtures of its pieces.
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_each_payload_is_defused(name):
    make, _ = PAYLOADS[name]
    for answer in (make(mark(name)), f"Some words first.\n\n{make(mark(name))}\n\nAnd after.",
                   f"- item {make(mark(name))}\n- other", f"> {make(mark(name))}"):
        assert_safe_fixed_point(answer)


def test_the_whole_catalogue_is_defused_and_the_unsanitized_one_is_not():
    assert_safe_fixed_point(catalogue_markdown())
    assert len(dangers(markdown2html(catalogue_markdown()))) > len(PAYLOADS)


FRAGMENTS = [make("m") for make, _ in PAYLOADS.values()] + [
    "<", ">", "</", "/>", "<a href=\"", "<a href='", "\"", "'", "=", " onerror=", " onload=",
    "<img", "<svg", "<script", "</script>", "<iframe", "<div", "</div>", "<pre>", "</pre>",
    "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>", "javascript:", "jav", "ascript:", "&#x09;",
    "&#", "&#106;", "&lt;", "&amp;", "data:", "vbscript:", "[", "](", ")", "]:", "![", "\\",
    "\\href{", "}", "{", "$", "$$", "`", "```", "```python\n", "~~~", "*", "_", "**", "|",
    "---", "# ", "> ", "- ", "1. ", "    ", "\t", "\n", "\n\n", "\r\n", "\u2028", "\x00",
    "\ud800", "https://example.org/", "mailto:a@example.org", "files/", "expression(",
    "style=", "<style>", "<body ", "<math>", "<details open ", "<base href=", "&#10;",
]
mixtures = st.lists(st.one_of(st.sampled_from(FRAGMENTS),
                              st.text(st.characters(exclude_categories=()), max_size=8)),
                    max_size=30).map("".join)


@settings(max_examples=examples(400))
@given(mixtures)
def test_generated_mixtures_are_defused(answer):
    assert_safe_fixed_point(answer)


@settings(max_examples=examples(60))
@given(mixtures)
def test_sanitizing_twice_stays_safe(answer):
    assert_safe_fixed_point(sanitize.written_answer(answer))


# ---------------------------------------------------------------------------------------
# (c): ordinary markdown keeps its text and structure.
# ---------------------------------------------------------------------------------------

words = st.lists(st.sampled_from(["tensor", "stride", "view", "storage", "offset", "shape",
                                  "the", "of", "a", "is", "copy", "x1", "42", "3.5"]),
                 min_size=1, max_size=6).map(" ".join)
inline = st.one_of(
    words, words.map(lambda w: f"*{w}*"), words.map(lambda w: f"**{w}**"),
    words.map(lambda w: f"`{w} = 1`"),
    st.tuples(words, st.sampled_from(["a", "b/c", "docs?x=1"])).map(
        lambda t: f"[{t[0]}](https://example.org/{t[1]})"),
    st.sampled_from(["$x^2$", "$\\sum_i s_i \\cdot k_i$", "$a_{ij}$", "$\\frac{n}{2}$"]),
)
paragraph = st.lists(inline, min_size=1, max_size=5).map(" ".join)
code_line = st.text(st.sampled_from("abcxyz0123 =+-*/()[]:,.#'\"<>&"), max_size=20)
blocks = st.one_of(
    paragraph,
    st.lists(paragraph, min_size=1, max_size=4).map(lambda ps: "\n".join(f"- {p}" for p in ps)),
    st.lists(paragraph, min_size=1, max_size=4).map(
        lambda ps: "\n".join(f"{i + 1}. {p}" for i, p in enumerate(ps))),
    st.lists(code_line, min_size=1, max_size=6).map(
        lambda ls: "```python\n" + "\n".join(ls) + "\n```"),
    st.lists(code_line, min_size=1, max_size=6).map(lambda ls: "```\n" + "\n".join(ls) + "\n```"),
    words.map(lambda w: f"## {w}"),
    paragraph.map(lambda p: f"> {p}"),
    st.tuples(words, words).map(lambda t: f"| {t[0]} | {t[1]} |\n|---|---|\n| 1 | 2 |"),
)
documents = st.lists(blocks, min_size=1, max_size=6).map("\n\n".join)


def reference(markdown: str) -> str:
    """nbconvert's own rendering of ordinary markdown (no heading anchors), in the wrapper."""
    body = MarkdownWithMath(renderer=IPythonRenderer(escape=False, exclude_anchor_links=True))
    return f'<div class="written-answer">{body.render(markdown)}</div>'


def squeeze(text: str) -> str:
    """``text`` with every run of whitespace made one space."""
    return " ".join(text.split())


@settings(max_examples=examples(120))
@given(documents)
def test_ordinary_markdown_keeps_text_and_structure(answer):
    stored = assert_safe_fixed_point(answer)
    got, want = read(stored), read(reference(answer))
    assert got.tags == want.tags
    assert squeeze("".join(got.text)) == squeeze("".join(want.text))
    assert got.pre == want.pre  # code keeps every line, blank ones included
    hrefs = [v for _, n, v in got.attrs if n == "href"]
    assert hrefs == [v for _, n, v in want.attrs if n == "href"]
    assert got.attrs.count(("a", "rel", "noopener noreferrer")) == len(hrefs)
    assert sanitize.NO_MATH_CLASS not in stored  # ordinary math is left to MathJax


def test_math_stays_text_for_mathjax():
    stored, page = rendered("Cost is $O(n^2)$ and $$\\sum_i x_i$$ in total.")
    assert "$O(n^2)$" in html.unescape(page) and "$$\\sum_i x_i$$" in html.unescape(page)
    assert sanitize.NO_MATH_CLASS not in stored


@pytest.mark.parametrize("tex", ["$\\href{javascript:alert(1)}{x}$",
                                 "<div>$\\hr<b></b>ef{javascript:alert(1)}{x}$</div>",
                                 "$\\def\\h{\\hr}\\h ef{x}$", "$\\class{x}{y}$",
                                 "$\\unicode{x}$", "\\(\\url{javascript:alert(1)}\\)"])
def test_tex_that_makes_links_or_macros_is_kept_from_mathjax(tex):
    stored = assert_safe_fixed_point(tex)
    assert stored.startswith(f'<div class="written-answer {sanitize.NO_MATH_CLASS}">')


def test_links_keep_safe_addresses_only():
    stored, _ = rendered("[a](https://example.org/x) [b](mailto:t@example.org) "
                         "[c](/api/contents) [d](#top) [e](files/x.ipynb) [f](ftp://x.org)")
    hrefs = [v for _, n, v in read(stored).attrs if n == "href"]
    assert hrefs == ["https://example.org/x", "mailto:t@example.org"]
    assert stored.count('rel="noopener noreferrer"') == 6
    assert squeeze("".join(read(stored).text)) == "a b c d e f"


def test_images_become_links_and_nothing_is_fetched():
    stored, _ = rendered("![a diagram](https://example.org/d.png) ![x](javascript:alert(1)) "
                         '<img src="https://example.org/e.png">')
    reader = read(stored)
    assert "img" not in reader.tags
    assert [v for _, n, v in reader.attrs if n == "href"] == ["https://example.org/d.png"]
    assert "[image: a diagram]" in "".join(reader.text)


def test_blank_lines_in_code_survive_as_one_block():
    answer = "```\nline one\n\n\nline four\n```\n\n<pre>\n\nraw</pre>"
    stored = assert_safe_fixed_point(answer)
    assert read(stored).pre == ["line one\n\n\nline four\n", "\nraw"]


def test_controls_surrogates_and_length_are_bounded():
    stored = assert_safe_fixed_point("a\x00b\x1b[31mc\ud800d\x85e\u202ef")
    assert "\x00" not in stored and "\x1b" not in stored and "\ud800" not in stored
    long = assert_safe_fixed_point("word " * (sanitize.ANSWER_LIMIT // 4))
    assert len(long) < sanitize.ANSWER_LIMIT * 1.5 and "answer cut here" in long
    assert sanitize.written_answer("") == '<div class="written-answer"></div>'


# ---------------------------------------------------------------------------------------
# safe_text and safe_student_id
# ---------------------------------------------------------------------------------------

UNSAFE_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                          "\ud800-\udfff]")
any_text = st.text(st.characters(exclude_categories=()), max_size=1200)


@settings(max_examples=examples(200))
@given(any_text, st.integers(1, 600))
def test_safe_text_is_one_printable_bounded_line(text, limit):
    out = sanitize.safe_text(text, limit)
    out.encode("utf-8")
    assert not UNSAFE_CHARS.search(out)
    assert len(out) <= limit + len(f"... [{len(text)} more]")
    if len(text) <= limit and not UNSAFE_CHARS.search(text):
        assert out == text
    buffer = io.StringIO()
    csv.writer(buffer).writerow([out, "next"])
    assert next(csv.reader(io.StringIO(buffer.getvalue()))) == [out, "next"]


def test_safe_text_escapes_what_terminals_and_readers_obey():
    assert sanitize.safe_text("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert sanitize.safe_text("abc\u202edcba") == "abc\\u202edcba"
    assert sanitize.safe_text("lone \ud83d half") == "lone \\ud83d half"
    assert sanitize.safe_text("a\r\nb") == "a\\x0d\\x0ab"
    assert sanitize.safe_text("x" * 1000, 10) == "x" * 10 + "... [990 more]"
    assert sanitize.safe_text(ValueError("boom")) == "boom"


def test_safe_student_id():
    assert sanitize.safe_student_id("ada.lovelace@uni-x_1+2")
    for bad in ("", "-x", ".hidden", "a b", "a/b", "<script>", "x" * 65, "é", "a\u202e"):
        assert not sanitize.safe_student_id(bad)


# ---------------------------------------------------------------------------------------
# End to end: grading, feedback and Formgrader in headless Chromium.
# ---------------------------------------------------------------------------------------

CHAPTER = "ch01_storage"
BENIGN = "An ordinary sentence the grader must still see: contiguous strides."

#: code answers whose printed text, rich (HTML and JavaScript) outputs, exception class names,
#: exception text and returned values carry payloads: the feedback quotes some of them (the
#: exception's name, the value returned for a failing visible case), Formgrader shows the
#: graded copy of the notebook
CODE_ANSWERS = {
    "storage_index": "\n".join([
        "from IPython.display import HTML, Javascript, display",
        "",
        f"print({'<script>' + _call(mark('printed')) + '</script>'!r})",
        f"display(HTML({'<img src=x onerror=' + _call(mark('display_html')) + '>'!r}))",
        f"display(Javascript({_call(mark('display_js'))!r}))",
        "",
        "",
        "def storage_index(index, stride, storage_offset):",
        f"    name = {'<img src=x onerror=' + _call(mark('exception_name')) + '>'!r}",
        f"    text = {'<script>' + _call(mark('exception_text')) + '</script>'!r}",
        "    raise type(name, (Exception,), {})(text)"]),
    "contiguous_strides": "\n".join([
        "def contiguous_strides(shape):",
        f"    return {'<svg onload=' + _call(mark('returned')) + '></svg>'!r}"]),
}


def _sandbox_reason() -> str | None:
    """Why student code cannot be graded here, or None."""
    from autograder.sandbox import bwrap as sandbox

    status = sandbox.status()
    return None if status.available else f"no sandbox: {status.reason}"


def _written_grade_id() -> str:
    """The grade_id of the chapter's one written (markdown) answer cell."""
    from tests.notebooks import nbgrader_meta, released

    nb = nbformat.read(released(CHAPTER), as_version=4)
    ids = [nbgrader_meta(c)["grade_id"] for c in nb.cells
           if c.cell_type == "markdown" and nbgrader_meta(c).get("solution")]
    assert len(ids) == 1, ids
    return ids[0]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module (skips where there is none)."""
    from tests import browser as harness

    reason = harness.unavailable()
    if reason:
        pytest.skip(reason)
    with harness.Browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One chapter-1 submission whose written answer holds every payload, graded and with
    its feedback generated."""
    reason = _sandbox_reason()
    if reason:
        pytest.skip(reason)
    from autograder.grading import grade
    from tests.notebooks import write_submission

    root = tmp_path_factory.mktemp("xss")
    grade_id = _written_grade_id()
    answer = f"{BENIGN}\n\n{catalogue_markdown()}"
    write_submission(CHAPTER, root / "inbox" / "mallory" / CHAPTER,
                     {grade_id: answer, **CODE_ANSWERS})
    workspace = root / "ws"
    outcomes = class_run.grade_class(workspace, root / "inbox", CHAPTER, progress=False,
                                 settings=grade.Settings(exercise_timeout=6, cell_timeout=10))
    feedback.generate(workspace, CHAPTER)
    return {"workspace": workspace, "outcomes": outcomes, "grade_id": grade_id,
            "answer": answer, "root": root}


def _ran(findings: list[str], name: str) -> bool:
    """Whether the harness saw payload ``name``'s code run (not merely present)."""
    return any(mark(name) in f for f in findings
               if f.startswith(("sentinel", "handler", "message", "dialog", "real dialog")))


@pytest.mark.grading
@pytest.mark.slow
def test_harness_catches_the_payloads_on_an_unsanitized_page(browser, tmp_path):
    page = tmp_path / "unsanitized.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                    '<div class="text_cell_render">' + markdown2html(catalogue_markdown())
                    + "</div></body></html>")
    findings = browser.check(page)
    assert findings
    for name, (_, seen) in PAYLOADS.items():
        if seen == "runs":
            assert _ran(findings, name), (name, findings)
        elif seen == "found":
            assert any(mark(name) in f for f in findings), (name, findings)


@pytest.mark.grading
@pytest.mark.slow
def test_feedback_page_runs_nothing_the_student_wrote(graded, browser):
    [outcome] = graded["outcomes"]
    assert outcome.written_answered, outcome.reasons
    page = graded["workspace"] / "feedback" / "mallory" / CHAPTER / f"{CHAPTER}.html"
    text = page.read_text()
    assert BENIGN in text
    # the payloads in code reached the page as text: the exception's name and the value
    for name in ("exception_name", "returned"):
        assert mark(name) in text, name
    assert browser.check(page, ready=".written-answer") == []


@pytest.mark.grading
@pytest.mark.slow
def test_formgrader_runs_nothing_the_student_wrote(graded, browser):
    from tests import browser as harness

    workspace = graded["workspace"]
    for copy in ("autograded", "submitted"):
        nb = nbformat.read(workspace / copy / "mallory" / CHAPTER / f"{CHAPTER}.ipynb", 4)
        [cell] = [c for c in nb.cells
                  if c.metadata.get("nbgrader", {}).get("grade_id") == graded["grade_id"]]
        assert cell.source.startswith('<div class="written-answer') and "\n" not in cell.source
    autograded = workspace / "autograded" / "mallory" / CHAPTER / f"{CHAPTER}.ipynb"
    kept = autograded.read_bytes()
    with harness.jupyter_server(workspace) as server:
        found = harness.formgrader_executions(server, CHAPTER, browser=browser,
                                              ready=".written-answer")
        assert len(found) == 2 and all(v == [] for v in found.values()), found
        # The same view with the answer as the student wrote it: the check can fail.
        nb = nbformat.read(autograded, 4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == graded["grade_id"]:
                cell.source = graded["answer"]
        [url] = [url for url in found if "/submissions/" in url]
        try:
            nbformat.write(nb, autograded)
            raw = browser.check(url, token=server.token, scope="#notebook-container")
        finally:
            autograded.write_bytes(kept)
    assert _ran(raw, "script") and _ran(raw, "img_onerror") and _ran(raw, "md_js_link"), raw
