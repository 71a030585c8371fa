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
from .device import CPU, META, as_device, device
from .dtypes import dtype
from .layout import memory_format
from .storage import UntypedStorage
from .tensor import Tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "empty_strided",
    "arange",
    "linspace",
    "as_strided",
]

# ---------------------------------------------------------------------- helpers
def _parse_size(name: str, args: tuple[Any, ...]) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape ``(2, 3)``.

    Raises:
        TypeError: a size that is not an int.
        RuntimeError: a negative size (torch's message).
    """
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(args) == 1 and isinstance(args[0], Sequence):
        args = tuple(args[0])
    for s in args:
        if isinstance(s, Tensor):
            s = s.__index__()
        if not isinstance(s, int):
            raise TypeError(
                f"{name}(): argument 'size' (position 1) must be tuple of ints, "
                f"not {type(s).__name__}"
            )
    shape = tuple(int(s) for s in args)
    _check_sizes(shape)
    return shape


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
            data = data.item()
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
    where = as_device(device, copying=True)
    if isinstance(data, Tensor):
        where = data.device if device is None else where  # a tensor stays on its device
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() rather than reftensor.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        copied = data.detach().to(dtype=dtype or data.dtype, device=where, copy=True).contiguous()
        return _finish(copied, requires_grad)
    if isinstance(data, np.ndarray):
        if any(s < 0 for s in data.strides):
            data = np.ascontiguousarray(data)
        # torch wraps the array, then copies it keeping its layout when that is dense.
        copied = from_numpy(data).to(dtype=dtype, device=where, copy=True)
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
    return _from_array(values, target, requires_grad, where)


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
    object changes both.

    Raises:
        TypeError: not an ndarray, or a dtype torch has no counterpart for.
        ValueError: negative strides, or strides that are not a multiple of the itemsize.
    """
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
            stacklevel=2,
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
    if isinstance(data, Tensor):
        return data.to(dtype=dtype or data.dtype, device=where)
    if isinstance(data, np.ndarray):
        return from_numpy(data).to(dtype=dtype, device=where)
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
    dtype's range as torch's ``Scalar.to<T>()``). The storage holds exactly the elements, in
    order, so NumPy fills it whatever the number of dims."""
    t._storage._typed(t._dtype.numpy)[...] = _casting.checked_number(value, t._dtype)
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
        needed = (out._storage_offset
                  + layout.required_storage_elements(shape, stride)) * out._dtype.itemsize
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
def _zeros_meta(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
                pin_memory: builtins.bool | None) -> Tensor:
    return _contiguous(size, _options(dtype, device, pin_memory), META)


@aten.zeros.default.impl(DispatchKey.CPU)
def _zeros_cpu(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
               pin_memory: builtins.bool | None) -> Tensor:
    if any(n < 0 for n in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _contiguous(size, _options(dtype, device, pin_memory), CPU)  # zero-filled


@aten.ones.default.impl(DispatchKey.Meta)
def _ones_meta(size: Sequence[int], dtype: dtype | None, layout: Any, device: Any,
               pin_memory: builtins.bool | None) -> Tensor:
    return _contiguous(size, _options(dtype, device, pin_memory), META)


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


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor with fresh storage laid out with exactly ``stride`` (``torch.empty_strided``).

    The storage holds ``1 + sum((size_k - 1) * stride_k)`` elements (0 when empty).

    Raises:
        RuntimeError: negative sizes, or ``size`` and ``stride`` of different lengths.
    """
    where = as_device(device)
    shape = _parse_size("empty_strided", (size,))
    stride = tuple(int(s) for s in stride)
    if len(stride) != len(shape):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} vs {len(shape)}"
        )
    d = dtype or dtypes.get_default_dtype()
    return _finish(_allocate(shape, stride, d, where), requires_grad)


