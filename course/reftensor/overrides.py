"""``reftensor.overrides`` (``torch.overrides``): calls that a Tensor subclass takes over with
``__torch_function__``.

A class that overrides ``__torch_function__`` is asked first whenever one of its instances is
an argument of a public function, method, operator or property: ``reftensor.add(s, t)``,
``s.add(t)``, ``s + t``, ``s.shape``, ``s[0]``. The hook collects the arguments' classes
(:func:`overloaded_args`, a graded piece: subclasses before their bases, each class once,
the plain ``Tensor`` never), then calls each class's ``__torch_function__(func, types, args,
kwargs)`` in that order until one returns something other than ``NotImplemented``; if all
of them do, the call is a TypeError. ``func`` is the public object the program called
(``reftensor.add``, ``Tensor.add`` for ``s.add(t)`` and ``s + t``, ``Tensor.shape.__get__``
for ``s.shape``), as torch passes it.

The default, ``Tensor.__torch_function__``, runs ``func`` with the hook switched off
(``reftensor._C.DisableTorchFunctionSubclass``) and turns the result into the subclass
(:func:`convert_result`, the other graded piece), so that ``s + t`` is again an ``S``.

Where the hook is: the op table's bindings (``reftensor/_ops/packet.py``), ``Tensor``'s
reflected operators and ``__getitem__``/``__setitem__`` call :func:`_op_hook` once a class
overriding ``__torch_function__`` exists (until then they pay one test of a module variable:
an index or a value may be the subclass's); and such a class gets, when it is created,
members that route ``Tensor``'s other hand-written ones (``shape``, ``tolist``, ``size``,
...) through :func:`_handle` (``Tensor.__init_subclass__``), so a plain tensor pays nothing
for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import _C, _bindings
from ._ops import packet as _packet
from ._ops.python_functions import set_function
from ._ops.tensor_type import TensorType
from .tensor import Tensor

__all__ = ["convert_result", "get_default_nowrap_functions", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "is_tensor_like", "overloaded_args"]


# ---------------------------------------------------------------------- the graded pieces
def overloaded_args(types: list[type], base: type) -> list[type]:
    """The order in which the arguments' classes are asked (torch's
    ``_get_overloaded_args``, and its C++ ``append_overloaded_arg``).

    Args:
        types: the classes of the call's arguments that have a ``__torch_function__`` (one
            per argument, in the order of the arguments; a class may repeat).
        base: the plain tensor class, never listed (its default ``__torch_function__`` is
            what runs when no argument overrides it).

    Returns:
        Each class once, in the order of first appearance, except that a class goes just
        before the first class already listed that it is a subclass of ("subclasses
        before superclasses"). This list is also the ``types`` tuple each
        ``__torch_function__`` receives.
    """
    # BEGIN PIECE overloaded_args
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("overloaded_args")(types, base)
    # END PIECE


def convert_result(ret: Any, cls: type, base: type) -> Any:
    """What the default ``__torch_function__`` of ``cls`` returns for ``func``'s result
    ``ret`` (torch's ``torch._tensor._convert``).

    Args:
        ret: the result of the call.
        cls: the subclass whose ``__torch_function__`` ran.
        base: the plain tensor class.

    Returns:
        ``ret`` itself when ``cls`` is ``base``. Otherwise: an instance of ``base`` that is
        not an instance of ``cls`` becomes ``ret.as_subclass(cls)``; a tuple or a list is
        rebuilt as one of the same type from its items, each converted by the same rule
        (nested ones too): ``type(ret)(items)``, or ``type(ret)(*items)`` for a named tuple
        (one with ``_fields``, such as ``max(s, 0)``'s; torch's structseq takes the list);
        anything else (a number, a dtype, None) is returned as it is. (A ``Size`` is a
        tuple of ints: rebuilt, equal.)
    """
    # BEGIN PIECE convert_result
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("convert_result")(ret, cls, base)
    # END PIECE


# ---------------------------------------------------------------------- torch.overrides
def get_default_nowrap_functions() -> set[Callable[..., Any]]:
    """``torch.overrides.get_default_nowrap_functions``: the functions whose results the
    default ``__torch_function__`` hands back unconverted (field reads: ``s.grad is
    s.grad`` must hold)."""
    return {Tensor._base.__get__, Tensor.grad.__get__, Tensor._grad.__get__}


def is_tensor_like(inp: Any) -> bool:
    """``torch.overrides.is_tensor_like``: a plain tensor, or anything whose type has a
    ``__torch_function__`` (a subclass instance, a tensor-like object)."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def _overrides(cls: type) -> bool:
    """Does ``cls`` take part: has it a ``__torch_function__`` that is not the opt-out?"""
    method = getattr(cls, "__torch_function__", None)
    return method is not None and method is not _C._disabled_torch_function_impl


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """``torch.overrides.has_torch_function``: is the hook on, and is one of the arguments
    not a plain tensor but of a type with a ``__torch_function__``?"""
    if _C._state.disabled:
        return False
    return any(type(a) is not Tensor and _overrides(type(a)) for a in relevant_args)


def has_torch_function_unary(obj: Any) -> bool:
    """``torch.overrides.has_torch_function_unary``: :func:`has_torch_function` of one."""
    return has_torch_function((obj,))


def has_torch_function_variadic(*args: Any) -> bool:
    """``torch.overrides.has_torch_function_variadic``: :func:`has_torch_function` of the
    arguments."""
    return has_torch_function(args)


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any],
                          *args: Any, **kwargs: Any) -> Any:
    """``torch.overrides.handle_torch_function``, for a function written in Python: ask the
    ``__torch_function__`` of each argument's type in ``relevant_args`` (a plain tensor's
    too: torch's Python collection keeps it), in :func:`overloaded_args`'s order.

    Raises:
        TypeError: every one returned ``NotImplemented`` (torch's message).
    """
    found = _first_of_each_class(a for a in relevant_args if _overrides(type(a)))
    # ``object`` is never an argument's class: nothing is left out (torch's Python rule)
    classes = overloaded_args(list(found), object)
    types = tuple(classes)
    for cls in classes:
        result = found[cls].__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {list(types)}")


