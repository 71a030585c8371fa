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
(``op.redispatch(keys, ...)``), as ``at::redispatch`` does. ``Python`` is also in the key set
of a call with a tensor argument whose class defines ``__torch_dispatch__`` (a Tensor
subclass: ``torch_dispatch.py``); its kernel then hands the call to that class. A dispatch
mode (or such a class) runs its calls (``func(*args)``) without ``Autograd``: an op is
recorded once, above the mode, as torch's autograd kernels exclude their key for what runs
below them.

Under a dispatch mode, or with a tensor argument whose class defines ``__torch_dispatch__``,
the key set comes from :func:`~.dispatch_keys.dispatch_key_set` and the key whose kernel runs
from :func:`~.dispatch_keys.next_key` (chapter 9's pieces; ``dispatch_keys.py``); otherwise
``OpOverload.call`` computes the same inline. Such a tensor's storage device is a marker
object (``torch_dispatch.py``), so the inline loop, which compares each storage device with
``CPU`` by identity anyway, sends the call to the piece at no cost to the other calls.

A ``CompositeImplicitAutograd`` kernel is written with other ops (``clip`` is ``clamp``): it
runs before any key, and the ops it calls dispatch (and record) themselves.

Kernels are registered by key with :meth:`OpOverload.impl`, as ``torch.library`` does; the
chapter modules register theirs when reftensor is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..device import CPU, META
from .dispatch_keys import DispatchKey, dispatch_key_set, next_key
from .python_arg_parser import REQUIRED, default
from .python_key import ModeArgument, python_key
from .schema import FunctionSchema, parse_schema
from .state import state
from .tensor_type import TensorType
from .torch_dispatch import has_torch_dispatch

__all__ = ["DispatchKey", "OpOverload", "key_set", "dispatch_key_set", "next_key"]


_BACKEND = int(DispatchKey.CPU | DispatchKey.Meta)
_CPU, _META = int(DispatchKey.CPU), int(DispatchKey.Meta)
_PYTHON, _AUTOGRAD = int(DispatchKey.Python), int(DispatchKey.Autograd)
_PYTHON_KEY = DispatchKey.Python
# not a key: marks a key set that an ``Autograd`` kernel redispatches with (the call is
# below autograd)
_BELOW_AUTOGRAD = 64
Kernel = Callable[..., Any]


def key_set(tensors: list[Any], *, inplace: bool) -> int:
    """The dispatch key set of a call whose tensor arguments are ``tensors``."""
    if state.modes:  # under a dispatch mode: chapter 9's piece
        return _piece_key_set(tensors, inplace, None)
    keys = _CPU
    autograd = False
    for t in tensors:
        if t._storage._device is not CPU:
            if t._storage._device is not META:  # marked: maybe ``__torch_dispatch__``
                return _piece_key_set(tensors, inplace, None)
            keys = _META
        if t._requires_grad:
            autograd = True
    if inplace and tensors:
        self = tensors[0]
        autograd = autograd or self._base is not None or self._autograd_meta is not None
    if autograd and not state.below_autograd:
        keys |= _AUTOGRAD
    return keys


def _piece_key_set(tensors: list[Any], inplace: bool, factory_device: Any) -> int:
    """The key set of a call made while a dispatch mode is active or with a marked tensor
    argument (of a class with ``__torch_dispatch__``, or a view of one), from
    :func:`~reftensor._ops.dispatch_keys.dispatch_key_set` (the same as :func:`key_set`'s and
    ``OpOverload.call``'s inline computation, which the other calls use). Inside
    ``no_dispatch()`` the piece is told of no mode and no such class."""
    where = None if factory_device is None else getattr(factory_device, "type", factory_device)
    enabled = not state.python_disabled
    keys = int(dispatch_key_set(
        [t._storage._device.type for t in tensors], [t._requires_grad for t in tensors],
        [enabled and has_torch_dispatch(type(t)) for t in tensors],
        factory_device=None if where is None else str(where).partition(":")[0],
        modes=len(state.modes) if enabled else 0, below_autograd=state.below_autograd > 0))
    if inplace and tensors and not state.below_autograd:  # torch's ADInplaceOrView, folded
        first = tensors[0]
        if first._base is not None or first._autograd_meta is not None:
            keys |= _AUTOGRAD
    return keys


#: the name chapter 9's notebook reads it by (its demo of the key set under a mode)
_mode_key_set = _piece_key_set


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
        # (a schema may name its namespace, ``mylib::foo(...)``: ``reftensor.library``'s ops)
        namespace = "aten"
        if type(schema) is str:
            op, _, overload = schema.partition("(")[0].partition(".")
            if "::" in op:
                namespace, _, op = op.partition("::")
        elif isinstance(schema, FunctionSchema):
            op, overload = schema.name, schema.overload
            namespace = schema.namespace or namespace
        elif name is not None:
            op, overload = name
        else:
            raise TypeError("OpOverload: a schema built on demand needs its name")
        self.op_name, self.overload_name = op, overload  # ``add``, ``Tensor`` (``""``: default)
        self._namespace = namespace  # ``aten``
        # ``aten::add.Tensor`` (torch's ``name()``), ``aten.add.Tensor`` (``str``)
        self.qualified_name = (f"{namespace}::{op}.{overload}" if overload
                               else f"{namespace}::{op}")
        self.__module__ = f"reftensor._ops.{namespace}"  # as torch's ``torch._ops.aten``
        self._overloadpacket: Any = None  # ``aten.add``: set by the packet that holds it
        # ``add_``: writes into ``self`` (the name ends in ``_``, as torch's rule says)
        self.inplace = op[-1] == "_" and op[:2] != "__"
        self.kernels: dict[int, Kernel] = {_PYTHON_KEY: python_key}
        self._registered = _PYTHON  # the keys of ``kernels``, as a key set
        self._mode_arguments: list[ModeArgument] | None = None  # built on a mode's first call
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
        self._returns_list = False  # returns ``Tensor[]``
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
        if schema.namespace != self._namespace:  # prints as torch's: ``aten::add.Tensor(...``
            schema = schema._replace(namespace=self._namespace)
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
            value = default(a.default)
            if a.type.is_list and a.type.size and type(value) is int:
                value = (value,) * a.type.size  # ``int[2] padding=0`` is ``[0, 0]``
            defaults.append(value)
        self._tensor_positions, self._device = tuple(tensors), device_at
        returns = self.schema.returns
        self._returns_list = len(returns) == 1 and returns[0].type.is_list
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
        """``aten``, or the namespace a ``reftensor.library`` op was defined in."""
        return self._namespace

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
        return (f"<OpOverload(op='{self._namespace}.{self.op_name}', "
                f"overload='{self._overloadname}')>")

    def __str__(self) -> str:
        return f"{self._namespace}.{self.__name__}"

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
        self._registered = sum(int(k) for k in self.kernels
                               if k != DispatchKey.CompositeImplicitAutograd)
        if self._parsed is not None:
            self._composite = self.kernels.get(DispatchKey.CompositeImplicitAutograd)

    def has_kernel(self, key: DispatchKey) -> bool:
        return key in self.kernels

    def tensors_in_schema(self) -> bool:
        """Has the schema a tensor argument (``zeros_like``: yes; ``zeros``: no)?"""
        if self._parsed is None:
            self._parse()
        return bool(self._tensor_positions)

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
            RuntimeError: too many arguments, a missing, unknown or repeated one, with the
                message of torch's ``createStackForSchema``, in its order.
        """
        if self._parsed is None:
            self._parse()
        op, n = self._namespace + "::" + self.op_name, len(self._defaults)
        if len(args) + len(kwargs) > n:
            raise RuntimeError(f"{op}() expected at most {n} argument(s) but received "
                               f"{len(args) + len(kwargs)} argument(s). Declaration: "
                               f"{self._parsed}")
        if len(args) > self._positional:
            raise RuntimeError(f"{op}() takes {self._positional} positional argument(s) but "
                               f"{len(args)} was/were given.  Declaration: {self._parsed}")
        values = [*args, *self._defaults[len(args):]]
        consumed = 0
        for name, value in kwargs.items():
            i = self._names.get(name)
            if i is not None and i >= len(args):
                values[i] = value
                consumed += 1
        if any(v is REQUIRED for v in values):
            name = next(a.name for a, v in zip(self._parsed.arguments, values, strict=True)
                        if v is REQUIRED)
            raise RuntimeError(f"{op}() is missing value for argument '{name}'. "
                               f"Declaration: {self._parsed}")
        if consumed < len(kwargs):  # torch's FunctionSchema::findErrorInKwargs
            name = next((k for k in kwargs if k not in self._names), None)
            if name is not None:
                raise RuntimeError(f"Unknown keyword argument '{name}' for operator '{op}'. "
                                   f"Schema: {self._parsed}")
            name = next(k for k in kwargs if self._names[k] < len(args))
            raise RuntimeError(f"Argument '{name}' specified both as positional and keyword "
                               f"argument. Schema: {self._parsed}")
        return values

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call with the schema's arguments, keyword-only ones by keyword
        (``aten.add.Tensor(a, b, alpha=2)``; any of them by keyword: ``self=a``)."""
        out = self.call(*self.values(args, kwargs))
        # an op that returns ``Tensor[]`` gives a list (reftensor's kernels may give a tuple,
        # which ``Tensor.split`` and the other Python bindings return, as torch's do)
        return list(out) if type(out) is tuple and self._returns_list else out

    def call(self, *values: Any) -> Any:
        """Dispatch with every argument given, positionally, in the schema's order: what
        the Python bindings call, and what every kernel receives."""
        if self._composite is not None:
            if state.inference or state.modes:
                return self._composite_call(values)
            return self._composite(*values)
        if state.modes:  # under a dispatch mode: the key set from chapter 9's piece
            return self._piece_call(values)
        # the key set (``key_set``), computed in one pass over the tensor arguments
        keys, autograd = _CPU, False
        for i in self._tensor_positions:
            value = values[i]
            if isinstance(value, TensorType):
                if value._storage._device is not CPU:
                    if value._storage._device is not META:  # marked: the piece decides
                        return self._piece_call(values)
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
        elif keys == _CPU and self._cpu is not None:
            return self._cpu(*values)  # the common case: straight to the kernel
        return self.redispatch(keys, *values)

    def _composite_call(self, values: tuple[Any, ...]) -> Any:
        """A composite op (or one called for the first time) inside ``inference_mode`` or
        under a dispatch mode. torch runs a composite kernel at the Autograd key, above
        Python. Inference mode leaves that key out, and an inference tensor has none: then,
        with a dispatch mode active or a marked tensor argument, the op itself reaches the
        Python key (the mode sees ``reshape``, not the ``view`` it becomes)."""
        if self._parsed is None:
            self._parse()
        if self._composite is None:  # not a composite op (this was its first call)
            return self.call(*values)
        tensors = self.tensors(values)
        # a mode is active, or a tensor's class has ``__torch_dispatch__`` (a marker device)
        python = state.modes or any(t._storage._device is not CPU
                                    and t._storage._device is not META for t in tensors)
        if python and (state.inference or (tensors and all(t.is_inference() for t in tensors))):
            return self._piece_call(values)
        return self._composite(*values)

    def _piece_call(self, values: tuple[Any, ...]) -> Any:
        """Dispatch with the key set from chapter 9's piece (:func:`_piece_key_set`)."""
        return self.redispatch(_piece_key_set(
            self.tensors(values), self.inplace,
            None if self._device is None else values[self._device]), *values)

    def redispatch(self, keys: int, *values: Any) -> Any:
        """Run the kernel of the highest key in ``keys`` that has one. The kernels of
        ``Autograd`` and ``Python`` get the op and the key set below their own key first."""
        kernels = self.kernels
        below = keys & _BELOW_AUTOGRAD
        keys &= ~_BELOW_AUTOGRAD
        if keys & _PYTHON:  # under a dispatch mode: the key from chapter 9's piece
            key, rest = next_key(keys, self._registered)
            if key:
                return self._run(kernels[key], key, rest, below, values)
        while keys:
            key = 1 << (keys.bit_length() - 1)  # the highest key left
            keys &= ~key
            kernel = kernels.get(key)
            if kernel is not None:
                return self._run(kernel, key, keys, below, values)
        if self._composite is not None:  # registered for every backend key, as torch's
            return self._composite(*values)
        raise NotImplementedError(
            f"Could not run '{self.qualified_name}' with arguments from the "
            f"'{_backend_name(values, self)}' backend: reftensor has no kernel for it.")

    def _run(self, kernel: Kernel, key: int, rest: int, below: int, values: Any) -> Any:
        """Run ``kernel``, of ``key``; ``rest`` is the key set below ``key``. The kernels of
        ``Autograd`` and ``Python`` get the op and ``rest`` first."""
        if key & _BACKEND:
            return kernel(*values)
        if key == _AUTOGRAD:  # the calls below it know they are below autograd
            return kernel(self, rest | _BELOW_AUTOGRAD, *values)
        return kernel(self, rest | below, *values)

    def mode_arguments(self) -> list[ModeArgument]:
        """What :func:`~reftensor._ops.python_key.mode_arguments` needs of each argument of the
        schema (built on the first call a dispatch mode sees)."""
        if self._mode_arguments is None:
            found = []
            for a, value in zip(self.schema.arguments, self._defaults, strict=True):
                found.append(ModeArgument(a.name, a.kwarg_only, value is not REQUIRED,
                                          None if value is REQUIRED else value, a.type.is_list))
            self._mode_arguments = found
        return self._mode_arguments

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
    return "Meta" if any(t._storage._device == META for t in tensors) else "CPU"
