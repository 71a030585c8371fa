"""Gradients of views and indexing (chapter 2).

A view moves no data, so its backward moves no data either for the simple ones: the
gradient of ``transpose`` is the gradient transposed back, of ``expand`` it is summed
(``sum_to_size``), of ``view`` it is reshaped.

Every other view, and every advanced index, picks input elements: output element ``k``
*is* input element ``p[k]``. Apply the same op to ``arange(numel)`` and you get that index
map ``p``; the gradient of the input is then a scatter-add of the output's gradient
through ``p`` (repeated indices, as in ``x[[0, 0]]`` or overlapping ``unfold`` windows,
accumulate). ``as_strided`` does the same at the level of storage elements.

After an in-place write through a view, the base's ``grad_fn`` becomes ``CopySlices``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ... import advanced_indexing as adv
from ... import dtypes, factories, indexing, layout, views
from ..._ops import aten
from ...tensor import Tensor
from ..graph import Node, meta, needs_grad, node_class, record
from ._record import _mark_view, call, call_, forward

__all__ = [
    "view", "reshape", "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "t",
    "permute", "squeeze", "unsqueeze", "expand", "broadcast_to", "narrow", "select", "unfold",
    "diagonal", "chunk", "split", "unbind", "as_strided", "broadcast_tensors", "sum_to_size",
    "detach",
]


# ------------------------------------------------------------------ scatter-add
def _raw_scatter_add(numel: int, positions: np.ndarray, values: Tensor) -> Tensor:
    out = aten.zeros(numel, dtype=values._dtype)
    if values.numel():
        np.add.at(out._elements(), positions, values._elements().reshape(-1))
    return out


class IndexPutBackward0(Node):
    """Backward of a scatter-add into zeros: each value's gradient is read back from where
    it was added."""

    def __init__(self, values: Tensor, positions: np.ndarray) -> None:
        super().__init__(values)
        self.positions = positions
        self.shape = values._shape

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return (gather(g, self.positions).reshape(self.shape),)


class IndexBackward0(Node):
    """Backward of picking elements: scatter-add the gradient back to their positions."""

    def __init__(self, input: Tensor, positions: np.ndarray) -> None:
        super().__init__(input)
        self.positions = positions
        self.input_shape = input._shape

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        return (scatter_add(g, self.positions, self.input_shape),)


def scatter_add(values: Tensor, positions: np.ndarray, shape: tuple[int, ...]) -> Tensor:
    """A tensor of ``shape``, zero except ``out.flatten()[positions[k]] += values.flatten()[k]``
    (recorded, so its own gradient is a gather)."""
    numel = int(np.prod(shape, dtype=np.int64))
    flat = positions.reshape(-1)

    def kernel(v: Tensor) -> Tensor:
        return views.view(_raw_scatter_add(numel, flat, v), shape)

    return call(kernel, (values,), (values,), lambda out: IndexPutBackward0(values, flat))


def gather(values: Tensor, positions: np.ndarray) -> Tensor:
    """``values.flatten()[positions]`` (recorded: its gradient is a scatter-add)."""
    flat = positions.reshape(-1)

    def kernel(v: Tensor) -> Tensor:
        data = v.contiguous()._elements().reshape(-1)[flat] if v.numel() else \
            np.zeros(0, v._dtype.numpy)
        return factories._from_array(np.ascontiguousarray(data), v._dtype)

    return call(kernel, (values,), (values,), lambda out: IndexBackward0(values, flat))


# ------------------------------------------------------------------ nodes
class _Picks(Node):
    """A view or index whose output elements are input elements (``index_map``)."""

    def __init__(self, input: Tensor, pick: Callable[[Tensor], Any], outputs: int = 1) -> None:
        super().__init__(input)
        self.pick = pick
        self.input_shape = input._shape
        self._outputs = outputs

    def apply(self, grads: Any) -> tuple[Any, ...]:
        maps: Any = index_map(self.input_shape, self.pick)
        if not isinstance(maps, list):  # one output (split into one piece is still a list)
            return (scatter_add(grads[0], maps, self.input_shape),)
        pieces = [(g, p) for g, p in zip(grads, maps, strict=True) if g is not None]
        values = aten.cat([g.reshape(-1) for g, _ in pieces])
        positions = np.concatenate([np.asarray(p).reshape(-1) for _, p in pieces])
        return (scatter_add(values, positions, self.input_shape),)


def index_map(shape: tuple[int, ...], pick: Callable[[Tensor], Any]) -> Any:
    """For each element of ``pick(x)`` (x of ``shape``), the row-major position of the
    element of x it is: ``pick`` applied to ``arange(numel)`` of that shape. A list of maps
    when ``pick`` returns several tensors."""
    arange = views.view(aten.arange(int(np.prod(shape, dtype=np.int64)), dtype=dtypes.int64),
                        shape)
    picked = pick(arange)
    if isinstance(picked, tuple):
        return [np.asarray(p._elements()) for p in picked]
    return np.asarray(picked._elements())


def _picks_node(name: str) -> Any:
    return node_class(name, _Picks, __name__)


SelectBackward0 = _picks_node("SelectBackward0")
SliceBackward0 = _picks_node("SliceBackward0")
AliasBackward0 = _picks_node("AliasBackward0")
UnfoldBackward0 = _picks_node("UnfoldBackward0")
DiagonalBackward0 = _picks_node("DiagonalBackward0")
SplitBackward0 = _picks_node("SplitBackward0")
SplitWithSizesBackward0 = _picks_node("SplitWithSizesBackward0")
UnbindBackward0 = _picks_node("UnbindBackward0")
IndexBackward0Picks = _picks_node("IndexBackward0")


class _Shape(Node):
    """A view that keeps every element once: the gradient is ``undo(g)``."""

    def __init__(self, input: Tensor, undo: Callable[[Tensor], Tensor]) -> None:
        super().__init__(input)
        self.undo = undo

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (self.undo(grads[0]),)


def _shape_node(name: str) -> Any:
    return node_class(name, _Shape, __name__)


ViewBackward0 = _shape_node("ViewBackward0")
UnsafeViewBackward0 = _shape_node("UnsafeViewBackward0")
ReshapeAliasBackward0 = _shape_node("ReshapeAliasBackward0")
TransposeBackward0 = _shape_node("TransposeBackward0")
TBackward0 = _shape_node("TBackward0")
PermuteBackward0 = _shape_node("PermuteBackward0")
SqueezeBackward0 = _shape_node("SqueezeBackward0")
SqueezeBackward1 = _shape_node("SqueezeBackward1")
SqueezeBackward2 = _shape_node("SqueezeBackward2")
SqueezeBackward4 = _shape_node("SqueezeBackward4")
UnsqueezeBackward0 = _shape_node("UnsqueezeBackward0")
ExpandBackward0 = _shape_node("ExpandBackward0")


class AsStridedBackward0(Node):
    """``as_strided``: scatter-add the gradient onto the storage elements the output reads,
    then read the input's elements back (divided by how often the input itself reads each
    one, when it overlaps)."""

    def __init__(self, input: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                 offset: int) -> None:
        super().__init__(input)
        self.input_geometry = (input._shape, input._stride, input._storage_offset)
        self.output_geometry = (tuple(size), tuple(stride), offset)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        in_pos = _storage_positions(*self.input_geometry)
        out_pos = _storage_positions(*self.output_geometry)
        extent = int(max(in_pos.max(initial=0), out_pos.max(initial=0))) + 1
        per_element = scatter_add(g, out_pos, (extent,))
        grad_input = gather(per_element, in_pos).reshape(self.input_geometry[0])
        counts = np.bincount(in_pos.reshape(-1), minlength=extent)
        if counts.max(initial=0) > 1:  # the input overlaps itself
            share = factories.tensor(counts[in_pos], dtype=g._dtype)
            grad_input = grad_input / share
        return (grad_input,)


def _storage_positions(shape: tuple[int, ...], stride: tuple[int, ...],
                       offset: int) -> np.ndarray:
    position = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, stride, strict=True)):
        position += (np.arange(n) * s).reshape([-1 if k == d else 1 for k in range(len(shape))])
    return position


class CopySlices(Node):
    """The base's node after an in-place op on a view of it (torch's ``CopySlices``).

    Backward: the gradient of the view's elements goes through ``fn`` (the in-place op's own
    node); the base's other elements keep the incoming gradient.
    """

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__(base)
        self.next_functions = (self.next_functions[0], *fn.next_functions[1:])
        self._input_info = [self._input_info[0], *fn._input_info[1:]]
        self.fn = fn
        # the view's elements, as row-major positions within the base
        base_pos = _storage_positions(base._shape, base._stride, base._storage_offset)
        extent = int(max(base_pos.max(initial=0),
                         _storage_positions(view._shape, view._stride,
                                            view._storage_offset).max(initial=0))) + 1
        where = np.full(extent, -1, dtype=np.int64)
        where[base_pos.reshape(-1)] = np.arange(base_pos.size)
        self.positions = where[_storage_positions(view._shape, view._stride,
                                                  view._storage_offset)]
        self.base_shape = base._shape

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        from .elementwise import where

        grad_slice = gather(g, self.positions).reshape(self.positions.shape)
        res = list(self.fn.apply([grad_slice]))
        inside = np.zeros(int(np.prod(self.base_shape, dtype=np.int64)), dtype=bool)
        inside[self.positions.reshape(-1)] = True
        mask = factories.tensor(inside.reshape(self.base_shape))
        new = res[0] if res[0] is not None else grad_slice * 0
        return (where(mask, scatter_add(new, self.positions, self.base_shape), g), *res[1:])


# ------------------------------------------------------------------ the views
def _picks(cls: type[_Picks], kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A view op whose backward is a scatter-add through its index map."""
    def op(input: Tensor, *args: Any) -> Any:
        return call(kernel, (input, *args), (input,),
                    lambda out: cls(input, lambda a: kernel(a, *args)), view=True)

    op.__name__ = kernel.__name__
    op.__doc__ = kernel.__doc__
    return op


