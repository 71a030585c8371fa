"""The op table: every op reftensor has, declared once, as torch's ``native_functions.yaml``
declares it.

An entry gives the op's schema strings (one per overload, in the order the argument parser
tries them; each copied from ``native_functions.yaml``), its variants (``reftensor.<name>``,
``Tensor.<name>``, and with ``inplace=True`` also ``<name>_``, whose schema is derived as torch
writes it: ``exp_(Tensor(a!) self) -> Tensor(a!)``), and its docstring. Nothing else: the
kernels are registered by dispatch key in the chapter modules (``unary.py`` registers the CPU
and Meta kernels of ``exp``), the derivative is a row of ``autograd/derivatives.py``, and the
conformance test is an entry of ``tests/op_db.py``.

``aten`` holds one :class:`OpOverloadPacket` per name: ``aten.exp``, ``aten.exp_``, with the
overloads as attributes (``aten.exp.default``), as ``torch.ops.aten`` does. The Python
bindings (``reftensor.exp``, ``Tensor.exp``) are generated from this table into
``reftensor/_bindings.py`` by ``python -m reftensor._ops.generate``; a test fails when that
file and this table disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .dispatcher import DispatchKey, OpOverload
from .packet import OpOverloadPacket
from .python_arg_parser import TENSOR_OPTIONS, has_tensor_options
from .schema import Argument, FunctionSchema, Return, Type, parse_schema

__all__ = ["Declaration", "NATIVE_FUNCTIONS", "aten"]


class Declaration(NamedTuple):
    """One entry of the op table."""

    schemas: tuple[str, ...]
    function: bool = True  # reftensor.<name>
    method: bool = True  # Tensor.<name>
    inplace: bool = False  # also <name>_, a method
    inplace_function: bool = True  # ... and a function (``torch.exp_``; torch has no ``add_``)
    out: tuple[str, ...] = ()  # the ``.out`` schemas, one per overload that has one
    numbers_as_tensors: bool = False
    operators: tuple[str, ...] = ()  # Tensor methods that are this op (``__add__``)
    # ... with the operands swapped (``__rmatmul__``: ``other @ t`` is ``matmul(other, t)``)
    reflected_operators: tuple[str, ...] = ()
    inplace_operators: tuple[str, ...] = ()  # ... and its in-place form (``__iadd__``)
    alias_of: str = ""  # another op that this one is (``subtract`` is ``sub``)
    deprecated: tuple[str, ...] = ()  # signatures of torch's ``deprecated.yaml`` for it
    # overloads that the Python binding does not offer (torch drops ``add.Scalar`` from
    # ``torch.add``, which takes numbers as tensors); other ops reach them (``subtract``)
    internal: tuple[str, ...] = ()
    # the in-place overload's name where torch's differs from the functional one's:
    # ``(("Tensor_Scalar", "Scalar"),)`` makes ``pow.Tensor_Scalar``'s in-place form
    # ``pow_.Scalar``. Only overloads whose first argument is ``Tensor self`` have one.
    inplace_overloads: tuple[tuple[str, str], ...] = ()
    # ``out=`` must have the input's dtype ("Found dtype Long but expected Float"), checked
    # before anything is computed: torch's unary ops built with ``check_all_same_dtype``
    out_same_dtype: bool = False
    # overloads that only the function offers, not the method (``torch.mm(a, b, dtype)``)
    function_only: tuple[str, ...] = ()
    # arguments that torch's Python binding names otherwise than the schema: (schema name,
    # Python name) pairs (``copy_``'s ``src`` is ``other`` in Python)
    python_names: tuple[tuple[str, str], ...] = ()
    doc: str = ""

    @property
    def name(self) -> str:
        return self.schemas[0].partition("(")[0].partition(".")[0]


def declare(*schemas: str, **options: object) -> Declaration:
    return Declaration(schemas, **options)  # type: ignore[arg-type]


def binary(name: str, *, alpha: bool = False, operators: tuple[str, ...] = (),
           inplace_operators: tuple[str, ...] = (), alias_of: str = "",
           doc: str = "") -> Declaration:
    """A binary arithmetic op (``add.Tensor``), with its in-place and ``out=`` forms, and its
    ``.Scalar`` overload. ``add``, ``sub`` and ``mul`` take a Python number where the schema
    says Tensor and keep ``.Scalar`` internal; their aliases offer ``.Scalar`` instead. ``add``
    and ``sub`` keep torch's deprecated ``(input, alpha, other)`` order."""
    extra = ", *, Scalar alpha=1" if alpha else ""
    tensor = f"{name}.Tensor(Tensor self, Tensor other{extra}) -> Tensor"
    scalar = f"{name}.Scalar(Tensor self, Scalar other{', Scalar alpha=1' if alpha else ''}) " \
             "-> Tensor"
    deprecated = () if not alpha or alias_of else (
        f"{name}(Tensor self, Scalar alpha, Tensor other) -> Tensor",
        f"{name}(Tensor self, Scalar alpha, Tensor other, *, Tensor(a!) out) -> Tensor(a!)")
    schemas = (tensor,) if not alias_of else (tensor, scalar)
    return declare(*schemas, internal=(scalar,) if not alias_of else (),
                   out=(f"{name}.out(Tensor self, Tensor other{extra or ', *'}, "
                        "Tensor(a!) out) -> Tensor(a!)",),
                   inplace=True, inplace_function=False, numbers_as_tensors=True,
                   operators=operators, inplace_operators=inplace_operators,
                   alias_of=alias_of, doc=doc, deprecated=deprecated)


