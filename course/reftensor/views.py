"""Views: new (shape, stride, offset) over the same storage, never a copy.

Every function here builds its result with ``Tensor._make(..., base=t)``, so the result
shares ``t``'s storage and version counter, and ``_base`` points at the tensor that owns the
memory (the base of a view of a view is the original). Only the metadata arithmetic differs:

* ``view``/``reshape`` re-split groups of dims that are contiguous with each other;
* ``transpose``/``permute`` reorder (size, stride) pairs;
* ``unsqueeze`` inserts a size-1 dim (``expand``, stride 0, is chapter 3's:
  ``broadcasting``);
* ``narrow``/``select``/``unfold``/``diagonal``/``split`` move the offset and scale strides.

``reshape`` is the one function here that may copy: when ``view`` is impossible it returns a
contiguous copy, exactly when torch does.

These are the CPU and Meta kernels of the op table's view ops (``reftensor/_ops/``): they take
the schema's arguments, already parsed (``t.view(2, 3)`` arrives as ``view(t, (2, 3))``), and
compute only metadata, so one function serves both keys. The ops that torch writes with other
ops (``reshape``, ``flatten``, ``narrow``, ``chunk``, ...) are ``CompositeImplicitAutograd``
kernels here too: the ops they call dispatch, and record, themselves.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from . import factories, layout
from ._ops import DispatchKey, OpOverload, aten
from ._ops.torch_dispatch import subclass_like
from .promotion import SCALAR_TYPE_NAMES
from .tensor import Tensor, wrap_dim

# The ops are the op table's (reftensor/_bindings.py); ``split`` is also a Python function
# in torch (``torch/functional.py``), which hands the call to ``Tensor.split``.
__all__ = ["split", "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid"]


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """torch's ``TORCH_WARN_ONCE``: a warning shown the first time only, per process."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=5)  # (user, Tensor.T, call, T)


def _view(t: Tensor, shape: Sequence[int], stride: Sequence[int],
          offset: int | None = None) -> Tensor:
    """A view of ``t`` with the given layout (offset defaults to t's)."""
    where = t._storage_offset if offset is None else offset
    return Tensor._make(t._storage, tuple(shape), tuple(stride), where, t._dtype, base=t)


def _wrap(dim: Any, ndim: int) -> int:
    """``wrap_dim`` where a 0-d tensor accepts dim 0 and -1 (torch's ``wrap_scalar``)."""
    return wrap_dim(_int("dim", dim), max(ndim, 1))


def _int(name: str, value: Any) -> int:
    """An int argument as torch's argument parser reads it: a Python int or a 0-d integer
    tensor; never a bool or a float (TypeError)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, Tensor) and value.dim() == 0 and not value.is_floating_point():
        return int(value.item())
    raise TypeError(f"{name} must be int, not {type(value).__name__}")


def _sizes(args: tuple[Any, ...], what: str = "size") -> list[int]:
    """``f(2, 3)`` or ``f((2, 3))``: torch accepts both.

    Raises:
        TypeError: no sizes, or a size that is not an int (or 0-d integer tensor).
    """
    if not args:
        raise TypeError(f"{what} is missing: pass ints or one sequence of ints")
    if len(args) == 1 and isinstance(args[0], Sequence):
        args = tuple(args[0])
    try:
        return [_int(what, a) for a in args]
    except TypeError:
        raise TypeError(f"{what} must be tuple of ints, but found an element of another "
                        "type") from None


def _kernel(*overloads: OpOverload) -> Any:
    """Register the decorated function as the CPU and the Meta kernel of ``overloads``: a
    view computes metadata only, the same on both devices."""
    def register(kernel: Any) -> Any:
        for overload in overloads:
            overload.impl(DispatchKey.CPU)(kernel)
            overload.impl(DispatchKey.Meta)(kernel)
        return kernel

    return register


def _composite(overload: OpOverload) -> Any:
    """Register the decorated function as ``overload``'s CompositeImplicitAutograd kernel."""
    return overload.impl(DispatchKey.CompositeImplicitAutograd)


