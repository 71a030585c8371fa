"""What an exercise is: its inputs (``Case``), its specification (``Exercise``), and the
registry each chapter's module adds its exercises to (``register``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

__all__ = ["Case", "Exercise", "EXERCISES", "register"]


@dataclass(frozen=True)
class Case:
    """One input. ``args`` go to the student's function; ``context`` is extra plain data
    the torch reference needs (for example the shape behind a stride)."""

    args: tuple[Any, ...]
    context: tuple[tuple[str, Any], ...] = ()

    def ctx(self, key: str) -> Any:
        return dict(self.context)[key]

    def size(self) -> tuple[int, int]:
        """How big the case is, for picking the smallest failing one: the number of values,
        then the sum of their magnitudes (so ``(1, 1, 1)`` is smaller than ``(8, 8, 1)``)."""
        return _count(self.args) + _count(self.context), _magnitude(self.args)


def _count(value: Any) -> int:
    if isinstance(value, tuple | list):
        return 1 + sum(_count(v) for v in value)
    return 1


def _magnitude(value: Any) -> int:
    if isinstance(value, tuple | list):
        return sum(_magnitude(v) for v in value)
    return abs(value) if isinstance(value, int) else 0


def call_with_args(fn: Callable[..., Any], case: Case) -> Any:
    """How an answer is called on a case unless its exercise says otherwise."""
    return fn(*case.args)


@dataclass(frozen=True)
class Exercise:
    """A graded function: its name, inputs, and how torch defines the right answer."""

    name: str
    chapter: str
    signature: str
    fixed: tuple[Case, ...]
    strategy: Callable[[], st.SearchStrategy[Case]]
    reference: Callable[[Case], Any]
    truth: Callable[[Case], str]
    hidden_examples: int = 100
    edge: tuple[Case, ...] = field(default=())
    #: ``call(answer, case)``: the answer's result for a case, as plain data (for an answer
    #: that writes into an argument, the argument after the call)
    call: Callable[[Callable[..., Any], Case], Any] = call_with_args
    #: ``"module:function"`` where ``call`` runs the answer through a function a student can
    #: import and run a failing case with, ``function(answer, *args)``: a failing case is then
    #: shown as that call
    call_shown: str = ""
    #: ``close(expected, got)``: how an answer's plain value is compared with the expected
    #: one (``autograder.course.plain.close_to``: floats within a relative tolerance), by
    #: the notebook's check and the trusted re-check alike; None (every exercise but those
    #: that train with reftensor): exactly, ``plain.same``
    close: Callable[[Any, Any], bool] | None = None
    #: the answer is written with reftensor (the sandbox's student edition runs it): its
    #: importing or naming reftensor is not flagged for review
    library: bool = False

    def call_text(self, case: Case) -> str:
        args = ", ".join(repr(a) for a in case.args)
        if self.call_shown:  # what runs, as the student can run it: run_case(backward_pass, ...)
            module, _, function = self.call_shown.partition(":")
            return f"{function}({self.name}, {args})  # from {module} import {function}"
        return f"{self.name}({args})"


EXERCISES: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    EXERCISES[exercise.name] = exercise
    return exercise

