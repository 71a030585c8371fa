"""Making what a student wrote safe before it reaches a person: as text, and as HTML.

Anything a submission controls (answer sources, cell metadata, exception names, returned
values, folder names) may hold lone surrogates, terminal escape sequences, bidirectional
overrides or megabytes of text. ``safe_text`` turns such a string into one that can be written
to a terminal, a CSV file, JSON or a log without breaking the writer or the reader's screen.
``written_answer`` turns a markdown answer into HTML that a well-kept sanitizer (nh3) has
cleaned, in a form that nbgrader's markdown renderer leaves as it is (feedback pages and
Formgrader render markdown cells without escaping raw HTML).
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["safe_text", "safe_student_id", "written_answer", "TEXT_LIMIT", "ANSWER_LIMIT",
           "ANSWER_CLASS", "NO_MATH_CLASS"]

TEXT_LIMIT = 500  # characters kept of one student-controlled string in a report line

# C0 and C1 controls, DEL, bidirectional embeddings/overrides/isolates, line and paragraph
# separators, zero-width characters and the BOM: none of them belongs in a one-line report.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                     "\ud800-\udfff]")
_STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """``text`` as one printable line: every control character, lone surrogate and
    bidirectional or invisible formatting character written as a ``\\xNN``/``\\uNNNN``
    escape, and at most ``limit`` characters (a longer one ends in ``... [N more]``).
    The result encodes as UTF-8 without error and holds no escape sequence a terminal
    obeys."""
    if not isinstance(text, str):
        text = str(text)
    head = text[: limit * 2]  # escaping can only lengthen; never scan more than needed
    out = _UNSAFE.sub(_escape, head)
    if len(out) > limit or len(text) > len(head):
        return out[:limit] + f"... [{max(len(text) - limit, 1)} more]"
    return out


def safe_student_id(name: str) -> bool:
    """Whether a folder name can be used as a student id everywhere a student id goes
    (nbgrader's gradebook, Formgrader's pages, file names, CSV): letters, digits and
    ``. _ @ + -``, at most 64 characters, not starting with punctuation."""
    return _STUDENT_ID.fullmatch(name) is not None


#: characters of a written answer that are rendered; the rest is replaced by a note
ANSWER_LIMIT = 100_000

# Characters no written answer needs and that HTML or a Rust string cannot carry as they are:
# C0 controls but tab, newline and carriage return; DEL and C1 controls; lone surrogates.
_ANSWER_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# Whatever a markdown parser (or Python's str.splitlines) might take for the end of a line.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# TeX macros with which MathJax makes links, sets styles or classes, loads extensions or
# defines new macros (which could rename any of these). nbconvert's pages load MathJax with
# its Safe extension; an answer that uses one of them is still kept from MathJax entirely.
_RISKY_TEX = re.compile(
    r"\\(href|url|class|cssId|style|bbox|require|unicode|mmlToken|html|data|texttip|mathtip|"
    r"toggle|action|def|gdef|edef|xdef|let|newcommand|renewcommand|providecommand|"
    r"newenvironment|renewenvironment|DeclareMathOperator|Newextarrow)(?![A-Za-z])",
    re.IGNORECASE)

#: the class of the one ``<div>`` that holds a sanitized written answer
ANSWER_CLASS = "written-answer"
#: the class MathJax (2 and 3, by default) does not typeset inside
NO_MATH_CLASS = "tex2jax_ignore"


def _answer_policy() -> dict[str, Any]:
    """The options of the nh3 cleaner for written answers: formatting, tables, code (with
    Pygments' highlighting classes) and links to http, https and mailto addresses only."""
    from pygments.token import STANDARD_TYPES

    tags = {"p", "br", "hr", "em", "strong", "b", "i", "u", "s", "del", "ins", "sub", "sup",
            "small", "mark", "abbr", "q", "cite", "code", "pre", "kbd", "samp", "var",
            "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
            "h1", "h2", "h3", "h4", "h5", "h6", "a", "span", "div",
            "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"}
    # Tags whose content goes too: it is code, styles, frames or markup that is not text.
    dropped = {"script", "style", "template", "noscript", "iframe", "frame", "frameset",
               "object", "embed", "applet", "svg", "math", "textarea", "title", "xmp",
               "noembed", "noframes", "select", "canvas", "audio", "video", "head", "meta",
               "link", "base", "form", "button"}
    return {
        "tags": tags,
        "clean_content_tags": dropped,
        "attributes": {"*": {"title", "lang"}, "a": {"href"}, "ol": {"start"},
                       "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}},
        "allowed_classes": {"div": {ANSWER_CLASS, NO_MATH_CLASS, "highlight"},
                            "span": {c for c in STANDARD_TYPES.values() if c}},
        "url_schemes": {"http", "https", "mailto"},
        "url_relative": "deny",  # no links into the Jupyter server, its files or its API
        "link_rel": "noopener noreferrer",
        "strip_comments": True,
    }


@functools.cache
def _cleaner() -> Any:
    """The nh3 cleaner that every written answer goes through (built once)."""
    import nh3

    return nh3.Cleaner(**_answer_policy())


def _clean(html: str) -> str:
    """``html`` cleaned with the written-answer policy, laid out as :func:`written_answer`
    stores it: on one line, every ``<pre>`` opened with the newline that HTML parsers drop."""
    out = _cleaner().clean(_ANSWER_UNSAFE.sub("\ufffd", html))
    # An HTML parser drops a newline right after <pre>: give it one to drop, so that the
    # text of the block is the same after each parse. (nh3 escapes "<" in text and
    # attribute values, and pre keeps no attributes, so "<pre>" is only ever that tag.)
    out = out.replace("<pre>", "<pre>\n")
    # No line break at all, so markdown sees a single HTML block it passes through as it is
    # (an HTML block ends at a blank line); as character references they mean the same.
    return _LINE_BREAK.sub(lambda m: f"&#{ord(m.group())};", out)


def _render(markdown: str) -> str:
    """``markdown`` rendered as nbconvert renders a markdown cell (mistune with nbconvert's
    math-aware parsers, raw HTML kept), without heading anchors, and with each image turned
    into a link to it so that no page a person opens fetches anything by itself."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class _Renderer(IPythonRenderer):
        def image(self, text: str, url: str, title: str | None = None) -> str:
            """A link to the image instead of the image."""
            return self.link(f"[image: {text}]" if text else "[image]", url, title)

    renderer = _Renderer(escape=False, exclude_anchor_links=True)
    return MarkdownWithMath(renderer=renderer).render(markdown)


def _uses_risky_tex(html: str) -> bool:
    """Whether the text of ``html`` (all of its text nodes joined, as MathJax might join
    them) holds a TeX macro that makes links, styles or new macros."""
    import html as html_module

    import nh3

    text = html_module.unescape(nh3.clean(html, tags=set(), clean_content_tags=set()))
    return _RISKY_TEX.search(text) is not None


def written_answer(markdown: str) -> str:
    """A student's markdown answer as sanitized HTML that nbgrader renders unchanged.

    The answer is rendered as nbconvert renders a markdown cell, then cleaned by nh3 with a
    fixed policy: formatting, lists, tables, headings, code and links to http(s)/mailto only
    (with ``rel="noopener noreferrer"``), ``title`` and ``lang`` attributes; no scripts,
    event handlers, styles, ids, forms, frames, objects, SVG, MathML, images (a markdown
    image becomes a link to it) or relative links. The result is one
    ``<div class="written-answer">`` on a single line (line breaks are character
    references), which markdown renderers pass through as one HTML block, so the page shows
    exactly the cleaned HTML. Math stays as text (``$x$``) for MathJax to typeset, unless it
    uses a macro that makes links, styles or new macros: then the block carries
    ``tex2jax_ignore`` and MathJax leaves it alone. Answers longer than ``ANSWER_LIMIT``
    characters are cut, with a note saying so.
    """
    text = _ANSWER_UNSAFE.sub("\ufffd", markdown)
    note = ""
    if len(text) > ANSWER_LIMIT:
        note = (f"<p><em>[answer cut here: {len(text) - ANSWER_LIMIT} more characters are "
                f"not shown]</em></p>")
        text = text[:ANSWER_LIMIT]
    body = _clean(_render(text)) + note
    classes = ANSWER_CLASS + (f" {NO_MATH_CLASS}" if _uses_risky_tex(body) else "")
    return f'<div class="{classes}">{body}</div>'
