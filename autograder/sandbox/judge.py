"""The sandbox side of the trusted re-check: run one exercise's answer on given inputs.

Runs inside the sandbox as ``python -m autograder.sandbox.judge <out-fd> <in-fd>``, with no torch,
no references and no expected values anywhere it can see. The conversation with the grader, which
writes to ``in-fd`` and reads ``out-fd``:

1. First line in: ``{"sources": ["<answer cell>", ...], "function": "storage_index",
   "watch": ["torch", "reftensor"]}``, and ``"adapter"`` where the exercise calls its answer
   through one (``Exercise.adapter``). The judge executes the answer cells in one namespace
   (``check`` is a no-op there, and ``pieces.register``, the line above each answer, returns
   the function unchanged: the answer is judged alone, never through a library; everything
   else an answer uses it must import itself). A cell
   that is not plain Python (``%%time``, ``%timeit``, ``!ls``, ``%load_ext``...) is turned
   into Python by IPython's own input transformer and runs in a real ``InteractiveShell``
   whose namespace is the answer's, as it would in the student's notebook.
2. It writes ``{"event": "ready", "cell_errors": [...]}`` out.
3. Then one line in per case: ``{"case": 3, "args": <tagged args>}``. The grader sends
   a case only after it has the answer to the one before, and the visible (public) cases
   first, so while the answer computes any value that feedback may quote, this process holds
   no input it has not been given: nothing in its memory, its stack or its pipes can tell the
   answer a hidden input early.
4. For each case, one line out: ``{"case": 3, "ok": <tagged value>}`` or
   ``{"case": 3, "error": "IndexError"}``; at end of input ``{"event": "done", "imports":
   [...]}``.

The student's own prints go to stdout/stderr, which the grader bounds and ignores. Imports of
watched modules (torch, reftensor) are recorded with an audit hook, which the answer cannot
remove, so the grader can flag answers that lean on a reference.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from autograder.course.adapters import adapted
from autograder.course.plain import NotPlain, decode, encode, to_plain


def _noop_check(*args: Any, **kwargs: Any) -> None:
    """Stands in for ``check`` so an answer cell that calls it still runs."""


class _Pieces:
    """Stands in for ``reftensor.pieces`` so the ``@pieces.register`` line of an answer cell
    runs; the function is judged on its own, so registering it anywhere means nothing."""

    @staticmethod
    def register(fn: Any) -> Any:
        return fn


_SHELL: list[Any] = []


def _ipython(namespace: dict[str, Any]) -> Any:
    """The InteractiveShell whose user namespace is ``namespace`` (history off), made once."""
    if _SHELL:
        return _SHELL[0]
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class Shell(InteractiveShell):
        def enable_gui(self, gui: str | None = None) -> None:
            """No event loop to hook here: ``%matplotlib`` just selects its backend."""

    config = Config()
    config.HistoryManager.enabled = False
    _SHELL.append(Shell.instance(config=config, user_ns=namespace))
    return _SHELL[0]


def run_cell(source: str, number: int, namespace: dict[str, Any]) -> None:
    """Execute one answer cell in ``namespace``, as Python or, when it is not plain Python,
    the way IPython runs it; raise what it raises."""
    name = f"<answer cell {number}>"
    try:
        code = compile(source, name, "exec")
    except SyntaxError:
        shell = _ipython(namespace)
        code = compile(shell.transform_cell(source), name, "exec")
    exec(code, namespace)


def main() -> None:
    out = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    stdin = os.fdopen(int(sys.argv[2]), "rb")
    header = json.loads(stdin.readline())
    watch = set(header.get("watch", []))
    imported: set[str] = set()

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "import" and args and str(args[0]).split(".")[0] in watch:
            imported.add(str(args[0]))

    sys.addaudithook(audit)
    judge_pid = os.getpid()

    def send(message: dict[str, Any]) -> None:
        if os.getpid() == judge_pid:  # a fork of the answer's never speaks for the judge
            out.write(json.dumps(message) + "\n")

    namespace: dict[str, Any] = {"__name__": "__main__", "check": _noop_check,
                                 "pieces": _Pieces()}
    cell_errors = []
    for number, source in enumerate(header["sources"]):
        try:
            run_cell(source, number + 1, namespace)
        except BaseException as exc:  # noqa: BLE001 - recorded, the other cells still run
            cell_errors.append(f"answer cell {number + 1}: {_name_of(exc)}")
    function = namespace.get(header["function"])
    if "expected" in header:  # only when the grader's plain-data defence is switched off
        _compare_here(function, header, send)
        send({"event": "done", "imports": sorted(imported)})
        out.flush()
        os._exit(0)
    send({"event": "ready", "cell_errors": cell_errors})
    while line := stdin.readline():
        index = -1
        try:
            request = json.loads(line)
            index = request["case"]
            if not callable(function):
                raise NameError(header["function"])
            value = adapted(function, header.get("adapter", ""))(*decode(request["args"]))
            _only_the_judge(judge_pid)
            send({"case": index, "ok": encode(to_plain(value))})
        except NotPlain:
            send({"case": index, "error": "NotPlain"})
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: the case just fails
            _only_the_judge(judge_pid)
            send({"case": index, "error": _name_of(exc)})
    send({"event": "done", "imports": sorted(imported)})
    out.flush()
    os._exit(0)  # no atexit handlers or lingering threads of the answer run after this


#: characters of an exception's class name that are sent back (torch's are far shorter)
NAME_LIMIT = 200


def _name_of(exc: BaseException) -> str:
    """The exception's class name, cut to :data:`NAME_LIMIT` characters: an answer chooses
    it, and a megabyte of name on every case would only fill the result channel."""
    return type(exc).__name__[:NAME_LIMIT]


def _only_the_judge(judge_pid: int) -> None:
    """A fork of the answer's that returns into the judge's loop ends here, so that it never
    reads the judge's next case."""
    if os.getpid() != judge_pid:
        os._exit(0)


def _compare_here(function: Any, header: dict[str, Any], send: Any) -> None:
    """The classic, unsafe design: every case and its expected value sent at once, compared
    inside the sandbox with the answer's own ``==``. The grader never does this; its tests
    switch to it to show what it lets through."""
    for index, (tagged, expected) in enumerate(zip(header["cases"], header["expected"],
                                                   strict=True)):
        try:
            value = adapted(function, header.get("adapter", ""))(*decode(tagged))
            agree = "value" in expected and value == decode(expected["value"])
        except BaseException as exc:  # noqa: BLE001
            agree = expected.get("raises") == type(exc).__name__
        send({"case": index, "agree": bool(agree)})


if __name__ == "__main__":
    main()