def _first_of_each_class(arguments: Iterable[Any]) -> dict[type, Any]:
    """The first argument of each class, in order (torch asks that argument's method)."""
    found: dict[type, Any] = {}
    for a in arguments:
        found.setdefault(type(a), a)
    return found


# ---------------------------------------------------------------------- the hook
def _tensors(values: Iterable[Any]) -> Iterable[Any]:
    """The tensors among a call's arguments, a list's or tuple's elements included."""
    for v in values:
        if isinstance(v, TensorType):
            yield v
        elif isinstance(v, tuple | list):
            yield from (e for e in v if isinstance(e, TensorType))


def _overloaded(values: Iterable[Any]) -> bool:
    """Is one of the values (or of a list or tuple among them) a tensor whose class overrides
    ``__torch_function__``? (Once such a class exists, every op call asks: a plain loop.)"""
    for v in values:
        cls = type(v)
        if cls is Tensor:
            continue
        if isinstance(v, TensorType):
            if _overrides(cls):
                return True
        elif cls is tuple or cls is list:
            for e in v:
                if type(e) is not Tensor and isinstance(e, TensorType) and _overrides(type(e)):
                    return True
    return False


def _handle(func: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None,
            run: Callable[..., Any]) -> Any:
    """What torch's C++ bindings do for a call with tensor arguments ``args`` and
    ``kwargs``: hand it to the overriding classes' ``__torch_function__`` (``func``, named
    ``name`` in the error), or ``run(*args, **kwargs)`` when none takes part."""
    if _C._state.disabled:
        return run(*args, **(kwargs or {}))
    found = _first_of_each_class(
        t for t in _tensors((*args, *(kwargs or {}).values())) if _overrides(type(t)))
    classes = overloaded_args(list(found), Tensor)
    if not classes:
        return run(*args, **(kwargs or {}))
    types = tuple(classes)
    for cls in classes:
        result = found[cls].__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    listed = "".join(f"  - tensor subclass {cls}\n" for cls in classes)
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{listed}\nFor more information, try "
                    "re-running with TORCH_LOGS=not_implemented")


