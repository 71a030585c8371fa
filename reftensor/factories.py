"""Factories: every way to make a tensor in chapter 1.

``tensor`` copies data; ``as_tensor`` and ``from_numpy`` share memory when they can;
``empty``/``zeros``/``ones``/``full``/``arange``/``linspace`` allocate a fresh contiguous
storage; ``empty_strided`` allocates for any layout; ``as_strided`` re-reads an existing
storage with any shape, stride and offset.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _casting, dtypes, layout
from ._ops import DispatchKey, aten
from ._ops.state import state as dispatch_state
from ._ops.tensor_new import set_new_tensor
from .device import CPU, META, as_device, device
from .dtypes import dtype
from .layout import memory_format
from .storage import UntypedStorage
from .tensor import Tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "as_strided",
]

# ---------------------------------------------------------------------- helpers
def _check_sizes(shape: Sequence[int]) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


def _check_requires_grad(d: dtype, requires_grad: bool) -> None:
    if requires_grad and not d.is_floating_point:
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
        )


def _allocate(shape: tuple[int, ...], stride: tuple[int, ...], d: dtype,
              where: device = CPU) -> Tensor:
    """A fresh zero-filled storage just big enough for ``shape``/``stride`` (on ``meta``:
    the size only)."""
    needed = layout.required_storage_elements(shape, stride)
    storage = UntypedStorage(needed * d.itemsize, device=where)
    return Tensor._make(storage, shape, stride, 0, d)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    _check_requires_grad(t.dtype, requires_grad)
    t.requires_grad = requires_grad
    return t


def _from_array(values: np.ndarray, d: dtype, requires_grad: bool = False,
                where: device = CPU) -> Tensor:
    """A contiguous tensor holding a copy of ``values`` converted to ``d`` (on ``meta``:
    only their shape)."""
    shape = tuple(values.shape)
    t = _allocate(shape, layout.contiguous_strides(shape), d, where)
    if where != META:
        t._elements()[...] = values
    return _finish(t, requires_grad)


# ---------------------------------------------------------------------- from data
def _scalar_dtype(x: Any) -> dtype:
    """The dtype torch infers for one scalar of nested data."""
    if isinstance(x, builtins.bool | np.bool_):
        return dtypes.bool
    if isinstance(x, np.generic):
        return dtypes.from_numpy_dtype(x.dtype)
    if isinstance(x, int):
        return dtypes.int64
    if isinstance(x, builtins.float):
        return dtypes.get_default_dtype()
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _is_sequence(x: Any) -> bool:
    if isinstance(x, Tensor):
        return x.dim() > 0
    return isinstance(x, Sequence | np.ndarray) and not isinstance(x, str | bytes)


def _infer_shape(data: Any) -> tuple[int, ...]:
    """Sizes read off the first element at each depth, as torch reads them."""
    shape = []
    while _is_sequence(data):
        shape.append(len(data))
        if len(data) == 0:
            break
        data = data[0]
    return tuple(shape)


def _flatten(data: Any, shape: tuple[int, ...], dim: int, out: list[Any]) -> None:
    """Append the scalars of ``data`` to ``out``, checking every list has its size.

    Raises:
        ValueError: a list of the wrong length ("expected sequence of length ...").
        TypeError: a scalar where a list belongs, or a list where a scalar belongs.
    """
    if dim == len(shape):
        if _is_sequence(data):
            raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as an integer")
        if isinstance(data, Tensor):
            data = data._item()  # (torch reads it below the dispatcher: no mode sees it)
        out.append(data)
        return
    if not _is_sequence(data):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(
            f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})"
        )
    for item in data:
        _flatten(item, shape, dim + 1, out)


def _check_integer_range(values: list[Any], d: dtype) -> None:
    """torch's overflow checks when Python numbers are stored into a tensor.

    Every Python int must fit int64 (ValueError). Into an integer dtype, a float must lie
    within the dtype's range and not be nan; an int must not exceed the maximum, and a
    negative int is accepted down to ``-max`` for unsigned types (it then wraps around).
    Floating and bool targets accept anything (large values become inf).

    Raises:
        ValueError: an int beyond int64.
        RuntimeError: "value cannot be converted to type X without overflow".
    """
    for v in values:
        if isinstance(v, int) and not isinstance(v, builtins.bool):
            if not -(2**63) <= v < 2**63:
                raise ValueError("Overflow when unpacking long long")
    if d.is_floating_point or d is dtypes.bool:
        return
    info = np.iinfo(d.numpy)
    for v in values:
        if isinstance(v, builtins.bool | np.bool_):
            continue
        if isinstance(v, builtins.float | np.floating):
            fits = not math.isnan(v) and info.min <= v <= info.max
        else:
            fits = v <= info.max and (v >= info.min or (info.min == 0 and -v <= info.max))
        if not fits:
            raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")


def tensor(
    data: Any,
    *,
    dtype: dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (``torch.tensor``).

    ``data`` is a Python scalar, nested lists/tuples of scalars, a NumPy array or a tensor.
    Without ``dtype``: bools give bool, ints give int64, floats give the default dtype
    (float32), NumPy data keeps its dtype, mixed data promotes.

    Raises:
        ValueError: ragged nested lists ("expected sequence of length 2 at dim 1 (got 1)").
        TypeError: strings, or a list where a number belongs.
        RuntimeError: ``None``, an int beyond int64 or the target dtype, or
            ``requires_grad=True`` for a non-floating dtype.
    """
    return _tensor(data, dtype, device, requires_grad, lift=True)