def division(name: str, *, modes: bool = True, operators: tuple[str, ...] = (),
             inplace_operators: tuple[str, ...] = (), alias_of: str = "",
             doc: str = "") -> Declaration:
    """``div`` and its aliases: true division and (``modes``) rounded division, each with a
    ``.Scalar`` overload; ``div`` offers only its rounded one in Python, as torch does."""
    tensor = [f"{name}.Tensor(Tensor self, Tensor other) -> Tensor"]
    scalar = [f"{name}.Scalar(Tensor self, Scalar other) -> Tensor"]
    outs = [f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"]
    if modes:
        tensor.append(f"{name}.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) "
                      "-> Tensor")
        scalar.append(f"{name}.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) "
                      "-> Tensor")
        outs.append(f"{name}.out_mode(Tensor self, Tensor other, *, str? rounding_mode, "
                    "Tensor(a!) out) -> Tensor(a!)")
    python, internal = (tensor + scalar, []) if alias_of else (tensor + scalar[1:], scalar[:1])
    return declare(*python, internal=tuple(internal), out=tuple(outs), inplace=True,
                   inplace_function=False, numbers_as_tensors=True, operators=operators,
                   inplace_operators=inplace_operators, alias_of=alias_of, doc=doc)


def comparison(name: str, operator: str, symbol: str, alias_of: str = "") -> Declaration:
    """``eq`` and the rest: a ``.Tensor`` and a ``.Scalar`` overload, each with ``out=``, an
    in-place form (a method) and an operator; an alias (``greater`` is ``gt``) has no
    operator."""
    if alias_of:
        return declare(
            f"{name}.Tensor(Tensor self, Tensor other) -> Tensor",
            f"{name}.Scalar(Tensor self, Scalar other) -> Tensor",
            out=(f"{name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 f"{name}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            inplace=True, inplace_function=False, alias_of=alias_of,
            doc=f"``torch.{name}``: ``{alias_of}`` (``input {symbol} other``).")
    return declare(
        f"{name}.Tensor(Tensor self, Tensor other) -> Tensor",
        f"{name}.Scalar(Tensor self, Scalar other) -> Tensor",
        out=(f"{name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
             f"{name}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)"),
        inplace=True, inplace_function=False, operators=(operator,),
        doc=f"``input {symbol} other`` as a bool tensor (``torch.{name}``), compared in "
            "``result_type``: ``uint8_tensor == -1`` reads -1 as 255. In place (``"
            f"t.{name}_(other)``) the 0 or 1 is written in ``t``'s own dtype.\n\nRaises "
            "RuntimeError for shapes that do not broadcast.")


def float_function(name: str, doc: str) -> Declaration:
    """A unary float function, with its in-place and ``out=`` forms."""
    return declare(f"{name}(Tensor self) -> Tensor", inplace=True,
                   out=(f"{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
                   doc=f"{doc} {_FLOAT}")


def bitwise(name: str, symbol: str, operators: tuple[str, ...],
            inplace_operators: tuple[str, ...]) -> Declaration:
    """``bitwise_and`` and the rest: tensor and tensor, number and tensor, tensor and
    number; ``out=`` and in place (a method) for a tensor ``self``; the operators."""
    return declare(
        f"{name}.Tensor(Tensor self, Tensor other) -> Tensor",
        f"{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
        f"{name}.Scalar(Tensor self, Scalar other) -> Tensor",
        out=(f"{name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
             f"{name}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)"),
        inplace=True, inplace_function=False, operators=operators,
        inplace_operators=inplace_operators,
        doc=f"``input {symbol} other``, bit by bit, broadcast (``torch.{name}``); on bool "
            "tensors the logical operation. Result dtype: ``result_type``.\n\nRaises "
            "RuntimeError for shapes that do not broadcast, and NotImplementedError for a "
            "floating result.")


def logical(name: str, what: str) -> Declaration:
    """``logical_and`` and the rest: a bool result from any dtypes, with ``out=`` (which may
    have any dtype) and an in-place form (a method, written in ``self``'s dtype)."""
    return declare(f"{name}(Tensor self, Tensor other) -> Tensor", inplace=True,
                   inplace_function=False,
                   out=(f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                        "Tensor(a!)",),
                   doc=f"True where {what}, as a bool tensor, broadcast (``torch.{name}``); "
                       "a value counts as true when it is not 0.\n\nRaises RuntimeError "
                       "for shapes that do not broadcast.")


_FLOAT = ("Integer and bool inputs give the default float dtype. NumPy's formula, within a "
          "few units in the last place of torch's.")

NATIVE_FUNCTIONS: list[Declaration] = [
    # ---------------------------------------------------------- unary float functions
    float_function("exp", "``e ** input``, elementwise (``torch.exp``)."),
    float_function("expm1", "``e ** input - 1``, exact near 0 (``torch.expm1``)."),
    float_function("log", "Natural logarithm (``torch.log``): -inf at 0, nan below."),
    float_function("sqrt", "Square root, correctly rounded (``torch.sqrt``): nan below 0."),
    float_function("sin", "Sine, in radians (``torch.sin``)."),
    float_function("cos", "Cosine, in radians (``torch.cos``)."),
    float_function("tanh", "Hyperbolic tangent (``torch.tanh``)."),
    declare("tanh_backward(Tensor grad_output, Tensor output) -> Tensor", function=False,
            method=False,
            doc="``grad_output * (1 - output * output)``: ``tanh``'s derivative from its "
                "result, with the square taken from 1 in one rounding, as a fused "
                "multiply-add (``aten::tanh_backward``, what ``TanhBackward0`` runs; no "
                "Python binding, as in torch). Promotes and broadcasts as ``mul`` does."
                "\n\nRaises NotImplementedError on the CPU for integer and bool operands."),
    declare("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", function=False,
            method=False,
            doc="``grad_output * (1 - output) * output``, left to right: ``sigmoid``'s "
                "derivative from its result (``aten::sigmoid_backward``, what "
                "``SigmoidBackward0`` runs; no Python binding, as in torch). bfloat16 "
                "computes in float32 and rounds once, float16 rounds after each operation, "
                "as torch's kernel. Promotes and broadcasts as ``mul`` does.\n\nRaises "
                "NotImplementedError on the CPU for integer and bool operands."),
    float_function("sigmoid", "``1 / (1 + exp(-input))`` (``torch.sigmoid``)."),
    float_function("reciprocal", "``1 / input`` (``torch.reciprocal``): inf at 0."),
    # ---------------------------------------------------------- same-dtype unary (chapter 3)
    declare("neg(Tensor self) -> Tensor", inplace=True, out_same_dtype=True, operators=("__neg__",),
            out=("neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``-input`` (``torch.neg``), in the input's dtype: unsigned integers wrap "
                "around (``-1`` is 255 in uint8).\n\nRaises RuntimeError for a bool tensor "
                "(use ``~`` or ``logical_not``)."),
    declare("negative(Tensor self) -> Tensor", inplace=True, out_same_dtype=True, alias_of="neg",
            out=("negative.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``torch.negative``: ``neg``."),
    declare("abs(Tensor self) -> Tensor", inplace=True, out_same_dtype=True, operators=("__abs__",),
            out=("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``|input|`` (``torch.abs``), in the input's dtype: ``abs(int8(-128))`` wraps "
                "to -128.\n\nRaises NotImplementedError for a bool tensor."),
    declare("relu(Tensor self) -> Tensor", inplace=True,
            doc="``max(input, 0)`` (``torch.relu``), in the input's dtype; keeps -0.0 and nan."
                "\n\nRaises RuntimeError for a bool tensor."),
    declare("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
            function=False, method=False,
            doc="0 where ``self <= threshold``, else ``grad_output`` (a nan in ``self`` lets "
                "the gradient through): ``relu``'s derivative from its result, "
                "``threshold_backward(grad, result, 0)`` (``aten::threshold_backward``, what "
                "``ReluBackward0`` runs; no Python binding, as in torch). The two broadcast "
                "and promote, laid out as ``self`` first; float16 and bfloat16 compare in "
                "float32, other dtypes with ``threshold`` converted to theirs.\n\nRaises "
                "NotImplementedError on the CPU for bool operands."),
    declare("sign(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            inplace_function=False,
            out=("sign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="-1, 0 or +1 in the input's dtype (``torch.sign``): 0 for nan and for -0.0; a "
                "bool tensor is copied unchanged."),
    declare("floor(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            out=("floor.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Round down (``torch.floor``); integer tensors are copied unchanged.\n\n"
                "Raises NotImplementedError for a bool tensor."),
    declare("round(Tensor self) -> Tensor",
            "round.decimals(Tensor self, *, int decimals) -> Tensor", inplace=True,
            out_same_dtype=True,
            out=("round.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                 "round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            doc="Round half to even (``torch.round``): ``1.5`` and ``2.5`` both give ``2``; "
                "with ``decimals``, ``rint(x * 10**decimals) / 10**decimals``. Integer "
                "tensors are copied when ``decimals`` is 0.\n\nRaises NotImplementedError "
                "for a bool tensor, or an integer one with ``decimals``."),
    # ---------------------------------------------------------- arithmetic (chapter 3)
    binary("add", alpha=True, operators=("__add__", "__radd__"), inplace_operators=("__iadd__",),
           doc="``input + alpha * other``, broadcast (``torch.add``); either may be a Python "
               "number. Result dtype: ``result_type``; on bool tensors ``+`` is logical or."
               "\n\nRaises RuntimeError for shapes that do not broadcast, a bool ``alpha`` "
               "for a non-bool result, a float ``alpha`` for an integer result."),
    binary("sub", alpha=True, operators=("__sub__",), inplace_operators=("__isub__",),
           doc="``input - alpha * other``, broadcast (``torch.sub``). Result dtype: "
               "``result_type``.\n\nRaises RuntimeError for a bool operand (tensor or "
               "Python bool), shapes that do not broadcast, or a bad ``alpha`` (as ``add``)."),
    binary("subtract", alpha=True, alias_of="sub", doc="``torch.subtract``: ``sub``."),
    binary("mul", operators=("__mul__", "__rmul__"), inplace_operators=("__imul__",),
           doc="``input * other``, broadcast (``torch.mul``). Result dtype: ``result_type``; "
               "on bool tensors ``*`` is logical and. float16/bfloat16 times a single value "
               "reads that value in float32 unrounded, as torch's kernel does."),
    binary("multiply", alias_of="mul", doc="``torch.multiply``: ``mul``."),
    division("div", operators=("__truediv__",), inplace_operators=("__itruediv__",),
             doc="``input / other``, broadcast (``torch.div``). ``rounding_mode=None``: true "
                 "division, integer and bool inputs give the default float dtype; "
                 "``\"trunc\"`` rounds the quotient toward zero, ``\"floor\"`` down "
                 "(Python's ``//``), both keep ``result_type``.\n\nRaises RuntimeError for "
                 "an unknown rounding mode or an integer division by zero "
                 "(\"ZeroDivisionError\"); NotImplementedError for a rounding mode on bool "
                 "tensors."),
    division("divide", alias_of="div", doc="``torch.divide``: ``div``."),
    division("true_divide", modes=False, alias_of="div",
             doc="``torch.true_divide``: ``div`` without a rounding mode."),
    # ---------------------------------------------------------- comparisons (chapter 3)
    comparison("eq", "__eq__", "=="),
    comparison("ne", "__ne__", "!="),
    comparison("lt", "__lt__", "<"),
    comparison("le", "__le__", "<="),
    comparison("gt", "__gt__", ">"),
    comparison("ge", "__ge__", ">="),
    # ---------------------------------------------------------- more arithmetic (chapter 3)
    declare("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", method=False,
            doc="``other - alpha * input`` (``torch.rsub``; what ``2 - t`` runs). Result "
                "dtype: ``result_type``.\n\nRaises RuntimeError as ``sub``: a bool operand, "
                "shapes that do not broadcast, a bad ``alpha``."),
    declare("floor_divide(Tensor self, Tensor other) -> Tensor",
            "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",
            out=("floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            inplace=True, inplace_function=False, numbers_as_tensors=True,
            inplace_overloads=(("default", "Tensor"),),
            operators=("__floordiv__",), inplace_operators=("__ifloordiv__",),
            doc="``input // other``: ``div(input, other, rounding_mode=\"floor\")`` "
                "(``torch.floor_divide``). Result dtype: ``result_type``. Not "
                "differentiable: its backward raises.\n\nRaises RuntimeError for an "
                "integer division by zero (\"ZeroDivisionError\") or shapes that do not "
                "broadcast; NotImplementedError for bool tensors."),
    declare("remainder.Tensor(Tensor self, Tensor other) -> Tensor",
            "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
            "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
            out=("remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            inplace=True, inplace_function=False, operators=("__mod__",),
            inplace_operators=("__imod__",),
            doc="Python's ``input % other``: the result takes the sign of ``other`` "
                "(``torch.remainder``). Result dtype: ``result_type``.\n\nRaises "
                "RuntimeError for an integer remainder by zero (\"ZeroDivisionError\") or "
                "shapes that do not broadcast; NotImplementedError for bool tensors."),
    declare("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
            "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
            "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
            out=("pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            inplace=True, inplace_function=False,
            inplace_overloads=(("Tensor_Tensor", "Tensor"), ("Tensor_Scalar", "Scalar")),
            operators=("__pow__",), inplace_operators=("__ipow__",),
            doc="``input ** exponent``, broadcast (``torch.pow``). Result dtype: "
                "``result_type``. Integers wrap around; an integer tensor exponent below 0 "
                "gives 0 (or +-1 for a base of +-1). ``x ** 0`` is 1 and ``x ** 1`` is ``x`` "
                "for every ``x``. A number base (``2 ** t``) gives a contiguous result.\n\n"
                "Raises RuntimeError for an integer or bool tensor to a negative Python int, "
                "an exponent that does not fit the tensor's dtype, or shapes that do not "
                "broadcast; NotImplementedError for a bool tensor to a bool tensor."),
    declare("positive(Tensor(a) self) -> Tensor(a)", operators=("__pos__",),
            doc="``+input``: ``input`` itself, not a copy (``torch.positive``).\n\nRaises "
                "RuntimeError for a bool tensor."),
    # ---------------------------------------------------------- three operands (chapter 3)
    declare("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
            "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
            out=("lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) "
                 "-> Tensor(a!)",
                 "lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) "
                 "-> Tensor(a!)"),
            inplace=True, inplace_function=False,
            doc="``input + weight * (end - input)``, broadcast (``torch.lerp``), as torch's "
                "CPU kernel (AVX2/AVX512) computes it: with one rounding (a fused "
                "multiply-add), ``fma(weight, end - input, input)`` where ``|weight| < 0.5``, else "
                "``fma(weight - 1, end - input, end)``, so a weight of 1 gives ``end`` "
                "exactly. float16 and bfloat16 compute in float32 (a number ``weight`` "
                "unrounded) and round once. ``weight`` is a number or a tensor of "
                "``input``'s dtype (a 0-d one of another dtype is converted). Adam's "
                "``exp_avg.lerp_(grad, 1 - beta1)``.\n\nRaises RuntimeError for an "
                "``end`` (or a ``weight`` with dims) of another dtype, shapes that do not "
                "broadcast, a number ``weight`` out of the dtype's range; "
                "NotImplementedError for integer and bool tensors."),
    declare("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> "
            "Tensor",
            out=("addcmul.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            deprecated=("addcmul(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2) -> "
                        "Tensor",
                        "addcmul(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``input + value * tensor1 * tensor2``, broadcast (``torch.addcmul``), in "
                "``result_type`` of the three. Floats as torch's CPU kernel (AVX2/AVX512) "
                "rounds them: ``value * tensor1`` rounded, then one fused multiply-add, "
                "``fma(value * tensor1, tensor2, input)``; float16 and bfloat16 compute in "
                "float32 and round once; integers wrap around. ``value`` is converted to "
                "the result dtype (float32 for float16 and bfloat16) with a range check "
                "(a float ``value`` of an integer result is truncated). Adam's "
                "``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``."
                "\n\nRaises RuntimeError for shapes that do not broadcast, a ``value`` out "
                "of range; NotImplementedError for bool."),
    declare("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> "
            "Tensor",
            out=("addcdiv.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            deprecated=("addcdiv(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2) -> "
                        "Tensor",
                        "addcdiv(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``input + value * tensor1 / tensor2``, broadcast (``torch.addcdiv``), in "
                "``result_type`` of the three, rounded as torch's CPU kernel: "
                "``input + ((value * tensor1) / tensor2)``, each operation rounded (float16 "
                "and bfloat16 in float32, rounded once). ``value`` as ``addcmul``'s. Adam's "
                "``param.addcdiv_(exp_avg, denom, value=-step_size)``.\n\nRaises "
                "RuntimeError when ``tensor1`` and ``tensor2`` are both integer or bool "
                "(torch no longer divides integers here), for shapes that do not "
                "broadcast, a ``value`` out of range."),
    # ---------------------------------------------------------- bitwise and logical (chapter 3)
    bitwise("bitwise_and", "&", ("__and__", "__rand__"), ("__iand__",)),
    bitwise("bitwise_or", "|", ("__or__", "__ror__"), ("__ior__",)),
    bitwise("bitwise_xor", "^", ("__xor__", "__rxor__"), ("__ixor__",)),
    declare("bitwise_not(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            inplace_function=False,
            out=("bitwise_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``~input``: every bit flipped; on bool, logical not (``torch.bitwise_not``)."
                "\n\nRaises NotImplementedError for a floating tensor (the operator ``~`` "
                "raises TypeError there)."),
    logical("logical_and", "both are true"),
    logical("logical_or", "either is true"),
    logical("logical_xor", "exactly one is true"),
    declare("logical_not(Tensor self) -> Tensor", inplace=True, inplace_function=False,
            out=("logical_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``input == 0`` as a bool tensor (``torch.logical_not``); any dtype. In place "
                "the 0 or 1 is written in ``self``'s dtype; ``out=`` may have any dtype."),
    # ---------------------------------------------------------- copies (chapter 2)
    declare("flip(Tensor self, int[] dims) -> Tensor",
            doc="A copy with the elements in reverse order along each of ``dims`` "
                "(``torch.flip``), laid out like ``clone``: a dense input keeps its strides. "
                "``t.flip(0, 1)`` is ``t.flip((0, 1))``.\n\nRaises RuntimeError for a dim "
                "listed twice, IndexError for a dim out of range."),
    # ---------------------------------------------------------- reductions (chapter 4)
    # A reduction reduces over ``dim``: None or ``()`` for every dim (``all``/``any``: ``()``
    # is no dim), a negative dim counting from the end; a 0-d tensor takes dim 0 and -1.
    # The result is a fresh row-major tensor whatever the input's layout.
    declare("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
            "ScalarType? dtype=None) -> Tensor",
            out=("sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, "
                 "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",),
            doc="The sum over ``dim`` (``torch.sum``); the sum of no elements is 0. Bool and "
                "integer inputs give int64; ``dtype=`` converts the input first (so "
                "``sum(dtype=int8)`` wraps), and an ``out=`` without ``dtype=`` sums in "
                "``out``'s dtype.\n\nRaises IndexError for a dim out of range, "
                "RuntimeError for a dim listed twice."),
    declare("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
            "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
            "dtype=None) -> Tensor",
            out=("mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
                 "dtype=None, Tensor(a!) out) -> Tensor(a!)"),
            doc="The sum over ``dim`` divided by the count (``torch.mean``), in the input's "
                "float dtype or ``dtype=``; the mean of no elements is nan.\n\nRaises "
                "RuntimeError for an integer or bool input without a float ``dtype=``, a "
                "dtype= that is not floating, a dim listed twice; IndexError for a dim out "
                "of range."),
    declare("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
            "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? "
            "dtype=None) -> Tensor",
            out=("prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? "
                 "dtype=None, Tensor(a!) out) -> Tensor(a!)",),
            doc="The product of every element, or along one dim (``torch.prod``); the "
                "product of no elements is 1. Bool and integer inputs give int64 unless "
                "``dtype=``. Floats are multiplied one at a time in their own dtype, in the "
                "order torch's iterator walks memory.\n\nRaises IndexError for a dim out of "
                "range."),
    declare("max(Tensor self) -> Tensor",
            "max.other(Tensor self, Tensor other) -> Tensor",
            "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
            "indices)",
            out=("max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                 "max.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                 "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                 "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"),
            doc="``max(input)``: the largest element, 0-d (nan wins); ``max(input, other)``: "
                "``maximum``; ``max(input, dim, keepdim=False)``: a ``(values, indices)`` "
                "named tuple (``torch.return_types.max``), the first index on ties and the "
                "first nan's if there is one (``torch.max``).\n\nRaises RuntimeError for "
                "``max()`` of an empty tensor; IndexError for a dim out of range or of size "
                "0."),
    declare("min(Tensor self) -> Tensor",
            "min.other(Tensor self, Tensor other) -> Tensor",
            "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
            "indices)",
            out=("min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                 "min.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                 "min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
                 "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)"),
            doc="``torch.min``: as ``max``, for the smallest (``min(input, other)`` is "
                "``minimum``)."),
    declare("maximum(Tensor self, Tensor other) -> Tensor",
            out=("maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The larger of ``input`` and ``other``, elementwise and broadcast "
                "(``torch.maximum``), in ``result_type``; nan wins.\n\nRaises RuntimeError "
                "for shapes that do not broadcast."),
    declare("minimum(Tensor self, Tensor other) -> Tensor",
            out=("minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The smaller of ``input`` and ``other``, elementwise (``torch.minimum``); see "
                "``maximum``."),
    declare("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
            out=("amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="The largest value over ``dim`` (``torch.amax``), in the input's dtype; nan "
                "wins. Signed zeros are not reproduced (torch's vectorised loops may pick "
                "either).\n\nRaises RuntimeError for an empty input with no dim, or an "
                "``out=`` of another dtype; IndexError for a reduced dim of size 0 or out of "
                "range."),
    declare("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
            out=("amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="The smallest value over ``dim`` (``torch.amin``); see ``amax``."),
    declare("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
            out=("argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="The int64 index of the largest value (``torch.argmax``): along ``dim``, or "
                "into the flattened tensor. The first on ties; the first nan if there is one."
                "\n\nRaises RuntimeError for a bool input or an ``out=`` that is not int64; "
                "IndexError for an empty input with no dim, a dim of size 0 or out of range."),
    declare("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
            out=("argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="The int64 index of the smallest value (``torch.argmin``); see ``argmax``."),
    declare("all(Tensor self) -> Tensor",
            "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
            "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
            out=("all.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                 "all.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "all.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            doc="True where every element over ``dim`` is nonzero (``torch.all``); True for "
                "no elements. Bool, except a uint8 input gives uint8. ``dim=()`` reduces no "
                "dim.\n\nRaises RuntimeError for an ``out=`` that is neither bool nor uint8, "
                "a dim listed twice; IndexError for a dim out of range."),
    declare("any(Tensor self) -> Tensor",
            "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
            "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
            out=("any.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
                 "any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            doc="True where some element over ``dim`` is nonzero (``torch.any``); see "
                "``all``."),
    declare("var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
            "Tensor",
            "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
            "keepdim=False) -> Tensor",
            "var(Tensor self, bool unbiased=True) -> Tensor",
            out=("var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? "
                 "correction=None, bool keepdim=False, Tensor(a!) out) -> Tensor(a!)"),
            doc="The variance over ``dim`` (``torch.var``): ``sum((x - mean)**2) / max(0, N - "
                "correction)``; ``correction`` defaults to 1, ``unbiased=False`` is 0. N - "
                "correction <= 0 gives nan or inf, with a warning. Computed in float64, "
                "rounded once to the input's dtype.\n\nRaises RuntimeError for an integer "
                "or bool input, a dim listed twice; IndexError for a dim out of range."),
    declare("std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
            "Tensor",
            "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
            "keepdim=False) -> Tensor",
            "std(Tensor self, bool unbiased=True) -> Tensor",
            out=("std.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "std.correction_out(Tensor self, int[1]? dim=None, *, Scalar? "
                 "correction=None, bool keepdim=False, Tensor(a!) out) -> Tensor(a!)"),
            doc="The standard deviation, ``sqrt(var)`` (``torch.std``); same arguments as "
                "``var``."),
    # ------------------------------------------------- scans and logsumexp (chapter 4, issue 43)
    declare("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
            out=("cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) "
                 "-> Tensor(a!)",),
            inplace=True, inplace_function=False,
            doc="The running sum along ``dim`` (``torch.cumsum``), of the input's shape: "
                "element ``i`` is the sum of elements ``0..i``. Bool and integer inputs give "
                "int64 unless ``dtype=``, which converts the input first; an ``out=`` "
                "without ``dtype=`` sums in ``out``'s dtype, and ``cumsum_`` in the input's. "
                "Accumulated one element at a time as torch's CPU kernel does, in float64 "
                "for float32 (float32 for float16/bfloat16, int64 for integers), each partial "
                "sum rounded to the result's dtype: bit for bit torch's.\n\nRaises "
                "IndexError for a dim out of range; RuntimeError for a ``dtype=`` that is "
                "not ``cumsum_``'s input's, or an ``out=`` of another dtype than ``dtype=``; "
                "NotImplementedError for a bool result with elements."),
    declare("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
            out=("cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            doc="The running product along ``dim`` (``torch.cumprod``); as ``cumsum`` "
                "(dtypes, ``out=``, accumulation in float64 for float32, errors)."),
    declare("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
            out=("cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
                 "-> (Tensor(a!) values, Tensor(b!) indices)",),
            doc="The running maximum along ``dim`` and the int64 index where it was found "
                "(``torch.cummax``, ``torch.return_types.cummax``), of the input's shape and "
                "dtype, row-major. As torch's kernel: an element at least as large as the "
                "running one takes its place (on ties the later index), a nan takes it and "
                "keeps it (the latest nan's index).\n\nRaises IndexError for a dim out of "
                "range (not checked for an empty input of one dim or more, as torch); "
                "RuntimeError for an ``out=`` of another dtype (values: the input's, "
                "indices: int64)."),
    declare("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
            out=("cummin.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
                 "-> (Tensor(a!) values, Tensor(b!) indices)",),
            doc="The running minimum along ``dim`` (``torch.cummin``); as ``cummax``."),
    declare("logcumsumexp(Tensor self, int dim) -> Tensor",
            out=("logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``log(cumsum(exp(x)))`` along ``dim`` (``torch.logcumsumexp``), as torch's "
                "CPU kernel: the running value ``r`` (float64 for float32, float32 for "
                "float16/bfloat16) becomes ``log1p(exp(min - max)) + max`` of ``r`` and "
                "the next element (that element itself when both are the same infinity); "
                "nan propagates. Row-major.\n\nRaises NotImplementedError for an integer "
                "or bool input; RuntimeError for an ``out=`` of another dtype than the "
                "input's; IndexError for a dim out of range."),
    declare("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
            out=("logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="``log(sum(exp(x)))`` over ``dim`` (``torch.logsumexp``), computed as torch's "
                "composite: the maximum ``m = amax(x, dim, keepdim=True)`` (set to 0 where "
                "it is infinite) taken off, ``log(sum(exp(x - m))) + m``; bool and integer "
                "inputs in the default dtype. Floats within a few ulps of torch's (the sum's "
                "order).\n\nRaises RuntimeError for an ``out=`` that is not floating, a dim "
                "listed twice, ``dim=()`` of an input of one dim or more (torch's own "
                "shape mismatch); IndexError for a dim out of range."),
    # --------------------------------------------- more reductions (chapter 4, issue 43)
    declare("var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
            "-> (Tensor, Tensor)",
            "var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> (Tensor, Tensor)",
            "var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", method=False,
            doc="``(var, mean)`` over ``dim`` in one call (``torch.var_mean``), a plain "
                "tuple; the arguments and the variance are ``var``'s, the mean is computed "
                "in float64 as the variance's and rounded once; no elements give nan for "
                "both.\n\nRaises RuntimeError for an integer or bool input, a dim listed "
                "twice; IndexError for a dim out of range."),
    declare("std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
            "-> (Tensor, Tensor)",
            "std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> (Tensor, Tensor)",
            "std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", method=False,
            doc="``(std, mean)`` over ``dim`` (``torch.std_mean``); as ``var_mean``."),
    declare("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? "
            "dtype=None) -> Tensor",
            out=("nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
                 "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",),
            doc="``sum`` with nan counted as 0 (``torch.nansum``); an integer or bool input "
                "is ``sum``. A float input with ``dtype=`` has its nans set to 0, is "
                "converted to ``dtype`` (so an integer dtype truncates each element), then "
                "summed; its ``out=`` without ``dtype=`` sums in ``out``'s dtype, which "
                "must be floating.\n\nRaises RuntimeError for a dim listed twice, a "
                "``dtype=`` that is not ``out``'s; NotImplementedError for a float input "
                "summed into an integer ``out=``; IndexError for a dim out of range."),
    declare("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? "
            "dtype=None) -> Tensor",
            out=("nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
                 "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",),
            doc="The mean of the elements that are not nan (``torch.nanmean``), torch's "
                "composite: ``nansum(...) / (count of non-nan)`` (its gradient node is "
                "``DivBackward0``); nan where every element is nan.\n\nRaises "
                "RuntimeError for an integer or bool input, an integer ``dtype=``."),
    declare("count_nonzero(Tensor self, int? dim=None) -> Tensor",
            "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
            doc="How many elements over ``dim`` are not 0 (``torch.count_nonzero``), int64; "
                "nan counts, ``-0.0`` does not; no dim (or ``()``) counts them all.\n\n"
                "Raises RuntimeError for a dim listed twice; IndexError for a dim out of "
                "range."),
    declare("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, "
            "Tensor max)",
            out=("aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) "
                 "min, Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)",),
            doc="``(amin, amax)`` of every element or along one ``dim`` "
                "(``torch.aminmax``, ``torch.return_types.aminmax``); nan wins both.\n\n"
                "Raises RuntimeError for an empty input and no dim, an ``out=`` of another "
                "dtype; IndexError for a dim of size 0 or out of range."),
    # ------------------------------------------------------ norms (chapter 4, issue 43)
    declare("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool "
            "keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            out=("linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool "
                 "keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The vector ``ord``-norm over ``dim`` (``torch.linalg.vector_norm``, which is "
                "this op; ``reftensor.linalg.vector_norm``): ``sum(|x|**ord)**(1/ord)``; "
                "``ord`` inf the largest ``|x|``, -inf the smallest, 0 the count of nonzero "
                "elements. ``dim`` None or ``()`` is every dim. The result has ``dtype=`` "
                "(the input converted first) or the input's floating dtype; computed in "
                "float64 and rounded once (torch accumulates float32 in float32: a few ulps "
                "apart).\n\nRaises RuntimeError for an integer or bool input, a ``dtype=`` "
                "that is not floating or narrower than the input's, a complex ``ord``, a "
                "negative or infinite ``ord`` over an empty dim, a dim listed twice, an "
                "``out=`` of another dtype than the result's; IndexError for a dim out of "
                "range."),
    declare("quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
            "interpolation='linear') -> Tensor",
            "quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str "
            "interpolation='linear') -> Tensor",
            out=("quantile.out(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
                 "interpolation='linear', Tensor(a!) out) -> Tensor(a!)",
                 "quantile.scalar_out(Tensor self, float q, int? dim=None, bool keepdim=False, "
                 "*, str interpolation='linear', Tensor(a!) out) -> Tensor(a!)"),
            doc="The ``q``-quantiles of the elements (``dim`` None: flattened) or along "
                "``dim`` (``torch.quantile``), torch's ``CompositeImplicitAutograd`` "
                "decomposition: ``sort``, the ranks ``q * (n - 1)`` (the last rank where the "
                "row has a nan), rounded for ``interpolation`` ``'lower'`` (floor), "
                "``'higher'`` (ceil), ``'nearest'`` (half to even), the values ``gather``ed "
                "below and above and ``lerp_``ed for ``'linear'`` (by the rank's fraction) "
                "and ``'midpoint'`` (by 0.5), so the graph has torch's nodes "
                "(``SqueezeBackward4``, ``LerpBackward1``, ``GatherBackward0``, "
                "``SortBackward0``). ``q`` a float or a 0-d or 1-d tensor of the input's "
                "dtype; a 1-d ``q`` puts its quantiles on a new first dim.\n\nRaises "
                "RuntimeError for an empty input, an input that is not float32 or float64, "
                "a ``q`` of another dtype, of more than 1 dim or outside [0, 1] (nan too), "
                "an unknown ``interpolation``, an ``out=`` of another dtype; IndexError for "
                "a dim out of range."),
    declare("nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
            "interpolation='linear') -> Tensor",
            "nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str "
            "interpolation='linear') -> Tensor",
            out=("nanquantile.out(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
                 "interpolation='linear', Tensor(a!) out) -> Tensor(a!)",
                 "nanquantile.scalar_out(Tensor self, float q, int? dim=None, bool keepdim=False, "
                 "*, str interpolation='linear', Tensor(a!) out) -> Tensor(a!)"),
            doc="``quantile`` ignoring nan (``torch.nanquantile``): the ranks "
                "``q * (count of non-nan - 1)`` (0 when every element is nan, which gives "
                "nan).\n\nRaises as ``quantile`` (its messages name ``quantile()``)."),
    declare("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool "
            "return_counts=False) -> (Tensor, Tensor, Tensor)", method=False,
            doc="The distinct elements of ``self``, sorted (``torch._unique2``, what "
                "``torch.unique`` without ``dim`` runs; torch's CPU kernel sorts whatever "
                "``sorted`` says), each nan distinct and last; with ``return_inverse`` each "
                "element's index among them (int64, ``self``'s shape), with "
                "``return_counts`` how many times each occurs (int64); an empty int64 "
                "tensor for each not asked for. Not differentiable (``Unique2Backward0`` "
                "raises)."),
    declare("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
            "bool return_counts=False) -> (Tensor, Tensor, Tensor)", function=False,
            method=False,
            doc="The distinct slices of ``self`` along ``dim``, in lexicographic order "
                "(``torch.unique`` with ``dim``), each slice's index among them and their "
                "counts (always computed).\n\nRaises RuntimeError for a size-0 dim other "
                "than ``dim`` (or more than one); IndexError for a dim out of range."),
    declare("unique_consecutive(Tensor self, bool return_inverse=False, bool "
            "return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)",
            function=False, method=False,
            doc="Each run of equal consecutive elements (flattened) or slices along ``dim`` "
                "kept once (``torch.unique_consecutive``), with the inverse and counts "
                "(without ``dim``, or ``dim`` 0 of a 1-d tensor, empty unless asked for)."
                "\n\nRaises as ``unique_dim``."),
    # ----------------------------------- linear algebra (chapter 4, issue 43, linalg.py)
    declare("linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool "
            "keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            "linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], bool "
            "keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            out=("linalg_matrix_norm.out(Tensor self, Scalar ord, int[] dim=[-2,-1], bool "
                 "keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
                 "linalg_matrix_norm.str_ord_out(Tensor self, str ord='fro', int[] "
                 "dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) "
                 "-> Tensor(a!)"),
            function=False, method=False,
            doc="The matrix ``ord``-norm over the two dims ``dim`` "
                "(``torch.linalg.matrix_norm``, ``reftensor.linalg.matrix_norm``), torch's "
                "composite: ``\"fro\"`` is ``linalg_vector_norm(A, 2, dim)``; 1 (-1) "
                "``amax`` (``amin``) of ``linalg_vector_norm(A, 1, dim[0])`` over ``dim[1]``, "
                "inf (-inf) the same with the dims swapped.\n\nRaises RuntimeError for an "
                "order not supported, fewer than 2 dims, an integer or bool input, ``dim`` "
                "not of 2 different dims, a ``dtype=`` not floating or narrowing; IndexError "
                "for a dim out of range. 2 (-2) is the largest (smallest) singular value, "
                "``\"nuc\"`` their sum: ``linalg_svdvals`` of the input with the two dims "
                "moved last (float16 and bfloat16 refused)."),
    declare("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, "
            "*, ScalarType? dtype=None) -> Tensor",
            "linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
            "ScalarType? dtype=None) -> Tensor",
            out=("linalg_norm.out(Tensor self, Scalar? ord=None, int[1]? dim=None, bool "
                 "keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
                 "linalg_norm.ord_str_out(Tensor self, str ord, int[1]? dim=None, bool "
                 "keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"),
            function=False, method=False,
            doc="The vector or matrix norm (``torch.linalg.norm``, ``reftensor.linalg.norm``), "
                "torch's composite: a number ``ord`` with ``dim`` of two dims (or None for a "
                "2-d input: dims 0 and 1) is ``linalg_matrix_norm``, a string ``ord`` always "
                "is; anything else is ``linalg_vector_norm`` of ``ord`` (None: 2) over "
                "``dim``.\n\nRaises RuntimeError for a ``dim`` of neither 1 nor 2 dims, an "
                "``ord`` without ``dim`` for an input that is not 1-d or 2-d, an ``out=`` of "
                "another dtype, and the chosen norm's errors; IndexError for a dim out of "
                "range."),
    declare("_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)",
            out=("_linalg_det.result(Tensor A, *, Tensor(a!) result, Tensor(b!) LU, Tensor(c!) "
                 "pivots) -> (Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots)",),
            method=False,
            doc="The determinant of each square matrix of ``A`` (``(*, n, n)``, float32 or "
                "float64) with the LU factorization it is read from (``torch._linalg_det``, "
                "what ``torch.linalg.det`` runs, ``torch.return_types._linalg_det``): "
                "``result`` of shape ``(*)``, ``LU`` (each matrix column-major) and "
                "``pivots`` (int32, 1-based) of the matrix factored: ``A.mT`` when ``A`` is "
                "contiguous, as torch.\n\nRaises RuntimeError for fewer than 2 dims, matrices "
                "that are not square, an integer or bool input, an ``out=`` of another "
                "dtype; NotImplementedError for float16 and bfloat16."),
    declare("linalg_det(Tensor A) -> Tensor",
            out=("linalg_det.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The determinant of each square matrix of ``A`` (``torch.linalg.det``, "
                "``reftensor.linalg.det``): ``_linalg_det(A).result``, of shape ``(*)`` for "
                "``A`` of ``(*, n, n)`` (``LinalgDetBackward0``).\n\nRaises "
                "``_linalg_det``'s errors."),
    declare("det(Tensor self) -> Tensor",
            doc="The determinant of each square matrix (``torch.det``): ``linalg_det``.\n\n"
                "Raises ``linalg_det``'s errors."),
    declare("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor "
            "info)",
            out=("linalg_inv_ex.inverse(Tensor A, *, bool check_errors=False, Tensor(a!) "
                 "inverse, Tensor(b!) info) -> (Tensor(a!) inverse, Tensor(b!) info)",),
            function=False, method=False,
            doc="The inverse of each square matrix of ``A`` (``(*, n, n)``, float32 or "
                "float64), solved as ``A X = I`` (``torch.linalg.inv_ex``, "
                "``reftensor.linalg.inv_ex``): ``inverse`` (each matrix column-major) and "
                "``info`` (int32 of shape ``(*)``: 0, or the 1-based index of the first zero "
                "on the diagonal of ``U`` for a singular matrix, whose inverse is then inf "
                "and nan).\n\nRaises RuntimeError for fewer than 2 dims, matrices that are "
                "not square, an integer, bool, float16 or bfloat16 input, an ``out=`` of "
                "another dtype; ``linalg.LinAlgError`` (a RuntimeError) for a singular "
                "matrix with ``check_errors=True``."),
    declare("linalg_inv(Tensor A) -> Tensor",
            out=("linalg_inv.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The inverse of each square matrix of ``A`` (``torch.linalg.inv``, "
                "``reftensor.linalg.inv``): ``linalg_inv_ex``'s ``inverse`` "
                "(``LinalgInvExBackward0``).\n\nRaises ``linalg_inv_ex``'s errors, and "
                "``linalg.LinAlgError`` for a singular matrix."),
    declare("inverse(Tensor self) -> Tensor",
            out=("inverse.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The inverse of each square matrix (``torch.inverse``): ``linalg_inv``.\n\n"
                "Raises ``linalg_inv``'s errors."),
    declare("_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) "
            "-> (Tensor result, Tensor LU, Tensor pivots, Tensor info)",
            out=("_linalg_solve_ex.result(Tensor A, Tensor B, *, bool left=True, bool "
                 "check_errors=False, Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, "
                 "Tensor(d!) info) -> (Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, "
                 "Tensor(d!) info)",),
            method=False,
            doc="``X`` with ``A X = B`` (``left``) or ``X A = B`` for square ``A`` "
                "(``(*, n, n)``) and ``B`` (``(*, n, k)``, or ``(*, n)`` / ``(n,)`` vectors), "
                "batch dims broadcast (``torch._linalg_solve_ex``, what "
                "``torch.linalg.solve`` runs): ``result`` (each matrix column-major for "
                "``left``), ``A``'s LU factorization (``LU``, int32 ``pivots``; of ``A.mT`` "
                "when ``A`` is contiguous) and ``info`` (int32, 0 or the first zero pivot, "
                "1-based).\n\nRaises RuntimeError for an integer or bool ``A``, dtypes that "
                "differ, fewer than 2 dims, matrices that are not square, shapes that do not "
                "match or broadcast, a vector ``B`` with ``left=False``, an ``out=`` of "
                "another dtype; ``linalg.LinAlgError`` for a singular ``A`` with "
                "``check_errors=True``; NotImplementedError for float16 and bfloat16."),
    declare("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) "
            "-> (Tensor result, Tensor info)",
            out=("linalg_solve_ex.out(Tensor A, Tensor B, *, bool left=True, bool "
                 "check_errors=False, Tensor(a!) result, Tensor(b!) info) -> (Tensor(a!) "
                 "result, Tensor(b!) info)",),
            function=False, method=False,
            doc="``_linalg_solve_ex``'s ``result`` and ``info`` (``torch.linalg.solve_ex``, "
                "``reftensor.linalg.solve_ex``; ``LinalgSolveExBackward0``).\n\nRaises "
                "``_linalg_solve_ex``'s errors."),
    declare("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
            out=("linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="``X`` with ``A X = B`` (``left``) or ``X A = B`` (``torch.linalg.solve``, "
                "``reftensor.linalg.solve``): ``linalg_solve_ex``'s ``result``.\n\nRaises "
                "``_linalg_solve_ex``'s errors, and ``linalg.LinAlgError`` for a singular "
                "``A``."),
    # ----------------------- Cholesky and QR (chapter 4, issue 43, cholesky.py and qr.py)
    declare("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
            "(Tensor L, Tensor info)",
            out=("linalg_cholesky_ex.L(Tensor self, *, bool upper=False, bool check_errors=False, "
                 "Tensor(a!) L, Tensor(b!) info) -> (Tensor(a!) L, Tensor(b!) info)",),
            function=False, method=False,
            doc="The Cholesky factor of each symmetric positive-definite matrix of ``self`` "
                "(``(*, n, n)``, float32 or float64; only its lower triangle is read, its "
                "upper one with ``upper``) (``torch.linalg.cholesky_ex``, "
                "``reftensor.linalg.cholesky_ex``): ``L`` lower triangular with "
                "``A = L L.mH`` (``upper``: ``U = L.mH``), each matrix column-major, and "
                "``info`` (int32 of shape ``(*)``: 0, or the order of the first leading "
                "minor that is not positive-definite; ``L`` is then LAPACK's partial "
                "factor).\n\nRaises RuntimeError for fewer than 2 dims, matrices that are "
                "not square, an integer or bool input, an ``out=`` of another dtype; "
                "``linalg.LinAlgError`` for a matrix that is not positive-definite with "
                "``check_errors=True``; NotImplementedError for a nonempty float16 or "
                "bfloat16 input."),
    declare("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
            out=("linalg_cholesky.out(Tensor self, *, bool upper=False, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="``linalg_cholesky_ex``'s ``L`` (``torch.linalg.cholesky``, "
                "``reftensor.linalg.cholesky``; ``LinalgCholeskyExBackward0``).\n\nRaises "
                "``linalg_cholesky_ex``'s errors, and ``linalg.LinAlgError`` for a matrix "
                "that is not positive-definite."),
    declare("cholesky(Tensor self, bool upper=False) -> Tensor",
            out=("cholesky.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="torch's deprecated ``torch.cholesky`` (and ``Tensor.cholesky``), with its "
                "warning (once per process from the function, once from ``out=``): "
                "``linalg.cholesky``'s factor, computed by a kernel of its own "
                "(``CholeskyBackward0``); an empty input gives ``empty_like`` (before any "
                "check); ``out=`` of any dtype the result casts to, resized and copied "
                "into.\n\nRaises RuntimeError for fewer than 2 dims and matrices that are "
                "not square; NotImplementedError for a nonempty integer, bool, float16 or "
                "bfloat16 input (``\"cholesky_cpu\" not implemented``); "
                "``linalg.LinAlgError`` for a matrix that is not positive-definite."),
    declare("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)",
            out=("linalg_qr.out(Tensor A, str mode='reduced', *, Tensor(a!) Q, Tensor(b!) R) "
                 "-> (Tensor(a!) Q, Tensor(b!) R)",),
            function=False, method=False,
            doc="The QR decomposition of each matrix of ``A`` (``(*, m, n)``, float32 or "
                "float64; ``torch.linalg.qr``, ``reftensor.linalg.qr``) by Householder "
                "reflections, as LAPACK's ``geqrf`` and ``orgqr``: ``A = Q R``, ``Q`` with "
                "orthonormal columns, ``R`` upper triangular, each matrix column-major. "
                "``mode`` ``'reduced'``: ``Q`` ``(*, m, k)``, ``R`` ``(*, k, n)`` for "
                "``k = min(m, n)``; ``'complete'``: ``Q`` ``(*, m, m)``, ``R`` "
                "``(*, m, n)``; ``'r'``: ``R`` only (``Q`` an empty tensor) "
                "(``LinalgQrBackward0``; its backward raises for ``'r'``, and for "
                "``'complete'`` with ``m > n``).\n\nRaises RuntimeError for fewer than 2 "
                "dims, an integer or bool input, an unknown ``mode``, an ``out=`` of "
                "another dtype; NotImplementedError for float16 and bfloat16."),
    declare("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)",
            out=("qr.Q(Tensor self, bool some=True, *, Tensor(a!) Q, Tensor(b!) R) -> "
                 "(Tensor(a!) Q, Tensor(b!) R)",),
            doc="torch's deprecated ``torch.qr`` (and ``Tensor.qr``), with its warning (once "
                "per process from the function, once from ``out=``): "
                "``linalg_qr(self, 'reduced' if some else 'complete')``.\n\nRaises "
                "``linalg_qr``'s errors."),
    # -------------------------- symmetric eigendecomposition (chapter 4, issue 43, eigh.py)
    declare("_linalg_eigh(Tensor A, str UPLO=\"L\", bool compute_v=True) -> (Tensor "
            "eigenvalues, Tensor eigenvectors)",
            out=("_linalg_eigh.eigenvalues(Tensor A, str UPLO=\"L\", bool compute_v=True, *, "
                 "Tensor(a!) eigenvalues, Tensor(b!) eigenvectors) -> (Tensor(a!) "
                 "eigenvalues, Tensor(b!) eigenvectors)",),
            method=False,
            doc="The eigenvalues (``(*, n)``, ascending) and orthonormal eigenvectors (the "
                "columns of each ``(n, n)`` matrix, column-major; ``(0,)`` without "
                "``compute_v``) of each symmetric matrix of ``A`` (``(*, n, n)``, float32 or "
                "float64), read from its lower (``UPLO=\"L\"``) or upper triangle "
                "(``torch._linalg_eigh``, what ``torch.linalg.eigh`` runs). An eigenvector's "
                "sign is LAPACK's choice (OpenBLAS's here, MKL's in torch: they may "
                "differ).\n\nRaises RuntimeError for fewer than 2 dims, matrices that are "
                "not square, a ``UPLO`` other than L or U, an ``out=`` of another dtype; "
                "NotImplementedError for a nonempty integer, bool, float16 or bfloat16 "
                "input."),
    declare("linalg_eigh(Tensor self, str UPLO=\"L\") -> (Tensor eigenvalues, Tensor "
            "eigenvectors)",
            out=("linalg_eigh.eigvals(Tensor self, str UPLO=\"L\", *, Tensor(a!) eigvals, "
                 "Tensor(b!) eigvecs) -> (Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)",),
            function=False, method=False,
            doc="The eigenvalues and eigenvectors of symmetric matrices "
                "(``torch.linalg.eigh``, ``reftensor.linalg.eigh``): "
                "``_linalg_eigh(self, UPLO)`` (``LinalgEighBackward0``).\n\nRaises "
                "``_linalg_eigh``'s errors."),
    declare("linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor",
            out=("linalg_eigvalsh.out(Tensor self, str UPLO=\"L\", *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="The eigenvalues of symmetric matrices, ascending (``torch.linalg.eigvalsh``, "
                "``reftensor.linalg.eigvalsh``): ``_linalg_eigh``'s eigenvalues, the "
                "eigenvectors computed only when ``self`` requires grad in grad mode (the "
                "backward needs them; ``out=`` never).\n\nRaises ``_linalg_eigh``'s errors."),
    # ------------------------------------ pairwise distances (chapter 4, issue 43, distance.py)
    declare("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor",
            function=False, method=False,
            doc="The ``p``-norm distance between each row of ``x1`` (``(*, r1, c)``) and each "
                "row of ``x2`` (``(*, r2, c)``), batch dims broadcast: ``(*, r1, r2)`` "
                "(``torch.cdist``'s op; ``reftensor.cdist`` is torch's Python function, "
                "which names ``compute_mode``). torch's composite: ``p == 2`` with "
                "``compute_mode`` 1, or None/0 and more than 25 rows, is the matrix product "
                "path (``_euclidean_dist``), the rest ``_cdist_forward``.\n\nRaises "
                "RuntimeError for fewer than 2 dims, column counts that differ, an integer "
                "or bool input, a negative ``p``, a mode other than 0, 1, 2, batch dims that "
                "do not broadcast, dtypes that differ; NotImplementedError for float16 and "
                "bfloat16 (but where no distance is computed)."),
    declare("_euclidean_dist(Tensor x1, Tensor x2) -> Tensor",
            out=("_euclidean_dist.out(Tensor x1, Tensor x2, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The Euclidean distances between the rows of ``x1`` and ``x2`` through one "
                "matrix product (``torch._euclidean_dist``): ``[-2 x1, |x1|**2, 1] @ "
                "[x2, 1, |x2|**2].mT``, clamped at 0, square-rooted "
                "(``EuclideanDistBackward0``).\n\nRaises ``matmul``'s and ``cat``'s errors."),
    declare("_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
            out=("_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``cdist``'s kernel (``torch._cdist_forward``; ``CdistBackward0``): the "
                "distances summed over the columns one by one in the dtype (the matrix "
                "product path for ``p == 2`` and mode 1, or more than 25 rows); a "
                "contiguous ``(*, r1, r2)`` tensor.\n\nRaises ``cdist``'s errors (on the "
                "meta device, torch's Python meta function's: mode 0 too)."),
    declare("_cdist_backward(Tensor grad, Tensor x1, Tensor x2, float p, Tensor cdist) -> "
            "Tensor",
            out=("_cdist_backward.out(Tensor grad, Tensor x1, Tensor x2, float p, Tensor "
                 "cdist, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The gradient of ``_cdist_forward`` for ``x1`` (``torch._cdist_backward``): "
                "``x1``'s shape with the batch broadcast against ``x2``'s, contiguous; "
                "zeros like ``x1`` for no rows, columns or batch (its own derivative is not "
                "implemented, as torch's).\n\nRaises nothing of its own."),
    # -------------------- singular value decomposition (chapter 4, issue 43, linalg_svd.py)
    declare("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? "
            "driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
            out=("_linalg_svd.U(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
                 "str? driver=None, Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) "
                 "U, Tensor(b!) S, Tensor(c!) Vh)",),
            method=False,
            doc="The singular value decomposition ``A = U diag(S) Vh`` of each matrix of ``A`` "
                "(``(*, m, n)``, float32 or float64; ``torch._linalg_svd``, what "
                "``torch.linalg.svd`` and ``torch.linalg.svdvals`` run): ``S`` (``(*, k)``, "
                "``k = min(m, n)``, decreasing), ``U`` (``(*, m, k)``, or ``(*, m, m)`` with "
                "``full_matrices``) and ``Vh`` (``(*, k, n)`` or ``(*, n, n)``), each matrix "
                "column-major; without ``compute_uv``, ``U`` and ``Vh`` are empty (``(0,)``). "
                "LAPACK's ``gesdd`` (OpenBLAS's, where torch calls MKL's): each pair of "
                "singular vectors may have the other sign than torch's.\n\nRaises "
                "RuntimeError for fewer than 2 dims, an integer or bool input, a "
                "``driver=`` (CUDA only), an ``out=`` of another dtype; "
                "``linalg.LinAlgError`` for a matrix holding NaN; NotImplementedError for "
                "float16 and bfloat16 (unless empty)."),
    declare("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, "
            "Tensor S, Tensor Vh)",
            out=("linalg_svd.U(Tensor A, bool full_matrices=True, *, str? driver=None, "
                 "Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) U, Tensor(b!) S, "
                 "Tensor(c!) Vh)",),
            function=False, method=False,
            doc="The singular value decomposition (``torch.linalg.svd``, "
                "``reftensor.linalg.svd``): ``_linalg_svd(A, full_matrices, compute_uv=True)`` "
                "(``LinalgSvdBackward0``).\n\nRaises ``_linalg_svd``'s errors."),
    declare("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor",
            out=("linalg_svdvals.out(Tensor A, *, str? driver=None, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="The singular values of each matrix of ``A`` (``(*, k)``, decreasing; "
                "``torch.linalg.svdvals``, ``reftensor.linalg.svdvals``): ``_linalg_svd``'s "
                "``S``, with ``U`` and ``Vh`` computed when ``A`` requires grad in grad mode "
                "(``LinalgSvdBackward0``).\n\nRaises ``_linalg_svd``'s errors."),
    declare("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, "
            "Tensor V)",
            out=("svd.U(Tensor self, bool some=True, bool compute_uv=True, *, Tensor(a!) U, "
                 "Tensor(b!) S, Tensor(c!) V) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) V)",),
            doc="The legacy singular value decomposition (``torch.svd``, ``Tensor.svd``): "
                "``linalg_svd(self, full_matrices=not some)`` with ``V = Vh.mH`` (a view: "
                "``A = U diag(S) V.mH``); without ``compute_uv``, the singular values and "
                "``U`` (``(*, m, m)``) and ``V`` (``(*, n, n)``) of zeros.\n\nRaises "
                "RuntimeError for fewer than 2 dims, and ``_linalg_svd``'s errors."),
    # ------------------------------------------- comparing tensors (chapter 4, issue 43)
    declare("equal(Tensor self, Tensor other) -> bool",
            doc="True when both tensors have the same shape and every pair of elements is "
                "equal, compared in their ``result_type`` (``torch.equal``): a Python bool. "
                "nan is not equal to itself; ``-0.0`` equals ``0.0``; no broadcasting (other "
                "shapes give False).\n\nRaises NotImplementedError on the meta device "
                "(torch has no meta kernel); RuntimeError for tensors on two devices."),
    declare("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool "
            "equal_nan=False) -> Tensor",
            doc="``|input - other| <= atol + |rtol * other|`` elementwise, or equal "
                "(``torch.isclose``), a bool tensor of the broadcast shape; torch's "
                "composite: integer and bool inputs compared in the default dtype, nan "
                "close to nan only with ``equal_nan``, an infinity close only to itself; "
                "zero tolerances are ``==``.\n\nRaises RuntimeError for inputs of two "
                "dtypes, a negative ``rtol`` or ``atol``, shapes that do not broadcast."),
    declare("allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool "
            "equal_nan=False) -> bool",
            doc="``isclose(...).all()`` as a Python bool (``torch.allclose``).\n\nRaises "
                "as ``isclose``; RuntimeError on the meta device (``item()`` of a meta "
                "tensor)."),
    # --------------------------------------------------- histograms (chapter 4, issue 43)
    declare("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
            doc="How many times each value ``0..max(input)`` occurs in a 1-d tensor of "
                "non-negative integers (``torch.bincount``), at least ``minlength`` bins: "
                "int64 counts, or the sums of ``weights`` (float32 weights give float32, "
                "any other dtype float64), added in the input's order.\n\nRaises "
                "RuntimeError for an input that is not 1-d or has a negative value, weights "
                "of another length, a negative ``minlength``; NotImplementedError for a "
                "float or bool input, on the meta device."),
    declare("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
            out=("histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            doc="A histogram of ``bins`` equal bins between ``min`` and ``max`` "
                "(``torch.histc``), in the input's float dtype: with ``min == max`` the "
                "data's own minimum and maximum (one more each way if they are equal too); "
                "elements outside and nans are left out, ``max`` falls in the last bin. "
                "Each element's bin is torch's ``int((x - min) * bins / (max - min))`` in "
                "the input's dtype, rounding as torch's does.\n\nRaises RuntimeError for "
                "``bins`` below 1, a range that is not finite or where ``max <= min``, an "
                "``out=`` of another dtype; NotImplementedError for an integer or bool "
                "input."),
    # ------------------------------------------------------------- sorting (chapter 4, issue 43)
    declare("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
            "(Tensor values, Tensor indices)",
            "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor "
            "indices)",
            out=("sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) "
                 "values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
                 "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool "
                 "descending=False, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) "
                 "values, Tensor(b!) indices)"),
            doc="The elements along ``dim`` in ascending (or ``descending``) order, and the "
                "int64 index each came from: a ``(values, indices)`` named tuple "
                "(``torch.return_types.sort``; ``torch.sort``). nan is larger than every "
                "number (last ascending, first descending); ``-0.0`` and ``0.0`` are equal. "
                "``stable=True`` keeps equal elements in their order; otherwise the order of "
                "ties is that of torch's CPU kernel, C++'s ``std::sort`` (an introsort), "
                "reproduced step by step where a line has ties (a 1-d integer input of "
                "32768 elements or more sorted ascending is stable: torch's radix sort; an "
                "input whose ``dim`` has stride 0 keeps its order). Both results have the "
                "input's strides when it is dense, dense strides in its dim order "
                "otherwise.\n\nRaises IndexError for a dim out of range; RuntimeError "
                "for an ``out=`` of another dtype (values: the input's, indices: int64)."),
    declare("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) "
            "-> Tensor",
            "argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
            out=("argsort.stable_out(Tensor self, *, bool stable, int dim=-1, bool "
                 "descending=False, Tensor(a!) out) -> Tensor(a!)",),
            doc="``sort``'s indices (``torch.argsort``, torch's composite: "
                "``sort(...).indices``); ``out=`` only with ``stable=``, int64.\n\nRaises "
                "as ``sort``."),
    declare("msort(Tensor self) -> Tensor",
            out=("msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``sort(input, dim=0).values`` (``torch.msort``, torch's composite: its "
                "gradient node is ``SortBackward0``); ``out=`` of the input's dtype."),
    declare("median(Tensor self) -> Tensor",
            "median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
            "indices)",
            out=("median.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) "
                 "values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",),
            doc="The lower median (``torch.median``): of every element (a 0-d value; nan if "
                "there is one, nan for no elements), or along ``dim`` with its int64 index "
                "(``torch.return_types.median``): the element at position ``(n - 1) // 2`` "
                "of the stable ascending order, or the first nan of the line.\n\nRaises "
                "NotImplementedError for a bool input; IndexError for a dim of size 0 or out "
                "of range; RuntimeError for an ``out=`` of another dtype."),
    declare("nanmedian(Tensor self) -> Tensor",
            "nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, "
            "Tensor indices)",
            out=("nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, "
                 "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) "
                 "indices)",),
            doc="``median`` of the elements that are not nan (``torch.nanmedian``); nan "
                "(index 0) where every element is nan."),
    declare("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor "
            "indices)",
            out=("mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) "
                 "values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",),
            doc="The most frequent value along ``dim`` and an int64 index of it "
                "(``torch.mode``, ``torch.return_types.mode``), as torch's CPU kernel: the "
                "line's ``(value, index)`` pairs sorted by value with ``std::sort`` "
                "(reproduced step by step), then the longest run of equal values, the first "
                "such run on ties (the smallest value), and the index of its last pair. "
                "Each nan is a run of its own.\n\nRaises IndexError for a dim of size 0 "
                "or out of range; RuntimeError for an ``out=`` of another dtype."),
    declare("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor "
            "values, Tensor indices)",
            out=("kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, "
                 "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) "
                 "indices)",),
            doc="The ``k``-th smallest element along ``dim`` (1-based) and its int64 index "
                "(``torch.kthvalue``), nan counting as the largest; the index among equal "
                "values is the one torch's quickselect (``quick_select_template``, "
                "reproduced step by step) leaves at position ``k - 1``.\n\nRaises "
                "RuntimeError for ``k`` out of range, an ``out=`` of another dtype; "
                "IndexError for a dim out of range."),
    declare("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
            "(Tensor values, Tensor indices)",
            out=("topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool "
                 "sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) "
                 "values, Tensor(b!) indices)",),
            doc="The ``k`` largest (or smallest) elements along ``dim`` and their int64 "
                "indices (``torch.topk``, ``torch.return_types.topk``), a fresh row-major "
                "result with ``k`` along ``dim``; nan counts as the largest. As torch's CPU "
                "kernel: ``std::partial_sort`` when ``64 * k`` is at most the dim's size, "
                "else ``std::nth_element`` and (``sorted``) ``std::sort`` of the first "
                "``k - 1``, reproduced step by step, so ties and the order of an unsorted "
                "result are torch's. A 0-d input is copied whatever ``k`` (0 or 1).\n\n"
                "Raises RuntimeError for ``k`` below 0 or above the dim's size, a bool "
                "input, an ``out=`` of another dtype; IndexError for a dim out of range."),
    # ---------------------------------------------------------- matrix products (chapter 3)
    declare("matmul(Tensor self, Tensor other) -> Tensor",
            out=("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            operators=("__matmul__",), reflected_operators=("__rmatmul__",),
            doc="Matrix product with torch's rules for 1-D, 2-D and batched operands "
                "(``torch.matmul``, ``@``): 1-D @ 1-D is ``dot`` (a 0-d tensor), 2-D @ 1-D "
                "``mv``, 1-D @ 2-D and 2-D @ 2-D ``mm`` (a 1-D left operand is a one-row "
                "matrix, its row dropped from the result), and N-D (N >= 3) a ``bmm`` over "
                "the broadcast batch dims, a 1-D operand getting a dim added and removed "
                "again. Both operands must have one dtype (no promotion); the result is a "
                "new contiguous tensor; ``out=`` must have exactly the result's dtype. "
                "There is no in-place form: ``t @= u`` rebinds ``t`` to ``t @ u``.\n\n"
                "Raises RuntimeError for a 0-d operand, inner sizes or batch dims that do "
                "not match, or different dtypes; NotImplementedError for bool tensors."),
    declare("mm(Tensor self, Tensor mat2) -> Tensor",
            "mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
            out=("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
                 "mm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            function_only=("dtype",),
            doc="Product of two matrices (``torch.mm``): ``(n, k) @ (k, m)`` gives a "
                "contiguous ``(n, m)`` of their common dtype (float16/bfloat16 summed in "
                "float32, integers in int64, wrapping as torch's do). ``out_dtype`` is "
                "torch's CUDA-only overload: NotImplementedError on the CPU, as in torch."
                "\n\nRaises RuntimeError for an operand that is not 2-D, inner sizes or "
                "dtypes that differ, an ``out=`` of another dtype; NotImplementedError for "
                "bool matrices with something to sum."),
    declare("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
            "-> Tensor",
            "addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, "
            "Scalar beta=1, Scalar alpha=1) -> Tensor",
            out=("addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar "
                 "alpha=1, Tensor(a!) out) -> Tensor(a!)",
                 "addmm.dtype_out(Tensor self, Tensor mat1, Tensor mat2, ScalarType "
                 "out_dtype, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"),
            function_only=("dtype",), inplace=True, inplace_function=False,
            deprecated=("addmm(Scalar beta, Tensor self, Scalar alpha, Tensor mat1, Tensor "
                        "mat2) -> Tensor",
                        "addmm(Scalar beta, Tensor self, Scalar alpha, Tensor mat1, Tensor "
                        "mat2, *, Tensor(a!) out) -> Tensor(a!)",
                        "addmm(Scalar beta, Tensor self, Tensor mat1, Tensor mat2) -> Tensor",
                        "addmm(Scalar beta, Tensor self, Tensor mat1, Tensor mat2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``): ``mat1`` "
                "``(n, k)`` and ``mat2`` ``(k, m)`` of one dtype, ``input`` of that dtype "
                "broadcasting to ``(n, m)``; a new contiguous ``(n, m)`` (in place: "
                "written through ``input``'s strides, which must be ``(n, m)``). The "
                "product as ``mm``'s (float16/bfloat16 summed in float32, integers in "
                "int64), then ``alpha`` and ``beta`` in that precision, rounded once. As "
                "BLAS: ``beta == 0`` ignores ``input`` (its nans too), ``alpha == 0`` the "
                "product. ``nn.functional.linear``'s fused path. ``out_dtype`` is torch's "
                "CUDA-only overload: NotImplementedError on the CPU.\n\nRaises "
                "RuntimeError for dtypes that differ, a ``mat1`` or ``mat2`` that is not "
                "2-D, inner sizes that differ, an ``input`` that does not broadcast (in "
                "place: that is not ``(n, m)``), an ``out=`` of another dtype; "
                "NotImplementedError for bool matrices with something to sum."),
    declare("addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> "
            "Tensor",
            out=("addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar "
                 "alpha=1, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True,
            deprecated=("addmv(Scalar beta, Tensor self, Scalar alpha, Tensor mat, Tensor vec) "
                        "-> Tensor",
                        "addmv(Scalar beta, Tensor self, Scalar alpha, Tensor mat, Tensor vec, "
                        "*, Tensor(a!) out) -> Tensor(a!)",
                        "addmv(Scalar beta, Tensor self, Tensor mat, Tensor vec) -> Tensor",
                        "addmv(Scalar beta, Tensor self, Tensor mat, Tensor vec, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``beta * input + alpha * (mat @ vec)`` (``torch.addmv``): ``mat`` ``(n, k)``, "
                "``vec`` ``(k,)`` and ``input`` (``(n,)``, one element, or 0-d) of one dtype; "
                "a new contiguous ``(n,)`` (in place: into ``input``, which must be "
                "``(n,)``). As torch's CPU kernel: ``beta == 0`` ignores ``input`` (its nans "
                "too); for float32/float64 (BLAS) ``alpha == 0`` skips the product; an "
                "integer dtype truncates a float ``beta`` or ``alpha``; float16/bfloat16 "
                "computed in float32.\n\nRaises RuntimeError for wrong dims or sizes, dtypes "
                "that differ, an ``out=`` of another dtype; NotImplementedError for bool "
                "(with something to sum)."),
    declare("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
            out=("linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``input @ weight.T + bias`` (``torch.nn.functional.linear``, which is "
                "this op: torch has no ``torch.linear``): ``input`` ``(*, in_features)``, "
                "``weight`` ``(out_features, in_features)``, ``bias`` ``(out_features,)`` or "
                "anything that broadcasts. torch's ``CompositeImplicitAutograd`` "
                "decomposition, so the graph has torch's nodes: a 2-d ``input`` with a "
                "bias is ``addmm(bias, input, weight.t())`` (``AddmmBackward0``); a "
                "contiguous ``input`` with a contiguous bias of one dim (after "
                "``squeeze``) is flattened to 2-d, ``addmm``, then viewed back "
                "(``ViewBackward0``); otherwise ``matmul(input, weight.t())``, then "
                "``add_(bias)`` in place.\n\nRaises RuntimeError for a 0-d ``input`` or "
                "``weight``, sizes or dtypes that do not match (as ``addmm`` and "
                "``matmul``)."),
    declare("bmm(Tensor self, Tensor mat2) -> Tensor",
            "bmm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor",
            out=("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
                 "bmm.dtype_out(Tensor self, Tensor mat2, ScalarType out_dtype, *, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            function_only=("dtype",),
            doc="A batch of matrix products (``torch.bmm``): ``(b, n, k) @ (b, k, m)`` gives "
                "``(b, n, m)``, no broadcasting. ``out_dtype``: CUDA only, as in torch.\n\n"
                "Raises RuntimeError for an operand that is not 3-D, batch or inner sizes "
                "or dtypes that differ, an ``out=`` of another dtype; NotImplementedError "
                "for bool."),
    declare("mv(Tensor self, Tensor vec) -> Tensor",
            out=("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Matrix times vector (``torch.mv``): ``(n, k) @ (k,)`` gives ``(n,)``.\n\n"
                "Raises RuntimeError for wrong dims, sizes or dtypes, an ``out=`` of "
                "another dtype; NotImplementedError for bool."),
    declare("dot(Tensor self, Tensor tensor) -> Tensor",
            out=("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Inner product of two vectors, a 0-d tensor (``torch.dot``).\n\nRaises "
                "RuntimeError for operands that are not 1-D, of different sizes or dtypes, "
                "an ``out=`` of another dtype; NotImplementedError for bool."),
    declare("vdot(Tensor self, Tensor other) -> Tensor",
            out=("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Inner product of two vectors, the first conjugated (``torch.vdot``): for "
                "reftensor's real dtypes ``dot``'s value, a 0-d tensor of their common "
                "dtype (float16/bfloat16 summed in float32, integers in int64, wrapping).\n\n"
                "Raises RuntimeError for operands that are not 1-D, of different sizes or "
                "dtypes, an ``out=`` of another dtype; NotImplementedError for bool."),
    declare("outer(Tensor self, Tensor vec2) -> Tensor",
            out=("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Outer product of two vectors (``torch.outer``): ``(n,)`` and ``(m,)`` give "
                "``(n, m)``, ``self[i] * vec2[j]``. torch's ``CompositeImplicitAutograd`` "
                "decomposition, ``self.reshape(n, 1) * vec2``: it promotes as ``mul`` does "
                "(``MulBackward0`` over ``ViewBackward0``); ``out=`` is ``mul``'s.\n\n"
                "Raises RuntimeError for an operand that is not 1-D, an ``out=`` that cannot "
                "hold the result's dtype."),
    declare("ger(Tensor self, Tensor vec2) -> Tensor",
            out=("ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``torch.ger``: ``outer``, deprecated: torch's warning the first time "
                "(once per process), then ``outer`` (its graph, errors and ``out=``)."),
    declare("inner(Tensor self, Tensor other) -> Tensor",
            out=("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Sum of products over the last dims (``torch.inner``): ``(*a, k)`` and "
                "``(*b, k)`` give ``(*a, *b)``. torch's ``CompositeImplicitAutograd`` "
                "decomposition: ``self * other`` when either is 0-d, else ``tensordot`` "
                "over dims ``[-1]`` and ``[-1]`` (no promotion there); ``out=`` as "
                "``mul``'s or ``tensordot``'s.\n\nRaises RuntimeError for last dims that "
                "differ, dtypes that differ, operands on different devices, an ``out=`` of "
                "another dtype; NotImplementedError for bool (but 0-d)."),
    declare("cross(Tensor self, Tensor other, int? dim=None) -> Tensor",
            out=("cross.out(Tensor self, Tensor other, int? dim=None, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="Cross product of 3-vectors along ``dim`` (``torch.cross``): torch's "
                "``CompositeImplicitAutograd`` wrapper of ``linalg_cross`` (its rules, "
                "errors, ``out=`` and ``LinalgCrossBackward0``), except that ``dim`` "
                "defaults to the first dim of size 3 (deprecated: torch's warning once per "
                "process).\n\nRaises RuntimeError for no dim of size 3 when ``dim`` is not "
                "given, then ``linalg_cross``'s errors."),
    declare("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
            out=("linalg_cross.out(Tensor self, Tensor other, *, int dim=-1, Tensor(a!) out) "
                 "-> Tensor(a!)",),
            function=False, method=False,
            doc="Cross product of 3-vectors along ``dim`` (``torch.linalg.cross``, "
                "``reftensor.linalg.cross``): both operands have the same number of dims, "
                "size 3 along ``dim``, and broadcast over the others; a new contiguous "
                "tensor of ``self``'s dtype (computed as torch's CPU loop: float16/bfloat16 "
                "round each product, float32 as one fused multiply-add, integers wrap).\n\n"
                "Raises RuntimeError for dims of different numbers, a ``dim`` of size other "
                "than 3, shapes that do not broadcast, dtypes that differ, an ``out=`` of "
                "another dtype; IndexError for a ``dim`` out of range; NotImplementedError "
                "for bool."),
    declare("addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) "
            "-> Tensor",
            inplace=True, inplace_function=False,
            out=("addr.out(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar "
                 "alpha=1, Tensor(a!) out) -> Tensor(a!)",),
            deprecated=("addr(Scalar beta, Tensor self, Scalar alpha, Tensor vec1, Tensor vec2) "
                        "-> Tensor",
                        "addr(Scalar beta, Tensor self, Scalar alpha, Tensor vec1, Tensor vec2, "
                        "*, Tensor(a!) out) -> Tensor(a!)",
                        "addr(Scalar beta, Tensor self, Tensor vec1, Tensor vec2) -> Tensor",
                        "addr(Scalar beta, Tensor self, Tensor vec1, Tensor vec2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``beta * self + alpha * outer(vec1, vec2)`` (``torch.addr``): ``(n,)`` and "
                "``(m,)`` vectors, ``self`` broadcast to ``(n, m)``; the three promoted to "
                "their common dtype (torch's iterator), a result laid out like them. "
                "``beta`` 0 ignores ``self`` (its nans too); bool computes ``(beta and "
                "self) or (alpha and vec1 and vec2)``. ``addr_`` writes into ``self`` "
                "(``addr(..., out=self)``); ``out=`` takes any dtype the result casts to.\n\n"
                "Raises RuntimeError for vectors that are not 1-D, a ``self`` that does not "
                "broadcast to ``(n, m)`` (or, in place, is not ``(n, m)``), a bool "
                "``beta``/``alpha`` for a non-bool result, a float one for an integer "
                "result, an ``out=`` the result cannot be cast to."),
    declare("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
            function=False, method=False,
            doc="Sums of products of ``tensors`` over the labels the equation leaves out "
                "of the output (``torch.einsum``, whose Python function takes the operands "
                "one by one or as one list and calls this op; torch's opt_einsum path is not "
                "taken: opt_einsum is not installed with torch 2.13 here). torch's "
                "``CompositeImplicitAutograd`` decomposition: labels ``[a-zA-Z]``, ``...`` "
                "for the dims no label names, ``->`` then the output's labels (without it: "
                "the ellipsis' dims, then the labels seen once, upper case first, sorted); "
                "a label repeated in one operand takes its ``diagonal``; each operand is "
                "``unsqueeze``\\ d and ``permute``\\ d to one dim per label; then the "
                "operands are contracted two at a time, left to right (or by ``path``): a "
                "label only one of them still has is summed there (``sum``), the others by "
                "one ``bmm`` (``mul`` when nothing is summed); a single operand is summed "
                "over its labels absent from the output. Sizes broadcast (1 against any "
                "size).\n\nRaises RuntimeError for a malformed equation (a subscript "
                "outside ``[a-zA-Z]``, a lone ``.``, two ellipses, an output label not in "
                "the inputs or given twice), more or fewer operands than the equation names, "
                "subscripts that do not match an operand's dims, sizes that do not "
                "broadcast, a repeated label over dims of different sizes, a bad ``path``."),
    declare("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar "
            "alpha=1) -> Tensor",
            "baddbmm.dtype(Tensor self, Tensor batch1, Tensor batch2, ScalarType out_dtype, "
            "*, Scalar beta=1, Scalar alpha=1) -> Tensor",
            out=("baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                 "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                 "baddbmm.dtype_out(Tensor self, Tensor batch1, Tensor batch2, ScalarType "
                 "out_dtype, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"),
            function_only=("dtype",), inplace=True, inplace_function=False,
            deprecated=("baddbmm(Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor "
                        "batch2) -> Tensor",
                        "baddbmm(Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor "
                        "batch2, *, Tensor(a!) out) -> Tensor(a!)",
                        "baddbmm(Scalar beta, Tensor self, Tensor batch1, Tensor batch2) -> "
                        "Tensor",
                        "baddbmm(Scalar beta, Tensor self, Tensor batch1, Tensor batch2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``beta * input + alpha * (batch1 @ batch2)`` (``torch.baddbmm``): "
                "``batch1`` ``(b, n, k)``, ``batch2`` ``(b, k, m)``, ``input`` of "
                "``batch1``'s dtype broadcasting to ``(b, n, m)``; a new contiguous "
                "``(b, n, m)`` of ``batch2``'s dtype (in place: into ``input``, which must "
                "be ``(b, n, m)``). As torch's CPU kernel: ``beta == 0`` ignores ``input`` "
                "(its nans too); an inner size of 0 gives ``input * beta``; small products "
                "(``k * n * m < 400``) summed one by one in float32 (float16/bfloat16, "
                "float32), float64 or the integer dtype, then ``input * beta + alpha * "
                "sum``; larger ones as BLAS's gemm. An integer dtype truncates a float "
                "``beta`` or ``alpha`` (but ``input * beta`` with nothing to sum refuses "
                "it). ``out_dtype`` is torch's CUDA-only overload: NotImplementedError on "
                "the CPU.\n\nRaises RuntimeError for operands that are not 3-D, sizes "
                "that do not match, an ``input`` that does not broadcast (in place: of "
                "another shape or dtype), dtypes that differ, an ``out=`` of another "
                "dtype; IndexError for a ``batch1``/``batch2`` of too few dims to read the "
                "result's shape; NotImplementedError for bool (with something to sum)."),
    declare("addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar "
            "alpha=1) -> Tensor",
            out=("addbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                 "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            deprecated=("addbmm(Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor "
                        "batch2) -> Tensor",
                        "addbmm(Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor "
                        "batch2, *, Tensor(a!) out) -> Tensor(a!)",
                        "addbmm(Scalar beta, Tensor self, Tensor batch1, Tensor batch2) -> "
                        "Tensor",
                        "addbmm(Scalar beta, Tensor self, Tensor batch1, Tensor batch2, *, "
                        "Tensor(a!) out) -> Tensor(a!)"),
            doc="``beta * input + alpha * sum over i of batch1[i] @ batch2[i]`` "
                "(``torch.addbmm``): ``batch1`` ``(b, n, k)``, ``batch2`` ``(b, k, m)``, "
                "``input`` broadcasting to ``(n, m)``; a new contiguous ``(n, m)`` of "
                "``input``'s dtype (in place: into ``input``, broadcast or not; ``out=`` "
                "resized as by ``resize_as_``, without a warning). As torch's CPU kernel: "
                "``input`` copied in, then one ``addmm_`` per matrix (``beta`` for the "
                "first, 1 after it), so the dtype checks and values are ``addmm``'s; "
                "``beta == 0`` ignores ``input``; no matrices: ``input * beta``.\n\n"
                "Raises RuntimeError for operands that are not 3-D, batch or inner sizes "
                "that differ, an ``input`` that does not broadcast, dtypes that differ "
                "(``out=``'s included); IndexError for a ``batch1``/``batch2`` of too few "
                "dims to read the result's shape; NotImplementedError for bool (with "
                "something to sum)."),
    declare("linalg_multi_dot(Tensor[] tensors) -> Tensor",
            out=("linalg_multi_dot.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The product of a chain of matrices (``torch.linalg.multi_dot``, "
                "``reftensor.linalg.multi_dot``): two or more tensors, the first ``(a, b)`` "
                "or a vector ``(b,)`` (a row), the last ``(y, z)`` or a vector ``(y,)`` (a "
                "column), the others matrices, of one dtype; a contiguous ``(a, z)`` without "
                "the dims the vectors stand for (two vectors: 0-d), viewed from the last "
                "``mm``. torch's ``CompositeImplicitAutograd`` decomposition into ``mm``, in "
                "the cheapest order (three matrices: one comparison of costs; more: the "
                "dynamic programme of the matrix-chain order), so values round as "
                "torch's; ``out=`` of exactly the dtype, written by the last ``mm``.\n\n"
                "Raises RuntimeError for fewer than two tensors, a first or last tensor of "
                "other than 1 or 2 dims, a middle one that is not 2-D, dtypes that differ, "
                "sizes that cannot be multiplied, an ``out=`` of another dtype; "
                "NotImplementedError for bool."),
    declare("chain_matmul(Tensor[] matrices) -> Tensor",
            out=("chain_matmul.out(Tensor[] matrices, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The product of a chain of matrices (``torch.chain_matmul``, deprecated for "
                "``linalg.multi_dot``, with torch's warning once per process; torch's "
                "Python function, ``reftensor.chain_matmul``, takes the matrices one by "
                "one): every tensor 2-D, one matrix cloned (``out=``: copied, into any "
                "dtype it casts to), more as ``linalg_multi_dot``.\n\nRaises "
                "RuntimeError for a tensor that is not 2-D, no matrices, then "
                "``linalg_multi_dot``'s errors."),
    declare("linalg_matrix_power(Tensor self, int n) -> Tensor",
            out=("linalg_matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="``A`` to the power ``n`` (``torch.linalg.matrix_power``, "
                "``reftensor.linalg.matrix_power``): ``(*, m, m)`` square matrices of any "
                "dtype ``matmul`` takes; a contiguous result of the input's shape and dtype. "
                "torch's ``CompositeImplicitAutograd`` decomposition: ``n`` 0 copies the "
                "identity into a clone, 1 clones, 2 and 3 are ``matmul``s, larger ``n`` "
                "repeated squaring from the least significant bit (so floats round as "
                "torch's); ``out=`` of any dtype the input casts to (``n`` 2 and up: "
                "``matmul``'s, exactly the dtype). A negative ``n`` is ``linalg_inv(A)`` "
                "(-1: into ``out``, exactly the dtype) raised to ``-n`` the same way.\n\n"
                "Raises RuntimeError for fewer than 2 dims, matrices that are not square, an "
                "``out=`` the result cannot be cast to, a negative ``n`` of an integer, bool, "
                "float16 or bfloat16 input; ``linalg.LinAlgError`` for a negative ``n`` of a "
                "singular matrix; NotImplementedError for bool (``n`` 2 and up)."),
    declare("matrix_power(Tensor self, int n) -> Tensor",
            out=("matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``A`` to the power ``n`` (``torch.matrix_power``, ``Tensor.matrix_power``): "
                "torch's alias of ``linalg_matrix_power`` (its rules, errors and graph)."),
    declare("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
            out=("tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] "
                 "dims_other, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="Contraction of ``dims_self`` of ``self`` with ``dims_other`` of ``other`` "
                "(``torch.tensordot``, whose Python function takes ``dims`` as an int, two "
                "lists or a tensor and calls this op): the result has ``self``'s other dims "
                "then ``other``'s. torch's ``CompositeImplicitAutograd`` decomposition: a "
                "contracted dim of size 1 on one side is summed away on the other (``sum`` "
                "keeping the dim), both operands are permuted, reshaped to matrices and "
                "multiplied with ``mm`` (``dot`` when nothing is left uncontracted), and "
                "the product reshaped. ``out=``: exactly the result's dtype, written with "
                "``copy_`` (recorded as ``CopyBackwards``).\n\nRaises RuntimeError for "
                "lists of different lengths, dtypes that differ, contracted sizes that "
                "differ, a dim given twice; IndexError for a dim out of range."),
    declare("trace(Tensor self) -> Tensor",
            doc="Sum of a matrix's main diagonal (``torch.trace``), a 0-d tensor: integers "
                "(of any width) summed into int64, floats in their dtype (summed one by one "
                "in float64 for float32, float32 for float16/bfloat16).\n\nRaises "
                "RuntimeError for an input that is not 2-D; NotImplementedError for bool."),
    declare("kron(Tensor self, Tensor other) -> Tensor",
            out=("kron.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Kronecker product (``torch.kron``): the dims are aligned from the right "
                "(the one with fewer padded with 1s), and each size is the product of the "
                "two. torch's ``CompositeImplicitAutograd`` decomposition: ``self`` viewed "
                "with a 1 after each dim, ``other`` with a 1 before each, ``mul`` "
                "(promoting), then ``_unsafe_view`` to the result's shape "
                "(``UnsafeViewBackward0``); ``out=`` is ``mul``'s into a view of ``out`` "
                "resized to the result's shape.\n\nRaises RuntimeError for an ``out=`` that "
                "cannot hold the result's dtype."),
    # ---------------------------------------------------------- copies and fills
    declare("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
            doc="A copy in new storage, with no ``_base`` (``torch.clone``), of the same shape "
                "and dtype. ``memory_format``: ``None`` or ``preserve_format`` keeps the "
                "strides of a dense, non-overlapping input (an empty one counts as dense) and "
                "makes other layouts dense in the input's dim order; ``contiguous_format`` "
                "and ``channels_last`` lay it out so.\n\nRaises RuntimeError for "
                "``channels_last`` on a tensor that is not 4-d."),
    declare("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) "
            "-> Tensor(a)", function=False,
            doc="``self`` itself when it is already contiguous in ``memory_format`` "
                "(``Tensor.contiguous``), else ``clone(memory_format=memory_format)``.\n\n"
                "Raises RuntimeError for ``preserve_format`` when a copy is needed, or "
                "``channels_last`` on a tensor that is not 4-d."),
    declare("cat(Tensor[] tensors, int dim=0) -> Tensor", method=False,
            out=("cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The tensors joined along the existing dim ``dim`` (``torch.cat``): same "
                "sizes except in ``dim``; the dtype promotes all of theirs; laid out "
                "channels-last when every input is, else contiguous. A 1-d empty tensor "
                "(shape ``(0,)``) is skipped, whatever the others' dims (torch's legacy "
                "rule). With ``out=``, the values are written in ``out``'s dtype.\n\nRaises "
                "ValueError for no tensors; RuntimeError for a 0-d input, different numbers "
                "of dims, sizes that differ outside ``dim``, an ``out`` that overlaps an "
                "input or itself; IndexError for ``dim`` out of range; TypeError for an "
                "element that is no tensor, or an ``out`` dtype the inputs cannot be cast "
                "to."),
    declare("concat(Tensor[] tensors, int dim=0) -> Tensor", method=False, alias_of="cat",
            out=("concat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``torch.concat``: ``cat``."),
    declare("concatenate(Tensor[] tensors, int dim=0) -> Tensor", method=False,
            alias_of="cat",
            out=("concatenate.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="``torch.concatenate``: ``cat``."),
    declare("stack(Tensor[] tensors, int dim=0) -> Tensor", method=False,
            out=("stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Same-shaped tensors joined along a new dim ``dim`` (``torch.stack``): their "
                "``cat`` along ``dim`` seen with one more dim, laid out as that ``cat``.\n\n"
                "Raises RuntimeError for no tensors or tensors of different shapes (and as "
                "``cat`` for ``out=``); IndexError for ``dim`` out of range for ``dim() + "
                "1`` dims."),
    declare("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
            function=False, numbers_as_tensors=True, python_names=(("src", "other"),),
            deprecated=("copy_(Tensor(a!) self, Tensor src, bool async=False) -> Tensor(a!)",),
            doc="Write ``other`` into ``self`` (``Tensor.copy_``), broadcast to self's shape "
                "and converted to self's dtype; a Python number is taken as a tensor. "
                "``non_blocking`` changes nothing on the CPU. Returns ``self``.\n\nRaises "
                "RuntimeError for an ``other`` that does not broadcast to self's shape, a "
                "``self`` that is expanded or partly overlaps ``other``; NotImplementedError "
                "for a meta ``other`` into a CPU ``self``."),
    declare("fill.Tensor(Tensor self, Tensor value) -> Tensor",
            "fill.Scalar(Tensor self, Scalar value) -> Tensor", method=False, inplace=True,
            doc="A tensor like ``input`` (same shape, dtype and dense layout) with every "
                "element ``value`` (``torch.fill``); ``t.fill_(value)`` writes ``t`` itself. "
                "A number is checked against the dtype's range, a 0-d tensor converted "
                "without a check.\n\nRaises RuntimeError for a ``value`` tensor with dims, "
                "or a number out of the dtype's range."),
    declare("zero_(Tensor(a!) self) -> Tensor(a!)",
            doc="Set every element of ``self`` to 0 (``torch.zero_``); returns ``self``."),
    # ---------------------------------------------------------- views (chapter 2)
    # A view returns ``Tensor(a)``: the result shares ``self``'s storage and version counter
    # and has ``_base`` set; ``Tensor(a)[]`` several such views (their in-place changes are
    # refused while recorded, as torch refuses them).
    declare("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)",
            "view(Tensor(a) self, SymInt[] size) -> Tensor(a)", function=False,
            doc="The same elements with another shape, as a view (``Tensor.view``): "
                "``t.view(2, 3)`` or ``t.view((2, 3))``; one size may be -1. With a dtype, "
                "the same bytes read as that dtype (``t.view(reftensor.int32)``): the last "
                "dim shrinks or grows by the ratio of the element sizes; the result shares "
                "the storage and version counter but is no view for autograd (no ``_base``, "
                "no gradient).\n\nRaises RuntimeError for a shape of another number of "
                "elements, or one the strides cannot express (\"Use .reshape(...) "
                "instead\"); with a dtype of another element size, for a 0-d tensor, a last "
                "dim that is not contiguous or whose size, or an offset or stride, does not "
                "divide by the ratio."),
    declare("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", function=False,
            doc="``self.view(other.shape)`` (``Tensor.view_as``)."),
    declare("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)",
            function=False, method=False,
            doc="``reshape``'s view of a tensor that is not contiguous, with the layout "
                "``view`` would give (torch's internal ``_reshape_alias``)."),
    declare("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", function=False,
            method=False,
            doc="``view`` whose result is not a view (no ``_base``): ``reshape``'s fresh "
                "copy seen with the new shape (torch's internal ``_unsafe_view``)."),
    declare("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
            doc="The same elements with another shape (``torch.reshape``): a view when the "
                "strides allow it, else a contiguous copy (no ``_base``).\n\nRaises "
                "RuntimeError for a shape of another number of elements."),
    declare("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", function=False,
            doc="``self.reshape(other.shape)`` (``Tensor.reshape_as``)."),
    declare("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
            doc="Dims ``start_dim`` to ``end_dim`` merged into one (``torch.flatten``), by "
                "``reshape``: a view when possible; ``self`` itself when they are one dim "
                "already; a 0-d tensor gives 1 element.\n\nRaises IndexError for a dim out "
                "of range, RuntimeError for ``start_dim`` after ``end_dim``."),
    declare("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
            doc="Dim ``dim`` split into ``sizes`` (one may be -1), a view "
                "(``torch.unflatten``).\n\nRaises RuntimeError for empty sizes or sizes "
                "that do not multiply to the dim's size."),
    declare("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
            doc="Two dims swapped, a view (``torch.transpose``).\n\nRaises IndexError for a "
                "dim out of range."),
    declare("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
            doc="``torch.swapaxes``: ``transpose``."),
    declare("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
            doc="``torch.swapdims``: ``transpose``."),
    declare("t(Tensor(a) self) -> Tensor(a)",
            doc="A matrix transposed, a view (``torch.t``); 0-d and 1-d tensors unchanged."
                "\n\nRaises RuntimeError for more than 2 dims."),
    declare("permute(Tensor(a) self, int[] dims) -> Tensor(a)",
            doc="The dims reordered, a view: dim ``i`` of the result is dim ``dims[i]`` of "
                "the input (``torch.permute``; ``t.permute(1, 0)`` or ``t.permute((1, 0))``)."
                "\n\nRaises RuntimeError for dims of the wrong number or a repeated dim, "
                "IndexError for a dim out of range."),
    declare("squeeze(Tensor(a) self) -> Tensor(a)",
            "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
            "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
            doc="The size-1 dims removed, a view (``torch.squeeze``): all of them, or those "
                "among ``dim`` (others named stay).\n\nRaises IndexError for a dim out of "
                "range, RuntimeError for a dim named twice."),
    declare("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
            doc="A size-1 dim inserted at ``dim`` (from ``-dim() - 1`` to ``dim()``), a view "
                "(``torch.unsqueeze``).\n\nRaises IndexError for a dim out of range."),
    declare("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
            function=False,
            doc="Broadcast to ``size`` without copying (``Tensor.expand``): size-1 dims and "
                "new leading dims get stride 0, -1 keeps a dim's size (``t.expand(2, -1)``)."
                "\n\nRaises RuntimeError for fewer sizes than dims, a dim of size other than "
                "1 asked to change, or -1 for a new leading dim."),
    declare("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", function=False,
            doc="``self.expand(other.shape)`` (``Tensor.expand_as``)."),
    declare("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)",
            doc="``torch.broadcast_to``: ``expand``."),
    declare("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
            "SymInt step=1) -> Tensor(a)", function=False, method=False,
            doc="``self[start:end:step]`` along ``dim``, a view, the bounds clamped as "
                "Python's slices are (torch's internal ``slice``, which ``narrow`` is)."
                "\n\nRaises RuntimeError for a 0-d tensor or a step that is not positive."),
    declare("narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)",
            "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
            doc="``length`` elements along ``dim`` from ``start`` (negative counts from the "
                "end; a 0-d integer tensor is taken too), a view (``torch.narrow``).\n\n"
                "Raises RuntimeError for a 0-d tensor, a negative length, a range past the "
                "end or a ``start`` tensor that is not 0-d and integral; IndexError for a "
                "``start`` out of range."),
    declare("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
            doc="The slice at ``index`` along ``dim``, that dim removed, a view "
                "(``torch.select``).\n\nRaises IndexError for a 0-d tensor or an index out "
                "of range."),
    declare("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
            function=False,
            doc="Every window of ``size`` elements, ``step`` apart, along ``dimension`` as a "
                "new last dim, a view whose windows may overlap (``Tensor.unfold``).\n\n"
                "Raises RuntimeError for a window longer than the dim, a negative size or a "
                "step that is not positive."),
    declare("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
            doc="The diagonals of the (dim1, dim2) planes as a new last dim, a view "
                "(``torch.diagonal``); ``offset > 0`` above the main one.\n\nRaises "
                "RuntimeError for dim1 equal to dim2, IndexError for a dim out of range."),
    declare("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
            "split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
            doc="Consecutive views along ``dim`` (``torch.split``): pieces of ``split_size`` "
                "(the last may be shorter), or of each listed size (``split_with_sizes``)."
                "\n\nRaises RuntimeError for a 0-d tensor, a negative size, a size of 0 "
                "for a dim that is not empty, or listed sizes that do not add up to the "
                "dim's size."),
    declare("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> "
            "Tensor(a)[]",
            doc="Consecutive views of the listed sizes along ``dim`` "
                "(``torch.split_with_sizes``).\n\nRaises RuntimeError for a 0-d tensor, a "
                "negative size or sizes that do not add up to the dim's size."),
    declare("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
            doc="About ``chunks`` equal views along ``dim`` (``torch.chunk``): ``split`` of "
                "``ceil(size / chunks)``, so fewer may come back; an empty dim gives "
                "``chunks`` empty views.\n\nRaises RuntimeError for a 0-d tensor or "
                "``chunks <= 0``."),
    declare("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
            doc="Every ``select(dim, i)``, a tuple of views (``torch.unbind``).\n\nRaises "
                "IndexError for a 0-d tensor or a dim out of range."),
    declare("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? "
            "storage_offset=None) -> Tensor(a)",
            doc="A view of ``input``'s storage with any sizes, strides and offset (the "
                "input's by default) (``torch.as_strided``); elements may overlap.\n\nRaises "
                "RuntimeError for sizes and strides of different lengths, a negative size, "
                "stride or offset, or a layout past the end of the storage."),
    declare("numpy_T(Tensor(a) self) -> Tensor(a)", function=False, method=False,
            doc="All dims reversed, a view (``Tensor.T``, a property): ``permute``; torch "
                "warns, once per process, unless the tensor is 2-d."),
    declare("mT(Tensor(a) self) -> Tensor(a)", function=False, method=False,
            doc="The last two dims swapped, a view (``Tensor.mT``, a property): "
                "``transpose(-2, -1)``; a 0-d tensor is itself, with a deprecation warning."
                "\n\nRaises RuntimeError for a 1-d tensor."),
    declare("detach(Tensor(a) self) -> Tensor(a)",
            doc="The same storage, layout and version counter, out of the graph "
                "(``torch.detach``): no ``grad_fn``, ``requires_grad=False``, no ``_base``; "
                "writes through it change ``input``."),
    declare("lift_fresh(Tensor(a) self) -> Tensor(a)", function=False, method=False,
            doc="``self`` itself (``aten::lift_fresh``; no Python binding, as in torch): "
                "what ``tensor``, ``as_tensor``, ``Tensor.new_tensor`` and ``from_numpy`` "
                "dispatch on the tensor they made from data, so that a dispatch mode sees "
                "it (torch's tensor subclasses and functionalization wrap it there)."),
    declare("_local_scalar_dense(Tensor self) -> Scalar", function=False, method=False,
            doc="The first element of ``self`` as a Python number (bool, int or float by "
                "its dtype): what ``Tensor.item()`` (and ``float(t)``, ``int(t)``, "
                "``bool(t)``, an index read from a 0-d tensor) dispatches "
                "(``aten::_local_scalar_dense``; no Python binding, as in torch).\n\nRaises "
                "RuntimeError for an empty tensor, or a meta tensor (no data)."),
    # ------------------------------------------- in-place views (chapter 2, issue 43)
    # ``self``'s own sizes and strides changed, its storage and offset kept; ``_version``
    # goes up by one; methods only, as in torch.
    declare("t_(Tensor(a!) self) -> Tensor(a!)", function=False,
            doc="``self`` transposed in place (``Tensor.t_``): 0-d and 1-d tensors keep "
                "their layout.\n\nRaises RuntimeError for more than 2 dims."),
    declare("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", function=False,
            doc="Two dims of ``self`` swapped in place (``Tensor.transpose_``).\n\nRaises "
                "IndexError for a dim out of range."),
    declare("swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)", function=False,
            doc="``Tensor.swapdims_``: ``transpose_``."),
    declare("swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)", function=False,
            doc="``Tensor.swapaxes_``: ``transpose_``."),
    declare("squeeze_(Tensor(a!) self) -> Tensor(a!)",
            "squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)",
            "squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)", function=False,
            doc="The size-1 dims of ``self`` removed in place (``Tensor.squeeze_``): all of "
                "them, or those among ``dim``.\n\nRaises IndexError for a dim out of range, "
                "RuntimeError for a dim named twice."),
    declare("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)", function=False,
            doc="A size-1 dim inserted into ``self`` at ``dim``, in place "
                "(``Tensor.unsqueeze_``).\n\nRaises IndexError for a dim out of range."),
    # ------------------------------- creation, views and copies (chapters 1-2, issue 43)
    declare("new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            function=False,
            doc="A contiguous tensor of zeros of shape ``size`` (``Tensor.new_zeros``), of "
                "``self``'s dtype and device unless ``dtype`` or ``device`` is given; "
                "``self``'s values and layout play no part. ``requires_grad=True`` makes it "
                "a leaf that requires grad; the result never has a ``grad_fn``.\n\nRaises "
                "RuntimeError for a negative size, ``requires_grad`` with a dtype that is "
                "not floating, ``pin_memory=True``; TypeError for a size that is not an "
                "int."),
    declare("new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            function=False,
            doc="A contiguous tensor of ones of shape ``size`` (``Tensor.new_ones``); as "
                "``new_zeros``.\n\nRaises as ``new_zeros``."),
    declare("new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            function=False,
            doc="A contiguous tensor of shape ``size`` with fresh storage "
                "(``Tensor.new_empty``): torch leaves its memory uninitialised, reftensor's "
                "is zero-filled; as ``new_zeros``.\n\nRaises as ``new_zeros``."),
    declare("new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor", function=False,
            doc="A tensor of shape ``size`` laid out with exactly ``stride`` in a fresh "
                "storage (``Tensor.new_empty_strided``): ``empty_strided`` with ``self``'s "
                "dtype and device unless ``dtype`` or ``device`` is given; torch leaves its "
                "memory uninitialised, reftensor's is zero-filled. What torch's "
                "AccumulateGrad calls to store a leaf's first gradient with the leaf's "
                "strides under ``create_graph``.\n\nRaises as ``empty_strided``."),
    declare("new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor", function=False,
            doc="A contiguous tensor of shape ``size`` (a tuple) with every element "
                "``fill_value`` (``Tensor.new_full``), of ``self``'s dtype unless ``dtype`` "
                "is given (never inferred from the value: ``int_tensor.new_full((2,), "
                "2.7)`` holds 2s); the value is checked against the dtype's range as "
                "``full`` checks it.\n\nRaises as ``new_zeros``, and RuntimeError for a "
                "value out of the dtype's range (or nan into an integer dtype)."),
    declare("eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None) -> Tensor",
            "eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("eye.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
                 "eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)"),
            doc="An ``n`` by ``m`` (default ``n``) contiguous matrix with ones on the main "
                "diagonal and zeros elsewhere (``torch.eye``); dtype: ``dtype`` or the "
                "default float dtype. With ``out=``, ``out`` is resized to ``(n, m)`` "
                "(keeping its strides when it has that shape), zeroed, and its diagonal "
                "set to 1, in its own dtype.\n\nRaises RuntimeError for a negative ``n`` "
                "or ``m``, ``requires_grad`` with a dtype that is not floating, "
                "``pin_memory=True``; TypeError for a size that is not an int."),
    declare("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
            "movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
            doc="The dims at ``source`` moved to ``destination``, the others keeping their "
                "order, a view (``torch.movedim``): torch's composite, a ``permute`` "
                "(``PermuteBackward0``); a 0-d tensor is an ``alias`` of itself.\n\nRaises "
                "RuntimeError for ``source`` and ``destination`` of different lengths or a "
                "dim repeated in either; IndexError for a dim out of range."),
    declare("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
            "moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
            alias_of="movedim", doc="``torch.moveaxis``: ``movedim``."),
    declare("ravel(Tensor(a) self) -> Tensor(a)",
            doc="The elements in row-major order as one dim (``torch.ravel``): torch's "
                "composite, ``self.contiguous().view(-1)``: a view (``ViewBackward0``) of a "
                "contiguous input, else a view of a contiguous copy (``CloneBackward0`` "
                "under it); a 0-d tensor gives 1 element."),
    declare("repeat(Tensor self, SymInt[] repeats) -> Tensor", function=False,
            doc="A contiguous copy with ``self`` repeated ``repeats[i]`` times along each "
                "dim (``Tensor.repeat``; ``t.repeat(2, 3)`` or ``t.repeat((2, 3))``): extra "
                "leading repeats add leading dims. Where ``expand`` makes a view with "
                "stride 0, ``repeat`` copies. A repeat of 0 gives an empty result.\n\n"
                "Raises RuntimeError for fewer repeats than dims, or a negative repeat."),
    declare("tile(Tensor self, SymInt[] dims) -> Tensor",
            doc="``self`` repeated ``dims[i]`` times along each dim (``torch.tile``): "
                "torch's composite, ``repeat`` with 1s put before ``dims`` when it is "
                "shorter than the number of dims (NumPy's ``tile``; ``RepeatBackward0``)."
                "\n\nRaises RuntimeError for a negative repeat."),
    declare("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
            doc="The elements shifted by ``shifts`` along ``dims``, those pushed past the "
                "end coming back at the start (``torch.roll``); without ``dims`` the "
                "flattened tensor is rolled and seen with the input's shape. As torch's CPU "
                "kernel: along one dim the ``cat`` of two ``narrow`` slices (laid out as "
                "``cat`` lays out), several dims one after the other; an empty input gives "
                "its ``clone``.\n\nRaises RuntimeError for no shifts, or shifts and dims "
                "of different lengths; IndexError for a dim out of range."),
    declare("fliplr(Tensor self) -> Tensor",
            doc="A copy with the columns in reverse order (``torch.fliplr``): torch's "
                "composite, ``flip(1)`` (``FlipBackward0``).\n\nRaises RuntimeError for "
                "fewer than 2 dims."),
    declare("flipud(Tensor self) -> Tensor",
            doc="A copy with the rows in reverse order (``torch.flipud``): torch's "
                "composite, ``flip(0)`` (``FlipBackward0``).\n\nRaises RuntimeError for a "
                "0-d tensor."),
    declare("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
            doc="A copy rotated by ``k`` quarter turns in the plane of ``dims``, from the "
                "first dim towards the second (``torch.rot90``; negative ``k`` turns the "
                "other way). As torch's kernel: ``k % 4 == 2`` is ``flip(dims)`` (laid "
                "out as ``flip``), 1 and 3 a ``flip`` of one dim whose result is then "
                "transposed in place (its strides swapped), 0 a contiguous ``clone``."
                "\n\nRaises RuntimeError for other than two dims, the same dim twice, "
                "fewer than 2 dims in the input; IndexError for a dim out of range."),
    declare("atleast_1d(Tensor self) -> Tensor",
            "atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]", method=False,
            doc="``input`` with at least 1 dim (``torch.atleast_1d``; several tensors or a "
                "sequence give a tuple): a 0-d tensor reshaped to ``(1,)``, others as they "
                "are; views (torch's composite).\n\nRaises TypeError for an argument that "
                "is not a tensor."),
    declare("atleast_2d(Tensor self) -> Tensor",
            "atleast_2d.Sequence(Tensor[] tensors) -> Tensor[]", method=False,
            doc="``input`` with at least 2 dims (``torch.atleast_2d``): a 0-d tensor "
                "reshaped to ``(1, 1)``, a 1-d one given a dim in front (``unsqueeze(0)``), "
                "others as they are; as ``atleast_1d``.\n\nRaises as ``atleast_1d``."),
    declare("atleast_3d(Tensor self) -> Tensor",
            "atleast_3d.Sequence(Tensor[] tensors) -> Tensor[]", method=False,
            doc="``input`` with at least 3 dims (``torch.atleast_3d``): a 0-d tensor "
                "reshaped to ``(1, 1, 1)``, a 1-d one of size ``n`` seen as ``(1, n, 1)``, "
                "a 2-d one given a last dim, others as they are; as ``atleast_1d``.\n\n"
                "Raises as ``atleast_1d``."),
    declare("hstack(Tensor[] tensors) -> Tensor", method=False,
            out=("hstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The tensors joined along dim 1 (dim 0 when they are 1-d) after ``atleast_1d`` "
                "(``torch.hstack``): torch's composite, a ``cat`` (``CatBackward0``), laid "
                "out and promoted as ``cat``'s result.\n\nRaises RuntimeError for no "
                "tensors, and as ``cat``."),
    declare("vstack(Tensor[] tensors) -> Tensor", method=False,
            out=("vstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The tensors joined along dim 0 after ``atleast_2d`` "
                "(``torch.vstack``): torch's composite, a ``cat`` (``CatBackward0``), laid "
                "out and promoted as ``cat``'s result.\n\nRaises RuntimeError for no "
                "tensors, and as ``cat``."),
    declare("dstack(Tensor[] tensors) -> Tensor", method=False,
            out=("dstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The tensors joined along dim 2 after ``atleast_3d`` "
                "(``torch.dstack``): torch's composite, a ``cat`` (``CatBackward0``), laid "
                "out and promoted as ``cat``'s result.\n\nRaises RuntimeError for no "
                "tensors, and as ``cat``."),
    declare("column_stack(Tensor[] tensors) -> Tensor", method=False,
            out=("column_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The tensors joined as columns (``torch.column_stack``): torch's composite, "
                "a 0-d or 1-d tensor reshaped to one column ``(numel, 1)``, then "
                "``hstack``.\n\nRaises RuntimeError for no tensors, and as ``cat``."),
    declare("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
            doc="Each row of the last dim of ``input`` laid along a diagonal of a new "
                "(dim1, dim2) plane (``torch.diag_embed``), zeros elsewhere: the planes are "
                "``size(-1) + abs(offset)`` square, ``offset > 0`` above the main "
                "diagonal. A contiguous copy (``DiagEmbedBackward0``: the gradient's "
                "``diagonal``).\n\nRaises RuntimeError for dim1 equal to dim2; IndexError "
                "for a dim out of range (of ``dim() + 1`` dims) or a 0-d input."),
    declare("diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
            method=False,
            out=("diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            doc="``diagonal``'s elements as a contiguous copy, not a view "
                "(``torch.diagonal_copy``; ``DiagonalBackward0_copy``).\n\nRaises as "
                "``diagonal``."),
    declare("diag(Tensor self, int diagonal=0) -> Tensor",
            out=("diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="A square matrix with a 1-d ``input`` on its ``diagonal``-th diagonal, or a "
                "2-d ``input``'s ``diagonal``-th diagonal as a 1-d copy (``torch.diag``): "
                "torch's composite, ``diag_embed`` or ``diagonal_copy``.\n\nRaises "
                "RuntimeError for other than 1 or 2 dims."),
    declare("diagflat(Tensor self, int offset=0) -> Tensor",
            doc="A square matrix with ``input``'s elements, flattened in row-major order, "
                "on its ``offset``-th diagonal (``torch.diagflat``): torch's composite, "
                "``contiguous().view(-1)`` then ``diag``; a 0-d input is one element."),
    declare("tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> "
            "Tensor(a)[]",
            "tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor "
            "tensor_indices_or_sections, int dim=0) -> Tensor(a)[]",
            "tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> "
            "Tensor(a)[]",
            doc="Views along ``dim`` (``torch.tensor_split``, NumPy's ``array_split``): "
                "``sections`` pieces whose sizes differ by at most one (the first ones "
                "longer), or the pieces between the listed ``indices`` (clamped as "
                "slices); an int64 tensor gives either, 0-d as sections, 1-d as indices. "
                "torch's composite: ``slice`` views (``SliceBackward0``).\n\nRaises "
                "RuntimeError for a 0-d input, ``sections <= 0``, an indices tensor that is "
                "not int64 or has more than 1 dim; IndexError for a dim out of range."),
    declare("hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
            "hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
            doc="``tensor_split`` along dim 1 (0 for a 1-d tensor) (``torch.hsplit``): "
                "``sections`` equal pieces, or the pieces between ``indices``; views.\n\nRaises "
                "RuntimeError for a 0-d tensor, or ``sections`` that does not "
                "divide the dim's size."),
    declare("vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
            "vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
            doc="``tensor_split`` along dim 0 (``torch.vsplit``): ``sections`` "
                "equal pieces, or the pieces between ``indices``; views.\n\nRaises "
                "RuntimeError for fewer than 2 dims, or ``sections`` that does not "
                "divide the dim's size."),
    declare("meshgrid(Tensor[] tensors) -> Tensor[]",
            "meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", method=False,
            doc="Grids from 0-d or 1-d tensors (``torch.meshgrid``; given one by one or as "
                "one list): grid ``i`` has every tensor's length as its dims and tensor "
                "``i`` along dim ``i`` (``indexing=\"ij\"``, the default, with torch's "
                "warning when not given) or the first two dims swapped (``\"xy\"``); "
                "``expand`` views (``ExpandBackward0``), stride 0 elsewhere.\n\nRaises "
                "RuntimeError for no tensors, tensors of different dtypes or devices, a "
                "tensor with more than 1 dim, another ``indexing``."),
    declare("repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
            "SymInt? output_size=None) -> Tensor",
            "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
            "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
            "SymInt? output_size=None) -> Tensor",
            doc="Each element (or each slice along ``dim``) repeated in place, "
                "``[a, b] -> [a, a, b, b]`` (``torch.repeat_interleave``); without ``dim`` "
                "the flattened input. ``repeats`` is an int, or a tensor of one count or one "
                "per slice; a lone tensor of counts gives the indices ``i`` repeated "
                "``repeats[i]`` times (its dtype, int32 or int64). torch's composites: an "
                "int is ``unsqueeze``, ``expand``, a contiguous ``clone`` and ``flatten`` "
                "(``ViewBackward0``), a tensor an ``index_select`` "
                "(``IndexSelectBackward0``). ``output_size``, when given, must be the "
                "result's length (on the meta device it is needed for tensor counts).\n\n"
                "Raises RuntimeError for negative counts, counts of the wrong length or "
                "dims, a wrong ``output_size``; NotImplementedError for counts that are "
                "not int32 or int64; IndexError for a dim out of range."),
    declare("tril(Tensor self, SymInt diagonal=0) -> Tensor", inplace=True,
            inplace_function=False,
            out=("tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="A copy keeping the lower triangle of each matrix (the last two dims) and "
                "zeros above it (``torch.tril``): element ``[i, j]`` is kept where ``j - i <= "
                "diagonal`` (``diagonal > 0`` keeps diagonals above the main one, ``< 0`` "
                "drops some below). Contiguous, of the input's dtype (every dtype, bool "
                "too).\n\nRaises RuntimeError for fewer than 2 dims."),
    declare("triu(Tensor self, SymInt diagonal=0) -> Tensor", inplace=True,
            inplace_function=False,
            out=("triu.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="A copy keeping the upper triangle of each matrix (the last two dims) and "
                "zeros below it (``torch.triu``): element ``[i, j]`` is kept where ``j - i >= "
                "diagonal``; otherwise as ``tril``.\n\nRaises RuntimeError for fewer than "
                "2 dims."),
    # ---------------------------------------------------------- softmax (chapter 6)
    declare("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
            out=("_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            method=False,
            doc="``exp(x - max) / sum(exp(x - max))`` along ``dim`` (``torch._softmax``, the "
                "kernel under ``softmax``), as torch's CPU kernel: the maximum subtracted "
                "first (no overflow), then, along the last dim, multiplied by ``1 / sum`` "
                "(along another, divided by the sum); float16 and bfloat16 in float32, "
                "rounded once. A contiguous result of the input's dtype; a 0-d input is "
                "one element. exp and the sum's order are NumPy's: within a few ulps of "
                "torch's.\n\nRaises RuntimeError for ``half_to_float=True`` (CUDA only); "
                "NotImplementedError for integer and bool inputs; IndexError for a dim out "
                "of range."),
    declare("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
            out=("_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            method=False,
            doc="``(x - max) - log(sum(exp(x - max)))`` along ``dim`` "
                "(``torch._log_softmax``), in torch's CPU kernel's order (the maximum "
                "taken off first, then the log of the sum: large inputs with small "
                "differences keep their digits). Otherwise as ``_softmax``.\n\nRaises "
                "as ``_softmax``."),
    declare("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType "
            "input_dtype) -> Tensor", method=False,
            doc="``_softmax``'s gradient from its result (``torch._softmax_backward_data``, "
                "what ``SoftmaxBackward0`` runs): ``(grad_output - sum(grad_output * "
                "output, dim)) * output``, contiguous, of ``grad_output``'s dtype (float16 "
                "when ``grad_output`` is float32 and ``input_dtype`` float16).\n\nRaises "
                "RuntimeError for shapes or dtypes that differ, NotImplementedError for "
                "integer and bool; IndexError for a dim out of range."),
    declare("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
            "ScalarType input_dtype) -> Tensor",
            out=("_log_softmax_backward_data.out(Tensor grad_output, Tensor output, int dim, "
                 "ScalarType input_dtype, *, Tensor(a!) out) -> Tensor(a!)",),
            method=False,
            doc="``_log_softmax``'s gradient from its result "
                "(``torch._log_softmax_backward_data``, what ``LogSoftmaxBackward0`` runs): "
                "``grad_output - exp(output) * sum(grad_output, dim)``; otherwise as "
                "``_softmax_backward_data``.\n\nRaises as ``_softmax_backward_data``."),
    declare("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            out=("softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="Softmax along ``dim`` (``torch.softmax``): torch's composite, ``input`` "
                "converted to ``dtype`` when given (``ToCopyBackward0``), then "
                "``_softmax`` (``SoftmaxBackward0``): numerically stable (the maximum "
                "subtracted first); an integer input needs ``dtype``.\n\nRaises as "
                "``_softmax``; an ``out=`` must have the result's dtype."),
    declare("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
            out=("log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            doc="Log of the softmax along ``dim`` (``torch.log_softmax``), computed as "
                "``(x - max) - log(sum(exp(x - max)))`` (``_log_softmax``, "
                "``LogSoftmaxBackward0``), never as ``log(softmax(x))``; ``dtype`` as "
                "``softmax``'s.\n\nRaises as ``softmax``."),
    # ---------------------------------------------------------- erfinv (chapter 6)
    declare("erfinv(Tensor self) -> Tensor", inplace=True, inplace_function=False,
            out=("erfinv.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The inverse error function (``torch.erfinv``): the ``x`` with ``erf(x) == "
                "input``; ``±inf`` at ``±1``, nan for ``|input| > 1``, ``-0.0`` at ``-0.0``. "
                "Integer and bool inputs give the default float dtype. float16 and bfloat16 "
                "as torch's ``calc_erfinv`` in float32 (a rational first guess, two Newton "
                "steps), bit for bit; float32 and float64 within 1 ulp of torch's (MKL's "
                "ErfInv there).\n\nRaises RuntimeError in place into an integer or bool "
                "tensor, or into an ``out=`` of an integer dtype."),
    # ---------------------------------------------------------- where and clamp (chapter 3)
    declare("where(Tensor condition) -> Tensor[]",
            "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
            "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
            "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
            "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
            out=("where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            doc="``where(condition, input, other)``: ``input`` where ``condition`` is True, "
                "else ``other``, all three broadcast (``torch.where``); either value may be a "
                "Python number. Result dtype: ``result_type(input, other)``; ``out=`` must "
                "have exactly that dtype. ``where(condition)`` alone is "
                "``nonzero(condition, as_tuple=True)``: a tuple of int64 index tensors, one "
                "per dim (one for a 0-d condition). ``t.where(condition, other)`` is "
                "``where(condition, t, other)``.\n\nRaises RuntimeError for a condition "
                "that is not bool (uint8 is accepted with a deprecation warning), shapes "
                "that do not broadcast, an ``out=`` of another dtype; NotImplementedError "
                "for ``where(condition)`` of a meta tensor (its size depends on the values)."),
    declare("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
            "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
            out=("clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) "
                 "out) -> Tensor(a!)"),
            inplace=True,
            doc="Every element limited to ``[min, max]``: ``minimum(maximum(input, min), "
                "max)`` (``torch.clamp``). Bounds are numbers or tensors (broadcast; a 0-d "
                "tensor next to a number is read as a number); either may be None. The "
                "result type promotes the input with the bounds (``int_tensor.clamp(0.5)`` "
                "is float32); in place it must be ``self``'s. A nan bound gives nan; where "
                "``min > max`` the result is ``max``.\n\nRaises RuntimeError for neither "
                "bound given, a number bound out of the result dtype's range, or a result "
                "type ``self`` cannot hold in place; NotImplementedError for a bool tensor "
                "with number bounds or two tensor bounds."),
    declare("clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
            "clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
            out=("clip.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "clip.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) "
                 "out) -> Tensor(a!)"),
            inplace=True, alias_of="clamp", doc="``torch.clip``: ``clamp``."),
    declare("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor",
            "clamp_min(Tensor self, Scalar min) -> Tensor",
            out=("clamp_min.Tensor_out(Tensor self, Tensor min, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "clamp_min.out(Tensor self, Scalar min, *, Tensor(a!) out) -> Tensor(a!)"),
            inplace=True,
            doc="``clamp(input, min=min)`` (``torch.clamp_min``): ``maximum(input, min)`` "
                "in the promoted type, nan kept.\n\nRaises as ``clamp``."),
    declare("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor",
            "clamp_max(Tensor self, Scalar max) -> Tensor",
            out=("clamp_max.Tensor_out(Tensor self, Tensor max, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "clamp_max.out(Tensor self, Scalar max, *, Tensor(a!) out) -> Tensor(a!)"),
            inplace=True,
            doc="``clamp(input, max=max)`` (``torch.clamp_max``): ``minimum(input, max)`` "
                "in the promoted type, nan kept.\n\nRaises as ``clamp``."),
    # ---------------------------------------------------------- more elementwise (chapter 3)
    # Issue 43's elementwise group: float functions, rounding, tests, binary functions,
    # aliases and shifts (``unary.py``, ``arithmetic.py``, ``comparison.py``).
    declare("square(Tensor self) -> Tensor", inplace=True,
            out=("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``input ** 2`` (``torch.square``): torch's composite ``pow(input, 2)``, so "
                "it records ``PowBackward0`` and keeps ``pow``'s dtypes (a bool tensor "
                "gives int64, integers wrap around).\n\nRaises RuntimeError in place where "
                "``pow_`` does (a bool ``self``: its int64 result cannot be cast back)."),
    float_function("rsqrt", "``1 / sqrt(input)`` (``torch.rsqrt``), the square root and "
                   "the division each rounded, as torch's kernel does: inf at 0, nan "
                   "below."),
    float_function("log1p", "``log(1 + input)``, exact near 0 (``torch.log1p``): -inf at "
                   "-1, nan below."),
    float_function("log2", "Base-2 logarithm (``torch.log2``): -inf at 0, nan below."),
    float_function("log10", "Base-10 logarithm (``torch.log10``): -inf at 0, nan below."),
    float_function("exp2", "``2 ** input`` (``torch.exp2``)."),
    float_function("tan", "Tangent, in radians (``torch.tan``)."),
    float_function("atan", "Inverse tangent, in (-pi/2, pi/2) (``torch.atan``)."),
    float_function("asin", "Inverse sine, in [-pi/2, pi/2] (``torch.asin``): nan outside "
                   "[-1, 1]."),
    float_function("acos", "Inverse cosine, in [0, pi] (``torch.acos``): nan outside "
                   "[-1, 1]."),
    float_function("asinh", "Inverse hyperbolic sine (``torch.asinh``)."),
    float_function("acosh", "Inverse hyperbolic cosine (``torch.acosh``): nan below 1."),
    float_function("atanh", "Inverse hyperbolic tangent (``torch.atanh``): inf and -inf at 1 "
                   "and -1, nan outside [-1, 1]."),
    float_function("sinh", "Hyperbolic sine (``torch.sinh``)."),
    float_function("cosh", "Hyperbolic cosine (``torch.cosh``)."),
    float_function("erf", "The error function, ``2 / sqrt(pi)`` times the integral of "
                   "``exp(-t**2)`` from 0 to ``input`` (``torch.erf``)."),
    declare("ceil(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            out=("ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Round up (``torch.ceil``); integer tensors are copied unchanged.\n\n"
                "Raises NotImplementedError for a bool tensor."),
    declare("trunc(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            out=("trunc.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Round toward zero (``torch.trunc``); integer tensors are copied "
                "unchanged.\n\nRaises NotImplementedError for a bool tensor."),
    declare("frac(Tensor self) -> Tensor", inplace=True, out_same_dtype=True,
            out=("frac.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``input - trunc(input)``, the fractional part with the input's sign "
                "(``torch.frac``), exact; nan for ±inf, ``+0.0`` for ``-0.0``.\n\nRaises "
                "NotImplementedError for integer and bool tensors."),
    declare("sgn(Tensor self) -> Tensor", inplace=True, inplace_function=False,
            out_same_dtype=True,
            out=("sgn.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The sign (``torch.sgn``, ``x / |x|`` for complex numbers, which reftensor "
                "has not): on real tensors ``sign``, -1, 0 or +1 in the input's dtype, 0 "
                "for nan and -0.0; a bool tensor is copied."),
    declare("isnan(Tensor self) -> Tensor",
            doc="True where the input is nan, as a bool tensor (``torch.isnan``); never for "
                "integer and bool tensors. Not differentiable."),
    declare("isinf(Tensor self) -> Tensor",
            doc="True where the input is +inf or -inf, as a bool tensor (``torch.isinf``); "
                "never for integer and bool tensors. Not differentiable."),
    declare("isfinite(Tensor self) -> Tensor",
            doc="True where the input is neither nan nor ±inf, as a bool tensor "
                "(``torch.isfinite``); always for integer and bool tensors. Not "
                "differentiable."),
    # aliases of ops above (torch's native_functions.yaml declares each as an op of its own
    # whose kernel calls the target: ``absolute`` runs ``abs`` and records AbsBackward0)
    declare("absolute(Tensor self) -> Tensor", inplace=True, inplace_function=False,
            out_same_dtype=True, alias_of="abs",
            out=("absolute.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``torch.absolute``: ``abs``."),
    comparison("greater", "", ">", alias_of="gt"),
    comparison("greater_equal", "", ">=", alias_of="ge"),
    comparison("less", "", "<", alias_of="lt"),
    comparison("less_equal", "", "<=", alias_of="le"),
    comparison("not_equal", "", "!=", alias_of="ne"),
    # ------------------------------------------ binary functions and shifts (chapter 3)
    # Issue 43's binary float functions, fmod, logit, nan_to_num and the shifts
    # (``pointwise.py``).
    declare("atan2(Tensor self, Tensor other) -> Tensor",
            out=("atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            doc="The angle of the point ``(other, input)``, in [-pi, pi] (``torch.atan2``), "
                "broadcast; integer and bool operands give the default float dtype.\n\n"
                "Raises RuntimeError for shapes that do not broadcast, TypeError for a "
                "Python number (torch wants two tensors)."),
    declare("arctan2(Tensor self, Tensor other) -> Tensor",
            out=("arctan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False, alias_of="atan2",
            doc="``torch.arctan2``: ``atan2``."),
    declare("hypot(Tensor self, Tensor other) -> Tensor",
            out=("hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False,
            doc="``sqrt(input**2 + other**2)`` without overflow (``torch.hypot``), broadcast, "
                "in ``result_type``.\n\nRaises NotImplementedError for an integer or bool "
                "result type (torch does not promote them), RuntimeError for shapes that do "
                "not broadcast."),
    declare("fmod.Tensor(Tensor self, Tensor other) -> Tensor",
            "fmod.Scalar(Tensor self, Scalar other) -> Tensor",
            out=("fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            inplace=True, inplace_function=False,
            doc="C's ``fmod``: the remainder of ``input / other`` rounded toward zero, with "
                "the sign of ``input`` (``torch.fmod``; ``remainder`` takes ``other``'s). "
                "Result dtype: ``result_type``; a float ``x`` by 0 is nan.\n\nRaises "
                "RuntimeError for an integer ``fmod`` by zero (\"ZeroDivisionError\") or "
                "shapes that do not broadcast; NotImplementedError for bool."),
    declare("logaddexp(Tensor self, Tensor other) -> Tensor",
            out=("logaddexp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="``log(exp(input) + exp(other))`` without overflow (``torch.logaddexp``), "
                "broadcast, in ``result_type``.\n\nRaises NotImplementedError for an integer "
                "or bool result type, RuntimeError for shapes that do not broadcast."),
    declare("logaddexp2(Tensor self, Tensor other) -> Tensor",
            out=("logaddexp2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="``log2(2**input + 2**other)`` without overflow (``torch.logaddexp2``); see "
                "``logaddexp``."),
    declare("xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
            "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
            "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
            out=("xlogy.OutTensor(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                 "xlogy.OutScalar_Self(Scalar self, Tensor other, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "xlogy.OutScalar_Other(Tensor self, Scalar other, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            inplace=True,
            doc="``input * log(other)`` (``torch.xlogy``), broadcast: 0 where ``input`` is 0 "
                "(even for ``other`` 0 or below), nan where ``other`` is nan. Integer and "
                "bool operands give the default float dtype.\n\nRaises RuntimeError for "
                "shapes that do not broadcast; TypeError for two numbers."),
    declare("logit(Tensor self, float? eps=None) -> Tensor", inplace=True,
            out=("logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``log(p / (1 - p))`` (``torch.logit``): inf at 1, -inf at 0, nan outside "
                "[0, 1]; with ``eps`` (0 or more) ``p`` is first clamped to ``[eps, 1 - "
                "eps]`` (a negative ``eps`` is no clamp). Integer and bool inputs give the "
                "default float dtype."),
    declare("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) "
            "-> Tensor", inplace=True, out_same_dtype=True,
            out=("nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? "
                 "neginf=None, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="nan, +inf and -inf replaced by ``nan`` (default 0), ``posinf`` and "
                "``neginf`` (default the dtype's largest and smallest finite values) "
                "(``torch.nan_to_num``), in the input's dtype; integer and bool tensors are "
                "copied.\n\nRaises RuntimeError for an ``out=`` of another dtype."),
    declare("bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
            "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
            "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
            out=("bitwise_left_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) "
                 "-> Tensor(a!)",
                 "bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            inplace=True, inplace_function=False, operators=("__lshift__",),
            inplace_operators=("__ilshift__",),
            doc="``input << other``, broadcast (``torch.bitwise_left_shift``), in "
                "``result_type``, wrapping around; a shift below 0 or of the dtype's width "
                "or more gives 0, as torch's CPU kernel.\n\nRaises NotImplementedError for "
                "a floating or bool result type, RuntimeError for shapes that do not "
                "broadcast."),
    declare("bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
            "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
            "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
            out=("bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) "
                 "out) -> Tensor(a!)",
                 "bitwise_right_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            inplace=True, inplace_function=False, operators=("__rshift__",),
            inplace_operators=("__irshift__",),
            doc="``input >> other``, arithmetic (the sign kept), broadcast "
                "(``torch.bitwise_right_shift``), in ``result_type``; a shift below 0 or of "
                "the dtype's width or more gives -1 for a negative value, else 0, as torch's "
                "CPU kernel.\n\nRaises NotImplementedError for a floating or bool result "
                "type, RuntimeError for shapes that do not broadcast."),
    # ---------------------------------------------------------- conversions (chapter 4)
    declare("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? "
            "memory_format=None) -> Tensor", function=False, method=False,
            doc="A copy of ``self`` in new storage, converted to ``dtype`` (default: "
                "self's) on ``device`` (default: self's), what ``Tensor.to`` runs when "
                "something changes (``aten._to_copy``; no Python binding, as in torch). "
                "``memory_format`` None or ``preserve_format`` keeps a dense layout's "
                "strides.\n\nRaises RuntimeError for ``channels_last`` on a tensor that is "
                "not 4-d, or a device reftensor cannot use; NotImplementedError for a meta "
                "tensor to the CPU (no data)."),
    # make_fx records ``lift_fresh`` (above, with ``detach``) as ``lift_fresh_copy``
    declare("lift_fresh_copy(Tensor self) -> Tensor", function=False, method=False,
            doc="A contiguous copy of ``self`` (torch's internal ``lift_fresh_copy``: what "
                "make_fx records for ``lift_fresh``)."),
    declare("type_as(Tensor self, Tensor other) -> Tensor", function=False,
            doc="``self.to(dtype=other.dtype, device=other.device)`` (``Tensor.type_as``): "
                "``self`` itself when both already match."),
    # ---------------------------------------------------------- random sampling (chapter 8)
    # Every sampler draws from ``generator`` (None: the default generator) in the order
    # torch's CPU kernels do (reftensor/random/), so that the same seed gives torch's
    # numbers bit for bit. The in-place samplers return ``self``, refuse an expanded
    # ``self``, and on the meta device draw nothing (the generator does not move).
    declare("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) "
            "-> Tensor(a!)", function=False,
            doc="Fill ``self`` with uniform numbers in [from, to) (``Tensor.uniform_``), "
                "drawn in memory order: float32 (and float16/bfloat16) from 24 random bits, "
                "float64 from 53. On the meta device nothing is checked, as in torch.\n\n"
                "Raises NotImplementedError for an integer or bool ``self``; RuntimeError "
                "for ``from > to``, a bound outside the dtype's finite range, or a range "
                "wider than the dtype's maximum."),
    declare("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) "
            "-> Tensor(a!)", function=False,
            doc="Fill ``self`` with normal numbers of ``mean`` and ``std`` "
                "(``Tensor.normal_``), by Box-Muller: 16 or more contiguous elements take "
                "torch's fill path (blocks of 16), anything else the serial path in memory "
                "order (a cached second normal in the generator).\n\nRaises RuntimeError "
                "for ``std < 0``; NotImplementedError for an integer or bool ``self`` "
                "(RuntimeError on the meta device, as torch)."),
    declare("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
            "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) "
            "-> Tensor(a!)",
            "random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
            function=False,
            doc="Fill ``self`` with random integers (``Tensor.random_``): ``random_(from, "
                "to)`` in [from, to) (``to=None``: up to the dtype's largest value), "
                "``random_(to)`` in [0, to), ``random_()`` in [0, max] of the dtype "
                "([0, 2**mantissa digits] for a float dtype): a raw draw modulo the range. "
                "On the meta device nothing is checked, as in torch.\n\nRaises "
                "RuntimeError for ``from >= to`` or bounds the dtype cannot hold; "
                "NotImplementedError for ``random_(-2**63, None)`` on bool or float16."),
    declare("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> "
            "Tensor(a!)", function=False,
            doc="Fill ``self`` with exponential numbers of rate ``lambd`` "
                "(``Tensor.exponential_``): ``-1/lambd * log1p(-u)`` in float64.\n\n"
                "Raises RuntimeError for ``lambd <= 0`` or an integer or bool ``self``."),
    declare("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> "
            "Tensor(a!)",
            "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> "
            "Tensor(a!)", function=False,
            doc="Fill ``self`` (any dtype) with 1 with probability ``p``, else 0 "
                "(``Tensor.bernoulli_``); ``p`` a number, or a float tensor of "
                "probabilities broadcast to ``self``'s shape (walked with ``self`` in "
                "memory order). On the meta device nothing is checked, as in torch.\n\n"
                "Raises RuntimeError for a probability outside [0, 1] or a ``p`` that does "
                "not broadcast; NotImplementedError for an integer or bool tensor ``p``."),
    declare("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
            "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
            out=("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="A new contiguous tensor of ``input``'s shape and dtype with 1 where a draw "
                "falls below the probability ``input`` (elementwise), or ``p`` when given, "
                "else 0 (``torch.bernoulli``); ``out=`` is resized and drawn into in its own "
                "dtype. ``bernoulli(input, p)`` has no derivative (torch's "
                "``NotImplemented`` node).\n\nRaises NotImplementedError for an integer "
                "or bool ``input`` of probabilities; RuntimeError for a probability outside "
                "[0, 1]."),
    declare("multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, "
            "Generator? generator=None) -> Tensor",
            out=("multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, "
                 "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",),
            doc="``num_samples`` category indices drawn from each row of ``input`` "
                "(non-negative weights, not necessarily summing to 1) (``torch.multinomial``)"
                ": an int64 tensor of shape ``(num_samples,)`` or ``(rows, num_samples)``. "
                "Without replacement the categories with the largest ``p / q`` win, for "
                "``q ~ Exp(1)``; with replacement a binary search of the cumulative sum. "
                "Not differentiable.\n\nRaises RuntimeError for an input that is not 1-d "
                "or 2-d or not floating, ``num_samples <= 0``, more samples than categories "
                "without replacement, a weight that is negative, inf or nan, a row summing "
                "to 0, an ``out=`` that is not int64."),
    # torch.normal's fourth form, ``normal(mean: float, std: float, size)``, is a factory
    # (its kernels: random/normal.py, beside the others).
    declare("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> "
            "Tensor",
            "normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> "
            "Tensor",
            "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> "
            "Tensor",
            "normal.float_float(float mean, float std, SymInt[] size, *, Generator? "
            "generator=None, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? "
                 "generator=None, Tensor(a!) out) -> Tensor(a!)",
                 "normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? "
                 "generator=None, Tensor(a!) out) -> Tensor(a!)",
                 "normal.float_Tensor_out(float mean, Tensor std, *, Generator? "
                 "generator=None, Tensor(a!) out) -> Tensor(a!)",
                 "normal.float_float_out(float mean, float std, SymInt[] size, *, "
                 "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"),
            doc="Normal numbers with a tensor of means or of stds (``torch.normal``), as "
                "torch computes them: standard normals drawn into the result (contiguous; "
                "the dtype of ``mean``, or of ``std`` when ``mean`` is a number; "
                "``normal_(0, std)`` for a number ``std``), then ``*= std`` and ``+= mean`` "
                "in place. With ``out=``, ``out`` is resized and drawn into in its own "
                "dtype.\n\nRaises RuntimeError for a negative std or shapes that do not "
                "broadcast; NotImplementedError for a result dtype that is not floating. "
                "``normal(mean, std, size)`` with two numbers is a factory: "
                "``empty(size).normal_(mean, std)``, with the options of ``zeros`` "
                "(``dtype``: the default float dtype), no derivative; with ``out=``, "
                "``out`` is resized to ``size`` and drawn into in its own dtype."),
    # ---------------------------------------------------------- factories (chapter 1)
    declare("zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="A contiguous tensor of zeros of shape ``size`` (``torch.zeros``), given as "
                "ints one by one or as one tuple; dtype: ``dtype`` or the default float "
                "dtype. ``requires_grad=True`` makes it a leaf that requires grad. With "
                "``out=``, ``out`` is resized to ``size`` (keeping its strides when it has "
                "that shape) and zeroed, in its own dtype.\n\nRaises RuntimeError for a "
                "negative size, ``requires_grad`` with a dtype that is not floating, "
                "``pin_memory=True``, a ``dtype`` or ``device`` that is not ``out``'s; "
                "TypeError for a size that is not an int."),
    declare("ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="A contiguous tensor of ones of shape ``size`` (``torch.ones``); as "
                "``zeros``.\n\nRaises as ``zeros``."),
    declare("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? "
            "memory_format=None) -> Tensor", method=False,
            out=("empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            doc="A tensor of shape ``size`` with fresh storage (``torch.empty``): torch "
                "leaves its memory uninitialised, reftensor's is zero-filled. Contiguous, or "
                "NHWC for ``memory_format=channels_last``. With ``out=``, ``out`` is resized "
                "to ``size``, its values left as they are.\n\nRaises RuntimeError as "
                "``zeros``, and for ``channels_last`` on other than 4 dims, "
                "``preserve_format``, a ``memory_format`` with ``out=``."),
    declare("full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            method=False,
            out=("full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="A contiguous tensor of shape ``size`` (a tuple) with every element "
                "``fill_value`` (``torch.full``). Without ``dtype`` the value decides: bool, "
                "int64 or the default float dtype. The value is checked against the dtype's "
                "range (-1 into uint8 wraps to 255, as torch's conversion allows).\n\n"
                "Raises RuntimeError as ``zeros``, and for a value out of the dtype's range "
                "(or nan into an integer dtype)."),
    declare("scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            doc="A 0-d tensor holding ``s`` (``torch.scalar_tensor``), of ``dtype`` or the "
                "default float dtype (whatever the number: ``scalar_tensor(1)`` is float32); "
                "what ``where(condition, t, 0.0)`` wraps its number in. The value is "
                "checked against the dtype's range as ``full``'s.\n\nRaises RuntimeError "
                "as ``zeros``, and for a value out of the dtype's range."),
    declare("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
            "-> Tensor", method=False,
            doc="A new tensor of ``input``'s shape (``torch.empty_like``): torch leaves its "
                "memory uninitialised, reftensor's is zero-filled. Dtype and device "
                "``input``'s unless given. With ``memory_format=preserve_format`` (the "
                "default) a dense ``input`` (non-overlapping, no gaps) keeps its strides and "
                "another gets dense strides in the order of ``input``'s (``empty_like(x.t())`` "
                "is column-major); ``contiguous_format`` and ``channels_last`` as named. "
                "``requires_grad=True`` makes it a leaf that requires grad; the result "
                "never has a ``grad_fn``, whatever ``input`` requires.\n\nRaises "
                "RuntimeError for ``channels_last`` on other than 4 dims, "
                "``requires_grad`` with a dtype that is not floating, ``pin_memory=True``; "
                "TypeError for an ``input`` that is not a tensor, or ``out=``."),
    declare("zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
            "-> Tensor", method=False,
            doc="Zeros of ``input``'s shape (``torch.zeros_like``), laid out as "
                "``empty_like``'s result; dtype, device and options as ``empty_like``'s."
                "\n\nRaises as ``empty_like``."),
    declare("ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
            "-> Tensor", method=False,
            doc="Ones of ``input``'s shape (``torch.ones_like``), laid out as "
                "``empty_like``'s result; dtype, device and options as ``empty_like``'s."
                "\n\nRaises as ``empty_like``."),
    declare("full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? "
            "memory_format=None) -> Tensor", method=False,
            doc="``fill_value`` in every element of a tensor of ``input``'s shape "
                "(``torch.full_like``), laid out as ``empty_like``'s result. The dtype is "
                "``input``'s unless given, never inferred from the value (``full_like(int64 "
                "tensor, 2.7)`` holds 2s); the value is checked against it as ``full`` "
                "checks (-1 into uint8 wraps to 255). On the meta device nothing is "
                "checked.\n\nRaises as ``empty_like``, and RuntimeError for a value "
                "out of the dtype's range (or nan into an integer dtype)."),
    declare("arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None) -> Tensor",
            "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor", method=False,
            out=("arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)",
                 "arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) "
                 "out) -> Tensor(a!)"),
            doc="``start, start + step, ...`` stopping before ``end`` (``torch.arange``); "
                "``arange(n)`` counts ``0 .. n-1``, ``ceil((end - start) / step)`` values. "
                "Without ``dtype``: int64 for integer arguments, the default float dtype if "
                "any is a float. Into int64 the bounds and step are truncated first "
                "(``arange(3.1, dtype=int64)`` has 3 elements); other integer dtypes wrap. "
                "With ``out=``, an ``out`` of as many elements keeps its shape; another is "
                "resized to 1-d (with a warning if it had elements).\n\nRaises "
                "RuntimeError for a zero step, a step whose sign points away from ``end``, "
                "a bound that is not finite; ValueError for a step truncated to 0 in "
                "int64; NotImplementedError for bool."),
    declare("linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor",
            "linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor",
            "linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
            "-> Tensor",
            "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            method=False,
            out=("linspace.Tensor_Tensor_out(Tensor start, Tensor end, int steps, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "linspace.Scalar_Tensor_out(Scalar start, Tensor end, int steps, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "linspace.Tensor_Scalar_out(Tensor start, Scalar end, int steps, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> "
                 "Tensor(a!)"),
            doc="``steps`` evenly spaced values from ``start`` to ``end`` inclusive "
                "(``torch.linspace``); the bounds are numbers or 0-d tensors. As torch's "
                "kernel: the first half ``start + step * i``, the second half ``end - step "
                "* (steps - 1 - i)``, each rounded once; into an integer dtype the bounds "
                "are converted first, the step is float64 and each value truncated. With "
                "``out=``, an ``out`` of ``steps`` elements keeps its shape, another is "
                "resized to ``(steps,)``.\n\nRaises RuntimeError for ``steps < 0``, a "
                "bound tensor with dims, a bound out of an integer dtype's range; "
                "NotImplementedError for bool; TypeError for ``steps`` that is not an int."),
    # ---------------------------------------------------------- indexing (chapter 2)
    # ``t[index]`` and ``t[index] = value`` are Tensor methods (``reftensor/indexing.py``)
    # that decompose the index into these ops and the views' (select, slice, unsqueeze), as
    # torch's ``python_variable_indexing.cpp`` does.
    declare("alias(Tensor(a) self) -> Tensor(a)", function=False, method=False,
            doc="A new view of ``self`` with its own layout (torch's internal ``alias``): "
                "``t[...]`` is a view, not ``t`` itself."),
    declare("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", function=False,
            method=False,
            doc="``self[indices]`` for a list of index tensors, one per leading dim (None "
                "for a dim not indexed) (torch's internal ``index``, advanced indexing): a "
                "new tensor. Integer indices are broadcast together and replace the dims "
                "they index (moved to the front when those dims are not adjacent); a bool "
                "(or uint8) mask covers as many dims as it has and stands for its "
                "``nonzero()`` positions. The result is laid out by TensorIterator's rule "
                "(a transposed ``self`` gives a transposed result).\n\nRaises IndexError "
                "for more indices than dims, an index tensor that is neither integer nor "
                "bool, a mask whose shape does not match, shapes that do not broadcast, an "
                "index out of range; RuntimeError for a meta index into a CPU tensor."),
    declare("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) "
            "-> Tensor", inplace=True,
            doc="``self`` with ``values`` (broadcast to the indexing result) written at "
                "``self[indices]`` (``torch.index_put``); a copy, or ``self`` itself in "
                "place (``index_put_``). With ``accumulate=True`` the values are added, "
                "every repeated index counting; else the last write in TensorIterator's "
                "order wins. The indices are tensors, as ``index``'s (torch's Python binding "
                "takes no None among them). A single bool mask as the only index with a "
                "one-element value and no ``accumulate`` is torch's ``masked_fill_``.\n\n"
                "Raises IndexError as ``index``; RuntimeError for ``values`` of another "
                "dtype or a shape that does not broadcast, ``values`` or an index that "
                "overlaps ``self``, a uint8 mask with a one-element value."),
    declare("sum_to_size(Tensor self, SymInt[] size) -> Tensor", function=False,
            doc="``self`` summed down to ``size``, which must expand to self's shape "
                "(``Tensor.sum_to_size``, the gradient of ``expand``): the leading dims and "
                "the dims where ``size`` has 1 are summed (``sum(dims, keepdim=True)``, then "
                "a view without the leading dims); ``self`` itself when ``size`` is its "
                "shape. Integer and bool tensors sum to int64.\n\nRaises RuntimeError for "
                "a ``size`` that does not expand to self's shape."),
    # ---------------------------------------------------------- along one dim (chapter 2)
    # reftensor/gather_scatter.py: slices (index_select, index_add) and elements (gather,
    # scatter, scatter_add) picked or written by an index along one dim.
    declare("index_select(Tensor self, int dim, Tensor index) -> Tensor",
            out=("index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> "
                 "Tensor(a!)",), out_same_dtype=True,
            doc="The slices of ``input`` along ``dim`` at ``index`` (``torch.index_select``; "
                "``t.index_select(0, i)`` is ``t[i]`` for a 1-d ``i``): a new contiguous "
                "tensor of ``input``'s dtype and shape, ``dim``'s size ``index.numel()``. "
                "``index`` is a 1-d (or 0-d) int64 or int32 tensor with values in ``[0, "
                "size)``; repeats are allowed. Gradient: ``IndexSelectBackward0`` "
                "(``index_add_`` into zeros).\n\nRaises IndexError for an index of more "
                "than one dim, a value outside ``[0, size)`` (negative ones too), a dim out "
                "of range; RuntimeError for an index of another dtype, an ``out=`` of "
                "another dtype, more or fewer than one index into a 0-d input."),
    declare("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
            out=("gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, "
                 "Tensor(a!) out) -> Tensor(a!)",), out_same_dtype=True,
            doc="One element of ``input`` per element of ``index``, chosen along ``dim`` "
                "(``torch.gather``): for ``dim=0``, ``out[i][j] = input[index[i][j]][j]``. "
                "``index`` (int64 or int32) has as many dims as ``input`` and no size "
                "larger than ``input``'s apart from ``dim``; the result is a new contiguous "
                "tensor of ``index``'s shape and ``input``'s dtype. ``sparse_grad=True`` "
                "asks torch for a sparse gradient, which reftensor does not have (its "
                "backward refuses). Gradient: ``GatherBackward0`` (``scatter_add_`` into "
                "zeros).\n\nRaises RuntimeError for an index of another dtype, number of "
                "dims or a size too large, a value outside ``[0, size)`` (negative ones "
                "too), an ``out=`` of another dtype; IndexError for a dim out of range."),
    declare("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
            "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> "
            "Tensor",
            "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
            "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str "
            "reduce) -> Tensor",
            out=("scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "scatter.reduce_out(Tensor self, int dim, Tensor index, Tensor src, *, str "
                 "reduce, Tensor(a!) out) -> Tensor(a!)",
                 "scatter.value_reduce_out(Tensor self, int dim, Tensor index, Scalar value, "
                 "*, str reduce, Tensor(a!) out) -> Tensor(a!)"),
            inplace=True, inplace_function=False, out_same_dtype=True,
            doc="``input`` with ``src``'s elements (or one ``value``) written where "
                "``index`` points along ``dim`` (``torch.scatter``, the reverse of "
                "``gather``): for ``dim=0``, ``out[index[i][j]][j] = src[i][j]``. A new "
                "contiguous tensor, or ``input`` itself in place (``scatter_``). Where two "
                "index elements name one destination, the later one along ``dim`` wins "
                "(torch's CPU order). ``reduce='add'`` or ``'multiply'`` combines instead "
                "of replacing (deprecated with a tensor ``src``: a UserWarning). Gradient: "
                "``ScatterBackward0`` and ``ScatterBackward1``.\n\nRaises RuntimeError for "
                "an index of another dtype, number of dims or a size too large, a value "
                "outside ``[0, size)``, a ``src`` of another dtype, another ``reduce``, a "
                "``value`` the dtype cannot hold; IndexError for a dim out of range."),
    declare("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
            out=("scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False, out_same_dtype=True,
            doc="``input`` with ``src``'s elements added where ``index`` points along "
                "``dim`` (``torch.scatter_add``): for ``dim=0``, ``out[index[i][j]][j] += "
                "src[i][j]``; every repeated index counts, added in the index's order along "
                "``dim`` (float16 and bfloat16 accumulate in float32 and round once, as "
                "torch's CPU kernel). A new contiguous tensor, or ``input`` in place "
                "(``scatter_add_``). Gradient: ``ScatterAddBackward0`` (``src``'s is "
                "``grad.gather(dim, index)``).\n\nRaises as ``scatter``."),
    declare("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> "
            "Tensor",
            out=("index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar "
                 "alpha=1, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False, out_same_dtype=True,
            doc="``input`` with ``alpha * source``'s slice ``i`` along ``dim`` added into "
                "slice ``index[i]`` (``torch.index_add``, the reverse of ``index_select``): "
                "a new contiguous tensor, or ``input`` in place (``index_add_``); repeated "
                "indices add up, in the index's order. ``source`` has ``input``'s dtype and "
                "shape apart from ``dim``, where its size is the number of indices. "
                "Gradient: ``IndexAddBackward0``.\n\nRaises IndexError for an index of "
                "more than one dim or a value outside ``[0, size)`` (RuntimeError where "
                "torch's kernel takes its ``scatter_add_`` shortcut: ``alpha=1``, an int64 "
                "index, ``dim`` first or last of a tensor of 2 dims or more); RuntimeError "
                "for an index of another dtype, a ``source`` of another dtype or shape, an "
                "``alpha`` the dtype cannot hold."),
    declare("take(Tensor self, Tensor index) -> Tensor",
            out=("take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)",),
            out_same_dtype=True,
            doc="``input``'s elements at ``index``, ``input`` read as 1-d in row-major order "
                "whatever its layout (``torch.take``): a new contiguous tensor of the "
                "index's shape; negative indices count from the end. Gradient: "
                "``TakeBackward0`` (``put_`` with ``accumulate`` into zeros).\n\nRaises "
                "RuntimeError for an index that is not int64; IndexError for a value "
                "outside ``[-numel, numel)``, an index into an empty tensor."),
    declare("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
            inplace=True, inplace_function=False,
            doc="``input`` with ``source``'s elements written at ``index``, ``input`` read "
                "as 1-d in row-major order (``torch.put``; ``put_`` in place); negative "
                "indices count from the end. With ``accumulate=True`` they are added, "
                "repeated indices adding up in TensorIterator's order over ``source``; "
                "else the last write wins. ``torch.put`` keeps ``input``'s layout. "
                "Gradient: ``PutBackward0``.\n\nRaises RuntimeError for an index that is "
                "not int64, a ``source`` of another dtype, an in-place ``input`` that "
                "overlaps itself, the index or the source; IndexError for a value outside "
                "``[-numel, numel)``, a ``source`` whose number of elements differs from the "
                "index's, an index into an empty tensor."),
    declare("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
            out=("take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            doc="``gather`` along ``dim`` after broadcasting ``input`` and ``indices`` "
                "against each other apart from ``dim`` (``torch.take_along_dim``, torch's "
                "decomposition: ``expand`` of both, then ``gather``: ``GatherBackward0``); "
                "the int64 indices are taken modulo ``dim``'s size (-1 is the last). "
                "Without ``dim``, ``input.view(-1).gather(0, indices.view(-1))``: "
                "nothing wrapped. Pairs with ``argsort``/``argmax(keepdim=True)``.\n\n"
                "Raises RuntimeError for indices of another dtype or number of dims, sizes "
                "that do not broadcast, an index out of range without ``dim``, an input "
                "that cannot be viewed as 1-d without ``dim``; IndexError for a dim out "
                "of range."),
    declare("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
            "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
            inplace=True, inplace_function=False,
            doc="``input`` with ``value`` wherever the bool ``mask`` is True "
                "(``torch.masked_fill``; ``masked_fill_`` in place): out of place the mask "
                "and ``input`` broadcast together and the result is a new contiguous "
                "tensor of that shape; in place the mask must broadcast to ``input``'s "
                "shape. ``value`` is a number or a 0-d tensor, converted to ``input``'s "
                "dtype (checked for overflow). Gradient: ``MaskedFillBackward0``, or "
                "``MaskedFillBackward1`` for a tensor value (its gradient: the sum of "
                "``grad`` where the mask is True).\n\nRaises RuntimeError for a mask that "
                "is not bool, a value tensor with dims, a value the dtype cannot hold, "
                "shapes that do not broadcast, a mask partly overlapping ``input`` in "
                "place."),
    declare("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
            "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
            inplace=True, inplace_function=False,
            doc="``input`` with ``value`` written into the slices ``index`` along ``dim`` "
                "(``torch.index_fill``; ``index_fill_`` in place): a copy that keeps "
                "``input``'s layout. ``index`` is a 1-d (or 0-d) int64 tensor; negative "
                "indices count from the end. ``value`` is a number or a 0-d tensor. "
                "Gradient: ``IndexFillBackward0``, or ``IndexFillBackward1`` for a tensor "
                "value.\n\nRaises IndexError for an index that is not int64 or a value "
                "outside ``[-size, size)``; RuntimeError for an index of 2 dims or more, a "
                "value tensor with dims, a value the dtype cannot hold."),
    declare("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
            out=("index_copy.out(Tensor self, int dim, Tensor index, Tensor source, *, "
                 "Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False, out_same_dtype=True,
            doc="``input`` with ``source``'s slice ``i`` along ``dim`` copied into slice "
                "``index[i]`` (``torch.index_copy``; ``index_copy_`` in place): a new "
                "contiguous tensor; a repeated index keeps the last copy. ``index`` is a 1-d "
                "(or 0-d) int64 tensor with values in ``[0, size)``. Gradient: "
                "``IndexCopyBackward0``.\n\nRaises IndexError for an index of 2 dims or "
                "more, a value outside ``[0, size)``, a number of indices that is not "
                "``source.size(dim)``, dims that do not match; RuntimeError for an index "
                "that is not int64, a ``source`` of another dtype or slice shape."),
    declare("masked_select(Tensor self, Tensor mask) -> Tensor",
            out=("masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> "
                 "Tensor(a!)",),
            doc="``input``'s elements where the bool ``mask`` is True, the two broadcast "
                "together, in row-major order (``torch.masked_select``, ``t[mask]`` as 1-d): "
                "a new 1-d tensor. Gradient: ``MaskedSelectBackward0`` (``masked_scatter_`` "
                "into zeros).\n\nRaises RuntimeError for a mask that is not bool, shapes "
                "that do not broadcast; NotImplementedError on the meta device (the size "
                "depends on the mask's values)."),
    declare("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
            inplace=True, inplace_function=False,
            doc="``input`` with ``source``'s first elements written, in order, where the "
                "bool ``mask`` is True, row-major (``torch.masked_scatter``; "
                "``masked_scatter_`` in place, where the mask must expand to ``input``): "
                "out of place the two broadcast and the result is a new contiguous tensor. "
                "Gradient: ``MaskedScatterBackward0``.\n\nRaises RuntimeError for a mask "
                "that is not bool, a ``source`` of another dtype or with fewer elements than "
                "the mask's True values, shapes that do not broadcast."),
    # torch's Python ``nonzero`` is written by hand (its ``as_tuple`` keyword is no schema's):
    # so is reftensor's (``masked.nonzero``, ``Tensor.nonzero``), which calls this op.
    declare("nonzero(Tensor self) -> Tensor",
            out=("nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The indices of ``input``'s nonzero elements (NaN counts, -0.0 does not), one "
                "row per element in row-major order (``torch.ops.aten.nonzero``; a 0-d input "
                "counts as one element with no dims): an int64 tensor of shape ``(n, "
                "input.dim())``, laid out column-major as torch's CPU kernel lays it out."
                "\n\nRaises NotImplementedError on the meta device (the size depends on the "
                "values); RuntimeError for an ``out=`` that is not int64."),
    declare("argwhere(Tensor self) -> Tensor",
            doc="``input.nonzero()`` (``torch.argwhere``, NumPy's name for it).\n\nRaises "
                "as ``nonzero``."),
    declare("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
            "bool include_self=True) -> Tensor",
            out=("scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str "
                 "reduce, *, bool include_self=True, Tensor(a!) out) -> Tensor(a!)",),
            inplace=True, inplace_function=False, out_same_dtype=True,
            doc="``input`` with ``src``'s elements reduced into the places ``index`` points "
                "to along ``dim`` (``torch.scatter_reduce``; ``scatter_reduce_`` in place): "
                "``reduce`` is ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'`` "
                "(NaN wins both), each destination combining ``input``'s element (unless "
                "``include_self=False``) with every ``src`` element sent there, in the "
                "index's order along ``dim``; ``'mean'`` divides by their count (floor "
                "division for integers). float16 and bfloat16 accumulate in float32. A new "
                "contiguous tensor. Gradient: ``ScatterReduceBackward0`` (``'amax'`` and "
                "``'amin'`` share it evenly among ties).\n\nRaises RuntimeError for another "
                "``reduce`` and as ``scatter``; NotImplementedError for ``'mean'`` of bool."),
    # ---------------------------------------------------------- searching (chapter 2)
    # reftensor/sorted_search.py: a binary search with torch's comparisons.
    declare("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
            "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
            "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
            "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
            out=("searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, *, bool "
                 "out_int32=False, bool right=False, str? side=None, Tensor? sorter=None, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "searchsorted.Scalar_out(Tensor sorted_sequence, Scalar self, *, bool "
                 "out_int32=False, bool right=False, str? side=None, Tensor? sorter=None, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            method=False,
            doc="Where each value of ``input`` would go in ``sorted_sequence`` to keep it "
                "sorted (``torch.searchsorted``): the first index whose element is ``>=`` "
                "the value, or ``>`` with ``right=True`` (or ``side='right'``); with a "
                "sequence of several dims, each row (last dim) is searched for the matching "
                "row of values. ``sorter`` gives the order of an unsorted sequence. An int64 "
                "(``out_int32``: int32) tensor of the values' shape; torch's binary search, "
                "so NaN and unsorted sequences give torch's answers.\n\nRaises RuntimeError "
                "for a ``side`` other than 'left'/'right' or opposite to ``right``, a sorter "
                "that is not int64, of another shape or out of range, a 0-d sequence, leading "
                "dims that do not match, an ``out=`` of the wrong integer dtype; "
                "NotImplementedError for bool."),
    declare("bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool "
            "right=False) -> Tensor",
            "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool "
            "right=False) -> Tensor",
            out=("bucketize.Tensor_out(Tensor self, Tensor boundaries, *, bool out_int32=False, "
                 "bool right=False, Tensor(a!) out) -> Tensor(a!)",),
            method=False,
            doc="The bucket of each value of ``input`` among the 1-d sorted ``boundaries`` "
                "(``torch.bucketize``): ``searchsorted(boundaries, input, right=right)``.\n\n"
                "Raises RuntimeError for boundaries that are not 1-d; as ``searchsorted``."),
    # ---------------------------------------------------------- random factories (chapter 8)
    # New tensors of random numbers: ``empty(size)`` then a sampler (``uniform_``,
    # ``normal_``, ``random_``) drawing from ``generator`` (None: the default generator),
    # torch's numbers bit for bit for the same seed; the ``*_like`` ones take the shape,
    # dtype, device and (``preserve_format``) dense strides of their input. A new result's
    # ``_version`` stays 0; ``out=`` counts as one write. Kernels in reftensor/random/.
    declare("rand.generator(SymInt[] size, *, Generator? generator, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None) -> Tensor",
            "rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("rand.generator_out(SymInt[] size, *, Generator? generator, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)"),
            doc="A contiguous tensor of shape ``size`` (ints one by one or one tuple) of "
                "uniform numbers in [0, 1) (``torch.rand``): ``empty(size).uniform_()``, "
                "drawn from ``generator`` (default: the default generator), float32 from 24 "
                "random "
                "bits, float64 from 53; dtype: ``dtype`` or the default float dtype. The "
                "options as ``zeros``'s; with ``out=``, ``out`` is resized to ``size`` and "
                "drawn into in its own dtype. On the meta device nothing is checked or "
                "drawn, as in torch.\n\nRaises NotImplementedError for a dtype that is not "
                "floating (even with no elements); RuntimeError and TypeError as ``zeros``."),
    declare("randn.generator(SymInt[] size, *, Generator? generator, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None) -> Tensor",
            "randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("randn.generator_out(SymInt[] size, *, Generator? generator, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)"),
            doc="A contiguous tensor of shape ``size`` of standard normal numbers "
                "(``torch.randn``): ``empty(size).normal_()``, by Box-Muller (torch's fill "
                "path for 16 elements or more, else its serial path); dtype, options and "
                "``out=`` as ``rand``.\n\nRaises NotImplementedError for a dtype that is "
                "not floating, when there are elements (RuntimeError on the meta device, "
                "always, as torch); RuntimeError and TypeError as ``zeros``."),
    declare("randint.generator(SymInt high, SymInt[] size, *, Generator? generator, "
            "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None) -> Tensor",
            "randint(SymInt high, SymInt[] size, *, ScalarType? dtype=long, Layout? "
            "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            "randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, "
            "Generator? generator, ScalarType? dtype=long, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor",
            "randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? "
            "dtype=long, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None) -> Tensor", method=False,
            out=("randint.generator_out(SymInt high, SymInt[] size, *, Generator? "
                 "generator, Tensor(a!) out) -> Tensor(a!)",
                 "randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> "
                 "Tensor(a!)",
                 "randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, "
                 "*, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
                 "randint.low_out(SymInt low, SymInt high, SymInt[] size, *, "
                 "Tensor(a!) out) -> Tensor(a!)"),
            doc="A contiguous tensor of shape ``size`` (a tuple) of integers in [low, "
                "high), ``low`` 0 unless given (``torch.randint``): ``empty(size).random_(low, "
                "high)``, a raw draw modulo ``high - low``; dtype: ``dtype`` or int64 (any "
                "dtype, floats too). Options as ``zeros``'s; with ``out=``, ``out`` is "
                "resized to ``size`` and drawn into in its own dtype.\n\nRaises "
                "RuntimeError for ``low >= high`` (on the meta device too), bounds the dtype "
                "cannot hold (even with no elements), and as ``zeros``; TypeError for a "
                "bound that is not an int."),
    declare("randperm.generator(SymInt n, *, Generator? generator, ScalarType? "
            "dtype=long, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None) -> Tensor",
            "randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None) -> Tensor", method=False,
            out=("randperm.generator_out(SymInt n, *, Generator? generator, "
                 "Tensor(a!) out) -> Tensor(a!)",
                 "randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)"),
            doc="A random permutation of ``0 .. n-1``, shape ``(n,)`` "
                "(``torch.randperm``): torch's Fisher-Yates shuffle; dtype: ``dtype`` or "
                "int64. Options as "
                "``zeros``'s; with ``out=``, ``out`` is resized to ``(n,)``.\n\nRaises "
                "RuntimeError for ``n < 0``, an ``n - 1`` the dtype cannot hold or (float "
                "dtypes) hold exactly; NotImplementedError for bool (the meta device checks "
                "only ``n``)."),
    declare("rand_like.generator(Tensor self, *, Generator? generator, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
            "rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? "
            "memory_format=None) -> Tensor", method=False,
            doc="``rand`` of ``input``'s shape (``torch.rand_like``): dtype and device "
                "``input``'s unless given; with ``memory_format=preserve_format`` (the "
                "default) the result has the strides of a dense ``input`` (else "
                "contiguous), and the numbers fill memory order: ``rand_like(x.t())`` is "
                "``rand(x.shape).t()`` for the same seed.\n\nRaises as ``rand``; "
                "TypeError for an ``input`` that is not a tensor."),
    declare("randn_like.generator(Tensor self, *, Generator? generator, ScalarType? "
            "dtype=None, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
            "randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? "
            "memory_format=None) -> Tensor", method=False,
            doc="``randn`` of ``input``'s shape (``torch.randn_like``), laid out as "
                "``rand_like``'s result (a result that is not contiguous takes the serial "
                "path).\n\nRaises as ``randn``; TypeError for an ``input`` that is not a "
                "tensor."),
    declare("randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, "
            "*, Generator? generator, ScalarType? dtype=None, Layout? layout=None, "
            "Device? device=None, bool? pin_memory=None, MemoryFormat? "
            "memory_format=None) -> Tensor",
            "randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, "
            "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? "
            "pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
            "randint_like.Tensor_generator(Tensor self, Tensor high, *, Generator? "
            "generator, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> "
            "Tensor",
            "randint_like.Tensor(Tensor self, Tensor high, *, ScalarType? dtype=None, "
            "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
            "MemoryFormat? memory_format=None) -> Tensor",
            "randint_like.generator(Tensor self, SymInt high, *, Generator? "
            "generator, ScalarType? dtype=None, Layout? layout=None, Device? "
            "device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> "
            "Tensor",
            "randint_like(Tensor self, SymInt high, *, ScalarType? dtype=None, "
            "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
            "MemoryFormat? memory_format=None) -> Tensor", method=False,
            doc="``randint`` of ``input``'s shape (``torch.randint_like``), laid out as "
                "``rand_like``'s result: integers in [low, high) (``low`` 0 unless given; "
                "``high`` an int or a 0-d tensor, read as an int), in ``input``'s dtype "
                "unless given.\n\nRaises as ``randint``, and RuntimeError for a ``high`` "
                "tensor with dims."),
    # ---------------------------------------------------------- fresh storage (chapter 1)
    declare("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
            "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> "
            "Tensor", method=False,
            doc="A tensor of shape ``size`` laid out with exactly ``stride`` in a fresh "
                "storage of ``1 + sum((size_k - 1) * stride_k)`` elements (0 when empty) "
                "(``torch.empty_strided``): torch leaves the memory uninitialised, "
                "reftensor's is zero-filled; dtype: ``dtype`` or the default float dtype, "
                "options as ``zeros``'s.\n\nRaises RuntimeError for sizes and strides of "
                "different lengths, a negative size or stride, and as ``zeros``; TypeError "
                "for sizes given one by one."),
    # --- losses (chapter 6) -------------------------------------------------------------
    declare("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
            out=("mse_loss.out(Tensor self, Tensor target, int reduction=Mean, *, Tensor(a!) "
                 "out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``(self - target) ** 2`` elementwise (``torch._C._nn.mse_loss``, under "
                "``nn.functional.mse_loss``), then its mean (``reduction=1``) or sum (2), or "
                "not reduced (0): the operands broadcast, the result has their promoted "
                "dtype. A mean of no elements is nan. ``out=`` as torch's structured kernel: "
                "resized to the broadcast shape (warning when it had elements), then to 0-d "
                "for a mean or sum, keeping its storage; any dtype the result casts to."
                "\n\nRaises NotImplementedError for "
                "integer and bool operands; RuntimeError for shapes that do not broadcast "
                "or a reduction other than 0, 1, 2."),
    declare("mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int "
            "reduction) -> Tensor", function=False, method=False,
            doc="``mse_loss``'s gradient (``MseLossBackward0``): ``(self - target) * norm * "
                "grad_output`` with ``norm = 2 / numel`` for a mean, else 2, in a tensor laid "
                "out as ``self``.\n\nRaises RuntimeError for shapes that do not "
                "broadcast to ``self``'s."),
    declare("l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
            function=False, method=False,
            doc="``|self - target|`` (``torch._C._nn.l1_loss``, under "
                "``nn.functional.l1_loss``), then ``mean`` (``reduction=1``) or ``sum`` (2); "
                "any other reduction leaves it unreduced. torch's composite: the graph has "
                "``SubBackward0``, ``AbsBackward0`` and ``MeanBackward0`` or "
                "``SumBackward0``.\n\nRaises as ``sub``, ``abs`` and ``mean`` (an integer "
                "mean: RuntimeError)."),
    declare("nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int "
            "reduction=Mean, SymInt ignore_index=-100) -> Tensor", function=False,
            method=False,
            doc="The negative log likelihood loss for any input (``torch._C._nn.nll_loss_nd``"
                ", what ``nn.functional.nll_loss`` calls): input ``(C)``, ``(N, C)`` or "
                "``(N, C, d1, ..., dK)`` of log-probabilities, target of class indices ``()``"
                ", ``(N)`` or ``(N, d1, ..., dK)``. 1-d and 2-d inputs go to ``nll_loss``, "
                "4-d ones to ``nll_loss2d``, others to ``nll_loss2d`` on a ``(N, C, 1, -1)`` "
                "view (``reduction=0``: viewed back, ``ViewBackward0``).\n\nRaises "
                "ValueError for a 0-d input or batch sizes that differ; RuntimeError for a "
                "target of the wrong shape; as ``nll_loss_forward``."),
    declare("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
            "SymInt ignore_index=-100) -> Tensor",
            out=("nll_loss.out(Tensor self, Tensor target, Tensor? weight=None, int "
                 "reduction=Mean, SymInt ignore_index=-100, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``nll_loss_forward``'s output (``torch._C._nn.nll_loss``): input ``(C)`` or "
                "``(N, C)``.\n\nRaises as ``nll_loss_forward``."),
    declare("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
            "SymInt ignore_index) -> (Tensor output, Tensor total_weight)",
            out=("nll_loss_forward.output(Tensor self, Tensor target, Tensor? weight, int "
                 "reduction, SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) "
                 "total_weight) -> (Tensor(a!), Tensor(b!))",),
            function=False, method=False,
            doc="``-self[i, target[i]] * weight[target[i]]`` per row (``NllLossBackward0``), "
                "0 where the target is ``ignore_index``; reduced (or for a 1-d input), their "
                "sum in torch's cascade order in the input's dtype, divided by the total "
                "weight for a mean; ``total_weight`` (0-d) is that weight (the count of "
                "targets kept without ``weight``). A mean over no kept target is nan.\n\n"
                "Raises RuntimeError for an input not 1-d or 2-d, a target not 0-d or 1-d, "
                "sizes that differ, a weight not of ``C`` elements or of another dtype, a "
                "target not int64 or uint8; ValueError for a 1-d target of more than one "
                "element with a 1-d input; IndexError for a target out of [0, C); "
                "NotImplementedError for an integer input."),
    declare("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? "
            "weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor",
            function=False, method=False,
            doc="``nll_loss_forward``'s gradient: zeros of ``self``'s shape, and at each "
                "kept row's target ``-weight * grad_output`` (for a mean ``weight * "
                "-(grad_output / total_weight)``).\n\nRaises as ``nll_loss_forward``, and "
                "RuntimeError for a ``grad_output`` or ``total_weight`` of the wrong size."),
    declare("nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
            "SymInt ignore_index=-100) -> Tensor",
            out=("nll_loss2d.out(Tensor self, Tensor target, Tensor? weight=None, int "
                 "reduction=Mean, SymInt ignore_index=-100, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``nll_loss2d_forward``'s output (``torch._C._nn.nll_loss2d``).\n\nRaises "
                "as ``nll_loss2d_forward``."),
    declare("nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
            "SymInt ignore_index) -> (Tensor output, Tensor total_weight)",
            out=("nll_loss2d_forward.output(Tensor self, Tensor target, Tensor? weight, int "
                 "reduction, SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) "
                 "total_weight) -> (Tensor(a!), Tensor(b!))",),
            function=False, method=False,
            doc="``nll_loss_forward`` for an input ``(N, C, H, W)`` and a target ``(N, H, "
                "W)`` (``NllLoss2DBackward0``); ``reduction=0`` gives ``(N, H, W)``.\n\n"
                "Raises RuntimeError for a target not 3-d, an input not 4-d, sizes that "
                "differ, a weight not of ``C`` elements; otherwise as "
                "``nll_loss_forward``."),
    declare("nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? "
            "weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor",
            function=False, method=False,
            doc="``nll_loss2d_forward``'s gradient: at each kept position's target "
                "``-weight * grad_output / normalize`` (``normalize``: the total weight for "
                "a mean, else 1).\n\nRaises as ``nll_loss2d_forward``, and RuntimeError "
                "for a ``grad_output`` or ``total_weight`` of the wrong size."),
    declare("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int "
            "reduction=Mean, SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor",
            function=False, method=False,
            doc="Cross entropy of logits ``self`` (``torch._C._nn.cross_entropy_loss``, "
                "under ``nn.functional.cross_entropy``), torch's composite: class indices "
                "give ``nll_loss_nd(log_softmax(self, class dim))``; a target of ``self``'s "
                "shape holds class probabilities: ``-(log_softmax * target * weight)`` "
                "summed over the classes, its mean divided by ``numel / C``; "
                "``label_smoothing`` mixes in the uniform distribution.\n\nRaises "
                "RuntimeError for probabilities of an integer dtype or with an "
                "``ignore_index >= 0``, a ``label_smoothing`` above 1; as ``nll_loss_nd``."),
    declare("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int "
            "reduction=Mean) -> Tensor",
            out=("binary_cross_entropy.out(Tensor self, Tensor target, Tensor? weight=None, "
                 "int reduction=Mean, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``-(t * log(x) + (1 - t) * log(1 - x))`` elementwise "
                "(``torch._C._nn.binary_cross_entropy``), each log clamped at -100 as torch "
                "does (an input of 0 or 1 gives 100, never inf), times ``weight``, reduced "
                "(``BinaryCrossEntropyBackward0``). ``out=`` as torch's kernel: the loss "
                "written through ``squeeze(out)`` (resized when its shape differs, ``out`` "
                "itself keeping its own), then weighted and reduced in ``out``; of the "
                "input's dtype.\n\nRaises RuntimeError for an input or "
                "target outside [0, 1] (nan too), a target of another dtype; "
                "NotImplementedError for integer inputs."),
    declare("binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, "
            "Tensor? weight=None, int reduction=Mean) -> Tensor", function=False,
            method=False,
            doc="``binary_cross_entropy``'s gradient: ``grad * (x - t) / max((1 - x) * x, "
                "1e-12)`` times ``weight``, over ``numel`` for a mean.\n\nRaises "
                "RuntimeError for operands of other dtypes; NotImplementedError for "
                "integer inputs."),
    declare("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? "
            "weight=None, Tensor? pos_weight=None, int reduction=Mean) -> Tensor",
            method=False,
            doc="Binary cross entropy of logits (``torch.binary_cross_entropy_with_logits``"
                "): ``(1 - t) * x - log_sigmoid(x) * ((pos_weight - 1) * t + 1)``, times "
                "``weight``, reduced: stable for large logits (no sigmoid is rounded to 0 "
                "or 1). One node, ``BinaryCrossEntropyWithLogitsBackward0``.\n\nRaises "
                "RuntimeError for a ``weight`` or ``pos_weight`` that broadcasts past the "
                "target's shape, a target whose dtype cannot hold the result."),
    declare("log_sigmoid(Tensor self) -> Tensor",
            out=("log_sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="``log(sigmoid(x))`` computed as ``min(x, 0) - log1p(exp(-|x|))`` "
                "(``torch._C._nn.log_sigmoid``, ``nn.functional.logsigmoid``): no overflow, "
                "no ``-inf`` for large negative ``x``. torch's composite: "
                "``log_sigmoid_forward``'s output (``LogSigmoidBackward0``), contiguous, "
                "of the input's dtype. ``out=`` is resized without a warning and must "
                "have the input's dtype.\n\nRaises NotImplementedError for integer and "
                "bool inputs; RuntimeError for an ``out=`` of another dtype."),
    declare("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)",
            out=("log_sigmoid_forward.output(Tensor self, *, Tensor(a!) output, Tensor(b!) "
                 "buffer) -> (Tensor(a!), Tensor(b!))",),
            function=False, method=False,
            doc="``(min(x, 0) - log1p(b), b)`` with ``b = exp(-|x|)`` "
                "(``torch.ops.aten.log_sigmoid_forward``): two new contiguous tensors of "
                "the input's dtype (float16 and bfloat16 computed in float32); the buffer "
                "is what ``log_sigmoid_backward`` reads. Only ``output`` is differentiable "
                "(``LogSigmoidBackward0``).\n\nRaises as ``log_sigmoid``."),
    declare("log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
            out=("log_sigmoid_backward.grad_input(Tensor grad_output, Tensor self, Tensor "
                 "buffer, *, Tensor(a!) grad_input) -> Tensor(a!)",),
            function=False, method=False,
            doc="``log_sigmoid``'s gradient: ``(max_deriv - sign * b / (1 + b)) * "
                "grad_output`` (``max_deriv``, ``sign``: 1 and 1 where ``self < 0``, else 0 "
                "and -1; ``b`` the buffer), broadcast into an ``empty_like(grad_output)`` "
                "(``LogSigmoidBackwardBackward0``).\n\nRaises RuntimeError for operands of "
                "different dtypes or shapes that do not broadcast; NotImplementedError for "
                "integer inputs."),
]

# --- layers (chapter 6): GELU, embedding, one_hot, layer and batch normalization, bilinear
NATIVE_FUNCTIONS += [
    declare("gelu(Tensor self, *, str approximate='none') -> Tensor", out_same_dtype=True,
            out=("gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="``x * Phi(x)``, Phi the standard normal CDF (``torch.nn.functional.gelu``); "
                "``approximate='tanh'``: ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 "
                "* x**3)))``. The input's shape and dtype (float16 and bfloat16 computed in "
                "float32); erf and tanh are the C library's and NumPy's, within a few ulps "
                "of torch's.\n\nRaises RuntimeError for another ``approximate``, "
                "NotImplementedError for integer and bool inputs."),
    declare("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> "
            "Tensor", function=False, method=False,
            doc="``gelu``'s derivative times ``grad_output`` (``aten::gelu_backward``, what "
                "``GeluBackward0`` runs; no Python binding, as in torch). Promotes and "
                "broadcasts as ``mul``.\n\nRaises as ``gelu``."),
    declare("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool "
            "scale_grad_by_freq=False, bool sparse=False) -> Tensor", method=False,
            doc="The rows of ``weight`` (``(num_embeddings, dim)``) at ``indices`` "
                "(``torch.embedding``): shape ``indices.shape + (dim,)``, contiguous, "
                "``weight``'s dtype (``EmbeddingBackward0``; ``padding_idx`` only changes "
                "the gradient).\n\nRaises RuntimeError for indices that are not int64 or "
                "int32 and a ``weight`` that is not 2-d; IndexError for an index out of "
                "range."),
    declare("embedding_backward(Tensor grad, Tensor indices, SymInt num_weights, SymInt "
            "padding_idx, bool scale_grad_by_freq, bool sparse) -> Tensor", function=False,
            method=False,
            doc="``embedding``'s weight gradient (``aten::embedding_backward``): "
                "``embedding_dense_backward``; ``sparse=True`` (a sparse gradient) is not "
                "implemented.\n\nRaises NotImplementedError for ``sparse=True``."),
    declare("embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, "
            "SymInt padding_idx, bool scale_grad_by_freq) -> Tensor", function=False,
            method=False,
            doc="A ``(num_weights, dim)`` tensor of zeros where each row of ``grad_output`` "
                "is added into the row its index names, in order (torch's CPU loop), the "
                "rows of ``padding_idx`` skipped; ``scale_grad_by_freq`` divides each by "
                "its index's count.\n\nRaises RuntimeError for indices that are not int64 "
                "or int32."),
    declare("embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float "
            "norm_type) -> Tensor(a!)", method=False,
            doc="Rescale in place each row of ``self`` that ``indices`` names whose "
                "``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm`` "
                "(``torch.embedding_renorm_``: by ``max_norm / (norm + 1e-7)``).\n\nRaises "
                "RuntimeError for a ``self`` that is not 2-d or indices that are not int64 "
                "or int32."),
    declare("one_hot(Tensor self, int num_classes=-1) -> Tensor", function=False,
            method=False,
            doc="int64 zeros of shape ``self.shape + (num_classes,)`` with a 1 at each "
                "class index (``torch.nn.functional.one_hot``); ``num_classes=-1`` takes "
                "``max + 1``.\n\nRaises RuntimeError for indices that are not int64, "
                "negative or too large, or an empty input without ``num_classes``."),
    declare("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
            "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", method=False,
            doc="Layer normalization over the last ``len(normalized_shape)`` dims "
                "(``torch.native_layer_norm``): ``(out, mean, rstd)``, ``out = (x - mean) * "
                "rstd * weight + bias``, ``rstd = 1 / sqrt(var + eps)`` (biased variance); "
                "``mean`` and ``rstd`` of shape ``input.shape[:axis] + (1,) * "
                "len(normalized_shape)``, the input's dtype. float16 and bfloat16 in "
                "float32. Within a few ulps of torch's (its moments are a Welford "
                "cascade).\n\nRaises RuntimeError for shapes that do not match."),
    declare("native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] "
            "normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, "
            "bool[3] output_mask) -> (Tensor, Tensor, Tensor)", function=False, method=False,
            doc="``native_layer_norm``'s gradients of input, weight and bias (None where "
                "``output_mask`` says so), as torch's CPU kernel computes them.\n\nRaises "
                "as ``native_layer_norm``."),
    declare("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? "
            "bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor", method=False,
            doc="``native_layer_norm``'s first result (``torch.layer_norm``, torch's "
                "composite; ``NativeLayerNormBackward0``).\n\nRaises as "
                "``native_layer_norm``."),
    declare("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? "
            "running_mean, Tensor? running_var, bool training, float momentum, float eps) -> "
            "(Tensor, Tensor, Tensor)", method=False,
            doc="Batch normalization over every dim but dim 1 (``torch.native_batch_norm``): "
                "``(out, save_mean, save_invstd)``. Training: the batch's mean and biased "
                "variance normalize, and the running stats (when given) become ``momentum "
                "* stat + (1 - momentum) * running``, with the unbiased variance; eval: the "
                "running stats normalize and the saved ones are empty.\n\nRaises "
                "RuntimeError for stats or parameters of the wrong size, no running stats "
                "in eval, an empty input."),
    declare("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? "
            "running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool "
            "train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
            function=False, method=False,
            doc="``native_batch_norm``'s gradients of input, weight and bias (None where "
                "``output_mask`` says so), as torch's CPU kernel computes them.\n\nRaises "
                "as ``native_batch_norm``."),
    declare("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
            "Tensor? running_var, bool training, float momentum, float eps, bool "
            "cudnn_enabled) -> Tensor", method=False,
            doc="``native_batch_norm``'s first result (``torch.batch_norm``, torch's "
                "composite; ``NativeBatchNormBackward0``).\n\nRaises as "
                "``native_batch_norm``."),
    declare("_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] "
            "expand3, int[] sumdim, int unroll_dim=1) -> Tensor", method=False,
            doc="``i1``, ``i2`` and ``i3``, each unsqueezed at its ``expand`` dims, "
                "multiplied with broadcasting and summed over ``sumdim`` "
                "(``torch._trilinear``, what ``bilinear`` runs; ``TrilinearBackward0``).\n\n"
                "Raises RuntimeError for sizes that do not match."),
    declare("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> "
            "Tensor", method=False,
            doc="``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + "
                "bias[o]`` (``torch.bilinear``): torch's composite, the inputs flattened to "
                "2-d, ``_trilinear``, reshaped back, then ``+ bias``.\n\nRaises "
                "RuntimeError for sizes that do not match."),
]

# --- padding (chapter 10, the capstone; issue 45): nn.functional.pad and the ops under it
def _pad_declarations() -> list[Declaration]:
    found = [
        declare("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
                method=False,
                doc="``self`` padded with ``value`` (``torch.constant_pad_nd``, what "
                    "``nn.functional.pad`` runs for ``mode='constant'``): ``pad`` gives "
                    "``(left, right)`` of the last dim, then of the one before, ...; a "
                    "negative pad crops. Of ``self``'s dtype (every dtype), laid out as "
                    "``self`` suggests (channels-last stays); with no positive pad, a clone of "
                    "the cropped input (``ConstantPadNdBackward0``).\n\nRaises RuntimeError "
                    "for an odd number of pads, more pairs than dims, a negative size, a "
                    "``value`` out of the dtype's range."),
        declare("_pad_circular(Tensor self, SymInt[] pad) -> Tensor", function=False,
                method=False,
                doc="``self`` wrapped around by ``pad`` (``torch._C._nn._pad_circular``, "
                    "``nn.functional.pad``'s ``mode='circular'``): torch's composite of "
                    "slices and ``copy_`` (graph ``CopySlices``), contiguous, of any dtype."
                    "\n\nRaises RuntimeError for other than 1 or 2 unpadded leading dims, a "
                    "pad larger than its dim, a negative size."),
        declare("_pad_enum(Tensor self, SymInt[] pad, int mode, float? value=None) -> Tensor",
                function=False, method=False,
                doc="``pad`` with the mode as torch's ``at::padding_mode`` (0 reflect, 1 "
                    "replicate, 2 circular, 3 constant; ``torch._C._nn._pad_enum``).\n\n"
                    "Raises as ``pad``."),
        declare("pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> "
                "Tensor", function=False, method=False,
                doc="``self`` padded (``torch._C._nn.pad``, under ``nn.functional.pad``): "
                    "``mode`` ``'constant'`` (``constant_pad_nd`` with ``value``, default 0), "
                    "``'reflect'`` (``reflection_pad1d/2d/3d``), ``'replicate'`` "
                    "(``replication_pad1d/2d/3d``), ``'circular'`` (``_pad_circular``); the "
                    "other modes pad the last 1, 2 or 3 dims of an input with 1 or 2 more."
                    "\n\nRaises NotImplementedError for an unknown mode or a pad length "
                    "that does not fit the input's dims; RuntimeError for an odd pad length, "
                    "more than twice the dims, a ``value`` with another mode."),
    ]
    for kind, mode, rule in (("reflection", "reflect", "mirrored about the edge element, "
                              "which is not repeated; each pad less than its dim"),
                             ("replication", "replicate", "the edge element repeated")):
        for dims in (1, 2, 3):
            name, n = f"{kind}_pad{dims}d", 2 * dims
            layout = "contiguous" if dims == 1 else "laid out as ``self`` suggests"
            found.append(declare(
                f"{name}(Tensor self, SymInt[{n}] padding) -> Tensor", function=False,
                method=False,
                out=(f"{name}.out(Tensor self, SymInt[{n}] padding, *, Tensor(a!) out) -> "
                     "Tensor(a!)",),
                doc=f"The last {dims} dim(s) of a ({dims + 1})-d or batched ({dims + 2})-d "
                    f"``self`` padded by ``padding`` (``torch._C._nn.{name}``, "
                    f"``nn.functional.pad``'s ``mode='{mode}'``): "
                    f"{rule}; a negative pad crops. Of ``self``'s dtype, {layout}.\n\n"
                    f"Raises RuntimeError for {n} pads expected, other dims, an empty "
                    "non-batch dim, an output size below 1; NotImplementedError for bool."))
            found.append(declare(
                f"{name}_backward(Tensor grad_output, Tensor self, SymInt[{n}] padding) -> "
                "Tensor", function=False, method=False,
                out=(f"{name}_backward.grad_input(Tensor grad_output, Tensor self, "
                     f"SymInt[{n}] padding, *, Tensor(a!) grad_input) -> Tensor(a!)",),
                doc=f"``{name}``'s gradient: ``grad_output`` added back into zeros of "
                    "``self``'s shape along the forward's indices, in ``grad_output``'s "
                    "row-major order.\n\nRaises RuntimeError for a ``grad_output`` of the "
                    "wrong size or another dtype than ``self``'s; NotImplementedError for "
                    "integer and bool."))
    return found


NATIVE_FUNCTIONS += _pad_declarations()

# --- sliding windows (chapter 10, the capstone; issue 45): nn.functional.unfold and fold
NATIVE_FUNCTIONS += [
    declare("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] "
            "stride) -> Tensor", function=False, method=False,
            out=("im2col.out(Tensor self, int[2] kernel_size, int[2] dilation, int[2] "
                 "padding, int[2] stride, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="Every ``kh x kw`` window of an image batch ``(N, C, H, W)`` (or one image "
                "``(C, H, W)``) as a column (``torch._C._nn.im2col``, under "
                "``nn.functional.unfold``): ``(N, C*kh*kw, L)``, ``L`` the windows, "
                "``(size + 2 pad - dilation (k - 1) - 1) // stride + 1`` along each dim; the "
                "zero-padded input viewed through one ``as_strided`` window view, copied "
                "contiguous (``Im2ColBackward0``).\n\nRaises RuntimeError for a kernel, "
                "dilation or stride below 1, a negative padding, other than 3 or 4 dims, an "
                "empty non-batch dim, no window; NotImplementedError for integer dtypes."),
    declare("col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
            "int[2] padding, int[2] stride) -> Tensor", function=False, method=False,
            out=("col2im.out(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] "
                 "dilation, int[2] padding, int[2] stride, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="``im2col``'s adjoint (``torch._C._nn.col2im``, under "
                "``nn.functional.fold``): columns ``(N, C*kh*kw, L)`` (or ``(C*kh*kw, L)``) "
                "added back into an image ``(N, C, *output_size)``; overlapping windows sum, "
                "in kernel-offset order as torch's loop; contiguous (``Col2ImBackward0``)."
                "\n\nRaises RuntimeError as ``im2col``, and for a dim 1 not divisible by "
                "``kh*kw`` or an ``L`` that is not the number of windows of "
                "``output_size``; NotImplementedError for integer dtypes."),
]


# --- pooling (chapter 10, the capstone; issue 45) ----------------------------------------------
_POOL_ERRORS = ("Raises RuntimeError for an input not 3-d or 4-d (or with an empty dim "
                "other than the batch), a kernel_size, stride, padding or dilation of more "
                "than two ints, a kernel, stride or dilation not positive, a negative padding "
                "or one over half the (effective) kernel, an output smaller than 1x1")
NATIVE_FUNCTIONS += [
    declare("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
            "int[2] dilation=1, bool ceil_mode=False) -> Tensor", method=False,
            doc="The maximum of each ``kernel_size`` window of the last two dims "
                "(``torch.max_pool2d``, what ``nn.functional.max_pool2d`` calls without "
                "``return_indices``): torch's composite, ``max_pool2d_with_indices``'s "
                "first result (``MaxPool2DWithIndicesBackward0``). Input ``(C, H, W)`` or "
                "``(N, C, H, W)``, any dtype but bool; ``stride`` defaults to the kernel; "
                "padding counts as ``-inf``.\n\n" + _POOL_ERRORS + "; NotImplementedError "
                "for bool."),
    declare("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] "
            "padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
            out=("max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] "
                 "stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, "
                 "Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))",),
            function=False, method=False,
            doc="The maximum of each window and its flat index in the input's ``H * W`` "
                "plane (``torch._C._nn.max_pool2d_with_indices``, what "
                "``nn.functional.max_pool2d(..., return_indices=True)`` calls; "
                "``MaxPool2DWithIndicesBackward0``), as torch's CPU loop picks it: the "
                "first maximum, the last nan, the first element inside the input when none "
                "is above ``-inf``. Output ``(C, OH, OW)`` or ``(N, C, OH, OW)`` in the "
                "input's dtype, indices int64, both channels-last for a channels-last 4-d "
                "input. ``out=`` wants exactly those dtypes.\n\n" + _POOL_ERRORS + "; "
                "NotImplementedError for bool."),
    declare("max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] "
            "kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, "
            "Tensor indices) -> Tensor",
            out=("max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self, "
                 "int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool "
                 "ceil_mode, Tensor indices, *, Tensor(a!) grad_input) -> Tensor(a!)",),
            function=False, method=False,
            doc="``max_pool2d_with_indices``'s gradient: zeros of ``self``'s shape and layout "
                "with each ``grad_output`` element added at its index "
                "(``MaxPool2DWithIndicesBackwardBackward0``).\n\nRaises as "
                "``max_pool2d_with_indices``, and RuntimeError for a ``grad_output`` of "
                "another dtype or size; NotImplementedError for integer dtypes."),
    declare("avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
            "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) "
            "-> Tensor",
            out=("avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] "
                 "padding=0, bool ceil_mode=False, bool count_include_pad=True, int? "
                 "divisor_override=None, *, Tensor(a!) out) -> Tensor(a!)",),
            function=False, method=False,
            doc="The mean of each ``kernel_size`` window of the last two dims "
                "(``torch._C._nn.avg_pool2d``, ``nn.functional.avg_pool2d``; "
                "``AvgPool2DBackward0``): the window's sum in torch's order, over "
                "``divisor_override``, or the window's size within the padded input "
                "(``count_include_pad``), or its number of elements inside the input. "
                "float16, bfloat16, float32, float64 and int64 (divided towards zero); "
                "channels-last for a channels-last 4-d input. ``out=`` wants exactly the "
                "input's dtype.\n\n" + _POOL_ERRORS + ", a ``divisor_override`` of 0; "
                "IndexError for fewer than 3 dims; NotImplementedError for other dtypes."),
    declare("avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] "
            "stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? "
            "divisor_override) -> Tensor",
            out=("avg_pool2d_backward.grad_input(Tensor grad_output, Tensor self, int[2] "
                 "kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool "
                 "count_include_pad, int? divisor_override, *, Tensor(a!) grad_input) -> "
                 "Tensor(a!)",),
            function=False, method=False,
            doc="``avg_pool2d``'s gradient: each ``grad_output`` element over its window's "
                "divisor, added to the window's elements inside the input, in a tensor of "
                "``self``'s shape and layout (``AvgPool2DBackwardBackward0``).\n\nRaises "
                "as ``avg_pool2d``, and RuntimeError for a ``grad_output`` of another dtype "
                "or size."),
    declare("max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] "
            "padding=0, int[1] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
            method=False,
            doc="The maximum of each window of the last dim and its index "
                "(``torch.max_pool1d_with_indices``): torch's composite, "
                "``max_pool2d_with_indices`` of ``self.unsqueeze(-2)``, both squeezed back "
                "(``SqueezeBackward1``).\n\nRaises RuntimeError for an input not 2-d or "
                "3-d, a kernel_size, stride, padding or dilation of more than one int; as "
                "``max_pool2d_with_indices``."),
    declare("max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
            "int[1] dilation=1, bool ceil_mode=False) -> Tensor", method=False,
            doc="The maximum of each window of the last dim (``torch.max_pool1d``): torch's "
                "composite, ``max_pool1d_with_indices``'s output for an input that requires "
                "grad, else torch's ``max_pool1d_impl`` (floating dtypes, a contiguous "
                "result).\n\nRaises RuntimeError for an input not 2-d or 3-d (or with an "
                "empty dim other than the batch), a kernel or stride not positive, a "
                "padding negative or over half the kernel, an output of no element; "
                "NotImplementedError for integer inputs that do not require grad."),
    declare("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
            "bool ceil_mode=False, bool count_include_pad=True) -> Tensor", method=False,
            doc="The mean of each window of the last dim (``torch.avg_pool1d``, "
                "``nn.functional.avg_pool1d``): torch's composite, ``avg_pool2d`` of "
                "``self.unsqueeze(-2)``, squeezed back (``SqueezeBackward1``).\n\nRaises "
                "RuntimeError for an input not 2-d or 3-d, a kernel_size, stride or padding "
                "of more than one int; as ``avg_pool2d``."),
]

# --- convolution (chapter 10, the capstone, issue 45, convolution.py)
_CONV_DOC = ("A {n}-d convolution (``torch.{name}``, which ``torch.nn.functional.{name}`` is): "
             "``input`` ``(N, C_in, {dims})`` or unbatched ``(C_in, {dims})``, ``weight`` "
             "``(C_out, C_in / groups, {kdims})``, ``bias`` ``(C_out,)``; each output "
             "element the sum over a window of the zero-padded input times the kernel. "
             "``padding`` a number per dim, or ``'valid'`` (none) or ``'same'`` (the output "
             "as large as the input; stride 1 only; an uneven split pads the input on the "
             "right first). torch's composite: ``convolution`` (``ConvolutionBackward0``), "
             "the batch dim added and removed around it.\n\nRaises RuntimeError for an "
             "input of the wrong rank, channels that do not match ``weight`` and ``groups``, "
             "a kernel larger than the padded input, negative padding, non-positive stride, "
             "dilation or groups, a bias of the wrong size or dtype, dtypes that differ, an "
             "unknown padding string, 'same' with a stride; NotImplementedError for bool.")
NATIVE_FUNCTIONS += [
    declare("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] "
            "padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt "
            "groups) -> Tensor", method=False,
            # (torch's generated ``convolution.out``: ``torch.ops.aten.convolution.out``
            # only, ``torch.convolution`` takes no ``out=``)
            internal=("convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] "
                      "stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
                      "output_padding, SymInt groups, *, Tensor(a!) out) -> Tensor(a!)",),
            doc="The N-d convolution every ``conv*d`` reaches (``torch.convolution``): "
                "``input`` ``(N, C_in, *spatial)``, ``weight`` ``(C_out, C_in / groups, "
                "*kernel)`` (transposed: ``(C_in, C_out / groups, *kernel)``), ``bias`` "
                "``(C_out,)`` or None; the padded input viewed as strided windows "
                "(``as_strided``) times the kernels, one matrix product per group "
                "(``ConvolutionBackward0``). ``transposed=True`` is the input-gradient of "
                "that convolution, ``output_padding`` extra positions at the end. The "
                "input's dtype (float16/bfloat16 summed in float32, integers in int64); a "
                "4-d result is channels-last when ``input`` or ``weight`` looks "
                "channels-last, as torch's CPU backends lay it out.\n\nRaises "
                "RuntimeError for parameters of the wrong length, negative padding, "
                "non-positive stride, dilation or groups, ranks, channels or bias sizes "
                "that do not match, a kernel larger than the padded input, dtypes that "
                "differ; NotImplementedError for bool."),
    declare("convolution_overrideable(Tensor input, Tensor weight, Tensor? bias, SymInt[] "
            "stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
            "output_padding, SymInt groups) -> Tensor",
            internal=("convolution_overrideable.out(Tensor input, Tensor weight, Tensor? bias, "
                      "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
                      "SymInt[] output_padding, SymInt groups, *, Tensor(a!) out) -> "
                      "Tensor(a!)",),
            function=False, method=False,
            doc="The convolution an out-of-tree backend overrides "
                "(``torch.ops.aten.convolution_overrideable``, and its ``.out``): torch's CPU "
                "and meta kernels have none.\n\nRaises NotImplementedError, always."),
    declare("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? "
            "bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool "
            "transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> "
            "(Tensor, Tensor, Tensor)", function=False, method=False,
            doc="``convolution``'s gradients of input, weight and bias "
                "(``torch.ops.aten.convolution_backward``, what ``ConvolutionBackward0`` "
                "runs; None where ``output_mask`` says so): the input's is each kernel "
                "position's product added back through the windows' strides, the weight's "
                "the windows against ``grad_output``, the bias's ``grad_output`` summed over "
                "all but dim 1. Laid out as the forward's result (channels-last for a 4-d "
                "input or weight that looks it).\n\nRaises ``convolution``'s errors."),
    declare("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
            "SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
            "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] "
            "stride=1, str padding=\"valid\", SymInt[1] dilation=1, SymInt groups=1) -> "
            "Tensor", method=False,
            doc=_CONV_DOC.format(n=1, name="conv1d", dims="L", kdims="k")),
    declare("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
            "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
            "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] "
            "stride=1, str padding=\"valid\", SymInt[2] dilation=1, SymInt groups=1) -> "
            "Tensor", method=False,
            doc=_CONV_DOC.format(n=2, name="conv2d", dims="H, W", kdims="kH, kW")),
]


def inplace_schema(schema: FunctionSchema, overload: str | None = None) -> FunctionSchema:
    """``exp(Tensor self) -> Tensor`` -> ``exp_(Tensor(a!) self) -> Tensor(a!)``; the
    overload keeps its name unless ``overload`` gives torch's (``pow_.Scalar``)."""
    at = next((i for i, a in enumerate(schema.arguments) if a.name == "self"), 0)
    arguments = list(schema.arguments)  # (``self`` is second in ``addmm(Scalar beta, ...)``)
    a = arguments[at]
    arguments[at] = Argument(a.name, a.type, a.default, a.kwarg_only, alias="a!")
    name = schema.overload if overload is None else overload
    return FunctionSchema(schema.name + "_", name, tuple(arguments),
                          (Return(Type("Tensor"), None, alias="a!"),))


def _writable(schema: FunctionSchema) -> bool:
    """Does the overload have an in-place form: is its first argument ``Tensor self``
    (``pow.Scalar(Scalar self, Tensor exponent)`` has none)?"""
    first = schema.arguments[0] if schema.arguments else None
    return first is not None and first.name == "self" and first.type.base == "Tensor"


#: ``_writable`` read off a schema's text, without parsing it: the first argument is a
#: ``Tensor`` (maybe with an alias, a list, optional) called ``self``
_WRITABLE = re.compile(r"[\w.]+\(Tensor(\([^)]*\))?\??(\[\d*\])?\?? self[,)=]")


def _without_out(schema: FunctionSchema) -> tuple[Argument, ...]:
    return tuple(a for a in schema.arguments if not (a.writes and a.kwarg_only))


def _without_options(schema: FunctionSchema) -> tuple[Argument, ...]:
    """A factory's arguments without its ``TensorOptions``, which its ``.out`` schema lacks
    (``zeros.out(SymInt[] size, *, Tensor(a!) out)``)."""
    if not has_tensor_options(schema.arguments):
        return schema.arguments
    return tuple(a for a in schema.arguments if a.name not in TENSOR_OPTIONS)


def _functional_of(overloads: list[OpOverload]) -> Callable[[OpOverload], OpOverload]:
    """The functional overload an ``.out`` overload belongs to, the one with the same
    arguments, found when first asked for (it parses the schemas)."""
    def find(out: OpOverload) -> OpOverload:
        return next(o for o in overloads
                    if _without_out(out.schema) == _without_options(o.schema))

    return find


def _inplace_of(functional: OpOverload, overload: str) -> OpOverload:
    """The in-place form of ``functional`` (``exp_`` of ``exp``), named ``overload``; its
    schema is derived from the functional one's when first needed."""
    return OpOverload(lambda: inplace_schema(functional.schema, overload),
                      name=(functional.op_name + "_", overload))


class Namespace:
    """``aten``: an :class:`OpOverloadPacket` per op name, as attributes.

    Building it reads only each schema's name (``add.Tensor``): the schemas are parsed, the
    Python signatures built, when an op is first used, so that ``import reftensor`` does not
    grow with the table.
    """

    def __init__(self, declarations: list[Declaration]) -> None:
        self._packets: dict[str, OpOverloadPacket] = {}
        for d in declarations:
            overloads = [OpOverload(s) for s in d.schemas]
            internal = [OpOverload(s) for s in d.internal]
            outs = [OpOverload(s, functional=_functional_of(overloads)) for s in d.out]
            for out in outs:
                out.same_dtype = d.out_same_dtype
            self._add(d.name, overloads, d, function=d.function, method=d.method, outs=outs,
                      operators=d.operators, deprecated=d.deprecated, internal=internal,
                      reflected_operators=d.reflected_operators,
                      function_only=d.function_only)
            if d.inplace:
                names = dict(d.inplace_overloads)
                # an overload that only the function offers has no in-place form either
                # (``addmm.dtype``: torch has no ``addmm_.dtype``)
                writable = [o for o, text in zip(overloads, d.schemas, strict=True)
                            if (o.overload_name or "default") not in d.function_only
                            and _WRITABLE.match(text)]
                writable_internal = [o for o, text in zip(internal, d.internal, strict=True)
                                     if _WRITABLE.match(text)]
                for o in [*writable, *writable_internal]:
                    o.inplace_form = _inplace_of(
                        o, names.get(o.overload_name or "default", o.overload_name))
                deprecated = d.deprecated
                self._add(d.name + "_", [o.inplace_form for o in writable], d,
                          function=d.inplace_function, method=True,
                          operators=d.inplace_operators,
                          deprecated=lambda deprecated=deprecated: tuple(
                              inplace_schema(s) for s in map(parse_schema, deprecated)
                              if not s.is_out),
                          internal=[o.inplace_form for o in writable_internal])
        for d in declarations:
            if d.alias_of:
                self._alias(d)

    def _add(self, name: str, overloads: list[OpOverload], d: Declaration, *,
             function: bool, method: bool, outs: list[OpOverload] | None = None,
             operators: tuple[str, ...] = (),
             deprecated: tuple[str, ...] | Callable[[], tuple[FunctionSchema, ...]] = (),
             internal: list[OpOverload] | None = None,
             reflected_operators: tuple[str, ...] = (),
             function_only: tuple[str, ...] = ()) -> None:
        if name in self._packets:
            raise ValueError(f"the op table declares {name} twice")
        doc = d.doc if name == d.name else f"In-place version of ``{d.name}``."
        packet = OpOverloadPacket(name, overloads, function=function, method=method,
                                  numbers_as_tensors=d.numbers_as_tensors, doc=doc,
                                  out_overloads=outs, operators=operators,
                                  deprecated=deprecated, internal=internal,
                                  reflected_operators=reflected_operators,
                                  function_only=function_only,
                                  python_names=dict(d.python_names))
        self._packets[name] = packet
        setattr(self, name, packet)

    def _alias(self, d: Declaration) -> None:
        """An alias's overloads run the target's overload of the same name
        (``subtract.Tensor`` is ``sub.Tensor``), as a ``CompositeImplicitAutograd`` kernel:
        the target dispatches and records itself. A ``.Scalar`` overload runs the target's
        ``.Tensor`` one with the number as is, as torch's do (``x.subtract(2)`` records
        ``SubBackward0``)."""
        names = [(d.name, d.alias_of)] + ([(d.name + "_", d.alias_of + "_")] if d.inplace
                                          else [])
        for alias, target in names:
            targets = {o.overload_name: o for o in self[target].all_overloads()}
            for overload in self[alias].all_overloads():
                name = overload.overload_name.replace("Scalar", "Tensor")
                overload.impl(DispatchKey.CompositeImplicitAutograd)(targets[name].call)

    def __iter__(self) -> Iterator[OpOverloadPacket]:
        return iter(self._packets.values())

    def __getitem__(self, name: str) -> OpOverloadPacket:
        return self._packets[name]

    def __contains__(self, name: str) -> bool:
        return name in self._packets


aten = Namespace(NATIVE_FUNCTIONS)
