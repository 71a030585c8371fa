"""Binding a Python call to an op's schema, with the rules of torch's ``PythonArgParser``.

``reftensor.exp(t)``, ``t.sum(1, keepdim=True)`` and ``reftensor.max(a, b)`` all arrive as
``*args, **kwargs``. The parser turns them into the schema's arguments, once per call:

1. **Overload resolution.** An op with overloads (``max()``, ``max(other)``, ``max(dim,
   keepdim)``) tries them in the order declared; the first whose parameters accept the
   arguments wins. The table declares overloads in torch's order (a ``Tensor`` overload
   before a ``Scalar`` one, so a 0-d tensor is not read as a number).
2. **Python names.** A schema's ``self`` is called ``input`` in the function
   (``torch.exp(input=t)``); a method takes ``self`` itself, so its signature starts after it.
3. **Conversions**, as ``FunctionParameter::check`` and the ``PythonArgs`` getters do:
   ``int`` accepts a Python int (not a bool), a NumPy integer, or a 0-d integer tensor that
   does not require grad; ``float`` accepts any real Python number; ``Scalar`` (shown as
   ``Number``) a number or a 0-d tensor that does not require grad; ``int[]`` a tuple or list
   of ints, and a bare int where the schema gives a size (``int[1]``); ``ScalarType`` a dtype
   or the Python types ``bool``, ``int``, ``float``.
4. **Errors** are TypeErrors with torch's text: one signature reports the exact problem
   (``exp(): argument 'input' (position 1) must be Tensor, not str``); several list every
   signature (``max() received an invalid combination of arguments - got (Tensor, str), but
   expected one of: ...``), unless exactly one of them takes that many arguments.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes, layout
from ..device import device
from ..size import Size
from .schema import Argument, FunctionSchema, Type
from .tensor_type import TensorType

__all__ = ["REQUIRED", "TENSOR_OPTIONS", "Parameter", "Signature", "PythonArgParser", "default",
           "has_tensor_options"]

REQUIRED: Any = object()  # the default of a parameter that has none

#: How torch's error messages name each schema type.
_TYPE_NAMES = {
    "Tensor": "Tensor", "Scalar": "Number", "int": "int", "SymInt": "int", "float": "float",
    "bool": "bool", "str": "str", "ScalarType": "torch.dtype", "Layout": "torch.layout",
    "Device": "torch.device", "MemoryFormat": "torch.memory_format",
    "Generator": "torch.Generator",
}
_LIST_NAMES = {"Tensor": "tuple of Tensors", "int": "tuple of ints", "SymInt": "tuple of ints",
               "float": "tuple of floats", "bool": "tuple of bools", "Scalar": "tuple of Scalars"}
#: Python types torch accepts where it wants a dtype (``t.sum(dtype=float)`` is float64).
_PYTHON_TYPES_AS_DTYPES = {builtins.bool: dtypes.bool, builtins.int: dtypes.int64,
                           builtins.float: dtypes.float64}
#: Defaults that a schema writes as a name rather than a Python literal.
_NAMED_DEFAULTS = {"contiguous_format": layout.contiguous_format, "Mean": 1, "Sum": 2,
                   "long": dtypes.int64}


#: torch's own C types print with their module (``Py_TYPE(obj)->tp_name``).
_C_TYPE_NAMES = {dtypes.dtype: "torch.dtype", layout.memory_format: "torch.memory_format",
                 device: "torch.device", Size: "torch.Size", "Generator": "torch._C.Generator"}


def typename(value: Any) -> str:
    """The type's name as torch's messages print it: ``torch.dtype`` for a dtype, the class
    name for the rest (``Tensor``, ``str``, ``NoneType``)."""
    cls = type(value)
    return _C_TYPE_NAMES.get(cls) or _C_TYPE_NAMES.get(cls.__name__) or cls.__name__


# ------------------------------------------------------------------ checks and conversions
def _is_int(x: Any) -> builtins.bool:
    return ((isinstance(x, builtins.int) and not isinstance(x, builtins.bool))
            or isinstance(x, np.integer))


def _is_real(x: Any) -> builtins.bool:
    return isinstance(x, builtins.int | builtins.float | np.integer | np.floating | np.bool_)


def _zero_dim(x: Any, integral: builtins.bool = False) -> builtins.bool:
    """A 0-d tensor that does not require grad, where torch accepts one as a number."""
    if not isinstance(x, TensorType) or x._shape or x._requires_grad:
        return False
    return not integral or (not x._dtype.is_floating_point and x._dtype is not dtypes.bool)


def _check_int(x: Any) -> builtins.bool:
    return _is_int(x) or _zero_dim(x, integral=True)


def _check_int_list(size: int | None) -> Callable[[Any], builtins.bool]:
    """torch looks at the first element only; a later one that is no int fails when the
    list is converted (``_Unpack``)."""
    def check(x: Any) -> builtins.bool:
        if isinstance(x, tuple | list):
            return not x or _check_int(x[0])
        return size is not None and _check_int(x)

    return check


def _check_bool_list(x: Any) -> builtins.bool:
    """``bool[3] output_mask``: a tuple or list of bools (or ints)."""
    return isinstance(x, tuple | list) and all(
        isinstance(e, builtins.bool | np.bool_) or _check_int(e) for e in x)


def _bools_of_size(size: int | None) -> Callable[[Any], tuple[builtins.bool, ...]]:
    """A fixed-size bool list (``bool[3]``) must have that many elements."""
    def convert(x: Any) -> tuple[builtins.bool, ...]:
        if size is not None and len(x) != size:
            raise RuntimeError(f"Tried to convert a List with {len(x)} elements to a "
                               f"fixed-size array of size {size}")
        return tuple(builtins.bool(e) for e in x)

    return convert


class _Unpack(Exception):
    """Element ``index`` of a list argument is not an int."""

    def __init__(self, index: int, element: Any) -> None:
        self.index, self.element = index, element


def _int_element(i: int, e: Any) -> int:
    """Element ``i`` of an int list; here torch also takes a bool (as 0 or 1)."""
    if not (_check_int(e) or isinstance(e, builtins.bool | np.bool_)):
        raise _Unpack(i, e)
    return _to_int(e)


def _check_tensor_list(argnum: int, none_ok: builtins.bool = False
                       ) -> Callable[[Any], builtins.bool]:
    """A tuple or list of tensors. An element that is no tensor is torch's TypeError at
    once, while the overload is still being chosen (``torch.cat([t, 2])``); ``argnum`` is
    the parameter's index, as torch counts it in that message. ``none_ok``: None elements
    too (a ``Tensor?[]`` of an op called as ``torch.ops.aten.index``)."""
    def check(x: Any) -> builtins.bool:
        if not isinstance(x, tuple | list):
            return False
        for i, e in enumerate(x):
            if not isinstance(e, TensorType) and not (none_ok and e is None):
                raise TypeError(f"expected Tensor as element {i} in argument {argnum}, but "
                                f"got {typename(e)}")
        return True

    return check


def _check_scalar(x: Any) -> builtins.bool:
    return _is_real(x) or isinstance(x, complex) or _zero_dim(x)


_CHECKS: dict[str, Callable[[Any], builtins.bool]] = {
    "Tensor": lambda x: isinstance(x, TensorType),
    "Scalar": _check_scalar,
    "int": _check_int,
    "SymInt": _check_int,
    "float": lambda x: _is_real(x) or _zero_dim(x),
    "bool": lambda x: isinstance(x, builtins.bool | np.bool_),
    "str": lambda x: isinstance(x, str),
    "ScalarType": lambda x: isinstance(x, dtypes.dtype) or (isinstance(x, type)
                                                           and x in _PYTHON_TYPES_AS_DTYPES),
    "MemoryFormat": lambda x: isinstance(x, layout.memory_format),
    "Device": lambda x: isinstance(x, device | str) or _is_int(x),
    "Layout": lambda x: isinstance(x, layout.layout),
    "Generator": lambda x: hasattr(x, "initial_seed") and hasattr(x, "get_state"),
}


def _number(x: Any) -> Any:
    """A Python number from a NumPy scalar or a 0-d tensor (as ``Scalar`` is read)."""
    if isinstance(x, TensorType):
        return x.item()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _strided_only(x: Any) -> Any:
    """``layout=``: reftensor has the strided layout alone."""
    if x is not layout.strided:
        raise NotImplementedError(f"reftensor has only the strided layout, not {x!r}")
    return x


def _to_int(x: Any) -> int:
    return builtins.int(_number(x))


_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "Scalar": _number,
    "int": _to_int,
    "SymInt": _to_int,
    "float": lambda x: builtins.float(_number(x)),
    "bool": builtins.bool,
    "ScalarType": lambda x: _PYTHON_TYPES_AS_DTYPES.get(x, x),
    "Layout": _strided_only,
}


def _tensors_of_size(size: int | None) -> Callable[[Any], tuple[Any, ...]]:
    """A list of tensors; with a size (``out=`` of several outputs), exactly that many."""
    def convert(x: Any) -> tuple[Any, ...]:
        if size is not None and len(x) != size:
            raise TypeError(f"expected tuple of {size} elements but got {len(x)}")
        return tuple(x)

    return convert


def _list_conversion(t: Type) -> Callable[[Any], Any]:
    if t.base == "Tensor":
        return _tensors_of_size(t.size)
    if t.base in ("int", "SymInt"):
        return lambda x: tuple(_int_element(i, e) for i, e in enumerate(x)) \
            if isinstance(x, tuple | list) else (_to_int(x),) * (t.size or 1)
    if t.base == "bool":
        return _bools_of_size(t.size)
    return tuple


@functools.cache
def default(text: str | None) -> Any:
    """A schema default as a Python value (``REQUIRED`` where there is none). Cached: the
    table repeats a few defaults (``None``, ``1``, ``False``) hundreds of times, and a list
    default comes back as a tuple, which nothing can change."""
    if text is None:
        return REQUIRED
    if text in _NAMED_DEFAULTS:
        return _NAMED_DEFAULTS[text]
    value = ast.literal_eval(text)
    return tuple(value) if isinstance(value, list) else value


# ------------------------------------------------------------------ factories' options
#: torch's ``TensorOptions`` as a schema spells them (``zeros(SymInt[] size, *, ScalarType?
#: dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)``)
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")

#: ... and as torch's Python binding takes them: after ``out=``, with ``requires_grad`` added
#: (torchgen's ``tensor_options_args``: ``(tuple of ints size, *, Tensor out = None,
#: torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool
#: pin_memory = False, bool requires_grad = False)``)
_PYTHON_OPTIONS = (
    Argument("dtype", Type("ScalarType", optional=True), "None", True),
    Argument("layout", Type("Layout", optional=True), "None", True),
    Argument("device", Type("Device", optional=True), "None", True),
    Argument("pin_memory", Type("bool", optional=True), "False", True),
    Argument("requires_grad", Type("bool", optional=True), "False", True),
)


def has_tensor_options(arguments: tuple[Argument, ...] | list[Argument]) -> builtins.bool:
    """Does a schema take ``TensorOptions`` (a factory such as ``zeros``, ``zeros_like``,
    ``new_zeros``)?"""
    names = {a.name for a in arguments}
    return all(n in names for n in TENSOR_OPTIONS)


# ------------------------------------------------------------------ one signature
class Parameter(NamedTuple):
    """One argument of a Python signature: the schema's argument with its Python name,
    check and conversion."""

    name: str
    schema_name: str
    type: Type
    default: Any
    kwarg_only: builtins.bool
    check: Callable[[Any], builtins.bool]
    convert: Callable[[Any], Any] | None

    @property
    def type_name(self) -> str:
        return _LIST_NAMES.get(self.type.base, "tuple") if self.type.is_list \
            else _TYPE_NAMES[self.type.base]

    @property
    def none_is_default(self) -> builtins.bool:
        """torch reads None as the default for an int list whose default is empty
        (``amax(Tensor self, int[1] dim=[])``: ``t.amax(None)`` is ``t.amax()``); one with
        values (``rot90``'s ``dims=[0,1]``, ``linalg_matrix_norm``'s ``dim=[-2,-1]``)
        refuses None."""
        return (self.type.is_list and self.type.base in ("int", "SymInt")
                and self.default == ())

    def accepts(self, value: Any) -> builtins.bool:
        return (value is None and (self.type.optional or self.none_is_default)
                or self.check(value))

    def text(self) -> str:
        """``bool keepdim = False``, as torch lists a signature."""
        out = f"{self.type_name} {self.name}"
        if self.default is REQUIRED:
            return out
        shown = "None" if self.default is None else repr(self.default)
        if isinstance(self.default, layout.memory_format):
            shown = "torch.contiguous_format"
        elif isinstance(self.default, str):  # torch quotes a string twice: "linear"
            shown = f'"{self.default}"'
        elif isinstance(self.default, tuple) and self.default:  # C++'s braces: {-2,-1}
            shown = "{" + ",".join(str(v) for v in self.default) + "}"
        return f"{out} = {shown}"


def _parameter(arg: Argument, *, python_name: str, numbers_as_tensors: builtins.bool,
               index: int, none_in_lists: builtins.bool = False) -> Parameter:
    t = arg.type
    if t.is_list:
        if t.base == "Tensor":
            check = _check_tensor_list(index, none_in_lists and t.elements_optional)
        elif t.base == "bool":
            check = _check_bool_list
        else:
            check = _check_int_list(t.size)
        convert: Callable[[Any], Any] | None = _list_conversion(t)
    elif t.base == "Tensor" and numbers_as_tensors:
        # add, mul, eq, ...: a Python number is taken where a tensor is wanted, and kept as a
        # number (a "wrapped number": it does not take part in type promotion as a tensor)
        check = lambda x: isinstance(x, TensorType) or _is_real(x)  # noqa: E731
        convert = None
    else:
        check, convert = _CHECKS[t.base], _CONVERSIONS.get(t.base)
    return Parameter(python_name, arg.name, t, default(arg.default), arg.kwarg_only, check,
                     convert)


class Signature:
    """One overload's Python signature: ``(Tensor input, *, Tensor out = None)``.

    ``method``: the signature of ``Tensor.<name>``, without ``self``. ``python_names``: an
    argument that torch's Python binding names otherwise than the schema (``copy_``'s
    ``src`` is ``other``). ``out``: a factory's ``.out`` schema (``zeros.out``), whose
    ``out`` joins the functional ``schema``'s arguments.

    A factory (a schema with ``TensorOptions``) takes its options as torch's Python binding
    does: after ``out=``, with ``requires_grad`` added (``tensor_options`` is then True,
    and the values :meth:`bind` returns are in the Python order, not the schema's).
    """

    def __init__(self, name: str, schema: FunctionSchema, *, method: builtins.bool,
                 numbers_as_tensors: builtins.bool = False, hidden: builtins.bool = False,
                 python_names: dict[str, str] | None = None,
                 out: FunctionSchema | None = None,
                 none_in_lists: builtins.bool = False) -> None:
        self.name, self.schema, self.method = name, schema, method
        # a deprecated signature (torch's ``deprecated.yaml``): still accepted, with a
        # warning, but never listed in an error message
        self.hidden = hidden
        arguments = list(schema.arguments)
        if out is not None:  # zeros.out(SymInt[] size, *, Tensor(a!) out): its ``out``
            arguments += [a for a in out.arguments if a.writes and a.kwarg_only]
        # where ``self`` goes among the schema's arguments: first, but for a few ops
        # (``where.self(Tensor condition, Tensor self, Tensor other)``: ``t.where(c, y)``)
        self.self_index = next((i for i, a in enumerate(arguments) if a.name == "self"), 0)
        if method:
            del arguments[self.self_index]  # ``self`` is the tensor the method is called on
        # the ``out`` of an ``.out`` schema is optional in Python: without it the functional
        # overload runs (``exp(input, *, out=None)`` is both ``exp`` and ``exp.out``)
        arguments = [Argument(a.name, Type(a.type.base, True, a.type.is_list, a.type.size),
                              "None", True, a.alias) if a.writes and a.kwarg_only else a
                     for a in arguments]
        # several outputs (``max.dim_max(..., *, Tensor(a!) max, Tensor(b!) max_values)``)
        # are one Python argument, ``out=(values, indices)``: a tuple of that many tensors
        outs = [a for a in arguments if a.writes and a.kwarg_only]
        self.out_count = len(outs)
        if len(outs) > 1:
            arguments = [a for a in arguments if a not in outs]
            arguments.append(Argument("out", Type("Tensor", True, True, len(outs)), "None",
                                      True, "a!"))
        self.tensor_options = has_tensor_options(arguments)
        if self.tensor_options:
            arguments = [a for a in arguments if a.name not in TENSOR_OPTIONS]
            arguments += _PYTHON_OPTIONS
        # torch calls a tensor ``self`` "input" in Python (a number ``self`` keeps its name:
        # ``pow(Number self, Tensor exponent)``), and a few arguments otherwise than the
        # schema (``python_names``: ``copy_``'s ``src`` is ``other``)
        renamed = dict(python_names or {})
        self.params = tuple(
            _parameter(a, python_name=renamed.get(
                a.name, "input" if a.name == "self" and a.type.base == "Tensor" else a.name),
                numbers_as_tensors=numbers_as_tensors, index=i, none_in_lists=none_in_lists)
            for i, a in enumerate(arguments))
        self.max_pos_args = sum(not p.kwarg_only for p in self.params)
        self.min_args = sum(p.default is REQUIRED for p in self.params)
        # one positional int list (``t.flip(0, 1)``, ``t.permute(1, 0)``): it may also be
        # given as separate ints, as torch allows
        self.varargs_intlist = (self.max_pos_args == 1 and self.params[0].type.is_list
                                and self.params[0].type.base in ("int", "SymInt"))
        self.by_name = {p.name: i for i, p in enumerate(self.params)}
        # for ``positional``: the defaults, converted once; None where there is none
        self._defaults = [None if p.default is REQUIRED or p.default is None
                          else p.default if p.convert is None else p.convert(p.default)
                          for p in self.params]
        self._required = [p.default is REQUIRED for p in self.params]
        self._required_keywords = [p.name for p in self.params
                                   if p.kwarg_only and p.default is REQUIRED]

    def text(self) -> str:
        parts, star = [], False
        for p in self.params:
            if p.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(p.text())
        return f"({', '.join(parts)})"

    def positional_defaults(self) -> list[Any]:
        """The converted defaults of every parameter after the first."""
        return self._defaults[1:]

    def positional(self, args: tuple[Any, ...]) -> list[Any] | None:
        """``bind`` for the common call, positional arguments only, each of the right type
        (``a.add(b)``), without the bookkeeping of keywords; None for anything else, which
        ``bind`` then handles."""
        n = len(args)
        params = self.params
        if (n > 1 and self.varargs_intlist and all(type(a) is int for a in args)
                and not params[0].check(args[0])):  # ints one by one: ``t.view(3, 4)``
            args, n = (args,), 1  # (as ``bind`` takes them)
        if n > self.max_pos_args or any(self._required[n:]):
            return None
        values = [*args, *self._defaults[n:]]
        for i in range(n):
            if not params[i].check(args[i]):
                return None
        for i in range(n):  # converted once every argument is checked
            p = params[i]
            if p.convert is not None:
                values[i] = self._convert(p, args[i])
        return values

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any], *,
             raise_errors: builtins.bool) -> list[Any] | None:
        """The converted values of every parameter, in the schema's order, or None when the
        arguments do not fit (a TypeError with torch's text when ``raise_errors``)."""
        if not kwargs and not raise_errors:
            values = self.positional(args)
            if values is not None:
                return values
        if not raise_errors and any(k not in kwargs for k in self._required_keywords):
            return None  # (``rand.generator`` without ``generator=``: no need to look further)
        params = self.params
        if len(args) > self.max_pos_args and not (self.varargs_intlist
                                                  and _check_int(args[0])):
            if raise_errors:
                raise self._extra_args(len(args))
            return None
        values: list[Any] = []
        used = 0
        given = len(args)  # positional arguments (ints one by one count as one list)
        for i, p in enumerate(params):
            if (i == 0 and self.varargs_intlist and args and not p.check(args[0])
                    and _check_int(args[0])):  # ints given one by one: ``t.flip(0, 1)``
                values.append(args)
                given = 1  # (``zeros(2, 3, dtype=...)``: the rest is by keyword)
                continue
            if i < given:
                if p.kwarg_only:  # positional arguments left after a bare int list's int
                    if raise_errors:
                        raise self._extra_args(len(args))
                    return None
                value, position = args[i], i + 1
            elif kwargs and p.name in kwargs:
                value, position = kwargs[p.name], 0
                used += 1
            elif p.default is REQUIRED:
                if raise_errors:
                    raise self._missing_args(i)
                return None
            else:
                values.append(p.default)
                continue
            if value is None and p.type.optional:
                values.append(None)
                continue
            if value is None and p.none_is_default:  # ``t.amax(None)``: every dim
                values.append(p.default)
                continue
            if not p.check(value):
                if raise_errors:
                    where = f" (position {position})" if position else ""
                    raise TypeError(f"{self.name}(): argument '{p.name}'{where} must be "
                                    f"{p.type_name}, not {typename(value)}")
                return None
            values.append(value)
        if kwargs and used != len(kwargs):
            if raise_errors:
                raise self._extra_kwargs(kwargs, len(args))
            return None
        # converted last, as torch reads the parsed arguments after checking them all
        return [v if v is None or p.convert is None else self._convert(p, v)
                for p, v in zip(params, values, strict=True)]

    def _convert(self, p: Parameter, value: Any) -> Any:
        """``p.convert(value)``; a list element that is no int raises torch's TypeError
        whether or not errors were asked for (torch chose the overload by then)."""
        try:
            return p.convert(value) if p.convert is not None else value
        except _Unpack as bad:
            raise TypeError(f"{self.name}(): argument '{p.name}' failed to unpack the object "
                            f"at pos {bad.index + 1} with error \"type must be tuple of "
                            f"ints,but got {typename(bad.element)}\"") from None

    def _extra_kwargs(self, kwargs: dict[str, Any], given: int) -> TypeError:
        """A keyword that names no parameter, or one already given by position."""
        for key in kwargs:
            index = self.by_name.get(key)
            if index is None:
                return TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if index < given:
                return TypeError(f"{self.name}() got multiple values for argument '{key}'")
        return TypeError("invalid keyword arguments")

    def _extra_args(self, given: int) -> TypeError:
        if self.min_args != self.max_pos_args:
            return TypeError(f"{self.name}() takes from {self.min_args} to {self.max_pos_args} "
                             f"positional arguments but {given} were given")
        s = "" if self.max_pos_args == 1 else "s"
        return TypeError(f"{self.name}() takes {self.max_pos_args} positional argument{s} but "
                         f"{given} {'was' if given == 1 else 'were'} given")

    def _missing_args(self, start: int) -> TypeError:
        missing = [f'"{p.name}"' for p in self.params[start:] if p.default is REQUIRED]
        # torch's message says "arguments" for one missing argument and "argument" for more
        s = "s" if len(missing) == 1 else ""
        return TypeError(f"{self.name}() missing {len(missing)} required positional "
                         f"argument{s}: {', '.join(missing)}")


# ------------------------------------------------------------------ all overloads of a name
class PythonArgParser:
    """Every Python signature of one name (``max``), in resolution order."""

    def __init__(self, name: str, signatures: list[Signature]) -> None:
        self.name, self.signatures = name, signatures

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, list[Any]]:
        """(index of the overload that accepts the call, its converted arguments).

        Raises:
            TypeError: no overload accepts the call (torch's text).
        """
        for index, signature in enumerate(self.signatures):
            values = signature.bind(args, kwargs, raise_errors=False)
            if values is not None:
                return index, values
        raise self._error(args, kwargs)

    def _error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        given = len(args) + len(kwargs)
        if len(self.signatures) == 1:
            plausible = self.signatures
        else:  # (a signature that only hides torch's deprecated ones counts as several)
            plausible = [s for s in self.signatures
                         if s.min_args <= given <= len(s.params) and not s.hidden]
        if len(plausible) == 1:
            try:
                plausible[0].bind(args, kwargs, raise_errors=True)
            except TypeError as error:
                return error
        shown = [s for s in self.signatures if not s.hidden]
        head = f"{self.name}() received an invalid combination of arguments - got "
        if len(shown) == 1:
            # torch's wording for one signature: the keywords its matching misses, last
            # first; or the positional arguments, marked where refused if there are as
            # many as items
            unmatched = _unmatched_keywords(shown[0], kwargs)
            if unmatched:
                return TypeError(head + "unrecognized keyword arguments: "
                                 + ", ".join(reversed(unmatched)))
            got = _marked(shown[0], args, {}) if len(args) == len(_items(shown[0])) \
                else ", ".join(typename(a) for a in args)
            return TypeError(head + f"({got}), but expected {shown[0].text()}")
        got = ", ".join([typename(a) for a in args]
                        + [f"{k}={typename(v)}" for k, v in reversed(kwargs.items())])
        if kwargs and not args:
            got += ", "  # torch trims the last separator only after a positional argument
        lines = [head + f"({got}), but expected one of:"]
        for s in shown:
            lines.append(f" * {s.text()}")
            lines.extend(_why_not(s, args, kwargs))
        return TypeError("\n".join(lines) + "\n")


def _unmatched_keywords(s: Signature, kwargs: dict[str, Any]) -> list[str]:
    """The keywords torch's message calls unrecognized, as torch matches them against the
    signature's text: only the last ``len(kwargs)`` items count (``*`` is one; one fewer
    when there is an ``out``), none when there are fewer, and a parameter with a default
    matches nothing (its text is ``alpha = 1``)."""
    items = _items(s)
    start = len(items) - len(kwargs) - (1 if "out" in s.by_name else 0)
    names = set() if start < 0 else {p.name for p in items[start:]
                                     if p is not None and p.default is REQUIRED}
    return [k for k in kwargs if k not in names]


def _items(s: Signature) -> list[Parameter | None]:
    """The signature's parameters as torch lists them, ``*`` (None) included."""
    items: list[Parameter | None] = list(s.params)
    if any(p.kwarg_only for p in s.params):
        items.insert(next(i for i, p in enumerate(s.params) if p.kwarg_only), None)
    return items


def _marked(s: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """``Tensor, !int!``: each argument, marked where the item at its position refuses it
    (as torch matches them: the ``*`` and an ``out`` refuse everything)."""
    items = _items(s)
    marks = []
    for i, a in enumerate(args):
        p = items[i] if i < len(items) else None
        ok = p is not None and p.name != "out" and _matches(p, a)
        marks.append(_described(a) if ok else f"!{_described(a)}!")
    for k, v in kwargs.items():
        p = s.params[s.by_name[k]]
        marks.append(f"{k}={_described(v)}" if _matches(p, v) else f"!{k}={_described(v)}!")
    return ", ".join(marks)


def _matches(p: Parameter, value: Any) -> builtins.bool:
    """The type check of torch's error explanations, which reads the signature's text: a
    parameter with a default or a type name of several words (``tuple of ints``) matches
    nothing, and a Tensor parameter matches tensors only (not the numbers it accepts)."""
    if p.default is not REQUIRED or " " in p.type_name or p.type_name == "Number":
        return False  # (torch's explanations know no type called Number)
    if p.type.base == "Tensor" and not p.type.is_list:
        return isinstance(value, TensorType) or (value is None and p.type.optional)
    return p.accepts(value)


def _described(value: Any) -> str:
    """``int``; a tuple or list with its elements' types: ``tuple of (int,)``."""
    if isinstance(value, tuple):
        inner = ", ".join(typename(e) for e in value) + ("," if len(value) == 1 else "")
        return f"tuple of ({inner})"
    if isinstance(value, list):
        return f"list of [{', '.join(typename(e) for e in value)}]"
    return typename(value)


def _why_not(s: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """torch explains a signature that lists as many items (``*`` included) as the call
    has arguments: the unknown keywords, or each argument marked ``!type!`` where its
    parameter refuses it."""
    if len(_items(s)) != len(args) + len(kwargs):
        return []
    unknown = [k for k in kwargs if k not in s.by_name]
    if unknown:
        return [f"      didn't match because some of the keywords were incorrect: "
                f"{', '.join(unknown)}"]
    return [f"      didn't match because some of the arguments have invalid types: "
            f"({_marked(s, args, kwargs)})"]
