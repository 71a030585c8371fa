"""The graded pieces: functions of reftensor that students write themselves.

The course is made from one source, in two editions of this package:

* the **reference**, the instructor's, with every piece written;
* the **student edition** (written into the release by ``python -m autograder release``): the
  same package with the body of each graded piece replaced by a stub that runs the student's
  answer. Everything else in it is the finished library that the pieces plug into.

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

In a later chapter (a new kernel), a piece that no cell has registered is read from the
student's saved notebook of its chapter: the answer cell of that name in
``<notebooks>/<chapter>/<chapter>.ipynb`` (run after the answer cells above it, so that it
may call their functions), where ``<notebooks>`` is ``$REFTENSOR_NOTEBOOKS``
or else the folder that holds this package (``course/`` for the student edition). A cell still
as released (``raise NotImplementedError()``) counts as unanswered.

After a chapter's deadline the instructor may *publish* its pieces: the student edition then
holds their reference bodies, which run unless the student registered an answer of their own
(:func:`own`).
"""

from __future__ import annotations

import ast
import dis
import inspect
import json
import os
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Piece", "PIECES", "register", "unregister", "answer", "own", "registered",
           "trace", "describe", "notebooks_folder", "stubbed"]

NOTEBOOKS_ENV = "REFTENSOR_NOTEBOOKS"
MAX_NOTEBOOK_BYTES = 20_000_000


class Piece(NamedTuple):
    """Where a graded piece is taught: its chapter folder and its exercise number there."""

    chapter: str  # the chapter's folder and notebook name, e.g. "ch01_storage"
    exercise: int  # the number of its "Exercise N" heading in that notebook

    @property
    def notebook(self) -> str:
        return f"{self.chapter}/{self.chapter}.ipynb"


#: Every graded piece, by the name of its function (which is also the exercise's name).
PIECES: dict[str, Piece] = {
    "contiguous_strides": Piece("ch01_storage", 1),
    "storage_index": Piece("ch01_storage", 2),
    "is_contiguous": Piece("ch01_storage", 3),
    "unfold_layout": Piece("ch01_storage", 4),
    "channels_last_strides": Piece("ch01_storage", 5),
    "infer_size": Piece("ch02_views", 1),
    "view_strides": Piece("ch02_views", 2),
    "slice_layout": Piece("ch02_views", 3),
    "permute_layout": Piece("ch02_views", 4),
    "diagonal_layout": Piece("ch02_views", 5),
    "index_positions": Piece("ch02_views", 6),
    "internal_overlap": Piece("ch02_views", 7),
    "overlap_status": Piece("ch02_views", 8),
    "view_dtype_layout": Piece("ch02_views", 9),
    "squeeze_layout": Piece("ch02_views", 10),
    "broadcast_shapes": Piece("ch03_broadcasting", 1),
    "expand_strides": Piece("ch03_broadcasting", 2),
    "strided_loop": Piece("ch03_broadcasting", 3),
    "reduce_loop": Piece("ch03_broadcasting", 4),
    "sum_to_dims": Piece("ch03_broadcasting", 5),
    "broadcast_error": Piece("ch03_broadcasting", 6),
    "promote_types": Piece("ch04_dtype_device", 1),
    "result_dtype": Piece("ch04_dtype_device", 2),
    "cast_value": Piece("ch04_dtype_device", 3),
    "to_result": Piece("ch04_dtype_device", 4),
    "matmul_shape": Piece("ch04_dtype_device", 5),
    "matmul_plan": Piece("ch04_dtype_device", 6),
    "arg_reduce_loop": Piece("ch04_dtype_device", 7),
    "collect_next_edges": Piece("ch05_autograd", 1),
    "set_history": Piece("ch05_autograd", 2),
    "backward_pass": Piece("ch05_autograd", 3),
    "binary_backward": Piece("ch05_autograd", 4),
    "reduction_backward": Piece("ch05_autograd", 5),
    "accumulate_grad": Piece("ch05_autograd", 6),
    "clamp_backward": Piece("ch05_autograd", 7),
    "saved_tensor_error": Piece("ch05_autograd", 8),
    "unary_backward": Piece("ch05_autograd", 9),
    "call_hooks": Piece("ch05_autograd", 10),
    "validate_outputs": Piece("ch05_autograd", 11),
    "route_assignment": Piece("ch06_modules", 1),
    "walk_modules": Piece("ch06_modules", 2),
    "incompatible_keys": Piece("ch06_modules", 3),
    "kaiming_bound": Piece("ch06_modules", 4),
    "sgd_update": Piece("ch06_modules", 5),
    "adam_update": Piece("ch06_modules", 6),
    "call_impl": Piece("ch06_modules", 7),
    "random_indices": Piece("ch07_data", 1),
    "batch_indices": Piece("ch07_data", 2),
    "collate": Piece("ch07_data", 3),
    "worker_seeds": Piece("ch07_data", 4),
    "next_in_order": Piece("ch07_data", 5),
    "seed_words": Piece("ch08_rng", 1),
    "temper": Piece("ch08_rng", 2),
    "twist": Piece("ch08_rng", 3),
    "next_draws": Piece("ch08_rng", 4),
    "uniform_floats": Piece("ch08_rng", 5),
    "randint_from_draws": Piece("ch08_rng", 6),
    "randperm_from_draws": Piece("ch08_rng", 7),
    "normal_from_draws": Piece("ch08_rng", 8),
    "state_bytes": Piece("ch08_rng", 9),
    "multinomial_from_draws": Piece("ch08_rng", 10),
    "bernoulli_from_draws": Piece("ch08_rng", 11),
    "dispatch_key_set": Piece("ch09_dispatch", 1),
    "next_key": Piece("ch09_dispatch", 2),
    "mode_arguments": Piece("ch09_dispatch", 3),
    "log_line": Piece("ch09_dispatch", 4),
    "node_name": Piece("ch09_dispatch", 5),
    "overloaded_args": Piece("ch09_dispatch", 6),
    "convert_result": Piece("ch09_dispatch", 7),
    "conv_output_size": Piece("ch10_capstone", 1),
    "pool_output_size": Piece("ch10_capstone", 2),
    "window_layout": Piece("ch10_capstone", 3),
    "max_pool_window": Piece("ch10_capstone", 4),
    "conv_weight_grad": Piece("ch10_capstone", 5),
}

