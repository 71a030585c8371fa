"""The trusted re-check: run each exercise's answer in a sandbox and judge it here.

For every exercise, the student's answer cells run in a fresh sandbox (``autograder.sandbox.judge``)
on the cases of this grading run, and send back plain tagged values over a private file
descriptor. They are compared here with torch's references, which never enter a sandbox.
Lines arrive one per case, so a crash or a hang fails the cases it did not reach and the
exercise it happened in, nothing else. ``Settings`` also carries the switches the test suite
uses to turn one defence off at a time.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.course.plain import agree, decode
from autograder.course.references import Raises
from autograder.grading import trusted
from autograder.grading.rebuild import python_source
from autograder.sandbox import bwrap as sandbox

__all__ = ["WATCHED", "Settings", "DEFAULTS", "ExerciseVerdict",
           "flags_in_source", "sandbox_env", "Channel", "ChannelError",
           "recheck_exercise", "shrink_failure", "hidden_failure_message", "quote_failure"]

WATCHED = ["torch", "reftensor"]
#: Modules of the grader, readable in every sandbox, that hold an instructor's answer: chapter
#: 10's training loop (``capstone.train_steps``, what its reference runs on torch) and its
#: debugging clinic's fixed scripts (``capstone.fix_*``). An answer cell that imports one is
#: flagged for review, as one that imports torch.
SOLUTION_MODULES = ["autograder.course.capstone"]


@dataclass(frozen=True)
class Settings:
    """Time limits, and the defences. Real grading runs with every defence on; the test
    suite turns one off at a time to show the attack that defence stops."""

    exercise_timeout: float = 30.0  # wall seconds for one exercise's trusted re-check
    cell_timeout: int = 60  # seconds per cell in the notebook's own run
    # Wall seconds for one whole submission (every exercise and the notebook's own run); a
    # submission that takes more than slow_fraction of it is flagged for review.
    submission_budget: float = 120.0
    slow_fraction: float = 0.5
    rebuild: bool = True  # off: the submitted JSON is graded as is, every code cell counts
    sandbox: bool = True  # off: student code runs as a plain process and a plain kernel
    trusted: bool = True  # off: the recorded score is the notebook's own verdict
    fresh_seed: bool = True  # off: the re-check uses the notebook's public default seeds
    plain_data: bool = True  # off: expected values enter the sandbox, compared there with ==
    safe_feedback: bool = True  # off: feedback shows the student's own run as nbgrader left it


DEFAULTS = Settings()  # real grading: every defence on


@dataclass
class ExerciseVerdict:
    name: str
    visible: bool
    hidden: bool
    problem: str | None = None  # crash, timeout, missing function...
    imports: list[str] = field(default_factory=list)
    visible_failure: str | None = None  # the smallest failing fixed case, told the student
    seconds: float = 0.0
    # the same cases as the notebook's own hidden test cell (None: not known)
    notebook_hidden: bool | None = None
    hidden_failure: int | None = None  # the smallest failing drawn case (index into the plan)


# ---------------------------------------------------------------- step 2: trusted re-check
def flags_in_source(sources: list[str], depth: int = 0) -> set[str]:
    """Modules of WATCHED that the answer cells import or name, and modules of
    SOLUTION_MODULES that they import (IPython syntax included)."""
    found = set()
    for source in sources:
        try:
            tree = ast.parse(python_source(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Name):
                names = [node.id]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "__import__" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "run_cell_magic" and len(node.args) == 3 \
                    and isinstance(node.args[2], ast.Constant) \
                    and isinstance(node.args[2].value, str) and depth < 5:
                # the body of a cell magic (%%time ...) is Python too
                found |= flags_in_source([node.args[2].value], depth + 1)
            found |= {n.split(".")[0] for n in names if n.split(".")[0] in WATCHED}
            found |= {m for m in SOLUTION_MODULES for n in names
                      if n == m or n.startswith(m + ".")}
    return found


def _agrees(expected: Any, line: dict[str, Any] | None,
            close: Callable[[Any, Any], bool] | None = None) -> bool:
    """Does the judge's line for a case agree with the expected value, by the exercise's
    rule (``plain.agree``: its ``close``, else exactly), the rule its notebook check uses?"""
    if line is None:
        return False
    if isinstance(expected, Raises):
        return line.get("error") == expected.exception
    if "ok" not in line:
        return False
    try:
        return agree(close, expected, decode(line["ok"]))
    except Exception:  # noqa: BLE001 - NotPlain, deep or odd data: this case fails
        return False


def sandbox_env(runtime: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {"PYTHONPATH": str(runtime), "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env.update(extra or {})
    return env


# ---------------------------------------------------------------- the bounded result channel
LINE_LIMIT = 4 * 1024 * 1024  # bytes of one message from a sandbox
TOTAL_LIMIT = 32 * 1024 * 1024  # bytes of all messages from one sandbox
DEPTH_LIMIT = 64  # nesting of lists and objects in one message


class ChannelError(Exception):
    """A sandbox broke the result channel's bounds; the message says how (no student text)."""


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, level)
            if deepest > DEPTH_LIMIT:
                return deepest
            stack.extend((child, level + 1) for child in
                         (node.values() if isinstance(node, dict) else node))
    return deepest