def view(input: Tensor, *shape: Any) -> Tensor:
    return call(views.view, (input, *shape), (input,),
                lambda out: ViewBackward0(input, lambda g: g.reshape(input._shape)), view=True)


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """A view when the strides allow it (``ViewBackward0``), else a contiguous clone viewed
    (``UnsafeViewBackward0`` of ``CloneBackward0``), as torch's ``reshape``."""
    if not needs_grad(input):
        return views.reshape(input, *shape)
    out = forward(views.reshape, input, *shape)
    if out is input:
        return out
    if out._base is not None:
        if input.is_contiguous():
            return view(input, out._shape)
        return call(views.reshape, (input, out._shape), (input,), lambda o: ReshapeAliasBackward0(
            input, lambda g: g.reshape(input._shape)), view=True)
    copy = input.clone(memory_format=layout.contiguous_format)
    result = forward(views.view, copy, out._shape)
    result._base = None  # ``_unsafe_view``: a fresh tensor, not a view
    record(UnsafeViewBackward0(copy, lambda g: g.reshape(copy._shape)), result)
    return result


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    out = views.flatten(input, start_dim, end_dim) if not needs_grad(input) else \
        forward(views.flatten, input, start_dim, end_dim)
    if out is input or not needs_grad(input):
        return out
    return reshape(input, out._shape)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    out = forward(views.unflatten, input, dim, sizes)
    return view(input, out._shape)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return call(views.transpose, (input, dim0, dim1), (input,),
                lambda out: TransposeBackward0(input, lambda g: g.transpose(dim0, dim1)),
                view=True)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    return call(views.t, (input,), (input,), lambda out: TBackward0(input, lambda g: g.t()),
                view=True)