# ---------------------------------------------------------------------- view and reshape
def view_strides(shape: Sequence[int], stride: Sequence[int],
                 new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """The strides of ``t.view(new_shape)`` (``torch.Tensor.view``; ATen's ``computeStride``)
    for a tensor ``t`` of this layout, or None where torch refuses that view ("view size is
    not compatible with input tensor's size and stride ... Use .reshape(...) instead").

    Args:
        shape, stride: ``t``'s sizes and strides (in elements).
        new_shape: sizes >= 0 with as many elements as ``shape``, without ``-1`` (the
            caller, ``view``, has filled it in with :func:`infer_size`).

    Returns:
        A tuple of ``len(new_shape)`` ints, or None. A 0-d ``t`` gives stride 1 in every
        dim; a ``t`` with no elements keeps its strides when the shape does not change and
        otherwise gets :func:`layout.contiguous_strides`.
    """
    # BEGIN PIECE view_strides
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("view_strides")(shape, stride, new_shape)
    # END PIECE


def infer_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """The shape that ``t.view(shape)`` (``torch.Tensor.view``; ATen's ``infer_size_dv``,
    ``torch._prims_common.infer_size``) settles for a tensor ``t`` of ``numel`` elements:
    ``shape`` with its ``-1``, if it has one, filled in.

    Args:
        shape: the sizes asked for, a sequence of ints.
        numel: ``t``'s number of elements, an int >= 0.

    Returns:
        A tuple of ``len(shape)`` ints >= 0 whose product is ``numel``.

    Raises:
        RuntimeError: two ``-1``; a size below -1; sizes whose product cannot be ``numel``;
            a ``-1`` beside a size 0 (any size would fit there: ambiguous, also when
            ``numel`` is 0).
    """
    # BEGIN PIECE infer_size
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("infer_size")(shape, numel)
    # END PIECE


@_kernel(aten.view.default)
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    """The same elements with another shape, as a view (``torch.Tensor.view``).

    Raises:
        RuntimeError: the shape does not hold ``numel()`` elements, or the strides cannot
            express it ("use .reshape(...) instead").
    """
    new_shape = infer_size(size, self.numel())
    stride = view_strides(self._shape, self._stride, new_shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view(self, new_shape, stride)


@_kernel(aten.view.dtype)
def view_dtype(self: Tensor, dtype: Any) -> Tensor:
    """The same bytes read as ``dtype`` (``Tensor.view(dtype)``), laid out by
    :func:`view_dtype_layout`: with another element size the last dim (contiguous) takes
    more or fewer elements, the other strides and the offset scaled. Shares storage and
    version counter, but has no ``_base`` (torch makes it a view autograd does not see).

    Raises:
        RuntimeError: where :func:`view_dtype_layout` does.
    """
    shape, stride, offset = view_dtype_layout(
        self._shape, self._stride, self._storage_offset, self._dtype.itemsize, dtype.itemsize,
        SCALAR_TYPE_NAMES[self._dtype.name], SCALAR_TYPE_NAMES[dtype.name])
    out = Tensor._make(self._storage, tuple(shape), tuple(stride), offset, dtype, base=self)
    out._base = None  # shares the version counter, but is no view autograd tracks
    return out


def view_dtype_layout(shape: Sequence[int], stride: Sequence[int], offset: int,
                      itemsize: int, new_itemsize: int, name: str, new_name: str
                      ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The ``(shape, stride, storage_offset)`` of ``x.view(new_dtype)`` (``torch.Tensor.view``
    with a dtype: ATen's ``view_dtype``) for a tensor ``x`` of this layout: the same bytes
    read as elements of another size.

    Args:
        shape, stride, offset: ``x``'s sizes, strides and storage offset, in elements of
            ``x``'s dtype.
        itemsize, new_itemsize: the element sizes in bytes of ``x``'s dtype and of the new
            one, each 1, 2, 4 or 8 (``dtype.itemsize``).
        name, new_name: the two dtypes as torch's messages name them (its ``ScalarType``
            names: ``"Float"``, ``"Short"``, ``"Bool"``, ...).

    Returns:
        ``(shape, stride, storage_offset)``, in elements of the new dtype.

    Raises:
        RuntimeError: with torch's message, where the element sizes differ and ``x`` is 0-d,
            or its last stride is not 1, or the ratio of the sizes does not divide (when the
            new elements are larger) its last size, its storage offset or one of its other
            strides.
    """
    # BEGIN PIECE view_dtype_layout
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("view_dtype_layout")(shape, stride, offset, itemsize, new_itemsize, name, new_name)
    # END PIECE


@_kernel(aten._reshape_alias.default)
def _reshape_alias(self: Tensor, size: Sequence[int], stride: Sequence[int]) -> Tensor:
    """``reshape``'s view of a tensor that is not contiguous: the layout ``view`` would
    give, computed by the caller (torch's ``_reshape_alias``, no checks)."""
    return _view(self, size, stride)


@_kernel(aten._unsafe_view.default)
def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    """``view`` whose result is no view (no ``_base``): ``reshape``'s fresh copy seen with
    the new shape (torch's ``_unsafe_view``). It keeps ``self``'s version counter."""
    out = view(self, size)
    result = Tensor._make(out._storage, out._shape, out._stride, out._storage_offset,
                          out._dtype)
    result._version_counter = self._version_counter
    return result


@_composite(aten.view_as.default)
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.view.default.call(self, other._shape)


@_composite(aten.reshape.default)
def reshape(self: Tensor, shape: Sequence[int]) -> Tensor:
    """A view when the strides allow it (``view`` of a contiguous tensor, else
    ``_reshape_alias``), else a contiguous ``clone`` seen with the new shape
    (``_unsafe_view``, no ``_base``), as torch's ``reshape``. Raises RuntimeError like
    ``view`` for an impossible shape."""
    new_shape = infer_size(shape, self.numel())
    stride = view_strides(self._shape, self._stride, new_shape)
    if stride is not None:
        # under a dispatch mode torch counts every tensor as "subclass-like"
        # (``isTensorSubclassLike``, as an instance of a class with ``__torch_dispatch__``)
        # and calls ``view`` of the shape as given (``-1`` included), which a mode sees
        if subclass_like(self):
            return aten.view.default.call(self, tuple(shape))
        if self.is_contiguous():
            return aten.view.default.call(self, new_shape)
        return aten._reshape_alias.default.call(self, new_shape, stride)
    copy = aten.clone.default.call(self, layout.contiguous_format)
    return aten._unsafe_view.default.call(copy, new_shape)


@_composite(aten.reshape_as.default)
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other._shape)


@_composite(aten.flatten.using_ints)
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); ``self`` itself when
    they are one dim already, a 1-element tensor for a 0-d input; a view when possible.

    Raises:
        IndexError: a dim out of range. RuntimeError: ``start_dim`` after ``end_dim``.
    """
    start, end = _wrap(start_dim, self.dim()), _wrap(end_dim, self.dim())
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if self.dim() == 0:
        return reshape(self, (1,))
    if start == end:
        return self
    merged = math.prod(self._shape[start:end + 1])
    return reshape(self, (*self._shape[:start], merged, *self._shape[end + 1:]))


@_composite(aten.unflatten.int)
def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one may be -1), as a view (``torch.unflatten``).

    Raises:
        RuntimeError: empty ``sizes`` or sizes that do not multiply to the dim's size.
    """
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap(dim, self.dim())
    if self.dim() == 0:  # torch reports its IndexError wrapped in a RuntimeError here
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 "
                           "but tensor has no dimensions")
    inner = infer_size(list(sizes), self._shape[d])
    return aten.view.default.call(self, (*self._shape[:d], *inner, *self._shape[d + 1:]))


# ---------------------------------------------------------------------- reordering dims
@_kernel(aten.transpose.int)
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims' (size, stride) pairs (``torch.transpose``). Raises IndexError for a
    dim out of range."""
    a, b = _wrap(dim0, self.dim()), _wrap(dim1, self.dim())
    shape, stride = list(self._shape), list(self._stride)
    if self.dim():
        shape[a], shape[b] = shape[b], shape[a]
        stride[a], stride[b] = stride[b], stride[a]
    return _view(self, shape, stride)


@_composite(aten.swapaxes.default)
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return aten.transpose.int.call(self, axis0, axis1)


@_composite(aten.swapdims.default)
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return aten.transpose.int.call(self, dim0, dim1)


@_kernel(aten.t.default)
def t(self: Tensor) -> Tensor:
    """Transpose a matrix; 0-d and 1-d tensors come back as views of themselves
    (``torch.t``). Raises RuntimeError for more than 2 dims."""
    if self.dim() > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return transpose(self, 0, 0 if self.dim() < 2 else 1)


@aten.numpy_T.default.impl(DispatchKey.CompositeImplicitAutograd)
def T(input: Tensor) -> Tensor:
    """All dims reversed (``Tensor.T``, torch's ``numpy_T``): ``permute``; torch warns, once
    per process, unless the tensor is 2-d."""
    if input.dim() == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
    elif input.dim() != 2:
        _warn_once(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.")
    return aten.permute.default.call(input, tuple(range(input.dim() - 1, -1, -1)))


@aten.mT.default.impl(DispatchKey.CompositeImplicitAutograd)
def mT(input: Tensor) -> Tensor:
    """Swap the last two dims (``Tensor.mT``): ``transpose(-2, -1)``; a 0-d tensor comes
    back as itself, with a deprecation warning. Raises RuntimeError for a 1-d tensor."""
    if input.dim() == 0:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
        return input
    if input.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {input.dim()}-D tensor.")
    return aten.transpose.int.call(input, -2, -1)


@_kernel(aten.permute.default)
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    """Reorder all dims: result dim ``i`` is input dim ``dims[i]`` (``torch.permute``).

    Raises:
        RuntimeError: ``dims`` has the wrong length or repeats a dim.
        IndexError: a dim out of range.
    """
    if len(dims) != self.dim():
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match "
            "the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{self.dim()} is not equal to len(dims) = {len(dims)}")
    shape, stride = permute_layout(self._shape, self._stride, [_int("dim", d) for d in dims])
    return _view(self, shape, stride)


def permute_layout(shape: Sequence[int], stride: Sequence[int],
                   dims: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(shape, stride)`` of ``t.permute(dims)`` (``torch.Tensor.permute``) for a tensor
    ``t`` of this layout.

    Args:
        shape, stride: ``t``'s sizes and strides.
        dims: a sequence of ints, one per dim of ``t``: result dim ``i`` is dim ``dims[i]``
            of ``t``; a negative entry counts from the end.

    Returns:
        ``(shape, stride)``: two tuples of ``len(shape)`` ints.

    Raises:
        RuntimeError: ``len(dims)`` is not the number of dims (checked first), or two
            entries name the same dim.
        IndexError: an entry outside ``[-len(shape), len(shape))``.
    """
    # BEGIN PIECE permute_layout
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("permute_layout")(shape, stride, dims)
    # END PIECE


def _movedim_order(ndim: int, source: Sequence[int], destination: Sequence[int]
                   ) -> list[int] | None:
    """``movedim``'s permutation (None for a 0-d tensor), after torch's checks.

    Raises:
        RuntimeError: lists of different lengths, a dim repeated in either. IndexError: a
            dim out of range.
    """
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(source)} dims) should contain the same number of dims as "
                           f"destination ({list(destination)} dims)")
    src = [_wrap(d, ndim) for d in source]
    dst = [_wrap(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return None
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    return [next(rest) if o is None else o for o in order]


@_composite(aten.movedim.intlist)
def movedim(self: Tensor, source: Sequence[int], destination: Sequence[int]) -> Tensor:
    """torch's ``movedim``: ``permute`` (an ``alias`` for a 0-d tensor)."""
    order = _movedim_order(self.dim(), source, destination)
    if order is None:
        return aten.alias.default.call(self)
    return aten.permute.default.call(self, order)


@_composite(aten.movedim.int)
def movedim_int(self: Tensor, source: int, destination: int) -> Tensor:
    return movedim(self, [source], [destination])


@_composite(aten.ravel.default)
def ravel(self: Tensor) -> Tensor:
    """torch's ``ravel``: ``self.contiguous().view(-1)``."""
    contiguous = aten.contiguous.default.call(self, layout.contiguous_format)
    return aten.view.default.call(contiguous, (-1,))


# ---------------------------------------------------------------------- atleast_1d, 2d, 3d
# torch's composites: views that give a tensor at least n dims. ``torch.atleast_1d`` and the
# others are Python functions that take tensors one by one too (``atleast_1d(a, b)``).
def at_least(t: Tensor, n: int) -> Tensor:
    """``t`` with at least ``n`` (1 to 3) dims, as torch's ``atleast_<n>d``: a 0-d tensor
    reshaped, a 1-d one of size k seen as ``(1, k)`` (or ``(1, k, 1)``), a 2-d one as
    ``(a, b, 1)``, others as they are."""
    d = t.dim()
    if d >= n:
        return t
    if d == 0:
        return aten.reshape.default.call(t, (1,) * n)
    if n == 2 or d == 2:  # (k,) -> (1, k); (a, b) -> (a, b, 1)
        return aten.unsqueeze.default.call(t, 0 if n == 2 else -1)
    return aten.unsqueeze.default.call(aten.unsqueeze.default.call(t, 0), -1)


def _register_at_least(n: int) -> None:
    packet = aten[f"atleast_{n}d"]
    packet.default.impl(DispatchKey.CompositeImplicitAutograd)(lambda t: at_least(t, n))
    packet.Sequence.impl(DispatchKey.CompositeImplicitAutograd)(
        lambda tensors: tuple(at_least(t, n) for t in tensors))


for _n in (1, 2, 3):
    _register_at_least(_n)


def _variadic(name: str, tensors: tuple[Any, ...]) -> Any:
    """torch's wrapper: one argument is taken as it is (a tensor or a sequence of them),
    several as a tuple of tensors."""
    return aten[name](tensors[0] if len(tensors) == 1 else tensors)


def atleast_1d(*tensors: Any) -> Any:
    """``torch.atleast_1d``: each tensor with at least 1 dim (a 0-d one reshaped to
    ``(1,)``), a view; one tensor gives a tensor, several (or a sequence) a tuple.

    Raises:
        TypeError: an argument that is not a tensor.
    """
    return _variadic("atleast_1d", tensors)


def atleast_2d(*tensors: Any) -> Any:
    """``torch.atleast_2d``: each tensor with at least 2 dims (``(1, 1)`` from 0-d, ``(1,
    k)`` from 1-d), a view; as ``atleast_1d``."""
    return _variadic("atleast_2d", tensors)


def atleast_3d(*tensors: Any) -> Any:
    """``torch.atleast_3d``: each tensor with at least 3 dims (``(1, 1, 1)`` from 0-d,
    ``(1, k, 1)`` from 1-d, ``(a, b, 1)`` from 2-d), a view; as ``atleast_1d``."""
    return _variadic("atleast_3d", tensors)


# ---------------------------------------------------------------------- tensor_split
# torch's composites: ``slice`` views, in NumPy's ``array_split`` way.
def _split_dim(self: Tensor, dim: int) -> int:
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    return _wrap(dim, self.dim())


@_composite(aten.tensor_split.sections)
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = _split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self._shape[d]
    pieces, start = [], 0
    for k in range(sections):
        length = size // sections + (1 if k < size % sections else 0)
        pieces.append(aten.slice.Tensor.call(self, d, start, start + length, 1))
        start += length
    return tuple(pieces)


@_composite(aten.tensor_split.indices)
def tensor_split_indices(self: Tensor, indices: Sequence[int],
                         dim: int = 0) -> tuple[Tensor, ...]:
    d = _split_dim(self, dim)
    bounds = [0, *indices]
    pieces = [aten.slice.Tensor.call(self, d, a, b, 1)
              for a, b in zip(bounds, bounds[1:], strict=False)]
    pieces.append(aten.slice.Tensor.call(self, d, bounds[-1], self._shape[d], 1))
    return tuple(pieces)


@_composite(aten.tensor_split.tensor_indices_or_sections)
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor,
                        dim: int = 0) -> tuple[Tensor, ...]:
    _split_dim(self, dim)
    t = tensor_indices_or_sections
    if t.device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, "
                           f"but it's on {t.device}")
    if t._dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                           f"of long, but got {SCALAR_TYPE_NAMES[t._dtype.name]}")
    if t.dim() > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                           "zero-dimensional or one-dimensional tensor, but got a tensor "
                           f"with {t.dim()} dims")
    if t.dim() == 0:
        return tensor_split_sections(self, int(t.item()), dim)
    return tensor_split_indices(self, [int(v) for v in t.tolist()], dim)


