"""``reftensor.nn.Module`` (``torch.nn.Module``): the base class of every layer and model.

A Module keeps what it is made of in three ordered dicts, filled by assignment:

* ``_parameters``: each :class:`~reftensor.nn.Parameter` assigned as an attribute;
* ``_buffers``: tensors registered with ``register_buffer`` (running statistics, ...),
  saved by ``state_dict`` unless registered with ``persistent=False``;
* ``_modules``: each Module assigned as an attribute (its children).

Everything else assigned is a plain attribute: a tensor that is not a Parameter is neither
trained nor saved. The tree of children is walked depth first, parents before children, in
registration order (``named_modules``), and a module or tensor reached twice is given once
(``remove_duplicate``): that walk orders ``parameters()``, ``state_dict()`` and what an
optimizer steps. Calling a module runs its forward pre-hooks, ``forward`` and its forward
hooks, in the order they were registered.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ... import dtypes
from ...autograd import no_grad
from ...tensor import Tensor
from ..parameter import Parameter, clear_grad, typename
from . import state_dict as _state
from .backward_hooks import BackwardHook
from .hooks import RemovableHandle

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "call_impl"]

#: the hooks every module runs (``torch.nn.modules.module``'s globals of the same names)
_global_forward_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
_global_forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's ``forward``, before the module's own
    pre-hooks (``torch.nn.modules.module.register_module_forward_pre_hook``); a result that
    is not None replaces ``args`` (a non-tuple is wrapped in one)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after every module's ``forward``, before the module's own hooks
    (``torch.nn.modules.module.register_module_forward_hook``); a result that is not None
    replaces the output. With ``always_call`` it runs even when ``forward`` raises."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_with_kwargs,
                                         _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def call_impl(module: Any, forward: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
              global_pre_hooks: Mapping[int, Callable[..., Any]],
              global_hooks: Mapping[int, Callable[..., Any]],
              global_with_kwargs: Mapping[int, bool], global_always_called: Mapping[int, bool],
              boundary: Any) -> Any:
    """What calling ``module(*args, **kwargs)`` runs when it has hooks (``torch.nn.Module.
    _call_impl``): ``Module.__call__`` runs it with the global hooks of
    ``register_module_forward_pre_hook`` and ``register_module_forward_hook``.

    Args:
        module: the module, whose hook dicts it reads: ``_forward_pre_hooks``,
            ``_forward_pre_hooks_with_kwargs``, ``_forward_hooks``,
            ``_forward_hooks_with_kwargs`` and ``_forward_hooks_always_called`` (each keyed
            by the hook's id; the flag dicts hold the ids registered with that flag).
        forward: the module's ``forward``.
        args, kwargs: the call's arguments.
        global_pre_hooks, global_hooks: the global hooks, by id, in their order.
        global_with_kwargs, global_always_called: the ids of the global forward hooks
            registered ``with_kwargs`` and ``always_call``.
        boundary: None, or the backward hooks' boundary: ``boundary.setup_input_hook(args)``
            gives the arguments ``forward`` receives, ``boundary.setup_output_hook(output)``
            the output returned.

    Returns:
        The output, as the last forward hook that returned something left it.

    Raises:
        RuntimeError: a ``with_kwargs`` pre-hook returned something other than None or an
            ``(args, kwargs)`` pair (torch's message). Whatever a hook or ``forward`` raises
            is raised again, after the ``always_call`` hooks that had not run (a warning for
            each of them that raises).
    """
    # BEGIN PIECE call_impl
    result = None
    called = set()
    try:
        for key, hook in (*global_pre_hooks.items(), *module._forward_pre_hooks.items()):
            if key in module._forward_pre_hooks_with_kwargs:
                new = hook(module, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {new}.")
                    args, kwargs = new
            else:
                new = hook(module, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        if boundary is not None:
            args = boundary.setup_input_hook(args)
        result = forward(*args, **kwargs)
        for key, hook in (*global_hooks.items(), *module._forward_hooks.items()):
            if key in module._forward_hooks_always_called or key in global_always_called:
                called.add(key)
            if key in module._forward_hooks_with_kwargs or key in global_with_kwargs:
                new = hook(module, args, kwargs, result)
            else:
                new = hook(module, args, result)
            if new is not None:
                result = new
        if boundary is not None:
            result = boundary.setup_output_hook(result)
        return result
    except Exception:
        late = [(key, hook, False, "global module forward hook")
                for key, hook in global_hooks.items() if key in global_always_called]
        late += [(key, hook, key in module._forward_hooks_with_kwargs, "module forward hook")
                 for key, hook in module._forward_hooks.items()
                 if key in module._forward_hooks_always_called]
        for key, hook, with_kwargs, kind in late:
            if key in called:
                continue
            try:
                new = hook(module, args, kwargs, result) if with_kwargs else hook(
                    module, args, result)
                if new is not None:
                    result = new
            except Exception as err:  # noqa: BLE001 - torch warns and goes on
                warnings.warn(f"{kind} with ``always_call=True`` raised an exception that "
                              f"was silenced as another error was raised in forward: {err}",
                              stacklevel=2)
        raise
    # END PIECE

_HOOK_DICTS = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
               "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
               "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


def _indent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first (a child's repr inside its parent's);
    blank lines stay empty."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])


def _check_name(kind: str, name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")


#: the dicts a Module keeps a name in, in the order ``route_assignment`` names them
_TABLES = ("__dict__", "_parameters", "_buffers", "_modules")


def route_assignment(name: str, kind: str, type_name: str, holders: tuple[str, ...],
                     initialized: bool) -> tuple[str, tuple[str, ...]]:
    """Where ``module.<name> = value`` puts the value, as ``torch.nn.Module.__setattr__``
    decides (``Module.__setattr__`` runs it on every assignment to a module).

    Args:
        name: the attribute's name.
        kind: the value's kind: ``"parameter"`` (an ``nn.Parameter``), ``"module"`` (an
            ``nn.Module``), ``"tensor"`` (any other tensor), ``"none"`` (None) or
            ``"other"`` (anything else).
        type_name: ``torch.typename(value)``, for the error messages.
        holders: which of ``"__dict__"``, ``"_parameters"``, ``"_buffers"``,
            ``"_modules"`` hold ``name`` now, in that order.
        initialized: whether ``Module.__init__`` has run (before it, the module has none
            of its three dicts).

    Returns:
        ``(table, removed)``: the one of those four that takes the value (``"__dict__"``: a
        plain attribute), and the tables of ``holders`` that ``name`` is deleted from
        first, in the order above.

    Raises:
        AttributeError: torch's, for a Parameter or a Module before ``Module.__init__``.
        TypeError: torch's, for a value that may not replace a registered parameter, child
            or buffer.
    """
    # BEGIN PIECE route_assignment
    if kind == "parameter":
        if not initialized:
            raise AttributeError("cannot assign parameters before Module.__init__() call")
        return "_parameters", tuple(t for t in holders if t in ("__dict__", "_buffers",
                                                                 "_modules"))
    if "_parameters" in holders:
        if kind != "none":
            raise TypeError(f"cannot assign '{type_name}' as parameter '{name}' "
                            "(torch.nn.Parameter or None expected)")
        return "_parameters", ()
    if kind == "module":
        if not initialized:
            raise AttributeError("cannot assign module before Module.__init__() call")
        return "_modules", tuple(t for t in holders if t in ("__dict__", "_parameters",
                                                              "_buffers"))
    if "_modules" in holders:
        if kind != "none":
            raise TypeError(f"cannot assign '{type_name}' as child module '{name}' "
                            "(torch.nn.Module or None expected)")
        return "_modules", ()
    if "_buffers" in holders:
        if kind not in ("tensor", "none"):
            raise TypeError(f"cannot assign '{type_name}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)")
        return "_buffers", ()
    return "__dict__", ()
    # END PIECE


def walk_modules(root: Any, children: Callable[[Any], Any],
                 members: Callable[[Any], Any] | None, prefix: str, remove_duplicate: bool,
                 memo: set[Any] | None) -> Iterable[tuple[str, Any]]:
    """The walk behind ``named_modules`` (``members`` None) and behind ``named_parameters``
    and ``named_buffers`` (torch's ``Module.named_modules`` and ``Module._named_members``):
    every ``parameters()``, ``modules()``, ``named_*()`` call and every optimizer's list of
    parameters comes from it.

    Args:
        root: the module the walk starts from.
        children: ``children(module)`` gives its ``(name, child)`` pairs in registration
            order; a child may be None.
        members: None to list modules; else ``members(module)`` gives its own ``(name,
            value)`` pairs (parameters or buffers), in order; a value may be None.
        prefix: ``root``'s name, the start of every dotted name.
        remove_duplicate: give a module, or a value, reached again only once.
        memo: modules not to give (``named_modules(memo=...)``), or None; the walk may add
            to it (listing modules only).

    Returns:
        The ``(dotted name, module)`` or ``(dotted name, value)`` pairs, in torch's order
        (an iterable: a list, or a generator).
    """
    # BEGIN PIECE walk_modules
    if members is None:
        seen = set() if memo is None else memo

        def modules(module: Any, name: str) -> Iterator[tuple[str, Any]]:
            if module in seen:
                return
            if remove_duplicate:
                seen.add(module)
            yield name, module
            for child_name, child in children(module):
                if child is not None:
                    yield from modules(child, f"{name}.{child_name}" if name else child_name)

        return modules(root, prefix)

    def values() -> Iterator[tuple[str, Any]]:
        given: set[Any] = set()
        for module_name, module in walk_modules(root, children, None, prefix,
                                                remove_duplicate, None):
            for name, value in members(module):
                if value is None or value in given:
                    continue
                if remove_duplicate:
                    given.add(value)
                yield f"{module_name}.{name}" if module_name else name, value

    return values()
    # END PIECE


def _children(module: Module) -> Any:
    return module._modules.items()


def _no_children(module: Module) -> tuple[()]:
    return ()


#: what ``_named_members`` lists of each module of the walk
_MEMBERS: dict[str, Callable[[Module], Any]] = {
    "_parameters": lambda module: module._parameters.items(),
    "_buffers": lambda module: module._buffers.items(),
}


class _Boundary(BackwardHook):
    """The backward hooks' boundary, warning as torch does when the output it is handed
    cannot carry them."""

    def setup_output_hook(self, result: Any) -> Any:
        if not isinstance(result, Tensor | tuple):
            warnings.warn("For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(result)}", stacklevel=4)
        return super().setup_output_hook(result)


class Module:
    """Base class of layers and models (``torch.nn.Module``); subclasses define ``forward``.

    Call ``super().__init__()`` before assigning parameters, buffers or submodules.

    Raises:
        TypeError: arguments given to ``Module.__init__`` itself.
    """

    #: The format of this class's ``state_dict`` entries (its ``_metadata`` version).
    _version: int = 1
    training: bool
    #: Whether ``Module.__init__`` passes its arguments on to the next class (torch's flag).
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        put = super().__setattr__  # plain attributes, without __setattr__'s routing
        put("training", True)
        put("_parameters", {})
        put("_buffers", {})
        put("_non_persistent_buffers_set", set())
        for name in _HOOK_DICTS:
            put(name, OrderedDict())
        put("_is_full_backward_hook", None)
        put("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter, or None for a slot without one) as ``name``.

        Raises:
            AttributeError: before ``Module.__init__``.
            TypeError: ``name`` not a str; ``param`` not a Parameter.
            KeyError: ``name`` empty, with a dot, or an attribute of another kind.
            ValueError: ``param`` is not a leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name)
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another "
                "Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None,
                        persistent: bool = True) -> None:
        """Register ``tensor`` as the buffer ``name``: moved by ``to()``, saved by
        ``state_dict`` only when ``persistent``, never returned by ``parameters()``.

        Raises:
            AttributeError: before ``Module.__init__``.
            TypeError: ``name`` not a str; ``tensor`` not a tensor or None.
            KeyError: ``name`` empty, with a dot, or an attribute of another kind.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name)
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` (or None) as the child ``name``.

        Raises:
            TypeError: ``module`` is not a Module; ``name`` not a str.
            KeyError: ``name`` empty, with a dot, or an attribute of another kind.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        """Route an assignment (``route_assignment`` decides where): a Parameter to
        ``_parameters``, a Module to ``_modules``, a tensor or None to ``_buffers`` when
        ``name`` is a buffer already, None to whichever dict holds ``name``; anything else is
        a plain attribute. A name moves out of the other dicts when it changes kind.

        Raises:
            AttributeError: a Parameter or Module assigned before ``Module.__init__``.
            TypeError: a value that cannot take the place of a registered parameter, child
                or buffer (a plain tensor where a Parameter is registered, ...).
        """
        own = self.__dict__
        holders = tuple(table for table in _TABLES if name in (
            own if table == "__dict__" else own.get(table, ())))
        kind = ("parameter" if isinstance(value, Parameter) else "module"
                if isinstance(value, Module) else "tensor" if isinstance(value, Tensor)
                else "none" if value is None else "other")
        table, removed = route_assignment(name, kind, typename(value), holders,
                                          "_parameters" in own)
        for gone in removed:
            del (own if gone == "__dict__" else own[gone])[name]
        if table in ("_parameters", "_modules"):
            own["_non_persistent_buffers_set"].discard(name)
        if table == "_parameters":
            self.register_parameter(name, value)
        elif table == "_modules":
            own["_modules"][name] = value
        elif table == "_buffers":
            self.register_buffer(name, value, name not in own["_non_persistent_buffers_set"])
        else:
            super().__setattr__(name, value)

    def __getattr__(self, name: str) -> Any:
        # called only when normal lookup fails: look in the three dicts
        for table in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) | set(self._parameters) | set(self._buffers)
        names |= set(self._modules)
        return sorted(n for n in names if not n[:1].isdigit())

    # ------------------------------------------------------------------ the walk
    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """This module and every module below it, depth first, parents first, with dotted
        names; a module reached again is skipped unless ``remove_duplicate=False``."""
        return iter(walk_modules(self, _children, None, prefix, remove_duplicate, memo))

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct children, each once, in registration order."""
        seen: set[Module] = set()
        for name, child in self._modules.items():
            if child is not None and child not in seen:
                seen.add(child)
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def _named_members(self, table: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        """The entries of one dict (``_parameters`` or ``_buffers``) of every module of the
        walk, named by path; a tensor already given is skipped when ``remove_duplicate``."""
        return iter(walk_modules(self, _children if recurse else _no_children,
                                 _MEMBERS[table], prefix, remove_duplicate, None))

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name, in the walk's order; a parameter shared by
        two modules is given once (under its first name) unless ``remove_duplicate=False``."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Every buffer (persistent or not) with its dotted name, in the walk's order."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path ``target`` (``""`` is this module).

        Raises:
            AttributeError: a name on the path is missing or is not a Module.
        """
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``.

        Raises:
            AttributeError: the path is missing or does not end at a Parameter.
        """
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``.

        Raises:
            AttributeError: the path is missing or does not end at a buffer.
        """
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> Module:
        """Set ``training`` on this module and every child (Dropout and BatchNorm read it);
        returns self.

        Raises:
            ValueError: ``mode`` is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter (freeze with False); returns self."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: set it to None (the default), or detach it
        and fill it with zeros in place."""
        for param in self.parameters():
            clear_grad(param, set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every child's subtree first, then on this module; returns self
        (children first: the opposite of ``modules()``)."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ conversions
    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Replace each parameter's data and each buffer by ``fn`` of it, children first.
        A parameter stays the same object (its ``.data`` is replaced, as torch does for a
        tensor of the same kind), and so does its ``.grad``."""
        for child in self.children():
            child._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
            grad = param.grad
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert every floating parameter and buffer in place (``module.to(dtype)``,
        ``to(device)``, ``to(device, dtype)``, ``to(tensor)``); integer ones keep their
        dtype. Returns self.

        Raises:
            TypeError: a dtype that is not floating.
        """
        probe = Tensor.to  # the tensor method parses the same arguments
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for arg in args:
            if isinstance(arg, dtypes.dtype):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype, device = arg.dtype, arg.device
            elif arg is not None:
                device = arg
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                            f"but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            target = dtype if t.is_floating_point() else None
            if device is None:
                return t if target is None else probe(t, target)
            return probe(t, device, target)

        return self._apply(convert)

    def float(self) -> Module:
        """Floating parameters and buffers to float32, in place; returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Floating parameters and buffers to float64, in place; returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Floating parameters and buffers to float16, in place; returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Floating parameters and buffers to bfloat16, in place; returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    # ------------------------------------------------------------------ calling
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``)
        before ``forward``; what it returns (not None) replaces the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Run ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after ``forward``; what it returns (not None) replaces the output.
        With ``always_call`` it also runs when ``forward`` raises."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False
                                    ) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` when the gradients of this module's
        tensor inputs are computed (None in the slots of other arguments); what it returns
        (not None) replaces ``grad_input``. See ``backward_hooks.py``.

        Raises:
            RuntimeError: the module has a non-full backward hook.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False
                                        ) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` when the gradients of this module's outputs are
        known, before its inputs' are computed; what it returns replaces ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Pre-hooks, ``forward(*args, **kwargs)``, then hooks, in registration order; with
        full backward hooks or backward pre-hooks, the tensor inputs and outputs pass through
        the boundary nodes of ``backward_hooks.py``.

        Raises:
            RuntimeError: a ``with_kwargs`` pre-hook returns something other than None or an
                ``(args, kwargs)`` pair.
        """
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        full_hooks = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        pre_hooks = list(self._backward_pre_hooks.values())
        boundary = _Boundary(self, full_hooks, pre_hooks) if full_hooks or pre_hooks else None
        return call_impl(self, self.forward, args, kwargs, _global_forward_pre_hooks,
                         _global_forward_hooks, _global_forward_hooks_with_kwargs,
                         _global_forward_hooks_always_called, boundary)

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        _state.save_own(self, destination, prefix, keep_vars)

    def state_dict(self, *args: Any, destination: dict[str, Any] | None = None,
                   prefix: str = "", keep_vars: bool = False) -> dict[str, Any]:
        """Every parameter and persistent buffer of the tree by dotted name, detached
        unless ``keep_vars``, in an OrderedDict whose ``_metadata`` holds each module's
        ``version``. (Positional ``destination, prefix, keep_vars`` are accepted, as torch
        still does.)"""
        if args:
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name in [n for n, c in self._modules.items() if c is not None]:
            self._modules[name].state_dict(destination=destination, prefix=f"{prefix}{name}.",
                                           keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:  # a private hook may hand back another dict
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str,
                              local_metadata: Mapping[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        _state.load_own(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _state._IncompatibleKeys:
        """Copy ``state_dict``'s tensors into this tree's parameters and persistent buffers
        (see ``reftensor/nn/modules/state_dict.py``); returns the missing and unexpected
        keys (empty lists with ``strict``).

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: with ``strict``, a missing or unexpected key; a size mismatch.
        """
        return _state.load(self, state_dict, strict, assign)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before this module saves its entries."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module's
        subtree is saved; it may change ``state_dict`` in place and must return None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its own entries."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` after this module's subtree is loaded."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ printing
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings for its repr (``in_features=5, ...``); '' here."""
        return ""

    def __repr__(self) -> str:
        """``Name(extra)`` on one line, or one line per setting and child, indented."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_indent(repr(child), 2)}"
                       for name, child in self._modules.items()]
        lines = extra_lines + child_lines
        if not lines:
            return f"{self._get_name()}()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"
