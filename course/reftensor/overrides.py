"""``reftensor.overrides`` (``torch.overrides``): calls that a Tensor subclass takes over with
``__torch_function__``, and ``TorchFunctionMode``, which takes over every call in a ``with``
block.

Whenever one of a class's instances is an argument of a public function, method, operator
or property (``reftensor.add(s, t)``, ``s.add(t)``, ``s + t``, ``s.shape``, ``s[0]``), a class
that overrides ``__torch_function__`` is asked, after the active ``TorchFunctionMode`` if
there is one (:class:`TorchFunctionMode`: it also sees calls without such an argument, even
factories such as ``reftensor.ones(2)``). The hook collects the arguments' classes
(:func:`overloaded_args`, a graded piece: subclasses before their bases, each class once; the
plain ``Tensor`` only where torch lists it: the functions torch writes in Python, and the
members torch hands on with ``self`` alone, ``s.tolist()``, ``s.shape``, ``s.t()``, when
``self`` is a plain tensor under a mode), then calls each class's ``__torch_function__(func,
types, args, kwargs)`` in that order until one returns something other than
``NotImplemented``; if all of them do, the call is a TypeError (for an operator, Python's
"unsupported operand type(s)"). ``func`` is the public object the program called
(``reftensor.add``, ``Tensor.add`` for ``s.add(t)`` and ``s + t``, ``Tensor.shape.__get__``
for ``s.shape``), as torch passes it.

The default, ``Tensor.__torch_function__``, runs ``func`` with the hook switched off for
subclasses (``reftensor._C.DisableTorchFunctionSubclass``: an active mode is still asked)
and turns the result into the subclass (:func:`convert_result`, the other graded piece), so
that ``s + t`` is again an ``S``.

Where the hook is: the op table's bindings (``reftensor/_ops/packet.py``), ``Tensor``'s
reflected operators and ``__getitem__``/``__setitem__`` call :func:`_op_hook` once a class
overriding ``__torch_function__`` exists or while a mode is pushed (until then they pay one
test of a module variable: an index or a value may be the subclass's); and such a class
gets, when it is created, members that route ``Tensor``'s other hand-written ones
(``shape``, ``tolist``, ``size``, ...) through :func:`_handle` (``Tensor.__init_subclass__``),
as ``Tensor`` itself does while a mode is pushed, so a plain tensor outside a mode pays
nothing for them.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
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
    """``torch.overrides.is_tensor_like``: a plain tensor, or anything that has a
    ``__torch_function__`` attribute (a subclass instance, a tensor-like object, but also
    a Tensor class itself, as torch's says)."""
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def _overrides(cls: type) -> bool:
    """Does ``cls`` take part: has it a ``__torch_function__`` that is not the opt-out?"""
    method = getattr(cls, "__torch_function__", None)
    return method is not None and method is not _C._disabled_torch_function_impl


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """``torch.overrides.has_torch_function``: is one of the arguments (any, while a
    ``TorchFunctionMode`` is active) not a plain tensor but of a type with a
    ``__torch_function__``, and the hook not switched off for it?"""
    if _C._is_torch_function_mode_enabled():
        return any(True for _ in relevant_args)
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
    innermost ``TorchFunctionMode`` (if one is active), then the ``__torch_function__`` of
    each argument's type in ``relevant_args`` (a plain tensor's too: torch's Python
    collection keeps it; none while the hook is off for subclasses), in
    :func:`overloaded_args`'s order, until one returns something other than
    ``NotImplemented``. ``types`` is those classes, for the mode too.

    Raises:
        TypeError: every one returned ``NotImplemented`` (torch's message).
    """
    found = _first_of_each_class(a for a in relevant_args if _overrides(type(a))) \
        if _C._state.disabled == _C.ENABLED else {}
    # ``object`` is never an argument's class: nothing is left out (torch's Python rule)
    classes = overloaded_args(list(found), object)
    types = tuple(classes)
    moded = _C._is_torch_function_mode_enabled()
    if moded:
        result = _ask_mode(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for cls in classes:
        result = found[cls].__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    mode = f" nor in mode {_get_current_function_mode()}" if moded else ""
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {list(types)}{mode}")


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
            run: Callable[..., Any], self_only: bool = False) -> Any:
    """What torch's C++ bindings do for a call with tensor arguments ``args`` and
    ``kwargs``: hand it to the innermost ``TorchFunctionMode`` (if one is active), then to
    the overriding classes' ``__torch_function__`` (``func``, named ``name`` in the error),
    or ``run(*args, **kwargs)`` when none takes part.

    ``self_only``: a member that torch's C++ hands on with ``self`` as the only overloaded
    argument (``Tensor.tolist``, the properties): ``self``'s class is then ``types`` even when
    it is the plain ``Tensor`` (a mode sees ``(Tensor,)``), and only ``self`` takes part.
    Otherwise (the argument parser's rule) ``types`` is the overriding classes of all the
    tensor arguments, none while the hook is off for subclasses (a mode sees ``()`` for plain
    tensors)."""
    state = _C._state
    moded = state.modes and state.disabled != _C.ALL_DISABLED
    if self_only:
        this = args[0]
        found = {type(this): this} if moded or (
            not state.disabled and type(this) is not Tensor and _overrides(type(this))) else {}
        classes = list(found)
    elif state.disabled:
        found, classes = {}, []
    else:
        found = _first_of_each_class(
            t for t in _tensors((*args, *(kwargs or {}).values())) if _overrides(type(t)))
        classes = overloaded_args(list(found), Tensor)
    if not moded and not classes:
        return run(*args, **(kwargs or {}))
    types = tuple(classes)
    if moded:
        result = _ask_mode(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for cls in classes:
        result = found[cls].__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    listed = "".join(f"  - tensor subclass {cls}\n" for cls in classes)
    if moded:
        listed = f"  - mode object {_get_current_function_mode()}\n{listed}"
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{listed}\nFor more information, try "
                    "re-running with TORCH_LOGS=not_implemented")


def _ask_mode(func: Any, types: tuple[type, ...], args: tuple[Any, ...],
              kwargs: dict[str, Any] | None) -> Any:
    """The innermost mode's ``__torch_function__``, asked with the mode off the stack (a
    call made inside goes to the next mode, the subclasses or the op), and put back after."""
    mode = _C._pop_torch_function_stack()
    try:
        return mode.__torch_function__(func, types, args, kwargs)
    finally:
        _C._push_on_torch_function_stack(mode)


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
    (``Tensor.__rsub__``), handed to :func:`handle_torch_function` (as are the operators
    ``//``, ``**`` and ``**=``, which torch writes in Python too). Returns
    ``packet.UNHANDLED`` when no argument overrides ``__torch_function__`` (the binding then
    goes on): unless a ``TorchFunctionMode`` is active."""
    if not _C._is_torch_function_mode_enabled() and (_C._state.disabled or not (
            _overloaded(args) or kwargs and _overloaded(kwargs.values()))):
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
        if kind == "operator" and name in _PYTHON_OPERATORS:
            return handle_torch_function(func, args, *args)
        if kind == "operator":
            def run(self_: Any, other: Any) -> Any:
                return target.call_operator(self_, other)
            kwargs = None
        else:
            def run(self_: Any, *rest: Any, **named: Any) -> Any:
                return target.call_method(self_, rest, named)
        # a method of no arguments but ``self`` is one that torch's C++ hands on with
        # ``self`` alone (``s.t()``, ``-s``: a mode sees ``types`` ``(Tensor,)``)
        if len(args) == 1 and not kwargs and target._no_arguments is not None:
            return _handle(func, qualified, args, None, run, True)
    return _handle(func, qualified, args, kwargs if kind == "operator" else kwargs or None,
                   run)


# ------------------------------------- the hand-written members
# ``Tensor``'s members written by hand (not the op table's bindings) pay nothing for the hook
# on a plain tensor: a class that overrides ``__torch_function__`` gets, when it is created,
# members of its own that route them (:func:`_install`); while a ``TorchFunctionMode`` is
# active, ``Tensor`` itself holds them (:func:`_push_mode`), and gets its own back after.
# Each routes to the object that is ``Tensor``'s member at the time of the call, as ``func``
# (``Tensor.tolist``, ``Tensor.shape.__get__``), and runs reftensor's own when no one takes
# the call.

#: ``Tensor``'s hand-written properties that torch routes through ``__torch_function__``
#: (``func`` is ``Tensor.<name>.__get__``, with ``self`` alone: a mode sees ``types``
#: ``(Tensor,)`` for a plain one); their setters are left as they are
_PROPERTIES = ("shape", "dtype", "device", "ndim", "T", "mT", "grad", "data", "requires_grad",
               "is_leaf", "grad_fn", "layout", "is_cuda", "is_cpu", "is_meta", "output_nr",
               "itemsize", "nbytes", "retains_grad", "_version")
#: hand-written methods that are C methods in torch handing on ``self`` alone (``kwargs``
#: None unless given; a mode sees ``types`` ``(Tensor,)`` for a plain one)
_SELF_METHODS = ("dim", "numel", "nelement", "storage_offset", "element_size",
                 "is_floating_point", "is_complex", "tolist", "item", "data_ptr",
                 "untyped_storage", "get_device", "__bool__", "__float__", "__int__",
                 "__index__", "new_tensor", "detach_", "retain_grad", "__invert__")
#: hand-written methods that are C methods in torch with an argument parser (a mode sees
#: ``types`` ``()`` for plain tensors)
_PARSED_METHODS = ("size", "stride", "is_contiguous", "numpy", "requires_grad_", "to",
                   "float", "double", "half", "bfloat16", "int", "long", "short", "char",
                   "byte", "bool", "cpu")
#: hand-written methods that torch writes in Python (``_tensor.py``): the Python rule
#: (``handle_torch_function``: ``kwargs`` a dict). (Not the reflected operators: a subclass
#: with an ``__rsub__`` of its own would be asked first by Python for ``t - s``; they are
#: decorated on ``Tensor`` itself: ``tensor._python_operator``.)
_PYTHON_METHODS = ("__len__", "__contains__", "__reversed__", "__format__")

#: ``Tensor``'s own members, as ``tensor.py`` defines them (what runs in the end)
_OWN: dict[str, Any] = {name: Tensor.__dict__[name] for name in (
    *_PROPERTIES, *_SELF_METHODS, *_PARSED_METHODS, *_PYTHON_METHODS,
    "split", "backward", "__repr__")}


def _c_method(name: str, self_only: bool) -> Callable[..., Any]:
    own = _OWN[name]
    qualified = f"reftensor.Tensor.{own.__name__}"
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: E306
        return _handle(getattr(Tensor, name), qualified, (self, *args), kwargs or None, own,
                       self_only)
    method.__name__ = method.__qualname__ = own.__name__
    method.__module__ = own.__module__
    return method


def _c_property(name: str) -> property:
    own = _OWN[name]
    qualified = f"reftensor.Tensor.{name}.__get__"
    def get(self: Any) -> Any:  # noqa: E306
        return _handle(Tensor.__dict__[name].__get__, qualified, (self,), None, own.__get__,
                       True)
    return property(get, own.fset, own.fdel, own.__doc__)


def _python_method(name: str) -> Callable[..., Any]:
    own = _OWN[name]
    def method(self: Any, *args: Any) -> Any:  # noqa: E306
        if not has_torch_function_unary(self):
            return own(self, *args)
        return handle_torch_function(getattr(Tensor, name), (self,), self, *args)
    method.__name__ = method.__qualname__ = name
    method.__module__ = own.__module__
    return method


def _split(self: Any, split_size: Any, dim: Any = 0) -> Any:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.split, (self,), self, split_size, dim=dim)
    return _OWN["split"](self, split_size, dim)


