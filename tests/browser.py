"""Headless Chromium checks that a page runs nothing a student wrote (stored XSS).

:func:`script_executions` opens one page (a file or an http URL) in Debian's Chromium through
Playwright and returns what it found, as readable lines:

* code that ran: an init script, applied to every frame before the page's own scripts,
  defines the sentinel ``__xss(mark)`` that the test payloads call (``window.top.__xss``),
  replaces ``alert``/``confirm``/``prompt``/``print``, listens for ``postMessage`` calls that
  start with the sentinel's name (from frames of another origin), and reports every event
  that reaches an element carrying an inline ``on<event>`` handler, whatever that handler
  does; real dialogs, popups, and page errors that mention the sentinel count as well;
* what would run with a click or a hover: every link whose address the browser reads as
  ``javascript:``, ``vbscript:`` or ``data:`` (each is also clicked), every ``on*``
  attribute, ``srcdoc``, ``<script>`` mentioning the sentinel, style with ``expression()``
  or ``javascript:``, and URL attributes with those schemes, in every frame.

The page's own scripts (nbconvert's require.js and MathJax loaders, Formgrader's code) do
not count: only the sentinel, dialogs, handlers on elements in ``scope``, and dangerous
addresses. Requests that leave the page's origin are aborted, so nothing is fetched from the
network (MathJax stays untypeset offline).

:func:`jupyter_server` runs a Jupyter server with nbgrader's Formgrader on a grading
workspace, and :func:`formgrader_executions` visits the Formgrader submission view of every
submission of a chapter.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "SENTINEL", "unavailable", "script_executions", "Browser",
           "JupyterServer", "jupyter_server", "formgrader_executions", "spawn_progress_cut"]

#: JupyterHub's spawn-pending page reads the server's start as an event stream; the browser
#: cuts it (net::ERR_ABORTED) when the page moves on to the lab, on a loaded machine too
SPAWN_PROGRESS = re.compile(r"/hub/api/users/[^/]+/(server|servers/[^/]+)/progress$")


def spawn_progress_cut(url: str, failure: str | None) -> bool:
    """Whether a failed request is that stream, aborted: the one failed request that is not
    an error (every other failed request is)."""
    path = urllib.parse.urlsplit(url).path
    return bool(SPAWN_PROGRESS.search(path)) and "ERR_ABORTED" in (failure or "")


#: Debian's Chromium binary (``/usr/bin/chromium`` is a shell wrapper around it)
CHROMIUM = Path("/usr/lib/chromium/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"]
#: the function every test payload calls with its mark; any mention of it counts
SENTINEL = "__xss"
_REPORT = "\u2063xss-harness\u2063"  # prefix of the init script's console reports

# Runs in every frame before the page's scripts. Reports go out through console.debug
# (captured here before a page can replace it), which Playwright hears from every frame,
# cross-origin ones included.
_INIT_SCRIPT = r"""
(() => {
  const PREFIX = %(prefix)s, SENTINEL = %(sentinel)s, SCOPE = %(scope)s;
  const debug = console.debug.bind(console);
  const report = (kind, detail) => {
    try { debug(PREFIX + kind + ": " + String(detail).slice(0, 300)); } catch (e) {}
  };
  const where = () => { try { return location.href.slice(0, 80); } catch (e) { return "?"; } };
  Object.defineProperty(window, SENTINEL, {
    value: (mark) => report("sentinel", mark + " (in " + where() + ")"),
    configurable: false, writable: false,
  });
  for (const name of ["alert", "confirm", "prompt", "print"]) {
    try {
      window[name] = (msg) => { report("dialog " + name, msg); return null; };
    } catch (e) {}
  }
  addEventListener("message", (e) => {
    if (typeof e.data === "string" && e.data.includes(SENTINEL)) report("message", e.data);
  }, true);
  // Any event that reaches an element with an inline handler for it: the handler runs.
  const types = ["abort", "animationend", "animationiteration", "animationstart",
    "beforeinput", "beforetoggle", "blur", "canplay", "change", "click", "contextmenu",
    "dblclick", "drag", "error", "focus", "focusin", "focusout", "input", "invalid",
    "keydown", "keyup", "load", "loadeddata", "loadstart", "mousedown", "mouseenter",
    "mousemove", "mouseout", "mouseover", "mouseup", "pageshow", "play", "pointerdown",
    "pointerenter", "pointerover", "pointerup", "reset", "resize", "scroll", "scrollend",
    "select", "submit", "toggle", "transitionend", "transitionrun", "transitionstart",
    "wheel", "begin", "end", "repeat", "start", "finish", "bounce"];
  for (const type of types) {
    addEventListener(type, (e) => {
      const t = e.target;
      if (t instanceof Element && t.hasAttribute("on" + type)
          && (t.closest(SCOPE) || t === document.body)) {
        report("handler", "on" + type + " ran on <" + t.localName + ">: "
               + t.getAttribute("on" + type).slice(0, 120) + " (in " + where() + ")");
      }
    }, true);
  }
})();
"""

# Evaluated in every frame once the page has settled: what is there, not what ran.
_SCAN_SCRIPT = r"""
([scope, sentinel]) => {
  const out = [], links = [];
  const squeeze = (v) => v.replace(/[\u0000-\u0020\u007f-\u009f]+/g, "").toLowerCase();
  const risky = (v) => /^(javascript|vbscript|livescript|data):/.test(squeeze(v))
                       && !/^data:image\/(png|gif|jpe?g|webp);/.test(squeeze(v));
  const urlAttrs = new Set(["href", "src", "action", "formaction", "data", "xlink:href",
    "poster", "background", "lowsrc", "dynsrc", "codebase", "cite", "ping", "manifest"]);
  const tag = (el) => "<" + el.localName + ">";
  const found = new Set();
  for (const root of document.querySelectorAll(scope)) {
    found.add(root);
    for (const el of root.querySelectorAll("*")) found.add(el);
  }
  for (const el of found) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase(), value = a.value;
      if (name.startsWith("on")) {
        out.push("event handler attribute " + name + " on " + tag(el) + ": " + value);
      } else if (urlAttrs.has(name) && risky(value)) {
        out.push("dangerous " + name + " on " + tag(el) + ": " + value);
      } else if (name === "srcdoc") {
        out.push("srcdoc on " + tag(el) + ": " + value);
      } else if (name === "style" && /expression\(|javascript:|behavior:|-moz-binding/
                 .test(squeeze(value))) {
        out.push("dangerous style on " + tag(el) + ": " + value);
      } else if (name === "content" && /url=(javascript|vbscript|data):/
                 .test(squeeze(value))) {
        out.push("dangerous meta content on " + tag(el) + ": " + value);
      }
    }
  }
  for (const s of document.querySelectorAll("script")) {
    if ((s.textContent + " " + (s.getAttribute("src") || "")).includes(sentinel)) {
      out.push("script element mentioning " + sentinel + ": " + s.textContent.slice(0, 200));
    }
  }
  for (const s of [...found].filter((el) => el.localName === "style")) {
    const text = squeeze(s.textContent);
    if (/expression\(|javascript:|vbscript:|behavior:|-moz-binding/.test(text)
        || text.includes(sentinel.toLowerCase())) {
      out.push("dangerous style element: " + s.textContent.slice(0, 200));
    }
  }
  // Links as the browser reads them (entities decoded, tabs and newlines dropped).
  for (const a of document.querySelectorAll("a[href], area[href]")) {
    let protocol = "";
    try { protocol = a.protocol; } catch (e) {}
    if (["javascript:", "vbscript:", "data:"].includes(protocol)
        || risky(a.getAttribute("href"))) {
      out.push("dangerous link " + tag(a) + ": " + a.getAttribute("href"));
      links.push(a);
    }
  }
  window.__xssHarnessLinks = links;
  return [out, links.length];
}
"""

_CLICK_SCRIPT = r"""
(i) => {
  const a = (window.__xssHarnessLinks || [])[i];
  if (a) { a.removeAttribute("target"); a.click(); }
}
"""


def unavailable() -> str | None:
    """Why the browser checks cannot run here, or None when they can."""
    if not CHROMIUM.is_file():
        return f"Chromium is not installed at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


def _as_url(target: str | os.PathLike[str]) -> str:
    """A URL as it is, or a file path as a ``file://`` URL."""
    text = os.fspath(target)
    if text.startswith(("http://", "https://", "file://")):
        return text
    return Path(text).resolve().as_uri()