class Channel:
    """Reads newline-ended JSON objects from a sandbox's pipe, bounded while they are read:
    at most ``LINE_LIMIT`` bytes a line, ``TOTAL_LIMIT`` in all, ``DEPTH_LIMIT`` levels.
    ``message()`` returns the next object, ``None`` at the end of the pipe, and raises
    ``ChannelError`` on a line past the bounds (the caller then stops the sandbox); a line
    that is not a JSON object (garbage, bad UTF-8, NaN, too deep) reads as ``{}``."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.total = 0

    def _line(self) -> bytes | None:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if len(self.buffer) > LINE_LIMIT:
                raise ChannelError(f"a line of more than {LINE_LIMIT} bytes")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.total += len(chunk)
            if self.total > TOTAL_LIMIT:
                raise ChannelError(f"more than {TOTAL_LIMIT} bytes in all")
            self.buffer += chunk

    def message(self) -> dict[str, Any] | None:
        line = self._line()
        if line is None:
            return None
        if len(line) > LINE_LIMIT:
            raise ChannelError(f"a line of more than {LINE_LIMIT} bytes")
        try:
            value = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
        except Exception:  # noqa: BLE001 - ValueError, RecursionError, UnicodeDecodeError...
            return {}
        if not isinstance(value, dict) or _depth(value) > DEPTH_LIMIT:
            return {}
        return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# ---------------------------------------------------------------- step 2: one exercise
#: How the trusted side holds a conversation with a judge: ``talk(send, channel, state,
#: end_input)`` sends messages with ``send``, reads answers from ``channel``, records what it
#: learns in ``state`` and calls ``end_input()`` when it has no more cases (the judge then
#: says done, which ``talk`` stores in ``state["done"]``).
Talk = Callable[[Callable[[dict[str, Any]], None], "Channel", dict[str, Any],
                 Callable[[], None]], None]


def _own_call(name: str) -> bool:
    """Does exercise ``name`` call its answer its own way (``Exercise.call``)?"""
    from autograder.course import exercises
    from autograder.course.exercises.spec import call_with_args

    try:
        return exercises.get(name).call is not call_with_args
    except KeyError:
        return False


def _close(name: str) -> Callable[[Any, Any], bool] | None:
    """Exercise ``name``'s comparison (``Exercise.close``; None: exact)."""
    from autograder.course import exercises

    try:
        return exercises.get(name).close
    except KeyError:
        return None


def _library(name: str) -> bool:
    """Is exercise ``name`` written with reftensor (``Exercise.library``)?"""
    from autograder.course import exercises

    try:
        return exercises.get(name).library
    except KeyError:
        return False