def _backward(self: Any, gradient: Any = None, retain_graph: Any = None,
              create_graph: bool = False, inputs: Any = None) -> Any:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.backward, (self,), self, gradient=gradient,
                                     retain_graph=retain_graph, create_graph=create_graph,
                                     inputs=inputs)
    return _OWN["backward"](self, gradient, retain_graph, create_graph, inputs)


def _repr(self: Any, *, tensor_contents: Any = None) -> str:
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.__repr__, (self,), self,
                                     tensor_contents=tensor_contents)
    return _OWN["__repr__"](self, tensor_contents=tensor_contents)


for _f, _name in ((_split, "split"), (_backward, "backward"), (_repr, "__repr__")):
    _f.__name__ = _f.__qualname__ = _name
    _f.__module__ = _OWN[_name].__module__

#: the member that routes each of them
_ROUTED: dict[str, Any] = {
    **{name: _c_property(name) for name in _PROPERTIES},
    **{name: _c_method(name, True) for name in _SELF_METHODS},
    **{name: _c_method(name, False) for name in _PARSED_METHODS},
    **{name: _python_method(name) for name in _PYTHON_METHODS},
    "split": _split, "backward": _backward, "__repr__": _repr}

#: has a class that overrides ``__torch_function__`` been created (the op table's hook then
#: stays on)
_subclassed = False


