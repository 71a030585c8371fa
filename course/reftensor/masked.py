"""Reading and writing through a bool mask (chapter 2): ``masked_fill``, ``masked_select``,
``masked_scatter``, and ``nonzero`` (``argwhere``), the positions a mask stands for.

``t.masked_fill(mask, value)`` is ``t`` with ``value`` wherever ``mask`` is True: the mask
broadcasts against ``t`` (out of place the result takes the broadcast shape; in place the
mask must broadcast *to* ``t``'s shape). It is what ``t[mask] = value`` becomes for a
one-element value (``advanced_indexing.py``). The value is one number: a Python number or
a 0-d tensor, converted to ``t``'s dtype with torch's overflow check.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _casting, dtypes, factories, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from ._ops.python_arg_parser import PythonArgParser, Signature
from ._ops.schema import parse_schema
from .device import CPU
from .promotion import SCALAR_TYPE_NAMES
from .storage import no_data
from .tensor import Tensor

# the ops are the table's (reftensor.masked_fill, ...), but for torch's hand-written binding
__all__ = ["nonzero"]

#: how torch's messages name a mask's dtype (C++'s type names)
_C_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}


def broadcast_sizes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """torch's ``infer_size``: RuntimeError where the sizes do not broadcast."""
    n = max(len(a), len(b))
    sizes = []
    for k in range(n):
        x = a[k - n + len(a)] if k - n + len(a) >= 0 else 1
        y = b[k - n + len(b)] if k - n + len(b) >= 0 else 1
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {k}")
        sizes.append(y if x == 1 else x)
    return tuple(sizes)


def checked_value(number: Any, d: dtypes.dtype) -> np.ndarray:
    """A fill value converted to ``d`` with torch's ``Scalar.to<T>()`` checks: a complex
    number keeps its real part when its imaginary part is 0.

    Raises:
        RuntimeError: a value ``d`` cannot hold (a complex one with an imaginary part)."""
    if isinstance(number, complex):
        if number.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_casting.C_NAMES[d.name]} "
                               "without overflow")
        number = number.real
    return _casting.checked_number(number, d)


def _value_number(value: Any) -> Any:
    """The fill value as a Python number (a 0-d tensor's ``item()``).

    Raises:
        RuntimeError: a value tensor with dims."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.dim()} dimension(s).")
        return value.item() if not value.is_meta else 0
    return value


def _fill_(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> None:
    """torch's ``masked_fill_impl_cpu`` (no ``_version`` bump)."""
    number = _value_number(value)
    if mask._dtype is not dtypes.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {_C_TYPE_NAMES[mask._dtype.name]}")
    if iterator.has_internal_overlap(self) == "yes":
        warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                      "the tensor before performing this operation. This also applies to "
                      "advanced indexing e.g. tensor[mask] = scalar", UserWarning, stacklevel=4)
    iterator.assert_no_partial_overlap(self, mask)
    shape = broadcast_sizes(self._shape, mask._shape)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    if mask.device != self.device and mask.dim() > 0:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at "
                           f"least two devices, {self.device} and {mask.device}!")
    if meta:
        if not self.is_meta:
            raise no_data()
        return
    fill = checked_value(number, self._dtype)
    where = np.broadcast_to(mask._elements(), self._shape)
    if where.any():
        self._elements()[where] = fill


