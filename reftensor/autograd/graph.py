"""The backward graph: nodes, edges, saved tensors (``torch.autograd.graph``).

Each op that autograd records creates one :class:`Node` (``y.grad_fn``). A node knows

* ``next_functions``: one edge ``(node, output_nr)`` per forward input, pointing at the node
  that made that input, ``(AccumulateGrad, 0)`` for a leaf that requires grad, or
  ``(None, 0)`` for an input that needs no gradient;
* the tensors its backward formula needs, saved with the version counter they had, so a
  later in-place write is caught (:class:`SavedTensor`);
* ``apply(grads)``: given the gradient of each forward *output*, return the gradient of each
  forward *input* (one per edge, ``None`` where the edge is ``None``).

A leaf's gradient ends in its :class:`AccumulateGrad` node, which adds it into ``.grad``.
Non-leaf tensors get no ``.grad`` unless ``retain_grad()`` asked for one.
"""

from __future__ import annotations

import itertools
import operator
import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from .. import dtypes, factories, layout
from .._ops import aten
from .._ops.state import state as dispatch_state
from .._ops.torch_dispatch import has_torch_dispatch, subclass_like
from ..advanced_indexing import legacy_type_name
from ..device import CPU
from ..tensor import Tensor
from .grad_mode import state

__all__ = [
    "Node", "AccumulateGrad", "SavedTensor", "AutogradMeta", "RemovableHandle",
    "gradient_edge", "grad_accumulator", "needs_grad", "node_class", "record",
    "collect_next_edges", "set_history",
]

Edge = tuple["Node | None", int]
_sequence = itertools.count()

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class AutogradMeta:
    """Per-tensor autograd state beyond ``grad``/``grad_fn`` (torch's ``AutogradMeta``):
    the leaf's cached AccumulateGrad, hooks of a leaf, ``retain_grad``, and for a view the
    version its ``grad_fn`` was made at and how it was created."""

    __slots__ = ("accumulator", "hooks", "retains_grad", "view_version", "creation",
                 "inference")

    def __init__(self) -> None:
        self.accumulator: weakref.ref[AccumulateGrad] | None = None
        self.hooks: dict[int, Callable[[Tensor], Tensor | None]] = {}
        self.retains_grad = False
        self.view_version: int | None = None
        self.creation = ""  # "multi" (split, unbind, ...), "no_grad", or "" (default)
        self.inference = False