def unlifted_tensor(data: Any, dtype: dtype | None = None) -> Tensor:
    """``tensor(data, dtype=dtype)`` for reftensor's own use where torch makes the tensor
    without an op a dispatch mode sees (a wrapped number, a formula's constant): no
    ``lift_fresh``."""
    return _tensor(data, dtype, None, False, lift=False)


def lift_fresh(t: Tensor) -> Tensor:
    """``t`` itself; while a dispatch mode is active, through ``aten.lift_fresh``, which
    torch runs on every tensor it makes from data (``tensor``, ``as_tensor``,
    ``new_tensor``, ``from_numpy``, a list index), for the mode to see it."""
    return aten.lift_fresh.default(t) if dispatch_state.modes else t


def _tensor(data: Any, dtype: dtype | None, device: Any, requires_grad: bool, *,
            lift: bool) -> Tensor:
    """``tensor``; ``lift``: dispatch ``lift_fresh`` as torch's binding does."""
    where = as_device(device, copying=True)
    if isinstance(data, Tensor):
        where = data.device if device is None else where  # a tensor stays on its device
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() rather than reftensor.tensor(sourceTensor).",
            UserWarning,
            stacklevel=3,
        )
        copied = data.detach().to(dtype=dtype or data.dtype, device=where, copy=True).contiguous()
        return _finish(copied, requires_grad)
    if isinstance(data, np.ndarray):
        if any(s < 0 for s in data.strides):
            data = np.ascontiguousarray(data)
        # torch wraps the array (lifted, as ``from_numpy``), then copies it keeping its
        # layout when that is dense, to the array's dtype unless given (``to(device,
        # dtype)``: ``_to_copy`` is given both).
        wrapped = (from_numpy if lift else _from_numpy)(data)
        copied = wrapped.to(dtype=dtype or wrapped._dtype, device=where, copy=True)
        return _finish(copied, requires_grad)
    shape = _infer_shape(data)
    scalars: list[Any] = []
    _flatten(data, shape, 0, scalars)
    inferred = dtypes.get_default_dtype() if not scalars else None
    for x in scalars:
        d = _scalar_dtype(x)
        inferred = d if inferred is None else dtypes.promote_types(inferred, d)
    target = dtype or inferred
    assert target is not None
    _check_integer_range(scalars, target)
    flat = np.array(
        [float(x) if target.is_floating_point else _to_int(x, target) for x in scalars],
        dtype=np.float64 if target.is_floating_point else object,
    )
    with np.errstate(over="ignore", invalid="ignore"):
        values = _casting.cast(flat, target).reshape(shape)
    made = _from_array(values, target, False, where)
    if lift and where is not META:  # (torch makes a meta tensor without lift_fresh)
        made = lift_fresh(made)
    return _finish(made, requires_grad)


def new_tensor(self: Tensor, data: Any, dtype: dtype | None = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """``self.new_tensor(data)``: ``tensor(data)`` with ``self``'s dtype and device unless
    given (the dtype is not inferred from ``data``: ``int_tensor.new_tensor([1.5])`` is
    int64, truncated). A tensor ``data`` is copied with its layout (when dense) and stays
    on its device unless ``device`` is given, with torch's UserWarning."""
    target = self._dtype if dtype is None else dtype
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
            "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=3,
        )
        where = data.device if device is None else as_device(device, copying=True)
        copied = data.detach().to(dtype=target, device=where, copy=True)
        return _finish(copied, requires_grad)
    return tensor(data, dtype=target, device=self.device if device is None else device,
                  requires_grad=requires_grad)


set_new_tensor(new_tensor)