_answers: dict[str, Callable[..., Any]] = {}
_traces: list[set[str]] = []
# pieces the saved notebooks did not answer, and why: read once per kernel (a published
# piece's stub asks on every call)
_misses: dict[str, str] = {}


def register(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``fn`` the student's answer for the piece of the same name; returns ``fn``.

    A function still as released (its body only ``raise NotImplementedError()``) registers
    nothing, and forgets an earlier answer, so that the library's error names the exercise.

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
    if _placeholder(fn):
        _answers.pop(name, None)
    else:
        _answers[name] = fn
        _misses.pop(name, None)
    return fn


def _placeholder(fn: Callable[..., Any]) -> bool:
    """Is ``fn``'s body the release's placeholder? Read from its source, or, where there is
    none (a function made by ``exec``), from its code: nothing but raising
    ``NotImplementedError``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return _raises_only(fn)
    defined = [f for f in tree.body if isinstance(f, ast.FunctionDef)]
    return bool(defined) and _unanswered(defined[0])


#: the instructions of a body that only raises (the rest load and call the exception class)
_RAISING = {"RESUME", "NOP", "CACHE", "PUSH_NULL", "LOAD_GLOBAL", "LOAD_NAME", "PRECALL", "CALL",
            "RAISE_VARARGS", "KW_NAMES"}


def _raises_only(fn: Callable[..., Any]) -> bool:
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    ops = {i.opname for i in dis.get_instructions(code)}
    return "RAISE_VARARGS" in ops and ops <= _RAISING and set(code.co_names) == {
        "NotImplementedError"}


def unregister(name: str) -> None:
    """Forget the answer registered for piece ``name`` (nothing happens if there is none)."""
    _answers.pop(name, None)


def registered() -> dict[str, Callable[..., Any]]:
    """The registered answers, by piece name (a copy)."""
    return dict(_answers)


def notebooks_folder() -> Path:
    """The folder of the student's chapter notebooks (``<chapter>/<chapter>.ipynb``)."""
    folder = os.environ.get(NOTEBOOKS_ENV)
    return Path(folder) if folder else Path(__file__).resolve().parent.parent


def _unanswered(function: ast.FunctionDef) -> bool:
    """Is the body still the release's placeholder (``raise NotImplementedError()``)?"""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return (len(body) == 1 and isinstance(body[0], ast.Raise)
            and "NotImplementedError" in ast.unparse(body[0]))


class _Reading:
    """``pieces`` as the answer cells of a saved notebook see it while it is read: its
    ``register`` returns the function and registers nothing; the rest is this module's."""

    @staticmethod
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn

    def __getattr__(self, attribute: str) -> Any:
        return getattr(sys.modules[__name__], attribute)


def _from_notebook(name: str) -> tuple[Callable[..., Any] | None, str]:
    """The answer to piece ``name`` in the student's saved notebook of its chapter, and, when
    there is none, why not (for the error message)."""
    if name not in PIECES:
        return None, f"{name!r} is not a graded piece"
    path = notebooks_folder() / PIECES[name].notebook
    try:
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None, f"{path} is too large to read"
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return None, f"no readable notebook at {path}"
    # the answer cells run in order in one namespace, as in the notebook: an answer may call
    # the function of an earlier exercise (whose errors are not this piece's business). Their
    # ``@pieces.register`` lines register nothing: reading a saved notebook never changes
    # what this kernel has registered (a cell still as released would forget a live answer;
    # a saved answer would replace one registered since)
    namespace: dict[str, Any] = {"__name__": f"answers.{PIECES[name].chapter}",
                                 "pieces": _Reading()}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
        if not meta.get("solution") or cell.get("cell_type") != "code":
            continue
        text = cell.get("source", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        if meta.get("grade_id") != name:
            try:
                exec(compile(text, f"{path} (answer cell {meta.get('grade_id')})", "exec"),  # noqa: S102
                     namespace)
            except Exception:  # noqa: BLE001, S110 - an earlier answer's own fault
                pass
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError as err:
            return None, f"its answer cell in {path} is not plain Python ({err.msg})"
        defined = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == name]
        if not defined or _unanswered(defined[-1]):
            return None, f"its answer cell in {path} is not written yet"
        exec(compile(tree, f"{path} (answer cell {name})", "exec"), namespace)  # noqa: S102
        fn = namespace.get(name)
        return (fn, "") if callable(fn) else (None, f"its answer cell in {path} is broken")
    return None, f"{path} has no answer cell {name!r}"


def _find(name: str) -> tuple[Callable[..., Any] | None, str]:
    """The student's function for piece ``name``: registered in this kernel, else read from
    the saved notebook (and then registered); the reason when there is none."""
    fn = _answers.get(name)
    why = _misses.get(name, "")
    if fn is None and not why:
        fn, why = _from_notebook(name)
        if fn is not None:
            _answers[name] = fn
        else:
            _misses[name] = why
    if fn is not None:
        for used in _traces:
            used.add(name)
    return fn, why


def answer(name: str) -> Callable[..., Any]:
    """The student's function for piece ``name``: what the student edition's stubs call.

    Raises:
        NotImplementedError: no answer is registered or saved; the message names the
        exercise, its chapter and its notebook.
    """
    fn, why = _find(name)
    if fn is None:
        where = PIECES[name]
        raise NotImplementedError(
            f"{name} is a piece you write: exercise {where.exercise} of chapter "
            f"{int(where.chapter[2:4])} ({where.notebook}); {why}. Run its answer cell "
            f"(decorated with @pieces.register) and save the notebook.")
    return fn


def own(name: str) -> Callable[..., Any] | None:
    """The student's own function for a *published* piece, or None: the stub of a published
    piece runs the reference body when there is none."""
    return _find(name)[0]


def stubbed(fn: Callable[..., Any]) -> bool:
    """Is ``fn`` a graded piece as the student edition holds it: a stub that runs the
    student's answer (or a published piece behind :func:`own`)? The library asks once, at
    import, where the reference keeps a fast path that the student edition replaces by the
    piece (``elementwise.LOOP``): the two editions differ only in piece bodies, and a
    stub's body is the one that imports from this module."""
    code = getattr(fn, "__code__", None)
    return code is not None and __name__ in code.co_names


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


def describe(used: set[str]) -> str:
    """One line for a chapter's demo: which of the student's pieces ran (from :func:`trace`).

    ``"reftensor ran your contiguous_strides, storage_index"``, or, when none did (the
    reference edition, or published pieces), ``"reftensor ran its reference code"``.
    """
    if not used:
        return "reftensor ran its reference code"
    ordered = sorted(used, key=lambda name: (PIECES[name], name))
    return f"reftensor ran your {', '.join(ordered)}"