def _register_directional_split(name: str, least: int) -> None:
    """``hsplit`` (dim 1, or 0 for 1-d) and ``vsplit`` (dim 0): ``tensor_split``."""
    def dim_of(self: Tensor) -> int:
        if self.dim() < least:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {least} "
                               f"dimension, but got a tensor with {self.dim()} dimensions!")
        return 0 if name == "vsplit" or self.dim() == 1 else 1

    def sections(self: Tensor, sections: int) -> tuple[Tensor, ...]:
        d = dim_of(self)
        if sections == 0 or self._shape[d] % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but "
                               f"the size of the dimension {self._shape[d]} is not divisible "
                               f"by the split_size {sections}!")
        return tensor_split_sections(self, sections, d)

    def indices(self: Tensor, indices: Sequence[int]) -> tuple[Tensor, ...]:
        return tensor_split_indices(self, indices, dim_of(self))

    _composite(aten[name].int)(sections)
    _composite(aten[name].array)(indices)


_register_directional_split("hsplit", 1)
_register_directional_split("vsplit", 2)


# ---------------------------------------------------------------------- meshgrid
@_composite(aten.meshgrid.indexing)
def meshgrid_indexing(tensors: Sequence[Tensor], indexing: str) -> tuple[Tensor, ...]:
    """torch's ``meshgrid``: each tensor viewed along its own dim and expanded to the
    grid's shape; for ``"xy"`` the first two tensors (and grids) swapped."""
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:], strict=False):
        if a._dtype is not b._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a.device != b.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    order = list(tensors)
    swap = indexing == "xy" and len(order) >= 2
    if swap:
        order[0], order[1] = order[1], order[0]
    elif indexing != "xy" and indexing != "ij":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in order:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    shape = [t.numel() for t in order]
    grids = []
    for i, t in enumerate(order):
        seen = [1] * len(order)
        seen[i] = -1
        grids.append(aten.expand.default.call(aten.view.default.call(t, seen), shape, False))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@_composite(aten.meshgrid.default)