def _to_int(x: Any, target: dtype) -> Any:
    """A scalar as the integer (or bool) it becomes: floats truncate, ints wrap to width."""
    if target is dtypes.bool:
        return builtins.bool(x)
    value = math.trunc(x) if isinstance(x, builtins.float | np.floating) else int(x)
    bits = 8 * target.itemsize
    value %= 2**bits
    if target.is_signed and value >= 2 ** (bits - 1):
        value -= 2**bits
    return value


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (``torch.from_numpy``).

    Strides are the array's byte strides divided by the itemsize; writing through either
    object changes both. A dispatch mode sees it made (``lift_fresh``).

    Raises:
        TypeError: not an ndarray, or a dtype torch has no counterpart for.
        ValueError: negative strides, or strides that are not a multiple of the itemsize.
    """
    return lift_fresh(_from_numpy(ndarray))


def _from_numpy(ndarray: np.ndarray) -> Tensor:
    """``from_numpy`` without ``lift_fresh``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = dtypes.from_numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
    if any(s % d.itemsize for s in ndarray.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. "
            "Copy the numpy array to reallocate the memory."
        )
    if not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support "
            "non-writable tensors.",
            UserWarning,
            stacklevel=3,
        )
    shape = tuple(ndarray.shape)
    stride = tuple(s // d.itemsize for s in ndarray.strides)
    extent = layout.required_storage_elements(shape, stride)
    # Re-read the array's memory as `extent` consecutive elements, then as bytes.
    flat = np.lib.stride_tricks.as_strided(ndarray, shape=(extent,), strides=(d.itemsize,))
    storage = UntypedStorage._wrap(flat.view(np.uint8))
    return Tensor._make(storage, shape, stride, 0, d)


def as_tensor(data: Any, dtype: dtype | None = None, device: Any = None) -> Tensor:
    """Like :func:`tensor`, but shares memory when no conversion is needed.

    A tensor of the requested dtype is returned as it is; a NumPy array of a supported
    dtype is wrapped with :func:`from_numpy`; anything else is copied.
    """
    where = None if device is None else as_device(device, copying=True)
    if isinstance(data, Tensor):  # torch's ``to(device, dtype)``: ``_to_copy`` gets both
        return data.to(dtype=dtype or data.dtype, device=data.device if where is None
                       else where)
    if isinstance(data, np.ndarray):
        wrapped = from_numpy(data)
        return wrapped.to(dtype=dtype or wrapped._dtype, device=CPU if where is None
                          else where)
    return tensor(data, dtype=dtype, device=where)


# ---------------------------------------------------------------------- fresh storage
# The factories of the op table (``zeros``, ``ones``, ``empty``, ``full``, ...): their Python
# bindings are generated (``reftensor.zeros``); here are their kernels, registered by
# dispatch key. The key comes from ``device=`` (``zeros(2, device="meta")`` runs the Meta
# kernel), a ``*_like`` or ``new_*`` op's from its tensor unless ``device=`` is given. A Meta
# kernel allocates a storage of the right size and no data; a CPU kernel then writes the
# values (a fresh storage is zero-filled, so ``zeros`` writes nothing).

def _options(dtype: dtype | None, device: Any, pin_memory: builtins.bool | None,
             default: dtype | None = None) -> dtype:
    """The dtype of a factory's result, after torch's checks of its options.

    Raises:
        RuntimeError: ``pin_memory=True`` (no accelerator); a device reftensor does not have
            (the error of a CPU-only torch, see :func:`~reftensor.device.as_device`).
    """
    if device is not None:
        as_device(device)
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")
    return dtype or default or dtypes.get_default_dtype()


def _contiguous(size: Sequence[int], d: dtype, where: device) -> Tensor:
    shape = tuple(size)
    _check_sizes(shape)
    return _allocate(shape, layout.contiguous_strides(shape), d, where)


def _fill(t: Tensor, value: Any) -> Tensor:
    """Write ``value`` into every element of a fresh contiguous ``t`` (checked against the
    dtype's range as torch's ``Scalar.to<T>()``, except float16 and bfloat16 for a
    one-element tensor, which torch fills unchecked: ``full((), 1e10, dtype=float16)`` is
    inf). The storage holds exactly the elements, in order, so NumPy fills it whatever the
    number of dims."""
    t._storage._typed(t._dtype.numpy)[...] = _casting.checked_number(
        value, t._dtype, check_half=t.numel() != 1)
    return t


def _fill_dtype(value: Any) -> dtype:
    """The dtype ``full`` infers from its fill value: bool, int64 or the default float."""
    if isinstance(value, builtins.bool):
        return dtypes.bool
    return dtypes.int64 if isinstance(value, int) else dtypes.get_default_dtype()


def _resize(out: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``out.resize_(shape)``, as the factories' ``out=`` kernels do: a tensor of that shape
    keeps its strides; another becomes contiguous (its storage grown when too small), with
    no warning."""
    _check_sizes(shape)
    if out._shape != shape:
        stride = layout.contiguous_strides(shape)
        # (torch's ``computeStorageNbytes``: an empty shape needs no bytes, whatever the
        # offset)
        needed = 0 if 0 in shape else (out._storage_offset + layout.required_storage_elements(
            shape, stride)) * out._dtype.itemsize
        if needed > out._storage.nbytes():
            out._storage.resize_(needed)
        out._shape, out._stride = shape, stride
    return out


def _on_both(overload: Any, kernel: Callable[..., Tensor]) -> None:
    """Register one kernel for both backends: an ``out=`` kernel whose writes are ops
    (``fill_``) that dispatch on ``out``'s own device."""
    overload.impl(DispatchKey.CPU)(kernel)
    overload.impl(DispatchKey.Meta)(kernel)


@aten.zeros.default.impl(DispatchKey.Meta)
@aten.ones.default.impl(DispatchKey.Meta)
def _contiguous_meta(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
                     pin_memory: builtins.bool | None) -> Tensor:
    """``zeros`` and ``ones`` on the meta device: the same contiguous result, no values."""
    return _contiguous(size, _options(dtype, device, pin_memory), META)


@aten.zeros.default.impl(DispatchKey.CPU)
def _zeros_cpu(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
               pin_memory: builtins.bool | None) -> Tensor:
    if any(n < 0 for n in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _contiguous(size, _options(dtype, device, pin_memory), CPU)  # zero-filled


@aten.ones.default.impl(DispatchKey.CPU)
def _ones_cpu(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
              pin_memory: builtins.bool | None) -> Tensor:
    return _fill(_contiguous(size, _options(dtype, device, pin_memory), CPU), 1)


def _empty_strides(shape: tuple[int, ...], memory_format: memory_format | None
                   ) -> tuple[int, ...]:
    """``empty``'s layout: contiguous, or NHWC for ``channels_last`` (4 dims only).

    Raises:
        RuntimeError: ``channels_last`` for other than 4 dims; ``preserve_format``.
    """
    if memory_format is layout.channels_last:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return layout.channels_last_strides(shape)
    if memory_format is layout.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return layout.contiguous_strides(shape)


def _empty(where: device, size: Sequence[int], dtype: dtype | None, device: Any,
           pin_memory: builtins.bool | None, memory_format: memory_format | None) -> Tensor:
    d = _options(dtype, device, pin_memory)
    shape = tuple(size)
    _check_sizes(shape)
    return _allocate(shape, _empty_strides(shape, memory_format), d, where)


@aten.empty.memory_format.impl(DispatchKey.Meta)
def _empty_meta(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
                pin_memory: builtins.bool | None,
                memory_format: memory_format | None) -> Tensor:
    return _empty(META, size, dtype, device, pin_memory, memory_format)


@aten.empty.memory_format.impl(DispatchKey.CPU)
def _empty_cpu(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
               pin_memory: builtins.bool | None, memory_format: memory_format | None) -> Tensor:
    # torch leaves the memory uninitialised; reftensor's fresh storage is zero-filled
    return _empty(CPU, size, dtype, device, pin_memory, memory_format)


@aten.full.default.impl(DispatchKey.Meta)
def _full_meta(size: Sequence[int], fill_value: Any, dtype: dtype | None, layout: Any,
               device: Any, pin_memory: builtins.bool | None) -> Tensor:
    d = _options(dtype, device, pin_memory, _fill_dtype(fill_value))
    _casting.checked_number(fill_value, d)
    return _contiguous(size, d, META)


@aten.full.default.impl(DispatchKey.CPU)
def _full_cpu(size: Sequence[int], fill_value: Any, dtype: dtype | None, layout: Any,
              device: Any, pin_memory: builtins.bool | None) -> Tensor:
    d = _options(dtype, device, pin_memory, _fill_dtype(fill_value))
    return _fill(_contiguous(size, d, CPU), fill_value)


# ``scalar_tensor``: a 0-d ``full`` whose dtype is never inferred from the number (the
# default float dtype unless given); torch's CPU kernel fills it (checked as ``fill_``),
# its meta one checks nothing.
@aten.scalar_tensor.default.impl(DispatchKey.Meta)
def _scalar_tensor_meta(s: Any, dtype: dtype | None, layout: Any, device: Any,
                        pin_memory: builtins.bool | None) -> Tensor:
    return _contiguous((), _options(dtype, device, pin_memory), META)


@aten.scalar_tensor.default.impl(DispatchKey.CPU)
def _scalar_tensor_cpu(s: Any, dtype: dtype | None, layout: Any, device: Any,
                       pin_memory: builtins.bool | None) -> Tensor:
    return _fill(_contiguous((), _options(dtype, device, pin_memory), CPU), s)


# ``empty_like``, ``zeros_like``, ``ones_like``, ``full_like``: a new tensor of ``self``'s
# shape, laid out by ``memory_format`` (None is torch's default, ``preserve_format``), of
# ``self``'s dtype unless given. The kernel's key says where (``device=``, else ``self``'s).
# Not differentiable: torch's ``CompositeExplicitAutograd`` kernels have no derivative row,
# so the result never has a grad_fn.
def _like(where: device, self: Tensor, dtype: dtype | None, device: Any,
          pin_memory: builtins.bool | None, memory_format: memory_format | None) -> Tensor:
    d = _options(dtype, device, pin_memory, self._dtype)
    return _allocate(self._shape, self._strides_for(memory_format), d, where)


def _like_kernels(overload: Any, fill: Callable[[Tensor, Any], Tensor] | None) -> None:
    """Register the Meta and CPU kernels of a ``*_like`` overload whose CPU kernel writes
    its values with ``fill(t, value)`` (None: the zero-filled storage as it is). A fresh
    dense tensor's storage holds exactly its elements, so ``_fill`` fills it in any
    layout, leaving ``_version`` at 0 as torch's factories do."""
    def meta(self: Tensor, *rest: Any) -> Tensor:
        *value, dtype, _, device, pin_memory, memory_format = rest
        return _like(META, self, dtype, device, pin_memory, memory_format)

    def cpu(self: Tensor, *rest: Any) -> Tensor:
        *value, dtype, _, device, pin_memory, memory_format = rest
        t = _like(CPU, self, dtype, device, pin_memory, memory_format)
        return t if fill is None else fill(t, *value)

    overload.impl(DispatchKey.Meta)(meta)
    overload.impl(DispatchKey.CPU)(cpu)


_like_kernels(aten.empty_like.default, None)  # torch's memory is uninitialised
_like_kernels(aten.zeros_like.default, None)
_like_kernels(aten.ones_like.default, lambda t: _fill(t, 1))
_like_kernels(aten.full_like.default, _fill)


# ``new_empty``, ``new_zeros``, ``new_ones``, ``new_full``: a contiguous tensor of ``size``
# with ``self``'s dtype unless given (torch's ``CompositeExplicitAutograd`` kernels call
# ``empty``/``zeros``/``ones``/``full`` with ``self``'s options). Not differentiable, as
# the ``*_like`` factories.
def _new_kernels(overload: Any, fill: Callable[[Tensor, Any], Tensor] | None) -> None:
    """Register the Meta and CPU kernels of a ``new_*`` overload whose CPU kernel writes its
    values with ``fill(t, value)`` (None: the zero-filled storage as it is)."""
    def kernel(where: device, self: Tensor, size: Sequence[int], *rest: Any) -> Tensor:
        *value, dtype, _, device, pin_memory = rest
        t = _contiguous(size, _options(dtype, device, pin_memory, self._dtype), where)
        # (the meta device checks no value: there is nowhere to put it)
        return t if fill is None or where is META else fill(t, *value)

    overload.impl(DispatchKey.Meta)(lambda *a: kernel(META, *a))
    overload.impl(DispatchKey.CPU)(lambda *a: kernel(CPU, *a))


_new_kernels(aten.new_empty.default, None)  # torch's memory is uninitialised
_new_kernels(aten.new_zeros.default, None)
_new_kernels(aten.new_ones.default, lambda t: _fill(t, 1))
_new_kernels(aten.new_full.default, _fill)


def _zeros_out(size: Sequence[int], out: Tensor) -> Tensor:
    return _resize(out, tuple(size)).zero_()


def _ones_out(size: Sequence[int], out: Tensor) -> Tensor:
    return _resize(out, tuple(size)).fill_(1)


def _full_out(size: Sequence[int], fill_value: Any, out: Tensor) -> Tensor:
    return _resize(out, tuple(size)).fill_(fill_value)


def _empty_out(size: Sequence[int], memory_format: memory_format | None, out: Tensor) -> Tensor:
    if memory_format is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor "
                           "argument")
    shape = tuple(size)
    if out._shape != shape:  # (torch's resize_ counts as a write when the shape changes)
        out._version_counter.value += 1
    return _resize(out, shape)


_on_both(aten.zeros.out, _zeros_out)
_on_both(aten.ones.out, _ones_out)
_on_both(aten.full.out, _full_out)
_on_both(aten.empty.out, _empty_out)



# ``eye``: ones on the main diagonal of an ``n`` by ``m`` matrix (torch's ``eye_out_cpu``:
# ``out`` resized, zeroed, then the diagonal written directly, one write counted).
def _eye_sizes(n: int, m: int | None) -> tuple[int, int]:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return n, n if m is None else m


def _eye_out(n: int, m: int | None, out: Tensor) -> Tensor:
    shape = _eye_sizes(n, m)
    _resize(out, shape).zero_()
    if out.device is CPU and out.numel():
        elements = out._elements()
        k = builtins.min(shape)
        elements[np.arange(k), np.arange(k)] = _casting.checked_number(1, out._dtype)
    return out


def _eye(where: device, n: int, m: int | None, dtype: dtype | None, device: Any,
         pin_memory: builtins.bool | None) -> Tensor:
    shape = _eye_sizes(n, m)
    t = _contiguous(shape, _options(dtype, device, pin_memory), where)
    if where is CPU and t.numel():
        k = builtins.min(shape)
        t._elements()[np.arange(k), np.arange(k)] = _casting.checked_number(1, t._dtype)
    return t


for _where, _key in ((CPU, DispatchKey.CPU), (META, DispatchKey.Meta)):
    aten.eye.default.impl(_key)(
        lambda n, dtype, layout, device, pin_memory, where=_where: _eye(
            where, n, None, dtype, device, pin_memory))
    aten.eye.m.impl(_key)(
        lambda n, m, dtype, layout, device, pin_memory, where=_where: _eye(
            where, n, m, dtype, device, pin_memory))
_on_both(aten.eye.out, lambda n, out: _eye_out(n, None, out))
_on_both(aten.eye.m_out, _eye_out)

def _empty_strided(where: device, size: Sequence[int], stride: Sequence[int],
                   dtype: dtype | None, layout: Any, device: Any,
                   pin_memory: builtins.bool | None) -> Tensor:
    """``empty_strided``: a fresh storage of ``1 + sum((size_k - 1) * stride_k)`` elements
    (0 when empty) seen with exactly ``size`` and ``stride``.

    Raises:
        RuntimeError: sizes and strides of different lengths, a negative size or stride.
    """
    d = _options(dtype, device, pin_memory)
    shape, stride = tuple(size), tuple(stride)
    if len(stride) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match "
                           f"dimensionality of strides ({len(stride)})")
    _check_sizes(shape)
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} "
                           f"and strides={list(stride)}")
    return _allocate(shape, stride, d, where)


