"""``make_fx`` (``torch.fx.experimental.proxy_tensor.make_fx``): trace a function's aten ops
into a :class:`~reftensor.fx.GraphModule`.

``make_fx(f)(*args)`` runs ``f(*args)`` on the real inputs inside a dispatch mode (chapter
9's :class:`~reftensor.utils._python_dispatch.TorchDispatchMode`) that sees the aten ops the
call runs, below autograd and below the ``CompositeImplicitAutograd`` ops (``reshape`` is
traced as the ``view`` it runs): the forward's, and those of a backward run inside ``f``
(``reftensor.autograd.grad``, ``backward()``), since the engine's ops dispatch through the
mode too (torch's ``AccumulateGrad``, which ``backward()`` runs to store a leaf's gradient,
dispatches a ``detach``, or ``new_empty_strided`` and ``copy_`` where it copies, that
reftensor's does not). Each op becomes a ``call_function`` node
of a graph:

* a tensor argument that is an input of ``f`` becomes its placeholder (``x_1`` for the
  parameter ``x``), one that an earlier op returned becomes that op's node; an in-place op's
  result (the same tensor) is its node from then on;
* a tensor from outside ``f`` (a global, a closure's) becomes a ``get_attr`` node reading a
  constant of the module, ``self._tensor_constant0`` (``self._param_constant0`` for an
  ``nn.Parameter``, a module's weight; one name per tensor, a fresh node per use, as
  torch's); a tensor made from data inside ``f`` (``reftensor.tensor([1, 2])``)
  dispatches ``lift_fresh``, recorded as ``lift_fresh_copy`` of such a constant, as torch's;
* any other argument (a number, a list of ints, a dtype) is a constant of the call;
* an op that returns several tensors (``max.dim``, ``split``) is followed by one
  ``operator.getitem`` node per tensor it returns.

What ``f`` returns (a tensor, or lists, tuples and dicts of tensors and constants) becomes the
output node; the module's code is torch's, with ``reftensor`` for ``torch``.

Python control flow is resolved while tracing (the branch taken is the one recorded). A number
read off a tensor is baked into the graph where it can be: ``tolist()`` dispatches no op;
``item()`` dispatches ``_local_scalar_dense`` (``torch.equal`` and ``allclose`` their own ops),
whose value depends on the data. Such an op (torch tags them ``data_dependent_output``) runs
unrecorded when every traced tensor it reads is a *constant*: a tensor made from data inside
``f`` with at most one element, or the result of ops on such constants alone (a tensor from
outside ``f`` is read as it is); on any other traced tensor the tracer raises RuntimeError, as
torch's does: the graph would bake in one input's number.

Only ``tracing_mode="real"``. torch's ``"fake"`` traces on fake tensors (shapes, dtypes and
devices, no data: no values are computed) and ``"symbolic"`` on fake tensors whose sizes are
symbols, so that one graph serves every size; reftensor has neither.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._ops import aten
from ...nn.parameter import Parameter
from ...size import Size
from ...tensor import Tensor
from ...utils._python_dispatch import TorchDispatchMode
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_aggregate

__all__ = ["TensorMeta", "make_fx"]

#: the ops whose result is a number read from a tensor's data (torch's tag
#: ``data_dependent_output``), among reftensor's
DATA_DEPENDENT = (aten._local_scalar_dense.default, aten.equal.default, aten.allclose.default)
#: a traced tensor stays a constant up to this many elements (torch's
#: ``CONSTANT_NUMEL_LIMIT``)
CONSTANT_NUMEL_LIMIT = 1


@dataclass(frozen=True)
class TensorMeta:
    """What the graph keeps of a traced tensor, a node's ``meta["val"]`` (torch keeps a
    FakeTensor there: a tensor without data): its ``shape``, ``stride()``, ``dtype`` and
    ``device``. ``requires_grad`` is False, as torch's: the values are those the ops
    compute below autograd."""

    shape: Size
    strides: tuple[int, ...]
    dtype: Any
    device: Any
    requires_grad: bool = False

    def stride(self) -> tuple[int, ...]:
        return self.strides

    def dim(self) -> int:
        return len(self.shape)


def meta_like(t: Tensor) -> TensorMeta:
    """``t``'s :class:`TensorMeta` (read off ``t``, without dispatching an op)."""
    return TensorMeta(Size(t.shape), tuple(t.stride()), t.dtype, t.device)


