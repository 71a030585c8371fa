"""The test entries of the op table: one :class:`OpEntry` per op of ``reftensor._ops.aten``
(torch's ``OpInfo`` is the model). ``tests/test_op_table.py`` runs every entry through the
conformance harness: its function, method and in-place variants on every layout and dtype,
on the meta device, its gradient, and its error inputs; ``tests/test_opinfo.py`` adds torch's
own OpInfo samples for the same ops.

Adding an op to the table means adding its entry here; a test fails for an op without one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from tests import linalg_compare, strategies

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
        shapes: the input shapes to draw (default: any shape of up to 24 elements).
        same_dtype: the drawn tensor arguments take the input's dtype (ops that do not
            promote, such as ``mm``; other dtypes are error inputs); or a tuple naming
            the arguments that do (``scatter``'s ``src``, not its ``index``).
        no_leaves: tensor arguments that the gradient test builds as drawn, not as leaves
            that require grad (``where``'s bool ``condition``).
        values: draws each of the input's values (``bernoulli``'s probabilities).
        no_input: a factory that takes no tensor (``zeros``): ``arguments`` draws all of
            its arguments (for the drawn input's shape), and the input is not passed; on the
            meta device it gets ``device="meta"``.
        uninitialised: the result's values are torch's uninitialised memory (``empty``):
            compared in shape, strides and dtype only.
        factory: the arguments of a factory overload beside the op's tensor ones
            (``normal(mean: float, std: float, size)``): the tests draw either form, the
            factory as a ``no_input`` entry with these arguments (no gradient).
        kinds: the input layouts to draw (default: all of ``strategies.KINDS``).
        compared: the form of the result that is compared with torch's, in place of the
            result (an SVD's singular vectors are defined only up to sign:
            ``tests/linalg_compare.py``); it applies to both libraries' results.
    """

    name: str
    arguments: Arguments = no_arguments
    dtypes: tuple[str, ...] = strategies.ALL_NAMES
    ulps: int = 0
    grad: bool = True
    errors: dict[str, Program] = field(default_factory=dict)
    positive: bool = False
    shapes: st.SearchStrategy[tuple[int, ...]] | None = None
    same_dtype: bool | tuple[str, ...] = False
    no_leaves: tuple[str, ...] = ()
    # the input's values (default: any of its dtype), for ops whose input is a domain of
    # its own: probabilities, weights
    values: st.SearchStrategy[Any] | None = None
    no_input: bool = False
    uninitialised: bool = False
    factory: Arguments | None = None
    # the input layouts to draw (default: every kind), where torch's kernel is wrong for
    # some (``median`` along a dim of stride 0 reads past the input's memory)
    kinds: tuple[str, ...] | None = None
    compared: Callable[[Any], Any] | None = None


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


#: erfinv's inputs: its domain (-1, 1), the edges ±1 (±inf), -0.0, and beyond (nan)
ERFINV_VALUES = st.one_of(
    st.floats(-1, 1, width=32),
    st.sampled_from([1.0, -1.0, -0.0, 0.0, 0.999, -0.9999999, 1e-30, 1.5, -2.0, math.inf,
                     math.nan, 0.7, -0.7, 0.5]))


def _aten(lib: Any) -> Any:
    """The ops of the table by name: ``torch.ops.aten``, or reftensor's ``aten``."""
    return lib.ops.aten if lib.__name__ == "torch" else lib._ops.aten


def _tanh_output(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``tanh_backward``'s ``output``: a float tensor that broadcasts to ``shape``."""
    return strategies.tensors(shape=_broadcastable(shape), dtypes=strategies.FLOAT_NAMES).map(
        lambda o: {"output": o})


#: every dtype but bool (``threshold_backward``'s kernel has none for it)
_NOT_BOOL = tuple(n for n in strategies.ALL_NAMES if n != "bool")


def _threshold_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``threshold_backward``'s ``self`` (a tensor of a dtype other than bool that
    broadcasts to ``shape``) and ``threshold`` (an int or a float, 0 the common one)."""
    return st.tuples(strategies.tensors(shape=_broadcastable(shape), dtypes=_NOT_BOOL),
                     st.sampled_from([0, 0, 1, 2, 0.5, 2.5])).map(
        lambda p: {"self": p[0], "threshold": p[1]})


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
    # Allowance: torch's float32 and float64 erfinv is MKL's vector ErfInv (high-accuracy
    # mode); reftensor computes within about an ulp of the exact value in float64 and
    # rounds: measured at most 1 ulp from torch's (242,000 values of (-1, 1), near ±1 and
    # tiny: float32 0.6% and float64 11% of them 1 ulp off, none more). float16 and
    # bfloat16 are torch's calc_erfinv in float32, bit for bit (all 65,536 values of each:
    # tests/test_ch06_layers.py). The values drawn are of erfinv's domain and its edges;
    # uint8 is left out here only because a negative value cannot be built in it
    # (tests/test_ch06_layers.py checks its promotion).
    _float_function("erfinv", ulps=1, values=ERFINV_VALUES,
                    dtypes=tuple(n for n in strategies.ALL_NAMES if n != "uint8")),
    OpEntry("tanh_backward", arguments=lambda shape: _tanh_output(shape),
            dtypes=strategies.FLOAT_NAMES, errors={
        "int64 operands": lambda lib: _aten(lib).tanh_backward(lib.ones(2, dtype=lib.int64),
                                                               lib.ones(2, dtype=lib.int64)),
        "bool operands": lambda lib: _aten(lib).tanh_backward(lib.ones(2, dtype=lib.bool),
                                                              lib.ones(2, dtype=lib.bool)),
        "shapes that do not broadcast": lambda lib: _aten(lib).tanh_backward(lib.ones(2),
                                                                             lib.ones(3)),
    }),
    OpEntry("sigmoid_backward", arguments=lambda shape: _tanh_output(shape),
            dtypes=strategies.FLOAT_NAMES, errors={
        "int64 operands": lambda lib: _aten(lib).sigmoid_backward(
            lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)),
        "bool operands": lambda lib: _aten(lib).sigmoid_backward(
            lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)),
        "shapes that do not broadcast": lambda lib: _aten(lib).sigmoid_backward(
            lib.ones(2), lib.ones(3)),
    }),
    OpEntry("threshold_backward", arguments=lambda shape: _threshold_arguments(shape),
            dtypes=_NOT_BOOL, errors={
        "bool operands": lambda lib: _aten(lib).threshold_backward(
            lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool), 0),
        "shapes that do not broadcast": lambda lib: _aten(lib).threshold_backward(
            lib.ones(2), lib.ones(3), 0),
    }),
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


#: ``a + alpha * b`` with ``alpha != 1``: torch's float loops fuse the multiply-add or round
#: ``alpha * b`` first depending on the tensor's length and memory alignment (see
#: ``arithmetic._add_kernel``), so the last bit may differ; with ``alpha == 1`` it is exact.
ALPHA_ULPS = 1
_DIVISION = dict(ulps=0, arguments=other_and_rounding)
OP_DB += [
    OpEntry("add", arguments=other_and_alpha, ulps=ALPHA_ULPS, errors={
        **_binary_errors("add"),
        "a bool alpha for a float result": lambda lib: lib.add(lib.ones(2), 1, alpha=True),
        "a float alpha for an int result": lambda lib: lib.add(lib.arange(2), 1, alpha=0.5),
        "in place, an int self and a float result": lambda lib: lib.arange(2).add_(0.5),
    }),
    OpEntry("sub", arguments=other_and_alpha, ulps=ALPHA_ULPS, errors={
        **_binary_errors("sub"),
        "a bool tensor": lambda lib: lib.sub(lib.ones(2, dtype=lib.bool), 1),
        "a Python bool": lambda lib: lib.sub(lib.ones(2), True),
    }),
    OpEntry("subtract", arguments=other_and_alpha, ulps=ALPHA_ULPS,
            errors=_binary_errors("subtract")),
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


# ------------------------------------------------------------------ more arithmetic, bitwise
def exponent(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _other(shape).map(lambda o: {"exponent": o})


def tensor_other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """A tensor (no number: the logical ops refuse them) that broadcasts to ``shape``."""
    return strategies.tensors(shape=_broadcastable(shape)).map(lambda o: {"other": o})


def _number_first(name: str) -> Program:
    """``op(number, tensor)``: the overload whose ``self`` is a Scalar."""
    return lambda lib: getattr(lib, name)(2, lib.ones(2))


OP_DB += [
    OpEntry("rsub", arguments=other_and_alpha, ulps=ALPHA_ULPS, errors={
        "shapes that do not broadcast": lambda lib: lib.rsub(lib.ones(2), lib.ones(3)),
        "a bool tensor": lambda lib: lib.rsub(lib.ones(2, dtype=lib.bool), 1),
        "a number first": _number_first("rsub"),
        "a float alpha for an int result": lambda lib: lib.rsub(lib.arange(2), 1, alpha=0.5),
        "a string": lambda lib: lib.rsub(lib.ones(2), "a"),
    }),
    # Two of the usual error inputs are none for floor_divide: torch's floor division
    # accepts a meta tensor with a CPU one (as its div with a rounding mode does; reftensor
    # refuses the pair, as its other ops do), and out= with an input that requires grad (it
    # has no derivative).
    OpEntry("floor_divide", arguments=other, errors={
        **{k: v for k, v in _binary_errors("floor_divide").items()
           if k not in ("a meta tensor with a CPU tensor",
                        "out= with an input that requires grad")},
        "integer division by zero": lambda lib: lib.floor_divide(lib.arange(2), 0),
        "bool tensors": lambda lib: lib.floor_divide(lib.ones(2, dtype=lib.bool),
                                                      lib.ones(2, dtype=lib.bool)),
        "backward": lambda lib: lib.floor_divide(lib.ones(2, requires_grad=True), 2)
        .sum().backward(),
    }),
    OpEntry("remainder", arguments=other, errors={
        **_binary_errors("remainder"),
        "integer remainder by zero": lambda lib: lib.remainder(lib.arange(2), 0),
        "bool tensors": lambda lib: lib.remainder(lib.ones(2, dtype=lib.bool), True),
        "two numbers": lambda lib: lib.remainder(2, 3),
        "backward of number % tensor": lambda lib: lib.remainder(
            2, lib.ones(2, requires_grad=True)).sum().backward(),
    }),
    # torch computes a float power with its vectorised pow (tensor exponents) or std::pow:
    # within an ulp or two of NumPy's.
    OpEntry("pow", arguments=exponent, ulps=TRANSCENDENTAL_ULPS, errors={
        "shapes that do not broadcast": lambda lib: lib.pow(lib.ones(2), lib.ones(3)),
        "an integer to a negative power": lambda lib: lib.pow(lib.arange(3), -1),
        "an exponent that does not fit": lambda lib: lib.pow(lib.arange(3, dtype=lib.uint8),
                                                             -300),
        "bool to bool": lambda lib: lib.pow(lib.ones(2, dtype=lib.bool),
                                            lib.ones(2, dtype=lib.bool)),
        "two numbers": lambda lib: lib.pow(2, 3),
        "in place, an int self and a float result": lambda lib: lib.arange(2).pow_(0.5),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).pow_(2),
        "out= with an input that requires grad": lambda lib: lib.pow(
            lib.ones(2, requires_grad=True), 2, out=lib.empty(2)),
    }),
    OpEntry("positive", errors={
        "a bool tensor": lambda lib: lib.positive(lib.ones(2, dtype=lib.bool)),
        "a number": lambda lib: lib.positive(2),
        "an argument": lambda lib: lib.ones(2).positive(1),
    }),
]


def _bitwise_errors(name: str) -> dict[str, Program]:
    return {
        "shapes that do not broadcast": lambda lib: getattr(lib, name)(lib.arange(2),
                                                                       lib.arange(3)),
        "floating tensors": lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(2)),
        "a float number": lambda lib: getattr(lib, name)(lib.arange(2), 0.5),
        "two numbers": lambda lib: getattr(lib, name)(1, 2),
        "in place, an int self and a float result":
            lambda lib: getattr(lib.arange(2), name + "_")(lib.ones(2)),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.arange(1).expand(3), name + "_")(1),
    }


def _logical_errors(name: str) -> dict[str, Program]:
    return {
        "shapes that do not broadcast": lambda lib: getattr(lib, name)(lib.ones(2),
                                                                       lib.ones(3)),
        "a number": lambda lib: getattr(lib, name)(lib.ones(2), 1),
        "in place, self would broadcast":
            lambda lib: getattr(lib.ones(3), name + "_")(lib.ones(2, 3)),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(lib.ones(3)),
    }


OP_DB += [OpEntry(name, arguments=other, grad=False, errors=_bitwise_errors(name))
          for name in ("bitwise_and", "bitwise_or", "bitwise_xor")]
OP_DB += [OpEntry(name, arguments=tensor_other, grad=False, errors=_logical_errors(name))
          for name in ("logical_and", "logical_or", "logical_xor")]
OP_DB += [
    OpEntry("bitwise_not", grad=False, errors={
        "a floating tensor": lambda lib: lib.bitwise_not(lib.ones(2)),
        "the operator on a floating tensor": lambda lib: ~lib.ones(2),
        "a number": lambda lib: lib.bitwise_not(2),
        "in place into an expanded tensor": lambda lib: lib.arange(1).expand(3).bitwise_not_(),
    }),
    OpEntry("logical_not", grad=False, errors={
        "a number": lambda lib: lib.logical_not(2),
        "an argument": lambda lib: lib.ones(2).logical_not(1),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).logical_not_(),
    }),
]


# ------------------------------------------------------------------ reductions (chapter 4)
@dataclass(frozen=True)
class DtypeName:
    """A ``dtype=`` argument, read from each library by name (``torch.int8``)."""

    name: str

    def of(self, lib: Any) -> Any:
        return getattr(lib, self.name)


#: dtype= values: integers that wrap, a 16-bit float, bool, and Python's types
REDUCTION_DTYPES = st.sampled_from([DtypeName(n) for n in ("float64", "float16", "int8",
                                                           "int64", "bool")] + [float, int])


def _one_dim(shape: tuple[int, ...]) -> st.SearchStrategy[int]:
    """A dim of the input, maybe negative (0-d: 0 or -1)."""
    n = max(len(shape), 1)
    return st.integers(-n, n - 1)


def _dim_list(shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    """Distinct dims as a tuple (maybe empty), one bare int, or None."""
    return st.one_of(dims(shape).map(lambda d: d["dims"]), _one_dim(shape), st.none())


def _with(options: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Some of ``options``, in their order (an argument left out takes its default)."""
    return st.fixed_dictionaries({}, optional=options)


def reduction_over_dims(shape: tuple[int, ...], *, dtype: bool = True
                        ) -> st.SearchStrategy[dict[str, Any]]:
    """``sum``, ``mean``: nothing (every dim), or ``dim`` (with ``keepdim``), and maybe
    ``dtype=``."""
    extra = {"dtype": REDUCTION_DTYPES} if dtype else {}
    return st.one_of(_with(extra), st.fixed_dictionaries(
        {"dim": _dim_list(shape)}, optional={"keepdim": st.booleans(), **extra}))


def reduction_over_one_dim(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``prod``: nothing (every element), or one ``dim`` (with ``keepdim``), maybe
    ``dtype=``."""
    return st.one_of(_with({"dtype": REDUCTION_DTYPES}), st.fixed_dictionaries(
        {"dim": _one_dim(shape)},
        optional={"keepdim": st.booleans(), "dtype": REDUCTION_DTYPES}))


def max_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``max``/``min``: nothing, another tensor (elementwise), or one ``dim``."""
    return st.one_of(st.just({}), strategies.tensors(shape=_broadcastable(shape)).map(
        lambda o: {"other": o}), st.fixed_dictionaries(
        {"dim": _one_dim(shape)}, optional={"keepdim": st.booleans()}))


def amax_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``amax``/``amin``: ``dim`` a tuple (``()``: every dim) or one int."""
    dim = st.one_of(dims(shape).map(lambda d: d["dims"]), _one_dim(shape))
    return _with({"dim": dim, "keepdim": st.booleans()})


def argmax_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _with({"dim": st.one_of(st.none(), _one_dim(shape)), "keepdim": st.booleans()})


def all_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``all``/``any``: nothing, or ``dim`` (a tuple, ``()`` reducing no dim; an int; None)
    with ``keepdim``."""
    return st.one_of(st.just({}), st.fixed_dictionaries(
        {"dim": _dim_list(shape)}, optional={"keepdim": st.booleans()}))


def var_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``var``/``std``: ``unbiased`` alone, ``dim`` with ``unbiased`` and ``keepdim``, or
    ``dim`` with ``correction=`` (0, 1, 2 or a float) and ``keepdim``."""
    dim = st.one_of(dims(shape).map(lambda d: d["dims"]), _one_dim(shape), st.none())
    correction = st.sampled_from([0, 1, 2, 0.5, None])
    return st.one_of(
        _with({"unbiased": st.booleans()}),
        st.fixed_dictionaries({"dim": dim},
                              optional={"unbiased": st.booleans(), "keepdim": st.booleans()}),
        _with({"dim": dim, "correction": correction, "keepdim": st.booleans()}))


def _reduction_errors(name: str, *, dim_optional: bool = False) -> dict[str, Program]:
    errors = {
        "a dim out of range": lambda lib: getattr(lib.ones(2, 3), name)(2),
        "a float dim": lambda lib: getattr(lib.ones(2, 3), name)(0.5),
        "a string": lambda lib: getattr(lib, name)("a"),
    }
    if not dim_optional:
        errors["keepdim without dim"] = lambda lib: getattr(lib, name)(lib.ones(2),
                                                                       keepdim=True)
    return errors


def _differentiable_errors(name: str, **options: Any) -> dict[str, Program]:
    return {
        **_reduction_errors(name, **options),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(2, 3, requires_grad=True), 0, out=lib.empty(0)),
    }


def _max_errors(name: str) -> dict[str, Program]:
    return {
        **_reduction_errors(name),
        "an empty tensor": lambda lib: getattr(lib, name)(lib.ones(0)),
        "a dim of size 0": lambda lib: getattr(lib, name)(lib.ones(2, 0), 1),
        "a number as other": lambda lib: getattr(lib, name)(lib.ones(2), 2),
        "shapes that do not broadcast":
            lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(3)),
        "out= of one tensor for values and indices": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 1, out=(lib.empty(0),)),
        "out= values of another dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 1, out=(lib.empty(0, dtype=lib.float64),
                                    lib.empty(0, dtype=lib.int64))),
        "out= indices of another dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 1, out=(lib.empty(0), lib.empty(0, dtype=lib.int32))),
        "out= of an integer dtype for a float result": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), out=lib.empty(0, dtype=lib.int64)),
        "elementwise out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
    }


def _amax_errors(name: str) -> dict[str, Program]:
    return {
        **_differentiable_errors(name, dim_optional=True),
        "an empty tensor": lambda lib: getattr(lib, name)(lib.ones(0)),
        "a dim of size 0": lambda lib: getattr(lib, name)(lib.ones(2, 0), 1),
        "a dim twice": lambda lib: getattr(lib, name)(lib.ones(2, 3), (1, -1)),
        "out= of a wider dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.float64)),
        "out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.int64)),
    }


def _argmax_errors(name: str) -> dict[str, Program]:
    return {
        **_reduction_errors(name, dim_optional=True),
        "a bool tensor": lambda lib: getattr(lib, name)(lib.ones(2, dtype=lib.bool)),
        "an empty tensor": lambda lib: getattr(lib, name)(lib.ones(0)),
        "a dim of size 0": lambda lib: getattr(lib, name)(lib.ones(2, 0), 1),
        "out= of int32": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.int32)),
    }


def _all_errors(name: str) -> dict[str, Program]:
    return {
        "a dim out of range": lambda lib: getattr(lib.ones(2, 3), name)(2),
        "a dim twice": lambda lib: getattr(lib, name)(lib.ones(2, 3), (0, -2)),
        "a float dim": lambda lib: getattr(lib.ones(2, 3), name)(0.5),
        "out= of a float dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, out=lib.empty(0)),
        "out= of int64, no dim": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), out=lib.empty(0, dtype=lib.int64)),
    }


def _var_errors(name: str) -> dict[str, Program]:
    return {
        "an integer tensor": lambda lib: getattr(lib, name)(lib.arange(4)),
        "unbiased and correction": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, unbiased=True, correction=1),
        "a dim twice": lambda lib: getattr(lib, name)(lib.ones(2, 3), (0, 0)),
        "a dim out of range": lambda lib: getattr(lib, name)(lib.ones(2, 3), 2),
        "out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(2, 3, requires_grad=True), 0, out=lib.empty(0)),
    }


#: float sums are added in another order than torch's cascade: a few ulps (of the largest
#: magnitude, see ``tests/difftest.py``)
SUM_ULPS = 4
OP_DB += [
    OpEntry("sum", arguments=reduction_over_dims, ulps=SUM_ULPS, errors={
        **_differentiable_errors("sum"),
        "a dim twice": lambda lib: lib.ones(2, 3).sum((1, -1)),
        "out= with no dim": lambda lib: lib.sum(lib.ones(2), out=lib.empty(0)),
    }),
    OpEntry("mean", arguments=reduction_over_dims, ulps=SUM_ULPS, errors={
        **_differentiable_errors("mean"),
        "an integer tensor": lambda lib: lib.mean(lib.arange(3)),
        "an integer dtype=": lambda lib: lib.mean(lib.ones(3), dtype=lib.int64),
        "out= of an integer dtype": lambda lib: lib.mean(
            lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("prod", arguments=reduction_over_one_dim, ulps=SUM_ULPS, errors={
        **_differentiable_errors("prod"),
        "a tuple of dims": lambda lib: lib.ones(2, 3).prod((0, 1)),
    }),
    OpEntry("max", arguments=max_arguments, errors=_max_errors("max")),
    OpEntry("min", arguments=max_arguments, errors=_max_errors("min")),
    OpEntry("maximum", arguments=other, errors={
        "shapes that do not broadcast": lambda lib: lib.maximum(lib.ones(2), lib.ones(3)),
        "a number": lambda lib: lib.maximum(lib.ones(2), 2),
        "a meta tensor with a CPU tensor":
            lambda lib: lib.maximum(lib.ones(2, device="meta"), lib.ones(2)),
        "out= of an integer dtype": lambda lib: lib.maximum(
            lib.ones(2), lib.ones(2), out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("minimum", arguments=other, errors={
        "shapes that do not broadcast": lambda lib: lib.minimum(lib.ones(2), lib.ones(3)),
        "a number": lambda lib: lib.minimum(lib.ones(2), 2),
    }),
    OpEntry("amax", arguments=amax_arguments, errors=_amax_errors("amax")),
    OpEntry("amin", arguments=amax_arguments, errors=_amax_errors("amin")),
    OpEntry("argmax", arguments=argmax_arguments, grad=False, errors=_argmax_errors("argmax")),
    OpEntry("argmin", arguments=argmax_arguments, grad=False, errors=_argmax_errors("argmin")),
    OpEntry("all", arguments=all_arguments, grad=False, errors=_all_errors("all")),
    OpEntry("any", arguments=all_arguments, grad=False, errors=_all_errors("any")),
    OpEntry("var", arguments=var_arguments, dtypes=strategies.FLOAT_NAMES, ulps=SUM_ULPS,
            errors=_var_errors("var")),
    OpEntry("std", arguments=var_arguments, dtypes=strategies.FLOAT_NAMES, ulps=SUM_ULPS,
            errors=_var_errors("std")),
]


# ------------------------------------------------- scans and logsumexp (chapter 4, issue 43)
def scan_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``cumsum``/``cumprod``: one ``dim`` (negative too; 0-d: 0 or -1), maybe ``dtype=``
    (integers that wrap, float16, bool, which torch refuses for a result with elements)."""
    return st.fixed_dictionaries({"dim": _one_dim(shape)},
                                  optional={"dtype": REDUCTION_DTYPES})


def logsumexp_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``logsumexp``: ``dim`` a tuple (``()``: refused by torch for an input of 1 dim or
    more) or one int, maybe ``keepdim``."""
    dim = st.one_of(dims(shape).map(lambda d: d["dims"]), _one_dim(shape))
    return st.fixed_dictionaries({"dim": dim}, optional={"keepdim": st.booleans()})


def _scan_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "no dim": lambda lib: f(lib, lib.ones(2)),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), 2),
        "a dim out of range of a 0-d input": lambda lib: f(lib, lib.ones(()), -2),
        "a dim list": lambda lib: f(lib, lib.ones(2, 3), (0, 1)),
        "a float dim": lambda lib: f(lib, lib.ones(2, 3), 0.5),
        "a bool result": lambda lib: f(lib, lib.ones(2, dtype=lib.bool), 0, dtype=lib.bool),
        "a bool out=": lambda lib: f(lib, lib.ones(2), 0, out=lib.empty(0, dtype=lib.bool)),
        "out= of another dtype than dtype=": lambda lib: f(
            lib, lib.ones(2), 0, dtype=lib.float64, out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: f(
            lib, lib.ones(2, 3, requires_grad=True), 0, out=lib.empty(0)),
        "in place with another dtype": lambda lib: getattr(lib.ones(3), name + "_")(
            0, dtype=lib.float64),
        "in place into an expanded tensor": lambda lib: getattr(
            lib.ones(1).expand(3), name + "_")(0),
        "a method out=": lambda lib: getattr(lib.ones(2), name)(0, out=lib.empty(0)),
        "a function in place": lambda lib: getattr(lib, name + "_")(lib.ones(2), 0),
    }


#: NumPy's float64 exp and log1p against the C library's in torch's kernel
LOGCUMSUMEXP_ULPS = 2


def one_dim_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``cummax``, ``cummin``, ``logcumsumexp``: one ``dim``."""
    return st.fixed_dictionaries({"dim": _one_dim(shape)})


def _cum_extreme_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "no dim": lambda lib: f(lib, lib.ones(2)),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), 2),
        "a dim out of range of a 0-d input": lambda lib: f(lib, lib.ones(()), 1),
        "values out= of another dtype": lambda lib: f(
            lib, lib.ones(2), 0, out=(lib.empty(0, dtype=lib.float64),
                                      lib.empty(0, dtype=lib.int64))),
        "indices out= of int32": lambda lib: f(
            lib, lib.ones(2), 0, out=(lib.empty(0), lib.empty(0, dtype=lib.int32))),
        "out= with an input that requires grad": lambda lib: f(
            lib, lib.ones(2, requires_grad=True), 0,
            out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    }


OP_DB += [
    OpEntry("cumsum", arguments=scan_arguments, errors=_scan_errors("cumsum")),
    OpEntry("cumprod", arguments=scan_arguments, errors=_scan_errors("cumprod")),
    OpEntry("cummax", arguments=one_dim_arguments, errors=_cum_extreme_errors("cummax")),
    OpEntry("cummin", arguments=one_dim_arguments, errors=_cum_extreme_errors("cummin")),
    OpEntry("logcumsumexp", arguments=one_dim_arguments, ulps=LOGCUMSUMEXP_ULPS, errors={
        "no dim": lambda lib: lib.logcumsumexp(lib.ones(2)),
        "a dim out of range": lambda lib: lib.logcumsumexp(lib.ones(2, 3), 2),
        "an int64 input": lambda lib: lib.logcumsumexp(lib.arange(3), 0),
        "an empty int64 input": lambda lib: lib.logcumsumexp(lib.arange(0), 0),
        "a bool input": lambda lib: lib.logcumsumexp(lib.ones(2, dtype=lib.bool), 0),
        "out= of another dtype": lambda lib: lib.logcumsumexp(
            lib.ones(2), 0, out=lib.empty(0, dtype=lib.float64)),
        "out= of float for an int64 input": lambda lib: lib.logcumsumexp(
            lib.arange(3), 0, out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: lib.logcumsumexp(
            lib.ones(2, requires_grad=True), 0, out=lib.empty(0)),
    }),
    OpEntry("logsumexp", arguments=logsumexp_arguments, ulps=SUM_ULPS, errors={
        "no dim": lambda lib: lib.logsumexp(lib.ones(2, 3)),
        "dim=None": lambda lib: lib.logsumexp(lib.ones(2, 3), None),
        "dim=() of 2 dims": lambda lib: lib.logsumexp(lib.ones(2, 3), ()),
        "a dim twice": lambda lib: lib.logsumexp(lib.ones(2, 3), (0, -2)),
        "a dim out of range": lambda lib: lib.logsumexp(lib.ones(2, 3), 2),
        "out= of int64": lambda lib: lib.logsumexp(lib.ones(2, 3), 1,
                                                   out=lib.empty(0, dtype=lib.int64)),
        "out= of int64 for an int64 input": lambda lib: lib.logsumexp(
            lib.ones(2, 3, dtype=lib.int64), 1, out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: lib.logsumexp(
            lib.ones(2, 3, requires_grad=True), 0, out=lib.empty(0)),
    }),
]


# ------------------------------------------------------------- sorting (chapter 4, issue 43)
#: lines long enough for std::sort's quicksort (more than 16 elements) and, with the small
#: values drawn, ties in most of them (nan and -0.0: tests/test_ch04_reductions.py)
SORT_SHAPES = st.one_of(strategies.shapes, st.tuples(st.integers(17, 40)),
                        st.tuples(st.integers(1, 2), st.integers(17, 40)),
                        st.tuples(st.integers(17, 40), st.integers(1, 2)))


def _sort_options(shape: tuple[int, ...], stable: st.SearchStrategy[Any]
                  ) -> st.SearchStrategy[dict[str, Any]]:
    options = {"dim": _one_dim(shape), "descending": st.booleans()}
    return st.one_of(_with(options), st.fixed_dictionaries({"stable": stable},
                                                           optional=options))


def sort_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``sort``: ``dim`` and ``descending``, maybe ``stable`` (True, False or None)."""
    return _sort_options(shape, st.sampled_from([True, False, None]))


def argsort_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _sort_options(shape, st.booleans())


@st.composite
def topk_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``topk``: ``k`` from 0 to the dim's size (1 for a 0-d input), ``dim``, ``largest``,
    ``sorted``."""
    dim = draw(_one_dim(shape))
    size = shape[dim] if shape else 1
    found = {"k": draw(st.integers(0, size))}
    return {**found, **draw(_with({"dim": st.just(dim), "largest": st.booleans(),
                                   "sorted": st.booleans()}))}


def _sort_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), dim=2),
        "a dim out of range of a 0-d input": lambda lib: f(lib, lib.ones(()), dim=1),
        "a float dim": lambda lib: f(lib, lib.ones(2, 3), dim=0.5),
        "a dim list": lambda lib: f(lib, lib.ones(2, 3), dim=(0, 1)),
        "a string": lambda lib: f(lib, "a"),
    }


def _two_outs_errors(name: str, *args: Any) -> dict[str, Program]:
    """sort and topk's ``out=(values, indices)``: each of exactly its dtype, two tensors,
    no input that requires grad."""
    def f(lib: Any, *, requires_grad: bool = False, **kw: Any) -> Any:
        return getattr(lib, name)(lib.ones(2, 3, requires_grad=requires_grad), *args, **kw)

    return {
        "values out= of another dtype": lambda lib: f(
            lib, out=(lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int64))),
        "indices out= of int32": lambda lib: f(
            lib, out=(lib.empty(0), lib.empty(0, dtype=lib.int32))),
        "one out= tensor": lambda lib: f(lib, out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: f(
            lib, requires_grad=True, out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    }


OP_DB += [
    OpEntry("sort", arguments=sort_arguments, shapes=SORT_SHAPES, errors={
        **_sort_errors("sort"),
        "stable positionally": lambda lib: lib.sort(lib.ones(3), True, 0),
        **_two_outs_errors("sort"),
    }),
    OpEntry("argsort", arguments=argsort_arguments, shapes=SORT_SHAPES, grad=False, errors={
        **_sort_errors("argsort"),
        "stable=None": lambda lib: lib.argsort(lib.ones(3), stable=None),
        "out= without stable": lambda lib: lib.argsort(lib.ones(3),
                                                       out=lib.empty(0, dtype=lib.int64)),
        "out= of int32": lambda lib: lib.argsort(lib.ones(3), stable=True,
                                                 out=lib.empty(0, dtype=lib.int32)),
    }),
    OpEntry("msort", shapes=SORT_SHAPES, errors={
        "a dim": lambda lib: lib.msort(lib.ones(3), 0),
        "out= of another dtype": lambda lib: lib.msort(lib.ones(3),
                                                       out=lib.empty(0, dtype=lib.float64)),
        "a method out=": lambda lib: lib.ones(3).msort(out=lib.empty(0)),
    }),
    OpEntry("topk", arguments=topk_arguments, shapes=SORT_SHAPES, errors={
        "no k": lambda lib: lib.topk(lib.ones(3)),
        "k above the dim's size": lambda lib: lib.topk(lib.ones(3), 4),
        "k below 0": lambda lib: lib.topk(lib.ones(3), -1),
        "k of 2 of a 0-d input": lambda lib: lib.topk(lib.ones(()), 2),
        "a bool input": lambda lib: lib.topk(lib.ones(3, dtype=lib.bool), 2),
        "a 0-d bool input": lambda lib: lib.topk(lib.ones((), dtype=lib.bool), 1),
        "an empty bool input": lambda lib: lib.topk(lib.ones((2, 0), dtype=lib.bool), 0),
        "a dim out of range": lambda lib: lib.topk(lib.ones(2, 3), 1, 2),
        "a float k": lambda lib: lib.topk(lib.ones(3), 1.5),
        **_two_outs_errors("topk", 1),
    }),
]


# ------------------------------------- median, nanmedian, mode, kthvalue (chapter 4, issue 43)
#: torch 2.13's median/nanmedian along a dim of stride 0 (an expanded or overlapping
#: input) read past the input's memory (``median(tensor([5.]).expand(1, 17), 1)`` gives
#: 2.8e-44 at index 12): their entries draw the layouts whose elements do not share memory
_NOT_SHARED = strategies.WRITABLE_KINDS


def median_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``median``/``nanmedian``: nothing (every element), or one ``dim`` with ``keepdim``."""
    return st.one_of(st.just({}), st.fixed_dictionaries(
        {"dim": _one_dim(shape)}, optional={"keepdim": st.booleans()}))


def mode_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _with({"dim": _one_dim(shape), "keepdim": st.booleans()})


@st.composite
def kthvalue_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``kthvalue``: ``k`` from 1 to the dim's size (a dim of size 0: k 1, refused), maybe
    ``dim`` and ``keepdim``."""
    dim = draw(_one_dim(shape))
    size = shape[dim] if shape else 1
    return {"k": draw(st.integers(1, max(size, 1))),
            **draw(_with({"dim": st.just(dim), "keepdim": st.booleans()}))}


def _select_errors(name: str, *args: Any) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), *args, 2),
        "a dim of size 0": lambda lib: f(lib, lib.ones(2, 0), *args, 1),
        **({"a bool input": lambda lib: f(lib, lib.ones(3, dtype=lib.bool), *args, 0)}
           if name != "mode" else {}),
        **_two_outs_errors(name, *args, 0),
    }


OP_DB += [
    OpEntry("median", arguments=median_arguments, shapes=SORT_SHAPES, kinds=_NOT_SHARED,
            errors={
        **_select_errors("median"),
        "a bool input, no dim": lambda lib: lib.median(lib.ones(3, dtype=lib.bool)),
        "out= with no dim": lambda lib: lib.median(lib.ones(3), out=lib.empty(0)),
    }),
    OpEntry("nanmedian", arguments=median_arguments, shapes=SORT_SHAPES, kinds=_NOT_SHARED,
            errors={
        **_select_errors("nanmedian"),
        "a bool input, no dim": lambda lib: lib.nanmedian(lib.ones(3, dtype=lib.bool)),
    }),
    OpEntry("mode", arguments=mode_arguments, shapes=SORT_SHAPES,
            errors=_select_errors("mode")),
    OpEntry("kthvalue", arguments=kthvalue_arguments, shapes=SORT_SHAPES, errors={
        **_select_errors("kthvalue", 1),
        "k of 0": lambda lib: lib.kthvalue(lib.ones(3), 0),
        "k above the dim's size": lambda lib: lib.kthvalue(lib.ones(3), 4),
        "k of 2 of a 0-d input": lambda lib: lib.kthvalue(lib.ones(()), 2),
        "no k": lambda lib: lib.kthvalue(lib.ones(3)),
    }),
]


# ---------------------------------------------------- histograms (chapter 4, issue 43)
def bincount_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``bincount``: maybe ``weights`` (any dtype: float32 stays, others give float64) of
    the input's length, maybe ``minlength``."""
    return _with({"weights": strategies.tensors(shape=shape),
                  "minlength": st.integers(0, 12)})


def histc_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``histc``: maybe ``bins``, ``min``, ``max`` (equal: the data's own range; elements
    on the bin edges, since the values drawn are small integers and quarters)."""
    bound = st.sampled_from([-8, -2.5, 0, 0.25, 1, 3, 8])
    return _with({"bins": st.integers(1, 9), "min": bound, "max": bound})


OP_DB += [
    OpEntry("bincount", arguments=bincount_arguments, grad=False,
            dtypes=("uint8", "int8", "int16", "int32", "int64"), values=st.integers(0, 9),
            shapes=st.tuples(st.integers(0, 20)), errors={
        "a negative value": lambda lib: lib.bincount(lib.tensor([1, -1])),
        "2 dims": lambda lib: lib.bincount(lib.ones(2, 2, dtype=lib.int64)),
        "a 0-d input": lambda lib: lib.bincount(lib.tensor(1)),
        "a float input": lambda lib: lib.bincount(lib.ones(2)),
        "a bool input": lambda lib: lib.bincount(lib.ones(2, dtype=lib.bool)),
        "a negative minlength": lambda lib: lib.bincount(lib.tensor([1]), minlength=-1),
        "weights of another length": lambda lib: lib.bincount(lib.tensor([1, 2]),
                                                              lib.ones(3)),
        "meta": lambda lib: lib.bincount(lib.tensor([1, 2], device="meta")),
        "out=": lambda lib: lib.bincount(lib.tensor([1]), out=lib.empty(0)),
    }),
    OpEntry("histc", arguments=histc_arguments, grad=False, dtypes=strategies.FLOAT_NAMES,
            errors={
        "an int64 input": lambda lib: lib.histc(lib.arange(3)),
        "no bins": lambda lib: lib.histc(lib.ones(3), 0),
        "max below min": lambda lib: lib.histc(lib.ones(3), 4, 3, 1),
        "an infinite element": lambda lib: lib.histc(lib.tensor([1.0, math.inf]), 4),
        "a nan min": lambda lib: lib.histc(lib.ones(3), 4, min=math.nan),
        "out= of another dtype": lambda lib: lib.histc(lib.ones(3), 4,
                                                       out=lib.empty(0, dtype=lib.float64)),
    }),
]


# ------------------------------------------------ comparing tensors (chapter 4, issue 43)
def isclose_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``other`` of a shape that broadcasts (of the input's dtype: ``same_dtype``), maybe
    ``rtol``, ``atol`` (0 too: ``==``) and ``equal_nan``."""
    tolerance = st.sampled_from([0.0, 1e-5, 0.1, 0.5, 2.0])
    return st.fixed_dictionaries(
        {"other": strategies.tensors(shape=_broadcastable(shape))},
        optional={"rtol": tolerance, "atol": tolerance, "equal_nan": st.booleans()})


def equal_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``other`` of the input's shape (any dtype: compared in their result_type) or of one
    that broadcasts (False)."""
    return st.fixed_dictionaries({"other": strategies.tensors(
        shape=st.one_of(st.just(shape), _broadcastable(shape)))})


def _isclose_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "two dtypes": lambda lib: f(lib, lib.ones(2), lib.ones(2, dtype=lib.float64)),
        "float and int64": lambda lib: f(lib, lib.ones(2), lib.ones(2, dtype=lib.int64)),
        "a negative rtol": lambda lib: f(lib, lib.ones(2), lib.ones(2), rtol=-1),
        "a negative atol": lambda lib: f(lib, lib.ones(2), lib.ones(2), atol=-1),
        "shapes that do not broadcast": lambda lib: f(lib, lib.ones(2), lib.ones(3)),
        "a number": lambda lib: f(lib, lib.ones(2), 1.0),
        "out=": lambda lib: f(lib, lib.ones(2), lib.ones(2), out=lib.empty(0)),
    }


OP_DB += [
    OpEntry("equal", arguments=equal_arguments, grad=False, errors={
        "a number": lambda lib: lib.equal(lib.ones(2), 1.0),
        "meta tensors": lambda lib: lib.equal(lib.ones(2, device="meta"),
                                              lib.ones(2, device="meta")),
        "a meta and a CPU tensor": lambda lib: lib.equal(lib.ones(2, device="meta"),
                                                         lib.ones(2)),
    }),
    OpEntry("isclose", arguments=isclose_arguments, same_dtype=True, grad=False,
            errors=_isclose_errors("isclose")),
    OpEntry("allclose", arguments=isclose_arguments, same_dtype=True, grad=False, errors={
        **_isclose_errors("allclose"),
        "meta tensors": lambda lib: lib.allclose(lib.ones(2, device="meta"),
                                                 lib.ones(2, device="meta")),
    }),
]


# ------------------------------------------------- more reductions (chapter 4, issue 43)
#: float values with nans (and -0.0) for nanmean (nansum's: tests/test_ch04_reductions.py)
_WITH_NAN = st.sampled_from([0.0, -0.0, 1.0, -2.5, 3.0, float("nan")])


def count_nonzero_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``count_nonzero``: nothing, one dim (an int, or None) or distinct dims (a tuple, maybe
    ``()``: every dim)."""
    return st.one_of(st.just({}), st.fixed_dictionaries({"dim": st.one_of(
        st.none(), _one_dim(shape), dims(shape).map(lambda d: d["dims"]))}))


def aminmax_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _with({"dim": st.one_of(st.none(), _one_dim(shape)), "keepdim": st.booleans()})


def _nansum_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        **_differentiable_errors(name, dim_optional=True),
        "a dim twice": lambda lib: f(lib, lib.ones(2, 3), (0, 0)),
        "out= of another dtype than dtype=": lambda lib: f(
            lib, lib.ones(2, 3), 0, dtype=lib.float32, out=lib.empty(0, dtype=lib.float64)),
        "out= of int64 for a float input": lambda lib: f(
            lib, lib.ones(2, 3), 0, out=lib.empty(0, dtype=lib.int64)),
    }


OP_DB += [
    OpEntry("var_mean", arguments=var_arguments, dtypes=strategies.FLOAT_NAMES,
            ulps=SUM_ULPS, errors=_var_errors("var_mean")),
    OpEntry("std_mean", arguments=var_arguments, dtypes=strategies.FLOAT_NAMES,
            ulps=SUM_ULPS, errors=_var_errors("std_mean")),
    OpEntry("nansum", arguments=reduction_over_dims, ulps=SUM_ULPS,
            errors=_nansum_errors("nansum")),
    OpEntry("nanmean", arguments=reduction_over_dims, ulps=SUM_ULPS,
            dtypes=strategies.FLOAT_NAMES, values=_WITH_NAN, errors={
                **_nansum_errors("nanmean"),
                "an integer tensor": lambda lib: lib.nanmean(lib.arange(3)),
                "an integer dtype=": lambda lib: lib.nanmean(lib.ones(3), dtype=lib.int64),
            }),
    OpEntry("count_nonzero", arguments=count_nonzero_arguments, grad=False, errors={
        "a dim out of range": lambda lib: lib.count_nonzero(lib.ones(2, 3), 2),
        "a dim list out of range": lambda lib: lib.count_nonzero(lib.ones(2, 3), (2,)),
        "a dim twice": lambda lib: lib.count_nonzero(lib.ones(2, 3), (0, -2)),
        "keepdim": lambda lib: lib.count_nonzero(lib.ones(2, 3), 0, True),
        "out=": lambda lib: lib.count_nonzero(lib.ones(2, 3), out=lib.empty(0)),
    }),
    OpEntry("aminmax", arguments=aminmax_arguments, errors={
        "an empty tensor": lambda lib: lib.aminmax(lib.ones(0)),
        "a dim of size 0": lambda lib: lib.aminmax(lib.ones(2, 0), dim=1),
        "a dim out of range": lambda lib: lib.aminmax(lib.ones(2, 3), dim=2),
        "dim positionally": lambda lib: lib.aminmax(lib.ones(2, 3), 0),
        "out= of another dtype": lambda lib: lib.aminmax(
            lib.ones(2, 3), out=(lib.empty(0, dtype=lib.float64), lib.empty(0))),
        "one out= tensor": lambda lib: lib.aminmax(lib.ones(2, 3), out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: lib.aminmax(
            lib.ones(2, 3, requires_grad=True), out=(lib.empty(0), lib.empty(0))),
    }),
]


# ------------------------------------------------------------------ matrix products
_SIZES = st.sampled_from([0, 1, 2, 3])


def _matrix_shapes(dims: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(_SIZES, min_size=dims, max_size=dims).map(tuple)


@st.composite
def _inner(draw: st.DrawFn, k: int) -> int:
    """The other operand's inner size: ``k``, now and then one that does not match."""
    return k + 1 if draw(st.integers(0, 9)) == 0 else k


@st.composite
def _matmul_other(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A right operand for ``shape``: a vector, a matrix or a batch of matrices whose batch
    dims broadcast with ``shape``'s (a suffix of them with some 1s, or more dims)."""
    k = draw(_inner(shape[-1] if shape else 2))
    kind = draw(st.sampled_from(["vector", "matrix", "batch"]))
    if kind == "vector":
        return (k,)
    p = draw(_SIZES)
    if kind == "matrix":
        return (k, p)
    batch = shape[:-2]
    count = draw(st.integers(1, 2))
    dims = list(batch[len(batch) - count:]) if count <= len(batch) else [
        *draw(st.lists(_SIZES, min_size=count - len(batch), max_size=count - len(batch))),
        *batch]
    return (*[1 if draw(st.integers(0, 3)) == 0 else n for n in dims], k, p)


def _operand(name: str, shape: st.SearchStrategy[tuple[int, ...]]
             ) -> st.SearchStrategy[dict[str, Any]]:
    small = shape.filter(lambda s: math.prod(s) <= 36)
    return strategies.tensors(shape=small).map(lambda t: {name: t})


def matmul_other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _operand("other", _matmul_other(shape))


def mm_mat2(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    k = shape[1] if len(shape) == 2 else 2
    return _operand("mat2", st.tuples(_inner(k), _SIZES))


def bmm_mat2(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    b, k = (shape[0], shape[2]) if len(shape) == 3 else (1, 2)
    return _operand("mat2", st.tuples(st.just(b), _inner(k), _SIZES))


def mv_vec(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _operand("vec", st.tuples(_inner(shape[1] if len(shape) == 2 else 2)))


def dot_tensor(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _operand("tensor", st.tuples(_inner(shape[0] if len(shape) == 1 else 2)))


def _product_errors(name: str, good: tuple[tuple[int, ...], tuple[int, ...]],
                    bad: tuple[tuple[int, ...], tuple[int, ...]]) -> dict[str, Program]:
    """What every matrix product refuses: ``good`` shapes that it takes, ``bad`` ones that
    it does not."""
    (a, b), (c, d) = good, bad
    return {
        "sizes that do not match": lambda lib: getattr(lib, name)(lib.ones(c), lib.ones(d)),
        "dtypes that differ": lambda lib: getattr(lib, name)(
            lib.ones(a), lib.ones(b, dtype=lib.float64)),
        "integer and float": lambda lib: getattr(lib, name)(
            lib.ones(a, dtype=lib.int64), lib.ones(b)),
        "bool": lambda lib: getattr(lib, name)(lib.ones(a, dtype=lib.bool),
                                               lib.ones(b, dtype=lib.bool)),
        "a 0-d operand": lambda lib: getattr(lib, name)(lib.ones(()), lib.ones(b)),
        "a number": lambda lib: getattr(lib, name)(lib.ones(a), 2),
        "a list": lambda lib: getattr(lib, name)(lib.ones(a), [1.0]),
        "out= of another float dtype": lambda lib: getattr(lib, name)(
            lib.ones(a), lib.ones(b), out=lib.empty(0, dtype=lib.float64)),
        "out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(a), lib.ones(b), out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(a, requires_grad=True), lib.ones(b), out=lib.empty(0)),
        "out= that is not a tensor": lambda lib: getattr(lib, name)(
            lib.ones(a), lib.ones(b), out=[]),
        "a method with two operands": lambda lib: getattr(lib.ones(a), name)(
            lib.ones(b), lib.ones(b)),
    }


OP_DB += [
    OpEntry("matmul", arguments=matmul_other, same_dtype=True, errors={
        **_product_errors("matmul", ((2, 3), (3, 4)), ((2, 3), (4, 5))),
        "two 0-d operands": lambda lib: lib.matmul(lib.ones(()), lib.ones(())),
        "batch dims that do not broadcast":
            lambda lib: lib.ones(5, 2, 3) @ lib.ones(4, 3, 4),
        "float32 @ float64, batched": lambda lib: lib.ones(5, 2, 3) @ lib.ones(
            5, 3, 4, dtype=lib.float64),
        "folded, dtypes differ": lambda lib: lib.ones(5, 2, 3) @ lib.ones(
            3, 4, dtype=lib.float64),
        "vectors of other sizes": lambda lib: lib.ones(3) @ lib.ones(4),
        "bool vectors": lambda lib: lib.ones(3, dtype=lib.bool) @ lib.ones(3, dtype=lib.bool),
        "out= of another dtype for two vectors": lambda lib: lib.matmul(
            lib.ones(3), lib.ones(3), out=lib.empty(0, dtype=lib.float64)),
        "a number @ a tensor": lambda lib: 2 @ lib.ones(3),
        "a tensor @ a number": lambda lib: lib.ones(3) @ 2,
        "a string @ a tensor": lambda lib: "a" @ lib.ones(3),
        "a reflected 0-d operand": lambda lib: lib.ones(3).__rmatmul__(lib.ones(())),
    }),
    OpEntry("mm", arguments=mm_mat2, shapes=_matrix_shapes(2), same_dtype=True, errors={
        **_product_errors("mm", ((2, 3), (3, 4)), ((2, 3), (4, 5))),
        "a 3-d operand": lambda lib: lib.mm(lib.ones(2, 2, 3), lib.ones(3, 4)),
        "a vector": lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3)),
        "out_dtype on the CPU": lambda lib: lib.mm(lib.ones(2, 3), lib.ones(3, 4),
                                                   lib.float32),
        "out_dtype and out= on the CPU": lambda lib: lib.mm(
            lib.ones(2, 3), lib.ones(3, 4), lib.float32, out=lib.empty(0)),
        "out_dtype to the method": lambda lib: lib.ones(2, 3).mm(lib.ones(3, 4), lib.float32),
    }),
    OpEntry("bmm", arguments=bmm_mat2, shapes=_matrix_shapes(3), same_dtype=True, errors={
        **_product_errors("bmm", ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (2, 4, 5))),
        "batch sizes that differ": lambda lib: lib.bmm(lib.ones(5, 2, 3), lib.ones(4, 3, 4)),
        "a 2-d operand": lambda lib: lib.bmm(lib.ones(2, 3), lib.ones(3, 4)),
        "empty, dtypes differ, on meta": lambda lib: lib.bmm(
            lib.ones(0, 2, 3, device="meta"), lib.ones(0, 3, 4, dtype=lib.float64,
                                                       device="meta")),
        "out_dtype on the CPU": lambda lib: lib.bmm(lib.ones(1, 2, 3), lib.ones(1, 3, 4),
                                                    lib.float32),
    }),
    OpEntry("mv", arguments=mv_vec, shapes=_matrix_shapes(2), same_dtype=True, errors={
        **_product_errors("mv", ((2, 3), (3,)), ((2, 3), (4,))),
        "a meta tensor and a CPU tensor": lambda lib: lib.mv(lib.ones(2, 3, device="meta"),
                                                             lib.ones(3)),
        "a 0-d matrix on meta": lambda lib: lib.mv(lib.ones((), device="meta"),
                                                   lib.ones(3, device="meta")),
        "a matrix for the vector": lambda lib: lib.mv(lib.ones(2, 3), lib.ones(3, 1)),
        "a vector for the matrix": lambda lib: lib.mv(lib.ones(3), lib.ones(3)),
    }),
    OpEntry("dot", arguments=dot_tensor, shapes=_matrix_shapes(1), same_dtype=True, errors={
        **_product_errors("dot", ((3,), (3,)), ((3,), (4,))),
        "a meta tensor and a CPU tensor": lambda lib: lib.dot(lib.ones(3, device="meta"),
                                                              lib.ones(3)),
        "a matrix": lambda lib: lib.dot(lib.ones(3, 1), lib.ones(3)),
        "other instead of tensor": lambda lib: lib.dot(lib.ones(3), other=lib.ones(3)),
    }),
]


# ------------------------------------------------------------------ vdot, outer, inner, ...
def vdot_other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _operand("other", st.tuples(_inner(shape[0] if len(shape) == 1 else 2)))


def _any_operand(name: str, shape: st.SearchStrategy[tuple[int, ...]]
                 ) -> st.SearchStrategy[dict[str, Any]]:
    """An operand of any dtype (the op promotes)."""
    small = shape.filter(lambda s: math.prod(s) <= 36)
    return strategies.tensors(shape=small, dtypes=strategies.ALL_NAMES).map(
        lambda t: {name: t})


def outer_vec2(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _any_operand("vec2", st.tuples(_SIZES))


def kron_other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _any_operand("other", st.integers(0, 3).flatmap(_matrix_shapes))


@st.composite
def _inner_shape(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``inner``'s other operand: 0-d now and then, else any dims ending in ``shape``'s
    last size (now and then one that does not match)."""
    if not shape or draw(st.integers(0, 5)) == 0:
        return () if draw(st.booleans()) else (*draw(_matrix_shapes(draw(st.integers(0, 2)))),)
    rest = draw(_matrix_shapes(draw(st.integers(0, 2))))
    return (*rest, draw(_inner(shape[-1])))


def inner_other(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _operand("other", _inner_shape(shape))


@st.composite
def tensordot_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``other`` and the dims to contract: some of ``self``'s dims (negative now and
    then), paired with as many of ``other``'s, whose sizes match, are 1 on either side, or
    now and then do not match; ``other`` has 0 to 2 free dims besides."""
    n = len(shape)
    count = draw(st.integers(0, n))
    dims_self = draw(st.permutations(range(n)))[:count]
    free = draw(_matrix_shapes(draw(st.integers(0, 2 if n < 3 else 1))))
    total = count + len(free)
    where = draw(st.permutations(range(total)))
    sizes = [0] * total
    dims_other = list(where[:count])
    for d, i in zip(dims_self, dims_other, strict=True):
        size = shape[d]
        sizes[i] = draw(st.sampled_from([size, size, size, 1, size + 1]))
    for size, i in zip(free, where[count:], strict=True):
        sizes[i] = size
    dims_self = [d - n if draw(st.integers(0, 3)) == 0 else d for d in dims_self]
    other = draw(strategies.tensors(shape=tuple(sizes)))
    return {"other": other, "dims_self": dims_self, "dims_other": dims_other}


def _tensordot(lib: Any, *args: Any, **kwargs: Any) -> Any:
    return lib.tensordot(*args, **kwargs)


OP_DB += [
    OpEntry("vdot", arguments=vdot_other, shapes=_matrix_shapes(1), same_dtype=True, errors={
        **_product_errors("vdot", ((3,), (3,)), ((3,), (4,))),
        "a meta tensor and a CPU tensor": lambda lib: lib.vdot(lib.ones(3, device="meta"),
                                                               lib.ones(3)),
        "a matrix": lambda lib: lib.vdot(lib.ones(3, 1), lib.ones(3)),
        "tensor instead of other": lambda lib: lib.vdot(lib.ones(3), tensor=lib.ones(3)),
    }),
    OpEntry("outer", arguments=outer_vec2, shapes=_matrix_shapes(1), errors={
        "a matrix": lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2)),
        "a 0-d vec2": lambda lib: lib.outer(lib.ones(2), lib.ones(())),
        "a number": lambda lib: lib.outer(lib.ones(2), 2),
        "out= of an integer dtype": lambda lib: lib.outer(
            lib.ones(2), lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: lib.outer(
            lib.ones(2, requires_grad=True), lib.ones(3), out=lib.empty(0)),
        "a meta tensor and a CPU tensor": lambda lib: lib.outer(lib.ones(3, device="meta"),
                                                                lib.ones(3)),
    }),
    OpEntry("ger", arguments=outer_vec2, shapes=_matrix_shapes(1), errors={
        "a matrix": lambda lib: lib.ger(lib.ones(2, 2), lib.ones(2)),
        "out= of an integer dtype": lambda lib: lib.ger(
            lib.ones(2), lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("inner", arguments=inner_other, same_dtype=True, errors={
        "last dims that differ": lambda lib: lib.inner(lib.ones(2, 3), lib.ones(4)),
        "dtypes that differ": lambda lib: lib.inner(lib.ones(2, 3),
                                                    lib.ones(3, dtype=lib.float64)),
        "bool": lambda lib: lib.inner(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)),
        "a meta tensor and a CPU tensor": lambda lib: lib.inner(lib.ones(2, 3, device="meta"),
                                                                lib.ones(3)),
        "out= of another dtype": lambda lib: lib.inner(
            lib.ones(2, 3), lib.ones(3), out=lib.empty(0, dtype=lib.float64)),
        "0-d, out= of an integer dtype": lambda lib: lib.inner(
            lib.ones(2), lib.tensor(2), out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("tensordot", arguments=tensordot_arguments, same_dtype=True, errors={
        "lists of other lengths": lambda lib: _tensordot(
            lib, lib.ones(2, 3), lib.ones(3, 4), dims=([1], [0, 1])),
        "sizes that do not match": lambda lib: _tensordot(
            lib, lib.ones(2, 3), lib.ones(4, 4), dims=([1], [0])),
        "a dim twice": lambda lib: _tensordot(
            lib, lib.ones(3, 3), lib.ones(3, 3), dims=([1, 1], [0, 1])),
        "a negative n": lambda lib: _tensordot(lib, lib.ones(2, 3), lib.ones(3, 4), dims=-1),
        "n above the dims": lambda lib: _tensordot(lib, lib.ones(2, 3), lib.ones(3, 4),
                                                   dims=3),
        "a float n": lambda lib: _tensordot(lib, lib.ones(2, 3), lib.ones(3, 4), dims=1.0),
        "a dim out of range": lambda lib: _tensordot(lib, lib.ones(2, 3), lib.ones(3, 4),
                                                     dims=([5], [0])),
        "a dim of a 0-d tensor": lambda lib: _tensordot(lib, lib.ones(()), lib.ones(()),
                                                        dims=([0], [0])),
        "dtypes that differ": lambda lib: _tensordot(
            lib, lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64), dims=1),
        "bool": lambda lib: _tensordot(lib, lib.ones(2, 3, dtype=lib.bool),
                                       lib.ones(3, 4, dtype=lib.bool), dims=1),
        "bool vectors": lambda lib: _tensordot(lib, lib.ones(3, dtype=lib.bool),
                                               lib.ones(3, dtype=lib.bool), dims=1),
        "out= of an integer dtype": lambda lib: _tensordot(
            lib, lib.ones(2, 3), lib.ones(3, 4), dims=1, out=lib.empty(0, dtype=lib.int64)),
        "a keyword the function lacks": lambda lib: _tensordot(
            lib, lib.ones(2, 3), lib.ones(3, 4), dims_self=[1], dims_other=[0]),
    }),
    OpEntry("trace", shapes=_matrix_shapes(2), errors={
        "a vector": lambda lib: lib.trace(lib.ones(3)),
        "a 3-d tensor": lambda lib: lib.trace(lib.ones(2, 2, 2)),
        "a 3-d tensor on meta": lambda lib: lib.trace(lib.ones(2, 2, 2, device="meta")),
        "bool": lambda lib: lib.trace(lib.ones(2, 2, dtype=lib.bool)),
        "out=": lambda lib: lib.trace(lib.ones(2, 2), out=lib.empty(0)),
    }),
    OpEntry("kron", arguments=kron_other, shapes=st.integers(0, 3).flatmap(_matrix_shapes),
            errors={
        "out= of an integer dtype": lambda lib: lib.kron(
            lib.ones(2, 3), lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: lib.kron(
            lib.ones(2, requires_grad=True), lib.ones(3), out=lib.empty(0)),
        "a number": lambda lib: lib.kron(lib.ones(2), 2),
    }),
]



# ------------------------------------------------------------------ einsum
_EINSUM_LABELS = "abcdeAB"


@st.composite
def einsum_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``equation`` and 0 to 2 more ``tensors`` (the input's dtype: the entry's
    ``same_dtype``): the input's dims labelled (a label repeated over dims of one size now
    and then: a diagonal; its leading dims an ellipsis now and then); each other operand
    has up to 3 labels, shared ones of the same size or 1, and an ellipsis over a suffix
    of the input's (sizes equal or 1) when the input has one; the output implicit, or
    explicit (some labels in some order, the ellipsis or not)."""
    n = len(shape)
    ell = draw(st.integers(0, n)) if draw(st.integers(0, 3)) == 0 else None
    covered = shape[:ell] if ell is not None else ()
    sizes: dict[str, int] = {}
    own: list[str] = []
    for size in shape[len(covered):]:
        repeat = [x for x in own if sizes[x] == size]
        if repeat and draw(st.integers(0, 4)) == 0:
            own.append(draw(st.sampled_from(repeat)))
            continue
        fresh = [x for x in _EINSUM_LABELS if x not in sizes]
        label = draw(st.sampled_from(fresh))
        sizes[label] = size
        own.append(label)
    terms = [("..." if ell is not None else "") + "".join(own)]
    others = []
    for _ in range(draw(st.integers(0, 2))):
        labels: list[str] = []
        dims: list[int] = []
        suffix = ()
        if ell is not None and draw(st.booleans()):
            k = draw(st.integers(0, len(covered)))
            suffix = tuple(s if draw(st.integers(0, 3)) else 1 for s in covered[len(covered) - k:])
        for _ in range(draw(st.integers(0, 3 - min(len(suffix), 2)))):
            label = draw(st.sampled_from(_EINSUM_LABELS))
            if label not in sizes:
                sizes[label] = draw(_SIZES)
            labels.append(label)
            dims.append(sizes[label] if draw(st.integers(0, 4)) else 1)
        # a repeated label takes one size for both dims
        first = {x: d for x, d in reversed(list(zip(labels, dims, strict=True)))}
        dims = [first[x] for x in labels]
        prefix = "..." if suffix or (ell is not None and draw(st.booleans())) else ""
        terms.append(prefix + "".join(labels))
        others.append(draw(strategies.tensors(shape=(*suffix, *dims))))
    equation = ",".join(terms)
    if draw(st.integers(0, 2)):
        used = sorted({x for t in terms for x in t if x != "."})
        kept = draw(st.permutations(used))[:draw(st.integers(0, len(used)))]
        output = list(kept)
        if ell is not None and draw(st.booleans()):
            output.insert(draw(st.integers(0, len(output))), "...")
        equation += "->" + "".join(output)
    return {"equation": equation, "tensors": others}


def _einsum(lib: Any, *args: Any) -> Any:
    return lib.einsum(*args)


OP_DB += [
    OpEntry("einsum", arguments=einsum_arguments, same_dtype=True,
            shapes=strategies.shapes.filter(lambda s: len(s) <= 3), errors={
        "no operand": lambda lib: _einsum(lib, "i"),
        "no equation": lambda lib: _einsum(lib),
        "fewer operands": lambda lib: _einsum(lib, "i,i", lib.ones(2)),
        "more operands": lambda lib: _einsum(lib, "i", lib.ones(2), lib.ones(2)),
        "too few subscripts": lambda lib: _einsum(lib, "i", lib.ones(2, 2)),
        "too many subscripts with an ellipsis": lambda lib: _einsum(lib, "ij...", lib.ones(2)),
        "a subscript outside [a-zA-Z]": lambda lib: _einsum(lib, "i1", lib.ones(2, 2)),
        "a lone dot": lambda lib: _einsum(lib, "i.", lib.ones(2, 2)),
        "two ellipses": lambda lib: _einsum(lib, "......", lib.ones(2)),
        "two ellipses in the output": lambda lib: _einsum(lib, "...->......", lib.ones(2)),
        "a lone dot in the output": lambda lib: _einsum(lib, "i->.", lib.ones(2)),
        "an output label not in the inputs": lambda lib: _einsum(lib, "i->j", lib.ones(2)),
        "an output label twice": lambda lib: _einsum(lib, "ij->ii", lib.ones(2, 2)),
        "a bad output subscript": lambda lib: _einsum(lib, "i->1", lib.ones(2)),
        "sizes that do not broadcast": lambda lib: _einsum(lib, "i,i", lib.ones(2), lib.ones(3)),
        "ellipses that do not broadcast": lambda lib: _einsum(lib, "...,...", lib.ones(2),
                                                              lib.ones(3)),
        "a diagonal of unequal sizes": lambda lib: _einsum(lib, "ii", lib.ones(2, 3)),
        "dtypes that differ": lambda lib: _einsum(lib, "ij,jk", lib.ones(2, 3),
                                                  lib.ones(3, 2, dtype=lib.float64)),
        "bool": lambda lib: _einsum(lib, "ij,jk", lib.ones(2, 3, dtype=lib.bool),
                                    lib.ones(3, 2, dtype=lib.bool)),
        "a sublist subscript out of range": lambda lib: _einsum(lib, lib.ones(2), [52]),
        "a path of another size": lambda lib: _aten(lib).einsum(
            "i,i", [lib.ones(2), lib.ones(2)], path=[0]),
        "a path contracting an operand with itself": lambda lib: _aten(lib).einsum(
            "i,i", [lib.ones(2), lib.ones(2)], path=[0, 0]),
        "a path out of bounds": lambda lib: _aten(lib).einsum(
            "i,i", [lib.ones(2), lib.ones(2)], path=[0, 2]),
        "out=": lambda lib: _einsum(lib, "i", lib.ones(2), out=lib.ones(2)),
    }),
]


# ------------------------------------------------------------------ cross, linalg.cross
@st.composite
def _cross_shape(draw: st.DrawFn) -> tuple[int, ...]:
    """1 to 3 dims, one of them (now and then none) of size 3."""
    shape = list(draw(_matrix_shapes(draw(st.integers(0, 2)))))
    shape.insert(draw(st.integers(0, len(shape))), 3 if draw(st.integers(0, 9)) else 2)
    return tuple(shape)


@st.composite
def cross_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, linalg: bool
                    ) -> dict[str, Any]:
    """``other`` of the input's dims, each size the input's or 1 (1 on the input's side
    too: the input's size then), and ``dim`` (a dim of size 3 mostly, negative now and
    then; for ``cross`` none now and then: the first dim of size 3)."""
    threes = [i for i, s in enumerate(shape) if s == 3]
    other = tuple(s if s == 3 or draw(st.integers(0, 3)) else 1 for s in shape)
    found: dict[str, Any] = {"other": draw(strategies.tensors(shape=other))}
    n = len(shape)
    if not linalg and draw(st.integers(0, 3)) == 0:
        return found
    dim = draw(st.sampled_from(threes)) if threes and draw(st.integers(0, 5)) else draw(
        st.integers(-n, n - 1))
    if linalg and dim == n - 1 and draw(st.booleans()):
        return found  # the default, -1
    found["dim"] = dim - n if draw(st.integers(0, 3)) == 0 else dim
    return found


OP_DB += [
    OpEntry("cross", arguments=lambda s: cross_arguments(s, linalg=False), same_dtype=True,
            shapes=_cross_shape(), errors={
        "no dim of size 3": lambda lib: lib.cross(lib.ones(2, 2), lib.ones(2, 2)),
        "a dim of size 2": lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3), dim=0),
        "dims of different numbers": lambda lib: lib.cross(lib.ones(2, 3), lib.ones(3), dim=1),
        "shapes that do not broadcast": lambda lib: lib.cross(lib.ones(2, 3), lib.ones(4, 3),
                                                              dim=1),
        "a dim out of range": lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3), dim=2),
        "dtypes that differ": lambda lib: lib.cross(lib.ones(3), lib.ones(3, dtype=lib.float64),
                                                    dim=0),
        "bool": lambda lib: lib.cross(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool),
                                      dim=0),
        "out= of another dtype": lambda lib: lib.cross(
            lib.ones(3), lib.ones(3), dim=0, out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.cross(
            lib.ones(3, requires_grad=True), lib.ones(3), dim=0, out=lib.empty(0)),
    }),
    OpEntry("linalg_cross", arguments=lambda s: cross_arguments(s, linalg=True),
            same_dtype=True, shapes=_cross_shape(), errors={
        "a last dim of size 2": lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2)),
        "dims of different numbers": lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3)),
        "shapes that do not broadcast": lambda lib: lib.linalg.cross(lib.ones(2, 3),
                                                                     lib.ones(4, 3)),
        "a dim out of range": lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3), dim=1),
        "0-d": lambda lib: lib.linalg.cross(lib.tensor(1.0), lib.tensor(1.0)),
        "dtypes that differ": lambda lib: lib.linalg.cross(lib.ones(3),
                                                           lib.ones(3, dtype=lib.int64)),
        "bool": lambda lib: lib.linalg.cross(lib.ones(3, dtype=lib.bool),
                                             lib.ones(3, dtype=lib.bool)),
        "dim by position": lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3), 0),
        "out= of another dtype": lambda lib: lib.linalg.cross(
            lib.ones(3), lib.ones(3), out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.linalg.cross(
            lib.ones(3, requires_grad=True), lib.ones(3), out=lib.empty(0)),
    }),
]


# ------------------------------------------------------------------ addr
@st.composite
def addr_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``vec1`` ``(n,)`` and ``vec2`` ``(m,)`` of any dtype (addr promotes) that the input
    (up to 2 dims) broadcasts to, now and then one of another size; ``beta`` and ``alpha``
    sometimes."""
    n = shape[-2] if len(shape) == 2 and shape[-2] != 1 else draw(_SIZES)
    m = shape[-1] if shape and shape[-1] != 1 else draw(_SIZES)
    found = {"vec1": draw(strategies.tensors(shape=(n,))),
             "vec2": draw(strategies.tensors(shape=(draw(_inner(m)),)))}
    return _beta_alpha(draw, found)


#: addr's float32: torch's vectorised loop fuses ``beta * self + alpha * v1 * v2`` as
#: reftensor does, its scalar loop (short rows, a row's tail, strided or broadcast self)
#: rounds each product: the two differ by a rounding of a term, which can be more than an ulp
#: of the result (measured up to 1 ulp of the result's largest element) where terms cancel
OP_DB += [
    OpEntry("addr", arguments=addr_arguments, ulps=4,
            shapes=st.integers(0, 2).flatmap(_matrix_shapes), errors={
        "a 2-d vec1": lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2, 1), lib.ones(3)),
        "a 0-d vec2": lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2), lib.ones(())),
        "a self that does not broadcast": lambda lib: lib.addr(lib.ones(4), lib.ones(2),
                                                               lib.ones(3)),
        "a 3-d self": lambda lib: lib.addr(lib.ones(2, 2, 3), lib.ones(2), lib.ones(3)),
        "a float beta for integers": lambda lib: lib.addr(
            lib.ones(2, 3, dtype=lib.int64), lib.ones(2, dtype=lib.int64),
            lib.ones(3, dtype=lib.int64), beta=0.5),
        "a bool alpha for floats": lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2),
                                                        lib.ones(3), alpha=True),
        "in place, self broadcast": lambda lib: lib.ones(3).addr_(lib.ones(2), lib.ones(3)),
        "in place, a float result into integers": lambda lib: lib.ones(
            2, 3, dtype=lib.int64).addr_(lib.ones(2), lib.ones(3)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            2, 3, requires_grad=True).addr_(lib.ones(2), lib.ones(3)),
        "out= of an integer dtype": lambda lib: lib.addr(
            lib.ones(2, 3), lib.ones(2), lib.ones(3), out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: lib.addr(
            lib.ones(2, 3, requires_grad=True), lib.ones(2), lib.ones(3), out=lib.empty(0)),
        "out= the expanded input": lambda lib: (lambda s: lib.addr(
            s, lib.ones(2), lib.ones(3), out=s))(lib.ones(3).expand(2, 3)),
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


# ------------------------------------------------------------------ views (chapter 2)
def _dim(draw: st.DrawFn, n: int, *, extra: int = 0) -> int:
    """A dim of a tensor of ``n`` dims (``extra`` more allowed: ``unsqueeze``), some written
    negative; a 0-d tensor takes 0 and -1."""
    m = max(n + extra, 1)
    return draw(st.integers(-m, m - 1))


@st.composite
def _reshaped(draw: st.DrawFn, shape: tuple[int, ...], *, infer: bool = True
              ) -> tuple[int, ...]:
    """Another shape of as many elements: flattened, a dim split or two dims merged, size-1
    dims added or dropped; maybe one size written -1."""
    numel = math.prod(shape)
    dims = list(shape)
    how = draw(st.sampled_from(["flat", "same", "split", "merge", "ones", "squeezed"]))
    if how == "flat":
        dims = [numel]
    elif how == "split" and dims:
        d = draw(st.integers(0, len(dims) - 1))
        n = dims[d]
        factor = draw(st.sampled_from([k for k in (1, 2, 3) if n == 0 or n % k == 0]))
        dims[d:d + 1] = [factor, n // factor] if n else [factor, 0]
    elif how == "merge" and len(dims) >= 2:
        d = draw(st.integers(0, len(dims) - 2))
        dims[d:d + 2] = [dims[d] * dims[d + 1]]
    elif how == "ones":
        dims.insert(draw(st.integers(0, len(dims))), 1)
    elif how == "squeezed":
        dims = [n for n in dims if n != 1]
    if infer and dims and numel and draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(dims)


def view_size(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _reshaped(shape).map(lambda s: {"size": s})


def reshape_shape(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _reshaped(shape).map(lambda s: {"shape": s})


def like_reshaped(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``other``: a tensor of another shape of as many elements (``view_as``)."""
    return strategies.tensors(shape=_reshaped(shape, infer=False)).map(
        lambda o: {"other": o})


@st.composite
def flatten_dims(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    arguments = {}
    if draw(st.booleans()):
        arguments["start_dim"] = _dim(draw, len(shape))
        if draw(st.booleans()):
            arguments["end_dim"] = _dim(draw, len(shape))
    return arguments


@st.composite
def unflatten_sizes(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    n = shape[d] if shape else 1
    sizes = draw(st.sampled_from([(n,), (1, n), (n, 1), (-1,), (1, -1)]
                                 + ([(2, n // 2), (-1, 2)] if n and n % 2 == 0 else [])))
    return {"dim": d, "sizes": sizes}


def two_dims(first: str, second: str) -> Arguments:
    @st.composite
    def draw_dims(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
        return {first: _dim(draw, len(shape)), second: _dim(draw, len(shape))}

    return draw_dims


@st.composite
def permutation(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    n = len(shape)
    order = draw(st.permutations(range(n)))
    return {"dims": tuple(d - n if draw(st.booleans()) else d for d in order)}


@st.composite
def squeeze_dims(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    how = draw(st.sampled_from(["none", "int", "tuple"]))
    if how == "none":
        return {}
    if how == "int":
        return {"dim": _dim(draw, len(shape))}
    n = max(len(shape), 1)
    return {"dim": tuple(draw(st.lists(st.integers(-n, n - 1), unique_by=lambda d: d % n,
                                       max_size=n)))}


@st.composite
def unsqueeze_dim(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {"dim": _dim(draw, len(shape), extra=1)}


@st.composite
def _expanded(draw: st.DrawFn, shape: tuple[int, ...], *, keep: bool = True
              ) -> tuple[int, ...]:
    """A shape ``shape`` broadcasts to: size-1 dims grown, leading dims added; with
    ``keep``, some sizes written -1."""
    target = [draw(st.sampled_from([0, 1, 2, 3])) if n == 1 else
              (-1 if keep and draw(st.booleans()) else n) for n in shape]
    lead = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=2))
    return (*lead, *target)


def expand_size(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _expanded(shape).map(lambda s: {"size": s})


def broadcast_size(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _expanded(shape, keep=False).map(lambda s: {"size": s})


def expand_like(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return strategies.tensors(shape=_expanded(shape, keep=False)).map(lambda o: {"other": o})


@st.composite
def narrow_range(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    n = shape[d] if shape else 1
    start = draw(st.integers(0, n))
    length = draw(st.integers(0, n - start))
    if draw(st.booleans()) and start < n:
        start -= n  # counted from the end
    return {"dim": d, "start": start, "length": length}


@st.composite
def select_index(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    n = shape[d] if shape else 1
    return {"dim": d, "index": draw(st.integers(-n, n - 1)) if n else 0}


@st.composite
def unfold_window(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    n = shape[d] if shape else 1
    return {"dimension": d, "size": draw(st.integers(0, n)), "step": draw(st.integers(1, 3))}


@st.composite
def diagonal_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    arguments: dict[str, Any] = {"offset": draw(st.integers(-3, 3))}
    if len(shape) >= 2 and draw(st.booleans()):
        n = len(shape)
        first = draw(st.integers(0, n - 1))
        second = draw(st.integers(0, n - 1).filter(lambda d: d != first))
        arguments["dim1"] = first - n if draw(st.booleans()) else first
        arguments["dim2"] = second - n if draw(st.booleans()) else second
    return arguments


@st.composite
def _lengths(draw: st.DrawFn, n: int) -> tuple[int, ...]:
    """Sizes that add up to ``n`` (zeros among them)."""
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    edges = [0, *cuts, n]
    return tuple(b - a for a, b in zip(edges, edges[1:], strict=False))


@st.composite
def split_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    n = shape[d] if shape else 1
    size = draw(st.one_of(st.integers(1, 4), _lengths(n)) if n else
                st.sampled_from([0, 1, 2, (0,), (0, 0)]))
    return {"split_size": size, "dim": d} if draw(st.booleans()) or d else \
        {"split_size": size}


@st.composite
def split_with_sizes_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim(draw, len(shape))
    return {"split_sizes": draw(_lengths(shape[d] if shape else 1)), "dim": d}


@st.composite
def chunk_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {"chunks": draw(st.integers(1, 5)), "dim": _dim(draw, len(shape))}


@st.composite
def one_dim(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {"dim": _dim(draw, len(shape))}


@st.composite
def as_strided_layout(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A layout over the input's storage: its shape with contiguous strides, one dim of
    stride 0, or a row of it; maybe at offset 0 (past the storage's end: torch's error)."""
    numel = math.prod(shape)
    size, stride = draw(st.sampled_from([
        (shape, tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))),
        ((3,), (0,)), ((numel,), (1,)), ((2, 2), (1, 1)), ((), ())]))
    arguments: dict[str, Any] = {"size": size, "stride": stride}
    if draw(st.booleans()):
        arguments["storage_offset"] = draw(st.sampled_from([0, 1]))
    return arguments


_MATRIX_SHAPES = st.lists(strategies.small_sizes, max_size=2).map(tuple)
_MULTI_ERRORS: dict[str, Program] = {
    "in place into a piece that requires grad":
        lambda lib: (lambda x: x.split(1)[0].mul_(2))(lib.ones(2, requires_grad=True) * 1),
}

OP_DB += [
    OpEntry("view", arguments=view_size, errors={
        "a size of another numel": lambda lib: lib.ones(2, 3).view(5),
        "strides that cannot express it": lambda lib: lib.ones(2, 3).t().view(6),
        "two -1": lambda lib: lib.ones(2, 3).view(-1, -1),
        "a float size": lambda lib: lib.ones(2).view(2.0),
        "no size": lambda lib: lib.ones(2).view(),
        "-1 with no elements": lambda lib: lib.ones(0, 3).view(-1, 0),
    }),
    OpEntry("view_as", arguments=like_reshaped, errors={
        "another numel": lambda lib: lib.ones(2, 3).view_as(lib.ones(5)),
        "a shape": lambda lib: lib.ones(2, 3).view_as((3, 2)),
    }),
    OpEntry("reshape", arguments=reshape_shape, errors={
        "a size of another numel": lambda lib: lib.reshape(lib.ones(2, 3), (5,)),
        "a size below -1": lambda lib: lib.ones(2).reshape(-2, -1),
        "a string": lambda lib: lib.ones(2).reshape("a"),
    }),
    OpEntry("reshape_as", arguments=like_reshaped, errors={
        "another numel": lambda lib: lib.ones(2, 3).reshape_as(lib.ones(5)),
    }),
    OpEntry("flatten", arguments=flatten_dims, errors={
        "start after end": lambda lib: lib.flatten(lib.ones(2, 3, 4), 2, 1),
        "a dim out of range": lambda lib: lib.flatten(lib.ones(2, 3), 0, 2),
    }),
    OpEntry("unflatten", arguments=unflatten_sizes, errors={
        "no sizes": lambda lib: lib.unflatten(lib.ones(2, 3), 1, ()),
        "sizes of another product": lambda lib: lib.unflatten(lib.ones(2, 6), 1, (4, 2)),
        "a 0-d tensor": lambda lib: lib.unflatten(lib.ones(()), 0, (1,)),
    }),
    OpEntry("transpose", arguments=two_dims("dim0", "dim1"), errors={
        "a dim out of range": lambda lib: lib.transpose(lib.ones(2, 3), 0, 2),
        "one dim": lambda lib: lib.ones(2, 3).transpose(0),
    }),
    OpEntry("swapaxes", arguments=two_dims("axis0", "axis1"), errors={
        "a dim out of range": lambda lib: lib.swapaxes(lib.ones(2, 3), 0, -3),
    }),
    OpEntry("swapdims", arguments=two_dims("dim0", "dim1"), errors={
        "a dim out of range": lambda lib: lib.swapdims(lib.ones(2, 3), 2, 0),
    }),
    OpEntry("t", shapes=_MATRIX_SHAPES, errors={
        "3 dims": lambda lib: lib.t(lib.ones(2, 3, 4)),
        "an argument": lambda lib: lib.ones(2, 3).t(0),
    }),
    OpEntry("permute", arguments=permutation, errors={
        "too few dims": lambda lib: lib.ones(2, 3).permute(0),
        "a dim twice": lambda lib: lib.ones(2, 3).permute(1, -1),
        "a dim out of range": lambda lib: lib.permute(lib.ones(2, 3), (0, 2)),
    }),
    OpEntry("squeeze", arguments=squeeze_dims, errors={
        "a dim out of range": lambda lib: lib.ones(2, 1).squeeze(2),
        "a dim twice": lambda lib: lib.ones(2, 1).squeeze((1, -1)),
        "a float dim": lambda lib: lib.ones(2, 1).squeeze(1.0),
    }),
    OpEntry("unsqueeze", arguments=unsqueeze_dim, errors={
        "a dim out of range": lambda lib: lib.ones(2).unsqueeze(2),
        "no dim": lambda lib: lib.ones(2).unsqueeze(),
    }),
    OpEntry("expand", arguments=expand_size, errors={
        "fewer sizes than dims": lambda lib: lib.ones(2, 3).expand(3),
        "a dim that is not 1": lambda lib: lib.ones(2, 3).expand(4, 3),
        "-1 for a new dim": lambda lib: lib.ones(2).expand(-1, 2),
        "a negative size": lambda lib: lib.ones(1).expand(-2),
    }),
    OpEntry("expand_as", arguments=expand_like, errors={
        "a shape it does not broadcast to": lambda lib: lib.ones(2).expand_as(lib.ones(3)),
    }),
    OpEntry("broadcast_to", arguments=broadcast_size, errors={
        "a shape it does not broadcast to": lambda lib: lib.broadcast_to(lib.ones(2), (3,)),
    }),
    OpEntry("narrow", arguments=narrow_range, errors={
        "a 0-d tensor": lambda lib: lib.narrow(lib.ones(()), 0, 0, 1),
        "a negative length": lambda lib: lib.ones(3).narrow(0, 0, -1),
        "past the end": lambda lib: lib.ones(3).narrow(0, 2, 2),
        "a start out of range": lambda lib: lib.ones(3).narrow(0, -4, 1),
        "a start tensor with dims": lambda lib: lib.ones(3).narrow(0, lib.tensor([0]), 1),
        "a float start tensor": lambda lib: lib.ones(3).narrow(0, lib.tensor(0.0), 1),
    }),
    OpEntry("select", arguments=select_index, errors={
        "a 0-d tensor": lambda lib: lib.select(lib.ones(()), 0, 0),
        "an index out of range": lambda lib: lib.ones(3).select(0, 3),
        "a dim out of range": lambda lib: lib.ones(3).select(1, 0),
    }),
    OpEntry("unfold", arguments=unfold_window, errors={
        "a window too long": lambda lib: lib.ones(3).unfold(0, 4, 1),
        "a step of 0": lambda lib: lib.ones(3).unfold(0, 2, 0),
        "a negative size": lambda lib: lib.ones(3).unfold(0, -1, 1),
    }),
    OpEntry("diagonal", arguments=diagonal_arguments, errors={
        "the same dim twice": lambda lib: lib.diagonal(lib.ones(2, 3), 0, 1, -1),
        "a 1-d tensor": lambda lib: lib.diagonal(lib.ones(3)),
    }),
    OpEntry("split", arguments=split_arguments, errors={
        **_MULTI_ERRORS,
        "a 0-d tensor": lambda lib: lib.split(lib.ones(()), 1),
        "a negative size": lambda lib: lib.ones(3).split(-1),
        "a size of 0": lambda lib: lib.ones(3).split(0),
        "sizes that do not add up": lambda lib: lib.ones(3).split([1, 1]),
    }),
    OpEntry("split_with_sizes", arguments=split_with_sizes_arguments, errors={
        "sizes that do not add up": lambda lib: lib.ones(3).split_with_sizes([1, 1]),
        "a negative size": lambda lib: lib.ones(3).split_with_sizes([4, -1]),
        "an int": lambda lib: lib.ones(3).split_with_sizes(1),
    }),
    OpEntry("chunk", arguments=chunk_arguments, errors={
        "0 chunks": lambda lib: lib.ones(3).chunk(0),
        "a 0-d tensor": lambda lib: lib.chunk(lib.ones(()), 1),
    }),
    OpEntry("unbind", arguments=one_dim, errors={
        "a 0-d tensor": lambda lib: lib.unbind(lib.ones(())),
        "a dim out of range": lambda lib: lib.ones(2).unbind(1),
    }),
    OpEntry("as_strided", arguments=as_strided_layout, errors={
        "sizes and strides of different lengths": lambda lib: lib.ones(4).as_strided((2,), ()),
        "past the end of the storage": lambda lib: lib.ones(4).as_strided((5,), (1,)),
        "a negative stride": lambda lib: lib.ones(4).as_strided((2,), (-1,)),
        "a negative offset": lambda lib: lib.ones(4).as_strided((2,), (1,), -1),
    }),
    OpEntry("detach", grad=False, errors={
        "an argument": lambda lib: lib.ones(2).detach(0),
    }),
    # no gradient compared: torch's Autograd kernel records LiftFreshBackward0 on the very
    # tensor the op returns, its input (a leaf that requires grad then has a grad_fn);
    # reftensor records nothing on an op that returns its input (as ``positive``)
    OpEntry("lift_fresh", grad=False),
    # the first element as a Python number (no derivative row in torch)
    OpEntry("_local_scalar_dense", grad=False, errors={
        "an empty tensor": lambda lib: _aten(lib)._local_scalar_dense(lib.ones(0)),
        "a meta tensor": lambda lib: _aten(lib)._local_scalar_dense(lib.ones(1, device="meta")),
        "an empty meta tensor": lambda lib: _aten(lib)._local_scalar_dense(
            lib.ones(0, device="meta")),
    }),
]


# ------------------------------------------------------------------ where and clamp
@st.composite
def where_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``condition``: a bool tensor that broadcasts to the input; ``other``: a tensor that
    broadcasts (any dtype and layout) or a number."""
    condition = draw(strategies.tensors(shape=_broadcastable(shape), dtypes=("bool",)))
    return {"condition": condition, "other": draw(_other(shape))}


def _bound(shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    """A bound: a number, a tensor that broadcasts to ``shape``, or None."""
    return st.one_of(st.none(), NUMBERS, strategies.tensors(shape=_broadcastable(shape)))


@st.composite
def clamp_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``min`` and ``max``, each a number, a tensor or None (not both None); both numbers,
    both tensors or None, or a 0-d tensor next to a number (read as a number)."""
    kind = draw(st.sampled_from(["numbers", "tensors", "0-d and number"]))
    if kind == "numbers":
        bound = st.one_of(st.none(), NUMBERS)
    elif kind == "tensors":
        bound = st.one_of(st.none(), strategies.tensors(shape=_broadcastable(shape)))
    else:
        bound = st.one_of(NUMBERS, strategies.tensors(shape=()))
    low, high = draw(bound), draw(bound)
    if low is None and high is None:
        low = draw(NUMBERS)
    return {"min": low, "max": high}


def one_bound(name: str) -> Arguments:
    """``clamp_min``'s ``min`` (``clamp_max``'s ``max``): a number or a tensor."""
    def draw(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
        return _other(shape).map(lambda b: {name: b})

    return draw


def _clamp_errors(name: str) -> dict[str, Program]:
    bounds = {"clamp": (0.0, 1.0), "clip": (0.0, 1.0), "clamp_min": (0.0,),
              "clamp_max": (1.0,)}[name]
    errors: dict[str, Program] = {
        "a string": lambda lib: getattr(lib, name)(lib.ones(2), "a"),
        "a bool tensor with number bounds": lambda lib: getattr(lib, name)(
            lib.ones(2, dtype=lib.bool), *[True for _ in bounds]),
        "in place, a float bound into an int tensor": lambda lib: getattr(
            lib.arange(3), name + "_")(*[b + 0.5 for b in bounds]),
        "in place, a float tensor bound into an int tensor": lambda lib: getattr(
            lib.arange(3), name + "_")(*[lib.tensor([b + 0.5]) for b in bounds]),
        "a number out of float16's range": lambda lib: getattr(
            lib.ones(2, dtype=lib.float16), name)(*[1e10 for _ in bounds]),
        "out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(2), *bounds, out=lib.empty(0, dtype=lib.int64)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(2, requires_grad=True), *bounds, out=lib.empty(0)),
        "bounds that do not broadcast": lambda lib: getattr(lib, name)(
            lib.ones(2), *[lib.ones(3) for _ in bounds]),
        "in place into a leaf that requires grad": lambda lib: getattr(
            lib.ones(2, requires_grad=True), name + "_")(*bounds),
        "a meta bound with a CPU tensor": lambda lib: getattr(lib, name)(
            lib.ones(2), *[lib.ones(2, device="meta") for _ in bounds]),
    }
    if len(bounds) == 2:
        errors.update({
            "neither bound": lambda lib: getattr(lib, name)(lib.ones(2)),
            "neither bound, in place": lambda lib: getattr(lib.ones(2), name + "_")(),
            "both bounds None": lambda lib: getattr(lib, name)(lib.ones(2), None, None),
            "a tensor bound with dims and a number": lambda lib: getattr(lib, name)(
                lib.ones(2), lib.zeros(2), 1.0),
            "two tensor bounds on bool": lambda lib: getattr(lib, name)(
                lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool),
                lib.ones(2, dtype=lib.bool)),
        })
    else:
        errors["no bound"] = lambda lib: getattr(lib, name)(lib.ones(2))
    return errors


OP_DB += [
    OpEntry("where", arguments=where_arguments, no_leaves=("condition",), errors={
        "a float condition": lambda lib: lib.where(lib.ones(2), lib.ones(2), lib.ones(2)),
        "an int condition": lambda lib: lib.where(lib.arange(2), 1.0, 2.0),
        "shapes that do not broadcast": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool), lib.ones(3), lib.ones(2)),
        "a string": lambda lib: lib.where(lib.ones(2, dtype=lib.bool), lib.ones(2), "a"),
        "no other": lambda lib: lib.where(lib.ones(2, dtype=lib.bool), lib.ones(2)),
        "a number condition": lambda lib: lib.where(True, lib.ones(2), lib.ones(2)),
        "a method with a number self": lambda lib: lib.ones(2).where(1.0, lib.ones(2)),
        "out= of another dtype": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool), lib.ones(2), lib.ones(2),
            out=lib.empty(0, dtype=lib.float64)),
        "out= with a number": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool), lib.ones(2), 1.0, out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool), lib.ones(2, requires_grad=True), lib.ones(2),
            out=lib.empty(0)),
        "where(condition) of a meta tensor": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool, device="meta")),
        "a meta condition with CPU values": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool, device="meta"), lib.ones(2), lib.ones(2)),
        "a number out of uint8's range": lambda lib: lib.where(
            lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.uint8), 300),
    }),
    OpEntry("clamp", arguments=clamp_arguments, errors=_clamp_errors("clamp")),
    OpEntry("clip", arguments=clamp_arguments, errors=_clamp_errors("clip")),
    OpEntry("clamp_min", arguments=one_bound("min"), errors=_clamp_errors("clamp_min")),
    OpEntry("clamp_max", arguments=one_bound("max"), errors=_clamp_errors("clamp_max")),
]


# ------------------------------------------------------------------ more elementwise (issue 43)
#: Allowance of issue 43's float functions. torch computes float32 and float64 with SLEEF's u10
#: functions (MKL's vector erf for erf); reftensor computes float32 in float64 with NumPy (erf: the
#: C library's) and rounds once. Measured on 400,000 values per dtype (each function's domain, then
#: +-10**-8..10**2, and the specials): float64 and float32 at most 1 ulp from torch's (1 ulp off:
#: log1p 1.1% / 0.24%, exp2 7.6% / 3.9%, asin 0 / 3.3%, acos 0 / 4.8%, sinh 0.9% / 0.7%, cosh 9.5% /
#: 0.5%, erf 6.8% / 3.2%; log2, log10, tan, atan exact in float64 and under 0.4% off in float32;
#: asinh, acosh exact in float64, 6.9% / 3.4% 1 ulp off in float32; atanh up to 2 ulps off in
#: float64 on 18% of 300,000 values, 1 ulp on 0.6% in float32);
#: float16 and bfloat16 (in float32, rounded) at most 1 ulp, on under 0.03% of values. rsqrt: torch
#: divides 1 by the rounded square root, as reftensor does, which is exact for float32 and float64;
#: for float16 and bfloat16 torch's vectorised loop keeps that square root in float32 (as reftensor
#: does) while its scalar loop (tensors of fewer than 32 elements, strided ones, the tail of a
#: contiguous one) rounds it to the 16-bit type first: 1 ulp apart on 13% of float16 values
#: (measured on every finite float16 of a strided tensor). Two differences on long tensors only,
#: which torch's vectorised loop takes (runs of 32 float32 or 64 float16/bfloat16 elements with
#: AVX512): SLEEF's float32 sinh and cosh overflow to inf for 88.72 < |x| < 89.4, where the scalar
#: loop (and reftensor) give a finite value; and torch's float16/bfloat16 erf there is its own
#: polynomial (Abramowitz and Stegun's, relative error up to 2.5% near 0), where its scalar loop
#: (and reftensor) is the C library's erf. The gradients' formulas run transcendental ops of their
#: own (exp, pow, sinh, ...), hence the usual allowance.
MORE_FLOAT_ULPS = TRANSCENDENTAL_ULPS
OP_DB += [
    OpEntry("square", errors={
        "a string": lambda lib: lib.square("a"),
        "a number": lambda lib: lib.square(2.5),
        "in place into a bool tensor": lambda lib: lib.ones(2, dtype=lib.bool).square_(),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).square_(),
        "in place into a leaf that requires grad":
            lambda lib: lib.ones(2, requires_grad=True).square_(),
        "out= with an input that requires grad":
            lambda lib: lib.square(lib.ones(2, requires_grad=True), out=lib.empty(2)),
        "out= of an integer dtype for a float result":
            lambda lib: lib.square(lib.ones(2), out=lib.empty(2, dtype=lib.int64)),
    }),
    _float_function("rsqrt", ulps=1),
    *[_float_function(name, ulps=MORE_FLOAT_ULPS)
      for name in ("log1p", "log2", "log10", "exp2", "tan", "atan", "asin", "acos", "asinh",
                   "acosh", "atanh", "sinh", "cosh", "erf")],
    OpEntry("ceil", errors=_unary_errors("ceil")),
    OpEntry("trunc", errors=_unary_errors("trunc")),
    OpEntry("frac", errors={
        **_unary_errors("frac"),
        "an integer tensor": lambda lib: lib.frac(lib.arange(3)),
        "out= of another dtype": lambda lib: lib.frac(lib.ones(2),
                                                      out=lib.empty(2, dtype=lib.float64)),
    }),
    # sgn's gradient is not compared here: torch's SgnBackward0 gives real inputs an
    # "efficient zero tensor" (zeros whose storage is never allocated: tolist() raises
    # "shouldn't be called on a tensor with unallocated storage"), which reftensor does not
    # have; reftensor's is zeros_like(grad). tests/test_ch05_autograd.py's "sgn * 2 + x"
    # compares a gradient it flows into.
    OpEntry("sgn", grad=False, errors={
        **_unary_errors("sgn", bool_refused=False),
        "out= of another dtype": lambda lib: lib.sgn(lib.ones(2),
                                                     out=lib.empty(2, dtype=lib.float64)),
    }),
    *[OpEntry(name, grad=False, errors={
        "a number": lambda lib, name=name: getattr(lib, name)(2.5),
        "an argument": lambda lib, name=name: getattr(lib.ones(2), name)(1),
        "out=": lambda lib, name=name: getattr(lib, name)(
            lib.ones(2), out=lib.empty(2, dtype=lib.bool)),
    }) for name in ("isnan", "isinf", "isfinite")],
    OpEntry("absolute", errors=_unary_errors("absolute")),
    *[OpEntry(name, arguments=other, grad=False, errors=_comparison_errors(name))
      for name in ("greater", "greater_equal", "less", "less_equal", "not_equal")],
]


# ------------------------------------------------------------------ conversions
@st.composite
def to_copy_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """Any of ``_to_copy``'s keywords: a dtype, a device (to the CPU or the meta device),
    a memory format (channels_last only for 4-d inputs), ``non_blocking``."""
    arguments: dict[str, Any] = {}
    if draw(st.booleans()):
        arguments["dtype"] = DtypeName(draw(st.sampled_from(strategies.ALL_NAMES)))
    if draw(st.booleans()):
        arguments["device"] = draw(st.sampled_from(["cpu", "meta"]))
    formats = ["None", "preserve_format", "contiguous_format"] + (
        ["channels_last"] if len(shape) == 4 else [])
    if draw(st.booleans()):
        chosen = draw(st.sampled_from(formats))
        arguments["memory_format"] = None if chosen == "None" else LibValue(chosen)
    if draw(st.booleans()):
        arguments["non_blocking"] = draw(st.booleans())
    return arguments


def type_as_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``other``: a tensor of any dtype and shape."""
    return strategies.tensors(shape=st.sampled_from([(), (1,), (2, 3)])).map(
        lambda o: {"other": o})


OP_DB += [
    OpEntry("_to_copy", arguments=to_copy_arguments,
            shapes=st.one_of(strategies.shapes, st.sampled_from([(2, 3, 1, 2), (1, 2, 2, 1)])),
            errors={
        "channels_last on 3 dims": lambda lib: lib.ones(2, 3, 4).to(
            memory_format=lib.channels_last),
        "a meta tensor to the CPU": lambda lib: lib.ones(2, device="meta").to("cpu"),
        "cuda": lambda lib: lib.ones(2).to("cuda"),
        "a bad device string": lambda lib: lib.ones(2).to("gpu"),
        "a dtype then a device": lambda lib: lib.ones(2).to(lib.float64, "cpu"),
        "a tensor then a dtype": lambda lib: lib.ones(2).to(lib.ones(1), lib.float64),
        "an unknown keyword": lambda lib: lib.ones(2).to(lib.float64, foo=1),
        "four positional flags": lambda lib: lib.ones(2).to(lib.float64, True, False, False),
        "a string dtype": lambda lib: lib.ones(2).to(dtype="float64"),
        "a conversion method with an argument": lambda lib: lib.ones(2).float(1),
    }),
    OpEntry("type_as", arguments=type_as_arguments, errors={
        "a number": lambda lib: lib.ones(2).type_as(1),
        "no other": lambda lib: lib.ones(2).type_as(),
        "a meta tensor like a CPU tensor": lambda lib: lib.ones(
            2, device="meta").type_as(lib.ones(1)),
    }),
]


# ------------------------------------------------------------------ random sampling
# The numbers depend on the generator's state: every drawn call seeds both libraries the
# same way first (``Seed``), so that the values are compared bit for bit, as reftensor
# claims for every sampler (tests/test_ch08_rng.py checks the streams themselves).
class Seed:
    """A ``generator=`` argument that makes each library's draws start alike: a
    ``Generator`` seeded with ``seed``, or (``default``) None after seeding the default
    generator."""

    def __init__(self, seed: int, *, default: bool) -> None:
        self.seed, self.default = seed, default

    def make(self, lib: Any) -> Any:
        if self.default:
            lib.manual_seed(self.seed)
            return None
        return lib.Generator().manual_seed(self.seed)

    def __repr__(self) -> str:
        return f"Seed({self.seed}, default={self.default})"


SEEDS = st.builds(Seed, st.integers(0, 2**32 - 1), default=st.booleans())
#: probabilities every float dtype holds exactly
PROBABILITIES = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])


def _with_seed(*choices: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """One of ``choices`` (the arguments after self, in order), then ``generator``."""
    return st.tuples(st.one_of(*choices), SEEDS).map(lambda p: {**p[0], "generator": p[1]})


def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    return st.sampled_from([low, high, (low + high) / 2, 0.1, 1.0, 2.5]).filter(
        lambda v: low <= v <= high)


def uniform_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``from`` and ``to`` (some left out), from <= to."""
    bounds = st.tuples(_floats(-3.0, 3.0), _floats(0.0, 4.0)).map(
        lambda b: (min(b), max(b)))
    return _with_seed(st.just({}), _floats(-3.0, 0.5).map(lambda a: {"from": a}),
                      bounds.map(lambda b: {"from": b[0], "to": b[1]}))


def normal_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``mean`` and ``std`` (some left out), std >= 0."""
    return _with_seed(st.just({}), _floats(-3.0, 3.0).map(lambda m: {"mean": m}),
                      st.tuples(_floats(-3.0, 3.0), _floats(0.0, 3.0)).map(
                          lambda p: {"mean": p[0], "std": p[1]}))


def random_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``random_()``, ``random_(to)``, ``random_(from, to)`` (``to`` None: the dtype's
    max), small and wide ranges."""
    low = st.sampled_from([-5, 0, 1, 3])
    high = st.sampled_from([2, 7, 100, 2**30])
    return _with_seed(st.just({}), high.map(lambda h: {"to": h}),
                      st.tuples(low, st.one_of(high, st.none())).map(
                          lambda p: {"from": p[0], "to": p[1]}))


def exponential_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _with_seed(st.just({}), _floats(0.1, 3.0).map(lambda v: {"lambd": v}))


@st.composite
def _probability_tensor(draw: st.DrawFn, shape: tuple[int, ...]) -> Any:
    """A float tensor of probabilities that broadcasts to ``shape``."""
    spec = draw(strategies.tensors(dtypes=strategies.FLOAT_NAMES,
                                   shape=_broadcastable(shape)))
    values = draw(st.lists(PROBABILITIES, min_size=len(spec.storage),
                           max_size=len(spec.storage)))
    return dataclasses.replace(spec, storage=tuple(values))


def bernoulli__arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``p``: none, a probability, or a float tensor of them."""
    return _with_seed(st.just({}), PROBABILITIES.map(lambda p: {"p": p}),
                      _probability_tensor(shape).map(lambda p: {"p": p}))


def bernoulli_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """None (the input holds the probabilities), or ``p``."""
    return _with_seed(st.just({}), PROBABILITIES.map(lambda p: {"p": p}))


def multinomial_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``num_samples`` up to the categories (more with replacement), ``replacement``."""
    categories = shape[-1] if shape else 1
    return _with_seed(st.tuples(st.integers(1, max(categories, 1) + 2), st.booleans()).map(
        lambda p: {"num_samples": p[0], "replacement": p[1]}))


@st.composite
def _normal_tensor_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``std``: a non-negative tensor that broadcasts with the mean (any dtype, layout), or
    a number (left out: 1)."""
    if draw(st.booleans()):
        spec = draw(strategies.tensors(shape=_broadcastable(shape)))
        values = [abs(v) for v in spec.storage]
        return {"std": dataclasses.replace(spec, storage=tuple(values))}
    return draw(st.one_of(st.just({}), _floats(0.0, 3.0).map(lambda s: {"std": s})))


def normal_tensor_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _with_seed(_normal_tensor_arguments(shape))


@st.composite
def normal_factory_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``normal(mean, std, size)``: two numbers (std >= 0) and the options
    (``_random_options``: the random factories' section below)."""
    return {"mean": draw(_floats(-3.0, 3.0)), "std": draw(_floats(0.0, 3.0)), "size": shape,
            **draw(_random_options())}


def _sampler_errors(name: str, *args: Any) -> dict[str, Program]:
    """What every in-place sampler refuses, as torch does."""
    return {
        "into an expanded tensor": lambda lib: getattr(lib.ones(1).expand(3), name)(*args),
        "into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, requires_grad=True), name)(*args),
        "a generator that is no Generator": lambda lib: getattr(lib.ones(2), name)(
            *args, generator=1),
        "a string": lambda lib: getattr(lib.ones(2), name)("a"),
    }


OP_DB += [
    OpEntry("uniform_", arguments=uniform_arguments, errors={
        **_sampler_errors("uniform_"),
        "from > to": lambda lib: lib.ones(2).uniform_(2, 1),
        "an infinite bound": lambda lib: lib.ones(2).uniform_(0, math.inf),
        "a range too wide for float16": lambda lib: lib.ones(2, dtype=lib.float16).uniform_(
            -60000, 60000),
        "an integer tensor": lambda lib: lib.ones(2, dtype=lib.int64).uniform_(),
    }),
    OpEntry("normal_", arguments=normal_arguments, errors={
        **_sampler_errors("normal_"),
        "a negative std": lambda lib: lib.ones(2).normal_(0, -1),
        "an integer tensor": lambda lib: lib.ones(2, dtype=lib.int64).normal_(),
        "an integer tensor and a negative std":
            lambda lib: lib.ones(2, dtype=lib.int64).normal_(0, -1),
    }),
    OpEntry("random_", arguments=random_arguments, errors={
        **_sampler_errors("random_"),
        "from >= to": lambda lib: lib.ones(2).random_(5, 2),
        "to out of range for uint8": lambda lib: lib.ones(2, dtype=lib.uint8).random_(300),
        "every int64 into bool": lambda lib: lib.ones(2, dtype=lib.bool).random_(-2**63, None),
        "a float bound": lambda lib: lib.ones(2).random_(2.5),
        "three bounds": lambda lib: lib.ones(2).random_(1, 2, 3),
        "from alone by keyword": lambda lib: lib.ones(2).random_(**{"from": 2}),
    }),
    OpEntry("exponential_", arguments=exponential_arguments, errors={
        **_sampler_errors("exponential_"),
        "lambd 0": lambda lib: lib.ones(2).exponential_(0),
        "an integer tensor": lambda lib: lib.ones(2, dtype=lib.int64).exponential_(),
    }),
    OpEntry("bernoulli_", arguments=bernoulli__arguments, errors={
        **_sampler_errors("bernoulli_", 0.5),
        "p above 1": lambda lib: lib.ones(2).bernoulli_(1.5),
        "an integer tensor p": lambda lib: lib.ones(2).bernoulli_(lib.ones(2, dtype=lib.int64)),
        "a tensor p that does not broadcast": lambda lib: lib.ones(2).bernoulli_(lib.ones(3)),
        "a tensor p with a value above 1": lambda lib: lib.ones(2).bernoulli_(lib.full((2,), 2.0)),
    }),
    OpEntry("bernoulli", arguments=bernoulli_arguments, values=PROBABILITIES, errors={
        "integer probabilities": lambda lib: lib.bernoulli(lib.ones(2, dtype=lib.int64)),
        "a probability above 1": lambda lib: lib.bernoulli(lib.full((2,), 2.0)),
        "p above 1": lambda lib: lib.bernoulli(lib.ones(2), 1.5),
        "p as a tensor": lambda lib: lib.bernoulli(lib.ones(2), lib.ones(2)),
        "out= with p": lambda lib: lib.bernoulli(lib.ones(2), 0.5, out=lib.empty(2)),
        "out= with an input that requires grad":
            lambda lib: lib.bernoulli(lib.ones(2, requires_grad=True), out=lib.empty(2)),
        "the gradient through p": lambda lib: lib.bernoulli(
            lib.ones(2, requires_grad=True), 0.5).sum().backward(),
    }),
    # The drawn weights are positive; test_op_table.py's
    # test_multinomial_ties_among_zero_weights takes zero weights (all tied at p/q = 0, in
    # the order libstdc++'s nth_element and sort leave them, which reftensor replays).
    OpEntry("multinomial", arguments=multinomial_arguments, grad=False,
            values=st.sampled_from([0.5, 1.0, 2.0, 3.0]), errors={
        "a 0-d input": lambda lib: lib.multinomial(lib.tensor(1.0), 1),
        "a 3-d input": lambda lib: lib.multinomial(lib.ones(1, 1, 2), 1),
        "an integer input": lambda lib: lib.multinomial(lib.ones(2, dtype=lib.int64), 1),
        "no samples": lambda lib: lib.multinomial(lib.ones(2), 0),
        "more samples than categories": lambda lib: lib.multinomial(lib.ones(2), 3),
        "a negative weight": lambda lib: lib.multinomial(lib.tensor([1.0, -1.0]), 1),
        "a row of zeros": lambda lib: lib.multinomial(lib.zeros(2, 2), 1),
        "a row of zeros with replacement": lambda lib: lib.multinomial(lib.zeros(2), 2, True),
        "an infinite weight with replacement":
            lambda lib: lib.multinomial(lib.tensor([1.0, math.inf]), 2, True),
        "out= of float32": lambda lib: lib.multinomial(lib.ones(2), 1, out=lib.empty(0)),
        "a float num_samples": lambda lib: lib.multinomial(lib.ones(2), 1.5),
    }),
    # normal(mean: Tensor, std): the drawn input is the mean; normal(float, float, size), a
    # factory, is drawn too (``factory``).
    OpEntry("normal", arguments=normal_tensor_arguments, factory=normal_factory_arguments,
            errors={
        "a negative std": lambda lib: lib.normal(lib.ones(2), -1.0),
        "a negative element of std": lambda lib: lib.normal(lib.ones(2), lib.tensor([1.0, -1])),
        "a number mean and a negative element of std":
            lambda lib: lib.normal(0.0, lib.tensor([1.0, -1])),
        "shapes that do not broadcast": lambda lib: lib.normal(lib.ones(2), lib.ones(3)),
        "an integer mean": lambda lib: lib.normal(lib.ones(2, dtype=lib.int64), 1.0),
        "an integer mean and a float std":
            lambda lib: lib.normal(lib.ones(2, dtype=lib.int64), lib.ones(2)),
        "an integer std and a number mean": lambda lib: lib.normal(
            0.0, lib.ones(2, dtype=lib.int64)),
        "out= of an integer dtype":
            lambda lib: lib.normal(lib.ones(2), lib.ones(2), out=lib.empty(0, dtype=lib.int64)),
        "out= that does not broadcast with the mean":
            lambda lib: lib.normal(lib.ones(3), 1.0, out=lib.empty(0)),
        "a string std": lambda lib: lib.normal(lib.ones(2), "a"),
        "as a method": lambda lib: lib.ones(2).normal(1.0),
        "the mean as input=": lambda lib: lib.normal(input=lib.ones(2), std=1.0),
        "a factory with a negative std": lambda lib: lib.normal(0.0, -1.0, (2,)),
        "a factory into int64": lambda lib: lib.normal(0.0, 1.0, (2,), dtype=lib.int64),
        "a factory into int64 on the meta device": lambda lib: lib.normal(
            0.0, 1.0, (2,), dtype=lib.int64, device="meta"),
        "a factory with an int size": lambda lib: lib.normal(0.0, 1.0, 2),
        "a factory with requires_grad for int64": lambda lib: lib.normal(
            0.0, 1.0, (2,), dtype=lib.int64, requires_grad=True),
        "a factory with a dtype that is not out's": lambda lib: lib.normal(
            0.0, 1.0, (2,), dtype=lib.float64, out=lib.empty(0)),
    }),
]


# ------------------------------------------------------------------ factories (chapter 1)
#: ``dtype=`` of a factory: none, any dtype, or a Python type
FACTORY_DTYPES = st.sampled_from([None, *(DtypeName(n) for n in strategies.ALL_NAMES),
                                  float, int, bool])


@st.composite
def _tensor_options(draw: st.DrawFn, *, dtype: bool = True) -> dict[str, Any]:
    """A factory's options: ``dtype`` (or none), ``device="cpu"`` or ``None`` sometimes,
    ``requires_grad=True`` sometimes (an error for a dtype that is not floating)."""
    options: dict[str, Any] = {}
    d = draw(FACTORY_DTYPES) if dtype else None
    if d is not None:
        options["dtype"] = d
    if draw(st.integers(0, 3)) == 0:
        options["device"] = draw(st.sampled_from(["cpu", None]))
    if draw(st.integers(0, 3)) == 0:
        options["requires_grad"] = True
    return options


def size_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``size``: the drawn input's shape (0-d, empty and size-1 dims), and the options."""
    return _tensor_options().map(lambda options: {"size": shape, **options})


def empty_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``size`` and the options, and a ``memory_format`` sometimes (channels_last for 4
    dims)."""
    formats = [None, LibValue("contiguous_format")] + (
        [LibValue("channels_last")] if len(shape) == 4 else [])
    return st.tuples(size_arguments(shape), st.sampled_from(formats)).map(
        lambda p: p[0] if p[1] is None else {**p[0], "memory_format": p[1]})


def full_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``size``, a ``fill_value`` (a number of any kind, or a 0-d tensor) and the
    options."""
    return st.tuples(size_arguments(shape), st.one_of(NUMBERS, strategies.tensors(shape=()))
                     ).map(lambda p: {"size": p[0]["size"], "fill_value": p[1],
                                      **{k: v for k, v in p[0].items() if k != "size"}})


def scalar_tensor_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``s``, a number of any kind, and the options (no size: the result is 0-d)."""
    return st.tuples(NUMBERS, _tensor_options()).map(lambda p: {"s": p[0], **p[1]})


def _factory_errors(name: str, *first: Any) -> dict[str, Program]:
    """What every factory of a size refuses, as torch does (``first``: the arguments after
    the size)."""
    def f(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*args, **kwargs)

    return {
        "a negative size": lambda lib: f(lib, (2, -1), *first),
        "a float size": lambda lib: f(lib, (2.5,), *first),
        "a string size": lambda lib: f(lib, "a", *first),
        "no size": lambda lib: f(lib),
        "requires_grad for int64": lambda lib: f(lib, (2,), *first, dtype=lib.int64,
                                                 requires_grad=True),
        "pin_memory": lambda lib: f(lib, (2,), *first, pin_memory=True),
        "a dtype that is not out's": lambda lib: f(lib, (2,), *first, dtype=lib.int64,
                                                   out=lib.empty(0)),
        "a device that is not out's": lambda lib: f(lib, (2,), *first, device="meta",
                                                    out=lib.empty(0)),
        "a cuda device": lambda lib: f(lib, (2,), *first, device="cuda"),
        "a dtype that is no dtype": lambda lib: f(lib, (2,), *first, dtype="float32"),
        "an unknown keyword": lambda lib: f(lib, (2,), *first, names=("a",)),
    }


OP_DB += [
    OpEntry("zeros", arguments=size_arguments, no_input=True, grad=False,
            errors={**_factory_errors("zeros"),
                    "a float among the sizes": lambda lib: lib.zeros(2, 1.5),
                    "sizes one by one and a tuple": lambda lib: lib.zeros(2, (3,))}),
    OpEntry("ones", arguments=size_arguments, no_input=True, grad=False,
            errors=_factory_errors("ones")),
    OpEntry("empty", arguments=empty_arguments, no_input=True, grad=False, uninitialised=True,
            errors={**_factory_errors("empty"),
                    "channels_last on 3 dims": lambda lib: lib.empty(
                        2, 3, 4, memory_format=lib.channels_last),
                    "preserve_format": lambda lib: lib.empty(
                        2, memory_format=lib.preserve_format),
                    "memory_format with out=": lambda lib: lib.empty(
                        2, memory_format=lib.contiguous_format, out=lib.empty(0))}),
    OpEntry("full", arguments=full_arguments, no_input=True, grad=False,
            errors={**_factory_errors("full", 1),
                    "a number out of range": lambda lib: lib.full((2,), 256,
                                                                  dtype=lib.uint8),
                    "nan into int64": lambda lib: lib.full((2,), float("nan"),
                                                           dtype=lib.int64),
                    "a bare int size": lambda lib: lib.full(2, 1),
                    "a tensor with dims": lambda lib: lib.full((2,), lib.ones(2)),
                    "no fill value": lambda lib: lib.full((2,))}),
    OpEntry("scalar_tensor", arguments=scalar_tensor_arguments, no_input=True, grad=False,
            errors={"no value": lambda lib: lib.scalar_tensor(),
                    "a size": lambda lib: lib.scalar_tensor((2,), 1.0),
                    "a tensor with dims": lambda lib: lib.scalar_tensor(lib.ones(2)),
                    "a number out of range": lambda lib: lib.scalar_tensor(
                        256, dtype=lib.uint8),
                    "nan into int64": lambda lib: lib.scalar_tensor(float("nan"),
                                                                    dtype=lib.int64),
                    "requires_grad for int64": lambda lib: lib.scalar_tensor(
                        1, dtype=lib.int64, requires_grad=True),
                    "pin_memory": lambda lib: lib.scalar_tensor(1, pin_memory=True),
                    "a cuda device": lambda lib: lib.scalar_tensor(1, device="cuda"),
                    "out=": lambda lib: lib.scalar_tensor(1, out=lib.empty(()))}),
]


#: bounds of a range: small ints, floats with a fraction, signed zero
BOUNDS = st.one_of(st.integers(-10, 10), st.sampled_from([0.5, -2.25, 3.1, -7.9, 0.1, -0.0,
                                                          9.99]))


@st.composite
def arange_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``end`` alone, ``start`` and ``end``, or a ``step`` too (an int or a float, pointing
    from ``start`` to ``end``), and the options."""
    start, end = draw(BOUNDS), draw(BOUNDS)
    step = draw(st.one_of(st.integers(1, 4), st.sampled_from([0.5, 1.5, 0.3, 4.0])))
    step = -step if end < start else step
    arguments = draw(st.sampled_from([{"end": end}, {"start": start, "end": end},
                                      {"start": start, "end": end, "step": step}]))
    if "end" in arguments and len(arguments) == 1 and end < 0:
        arguments = {"end": -end}
    return {**arguments, **draw(_tensor_options())}


@st.composite
def linspace_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``start`` and ``end`` (numbers, or 0-d tensors of an int or float dtype), ``steps``
    from 0 to 30, and the options."""
    bound = st.one_of(BOUNDS, BOUNDS, strategies.tensors(
        shape=(), dtypes=("int64", "float32", "float64")))
    return {"start": draw(bound), "end": draw(bound), "steps": draw(st.integers(0, 30)),
            **draw(_tensor_options())}


OP_DB += [
    # ulps=1: torch's float arange kernel restarts its vectorised groups from a base rounded
    # to the dtype, and rounds its step otherwise than reftensor's one-rounding
    # ``start + step * i`` (a documented last-bit difference, see factories._arange_values)
    OpEntry("arange", arguments=arange_arguments, no_input=True, grad=False, ulps=1, errors={
        "a zero step": lambda lib: lib.arange(0, 10, 0),
        "a step truncated to 0 in int64": lambda lib: lib.arange(0, 10, 0.5, dtype=lib.int64),
        "a step pointing away": lambda lib: lib.arange(10, 0),
        "an infinite end": lambda lib: lib.arange(float("inf")),
        "a nan end": lambda lib: lib.arange(float("nan")),
        "bool": lambda lib: lib.arange(5, dtype=lib.bool),
        "requires_grad for int64": lambda lib: lib.arange(5, requires_grad=True),
        "no arguments": lambda lib: lib.arange(),
        "a string": lambda lib: lib.arange("a"),
        "a tensor with dims": lambda lib: lib.arange(lib.ones(2)),
        "a dtype that is not out's": lambda lib: lib.arange(5, dtype=lib.int64,
                                                            out=lib.ones(0)),
    }),
    OpEntry("linspace", arguments=linspace_arguments, no_input=True, grad=False, errors={
        "negative steps": lambda lib: lib.linspace(0, 1, -1),
        "float steps": lambda lib: lib.linspace(0, 1, 2.5),
        "no steps": lambda lib: lib.linspace(0, 1),
        "a start with dims": lambda lib: lib.linspace(lib.ones(2), 1, 3),
        "both bounds with dims": lambda lib: lib.linspace(lib.ones(2), lib.ones(3), 3),
        "bool": lambda lib: lib.linspace(0, 1, 3, dtype=lib.bool),
        "a bound out of uint8": lambda lib: lib.linspace(0, 300, 3, dtype=lib.uint8),
        "nan into int64": lambda lib: lib.linspace(float("nan"), 1, 3, dtype=lib.int64),
        "a dtype that is not out's": lambda lib: lib.linspace(0, 1, 3, dtype=lib.int64,
                                                              out=lib.ones(0)),
        "a string": lambda lib: lib.linspace("a", 1, 3),
    }),
]



# ------------------------------------------------------------------ indexing (chapter 2)
#: the inputs of ``index`` and ``index_put``: at least one dim
_WITH_DIMS = strategies.shapes.filter(len)
#: shapes of the integer index tensors (broadcast together; empty ones too)
_INDEX_SHAPES = [(), (1,), (2,), (0,), (2, 1), (1, 3)]


def _index_tensor(draw: st.DrawFn, size: int, shape: tuple[int, ...]) -> Any:
    """An int64 or int32 index tensor of ``shape`` (any layout) with values in
    ``[-size, size)`` (0 for an empty dim, where any index is out of range)."""
    spec = draw(strategies.tensors(dtypes=("int64", "int32"), shape=shape))
    values = st.integers(-size, size - 1) if size else st.just(0)
    n = len(spec.storage)
    return dataclasses.replace(spec, storage=tuple(draw(st.lists(values, min_size=n,
                                                                  max_size=n))))


@st.composite
def _indices(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[list[Any], tuple[int, ...]]:
    """An index list for an input of ``shape`` (None for a dim left alone, at least one
    index) and the shape of the indexing result. Either one bool mask over some adjacent
    dims (the result's size there is the number of True values, unknown here: None), or
    integer tensors of one shape, adjacent or not. (The input has dims: ``t[index]`` gives
    ``index`` no 0-d mask, and torch's kernel asserts on one.)"""
    n = len(shape)
    if draw(st.booleans()):  # a mask over dims [first, first + m)
        first = draw(st.integers(0, n - 1))
        m = draw(st.integers(1, n - first))
        mask = draw(strategies.tensors(dtypes=("bool",), shape=shape[first:first + m]))
        return [None] * first + [mask], (*shape[:first], None, *shape[first + m:])
    k = draw(st.integers(1, n))
    chosen = draw(st.lists(st.booleans(), min_size=k, max_size=k).filter(any))
    ishape = draw(st.sampled_from(_INDEX_SHAPES))
    indices = [_index_tensor(draw, shape[d], ishape) if c else None
               for d, c in enumerate(chosen)]
    dims = [d for d, c in enumerate(chosen) if c]
    rest = [shape[d] for d in range(n) if d not in dims]
    if dims[-1] - dims[0] + 1 == len(dims):  # adjacent: the index shape replaces them
        return indices, (*shape[:dims[0]], *ishape, *shape[dims[-1] + 1:])
    return indices, (*ishape, *rest)


@st.composite
def index_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``indices``: see :func:`_indices`."""
    return {"indices": draw(_indices(shape))[0]}


@st.composite
def index_put_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``indices`` (see :func:`_indices`), ``values`` that broadcast to the indexing result
    (a suffix of its shape, some sizes 1; one element for a mask, or its trailing dims),
    ``accumulate`` sometimes."""
    indices, result = draw(_indices(shape))
    if None in result:  # a mask: the dims after it, or one element (masked_fill_)
        after = result[result.index(None) + 1:]
        vshape = draw(st.sampled_from([(), (1,), tuple(after), (1, *after)]))
    else:
        keep = draw(st.integers(0, len(result)))
        vshape = tuple(1 if draw(st.booleans()) else s for s in result[len(result) - keep:])
    arguments = {"indices": indices, "values": draw(strategies.tensors(shape=vshape))}
    if draw(st.booleans()):
        arguments["accumulate"] = draw(st.booleans())
    return arguments


@st.composite
def sum_to_size_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``size``: the input's shape with some leading dims dropped and some sizes made 1."""
    lead = draw(st.integers(0, len(shape)))
    return {"size": tuple(1 if draw(st.booleans()) else s for s in shape[lead:])}


OP_DB += [
    OpEntry("alias"),
    OpEntry("index", arguments=index_arguments, no_leaves=("indices",), shapes=_WITH_DIMS,
            errors={
        "an index out of range": lambda lib: lib.ones(3)[lib.tensor([3])],
        "a float index tensor": lambda lib: lib.ones(3)[lib.tensor([1.0])],
        "an int16 index tensor": lambda lib: lib.ones(3)[lib.tensor([1], dtype=lib.int16)],
        "too many indices": lambda lib: lib.ones(3)[lib.tensor([0]), lib.tensor([0])],
        "a mask of the wrong shape": lambda lib: lib.ones(3, 2)[lib.ones(2, dtype=lib.bool)],
        "shapes that do not broadcast": lambda lib: lib.ones(3, 3)[lib.tensor([0, 1]),
                                                                  lib.tensor([0, 1, 2])],
        "an index into an empty dim": lambda lib: lib.ones(0, 2)[lib.tensor([0])],
    }),
    OpEntry("index_put", arguments=index_put_arguments, same_dtype=True,
            no_leaves=("indices",), shapes=_WITH_DIMS, errors={
        "values of another dtype": lambda lib: lib.index_put(
            lib.ones(3), (lib.tensor([0]),), lib.ones(1, dtype=lib.float64)),
        "values that do not broadcast": lambda lib: lib.index_put(
            lib.ones(3), (lib.tensor([0, 1]),), lib.ones(3)),
        "an index out of range": lambda lib: lib.ones(3).index_put_(
            (lib.tensor([3]),), lib.ones(1)),
        "None among the indices": lambda lib: lib.index_put(
            lib.ones(3, 2), (None, lib.tensor([0])), lib.ones(1)),
        "an index that is no tensor": lambda lib: lib.index_put(
            lib.ones(3), ([0],), lib.ones(1)),
        "indices that are no list": lambda lib: lib.index_put(lib.ones(3), "a", lib.ones(1)),
        "a uint8 mask with one value": lambda lib: lib.ones(3).index_put_(
            (lib.ones(3, dtype=lib.uint8),), lib.ones(1)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).index_put_((lib.tensor([0]),), lib.ones(1)),
        "values overlapping self": lambda lib: (lambda t: t.index_put_(
            (lib.tensor([0, 1]),), t[1:3]))(lib.arange(4.0)),
        "too many indices": lambda lib: lib.ones(3).index_put_(
            (lib.tensor([0]), lib.tensor([0])), lib.ones(1)),
    }),
    OpEntry("sum_to_size", arguments=sum_to_size_arguments, errors={
        "a size that does not expand": lambda lib: lib.ones(2, 3).sum_to_size(2),
        "more dims than the input": lambda lib: lib.ones(3).sum_to_size(1, 3, 1),
        "a float size": lambda lib: lib.ones(3).sum_to_size(1.5),
        "a size that is no sequence": lambda lib: lib.ones(3).sum_to_size("a"),
    }),
]


# ------------------------------------------------------------------ along one dim (chapter 2)
# The index tensors hold values drawn from a few sizes, so repeats are common (the order of
# the writes and additions matters then); empty indices and empty inputs are drawn too;
# negative and out-of-range values, which these ops refuse, are error inputs.
def _dim_of(draw: st.DrawFn, shape: tuple[int, ...]) -> int:
    n = max(len(shape), 1)
    return draw(st.integers(-n, n - 1))


def _index_of(draw: st.DrawFn, shape: tuple[int, ...], size: int) -> Any:
    """An int64 (sometimes int32) index of ``shape``, any layout, values in ``[0, size)``
    (0 when ``size`` is 0: the index is then empty)."""
    spec = draw(strategies.tensors(dtypes=("int64", "int64", "int32"), shape=shape))
    values = st.integers(0, size - 1) if size else st.just(0)
    n = len(spec.storage)
    return dataclasses.replace(spec, storage=tuple(draw(st.lists(values, min_size=n,
                                                                  max_size=n))))


@st.composite
def index_select_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim`` and a 1-d (or 0-d) ``index`` of up to 5 values (one 0 for a 0-d input)."""
    d = _dim_of(draw, shape)
    if not shape:
        ishape = draw(st.sampled_from([(), (1,)]))
        return {"dim": d, "index": _index_of(draw, ishape, 1)}
    size = shape[d]
    n = draw(st.integers(0, 5)) if size else 0
    ishape = draw(st.sampled_from([(n,), ()])) if n == 1 else (n,)
    return {"dim": d, "index": _index_of(draw, ishape, size)}


def _gather_index_shape(draw: st.DrawFn, shape: tuple[int, ...], d: int,
                        room: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """An index shape for ``gather``/``scatter`` into ``shape`` along ``d``: as many dims,
    each at most ``room``'s size (``self``'s apart from ``d``), ``d`` any (0 when
    ``self``'s size there is 0)."""
    if not shape:
        return draw(st.sampled_from([(), (1,), (2,)]))
    room = room or shape
    sizes = []
    for k, n in enumerate(room):
        top = (3 if shape[d] else 0) if k == d else n
        if k == d and room is not shape:
            top = min(top, n)
        sizes.append(draw(st.integers(0, top)))
    return tuple(sizes)


@st.composite
def gather_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    d = _dim_of(draw, shape)
    ishape = _gather_index_shape(draw, shape, d % max(len(shape), 1))
    size = shape[d] if shape else 1
    found: dict[str, Any] = {"dim": d, "index": _index_of(draw, ishape, size)}
    if draw(st.booleans()):
        found["sparse_grad"] = False
    return found


@st.composite
def _scatter_index_and_src(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim``, ``index`` and a ``src`` at least as large as the index in every dim (its
    dtype becomes the input's: ``same_dtype``)."""
    d = _dim_of(draw, shape)
    wd = d % max(len(shape), 1)
    src_shape = tuple(draw(st.integers(0, 3)) if k == wd else n for k, n in enumerate(shape))
    if not shape:
        src_shape = draw(st.sampled_from([(), (1,), (2,)]))
    ishape = _gather_index_shape(draw, shape, wd, src_shape if shape else None)
    if not shape:
        ishape = draw(st.sampled_from([s for s in [(), (1,), (2,)]
                                       if max(s or (1,)) <= max(src_shape or (1,))]))
    size = shape[d] if shape else 1
    return {"dim": d, "index": _index_of(draw, ishape, size),
            "src": draw(strategies.tensors(shape=src_shape))}


#: scatter's numbers: each dtype holds them, or torch and reftensor refuse them alike
SCATTER_VALUES = st.sampled_from([0, 1, -2, 2.5, True, 7])


@st.composite
def scatter_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A ``src`` tensor or a ``value``, ``reduce`` sometimes."""
    found = draw(_scatter_index_and_src(shape))
    if draw(st.booleans()):
        del found["src"]
        found["value"] = draw(SCATTER_VALUES)
    if draw(st.integers(0, 3)) == 0:
        found["reduce"] = draw(st.sampled_from(["add", "multiply"]))
    return found


@st.composite
def index_add_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim``, a 1-d ``index`` (0-d sometimes), a ``source`` of the input's shape with
    ``dim``'s size the number of indices, ``alpha`` sometimes."""
    d = _dim_of(draw, shape)
    if not shape:
        ishape = draw(st.sampled_from([(), (1,)]))
        found = {"dim": d, "index": _index_of(draw, ishape, 1),
                 "source": draw(strategies.tensors(shape=()))}
    else:
        wd = d % len(shape)
        n = draw(st.integers(0, 4)) if shape[wd] else 0
        ishape = draw(st.sampled_from([(n,), ()])) if n == 1 and len(shape) == 1 else (n,)
        source_shape = shape[:wd] + (n,) + shape[wd + 1:]
        found = {"dim": d, "index": _index_of(draw, ishape, shape[wd]),
                 "source": draw(strategies.tensors(shape=source_shape))}
    if draw(st.booleans()):
        found["alpha"] = draw(st.sampled_from([1, 2, -1, 0.5, True]))
    return found


def _along_errors(name: str) -> dict[str, Program]:
    """What ``gather``, ``scatter`` and ``scatter_add`` refuse, as torch does."""
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731

    def call(lib: Any, x: Any, dim: int, index: Any) -> Any:
        if name == "gather":
            return f(lib, x, dim, index)
        return f(lib, x, dim, index, lib.ones(index.shape, dtype=x.dtype))
    return {
        "an index out of range": lambda lib: call(lib, lib.ones(3, 2), 0,
                                                  lib.tensor([[3, 0]])),
        "a negative index": lambda lib: call(lib, lib.ones(3, 2), 1, lib.tensor([[-1]])),
        "a float index": lambda lib: call(lib, lib.ones(3, 2), 0, lib.tensor([[0.0]])),
        "an int16 index": lambda lib: call(lib, lib.ones(3, 2), 0,
                                           lib.tensor([[0]], dtype=lib.int16)),
        "an index of fewer dims": lambda lib: call(lib, lib.ones(3, 2), 0, lib.tensor([0])),
        "an index larger apart from dim": lambda lib: call(lib, lib.ones(3, 2), 0,
                                                           lib.zeros(1, 3, dtype=lib.int64)),
        "a dim out of range": lambda lib: call(lib, lib.ones(3, 2), 2, lib.tensor([[0]])),
        "an index into a 0-d input out of range": lambda lib: call(
            lib, lib.ones(()), 0, lib.tensor([1])),
        "out= of another dtype": lambda lib: (
            lib.gather(lib.ones(2), 0, lib.tensor([0]), out=lib.empty(1, dtype=lib.float64))
            if name == "gather" else f(lib, lib.ones(2), 0, lib.tensor([0]), lib.ones(1),
                                       out=lib.empty(1, dtype=lib.float64))),
        "no index": lambda lib: f(lib, lib.ones(2), 0),
    }


def _scatter_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    found = {
        **_along_errors(name),
        "src of another dtype": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([0]),
                                              lib.ones(1, dtype=lib.float64)),
        "src smaller than the index": lambda lib: f(lib, lib.ones(3, 2), 0,
                                                    lib.zeros(2, 2, dtype=lib.int64),
                                                    lib.ones(1, 2)),
        "src of fewer dims": lambda lib: f(lib, lib.ones(3, 2), 0,
                                           lib.zeros(1, 1, dtype=lib.int64), lib.ones(2)),
        "in place into a leaf that requires grad": lambda lib: getattr(
            lib.ones(3, requires_grad=True), name + "_")(0, lib.tensor([0]), lib.ones(1)),
        "in place into an expanded tensor": lambda lib: getattr(
            lib.ones(1).expand(3), name + "_")(0, lib.tensor([0]), lib.ones(1)),
        "src overlapping self in place": lambda lib: (lambda t: getattr(t, name + "_")(
            0, lib.tensor([0, 1]), t[1:3]))(lib.arange(4.0)),
    }
    if name == "scatter":
        found.update({
            "another reduce": lambda lib: lib.scatter(lib.ones(3), 0, lib.tensor([0]),
                                                      lib.ones(1), reduce="mean"),
            "a value uint8 cannot hold": lambda lib: lib.scatter(
                lib.ones(3, dtype=lib.uint8), 0, lib.tensor([0]), 300),
            "a string value": lambda lib: lib.scatter(lib.ones(3), 0, lib.tensor([0]), "a"),
        })
    return found


def _index_add_errors() -> dict[str, Program]:
    f = lambda lib, *a, **k: lib.index_add(*a, **k)  # noqa: E731
    return {
        "an index out of range": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([3]),
                                               lib.ones(1)),
        "an index out of range, 2-d": lambda lib: f(lib, lib.ones(3, 2), 0, lib.tensor([3]),
                                                    lib.ones(1, 2)),
        "an index out of range, 2-d, int32": lambda lib: f(
            lib, lib.ones(3, 2), 0, lib.tensor([3], dtype=lib.int32), lib.ones(1, 2)),
        "a negative index": lambda lib: f(lib, lib.ones(3, 2), 1, lib.tensor([-1]),
                                          lib.ones(3, 1), alpha=2),
        "an index of two dims": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([[0]]),
                                              lib.ones(1)),
        "a float index": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([0.0]), lib.ones(1)),
        "source of another dtype": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([0]),
                                                 lib.ones(1, dtype=lib.float64)),
        "source of another shape": lambda lib: f(lib, lib.ones(3, 2), 0, lib.tensor([0]),
                                                 lib.ones(1, 3)),
        "more indices than source has": lambda lib: f(lib, lib.ones(3), 0,
                                                      lib.tensor([0, 1]), lib.ones(1)),
        "a 0-d source into a 1-d input": lambda lib: f(lib, lib.ones(3), 0, lib.tensor([0]),
                                                       lib.ones(())),
        "an alpha uint8 cannot hold": lambda lib: f(lib, lib.ones(3, dtype=lib.uint8), 0,
                                                    lib.tensor([0]),
                                                    lib.ones(1, dtype=lib.uint8), alpha=300),
        "a dim out of range": lambda lib: f(lib, lib.ones(3), 1, lib.tensor([0]), lib.ones(1)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).index_add_(0, lib.tensor([0]), lib.ones(1)),
        "source overlapping self in place": lambda lib: (lambda t: t.index_add_(
            0, lib.tensor([0, 1]), t[1:3]))(lib.arange(4.0)),
        "out= of another dtype": lambda lib: f(lib, lib.ones(2), 0, lib.tensor([0]),
                                               lib.ones(1), out=lib.empty(1, dtype=lib.int64)),
    }


@st.composite
def take_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """An int64 ``index`` of any shape with values in ``[-numel, numel)`` (empty for an
    empty input)."""
    n = math.prod(shape)
    ishape = draw(st.sampled_from([(), (1,), (3,), (2, 2), (0,)] if n else [(0,), (2, 0)]))
    spec = draw(strategies.tensors(dtypes=("int64",), shape=ishape))
    k = len(spec.storage)
    values = st.integers(-n, n - 1) if n else st.just(0)
    return {"index": dataclasses.replace(spec, storage=tuple(draw(st.lists(
        values, min_size=k, max_size=k))))}


@st.composite
def put_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``index`` as ``take``'s, a ``source`` with as many elements (another shape
    sometimes), ``accumulate`` sometimes."""
    found = draw(take_arguments(shape))
    k = math.prod(found["index"].shape)
    sshape = draw(st.sampled_from([found["index"].shape, (k,)]))
    found["source"] = draw(strategies.tensors(shape=sshape))
    if draw(st.booleans()):
        found["accumulate"] = draw(st.booleans())
    return found


@st.composite
def take_along_dim_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``indices`` of the input's number of dims, each size the input's or 1 (broadcast),
    any along ``dim``, values beyond ``[-size, size)`` too (taken modulo the size); or,
    without ``dim``, 1-d indices into the flattened input."""
    n = math.prod(shape)
    if not shape or draw(st.integers(0, 3)) == 0:
        k = draw(st.integers(0, 4)) if n else 0
        spec = draw(strategies.tensors(dtypes=("int64",), shape=(k,)))
        values = st.integers(0, n - 1) if n else st.just(0)
        return {"indices": dataclasses.replace(spec, storage=tuple(draw(st.lists(
            values, min_size=len(spec.storage), max_size=len(spec.storage)))))}
    d = draw(st.integers(-len(shape), len(shape) - 1))
    wd = d % len(shape)
    size = shape[wd]
    ishape = tuple((draw(st.integers(0, 3)) if size else 0) if k == wd
                   else draw(st.sampled_from([s, 1])) for k, s in enumerate(shape))
    spec = draw(strategies.tensors(dtypes=("int64",), shape=ishape))
    values = st.integers(-2 * size - 1, 2 * size + 1) if size else st.just(0)
    return {"indices": dataclasses.replace(spec, storage=tuple(draw(st.lists(
        values, min_size=len(spec.storage), max_size=len(spec.storage))))), "dim": d}


@st.composite
def masked_fill_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A bool ``mask`` that broadcasts to the input's shape, and a ``value``: a number or a
    0-d tensor."""
    mask = draw(strategies.tensors(dtypes=("bool",), shape=_broadcastable(shape)))
    value = draw(st.one_of(SCATTER_VALUES, strategies.tensors(shape=())))
    return {"mask": mask, "value": value}


@st.composite
def index_fill_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim``, a 1-d (or 0-d) int64 ``index`` with values in ``[-size, size)``, a
    ``value``: a number or a 0-d tensor."""
    d = _dim_of(draw, shape)
    size = shape[d] if shape else 1
    n = draw(st.integers(0, 4)) if size else 0
    ishape = draw(st.sampled_from([(n,), ()])) if n == 1 else (n,)
    spec = draw(strategies.tensors(dtypes=("int64",), shape=ishape))
    values = st.integers(-size, size - 1) if size else st.just(0)
    index = dataclasses.replace(spec, storage=tuple(draw(st.lists(
        values, min_size=len(spec.storage), max_size=len(spec.storage)))))
    value = draw(st.one_of(SCATTER_VALUES, strategies.tensors(shape=())))
    return {"dim": d, "index": index, "value": value}


@st.composite
def index_copy_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim``, a 1-d int64 ``index`` (repeats allowed), a ``source`` of the input's shape
    with ``dim``'s size the number of indices (its dtype the input's: ``same_dtype``)."""
    found = draw(index_add_arguments(shape))
    found.pop("alpha", None)
    index = found["index"]
    found["index"] = dataclasses.replace(index, dtype="int64")
    return found


@st.composite
def masked_select_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A bool ``mask`` that broadcasts with the input (to a larger shape sometimes)."""
    mshape = draw(st.one_of(_broadcastable(shape), st.just((2, *shape))))
    return {"mask": draw(strategies.tensors(dtypes=("bool",), shape=mshape))}


@st.composite
def masked_scatter_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A bool ``mask`` that broadcasts to the input's shape and a ``source`` with at least
    as many elements as the input (its dtype the input's: ``same_dtype``)."""
    mask = draw(strategies.tensors(dtypes=("bool",), shape=_broadcastable(shape)))
    n = math.prod(shape) + draw(st.integers(0, 2))
    sshape = draw(st.sampled_from([(n,), (1, n)]))
    return {"mask": mask, "source": draw(strategies.tensors(shape=sshape))}


@st.composite
def scatter_reduce_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim``, ``index`` and ``src`` as ``scatter_add``'s, a ``reduce`` (torch's "max" and
    "min" too), ``include_self`` sometimes."""
    found = draw(_scatter_index_and_src(shape))
    found["reduce"] = draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin", "max"]))
    if draw(st.booleans()):
        found["include_self"] = draw(st.booleans())
    return found


@st.composite
def _search_options(draw: st.DrawFn) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["out_int32"] = draw(st.booleans())
    if draw(st.booleans()):
        found["right"] = draw(st.booleans())
    return found


@st.composite
def searchsorted_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """The input is the values; a ``sorted_sequence`` (sorted or not: torch's binary search
    is reproduced either way): 1-d, or with the values' leading dims; options; a
    ``sorter`` (a permutation) sometimes for a 1-d sequence; ``side`` sometimes (agreeing
    with ``right``)."""
    n = draw(st.integers(0, 5))
    nd = bool(shape) and draw(st.booleans())
    seq_shape = (*shape[:-1], n) if nd else (n,)
    seq = draw(strategies.tensors(shape=seq_shape))
    if seq.kind == "contiguous" and all(isinstance(v, int | float) and v == v
                                        for v in seq.storage):
        seq = dataclasses.replace(seq, storage=tuple(sorted(seq.storage)))
    found = {"sorted_sequence": seq, **draw(_search_options())}
    if draw(st.integers(0, 3)) == 0:
        side = draw(st.sampled_from(["left", "right"]))
        if found.get("right") and side == "left":
            side = "right"
        found["side"] = side
    if not nd and draw(st.integers(0, 3)) == 0:
        order = draw(st.permutations(range(n)))
        found["sorter"] = strategies.TensorSpec((n,), (1,), 0, "int64", tuple(order) or (0,),
                                                "contiguous")
    return found


@st.composite
def bucketize_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """1-d ``boundaries`` (sorted when they can be) and options."""
    n = draw(st.integers(0, 5))
    bounds = draw(strategies.tensors(shape=(n,)))
    if bounds.kind == "contiguous" and all(isinstance(v, int | float) and v == v
                                           for v in bounds.storage):
        bounds = dataclasses.replace(bounds, storage=tuple(sorted(bounds.storage)))
    return {"boundaries": bounds, **draw(_search_options())}


OP_DB += [
    OpEntry("index_select", arguments=index_select_arguments, no_leaves=("index",), errors={
        "an index out of range": lambda lib: lib.ones(3).index_select(0, lib.tensor([3])),
        "an index out of range along dim 1": lambda lib: lib.ones(3, 2).index_select(
            1, lib.tensor([2])),
        "an index out of range into an empty input": lambda lib: lib.ones(3, 0).index_select(
            0, lib.tensor([-1])),
        "a negative index": lambda lib: lib.ones(3).index_select(0, lib.tensor([-1])),
        "an index of two dims": lambda lib: lib.ones(3).index_select(0, lib.tensor([[0]])),
        "a float index": lambda lib: lib.ones(3).index_select(0, lib.tensor([0.0])),
        "an int16 index": lambda lib: lib.ones(3).index_select(
            0, lib.tensor([0], dtype=lib.int16)),
        "two indices into a 0-d input": lambda lib: lib.ones(()).index_select(
            0, lib.tensor([0, 0])),
        "an index into a 0-d input out of range": lambda lib: lib.ones(()).index_select(
            0, lib.tensor([1])),
        "an index into an empty dim": lambda lib: lib.ones(0, 2).index_select(
            0, lib.tensor([0])),
        "a dim out of range": lambda lib: lib.ones(3).index_select(1, lib.tensor([0])),
        "out= of another dtype": lambda lib: lib.index_select(
            lib.ones(3), 0, lib.tensor([0]), out=lib.empty(1, dtype=lib.float64)),
        "an index list": lambda lib: lib.ones(3).index_select(0, [0]),
    }),
    OpEntry("gather", arguments=gather_arguments, no_leaves=("index",),
            errors=_along_errors("gather")),
    OpEntry("scatter", arguments=scatter_arguments, no_leaves=("index",), same_dtype=("src",),
            errors=_scatter_errors("scatter")),
    OpEntry("scatter_add", arguments=lambda shape: _scatter_index_and_src(shape),
            no_leaves=("index",), same_dtype=("src",), errors=_scatter_errors("scatter_add")),
    OpEntry("scatter_reduce", arguments=scatter_reduce_arguments, no_leaves=("index",),
            same_dtype=("src",), errors={
        **{k: v for k, v in _scatter_errors("scatter_add").items()
           if not k.startswith(("in place", "src overlapping", "out=", "no index"))},
        "another reduce": lambda lib: lib.scatter_reduce(lib.ones(3), 0, lib.tensor([0]),
                                                         lib.ones(1), "add"),
        "no reduce": lambda lib: lib.scatter_reduce(lib.ones(3), 0, lib.tensor([0]),
                                                    lib.ones(1)),
        "mean of bool": lambda lib: lib.scatter_reduce(
            lib.ones(3, dtype=lib.bool), 0, lib.tensor([0]), lib.ones(1, dtype=lib.bool),
            "mean"),
        "an index out of range": lambda lib: lib.scatter_reduce(
            lib.ones(3), 0, lib.tensor([3]), lib.ones(1), "amax"),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).scatter_reduce_(0, lib.tensor([0]), lib.ones(1), "sum"),
        "out= of another dtype": lambda lib: lib.scatter_reduce(
            lib.ones(3), 0, lib.tensor([0]), lib.ones(1), "sum",
            out=lib.empty(3, dtype=lib.float64)),
    }),
    OpEntry("index_add", arguments=index_add_arguments, no_leaves=("index",),
            same_dtype=("source",), errors=_index_add_errors()),
    OpEntry("take", arguments=take_arguments, no_leaves=("index",), errors={
        "an index out of range": lambda lib: lib.ones(2, 3).take(lib.tensor([6])),
        "a negative index out of range": lambda lib: lib.ones(2, 3).take(lib.tensor([-7])),
        "an int32 index": lambda lib: lib.ones(3).take(lib.tensor([0], dtype=lib.int32)),
        "a float index": lambda lib: lib.ones(3).take(lib.tensor([0.0])),
        "an index into an empty tensor": lambda lib: lib.ones(0).take(lib.tensor([0])),
        "out= of another dtype": lambda lib: lib.take(lib.ones(3), lib.tensor([0]),
                                                      out=lib.empty(1, dtype=lib.float64)),
    }),
    OpEntry("put", arguments=put_arguments, no_leaves=("index",), same_dtype=("source",),
            errors={
        "an index out of range": lambda lib: lib.ones(3).put(lib.tensor([3]), lib.ones(1)),
        "an int32 index": lambda lib: lib.ones(3).put(lib.tensor([0], dtype=lib.int32),
                                                      lib.ones(1)),
        "a source of another dtype": lambda lib: lib.ones(3).put(
            lib.tensor([0]), lib.ones(1, dtype=lib.float64)),
        "more indices than source elements": lambda lib: lib.ones(3).put(
            lib.tensor([0, 1]), lib.ones(1)),
        "an index into an empty tensor": lambda lib: lib.ones(0).put(lib.tensor([0]),
                                                                     lib.ones(1)),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).put_(
            lib.tensor([0]), lib.ones(1)),
        "in place, the source overlapping": lambda lib: (lambda t: t.put_(
            lib.tensor([0, 1]), t[1:3]))(lib.arange(4.0)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).put_(lib.tensor([0]), lib.ones(1)),
        "no torch.put_": lambda lib: lib.put_(lib.ones(3), lib.tensor([0]), lib.ones(1)),
    }),
    OpEntry("take_along_dim", arguments=take_along_dim_arguments, no_leaves=("indices",),
            errors={
        "indices of fewer dims": lambda lib: lib.take_along_dim(lib.ones(2, 3),
                                                                lib.tensor([0]), 1),
        "int32 indices": lambda lib: lib.take_along_dim(
            lib.ones(2, 3), lib.tensor([[0]], dtype=lib.int32), 1),
        "sizes that do not broadcast": lambda lib: lib.take_along_dim(
            lib.ones(2, 3), lib.zeros(3, 1, dtype=lib.int64), 1),
        "a dim out of range": lambda lib: lib.take_along_dim(lib.ones(2, 3),
                                                             lib.tensor([[0]]), 2),
        "a dim of a 0-d input": lambda lib: lib.take_along_dim(lib.ones(()),
                                                               lib.tensor(0), 0),
        "no dim, an index out of range": lambda lib: lib.take_along_dim(
            lib.ones(2, 3), lib.tensor([6])),
        "no dim, a transposed input": lambda lib: lib.take_along_dim(
            lib.ones(2, 3).t(), lib.tensor([0])),
        "out= of another dtype": lambda lib: lib.take_along_dim(
            lib.ones(3), lib.tensor([0]), 0, out=lib.empty(1, dtype=lib.float64)),
    }),
    OpEntry("index_fill", arguments=index_fill_arguments, no_leaves=("index",), errors={
        "an index out of range": lambda lib: lib.ones(3).index_fill(0, lib.tensor([3]), 1),
        "a negative index out of range": lambda lib: lib.ones(3).index_fill(
            0, lib.tensor([-4]), 1),
        "an int32 index": lambda lib: lib.ones(3).index_fill(
            0, lib.tensor([0], dtype=lib.int32), 1),
        "an index of two dims": lambda lib: lib.ones(3).index_fill(0, lib.tensor([[0]]), 1),
        "a value with dims": lambda lib: lib.ones(3).index_fill(0, lib.tensor([0]),
                                                                lib.ones(1)),
        "a value uint8 cannot hold": lambda lib: lib.ones(3, dtype=lib.uint8).index_fill(
            0, lib.tensor([0]), 300),
        "a complex value": lambda lib: lib.ones(3).index_fill(0, lib.tensor([0]), 1j),
        "a dim out of range": lambda lib: lib.ones(3).index_fill(1, lib.tensor([0]), 1),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).index_fill_(0, lib.tensor([0]), 1),
        "out=": lambda lib: lib.index_fill(lib.ones(3), 0, lib.tensor([0]), 1,
                                           out=lib.empty(3)),
    }),
    OpEntry("index_copy", arguments=index_copy_arguments, no_leaves=("index",),
            same_dtype=("source",), errors={
        "an index out of range": lambda lib: lib.ones(3).index_copy(0, lib.tensor([3]),
                                                                   lib.ones(1)),
        "a negative index": lambda lib: lib.ones(3).index_copy(0, lib.tensor([-1]),
                                                               lib.ones(1)),
        "an int32 index": lambda lib: lib.ones(3).index_copy(
            0, lib.tensor([0], dtype=lib.int32), lib.ones(1)),
        "an index of two dims": lambda lib: lib.ones(3).index_copy(0, lib.tensor([[0]]),
                                                                   lib.ones(1)),
        "a source of another dtype": lambda lib: lib.ones(3).index_copy(
            0, lib.tensor([0]), lib.ones(1, dtype=lib.float64)),
        "a source of another slice shape": lambda lib: lib.ones(3, 2).index_copy(
            0, lib.tensor([0]), lib.ones(1, 3)),
        "a source of fewer dims": lambda lib: lib.ones(3, 2).index_copy(
            0, lib.tensor([0]), lib.ones(2)),
        "more indices than source slices": lambda lib: lib.ones(3).index_copy(
            0, lib.tensor([0, 1]), lib.ones(1)),
        "a 0-d source with two indices": lambda lib: lib.ones(3).index_copy(
            0, lib.tensor([0, 1]), lib.ones(())),
        "in place, the source overlapping": lambda lib: (lambda t: t.index_copy_(
            0, lib.tensor([0, 1]), t[1:3]))(lib.arange(4.0)),
        "out= of another dtype": lambda lib: lib.index_copy(
            lib.ones(3), 0, lib.tensor([0]), lib.ones(1), out=lib.empty(1, dtype=lib.int64)),
    }),
    OpEntry("masked_select", arguments=masked_select_arguments, no_leaves=("mask",), errors={
        "a uint8 mask": lambda lib: lib.ones(3).masked_select(lib.ones(3, dtype=lib.uint8)),
        "shapes that do not broadcast": lambda lib: lib.ones(3).masked_select(
            lib.ones(2, dtype=lib.bool)),
        "out= of another dtype": lambda lib: lib.masked_select(
            lib.ones(3), lib.ones(3, dtype=lib.bool), out=lib.empty(3, dtype=lib.float64)),
        "on the meta device": lambda lib: lib.ones(3, device="meta").masked_select(
            lib.ones(3, dtype=lib.bool, device="meta")),
    }),
    OpEntry("masked_scatter", arguments=masked_scatter_arguments, no_leaves=("mask",),
            same_dtype=("source",), errors={
        "a uint8 mask": lambda lib: lib.ones(3).masked_scatter(lib.ones(3, dtype=lib.uint8),
                                                               lib.ones(3)),
        "too few source elements": lambda lib: lib.ones(3).masked_scatter(
            lib.ones(3, dtype=lib.bool), lib.ones(2)),
        "a source of another dtype": lambda lib: lib.ones(3).masked_scatter(
            lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.float64)),
        "in place, a mask of more dims": lambda lib: lib.ones(3).masked_scatter_(
            lib.ones(2, 3, dtype=lib.bool), lib.ones(6)),
        "shapes that do not broadcast": lambda lib: lib.ones(3).masked_scatter(
            lib.ones(2, dtype=lib.bool), lib.ones(6)),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).masked_scatter_(
            lib.ones(3, dtype=lib.bool), lib.ones(3)),
        "out=": lambda lib: lib.masked_scatter(lib.ones(3), lib.ones(3, dtype=lib.bool),
                                               lib.ones(3), out=lib.empty(3)),
    }),
    OpEntry("nonzero", grad=False, values=st.sampled_from([0, 0, 1, -0.0, 2.5, float("nan"),
                                                          True, False]), errors={
        "on the meta device": lambda lib: _aten(lib).nonzero(lib.ones(2, device="meta")),
        "out= of another dtype": lambda lib: _aten(lib).nonzero(lib.ones(2),
                                                                out=lib.empty(0)),
    }),
    OpEntry("argwhere", grad=False, values=st.sampled_from([0, 0, 1, -0.0, float("nan")]),
            errors={
        "on the meta device": lambda lib: lib.argwhere(lib.ones(2, device="meta")),
        "out=": lambda lib: lib.argwhere(lib.ones(2), out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("searchsorted", arguments=searchsorted_arguments, grad=False,
            no_leaves=("sorted_sequence", "sorter"), errors={
        "another side": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(2), side="up"),
        "side opposite to right": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(2),
                                                               side="left", right=True),
        "an int32 sorter": lambda lib: lib.searchsorted(
            lib.ones(3), lib.ones(2), sorter=lib.tensor([0, 1, 2], dtype=lib.int32)),
        "a sorter of another size": lambda lib: lib.searchsorted(
            lib.ones(3), lib.ones(2), sorter=lib.tensor([0, 1])),
        "a sorter out of range": lambda lib: lib.searchsorted(
            lib.ones(3), lib.ones(2), sorter=lib.tensor([0, 1, 3])),
        "a 0-d sequence": lambda lib: lib.searchsorted(lib.tensor(1.0), lib.ones(2)),
        "leading dims that differ": lambda lib: lib.searchsorted(lib.ones(3, 4),
                                                                 lib.ones(2, 2)),
        "a number into a sequence of 2 dims": lambda lib: lib.searchsorted(lib.ones(2, 4),
                                                                           1.0),
        "bool": lambda lib: lib.searchsorted(lib.ones(3, dtype=lib.bool),
                                             lib.ones(2, dtype=lib.bool)),
        "out= of float": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(2),
                                                      out=lib.empty(2)),
        "out= int64 with out_int32": lambda lib: lib.searchsorted(
            lib.ones(3), lib.ones(2), out_int32=True, out=lib.empty(2, dtype=lib.int64)),
        "a method": lambda lib: lib.ones(3).searchsorted(lib.ones(2)),
    }),
    OpEntry("bucketize", arguments=bucketize_arguments, grad=False,
            no_leaves=("boundaries",), errors={
        "boundaries of 2 dims": lambda lib: lib.bucketize(lib.ones(2), lib.ones(2, 3)),
        "0-d boundaries": lambda lib: lib.bucketize(lib.ones(2), lib.tensor(1.0)),
        "bool": lambda lib: lib.bucketize(lib.ones(2, dtype=lib.bool),
                                          lib.ones(3, dtype=lib.bool)),
        "out= of float": lambda lib: lib.bucketize(lib.ones(2), lib.ones(3),
                                                   out=lib.empty(2)),
        "a number with out=": lambda lib: lib.bucketize(1.0, lib.ones(3),
                                                        out=lib.empty((), dtype=lib.int64)),
    }),
    OpEntry("masked_fill", arguments=masked_fill_arguments, no_leaves=("mask",), errors={
        "a uint8 mask": lambda lib: lib.ones(3).masked_fill(lib.ones(3, dtype=lib.uint8), 1),
        "a float mask": lambda lib: lib.ones(3).masked_fill(lib.ones(3), 1),
        "a value with dims": lambda lib: lib.ones(3).masked_fill(
            lib.ones(3, dtype=lib.bool), lib.ones(1)),
        "a value uint8 cannot hold": lambda lib: lib.ones(3, dtype=lib.uint8).masked_fill(
            lib.ones(3, dtype=lib.bool), 300),
        "shapes that do not broadcast": lambda lib: lib.ones(3).masked_fill(
            lib.ones(2, dtype=lib.bool), 1),
        "in place, a mask of more dims": lambda lib: lib.ones(3).masked_fill_(
            lib.ones(2, 3, dtype=lib.bool), 1),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            3, requires_grad=True).masked_fill_(lib.ones(3, dtype=lib.bool), 1),
        "out=": lambda lib: lib.masked_fill(lib.ones(3), lib.ones(3, dtype=lib.bool), 1,
                                            out=lib.empty(3)),
        "no torch.masked_fill_": lambda lib: lib.masked_fill_(
            lib.ones(3), lib.ones(3, dtype=lib.bool), 1),
        "a string value": lambda lib: lib.ones(3).masked_fill(lib.ones(3, dtype=lib.bool),
                                                              "a"),
    }),
]

BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ random factories (chapter 8)
# New tensors of random numbers: each drawn call seeds both libraries alike first (``Seed``),
# and the values are compared bit for bit.
#: ``dtype=`` of a float factory: none, a float dtype, or one it refuses
RANDOM_FLOAT_DTYPES = st.sampled_from([None, None, *(DtypeName(n) for n in strategies.FLOAT_NAMES),
                                       float, DtypeName("int64"), DtypeName("bool")])


@st.composite
def _random_options(draw: st.DrawFn, dtypes: st.SearchStrategy[Any] = RANDOM_FLOAT_DTYPES
                    ) -> dict[str, Any]:
    """A seeded ``generator`` (or the seeded default one), a ``dtype`` sometimes, and the
    other options of a factory."""
    options = {**draw(_tensor_options(dtype=False)), "generator": draw(SEEDS)}
    d = draw(dtypes)
    return options if d is None else {**options, "dtype": d}


def rand_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``size`` (the drawn shape: 0-d, empty, 16 elements or more for ``randn``'s fill
    path) and the options."""
    return _random_options().map(lambda options: {"size": shape, **options})


@st.composite
def randint_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``high`` or ``low`` and ``high`` (small and wide ranges, sometimes empty), ``size``,
    any dtype (int64 by default)."""
    high = draw(st.sampled_from([1, 2, 7, 100, 2**30, 2**40]))
    bounds = draw(st.sampled_from([{"high": high}, {"low": draw(st.sampled_from(
        [-5, 0, 3, 5])), "high": high}]))
    return {**bounds, "size": shape, **draw(_random_options(FACTORY_DTYPES))}


@st.composite
def randperm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``n`` (0, 1, a few, more than int8 holds) and any dtype (int64 by default)."""
    n = draw(st.sampled_from([0, 1, 2, 5, math.prod(shape), 130, 300]))
    return {"n": n, **draw(_random_options(FACTORY_DTYPES))}


@st.composite
def _like_options(draw: st.DrawFn, shape: tuple[int, ...],
                  dtypes: st.SearchStrategy[Any] = RANDOM_FLOAT_DTYPES) -> dict[str, Any]:
    """A ``*_like`` factory's options: those of a factory and a ``memory_format``
    sometimes (preserve_format keeps a dense input's strides)."""
    options = draw(_random_options(dtypes))
    formats = [None, LibValue("preserve_format"), LibValue("contiguous_format")] + (
        [LibValue("channels_last")] if len(shape) == 4 else [])
    memory_format = draw(st.sampled_from(formats))
    return options if memory_format is None else {**options, "memory_format": memory_format}


def like_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _like_options(shape)


@st.composite
def randint_like_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``high``, ``low`` and ``high``, or ``high`` as a 0-d int tensor; the options."""
    high = draw(st.sampled_from([1, 2, 7, 100, 2**30]))
    spec = draw(strategies.tensors(shape=(), dtypes=("int64",)))
    bounds = draw(st.sampled_from([
        {"high": high}, {"low": draw(st.sampled_from([-5, 0, 3])), "high": high},
        {"high": dataclasses.replace(spec, storage=(high,) * len(spec.storage))}]))
    return {**bounds, **draw(_like_options(shape, FACTORY_DTYPES))}


@st.composite
def empty_strided_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``size`` and a ``stride`` of any non-negative steps (0: overlapping), and the
    options."""
    stride = tuple(draw(st.integers(0, 6)) for _ in shape)
    return {"size": shape, "stride": stride, **draw(_tensor_options())}


def _random_factory_errors(name: str, *first: Any) -> dict[str, Program]:
    """What every random factory of a ``size`` refuses, as torch does (``first``: the
    arguments before the size)."""
    def f(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*first, *args, **kwargs)

    return {
        "a negative size": lambda lib: f(lib, (2, -1)),
        "a float size": lambda lib: f(lib, (2.5,)),
        "a string size": lambda lib: f(lib, "a"),
        "requires_grad for int64": lambda lib: f(lib, (2,), dtype=lib.int64,
                                                 requires_grad=True),
        "pin_memory": lambda lib: f(lib, (2,), pin_memory=True),
        "a dtype that is not out's": lambda lib: f(lib, (2,), dtype=lib.float64,
                                                   out=lib.empty(0)),
        "a device that is not out's": lambda lib: f(lib, (2,), device="meta",
                                                    out=lib.empty(0)),
        "a cuda device": lambda lib: f(lib, (2,), device="cuda"),
        "a generator that is no Generator": lambda lib: f(lib, (2,), generator=1),
        "an unknown keyword": lambda lib: f(lib, (2,), alpha=1),
    }


def _like_errors(name: str, *after: Any) -> dict[str, Program]:
    """What every ``*_like`` random factory refuses, as torch does."""
    def f(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*args, **kwargs)

    return {
        "no input": lambda lib: f(lib),
        "a number as input": lambda lib: f(lib, 2, *after),
        "requires_grad for int64": lambda lib: f(lib, lib.ones(2), *after, dtype=lib.int64,
                                                 requires_grad=True),
        "channels_last on 1 dim": lambda lib: f(lib, lib.ones(2), *after,
                                                memory_format=lib.channels_last),
        "a generator that is no Generator": lambda lib: f(lib, lib.ones(2), *after,
                                                          generator=1),
        "out=": lambda lib: f(lib, lib.ones(2), *after, out=lib.empty(2)),
    }


OP_DB += [
    OpEntry("rand", arguments=rand_arguments, no_input=True, grad=False, errors={
        **_random_factory_errors("rand"),
        "int64": lambda lib: lib.rand(2, dtype=lib.int64),
        "int64 with no elements": lambda lib: lib.rand(0, dtype=lib.int64),
        "an int64 out=": lambda lib: lib.rand(2, out=lib.empty(0, dtype=lib.int64)),
        "no size": lambda lib: lib.rand(),
    }),
    OpEntry("randn", arguments=rand_arguments, no_input=True, grad=False, errors={
        **_random_factory_errors("randn"),
        "int64": lambda lib: lib.randn(2, dtype=lib.int64),
        "int64 on the meta device": lambda lib: lib.randn(2, dtype=lib.int64, device="meta"),
        "an int64 out=": lambda lib: lib.randn(2, out=lib.empty(0, dtype=lib.int64)),
    }),
    OpEntry("randint", arguments=randint_arguments, no_input=True, grad=False, errors={
        **_random_factory_errors("randint", 5),
        "low >= high": lambda lib: lib.randint(5, 3, (2,)),
        "low >= high with no elements": lambda lib: lib.randint(5, 3, (0,)),
        "low >= high on the meta device": lambda lib: lib.randint(5, 3, (2,), device="meta"),
        "high out of uint8": lambda lib: lib.randint(300, (2,), dtype=lib.uint8),
        "high out of bool with no elements": lambda lib: lib.randint(3, (0,), dtype=lib.bool),
        "a float high": lambda lib: lib.randint(3.5, (2,)),
        "sizes one by one": lambda lib: lib.randint(3, 2, 2),
        "a size that is an int": lambda lib: lib.randint(3, 2),
        "no size": lambda lib: lib.randint(3),
        "four positional arguments": lambda lib: lib.randint(0, 3, 4, (2,)),
    }),
    OpEntry("randperm", arguments=randperm_arguments, no_input=True, grad=False, errors={
        "a negative n": lambda lib: lib.randperm(-1),
        "a negative n on the meta device": lambda lib: lib.randperm(-1, device="meta"),
        "a float n": lambda lib: lib.randperm(2.5),
        "bool": lambda lib: lib.randperm(0, dtype=lib.bool),
        "n beyond int8": lambda lib: lib.randperm(200, dtype=lib.int8),
        "n beyond float16's integers": lambda lib: lib.randperm(3000, dtype=lib.float16),
        "requires_grad for int64": lambda lib: lib.randperm(3, requires_grad=True),
        "a bool out=": lambda lib: lib.randperm(3, out=lib.empty(0, dtype=lib.bool)),
        "a dtype that is not out's": lambda lib: lib.randperm(3, dtype=lib.int32,
                                                              out=lib.empty(0)),
        "no n": lambda lib: lib.randperm(),
        "a tuple n": lambda lib: lib.randperm((3,)),
    }),
    OpEntry("rand_like", arguments=like_arguments, grad=False, errors={
        **_like_errors("rand_like"),
        "an int64 input": lambda lib: lib.rand_like(lib.ones(2, dtype=lib.int64)),
    }),
    OpEntry("randn_like", arguments=like_arguments, grad=False, errors={
        **_like_errors("randn_like"),
        "an int64 input": lambda lib: lib.randn_like(lib.ones(2, dtype=lib.int64)),
        "an int64 input on the meta device": lambda lib: lib.randn_like(
            lib.ones(2, dtype=lib.int64), device="meta"),
    }),
    OpEntry("randint_like", arguments=randint_like_arguments, grad=False, errors={
        **_like_errors("randint_like", 5),
        "no high": lambda lib: lib.randint_like(lib.ones(2)),
        "low >= high": lambda lib: lib.randint_like(lib.ones(2), 5, 3),
        "high out of uint8": lambda lib: lib.randint_like(lib.ones(2, dtype=lib.uint8), 300),
        "a high tensor with dims": lambda lib: lib.randint_like(lib.ones(2), lib.ones(2)),
        "a float high": lambda lib: lib.randint_like(lib.ones(2), 2.5),
    }),
    OpEntry("empty_strided", arguments=empty_strided_arguments, no_input=True, grad=False,
            uninitialised=True, errors={
        "strides of another length": lambda lib: lib.empty_strided((2, 3), (1,)),
        "a negative size": lambda lib: lib.empty_strided((2, -3), (1, 2)),
        "a negative stride": lambda lib: lib.empty_strided((2, 3), (1, -2)),
        "sizes one by one": lambda lib: lib.empty_strided(2, 3),
        "no stride": lambda lib: lib.empty_strided((2, 3)),
        "requires_grad for int64": lambda lib: lib.empty_strided((2,), (1,), dtype=lib.int64,
                                                                 requires_grad=True),
        "pin_memory": lambda lib: lib.empty_strided((2,), (1,), pin_memory=True),
        "a cuda device": lambda lib: lib.empty_strided((2,), (1,), device="cuda"),
        "out=": lambda lib: lib.empty_strided((2,), (1,), out=lib.empty(2)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ *_like factories (chapter 1)
@st.composite
def like_factory_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A ``*_like`` factory's options: any ``dtype`` (or a Python type, or none),
    ``device``, ``requires_grad`` sometimes, and a ``memory_format`` sometimes
    (preserve_format keeps a dense input's strides and orders another's dims as its)."""
    options = draw(_tensor_options())
    formats = [None, LibValue("preserve_format"), LibValue("contiguous_format")] + (
        [LibValue("channels_last")] if len(shape) == 4 else [])
    memory_format = draw(st.sampled_from(formats))
    return options if memory_format is None else {**options, "memory_format": memory_format}


@st.composite
def full_like_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``fill_value`` (a number of any kind, or a 0-d tensor) and the options."""
    value = draw(st.one_of(NUMBERS, strategies.tensors(shape=())))
    return {"fill_value": value, **draw(like_factory_arguments(shape))}


def _like_factory_errors(name: str, *after: Any) -> dict[str, Program]:
    """What every ``*_like`` factory refuses, as torch does."""
    def f(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*args, **kwargs)

    return {
        **{k: v for k, v in _like_errors(name, *after).items()
           if k != "a generator that is no Generator"},
        "a generator": lambda lib: f(lib, lib.ones(2), *after, generator=None),
        "pin_memory": lambda lib: f(lib, lib.ones(2), *after, pin_memory=True),
        "a cuda device": lambda lib: f(lib, lib.ones(2), *after, device="cuda"),
        "a dtype that is no dtype": lambda lib: f(lib, lib.ones(2), *after, dtype="float32"),
        "as a method": lambda lib: getattr(lib.ones(2), name)(*after),
        "channels_last on 3 dims": lambda lib: f(lib, lib.ones(2, 3, 4), *after,
                                                 memory_format=lib.channels_last),
    }


OP_DB += [
    OpEntry("empty_like", arguments=like_factory_arguments, grad=False, uninitialised=True,
            errors=_like_factory_errors("empty_like")),
    OpEntry("zeros_like", arguments=like_factory_arguments, grad=False,
            errors=_like_factory_errors("zeros_like")),
    OpEntry("ones_like", arguments=like_factory_arguments, grad=False,
            errors=_like_factory_errors("ones_like")),
    OpEntry("full_like", arguments=full_like_arguments, grad=False, errors={
        **_like_factory_errors("full_like", 1),
        "a number out of range": lambda lib: lib.full_like(lib.ones(2, dtype=lib.uint8), 256),
        "nan into int64": lambda lib: lib.full_like(lib.ones(2), float("nan"),
                                                    dtype=lib.int64),
        "a float16 overflow": lambda lib: lib.full_like(lib.ones(2, dtype=lib.float16), 1e10),
        "a tensor with dims": lambda lib: lib.full_like(lib.ones(2), lib.ones(2)),
        "no fill value": lambda lib: lib.full_like(lib.ones(2)),
        "a function as value": lambda lib: lib.full_like(lib.ones(2), len),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------- creation, views and copies (chapters 1-2, issue 43)
#: the sizes a ``new_*`` factory is asked for: 0-d, empty, size-1 dims, several dims
NEW_SIZES = st.sampled_from([(), (0,), (1,), (3,), (2, 3), (3, 0, 2), (1, 1, 4), (2, 1, 3, 2)])


@st.composite
def new_factory_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``size`` (unrelated to the input's shape) and the options (the dtype is the
    input's unless given)."""
    return {"size": draw(NEW_SIZES), **draw(_tensor_options())}


@st.composite
def new_full_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``size``, a ``fill_value`` (a number of any kind, or a 0-d tensor) and the
    options."""
    value = draw(st.one_of(NUMBERS, strategies.tensors(shape=())))
    return {"size": draw(NEW_SIZES), "fill_value": value, **draw(_tensor_options())}


def _new_factory_errors(name: str, *after: Any) -> dict[str, Program]:
    """What every ``new_*`` factory refuses, as torch does (``after``: the arguments after
    the size)."""
    def f(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib.ones(2), name)(*args, **kwargs)

    return {
        "a negative size": lambda lib: f(lib, (2, -1), *after),
        "a float size": lambda lib: f(lib, (2.5,), *after),
        "no size": lambda lib: f(lib),
        "requires_grad for int64": lambda lib: f(lib, (2,), *after, dtype=lib.int64,
                                                 requires_grad=True),
        "pin_memory": lambda lib: f(lib, (2,), *after, pin_memory=True),
        "a cuda device": lambda lib: f(lib, (2,), *after, device="cuda"),
        "a dtype that is no dtype": lambda lib: f(lib, (2,), *after, dtype="float32"),
        "out=": lambda lib: f(lib, (2,), *after, out=lib.empty(2)),
        "as a function": lambda lib: getattr(lib, name)(lib.ones(2), (2,), *after),
    }


OP_DB += [
    OpEntry("new_empty", arguments=new_factory_arguments, grad=False, uninitialised=True,
            errors=_new_factory_errors("new_empty")),
    OpEntry("new_zeros", arguments=new_factory_arguments, grad=False,
            errors=_new_factory_errors("new_zeros")),
    OpEntry("new_ones", arguments=new_factory_arguments, grad=False,
            errors=_new_factory_errors("new_ones")),
    OpEntry("new_full", arguments=new_full_arguments, grad=False, errors={
        **_new_factory_errors("new_full", 1),
        "a number out of range": lambda lib: lib.ones(2, dtype=lib.uint8).new_full((2,), 256),
        "nan into int64": lambda lib: lib.ones(2, dtype=lib.int64).new_full((2,), float("nan")),
        "a tensor with dims": lambda lib: lib.ones(2).new_full((2,), lib.ones(2)),
        "no fill value": lambda lib: lib.ones(2).new_full((2,)),
        "a bare int size": lambda lib: lib.ones(2).new_full(2, 1),
    }),
]


@st.composite
def new_empty_strided_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``size`` (unrelated to the input's shape), a ``stride`` of any non-negative steps
    (0: overlapping) and the options."""
    size = draw(NEW_SIZES)
    stride = tuple(draw(st.integers(0, 6)) for _ in size)
    return {"size": size, "stride": stride, **draw(_tensor_options())}


OP_DB += [
    OpEntry("new_empty_strided", arguments=new_empty_strided_arguments, grad=False,
            uninitialised=True, errors={
                **_new_factory_errors("new_empty_strided", (1,)),
                "strides of another length": lambda lib: lib.ones(2).new_empty_strided(
                    (2, 3), (1,)),
                "a negative stride": lambda lib: lib.ones(2).new_empty_strided((2, 3), (1, -2)),
                "no stride": lambda lib: lib.ones(2).new_empty_strided((2, 3)),
            }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


@st.composite
def eye_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``n``, and ``m`` sometimes (0 and 1 among them), and the options."""
    n = draw(st.integers(0, 5))
    sizes = draw(st.sampled_from([{"n": n}, {"n": n, "m": draw(st.integers(0, 5))}]))
    return {**sizes, **draw(_tensor_options())}


OP_DB += [
    OpEntry("eye", arguments=eye_arguments, no_input=True, grad=False, errors={
        "a negative n": lambda lib: lib.eye(-1),
        "a negative m": lambda lib: lib.eye(2, -1),
        "a float n": lambda lib: lib.eye(2.5),
        "a tuple": lambda lib: lib.eye((2, 3)),
        "no n": lambda lib: lib.eye(),
        "requires_grad for int64": lambda lib: lib.eye(2, dtype=lib.int64, requires_grad=True),
        "pin_memory": lambda lib: lib.eye(2, pin_memory=True),
        "a dtype that is not out's": lambda lib: lib.eye(2, dtype=lib.int64, out=lib.empty(0)),
        "a negative n with out=": lambda lib: lib.eye(-2, out=lib.empty(0)),
        "a cuda device": lambda lib: lib.eye(2, device="cuda"),
        "as a method": lambda lib: lib.ones(2).eye(2),
    }),
]


@st.composite
def movedim_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``source`` and ``destination``: one int each, or lists of distinct dims of one
    length (empty too), negative dims among them; a 0-d input takes 0 and -1."""
    n = max(len(shape), 1)
    if draw(st.booleans()):
        return {"source": draw(st.integers(-n, n - 1)),
                "destination": draw(st.integers(-n, n - 1))}
    k = draw(st.integers(0, n))
    source = draw(st.permutations(range(n)))[:k]
    destination = draw(st.permutations(range(n)))[:k]
    sign = lambda d: d - n if draw(st.booleans()) else d  # noqa: E731
    return {"source": [sign(d) for d in source], "destination": [sign(d) for d in destination]}


def _movedim_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a: getattr(lib, name)(*a)  # noqa: E731
    return {
        "lists of different lengths": lambda lib: f(lib, lib.ones(2, 3), (0, 1), (1,)),
        "a repeated source": lambda lib: f(lib, lib.ones(2, 3), (0, -2), (0, 1)),
        "a repeated destination": lambda lib: f(lib, lib.ones(2, 3), (0, 1), (1, 1)),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), 2, 0),
        "a dim out of range of a 0-d input": lambda lib: f(lib, lib.ones(()), 0, 1),
        "no destination": lambda lib: f(lib, lib.ones(2, 3), 0),
        "a float dim": lambda lib: f(lib, lib.ones(2, 3), 0.0, 1),
    }


OP_DB += [
    OpEntry("movedim", arguments=movedim_arguments, errors=_movedim_errors("movedim")),
    OpEntry("moveaxis", arguments=movedim_arguments, errors=_movedim_errors("moveaxis")),
    OpEntry("ravel", errors={
        "an argument": lambda lib: lib.ravel(lib.ones(2, 3), 0),
        "a number": lambda lib: lib.ravel(2.0),
    }),
]



@st.composite
def repeat_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``repeats``: one per dim and up to two more (new leading dims), 0 and 1 among
    them."""
    extra = draw(st.integers(0, 2))
    return {"repeats": tuple(draw(st.sampled_from([0, 1, 1, 2, 3]))
                             for _ in range(len(shape) + extra))}


@st.composite
def tile_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dims``: fewer than the input's dims too (1s put before them), or more."""
    n = draw(st.integers(0, len(shape) + 2))
    return {"dims": tuple(draw(st.sampled_from([0, 1, 1, 2, 3])) for _ in range(n))}


@st.composite
def roll_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``shifts`` (any sign, past the size too) alone, or with as many distinct ``dims``
    (negative ones among them); one shift and dim as ints sometimes."""
    shift = st.integers(-7, 7)
    if not shape or draw(st.booleans()):
        return {"shifts": draw(st.sampled_from([draw(shift), (draw(shift),)]))}
    n = len(shape)
    dims = draw(st.permutations(range(n)))[:draw(st.integers(1, n))]
    dims = [d - n if draw(st.booleans()) else d for d in dims]
    if len(dims) == 1 and draw(st.booleans()):
        return {"shifts": draw(shift), "dims": dims[0]}
    return {"shifts": tuple(draw(shift) for _ in dims), "dims": tuple(dims)}


OP_DB += [
    OpEntry("repeat", arguments=repeat_arguments, errors={
        "fewer repeats than dims": lambda lib: lib.ones(2, 3).repeat(2),
        "a negative repeat": lambda lib: lib.ones(2, 3).repeat(-1, 2),
        "no repeats": lambda lib: lib.ones(2).repeat(),
        "a float repeat": lambda lib: lib.ones(2).repeat(1.5),
        "as a function": lambda lib: lib.repeat(lib.ones(2), (2,)),
    }),
    OpEntry("tile", arguments=tile_arguments, errors={
        "a negative repeat": lambda lib: lib.tile(lib.ones(2, 3), (-1,)),
        "no dims": lambda lib: lib.tile(lib.ones(2)),
        "a float repeat": lambda lib: lib.tile(lib.ones(2), (1.5,)),
    }),
    OpEntry("roll", arguments=roll_arguments, errors={
        "no shifts": lambda lib: lib.roll(lib.ones(2, 3), ()),
        "shifts and dims of different lengths": lambda lib: lib.roll(lib.ones(2, 3), (1, 2),
                                                                    (0,)),
        "two shifts and no dims": lambda lib: lib.roll(lib.ones(2, 3), (1, 2)),
        "a dim out of range": lambda lib: lib.roll(lib.ones(2, 3), 1, 2),
        "a dim of a 0-d input": lambda lib: lib.roll(lib.ones(()), 1, 0),
        "a float shift": lambda lib: lib.roll(lib.ones(2), 1.5),
    }),
]


#: at least two dims (the matrices), empty and size-1 ones among them
_AT_LEAST_2D = st.lists(strategies.small_sizes, min_size=2, max_size=4).map(tuple)


@st.composite
def triangle_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``diagonal``: none, or any offset, past either corner too."""
    return draw(st.sampled_from([{}, {"diagonal": draw(st.integers(-5, 5))}]))


def _triangle_errors(name: str) -> dict[str, Program]:
    return {
        "a 1-d tensor": lambda lib: getattr(lib, name)(lib.ones(3)),
        "a 0-d tensor": lambda lib: getattr(lib.ones(()), name)(),
        "in place into a 1-d tensor": lambda lib: getattr(lib.ones(3), name + "_")(),
        "a float diagonal": lambda lib: getattr(lib, name)(lib.ones(2, 2), 1.5),
        "a tensor diagonal": lambda lib: getattr(lib, name)(lib.ones(2, 2), lib.ones(2)),
        "in place into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, 2, requires_grad=True), name + "_")(),
        "in place as a function": lambda lib: getattr(lib, name + "_")(lib.ones(2, 2)),
    }


OP_DB += [
    OpEntry("tril", arguments=triangle_arguments, shapes=_AT_LEAST_2D,
            errors=_triangle_errors("tril")),
    OpEntry("triu", arguments=triangle_arguments, shapes=_AT_LEAST_2D,
            errors=_triangle_errors("triu")),
]


#: the dim each joining op concatenates along, in the input's own dims (None: the input
#: has too few dims for the joined tensors to differ in size)
def _stack_dim(name: str, ndim: int) -> int | None:
    if name in ("hstack", "column_stack"):
        return 1 if ndim >= 2 else (0 if name == "hstack" and ndim == 1 else None)
    if name == "vstack":
        return 0 if ndim >= 2 else None
    return 2 if ndim >= 3 else None


def stack_like_arguments(name: str) -> Arguments:
    """``tensors``: 0 to 2 more tensors of any dtype and layout with the input's shape,
    except along the dim joined, where that dim is the input's own."""
    @st.composite
    def draw_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
        d = _stack_dim(name, len(shape))
        others = []
        for _ in range(draw(st.integers(0, 2))):
            other = list(shape)
            if d is not None:
                other[d] = draw(strategies.small_sizes)
            others.append(draw(strategies.tensors(shape=tuple(other))))
        return {"tensors": others}

    return draw_arguments


def _stack_like_errors(name: str) -> dict[str, Program]:
    return {k: v for k, v in _joining_errors(name).items()
            if k not in ("a float dim", "a dim out of range")}


def _at_least_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a: getattr(lib, name)(*a)  # noqa: E731
    return {
        "a number": lambda lib: f(lib, 2.0),
        "a list with a number": lambda lib: f(lib, [lib.ones(2), 2]),
        "as a method": lambda lib: getattr(lib.ones(2), name)(),
    }


OP_DB += [
    *[OpEntry(f"atleast_{n}d", errors=_at_least_errors(f"atleast_{n}d")) for n in (1, 2, 3)],
    *[OpEntry(name, arguments=stack_like_arguments(name), errors=_stack_like_errors(name))
      for name in ("hstack", "vstack", "dstack", "column_stack")],
]


@st.composite
def diag_embed_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``offset`` sometimes (either side), and two distinct dims of ``dim() + 1``
    sometimes (negative ones among them)."""
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["offset"] = draw(st.integers(-3, 3))
    if draw(st.booleans()):
        n = max(len(shape), 1) + 1
        a, b = draw(st.permutations(range(n)))[:2]
        found["dim1"] = a - n if draw(st.booleans()) else a
        found["dim2"] = b - n if draw(st.booleans()) else b
    return found


@st.composite
def diag_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``diagonal`` sometimes, past either edge too."""
    return draw(st.sampled_from([{}, {"diagonal": draw(st.integers(-4, 4))}]))


@st.composite
def diagflat_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return draw(st.sampled_from([{}, {"offset": draw(st.integers(-3, 3))}]))


OP_DB += [
    OpEntry("diag_embed", arguments=diag_embed_arguments,
            shapes=st.lists(strategies.small_sizes, min_size=1, max_size=3).map(tuple),
            errors={
        "the same dim twice": lambda lib: lib.diag_embed(lib.ones(2, 3), 0, 1, -2),
        "a dim out of range": lambda lib: lib.diag_embed(lib.ones(2, 3), 0, 0, 3),
        "a 0-d tensor": lambda lib: lib.diag_embed(lib.ones(())),
        "out=": lambda lib: lib.diag_embed(lib.ones(2), out=lib.empty(0)),
    }),
    OpEntry("diagonal_copy", arguments=diagonal_arguments, errors={
        "the same dim twice": lambda lib: lib.diagonal_copy(lib.ones(2, 3), 0, 1, -1),
        "a 1-d tensor": lambda lib: lib.diagonal_copy(lib.ones(3)),
        "as a method": lambda lib: lib.ones(2, 2).diagonal_copy(),
    }),
    OpEntry("diag", arguments=diag_arguments,
            shapes=st.lists(strategies.small_sizes, min_size=1, max_size=2).map(tuple),
            errors={
        "a 0-d tensor": lambda lib: lib.diag(lib.ones(())),
        "a 3-d tensor": lambda lib: lib.diag(lib.ones(2, 2, 2)),
        "a float diagonal": lambda lib: lib.diag(lib.ones(2), 1.0),
    }),
    OpEntry("diagflat", arguments=diagflat_arguments, errors={
        "a float offset": lambda lib: lib.diagflat(lib.ones(2), 1.0),
        "out=": lambda lib: lib.diagflat(lib.ones(2), out=lib.empty(0)),
    }),
]


_AT_LEAST_1D = st.lists(strategies.small_sizes, min_size=1, max_size=4).map(tuple)
_INDICES = st.lists(st.integers(-5, 8), max_size=4).map(tuple)


@st.composite
def tensor_split_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``sections`` (more than the dim's size too), ``indices`` (negative, decreasing and
    past the end too) or either as an int64 tensor (0-d: sections; 1-d: indices), and a
    ``dim`` sometimes (negative too)."""
    n = len(shape)
    how = draw(st.sampled_from(["sections", "indices", "a 0-d tensor", "a 1-d tensor"]))
    if how == "sections":
        split: Any = draw(st.integers(1, 5))
    elif how == "indices":
        split = draw(_INDICES)
    elif how == "a 0-d tensor":
        spec = draw(strategies.tensors(shape=(), dtypes=("int64",)))
        split = dataclasses.replace(spec, storage=(draw(st.integers(1, 5)),)
                                    * len(spec.storage))
    else:
        split = draw(strategies.tensors(shape=(draw(st.integers(0, 3)),), dtypes=("int64",)))
    key = {"sections": "sections", "indices": "indices"}.get(how,
                                                              "tensor_indices_or_sections")
    found: dict[str, Any] = {key: split}
    if draw(st.booleans()):
        found["dim"] = draw(st.integers(-n, n - 1))
    return found


def directional_split_arguments(name: str) -> Arguments:
    """``sections`` that divide the split dim's size (an error otherwise), or
    ``indices``."""
    @st.composite
    def draw_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
        size = shape[0 if name == "vsplit" or len(shape) == 1 else 1]
        divisors = [k for k in range(1, 6) if size % k == 0]
        if draw(st.booleans()):
            return {"sections": draw(st.sampled_from(divisors))}
        return {"indices": draw(_INDICES)}

    return draw_arguments


OP_DB += [
    OpEntry("tensor_split", arguments=tensor_split_arguments, shapes=_AT_LEAST_1D, errors={
        "a 0-d tensor": lambda lib: lib.tensor_split(lib.ones(()), 1),
        "0 sections": lambda lib: lib.tensor_split(lib.ones(3), 0),
        "a float tensor": lambda lib: lib.tensor_split(lib.ones(3), lib.tensor([1.0])),
        "a 2-d tensor of indices": lambda lib: lib.tensor_split(
            lib.ones(3), lib.tensor([[1]])),
        "a dim out of range": lambda lib: lib.tensor_split(lib.ones(3), 2, 1),
        "a float": lambda lib: lib.tensor_split(lib.ones(3), 1.5),
    }),
    OpEntry("hsplit", arguments=directional_split_arguments("hsplit"), shapes=_AT_LEAST_1D,
            errors={
        "a 0-d tensor": lambda lib: lib.hsplit(lib.ones(()), 1),
        "sections that do not divide": lambda lib: lib.hsplit(lib.ones(2, 3), 2),
        "0 sections": lambda lib: lib.hsplit(lib.ones(2, 3), 0),
    }),
    OpEntry("vsplit", arguments=directional_split_arguments("vsplit"), shapes=_AT_LEAST_2D,
            errors={
        "a 1-d tensor": lambda lib: lib.vsplit(lib.ones(3), 1),
        "sections that do not divide": lambda lib: lib.vsplit(lib.ones(3, 2), 2),
    }),
]


_AT_MOST_1D = st.lists(strategies.small_sizes, max_size=1).map(tuple)


@st.composite
def meshgrid_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """0 to 2 more 0-d or 1-d ``tensors`` (the input's dtype: the entry's ``same_dtype``),
    and ``indexing`` ("ij" or "xy") sometimes (without it torch warns)."""
    others = [draw(strategies.tensors(shape=_AT_MOST_1D)) for _ in range(draw(st.integers(0, 2)))]
    found: dict[str, Any] = {"tensors": others}
    if draw(st.integers(0, 3)):
        found["indexing"] = draw(st.sampled_from(["ij", "xy"]))
    return found


OP_DB += [
    OpEntry("meshgrid", arguments=meshgrid_arguments, shapes=_AT_MOST_1D, same_dtype=True,
            errors={
        "no tensors": lambda lib: lib.meshgrid(indexing="ij"),
        "dtypes that differ": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(2, dtype=lib.int64),
                                                       indexing="ij"),
        "another indexing": lambda lib: lib.meshgrid(lib.ones(2), indexing="xx"),
        "a 2-d tensor": lambda lib: lib.meshgrid(lib.ones(2, 2), indexing="ij"),
        "a number": lambda lib: lib.meshgrid(2, indexing="ij"),
    }),
]


@st.composite
def repeat_interleave_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``repeats``: an int (0 too), or an int64 tensor (0-d, one count, or one count per
    slice, in any layout) of counts 0 to 3; ``dim`` sometimes (negative too; a 0-d input
    takes 0 and -1)."""
    n = len(shape)
    dim = draw(st.one_of(st.none(), st.integers(-max(n, 1), max(n, 1) - 1)))
    size = (shape[dim] if n else 1) if dim is not None else math.prod(shape)
    how = draw(st.sampled_from(["int", "0-d", "one", "each"]))
    if how == "int":
        repeats: Any = draw(st.integers(0, 3))
    else:
        spec = draw(strategies.tensors(shape={"0-d": (), "one": (1,), "each": (size,)}[how],
                                       dtypes=("int64",)))
        repeats = dataclasses.replace(spec, storage=tuple(
            draw(st.integers(0, 3)) for _ in spec.storage))
    return {"repeats": repeats} if dim is None else {"repeats": repeats, "dim": dim}


OP_DB += [
    OpEntry("repeat_interleave", arguments=repeat_interleave_arguments, errors={
        "float counts": lambda lib: lib.repeat_interleave(lib.tensor([1.0, 2.0])),
        "2-d counts": lambda lib: lib.repeat_interleave(lib.tensor([[1]])),
        "negative counts": lambda lib: lib.repeat_interleave(lib.tensor([1, -1])),
        "a short output_size": lambda lib: lib.repeat_interleave(lib.tensor([1, 2]),
                                                                 output_size=2),
        "a long output_size": lambda lib: lib.repeat_interleave(lib.tensor([1, 2]),
                                                                output_size=5),
        "a negative int": lambda lib: lib.ones(2).repeat_interleave(-1),
        "counts of another length": lambda lib: lib.ones(2, 3).repeat_interleave(
            lib.tensor([1, 2, 3]), dim=0),
        "a wrong output_size": lambda lib: lib.ones(2, 3).repeat_interleave(
            2, dim=0, output_size=3),
        "a dim of a 0-d input": lambda lib: lib.ones(()).repeat_interleave(2, dim=0),
        "2-d counts with a dim": lambda lib: lib.ones(2, 3).repeat_interleave(
            lib.tensor([[1]]), dim=0),
        "meta counts without output_size": lambda lib: lib.repeat_interleave(
            lib.tensor([1, 2], device="meta")),
        "a dim out of range": lambda lib: lib.ones(2, 3).repeat_interleave(2, dim=2),
    }),
]


@st.composite
def rot90_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``k`` (any sign, past 4 too) sometimes, and two distinct ``dims`` sometimes (negative
    ones among them)."""
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["k"] = draw(st.integers(-5, 6))
    if draw(st.booleans()):
        n = len(shape)
        a, b = draw(st.permutations(range(n)))[:2]
        found["dims"] = (a - n if draw(st.booleans()) else a, b - n if draw(st.booleans())
                         else b)
    return found


OP_DB += [
    OpEntry("fliplr", shapes=_AT_LEAST_2D, errors={
        "a 1-d tensor": lambda lib: lib.fliplr(lib.ones(3)),
        "an argument": lambda lib: lib.fliplr(lib.ones(2, 2), 1),
    }),
    OpEntry("flipud", errors={
        "a 0-d tensor": lambda lib: lib.flipud(lib.ones(())),
        "an argument": lambda lib: lib.flipud(lib.ones(2), 0),
    }),
    OpEntry("rot90", arguments=rot90_arguments, shapes=_AT_LEAST_2D, errors={
        "one dim": lambda lib: lib.rot90(lib.ones(2, 3), 1, (0,)),
        "the same dim twice": lambda lib: lib.rot90(lib.ones(2, 3), 1, (0, 0)),
        "a dim and its negative": lambda lib: lib.rot90(lib.ones(2, 3, 4), 1, (0, -3)),
        "a dim out of range": lambda lib: lib.rot90(lib.ones(2, 3, 4), 1, (0, 3)),
        "a 1-d tensor": lambda lib: lib.rot90(lib.ones(3)),
        "a float k": lambda lib: lib.rot90(lib.ones(2, 2), 1.0),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------- lerp, addcmul, addcdiv (chapter 3)
#: weights of lerp either side of its switch at |w| = 0.5, and its ends
LERP_WEIGHTS = st.sampled_from([0.0, 0.25, 0.4999, 0.5, -0.5, 0.75, 1.0, 1.5, -0.2, 0.1])


@st.composite
def lerp_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``end`` broadcasting to the input, and a ``weight``: a number or a tensor (both in
    the input's dtype: the entry's ``same_dtype``)."""
    end = draw(strategies.tensors(shape=_broadcastable(shape)))
    weight = draw(st.one_of(LERP_WEIGHTS, NUMBERS,
                            strategies.tensors(shape=_broadcastable(shape))))
    return {"end": end, "weight": weight}


@st.composite
def addc_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``tensor1`` and ``tensor2`` of any dtype (promoted), broadcasting to the input, and
    a ``value`` sometimes (any kind of number)."""
    tensors = {k: draw(strategies.tensors(shape=_broadcastable(shape)))
               for k in ("tensor1", "tensor2")}
    value = draw(st.one_of(st.none(), NUMBERS, st.sampled_from([0.1, -0.001, 0.999])))
    return tensors if value is None else {**tensors, "value": value}


def _ternary_errors(name: str, *after: Any) -> dict[str, Program]:
    """What ``lerp``, ``addcmul`` and ``addcdiv`` refuse alike (``after``: the arguments
    after the two tensors)."""
    def f(lib: Any, *tensors: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*tensors, *after, **kwargs)

    return {
        "shapes that do not broadcast": lambda lib: f(lib, lib.ones(2), lib.ones(3),
                                                      lib.ones(2)),
        "in place, self broadcast": lambda lib: getattr(lib.ones(3), name + "_")(
            lib.ones(2, 3), lib.ones(3), *after),
        "in place into an expanded tensor": lambda lib: getattr(
            lib.ones(1).expand(3), name + "_")(lib.ones(3), lib.ones(3), *after),
        "in place into a leaf that requires grad": lambda lib: getattr(
            lib.ones(2, requires_grad=True), name + "_")(lib.ones(2), lib.ones(2), *after),
        "out= of an integer dtype": lambda lib: f(lib, lib.ones(2), lib.ones(2), lib.ones(2),
                                                  out=lib.empty(2, dtype=lib.int64)),
        "out= partly overlapping an input": lambda lib: (lambda z: f(
            lib, z[:3], z[:3], z[:3], out=z[1:]))(lib.arange(4.0)),
        "out= with an input that requires grad": lambda lib: f(
            lib, lib.ones(2, requires_grad=True), lib.ones(2), lib.ones(2), out=lib.empty(2)),
        "a number for a tensor": lambda lib: f(lib, lib.ones(2), 2.0, lib.ones(2)),
        "a string": lambda lib: f(lib, lib.ones(2), lib.ones(2), "a"),
    }


def _lerp_errors() -> dict[str, Program]:
    def lerp(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return lib.lerp(*args, **kwargs)

    f64 = lambda lib: lib.ones(2, dtype=lib.float64)  # noqa: E731
    return {
        **{k: v for k, v in _ternary_errors("lerp").items()
           if k not in ("shapes that do not broadcast", "in place, self broadcast",
                        "in place into an expanded tensor",
                        "in place into a leaf that requires grad", "out= of an integer dtype",
                        "out= partly overlapping an input",
                        "out= with an input that requires grad", "a number for a tensor")},
        "shapes that do not broadcast": lambda lib: lerp(lib, lib.ones(2), lib.ones(3), 0.5),
        "in place, self broadcast": lambda lib: lib.ones(3).lerp_(lib.ones(2, 3), 0.5),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).lerp_(
            lib.ones(3), 0.5),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            2, requires_grad=True).lerp_(lib.ones(2), 0.5),
        "out= of an integer dtype": lambda lib: lerp(lib, lib.ones(2), lib.ones(2), 0.5,
                                                     out=lib.empty(2, dtype=lib.int64)),
        "out= partly overlapping an input": lambda lib: (lambda z: lerp(
            lib, z[:3], z[:3], 0.3, out=z[1:]))(lib.arange(4.0)),
        "out= with an input that requires grad": lambda lib: lerp(
            lib, lib.ones(2, requires_grad=True), lib.ones(2), 0.5, out=lib.empty(2)),
        "a number end": lambda lib: lerp(lib, lib.ones(2), 2.0, 0.5),
        "an end of another dtype": lambda lib: lerp(lib, lib.ones(2), f64(lib), 0.5),
        "a 0-d end of another dtype": lambda lib: lerp(lib, lib.ones(2),
                                                       lib.tensor(1.0, dtype=lib.float64), 0.5),
        "a weight with dims of another dtype": lambda lib: lerp(lib, lib.ones(2), lib.ones(2),
                                                                f64(lib)),
        "a one-element weight of another dtype": lambda lib: lerp(
            lib, lib.ones(2), lib.ones(2), lib.ones(1, dtype=lib.float64)),
        "int64 tensors": lambda lib: lerp(lib, lib.ones(2, dtype=lib.int64),
                                          lib.ones(2, dtype=lib.int64), 0.5),
        "int64 tensor weight": lambda lib: lerp(lib, *[lib.ones(2, dtype=lib.int64)] * 3),
        "bool tensors": lambda lib: lerp(lib, lib.ones(2, dtype=lib.bool),
                                         lib.ones(2, dtype=lib.bool), True),
        "a weight out of float's range": lambda lib: lerp(lib, lib.ones(2), lib.ones(2), 1e300),
        "no weight": lambda lib: lerp(lib, lib.ones(2), lib.ones(2)),
    }


OP_DB += [
    OpEntry("lerp", arguments=lerp_arguments, same_dtype=True, errors=_lerp_errors()),
    OpEntry("addcmul", arguments=addc_arguments, errors={
        **_ternary_errors("addcmul"),
        "bool tensors": lambda lib: lib.addcmul(*[lib.ones(2, dtype=lib.bool)] * 3),
        "a value out of uint8": lambda lib: lib.addcmul(*[lib.ones(2, dtype=lib.uint8)] * 3,
                                                        value=300),
        "a negative float value into uint8": lambda lib: lib.addcmul(
            *[lib.ones(2, dtype=lib.uint8)] * 3, value=-2.7),
        "a nan value into int64": lambda lib: lib.addcmul(
            *[lib.ones(2, dtype=lib.int64)] * 3, value=float("nan")),
        "a value out of float's range": lambda lib: lib.addcmul(*[lib.ones(2)] * 3,
                                                                value=1e300),
        "in place into int64": lambda lib: lib.ones(2, dtype=lib.int64).addcmul_(
            lib.ones(2), lib.ones(2)),
        "a string value": lambda lib: lib.addcmul(*[lib.ones(2)] * 3, value="a"),
    }),
    OpEntry("addcdiv", arguments=addc_arguments, errors={
        **_ternary_errors("addcdiv"),
        "int64 tensors": lambda lib: lib.addcdiv(*[lib.ones(2, dtype=lib.int64)] * 3),
        "a float input, int64 tensors": lambda lib: lib.addcdiv(
            lib.ones(2), *[lib.ones(2, dtype=lib.int64)] * 2),
        "bool tensors": lambda lib: lib.addcdiv(*[lib.ones(2, dtype=lib.bool)] * 3),
        "a value out of float's range": lambda lib: lib.addcdiv(*[lib.ones(2)] * 3,
                                                                value=1e300),
        "in place into int64": lambda lib: lib.ones(2, dtype=lib.int64).addcdiv_(
            lib.ones(2), lib.ones(2)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ addmm (chapter 3)
@st.composite
def addmm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``mat1`` ``(n, k)`` and ``mat2`` ``(k, m)`` (now and then a ``k`` that does not
    match) for an input that broadcasts to ``(n, m)`` (a size 1, or a missing dim, stands
    for a drawn size now and then), and ``beta`` and ``alpha`` sometimes (0 ignores that
    term)."""
    n, m = (size if size != 1 or draw(st.booleans()) else draw(_SIZES)
            for size in (1, 1, *shape)[-2:])
    k = draw(_SIZES)
    found = {"mat1": draw(strategies.tensors(shape=(n, k))),
             "mat2": draw(strategies.tensors(shape=(draw(_inner(k)), m)))}
    for name in ("beta", "alpha"):
        value = draw(st.sampled_from([None, None, 0, 1, 2, -1, 0.5, True, 0.0]))
        if value is not None:
            found[name] = value
    return found


OP_DB += [
    OpEntry("addmm", arguments=addmm_arguments, same_dtype=True,
            shapes=st.one_of(_matrix_shapes(2), _matrix_shapes(1), st.just(())), errors={
        "self of another dtype": lambda lib: lib.addmm(lib.ones(2, 4, dtype=lib.float64),
                                                       lib.ones(2, 3), lib.ones(3, 4)),
        "mats of other dtypes": lambda lib: lib.addmm(lib.ones(2, 4), lib.ones(2, 3),
                                                      lib.ones(3, 4, dtype=lib.float64)),
        "an int64 self and float mats": lambda lib: lib.addmm(
            lib.ones(2, 4, dtype=lib.int64), lib.ones(2, 3), lib.ones(3, 4)),
        "sizes that do not match": lambda lib: lib.addmm(lib.ones(2, 4), lib.ones(2, 3),
                                                         lib.ones(2, 4)),
        "a 3-d mat1": lambda lib: lib.addmm(lib.ones(2, 4), lib.ones(1, 2, 3), lib.ones(3, 4)),
        "a vector mat2": lambda lib: lib.addmm(lib.ones(2), lib.ones(2, 3), lib.ones(3)),
        "a self that does not broadcast": lambda lib: lib.addmm(lib.ones(3), lib.ones(2, 3),
                                                                lib.ones(3, 4)),
        "a 3-d self": lambda lib: lib.addmm(lib.ones(1, 2, 4), lib.ones(2, 3),
                                            lib.ones(3, 4)),
        "bool": lambda lib: lib.addmm(*[lib.ones(2, 2, dtype=lib.bool)] * 3),
        "in place, self broadcast": lambda lib: lib.ones(4).addmm_(lib.ones(2, 3),
                                                                    lib.ones(3, 4)),
        "in place into int64": lambda lib: lib.ones(2, 4, dtype=lib.int64).addmm_(
            lib.ones(2, 3), lib.ones(3, 4)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            2, 4, requires_grad=True).addmm_(lib.ones(2, 3), lib.ones(3, 4)),
        "out= of another float dtype": lambda lib: lib.addmm(
            lib.ones(2, 4), lib.ones(2, 3), lib.ones(3, 4), out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.addmm(
            lib.ones(2, 4), lib.ones(2, 3, requires_grad=True), lib.ones(3, 4),
            out=lib.empty(0)),
        "out_dtype on the CPU": lambda lib: lib.addmm(lib.ones(2, 4), lib.ones(2, 3),
                                                      lib.ones(3, 4), lib.float32),
        "out_dtype to the method": lambda lib: lib.ones(2, 4).addmm(
            lib.ones(2, 3), lib.ones(3, 4), lib.float32),
        "a beta out of float's range": lambda lib: lib.addmm(
            lib.ones(2, 4), lib.ones(2, 3), lib.ones(3, 4), beta=1e300),
        "a number mat1": lambda lib: lib.addmm(lib.ones(2, 4), 2.0, lib.ones(3, 4)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ addmv (chapter 3)
def _beta_alpha(draw: st.DrawFn, found: dict[str, Any]) -> dict[str, Any]:
    for name in ("beta", "alpha"):
        value = draw(st.sampled_from([None, None, 0, 1, 2, -1, 0.5, True, 0.0]))
        if value is not None:
            found[name] = value
    return found


@st.composite
def addmv_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``mat`` ``(n, k)`` and ``vec`` ``(k,)`` (now and then a ``k`` that does not match)
    for an input of ``(n,)``, one element or 0-d; ``beta`` and ``alpha`` sometimes."""
    n = shape[0] if shape and shape[0] != 1 else draw(_SIZES)
    k = draw(_SIZES)
    found = {"mat": draw(strategies.tensors(shape=(n, k))),
             "vec": draw(strategies.tensors(shape=(draw(_inner(k)),)))}
    return _beta_alpha(draw, found)


OP_DB += [
    OpEntry("addmv", arguments=addmv_arguments, same_dtype=True,
            shapes=st.one_of(_matrix_shapes(1), st.just(())), errors={
        "self of another dtype": lambda lib: lib.addmv(lib.ones(2, dtype=lib.float64),
                                                       lib.ones(2, 3), lib.ones(3)),
        "vec of another dtype": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3),
                                                      lib.ones(3, dtype=lib.float64)),
        "sizes that do not match": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3),
                                                         lib.ones(4)),
        "a self of another size": lambda lib: lib.addmv(lib.ones(3), lib.ones(2, 3),
                                                        lib.ones(3)),
        "a 0-d self, sizes that do not match": lambda lib: lib.addmv(
            lib.ones(()), lib.ones(2, 3), lib.ones(4)),
        "a 2-d self": lambda lib: lib.addmv(lib.ones(1, 2), lib.ones(2, 3), lib.ones(3)),
        "a vector mat": lambda lib: lib.addmv(lib.ones(2), lib.ones(3), lib.ones(3)),
        "bool": lambda lib: lib.addmv(lib.ones(2, dtype=lib.bool),
                                      lib.ones(2, 3, dtype=lib.bool),
                                      lib.ones(3, dtype=lib.bool)),
        "in place, self broadcast": lambda lib: lib.ones(1).addmv_(lib.ones(2, 3),
                                                                    lib.ones(3)),
        "in place into a leaf that requires grad": lambda lib: lib.ones(
            2, requires_grad=True).addmv_(lib.ones(2, 3), lib.ones(3)),
        "out= of another float dtype": lambda lib: lib.addmv(
            lib.ones(2), lib.ones(2, 3), lib.ones(3), out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.addmv(
            lib.ones(2), lib.ones(2, 3, requires_grad=True), lib.ones(3), out=lib.empty(0)),
        "a beta out of float's range": lambda lib: lib.addmv(
            lib.ones(2), lib.ones(2, 3), lib.ones(3), beta=1e300),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ baddbmm, addbmm (chapter 3)
@st.composite
def baddbmm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``batch1`` ``(b, n, k)`` and ``batch2`` ``(b, k, m)`` (now and then a ``k`` that
    does not match) for an input that broadcasts to ``(b, n, m)`` (a size 1, or a missing
    dim, stands for a drawn size now and then); ``beta`` and ``alpha`` sometimes. Small
    sizes: torch's own loop (``k * n * m < 400``), whose values reftensor reproduces."""
    b, n, m = (size if size != 1 or draw(st.booleans()) else draw(_SIZES)
               for size in (1, 1, 1, *shape)[-3:])
    k = draw(_SIZES)
    found = {"batch1": draw(strategies.tensors(shape=(b, n, k))),
             "batch2": draw(strategies.tensors(shape=(b, draw(_inner(k)), m)))}
    return _beta_alpha(draw, found)


@st.composite
def addbmm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``batch1`` ``(b, n, k)`` and ``batch2`` ``(b, k, m)`` (now and then a ``k`` that
    does not match) for an input that broadcasts to ``(n, m)``; ``beta`` and ``alpha``
    sometimes."""
    n, m = (size if size != 1 or draw(st.booleans()) else draw(_SIZES)
            for size in (1, 1, *shape)[-2:])
    b, k = draw(_SIZES), draw(_SIZES)
    found = {"batch1": draw(strategies.tensors(shape=(b, n, k))),
             "batch2": draw(strategies.tensors(shape=(b, draw(_inner(k)), m)))}
    return _beta_alpha(draw, found)


def _bmm_errors(name: str) -> dict[str, Any]:
    """The errors ``baddbmm`` and ``addbmm`` share (``self`` ``(n, m)`` broadcasts to
    either result)."""
    def call(lib: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(lib, name)(*args, **kwargs)

    return {
        "self of another dtype": lambda lib: call(lib, lib.ones(3, 4, dtype=lib.float64),
                                                  lib.ones(2, 3, 5), lib.ones(2, 5, 4)),
        "batch1 of another dtype": lambda lib: call(lib, lib.ones(3, 4),
                                                    lib.ones(2, 3, 5, dtype=lib.float64),
                                                    lib.ones(2, 5, 4)),
        "batch2 of another dtype": lambda lib: call(lib, lib.ones(3, 4), lib.ones(2, 3, 5),
                                                    lib.ones(2, 5, 4, dtype=lib.float64)),
        "a 2-d batch1": lambda lib: call(lib, lib.ones(3, 4), lib.ones(3, 5),
                                         lib.ones(2, 5, 4)),
        "a 1-d batch1": lambda lib: call(lib, lib.ones(3, 4), lib.ones(5), lib.ones(2, 5, 4)),
        "a 2-d batch2": lambda lib: call(lib, lib.ones(3, 4), lib.ones(2, 3, 5),
                                         lib.ones(5, 4)),
        "a 0-d batch1": lambda lib: call(lib, lib.ones(3, 4), lib.ones(()),
                                         lib.ones(2, 5, 4)),
        "inner sizes that differ": lambda lib: call(lib, lib.ones(3, 4), lib.ones(2, 3, 5),
                                                    lib.ones(2, 6, 4)),
        "batch sizes that differ": lambda lib: call(lib, lib.ones(3, 4), lib.ones(2, 3, 5),
                                                    lib.ones(3, 5, 4)),
        "a self that does not broadcast": lambda lib: call(lib, lib.ones(5),
                                                           lib.ones(2, 3, 5),
                                                           lib.ones(2, 5, 4)),
        "a 4-d self": lambda lib: call(lib, lib.ones(1, 1, 3, 4), lib.ones(2, 3, 5),
                                       lib.ones(2, 5, 4)),
        "bool": lambda lib: call(lib, lib.ones(3, 4, dtype=lib.bool),
                                 lib.ones(2, 3, 5, dtype=lib.bool),
                                 lib.ones(2, 5, 4, dtype=lib.bool)),
        "bool, nothing to sum": lambda lib: call(lib, lib.ones(3, 4, dtype=lib.bool),
                                                 lib.ones(2, 3, 0, dtype=lib.bool),
                                                 lib.ones(2, 0, 4, dtype=lib.bool)),
        "a float beta for int64, nothing to sum": lambda lib: call(
            lib, lib.ones(3, 4, dtype=lib.int64), lib.ones(2, 3, 0, dtype=lib.int64),
            lib.ones(2, 0, 4, dtype=lib.int64), beta=2.5),
        "a beta out of int8's range": lambda lib: call(
            lib, lib.ones(3, 4, dtype=lib.int8), lib.ones(2, 3, 5, dtype=lib.int8),
            lib.ones(2, 5, 4, dtype=lib.int8), beta=1000),
        "a beta out of float's range": lambda lib: call(
            lib, lib.ones(3, 4), lib.ones(2, 3, 5), lib.ones(2, 5, 4), beta=1e300),
        "out= of another float dtype": lambda lib: call(
            lib, lib.ones(3, 4), lib.ones(2, 3, 5), lib.ones(2, 5, 4),
            out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: call(
            lib, lib.ones(3, 4), lib.ones(2, 3, 5, requires_grad=True), lib.ones(2, 5, 4),
            out=lib.empty(0)),
        "in place into a leaf that requires grad": lambda lib: getattr(
            lib.ones(2, 3, 4, requires_grad=True)[0] if name == "addbmm" else lib.ones(
                2, 3, 4, requires_grad=True), name + "_")(lib.ones(2, 3, 5),
                                                          lib.ones(2, 5, 4)),
    }


OP_DB += [
    OpEntry("baddbmm", arguments=baddbmm_arguments, same_dtype=True,
            shapes=st.integers(0, 3).flatmap(_matrix_shapes), errors={
        **_bmm_errors("baddbmm"),
        "in place, self broadcast": lambda lib: lib.ones(3, 4).baddbmm_(lib.ones(2, 3, 5),
                                                                         lib.ones(2, 5, 4)),
        "in place, batch2 of another dtype": lambda lib: lib.ones(2, 3, 4).baddbmm_(
            lib.ones(2, 3, 5), lib.ones(2, 5, 4, dtype=lib.float64)),
        "out= the 0-d input itself, one element": lambda lib: (lambda s: lib.baddbmm(
            s, lib.ones(1, 1, 2), lib.ones(1, 2, 1), out=s))(lib.ones(())),
        "out_dtype on the CPU": lambda lib: lib.baddbmm(
            lib.ones(4), lib.ones(2, 3, 5), lib.ones(2, 5, 4), lib.float32),
        "out_dtype to the method": lambda lib: lib.ones(4).baddbmm(
            lib.ones(2, 3, 5), lib.ones(2, 5, 4), lib.float32),
    }),
    # addbmm's products are addmm's, matrix by matrix into one result: BLAS's order for
    # float32/float64, up to 2 ulps of the largest magnitude apart (measured)
    OpEntry("addbmm", arguments=addbmm_arguments, same_dtype=True, ulps=4,
            shapes=st.integers(0, 2).flatmap(_matrix_shapes), errors={
        **_bmm_errors("addbmm"),
        "a 3-d self": lambda lib: lib.addbmm(lib.ones(1, 3, 4), lib.ones(2, 3, 5),
                                             lib.ones(2, 5, 4)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ multi_dot, chain_matmul
@st.composite
def multi_dot_arguments(draw: st.DrawFn, shape: tuple[int, ...], *,
                        vectors: bool = True) -> dict[str, Any]:
    """``tensors``: 1 to 4 more to multiply the input (a matrix, or a vector: a row) by,
    matrices but the last, which may be a vector (a column); now and then an inner size
    that does not match. ``vectors`` False: matrices only (``chain_matmul``), and none
    (the input alone) now and then."""
    k = shape[-1] if shape else 2
    others = []
    for i in range(draw(st.integers(0 if not vectors else 1, 4))):
        inner = draw(_inner(k))
        if vectors and i and draw(st.integers(0, 3)) == 0:
            others.append(draw(strategies.tensors(shape=(inner,))))
            break
        k = draw(_SIZES)
        others.append(draw(strategies.tensors(shape=(inner, k))))
    return {"tensors": others}


OP_DB += [
    OpEntry("linalg_multi_dot", arguments=multi_dot_arguments, same_dtype=True,
            shapes=st.integers(1, 2).flatmap(_matrix_shapes), errors={
        "one tensor": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3)]),
        "no tensors": lambda lib: lib.linalg.multi_dot([]),
        "a 3-d first tensor": lambda lib: lib.linalg.multi_dot([lib.ones(1, 2, 3),
                                                                lib.ones(3, 2)]),
        "a 0-d first tensor": lambda lib: lib.linalg.multi_dot([lib.ones(()), lib.ones(3, 2)]),
        "a 3-d last tensor": lambda lib: lib.linalg.multi_dot([lib.ones(3), lib.ones(1, 3, 2)]),
        "a vector in the middle": lambda lib: lib.linalg.multi_dot(
            [lib.ones(2, 3), lib.ones(3), lib.ones(3, 2)]),
        "dtypes that differ": lambda lib: lib.linalg.multi_dot(
            [lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64)]),
        "sizes that cannot be multiplied": lambda lib: lib.linalg.multi_dot(
            [lib.ones(3), lib.ones(4, 2), lib.ones(2)]),
        "bool": lambda lib: lib.linalg.multi_dot([lib.ones(2, 3, dtype=lib.bool),
                                                  lib.ones(3, 4, dtype=lib.bool)]),
        "out= of another dtype": lambda lib: lib.linalg.multi_dot(
            [lib.ones(2, 3), lib.ones(3, 4)], out=lib.empty(0, dtype=lib.float64)),
        "a tensor, not a list": lambda lib: lib.linalg.multi_dot(lib.ones(2, 2)),
    }),
    OpEntry("chain_matmul", arguments=lambda s: multi_dot_arguments(s, vectors=False),
            same_dtype=True, shapes=_matrix_shapes(2), errors={
        "no matrices": lambda lib: lib.chain_matmul(),
        "a vector": lambda lib: lib.chain_matmul(lib.ones(3), lib.ones(3, 4)),
        "one vector": lambda lib: lib.chain_matmul(lib.ones(3)),
        "a 3-d tensor": lambda lib: lib.chain_matmul(lib.ones(1, 3, 3), lib.ones(1, 3, 4)),
        "a list": lambda lib: lib.chain_matmul([lib.ones(2, 3), lib.ones(3, 4)]),
        "dtypes that differ": lambda lib: lib.chain_matmul(
            lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64)),
        "sizes that cannot be multiplied": lambda lib: lib.chain_matmul(lib.ones(2, 3),
                                                                        lib.ones(4, 4)),
        "out= of another dtype": lambda lib: lib.chain_matmul(
            lib.ones(2, 3), lib.ones(3, 4), out=lib.empty(0, dtype=lib.float64)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ matrix_power
def _square_shapes() -> st.SearchStrategy[tuple[int, ...]]:
    """Square matrices, batched or not (size 0 too)."""
    return st.tuples(st.lists(_SIZES, max_size=2), _SIZES).map(lambda p: (*p[0], p[1], p[1]))


def matrix_power_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``n`` from 0 to 9 (each of torch's paths: the copies, 2, 3, repeated squaring); from
    -9 for 0x0 and 1x1 matrices (``linalg.inv`` first, -1 its result itself: larger
    matrices' inverses differ from torch's by the LU's rounding order, which the powers
    amplify, measured up to 64 ulps of the largest magnitude for condition numbers below
    100; torch's OpInfo samples run them, tests/test_opinfo.py)."""
    return st.integers(-9 if shape[-1] <= 1 else 0, 9).map(lambda n: {"n": n})


def _matrix_power_errors(call: Any) -> dict[str, Program]:
    return {
        "a vector": lambda lib: call(lib)(lib.ones(3), 2),
        "0-d": lambda lib: call(lib)(lib.ones(()), 2),
        "matrices that are not square": lambda lib: call(lib)(lib.ones(2, 3), 0),
        "bool": lambda lib: call(lib)(lib.ones(3, 3, dtype=lib.bool), 2),
        "a float n": lambda lib: call(lib)(lib.ones(3, 3), 2.0),
        "out= of a dtype the result cannot be cast to": lambda lib: call(lib)(
            lib.ones(3, 3), 0, out=lib.empty(0, dtype=lib.int64)),
        "out= of another float dtype, n 2": lambda lib: call(lib)(
            lib.ones(3, 3), 2, out=lib.empty(0, dtype=lib.float64)),
        "a negative n of int64": lambda lib: call(lib)(lib.ones(2, 2, dtype=lib.int64), -2),
        "a negative n of float16": lambda lib: call(lib)(lib.eye(2, dtype=lib.float16), -1),
        "a negative n of a singular matrix": lambda lib: call(lib)(lib.ones(2, 2), -3),
        "n -1 of a singular matrix, out=": lambda lib: call(lib)(lib.ones(2, 2), -1,
                                                                 out=lib.empty(0)),
        "n -1, out= of float64": lambda lib: call(lib)(lib.eye(2), -1,
                                                       out=lib.empty(0, dtype=lib.float64)),
    }


#: the products are matmul's (reftensor's float32 mm is not MKL's, an ulp or so apart), the
#: errors grow with the power: up to 5 ulps of the largest magnitude measured (powers 2-9)
MATRIX_POWER_ULPS = 8
OP_DB += [
    OpEntry("linalg_matrix_power", arguments=matrix_power_arguments, shapes=_square_shapes(),
            ulps=MATRIX_POWER_ULPS,
            errors=_matrix_power_errors(lambda lib: lib.linalg.matrix_power)),
    OpEntry("matrix_power", arguments=matrix_power_arguments, shapes=_square_shapes(),
            ulps=MATRIX_POWER_ULPS, errors=_matrix_power_errors(lambda lib: lib.matrix_power)),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ linear (nn.functional)
@st.composite
def linear_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A ``weight`` ``(out, in)`` (or a vector ``(in,)``; now and then an ``in`` that does
    not match), and a ``bias`` sometimes: ``(out,)`` or one that broadcasts, any layout (a
    contiguous input with a contiguous 1-d bias takes torch's flattened ``addmm``)."""
    k, m = draw(_inner(shape[-1])), draw(_SIZES)
    vector = draw(st.integers(0, 4)) == 0
    found = {"weight": draw(strategies.tensors(shape=(k,) if vector else (m, k)))}
    bias = draw(st.sampled_from([None, (), (1,)] if vector else
                                [None, (m,), (m,), (1, m), (), (1,)]))
    if bias is not None:
        found["bias"] = draw(strategies.tensors(shape=bias))
    return found


OP_DB += [
    OpEntry("linear", arguments=linear_arguments, same_dtype=True,
            shapes=st.lists(_SIZES, min_size=1, max_size=4).map(tuple), errors={
        "a 0-d input": lambda lib: lib.nn.functional.linear(lib.ones(()), lib.ones(3, 2)),
        "a 0-d weight": lambda lib: lib.nn.functional.linear(lib.ones(2), lib.ones(())),
        "a 3-d weight": lambda lib: lib.nn.functional.linear(lib.ones(2), lib.ones(1, 3, 2)),
        "sizes that do not match": lambda lib: lib.nn.functional.linear(lib.ones(4, 2),
                                                                        lib.ones(3, 5)),
        "dtypes that differ": lambda lib: lib.nn.functional.linear(
            lib.ones(4, 2), lib.ones(3, 2, dtype=lib.float64)),
        "a bias of another dtype": lambda lib: lib.nn.functional.linear(
            lib.ones(4, 2), lib.ones(3, 2), lib.ones(3, dtype=lib.float64)),
        "a bias that does not broadcast": lambda lib: lib.nn.functional.linear(
            lib.ones(4, 2), lib.ones(3, 2), lib.ones(2)),
        "a 3-d input with a bias that does not broadcast": lambda lib: lib.nn.functional.linear(
            lib.ones(2, 4, 2), lib.ones(3, 2), lib.ones(5, 3)),
        "a number bias": lambda lib: lib.nn.functional.linear(lib.ones(4, 2), lib.ones(3, 2),
                                                              2.0),
        "bool": lambda lib: lib.nn.functional.linear(lib.ones(4, 2, dtype=lib.bool),
                                                     lib.ones(3, 2, dtype=lib.bool)),
        "no weight": lambda lib: lib.nn.functional.linear(lib.ones(4, 2)),
        "out= with an input that requires grad": lambda lib: lib.nn.functional.linear(
            lib.ones(4, 2), lib.ones(3, 2, requires_grad=True), out=lib.empty(0)),
        "out= of another dtype": lambda lib: lib.nn.functional.linear(
            lib.ones(4, 2), lib.ones(3, 2), lib.ones(3), out=lib.empty(0, dtype=lib.float64)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ softmax (chapter 6)
#: exp and the sum's order are NumPy's in reftensor, SLEEF's and a vectorised sum in torch
SOFTMAX_ULPS = 4


def _softmax_dim(draw: st.DrawFn, shape: tuple[int, ...]) -> int:
    n = max(len(shape), 1)
    return draw(st.integers(-n, n - 1))


@st.composite
def softmax_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim`` (negative too; a 0-d input takes 0 and -1) and a ``dtype`` sometimes (an
    integer input needs a floating one; not float16, whose result the gradient test
    compares exactly, where exp's last float32 bit may round a float16 the other way)."""
    found: dict[str, Any] = {"dim": _softmax_dim(draw, shape)}
    d = draw(st.sampled_from([None, None, DtypeName("float64"), DtypeName("float32"),
                              DtypeName("int64")]))
    return found if d is None else {**found, "dtype": d}


@st.composite
def private_softmax_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {"dim": _softmax_dim(draw, shape), "half_to_float": False}


@st.composite
def softmax_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``output`` of the input's shape (and dtype: ``same_dtype``), ``dim`` and an
    ``input_dtype``."""
    return {"output": draw(strategies.tensors(shape=shape)), "dim": _softmax_dim(draw, shape),
            "input_dtype": draw(st.sampled_from([DtypeName("float32"), DtypeName("float64")]))}


def _softmax_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "no dim": lambda lib: f(lib, lib.ones(2)),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), 2),
        "a dim out of range of a 0-d input": lambda lib: f(lib, lib.ones(()), 1),
        "a dim list": lambda lib: f(lib, lib.ones(2, 3), (0, 1)),
        "an int64 input": lambda lib: f(lib, lib.ones(2, dtype=lib.int64), 0),
        "a bool input along another dim": lambda lib: f(lib, lib.ones(2, 3, dtype=lib.bool),
                                                        0),
        "an int64 dtype": lambda lib: f(lib, lib.ones(2), 0, dtype=lib.int64),
        "out= of another dtype": lambda lib: f(lib, lib.ones(2), 0,
                                               out=lib.empty(0, dtype=lib.float64)),
        "a number": lambda lib: f(lib, 2.0, 0),
    }


def _private_softmax_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "half_to_float on the CPU": lambda lib: f(lib, lib.ones(2, dtype=lib.float16), 0,
                                                  True),
        "half_to_float of float32": lambda lib: f(lib, lib.ones(2), 0, True),
        "an int64 input": lambda lib: f(lib, lib.ones(2, dtype=lib.int64), 0, False),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), -3, False),
        "no half_to_float": lambda lib: f(lib, lib.ones(2), 0),
        "out= of another dtype": lambda lib: f(lib, lib.ones(2), 0, False,
                                               out=lib.empty(0, dtype=lib.float64)),
    }


def _softmax_backward_errors(name: str) -> dict[str, Program]:
    """(torch's ``_log_softmax_backward_data`` does not compare the shapes: it reads past
    ``output``; reftensor refuses as ``_softmax_backward_data`` does.)"""
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        **({"shapes that differ": lambda lib: f(lib, lib.ones(2), lib.ones(3), 0, lib.float32)}
           if name == "_softmax_backward_data" else {}),
        "dtypes that differ": lambda lib: f(lib, lib.ones(2), lib.ones(2, dtype=lib.float64),
                                            0, lib.float32),
        "int64": lambda lib: f(lib, *[lib.ones(2, dtype=lib.int64)] * 2, 0, lib.int64),
        "a dim out of range": lambda lib: f(lib, lib.ones(2), lib.ones(2), 1, lib.float32),
        "no input_dtype": lambda lib: f(lib, lib.ones(2), lib.ones(2), 0),
    }


#: not bool: torch's meta decomposition of ``_log_softmax`` refuses an empty bool tensor
#: (``x - amax``) that its CPU kernel takes (the error inputs hold bool's refusals)
_NOT_BOOL = tuple(n for n in strategies.ALL_NAMES if n != "bool")
OP_DB += [
    OpEntry("softmax", arguments=softmax_arguments, ulps=SOFTMAX_ULPS, dtypes=_NOT_BOOL,
            errors=_softmax_errors("softmax")),
    OpEntry("log_softmax", arguments=softmax_arguments, ulps=SOFTMAX_ULPS, dtypes=_NOT_BOOL,
            errors=_softmax_errors("log_softmax")),
    OpEntry("_softmax", arguments=private_softmax_arguments, ulps=SOFTMAX_ULPS,
            dtypes=_NOT_BOOL, errors=_private_softmax_errors("_softmax")),
    OpEntry("_log_softmax", arguments=private_softmax_arguments, ulps=SOFTMAX_ULPS,
            dtypes=_NOT_BOOL, errors=_private_softmax_errors("_log_softmax")),
    OpEntry("_softmax_backward_data", arguments=softmax_backward_arguments, same_dtype=True,
            ulps=SOFTMAX_ULPS, dtypes=_NOT_BOOL,
            errors=_softmax_backward_errors("_softmax_backward_data")),
    OpEntry("_log_softmax_backward_data", arguments=softmax_backward_arguments,
            same_dtype=True, ulps=SOFTMAX_ULPS, dtypes=_NOT_BOOL,
            errors=_softmax_backward_errors("_log_softmax_backward_data")),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# --- losses (chapter 6) --------------------------------------------------------------------
#: the losses' sums and means are NumPy's order (torch's cascade and vectorised sums), their
#: logs and exps NumPy's; nll_loss's cascade sum is reproduced exactly
LOSS_ULPS = 4
#: binary_cross_entropy_with_logits: a float32 mean of 18 losses of an overlapping input came
#: out 10 ulps from torch's (its vectorised log1p/exp and sum order against NumPy's)
BCEL_ULPS = 16
_REDUCTION = st.sampled_from([0, 1, 2])
# (mse_loss_backward, nll_loss_backward and the other backward ops have no entry: internal
# ops, reached by the entries' gradient tests and tests/test_ch06_losses.py)


def _class_indices(shape: tuple[int, ...], classes: int,
                   values: list[int]) -> strategies.TensorSpec:
    """An int64 target of class indices (or ``ignore_index``), contiguous."""
    strides = tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))
    return strategies.TensorSpec(shape, strides, 0, "int64", tuple(values) or (0,),
                                 "contiguous")


@st.composite
def _class_target(draw: st.DrawFn, shape: tuple[int, ...], two_d: bool) -> dict[str, Any]:
    """``target``, ``weight``, ``reduction``, ``ignore_index`` for an nll input ``shape``
    (``(C)``/``(N, C)``, or ``(N, C, H, W)`` with ``two_d``)."""
    classes = shape[1] if two_d or len(shape) == 2 else shape[0]
    tshape = (shape[0], *shape[2:]) if two_d else shape[:1] if len(shape) == 2 else ()
    ignore = draw(st.sampled_from([-100, 0, 1]))
    n = math.prod(tshape)
    values = draw(st.lists(st.one_of(st.integers(0, max(classes - 1, 0)), st.just(ignore)),
                           min_size=n, max_size=n))
    # (no weight here: it must have the input's dtype, which these arguments do not know;
    # tests/test_ch06_losses.py draws weights)
    return {"target": _class_indices(tshape, classes, values), "weight": None,
            "reduction": draw(_REDUCTION), "ignore_index": ignore}


def _nll_shapes(two_d: bool) -> st.SearchStrategy[tuple[int, ...]]:
    if two_d:
        return st.tuples(_SIZES, st.integers(1, 3), _SIZES, _SIZES)
    return st.one_of(st.tuples(st.integers(1, 4)), st.tuples(_SIZES, st.integers(1, 4)))


def _nll_forward_entry(name: str, two_d: bool) -> OpEntry:
    f = lambda lib, *a: getattr(_aten(lib), name)(*a)  # noqa: E731
    x = (2, 3, 1, 2) if two_d else (2, 3)
    t = (lambda lib: lib.zeros(2, 1, 2, dtype=lib.int64)) if two_d else (
        lambda lib: lib.tensor([0, 2]))
    return OpEntry(name, arguments=lambda shape: _class_target(shape, two_d),
                   shapes=_nll_shapes(two_d), dtypes=strategies.FLOAT_NAMES,
                   no_leaves=("target",), errors={
        "a target out of range": lambda lib: f(lib, lib.ones(x), t(lib) + 5, None, 1, -100),
        "a float target": lambda lib: f(lib, lib.ones(x), t(lib).float(), None, 1, -100),
        "an int32 target": lambda lib: f(lib, lib.ones(x), t(lib).int(), None, 1, -100),
        "an int64 input": lambda lib: f(lib, lib.ones(x, dtype=lib.int64), t(lib), None, 1,
                                        -100),
        "a weight of the wrong size": lambda lib: f(lib, lib.ones(x), t(lib), lib.ones(2), 1,
                                                    -100),
        "a float64 weight": lambda lib: f(lib, lib.ones(x), t(lib),
                                          lib.ones(3, dtype=lib.float64), 1, -100),
        "a 3-d input": lambda lib: f(lib, lib.ones(2, 3, 4), t(lib), None, 1, -100),
        "a weight that requires grad": lambda lib: f(
            lib, lib.ones(x), t(lib), lib.ones(3, requires_grad=True), 1, -100),
    })


@st.composite
def _same_shape_target(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A target of the input's shape (or one that broadcasts) and a reduction."""
    return {"target": draw(strategies.tensors(shape=_broadcastable(shape))),
            "reduction": draw(_REDUCTION)}


@st.composite
def _bce_arguments(draw: st.DrawFn, shape: tuple[int, ...], logits: bool) -> dict[str, Any]:
    probabilities = st.sampled_from([0.0, 0.25, 0.5, 1.0])
    n = math.prod(shape)
    strides = tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))
    target = strategies.TensorSpec(shape, strides, 0, "float32", tuple(draw(st.lists(
        probabilities, min_size=max(n, 1), max_size=max(n, 1)))), "contiguous")
    found: dict[str, Any] = {"target": target,
                             "weight": draw(st.one_of(st.none(), strategies.tensors(
                                 shape=_broadcastable(shape))))}
    if logits:
        found["pos_weight"] = draw(st.one_of(st.none(), strategies.tensors(
            shape=_broadcastable(shape))))
    found["reduction"] = draw(_REDUCTION)
    return found


@st.composite
def _mse_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """For ``grad_output`` of ``shape``: ``self`` and ``target`` of the same shape, and a
    reduction (torch's kernel broadcasts ``grad_output`` into ``self``'s shape)."""
    return {"self": draw(strategies.tensors(shape=shape)),
            "target": draw(strategies.tensors(shape=shape)), "reduction": draw(_REDUCTION)}


def _loss_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a: getattr(_aten(lib), name)(*a)  # noqa: E731
    return {
        "int64 operands": lambda lib: f(lib, lib.ones(2, dtype=lib.int64),
                                        lib.ones(2, dtype=lib.int64), 1),
        "shapes that do not broadcast": lambda lib: f(lib, lib.ones(2), lib.ones(3), 1),
    }


OP_DB += [
    OpEntry("mse_loss", arguments=_same_shape_target, dtypes=strategies.FLOAT_NAMES,
            same_dtype=True, ulps=LOSS_ULPS, errors={
        **_loss_errors("mse_loss"),
        "a reduction of 5": lambda lib: _aten(lib).mse_loss(lib.ones(2), lib.ones(2), 5),
        "bool operands": lambda lib: _aten(lib).mse_loss(lib.ones(2, dtype=lib.bool),
                                                         lib.ones(2, dtype=lib.bool), 0),
    }),
    OpEntry("l1_loss", arguments=_same_shape_target, dtypes=strategies.FLOAT_NAMES,
            same_dtype=True, ulps=LOSS_ULPS, errors=_loss_errors("l1_loss")),
    _nll_forward_entry("nll_loss_forward", two_d=False),
    _nll_forward_entry("nll_loss2d_forward", two_d=True),
    _nll_forward_entry("nll_loss", two_d=False),
    _nll_forward_entry("nll_loss2d", two_d=True),
    # (non-empty: torch refuses an empty input with a size-1 dim, ``(1, 0)``, as "output with
    # shape [0] doesn't match the broadcast shape [1, 0]"; reftensor computes it, not
    # reproduced)
    OpEntry("binary_cross_entropy", arguments=lambda shape: _bce_arguments(shape, False),
            shapes=st.lists(st.integers(1, 3), max_size=3).map(tuple), dtypes=("float32",),
            values=st.sampled_from([0.0, 0.125, 0.5, 0.75, 1.0]),
            no_leaves=("weight",), ulps=LOSS_ULPS, errors={
        "an input above 1": lambda lib: _aten(lib).binary_cross_entropy(
            lib.tensor([1.5]), lib.tensor([1.0])),
        "a target of another dtype": lambda lib: _aten(lib).binary_cross_entropy(
            lib.tensor([0.5]), lib.tensor([1.0], dtype=lib.float64)),
        "int64 operands": lambda lib: _aten(lib).binary_cross_entropy(
            lib.tensor([1]), lib.tensor([1])),
    }),
    # (dims of 2 and more: with empty or size-1 dims torch's result takes strides from its
    # in-place steps' TensorIterator that reftensor's does not give; tests/test_ch06_losses.py
    # says more)
    OpEntry("binary_cross_entropy_with_logits",
            arguments=lambda shape: _bce_arguments(shape, True), dtypes=("float32",),
            shapes=st.lists(st.integers(2, 3), max_size=3).map(tuple),
            no_leaves=("weight", "pos_weight"), ulps=BCEL_ULPS, errors={
        "a pos_weight past the target's shape": lambda lib: (
            lib.binary_cross_entropy_with_logits(lib.ones(2, 3), lib.ones(2, 3), None,
                                                 lib.ones(2, 1, 3))),
        "an int64 target": lambda lib: lib.binary_cross_entropy_with_logits(
            lib.ones(2), lib.ones(2, dtype=lib.int64)),
        "a weight that requires grad": lambda lib: lib.binary_cross_entropy_with_logits(
            lib.ones(2), lib.ones(2), lib.ones(2, requires_grad=True)),
    }),
]


#: log_sigmoid: exp and log1p are the C library's in double, rounded, against torch's
#: vectorised (SLEEF) ones: up to 3 ulps measured on 200,000 float32 and float64 values;
#: float16, bfloat16 and the backward op bit for bit
LOG_SIGMOID_ULPS = 4


@st.composite
def _log_sigmoid_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """For ``grad_output`` of ``shape``: ``self`` and a ``buffer`` of the same shape (any
    values: the kernel reads the buffer as given; ``same_dtype``: the input's dtype)."""
    return {"self": draw(strategies.tensors(shape=shape)),
            "buffer": draw(strategies.tensors(shape=shape))}


def _log_sigmoid_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(_aten_of(lib), name)(*a, **k)  # noqa: E731
    found: dict[str, Program] = {
        "an int64 input": lambda lib: f(lib, lib.arange(3)),
        "a bool input": lambda lib: f(lib, lib.ones(2, dtype=lib.bool)),
    }
    if name == "log_sigmoid":
        found["out= of another dtype"] = lambda lib: f(lib, lib.ones(2),
                                                       out=lib.empty(2, dtype=lib.float64))
        found["out= requiring grad"] = lambda lib: f(lib, lib.ones(2),
                                                     out=lib.empty(2, requires_grad=True))
    return found


OP_DB += [
    OpEntry("log_sigmoid", dtypes=strategies.FLOAT_NAMES, ulps=LOG_SIGMOID_ULPS,
            errors=_log_sigmoid_errors("log_sigmoid")),
    OpEntry("log_sigmoid_forward", dtypes=strategies.FLOAT_NAMES, ulps=LOG_SIGMOID_ULPS,
            errors=_log_sigmoid_errors("log_sigmoid_forward")),
    OpEntry("log_sigmoid_backward", arguments=_log_sigmoid_backward_arguments,
            dtypes=strategies.FLOAT_NAMES, same_dtype=True, ulps=LOG_SIGMOID_ULPS,
            no_leaves=("buffer",), errors={
        "operands of other dtypes": lambda lib: _aten_of(lib).log_sigmoid_backward(
            lib.ones(2), lib.ones(2, dtype=lib.float64), lib.ones(2)),
        "int64 operands": lambda lib: _aten_of(lib).log_sigmoid_backward(
            *[lib.ones(2, dtype=lib.int64)] * 3),
        "shapes that do not broadcast": lambda lib: _aten_of(lib).log_sigmoid_backward(
            lib.ones(2), lib.ones(3), lib.ones(3)),
        "an empty buffer": lambda lib: _aten_of(lib).log_sigmoid_backward(
            lib.ones(2), lib.ones(2), lib.empty(0)),
        "a buffer that requires grad": lambda lib: _aten_of(lib).log_sigmoid_backward(
            lib.ones(2), lib.ones(2), lib.ones(2, requires_grad=True)),
    }),
]


# --- layers (chapter 6): gelu, embedding, one_hot, layer and batch norm, bilinear
#: measured against torch on generated inputs (scaled by the largest value, as the harness
#: does): gelu's erf and tanh (the C library's and NumPy's against SLEEF's float32 ones) and
#: the normalizations' and _trilinear's sums (NumPy's in float64 against torch's vector lanes
#: and BLAS) stay within 16
LAYER_ULPS = 16
_FLOATS = strategies.FLOAT_NAMES
_APPROXIMATE = st.sampled_from(["none", "tanh"])


def _ranged(draw: st.DrawFn, spec: Any, low: int, high: int) -> Any:
    """``spec`` with every stored value drawn from ``[low, high]``."""
    n = len(spec.storage)
    return dataclasses.replace(spec, storage=tuple(draw(st.lists(
        st.integers(low, high), min_size=n, max_size=n))))


@st.composite
def gelu_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {} if draw(st.booleans()) else {"approximate": draw(_APPROXIMATE)}


@st.composite
def gelu_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``self`` of the gradient's shape (``same_dtype``), ``approximate`` sometimes."""
    found: dict[str, Any] = {"self": draw(strategies.tensors(shape=shape))}
    return found if draw(st.booleans()) else {**found, "approximate": draw(_APPROXIMATE)}


_EMBEDDING_WEIGHTS = st.tuples(st.integers(1, 5), st.integers(0, 4))
_INDEX_SHAPE = st.sampled_from([(), (0,), (3,), (2, 3), (4, 1)])


@st.composite
def embedding_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``indices`` in range (int64 or int32, any layout and shape); ``padding_idx`` and
    ``scale_grad_by_freq`` sometimes."""
    spec = draw(strategies.tensors(dtypes=("int64", "int32"), shape=_INDEX_SHAPE))
    found: dict[str, Any] = {"indices": _ranged(draw, spec, 0, shape[0] - 1)}
    if draw(st.booleans()):
        found["padding_idx"] = draw(st.integers(-1, shape[0] - 1))
        found["scale_grad_by_freq"] = draw(st.booleans())
    return found


_GRAD_SHAPES = st.tuples(st.integers(0, 4), st.integers(1, 3))


@st.composite
def embedding_dense_backward_arguments(draw: st.DrawFn,
                                       shape: tuple[int, ...]) -> dict[str, Any]:
    """Indices of the gradient's leading dims, a number of rows, ``padding_idx``,
    ``scale_grad_by_freq``. (No index out of range: torch's kernel skips one, but with
    ``scale_grad_by_freq`` writes its count outside its array and may abort the process.)"""
    num_weights = draw(st.integers(1, 5))
    spec = draw(strategies.tensors(dtypes=("int64", "int32"), shape=shape[:-1]))
    return {"indices": _ranged(draw, spec, 0, num_weights - 1), "num_weights": num_weights,
            "padding_idx": draw(st.integers(-1, num_weights - 1)),
            "scale_grad_by_freq": draw(st.booleans())}


@st.composite
def embedding_renorm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    spec = draw(strategies.tensors(dtypes=("int64",), shape=_INDEX_SHAPE))
    return {"indices": _ranged(draw, spec, 0, shape[0] - 1),
            "max_norm": draw(st.sampled_from([0.5, 1.0, 3.0])),
            "norm_type": draw(st.sampled_from([1.0, 2.0, 3.0]))}


@st.composite
def one_hot_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    return {} if draw(st.booleans()) else {"num_classes": draw(st.sampled_from([6, 7]))}


def _affine(draw: st.DrawFn, shape: tuple[int, ...], name: str,
            kinds: tuple[str, ...] = strategies.KINDS) -> Any:
    return draw(strategies.tensors(shape=shape, kinds=kinds)) if draw(st.booleans()) else None


#: batch norm's weight: torch's contiguous backward reads the weight's ``C`` elements one
#: after another from its first whatever its strides (reftensor does too), which for an
#: expanded or overlapping weight reads past its storage: no layout whose storage ends early
#: (the backward's statistics: contiguous, as the forward makes them; a strided running_mean
#: gives torch's backward other weight gradients, at times NaN, from one run to the next)
_WEIGHT_KINDS = strategies.WRITABLE_KINDS


@st.composite
def layer_norm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``normalized_shape`` the input's last 1 or more sizes; ``weight`` and ``bias`` of
    that shape or None; ``eps`` sometimes."""
    k = draw(st.integers(1, len(shape)))
    normalized = shape[len(shape) - k:]
    found = {"normalized_shape": normalized, "weight": _affine(draw, normalized, "weight"),
             "bias": _affine(draw, normalized, "bias")}
    return {**found, "eps": draw(st.sampled_from([1e-5, 0.1, 1.0]))}


@st.composite
def layer_norm_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    k = draw(st.integers(1, len(shape)))
    normalized = shape[len(shape) - k:]
    stat = (*shape[:len(shape) - k], *([1] * k))
    return {"input": draw(strategies.tensors(shape=shape)), "normalized_shape": normalized,
            # the forward's contiguous statistics: torch's kernel reads them one after
            # another whatever their strides (past the storage of an expanded one)
            "mean": draw(strategies.tensors(shape=stat, kinds=("contiguous",))),
            "rstd": draw(strategies.tensors(shape=stat, kinds=("contiguous",))),
            "weight": _affine(draw, normalized, "weight"),
            "bias": _affine(draw, normalized, "bias"),
            "output_mask": tuple(draw(st.lists(st.booleans(), min_size=3, max_size=3)))}


_BATCH_SHAPES = st.one_of(st.tuples(st.integers(1, 4), st.integers(1, 3)),
                          st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)))


@st.composite
def batch_norm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """Running stats (a variance that is positive) or None (then training), ``weight`` and
    ``bias`` or None, ``training``, ``momentum``, ``eps``."""
    c = (shape[1],)
    training = draw(st.booleans())
    stats = not training or draw(st.booleans())
    mean = draw(strategies.tensors(shape=c)) if stats else None
    var = draw(strategies.tensors(shape=c)) if stats else None
    if var is not None:
        var = _ranged(draw, var, 1, 4)
    return {"weight": _affine(draw, c, "weight", _WEIGHT_KINDS),
            "bias": _affine(draw, c, "bias"), "running_mean": mean, "running_var": var,
            "training": training,
            "momentum": draw(st.sampled_from([0.1, 0.5, 1.0])),
            "eps": draw(st.sampled_from([1e-5, 0.5]))}


@st.composite
def batch_norm_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    c = (shape[1],)
    train = draw(st.booleans())

    def positive() -> Any:
        return _ranged(draw, draw(strategies.tensors(shape=c, kinds=("contiguous",))), 1, 4)

    return {"input": draw(strategies.tensors(shape=shape)),
            "weight": _affine(draw, c, "weight", _WEIGHT_KINDS),
            "running_mean": None if train else draw(strategies.tensors(
                shape=c, kinds=("contiguous",))),
            "running_var": None if train else positive(),
            "save_mean": draw(strategies.tensors(shape=c, kinds=("contiguous",))) if train
            else None,
            "save_invstd": positive() if train else None,
            "train": train, "eps": 1e-5,
            "output_mask": tuple(draw(st.lists(st.booleans(), min_size=3, max_size=3)))}


@st.composite
def trilinear_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``bilinear``'s call: ``i1`` ``(B, in1)``, ``i2`` ``(out, in1, in2)``, ``i3``
    ``(B, in2)``."""
    out, in2 = draw(st.integers(0, 3)), draw(st.integers(1, 3))
    return {"i2": draw(strategies.tensors(shape=(out, shape[1], in2))),
            "i3": draw(strategies.tensors(shape=(shape[0], in2))),
            "expand1": [1, 3], "expand2": [0], "expand3": [1, 2], "sumdim": [2, 3]}


@st.composite
def bilinear_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    out, in2 = draw(st.integers(0, 3)), draw(st.integers(1, 3))
    return {"input2": draw(strategies.tensors(shape=(*shape[:-1], in2))),
            "weight": draw(strategies.tensors(shape=(out, shape[-1], in2))),
            "bias": draw(strategies.tensors(shape=(out,))) if draw(st.booleans()) else None}


def _layer_errors() -> dict[str, dict[str, Program]]:
    F = lambda lib: lib.nn.functional  # noqa: E731
    return {
        "gelu": {
            "an int64 input": lambda lib: F(lib).gelu(lib.arange(3)),
            "a bool input": lambda lib: F(lib).gelu(lib.ones(2, dtype=lib.bool)),
            "another approximate": lambda lib: F(lib).gelu(lib.ones(2), approximate="x"),
        },
        "gelu_backward": {
            "shapes that do not broadcast": lambda lib: _aten_of(lib).gelu_backward(
                lib.ones(2), lib.ones(3)),
            "int64 operands": lambda lib: _aten_of(lib).gelu_backward(
                lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)),
        },
        "embedding": {
            "a 1-d weight": lambda lib: lib.embedding(lib.ones(3), lib.tensor([0])),
            "float indices": lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([0.0])),
            "an index out of range": lambda lib: lib.embedding(lib.ones(3, 2),
                                                               lib.tensor([3])),
            "a negative index": lambda lib: lib.embedding(lib.ones(3, 2), lib.tensor([-1])),
            "padding_idx out of range": lambda lib: F(lib).embedding(
                lib.tensor([0]), lib.ones(3, 2), padding_idx=3),
        },
        "one_hot": {
            "int32 classes": lambda lib: F(lib).one_hot(lib.tensor([0], dtype=lib.int32)),
            "a negative class": lambda lib: F(lib).one_hot(lib.tensor([-1])),
            "a class too large": lambda lib: F(lib).one_hot(lib.tensor([3]), 3),
            "an empty input": lambda lib: F(lib).one_hot(lib.tensor([], dtype=lib.int64)),
            "num_classes 0": lambda lib: F(lib).one_hot(lib.tensor([1]), 0),
        },
        "layer_norm": {
            "another last size": lambda lib: F(lib).layer_norm(lib.ones(2, 3), (2,)),
            "a weight of another shape": lambda lib: F(lib).layer_norm(
                lib.ones(2, 3), (3,), lib.ones(2)),
            "an empty normalized_shape": lambda lib: lib.layer_norm(lib.ones(2, 3), ()),
        },
        "batch_norm": {
            "one value per channel": lambda lib: F(lib).batch_norm(
                lib.ones(1, 3), None, None, training=True),
            "running stats of another size": lambda lib: F(lib).batch_norm(
                lib.ones(2, 3), lib.zeros(2), lib.ones(2)),
            "no running stats in eval": lambda lib: lib.batch_norm(
                lib.ones(2, 3), None, None, None, None, False, 0.1, 1e-5, False),
            "eps 0 in training": lambda lib: F(lib).batch_norm(
                lib.ones(2, 3), None, None, training=True, eps=0.0),
            "a weight of another size": lambda lib: F(lib).batch_norm(
                lib.ones(2, 3), None, None, lib.ones(4), training=True),
        },
        "bilinear": {
            "dims that differ": lambda lib: lib.bilinear(lib.ones(2, 3), lib.ones(3),
                                                         lib.ones(1, 3, 3)),
            "batch sizes that differ": lambda lib: lib.bilinear(
                lib.ones(2, 3), lib.ones(3, 3), lib.ones(1, 3, 3)),
            "in1 against the weight": lambda lib: lib.bilinear(
                lib.ones(2, 2), lib.ones(2, 3), lib.ones(1, 3, 3)),
            "a bias of another size": lambda lib: lib.bilinear(
                lib.ones(2, 3), lib.ones(2, 3), lib.ones(1, 3, 3), lib.ones(2)),
        },
    }


def _aten_of(lib: Any) -> Any:
    """``torch.ops.aten``, or reftensor's ``aten``."""
    if lib.__name__ == "torch":
        return lib.ops.aten
    from reftensor._ops import aten
    return aten


_LAYER_ERRORS = _layer_errors()
OP_DB += [
    OpEntry("gelu", arguments=gelu_arguments, dtypes=_FLOATS, ulps=LAYER_ULPS,
            errors=_LAYER_ERRORS["gelu"]),
    OpEntry("gelu_backward", arguments=gelu_backward_arguments, dtypes=_FLOATS,
            same_dtype=True, ulps=LAYER_ULPS, errors=_LAYER_ERRORS["gelu_backward"]),
    OpEntry("embedding", arguments=embedding_arguments, dtypes=_FLOATS,
            shapes=_EMBEDDING_WEIGHTS, no_leaves=("indices",),
            errors=_LAYER_ERRORS["embedding"]),
    OpEntry("embedding_dense_backward", arguments=embedding_dense_backward_arguments,
            dtypes=_FLOATS, shapes=_GRAD_SHAPES, no_leaves=("indices",), ulps=LAYER_ULPS),
    OpEntry("embedding_renorm_", arguments=embedding_renorm_arguments, dtypes=_FLOATS,
            shapes=_EMBEDDING_WEIGHTS, grad=False, ulps=LAYER_ULPS),
    OpEntry("embedding_backward", arguments=lambda shape: embedding_dense_backward_arguments(
        shape).map(lambda a: {**a, "sparse": False}), dtypes=_FLOATS, shapes=_GRAD_SHAPES,
            no_leaves=("indices",), ulps=LAYER_ULPS),
    OpEntry("one_hot", arguments=one_hot_arguments, dtypes=("int64",), grad=False,
            values=st.integers(0, 5), shapes=strategies.shapes.filter(lambda s: 0 not in s),
            errors=_LAYER_ERRORS["one_hot"]),
    OpEntry("native_layer_norm", arguments=layer_norm_arguments, dtypes=_FLOATS,
            shapes=_WITH_DIMS, ulps=LAYER_ULPS),
    OpEntry("native_layer_norm_backward", arguments=layer_norm_backward_arguments,
            dtypes=_FLOATS, shapes=_WITH_DIMS, same_dtype=True, grad=False, ulps=LAYER_ULPS),
    OpEntry("layer_norm", arguments=layer_norm_arguments, dtypes=_FLOATS, shapes=_WITH_DIMS,
            ulps=LAYER_ULPS, errors=_LAYER_ERRORS["layer_norm"]),
    OpEntry("native_batch_norm", arguments=batch_norm_arguments, dtypes=_FLOATS,
            shapes=_BATCH_SHAPES, same_dtype=True, ulps=LAYER_ULPS),
    OpEntry("native_batch_norm_backward", arguments=batch_norm_backward_arguments,
            dtypes=_FLOATS, shapes=_BATCH_SHAPES, same_dtype=True, grad=False,
            ulps=LAYER_ULPS),
    OpEntry("batch_norm", arguments=lambda shape: batch_norm_arguments(shape).map(
        lambda a: {**a, "cudnn_enabled": False}), dtypes=_FLOATS, shapes=_BATCH_SHAPES,
            same_dtype=True, ulps=LAYER_ULPS, errors=_LAYER_ERRORS["batch_norm"]),
    OpEntry("_trilinear", arguments=trilinear_arguments, dtypes=_FLOATS,
            shapes=st.tuples(st.integers(0, 3), st.integers(1, 3)), same_dtype=True,
            ulps=LAYER_ULPS),
    OpEntry("bilinear", arguments=bilinear_arguments, dtypes=_FLOATS, same_dtype=True,
            shapes=_WITH_DIMS.filter(lambda s: s[-1] > 0), ulps=LAYER_ULPS,
            errors=_LAYER_ERRORS["bilinear"]),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ binary functions and shifts
def _two_tensor_errors(name: str) -> dict[str, Program]:
    """What ops of two tensors (no number overloads) refuse, as torch does."""
    return {
        "shapes that do not broadcast": lambda lib: getattr(lib, name)(lib.ones(2), lib.ones(3)),
        "a number": lambda lib: getattr(lib, name)(lib.ones(2), 2),
        "a string": lambda lib: getattr(lib, name)(lib.ones(2), "a"),
        "a meta tensor with a CPU tensor":
            lambda lib: getattr(lib, name)(lib.ones(2, device="meta"), lib.ones(2)),
        "out= with an input that requires grad": lambda lib: getattr(lib, name)(
            lib.ones(2, requires_grad=True), lib.ones(2), out=lib.empty(2)),
        "out= of an integer dtype": lambda lib: getattr(lib, name)(
            lib.ones(2), lib.ones(2), out=lib.empty(2, dtype=lib.int64)),
    }


def _two_tensor_inplace_errors(name: str) -> dict[str, Program]:
    return {
        **_two_tensor_errors(name),
        "in place, self would broadcast":
            lambda lib: getattr(lib.ones(3), name + "_")(lib.ones(2, 3)),
        "in place into an expanded tensor":
            lambda lib: getattr(lib.ones(1).expand(3), name + "_")(lib.ones(3)),
        "in place into a leaf that requires grad":
            lambda lib: getattr(lib.ones(2, requires_grad=True), name + "_")(lib.ones(2)),
        "in place, an int self and a float result":
            lambda lib: getattr(lib.arange(2), name + "_")(lib.ones(2)),
    }


def logit_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """No ``eps``, None, or one of a few (negative: no clamp). Not above 0.5, where the
    bounds cross: torch's scalar loop (``x < lo ? lo : (x > hi ? hi : x)``) and its
    vectorised one (``min(max(x, lo), hi)``) disagree there, and which runs depends on the
    tensor's length and layout."""
    return st.one_of(st.just({}), st.sampled_from(
        [None, 0.0, 1e-6, 0.1, 0.25, 0.5, -1.0]).map(lambda e: {"eps": e}))


def nan_to_num_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Any of ``nan``, ``posinf``, ``neginf``: None, small, large (inf in float16), huge."""
    value = st.sampled_from([None, 0.0, -1.5, 2.0, 1e5, -1e5, 1e300, -1e300, 3])
    return st.fixed_dictionaries({}, optional={"nan": value, "posinf": value,
                                               "neginf": value})


def _shift_errors(name: str) -> dict[str, Program]:
    return {
        **_bitwise_errors(name),
        "bool tensors": lambda lib: getattr(lib, name)(lib.ones(2, dtype=lib.bool),
                                                       lib.ones(2, dtype=lib.bool)),
        "the operator on a float tensor": lambda lib: lib.ones(2) << 1,
        "the operator with a string": lambda lib: lib.arange(2) >> "a",
        "the reflected operator with a float": lambda lib: 2.5 << lib.arange(2),
    }


OP_DB += [
    OpEntry("atan2", arguments=tensor_other, ulps=TRANSCENDENTAL_ULPS,
            errors=_two_tensor_inplace_errors("atan2")),
    OpEntry("arctan2", arguments=tensor_other, ulps=TRANSCENDENTAL_ULPS,
            errors=_two_tensor_inplace_errors("arctan2")),
    OpEntry("hypot", arguments=tensor_other, ulps=TRANSCENDENTAL_ULPS, errors={
        **_two_tensor_inplace_errors("hypot"),
        "integer tensors": lambda lib: lib.hypot(lib.arange(2), lib.arange(2)),
        "bool tensors": lambda lib: lib.hypot(lib.ones(2, dtype=lib.bool),
                                              lib.ones(2, dtype=lib.bool)),
    }),
    OpEntry("fmod", arguments=other, errors={
        **_binary_errors("fmod"),
        "integer fmod by zero": lambda lib: lib.fmod(lib.arange(2), 0),
        "integer fmod by a zero tensor": lambda lib: lib.fmod(lib.arange(2), lib.zeros(
            2, dtype=lib.int64)),
        "bool tensors": lambda lib: lib.fmod(lib.ones(2, dtype=lib.bool), True),
        "a number first": _number_first("fmod"),
        "in place, an int self and a float result": lambda lib: lib.arange(2).fmod_(0.5),
    }),
    *[OpEntry(name, arguments=tensor_other, ulps=TRANSCENDENTAL_ULPS, errors={
        **_two_tensor_errors(name),
        "integer tensors": lambda lib, n=name: getattr(lib, n)(lib.arange(2), lib.arange(2)),
        "bool tensors on the meta device": lambda lib, n=name: getattr(lib, n)(
            lib.ones(2, dtype=lib.bool, device="meta"),
            lib.ones(2, dtype=lib.bool, device="meta")),
        "an in-place form": lambda lib, n=name: getattr(lib.ones(2), n + "_")(lib.ones(2)),
    }) for name in ("logaddexp", "logaddexp2")],
    OpEntry("xlogy", arguments=other, ulps=TRANSCENDENTAL_ULPS, errors={
        **_binary_errors("xlogy"),
        "two numbers": lambda lib: lib.xlogy(2, 3),
        "in place, an int self and a float result": lambda lib: lib.arange(2).xlogy_(2),
        "out= of an integer dtype": lambda lib: lib.xlogy(
            lib.ones(2), 2, out=lib.empty(2, dtype=lib.int64)),
        "a number first, in place": lambda lib: lib.xlogy_(2, lib.ones(2)),
    }),
    OpEntry("logit", arguments=logit_arguments, ulps=TRANSCENDENTAL_ULPS, errors={
        **{k: v for k, v in _float_function_errors("logit").items()
           if k != "a method argument"},  # (a number is ``eps``)
        "a string eps": lambda lib: lib.logit(lib.ones(2), eps="a"),
    }),
    OpEntry("nan_to_num", arguments=nan_to_num_arguments, errors={
        "a number": lambda lib: lib.nan_to_num(2.5),
        "a string nan": lambda lib: lib.nan_to_num(lib.ones(2), nan="a"),
        "out= of another dtype": lambda lib: lib.nan_to_num(
            lib.ones(2), out=lib.empty(2, dtype=lib.float64)),
        "out= of an integer input in a float": lambda lib: lib.nan_to_num(
            lib.arange(2), out=lib.empty(2)),
        "in place into an expanded tensor": lambda lib: lib.ones(1).expand(3).nan_to_num_(),
        "in place into a leaf that requires grad":
            lambda lib: lib.ones(2, requires_grad=True).nan_to_num_(),
    }),
    *[OpEntry(name, arguments=other, grad=False, errors=_shift_errors(name))
      for name in ("bitwise_left_shift", "bitwise_right_shift")],
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ in-place views
OP_DB += [
    OpEntry("t_", shapes=_MATRIX_SHAPES, errors={
        "3 dims": lambda lib: lib.ones(2, 3, 4).t_(),
        "an argument": lambda lib: lib.ones(2, 3).t_(0),
        "a leaf that requires grad": lambda lib: lib.ones(2, 3, requires_grad=True).t_(),
        "a view of a leaf that requires grad":
            lambda lib: lib.ones(2, 3, requires_grad=True)[:1].t_(),
        "the function": lambda lib: lib.t_(lib.ones(2)),
    }),
    OpEntry("transpose_", arguments=two_dims("dim0", "dim1"), errors={
        "a dim out of range": lambda lib: lib.ones(2, 3).transpose_(0, 2),
        "one dim": lambda lib: lib.ones(2, 3).transpose_(0),
        "a leaf that requires grad":
            lambda lib: lib.ones(2, 3, requires_grad=True).transpose_(0, 1),
    }),
    OpEntry("swapaxes_", arguments=two_dims("axis0", "axis1"), errors={
        "a dim out of range": lambda lib: lib.ones(2, 3).swapaxes_(0, -3),
    }),
    OpEntry("swapdims_", arguments=two_dims("dim0", "dim1"), errors={
        "a dim out of range": lambda lib: lib.ones(2, 3).swapdims_(2, 0),
    }),
    OpEntry("squeeze_", arguments=squeeze_dims, errors={
        "a dim out of range": lambda lib: lib.ones(2, 1).squeeze_(2),
        "a dim twice": lambda lib: lib.ones(2, 1).squeeze_((1, -1)),
        "a float dim": lambda lib: lib.ones(2, 1).squeeze_(1.0),
        "a leaf that requires grad": lambda lib: lib.ones(2, 1, requires_grad=True).squeeze_(),
    }),
    OpEntry("unsqueeze_", arguments=unsqueeze_dim, errors={
        "a dim out of range": lambda lib: lib.ones(2).unsqueeze_(2),
        "no dim": lambda lib: lib.ones(2).unsqueeze_(),
        "a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).unsqueeze_(0),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------ norms (chapter 4, issue 43)
#: linalg_vector_norm's values: torch accumulates float32 in float32 and float64 in
#: float64, one element after another; reftensor sums in float64 (NumPy's pairwise order)
#: and rounds once. Measured on random inputs of up to 24 elements per result: float32 up
#: to 5 ulps (ord 0.5: the final power doubles the sum's error), float64 up to 6;
#: float16/bfloat16 1 (torch's float32 sum rounded once). A smaller |ord| multiplies the
#: sum's error by 1/|ord| (no |ord| below 0.5 is drawn for that reason).
NORM_ULPS = 8
_NORM_ORDERS = st.sampled_from([2, 1, 0, 3, 0.5, 1.5, -1, -2.0, math.inf, -math.inf, True])


def vector_norm_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``linalg.vector_norm``: nothing, ``ord``, or ``ord`` and ``dim`` (with ``keepdim``),
    each maybe with ``dtype=`` (float64: wider than any input; float32 and float16 may
    narrow it, which torch refuses)."""
    choices = st.one_of(
        st.just({}), st.fixed_dictionaries({"ord": _NORM_ORDERS}),
        st.fixed_dictionaries({"ord": _NORM_ORDERS, "dim": _dim_list(shape)},
                              optional={"keepdim": st.booleans()}))
    dtype = _with({"dtype": st.sampled_from([DtypeName(n) for n in (
        "float64", "float32", "float16")])})
    return st.tuples(choices, dtype).map(lambda p: {**p[0], **p[1]})


def _vector_norm(lib: Any, *args: Any, **kwargs: Any) -> Any:
    return lib.linalg.vector_norm(*args, **kwargs)


OP_DB += [
    OpEntry("linalg_vector_norm", arguments=vector_norm_arguments,
            dtypes=strategies.FLOAT_NAMES, ulps=NORM_ULPS, errors={
        "an int64 input": lambda lib: _vector_norm(lib, lib.arange(3)),
        "an int64 input with dtype=": lambda lib: _vector_norm(lib, lib.arange(3),
                                                               dtype=lib.float32),
        "a bool input": lambda lib: _vector_norm(lib, lib.ones(3, dtype=lib.bool)),
        "an integer dtype=": lambda lib: _vector_norm(lib, lib.ones(3), dtype=lib.int64),
        "a narrower dtype=": lambda lib: _vector_norm(lib, lib.ones(3, dtype=lib.float64),
                                                      dtype=lib.float32),
        "bfloat16 to float16": lambda lib: _vector_norm(
            lib, lib.ones(3, dtype=lib.bfloat16), dtype=lib.float16),
        "a complex ord": lambda lib: _vector_norm(lib, lib.ones(3), 1j),
        "a string ord": lambda lib: _vector_norm(lib, lib.ones(3), "fro"),
        "inf over an empty tensor": lambda lib: _vector_norm(lib, lib.ones(0, 3), math.inf),
        "-1 over an empty tensor, dim=()": lambda lib: _vector_norm(lib, lib.ones(0, 3), -1,
                                                                    ()),
        "-inf over an empty dim": lambda lib: _vector_norm(lib, lib.ones(0, 3), -math.inf,
                                                           -2),
        "a dim twice": lambda lib: _vector_norm(lib, lib.ones(2, 3), 2, (0, -2)),
        "a dim out of range": lambda lib: _vector_norm(lib, lib.ones(2, 3), 2, 2),
        "out= of float64": lambda lib: _vector_norm(lib, lib.ones(2, 3),
                                                    out=lib.empty(0, dtype=lib.float64)),
        "out= of another dtype than dtype=": lambda lib: _vector_norm(
            lib, lib.ones(2, 3), dtype=lib.float64, out=lib.empty(0)),
        "out= with an input that requires grad": lambda lib: _vector_norm(
            lib, lib.ones(2, 3, requires_grad=True), out=lib.empty(0)),
        "norm: nuc of 1 dim": lambda lib: lib.norm(lib.ones(3), "nuc"),
        "norm: fro over 3 dims": lambda lib: lib.norm(lib.ones(2, 2, 2), "fro", (0, 1, 2)),
        "norm: an unknown order": lambda lib: lib.norm(lib.ones(2, 2), "abc"),
        "norm: nuc over the same dim twice": lambda lib: lib.norm(lib.ones(2, 2), "nuc",
                                                                  (0, -2)),
        "norm: nuc of an int64 matrix": lambda lib: lib.norm(lib.ones(2, 2, dtype=lib.int64),
                                                             "nuc"),
        "norm: nuc of a float16 matrix": lambda lib: lib.norm(
            lib.ones(2, 2, dtype=lib.float16), "nuc"),
        "norm: an int64 input": lambda lib: lib.norm(lib.arange(3)),
        "Tensor.norm: out=": lambda lib: lib.ones(3).norm(out=lib.empty(0)),
    }),
]


# ------------------------------------------------- quantile, nanquantile (chapter 4, issue 43)
_QUANTILES = st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 0.625, 0.9, 1.0])


@st.composite
def _quantile_q(draw: st.DrawFn) -> Any:
    """``q``: a float in [0, 1], or a 0-d or 1-d tensor of such (of the input's dtype,
    ``same_dtype``; maybe empty, maybe stepped)."""
    if draw(st.booleans()):
        return draw(_QUANTILES)
    shape = draw(st.sampled_from([(), (1,), (3,), (0,)]))
    step = draw(st.sampled_from([1, 2])) if shape else 1
    count = math.prod(shape)
    values = tuple(draw(st.lists(_QUANTILES, min_size=max(count * step, 1),
                                 max_size=max(count * step, 1))))
    stride = (step,) if shape else ()
    return strategies.TensorSpec(shape, stride, 0, "float32", values,
                                 "contiguous" if step == 1 else "stepped")


def quantile_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``q``, maybe ``dim`` (and ``keepdim``), maybe ``interpolation=``."""
    return st.tuples(
        st.one_of(st.fixed_dictionaries({"q": _quantile_q()}),
                  st.fixed_dictionaries({"q": _quantile_q(), "dim": st.one_of(
                      st.none(), _one_dim(shape))}, optional={"keepdim": st.booleans()})),
        _with({"interpolation": st.sampled_from(
            ["linear", "lower", "higher", "midpoint", "nearest"])}),
    ).map(lambda p: {**p[0], **p[1]})


def _quantile_errors(name: str) -> dict[str, Program]:
    f = lambda lib, *a, **k: getattr(lib, name)(*a, **k)  # noqa: E731
    return {
        "an empty input": lambda lib: f(lib, lib.ones(0), 0.5),
        "an empty dim": lambda lib: f(lib, lib.ones(2, 0), 0.5, 0),
        "q above 1": lambda lib: f(lib, lib.ones(3), 1.5),
        "q below 0": lambda lib: f(lib, lib.ones(3), -0.1),
        "q nan": lambda lib: f(lib, lib.ones(3), math.nan),
        "a tensor q above 1": lambda lib: f(lib, lib.ones(3), lib.tensor([0.5, 1.5])),
        "a tensor q of nan": lambda lib: f(lib, lib.ones(3), lib.tensor([math.nan])),
        "a q of 2 dims": lambda lib: f(lib, lib.ones(3), lib.tensor([[0.5]])),
        "a q of another dtype": lambda lib: f(lib, lib.ones(3),
                                              lib.tensor([0.5], dtype=lib.float64)),
        "an int64 input": lambda lib: f(lib, lib.arange(3), 0.5),
        "a float16 input": lambda lib: f(lib, lib.ones(3, dtype=lib.float16), 0.5),
        "an unknown interpolation": lambda lib: f(lib, lib.ones(3), 0.5, interpolation="x"),
        "a dim out of range": lambda lib: f(lib, lib.ones(2, 3), 0.5, 2),
        "a dim list": lambda lib: f(lib, lib.ones(2, 3), 0.5, (0, 1)),
        "out= of float64": lambda lib: f(lib, lib.ones(3), 0.5,
                                         out=lib.empty(0, dtype=lib.float64)),
        "out= of float64, q a tensor": lambda lib: f(lib, lib.ones(3), lib.tensor([0.5]),
                                                     out=lib.empty(0, dtype=lib.float64)),
    }


OP_DB += [
    OpEntry("quantile", arguments=quantile_arguments, dtypes=("float32", "float64"),
            same_dtype=("q",), errors=_quantile_errors("quantile")),
    OpEntry("nanquantile", arguments=quantile_arguments, dtypes=("float32", "float64"),
            same_dtype=("q",), values=_WITH_NAN, errors=_quantile_errors("nanquantile")),
]


# ---------------------------------------------- unique, unique_consecutive (chapter 4, issue 43)
def unique2_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``_unique2``: ``sorted``, ``return_inverse``, ``return_counts`` (some, in order)."""
    return _with({"sorted": st.booleans(), "return_inverse": st.booleans(),
                  "return_counts": st.booleans()})


def unique_consecutive_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``unique_consecutive``: ``return_inverse``, ``return_counts``, maybe a ``dim`` (in
    the schema's order: the op is called positionally)."""
    return st.tuples(st.booleans(), st.booleans(), st.one_of(
        st.just({}), _one_dim(shape).map(lambda d: {"dim": d}))).map(
        lambda p: {"return_inverse": p[0], "return_counts": p[1], **p[2]})


#: repeated values, nan and -0.0 among them, so that runs and duplicates are common
_REPEATED = st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.0, float("nan")])

OP_DB += [
    OpEntry("_unique2", arguments=unique2_arguments, grad=False, errors={
        "a meta tensor": lambda lib: lib._unique2(lib.ones(3, device="meta")),
        "backward": lambda lib: lib.unique(lib.ones(3, requires_grad=True)).sum().backward(),
        "unique: a dim out of range": lambda lib: lib.unique(lib.ones(2, 3), dim=2),
        "unique: a dim of a 0-d tensor": lambda lib: lib.unique(lib.ones(()), dim=0),
        "unique: a size-0 dim not selected": lambda lib: lib.unique(lib.ones(2, 0), dim=0),
        "unique: two size-0 dims": lambda lib: lib.unique(lib.ones(0, 0), dim=0),
        "unique: backward through unique_dim": lambda lib: lib.unique(
            lib.ones(3, requires_grad=True), dim=0).sum().backward(),
    }),
    OpEntry("unique_consecutive", arguments=unique_consecutive_arguments, grad=False,
            values=_REPEATED, errors={
        "a dim out of range": lambda lib: lib.unique_consecutive(lib.ones(2, 3), dim=2),
        "a size-0 dim not selected": lambda lib: lib.unique_consecutive(lib.ones(2, 0), dim=0),
        "a dim of a 0-d tensor": lambda lib: lib.unique_consecutive(lib.ones(()), dim=0),
        "backward": lambda lib: lib.unique_consecutive(
            lib.ones(3, requires_grad=True)).sum().backward(),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------ det, inv, solve (torch.linalg, issue 43)
#: Square matrices of 0 or 1 rows under 0 to 2 batch dims. The values of larger matrices
#: depend on the rounding order of the LU factorization (LAPACK's blocked code in torch,
#: NumPy's loop in reftensor: measured up to ~120 ulps of the largest element on
#: well-conditioned matrices, unbounded on near-singular ones, and which singular matrices
#: have a zero pivot differs now and then): they are compared through torch's OpInfo
#: samples (well-conditioned matrices up to 5x5, tests/test_opinfo.py), not drawn here.
_SQUARE_SHAPES = st.tuples(st.integers(0, 2), st.sampled_from([0, 1])).flatmap(
    lambda p: _matrix_shapes(p[0]).map(lambda batch: (*batch, p[1], p[1])))


@st.composite
def solve_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, ex: bool = False
                    ) -> dict[str, Any]:
    """``B``: a vector (``(*, n)`` or ``(n,)``) or a batch of matrices ``(*, n, k)`` (its
    batch a suffix of ``A``'s, sizes 1 broadcasting), ``left=False`` now and then (then
    ``(*, k, n)``), and for ``solve_ex`` ``check_errors`` now and then."""
    n, batch = shape[-1], shape[:-2]
    left = draw(st.integers(0, 3)) != 0
    if left and draw(st.integers(0, 2)) == 0:
        b_shape = (n,) if draw(st.booleans()) else (*batch, n)
    else:
        cut = draw(st.integers(0, len(batch)))
        b_batch = tuple(s if draw(st.integers(0, 3)) else 1 for s in batch[cut:])
        k = draw(st.integers(0, 2))
        b_shape = (*b_batch, n, k) if left else (*b_batch, k, n)
    found: dict[str, Any] = {"B": draw(strategies.tensors(shape=b_shape))}
    if not left:
        found["left"] = False
    if ex and draw(st.integers(0, 3)) == 0:
        found["check_errors"] = True
    return found


def _inv_ex_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([{}, {"check_errors": True}])


OP_DB += [
    OpEntry("linalg_det", shapes=_SQUARE_SHAPES, errors={
        "a vector": lambda lib: lib.linalg.det(lib.ones(3)),
        "not square": lambda lib: lib.linalg.det(lib.ones(2, 3)),
        "int64": lambda lib: lib.linalg.det(lib.ones(2, 2, dtype=lib.int64)),
        "float16": lambda lib: lib.linalg.det(lib.ones(2, 2, dtype=lib.float16)),
        "out= of float64": lambda lib: lib.linalg.det(lib.ones(2, 2),
                                                      out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.linalg.det(
            lib.ones(2, 2, requires_grad=True), out=lib.empty(0)),
    }),
    OpEntry("det", shapes=_SQUARE_SHAPES, errors={
        "not square": lambda lib: lib.det(lib.ones(2, 3)),
        "bool": lambda lib: lib.ones(2, 2, dtype=lib.bool).det(),
    }),
    OpEntry("_linalg_det", shapes=_SQUARE_SHAPES, errors={
        "a 0-d tensor": lambda lib: lib._linalg_det(lib.tensor(1.0)),
        "out= pivots of int64": lambda lib: lib._linalg_det(
            lib.ones(2, 2), out=(lib.empty(0), lib.empty(0), lib.empty(0, dtype=lib.int64))),
    }),
    OpEntry("linalg_inv_ex", arguments=_inv_ex_arguments, shapes=_SQUARE_SHAPES, errors={
        "not square": lambda lib: lib.linalg.inv_ex(lib.ones(2, 3)),
        "float16": lambda lib: lib.linalg.inv_ex(lib.ones(2, 2, dtype=lib.float16)),
        "bfloat16 on meta": lambda lib: lib.linalg.inv_ex(
            lib.ones(2, 2, dtype=lib.bfloat16, device="meta")),
        "out= info of int64": lambda lib: lib.linalg.inv_ex(
            lib.ones(2, 2), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
        "a singular matrix, check_errors=True": lambda lib: lib.linalg.inv_ex(
            lib.zeros(2, 3, 3), check_errors=True),
    }),
    OpEntry("linalg_inv", shapes=_SQUARE_SHAPES, errors={
        "a vector": lambda lib: lib.linalg.inv(lib.ones(3)),
        "int64": lambda lib: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64)),
        "out= of float64": lambda lib: lib.linalg.inv(lib.eye(2),
                                                      out=lib.empty(0, dtype=lib.float64)),
        "a singular matrix": lambda lib: lib.linalg.inv(lib.zeros(3, 3)),
        "a singular batch element": lambda lib: lib.linalg.inv(
            lib.stack([lib.eye(2), lib.ones(2, 2)])),
        "a singular matrix, out=": lambda lib: lib.linalg.inv(lib.ones(2, 2),
                                                              out=lib.empty(0)),
    }),
    OpEntry("inverse", shapes=_SQUARE_SHAPES, errors={
        "not square": lambda lib: lib.inverse(lib.ones(3, 2)),
        "bool": lambda lib: lib.ones(2, 2, dtype=lib.bool).inverse(),
        "a singular matrix": lambda lib: lib.tensor([[1.0, 2.0], [2.0, 4.0]]).inverse(),
    }),
    OpEntry("linalg_solve", arguments=solve_arguments, shapes=_SQUARE_SHAPES,
            same_dtype=True, errors={
        "B of another dtype": lambda lib: lib.linalg.solve(lib.eye(3),
                                                           lib.ones(3, dtype=lib.float64)),
        "int64": lambda lib: lib.linalg.solve(lib.eye(3, dtype=lib.int64),
                                              lib.ones(3, dtype=lib.int64)),
        "a 0-d B": lambda lib: lib.linalg.solve(lib.eye(3), lib.tensor(1.0)),
        "rows that do not match": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(4)),
        "columns that do not match": lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3, 2),
                                                                  left=False),
        "a vector with left=False": lambda lib: lib.linalg.solve(lib.eye(1), lib.ones(1),
                                                                 left=False),
        "batches that do not broadcast": lambda lib: lib.linalg.solve(
            lib.eye(3).expand(2, 3, 3), lib.ones(4, 3, 1)),
        "float16": lambda lib: lib.linalg.solve(lib.eye(2, dtype=lib.float16),
                                                lib.ones(2, dtype=lib.float16)),
        "out= of float64": lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(2),
                                                        out=lib.empty(0, dtype=lib.float64)),
        "a singular A": lambda lib: lib.linalg.solve(lib.zeros(3, 3), lib.ones(3)),
        "a singular batch element": lambda lib: lib.linalg.solve(
            lib.stack([lib.eye(2), lib.zeros(2, 2)]), lib.ones(2, 2)),
        "a singular A, out=": lambda lib: lib.linalg.solve(lib.zeros(2, 2), lib.ones(2),
                                                           out=lib.empty(0)),
    }),
    OpEntry("linalg_solve_ex", arguments=lambda s: solve_arguments(s, ex=True),
            shapes=_SQUARE_SHAPES, same_dtype=True, errors={
        "not square": lambda lib: lib.linalg.solve_ex(lib.ones(2, 3), lib.ones(2)),
        "a vector A": lambda lib: lib.linalg.solve_ex(lib.ones(3), lib.ones(3)),
        "a singular A, check_errors=True": lambda lib: lib.linalg.solve_ex(
            lib.zeros(3, 3), lib.ones(3), check_errors=True),
    }),
    OpEntry("_linalg_solve_ex", arguments=solve_arguments, shapes=_SQUARE_SHAPES,
            same_dtype=True, errors={
        "B of another dtype": lambda lib: lib._linalg_solve_ex(lib.eye(2),
                                                               lib.ones(2, dtype=lib.int64)),
    }),
]

@st.composite
def matrix_norm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``ord`` ("fro", 1, -1, inf, -inf; left out now and then: "fro"; not 2, -2 and "nuc",
    whose gradients at the drawn rank-deficient matrices are not unique: LAPACK's choice of
    null-space vectors, MKL's not OpenBLAS's; linalg_svdvals' entry draws their values,
    the OpInfo samples their gradients), two different dims
    (negative now and then; left out now and then: the last two) and ``keepdim``."""
    found: dict[str, Any] = {}
    if draw(st.integers(0, 4)):
        found["ord"] = draw(st.sampled_from(["fro", 1, -1, math.inf, -math.inf]))
    else:
        return found
    n = len(shape)
    if draw(st.integers(0, 2)):
        first, second = draw(st.permutations(range(n)))[:2]
        found["dim"] = tuple(d - n if draw(st.booleans()) else d for d in (first, second))
    found["keepdim"] = draw(st.booleans())
    return found


OP_DB += [
    OpEntry("linalg_matrix_norm", arguments=matrix_norm_arguments, ulps=NORM_ULPS,
            shapes=st.integers(2, 3).flatmap(_matrix_shapes), errors={
        "a vector": lambda lib: lib.linalg.matrix_norm(lib.ones(3)),
        "int64": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.int64)),
        "an order 3": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), 3),
        "an unknown string order": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), "abc"),
        "the same dim twice": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), 1, (0, -2)),
        "three dims": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, 2), "fro", (0, 1, 2)),
        "a dim out of range": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), 1, (0, 2)),
        "float16 for ord 2": lambda lib: lib.linalg.matrix_norm(
            lib.ones(2, 2, dtype=lib.float16), 2),
        "out= of float64": lambda lib: lib.linalg.matrix_norm(
            lib.ones(2, 2), out=lib.empty(0, dtype=lib.float64)),
    }),
]


@st.composite
def linalg_norm_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``dim`` left out, one dim (an int or a 1-tuple) or two different dims; ``ord`` left
    out now and then, else a vector or matrix order or one the chosen norm refuses (0 and
    3 for a matrix, a string over one dim); 2, -2 and "nuc" only over one dim (their
    matrix gradients at drawn rank-deficient matrices are not unique: see
    ``matrix_norm_arguments``); ``keepdim``."""
    found: dict[str, Any] = {}
    n = len(shape)
    kind = draw(st.sampled_from(["none", "one", "two"]))
    if kind == "one" and n >= 1:
        d = draw(st.integers(-n, n - 1))
        found["dim"] = d if draw(st.booleans()) else (d,)
    elif kind == "two" and n >= 2:
        first, second = draw(st.permutations(range(n)))[:2]
        found["dim"] = (first, second - n if draw(st.booleans()) else second)
    dim = found.get("dim")
    matrix = (isinstance(dim, tuple) and len(dim) == 2) or (dim is None and n == 2)
    if draw(st.integers(0, 3)):
        orders: list[Any] = ["fro", 1, -1, math.inf, -math.inf, 0, 3]
        found["ord"] = draw(st.sampled_from(orders if matrix else [*orders, 2, -2, 0.5]))
    found["keepdim"] = draw(st.booleans())
    return found


OP_DB += [
    OpEntry("linalg_norm", arguments=linalg_norm_arguments, ulps=NORM_ULPS,
            shapes=st.integers(0, 3).flatmap(_matrix_shapes), errors={
        "three dims": lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), 1, (0, 1, 2)),
        "no dims": lambda lib: lib.linalg.norm(lib.ones(2, 2), dim=()),
        "an order without dim, 3-d": lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), 2),
        "a string order without dim, 0-d": lambda lib: lib.linalg.norm(lib.tensor(1.0), "fro"),
        "a string order over one dim": lambda lib: lib.linalg.norm(lib.ones(2, 2), "fro", 1),
        "int64": lambda lib: lib.linalg.norm(lib.ones(2, 2, dtype=lib.int64)),
        "int64, an order": lambda lib: lib.linalg.norm(lib.ones(2, 2, dtype=lib.int64), 1),
        "an order 3 of a matrix": lambda lib: lib.linalg.norm(lib.ones(2, 2), 3),
        "float16, ord 2 of a matrix": lambda lib: lib.linalg.norm(
            lib.ones(2, 2, dtype=lib.float16), 2),
        "out= of float64": lambda lib: lib.linalg.norm(lib.ones(2, 2),
                                                       out=lib.empty(0, dtype=lib.float64)),
        "out= of float64, a string order": lambda lib: lib.linalg.norm(
            lib.ones(2, 2), "nuc", out=lib.empty(0, dtype=lib.float64)),
    }),
]


#: the singular value decomposition's values (S, and U diag(S) Vh) within this many ulps of
#: torch's largest (LAPACK's gesdd in OpenBLAS and in MKL; measured: see linalg_svd.py)
SVD_ULPS = 64
_SVD_SHAPES = st.integers(2, 4).flatmap(
    lambda n: st.lists(st.integers(0, 4), min_size=n, max_size=n).map(tuple))


@st.composite
def svd_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, first: str = "full_matrices",
                  compute_uv: bool = False) -> dict[str, Any]:
    """``full_matrices`` (``some`` for the legacy ``svd``) and ``compute_uv`` now and then."""
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found[first] = draw(st.booleans())
        if compute_uv and draw(st.booleans()):
            found["compute_uv"] = draw(st.booleans())
    return found


def _svd_form(result: Any) -> Any:
    return linalg_compare.svd_compared(result, vectors=False)


OP_DB += [
    # (no gradient here: at the drawn matrices of repeated rows or values, rank-deficient,
    # U diag(gS) Vh holds null-space vectors that LAPACK chooses freely, MKL otherwise than
    # OpenBLAS; the OpInfo samples, of distinct singular values, compare the gradient)
    OpEntry("linalg_svdvals", dtypes=strategies.FLOAT_NAMES, ulps=SVD_ULPS, grad=False,
            shapes=_SVD_SHAPES, errors={
        "a vector": lambda lib: lib.linalg.svdvals(lib.ones(3)),
        "int64": lambda lib: lib.linalg.svdvals(lib.ones(2, 2, dtype=lib.int64)),
        "a driver on the CPU": lambda lib: lib.linalg.svdvals(lib.ones(2, 2), driver="gesvd"),
        "a NaN": lambda lib: lib.linalg.svdvals(lib.tensor([[1.0, math.nan]])),
        "a NaN in a batch": lambda lib: lib.linalg.svdvals(lib.tensor([[[1.0]], [[math.nan]]])),
        "out= of float64": lambda lib: lib.linalg.svdvals(lib.ones(2, 2),
                                                          out=lib.empty(0, dtype=lib.float64)),
    }),
    OpEntry("linalg_svd", arguments=svd_arguments, dtypes=strategies.FLOAT_NAMES,
            ulps=SVD_ULPS, shapes=_SVD_SHAPES, compared=_svd_form, errors={
        "a 0-d tensor": lambda lib: lib.linalg.svd(lib.tensor(1.0)),
        "bool": lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.bool)),
        "out= S of float64": lambda lib: lib.linalg.svd(
            lib.ones(2, 2), out=(lib.empty(0), lib.empty(0, dtype=lib.float64), lib.empty(0))),
        "out= with an input that requires grad": lambda lib: lib.linalg.svd(
            lib.ones(2, 2, requires_grad=True), out=(lib.empty(0), lib.empty(0), lib.empty(0))),
    }),
    OpEntry("_linalg_svd", arguments=lambda s: svd_arguments(s, compute_uv=True),
            dtypes=strategies.FLOAT_NAMES, ulps=SVD_ULPS, shapes=_SVD_SHAPES,
            compared=_svd_form, errors={
        "int32": lambda lib: lib._linalg_svd(lib.ones(2, 2, dtype=lib.int32)),
        "float16": lambda lib: lib._linalg_svd(lib.ones(2, 2, dtype=lib.float16)),
    }),
    OpEntry("svd", arguments=lambda s: svd_arguments(s, first="some", compute_uv=True),
            dtypes=strategies.FLOAT_NAMES, ulps=SVD_ULPS, shapes=_SVD_SHAPES,
            compared=lambda r: linalg_compare.svd_compared(r, legacy=True, vectors=False),
            errors={
        "a vector": lambda lib: lib.svd(lib.ones(3)),
        "a vector, compute_uv=False": lambda lib: lib.ones(3).svd(compute_uv=False),
        "int64": lambda lib: lib.ones(2, 2, dtype=lib.int64).svd(),
        "a NaN": lambda lib: lib.svd(lib.tensor([[math.nan, 1.0], [1.0, 1.0]])),
        "out= U of float64, compute_uv=False": lambda lib: lib.svd(
            lib.ones(2, 2), compute_uv=False,
            out=(lib.empty(0, dtype=lib.float64), lib.empty(0), lib.empty(0))),
    }),
]


BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------ cholesky, linalg.cholesky(_ex) (torch.linalg, issue 43)
#: Square matrices of 0 or 1 rows under 0 to 2 batch dims, of any values (most are not
#: positive-definite: ``info`` and LAPACK's partial factor are compared as often as a
#: factor). Larger matrices are compared through torch's OpInfo samples (positive-definite
#: ones, tests/test_opinfo.py), not drawn here: on a drawn matrix that is singular and
#: positive semi-definite (``[[6, 6], [6, 6]]`` in float32, found by the thorough profile)
#: the last number under the square root is 0 up to rounding, and whether it comes out
#: positive depends on MKL's order of operations, which reftensor's loop does not share.
#: Measured on 1,200 factorizations of generated matrices (sizes 0-8, batches, float32 and
#: float64, upper and lower; well- and badly conditioned positive-definite ones and
#: indefinite ones): ``info`` agreed on all, the factor of well-conditioned matrices was
#: within 1 ulp of its largest element of torch's, partial factors within 12 (float32);
#: badly conditioned ones (condition 1e6 / 1e12) differ as their condition allows (up to
#: 805 / 1.7e6 ulps of the largest element).
_CHOLESKY_SHAPES = st.tuples(st.integers(0, 2), st.sampled_from([0, 1])).flatmap(
    lambda p: _matrix_shapes(p[0]).map(lambda batch: (*batch, p[1], p[1])))
CHOLESKY_ULPS = 16


@st.composite
def _cholesky_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, ex: bool = False,
                        legacy: bool = False) -> dict[str, Any]:
    """``upper`` now and then; ``check_errors`` now and then for ``cholesky_ex``."""
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["upper"] = draw(st.booleans())
    if ex and draw(st.integers(0, 3)) == 0:
        found["check_errors"] = True
    return found


OP_DB += [
    OpEntry("linalg_cholesky_ex", arguments=lambda s: _cholesky_arguments(s, ex=True),
            shapes=_CHOLESKY_SHAPES, ulps=CHOLESKY_ULPS, errors={
        "a vector": lambda lib: lib.linalg.cholesky_ex(lib.ones(3)),
        "not square": lambda lib: lib.linalg.cholesky_ex(lib.ones(2, 3)),
        "int64": lambda lib: lib.linalg.cholesky_ex(lib.ones(2, 2, dtype=lib.int64)),
        "float16": lambda lib: lib.linalg.cholesky_ex(lib.eye(2, dtype=lib.float16)),
        "out= L of float64": lambda lib: lib.linalg.cholesky_ex(
            lib.eye(2), out=(lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))),
        "out= info of int64": lambda lib: lib.linalg.cholesky_ex(
            lib.eye(2), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
        "not positive-definite, check_errors=True": lambda lib: lib.linalg.cholesky_ex(
            -lib.eye(2), check_errors=True),
        "a batch element not positive-definite, check_errors=True":
            lambda lib: lib.linalg.cholesky_ex(lib.stack([lib.eye(2), lib.ones(2, 2)]),
                                               check_errors=True),
    }),
    OpEntry("linalg_cholesky", arguments=_cholesky_arguments, shapes=_CHOLESKY_SHAPES,
            ulps=CHOLESKY_ULPS, errors={
        "a 0-d tensor": lambda lib: lib.linalg.cholesky(lib.tensor(1.0)),
        "bool": lambda lib: lib.linalg.cholesky(lib.ones(2, 2, dtype=lib.bool)),
        "bfloat16": lambda lib: lib.linalg.cholesky(lib.eye(2, dtype=lib.bfloat16)),
        "out= of float64": lambda lib: lib.linalg.cholesky(lib.eye(2),
                                                           out=lib.empty(0, dtype=lib.float64)),
        "out= with an input that requires grad": lambda lib: lib.linalg.cholesky(
            lib.eye(2, requires_grad=True), out=lib.empty(0)),
        "not positive-definite": lambda lib: lib.linalg.cholesky(
            lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
        "not positive-definite, upper": lambda lib: lib.linalg.cholesky(
            lib.tensor([[1.0, 2.0], [2.0, 1.0]]), upper=True),
        "nan": lambda lib: lib.linalg.cholesky(lib.full((2, 2), float("nan"))),
        "a batch element not positive-definite, out=": lambda lib: lib.linalg.cholesky(
            lib.stack([lib.eye(2), -lib.eye(2)]), out=lib.empty(0)),
    }),
    OpEntry("cholesky", arguments=lambda s: _cholesky_arguments(s, legacy=True),
            shapes=_CHOLESKY_SHAPES, ulps=CHOLESKY_ULPS, errors={
        "a vector": lambda lib: lib.cholesky(lib.ones(3)),
        "not square": lambda lib: lib.ones(2, 3).cholesky(),
        "int64": lambda lib: lib.cholesky(lib.ones(2, 2, dtype=lib.int64)),
        "float16": lambda lib: lib.cholesky(lib.eye(2, dtype=lib.float16)),
        "not positive-definite": lambda lib: lib.cholesky(-lib.eye(3)),
        "a batch element not positive-definite": lambda lib: lib.cholesky(
            lib.stack([lib.eye(2), lib.zeros(2, 2)])),
        "out= of int64": lambda lib: lib.cholesky(lib.eye(2), out=lib.empty(0, dtype=lib.int64)),
        "a string upper": lambda lib: lib.cholesky(lib.eye(2), "yes"),
    }),
]

BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------- qr, linalg.qr (torch.linalg, issue 43)
#: Matrices of 0 to 3 rows and columns, one of them at most 1 (so at most one reflection),
#: under 0 to 2 batch dims, of any values. With two or more reflections a matrix of lower
#: rank (drawn often: expanded and overlapping layouts, repeated values) leaves columns that
#: are zero only up to rounding, which one library reflects and the other does not (the
#: thorough profile found ones((1, 3, 2)): torch's second column of Q is H(0)'s, reftensor's
#: a reflection of rounding noise); larger matrices are compared through torch's OpInfo
#: samples (full rank, tests/test_opinfo.py). Measured on 1,200 factorizations of generated
#: matrices (sizes 0-8 by 0-8, batches, float32 and float64, modes reduced and complete):
#: the signs of R's diagonal agreed with torch's on all 3,854 entries (the same Householder
#: reflections as LAPACK's: no sign normalisation needed); full-rank well-conditioned ones
#: were within 15 ulps (float32) / 9 (float64) of the largest element for Q, 9 / 5 for R;
#: badly conditioned ones (singular values down to 1e-6 / 1e-12) within 25 / 19 for R, Q's
#: trailing columns as far apart as their conditioning allows, Q R within 6 eps of A.
_QR_SHAPES = st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1),
                       st.booleans()).flatmap(
    lambda p: _matrix_shapes(p[0]).map(
        lambda batch: (*batch, p[1], p[2]) if p[3] else (*batch, p[2], p[1])))
QR_ULPS = 64


def _qr_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([{}, {"mode": "reduced"}, {"mode": "complete"}, {"mode": "r"}])


def _legacy_qr_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([{}, {"some": True}, {"some": False}])


OP_DB += [
    OpEntry("linalg_qr", arguments=_qr_arguments, shapes=_QR_SHAPES, ulps=QR_ULPS, errors={
        "a vector": lambda lib: lib.linalg.qr(lib.ones(3)),
        "int64": lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.int64)),
        "float16": lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.float16)),
        "an empty bfloat16": lambda lib: lib.linalg.qr(lib.ones(0, 2, dtype=lib.bfloat16)),
        "an unknown mode": lambda lib: lib.linalg.qr(lib.ones(2, 2), mode="full"),
        "an unknown mode, int64": lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.int64),
                                                            mode="full"),
        "a mode that is not a string": lambda lib: lib.linalg.qr(lib.ones(2, 2), mode=True),
        "out= Q of float64": lambda lib: lib.linalg.qr(
            lib.ones(2, 2), out=(lib.empty(0, dtype=lib.float64), lib.empty(0))),
        "out= with an input that requires grad": lambda lib: lib.linalg.qr(
            lib.ones(2, 2, requires_grad=True), out=(lib.empty(0), lib.empty(0))),
        "backward of mode='r'": lambda lib: lib.linalg.qr(
            lib.eye(2, requires_grad=True), mode="r")[1].sum().backward(),
        "backward of mode='complete', more rows": lambda lib: lib.linalg.qr(
            lib.ones(3, 2, requires_grad=True), mode="complete")[0].sum().backward(),
    }),
    OpEntry("qr", arguments=_legacy_qr_arguments, shapes=_QR_SHAPES, ulps=QR_ULPS, errors={
        "a 0-d tensor": lambda lib: lib.qr(lib.tensor(1.0)),
        "bool": lambda lib: lib.ones(2, 2, dtype=lib.bool).qr(),
        "bfloat16": lambda lib: lib.qr(lib.ones(2, 2, dtype=lib.bfloat16)),
        "out= R of float64": lambda lib: lib.qr(
            lib.ones(2, 2), out=(lib.empty(0), lib.empty(0, dtype=lib.float64))),
        "some as a string": lambda lib: lib.qr(lib.ones(2, 2), "reduced"),
    }),
]

# ------------------------------------------------------------------ eigh (eigh.py)
@st.composite
def eigh_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, compute_v: bool = False
                   ) -> dict[str, Any]:
    """``UPLO`` left out, "L", "U" or "u" (read in either case); for ``_linalg_eigh``
    ``compute_v`` now and then."""
    found: dict[str, Any] = {}
    uplo = draw(st.sampled_from([None, "L", "U", "u"]))
    if uplo is not None:
        found["UPLO"] = uplo
    if compute_v and draw(st.booleans()):
        found["compute_v"] = False
    return found


#: the eigenvalues: NumPy's syevd (OpenBLAS) against MKL's, within 7 ulps of the largest
#: magnitude measured on 400 random symmetric matrices (sizes 1 to 8, float32 and float64,
#: well and badly conditioned)
EIGH_ULPS = 8
_EIGH_ERRORS: dict[str, Program] = {
    "a vector": lambda lib: lib.linalg.eigh(lib.ones(3)),
    "not square": lambda lib: lib.linalg.eigh(lib.ones(2, 3)),
    "int64": lambda lib: lib.linalg.eigh(lib.ones(2, 2, dtype=lib.int64)),
    "float16": lambda lib: lib.linalg.eigh(lib.ones(2, 2, dtype=lib.float16)),
    "not square on meta": lambda lib: lib.linalg.eigh(lib.ones(2, 3, device="meta")),
    "UPLO 'X'": lambda lib: lib.linalg.eigh(lib.eye(2), "X"),
    "UPLO 'LU'": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="LU"),
    "UPLO ''": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO=""),
    "out= eigenvalues of float64": lambda lib: lib.linalg.eigh(
        lib.eye(2), out=(lib.empty(0, dtype=lib.float64), lib.empty(0))),
    "out= eigenvectors of int64": lambda lib: lib.linalg.eigh(
        lib.eye(2), out=(lib.empty(0), lib.empty(0, dtype=lib.int64))),
    "out= one tensor": lambda lib: lib.linalg.eigh(lib.eye(2), out=lib.empty(0)),
}
OP_DB += [
    # eigenvectors are LAPACK's up to sign (tests/linalg_compare.py; torch's OpInfo samples
    # compare them so, tests/test_opinfo.py): drawn here as 0x0 and 1x1 matrices, whose
    # eigenvector is 1 in both libraries (layouts, meta, out=, gradients, errors)
    OpEntry("linalg_eigh", arguments=eigh_arguments, shapes=_SQUARE_SHAPES,
            dtypes=strategies.FLOAT_NAMES, ulps=EIGH_ULPS, errors=_EIGH_ERRORS),
    OpEntry("_linalg_eigh", arguments=lambda s: eigh_arguments(s, compute_v=True),
            shapes=_SQUARE_SHAPES, dtypes=strategies.FLOAT_NAMES, ulps=EIGH_ULPS, errors={
        "a 0-d tensor": lambda lib: lib._linalg_eigh(lib.tensor(1.0)),
        "UPLO 'x' without eigenvectors": lambda lib: lib._linalg_eigh(lib.eye(2), "x", False),
    }),
    # eigenvalues alone: any square matrix (its lower or upper triangle)
    OpEntry("linalg_eigvalsh", arguments=eigh_arguments, shapes=_square_shapes(),
            dtypes=("float32", "float64"), ulps=EIGH_ULPS, grad=False, errors={
        "not square": lambda lib: lib.linalg.eigvalsh(lib.ones(3, 2)),
        "bfloat16": lambda lib: lib.linalg.eigvalsh(lib.ones(2, 2, dtype=lib.bfloat16)),
        "UPLO 'X'": lambda lib: lib.linalg.eigvalsh(lib.eye(2), "X"),
        "out= of float64": lambda lib: lib.linalg.eigvalsh(
            lib.eye(2), out=lib.empty(0, dtype=lib.float64)),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------------------------------------ cdist (distance.py)
_CDIST_PS = [0.0, 1.0, 2.0, 0.5, 1.5, 3.0, math.inf]


@st.composite
def cdist_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, forward: bool = False
                    ) -> dict[str, Any]:
    """``x2``: rows of ``x1``'s column count, its batch a suffix of ``x1``'s (sizes 1
    broadcasting); ``p`` (0, 1, 2, fractional, 3, inf) and ``compute_mode`` (None, 1: the
    matrix product for ``p`` 2, 2) left out now and then where the op has defaults."""
    batch, c = shape[:-2], shape[-1]
    cut = draw(st.integers(0, len(batch)))
    x2_batch = tuple(s if draw(st.integers(0, 3)) else 1 for s in batch[cut:])
    found: dict[str, Any] = {"x2": draw(strategies.tensors(
        shape=(*x2_batch, draw(_SIZES), c)))}
    if forward or draw(st.integers(0, 3)):
        found["p"] = draw(st.sampled_from(_CDIST_PS))
        if forward or draw(st.booleans()):
            found["compute_mode"] = draw(st.sampled_from([None, 0, 1, 2]))
    return found


def euclidean_dist_arguments(shape: tuple[int, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """``x2``: rows of ``x1``'s column count, ``x1``'s batch or none."""
    return st.tuples(st.booleans(), _SIZES).flatmap(lambda b: strategies.tensors(
        shape=(*(shape[:-2] if b[0] else ()), b[1], shape[-1]))).map(lambda t: {"x2": t})


@st.composite
def cdist_backward_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """For ``grad`` of ``(*, r1, r2)``: ``x1`` ``(*, r1, c)``, ``x2`` ``(r2, c)`` or
    ``(*, r2, c)``, ``p``, and ``cdist`` of ``grad``'s shape (any distances: the kernel
    only reads them)."""
    c = draw(_SIZES)
    batch, r1, r2 = shape[:-2], shape[-2], shape[-1]
    x2_shape = (*(batch if draw(st.booleans()) else ()), r2, c)
    return {"x1": draw(strategies.tensors(shape=(*batch, r1, c))),
            "x2": draw(strategies.tensors(shape=x2_shape)),
            "p": draw(st.sampled_from(_CDIST_PS)),
            "cdist": draw(strategies.tensors(shape=shape))}


#: the direct kernel sums in torch's order, in the dtype: measured within 2 ulps of the
#: largest distance (float32 and float64, every p, 300 random cases; gradients within 3);
#: the matrix product path is matmul's (an ulp or so from MKL's), but the square root of a
#: difference that cancels to rounding noise (two nearly equal rows) is not comparable in
#: ulps: torch's OpInfo samples (random rows) run it too
CDIST_ULPS = 8
_CDIST_ERRORS: dict[str, Program] = {
    "a 1-d x1": lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)),
    "a 1-d x2": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(3)),
    "columns that differ": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)),
    "int64": lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.int64),
                                   lib.ones(2, 3, dtype=lib.int64)),
    "an empty int64 x1": lambda lib: lib.cdist(lib.ones(0, 3, dtype=lib.int64),
                                               lib.ones(2, 3)),
    "a negative p": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1.0),
    "an unknown compute_mode": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3),
                                                     compute_mode="fast"),
    "float16": lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.float16),
                                     lib.ones(2, 3, dtype=lib.float16)),
    "float32 and float64": lambda lib: lib.cdist(lib.ones(2, 3),
                                                 lib.ones(2, 3, dtype=lib.float64)),
    "float32 and float64, matrix products": lambda lib: lib.cdist(
        lib.ones(30, 3), lib.ones(2, 3, dtype=lib.float64)),
    "batches that do not broadcast": lambda lib: lib.cdist(lib.ones(2, 2, 3),
                                                           lib.ones(3, 2, 3)),
}
OP_DB += [
    OpEntry("cdist", arguments=cdist_arguments, dtypes=("float32", "float64"),
            shapes=st.integers(2, 3).flatmap(_matrix_shapes), same_dtype=True,
            ulps=CDIST_ULPS, errors=_CDIST_ERRORS),
    OpEntry("_cdist_forward", arguments=lambda s: cdist_arguments(s, forward=True),
            dtypes=("float32", "float64"), shapes=st.integers(2, 3).flatmap(_matrix_shapes),
            same_dtype=True, ulps=CDIST_ULPS, errors={
        "a mode 3": lambda lib: _aten(lib)._cdist_forward(lib.ones(2, 3), lib.ones(2, 3),
                                                           2.0, 3),
        "a mode 3 on meta": lambda lib: _aten(lib)._cdist_forward(
            lib.ones(2, 3, device="meta"), lib.ones(2, 3, device="meta"), 2.0, 3),
        "int64 x2 on meta": lambda lib: _aten(lib)._cdist_forward(
            lib.ones(2, 3, device="meta"), lib.ones(2, 3, dtype=lib.int64, device="meta"),
            2.0, None),
    }),
    OpEntry("_euclidean_dist", arguments=euclidean_dist_arguments,
            dtypes=("float32", "float64"), shapes=st.integers(2, 3).flatmap(_matrix_shapes),
            same_dtype=True, ulps=CDIST_ULPS),
    OpEntry("_cdist_backward", arguments=cdist_backward_arguments,
            dtypes=("float32", "float64"), shapes=st.integers(2, 3).flatmap(_matrix_shapes),
            same_dtype=True, ulps=CDIST_ULPS),
]
# --- pooling (chapter 10, the capstone; issue 45) ------------------------------------------
#: pooling inputs: (N, C, H, W) with N possibly 0, or (C, H, W); planes up to 5x5
_POOL2D_SHAPES = st.one_of(
    st.tuples(st.integers(0, 2), st.integers(1, 2), st.integers(1, 5), st.integers(1, 5)),
    st.tuples(st.integers(1, 2), st.integers(1, 5), st.integers(1, 5)))
_POOL1D_SHAPES = st.one_of(st.tuples(st.integers(0, 2), st.integers(1, 2), st.integers(1, 7)),
                           st.tuples(st.integers(1, 2), st.integers(1, 7)))


@st.composite
def _pool_window(draw: st.DrawFn, size: int, dilated: bool) -> tuple[int, int, int, int]:
    """One dim's kernel, stride, padding and dilation whose output has at least one
    element (padding at most half the kernel)."""
    k = draw(st.integers(1, 3))
    d = draw(st.integers(1, 2)) if dilated else 1
    p = draw(st.integers(0, k // 2))
    s = draw(st.integers(1, 3))
    if size + 2 * p < d * (k - 1) + 1:  # too small: a window that fits
        k, d, p = 1, 1, 0
    # every window (ceil_mode's too) with a tap inside the input: one without gives an index
    # outside, and torch's backward then writes outside its buffer (a crash, at times)
    windows = (size + 2 * p - d * (k - 1) - 1 + s - 1) // s + 1
    if any(not any(0 <= o * s - p + j * d < size for j in range(k)) for o in range(windows)):
        k, d, p = 1, 1, 0
    return k, s, p, d


def _pool_list(draw: st.DrawFn, values: list[int], name: str) -> Any:
    """A size as an int (when both dims agree), a pair, or omitted (a stride)."""
    forms: list[Any] = [list(values)]
    if len(set(values)) == 1:
        forms.append(values[0])
    if name == "stride":
        forms.append([])
    return draw(st.sampled_from(forms))


@st.composite
def pool_arguments(draw: st.DrawFn, shape: tuple[int, ...], *, dims: int, maximum: bool
                   ) -> dict[str, Any]:
    """``kernel_size``, ``stride`` (sometimes omitted: the kernel), ``padding``,
    ``dilation`` (max), ``ceil_mode``; ``count_include_pad`` and ``divisor_override``
    (avg_pool2d, ``divisor_override`` of any sign but 0)."""
    windows = [draw(_pool_window(size, maximum)) for size in shape[-dims:]]
    found: dict[str, Any] = {"kernel_size": _pool_list(draw, [w[0] for w in windows],
                                                       "kernel_size")}
    stride = _pool_list(draw, [w[1] for w in windows], "stride")
    if stride == [] and any(w[0] != w[1] for w in windows):
        stride = [w[1] for w in windows]
    found["stride"] = stride
    found["padding"] = _pool_list(draw, [w[2] for w in windows], "padding")
    if maximum:
        found["dilation"] = _pool_list(draw, [w[3] for w in windows], "dilation")
    found["ceil_mode"] = draw(st.booleans())
    if not maximum:
        found["count_include_pad"] = draw(st.booleans())
        if dims == 2:
            found["divisor_override"] = draw(st.sampled_from([None, None, 3, -2]))
    return found


#: avg_pool2d's dtypes (torch's CPU kernel: no other integer type). float16 and bfloat16
#: are left to the OpInfo samples (tests/test_opinfo.py, values and gradients): their
#: ``out=`` into the input itself, which torch's kernel reads while writing, follows an order
#: not reproduced (float32, float64 and int64 are: each output zeroed, then its window read)
_AVG_POOL_DTYPES = ("float32", "float64", "int64")


def _pool2d_errors(name: str) -> dict[str, Program]:
    """What a 2-d pool refuses (``name``: how the op is reached from a library)."""
    def f(lib: Any, *a: Any, **k: Any) -> Any:
        return {"max_pool2d": lambda: lib.max_pool2d(*a, **k),
                "max_pool2d_with_indices": lambda: _aten(lib).max_pool2d_with_indices(*a, **k),
                "avg_pool2d": lambda: lib.nn.functional.avg_pool2d(*a, **k)}[name]()
    found: dict[str, Program] = {
        "a 2-d input": lambda lib: f(lib, lib.ones(4, 4), 2),
        "a 5-d input": lambda lib: f(lib, lib.ones(1, 1, 1, 4, 4), 2),
        "three kernel sizes": lambda lib: f(lib, lib.ones(1, 4, 4), [2, 2, 2]),
        "three strides": lambda lib: f(lib, lib.ones(1, 4, 4), 2, [1, 1, 1]),
        "three paddings": lambda lib: f(lib, lib.ones(1, 4, 4), 2, 1, [0, 0, 0]),
        "a kernel of 0": lambda lib: f(lib, lib.ones(1, 4, 4), 0, 1),
        "a stride of 0": lambda lib: f(lib, lib.ones(1, 4, 4), 2, 0),
        "a negative stride": lambda lib: f(lib, lib.ones(1, 4, 4), 2, -1),
        "a negative padding": lambda lib: f(lib, lib.ones(1, 4, 4), 2, 1, -1),
        "a padding over half the kernel": lambda lib: f(lib, lib.ones(1, 4, 4), 2, 1, 2),
        "a kernel larger than the input": lambda lib: f(lib, lib.ones(1, 4, 4), 5),
        "no channels": lambda lib: f(lib, lib.ones(2, 0, 4, 4), 2),
        "an empty 3-d input": lambda lib: f(lib, lib.ones(0, 4, 4), 2),
        "a bool input": lambda lib: f(lib, lib.ones(1, 4, 4, dtype=lib.bool), 2),
    }
    if name != "max_pool2d_with_indices":  # (torch.ops' parser raises RuntimeError there)
        found["a string kernel"] = lambda lib: f(lib, lib.ones(1, 4, 4), "a")
    if name == "avg_pool2d":
        found["a divisor_override of 0"] = lambda lib: f(lib, lib.ones(1, 4, 4), 2,
                                                         divisor_override=0)
        found["an int32 input"] = lambda lib: f(lib, lib.ones(1, 4, 4, dtype=lib.int32), 2)
        found["out= of another dtype"] = lambda lib: f(
            lib, lib.ones(1, 4, 4), 2, out=lib.empty(0, dtype=lib.float64))
    else:
        found["a dilation of 0"] = lambda lib: f(lib, lib.ones(1, 4, 4), 2, 1, 0, 0)
        found["three dilations"] = lambda lib: f(lib, lib.ones(1, 4, 4), 2, 1, 0, [1, 1, 1])
        found["a padding over half the kernel, dilated"] = lambda lib: f(
            lib, lib.ones(1, 9, 9), 3, 1, 2, 2)
    if name == "max_pool2d_with_indices":
        found["out= of another dtype"] = lambda lib: f(
            lib, lib.ones(1, 4, 4), 2, out=(lib.empty(0, dtype=lib.float64),
                                            lib.empty(0, dtype=lib.int64)))
        found["int32 indices out="] = lambda lib: f(
            lib, lib.ones(1, 4, 4), 2, out=(lib.empty(0), lib.empty(0, dtype=lib.int32)))
    return found


def _pool1d_errors(name: str) -> dict[str, Program]:
    def f(lib: Any, *a: Any, **k: Any) -> Any:
        return getattr(lib, name)(*a, **k)
    found: dict[str, Program] = {
        "a 1-d input": lambda lib: f(lib, lib.ones(4), 2),
        "a 4-d input": lambda lib: f(lib, lib.ones(1, 1, 1, 4), 2),
        "two kernel sizes": lambda lib: f(lib, lib.ones(1, 4), [2, 2]),
        "two strides": lambda lib: f(lib, lib.ones(1, 4), 2, [1, 1]),
        "a kernel of 0": lambda lib: f(lib, lib.ones(1, 4), 0),
        "a stride of 0": lambda lib: f(lib, lib.ones(1, 4), 2, 0),
        "a padding over half the kernel": lambda lib: f(lib, lib.ones(1, 4), 2, 1, 2),
        "a kernel larger than the input": lambda lib: f(lib, lib.ones(1, 4), 5),
        "an empty 2-d input": lambda lib: f(lib, lib.ones(0, 4), 2),
    }
    if name == "max_pool1d":
        found["an int64 input"] = lambda lib: f(lib, lib.ones(1, 4, dtype=lib.int64), 2)
    return found


OP_DB += [
    OpEntry("max_pool2d", arguments=lambda s: pool_arguments(s, dims=2, maximum=True),
            dtypes=strategies.ALL_NAMES[1:], shapes=_POOL2D_SHAPES,
            errors=_pool2d_errors("max_pool2d")),
    OpEntry("max_pool2d_with_indices",
            arguments=lambda s: pool_arguments(s, dims=2, maximum=True),
            dtypes=strategies.ALL_NAMES[1:], shapes=_POOL2D_SHAPES,
            errors=_pool2d_errors("max_pool2d_with_indices")),
    OpEntry("avg_pool2d", arguments=lambda s: pool_arguments(s, dims=2, maximum=False),
            dtypes=_AVG_POOL_DTYPES, shapes=_POOL2D_SHAPES, errors=_pool2d_errors("avg_pool2d")),
    OpEntry("max_pool1d", arguments=lambda s: pool_arguments(s, dims=1, maximum=True),
            dtypes=strategies.FLOAT_NAMES, shapes=_POOL1D_SHAPES,
            errors=_pool1d_errors("max_pool1d")),
    OpEntry("max_pool1d_with_indices",
            arguments=lambda s: pool_arguments(s, dims=1, maximum=True),
            dtypes=strategies.ALL_NAMES[1:], shapes=_POOL1D_SHAPES,
            errors=_pool1d_errors("max_pool1d_with_indices")),
    OpEntry("avg_pool1d", arguments=lambda s: pool_arguments(s, dims=1, maximum=False),
            dtypes=_AVG_POOL_DTYPES, shapes=_POOL1D_SHAPES, errors=_pool1d_errors("avg_pool1d")),
]


BY_NAME = {entry.name: entry for entry in OP_DB}


# --------------------------------------------- padding (chapter 10, the capstone; issue 45)
@st.composite
def constant_pad_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """``pad``: up to one pair per dim, from the last; each pad crops at most the dim's size
    (the result is empty, never negative); ``value`` an int, a float or 0."""
    pairs = draw(st.integers(0, len(shape)))
    pad: list[int] = []
    for k in range(pairs):
        size = shape[-1 - k]
        left = draw(st.integers(-size, 3))
        right = draw(st.integers(-(size + left) if size + left > 0 else 0, 3))
        pad += [left, right]
    return {"pad": pad, "value": draw(st.sampled_from([0, 1, 2.5]))}


def _pad_op_shapes(dims: int) -> st.SearchStrategy[tuple[int, ...]]:
    """``dims + 1`` nonempty dims, or a batch (possibly empty) in front of them."""
    inner = st.tuples(*[st.integers(1, 4)] * (dims + 1))
    return st.one_of(inner, st.tuples(st.integers(0, 2), *[st.integers(1, 3)] * (dims + 1)))


@st.composite
def _pad_op_arguments(draw: st.DrawFn, shape: tuple[int, ...], dims: int,
                      reflect: bool) -> dict[str, Any]:
    """``padding`` for the last ``dims`` dims: reflection pads below each dim's size,
    replication ones up to 3; a crop of at most one element; an output of at least 1."""
    padding: list[int] = []
    for k in range(dims):
        size = shape[-1 - k]
        top = size - 1 if reflect else 3
        left, right = draw(st.integers(-1, top)), draw(st.integers(-1, top))
        if size + left + right < 1:
            left = right = 0
        padding += [left, right]
    return {"padding": padding}


def _pad_op_errors(name: str, dims: int) -> dict[str, Program]:
    f = lambda lib, *a: getattr(_aten(lib), name)(*a)  # noqa: E731
    ok = (2,) + (3,) * (dims + 1)
    found: dict[str, Program] = {
        "too few pads": lambda lib: f(lib, lib.ones(ok), [1] * (2 * dims - 1)),
        "too many pads": lambda lib: f(lib, lib.ones(ok), [1] * (2 * dims + 2)),
        "too few dims": lambda lib: f(lib, lib.ones((3,) * dims), [1] * (2 * dims)),
        "too many dims": lambda lib: f(lib, lib.ones((2,) * (dims + 3)), [1] * (2 * dims)),
        "an empty channel dim": lambda lib: f(lib, lib.ones((2, 0) + (3,) * dims),
                                              [1] * (2 * dims)),
        "a pad as large as the dim": lambda lib: f(lib, lib.ones(ok), [3] * (2 * dims)),
        "a crop to nothing": lambda lib: f(lib, lib.ones(ok), [-3] * (2 * dims)),
        "an output below 1": lambda lib: f(lib, lib.ones(ok), [-2] * (2 * dims)),
        "a bool input": lambda lib: f(lib, lib.ones(ok, dtype=lib.bool), [1] * (2 * dims)),
        "out= of another dtype": lambda lib: getattr(_aten(lib), name).out(
            lib.ones(ok), [1] * (2 * dims), out=lib.empty(0, dtype=lib.float64)),
        "a backward of the wrong size": lambda lib: getattr(_aten(lib), name + "_backward")(
            lib.ones(ok), lib.ones(ok), [1] * (2 * dims)),
        "a backward of another dtype": lambda lib: getattr(_aten(lib), name + "_backward")(
            lib.ones((2,) + (5,) * (dims + 1), dtype=lib.float64).narrow(1, 1, 3),
            lib.ones(ok), [1] * (2 * dims)),
        "an integer backward": lambda lib: getattr(_aten(lib), name + "_backward")(
            lib.ones((2, 3) + (5,) * dims, dtype=lib.int64),
            lib.ones(ok, dtype=lib.int64), [1] * (2 * dims)),
    }
    if name.startswith("replication"):  # (any positive pad is fine)
        del found["a pad as large as the dim"]
    return found


def _pad_errors() -> dict[str, Program]:
    f = lambda lib, *a: _aten(lib).pad(*a)  # noqa: E731
    return {
        "an unknown mode": lambda lib: f(lib, lib.ones(2, 3), [1, 1], "foo"),
        "an odd pad length": lambda lib: f(lib, lib.ones(2, 3), [1], "constant"),
        "more pads than dims": lambda lib: f(lib, lib.ones(2, 3), [1] * 6, "constant"),
        "a value with reflect": lambda lib: f(lib, lib.ones(2, 3), [1, 1], "reflect", 1.0),
        "reflect of a 1-d input": lambda lib: f(lib, lib.ones(3), [1, 1], "reflect"),
        "replicate of 4 pads on a 2-d input": lambda lib: f(lib, lib.ones(3, 3), [1] * 4,
                                                            "replicate"),
        "circular wrapping twice": lambda lib: f(lib, lib.ones(3, 3), [4, 1], "circular"),
        "circular to an empty dim": lambda lib: f(lib, lib.ones(3, 3), [-2, -2], "circular"),
    }


@st.composite
def pad_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """A mode and pads it takes for ``shape`` (constant: any; reflect and replicate: 1-3
    dims of an input with 1 or 2 more)."""
    modes = ["constant"]
    pairs_ok = [n for n in (1, 2, 3) if len(shape) in (n + 1, n + 2)
                and all(s > 0 for s in shape[1:])]
    # (no "circular" here: its graph's second copy_ reads a slice of the output it writes
    # into, which reftensor records as AsStridedBackward0 where torch records
    # SliceBackward0: a gap left, issue 45; its values and gradients are torch's, and
    # nn.functional.pad's circular OpInfo samples run it)
    if pairs_ok:
        modes += ["reflect", "replicate"]
    mode = draw(st.sampled_from(modes))
    if mode == "constant":
        found = draw(constant_pad_arguments(shape))
        return {"pad": found["pad"], "mode": mode,
                "value": draw(st.sampled_from([None, 0.0, 1.5]))}
    dims = draw(st.sampled_from(pairs_ok))
    pad = draw(_pad_op_arguments(shape, dims, mode == "reflect"))["padding"]
    return {"pad": pad, "mode": mode, "value": None}


OP_DB += [
    OpEntry("constant_pad_nd", arguments=constant_pad_arguments, errors={
        "an odd pad length": lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [1]),
        "more pairs than dims": lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [1] * 6),
        "a negative size": lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [-5, 1]),
        "a value out of uint8's range": lambda lib: lib.constant_pad_nd(
            lib.ones(2, 3, dtype=lib.uint8), [1, 1], 300),
        "out= (no Python binding)": lambda lib: lib.constant_pad_nd(
            lib.ones(2, 3), [1, 1], out=lib.empty(0)),
        "a method": lambda lib: lib.ones(2, 3).constant_pad_nd([1, 1]),
    }),
    OpEntry("pad", arguments=pad_arguments, dtypes=strategies.FLOAT_NAMES + ("int64",),
            errors=_pad_errors()),
    *[OpEntry(f"{kind}_pad{dims}d", shapes=_pad_op_shapes(dims),
              dtypes=strategies.FLOAT_NAMES + ("int64", "uint8"),
              arguments=lambda shape, d=dims, r=kind == "reflection": _pad_op_arguments(
                  shape, d, r),
              errors=_pad_op_errors(f"{kind}_pad{dims}d", dims))
      for kind in ("reflection", "replication") for dims in (1, 2, 3)],
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ---------------------------------------- sliding windows (chapter 10, the capstone; issue 45)
_WINDOW_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _window_shapes() -> st.SearchStrategy[tuple[int, ...]]:
    """An image ``(C, H, W)`` or a batch ``(N, C, H, W)`` (N possibly 0), nonempty."""
    image = (st.integers(1, 2), st.integers(1, 4), st.integers(1, 4))
    return st.one_of(st.tuples(*image), st.tuples(st.integers(0, 2), *image))


@st.composite
def _window_arguments(draw: st.DrawFn, height: int, width: int) -> dict[str, Any]:
    """A kernel, dilation, padding and stride that give at least one window."""
    while True:
        found = {"kernel_size": [draw(st.integers(1, 3)), draw(st.integers(1, 3))],
                 "dilation": [draw(st.integers(1, 2)), draw(st.integers(1, 2))],
                 "padding": [draw(st.integers(0, 2)), draw(st.integers(0, 2))],
                 "stride": [draw(st.integers(1, 3)), draw(st.integers(1, 3))]}
        blocks = [(size + 2 * found["padding"][k]
                   - (found["dilation"][k] * (found["kernel_size"][k] - 1) + 1))
                  // found["stride"][k] + 1 for k, size in enumerate((height, width))]
        if min(blocks) >= 1:
            found["blocks"] = blocks
            return found


@st.composite
def im2col_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    found = draw(_window_arguments(shape[-2], shape[-1]))
    del found["blocks"]
    return found


@st.composite
def col2im_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """For columns ``shape`` (``(C*kh*kw, L)`` or ``(N, C*kh*kw, L)``, drawn by
    ``_column_shapes``: its dims carry the kernel and the windows): an output size whose
    windows are ``L``."""
    return draw(st.just(_COLUMN_ARGUMENTS[shape]))


#: columns' shapes and the col2im arguments they were made for (a shape strategy cannot
#: hand arguments over: each shape is drawn with its own)
_COLUMN_ARGUMENTS: dict[tuple[int, ...], dict[str, Any]] = {}


@st.composite
def _column_shapes(draw: st.DrawFn) -> tuple[int, ...]:
    image = draw(_window_shapes())
    found = draw(_window_arguments(image[-2], image[-1]))
    blocks = found.pop("blocks")
    kh, kw = found["kernel_size"]
    shape = (*image[:-3], image[-3] * kh * kw, blocks[0] * blocks[1])
    arguments = {"output_size": list(image[-2:]), **found}
    # one set of arguments a shape (the first drawn for it, valid for every draw of it)
    _COLUMN_ARGUMENTS.setdefault(shape, arguments)
    return shape


def _window_errors() -> dict[str, Program]:
    i = lambda lib, x, *a: _aten(lib).im2col(x, *a)  # noqa: E731
    c = lambda lib, x, *a: _aten(lib).col2im(x, *a)  # noqa: E731
    return {
        "im2col: a kernel of 0": lambda lib: i(lib, lib.ones(1, 2, 3, 3), [0, 2], [1, 1],
                                               [0, 0], [1, 1]),
        "im2col: a negative padding": lambda lib: i(lib, lib.ones(1, 2, 3, 3), [2, 2], [1, 1],
                                                    [-1, 0], [1, 1]),
        "im2col: a stride of 0": lambda lib: i(lib, lib.ones(1, 2, 3, 3), [2, 2], [1, 1],
                                               [0, 0], [0, 1]),
        "im2col: no window": lambda lib: i(lib, lib.ones(1, 2, 3, 3), [4, 2], [1, 1], [0, 0],
                                           [1, 1]),
        "im2col: a 2-d input": lambda lib: i(lib, lib.ones(3, 3), [2, 2], [1, 1], [0, 0],
                                             [1, 1]),
        "im2col: an empty channel dim": lambda lib: i(lib, lib.ones(1, 0, 3, 3), [2, 2],
                                                      [1, 1], [0, 0], [1, 1]),
        "im2col: an int64 input": lambda lib: i(lib, lib.ones(1, 2, 3, 3, dtype=lib.int64),
                                                [2, 2], [1, 1], [0, 0], [1, 1]),
        "im2col: three kernel sizes": lambda lib: i(lib, lib.ones(1, 2, 3, 3), [2, 2, 2],
                                                    [1, 1], [0, 0], [1, 1]),
        "col2im: L not the windows": lambda lib: c(lib, lib.ones(1, 8, 5), [3, 3], [2, 2],
                                                   [1, 1], [0, 0], [1, 1]),
        "col2im: dim 1 not divisible": lambda lib: c(lib, lib.ones(1, 7, 4), [3, 3], [2, 2],
                                                     [1, 1], [0, 0], [1, 1]),
        "col2im: a dilation of 0": lambda lib: c(lib, lib.ones(1, 8, 4), [3, 3], [2, 2],
                                                 [0, 1], [0, 0], [1, 1]),
        "col2im: a 1-d input": lambda lib: c(lib, lib.ones(8), [3, 3], [2, 2], [1, 1], [0, 0],
                                             [1, 1]),
        "col2im: an int64 input": lambda lib: c(lib, lib.ones(1, 8, 4, dtype=lib.int64),
                                                [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]),
        "unfold: a 2-d input": lambda lib: lib.nn.functional.unfold(lib.ones(3, 3), 2),
        "fold: L not the windows": lambda lib: lib.nn.functional.fold(lib.ones(1, 8, 5),
                                                                      (3, 3), 2),
    }


OP_DB += [
    OpEntry("im2col", arguments=im2col_arguments, shapes=_window_shapes(),
            dtypes=_WINDOW_DTYPES + ("bool",), errors=_window_errors()),
    OpEntry("col2im", arguments=col2im_arguments, shapes=_column_shapes(),
            dtypes=_WINDOW_DTYPES),
]
BY_NAME = {entry.name: entry for entry in OP_DB}


# ------------------------------------- convolution (chapter 10, the capstone; convolution.py)
#: batched inputs ``(N, C, *spatial)`` of 1 or 2 spatial dims (and unbatched ones for
#: conv1d/conv2d), small enough that each output is a short sum
def _conv_shapes(spatial: int, *, unbatched: bool = False) -> st.SearchStrategy[Any]:
    batch = st.sampled_from([(), (1,), (2,)] if unbatched else [(1,), (2,), (0,)])
    sizes = st.lists(st.integers(1, 5), min_size=spatial, max_size=spatial)
    return st.tuples(batch, st.integers(1, 4), sizes).map(
        lambda t: (*t[0], t[1], *t[2]))


@st.composite
def _conv_parameters(draw: st.DrawFn, shape: tuple[int, ...], spatial: int, *,
                     transposed: bool = False, strings: bool = False) -> dict[str, Any]:
    """``weight`` for ``groups`` dividing the input's channels, a kernel that fits the
    padded input, ``bias`` or None, and ``stride``, ``padding`` (or 'same'/'valid'),
    ``dilation`` as ints or lists."""
    sizes = shape[-spatial:]
    channels = shape[-spatial - 1]
    groups = draw(st.sampled_from([g for g in (1, 2, 3, 4) if channels % g == 0]))
    per_group = draw(st.integers(1, 2))
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    padding: Any = [draw(st.integers(0, 2)) for _ in range(spatial)]
    if strings and draw(st.booleans()):
        padding = draw(st.sampled_from(["same", "valid"]))
        if padding == "same":
            stride = [1] * spatial
    pads = [0] * spatial if isinstance(padding, str) else padding
    kernel = []
    for i in range(spatial):
        room = sizes[i] + 2 * pads[i]
        largest = (room - 1) // dilation[i] + 1 if not transposed else 3
        kernel.append(draw(st.integers(1, max(1, min(3, largest)))))
        if not transposed and dilation[i] * (kernel[i] - 1) + 1 > room:
            dilation[i] = 1
    if padding == "same":
        # an even total padding only: an odd one pads the input on the right first, which
        # torch records as ConstantPadNdBackward0 (constant_pad_nd is another branch's op;
        # reftensor records CopySlices until then); its values are checked in
        # tests/test_ch10_convolution.py
        kernel = [k - 1 if dilation[i] * (k - 1) % 2 else k for i, k in enumerate(kernel)]
    if transposed:
        weight_shape = (channels, per_group, *kernel)
        out_channels = per_group * groups
    else:
        weight_shape = (per_group * groups, channels // groups, *kernel)
        out_channels = per_group * groups
    found: dict[str, Any] = {"weight": draw(strategies.tensors(shape=weight_shape))}
    found["bias"] = (draw(strategies.tensors(shape=(out_channels,)))
                     if draw(st.booleans()) else None)
    single = draw(st.booleans())  # one int for every dim, where torch takes that
    found["stride"] = stride[:1] if single and len(set(stride)) == 1 else stride
    found["padding"] = padding
    found["dilation"] = dilation
    return {**found, "groups": groups}


@st.composite
def convolution_arguments(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    """All of ``convolution``'s arguments: a plain or a transposed convolution (then
    ``output_padding`` below the stride), 1 or 2 spatial dims (the input's rank)."""
    spatial = len(shape) - 2
    transposed = draw(st.booleans())
    drawn = draw(_conv_parameters(shape, spatial, transposed=transposed))
    groups = drawn.pop("groups")
    if transposed:
        # no padding: a transposed result with a size below 1 is refused by torch's slow
        # kernel but not by its oneDNN path for float32 inputs that require grad (a
        # difference reftensor does not reproduce; tests/test_ch10_convolution.py runs
        # transposed convolutions with padding)
        drawn["padding"] = [0] * spatial
    strides = drawn["stride"] * (spatial if len(drawn["stride"]) == 1 else 1)
    output_padding = ([draw(st.integers(0, s - 1)) for s in strides] if transposed
                      else [0] * spatial)
    return {**drawn, "transposed": transposed, "output_padding": output_padding,
            "groups": groups}


_CONV_ULPS = 16  # measured: within 10 ulps of the largest magnitude (300 random cases)
_CONV_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32")


def _conv_errors(name: str) -> dict[str, Program]:
    """What ``conv1d``/``conv2d`` refuse (torch's checks and words), for ``name``."""
    two = name == "conv2d"
    k = (3, 3) if two else (3,)
    s = (5, 5) if two else (5,)

    def call(lib: Any, x: Any, w: Any, b: Any = None, **kw: Any) -> Any:
        return getattr(lib, name)(x, w, b, **kw)

    return {
        "wrong channels": lambda lib: call(lib, lib.ones(1, 4, *s), lib.ones(2, 3, *k)),
        "an input of the wrong rank": lambda lib: call(lib, lib.ones(*s), lib.ones(2, 3, *k)),
        "an unknown padding string": lambda lib: call(lib, lib.ones(1, 3, *s),
                                                      lib.ones(2, 3, *k), padding="full"),
        "'same' with a stride": lambda lib: call(lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k),
                                                 padding="same", stride=2),
        "negative padding": lambda lib: call(lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k),
                                             padding=-1),
        "a zero stride": lambda lib: call(lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k),
                                          stride=0),
        "a zero dilation": lambda lib: call(lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k),
                                            dilation=0),
        "zero groups": lambda lib: call(lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k),
                                        groups=0),
        "groups that do not divide": lambda lib: call(lib, lib.ones(1, 4, *s),
                                                      lib.ones(3, 2, *k), groups=2),
        "a kernel larger than the input": lambda lib: call(
            lib, lib.ones(1, 3, *s), lib.ones(2, 3, *((7,) * len(k)))),
        "a bias of the wrong size": lambda lib: call(lib, lib.ones(1, 3, *s),
                                                     lib.ones(2, 3, *k), lib.ones(3)),
        "a bias of another dtype": lambda lib: call(
            lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k), lib.ones(2, dtype=lib.float64)),
        "a weight of another dtype": lambda lib: call(
            lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k, dtype=lib.float64)),
        "bool": lambda lib: call(lib, lib.ones(1, 3, *s, dtype=lib.bool),
                                 lib.ones(2, 3, *k, dtype=lib.bool)),
        "a stride of too many values": lambda lib: call(
            lib, lib.ones(1, 3, *s), lib.ones(2, 3, *k), stride=[1, 1, 1]),
        "a weight of the wrong rank": lambda lib: call(lib, lib.ones(1, 3, *s),
                                                       lib.ones(2, 3)),
        "an empty weight": lambda lib: call(lib, lib.ones(1, 3, *s),
                                            lib.ones(0, 3, *k)),
    }


OP_DB += [
    OpEntry("conv1d", arguments=lambda s: _conv_parameters(s, 1, strings=True),
            dtypes=_CONV_DTYPES, shapes=_conv_shapes(1, unbatched=True), same_dtype=True,
            ulps=_CONV_ULPS, errors=_conv_errors("conv1d")),
    OpEntry("conv2d", arguments=lambda s: _conv_parameters(s, 2, strings=True),
            dtypes=_CONV_DTYPES, shapes=_conv_shapes(2, unbatched=True), same_dtype=True,
            ulps=_CONV_ULPS, errors=_conv_errors("conv2d")),
    OpEntry("convolution", arguments=convolution_arguments, dtypes=_CONV_DTYPES,
            shapes=st.sampled_from([1, 2]).flatmap(_conv_shapes), same_dtype=True,
            ulps=_CONV_ULPS, errors={
        "a 2-d weight": lambda lib: lib.convolution(lib.ones(1, 2, 3), lib.ones(2, 2), None,
                                                    [1], [0], [1], False, [0], 1),
        "negative output_padding": lambda lib: lib.convolution(
            lib.ones(1, 2, 3), lib.ones(2, 2, 1), None, [1], [0], [1], True, [-1], 1),
        "transposed, wrong channels": lambda lib: lib.convolution(
            lib.ones(1, 3, 3), lib.ones(2, 2, 1), None, [1], [0], [1], True, [0], 1),
        "transposed, a bias of the wrong size": lambda lib: lib.convolution(
            lib.ones(1, 2, 3), lib.ones(2, 2, 1), lib.ones(3), [1], [0], [1], True, [0], 1),
        "empty parameters": lambda lib: lib.convolution(
            lib.ones(1, 2, 3), lib.ones(2, 2, 1), None, [], [0], [1], False, [0], 1),
    }),
]
BY_NAME = {entry.name: entry for entry in OP_DB}
