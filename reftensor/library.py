"""``reftensor.library`` (``torch.library``): define an op of your own and give it kernels per
dispatch key, as the aten ops have theirs (chapter 9).

An op is **defined** once, by its schema, in a namespace (``mylib::foo(Tensor x) -> Tensor``):
it then exists as ``reftensor.ops.mylib.foo.default``, an
:class:`~reftensor._ops.OpOverload` like ``reftensor.ops.aten.add.Tensor``, and dispatches
as one: a dispatch mode sees it (``mylib.foo.default``), ``make_fx`` records it, and it runs
the kernel of the highest key of its call's key set. Its kernels are **registered** per key,
under torch's key names:

===============================  ===========================================================
torch's key                      what runs it in reftensor
===============================  ===========================================================
``CPU``                          the ``CPU`` key (a call on CPU tensors)
``Meta``                         the ``Meta`` key (meta tensors); ``register_fake`` gives one
``CompositeExplicitAutograd``    ``CPU`` and ``Meta`` where neither has a kernel of its own
``Autograd`` (``AutogradCPU``)   the ``Autograd`` key (some input requires grad)
``CompositeImplicitAutograd``    before any key: a kernel written with other ops, which
                                 dispatch (and record) themselves
===============================  ===========================================================

Other torch keys (``CUDA``, ...) are accepted and kept, but never run: reftensor has no such
device. A kernel receives the op's arguments as a dispatch mode does (keyword-only ones by
keyword, trailing ones that hold their default left out: torch's ``Python`` kernels get them
so); with ``with_keyset=True`` it gets the key set first, then every argument positionally
in the schema's order, and may call ``op.redispatch(keyset, *arguments)`` (reftensor's
``redispatch`` takes them so).

Without an ``Autograd`` kernel, an op called on a tensor that requires grad runs its backend
kernel with grad mode on (the ops that kernel calls record themselves), then, as torch's
autograd fallback does (its mode ``"warn"``), gives each floating result that does not
require grad a ``torch::autograd::WarnNotImplemented`` node, and each one that does a hook:
both warn when a backward reaches them ("an autograd kernel was not registered to the
Autograd key(s) ..."), and the node gives its inputs no gradient.

``custom_op`` is the high-level way: a Python function with type hints becomes an op whose
schema is inferred from them (``infer_schema``), its body the kernel of every device
(``CompositeExplicitAutograd``); ``register_fake`` gives its Meta kernel, ``register_autograd``
its backward (an ``autograd.Function`` named ``GeneratedBackwardFor_<ns>_<op>_<overload>``,
which without a registered backward raises when backward reaches it, as torch's does).
"""

from __future__ import annotations

import inspect
import re
import sys
import typing
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ._ops import DispatchKey, OpOverload, OpOverloadPacket, aten
from ._ops.namespaces import namespace
from ._ops.python_key import mode_arguments
from ._ops.schema import parse_schema
from .autograd.function import Function
from .autograd.grad_mode import state as grad_state
from .autograd.graph import Node, record
from .device import device
from .dtypes import dtype
from .tensor import Tensor

__all__ = ["Library", "custom_op", "define", "fallthrough_kernel", "impl", "infer_schema",
           "register_autograd", "register_fake", "register_kernel", "CustomOpDef"]

#: namespaces no library may define ops in (torch's ``_reserved_namespaces``)
_reserved_namespaces = ["prim"]
#: the namespaces a ``DEF`` library holds, with where it was made (``aten``: the op table)
_DEF_NAMESPACES: dict[str, str] = {"aten": "reftensor/_ops/native_functions.py"}
#: ``"mylib/foo/CPU"`` for each kernel registered from Python (torch's ``_impls``)
_impls: set[str] = set()
#: libraries the module-level functions made, kept alive (torch's ``_keep_alive``)
_keep_alive: list[Library] = []
#: torch warns once per process when a kernel replaces another
_warned_override = [False]

#: torch's dispatch key names that a kernel may be registered for: those reftensor runs
_RUN_KEYS = ("CPU", "Meta", "CompositeExplicitAutograd", "Autograd", "AutogradCPU",
             "CompositeImplicitAutograd")
#: ... and those it keeps but never runs (no such device, or no such key in reftensor)
_OTHER_KEYS = frozenset({
    "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA", "PrivateUse1",
    "SparseCPU", "SparseCUDA", "QuantizedCPU", "QuantizedCUDA", "MkldnnCPU", "FPGA", "MAIA",
    "Vulkan", "Metal", "AutogradCUDA", "AutogradXLA", "AutogradMPS", "AutogradXPU",
    "AutogradHPU", "AutogradLazy", "AutogradMeta", "AutogradOther", "AutogradNestedTensor",
    "AutogradPrivateUse1", "CompositeExplicitAutogradNonFunctional", "BackendSelect",
    "Python", "ADInplaceOrView", "Functionalize", "PythonDispatcher", "PythonTLSSnapshot",
    "FuncTorchBatched", "FuncTorchDynamicLayerFrontMode", "FuncTorchDynamicLayerBackMode",
    "Batched", "Conjugate", "Negative", "ZeroTensor", "AutocastCPU", "AutocastCUDA",
    "AutocastXPU", "AutocastMPS", "NestedTensorCPU", "NestedTensorCUDA", "Dense", "Sparse",
    "Undefined"})
