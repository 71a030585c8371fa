"""The sandbox side of the trusted re-check: run one exercise's answer on given inputs.

Runs inside the sandbox as ``python -m autograder.judge <fd>``, with no torch, no references
and no expected values anywhere it can see. It reads a request (JSON) from stdin:

    {"sources": ["<answer cell>", ...], "function": "storage_index",
     "cases": [<tagged args>, ...], "watch": ["torch", "reftensor"]}

executes the answer cells in one namespace (``check`` is a no-op there; everything else an
answer uses it must import itself), calls the function on every
case, and writes one JSON line per case to file descriptor ``fd`` (the student's own prints
go to stdout/stderr and are ignored):

    {"case": 3, "ok": <tagged value>}  or  {"case": 3, "error": "IndexError"}
    {"event": "done", "imports": [...], "cell_errors": [...]}

The trusted side compares these values with references it never sends. Lines arrive one by
one, so if the answer hangs or crashes, the cases already judged keep their results.
Imports of watched modules (torch, reftensor) are recorded with an audit hook, which the
answer cannot remove, so the grader can flag answers that lean on a reference.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from autograder.plain import NotPlain, decode, encode, to_plain


def _noop_check(*args: Any, **kwargs: Any) -> None:
    """Stands in for ``check`` so an answer cell that calls it still runs."""


def main() -> None:
    out = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    request = json.loads(sys.stdin.read())
    watch = set(request.get("watch", []))
    imported: set[str] = set()

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "import" and args and str(args[0]).split(".")[0] in watch:
            imported.add(str(args[0]))

    sys.addaudithook(audit)

    judge_pid = os.getpid()

    def send(message: dict[str, Any]) -> None:
        if os.getpid() == judge_pid:  # a fork of the answer's never speaks for the judge
            out.write(json.dumps(message) + "\n")

    namespace: dict[str, Any] = {"__name__": "__main__", "check": _noop_check}
    cell_errors = []
    for number, source in enumerate(request["sources"]):
        try:
            exec(compile(source, f"<answer cell {number + 1}>", "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - recorded, the other cells still run
            cell_errors.append(f"answer cell {number + 1}: {type(exc).__name__}")
    function = namespace.get(request["function"])
    if "expected" in request:  # only when the grader's plain-data defence is switched off
        _compare_here(function, request, send)
        send({"event": "done", "imports": sorted(imported), "cell_errors": cell_errors})
        out.flush()
        os._exit(0)
    for index, tagged in enumerate(request["cases"]):
        if not callable(function):
            send({"case": index, "error": "NameError"})
            continue
        try:
            args = decode(tagged)
            value = function(*args)
            send({"case": index, "ok": encode(to_plain(value))})
        except NotPlain:
            send({"case": index, "error": "NotPlain"})
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: the case just fails
            send({"case": index, "error": type(exc).__name__})
    send({"event": "done", "imports": sorted(imported), "cell_errors": cell_errors})
    out.flush()
    os._exit(0)  # no atexit handlers or lingering threads of the answer run after this


def _compare_here(function: Any, request: dict[str, Any], send: Any) -> None:
    """The classic, unsafe design: compare inside the sandbox with the answer's own ``==``.
    The grader never does this; its tests switch to it to show what it lets through."""
    for index, (tagged, expected) in enumerate(zip(request["cases"], request["expected"],
                                                   strict=True)):
        try:
            value = function(*decode(tagged))
            agree = "value" in expected and value == decode(expected["value"])
        except BaseException as exc:  # noqa: BLE001
            agree = expected.get("raises") == type(exc).__name__
        send({"case": index, "agree": bool(agree)})


if __name__ == "__main__":
    main()
