"""Graders' comments made safe for the feedback page.

nbgrader's feedback template renders each comment from the gradebook as markdown, without
escaping raw HTML. Comments come from the graders, but on a hub they are read back from the
grader account's gradebook (``autograder/classroom/graders.py``), a place other code can
write to. So the feedback run puts this preprocessor after nbgrader's ``GetGrades``: every comment
goes through the same nh3 policy as a written answer (``sanitize.written_answer``), which keeps
markdown's formatting and drops scripts, event handlers, styles and unsafe links.
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from autograder.sandbox import sanitize

#: The preprocessors of ``nbgrader generate_feedback``: nbgrader's own two, with this one
#: between them (given on its command line by ``feedback.generate``).
FEEDBACK_PREPROCESSORS = ("nbgrader.preprocessors.GetGrades",
                          "autograder.classroom.safe_comments.SafeComments",
                          "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor")


class SafeComments(Preprocessor):
    """Replace ``cell.metadata.nbgrader.comment`` (set by ``GetGrades``) by sanitized HTML."""

    enabled = Bool(True)  # nbconvert runs a registered preprocessor only when it is enabled

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        meta = cell.metadata.get("nbgrader", {})
        comment = meta.get("comment")
        if isinstance(comment, str) and comment:
            meta["comment"] = sanitize.written_answer(comment)
        elif comment is not None and not isinstance(comment, str):
            meta["comment"] = None
        return cell, resources
