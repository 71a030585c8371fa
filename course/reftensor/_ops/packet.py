"""An op's overloads under one name, and its Python bindings (``reftensor.max``,
``Tensor.max``): parse the call against every overload's signature, then dispatch the
overload that accepted it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..device import CPU, device
from .dispatcher import OpOverload
from .python_arg_parser import REQUIRED, PythonArgParser, Signature, has_tensor_options
from .schema import FunctionSchema, parse_schema

__all__ = ["OpOverloadPacket", "UNHANDLED"]

#: chapter 9's ``__torch_function__`` hook (``reftensor.overrides._op_hook``): None until a
#: Tensor subclass that overrides ``__torch_function__`` is created (a binding then pays one
#: test of this variable), then the function each binding asks first; it returns
#: :data:`UNHANDLED` when no argument of the call overrides it
_torch_function: Callable[..., Any] | None = None
UNHANDLED: Any = object()


class OpOverloadPacket:
    """``aten.max``: the overloads ``aten.max.default``, ``aten.max.other``, ``aten.max.dim``
    (attributes, as in ``torch.ops.aten``), and the Python signatures of the function and the
    method.

    Args:
        name: the op's name (``max``).
        overloads: its overloads, in the order the parser tries them (the attribute
            ``python_overloads``; :meth:`overloads` gives the names of them all).
        function, method: whether ``reftensor.<name>`` and ``Tensor.<name>`` exist.
        numbers_as_tensors: a Python number is accepted where a tensor is declared (the
            arithmetic and comparison ops, as torch's parser allows for them).
        doc: the docstring, shown by ``help``.
        python_names: arguments that torch's Python binding names otherwise than the
            schema (``copy_``'s ``src`` is ``other``).
    """

    def __init__(self, name: str, overloads: list[OpOverload], *, function: bool,
                 method: bool, numbers_as_tensors: bool = False, doc: str = "",
                 out_overloads: list[OpOverload] | None = None,
                 operators: tuple[str, ...] = (),
                 deprecated: tuple[str | FunctionSchema, ...]
                 | Callable[[], tuple[FunctionSchema, ...]] = (),
                 internal: list[OpOverload] | None = None,
                 reflected_operators: tuple[str, ...] = (),
                 function_only: tuple[str, ...] = (),
                 python_names: dict[str, str] | None = None) -> None:
        self.__name__ = name
        self.__doc__ = doc
        self.python_overloads = overloads
        self.internal = internal or []  # overloads the Python binding does not offer
        self.out_overloads = out_overloads or []  # the ``.out`` forms, as declared
        for overload in [*overloads, *self.internal, *self.out_overloads]:
            setattr(self, overload.overload_name or "default", overload)
            overload._overloadpacket = self
        self.function = function
        self.method = method
        self.operators = operators  # Tensor methods such as ``__add__`` that are this op
        self.reflected_operators = reflected_operators  # ... operands swapped: ``__rmatmul__``
        # the parsers are built on the first call (``_build``), and the schemas parsed then:
        # doing it for every op would cost every ``import reftensor`` time that most
        # programs never use, and that would grow with each op added to the table
        self._spec = (numbers_as_tensors, deprecated, function_only, python_names)

    _LAZY = frozenset({"_function_parser", "_method_parser", "_method_overloads",
                       "_no_arguments", "_first_method_signature", "_operator_fast", "_outs"})

    def __getattr__(self, attribute: str) -> Any:
        """The parsers and fast paths, built when first asked for (then plain attributes)."""
        if attribute not in OpOverloadPacket._LAZY:
            raise AttributeError(attribute)
        self._build()
        return self.__dict__[attribute]

    def _build(self) -> None:
        """The Python signatures of the function and the method, and the method's fast
        paths."""
        numbers_as_tensors, deprecated, function_only, python_names = self._spec
        deprecated = deprecated() if callable(deprecated) else tuple(
            parse_schema(d) if isinstance(d, str) else d for d in deprecated)
        # the function's signature of an overload with an ``.out`` form is the out schema's
        by_functional = {out.functional.overload_name: out for out in self.out_overloads}
        self._outs = [by_functional.get(o.overload_name) for o in self.python_overloads]
        name, overloads, function, method = (self.__name__, self.python_overloads, self.function,
                                             self.method)
        # deprecated signatures come last, each bound to the first overload (and its out=)
        hidden = [Signature(name, d, method=False, hidden=True,
                            numbers_as_tensors=numbers_as_tensors, python_names=python_names)
                  for d in deprecated]
        # an op with no Python binding is called as ``torch.ops.aten.<name>``, whose schema
        # matching takes None in a ``Tensor?[]`` list (torch's Python binding refuses it)
        self._function_parser = PythonArgParser(name, [
            *[_function_signature(name, o, out, numbers_as_tensors=numbers_as_tensors,
                                  python_names=python_names,
                                  none_in_lists=not function and not method)
              for o, out in zip(overloads, self._outs, strict=True)], *hidden])
        # the method has the overloads whose first argument is ``Tensor self``, but for
        # those only the function offers (``torch.mm(a, b, out_dtype)``)
        self._method_overloads = [o for o in overloads if _has_self(o)
                                  and o.overload_name not in function_only]
        self._method_parser = PythonArgParser(name, [
            *[Signature(name, o.schema, method=True, numbers_as_tensors=numbers_as_tensors,
                        python_names=python_names)
              for o in self._method_overloads],
            *[Signature(name, d, method=True, hidden=True, numbers_as_tensors=numbers_as_tensors,
                        python_names=python_names)
              for d in deprecated if not d.is_out]])
        # a method that takes nothing but self (``t.exp()``): torch binds it as a C method
        # without arguments, and Python itself refuses any argument
        signatures = self._method_parser.signatures
        self._no_arguments = (self._method_overloads[0] if len(signatures) == 1
                              and not signatures[0].params else None)
        # the first method signature, tried before the parser when it takes the arguments
        # as they come (``a.add(b)``, ``a + b``); not for int lists given one by one
        self._first_method_signature = (signatures[0] if self._method_overloads
                                        and not signatures[0].varargs_intlist
                                        and not signatures[0].tensor_options else None)
        # for an operator (``a + b``): the first signature's check of its one operand, its
        # overload's call, and the rest of its arguments (their converted defaults)
        first = self._first_method_signature
        self._operator_fast = None
        if first is not None and first.params and first.params[0].convert is None and all(
                p.default is not REQUIRED for p in first.params[1:]):
            self._operator_fast = (first.params[0].check, self._method_overloads[0].call,
                                   tuple(first.positional_defaults()))

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self}')>"

    def __str__(self) -> str:
        namespace = self.python_overloads[0].namespace if self.python_overloads else "aten"
        return f"{namespace}.{self.__name__}"

    def all_overloads(self) -> list[OpOverload]:
        """The overloads, the internal ones, then the ``.out`` forms."""
        return [*self.python_overloads, *self.internal, *self.out_overloads]

    def overloads(self) -> list[str]:
        """The names of the op's overloads (``torch.ops.aten.add.overloads()``), in
        :meth:`all_overloads`' order, ``"default"`` for the overload without a name; each is
        an attribute (``aten.add.Tensor``). torch's list, in its registration order, also
        names the TorchScript overloads of the name (``add.int``), which reftensor has not."""
        return [o.overload_name or "default" for o in self.all_overloads()]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``reftensor.<name>(...)``: parse, then dispatch the chosen overload."""
        if _torch_function is not None:
            handled = _torch_function(self, "function", args, kwargs)
            if handled is not UNHANDLED:
                return handled
        index, values = self._function_parser.parse(args, kwargs)
        if index >= len(self.python_overloads):
            return self._deprecated(self._function_parser.signatures[index], values)
        out = self._outs[index]
        signature = self._function_parser.signatures[index]
        if signature.tensor_options:
            return _call_factory(self.python_overloads[index], out, signature, values)
        if out is not None and values[-1] is not None:
            if isinstance(values[-1], tuple):  # out=(values, indices): one per output
                return out.call(*values[:-1], *values[-1])
            return out.call(*values)
        if out is not None:
            values = values[:-1]
        return self.python_overloads[index].call(*values)

    def call_operator(self, self_: Any, other: Any) -> Any:
        """``self_ + other`` and the like: a TypeError becomes ``NotImplemented``, so that
        Python tries the other operand's method (``t + "a"`` says "unsupported operand
        type(s)"), as torch's operators do."""
        try:
            if _torch_function is not None:
                handled = _torch_function(self, "operator", (self_, other), {})
                if handled is not UNHANDLED:
                    return handled
            fast = self._operator_fast
            if fast is not None and fast[0](other):  # one operand and nothing to convert
                return fast[1](self_, other, *fast[2])
            return self.call_method(self_, (other,), {})
        except TypeError:
            return NotImplemented

    def call_reflected(self, self_: Any, other: Any) -> Any:
        """``other @ self_`` when ``other`` has no such operator for a tensor: the function
        with the operands swapped, a TypeError turned into ``NotImplemented`` (torch's
        ``Tensor.__rmatmul__``), so that ``2 @ t`` says "unsupported operand type(s)"."""
        try:
            return self(other, self_)
        except TypeError:
            return NotImplemented

    def call_method(self, self_: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``self_.<name>(...)``: the method's signatures start after ``self``."""
        if _torch_function is not None:
            handled = _torch_function(self, "method", (self_, *args), kwargs)
            if handled is not UNHANDLED:
                return handled
        if self._no_arguments is not None:
            if args or kwargs:
                raise self._no_arguments_error(args, kwargs)
            return self._no_arguments.call(self_)
        first = self._first_method_signature
        if first is not None and not kwargs and not first.self_index:  # the common case
            values = first.positional(args)
            if values is not None:
                return self._method_overloads[0].call(self_, *values)
        index, values = self._method_parser.parse(args, kwargs)
        if index >= len(self._method_overloads):
            return self._deprecated(self._method_parser.signatures[index], [self_, *values])
        signature = self._method_parser.signatures[index]
        if signature.tensor_options:  # t.new_zeros(2, 3, dtype=...)
            return _call_factory(self._method_overloads[index], None, signature,
                                 [self_, *values], 1)
        at = signature.self_index
        if at:  # ``self`` after other arguments: ``t.where(c, y)`` is ``where(c, t, y)``
            return self._method_overloads[index].call(*values[:at], self_, *values[at:])
        return self._method_overloads[index].call(self_, *values)

    def _deprecated(self, signature: Signature, values: list[Any]) -> Any:
        """A call that a deprecated signature accepted (``torch.add(t, 2, other)``): warn as
        torch does, then run the first overload (or its out= form) with the arguments
        taken by name."""
        current = [s.text() for s in (self._method_parser if signature.method
                                       else self._function_parser).signatures if not s.hidden]
        warnings.warn(f"This overload of {self.__name__} is deprecated:\n\t{self.__name__}"
                      f"{signature.text()}\nConsider using one of the following signatures "
                      "instead:\n\t" + "\n\t".join(f"{self.__name__}{c}" for c in current),
                      UserWarning, stacklevel=3)
        arguments = signature.schema.arguments
        if signature.method:  # all but ``self`` (not always first: ``addmm(beta, self, ...)``)
            at = signature.self_index
            arguments = (*arguments[:at], *arguments[at + 1:])
        named = dict(zip([a.name for a in arguments], values[1:] if signature.method
                         else values, strict=True))
        if signature.method:
            named["self"] = values[0]
        target = self.python_overloads[0]
        if named.get("out") is not None and self._outs[0] is not None:
            target = self._outs[0]
        return target.call(*[named.get(a.name, d) for a, d in
                             zip(target.schema.arguments, target._defaults, strict=True)])

    def _no_arguments_error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        what = "keyword arguments" if kwargs else f"arguments ({len(args)} given)"
        return TypeError(f"TensorBase.{self.__name__}() takes no {what}")


def _function_signature(name: str, overload: OpOverload, out: OpOverload | None, *,
                        numbers_as_tensors: bool, python_names: dict[str, str] | None,
                        none_in_lists: bool = False) -> Signature:
    """The function's signature of an overload: its ``.out`` schema's where it has one; a
    factory's functional schema with the ``out`` of its ``.out`` schema (``zeros.out`` has
    none of ``zeros``'s options)."""
    if out is not None and has_tensor_options(overload.schema.arguments):
        return Signature(name, overload.schema, method=False, python_names=python_names,
                         numbers_as_tensors=numbers_as_tensors, out=out.schema)
    return Signature(name, (overload if out is None else out).schema, method=False,
                     numbers_as_tensors=numbers_as_tensors, python_names=python_names,
                     none_in_lists=none_in_lists)


_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
               "int32": "Int", "int64": "Long", "float16": "Half", "bfloat16": "BFloat16",
               "float32": "Float", "float64": "Double"}


#: where each argument of a factory's overload is among a signature's parsed values
_ORDERS: dict[tuple[int, int], tuple[int, ...]] = {}


def _order(signature: Signature, overload: OpOverload, offset: int) -> tuple[int, ...]:
    key = (id(signature), id(overload))
    order = _ORDERS.get(key)
    if order is None:
        names = ["self"] * offset + [p.schema_name for p in signature.params]
        order = _ORDERS[key] = tuple(names.index(a.name) for a in overload.schema.arguments)
    return order


def _call_factory(overload: OpOverload, out_overload: OpOverload | None,
                  signature: Signature, values: list[Any], offset: int = 0) -> Any:
    """A factory's call, as torch's Python binding makes it: the options go to the
    functional overload, or (with ``out=``) are checked against ``out`` (torch's
    ``check_out_type_matches``) and the ``.out`` overload runs; ``requires_grad=True``
    then makes the result a leaf that requires grad. ``values``: the signature's parsed
    values, after ``self`` for a method (``offset`` 1).

    Raises:
        RuntimeError: a ``dtype`` or ``device`` that is not ``out``'s.
    """
    at = signature.by_name
    out = values[offset + at["out"]] if "out" in at else None
    if out is not None and out_overload is not None:
        dtype, where = values[offset + at["dtype"]], values[offset + at["device"]]
        if dtype is not None and dtype is not out.dtype:
            raise RuntimeError(f"dtype {_TYPE_NAMES[dtype.name]} does not match dtype of out "
                               f"parameter ({_TYPE_NAMES[out.dtype.name]})")
        kind = None if where is None else str(getattr(where, "type", where)).partition(":")[0]
        if kind is not None and kind != out.device.type:
            raise RuntimeError(f"device type {kind} does not match device type of out "
                               f"parameter ({out.device.type})")
        overload = out_overload
    # the device as torch's binding hands it on: a device object, and for a factory with no
    # tensor argument (``zeros``, not ``zeros_like`` or ``new_zeros``) the default device
    # when none is given (what a dispatch mode sees: ``device=device(type='cpu')``)
    i = offset + at["device"]
    if values[i] is None:
        if not offset and not overload.tensors_in_schema():
            values[i] = CPU
    elif not isinstance(values[i], device):
        values[i] = device(values[i])
    result = overload.call(*[values[i] for i in _order(signature, overload, offset)])
    if values[offset + at["requires_grad"]]:
        if not result.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result.requires_grad_(True)
    return result


def _has_self(overload: OpOverload) -> bool:
    """Is the overload a method: has it a ``Tensor self`` (first, or as ``where.self``'s
    second argument)?"""
    return any(a.name == "self" and a.type.base == "Tensor" and not a.type.is_list
               for a in overload.schema.arguments)