@aten.empty_strided.default.impl(DispatchKey.Meta)
def _empty_strided_meta(size: Sequence[int], stride: Sequence[int], dtype: dtype | None,
                        layout: Any, device: Any, pin_memory: builtins.bool | None) -> Tensor:
    return _empty_strided(META, size, stride, dtype, layout, device, pin_memory)


@aten.empty_strided.default.impl(DispatchKey.CPU)
def _empty_strided_cpu(size: Sequence[int], stride: Sequence[int], dtype: dtype | None,
                       layout: Any, device: Any, pin_memory: builtins.bool | None) -> Tensor:
    # torch leaves the memory uninitialised; reftensor's fresh storage is zero-filled
    return _empty_strided(CPU, size, stride, dtype, layout, device, pin_memory)


def _new_empty_strided(where: device, self: Tensor, size: Sequence[int],
                       stride: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
                       pin_memory: builtins.bool | None) -> Tensor:
    """``new_empty_strided``: :func:`_empty_strided` with ``self``'s dtype unless given
    (torch's kernel calls ``empty_strided`` with ``self``'s options)."""
    return _empty_strided(where, size, stride, dtype or self._dtype, layout, device,
                          pin_memory)


aten.new_empty_strided.default.impl(DispatchKey.Meta)(
    lambda *a: _new_empty_strided(META, *a))