def _masked_fill_(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> Tensor:
    _fill_(self, mask, value, meta=meta)
    self._version_counter.value += 1
    return self


def _masked_fill(self: Tensor, mask: Tensor, value: Any, *, meta: bool) -> Tensor:
    """torch's ``masked_fill``: ``self`` expanded to the broadcast shape, cloned
    contiguous, then filled in place."""
    _value_number(value)  # (its check comes first)
    shape = broadcast_sizes(mask._shape, self._shape)
    where = self.device
    out = factories._allocate(shape, layout.contiguous_strides(shape), self._dtype, where)
    if where == CPU:
        out._elements()[...] = np.broadcast_to(self._elements(), shape)
    _fill_(out, mask, value, meta=meta)
    return out


def _register() -> None:
    for overload in ("Scalar", "Tensor"):
        for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
            getattr(aten.masked_fill, overload).impl(key)(
                lambda self, mask, value, meta=meta: _masked_fill(self, mask, value, meta=meta))
            getattr(aten.masked_fill_, overload).impl(key)(
                lambda self, mask, value, meta=meta: _masked_fill_(self, mask, value,
                                                                   meta=meta))


_register()


# ----------------------------------------------------------------------- masked_select
def _masked_select(self: Tensor, mask: Tensor, *, meta: bool) -> Tensor:
    if mask._dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if meta:
        raise NotImplementedError("aten::masked_select: attempted to run this operator with "
                                  "Meta tensors: its size depends on the mask's values")
    shape = broadcast_sizes(mask._shape, self._shape)
    chosen = np.broadcast_to(self._elements(), shape)[np.broadcast_to(mask._elements(), shape)]
    out = factories._allocate(chosen.shape, (1,), self._dtype, self.device)
    out._elements()[...] = chosen
    return out


@aten.masked_select.default.impl(DispatchKey.CPU)
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    """``self``'s elements where the bool ``mask`` is True, the two broadcast together,
    read in row-major order (``torch.masked_select``): a new 1-d tensor.

    Raises:
        RuntimeError: a mask that is not bool, shapes that do not broadcast.
        NotImplementedError: on the meta device (the size depends on the mask's values).
    """
    return _masked_select(self, mask, meta=False)


@aten.masked_select.default.impl(DispatchKey.Meta)
def masked_select_meta(self: Tensor, mask: Tensor) -> Tensor:
    return _masked_select(self, mask, meta=True)


def _masked_select_out(self: Tensor, mask: Tensor, out: Tensor) -> Tensor:
    """``masked_select(self, mask, out=out)`` as torch's CPU kernel checks it, in its order:
    the mask's dtype, ``out``'s dtype (exactly ``self``'s), then ``out`` may share no memory
    with itself, ``self`` or ``mask`` (``out=self`` is refused, even empty)."""
    if mask._dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if out._dtype is not self._dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    iterator.assert_no_internal_overlap(out)
    iterator.assert_no_overlap(out, self)
    iterator.assert_no_overlap(out, mask)
    result = aten.masked_select.default.call(self, mask)
    if out._shape != result._shape:
        iterator.resize_output(out, result._shape, result._stride)
    out_arguments.writer(out, result)
    return out


out_arguments.set_rule(aten.masked_select.out, out_arguments.OutRule(writes=_masked_select_out))


# ----------------------------------------------------------------------- masked_scatter
def _scatter_(self: Tensor, mask: Tensor, source: Tensor, *, meta: bool) -> None:
    """torch's ``masked_scatter__cpu`` (no ``_version`` bump): ``source``'s elements, in
    order, written where the mask (expanded to ``self``) is True, in row-major order."""
    iterator.assert_no_internal_overlap(self)
    if self._dtype is not source._dtype:
        raise RuntimeError("masked_scatter_: expected self and source to have same dtypes but "
                           f"got{_casting_name(self._dtype)} and {_casting_name(source._dtype)}")
    if mask._dtype is not dtypes.bool:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_C_TYPE_NAMES[mask._dtype.name]}")
    expand_to(mask, self._shape)
    if meta:
        if not self.is_meta:
            raise no_data()
        return
    if self.numel() == 0:
        return
    where = np.broadcast_to(mask._elements(), self._shape)
    count = int(where.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        self._elements()[where] = source._elements().reshape(-1)[:count]


def _casting_name(d: dtypes.dtype) -> str:
    return SCALAR_TYPE_NAMES[d.name]


def expand_to(t: Tensor, shape: tuple[int, ...]) -> None:
    """torch's ``expand_inplace`` check: ``t`` must expand to ``shape``.

    Raises:
        RuntimeError: it does not (torch's ``expand`` messages)."""
    if len(t._shape) > len(shape):
        raise RuntimeError(f"expand(CPU{SCALAR_TYPE_NAMES[t._dtype.name]}Type{{{list(t._shape)}}}, "
                           f"size={list(shape)}): the "
                           f"number of sizes provided ({len(shape)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(t._shape)})")
    lead = len(shape) - len(t._shape)
    for k, n in enumerate(t._shape):
        if n not in (1, shape[lead + k]):
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + k]}) must match "
                               f"the existing size ({n}) at non-singleton dimension "
                               f"{lead + k}.  Target sizes: {list(shape)}.  Tensor sizes: "
                               f"{list(t._shape)}")


def _masked_scatter_(self: Tensor, mask: Tensor, source: Tensor, *, meta: bool) -> Tensor:
    _scatter_(self, mask, source, meta=meta)
    self._version_counter.value += 1
    return self