def meshgrid_default(tensors: Sequence[Tensor]) -> tuple[Tensor, ...]:
    _warn_once("torch.meshgrid: in an upcoming release, it will be required to pass the "
               "indexing argument.")
    return meshgrid_indexing(tensors, "ij")


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """``torch.meshgrid``: the tensors one by one or as one list; ``indexing`` "ij" (the
    default, with torch's warning when not given) or "xy". See the op table's entry."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        return aten.meshgrid(tensors)
    return aten.meshgrid(tensors, indexing=indexing)


# ---------------------------------------------------------------------- adding, removing dims
# Every squeeze and unsqueeze (and their in-place forms) takes its layout from chapter 2's
# piece, ``squeeze_layout``; the kernels only read the arguments as torch's parser does.
def _dims(dim: Any) -> int | tuple[int, ...] | None:
    """``squeeze``'s ``dim`` argument read as torch's parser reads it: None, an int, or a
    tuple of ints (TypeError for anything else)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        return tuple(_int("dim", d) for d in dim)
    return _int("dim", dim)


def _squeezed(t: Tensor, dim: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return squeeze_layout("squeeze", t._shape, t._stride, _dims(dim))


def _unsqueezed(t: Tensor, dim: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return squeeze_layout("unsqueeze", t._shape, t._stride, _int("dim", dim))


@_kernel(aten.squeeze.default)
def squeeze(self: Tensor) -> Tensor:
    """Drop every size-1 dim (``torch.squeeze``), laid out by :func:`squeeze_layout`."""
    return _view(self, *_squeezed(self, None))


@_kernel(aten.squeeze.dim)
def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    """Drop dim ``dim`` if its size is 1; a view of ``self`` either way. Raises IndexError
    for a dim out of range."""
    return _view(self, *_squeezed(self, dim))


@_kernel(aten.squeeze.dims)
def squeeze_dims(self: Tensor, dim: Sequence[int]) -> Tensor:
    """Drop the size-1 dims among ``dim``. Raises RuntimeError for a dim named twice,
    IndexError for one out of range."""
    return _view(self, *_squeezed(self, tuple(dim)))


@_kernel(aten.unsqueeze.default)
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at ``dim`` (``torch.unsqueeze``), laid out by
    :func:`squeeze_layout`. Raises IndexError for a dim out of range."""
    return _view(self, *_unsqueezed(self, dim))


def squeeze_layout(op: str, shape: Sequence[int], stride: Sequence[int],
                   dim: int | Sequence[int] | None
                   ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(shape, stride)`` of ``t.squeeze(dim)`` or ``t.unsqueeze(dim)``
    (``torch.Tensor.squeeze``, ``torch.Tensor.unsqueeze``: ATen's ``inferSqueezeGeometry``
    and ``inferUnsqueezeGeometry``) for a tensor ``t`` of this layout; the storage offset
    is kept.

    Args:
        op: ``"squeeze"`` or ``"unsqueeze"``.
        shape, stride: ``t``'s sizes and strides.
        dim: for ``"squeeze"``, None (``t.squeeze()``), an int or a tuple of ints, negative
            ones counting from the end; for ``"unsqueeze"``, an int: where the new dim is in
            the result.

    Returns:
        ``(shape, stride)``: two tuples of ints, as long as each other.

    Raises:
        IndexError: a dim out of range, with torch's message.
        RuntimeError: squeeze's tuple names a dim twice, with torch's message.
    """
    # BEGIN PIECE squeeze_layout
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("squeeze_layout")(op, shape, stride, dim)
    # END PIECE


@_composite(aten.expand_as.default)
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.expand.default.call(self, other._shape, False)


@_composite(aten.broadcast_to.default)
def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    """``expand`` under NumPy's name (``torch.broadcast_to``)."""
    return aten.expand.default.call(self, size, False)


# ---------------------------------------------------------------------- sub-ranges
def slice_layout(shape: Sequence[int], stride: Sequence[int], offset: int,
                 index: Sequence[Any]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The ``(shape, stride, storage_offset)`` of ``x[index]`` (``torch.Tensor.__getitem__``
    with ints and slices only: ATen's ``applySlicing``, which runs ``select`` and ``slice``)
    for a tensor ``x`` of this layout.

    Args:
        shape, stride, offset: ``x``'s sizes, strides and storage offset (in elements).
        index: a tuple with one entry per leading dim: an int, as in ``x[i]`` (a negative
            one counts from the end), or a triple ``(start, stop, step)`` standing for
            ``slice(start, stop, step)``, whose parts may be None; a step is positive.

    Returns:
        ``(shape, stride, storage_offset)``: an int entry removes its dim, a slice keeps it,
        and dims past the last entry are kept whole. Slice bounds out of range are clamped
        as Python clamps them for a list.

    Raises:
        IndexError: more entries than dims, or an int outside ``[-size, size)``.
    """
    # BEGIN PIECE slice_layout
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("slice_layout")(shape, stride, offset, index)
    # END PIECE


def _slice(t: Tensor, dim: int, start: int | None, end: int | None, step: int = 1) -> Tensor:
    """The view ``t[..., start:end:step]`` along ``dim``, laid out by ``slice_layout``."""
    index = ((None, None, None),) * dim + ((start, end, step),)
    shape, stride, offset = slice_layout(t._shape, t._stride, t._storage_offset, index)
    return _view(t, shape, stride, offset)


@_kernel(aten.slice.Tensor)
def slice_(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> Tensor:
    """``self[..., start:end:step]`` along ``dim`` (torch's ``slice``): bounds clamped to
    the dim as Python's slices are. Raises RuntimeError for a 0-d tensor or ``step <= 0``."""
    if self.dim() == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _slice(self, _wrap(dim, self.dim()), start, end, step)


def _narrow_start(self: Tensor, dim: int, start: int, length: int) -> tuple[int, int]:
    """narrow's checks: the wrapped dim and the start, made non-negative."""
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap(dim, self.dim())
    size = self._shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got "
            f"{start})")
    start = start + size if start < 0 else start
    if start > size - length:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return d, start


@_composite(aten.narrow.default)
def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements along ``dim`` from ``start`` (which may be negative): torch's
    ``slice`` (``torch.narrow``).

    Raises:
        RuntimeError: a 0-d tensor, a negative length, or a range past the end.
        IndexError: ``start`` out of range.
    """
    d, start = _narrow_start(self, dim, start, length)
    return aten.slice.Tensor.call(self, d, start, start + length, 1)


@_composite(aten.narrow.Tensor)
def narrow_tensor(self: Tensor, dim: int, start: Tensor, length: int) -> Tensor:
    """``narrow`` with ``start`` a 0-d integer tensor. Raises RuntimeError for any other."""
    if start.dim() != 0 or start.is_floating_point() or start.dtype.name == "bool":
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return narrow(self, dim, int(start.item()), length)


@_kernel(aten.select.int)
def select(self: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, with that dim removed (``torch.select``).

    Raises:
        IndexError: a 0-d tensor, or ``index`` out of range.
    """
    t = self
    if t.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, t.dim())
    size = t._shape[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(t._shape)} at dimension {d}")
    shape, stride, offset = slice_layout(t._shape, t._stride, t._storage_offset,
                                         ((None, None, None),) * d + (index,))
    return _view(t, shape, stride, offset)


@_kernel(aten.unfold.default)
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` elements, ``step`` apart, along ``dimension``; the window
    becomes a new last dim (``torch.Tensor.unfold``). Windows may overlap in memory.

    Raises:
        RuntimeError: a window longer than the dim, a negative size, or ``step <= 0``.
    """
    t = self
    d = _wrap(dimension, t.dim())
    longest = t._shape[d] if t.dim() else 1
    if size > longest:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {longest} but size "
                           f"is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not t.dim():  # a 0-d tensor is one window of its one element
        return _view(t, [size], [1])
    shape, stride = layout.unfold_layout(t._shape, t._stride, d, size, step)
    return _view(t, shape, stride)


@_kernel(aten.diagonal.default)
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes as a new last dim, a view laid out by
    ``diagonal_layout`` (``torch.diagonal``); ``offset > 0`` is above it.

    Raises:
        RuntimeError: dim1 and dim2 name the same dim. IndexError: a dim out of range.
    """
    shape, stride, storage_offset = diagonal_layout(self._shape, self._stride,
                                                    self._storage_offset, offset, dim1, dim2)
    return _view(self, shape, stride, storage_offset)


def diagonal_layout(shape: Sequence[int], stride: Sequence[int], storage_offset: int,
                    offset: int, dim1: int, dim2: int
                    ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The ``(shape, stride, storage_offset)`` of ``x.diagonal(offset, dim1, dim2)``
    (``torch.Tensor.diagonal``) for a tensor ``x`` of this layout.

    Args:
        shape, stride, storage_offset: ``x``'s sizes, strides and storage offset (in
            elements).
        offset: which diagonal, an int: 0 the main one, above it (towards ``dim2``) when
            positive, below it (towards ``dim1``) when negative.
        dim1, dim2: the two dims of the diagonal's planes, ints; negative ones count from
            the end.

    Returns:
        ``(shape, stride, storage_offset)``: ``x``'s other dims in their order, then one
        last dim along the diagonal. An ``offset`` past the edge gives a diagonal of size 0,
        and an empty diagonal leaves ``storage_offset`` as it was.

    Raises:
        IndexError: a dim out of range; a 0-d tensor accepts dims 0 and -1.
        RuntimeError: ``dim1`` and ``dim2`` name the same dim.
    """
    # BEGIN PIECE diagonal_layout
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("diagonal_layout")(shape, stride, storage_offset, offset, dim1, dim2)
    # END PIECE


# ---------------------------------------------------------------------- many views at once
def _pieces(t: Tensor, lengths: Sequence[int], d: int) -> tuple[Tensor, ...]:
    """Consecutive views of ``lengths`` elements along dim ``d``."""
    pieces, start = [], 0
    for n in lengths:
        pieces.append(_slice(t, d, start, start + n))
        start += n
    return tuple(pieces)


def split_lengths(size: int, split_size: int) -> list[int]:
    """The pieces' lengths of ``split(split_size)`` on a dim of ``size``: all
    ``split_size`` but the last, which may be shorter; one piece for an empty dim."""
    count = max(-(-size // split_size), 1) if split_size else 1
    return [split_size] * (count - 1) + [size - split_size * (count - 1)]


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.split``: ``tensor.split(split_size_or_sections, dim)``, views of pieces of
    one size (an int) or of the listed sizes."""
    return tensor.split(split_size_or_sections, dim)


@_kernel(aten.split.Tensor)
def split_tensor(self: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of consecutive pieces of ``split_size`` along ``dim``, the last maybe shorter
    (``torch.split`` with an int).

    Raises:
        RuntimeError: a 0-d tensor, a negative size, or a zero size for a non-empty dim.
    """
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError("split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = _wrap(dim, self.dim())
    size = self._shape[d]
    if split_size == 0 and size != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {size}")
    return _pieces(self, split_lengths(size, split_size), d)


@_kernel(aten.split_with_sizes.default)
def split_with_sizes(self: Tensor, split_sizes: Sequence[int],
                     dim: int = 0) -> tuple[Tensor, ...]:
    """Views of consecutive pieces of the listed sizes along ``dim``
    (``torch.split`` with a list).

    Raises:
        RuntimeError: a 0-d tensor, a negative size, or sizes that do not add up to the
            dim's size.
    """
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap(dim, self.dim())
    size = self._shape[d]
    lengths = list(split_sizes)
    if any(n < 0 for n in lengths):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={lengths}")
    if sum(lengths) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
            f"tensor's size at dimension {d}), but got split_sizes={lengths}")
    return _pieces(self, lengths, d)


@_composite(aten.split.sizes)
def split_sizes(self: Tensor, split_size: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    return aten.split_with_sizes.default.call(self, split_size, dim)


@_composite(aten.chunk.default)
def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """About ``chunks`` equal views along ``dim``: ``split`` with size
    ``ceil(size / chunks)``, so fewer pieces may come back (``torch.chunk``); an empty dim
    gives ``chunks`` empty pieces (``split_with_sizes``).

    Raises:
        RuntimeError: a 0-d tensor or ``chunks <= 0``.
    """
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap(dim, self.dim())
    size = self._shape[d]
    piece = -(-size // chunks)
    if piece == 0 and size == 0:
        return aten.split_with_sizes.default.call(self, (0,) * chunks, d)
    return aten.split.Tensor.call(self, piece, d)


@_kernel(aten.unbind.int)
def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Every ``select(dim, i)``, as a tuple of views (``torch.unbind``). Raises IndexError
    for a 0-d tensor or a dim out of range."""
    d = _wrap(dim, self.dim())
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(select(self, d, i) for i in range(self._shape[d]))


_kernel(aten.as_strided.default)(factories.as_strided)


@_kernel(aten.detach.default)
def detach(self: Tensor) -> Tensor:
    """Same storage, layout and version counter, but no autograd history and no ``_base``
    (``torch.Tensor.detach``): writes through it still change ``self``. Detaching an
    inference tensor gives an inference tensor, as in torch."""
    out = _view(self, self._shape, self._stride)
    out._base = None
    return out


@_kernel(aten.lift_fresh.default)
def lift_fresh(self: Tensor) -> Tensor:
    """``self`` itself (torch's ``CompositeExplicitAutograd`` kernel): the op is there for
    a dispatch mode to see a tensor made from data."""
    return self


@aten._local_scalar_dense.default.impl(DispatchKey.CPU)
def _local_scalar_dense(self: Tensor) -> Any:
    """The first element as a Python number (what ``Tensor.item()`` dispatches).

    Raises:
        RuntimeError: an empty tensor.
    """
    if self.numel() == 0:
        raise RuntimeError("_local_scalar_dense: Empty tensor not supported")
    return self._read(self._storage_offset)


@aten._local_scalar_dense.default.impl(DispatchKey.Meta)
def _local_scalar_dense_meta(self: Tensor) -> Any:
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


# ---------------------------------------------------------------------- in-place views
# ``t.t_()``, ``t.transpose_(0, 1)``, ``t.squeeze_()``, ``t.unsqueeze_(0)``: the view's
# layout is given to ``self`` itself (same storage and offset), whose ``_version`` goes up
# by one, as torch's ``inplace_view`` ops do.
def _take_layout(self: Tensor, view: Tensor) -> Tensor:
    self._shape, self._stride = view._shape, view._stride
    self._version_counter.value += 1
    return self


@_kernel(aten.t_.default)
def t_(self: Tensor) -> Tensor:
    """Raises RuntimeError for more than 2 dims (``t_()`` named in the message)."""
    if self.dim() > 2:
        raise RuntimeError(
            f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _take_layout(self, t(self))


@_kernel(aten.transpose_.default)
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _take_layout(self, transpose(self, dim0, dim1))


@_composite(aten.swapdims_.default)
def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return aten.transpose_.default.call(self, dim0, dim1)


@_composite(aten.swapaxes_.default)
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return aten.transpose_.default.call(self, axis0, axis1)


@_kernel(aten.squeeze_.default)
def squeeze_(self: Tensor) -> Tensor:
    return _take_layout(self, squeeze(self))


@_kernel(aten.squeeze_.dim)
def squeeze_dim_(self: Tensor, dim: int) -> Tensor:
    return _take_layout(self, squeeze_dim(self, dim))


@_kernel(aten.squeeze_.dims)
def squeeze_dims_(self: Tensor, dim: Sequence[int]) -> Tensor:
    return _take_layout(self, squeeze_dims(self, dim))


@_kernel(aten.unsqueeze_.default)
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _take_layout(self, unsqueeze(self, dim))