_NO_META = ("{}: attempted to run this operator with Meta tensors, but there was no fake impl "
            "or Meta kernel registered. You may have run into this message while using an "
            "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use "
            "this operator with those APIs you'll need to add a fake impl. Please see the "
            "following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
_NOT_IMPLEMENTED = (
    "{}: an autograd kernel was not registered to the Autograd key(s) but we are trying to "
    "backprop through it. This may lead to silently incorrect behavior. This behavior is "
    "deprecated and will be removed in a future version of PyTorch. If your operator is "
    "differentiable, please ensure you have registered an autograd kernel to the correct "
    "Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If "
    "your operator is not differentiable, or to squash this warning and use the previous "
    "behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd.")


def fallthrough_kernel() -> None:
    """A dummy kernel (torch's): registering it is accepted, and changes nothing here."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


# ------------------------------------------------------------------ the ops, by name
class _Entry:
    """One op overload of a library namespace (``mylib::foo``, ``mylib::foo.bar``): its
    :class:`OpOverload` once defined, and what was registered for it by torch's key names
    (registrations may come before the definition, as torch allows)."""

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname
        self.op: OpOverload | None = None
        self.defined_at = ""
        self.kernels: dict[str, tuple[Callable[..., Any], bool]] = {}  # key: (fn, keyset)
        self.fake: Callable[..., Any] | None = None
        self.opdef: CustomOpDef | None = None  # the op's ``custom_op``, if it is one
        self.autograd: _AutogradInfo | None = None  # ``register_autograd``'s functions


_ENTRIES: dict[str, _Entry] = {}


def _entry(qualname: str) -> _Entry:
    found = _ENTRIES.get(qualname)
    if found is None:
        found = _ENTRIES[qualname] = _Entry(qualname)
    return found


def _kernel(op: OpOverload, fn: Callable[..., Any], with_keyset: bool, key: int) -> Any:
    """A backend kernel (called with every argument, in the schema's order) that calls ``fn``
    as torch calls a Python kernel."""
    if with_keyset:
        return lambda *values: fn(key, *values)

    def kernel(*values: Any) -> Any:
        args, kwargs = mode_arguments(op.mode_arguments(), list(values))
        return fn(*args, **kwargs)

    return kernel


def _install(entry: _Entry) -> None:
    """Give the entry's op the kernels its registrations make, by reftensor's keys."""
    op = entry.op
    if op is None:
        return
    registered = entry.kernels
    kernels: dict[int, Any] = {DispatchKey.Python: op.kernels[DispatchKey.Python]}
    explicit = registered.get("CompositeExplicitAutograd")
    cpu = registered.get("CPU") or explicit
    if cpu is not None:
        kernels[DispatchKey.CPU] = _kernel(op, *cpu, DispatchKey.CPU)
    meta = registered.get("Meta")
    if meta is not None:
        kernels[DispatchKey.Meta] = _kernel(op, *meta, DispatchKey.Meta)
    elif entry.opdef is not None:  # a custom op's fake kernel, or torch's error
        kernels[DispatchKey.Meta] = _kernel(op, entry.opdef._fake_impl, False, 0)
    elif entry.fake is not None:
        kernels[DispatchKey.Meta] = _kernel(op, entry.fake, False, 0)
    elif explicit is not None:
        kernels[DispatchKey.Meta] = _kernel(op, *explicit, DispatchKey.Meta)
    else:
        kernels[DispatchKey.Meta] = _no_meta(op)
    autograd = registered.get("Autograd") or registered.get("AutogradCPU")
    if autograd is not None:
        fn, keyset = autograd
        kernels[DispatchKey.Autograd] = (
            (lambda op_, keys, *values: fn(keys, *values)) if keyset else
            (lambda op_, keys, *values: _kernel(op_, fn, False, 0)(*values)))
    elif entry.opdef is not None or entry.autograd is not None:
        kernels[DispatchKey.Autograd] = _autograd_kernel(op, entry)
    else:
        kernels[DispatchKey.Autograd] = _autograd_fallback
    written = [i for i, a in enumerate(op.schema.arguments) if a.writes]
    if entry.opdef is not None and written:  # torch's ADInplaceOrView kernel of a custom op
        for key in (DispatchKey.CPU, DispatchKey.Meta):
            if key in kernels:
                kernels[key] = _bumping(kernels[key], written)
    implicit = registered.get("CompositeImplicitAutograd")
    if implicit is not None:
        kernels[DispatchKey.CompositeImplicitAutograd] = _kernel(op, *implicit, 0)
    op.kernels = kernels
    op._refresh()
    op._composite = kernels.get(DispatchKey.CompositeImplicitAutograd)


def _bumping(kernel: Callable[..., Any], written: list[int]) -> Callable[..., Any]:
    """``kernel``, after a version bump of each tensor its op writes (``Tensor(a!)``), as
    torch's ``ADInplaceOrView`` kernel of a ``custom_op`` that mutates does first."""
    def bump(*values: Any) -> Any:
        for i in written:
            for t in _flat_tensors(values[i]):
                t._version_counter.value += 1
        return kernel(*values)

    return bump


def _no_meta(op: OpOverload) -> Callable[..., Any]:
    def meta(*values: Any) -> Any:
        raise NotImplementedError(_NO_META.format(op.name()))

    return meta


# ------------------------------------------------------------------ autograd
class WarnNotImplemented(Node):
    """torch's ``torch::autograd::WarnNotImplemented``: the node of a result of an op that has
    no autograd kernel; its backward warns and gives its inputs no gradient."""

    def __init__(self, op_name: str, *inputs: Any) -> None:
        super().__init__(*inputs)
        self._op_name = op_name

    def name(self) -> str:
        return "torch::autograd::WarnNotImplemented"

    def apply(self, grads: Any) -> tuple[Any, ...]:
        warnings.warn(_NOT_IMPLEMENTED.format(self._op_name), UserWarning, stacklevel=2)
        return (None,) * len(self.next_functions)


def _flat_tensors(value: Any) -> list[Any]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, tuple | list):
        return [t for v in value for t in _flat_tensors(v)]
    return []


def _autograd_fallback(op: OpOverload, keys: int, *values: Any) -> Any:
    """torch's autograd fallback (mode ``"warn"``), for an op with no ``Autograd`` kernel: the
    kernel below runs with grad mode on; a floating result then gets a node that warns in
    backward, or, when the kernel's own ops recorded it, a hook that warns."""
    out = op.redispatch(keys, *values)
    inputs = op.tensors(values)
    if not grad_state.enabled or not any(t.requires_grad for t in inputs):
        return out
    name = op.name()
    results = _flat_tensors(out)
    recorded: list[Any] = []
    for t in results:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            recorded.append(None)
        elif t.requires_grad:
            t.register_hook(lambda grad: warnings.warn(_NOT_IMPLEMENTED.format(name),
                                                       UserWarning, stacklevel=2))
            recorded.append(None)
        else:
            recorded.append(t)
    if any(t is not None for t in recorded):
        record(WarnNotImplemented(name, *inputs), recorded)
    return out


class _AutogradInfo:
    def __init__(self, backward: Callable[..., Any] | None,
                 setup_context: Callable[..., Any] | None) -> None:
        self.backward, self.setup_context = backward, setup_context


def _autograd_kernel(op: OpOverload, entry: _Entry) -> Callable[..., Any]:
    """torch's ``make_autograd_impl``: an ``autograd.Function`` whose forward runs the op below
    ``Autograd`` and calls ``setup_context``, and whose backward is the registered one."""
    kwarg_only = any(a.kwarg_only for a in op.schema.arguments)
    # an op that returns ``Tensor[]``: the Function returns the tensors as a tuple, and the
    # backward gets their gradients as one list (torch's ``supports_tensorlist``)
    returns_list = op._returns_list

    def info() -> _AutogradInfo:
        if entry.opdef is not None:
            return entry.opdef._autograd
        return entry.autograd or _AutogradInfo(None, None)

    def forward(ctx: Any, *positional: Any) -> Any:
        keys, kwarg_values = positional[-1]
        values = (*positional[:-1], *kwarg_values)
        result = op.redispatch(keys, *values)
        setup = info().setup_context
        if setup is not None:
            args, kwargs = op.split(values)
            if kwarg_only:
                setup(ctx=ctx, inputs=args, keyword_only_inputs=kwargs, output=result)
            else:
                setup(ctx=ctx, inputs=args, output=result)
        return tuple(result) if returns_list else result

    def backward(ctx: Any, *grads: Any) -> Any:
        backward_fn = info().backward
        if backward_fn is None:
            raise RuntimeError(f"Trying to backward through {op} but no autograd formula was "
                               "registered. Please use register_autograd to add one.")
        if returns_list:
            grads = (list(grads),)
        needs = ctx.needs_input_grad
        ctx.needs_input_grad = needs[:-1]
        try:
            result = backward_fn(ctx, *grads)
        finally:
            ctx.needs_input_grad = needs
        return (*result, None) if isinstance(result, tuple) else (result, None)

    name = f"GeneratedBackwardFor_{op.namespace}_{op.op_name}_{op._overloadname}"
    generated = type(name, (Function,), {"forward": staticmethod(forward),
                                         "backward": staticmethod(backward),
                                         "__module__": "reftensor.autograd.function"})

    def autograd(op_: OpOverload, keys: int, *values: Any) -> Any:
        positional = values[:op._positional]
        if grad_state.enabled and any(t.requires_grad for t in _flat_tensors(positional)):
            # the keyword-only arguments and the key set ride along, as torch's ``Metadata``
            out = generated.apply(*positional, (keys, values[op._positional:]))
            return list(out) if returns_list else out
        return op.redispatch(keys, *values)

    return autograd


# ------------------------------------------------------------------ Library
def _location(depth: int) -> str:
    frame = sys._getframe(depth + 1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


_BLOCKS = {"DEF": "TORCH_LIBRARY", "IMPL": "TORCH_LIBRARY_IMPL",
           "FRAGMENT": "TORCH_LIBRARY_FRAGMENT"}


class Library:
    """A collection of ops of one namespace and their kernels (``torch.library.Library``).

    Args:
        ns: the namespace (``"mylib"``).
        kind: ``"DEF"`` (the one library that defines the namespace's ops), ``"FRAGMENT"``
            (one of several that define ops in it), ``"IMPL"`` (kernels only).
        dispatch_key: the key ``impl`` registers for when given none.

    Its ops and kernels last as long as the library: when it is garbage collected, they are
    removed (and ``reftensor.ops.<ns>`` loses them), as in torch.

    Raises:
        ValueError: an unknown kind, a reserved namespace (``prim``).
        RuntimeError: a second ``DEF`` library of a namespace (``aten`` included).
    """

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library "
                             "with another name.")
        self._at = _location(1)
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    "define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                    f"of TORCH_LIBRARY was registered at {_DEF_NAMESPACES[ns]}; latest "
                    f"registration was registered at {self._at}")
            _DEF_NAMESPACES[ns] = self._at
        if dispatch_key:
            _check_key(dispatch_key)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._op_defs: set[str] = set()
        self._op_impls: set[str] = set()
        # what this library registered, removed when it is collected
        self._registrations: list[tuple[str, str]] = []  # (qualname, key or "fake")
        # kernels of the op table's ops it replaced: (op, key, the kernel before)
        self._replaced: list[tuple[OpOverload, int, Any]] = []
        self._finalizer = weakref.finalize(self, _destroy, ns, kind == "DEF", self._op_defs,
                                           self._op_impls, self._registrations, self._replaced)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _block(self) -> str:
        return f"(Error occurred while processing {_BLOCKS[self.kind]} block at {self._at})"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define an op by its schema (``"foo(Tensor x) -> Tensor"``; the namespace may be
        written, ``"mylib::foo(...)"``, and must be the library's). Returns its name as the
        schema writes it, without the overload (``"foo"``).

        Raises:
            RuntimeError: an unknown ``alias_analysis``, an ``IMPL`` library, another
                namespace, a schema that does not parse, an op defined twice.
        """
        if alias_analysis not in ["", "FROM_SCHEMA", "CONSERVATIVE"]:
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        head = schema.partition("(")[0]
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{head}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                "block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for "
                f"their namespace.  {self._block()}")
        try:
            parsed = parse_schema(schema.strip())
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        if parsed.namespace and parsed.namespace != self.ns:
            raise RuntimeError(
                f"Explicitly provided namespace ({parsed.namespace}) in schema string does not "
                f"match namespace of enclosing {_BLOCKS[self.kind]} block ({self.ns}).  Move "
                "this definition to the (unique) TORCH_LIBRARY block corresponding to this "
                "namespace (and consider deleting the namespace from your schema string.)  "
                f"{self._block()}")
        parsed = parsed._replace(namespace=self.ns)
        qualname = parsed.qualified
        entry = _entry(qualname)
        if entry.op is not None:
            raise RuntimeError(
                f"Tried to register an operator ({parsed}) with the same name and overload name "
                "multiple times. Each overload's schema should only be registered with a "
                "single call to def(). Duplicate registration: registered at "
                f"{self._at}. Original registration: registered at {entry.defined_at}")
        op = OpOverload(parsed)
        entry.op, entry.defined_at = op, self._at
        space = namespace(self.ns)
        if parsed.name in space:
            packet = space[parsed.name]
            packet.python_overloads.append(op)
            setattr(packet, op.overload_name or "default", op)
            op._overloadpacket = packet
            for built in OpOverloadPacket._LAZY:  # parsers built again on the next call
                packet.__dict__.pop(built, None)
        else:
            space.add(OpOverloadPacket(parsed.name, [op], function=False, method=False))
        _install(entry)
        self._op_defs.add(qualname)
        return head.split(".")[0]

    def _register_fake(self, op_name: str, fn: Callable[..., Any]) -> None:
        """Give the op a fake (Meta) kernel: what ``register_fake`` does."""
        entry = _entry(self._qualname(op_name, "register_fake"))
        entry.fake = fn
        self._registrations.append((entry.qualname, "fake"))
        _install(entry)

    def _qualname(self, op_name: Any, api: str) -> str:
        """``mylib::foo`` (``mylib::foo.bar``) of ``"foo"``, ``"mylib::foo"`` or an op."""
        if isinstance(op_name, OpOverload):
            return op_name.name()
        if not isinstance(op_name, str):
            raise RuntimeError(f"{api} should be passed either a name or an OpOverload object "
                               f"as the first argument, got {type(op_name)}")
        ns, sep, name = op_name.rpartition("::")
        if sep and ns != self.ns:
            raise RuntimeError(
                f'{api}("{op_name}", ...): Explicitly provided namespace ({ns}) in operator '
                f"name does not match namespace of enclosing {_BLOCKS[self.kind]} block "
                f"({self.ns}).  Move this definition to the {_BLOCKS[self.kind]} block "
                "corresponding to this namespace (and consider deleting the namespace from "
                f"your schema string.)  {self._block()}")
        return f"{self.ns}::{name}"

    def impl(self, op_name: Any, fn: Callable[..., Any], dispatch_key: str = "", *,
             with_keyset: bool = False, allow_override: bool = True) -> None:
        """Register ``fn`` as the kernel of the op ``op_name`` (``"foo"``, ``"foo.bar"``,
        ``"mylib::foo"`` or the ``OpOverload``) for ``dispatch_key`` (torch's name: ``"CPU"``,
        ``"Meta"``, ``"Autograd"``, ``"CompositeExplicitAutograd"``,
        ``"CompositeImplicitAutograd"``; by default the library's key, else
        ``CompositeImplicitAutograd``). A second kernel for the same key replaces the first
        (torch warns, once per process), unless ``allow_override=False``. In a library of
        ``aten`` (``Library("aten", "IMPL")``), it replaces the kernel of the op table's op
        until the library is collected.

        Raises:
            TypeError: ``fn`` is not callable.
            RuntimeError: a key torch does not know, another key than an ``IMPL`` library's,
                another namespace, a kernel already registered and ``allow_override=False``.
        """
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if isinstance(op_name, OpOverload):
            name = op_name.name().partition("::")[2]
        elif isinstance(op_name, str):
            name = op_name
        else:
            raise RuntimeError("impl should be passed either a name or an OpOverload object "
                               f"as the first argument, got {type(op_name)}")
        key = self.ns + "/" + name.split("::")[-1] + "/" + dispatch_key
        if not allow_override and key in _impls:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                f"overriding {name.split('::')[-1]}'s behavior for {dispatch_key} dispatch key "
                f"and {self.ns} namespace.")
        qualname = self._qualname(op_name if isinstance(op_name, str) else
                                  op_name.name(), "impl")
        torch_key = dispatch_key or "CompositeImplicitAutograd"
        _check_key(torch_key)
        if self.dispatch_key and dispatch_key != self.dispatch_key:
            raise RuntimeError(
                f'impl("{name}", ...): Explicitly provided dispatch key ({dispatch_key}) is '
                "inconsistent with the dispatch key of the enclosing TORCH_LIBRARY_IMPL block "
                f"({self.dispatch_key}).  Please declare a separate TORCH_LIBRARY_IMPL block "
                f"for this dispatch key and move your impl() there.  {self._block()}")
        entry = _entry(qualname)
        if torch_key in entry.kernels and not _warned_override[0]:
            _warned_override[0] = True
            warnings.warn(
                "Warning only once for all operators,  other operators may also be overridden.\n"
                "  Overriding a previously registered kernel for the same operator and the same "
                f"dispatch key\n  operator: {entry.op.schema if entry.op else qualname}\n"
                f"    registered at {entry.defined_at}\n  dispatch key: {torch_key}\n"
                "  previous kernel: no debug info\n"
                f"       new kernel: registered at {self._at}", UserWarning, stacklevel=2)
        aten_op = _aten_overload(qualname) if entry.op is None else None
        if aten_op is not None and torch_key == "Meta" and \
                DispatchKey.CompositeImplicitAutograd in aten_op.kernels:
            raise RuntimeError(
                f"We should not register a meta kernel directly to the operator '{name}', "
                "because it has a CompositeImplicitAutograd kernel in core. Instead we should "
                "let the operator decompose, and ensure that we have meta kernels for the base "
                "ops that it decomposes into.")
        if fn is fallthrough_kernel:
            pass
        elif aten_op is not None:  # a kernel of the op table's op, replaced while this lives
            for key, kernel in _kernels_for(aten_op, torch_key, fn, with_keyset):
                self._replaced.append((aten_op, key, aten_op.kernels.get(key)))
                aten_op.kernels[key] = kernel
                aten_op._refresh()
        else:
            entry.kernels[torch_key] = (fn, with_keyset)
            self._registrations.append((qualname, torch_key))
            _install(entry)
        _impls.add(key)
        self._op_impls.add(key)

    def _destroy(self) -> None:
        """Remove this library's ops and kernels now (torch's ``_destroy``)."""
        self._finalizer()


def _check_key(key: str) -> None:
    if key not in _RUN_KEYS and key not in _OTHER_KEYS:
        raise RuntimeError(f"could not parse dispatch key: {key}")


def _aten_overload(qualname: str) -> OpOverload | None:
    """The op table's overload ``aten::neg`` (``aten::mul.Tensor``), or None."""
    ns, _, name = qualname.partition("::")
    op_name, _, overload = name.partition(".")
    if ns != "aten" or op_name not in aten:
        return None
    return getattr(aten[op_name], overload or "default", None)