#: the function a bitwise or comparison operator passes as ``func`` (torch's C operators
#: that are not the method of the same name); the rest pass the method (``s + t``:
#: ``Tensor.add``)
_OPERATOR_FUNCS = {
    "bitwise_and": "__and__", "bitwise_or": "__or__", "bitwise_xor": "__xor__",
    "bitwise_and_": "__iand__", "bitwise_or_": "__ior__", "bitwise_xor_": "__ixor__",
    "bitwise_left_shift": "__lshift__", "bitwise_right_shift": "__rshift__",
    "bitwise_left_shift_": "__ilshift__", "bitwise_right_shift_": "__irshift__",
    "eq": "__eq__", "floor_divide": "__floordiv__",
}
#: operators that torch writes in Python (``_tensor.py``): their ``kwargs`` is a dict
_PYTHON_OPERATORS = frozenset({"floor_divide", "pow", "pow_"})


def _op_hook(target: Any, kind: str, args: tuple[Any, ...], kwargs: Any) -> Any:
    """The hook of the op table's bindings (``packet._torch_function``): a call of the op
    ``target`` as a function (``kind`` "function"), a method ("method": ``args`` starts with
    ``self``), an operator ("operator") or ``Tensor.__getitem__``/``__setitem__`` ("indexing":
    ``target`` is the method), handed to :func:`_handle` with torch's ``func``;
    or ("python") a call of ``target``, a reflected operator that torch writes in Python
    (``Tensor.__rsub__``), handed to :func:`handle_torch_function`. Returns
    ``packet.UNHANDLED`` when no argument overrides ``__torch_function__`` (the binding then
    goes on)."""
    if _C._state.disabled or not (_overloaded(args) or kwargs and _overloaded(kwargs.values())):
        return _packet.UNHANDLED
    if kind == "python":
        return handle_torch_function(target, args, *args)
    if kind == "indexing":  # ``Tensor.__getitem__``/``__setitem__``: self, the index, the value
        return _handle(target, f"reftensor.Tensor.{target.__name__}", args, None, target)
    name = target.__name__
    if kind == "function":
        func = getattr(_bindings, name, target) if target.function else target
        qualified = f"reftensor.{name}"
        run = target
    else:
        attribute = _OPERATOR_FUNCS.get(name, name) if kind == "operator" else name
        func = getattr(Tensor, attribute)
        qualified = f"reftensor.Tensor.{attribute}"
        if kind == "operator":
            def run(self_: Any, other: Any) -> Any:
                return target.call_operator(self_, other)
            kwargs = {} if name in _PYTHON_OPERATORS else None
        else:
            def run(self_: Any, *rest: Any, **named: Any) -> Any:
                return target.call_method(self_, rest, named)
    return _handle(func, qualified, args, kwargs if kind == "operator" else kwargs or None,
                   run)


# ------------------------------------- the hand-written members, on an overriding subclass
#: ``Tensor``'s hand-written properties that torch routes through ``__torch_function__``
#: (``func`` is ``Tensor.<name>.__get__``); their setters are left as they are
_PROPERTIES = ("shape", "dtype", "device", "ndim", "T", "mT", "grad", "data", "requires_grad",
               "is_leaf", "grad_fn", "layout", "is_cuda", "is_cpu", "is_meta", "output_nr",
               "itemsize", "nbytes", "retains_grad", "_version")
