"""Formgrader on this course's hub, without an Autograde that runs student code unsandboxed.

nbgrader's Formgrader lists each submission with an *Autograde* button. On the hub it would
run nbgrader's autograde as the grader account, in the Formgrader service's own process
tree: the student's code with that account's rights, outside the grading sandbox, on the
copies ``python -m autograder formgrader-sync`` gave the account. Root grades in the sandbox
(``python -m autograder grade``); so this Jupyter server extension, loaded only in the
Formgrader service (``jupyterhub_config.py``), answers that button's request itself:
nothing runs, and the grader reads why, in nbgrader's own error dialog. ``install.sh`` puts
this module in the course's venv.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

#: the requests refused: Formgrader's per-submission Autograde (nbgrader 0.9's API)
REFUSED = (r"/formgrader/api/submission/([^/]+)/([^/]+)/autograde",)
MESSAGE = ("Autograde is switched off on this hub: it would run the student's code outside "
           "the grading sandbox. The course's grades come from root's sandboxed grader "
           "(python -m autograder grade, then formgrader-sync).")


class RefusedAutograde(JupyterHandler):
    """Answers as nbgrader answers a failed autograde (``success`` false, a log and an
    error, JSON text under tornado's default content type, which Formgrader's page parses
    itself), so Formgrader shows the message in its error dialog."""

    @web.authenticated
    def post(self, *args: str) -> None:
        self.finish(json.dumps({"success": False, "log": MESSAGE, "error": MESSAGE}))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "reftensor_formgrader_guard"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    web_app = server_app.web_app
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base, path), RefusedAutograde)
                                 for path in REFUSED])
    # Tornado tries handler groups in the order they were added, and Formgrader's may have
    # been added first: this group goes before every other
    rules = web_app.default_router.rules
    rules.insert(0, rules.pop(-2))
    server_app.log.info("reftensor: Formgrader's Autograde is answered by a refusal")