def _case_message(number: int, case: Any, own_call: bool) -> dict[str, Any]:
    """One case as the judge is sent it: its args, and its context only for an exercise
    whose own ``call`` reads it (the sandbox holds nothing of a case that its answer is not
    given)."""
    from autograder.course.plain import encode

    message: dict[str, Any] = {"case": number, "args": encode(case.args)}
    if own_call:
        message["context"] = encode(case.context)
    return message


def _converse(function: str, sources: list[str], runtime: Path, settings: Settings,
              timeout: float, talk: Talk,
              header_extra: dict[str, Any] | None = None) -> tuple[sandbox.Result,
                                                                   dict[str, Any]]:
    """Start the judge in a fresh sandbox and let ``talk`` hold the conversation, in a
    thread of its own; return the sandbox's result and the conversation's state. A broken
    or flooded channel, or no orderly end, stops the sandbox at once."""
    # an answer written with reftensor (``Exercise.library``) is run by the judge on the
    # sandbox's reftensor: its import is no flag there
    watch = [m for m in WATCHED if not (m == "reftensor" and _library(function))]
    header: dict[str, Any] = {"sources": sources, "function": function, "watch": watch,
                              "own_call": _own_call(function), **(header_extra or {})}
    results_read, results_write = os.pipe()
    cases_read, cases_write = os.pipe()
    stop = threading.Event()
    state: dict[str, Any] = {"done": None, "problem": None}
    open_fds = {results_read, cases_write}

    def send(message: dict[str, Any]) -> None:
        os.write(cases_write, (json.dumps(message) + "\n").encode())  # small: one case

    def end_input() -> None:
        if cases_write in open_fds:
            open_fds.discard(cases_write)
            os.close(cases_write)  # end of input: the judge says done and exits

    def converse() -> None:
        try:
            send(header)
            talk(send, Channel(results_read), state, end_input)
        except ChannelError as err:
            state["problem"] = f"broke the result channel ({err})"
        except OSError:  # the sandbox ended while we wrote
            pass
        finally:
            if not state["done"]:  # no orderly end: do not wait for the timeout
                stop.set()

    talker = threading.Thread(target=converse, daemon=True)
    talker.start()
    argv = [sys.executable, "-m", "autograder.sandbox.judge", str(results_write), str(cases_read)]
    try:
        if settings.sandbox:
            result = sandbox.run(argv, readable=[runtime], timeout=max(timeout, 0.1),
                                 env=sandbox_env(runtime),
                                 pass_fds=[results_write, cases_read], stop=stop,
                                 output_limit=64 * 1024)
        else:
            result = _unconfined(argv, readable=[runtime], timeout=timeout,
                                 env=sandbox_env(runtime),
                                 pass_fds=[results_write, cases_read])
    finally:
        os.close(results_write)
        os.close(cases_read)
    talker.join(timeout=10)
    for fd in list(open_fds):
        try:
            os.close(fd)
        except OSError:
            pass
    return result, state