#: hand-written methods that are C methods in torch (``kwargs`` None unless given)
_METHODS = {name: name for name in (
    "size", "stride", "dim", "numel", "nelement", "storage_offset", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "tolist", "item", "numpy",
    "requires_grad_", "to", "float", "double", "half",
    "bfloat16", "int", "long", "short", "char", "byte", "bool", "cpu", "data_ptr",
    "untyped_storage", "get_device", "__bool__", "__float__", "__int__", "__index__",
    "new_tensor", "detach_", "retain_grad", "__invert__")}
#: hand-written methods that torch writes in Python (``_tensor.py``): the Python rule
#: (``handle_torch_function``: ``kwargs`` a dict). (Not the reflected operators: a subclass
#: with an ``__rsub__`` of its own would be asked first by Python for ``t - s``; they are
#: decorated on ``Tensor`` itself: ``tensor._python_operator``.)
_PYTHON_METHODS = ("__len__", "__contains__", "__reversed__", "__format__")


def _c_method(func: Any, name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _handle(func, f"reftensor.Tensor.{func.__name__}", (self, *args), kwargs or None,
                       func)
    method.__name__ = method.__qualname__ = getattr(func, "__name__", name)
    return method


def _c_property(original: property, name: str) -> property:
    func = original.__get__
    def get(self: Any) -> Any:  # noqa: E306
        return _handle(func, f"reftensor.Tensor.{name}.__get__", (self,), None, func)
    return property(get, original.fset, original.fdel, original.__doc__)


def _python_method(func: Any) -> Callable[..., Any]:
    def method(self: Any, *args: Any) -> Any:
        if not has_torch_function_unary(self):
            return func(self, *args)
        return handle_torch_function(func, (self,), self, *args)
    method.__name__ = method.__qualname__ = func.__name__
    return method


def _install(cls: type) -> None:
    """Give ``cls``, a class that overrides ``__torch_function__``, the members that route
    ``Tensor``'s hand-written ones through it (where ``cls`` inherits ``Tensor``'s), and
    switch the op table's hook on (``Tensor.__init_subclass__`` calls this, through
    ``python_functions``: chapter 1 cannot import chapter 9)."""
    _packet._torch_function = _op_hook
    for name in _PROPERTIES:
        original = Tensor.__dict__[name]
        if getattr(cls, name) is original:
            setattr(cls, name, _c_property(original, name))
    for name, target in _METHODS.items():
        if getattr(cls, name) is getattr(Tensor, name):
            setattr(cls, name, _c_method(getattr(Tensor, target), target))
    for name in _PYTHON_METHODS:
        if getattr(cls, name) is getattr(Tensor, name):
            setattr(cls, name, _python_method(getattr(Tensor, name)))
    for name, wrapper in (("split", _split), ("backward", _backward), ("__repr__", _repr)):
        if getattr(cls, name) is getattr(Tensor, name):
            setattr(cls, name, wrapper)


def _split(self: Any, split_size: Any, dim: Any = 0) -> Any:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.split, (self,), self, split_size, dim=dim)
    return Tensor.split(self, split_size, dim)


def _backward(self: Any, gradient: Any = None, retain_graph: Any = None,
              create_graph: bool = False, inputs: Any = None) -> Any:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.backward, (self,), self, gradient=gradient,
                                     retain_graph=retain_graph, create_graph=create_graph,
                                     inputs=inputs)
    return Tensor.backward(self, gradient, retain_graph, create_graph, inputs)


def _repr(self: Any, *, tensor_contents: Any = None) -> str:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.__repr__, (self,), self,
                                     tensor_contents=tensor_contents)
    return Tensor.__repr__(self)


# chapter 1's Tensor reaches these through ``python_functions`` (it is built before them)
set_function("convert_result", convert_result)
# and ``_ops/torch_dispatch.py`` asks the classes that define ``__torch_dispatch__`` in this order
set_function("overloaded_args", overloaded_args)
set_function("get_default_nowrap_functions", get_default_nowrap_functions)
set_function("torch_function_subclass", _install)