def _map_tensors(value: Any, fn: Callable[[Tensor], Any]) -> Any:
    """``value`` with each tensor in it (inside lists, tuples, dicts) replaced by ``fn(t)``."""
    return map_aggregate(value, lambda leaf: fn(leaf) if isinstance(leaf, Tensor) else leaf)


def _tensors_in(value: Any) -> list[Tensor]:
    """The tensors in ``value`` (a tensor, or lists, tuples and dicts of them)."""
    found: list[Tensor] = []
    _map_tensors(value, found.append)
    return found


def _holds_tensors(value: Any) -> bool:
    found: list[Tensor] = []
    _map_tensors(value, found.append)
    return bool(found)


class ProxyTorchDispatchMode(TorchDispatchMode):
    """The tracing mode: records each aten op it sees as a node of ``graph``, runs it and
    maps its results to that node (torch's class of the same name)."""

    def __init__(self, graph: Graph, decomposition_table: dict[Any, Callable[..., Any]]
                 ) -> None:
        super().__init__()
        self.graph = graph
        self.decomposition_table = decomposition_table
        # id(tensor) -> (tensor, node): the tensor is kept alive while tracing, so that its
        # id is not given to another
        self._nodes: dict[int, tuple[Tensor, Node]] = {}
        self._constants: dict[int, tuple[Tensor, str]] = {}
        self.tensor_attrs: dict[str, Tensor] = {}  # the constants, by attribute name
        # ids of the traced tensors whose values are constants (see the module's docstring)
        self._constant_values: set[int] = set()

    def track(self, t: Tensor, node: Node) -> None:
        """From now on, ``t`` is the value of ``node``."""
        self._nodes[id(t)] = (t, node)

    def node_of(self, t: Tensor) -> Node:
        """The node whose value ``t`` is; for a tensor no node made (a constant), a new
        ``get_attr`` node."""
        known = self._nodes.get(id(t))
        if known is not None:
            return known[1]
        constant = self._constants.get(id(t))
        if constant is None:
            kind = "param" if isinstance(t, Parameter) else "tensor"
            count = sum(name.startswith(f"_{kind}_") for name in self.tensor_attrs)
            constant = (t, f"_{kind}_constant{count}")
            self._constants[id(t)] = constant
            self.tensor_attrs[constant[1]] = t
        node = self.graph.get_attr(constant[1])
        node.meta["val"] = meta_like(t)
        return node

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        decomposition = self.decomposition_table.get(func)
        if decomposition is not None:  # its ops are traced in place of ``func``
            with self:
                return decomposition(*args, **kwargs)
        traced = [t for t in _tensors_in((args, kwargs)) if id(t) in self._nodes]
        constants = [id(t) in self._constant_values for t in traced]
        if func in DATA_DEPENDENT:
            if all(constants):  # its number is the same on every call: not recorded
                return func(*args, **kwargs)
            raise RuntimeError(
                f"It appears that you're trying to get value out of a tracing tensor with "
                f"{func} - erroring out! It's likely that this is caused by data-dependent "
                "control flow or similar.  It may be possible to trace this with dynamic "
                "shapes; try setting tracing_mode='symbolic' in your make_fx call.")
        node_args = _map_tensors(args, self.node_of)
        node_kwargs = _map_tensors(kwargs, self.node_of)
        out = func(*args, **kwargs)
        # torch records a fresh tensor's lift as a copy of the constant
        target = aten.lift_fresh_copy.default if func is aten.lift_fresh.default else func
        node = self.graph.call_function(target, node_args, node_kwargs)
        node.meta["val"] = _map_tensors(out, meta_like)
        results = _tensors_in(out)
        constant = all(t.numel() <= CONSTANT_NUMEL_LIMIT for t in results) and (
            func is aten.lift_fresh.default or (all(constants) and any(constants)))
        if isinstance(out, Tensor):
            self.track(out, node)
        elif isinstance(out, list | tuple):
            for i, item in enumerate(out):
                if isinstance(item, Tensor):
                    got = self.graph.call_function(operator.getitem, (node, i))
                    got.meta["val"] = meta_like(item)
                    self.track(item, got)
        for t in results:  # (an in-place op's result may stop being a constant)
            (self._constant_values.add if constant else self._constant_values.discard)(id(t))
        return out