def recheck_exercise(plan: trusted.ExercisePlan, sources: list[str], runtime: Path,
                     settings: Settings = Settings(),
                     timeout: float | None = None) -> ExerciseVerdict:
    """Run one exercise's cases in a fresh sandbox and judge the returned values here.

    The judge gets one case at a time, the visible ones first, each only after the answer to
    the one before has come back (see ``autograder.sandbox.judge``). Whatever the sandbox does to
    its result channel (floods, deep or broken JSON, forged lines) costs this exercise at most.
    """
    from autograder.course.plain import encode

    started = time.perf_counter()
    timeout = settings.exercise_timeout if timeout is None else timeout
    extra: dict[str, Any] = {}
    if not settings.plain_data:  # the classic design: the sandbox gets the answers too
        extra["cases"] = [encode(c.args) for c in plan.cases]
        extra["expected"] = [trusted.tag(e) for e in plan.expected]
    by_case: dict[int, dict[str, Any]] = {}

    def talk(send: Callable[[dict[str, Any]], None], channel: Channel,
             state: dict[str, Any], end_input: Callable[[], None]) -> None:
        if not settings.plain_data:
            while (message := channel.message()) is not None:
                if message.get("event") == "done":
                    state["done"] = message
                    break
                if isinstance(message.get("case"), int) and message["case"] not in by_case:
                    by_case[message["case"]] = message
            return
        ready = channel.message()
        if not ready or ready.get("event") != "ready":
            return
        own_call = _own_call(plan.name)
        for index, case in enumerate(plan.cases):  # visible (fixed) cases come first
            send(_case_message(index, case, own_call))
            message = channel.message()
            if message is None:
                return
            if message.get("case") == index:
                by_case[index] = message
        end_input()
        state["done"] = channel.message()

    result, state = _converse(plan.name, sources, runtime, settings, timeout, talk, extra)
    done = state["done"] if isinstance(state["done"], dict) else None
    if settings.plain_data:
        close = _close(plan.name)
        agree = [_agrees(e, by_case.get(i), close) for i, e in enumerate(plan.expected)]
    else:
        agree = [by_case.get(i, {}).get("agree") is True for i in range(len(plan.cases))]
    imports = done.get("imports", []) if done else []
    verdict = ExerciseVerdict(
        plan.name,
        visible=all(agree[i] for i in plan.visible()),
        hidden=all(agree[i] for i in plan.hidden()),
        notebook_hidden=all(agree[i] for i in plan.notebook) if plan.notebook else None,
        imports=[str(m)[:100] for m in imports[:20]] if isinstance(imports, list) else [],
        seconds=time.perf_counter() - started,
    )
    failing = [i for i in plan.visible() if not agree[i]]
    if failing:
        verdict.visible_failure = _failure_message(plan, failing[0], by_case.get(failing[0]))
    drawn = [i for i in plan.hidden() if i not in plan.visible() and not agree[i]]
    if drawn:
        verdict.hidden_failure = min(drawn, key=lambda i: (plan.cases[i].size(), i))
    if state["problem"]:
        verdict.problem = f"{plan.name}: the answer {state['problem']}"
    elif result.timed_out:
        verdict.problem = f"{plan.name}: stopped after {timeout:.0f} s (hang or loop)"
    elif done is None or done.get("event") != "done":
        verdict.problem = (f"{plan.name}: the answer killed its sandbox (exit status "
                           f"{result.returncode}) after {len(by_case)} of {len(plan.cases)} "
                           "cases")
    return verdict


class _Ended(Exception):
    """The judge stopped answering in the middle of a search."""


def shrink_failure(name: str, sources: list[str], runtime: Path,
                   settings: Settings = Settings(), timeout: float | None = None) -> Any:
    """The simplest input on which the answer disagrees with torch, as Hypothesis finds and
    shrinks it from the exercise's strategy (what a notebook's hidden check does live),
    asking a fresh sandbox one input at a time; ``None`` if none is found in time.

    The sandbox only ever sees inputs drawn here, never the run's hidden ones, and what it
    answers decides only whether an input fails: the value quoted to the student is asked
    again of another fresh sandbox (:func:`quote_failure`)."""
    import itertools

    from hypothesis import HealthCheck, find
    from hypothesis import settings as search_settings

    from autograder.course import exercises
    from autograder.course.references import compute

    ex = exercises.get(name)
    own_call = _own_call(name)
    numbers = itertools.count()

    def talk(send: Callable[[dict[str, Any]], None], channel: Channel,
             state: dict[str, Any], end_input: Callable[[], None]) -> None:
        ready = channel.message()
        if not ready or ready.get("event") != "ready":
            return

        def fails(case: Any) -> bool:
            number = next(numbers)
            send(_case_message(number, case, own_call))
            line = channel.message()
            if line is None:
                raise _Ended
            return not _agrees(compute(ex, [case])[0],
                               line if line.get("case") == number else None, ex.close)

        try:
            state["found"] = find(ex.strategy(), fails, settings=search_settings(
                max_examples=200, database=None, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck)))
        except _Ended:
            return  # the judge stopped answering: no orderly end, no input found
        except Exception:  # noqa: BLE001 - NoSuchExample, Unsatisfiable: nothing found
            pass
        end_input()
        state["done"] = channel.message()

    _, state = _converse(name, sources, runtime, settings,
                         settings.exercise_timeout if timeout is None else timeout, talk)
    return state.get("found")