def _origin(url: str) -> str:
    """The scheme and host of ``url`` (all files share one)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme != "file" else "file://"


class Browser:
    """One headless Chromium for several pages (start it once, check many pages).

    Use as a context manager; :meth:`check` opens one page in a fresh browser context.
    """

    def __init__(self) -> None:
        self._pw: Any = None
        self._browser: Any = None

    def __enter__(self) -> Browser:
        from playwright.sync_api import sync_playwright

        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        self._pw = sync_playwright().start()
        try:
            self._browser = self._pw.chromium.launch(executable_path=str(CHROMIUM),
                                                     args=CHROMIUM_ARGS)
        except BaseException:
            self._pw.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            if self._pw is not None:
                self._pw.stop()

    def check(self, target: str | os.PathLike[str], *, token: str | None = None,
              scope: str = "body", settle_ms: int = 600, ready: str | None = None,
              timeout_ms: int = 30_000) -> list[str]:
        """Open ``target`` (a file path, ``file://`` or ``http(s)://`` URL) and return what
        ran or could run there (see the module's docstring), sorted and without repeats.

        ``token`` is sent as ``Authorization: token ...`` (a Jupyter server's token).
        ``scope`` is the CSS selector of the elements whose ``on*`` attributes and
        dangerous addresses count (the whole body by default). ``ready`` is a selector to
        wait for before the page counts as loaded.
        """
        url = _as_url(target)
        origin = _origin(url)
        found: list[str] = []
        context = self._browser.new_context(
            extra_http_headers={"Authorization": f"token {token}"} if token else None,
            java_script_enabled=True)
        try:
            context.set_default_timeout(timeout_ms)

            def route(r: Any) -> None:  # nothing leaves the page's origin
                req_url = r.request.url
                if req_url.startswith(("data:", "blob:", "about:")) \
                        or _origin(req_url) == origin:
                    r.continue_()
                else:
                    if SENTINEL in req_url:
                        found.append(f"request mentioning {SENTINEL}: {req_url[:200]}")
                    r.abort()

            context.route("**/*", route)
            init = _INIT_SCRIPT % {"prefix": json.dumps(_REPORT),
                                   "sentinel": json.dumps(SENTINEL),
                                   "scope": json.dumps(scope)}
            context.add_init_script(script=init)
            page = context.new_page()
            context.on("page", lambda p: found.append(f"popup opened: {p.url[:200]}"))

            def console(msg: Any) -> None:
                text = msg.text
                if text.startswith(_REPORT):
                    found.append(text[len(_REPORT):])

            def dialog(d: Any) -> None:
                found.append(f"real dialog {d.type}: {d.message[:200]}")
                with contextlib.suppress(Exception):
                    d.dismiss()

            def page_error(err: Any) -> None:
                if SENTINEL in str(err):
                    found.append(f"page error mentioning {SENTINEL}: {str(err)[:200]}")

            page.on("console", console)
            page.on("dialog", dialog)
            page.on("pageerror", page_error)
            response = page.goto(url, wait_until="load")
            if response is not None and not response.ok:
                raise RuntimeError(f"{url} answered {response.status}")
            if ready:
                page.wait_for_selector(ready, state="attached")
            page.wait_for_timeout(settle_ms)
            clicks = []
            for frame in list(page.frames):
                with contextlib.suppress(Exception):  # a frame may be gone by now
                    lines, count = frame.evaluate(_SCAN_SCRIPT, [scope, SENTINEL])
                    found.extend(lines)
                    clicks += [(frame, i) for i in range(count)]
            # One click at a time: a second navigation would cancel a javascript: URL
            # that is still waiting to run.
            for frame, i in clicks:
                with contextlib.suppress(Exception):
                    frame.evaluate(_CLICK_SCRIPT, i)
                    page.wait_for_timeout(120)
            page.wait_for_timeout(settle_ms // 2)
        finally:
            context.close()
        return sorted(set(found))

    def links(self, url: str, selector: str, *, token: str | None = None,
              timeout_ms: int = 30_000) -> list[str]:
        """The absolute ``href`` of every element matching ``selector`` on the page at
        ``url``, once at least one is there (Formgrader fills its tables by script)."""
        context = self._browser.new_context(
            extra_http_headers={"Authorization": f"token {token}"} if token else None)
        try:
            context.set_default_timeout(timeout_ms)
            page = context.new_page()
            page.goto(url, wait_until="load")
            page.wait_for_selector(selector, state="attached")
            return page.eval_on_selector_all(selector, "els => els.map(e => e.href)")
        finally:
            context.close()


def script_executions(target: str | os.PathLike[str], *, token: str | None = None,
                      scope: str = "body", settle_ms: int = 600,
                      ready: str | None = None) -> list[str]:
    """What ran or could run on one page: :meth:`Browser.check` in a browser of its own."""
    with Browser() as browser:
        return browser.check(target, token=token, scope=scope, settle_ms=settle_ms,
                             ready=ready)


@dataclass(frozen=True)
class JupyterServer:
    """A running Jupyter server: where it answers, its token, and its log file."""

    base_url: str
    token: str
    log: Path

    def url(self, path: str) -> str:
        """The absolute URL of ``path`` on this server."""
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def get_json(self, path: str) -> Any:
        """GET ``path`` with the token; the answer as JSON."""
        request = urllib.request.Request(self.url(path),
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Only the server extensions Formgrader needs: JupyterLab, Notebook and the language server
# would add seconds to every start.
_SERVER_CONFIG = {"ServerApp": {"jpserver_extensions": {
    "jupyterlab": False, "notebook": False, "jupyter_lsp": False, "notebook_shim": False,
    "jupyter_server_terminals": False,
    "nbgrader.server_extensions.formgrader": True, "jupyter_server_mathjax": True,
    "nbgrader.server_extensions.validate_assignment": False,
    "nbgrader.server_extensions.assignment_list": False,
    "nbgrader.server_extensions.course_list": False}}}


@contextlib.contextmanager
def jupyter_server(workspace: Path, *, token: str = "xss-harness-token",
                   start_timeout: float = 90.0) -> Iterator[JupyterServer]:
    """A Jupyter server with Formgrader, started in ``workspace`` (nbgrader takes the course
    root and its ``nbgrader_config.py`` from the server's working directory); Jupyter's
    config, runtime and IPython folders are temporary. Stopped and cleaned up on exit."""
    home = Path(tempfile.mkdtemp(prefix="xss-jupyter-"))
    for sub in ("config", "runtime", "ipython", "data"):
        (home / sub).mkdir()
    (home / "config" / "jupyter_server_config.json").write_text(json.dumps(_SERVER_CONFIG))
    from autograder.classroom.graders import formgrader_environment

    # the environment `python -m autograder formgrader` gives its server
    env = {**formgrader_environment(dict(os.environ)), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / "ipython"),
           "JUPYTER_DATA_DIR": str(home / "data"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    port = _free_port()
    log = home / "server.log"
    cmd = [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--allow-root", f"--IdentityProvider.token={token}",
           "--ServerApp.port_retries=0", "--ServerApp.root_dir=."]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=workspace, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    server = JupyterServer(f"http://127.0.0.1:{port}", token, log)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the Jupyter server exited ({proc.returncode}):\n"
                                   f"{log.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                server.get_json("/api/status")
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Jupyter server did not answer in {start_timeout} s:"
                                   f"\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        yield server
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def formgrader_executions(server: JupyterServer, chapter: str, *,
                          browser: Browser | None = None, notebook: str | None = None,
                          ready: str = "#notebook-container") -> dict[str, list[str]]:
    """Visit Formgrader's list of the submissions of ``chapter`` (notebook ``notebook``,
    the chapter's name by default) and the submission view of each one it links to; return
    what ran or could run on each page, by URL.

    On the list only its table of submissions counts (the page's own "Show All Names"
    button has an inline handler); on a submission view only the notebook, and the view
    counts as loaded once ``ready`` (a CSS selector) is on it.
    """
    notebook = notebook or chapter
    listing = server.url(f"/formgrader/gradebook/{chapter}/{notebook}")
    with contextlib.ExitStack() as stack:
        own = browser or stack.enter_context(Browser())
        links = own.links(listing, "#main-table a[href*='/formgrader/submissions/']",
                          token=server.token)
        if not links:
            raise RuntimeError(f"Formgrader lists no submission at {listing}")
        found = {listing: own.check(listing, token=server.token, scope="#main-table",
                                    ready="#main-table tr")}
        for link in sorted(set(links)):
            found[link] = own.check(link, token=server.token, scope="#notebook-container",
                                    ready=ready)
    return found
