"""The scatter-add that view gradients share, and ``CopySlices``.

The view and indexing ops themselves (``view``, ``select``, ``slice``, ``index``,
``index_put_``, ...) are the op table's: their gradients are rows of
``autograd/derivatives.py``. What stays here are the helpers those rows use.

A view picks input elements: output element ``k`` *is* input element ``p[k]``. Apply the
same op to ``arange(numel)`` and you get that index map ``p``; the gradient of the input is
then a scatter-add of the output's gradient through ``p`` (overlapping ``unfold`` windows
accumulate). ``as_strided`` does the same at the level of storage elements.

After an in-place write through a view, the base's ``grad_fn`` becomes ``CopySlices``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes, factories
from ..._ops import aten
from ..._ops.torch_dispatch import python_tensor
from ...tensor import Tensor
from ..graph import Node, node_class
from ._record import call

__all__: list[str] = []


# ------------------------------------------------------------------ scatter-add
def _raw_scatter_add(numel: int, positions: np.ndarray, values: Tensor) -> Tensor:
    """``numel`` zeros, ``values`` added at ``positions`` (one per value, row-major): with
    aten ops (``zeros``, ``index_put_`` accumulating), so that a dispatch mode sees the
    whole scatter and make_fx's graph computes it."""
    out = aten.zeros(numel, dtype=values._dtype)
    if values.numel():
        index = factories._from_array(positions.reshape(values._shape), dtypes.int64)
        if python_tensor(values):  # out of place: the result is what its class makes
            return aten.index_put.default.call(out, (index,), values, True)
        aten.index_put_.default.call(out, (index,), values, True)
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
        return aten.view.default.call(_raw_scatter_add(numel, flat, v), shape)

    return call(kernel, (values,), (values,), lambda out: IndexPutBackward0(values, flat))


def gather(values: Tensor, positions: np.ndarray) -> Tensor:
    """``values.flatten()[positions]`` (recorded: its gradient is a scatter-add), with aten
    ops (``reshape``, ``index``), so that a dispatch mode sees it and make_fx's graph
    computes it."""
    flat = positions.reshape(-1)

    def kernel(v: Tensor) -> Tensor:
        index = factories._from_array(flat, dtypes.int64)
        return aten.index.Tensor.call(aten.reshape.default.call(v, (-1,)), [index])

    return call(kernel, (values,), (values,), lambda out: IndexBackward0(values, flat))


# ------------------------------------------------------------------ nodes
def picked_backward(grad: Tensor, input_shape: tuple[int, ...],
                    pick: Callable[[Tensor], Tensor]) -> Tensor:
    """The gradient of ``pick(input)`` for an input of ``input_shape``: ``grad``
    scatter-added through the index map (``select``, ``slice``, ``unfold``, ``diagonal``)."""
    return scatter_add(grad, index_map(input_shape, pick), input_shape)


def index_map(shape: tuple[int, ...], pick: Callable[[Tensor], Any]) -> Any:
    """For each element of ``pick(x)`` (x of ``shape``), the row-major position of the
    element of x it is: ``pick`` applied to ``arange(numel)`` of that shape. A list of maps
    when ``pick`` returns several tensors."""
    arange = aten.view.default.call(
        aten.arange(int(np.prod(shape, dtype=np.int64)), dtype=dtypes.int64), shape)
    picked = pick(arange)
    if isinstance(picked, tuple):
        return [np.asarray(p._elements()) for p in picked]
    return np.asarray(picked._elements())


class _Shape(Node):
    """A view that keeps every element once: the gradient is ``undo(g)``."""

    def __init__(self, input: Tensor, undo: Callable[[Tensor], Tensor]) -> None:
        super().__init__(input)
        self.undo = undo

    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (self.undo(grads[0]),)


def _shape_node(name: str) -> Any:
    return node_class(name, _Shape, __name__)


SqueezeBackward4 = _shape_node("SqueezeBackward4")  # matmul's in-place squeeze_(0)


def as_strided_backward(g: Tensor, input_geometry: tuple[Any, ...],
                        output_geometry: tuple[Any, ...]) -> Tensor:
    """The gradient of a view with any layout (``as_strided``, or a view regenerated after
    an in-place write): scatter-add ``g`` onto the storage elements the output reads, then
    read the input's elements back (divided by how often the input itself reads each one,
    when it overlaps). A geometry is ``(sizes, strides, storage offset)``."""
    in_pos = storage_positions(*input_geometry)
    out_pos = storage_positions(*output_geometry)
    extent = int(max(in_pos.max(initial=0), out_pos.max(initial=0))) + 1
    per_element = scatter_add(g, out_pos, (extent,))
    grad_input = gather(per_element, in_pos).reshape(input_geometry[0])
    counts = np.bincount(in_pos.reshape(-1), minlength=extent)
    if counts.max(initial=0) > 1:  # the input overlaps itself
        share = factories.unlifted_tensor(counts[in_pos], dtype=g._dtype)
        grad_input = grad_input / share
    return grad_input


def storage_positions(shape: tuple[int, ...], stride: tuple[int, ...],
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
        base_pos = storage_positions(base._shape, base._stride, base._storage_offset)
        extent = int(max(base_pos.max(initial=0),
                         storage_positions(view._shape, view._stride,
                                            view._storage_offset).max(initial=0))) + 1
        where = np.full(extent, -1, dtype=np.int64)
        where[base_pos.reshape(-1)] = np.arange(base_pos.size)
        self.positions = where[storage_positions(view._shape, view._stride,
                                                  view._storage_offset)]
        self.base_shape = base._shape

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # torch's C++ name for this node

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (g,) = grads
        grad_slice = gather(g, self.positions).reshape(self.positions.shape)
        res = list(self.fn.apply([grad_slice]))
        inside = np.zeros(int(np.prod(self.base_shape, dtype=np.int64)), dtype=bool)
        inside[self.positions.reshape(-1)] = True
        mask = factories.unlifted_tensor(inside.reshape(self.base_shape))
        new = res[0] if res[0] is not None else grad_slice * 0
        return (scatter_add(new, self.positions, self.base_shape).where(mask, g), *res[1:])