def T(input: Tensor) -> Tensor:
    out = views.T(input)  # validates (and warns) like torch
    if out is input or not needs_grad(input):
        return out
    return permute(input, tuple(range(input.dim() - 1, -1, -1)))


def mT(input: Tensor) -> Tensor:
    out = views.mT(input)
    if out is input or not needs_grad(input):
        return out
    return transpose(input, -2, -1)


def permute(input: Tensor, *dims: Any) -> Tensor:
    def make(out: Tensor) -> Node:
        order = views._sizes(dims, "dims") if dims else []
        wrapped = [d % max(input.dim(), 1) for d in order]
        inverse = [wrapped.index(k) for k in range(len(wrapped))]
        return PermuteBackward0(input, lambda g: g.permute(inverse))

    return call(views.permute, (input, *dims), (input,), make, view=True)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    cls = SqueezeBackward0 if dim is None else (
        SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2)
    return call(views.squeeze, (input, dim), (input,),
                lambda out: cls(input, lambda g: g.reshape(input._shape)), view=True)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return call(views.unsqueeze, (input, dim), (input,),
                lambda out: UnsqueezeBackward0(input, lambda g: g.reshape(input._shape)),
                view=True)


def expand(input: Tensor, *sizes: Any) -> Tensor:
    return call(views.expand, (input, *sizes), (input,),
                lambda out: ExpandBackward0(input, lambda g: g.sum_to_size(input._shape)),
                view=True)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, tuple(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """``torch.broadcast_tensors``: each result is an ``expand`` of its input (or the input
    itself when it already has the common shape)."""
    from ... import broadcasting

    shapes = [x._shape for x in forward(broadcasting.broadcast_tensors, *tensors)]
    return tuple(x if x._shape == s else expand(x, s)
                 for x, s in zip(tensors, shapes, strict=True))


narrow = _picks(SliceBackward0, views.narrow)
select = _picks(SelectBackward0, views.select)
unfold = _picks(UnfoldBackward0, views.unfold)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return call(views.diagonal, (input, offset, dim1, dim2), (input,),
                lambda out: DiagonalBackward0(
                    input, lambda a: views.diagonal(a, offset, dim1, dim2)), view=True)


def _multi(cls: type[_Picks], kernel: Callable[..., tuple[Tensor, ...]],
           input: Tensor, *args: Any) -> tuple[Tensor, ...]:
    """split, chunk, unbind: one node with one output per piece; the pieces may not be
    modified in place while recorded (torch's rule for multi-output views)."""
    if not needs_grad(input):
        return kernel(input, *args)
    pieces = forward(kernel, input, *args)
    node = cls(input, lambda a: kernel(a, *args), outputs=len(pieces))
    record(node, pieces, view=True)
    for p in pieces:
        meta(p).creation = "multi"
    return pieces


def split(input: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    cls = SplitBackward0 if isinstance(split_size, int) else SplitWithSizesBackward0
    return _multi(cls, views.split, input, split_size, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    # torch: split_with_sizes for an empty dim (bad arguments: the kernel raises torch's error)
    empty = -input.dim() <= dim < input.dim() and input.shape[dim] == 0
    return _multi(SplitWithSizesBackward0 if empty else SplitBackward0, views.chunk, input,
                  chunks, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return _multi(UnbindBackward0, views.unbind, input, dim)


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int],
               storage_offset: int | None = None) -> Tensor:
    """``torch.as_strided``, with ``AsStridedBackward0``."""
    return call(factories.as_strided, (input, size, stride, storage_offset), (input,),
                lambda out: AsStridedBackward0(input, out._shape, out._stride,
                                               out._storage_offset), view=True)


# ------------------------------------------------------------------ indexing
class _IndexSteps(indexing.Steps):
    """The steps of ``t[index]``, each recorded: select, slice, unsqueeze, alias, index."""

    def select(self, t: Tensor, dim: int, i: int, real_dim: int, *, alone: bool = False
               ) -> Tensor:
        kernel = indexing._select
        return call(kernel, (t, dim, i, real_dim), (t,), lambda out: SelectBackward0(
            t, lambda a: kernel(a, dim, i, real_dim)), view=True, alone=alone)

    def slice(self, t: Tensor, dim: int, start: Any, stop: Any, step: int, *,
              skip_full: bool = True) -> Tensor:
        kernel = indexing._slice
        return call(kernel, (t, dim, start, stop, step), (t,), lambda out: SliceBackward0(
            t, lambda a: kernel(a, dim, start, stop, step, skip_full=False)), view=True,
            skip_full=skip_full)

    def unsqueeze(self, t: Tensor, dim: int) -> Tensor:
        return call(indexing._unsqueeze, (t, dim), (t,), lambda out: UnsqueezeBackward0(
            t, lambda g: g.reshape(t._shape)), view=True)

    def alias(self, t: Tensor) -> Tensor:
        return call(indexing._alias, (t,), (t,),
                    lambda out: AliasBackward0(t, indexing._alias), view=True)

    def index(self, t: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
        return call(adv.index, (t, indices), (t,),
                    lambda out: IndexBackward0Picks(t, lambda a: adv.index(a, indices)))


STEPS = _IndexSteps()


def getitem(t: Tensor, index: Any) -> Tensor:
    """``t[index]``: each basic index is a recorded view, an advanced one ``IndexBackward0``."""
    if not needs_grad(t):
        out = indexing.getitem(t, index)
        if out._base is not None:
            _mark_view(out, t)
        return out
    return indexing.getitem(t, index, STEPS)


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """``t[index] = value``: an in-place ``copy_`` into a view (``CopySlices`` on ``t``), or
    ``index_put_``."""
    from ._record import _check_inplace

    _check_inplace(t)  # a write into t: torch's rules for a leaf (or a view of one)
    indexing.setitem(t, index, value, _SetSteps())


class _SetSteps(indexing.Steps):
    """``t[index] = value`` writes with ``copy_`` and ``index_put_``, both recorded."""

    def index_put_(self, t: Tensor, indices: Sequence[Tensor | None], value: Tensor) -> Tensor:
        return index_put_(t, indices, value)

    def drop_leading_ones(self, value: Tensor) -> Tensor:
        dropped = indexing._drop_leading_ones(value)
        return dropped if dropped is value else view(value, dropped._shape)


class IndexPutBackward(Node):
    """``self[indices] = values``: self's gradient is zero where written; the values' is
    the gradient read at those positions (summed to the values' shape)."""

    def __init__(self, input: Tensor, values: Tensor, indices: Sequence[Tensor | None]
                 ) -> None:
        super().__init__(input, values)
        self.input_shape = input._shape
        self.indices = list(indices)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        from .elementwise import where

        (g,) = grads
        positions = index_map(self.input_shape, lambda a: adv.index(a, self.indices))
        written = np.zeros(int(np.prod(self.input_shape, dtype=np.int64)), dtype=bool)
        written[positions.reshape(-1)] = True
        mask = factories.tensor(written.reshape(self.input_shape))
        grad_values = gather(g, positions).reshape(positions.shape)
        return where(mask, g * 0, g), grad_values


IndexPutBackward.__name__ = IndexPutBackward.__qualname__ = "IndexPutBackward0"


def index_put_(t: Tensor, indices: Sequence[Tensor | None], value: Tensor) -> Tensor:
    return call_(adv.index_put_, t, (indices, value),
                 lambda old, out: IndexPutBackward(old, value, indices))


def detach(input: Tensor) -> Tensor:
    """``Tensor.detach``: the same data, out of the graph (chapter 2's ``views.detach``);
    detaching an inference tensor gives an inference tensor, as in torch."""
    out = views.detach(input)
    if input.is_inference():
        meta(out).inference = True
    return out


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """``Tensor.sum_to_size``: ``sum(dims, keepdim=True)`` over the broadcast dims
    (``SumBackward1``), then a view dropping the leading ones; ``input`` itself when the
    shape already matches."""
    from ... import broadcasting

    out = forward(broadcasting.sum_to_size, input, *size)
    if out is input or not needs_grad(input):
        return out
    shape = out._shape
    lead = input.dim() - len(shape)
    dims = [*range(lead), *(lead + k for k, n in enumerate(shape)
                            if n == 1 and input._shape[lead + k] != 1)]
    summed = input.sum(tuple(dims), keepdim=True)
    return view(summed, shape) if lead else summed