def meta(t: Tensor) -> AutogradMeta:
    """``t``'s AutogradMeta, created on first use."""
    if t._autograd_meta is None:
        t._autograd_meta = AutogradMeta()
    return t._autograd_meta


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Any]) -> None:
        self.id = next(self._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


class SavedTensor:
    """A tensor a backward formula needs, with its ``_version`` at save time.

    ``unpack`` raises RuntimeError after the graph was freed, or when the tensor (or any
    view of its storage) was modified in place since it was saved.

    A node's own output (``output_of`` set: ``exp`` saves its result) is kept by torch's
    ``SavedVariable`` as ``tensor_data()``, a shallow copy without its history, and unpacked
    as another shallow copy given the history back (``make_variable(data, Edge(grad_fn,
    output_nr))``). A shallow copy is what a dispatch mode sees as ``aten.detach.default``:
    while a mode is active, the save and each unpack dispatch it here too (``data`` keeps
    the copy made at save time, as torch's ``data_``), and the unpacked tensor is that
    detached copy with the output's ``grad_fn`` and ``output_nr``, so a backward with
    ``create_graph=True`` still records through the node. Without a mode nothing is copied.
    """

    __slots__ = ("tensor", "version", "released", "output_of", "data")

    def __init__(self, t: Tensor, output_of: str | None = None,
                 version: int | None = None) -> None:
        if _is_inference(t) and not state.inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`.")
        self.tensor = t
        self.version = t._version_counter.value if version is None else version
        self.released = False
        self.output_of = output_of  # the node's name when ``t`` is that node's output
        # under a dispatch mode, a saved output's shallow copy (torch's ``tensor_data()``)
        self.data: Tensor | None = (aten.detach.default(t) if output_of is not None
                                    and subclass_like(t) else None)

    def unpack(self) -> Tensor:
        if self.released:
            raise RuntimeError(FREED)
        t = self.tensor
        if t._version_counter.value != self.version:
            grad_fn = None if t._grad_fn is None else t._grad_fn.name()
            message = saved_tensor_error(self.version, t._version_counter.value,
                                         f"reftensor.{legacy_type_name(t._dtype)}",
                                         tuple(t._shape), self.output_of, grad_fn)
            raise RuntimeError(f"{message} {ANOMALY_HINT}")
        if self.output_of is not None and subclass_like(t):
            return self._unpack_output(t)
        return t

    def _unpack_output(self, t: Tensor) -> Tensor:
        """A saved output as torch unpacks it while a dispatch mode is active: a shallow
        copy of the copy kept at save time (``aten.detach.default``, which the mode sees),
        given the output's history."""
        unpacked = aten.detach.default(t if self.data is None else self.data)
        if t._grad_fn is not None:
            unpacked._grad_fn, unpacked._output_nr = t._grad_fn, t._output_nr
            unpacked._requires_grad = True
        return unpacked


ANOMALY_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def saved_tensor_error(saved_version: int, version: int, type_name: str,
                       shape: tuple[int, ...], saved_by: str | None, grad_fn: str | None
                       ) -> str | None:
    """The message of the ``RuntimeError`` a node raises when it unpacks a saved tensor that
    was modified in place since it was saved (torch's ``SavedVariable::unpack``), up to, not
    including, the space before its ``Hint:``; None when the tensor is unchanged.

    Args:
        saved_version: the tensor's ``_version`` when the node saved it, an int.
        version: its ``_version`` now, an int.
        type_name: its legacy type name, e.g. ``"torch.FloatTensor"``.
        shape: its sizes, a tuple of ints.
        saved_by: the name of the node that saved it when the tensor is that node's own
            result (``"ExpBackward0"`` saves its output), else None.
        grad_fn: the name of the tensor's ``grad_fn`` now (``grad_fn.name()``), None for a
            tensor without history.

    Returns:
        torch's message, a str of one line, or None when ``version == saved_version``.
    """
    # BEGIN PIECE saved_tensor_error
    # "... modified by an inplace operation: [TYPE SHAPE], which is output 0 of NODE, is at
    # version V; expected version S instead." SHAPE is the sizes as a list. NODE is the
    # node that saved it for a saved result, else the tensor's grad_fn now (after an
    # in-place op, that op's node), named without its Backward<n> ending; a tensor without
    # history has no node, and the ", which is output 0 of NODE," clause is left out.
    if version == saved_version:
        return None
    node = saved_by if saved_by is not None else grad_fn
    where = ""
    if node is not None:  # named without its ending: ExpBackward0 -> Exp
        where = f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', node)},"
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name} {list(shape)}]{where} is at version {version}; "
            f"expected version {saved_version} instead.")
    # END PIECE


def _is_inference(t: Tensor) -> bool:
    return t._autograd_meta is not None and t._autograd_meta.inference


class Node:
    """One recorded op of the backward graph (``torch.autograd.graph.Node``).

    Subclasses are named as torch names them (``MulBackward0``) and define ``apply``.
    Build one with the op's forward inputs, in torch's order (numbers and tensors that need
    no gradient get a ``(None, 0)`` edge); ``record`` then attaches it to the outputs.
    """

    def __init__(self, *inputs: Any) -> None:
        self.next_functions: tuple[Edge, ...] = _edges(inputs, _asked) if inputs else ()
        # what the gradient for each input must look like (shape, dtype, device), or None
        self._input_info = [(x._shape, x._dtype, x.device) if isinstance(x, Tensor) else None
                            for x in inputs]
        self._seq = self._next_seq()
        self._num_outputs = 1
        self._output_info: list[tuple[tuple[int, ...], Any] | None] = [None]
        self._saved: dict[str, SavedTensor] = {}
        self._tensor_pre_hooks: dict[int, dict[int, Callable[..., Any]]] = {}
        self._retained: dict[int, Callable[[Tensor | None], None]] = {}  # retain_grad's hooks
        self._pre_hooks: dict[int, Callable[..., Any]] = {}
        self._post_hooks: dict[int, Callable[..., Any]] = {}
        self.metadata: dict[str, Any] = {}

    # ---------------------------------------------------------------- identity
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _next_seq(self) -> int:
        return next(_sequence)

    def _sequence_nr(self) -> int:
        """Creation order: the engine runs later-created nodes first among the ready ones."""
        return self._seq

    def num_inputs(self) -> int:
        """How many gradients the node takes: one per output of its forward op (torch's
        ``Node::num_inputs``)."""
        return self._num_outputs

    # ---------------------------------------------------------------- saved tensors
    def save(self, key: str, t: Tensor | None, *, is_output: bool = False) -> None:
        """Keep ``t`` for backward (``None`` is kept as None); read it with ``saved``."""
        if t is not None:
            self._saved[key] = SavedTensor(t, self.name() if is_output else None)

    def saved(self, key: str) -> Tensor:
        return self._saved[key].unpack()

    def release_variables(self) -> None:
        """Free the saved tensors (after a backward without ``retain_graph``)."""
        for s in self._saved.values():
            s.released = True
            s.tensor = s.data = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        # ``grad_fn._saved_self``, as torch exposes saved tensors
        saved = self.__dict__.get("_saved", {})
        if name.startswith("_saved_"):
            key = name[7:]
            if key in saved:
                return saved[key].unpack()
            if "wrapped_" + key in saved:  # a number, kept as the 0-d tensor torch wraps
                return saved["wrapped_" + key].unpack()
            values = self.__dict__.get("values", {})
            if values.get(key) is not None:  # a saved argument that is not a tensor
                return values[key]
            if key in getattr(type(self), "saved_keys", ()):  # a tensor the node did not
                return None  # need (torch's unset SavedVariable)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # ---------------------------------------------------------------- running
    def _reads(self) -> tuple[tuple[bool, ...], tuple[tuple[str, ...] | None, ...]]:
        """``set_history``'s ``needs`` and ``reads``: per input, does it need a gradient,
        and what does its formula read (None here: a node without a table row saves
        nothing through ``set_history``)."""
        edges = self.next_functions
        return tuple(e[0] is not None for e in edges), (None,) * len(edges)

    def needs_input_grad(self, i: int) -> bool:
        return self.next_functions[i][0] is not None

    def apply(self, grads: Sequence[Tensor | None]) -> tuple[Tensor | None, ...]:
        raise NotImplementedError(f"{self.name()} has no backward formula")

    def __call__(self, *grads: Tensor | None) -> Tensor | None | tuple[Tensor | None, ...]:
        """Run the backward formula on output gradients (``node(grad)``, as in torch): the
        gradient of a node's one input, or a tuple of one per input (torch's
        ``THPCppFunction_call``)."""
        out = tuple(self.apply(list(grads)))
        return out[0] if len(out) == 1 else out

    # ---------------------------------------------------------------- hooks
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        return handle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        return handle(self._pre_hooks, fn)


def _clone_obey_contract(g: Tensor, var: Tensor, stride: tuple[int, ...]) -> Tensor:
    """torch's ``clone_obey_contract``: the gradient ``copy_``-ed (``CopyBackwards`` under
    ``create_graph``) into ``new_empty_strided`` with the leaf's sizes, strides and options
    when the leaf is dense (``stride`` is its own), else a contiguous ``clone``."""
    if stride == var._stride:
        return aten.new_empty_strided.default(g, var._shape, stride, dtype=var._dtype,
                                              layout=layout.strided,
                                              device=var.device).copy_(g)
    return g.clone(memory_format=layout.contiguous_format)


class AccumulateGrad(Node):
    """The sink for a leaf's gradient: adds it into ``variable.grad`` (torch's rules:
    the first gradient is copied with the leaf's strides when the leaf is dense, later ones
    are added in place, or out of place under ``create_graph``)."""

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable
        self._output_info = [(variable._shape, variable._dtype)]

    def _next_seq(self) -> int:
        return 2**64 - 1  # no creation number: it runs as soon as it is ready, as in torch

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # torch's C++ name for this node

    def apply(self, grads: Sequence[Tensor | None]) -> tuple[Tensor | None, ...]:
        g = grads[0]
        var = self.variable
        if g is None:
            return ()
        if _by_accumulate_grad(var, g):
            return ()
        if var._grad is None:
            stride = (var._stride if layout.is_non_overlapping_and_dense(var._shape, var._stride)
                      else layout.contiguous_strides(var._shape))
            if state.enabled:  # create_graph: keep the gradient's own history, as torch's
                var._grad = _clone_obey_contract(g, var, stride)
            elif has_torch_dispatch(type(g)):  # a Tensor subclass's (chapter 9): its ops
                # torch's: the gradient itself, detached, where it obeys the layout contract
                # (the engine holds the only reference to it), else a copy as above
                var._grad = (aten.detach.default(g) if g._stride == stride
                             else _clone_obey_contract(g, var, stride))
            elif g._stride == stride:
                var._grad = g._copy_with_strides(g._stride, g._dtype)
            else:
                var._grad = g._copy_with_strides(stride, g._dtype)
        elif not state.enabled:
            var._grad.add_(g)
        else:
            var._grad = var._grad + g
        return ()


Nested = Any  # a float, or nested lists of floats


def accumulate_grad(shape: tuple[int, ...], stride: tuple[int, ...],
                    grad: tuple[Nested, tuple[int, ...]] | None, new: Nested
                    ) -> tuple[Nested, tuple[int, ...], bool]:
    """What a leaf's ``AccumulateGrad`` node does with the gradient ``new`` that reaches it
    (torch's ``AccumulateGrad::accumulateGrad``, when ``create_graph`` is off): the leaf's
    ``.grad`` afterwards. Values are float64, as nested lists or tuples of ``shape`` (a
    float for a 0-d leaf).

    Args:
        shape, stride: the leaf's layout (in elements).
        grad: the leaf's ``.grad`` now: None, or ``(values, strides)``.
        new: the arriving gradient's values.

    Returns:
        ``(values, strides, in_place)``: ``.grad``'s values afterwards (nested lists, as
        ``tolist()`` gives them), its strides, and whether the old ``.grad`` tensor was
        updated in place (then it is the same object, its ``_version`` one higher).
    """
    # BEGIN PIECE accumulate_grad
    # The first gradient (.grad is None) is copied into a new tensor laid out like the leaf
    # when the leaf is non-overlapping and dense (torch's gradient layout contract), else
    # contiguous; a later one is added into .grad in place, which keeps its strides.
    def plain(v: Nested) -> Nested:
        return [plain(u) for u in v] if isinstance(v, list | tuple) else v

    def add(a: Nested, b: Nested) -> Nested:
        if isinstance(a, list | tuple):
            return [add(p, q) for p, q in zip(a, b, strict=True)]
        return a + b

    if grad is not None:  # later gradients: added into the same tensor
        values, grad_stride = grad
        return add(values, new), tuple(grad_stride), True
    # the first: is the leaf dense? Its dims of size 2 or more, by stride, must step like a
    # contiguous layout (size-0 and size-1 dims do not matter; an empty tensor is dense)
    dense, expected = True, 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: stride[d]):
        dense = dense and stride[d] == expected
        expected *= shape[d]
    if dense or 0 in shape:
        return plain(new), tuple(stride), False
    contiguous, running = [], 1
    for n in reversed(shape):
        contiguous.insert(0, running)
        running *= max(n, 1)
    return plain(new), tuple(contiguous), False
    # END PIECE


#: a leaf's AccumulateGrad asks ``accumulate_grad`` when the gradient is a float64 CPU
#: tensor with fewer elements than this, outside ``create_graph``
ACCUMULATE_GRAD_NUMEL = 64


def _by_accumulate_grad(var: Tensor, g: Tensor) -> bool:
    """Accumulate ``g`` into ``var.grad`` as ``accumulate_grad`` says; False (nothing done)
    where it does not apply: ``create_graph``, a dispatch mode, another dtype or device, a
    ``.grad`` that is not a plain float64 CPU tensor of the leaf's shape, 64 elements or
    more."""
    old = var._grad

    def plain_float64(t: Tensor | None) -> bool:
        return (type(t) is Tensor and t._dtype is dtypes.float64
                and t._storage._device is CPU and t._shape == var._shape)

    if (state.enabled or dispatch_state.modes or g.numel() >= ACCUMULATE_GRAD_NUMEL
            or not plain_float64(g) or (old is not None and not plain_float64(old))):
        return False
    values, stride, in_place = accumulate_grad(
        var._shape, var._stride, None if old is None else (old.tolist(), old._stride),
        g.tolist())
    result = factories.tensor(values, dtype=dtypes.float64).reshape(var._shape)
    if in_place and old is not None:
        old.copy_(result)  # the same tensor, its version one higher (as ``add_``)
    else:  # a new tensor at version 0, as the copy the path above makes
        var._grad = result._copy_with_strides(tuple(stride), dtypes.float64)
    return True


def node_class(name: str, base: type[Node], module: str, **attrs: Any) -> type[Node]:
    """A subclass of ``base`` named as torch names the node (``SelectBackward0``), for the
    many nodes that share one formula."""
    return type(name, (base,), {"__module__": module, **attrs})


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: one per leaf while anything holds it."""
    m = meta(t)
    node = m.accumulator() if m.accumulator is not None else None
    if node is None:
        node = AccumulateGrad(t)
        m.accumulator = weakref.ref(node)
    return node


def gradient_edge(t: Tensor) -> Edge:
    """Where a gradient for ``t`` goes (torch's ``gradient_edge``, for the roots and inputs
    of a backward pass): the edge ``collect_next_edges`` gives an op whose one input is
    ``t``."""
    return _edges((t,))[0]


def needs_grad(*inputs: Any) -> bool:
    """Will an op on these inputs be recorded? ``collect_next_edges`` answers for an op with
    an input that requires grad (and the node the op then builds on the same inputs takes
    the edges it gave: it is asked once per op); an op on tensors that require none records
    nothing without asking."""
    _asked[0] = None
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            edges = collect_next_edges(state.enabled, _described(inputs), _accumulator(inputs))
            if edges is None:
                return False
            _asked[0] = inputs, edges
            return True
    return False


#: ``(inputs, edges)``: the inputs ``needs_grad`` last asked ``collect_next_edges`` about
#: and the edges it gave; None once a node has taken them, or when the answer was no node
_asked: list[Any] = [None]


def collect_next_edges(grad_mode: bool, inputs: Sequence[Any],
                       accumulator: Callable[[int], Any]) -> tuple[Edge, ...] | None:
    """The edges of the node an op records, or None when the op records no node (torch's
    ``compute_requires_grad`` and ``collect_next_edges``, ``gradient_edge``): the node's
    ``next_functions``.

    Args:
        grad_mode: is grad mode on (``torch.is_grad_enabled()``: False under ``no_grad``
            and ``inference_mode``).
        inputs: one entry per differentiable input of the op, in order: None for an input
            that is not a tensor (a Python number), else the tensor's
            ``(requires_grad, grad_fn, output_nr)``; ``grad_fn`` is its node (an object to
            hand on as it is) or None.
        accumulator: ``accumulator(i)``: the ``AccumulateGrad`` node of input ``i`` (torch's
            ``grad_accumulator``), made on first use and the same node for the same tensor;
            None for a tensor that does not require grad itself. Raises RuntimeError for a
            tensor that has a ``grad_fn``.

    Returns:
        None, or a tuple of ``(node, output_nr)`` pairs, one per input (``node`` None where
        the edge leads nowhere).
    """
    # BEGIN PIECE collect_next_edges
    # No node unless grad mode is on and some tensor input requires grad. Then an input with
    # history hands its gradient to its grad_fn, at the slot of the output it was; a leaf
    # that requires grad to its AccumulateGrad (slot 0); anything else to nowhere.
    if not grad_mode or not any([x is not None and x[0] for x in inputs]):
        return None
    edges = []
    for i, x in enumerate(inputs):
        if x is None or not x[0]:
            edges.append((None, 0))
        elif x[1] is not None:
            edges.append((x[1], x[2]))
        else:
            edges.append((accumulator(i), 0))
    return tuple(edges)
    # END PIECE


def _described(inputs: Sequence[Any]) -> tuple[Any, ...]:
    """``collect_next_edges``'s ``inputs``: each tensor's ``(requires_grad, grad_fn,
    output_nr)``, None for anything else."""
    return tuple([(x._requires_grad, x.grad_fn, x._output_nr) if isinstance(x, Tensor)
                  else None for x in inputs])


def _accumulator(inputs: Sequence[Any]) -> Callable[[int], Any]:
    """``collect_next_edges``'s ``accumulator``: torch's ``grad_accumulator`` of input i."""
    def accumulator(i: int) -> AccumulateGrad | None:
        t = inputs[i]
        if not isinstance(t, Tensor) or not t._requires_grad:
            return None
        if t.grad_fn is not None:
            raise RuntimeError("grad_accumulator() should be only called on leaf Variables")
        m = t._autograd_meta
        if m is not None and m.creation == "no_grad":  # requires grad through its base only
            return None
        return grad_accumulator(t)

    return accumulator


def _edges(inputs: Sequence[Any], asked: list[Any] | None = None) -> tuple[Edge, ...]:
    """A new node's edges: ``collect_next_edges``'s, one per input ((None, 0) each where it
    says the op records nothing); those ``needs_grad`` was given for the same inputs, if it
    was the last to ask (``asked``), else asked now."""
    edges = None
    if asked is not None and asked[0] is not None:
        before, edges = asked[0]
        asked[0] = None
        if len(before) != len(inputs) or not all(map(operator.is_, before, inputs)):
            edges = None
    if edges is None:
        edges = collect_next_edges(True, _described(inputs), _accumulator(inputs))
    if edges is None:
        return ((None, 0),) * len(inputs)
    edges = tuple(edges)
    if len(edges) != len(inputs):
        raise RuntimeError(f"collect_next_edges returned {len(edges)} edges for "
                           f"{len(inputs)} inputs")
    return edges


def record(node: Node, outputs: Tensor | Sequence[Tensor | None], *,
           view: bool = False) -> None:
    """Attach ``node`` to the op's outputs as ``set_history`` says, and save what it says of
    the tensors a formula node was given (``_pending``), with the version it says. A view
    output remembers the version it was made at (see ``regenerate_view_grad_fn``)."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    node._num_outputs = len(outs)
    node._output_info = [None] * len(outs)
    pending: dict[str, Any] = node.__dict__.pop("_pending", {})
    needs, reads = node._reads()
    saves = []
    if pending:
        at = {id(o): i for i, o in enumerate(outs)}  # which output a saved tensor is
        for key, value in pending.items():
            if isinstance(value, Tensor):
                saves.append((key, value._version_counter.value, at.get(id(value))))
            else:  # a number: a new 0-d tensor
                saves.append((key, 0, None))
    history, saved = set_history(
        tuple([None if o is None else o._dtype.name for o in outs]), needs, reads, tuple(saves))
    if len(history) != len(outs):
        raise RuntimeError(f"set_history returned {len(history)} entries for {len(outs)} "
                           "outputs")
    for key, version, is_output in saved:
        value = pending[key]
        if isinstance(value, Tensor):
            node._saved[key] = SavedTensor(value, node.name() if is_output else None, version)
        else:
            node._saved["wrapped_" + key] = SavedTensor(factories.unlifted_tensor(value), None,
                                                        version)
    for i, (out, nr) in enumerate(zip(outs, history, strict=True)):
        if out is None or nr is None:
            continue
        if out._grad_fn is not None and out.retains_grad:  # in place, or a view's new node:
            # retain_grad's hook moves to it (torch's update_tensor_hooks_on_new_gradfn)
            retain = out._grad_fn._retained.pop(out._output_nr, None)
            if retain is not None:
                node._retained[nr] = retain
        out._grad_fn = node
        out._output_nr = nr
        out._requires_grad = True
        node._output_info[i] = (out._shape, out._dtype)
        if view:
            meta(out).view_version = out._version_counter.value


def set_history(outputs: Sequence[str | None], needs: Sequence[bool],
                reads: Sequence[Sequence[str] | None],
                saves: Sequence[tuple[str, int, int | None]]
                ) -> tuple[tuple[int | None, ...], tuple[tuple[str, int, bool], ...]]:
    """Which of a recorded op's outputs its node becomes the ``grad_fn`` of, and which
    tensors the node saves for backward (torch's ``set_history``, and the
    ``SavedVariable``s its generated ``VariableType`` code makes).

    Args:
        outputs: per output of the op, its dtype's name (``"float32"``, ``"bfloat16"``,
            ``"complex64"``, ``"int64"``, ``"bool"``, ...), or None for an output that is
            no tensor.
        needs: per input of the node, does it need a gradient (its edge leads to a node)?
        reads: per input of the node, the names its backward formula reads
            (``("grad", "other")`` for ``self`` of ``self * other``), or None for an input
            without a formula.
        saves: the tensors the formulas may read, as ``(name, version, output)``: the
            tensor's ``_version`` now, and which output of the op it is (None for one that is
            not an output). A Python number given for a tensor argument comes as the new
            0-d tensor torch wraps it in.

    Returns:
        ``(history, saved)``, tuples. ``history``: per output, the ``output_nr`` it takes
        with the node as its ``grad_fn`` (it then requires grad and is not a leaf), or None
        for an output the node is not recorded on (a leaf that does not require grad).
        ``saved``: ``(name, version, is_output)`` for each tensor the node saves, in the
        order of ``saves``: the ``_version`` its backward will expect, and whether it is an
        output the node is recorded on (torch then keeps it without its ``grad_fn`` and names
        the node in the error of a saved tensor changed in place).
    """
    # BEGIN PIECE set_history
    # Only a floating or complex output can take a gradient; the rest stay leaves. A
    # tensor is saved when a formula that will run (its input needs a gradient) reads it.
    history = tuple([i if dtype is not None and dtype.startswith(("float", "bfloat", "complex"))
                     else None for i, dtype in enumerate(outputs)])
    if not saves:
        return history, ()
    wanted = {name for need, names in zip(needs, reads, strict=True)
              if need and names is not None for name in names}
    return history, tuple([(name, version, output is not None and history[output] is not None)
                           for name, version, output in saves if name in wanted])
    # END PIECE


def regenerate_view_grad_fn(view: Tensor) -> Node | None:
    """After an in-place write to a view's storage, the view's gradient is read out of its
    base's: its grad_fn becomes ``AsStridedBackward0`` of the base (torch does the same)."""
    base = view._base
    m = view._autograd_meta
    assert base is not None and m is not None
    m.view_version = view._version_counter.value
    if not base._requires_grad:
        return view._grad_fn
    # the node of ``base.as_strided(view's sizes, strides, offset)``
    as_strided = aten.as_strided.default
    assert as_strided.node is not None
    node = as_strided.node((base, view._shape, view._stride, view._storage_offset), view)
    record(node, view, view=True)
    return node


def handle(hooks: dict[int, Any], fn: Callable[..., Any]) -> RemovableHandle:
    """Register ``fn`` in ``hooks`` and return its handle."""
    h = RemovableHandle(hooks)
    hooks[h.id] = fn
    return h