def _kernels_for(op: OpOverload, torch_key: str, fn: Callable[..., Any],
                 with_keyset: bool) -> list[tuple[int, Any]]:
    """The kernels by reftensor's key that registering ``fn`` for ``torch_key`` gives."""
    if torch_key in ("CPU", "Meta"):
        key = DispatchKey[torch_key]
        return [(key, _kernel(op, fn, with_keyset, key))]
    if torch_key == "CompositeExplicitAutograd":
        return [(k, _kernel(op, fn, with_keyset, k)) for k in (DispatchKey.CPU, DispatchKey.Meta)]
    if torch_key in ("Autograd", "AutogradCPU"):
        return [(DispatchKey.Autograd,
                 (lambda op_, keys, *values: fn(keys, *values)) if with_keyset else
                 (lambda op_, keys, *values: _kernel(op_, fn, False, 0)(*values)))]
    if torch_key == "CompositeImplicitAutograd":
        return [(DispatchKey.CompositeImplicitAutograd, _kernel(op, fn, with_keyset, 0))]
    return []  # a key reftensor never runs


def _destroy(ns: str, owns_namespace: bool, defs: set[str], impls: set[str],
             registrations: list[tuple[str, str]],
             replaced: list[tuple[OpOverload, int, Any]]) -> None:
    """A library is gone: its kernels, then its ops, are removed."""
    _impls.difference_update(impls)
    for op, key, before in reversed(replaced):
        if before is None:
            op.kernels.pop(key, None)
        else:
            op.kernels[key] = before
        op._refresh()
    for qualname, key in registrations:
        entry = _ENTRIES.get(qualname)
        if entry is None:
            continue
        if key == "fake":
            entry.fake = None
        else:
            entry.kernels.pop(key, None)
        _install(entry)
    space = namespace(ns)
    for qualname in defs:
        entry = _ENTRIES.pop(qualname, None)
        if entry is None or entry.op is None:
            continue
        op = entry.op
        if op.op_name in space:
            packet = space[op.op_name]
            packet.python_overloads.remove(op)
            if not packet.python_overloads:
                space.remove(op.op_name)
    if owns_namespace:
        _DEF_NAMESPACES.pop(ns, None)


