"""References: run real torch on each case. The only module of the grader that imports torch.

``compute(exercise, cases)`` returns one plain value per case, or, where torch itself
raises, the exception's class name wrapped as ``Raises("RuntimeError")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autograder.course.exercises import Case, Exercise
from autograder.course.plain import to_plain

TORCH_VERSION = "2.13.0"


@dataclass(frozen=True)
class Raises:
    """torch raised this exception class for the case."""

    exception: str


def torch_version() -> str:
    import torch

    return torch.__version__.split("+")[0]


def check_torch_version() -> None:
    """Refuse to grade against any torch but the pinned one.

    Raises:
        RuntimeError: the installed torch is not 2.13.0.
    """
    found = torch_version()
    if found != TORCH_VERSION:
        raise RuntimeError(f"references need torch=={TORCH_VERSION}, found torch {found}")


def compute(exercise: Exercise, cases: list[Case]) -> list[Any]:
    """What torch says for every case, as plain data."""
    check_torch_version()
    results: list[Any] = []
    for case in cases:
        try:
            results.append(to_plain(exercise.reference(case)))
        except Exception as exc:  # noqa: BLE001 - torch's refusal is itself the answer
            results.append(Raises(type(exc).__name__))
    return results