aten.new_empty_strided.default.impl(DispatchKey.CPU)(
    lambda *a: _new_empty_strided(CPU, *a))


# ---------------------------------------------------------------------- ranges
def _arange_dtype(start: Any, end: Any, step: Any, dtype: dtype | None) -> dtype:
    """Without ``dtype``: int64 for integer bounds and step, the default dtype if any is a
    float.

    Raises:
        NotImplementedError: bool, as torch's CPU kernel.
    """
    if dtype is None:
        floating = any(isinstance(x, builtins.float) for x in (start, end, step))
        return dtypes.get_default_dtype() if floating else dtypes.int64
    if dtype is dtypes.bool:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    return dtype


def _arange_length(start: Any, end: Any, step: Any, d: dtype) -> int:
    """How many values ``arange`` makes: ``ceil((end - start) / step)``, counted as torch
    counts them.

    Raises:
        RuntimeError: ``step == 0``, a step whose sign points away from ``end``, a bound
            that is not finite.
        ValueError: a step that truncates to 0 in int64 (``arange(0, 1, 0.5,
            dtype=int64)``), torch's error class there.
    """
    if not all(math.isfinite(float(x)) for x in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d is dtypes.int64:
        # torch reads the bounds and the step in int64 (truncated toward zero) and counts
        # in int64
        xstart, xend, xstep = (math.trunc(x) for x in (start, end, step))
        if xstep == 0:
            raise ValueError("step must be nonzero")
        sign = (xstep > 0) - (xstep < 0)
        return _c_div(xend - xstart + xstep - sign, xstep)
    return math.ceil((float(end) - float(start)) / float(step))


def _arange_values(start: Any, step: Any, length: int, d: dtype) -> np.ndarray:
    """``start + i * step`` for ``i < length``, in ``d``.

    Floats: torch accumulates in float64 for float32/float64 and in float32 for the 16-bit
    types, computing ``start + step * i`` and rounding once to the result dtype. torch's
    vectorised kernel restarts from a float32 base every 8 elements (on a CPU with AVX2 or
    better), so in a float tensor of 16 or more elements a value can differ from torch's
    in the last bit. Integers: the start and step truncated to int64, the values exact in
    int64, then wrapped into the dtype (``arange(-3, 0, dtype=uint8)`` is 253, 254, 255).
    """
    if d.is_floating_point:
        work = np.float32 if d.itemsize == 2 else np.float64
        wide = np.longdouble
        i = np.arange(length).astype(wide)
        return (wide(work(start)) + wide(work(step)) * i).astype(work).astype(d.numpy)
    xstart, xstep = math.trunc(start), math.trunc(step)
    return (xstart + xstep * np.arange(length, dtype=np.int64)).astype(d.numpy)


def _arange(where: device, start: Any, end: Any, step: Any, dtype: dtype | None, device: Any,
            pin_memory: builtins.bool | None) -> Tensor:
    d = _options(_arange_dtype(start, end, step, dtype), device, pin_memory)
    length = _arange_length(start, end, step, d)
    if where is META and not d.is_floating_point and math.trunc(step) == 0:
        # torch's meta arange (a decomposition) steps in the integer dtype itself, where the
        # CPU kernel steps in float64: arange(0, 10, 0.5, dtype=int32) is 20 zeros on the CPU
        raise RuntimeError("step must be nonzero")
    t = _allocate((length,), layout.contiguous_strides((length,)), d, where)
    if where is not META:
        t._storage._typed(d.numpy)[...] = _arange_values(start, step, length, d)
    return t


@aten.arange.default.impl(DispatchKey.Meta)
def _arange_end_meta(end: Any, dtype: dtype | None, layout: Any, device: Any,
                     pin_memory: builtins.bool | None) -> Tensor:
    return _arange(META, 0, end, 1, dtype, device, pin_memory)


@aten.arange.default.impl(DispatchKey.CPU)
def _arange_end_cpu(end: Any, dtype: dtype | None, layout: Any, device: Any,
                    pin_memory: builtins.bool | None) -> Tensor:
    return _arange(CPU, 0, end, 1, dtype, device, pin_memory)


@aten.arange.start.impl(DispatchKey.Meta)
def _arange_start_meta(start: Any, end: Any, dtype: dtype | None, layout: Any, device: Any,
                       pin_memory: builtins.bool | None) -> Tensor:
    return _arange(META, start, end, 1, dtype, device, pin_memory)


@aten.arange.start.impl(DispatchKey.CPU)
def _arange_start_cpu(start: Any, end: Any, dtype: dtype | None, layout: Any, device: Any,
                      pin_memory: builtins.bool | None) -> Tensor:
    return _arange(CPU, start, end, 1, dtype, device, pin_memory)


@aten.arange.start_step.impl(DispatchKey.Meta)
def _arange_step_meta(start: Any, end: Any, step: Any, dtype: dtype | None, layout: Any,
                      device: Any, pin_memory: builtins.bool | None) -> Tensor:
    return _arange(META, start, end, step, dtype, device, pin_memory)


@aten.arange.start_step.impl(DispatchKey.CPU)
def _arange_step_cpu(start: Any, end: Any, step: Any, dtype: dtype | None, layout: Any,
                     device: Any, pin_memory: builtins.bool | None) -> Tensor:
    return _arange(CPU, start, end, step, dtype, device, pin_memory)


def _arange_out(start: Any, end: Any, step: Any, out: Tensor) -> Tensor:
    """``arange`` into ``out``, in its dtype: an ``out`` with as many elements keeps its
    shape (the values in its logical order); another is resized to 1-d, with torch's
    warning when it had elements."""
    values = aten.arange.start_step.call(start, end, step, out._dtype, None, out.device, None)
    n = values._shape[0]
    if out.numel() != n and out.numel() > 0:
        warnings.warn(
            f"The number of elements in the out tensor of shape {list(out._shape)} is "
            f"{out.numel()} which does not match the computed number of elements {n}. Note "
            "that this may occur as a result of rounding error. The out tensor will be "
            f"resized to a tensor of shape ({n},).", UserWarning, stacklevel=4)
    if out.numel() != n:
        _resize(out, (n,))
    return out.copy_(values.reshape(out._shape))


def _arange_end_out(end: Any, out: Tensor) -> Tensor:
    return _arange_out(0, end, 1, out)


_on_both(aten.arange.out, _arange_end_out)
_on_both(aten.arange.start_out, _arange_out)


def _c_div(a: int, b: int) -> int:
    """C's integer division: the quotient rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _linspace_dtype(steps: int, dtype: dtype | None) -> dtype:
    """The result's dtype (the default float dtype without one).

    Raises:
        RuntimeError: ``steps < 0``. NotImplementedError: bool with 2 steps or more, as
            torch's CPU kernel (0 steps write nothing, 1 step fills ``start``).
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is dtypes.bool and steps > 1:
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    return dtype or dtypes.get_default_dtype()


def _linspace_values(start: Any, end: Any, steps: int, d: dtype) -> np.ndarray:
    """``steps`` evenly spaced values from ``start`` to ``end`` in ``d``, as torch's CPU
    kernel computes them: the first half counts up from ``start``, the second half down
    from ``end`` (so both ends are exact), each a fused multiply-add (one rounding).
    Floats are computed in the dtype (its vectorised kernel groups elements, so a value may
    differ from torch's in the last bit); integers as below."""
    if d is dtypes.bool:  # (one step)
        return np.array([start], dtype=np.bool_)
    if not d.is_floating_point:
        return _integral_linspace(start, end, steps, d).astype(d.numpy)
    work = d.numpy
    lo, hi = work.type(start), work.type(end)
    if steps == 1:
        return np.array([lo], dtype=work)
    with np.errstate(all="ignore"):
        step = (hi - lo) / work.type(max(steps - 1, 1))
        # float32/float64: ``start + step * i`` with one rounding, which a wider type
        # reproduces. 16-bit types: every operation rounds to the dtype, as NumPy's float16
        # and ml_dtypes' bfloat16 also do.
        wide = np.longdouble if work.itemsize >= 4 else work.type
        i = np.arange(steps)
        up = wide(lo) + wide(step) * i.astype(wide)
        down = wide(hi) - wide(step) * (steps - i - 1).astype(wide)
        return np.where(i < steps // 2, up, down).astype(work)


def _integral_linspace(start: Any, end: Any, steps: int, d: dtype) -> np.ndarray:
    """torch's integer linspace: the bounds converted to the dtype first (with its range
    check), the step ``(end - start) / (steps - 1)`` in float64; the first half ``start +
    step * i``, the second half ``end - step * (steps - 1 - i)``, each a fused
    multiply-add rounded once to float64 (long double holds the product exactly), then
    truncated toward zero (``linspace(-9, 17, 11)``'s element 5 is ``17 - 2.6 * 5``, just
    below 4 before rounding: 3)."""
    if steps == 1:  # (torch fills ``start``; ``end`` is not converted)
        return np.array([int(_casting.checked_number(start, d))], dtype=np.int64)
    lo, hi = (int(_casting.checked_number(x, d)) for x in (start, end))
    step = (float(hi) - float(lo)) / (steps - 1)
    wide = np.longdouble
    i = np.arange(steps)
    up = (wide(lo) + wide(step) * i.astype(wide)).astype(np.float64)
    down = (wide(hi) - wide(step) * (steps - 1 - i).astype(wide)).astype(np.float64)
    return np.trunc(np.where(i < steps // 2, up, down)).astype(np.int64)


def _linspace(where: device, start: Any, end: Any, steps: int, dtype: dtype | None,
              device: Any, pin_memory: builtins.bool | None) -> Tensor:
    d = _options(_linspace_dtype(steps, dtype), device, pin_memory)
    if not d.is_floating_point:  # the range check of the bounds (1 step: ``start`` only)
        for bound in (start, end)[:min(steps, 2)]:
            _casting.checked_number(bound, d)
    t = _allocate((steps,), layout.contiguous_strides((steps,)), d, where)
    if where is not META and steps:
        t._storage._typed(d.numpy)[...] = _linspace_values(start, end, steps, d)
    return t


def _linspace_bound(x: Any, name: str, other: Any, other_name: str) -> Any:
    """A tensor bound: a 0-d one is read as its number (on the meta device: 0, as nothing
    is read); one with dims is refused, in torch's words, with the other bound if it is one
    too."""
    wrong = [f"{n} with {b.dim()} dimension(s)" for n, b in ((name, x), (other_name, other))
             if isinstance(b, Tensor) and b.dim() != 0]
    if wrong:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but "
                           f"got {' and '.join(wrong)}.")
    if not isinstance(x, Tensor):
        return x
    return 0 if x.is_meta else x.item()


def _bounds(start: Any, end: Any) -> tuple[Any, Any]:
    return (_linspace_bound(start, "start", end, "end"),
            _linspace_bound(end, "end", start, "start"))


def _register_linspace(overload: Any) -> None:
    """The CPU and Meta kernels of one ``linspace`` overload (numbers or tensors as bounds:
    the same kernels)."""
    def make(where: device) -> Callable[..., Tensor]:
        def kernel(start: Any, end: Any, steps: int, dtype: dtype | None, layout: Any,
                   device: Any, pin_memory: builtins.bool | None) -> Tensor:
            lo, hi = _bounds(start, end)
            return _linspace(where, lo, hi, steps, dtype, device, pin_memory)

        return kernel

    overload.impl(DispatchKey.CPU)(make(CPU))
    overload.impl(DispatchKey.Meta)(make(META))


def _linspace_out(start: Any, end: Any, steps: int, out: Tensor) -> Tensor:
    """``linspace`` into ``out``, in its dtype: an ``out`` of ``steps`` elements keeps its
    shape; another is resized to ``(steps,)`` (no warning, as torch)."""
    values = aten.linspace.default.call(*_bounds(start, end), steps, out._dtype, None,
                                        out.device, None)
    if out.numel() != steps:
        _resize(out, (steps,))
    return out.copy_(values.reshape(out._shape))


for _overload in (aten.linspace.default, aten.linspace.Tensor_Tensor,
                  aten.linspace.Tensor_Scalar, aten.linspace.Scalar_Tensor):
    _register_linspace(_overload)
for _overload in (aten.linspace.out, aten.linspace.Tensor_Tensor_out,
                  aten.linspace.Tensor_Scalar_out, aten.linspace.Scalar_Tensor_out):
    _on_both(_overload, _linspace_out)


# ---------------------------------------------------------------------- views
def as_strided(
    input: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None = None,
) -> Tensor:
    """A view of ``input``'s storage with any shape, stride and offset (``torch.as_strided``).

    Windows may overlap (several indices reaching one storage element); the furthest element
    must still lie inside the storage. ``storage_offset`` defaults to the input's.

    Raises:
        RuntimeError: lengths differ, a negative size, stride or offset, or a layout that
            reaches past the end of the storage (torch's "out of bounds for storage" message).
    """
    shape = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    if len(shape) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} vs {len(shape)}"
        )
    _check_sizes(shape)
    if any(s < 0 for s in stride):
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, "
            f"got strides: {list(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = input.element_size()
    needed = layout.required_storage_elements(shape, stride, offset) * itemsize
    have = input.untyped_storage().nbytes()
    if needed > have and not input.is_meta:  # a meta storage has no bytes to run past
        raise RuntimeError(
            f"setStorage: sizes {list(shape)}, strides {list(stride)}, storage offset "
            f"{offset}, and itemsize {itemsize} requiring a storage size of {needed} are "
            f"out of bounds for storage of size {have}"
        )
    return Tensor._make(input.untyped_storage(), shape, stride, offset, input.dtype, base=input)


@aten.lift_fresh_copy.default.impl(DispatchKey.CPU)
def _lift_fresh_copy(self: Tensor) -> Tensor:
    """``lift_fresh_copy``: a contiguous copy (what make_fx records for ``lift_fresh``)."""
    return self._copy_with_strides(layout.contiguous_strides(self._shape), self._dtype)


@aten.lift_fresh_copy.default.impl(DispatchKey.Meta)
def _lift_fresh_copy_meta(self: Tensor) -> Tensor:
    return _allocate(self._shape, layout.contiguous_strides(self._shape), self._dtype, META)