# ------------------------------------------------------------------ the functions
_NAMELESS_SCHEMA = re.compile(r"\(.*\) -> .*")


def _parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got '
                         f"{qualname}. The qualname passed to the torch.library APIs must "
                         "consist of a namespace and a name, e.g. aten::sin")
    return splits[0], splits[1]


def _library(namespace_: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    made = Library(namespace_, "FRAGMENT")
    _keep_alive.append(made)
    return made


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Define the op ``qualname`` (``"mylib::foo"``) with ``schema`` without its name
    (``"(Tensor x) -> Tensor"``), as ``torch.library.define``.

    Raises:
        ValueError: ``qualname`` without a namespace, a schema that names the op.
    """
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, "
                         f"got {type(qualname)}")
    ns, name = _parse_namespace(qualname)
    lib = _library(ns, lib)
    if not _NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. '
                         f'"(Tensor x) -> Tensor" but got "{schema}"')
    lib.define(name + schema, alias_analysis="", tags=tags)


def _device_type_to_key(device_type: str) -> str:
    if device_type == "default":
        return "CompositeExplicitAutograd"
    kind = device(device_type).type  # (torch's error for a device type it does not know)
    return {"cpu": "CPU", "meta": "Meta", "cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}.get(
        kind, kind.upper())


def _keys_of(types: str | Sequence[str]) -> list[str]:
    keys = []
    for t in [types] if isinstance(types, str) else types:
        key = t if t in _RUN_KEYS or t in _OTHER_KEYS else _device_type_to_key(t)
        if key not in keys:
            keys.append(key)
    return keys


def impl(qualname: str, types: str | Sequence[str], func: Callable[..., Any] | None = None, *,
         lib: Library | None = None) -> Any:
    """Register ``func`` as the kernel of the op ``qualname`` for device ``types`` (``"cpu"``,
    ``"meta"``, ``"default"`` for every device) or dispatch keys (``"CPU"``, ``"Autograd"``),
    as ``torch.library.impl``; without ``func``, a decorator."""
    keys = _keys_of(types)

    def register(fn: Callable[..., Any]) -> None:
        ns, _ = _parse_namespace(qualname)
        use = _library(ns, lib)
        for key in keys:
            use.impl(qualname, fn, key)

    if func is None:
        return register
    register(func)
    return None


def _opdef_of(op: Any, api: str) -> CustomOpDef | str:
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, OpOverload):
        op = op.name()
    if not isinstance(op, str):
        raise ValueError(f"{api}({op}): got unexpected type for op: {type(op)}")
    entry = _ENTRIES.get(op)
    return entry.opdef if entry is not None and entry.opdef is not None else op


def register_fake(op: Any, func: Callable[..., Any] | None = None, /, *,
                  lib: Library | None = None, _stacklevel: int = 1,
                  allow_override: bool = False) -> Any:
    """Register ``func`` as the op's fake (Meta) kernel: it computes the results' sizes,
    strides and dtype from the arguments' (``torch.library.register_fake``); without
    ``func``, a decorator.

    Raises:
        RuntimeError: the op does not exist.
    """
    found = _opdef_of(op, "register_fake")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(found, CustomOpDef):
            return found.register_fake(fn)
        ns, _ = _parse_namespace(found)
        entry = _ENTRIES.get(found)
        if entry is None or entry.op is None:
            raise RuntimeError(f"operator {found} does not exist")
        _library(ns, lib)._register_fake(found, fn)
        return fn

    return register if func is None else register(func)


def register_kernel(op: Any, device_types: str | Sequence[str] | None,
                    func: Callable[..., Any] | None = None, /, *,
                    lib: Library | None = None) -> Any:
    """Register ``func`` as the op's kernel for ``device_types`` (``"cpu"``; None: every
    device), as ``torch.library.register_kernel``."""
    found = _opdef_of(op, "register_kernel")
    if isinstance(found, CustomOpDef):
        return found.register_kernel(device_types, func)
    return impl(found, "default" if device_types is None else device_types, func, lib=lib)


def register_autograd(op: Any, backward: Callable[..., Any], /, *,
                      setup_context: Callable[..., Any] | None = None,
                      lib: Library | None = None) -> None:
    """Give the op a backward (``torch.library.register_autograd``): ``setup_context(ctx,
    inputs, output)`` runs after the forward and saves what ``backward(ctx, *grads)`` reads;
    ``backward`` returns a gradient per positional argument."""
    found = _opdef_of(op, "register_autograd")
    if isinstance(found, CustomOpDef):
        found.register_autograd(backward, setup_context=setup_context)
        return
    entry = _ENTRIES.get(found)
    if entry is None or entry.op is None:
        raise RuntimeError(f"operator {found} does not exist")
    _check_functional(entry.op, repr(found))
    entry.autograd = _AutogradInfo(backward, setup_context)
    _install(entry)


def _check_functional(op: OpOverload, what: str) -> None:
    schema = op.schema
    if any(a.writes for a in schema.arguments):
        raise RuntimeError(f"Cannot register autograd formula for non-functional operator "
                           f"{what} with schema {schema}. Please create a functional operator "
                           "and register an autograd formula for that.")


# ------------------------------------------------------------------ infer_schema
#: ``torch.types.Number``: a schema's ``Scalar``
Number = typing.Union[int, float, bool]  # noqa: UP007


def _supported_param_types() -> dict[Any, str]:
    data = [(Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
            (float, "float", True, False, True), (bool, "bool", True, False, True),
            (str, "str", False, False, False), (Number, "Scalar", True, False, False),
            (dtype, "ScalarType", False, False, False), (device, "Device", False, False, False)]
    result: dict[Any, str] = {}
    for base, name, lists, optional_elements, optional_lists in data:
        result[base] = name
        result[typing.Optional[base]] = f"{name}?"  # noqa: UP045
        sequences = (typing.Sequence, typing.List, Sequence, list)  # noqa: UP006
        if lists:
            for s in sequences:
                result[s[base]] = f"{name}[]"
        if optional_elements:
            for s in sequences:
                result[s[typing.Optional[base]]] = f"{name}?[]"  # noqa: UP045
        if optional_lists:
            for s in sequences:
                result[typing.Optional[s[base]]] = f"{name}[]?"  # noqa: UP045
    return result


_PARAM_TYPES: dict[Any, str] = {}


def _return_types() -> dict[Any, str]:
    return {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]",  # noqa: UP006
            list[Tensor]: "Tensor[]", int: "SymInt", float: "float", bool: "bool",
            Number: "Scalar"}


def infer_schema(prototype_function: Callable[..., Any], /, *, mutates_args: Any,
                 op_name: str | None = None, tags: Any = ()) -> str:
    """The schema of an op whose function has these type hints (``torch.library.infer_schema``):
    ``def f(x: Tensor, n: int = 2) -> Tensor`` gives ``(Tensor x, SymInt n=2) -> Tensor``.
    Tensor, int (``SymInt``), float, bool, str, ``types.Number`` (``Scalar``), dtype
    (``ScalarType``), device, their ``Optional`` and lists; an argument named in
    ``mutates_args`` is written (``Tensor(a1!) y``).

    Raises:
        ValueError: an argument without a type hint or of a type a schema cannot have,
            ``*args``, a positional-only argument, no return hint, ``mutates_args`` naming
            an argument that is not there or not a tensor; torch's messages.
    """
    if not _PARAM_TYPES:
        _PARAM_TYPES.update(_supported_param_types())
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what: str) -> typing.NoReturn:
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(annotation: Any) -> Any:
        if isinstance(annotation, str):
            try:
                return eval(annotation, prototype_function.__globals__)  # noqa: S307
            except Exception as e:  # noqa: BLE001
                error_fn(f"Unsupported type annotation {annotation}. It is not a type. "
                         f"({type(e).__name__}: {e})")
        return annotation

    params, seen = [], set()
    saw_kwarg_only = False
    for idx, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not saw_kwarg_only:
            params.append("*")
            saw_kwarg_only = True
        if param.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        annotation = resolve(param.annotation)
        schema_type = _PARAM_TYPES.get(annotation)
        if schema_type is None:
            if typing.get_origin(annotation) is tuple:
                as_list = _tuple_to_list(annotation)
                example = (f"For example, {as_list}.\n\n" if as_list in _PARAM_TYPES
                           else "\n\n")
                error_fn(f"Parameter {name} has unsupported type {param.annotation}. We do not "
                         "support Tuple inputs in schema. As a workaround, please try to use "
                         f"List instead. {example}The valid types are: {_PARAM_TYPES.keys()}.")
            error_fn(f"Parameter {name} has unsupported type {param.annotation}. The valid "
                     f"types are: {_PARAM_TYPES.keys()}.")
        if type(mutates_args) is str:
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the "
                                 "arguments that are mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections "
                         "of Tensors can be mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
            continue
        value = param.default
        if value is None or isinstance(value, int | float | bool):
            text = str(value)
        elif isinstance(value, str | device):
            text = f'"{value}"'
        elif isinstance(value, dtype):
            text = str(value).removeprefix("reftensor.")
        else:
            error_fn(f"Parameter {name} has an unsupported default value type {type(value)}. "
                     "Please file an issue on GitHub so we can prioritize this.")
        params.append(f"{schema_type} {name}={text}")
    if mutates_args != "unknown":
        not_seen = set(mutates_args) - seen
        if not_seen:
            error_fn(f"{not_seen} in mutates_args were not found in the custom op's signature. "
                     "mutates_args should contain the names of all args that the custom op "
                     "mutates, or just the string 'unknown' if you don't know.")
    ret = _parse_return(resolve(sig.return_annotation), error_fn)
    if op_name is not None:
        return f"{op_name}({', '.join(params)}) -> {ret}"
    return f"({', '.join(params)}) -> {ret}"


def _tuple_to_list(tuple_type: Any) -> Any:
    """``tuple[int, int]`` -> ``list[int]`` (torch's ``tuple_to_list``)."""
    args = typing.get_args(tuple_type)
    if not args:
        return list
    if len(args) == 1 or (len(args) == 2 and args[1] is Ellipsis):
        return list[args[0]]
    return list[typing.Union[args]]  # noqa: UP007


def _parse_return(annotation: Any, error_fn: Callable[[str], typing.NoReturn]) -> str:
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    returns = _return_types()
    if typing.get_origin(annotation) is not tuple:
        if annotation not in returns:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: "
                     f"{returns}.")
        return returns[annotation]
    args = typing.get_args(annotation)
    for arg in args:
        if arg not in returns:
            error_fn(f"Return has unsupported type {annotation}. The valid types are: "
                     f"{returns}.")
    output = ", ".join(returns[a] for a in args)
    if len(args) == 1:
        output = f"({output})"
    return f"({output})"


