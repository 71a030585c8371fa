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

from collections.abc import Iterator
from dataclasses import dataclass

from .dispatcher import OpOverload
from .packet import OpOverloadPacket
from .schema import Argument, FunctionSchema, Return, Type, parse_schema

__all__ = ["Declaration", "NATIVE_FUNCTIONS", "aten"]


@dataclass(frozen=True)
class Declaration:
    """One entry of the op table."""

    schemas: tuple[str, ...]
    function: bool = True  # reftensor.<name>
    method: bool = True  # Tensor.<name>
    inplace: bool = False  # also <name>_, a function and a method
    out: tuple[str, ...] = ()  # the ``.out`` schemas, one per overload that has one
    numbers_as_tensors: bool = False
    doc: str = ""

    @property
    def name(self) -> str:
        return self.schemas[0].partition("(")[0].partition(".")[0]


def declare(*schemas: str, **options: object) -> Declaration:
    return Declaration(schemas, **options)  # type: ignore[arg-type]


def float_function(name: str, doc: str) -> Declaration:
    """A unary float function, with its in-place and ``out=`` forms."""
    return declare(f"{name}(Tensor self) -> Tensor", inplace=True,
                   out=(f"{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",),
                   doc=f"{doc} {_FLOAT}")


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
    float_function("sigmoid", "``1 / (1 + exp(-input))`` (``torch.sigmoid``)."),
    float_function("reciprocal", "``1 / input`` (``torch.reciprocal``): inf at 0."),
    # ---------------------------------------------------------- copies (chapter 2)
    declare("flip(Tensor self, int[] dims) -> Tensor",
            doc="A copy with the elements in reverse order along each of ``dims`` "
                "(``torch.flip``), laid out like ``clone``: a dense input keeps its strides. "
                "``t.flip(0, 1)`` is ``t.flip((0, 1))``.\n\nRaises RuntimeError for a dim "
                "listed twice, IndexError for a dim out of range."),
]


def inplace_schema(schema: FunctionSchema) -> FunctionSchema:
    """``exp(Tensor self) -> Tensor`` -> ``exp_(Tensor(a!) self) -> Tensor(a!)``."""
    first, *rest = schema.arguments
    written = Argument(first.name, first.type, first.default, first.kwarg_only, alias="a!")
    return FunctionSchema(schema.name + "_", schema.overload, (written, *rest),
                          (Return(Type("Tensor"), None, alias="a!"),))


def _without_out(schema: FunctionSchema) -> tuple[Argument, ...]:
    return tuple(a for a in schema.arguments if not (a.writes and a.kwarg_only))


class Namespace:
    """``aten``: an :class:`OpOverloadPacket` per op name, as attributes."""

    def __init__(self, declarations: list[Declaration]) -> None:
        self._packets: dict[str, OpOverloadPacket] = {}
        for d in declarations:
            schemas = [parse_schema(s) for s in d.schemas]
            outs = [parse_schema(s) for s in d.out]
            self._add(d.name, schemas, d, function=d.function, method=d.method, outs=outs)
            if d.inplace:
                self._add(d.name + "_", [inplace_schema(s) for s in schemas], d,
                          function=d.function, method=True)

    def _add(self, name: str, schemas: list[FunctionSchema], d: Declaration, *,
             function: bool, method: bool, outs: list[FunctionSchema] | None = None) -> None:
        if name in self._packets:
            raise ValueError(f"the op table declares {name} twice")
        doc = d.doc if not name.endswith("_") else f"In-place version of ``{d.name}``."
        overloads = [OpOverload(s) for s in schemas]
        out_overloads = {}
        for out in outs or []:
            # the functional overload an out= overload belongs to: the same arguments
            functional = next(o for o in overloads if _without_out(out) == o.schema.arguments)
            out_overloads[functional.schema.overload] = OpOverload(out, functional=functional)
        packet = OpOverloadPacket(name, overloads, function=function, method=method,
                                  numbers_as_tensors=d.numbers_as_tensors, doc=doc,
                                  out_overloads=out_overloads)
        self._packets[name] = packet
        setattr(self, name, packet)

    def __iter__(self) -> Iterator[OpOverloadPacket]:
        return iter(self._packets.values())

    def __getitem__(self, name: str) -> OpOverloadPacket:
        return self._packets[name]

    def __contains__(self, name: str) -> bool:
        return name in self._packets


aten = Namespace(NATIVE_FUNCTIONS)
