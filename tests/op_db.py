"""The test entries of the op table: one :class:`OpEntry` per op of ``reftensor._ops.aten``
(torch's ``OpInfo`` is the model). ``tests/test_op_table.py`` runs every entry through the
conformance harness: its function, method and in-place variants on every layout and dtype,
on the meta device, its gradient, and its error inputs; ``tests/test_opinfo.py`` adds torch's
own OpInfo samples for the same ops.

Adding an op to the table means adding its entry here; a test fails for an op without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

#: exp, log, sin, ... are NumPy's in reftensor and SLEEF's, MKL's or glibc's in torch:
#: each is within about 1 ulp of the true value, so the two may differ by a couple of ulps.
TRANSCENDENTAL_ULPS = 4
#: torch's sqrt is not always correctly rounded (its vectorised math library); NumPy's is.
SQRT_ULPS = 1

Program = Callable[[Any], Any]
#: the arguments after ``self``, by name, drawn for an input of a given shape
Arguments = Callable[[tuple[int, ...]], st.SearchStrategy[dict[str, Any]]]


def no_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.just({})


def dims(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``dims``: distinct dims of the input, some written negative (0-d: ``()``, ``(0,)`` or
    ``(-1,)``, which torch reads as the one dim of a scalar)."""
    n = len(shape)
    if n == 0:
        return st.sampled_from([(), (0,), (-1,)]).map(lambda d: {"dims": d})
    return st.lists(st.integers(-n, n - 1), unique_by=lambda d: d % n, max_size=n).map(
        lambda d: {"dims": tuple(d)})


@dataclass(frozen=True)
class OpEntry:
    """How to test one op of the table.

    Attributes:
        name: the op's name in the table (``aten.<name>``); its in-place and ``out=``
            forms, when the table declares them, are tested from the same entry.
        arguments: draws the arguments after ``self`` for an input shape.
        ulps: how far the values may be from torch's, in units in the last place.
        grad: does the op have a derivative row (its gradient is compared with torch's).
        errors: error inputs: programs ``(lib) -> result`` that torch answers with an
            exception; reftensor must raise the same class.
        positive: draw inputs with positive values only (where the op is defined).
    """

    name: str
    arguments: Arguments = no_arguments
    ulps: int = 0
    grad: bool = True
    errors: dict[str, Program] = field(default_factory=dict)
    positive: bool = False


def _float_function_errors(name: str) -> dict[str, Program]:
    """What every float function refuses, as torch does."""
    return {
        "a string": lambda lib: getattr(lib, name)("a"),
        "a number": lambda lib: getattr(lib, name)(2.5),
        "two tensors": lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(2)),
        "an unknown keyword": lambda lib: getattr(lib, name)(lib.ones(2), alpha=2),
        "a method argument": lambda lib: getattr(lib.ones(2), name)(1),
        "in place into int64": lambda lib: getattr(lib.arange(3), name + "_")(),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(),
        "in place into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, requires_grad=True), name + "_")(),
        "out= of an integer dtype":
            lambda lib: getattr(lib, name)(lib.ones(2), out=lib.empty(2, dtype=lib.int64)),
        "out= partly overlapping the input":
            lambda lib: (lambda z: getattr(lib, name)(z[:3], out=z[1:]))(lib.arange(4.0)),
        "out= with an input that requires grad":
            lambda lib: getattr(lib, name)(lib.ones(2, requires_grad=True), out=lib.empty(2)),
        "out= that is not a tensor": lambda lib: getattr(lib, name)(lib.ones(2), out=[]),
    }


def _float_function(name: str, ulps: int = TRANSCENDENTAL_ULPS, **options: Any) -> OpEntry:
    return OpEntry(name, ulps=ulps, errors=_float_function_errors(name), **options)


OP_DB: list[OpEntry] = [
    _float_function("exp"),
    _float_function("expm1"),
    _float_function("log"),
    _float_function("sqrt", ulps=SQRT_ULPS),
    _float_function("sin"),
    _float_function("cos"),
    _float_function("tanh"),
    _float_function("sigmoid"),
    _float_function("reciprocal", ulps=0),
    OpEntry("flip", arguments=dims, errors={
        "a dim twice": lambda lib: lib.ones(2, 3).flip(1, -1),
        "a dim out of range": lambda lib: lib.ones(2, 3).flip(2),
        "dims as a bare int to the function": lambda lib: lib.flip(lib.ones(2), 0),
        "a float dim": lambda lib: lib.ones(2).flip(0.5),
        "no dims": lambda lib: lib.ones(2).flip(),
        "dims twice": lambda lib: lib.ones(2).flip(0, dims=(0,)),
    }),
]

BY_NAME = {entry.name: entry for entry in OP_DB}
