"""The dispatcher: which kernel of an op runs for a call, by dispatch key.

An op (``aten::exp``) has a kernel per **dispatch key** (torch's ``DispatchKey``), tried from
the highest key down:

* ``Autograd``: records a node of the backward graph around the call (chapter 5); its kernel
  comes from the derivatives table;
* ``Python``: hands the call to the innermost ``TorchDispatchMode`` (chapter 9);
* ``Meta``: computes only the result's sizes, strides and dtype (chapter 4's meta device);
* ``CPU``: computes the values with NumPy.

A call computes its **key set** once, from its tensor arguments and the dispatch state: the
backend key of their device (``Meta`` if any is a meta tensor, else ``CPU``; a factory's
``Device? device`` argument, when given, decides instead, as torch computes a factory's key
from its ``TensorOptions``: ``zeros(2, device="meta")`` and ``zeros_like(t, device="meta")``
run the Meta kernel, ``zeros(2)`` the CPU one); ``Autograd`` when
some argument requires grad, and for an in-place op also when ``self`` is a view or carries
autograd metadata (torch keeps ``Autograd`` in every tensor's key set and lets the kernel
decide; reftensor leaves it out when no input needs it, which saves a call per op); ``Python``
while a dispatch mode is active. The highest key's kernel runs; an ``Autograd`` or ``Python``
kernel gets the key set below itself and **redispatches** with it
(``op.redispatch(keys, ...)``), as ``at::redispatch`` does. A dispatch mode reached below
``Autograd`` runs its calls (``func(*args)``) without ``Autograd``: the op is recorded once,
above the mode, as torch's autograd kernels exclude their key for what runs below them.

A ``CompositeImplicitAutograd`` kernel is written with other ops (``clip`` is ``clamp``): it
runs before any key, and the ops it calls dispatch (and record) themselves.

Kernels are registered by key with :meth:`OpOverload.impl`, as ``torch.library`` does; the
chapter modules register theirs when reftensor is imported.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from ..device import META
from .python_arg_parser import REQUIRED, default
from .schema import FunctionSchema, parse_schema
from .state import state
from .tensor_type import TensorType

__all__ = ["DispatchKey", "OpOverload", "key_set"]


class DispatchKey(enum.IntFlag):
    """One bit per key; a key set is their ``|``. A higher bit runs first."""

    CPU = 1
    Meta = 2
    Python = 4
    Autograd = 8
    CompositeImplicitAutograd = 16


_BACKEND = int(DispatchKey.CPU | DispatchKey.Meta)
_CPU, _META = int(DispatchKey.CPU), int(DispatchKey.Meta)
_PYTHON, _AUTOGRAD = int(DispatchKey.Python), int(DispatchKey.Autograd)
_PYTHON_KEY = DispatchKey.Python
# not a key: marks a key set that an ``Autograd`` kernel redispatches with (the call is
# below autograd), so that the ``Python`` key's kernel knows it
_BELOW_AUTOGRAD = 64
Kernel = Callable[..., Any]


def key_set(tensors: list[Any], *, inplace: bool) -> int:
    """The dispatch key set of a call whose tensor arguments are ``tensors``."""
    keys = _CPU
    autograd = False
    for t in tensors:
        if t._storage._device is META:
            keys = _META
        if t._requires_grad:
            autograd = True
    if inplace and tensors:
        self = tensors[0]
        autograd = autograd or self._base is not None or self._autograd_meta is not None
    if autograd and not state.below_autograd:
        keys |= _AUTOGRAD
    if state.modes:
        keys |= _PYTHON
    return keys


class OpOverload:
    """One overload of an op (``aten::max.other``): its schema and its kernels by key.

    Call it with the schema's arguments (``self`` included, keyword-only ones by keyword), as
    ``torch.ops.aten.max.other(a, b)``; the Python bindings (``reftensor.max``,
    ``Tensor.max``) parse a user's call into exactly that.
    """

    def __init__(self, schema: str | FunctionSchema | Callable[[], FunctionSchema], *,
                 functional: OpOverload | Callable[[OpOverload], OpOverload] | None = None,
                 name: tuple[str, str] | None = None) -> None:
        # The schema may be parsed when first needed (the first call, or a look at
        # ``schema``): the table declares hundreds of overloads, and parsing them all would
        # cost every ``import reftensor`` time that grows with each op added. Until then
        # the overload knows its name from the schema's head (``add.Tensor(``), or from
        # ``name`` where ``schema`` is a function that builds it (an in-place form: ``exp_``
        # from ``exp``). Every attribute is set here, in the same order for every overload
        # (Python then keeps them as compactly as a class with slots, and reads them as fast).
        if type(schema) is str:
            op, _, overload = schema.partition("(")[0].partition(".")
        elif isinstance(schema, FunctionSchema):
            op, overload = schema.name, schema.overload
        elif name is not None:
            op, overload = name
        else:
            raise TypeError("OpOverload: a schema built on demand needs its name")
        self.op_name, self.overload_name = op, overload  # ``add``, ``Tensor`` (``""``: default)
        # ``aten::add.Tensor`` (torch's ``name()``), ``aten.add.Tensor`` (``str``)
        self.qualified_name = f"aten::{op}.{overload}" if overload else f"aten::{op}"
        self._overloadpacket: Any = None  # ``aten.add``: set by the packet that holds it
        # ``add_``: writes into ``self`` (the name ends in ``_``, as torch's rule says)
        self.inplace = op[-1] == "_" and op[:2] != "__"
        self.kernels: dict[int, Kernel] = {_PYTHON_KEY: python_key}
        self.inplace_form: OpOverload | None = None  # ``exp_`` of ``exp`` (the op table's)
        # has a derivative formula (set by the derivatives table; ``floor_divide`` has a
        # node whose backward raises, and counts as not differentiable)
        self.differentiable = False
        self.same_dtype = False  # of an ``.out`` overload: out= must have self's dtype
        # its node class, from the derivatives table: built on first use (``node``), since
        # building the table's 175 classes would cost every ``import reftensor`` time
        self._node: type | None = None
        self._make_node: Callable[[], type] | None = None
        # the schema's source, and ``functional`` (of an ``.out`` overload: the op it writes
        # out), or a function that finds it given this overload (matching the arguments
        # needs both schemas parsed: it runs with the parse)
        self._source: Any = schema
        self._find_functional = functional
        self._parsed: FunctionSchema | None = None
        self._functional: OpOverload | None = None
        # what ``call`` reads off the schema (``_digest``), once it is parsed
        self._tensor_positions: tuple[int, ...] = ()
        self._positional, self._device = 0, None
        self._names: dict[str, int] = {}
        self._defaults: list[Any] = []
        # the kernels ``call`` looks at first; until the schema is parsed, ``_composite`` is
        # ``_first_call``, which parses it
        self._cpu: Kernel | None = None
        self._composite: Kernel | None = self._first_call
        if isinstance(schema, FunctionSchema):
            self._parse()

    def _parse(self) -> None:
        """Parse the schema (or build it), read what calls need off it, find the functional
        overload of an ``.out`` one."""
        source = self._source
        schema = (source if isinstance(source, FunctionSchema) else
                  parse_schema(source) if isinstance(source, str) else source())
        if (schema.name, schema.overload) != (self.op_name, self.overload_name):
            raise ValueError(f"{self.qualified_name}: its schema is {schema.qualified}")
        self._parsed, self._source = schema, None
        self._digest()
        find, self._find_functional = self._find_functional, None
        self._functional = find(self) if callable(find) and not isinstance(
            find, OpOverload) else find
        self._composite = self.kernels.get(DispatchKey.CompositeImplicitAutograd)

    def _first_call(self, *values: Any) -> Any:
        """The first call: parse the schema, then call."""
        self._parse()
        return self.call(*values)

    @property
    def schema(self) -> FunctionSchema:
        """The overload's :class:`FunctionSchema` (parsed when first asked for)."""
        if self._parsed is None:
            self._parse()
        return self._parsed  # type: ignore[return-value]

    @property
    def functional(self) -> OpOverload | None:
        """Of an ``.out`` overload, the functional overload it writes out (``add.out``:
        ``add.Tensor``); None for the others."""
        if self._parsed is None:
            self._parse()
        return self._functional

    def _digest(self) -> None:
        """In one pass over the arguments: where the tensors are (to compute the key set
        quickly), how many are positional, each one's position and default, and a factory's
        ``Device? device`` (it decides the backend key), or None."""
        tensors, names, defaults = [], {}, []
        positional, device_at = 0, None
        for i, a in enumerate(self.schema.arguments):
            base = a.type.base
            if base == "Tensor":
                tensors.append(i)
            elif base == "Device" and a.name == "device" and device_at is None:
                device_at = i
            if not a.kwarg_only:
                positional += 1
            names[a.name] = i
            defaults.append(default(a.default))
        self._tensor_positions, self._device = tuple(tensors), device_at
        self._positional, self._names, self._defaults = positional, names, defaults

    @property
    def node(self) -> type | None:
        """The class of the node that records a call (``AddBackward0``), or None where the
        derivatives table has no row for this overload."""
        if self._node is None and self._make_node is not None:
            self._node, self._make_node = self._make_node(), None
        return self._node

    def lazy_node(self, make: Callable[[], type]) -> None:
        """Give the overload its node class, built by ``make`` when first asked for."""
        self._node, self._make_node = None, make

    def name(self) -> str:
        """``aten::add.Tensor`` (``aten::exp`` for a default overload), as torch's
        ``OpOverload.name()``."""
        return self.qualified_name

    @property
    def __name__(self) -> str:  # type: ignore[override]
        """``add.Tensor``, ``exp.default``."""
        return f"{self.op_name}.{self.overload_name or 'default'}"

    @property
    def overloadpacket(self) -> Any:
        """The :class:`OpOverloadPacket` that holds this overload (``aten.add`` of
        ``aten.add.Tensor``)."""
        return self._overloadpacket

    @property
    def namespace(self) -> str:
        return "aten"

    @property
    def _overloadname(self) -> str:
        return self.overload_name or "default"

    @property
    def _opname(self) -> str:
        return self.op_name

    @property
    def _schema(self) -> FunctionSchema:
        """The schema, as torch's ``OpOverload._schema`` (parsed when first asked for)."""
        return self.schema

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self.op_name}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"aten.{self.__name__}"

    def impl(self, key: DispatchKey | str) -> Callable[[Kernel], Kernel]:
        """Register the decorated function as this overload's kernel for ``key``."""
        key = DispatchKey[key] if isinstance(key, str) else key

        def register(kernel: Kernel) -> Kernel:
            if key in self.kernels:
                raise RuntimeError(f"{self.qualified_name} already has a kernel for {key.name}")
            self.kernels[key] = kernel
            self._refresh()
            return kernel

        return register

    def impl_lazy(self, key: DispatchKey | str, make: Callable[[], Kernel]) -> None:
        """Register the kernel that ``make()`` builds for ``key``, built on the first call
        that runs it (which then replaces itself by that kernel): what a kernel reads off
        the schema is then read when the op is first used, not at ``import reftensor``."""
        key = DispatchKey[key] if isinstance(key, str) else key

        def first_call(*values: Any) -> Any:
            kernel = make()
            self.kernels[key] = kernel
            self._refresh()
            return kernel(*values)

        self.impl(key)(first_call)

    def _refresh(self) -> None:
        """The kernels ``call`` looks at first, after a change (``_first_call`` stays until
        the schema is parsed)."""
        self._cpu = self.kernels.get(DispatchKey.CPU)
        if self._parsed is not None:
            self._composite = self.kernels.get(DispatchKey.CompositeImplicitAutograd)

    def has_kernel(self, key: DispatchKey) -> bool:
        return key in self.kernels

    def tensors(self, values: tuple[Any, ...] | list[Any]) -> list[Any]:
        """The tensor arguments among a call's ``values`` (lists of tensors included)."""
        if self._parsed is None:
            self._parse()
        found = []
        for i in self._tensor_positions:
            value = values[i]
            if isinstance(value, TensorType):
                found.append(value)
            elif isinstance(value, tuple | list):
                found.extend(v for v in value if isinstance(v, TensorType))
        return found

    def values(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The value of every argument, in the schema's order, from a call that gives the
        keyword-only ones by keyword (and may leave out those with defaults).

        Raises:
            TypeError: an unknown, missing or repeated argument.
        """
        if self._parsed is None:
            self._parse()
        if len(args) > self._positional:
            raise TypeError(f"{self.qualified_name}() takes {self._positional} positional "
                            f"arguments but {len(args)} were given")
        values = [*args, *self._defaults[len(args):]]
        for name, value in kwargs.items():
            i = self._names.get(name)
            if i is None or i < len(args):
                raise TypeError(f"{self.qualified_name}() got an unexpected or repeated argument "
                                f"'{name}'")
            values[i] = value
        if any(v is REQUIRED for v in values):
            missing = [a.name for a, v in zip(self.schema.arguments, values, strict=True)
                       if v is REQUIRED]
            raise TypeError(f"{self.qualified_name}() missing arguments: {', '.join(missing)}")
        return values

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call with the schema's arguments, keyword-only ones by keyword
        (``aten.add.Tensor(a, b, alpha=2)``)."""
        return self.call(*self.values(args, kwargs))

    def call(self, *values: Any) -> Any:
        """Dispatch with every argument given, positionally, in the schema's order: what
        the Python bindings call, and what every kernel receives."""
        if self._composite is not None:
            return self._composite(*values)
        # the key set (``key_set``), computed in one pass over the tensor arguments
        keys, autograd = _CPU, False
        for i in self._tensor_positions:
            value = values[i]
            if isinstance(value, TensorType):
                if value._storage._device is META:
                    keys = _META
                if value._requires_grad:
                    autograd = True
            elif isinstance(value, tuple | list):  # a list of tensors: the general way
                return self.redispatch(key_set(self.tensors(values), inplace=self.inplace),
                                       *values)
        if self._device is not None and values[self._device] is not None:
            keys = device_key(values[self._device])
        if self.inplace and not autograd and self._tensor_positions:
            first = values[self._tensor_positions[0]]
            autograd = first._base is not None or first._autograd_meta is not None
        if autograd and not state.below_autograd:
            keys |= _AUTOGRAD
        elif keys == _CPU and self._cpu is not None and not state.modes:
            return self._cpu(*values)  # the common case: straight to the kernel
        if state.modes:
            keys |= _PYTHON
        return self.redispatch(keys, *values)

    def redispatch(self, keys: int, *values: Any) -> Any:
        """Run the kernel of the highest key in ``keys`` that has one. The kernels of
        ``Autograd`` and ``Python`` get the op and the key set below their own key first."""
        kernels = self.kernels
        below = keys & _BELOW_AUTOGRAD
        keys &= ~_BELOW_AUTOGRAD
        while keys:
            key = 1 << (keys.bit_length() - 1)  # the highest key left
            keys &= ~key
            kernel = kernels.get(key)
            if kernel is None:
                continue
            if key & _BACKEND:
                return kernel(*values)
            if key == _AUTOGRAD:  # the calls below it know they are below autograd
                return kernel(self, keys | _BELOW_AUTOGRAD, *values)
            return kernel(self, keys | below, *values)
        raise NotImplementedError(
            f"Could not run '{self.qualified_name}' with arguments from the "
            f"'{_backend_name(values, self)}' backend: reftensor has no kernel for it.")

    def split(self, values: tuple[Any, ...] | list[Any]) -> tuple[tuple[Any, ...],
                                                                   dict[str, Any]]:
        """``values`` as ``(args, kwargs)``: keyword-only arguments by keyword."""
        arguments = self.schema.arguments  # (parsed by now: ``_positional`` is read next)
        return (tuple(values[:self._positional]),
                {a.name: v for a, v in zip(arguments[self._positional:],
                                           values[self._positional:], strict=True)})


def device_key(where: Any) -> int:
    """The backend key of a factory's ``device=`` (a device or its name): Meta for the meta
    device, else CPU (where the kernel refuses the devices reftensor does not have)."""
    kind = getattr(where, "type", where)
    return _META if isinstance(kind, str) and kind.partition(":")[0] == "meta" else _CPU


def _backend_name(values: tuple[Any, ...], op: OpOverload) -> str:
    tensors = op.tensors(values)
    return "Meta" if any(t._storage._device is META for t in tensors) else "CPU"


def python_key(op: OpOverload, keys: int, *values: Any) -> Any:
    """The ``Python`` key's kernel: the innermost dispatch mode handles the call, with
    itself popped off the stack meanwhile (so the ops it runs dispatch normally). The mode
    sees the call as torch shows it: keyword-only arguments by keyword, and the arguments
    that hold their default left out (the trailing positional ones, and keyword-only ones),
    as torch's ``parseIValuesToPyArgsKwargs`` does: ``x.sum(1)`` is
    ``aten.sum.dim_IntList(x, [1])``, without ``keepdim=False`` or ``dtype=None``."""
    args, kwargs = op.split(values)
    defaults = op._defaults
    end = len(args)
    while end and _is_default(args[end - 1], defaults[end - 1]):
        end -= 1
    if end < len(args):
        args = args[:end]
    if kwargs:
        start = op._positional
        kwargs = {name: value for i, (name, value) in enumerate(kwargs.items(), start)
                  if not _is_default(value, defaults[i])}
    mode = state.modes.pop()
    below = keys & _BELOW_AUTOGRAD
    if below:  # the call came through ``Autograd``: what the mode runs skips it
        state.below_autograd += 1
    try:
        return mode.__torch_dispatch__(op, (), args, kwargs)
    finally:
        state.modes.append(mode)
        if below:
            state.below_autograd -= 1


def _is_default(value: Any, default_value: Any) -> bool:
    """Is ``value`` the schema's default (a list default is kept as a tuple)?"""
    if value is default_value:
        return True
    if isinstance(value, list):
        value = tuple(value)
    return type(value) is type(default_value) and value == default_value
