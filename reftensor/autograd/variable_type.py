"""The ``Autograd`` kernels of the ops in the derivatives table (torch's ``VariableType``).

For a row of ``derivatives.py`` this module builds:

* a node class named as torch names it (``ExpBackward0``) whose ``apply`` calls the row's
  formulas with the saved values;
* the ``Autograd`` kernel of the op: redispatch below ``Autograd`` with grad mode off (the
  kernel of chapters 2-4 runs), then record a node when an input requires grad
  (``_record.call``);
* the ``Autograd`` kernel of its in-place form (``exp_``): torch's in-place checks, the
  write, and the node rebased onto ``self`` (``inplace.call_``).

Importing this module registers the kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._ops import DispatchKey, OpOverload, aten
from .._ops.torch_dispatch import subclass_like
from ..promotion import SCALAR_TYPE_NAMES
from ..tensor import Tensor
from .derivatives import DERIVATIVES, Derivative
from .functions._record import call, forward
from .functions.inplace import call_, check_inplace
from .graph import Node, meta, needs_grad, node_class, record

__all__ = ["FormulaNode", "register"]


class FormulaNode(Node):
    """A node whose backward is a row of the derivatives table.

    It saves only what the formulas of the inputs that need a gradient read, as torch's
    generated nodes do (``a * b`` keeps ``a`` only when ``b`` requires grad). A Python
    number given for a tensor argument (``x * 2``) is kept as the number, beside the 0-d
    tensor torch would have wrapped it in, so that a backward through a freed graph raises
    here too. A list of tensors (``cat``'s ``tensors``) is one edge per tensor, its formula
    gives one gradient per tensor, and what the row saves of it is what torch saves: its
    tensors' sizes (``tensors_args_sizes``) and dtypes (``tensors_args_scalartypes``).
    """

    row: Derivative
    inputs: tuple[str, ...]  # the op's differentiable tensor arguments, in schema order
    positions: tuple[int, ...]  # where they are among the op's arguments
    names: dict[str, int]  # every argument's position
    returns: dict[str, int]  # of an op with several results: each one's position
    formulas: tuple[tuple[Any, tuple[str, ...]] | None, ...]  # per input: formula, reads
    order: tuple[int, ...] | None  # the inputs by name, as torch computes them (None: as is)
    reads: tuple[tuple[str, ...] | None, ...]  # per input: what its formula reads, or None
    lists: tuple[bool, ...]  # per input: is it a list of tensors
    has_lists: bool  # any(lists)
    # per input: its slice of next_functions (a list of tensors has one edge per tensor)
    slices: tuple[slice, ...]
    # per saved key: how to read its value off the call (``_getter``), worked out once
    plan: tuple[tuple[str, Any], ...]
    reads_grads: bool  # does a formula read every result's gradient (``split``)

    def __init__(self, args: tuple[Any, ...], result: Tensor) -> None:
        if self.has_lists:
            super().__init__(*_flat([args[i] for i in self.positions]))
            slices, start = [], 0
            for i, is_list in zip(self.positions, self.lists, strict=True):
                n = len(args[i]) if is_list else 1
                slices.append(slice(start, start + n))
                start += n
            self.slices = tuple(slices)
        else:  # one edge per input (the class's slices)
            super().__init__(*[args[i] for i in self.positions])
        self.values: dict[str, Any] = {}  # saved arguments that are not tensors (``dims``)
        if not self.row.saves:
            return
        # what the formulas may read: ``record`` asks set_history which tensors to save (a
        # number given for a tensor argument is saved as the 0-d tensor torch wraps it in)
        pending: dict[str, Any] = {}
        for key, get in self.plan:
            value = get(args, result)
            if isinstance(value, Tensor):
                pending[key] = value
                continue
            self.values[key] = value
            if key in self.inputs and value is not None:  # a number
                pending[key] = value
        self._pending = pending

    def _reads(self) -> tuple[tuple[bool, ...], tuple[tuple[str, ...] | None, ...]]:
        """Per input of the row: does it need a gradient, and what its formula reads."""
        if self.has_lists:
            needs = tuple([self._wanted(i) for i in range(len(self.formulas))])
        else:
            needs = tuple([edge[0] is not None for edge in self.next_functions])
        return needs, self.reads

    def _wanted(self, i: int) -> bool:
        """Does some tensor of input ``i`` need a gradient?"""
        return any(edge[0] is not None for edge in self.next_functions[self.slices[i]])

    def _read(self, key: str) -> Any:
        if key in self.values:
            if "wrapped_" + key in self._saved:
                self.saved("wrapped_" + key)  # raises once the graph is freed
            return self.values[key]
        return self.saved(key)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        if any(s.output_of is not None and subclass_like(s.tensor)
               for s in self._saved.values()):
            return self._apply_unpacked(grads)
        return self._apply(grads)

    def _apply_unpacked(self, grads: Any) -> tuple[Any, ...]:
        """``apply`` while a dispatch mode is active, for a node that saved one of its
        outputs: every saved tensor is unpacked once, first, as torch's generated ``apply``
        unpacks its ``SavedVariable``s (a saved output's unpack is the ``aten.detach`` the
        mode sees, see ``SavedTensor``), and the formulas read those tensors."""
        unpacked = {key: saved.unpack() for key, saved in self._saved.items()}
        plain = self._read

        def read(key: str) -> Any:
            return unpacked[key] if key in unpacked and key not in self.values else plain(key)

        self._read = read  # type: ignore[method-assign]
        try:
            return self._apply(grads)
        finally:
            del self._read

    def _apply(self, grads: Any) -> tuple[Any, ...]:
        # a formula reads ``grad``, the first result's gradient (a second result, such as
        # max's indices, has none), or ``grads``, one per result (``split``'s pieces; None
        # for a piece that got no gradient)
        grad = grads[0]
        out: list[Any] = []
        edges, has_lists = self.next_functions, self.has_lists
        if not has_lists and not self.reads_grads:  # the common case, one edge per input
            if self.order is None:
                for entry, edge in zip(self.formulas, edges, strict=True):
                    if entry is None or edge[0] is None:
                        out.append(None)
                    else:
                        formula, reads = entry
                        out.append(formula(*[grad if p == "grad" else self._read(p)
                                             for p in reads]))
                return tuple(out)
            # torch's generated nodes compute their inputs' gradients in the order of the
            # inputs' names (``mul``: ``other`` before ``self``), which a dispatch mode sees
            out = [None] * len(self.formulas)
            for i in self.order:
                entry = self.formulas[i]
                if entry is not None and edges[i][0] is not None:
                    formula, reads = entry
                    out[i] = formula(*[grad if p == "grad" else self._read(p)
                                       for p in reads])
            return tuple(out)
        for i, entry in enumerate(self.formulas):
            if entry is None or (not self._wanted(i) if has_lists else edges[i][0] is None):
                out.extend([None] * (self.slices[i].stop - self.slices[i].start))
                continue
            formula, reads = entry
            value = formula(*[grad if p == "grad" else list(grads) if p == "grads"
                              else self._read(p) for p in reads])
            if self.lists[i]:
                out.extend(value)
            else:
                out.append(value)
        return tuple(out)


_SIZES, _DTYPES = "_args_sizes", "_args_scalartypes"


#: what a saved key may name besides an argument: ``self_sym_sizes`` is torch's name for
#: ``self.sym_sizes()``, saved instead of ``self``; ``mm`` saves strides, ``as_strided`` its
#: input's geometry, ``_to_copy`` its input's dtype and device (``self_options``), a formula
#: ``zeros_like(p)`` p's sizes, dtype and device (torch's ``TypeAndSize``: ``p_info``),
#: ``self_scalar_type`` its dtype
_PARTS: dict[str, Any] = {
    "_sym_sizes": lambda t: t._shape,
    # ``bias->sym_sizes()`` of an optional tensor (``convolution``'s row): None when absent
    "_sym_sizes_opt": lambda t: None if t is None else t._shape,
    "_sym_strides": lambda t: t._stride,
    "_geometry": lambda t: (t._shape, t._stride, t._storage_offset),
    "_options": lambda t: (t._dtype, t.device),
    "_info": lambda t: (t._shape, t._dtype, t.device),
    "_scalar_type": lambda t: t._dtype,  # ``self.scalar_type()`` (``_softmax``'s row)
    "_sym_argsize_0": lambda t: t._shape[0],  # ``weight.sym_size(0)`` (``embedding``'s row)
    "_sym_argsize_1": lambda t: t._shape[1],  # ``batch1.sym_size(1)`` (``addbmm``'s row)
    "_sym_argsize_2": lambda t: t._shape[2],  # ``batch2.sym_size(2)`` (``addbmm``'s row)
    "_dim": lambda t: t.dim(),  # ``source.dim()`` (``index_add``'s row)
}


def _getter(key: str, names: dict[str, int], returns: dict[str, int]) -> Any:
    """How to read what a row saves under ``key`` off a call's ``(args, result)``: the
    result, one of several results (``indices``), an argument, a part of one (``_PARTS``),
    or the sizes or dtypes of a list of tensors (``tensors_args_sizes``)."""
    if key in returns:  # (a result named ``result`` among several: ``_linalg_det``'s)
        at = returns[key]
        return lambda args, result: result[at]
    if key == "result":
        return lambda args, result: result
    if key.startswith("result") and key[6:].isdigit():  # an unnamed result (``result1``)
        at = int(key[6:])
        return lambda args, result: result[at]
    if key.endswith(_SIZES) or key.endswith(_DTYPES):
        at = names[key.rpartition("_args")[0]]
        return lambda args, result: _of_list(key, args[at])
    for suffix, part in _PARTS.items():
        if key.endswith(suffix) and key.removesuffix(suffix) in names:
            at = names[key.removesuffix(suffix)]
            return lambda args, result: part(args[at])
    at = names[key]
    return lambda args, result: args[at]


def _of_list(key: str, tensors: Any) -> list[Any]:
    """What a row saves of a list of tensors: each one's shape, or each one's dtype."""
    if key.endswith(_SIZES):
        return [t._shape for t in tensors]
    return [t._dtype for t in tensors]


class JointFormulaNode(FormulaNode):
    """A node of a row with a formula that computes several inputs' gradients in one call
    (``"input, weight, bias"``): called once, when any of them needs a gradient, with
    ``grad_input_mask`` saying which (torch's generated code does the same)."""

    # per input: the inputs (indices) its formula fills, in the formula's order; None for a
    # formula of one input
    groups: tuple[tuple[int, ...] | None, ...]

    def _apply(self, grads: Any) -> tuple[Any, ...]:
        grad = grads[0]
        mask = [edge[0] is not None for edge in self.next_functions]
        out: list[Any] = [None] * len(self.formulas)
        done = [False] * len(self.formulas)
        for i in self.order or range(len(self.formulas)):
            entry, group = self.formulas[i], self.groups[i]
            if entry is None or not mask[i] or done[i]:
                continue
            formula, reads = entry
            wanted = [mask[k] for k in group] if group is not None else None
            value = formula(*[grad if p == "grad" else list(grads) if p == "grads"
                              else wanted if p == "grad_input_mask" else self._read(p)
                              for p in reads])
            if group is None:
                out[i] = value
                continue
            for k, gradient in zip(group, value, strict=True):
                out[k], done[k] = (gradient if mask[k] else None), True
        return tuple(out)


def _flat(inputs: list[Any]) -> list[Any]:
    """The op's tensor inputs, a list of tensors spread out."""
    flat: list[Any] = []
    for x in inputs:
        if isinstance(x, tuple | list):
            flat.extend(x)
        else:
            flat.append(x)
    return flat


def _positions(row: Derivative, op: OpOverload) -> tuple[int, ...]:
    """The arguments that get an edge: each tensor argument that has a formula
    (``where``'s ``condition`` is not differentiable and gets none, as in torch)."""
    keys = row.keys_by_input()
    return tuple(i for i, a in enumerate(op.schema.arguments)
                 if a.type.base == "Tensor" and a.name in keys)


def _node_class(row: Derivative, op: OpOverload) -> type[FormulaNode]:
    arguments = op.schema.arguments
    positions = _positions(row, op)
    inputs = tuple(arguments[i].name for i in positions)
    keys = row.keys_by_input()
    formulas = tuple(
        (row.formulas[keys[name]], _parameters(row.formulas[keys[name]]))
        if name in keys else None for name in inputs)
    # a formula of several inputs: the inputs it fills, by index
    groups = tuple(tuple(inputs.index(n) for n in keys[name].split(", "))
                   if name in keys and ", " in keys[name] else None for name in inputs)
    returns = {r.name: i for i, r in enumerate(op.schema.returns)
               if len(op.schema.returns) > 1 and r.name}
    names = {a.name: i for i, a in enumerate(arguments)}
    # the order torch computes the gradients in (torchgen: the inputs' names, sorted); None
    # where that is the inputs' own order
    order = tuple(sorted(range(len(inputs)), key=lambda k: inputs[k]))
    joint = any(g is not None for g in groups)
    extra = {"groups": groups} if joint else {}
    return node_class(row.node, JointFormulaNode if joint else FormulaNode, __name__,  # type: ignore[return-value]
                      **extra, row=row, inputs=inputs,
                      order=None if order == tuple(range(len(inputs))) else order,
                      positions=positions, formulas=formulas,
                      reads=tuple(None if e is None else e[1] for e in formulas),
                      names=names, returns=returns,
                      plan=tuple((k, _getter(k, names, returns)) for k in row.saves),
                      saved_keys=tuple(row.saves),
                      reads_grads=any(e is not None and "grads" in e[1] for e in formulas),
                      lists=tuple(arguments[i].type.is_list for i in positions),
                      has_lists=any(arguments[i].type.is_list for i in positions),
                      slices=tuple(slice(k, k + 1) for k in range(len(positions))))


def _register_inplace(inplace: OpOverload, owner: OpOverload) -> None:
    """The ``Autograd`` kernel of an in-place overload whose node is ``owner``'s."""
    @inplace.impl(DispatchKey.Autograd)
    def autograd_(op: OpOverload, keys: int, self: Tensor, *args: Any) -> Any:
        def make(old: Tensor, out: Tensor) -> Node:
            return owner.node((old, *args), out)  # type: ignore[misc]

        return call_(lambda *a: op.redispatch(keys, *a), self, args, make)


def _register_inplace_view(inplace: OpOverload, owner: OpOverload) -> None:
    """The ``Autograd`` kernel of an in-place view (``t_``): torch's in-place checks, the
    node built while ``self`` still has its old layout (``squeeze_`` saves its sizes), the
    layout changed below ``Autograd``, then the node set as ``self``'s history (its edge
    is ``self``'s old ``grad_fn``; a view stays a view of its base, no ``CopySlices``)."""
    @inplace.impl(DispatchKey.Autograd)
    def autograd_(op: OpOverload, keys: int, self: Tensor, *args: Any) -> Any:
        check_inplace(self)
        if not needs_grad(self):
            return op.redispatch(keys, self, *args)
        node = owner.node((self, *args), self)  # type: ignore[misc]
        forward(op.redispatch, keys, self, *args)
        record(node, self, view=self._base is not None)
        return self


def register(row: Derivative) -> None:
    """Give ``aten.<op>.<overload>`` (and its in-place form, when the table declares one
    and the derivatives table has no row of its own for it) their ``Autograd`` kernels
    from ``row``. A row of an in-place op (``fill_.Scalar``, ``copy_``) gives only that.
    The kernel is built on its first call (``_autograd_kernel``): it reads the schema, which
    ``import reftensor`` does not parse."""
    overload = getattr(aten[row.op], row.overload)
    overload.differentiable = row.node != "NotImplemented"
    # the node class is built on the first call that records one
    overload.lazy_node(lambda: _node_class(row, overload))
    if overload.inplace:
        (_register_inplace_view if row.inplace_view else _register_inplace)(overload,
                                                                              overload)
        return
    overload.impl_lazy(DispatchKey.Autograd, lambda: _autograd_kernel(row, overload))
    written = overload.inplace_form
    if written is None or _has_row(written.op_name, written.overload_name or "default"):
        return
    _register_inplace(written, overload)


def _autograd_kernel(row: Derivative, overload: OpOverload) -> Callable[..., Any]:
    """The ``Autograd`` kernel of a functional overload: records its node around the call."""
    positions = _positions(row, overload)
    has_lists = any(overload.schema.arguments[i].type.is_list for i in positions)
    # a view op (``-> Tensor(a)``): its result shares self's storage, and is marked as a
    # view of it; several views (``-> Tensor(a)[]``: ``split``) may not be written in place
    # while recorded, as torch refuses
    result = overload.schema.returns[0]
    view = result.alias is not None and not result.writes
    several = view and result.type.is_list

    untracked = row.non_float_result_untracked
    recorded = row.recorded_outputs
    names = [a.name for a in overload.schema.arguments]
    refused = tuple((names.index(n), n) for n in row.no_grad_arguments)

    def make(args: tuple[Any, ...], out: Any) -> Node:
        if isinstance(out, Tensor) and not out._dtype.is_floating_point and not untracked:
            # an integer result of a differentiable op (``x.sum(dtype=int64)``)
            raise RuntimeError("Autograd not support dtype: "
                               f"{SCALAR_TYPE_NAMES[out._dtype.name]}")
        return overload.node(args, out)  # type: ignore[misc]

    def autograd(op: OpOverload, keys: int, *args: Any) -> Any:
        inputs = [args[i] for i in positions]
        if has_lists:
            inputs = _flat(inputs)
        for i, name in refused:
            if isinstance(args[i], Tensor) and args[i]._requires_grad:
                raise RuntimeError(f"The function '{row.op}' is not differentiable with "
                                   f"respect to argument '{name}'. This input cannot have "
                                   "requires_grad True.")
        out = call(op.redispatch, (keys, *args), tuple(inputs), lambda out: make(args, out),
                   view=view, recorded=recorded)
        if several and needs_grad(*inputs):
            for piece in out:
                meta(piece).creation = "multi"
        return out

    return autograd


def _has_row(op: str, overload: str) -> bool:
    return (op, overload) in _ROWS


_ROWS = {(r.op, r.overload) for r in DERIVATIVES}


def _parameters(formula: Any) -> tuple[str, ...]:
    """The names a formula reads (``inspect.signature``'s parameters, read off its code
    object: ``import reftensor`` makes a hundred of these)."""
    code = formula.__code__
    return code.co_varnames[:code.co_argcount]


for _row in DERIVATIVES:
    register(_row)