def _masked_scatter(self: Tensor, mask: Tensor, source: Tensor, *, meta: bool) -> Tensor:
    """torch's ``masked_scatter``: ``self`` expanded with the mask, cloned contiguous, then
    ``masked_scatter_``."""
    shape = broadcast_sizes(mask._shape, self._shape)
    out = factories._allocate(shape, layout.contiguous_strides(shape), self._dtype,
                              self.device)
    if self.device == CPU:
        out._elements()[...] = np.broadcast_to(self._elements(), shape)
    _scatter_(out, mask, source, meta=meta)
    return out


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.masked_scatter.default.impl(_key)(
        lambda self, mask, source, meta=_meta: _masked_scatter(self, mask, source, meta=meta))
    aten.masked_scatter_.default.impl(_key)(
        lambda self, mask, source, meta=_meta: _masked_scatter_(self, mask, source, meta=meta))


# ----------------------------------------------------------------------- nonzero
def _nonzero(self: Tensor, *, meta: bool) -> Tensor:
    if meta:
        raise NotImplementedError("nonzero on the meta device: the size of its result depends "
                                  "on the input's values")
    values = self._elements()
    found = np.stack(np.nonzero(values.reshape(-1) != 0 if values.ndim == 0 else values != 0),
                     axis=1) if values.ndim else np.zeros((int(values.reshape(-1)[0] != 0), 0),
                                                          np.int64)
    shape = (found.shape[0], self.dim())
    out = factories._allocate(shape, (1, shape[0]), dtypes.int64, CPU)
    out._elements()[...] = found.reshape(shape)
    return out


@aten.nonzero.default.impl(DispatchKey.CPU)
def nonzero_cpu(self: Tensor) -> Tensor:
    """The indices of ``self``'s nonzero elements (NaN counts, -0.0 does not), one row per
    element in row-major order (``torch.nonzero``): an int64 tensor of shape ``(n,
    self.dim())`` laid out column-major (strides ``(1, n)``), as torch's CPU kernel.

    Raises:
        NotImplementedError: on the meta device (the size depends on the values).
    """
    return _nonzero(self, meta=False)


@aten.nonzero.default.impl(DispatchKey.Meta)
def nonzero_meta(self: Tensor) -> Tensor:
    return _nonzero(self, meta=True)


def _check_nonzero_out(input: Any, result: Tensor, out: Tensor) -> None:
    if out._dtype is not dtypes.int64:
        raise RuntimeError("nonzero: Expected out tensor to have scalar type Long but got "
                           f"scalar type{SCALAR_TYPE_NAMES[out._dtype.name]}")


out_arguments.set_rule(aten.nonzero.out, out_arguments.OutRule(check=_check_nonzero_out))


@aten.argwhere.default.impl(DispatchKey.CompositeImplicitAutograd)
def argwhere(self: Tensor) -> Tensor:
    """``torch.argwhere``: ``self.nonzero()``."""
    return aten.nonzero.default.call(self)


# ------------------------------------------------------------------ torch.nonzero in Python
#: torch's Python signature of ``torch.nonzero`` (its own parser, ``THPVariable_nonzero``:
#: ``as_tuple`` is no schema's argument)
_NONZERO_PARSER = PythonArgParser("nonzero", [Signature("nonzero", parse_schema(
    "nonzero(Tensor input, *, bool as_tuple=False, Tensor(a!)? out=None) -> Tensor"),
    method=False)])


def nonzero(*args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
    """``torch.nonzero(input, *, out=None, as_tuple=False)``: the indices of ``input``'s
    nonzero elements (NaN counts, -0.0 does not).

    With ``as_tuple=False``, an int64 tensor of shape ``(n, input.dim())``, one row per
    nonzero element in row-major order, laid out column-major (strides ``(1, n)``), as
    torch's CPU kernel. With ``as_tuple=True``, a tuple of ``input.dim()`` int64 tensors of
    shape ``(n,)``, one per dim (the columns of the former, views of it: ``nonzero_numpy``;
    a 0-d input counts as 1-d, giving one tensor), what ``x[x.nonzero(as_tuple=True)]``
    indexes with.

    Raises:
        TypeError: arguments that fit torch's signature not (``as_tuple`` given
            positionally, or not a bool).
        RuntimeError: ``out=`` with ``as_tuple=True`` ("nonzero does not support the out kwarg
            when as_tuple is True"); an ``out`` that is not int64.
        NotImplementedError: a meta tensor (the result's size depends on the values).
    """
    _, (input, as_tuple, out) = _NONZERO_PARSER.parse(args, kwargs)
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return input.nonzero(as_tuple=True)
    if out is not None:
        return aten.nonzero.out(input, out=out)
    return aten.nonzero.default(input)