def _install(cls: type) -> None:
    """Give ``cls``, a class that overrides ``__torch_function__``, the members that route
    ``Tensor``'s hand-written ones through it (where ``cls`` inherits ``Tensor``'s), and
    switch the op table's hook on (``Tensor.__init_subclass__`` calls this, through
    ``python_functions``: chapter 1 cannot import chapter 9)."""
    global _subclassed
    _subclassed = True
    _packet._torch_function = _op_hook
    for name, routed in _ROUTED.items():
        if getattr(cls, name) is getattr(Tensor, name):
            setattr(cls, name, routed)


# ---------------------------------------------------------------------- TorchFunctionMode
class TorchFunctionMode:
    """``torch.overrides.TorchFunctionMode``: a subclass's ``__torch_function__(func, types,
    args, kwargs)`` is asked for every public call made inside ``with Mode():`` (functions,
    methods, operators, properties, factories such as ``reftensor.ones(2)``, with or without
    a subclass's tensor among the arguments), before any subclass's. It runs with the mode off
    the stack: a call made inside goes to the next mode out, then to the subclasses, then to
    the op. ``types`` is what a subclass would receive (``()`` for plain tensors, but
    ``(Tensor,)`` for the members torch hands on with ``self`` alone: ``Tensor.tolist``, the
    properties, the methods torch writes in Python). Returning ``NotImplemented`` passes the
    call to the subclasses; if every one declines, torch's TypeError names the mode.

    Modes nest (the innermost is asked first), one stack per thread;
    ``DisableTorchFunction`` switches them off, ``DisableTorchFunctionSubclass`` does not.
    """

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        _push_mode(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchFunctionMode:
        """Deprecated in torch: the mode, made (``with Mode():`` pushes it)."""
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """``torch.overrides.BaseTorchFunctionMode``: a mode that runs ``func`` (a base for
    modes that do something around the call)."""

    def __torch_function__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


def _get_current_function_mode() -> TorchFunctionMode | None:
    """``torch.overrides._get_current_function_mode``: the innermost mode, or None."""
    n = _C._len_torch_function_stack()
    return _C._get_function_stack_at(n - 1) if n > 0 else None


def _get_current_function_mode_stack() -> list[TorchFunctionMode]:
    """``torch.overrides._get_current_function_mode_stack``: the modes, outermost first."""
    return [_C._get_function_stack_at(i) for i in range(_C._len_torch_function_stack())]


#: modes pushed by :func:`_push_mode` and not yet popped, all threads together; while there
#: is one, ``Tensor`` holds the routing members and the op table's hook is on
_pushed = 0
_pushed_lock = threading.Lock()


def _push_mode(mode: TorchFunctionMode) -> None:
    """``torch.overrides._push_mode``: ``mode`` becomes the innermost (this thread's)."""
    global _pushed
    _C._push_on_torch_function_stack(mode)
    with _pushed_lock:
        _pushed += 1
        if _pushed == 1:
            _route_tensor(True)


def _pop_mode() -> TorchFunctionMode:
    """``torch.overrides._pop_mode``: remove and return the innermost mode.

    Raises:
        RuntimeError: no mode is active (torch's message).
    """
    global _pushed
    mode = _C._pop_torch_function_stack()
    with _pushed_lock:
        _pushed = max(_pushed - 1, 0)
        if _pushed == 0:
            _route_tensor(False)
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[TorchFunctionMode]:
    """``torch.overrides._pop_mode_temporarily``: the innermost mode, off the stack inside
    the ``with`` block."""
    mode = _C._pop_torch_function_stack()
    try:
        yield mode
    finally:
        _C._push_on_torch_function_stack(mode)


def _route_tensor(on: bool) -> None:
    """``Tensor`` holds the routing members (``on``) or its own again; the op table's hook
    is on while a mode is pushed or once a class overrides ``__torch_function__``."""
    Tensor._route_members(dict(_ROUTED) if on else None)
    _packet._torch_function = _op_hook if on or _subclassed else None


# chapter 1's Tensor reaches these through ``python_functions`` (it is built before them)
set_function("convert_result", convert_result)
# and ``_ops/torch_dispatch.py`` asks the classes that define ``__torch_dispatch__`` in this order
set_function("overloaded_args", overloaded_args)
set_function("get_default_nowrap_functions", get_default_nowrap_functions)
set_function("torch_function_subclass", _install)
