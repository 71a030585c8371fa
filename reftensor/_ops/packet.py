"""An op's overloads under one name, and its Python bindings (``reftensor.max``,
``Tensor.max``): parse the call against every overload's signature, then dispatch the
overload that accepted it."""

from __future__ import annotations

from typing import Any

from .dispatcher import OpOverload
from .python_arg_parser import PythonArgParser, Signature

__all__ = ["OpOverloadPacket"]


class OpOverloadPacket:
    """``aten.max``: the overloads ``aten.max.default``, ``aten.max.other``, ``aten.max.dim``
    (attributes, as in ``torch.ops.aten``), and the Python signatures of the function and the
    method.

    Args:
        name: the op's name (``max``).
        overloads: its overloads, in the order the parser tries them.
        function, method: whether ``reftensor.<name>`` and ``Tensor.<name>`` exist.
        numbers_as_tensors: a Python number is accepted where a tensor is declared (the
            arithmetic and comparison ops, as torch's parser allows for them).
        doc: the docstring, shown by ``help``.
    """

    def __init__(self, name: str, overloads: list[OpOverload], *, function: bool,
                 method: bool, numbers_as_tensors: bool = False, doc: str = "",
                 out_overloads: dict[str, OpOverload] | None = None) -> None:
        self.__name__ = name
        self.__doc__ = doc
        self.overloads = overloads
        out_overloads = out_overloads or {}
        for overload in [*overloads, *out_overloads.values()]:
            setattr(self, overload.schema.overload or "default", overload)
        self.function = function
        self.method = method
        # the function's signature of an overload with an ``.out`` form is the out schema's
        self._outs = [out_overloads.get(o.schema.overload) for o in overloads]
        self._function_parser = PythonArgParser(name, [
            Signature(name, (o if out is None else out).schema, method=False,
                      numbers_as_tensors=numbers_as_tensors)
            for o, out in zip(overloads, self._outs, strict=True)])
        # the method has the overloads whose first argument is ``Tensor self``
        self._method_overloads = [o for o in overloads if _has_self(o)]
        self._method_parser = PythonArgParser(name, [
            Signature(name, o.schema, method=True, numbers_as_tensors=numbers_as_tensors)
            for o in self._method_overloads])
        # a method that takes nothing but self (``t.exp()``): torch binds it as a C method
        # without arguments, and Python itself refuses any argument
        signatures = self._method_parser.signatures
        self._no_arguments = (self._method_overloads[0] if len(signatures) == 1
                              and not signatures[0].params else None)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket aten::{self.__name__}>"

    def overload_names(self) -> list[str]:
        return [o.schema.overload or "default" for o in self.all_overloads()]

    def all_overloads(self) -> list[OpOverload]:
        """The overloads, then their ``.out`` forms."""
        return [*self.overloads, *[o for o in self._outs if o is not None]]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``reftensor.<name>(...)``: parse, then dispatch the chosen overload."""
        index, values = self._function_parser.parse(args, kwargs)
        out = self._outs[index]
        if out is not None and values[-1] is not None:
            return self._call(out, values)
        if out is not None:
            values = values[:-1]
        return self._call(self.overloads[index], values)

    def call_method(self, self_: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``self_.<name>(...)``: the method's signatures start after ``self``."""
        if self._no_arguments is not None:
            if args or kwargs:
                raise self._no_arguments_error(args, kwargs)
            return self._no_arguments(self_)
        index, values = self._method_parser.parse(args, kwargs)
        return self._call(self._method_overloads[index], [self_, *values])

    def _no_arguments_error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        what = "keyword arguments" if kwargs else f"arguments ({len(args)} given)"
        return TypeError(f"TensorBase.{self.__name__}() takes no {what}")

    @staticmethod
    def _call(overload: OpOverload, values: list[Any]) -> Any:
        arguments = overload.schema.arguments
        if not arguments or not arguments[-1].kwarg_only:
            return overload(*values)
        positional = [v for v, a in zip(values, arguments, strict=True) if not a.kwarg_only]
        keywords = {a.name: v for v, a in zip(values, arguments, strict=True) if a.kwarg_only}
        return overload(*positional, **keywords)


def _has_self(overload: OpOverload) -> bool:
    arguments = overload.schema.arguments
    return bool(arguments) and arguments[0].name == "self" and arguments[0].type.base == "Tensor"
