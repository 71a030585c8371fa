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

from tests import strategies

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
        arguments: draws the arguments after ``self`` for an input shape (tensor arguments
            as :class:`~tests.strategies.TensorSpec` recipes).
        dtypes: the input dtypes to draw.
        ulps: how far the values may be from torch's, in units in the last place.
        grad: does the op have a derivative row (its gradient is compared with torch's).
        errors: error inputs: programs ``(lib) -> result`` that torch answers with an
            exception; reftensor must raise the same class.
        positive: draw inputs with positive values only (where the op is defined).
    """

    name: str
    arguments: Arguments = no_arguments
    dtypes: tuple[str, ...] = strategies.ALL_NAMES
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



# ------------------------------------------------------------------ binary arithmetic
#: Python numbers an op may meet: bools, ints that wrap in small dtypes, floats that are not
#: exact in float16/bfloat16, signed zero, inf and nan.
NUMBERS = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([-300, 255, 2049]),
                    st.sampled_from([0.5, -2.25, 0.1, 3.0, -0.0, 1e10, float("inf"),
                                     float("nan")]))


@st.composite
def _broadcastable(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A suffix of ``shape`` with some sizes replaced by 1."""
    keep = len(shape) - draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in shape[len(shape) - keep:])


def _other(shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    """A tensor that broadcasts to ``shape`` (any dtype and layout), or a Python number."""
    return st.one_of(strategies.tensors(shape=_broadcastable(shape)), NUMBERS)


def other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _other(shape).map(lambda o: {"other": o})


def other_and_alpha(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    alpha = st.one_of(st.just(None), st.integers(-2, 3), st.sampled_from([0.5, -1.5, True]))
    return st.tuples(_other(shape), alpha).map(
        lambda p: {"other": p[0]} if p[1] is None else {"other": p[0], "alpha": p[1]})


def other_and_rounding(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    mode = st.sampled_from(["absent", None, "trunc", "floor"])
    return st.tuples(_other(shape), mode).map(
        lambda p: {"other": p[0]} if p[1] == "absent" else
        {"other": p[0], "rounding_mode": p[1]})


def _binary_errors(name: str) -> dict[str, Program]:
    return {
        "shapes that do not broadcast": lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(3)),
        "a string": lambda lib: getattr(lib, name)(lib.ones(2), "a"),
        "in place, self would broadcast":
            lambda lib: getattr(lib.ones(3), name + "_")(lib.ones(2, 3)),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(lib.ones(3)),
        "in place into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, requires_grad=True), name + "_")(1),
        "a meta tensor with a CPU tensor":
            lambda lib: getattr(lib, name)(lib.ones(2, device="meta"), lib.ones(2)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(2, requires_grad=True), 2, out=lib.empty(2)),
    }


_DIVISION = dict(ulps=0, arguments=other_and_rounding)
OP_DB += [
    OpEntry("add", arguments=other_and_alpha, errors={
        **_binary_errors("add"),
        "a bool alpha for a float result": lambda lib: lib.add(lib.ones(2), 1, alpha=True),
        "a float alpha for an int result": lambda lib: lib.add(lib.arange(2), 1, alpha=0.5),
        "in place, an int self and a float result": lambda lib: lib.arange(2).add_(0.5),
    }),
    OpEntry("sub", arguments=other_and_alpha, errors={
        **_binary_errors("sub"),
        "a bool tensor": lambda lib: lib.sub(lib.ones(2, dtype=lib.bool), 1),
        "a Python bool": lambda lib: lib.sub(lib.ones(2), True),
    }),
    OpEntry("subtract", arguments=other_and_alpha, errors=_binary_errors("subtract")),
    OpEntry("mul", arguments=other, errors=_binary_errors("mul")),
    OpEntry("multiply", arguments=other, errors=_binary_errors("multiply")),
    OpEntry("div", **_DIVISION, errors={
        **_binary_errors("div"),
        "an unknown rounding mode": lambda lib: lib.div(lib.ones(2), 2, rounding_mode="x"),
        "integer division by zero": lambda lib: lib.div(lib.arange(2), 0, rounding_mode="floor"),
        "a rounding mode on bool tensors": lambda lib: lib.div(
            lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool), rounding_mode="trunc"),
        "rounding_mode given by position": lambda lib: lib.div(lib.ones(2), 2, "floor"),
    }),
    OpEntry("divide", **_DIVISION, errors=_binary_errors("divide")),
    OpEntry("true_divide", arguments=other, errors={
        **_binary_errors("true_divide"),
        "a rounding mode": lambda lib: lib.true_divide(lib.ones(2), 2, rounding_mode="floor"),
    }),
]



def _comparison_errors(name: str) -> dict[str, Program]:
    return {
        "shapes that do not broadcast": lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(3)),
        "a number as input": lambda lib: getattr(lib, name)(1, lib.ones(2)),
        "None": lambda lib: getattr(lib.ones(2), name)(None),
        "in place, self would broadcast":
            lambda lib: getattr(lib.arange(3), name + "_")(lib.ones(2, 3)),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(1),
        "a meta tensor with a CPU tensor":
            lambda lib: getattr(lib, name)(lib.ones(2, device="meta"), lib.ones(2)),
    }