def _placeholders(f: Callable[..., Any], count: int
                  ) -> tuple[list[tuple[str, Any]], str]:
    """The placeholders' names and defaults for ``count`` arguments, and the module's class
    name, as torch's make_fx gives them: for a Python function without ``*args``, its
    positional parameters' names with ``_1`` (``x_1``, with the parameter's default, if any)
    and its ``__name__``; otherwise (``*args``, a ``functools.partial``, an object with
    ``__call__``, which torch calls through a lambda of its own) ``arg0_1``, ``arg1_1``, ...
    and ``<lambda>``.

    Raises:
        RuntimeError: a Python function given another number of arguments than it has
            positional parameters (torch's message).
    """
    if inspect.isfunction(f):
        parameters = list(inspect.signature(f).parameters.values())
        if not any(p.kind is p.VAR_POSITIONAL for p in parameters):
            positional = [p for p in parameters
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            if len(positional) != count:
                raise RuntimeError(f"Tracing expected {len(positional)} arguments but got "
                                   f"{count} concrete arguments")
            return [(f"{p.name}_1", p.default) for p in positional], f.__name__
    return [(f"arg{i}_1", inspect.Parameter.empty) for i in range(count)], "<lambda>"


def make_fx(f: Callable[..., Any], decomposition_table: dict[Any, Callable[..., Any]] |
            None = None, tracing_mode: str = "real", *, pre_dispatch: bool = False
            ) -> Callable[..., GraphModule]:
    """``make_fx(f)(*args)``: the :class:`~reftensor.fx.GraphModule` of the aten ops that
    ``f(*args)`` runs (torch's ``make_fx``; see the module's docstring).

    Args:
        f: the function to trace, called once with ``args``.
        decomposition_table: ``{op overload: function}``: a call of such an op is replaced
            by the function's ops (the function runs under the tracer, with the op's
            arguments).
        tracing_mode: ``"real"``: ``f`` runs on the arguments given.
        pre_dispatch: False only (torch's traces above autograd when True).

    Returns:
        A function of ``*args`` (tensors, and other values, which the graph holds as the
        constants they were) that traces ``f`` and returns the module; calling the module
        with new tensors of the same kind reruns the recorded ops. Each argument is a
        placeholder (a value that is no tensor is one too, but the graph uses the value it
        had), named as :func:`_placeholders` says, as torch's; the module's class name is
        ``f.__name__`` (``<lambda>`` for a lambda, and where torch wraps ``f`` in one).

    Raises:
        NotImplementedError: ``tracing_mode`` ``"fake"`` or ``"symbolic"``, ``pre_dispatch``;
            an argument that holds tensors inside a list, tuple or dict (torch flattens it).
        ValueError: another ``tracing_mode``.
        RuntimeError: another number of arguments than ``f`` takes.
    """
    if tracing_mode in ("fake", "symbolic"):
        raise NotImplementedError(
            f"make_fx: tracing_mode={tracing_mode!r} traces on fake tensors (shapes and "
            "dtypes without data; 'symbolic' with symbolic sizes), which reftensor does not "
            "have: use tracing_mode='real', which runs the function on the real inputs")
    if tracing_mode != "real":
        raise ValueError(f"Unrecognized tracing mode: {tracing_mode}")
    if pre_dispatch:
        raise NotImplementedError("make_fx: pre_dispatch=True (tracing above autograd) is "
                                  "not supported by reftensor")
    table = dict(decomposition_table or {})

    def wrapped(*args: Any) -> GraphModule:
        names, class_name = _placeholders(f, len(args))
        graph = Graph()
        mode = ProxyTorchDispatchMode(graph, table)
        for (name, default), value in zip(names, args, strict=True):
            if not isinstance(value, Tensor) and _holds_tensors(value):
                raise NotImplementedError(
                    f"make_fx: the argument {name[:-2]!r} holds tensors in a "
                    f"{type(value).__name__}: reftensor traces functions of tensors and "
                    "plain values (torch flattens such arguments with pytree)")
            node = graph.placeholder(name, default)
            node.meta["val"] = meta_like(value) if isinstance(value, Tensor) else value
            if isinstance(value, Tensor):
                mode.track(value, node)
        with mode:
            out = f(*args)
        graph.output(_map_tensors(out, mode.node_of))
        return GraphModule(mode.tensor_attrs, graph, class_name=class_name)

    return wrapped