# ------------------------------------------------------------------ custom_op
class CustomOpDef:
    """What ``custom_op`` makes: callable as the function it wraps (it dispatches the op
    ``reftensor.ops.<ns>.<name>.default``), with ``register_kernel``, ``register_fake`` and
    ``register_autograd`` (torch's ``CustomOpDef``)."""

    def __init__(self, namespace_: str, name: str, schema: str, fn: Callable[..., Any]) -> None:
        self._namespace, self._name, self._schema = namespace_, name, schema
        self._init_fn = fn
        self._backend_fns: dict[str | None, Callable[..., Any]] = {}
        self._abstract_fn: Callable[..., Any] | None = None
        self._autograd = _AutogradInfo(None, None)
        self._lib = _library_allowing_overwrite(namespace_, name)
        schema_str = name + schema
        parsed = parse_schema(schema_str)
        if any(a.kwarg_only and a.type.base == "Tensor" for a in parsed.arguments):
            raise NotImplementedError(f"custom_op with kwarg-only Tensor args. Please make your "
                                      f"tensors not kwarg-only. Got: {schema_str}")
        entry = _entry(f"{namespace_}::{name}")
        entry.opdef = self
        self._lib.define(schema_str)
        self._opoverload: OpOverload = entry.op  # type: ignore[assignment]

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        entry = _ENTRIES.get(self._qualname)  # the op as defined now (see custom_op)
        op = self._opoverload if entry is None or entry.op is None else entry.op
        return op(*args, **kwargs)

    def _fake_impl(self, *args: Any, **kwargs: Any) -> Any:
        if self._abstract_fn is None:
            if not self._opoverload.schema.returns:  # nothing to make: torch's trivial one
                return None
            raise RuntimeError(
                f"There was no fake impl registered for {self}. This is necessary for "
                "torch.compile/export/fx tracing to work. Please use "
                f"`{self._init_fn.__name__}.register_fake` to add an fake impl.")
        return self._abstract_fn(*args, **kwargs)

    def register_kernel(self, device_types: str | Sequence[str] | None,
                        fn: Callable[..., Any] | None = None, /) -> Any:
        """Register ``fn`` as the op's kernel for ``device_types`` (``"cpu"``; None: every
        device); without ``fn``, a decorator."""
        def inner(fn: Callable[..., Any]) -> Callable[..., Any]:
            types = [device_types] if device_types is None or isinstance(device_types, str) \
                else list(device_types)
            for device_type in types:
                key = ("CompositeExplicitAutograd" if device_type is None
                       else _device_type_to_key(device_type))
                if device_type not in self._backend_fns:
                    self._lib.impl(self._name, _backend(self, device_type), key)
                self._backend_fns[device_type] = fn
            return fn

        return inner if fn is None else inner(fn)

    def register_fake(self, fn: Callable[..., Any], /) -> Callable[..., Any]:
        """Register ``fn`` as the op's fake (Meta) kernel."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward: Callable[..., Any], /, *,
                          setup_context: Callable[..., Any] | None = None) -> None:
        """Give the op a backward: ``setup_context(ctx, inputs, output)`` (with
        ``keyword_only_inputs`` too for an op with keyword-only arguments) runs after the
        forward, ``backward(ctx, *grads)`` returns a gradient per positional argument."""
        _check_functional(self._opoverload, str(self))
        self._autograd = _AutogradInfo(backward, setup_context)


#: each ``custom_op``'s library, by the op's name (torch's ``OPDEF_TO_LIB``), which keeps it
#: alive: a second ``custom_op`` of the name destroys it first
_OPDEF_TO_LIB: dict[str, Library] = {}


def _library_allowing_overwrite(namespace_: str, name: str) -> Library:
    """A new library for the ``custom_op`` ``namespace_::name``, after destroying the one an
    earlier ``custom_op`` of that name made, with its op, kernels, fake and backward (torch's
    ``get_library_allowing_overwrite``): a ``custom_op`` may define its op again."""
    qualname = f"{namespace_}::{name}"
    earlier = _OPDEF_TO_LIB.pop(qualname, None)
    if earlier is not None:
        earlier._destroy()
    made = _OPDEF_TO_LIB[qualname] = Library(namespace_, "FRAGMENT")
    return made


def _backend(opdef: CustomOpDef, device_type: str | None) -> Callable[..., Any]:
    def backend_impl(*args: Any, **kwargs: Any) -> Any:
        return opdef._backend_fns[device_type](*args, **kwargs)

    return backend_impl


def custom_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: Any,
              device_types: str | Sequence[str] | None = None, schema: str | None = None,
              tags: Any = None) -> Any:
    """Make the function ``fn`` an op ``name`` (``"mylib::foo"``) whose schema is inferred from
    its type hints (or given), and ``fn`` its kernel for ``device_types`` (None: every device),
    as ``torch.library.custom_op``; without ``fn``, a decorator. Returns a
    :class:`CustomOpDef`.

    Raises:
        ValueError: what ``infer_schema`` raises; a ``schema`` that mutates other arguments
            than ``mutates_args``.
    """
    def inner(fn: Callable[..., Any]) -> CustomOpDef:
        schema_str = schema if schema is not None else infer_schema(
            fn, mutates_args=mutates_args)
        namespace_, opname = name.split("::")
        result = CustomOpDef(namespace_, opname, schema_str, fn)
        if schema is not None:
            expected = {a.name for a in result._opoverload.schema.arguments if a.writes}
            if expected != set(mutates_args):
                raise ValueError(
                    f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                    f"`schema={schema}. The schema suggests that the op mutates {expected}which "
                    "is different from what was provided to us in `mutates_args`. Please make "
                    "these consistent.")
        result.register_kernel(device_types)(fn)
        return result

    return inner if fn is None else inner(fn)