OP_DB += [OpEntry(name, arguments=other, grad=False, errors=_comparison_errors(name))
          for name in ("eq", "ne", "lt", "le", "gt", "ge")]


# ------------------------------------------------------------------ same-dtype unary
def decimals(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """No ``decimals``, or one (``round.decimals``)."""
    return st.one_of(st.just({}), st.integers(-3, 3).map(lambda d: {"decimals": d}))


def _unary_errors(name: str, *, bool_refused: bool = True) -> dict[str, Program]:
    errors = {
        "a number": lambda lib: getattr(lib, name)(2.5),
        "an argument": lambda lib: getattr(lib.ones(2), name)(1),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(),
        "in place into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, requires_grad=True), name + "_")(),
    }
    if bool_refused:
        errors["a bool tensor"] = lambda lib: getattr(lib, name)(lib.ones(2, dtype=lib.bool))
    return errors


OP_DB += [
    OpEntry("neg", errors=_unary_errors("neg")),
    OpEntry("negative", errors=_unary_errors("negative")),
    OpEntry("abs", errors=_unary_errors("abs")),
    OpEntry("relu", errors=_unary_errors("relu")),
    OpEntry("sign", errors=_unary_errors("sign", bool_refused=False)),
    OpEntry("floor", errors=_unary_errors("floor")),
    OpEntry("round", arguments=decimals, errors={
        **_unary_errors("round"),
        "decimals on an integer tensor": lambda lib: lib.round(lib.arange(3), decimals=1),
        "decimals by position": lambda lib: lib.round(lib.ones(2), 1),
    }),
]



# ------------------------------------------------------------------ copies and fills
class LibValue:
    """An argument that each library spells with its own object (``lib.channels_last``):
    built by name on the library that runs."""

    def __init__(self, name: str) -> None:
        self.name = name

    def make(self, lib: Any) -> Any:
        return getattr(lib, self.name)

    def __repr__(self) -> str:
        return f"lib.{self.name}"


def memory_formats(*names: str) -> Arguments:
    """No ``memory_format``, or one of ``names`` (``None`` among them)."""
    choices = [LibValue(n) if n != "None" else None for n in names]

    def draw(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
        return st.one_of(st.just({}), st.sampled_from(choices).map(
            lambda f: {"memory_format": f}))

    return draw


@st.composite
def _joined(draw: st.DrawFn, shape: tuple[int, ...], *, new_dim: bool) -> dict[str, Any]:
    """``tensors``: 0 to 2 more tensors of any dtype and layout to join to the input, and
    ``dim`` (or none), some negative. For ``cat`` they differ from the input in ``dim``,
    and may be a legacy empty tensor (shape ``(0,)``, skipped); for ``stack`` they have
    the input's shape."""
    n = len(shape) + (1 if new_dim else 0)
    dim = draw(st.integers(-n, n - 1)) if n else draw(st.sampled_from([0, -1, 1]))
    others = []
    for _ in range(draw(st.integers(0, 2))):
        other = list(shape)
        if not new_dim and shape and draw(st.integers(0, 4)) == 0:
            other = [0]
        elif not new_dim and shape:
            other[dim % len(shape)] = draw(strategies.small_sizes)
        others.append(draw(strategies.tensors(shape=tuple(other))))
    arguments: dict[str, Any] = {"tensors": others}
    if draw(st.booleans()) or dim != 0:
        arguments["dim"] = dim
    return arguments


def cat_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _joined(shape, new_dim=False)


def stack_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _joined(shape, new_dim=True)


def copy_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``other``: a tensor that broadcasts to the input (any dtype and layout) or a number;
    ``non_blocking`` sometimes."""
    return st.tuples(_other(shape), st.sampled_from([None, False, True])).map(
        lambda p: {"other": p[0]} if p[1] is None else
        {"other": p[0], "non_blocking": p[1]})


def fill_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``value``: a Python number or a 0-d tensor of any dtype."""
    return st.one_of(NUMBERS, strategies.tensors(shape=())).map(lambda v: {"value": v})


def _joining_errors(name: str) -> dict[str, Program]:
    return {
        "no tensors": lambda lib: getattr(lib, name)([]),
        "a tensor, not a list": lambda lib: getattr(lib, name)(lib.ones(2, 2)),
        "an int, not a list": lambda lib: getattr(lib, name)(1),
        "a list of ints": lambda lib: getattr(lib, name)([1, 2]),
        "a number in the list": lambda lib: getattr(lib, name)([lib.ones(1), 2]),
        "None in the list": lambda lib: getattr(lib, name)((lib.ones(1), None)),
        "a float dim": lambda lib: getattr(lib, name)([lib.ones(1)], 0.5),
        "a dim out of range": lambda lib: getattr(lib, name)([lib.ones(2, 3)], 3),
        "different shapes": lambda lib: getattr(lib, name)([lib.ones(2, 3), lib.ones(3, 2)]),
        "out= that is an input": lambda lib: (lambda z: getattr(lib, name)(
            [z[:2], z[2:]], out=z))(lib.arange(4.0)),
        "out= overlapping an input": lambda lib: (lambda z: getattr(lib, name)(
            [z[:1], z[2:3]], out=z[1:3]))(lib.arange(4.0)),
        "out= of a dtype the inputs cannot be cast to": lambda lib: getattr(lib, name)(
            [lib.ones(2), lib.ones(2)], out=lib.empty(4, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            [lib.ones(2, requires_grad=True)], out=lib.empty(2)),
        "a meta tensor with a CPU tensor": lambda lib: getattr(lib, name)(
            [lib.ones(2, device="meta"), lib.ones(2)]),
    }


_CAT_ERRORS = {
    "0-d tensors": lambda lib: lib.cat([lib.ones(()), lib.ones(())]),
    "out= that is expanded": lambda lib: lib.cat([lib.ones(2), lib.ones(2)],
                                                 out=lib.ones(1).expand(4)),
    "different numbers of dims": lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2)]),
    "sizes that differ outside dim": lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 3)], 1),
}

