"""The graded pieces: functions of reftensor that students write themselves.

The course hands out two editions of this package, made from one source:

* the **reference** (this repository's ``reftensor/``) is complete;
* the **student edition** (written into the release by ``python -m autograder release``) is the
  same package with the body of each graded piece replaced by a stub that runs the student's
  answer.

In the reference a graded piece's body sits between two comments, ``# BEGIN PIECE <name>`` and
``# END PIECE``, and :data:`PIECES` says which exercise it is. The student edition's stub
calls :func:`answer`, which returns the function the student registered for that piece, or
raises ``NotImplementedError`` naming the exercise to do.

A notebook's answer cell registers its function with :func:`register`::

    @pieces.register
    def contiguous_strides(shape):
        ...

From then on the student edition runs that function wherever the library needs contiguous
strides (``reftensor.empty((2, 3))`` included), and :func:`trace` tells which of the
student's pieces a call used. In the reference, registering changes nothing: its own bodies
run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

__all__ = ["Piece", "PIECES", "register", "unregister", "answer", "registered", "trace"]


class Piece(NamedTuple):
    """Where a graded piece is taught: its chapter folder and its exercise number there."""

    chapter: str  # the chapter's folder and notebook name, e.g. "ch01_storage"
    exercise: int  # the number of its "Exercise N" heading in that notebook

    @property
    def notebook(self) -> str:
        return f"{self.chapter}/{self.chapter}.ipynb"


#: Every graded piece, by the name of its function (which is also the exercise's name).
PIECES: dict[str, Piece] = {
    "storage_index": Piece("ch01_storage", 1),
    "contiguous_strides": Piece("ch01_storage", 2),
    "is_contiguous": Piece("ch01_storage", 3),
    "channels_last_strides": Piece("ch01_storage", 5),
}

_answers: dict[str, Callable[..., Any]] = {}
_traces: list[set[str]] = []


def register(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``fn`` the student's answer for the piece of the same name; returns ``fn``.

    Raises:
        KeyError: no graded piece has that name.
        TypeError: ``fn`` is not callable.
    """
    if not callable(fn):
        raise TypeError(f"register() takes a function, not {type(fn).__name__}")
    name = getattr(fn, "__name__", "")
    if name not in PIECES:
        raise KeyError(f"{name!r} is not a graded piece; the pieces are: "
                       f"{', '.join(PIECES)}")
    _answers[name] = fn
    return fn


def unregister(name: str) -> None:
    """Forget the answer registered for piece ``name`` (nothing happens if there is none)."""
    _answers.pop(name, None)


def registered() -> dict[str, Callable[..., Any]]:
    """The registered answers, by piece name (a copy)."""
    return dict(_answers)


def answer(name: str) -> Callable[..., Any]:
    """The student's function for piece ``name``: what the student edition's stubs call.

    Raises:
        NotImplementedError: no answer is registered; the message names the exercise, its
        chapter and its notebook.
    """
    fn = _answers.get(name)
    if fn is None:
        where = PIECES[name]
        raise NotImplementedError(
            f"{name} is a piece you write: exercise {where.exercise} of chapter "
            f"{int(where.chapter[2:4])} ({where.notebook}). Run its answer cell "
            f"(decorated with @pieces.register) first.")
    for used in _traces:
        used.add(name)
    return fn


@contextmanager
def trace() -> Iterator[set[str]]:
    """Collect the names of the student's pieces that run inside the ``with`` block::

        with pieces.trace() as used:
            x = reftensor.empty((2, 3))
        print(used)  # {'contiguous_strides'} in the student edition, set() in the reference
    """
    used: set[str] = set()
    _traces.append(used)
    try:
        yield used
    finally:
        _traces[:] = [t for t in _traces if t is not used]
