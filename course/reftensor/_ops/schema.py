"""An op's schema: torch's one-line declaration of its name, arguments and results.

Every aten op is declared in ``native_functions.yaml`` by a string such as::

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    exp_(Tensor(a!) self) -> Tensor(a!)
    max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)

Read it as: the op ``add``, its overload ``Tensor`` (``aten::add.Tensor``); arguments with a
type, a name and maybe a default; arguments after ``*`` are keyword-only; ``(a!)`` says that
the op writes into that tensor and returns it (an in-place or ``out=`` op). ``parse_schema``
turns the string into a :class:`FunctionSchema`; the argument binder and the dispatcher read
nothing else.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

__all__ = ["Type", "Argument", "Return", "FunctionSchema", "parse_schema"]

#: The base types a schema may name (torchgen's ``BaseTy``), as far as reftensor uses them.
BASE_TYPES = frozenset({
    "Tensor", "Scalar", "int", "SymInt", "float", "bool", "str", "ScalarType", "Layout",
    "Device", "MemoryFormat", "Generator",
})


class Type(NamedTuple):
    """``int[1]?`` is ``Type("int", optional=True, is_list=True, size=1)``; ``Tensor?[]`` (a
    list whose elements may be None: ``index``'s indices) is ``Type("Tensor", is_list=True,
    elements_optional=True)``."""

    base: str
    optional: bool = False
    is_list: bool = False
    size: int | None = None  # ``int[2]``: a bare int is accepted and repeated
    elements_optional: bool = False

    def __str__(self) -> str:
        text = self.base + ("?" if self.elements_optional else "")
        if self.is_list:
            text += f"[{'' if self.size is None else self.size}]"
        return text + ("?" if self.optional else "")


class Argument(NamedTuple):
    name: str
    type: Type
    default: str | None  # the schema's text (``"1"``, ``"False"``, ``"None"``, ``"[]"``)
    kwarg_only: bool
    alias: str | None = None  # ``Tensor(a!)`` -> ``"a!"``; ``Tensor(a)``: a view of ``a``

    @property
    def writes(self) -> bool:
        """``Tensor(a!)``: the op writes into this tensor."""
        return self.alias is not None and "!" in self.alias


class Return(NamedTuple):
    type: Type
    name: str | None
    alias: str | None = None

    @property
    def writes(self) -> bool:
        return self.alias is not None and "!" in self.alias


class FunctionSchema(NamedTuple):
    name: str  # ``add``
    overload: str  # ``Tensor``, or ``""`` for the default overload
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    returns_in_brackets: bool = False  # ``-> (Tensor values, Tensor indices)``
    # ``aten`` of ``aten::add.Tensor(...)``; ``""`` for a schema written without one (as
    # ``native_functions.yaml`` writes them): torch prints the namespace only where it has one
    namespace: str = ""

    @property
    def qualified(self) -> str:
        """``aten::add.Tensor``, as torch prints an overload."""
        return (f"{self.namespace or 'aten'}::{self.name}"
                + (f".{self.overload}" if self.overload else ""))

    @property
    def is_inplace(self) -> bool:
        """``add_``: writes into ``self`` (the name ends in ``_``, as torch's rule says)."""
        return self.name.endswith("_") and not self.name.startswith("__")

    @property
    def is_out(self) -> bool:
        """``add.out``: writes into keyword-only ``out`` arguments."""
        return any(a.writes and a.kwarg_only for a in self.arguments)

    def __str__(self) -> str:
        args, seen_star = [], False
        for a in self.arguments:
            if a.kwarg_only and not seen_star:
                args.append("*")
                seen_star = True
            text = f"{_type_text(a.type, a.alias)} {a.name}"
            if a.default is not None:
                # an op's schema (with its namespace) prints its defaults as torch's
                # dispatcher holds them; a yaml declaration prints back as written
                text += "=" + (_canonical(a.type, a.default) if self.namespace else a.default)
            args.append(text)
        rets = [_type_text(r.type, r.alias) + (f" {r.name}" if r.name else "")
                for r in self.returns]
        ret = f"({', '.join(rets)})" if self.returns_in_brackets else rets[0]
        name = self.name + (f".{self.overload}" if self.overload else "")
        if self.namespace:
            name = f"{self.namespace}::{name}"
        return f"{name}({', '.join(args)}) -> {ret}"


#: the named defaults of ``native_functions.yaml`` as the numbers torch's dispatcher keeps
#: (an enum's value: ``at::Reduction::Mean``, ``ScalarType::Long``, ``MemoryFormat::Contiguous``)
_ENUM_VALUES = {"Mean": "1", "Sum": "2", "long": "4", "contiguous_format": "0",
                "preserve_format": "1", "strided": "0"}


def _canonical(t: Type, text: str) -> str:
    """A default as ``str(op._schema)`` prints it in torch: strings in double quotes, the
    named defaults as numbers, a float with 17 digits and a point (``1.``, ``0.``,
    ``1.0000000000000001e-05``), a list with ``", "``."""
    if text == "None":
        return text
    if text in _ENUM_VALUES:
        return _ENUM_VALUES[text]
    if text[0] in "'\"":
        return f'"{text[1:-1]}"'
    if t.is_list:
        if not text.startswith("["):
            # a bare number for a list: torch keeps ``int[2] padding=0`` so, and repeats
            # it for ``SymInt[2] stride=1`` (``[1, 1]``) and ``int[1] padding=0`` (``[0]``)
            if t.base != "SymInt" and t.size != 1:
                return text
            text = "[" + ", ".join([text] * (t.size or 1)) + "]"
        items = [x.strip() for x in text[1:-1].split(",") if x.strip()]
        return "[" + ", ".join(_canonical(Type(t.base), x) for x in items) + "]"
    if t.base == "float":
        digits = f"{float(text):.17g}"
        return digits if any(c in digits for c in ".ena") else digits + "."
    return text


def _type_text(t: Type, alias: str | None) -> str:
    if alias is None:
        return str(t)
    return str(t).replace(t.base, f"{t.base}({alias})", 1)


_TYPE = re.compile(r"^(?P<base>\w+)(\((?P<alias>[^)]*)\))?(?P<elements>\?(?=\[))?"
                   r"(?P<list>\[(?P<size>\d*)\])?(?P<optional>\?)?$")


@functools.cache
def _parse_type(text: str) -> tuple[Type, str | None]:
    """``Tensor(a!)`` -> (Type("Tensor"), "a!"). (Cached: the table repeats a few dozen
    types hundreds of times.)"""
    match = _TYPE.match(text)
    if match is None or match["base"] not in BASE_TYPES:
        raise ValueError(f"schema: unknown type {text!r}")
    size = match["size"]
    t = Type(match["base"], optional=match["optional"] is not None,
             is_list=match["list"] is not None, size=int(size) if size else None,
             elements_optional=match["elements"] is not None)
    return t, match["alias"]


#: a comma that is not inside brackets (schemas nest them one deep: ``int[2]=[0, 1]``,
#: ``Tensor(a -> *)``)
_COMMA = re.compile(r",(?![^\[(]*[\])])")


def _split(text: str) -> list[str]:
    """Split at commas that are not inside brackets (defaults such as ``[0, 1]``)."""
    return [part for part in map(str.strip, _COMMA.split(text)) if part]


def _split_name(text: str) -> tuple[str, str, str]:
    """``Tensor(a -> *) self`` -> (``Tensor(a -> *)``, " ", ``self``); a return may have no
    name (``Tensor(a!)``)."""
    if text.endswith(")") or " " not in text.replace(" -> ", "->"):
        return text, "", ""
    return text.rpartition(" ")


_HEAD = re.compile(r"((?P<namespace>\w+)::)?(?P<name>\w+)(\.(?P<overload>\w+))?\((?P<args>.*)\)")


@functools.cache
def _parse_argument(part: str, kwarg_only: bool = False) -> Argument:
    """``Scalar alpha=1`` -> its Argument (cached: ``Tensor self`` and a few dozen others
    recur hundreds of times in the table)."""
    declaration, _, default = part.partition("=")
    type_text, _, name = _split_name(declaration.strip())
    t, alias = _parse_type(type_text)
    return Argument(name, t, default.strip() or None, kwarg_only, alias)


@functools.cache
def _parse_return(part: str) -> Return:
    type_text, _, name = _split_name(part)
    t, alias = _parse_type(type_text)
    return Return(t, name or None, alias)


def parse_schema(text: str) -> FunctionSchema:
    """Parse one declaration of ``native_functions.yaml`` (``add.Tensor(...) -> Tensor``), or
    a schema with its namespace (``mylib::foo(Tensor x) -> Tensor``, as ``torch.library``'s
    ``define`` takes one).

    Raises:
        ValueError: the text is not a schema this parser knows (a type it does not know,
            no ``->``, unbalanced brackets).
    """
    # (the last arrow: an argument may carry one, ``Tensor(a -> *) self``)
    head, arrow, tail = text.rpartition(" -> ")
    match = _HEAD.fullmatch(head.strip())
    if not arrow or match is None:
        raise ValueError(f"schema: cannot parse {text!r}")
    arguments, kwarg_only = [], False
    for part in _split(match["args"]):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(_parse_argument(part, kwarg_only))
    tail = tail.strip()
    brackets = tail.startswith("(") and tail.endswith(")")
    if brackets:
        tail = tail[1:-1]
    returns = tuple(map(_parse_return, _split(tail)))
    return FunctionSchema(match["name"], match["overload"] or "", tuple(arguments),
                          returns, brackets, match["namespace"] or "")