OP_DB += [
    OpEntry("clone", arguments=memory_formats("None", "preserve_format", "contiguous_format",
                                              "channels_last"), errors={
        "memory_format by position": lambda lib: lib.ones(2).clone(lib.contiguous_format),
        "channels_last on 3 dims": lambda lib: lib.ones(2, 3, 4).clone(
            memory_format=lib.channels_last),
        "a string": lambda lib: lib.clone("a"),
    }),
    OpEntry("contiguous", arguments=memory_formats("contiguous_format", "channels_last",
                                                   "preserve_format"), errors={
        "preserve_format when a copy is needed": lambda lib: lib.ones(2, 3).t().contiguous(
            memory_format=lib.preserve_format),
        "memory_format by position": lambda lib: lib.ones(2).contiguous(lib.contiguous_format),
        "channels_last on 3 dims": lambda lib: lib.ones(2, 3, 4).contiguous(
            memory_format=lib.channels_last),
    }),
    OpEntry("cat", arguments=cat_arguments, errors={**_joining_errors("cat"), **_CAT_ERRORS}),
    OpEntry("concat", arguments=cat_arguments, errors=_joining_errors("concat")),
    OpEntry("concatenate", arguments=cat_arguments, errors=_joining_errors("concatenate")),
    OpEntry("stack", arguments=stack_arguments, errors=_joining_errors("stack")),
    OpEntry("copy_", arguments=copy_arguments, errors={
        "shapes that do not broadcast": lambda lib: lib.ones(2).copy_(lib.ones(3)),
        "self would broadcast": lambda lib: lib.ones(3).copy_(lib.ones(2, 3)),
        "into an expanded tensor": lambda lib: lib.ones(1).expand(3).copy_(lib.ones(3)),
        "partly overlapping": lambda lib: (lambda z: z[1:].copy_(z[:3]))(lib.arange(4.0)),
        "a string": lambda lib: lib.ones(2).copy_("a"),
        "src by its schema name": lambda lib: lib.ones(2).copy_(src=lib.ones(2)),
        "into a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).copy_(
            lib.ones(2)),
        "a meta tensor into a CPU tensor": lambda lib: lib.ones(2).copy_(
            lib.ones(2, device="meta")),
    }),
    OpEntry("fill", arguments=fill_arguments, errors={
        "a value with dims": lambda lib: lib.ones(2).fill_(lib.ones(2)),
        "a string": lambda lib: lib.ones(2).fill_("a"),
        "a number out of range": lambda lib: lib.ones(2, dtype=lib.uint8).fill_(256),
        "in place into a leaf that requires grad":
            lambda lib: lib.ones(2, requires_grad=True).fill_(1),
        "no value": lambda lib: lib.fill(lib.ones(2)),
        "a method": lambda lib: lib.ones(2).fill(1),
    }),
    OpEntry("zero_", errors={
        "an argument": lambda lib: lib.ones(2).zero_(1),
        "into a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).zero_(),
        "a number": lambda lib: lib.zero_(1),
    }),
]

BY_NAME = {entry.name: entry for entry in OP_DB}