def arange(
    start: builtins.float,
    end: builtins.float | None = None,
    step: builtins.float = 1,
    *,
    dtype: dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``[start, start + step, ...]`` stopping before ``end`` (``torch.arange``).

    ``arange(n)`` counts ``0 .. n-1``. The length is ``ceil((end - start) / step)``. Without
    ``dtype``, all-int arguments give int64, any float gives the default dtype. Values are
    ``start + i * step`` rounded once, as torch's scalar kernel does. torch's vectorised
    kernel restarts from a float32 base every 8 elements (on a CPU with AVX2 or better), so
    in a float tensor of 16 or more elements a value can differ from torch's in the last bit.

    Raises:
        RuntimeError: ``step == 0``, a step whose sign points away from ``end``, or a
            non-finite bound.
    """
    where = as_device(device)
    if end is None:
        start, end = 0, start
    if any(isinstance(x, builtins.float) for x in (start, end, step)):
        d = dtype or dtypes.get_default_dtype()
    else:
        d = dtype or dtypes.int64
    if not all(math.isfinite(float(x)) for x in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d.is_floating_point:
        length = math.ceil((float(end) - float(start)) / float(step))
        # torch accumulates in float64 for float32/float64 and in float32 for the 16-bit
        # types, computing `start + step * i` and rounding once to the result dtype.
        work = np.float32 if d.itemsize == 2 else np.float64
        wide = np.longdouble
        i = np.arange(length).astype(wide)
        values = (wide(work(start)) + wide(work(step)) * i).astype(work)
    else:
        # torch reads the bounds and the step in int64 (truncated toward zero), then counts
        # ``start + i * step``; the result wraps into the dtype (arange(-3, 0, dtype=uint8)).
        xstart, xend, xstep = (math.trunc(x) for x in (start, end, step))
        if d is dtypes.int64:
            if xstep == 0:  # a fractional step that truncates to 0
                raise ValueError("step must be nonzero")
            sign = (xstep > 0) - (xstep < 0)
            length = _c_div(xend - xstart + xstep - sign, xstep)  # int64 arithmetic
        else:
            length = math.ceil((float(end) - float(start)) / float(step))
        values = xstart + xstep * np.arange(length, dtype=np.int64)  # exact in int64
    return _from_array(values.astype(d.numpy), d, requires_grad, where)


def _c_div(a: int, b: int) -> int:
    """C's integer division: the quotient rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def linspace(
    start: builtins.float,
    end: builtins.float,
    steps: int,
    *,
    dtype: dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (``torch.linspace``).

    Like torch, the first half counts up from ``start`` and the second half counts down from
    ``end`` (so both ends are exact), computed in the result dtype. torch's vectorised kernel
    groups elements, so a value may differ from torch's in the last bit.

    Raises:
        TypeError: ``steps`` is not an int. RuntimeError: ``steps < 0``.
    """
    where = as_device(device)
    if not isinstance(steps, int) or isinstance(steps, builtins.bool):
        raise TypeError(
            f"linspace(): argument 'steps' must be int, not {type(steps).__name__}"
        )
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _linspace_bound(start, end)
    d = dtype or dtypes.get_default_dtype()
    if not d.is_floating_point:
        values = _integral_linspace(start, end, steps, d)
        return _from_array(values.astype(d.numpy), d, requires_grad, where)
    work = d.numpy
    lo, hi = work.type(start), work.type(end)
    if steps == 1:
        values = np.array([lo], dtype=work)
    else:
        with np.errstate(all="ignore"):
            step = (hi - lo) / work.type(max(steps - 1, 1))
            # float32/float64: torch computes `start + step * i` with one rounding (a fused
            # multiply-add), which a wider type reproduces. 16-bit types: every operation
            # rounds to the dtype, as NumPy's float16 and ml_dtypes' bfloat16 also do.
            wide = np.longdouble if work.itemsize >= 4 else work.type
            i = np.arange(steps)
            halfway = steps // 2
            up = wide(lo) + wide(step) * i.astype(wide)
            down = wide(hi) - wide(step) * (steps - i - 1).astype(wide)
            values = np.where(i < halfway, up, down).astype(work)
    return _from_array(values.astype(d.numpy), d, requires_grad, where)


def _linspace_bound(start: Any, end: Any) -> tuple[Any, Any]:
    """A 0-d tensor bound is read as its number; a bound with dims is refused, in torch's
    words."""
    wrong = [f"{name} with {x.dim()} dimension(s)" for name, x in (("start", start), ("end", end))
             if isinstance(x, Tensor) and x.dim() != 0]
    if wrong:
        raise RuntimeError("linspace only supports 0-dimensional start and end tensors, but "
                           f"got {' and '.join(wrong)}.")
    return tuple(x.item() if isinstance(x, Tensor) else x for x in (start, end))


def _integral_linspace(start: Any, end: Any, steps: int, d: dtype) -> np.ndarray:
    """torch's integer linspace: the bounds converted to the dtype first (with its range
    check), the step in float64, each value truncated toward zero."""
    lo, hi = (int(_casting.checked_number(x, d)) for x in (start, end))
    if steps == 1:
        return np.array([lo], dtype=np.int64)
    step = (float(hi) - float(lo)) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    up = lo + step * i
    down = hi - step * (steps - i - 1)
    return np.trunc(np.where(i < steps // 2, up, down)).astype(np.int64)


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