def hidden_failure_message(plan: trusted.ExercisePlan, index: int, sources: list[str],
                           runtime: Path, settings: Settings = Settings(),
                           timeout: float | None = None) -> str:
    """The feedback for a failing hidden test: the simplest failing input Hypothesis finds
    (shrunk, as the notebook's live checks do), or else the smallest failing drawn case
    ``index``, quoted from a fresh sandbox that sees that input alone. Both steps share
    ``timeout``."""
    from autograder.course import exercises
    from autograder.course.references import compute

    deadline = time.perf_counter() + (settings.exercise_timeout if timeout is None
                                      else timeout)
    smallest = shrink_failure(plan.name, sources, runtime, settings,
                              max(deadline - time.perf_counter(), 0.1) / 2)
    if smallest is not None and smallest.size() < plan.cases[index].size():
        expected = compute(exercises.get(plan.name), [smallest])
        plan, index = trusted.ExercisePlan(plan.name, [smallest], expected, 0), 0
    return quote_failure(plan, index, sources, runtime, settings,
                         max(deadline - time.perf_counter(), 0.1))


def quote_failure(plan: trusted.ExercisePlan, index: int, sources: list[str], runtime: Path,
                  settings: Settings = Settings(), timeout: float | None = None) -> str:
    """What the student is told about the drawn case ``index`` that the answer failed: the
    call, the torch expression, torch's answer and the answer's, asked again of a fresh
    sandbox that is sent this one input and nothing else (so the value quoted cannot carry
    any other input of the run). Each run draws new inputs, so telling one gives away
    nothing of the next run's."""
    alone = trusted.ExercisePlan(plan.name, [plan.cases[index]], [plan.expected[index]], 1)
    again = recheck_exercise(alone, sources, runtime, settings, timeout)
    if again.visible_failure is None:
        return (_failure_message(plan, index, None).rpartition("\n")[0]
                + "\n  got:      the right answer when asked again alone (does the answer "
                  "depend on earlier calls?)")
    return again.visible_failure


def _failure_message(plan: trusted.ExercisePlan, index: int,
                     line: dict[str, Any] | None) -> str:
    """What the student is told about a failing case, written on the trusted side. The
    value the answer gave is bounded, and was computed before its sandbox was sent any
    input that is not told (visible cases first; a drawn case is quoted from a sandbox that
    saw it alone, see :func:`quote_failure`)."""
    from autograder.course import exercises
    from autograder.course.plain import show
    from autograder.sandbox.sanitize import safe_text

    ex = exercises.get(plan.name)
    case, expected = plan.cases[index], plan.expected[index]
    if line is None:
        got = "no answer (the function crashed, hung or was missing)"
    elif "error" in line:
        got = f"raised {safe_text(line['error'], 100)}"
    else:
        try:
            got = safe_text(show(decode(line["ok"])), 300)
        except Exception:  # noqa: BLE001
            got = "a value that is not plain data"
    want = (f"torch raises {expected.exception}" if isinstance(expected, Raises)
            else show(expected))
    return (f"{ex.call_text(case)}\n  truth:    {ex.truth(case)}\n  expected: {want}\n"
            f"  got:      {got}")


def _unconfined(argv: list[str], *, readable: list[Path], timeout: float,
                env: dict[str, str], pass_fds: list[int]) -> sandbox.Result:
    """The judge as a plain process: for showing what the sandbox prevents (tests only)."""
    import subprocess
    import tempfile

    started = time.perf_counter()
    workdir = tempfile.mkdtemp(prefix="rt-unconfined-")
    proc = subprocess.Popen(argv, cwd=workdir, env=dict(os.environ, **env), pass_fds=pass_fds,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait()
        timed_out = True
    shutil.rmtree(workdir, ignore_errors=True)
    return sandbox.Result(proc.returncode, b"", b"", timed_out, time.perf_counter() - started)
