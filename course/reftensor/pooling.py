"""Pooling (chapter 10, the capstone): the kernels of ``max_pool2d_with_indices``,
``avg_pool2d`` and their backward ops, and the composites ``max_pool2d``, ``max_pool1d``,
``max_pool1d_with_indices`` and ``avg_pool1d``, as torch 2.13 computes them on the CPU.

A 2-d pool slides a ``kH x kW`` window over the last two dims of an input ``(C, H, W)`` or
``(N, C, H, W)``, ``stride`` apart, its taps ``dilation`` apart, over the input padded by
``padding`` on each side, and reduces each window to one number: its maximum, or its mean.
The output has ``floor((H + 2 * padH - dilationH * (kH - 1) - 1) / dH) + 1`` rows (``ceil``
with ``ceil_mode``, but the last window must start inside the input or its left padding).

Here each plane is padded with NumPy (with ``-inf``, or the dtype's lowest integer, for the
maximum; with zeros for the mean), and the windows are one strided view of it
(``as_strided``: sizes ``(planes, OH, OW, kH, kW)``, strides ``(plane, dH * row, dW,
dilationH * row, dilationW)``); the reductions run over the last two dims of that view:

* the maximum is torch's loop: the first maximum in the window's row-major order wins, a
  nan wins over any number (the last nan of the window), and a window whose elements all
  equal ``-inf`` (or the lowest integer) gives its first element inside the input. The
  indices are flat positions in the input's ``H * W`` plane (int64).
* the mean adds the window's elements one by one in row-major order, in the dtype's
  ``opmath`` type (float32 for float16 and bfloat16, int64 for int64), and divides by
  ``divisor_override``, or by the window's size clipped to the padded input
  (``count_include_pad``), or by the number of its elements inside the input. int64 divides
  as C++ does (towards zero).

The output is laid out as torch's: channels-last for a 4-d input whose layout looks
channels-last (``suggest_memory_format``), contiguous otherwise; the indices likewise.

The backward ops add each output's gradient into a zero gradient of the input's shape: at
its index for the maximum, ``grad / divisor`` over its window for the mean, in the order of
torch's loops (outputs in row-major order), so float sums are torch's bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes, factories, iterator, layout, out_arguments
from ._casting import cast
from ._ops import DispatchKey, aten
from .autograd.grad_mode import is_grad_enabled
from .convolution import _window_view
from .device import CPU, META
from .dtypes import dtype
from .promotion import C_TYPE_NAMES, OUT_DTYPE_RULES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []  # the ops are the table's (reftensor.max_pool2d, ...)


# ------------------------------------------------------------------ checks and sizes
def _two(name: str, what: str, values: Sequence[int], *, empty: bool = False) -> None:
    """torch's ``kernel_size must either be a single int, or a tuple of two ints``."""
    if len(values) in (1, 2) or (empty and not values):
        return
    words = {"kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
             "stride": "stride must either be omitted, a single int, or a tuple of two ints",
             "padding": "padding must either be a single int, or a tuple of two ints",
             "dilation": "dilation must be either a single int, or a tuple of two ints"}
    raise RuntimeError(f"{name}: {words[what]}")


def _pair(values: Sequence[int], default: Sequence[int] | None = None) -> tuple[int, int]:
    if not values and default is not None:
        return default[0], default[1]
    return int(values[0]), int(values[-1] if len(values) == 2 else values[0])


def output_size(size: int, kernel: int, pad: int, stride: int, dilation: int,
                ceil_mode: bool) -> int:
    """torch's ``pooling_output_shape``: its checks, then the floor (or ceil) of the
    windows that fit, the last one starting inside the input or its left padding."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={kernel} and dilation={dilation}")
    return pool_output_size(size, kernel, pad, stride, dilation, ceil_mode)


def pool_output_size(size: int, kernel: int, padding: int, stride: int, dilation: int,
                     ceil_mode: bool) -> int:
    """The length of one spatial dim of a pool's output (``F.max_pool2d``'s, dim by dim).

    Args:
        size: the input's length along the dim, an int >= 1.
        kernel: the window's length, an int >= 1.
        padding: added on each side, an int with ``0 <= padding <= kernel // 2``.
        stride: the step between two windows, an int >= 1.
        dilation: the step between two taps of a window, an int >= 1.
        ceil_mode: whether a last window that overhangs the padded input counts.

    Returns:
        The number of windows (an int; the pool has checked its arguments, and a result
        below 1 is its error).
    """
    # BEGIN PIECE pool_output_size
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("pool_output_size")(size, kernel, padding, stride, dilation, ceil_mode)
    # END PIECE


def _shape_check(input: Tensor, k: tuple[int, int], d: tuple[int, int],
                 pad: tuple[int, int], dil: tuple[int, int], out: tuple[int, int]) -> None:
    """torch's ``pool2d_shape_check``."""
    (kH, kW), (dH, dW), (padH, padW), (dilH, dilW) = k, d, pad, dil
    if not (kW > 0 and kH > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kH} kW: "
                           f"{kW}")
    if not (dW > 0 and dH > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {dH} dW: {dW}")
    if not (dilH > 0 and dilW > 0):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilH} "
                           f"dilationW: {dilW}")
    shape, ndim = input._shape, input.dim()
    valid = ndim >= 3 and shape[1] != 0 and shape[2] != 0
    if not ((ndim == 3 and shape[0] != 0 and valid) or (ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:[{', '.join(map(str, shape))}]")
    if not (kW // 2 >= padW and kH // 2 >= padH):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got padW = {padW}, padH = {padH}, kW = {kW}, kH = {kH}")
    if out[0] < 1 or out[1] < 1:
        C, H, W = shape[-3:]
        raise RuntimeError(f"Given input size: ({C}x{H}x{W}). Calculated output size: "
                           f"({C}x{out[0]}x{out[1]}). Output size is too small")


class _Pool2d:
    """One call's geometry, checked as torch's meta functions check it."""

    def __init__(self, name: str, input: Tensor, kernel_size: Sequence[int],
                 stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                 ceil_mode: bool) -> None:
        _two(name, "kernel_size", kernel_size)
        self.k = _pair(kernel_size)
        _two(name, "stride", stride, empty=True)
        self.d = _pair(stride, self.k)
        _two(name, "padding", padding)
        self.pad = _pair(padding)
        if name == "max_pool2d":
            _two(name, "dilation", dilation)
            self.dil = _pair(dilation)
            if input.dim() not in (3, 4):
                raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
        else:
            self.dil = (1, 1)
        self.H, self.W = input.size(-2), input.size(-1)
        input.size(-3)  # (torch's ``input.size(-3)``: IndexError for fewer dims)
        self.out = (output_size(self.H, self.k[0], self.pad[0], self.d[0], self.dil[0],
                                ceil_mode),
                    output_size(self.W, self.k[1], self.pad[1], self.d[1], self.dil[1],
                                ceil_mode))
        _shape_check(input, self.k, self.d, self.pad, self.dil, self.out)
        self.shape = (*input._shape[:-2], *self.out)
        channels_last = input.dim() == 4 and layout.strides_like_channels_last(
            input._shape, input._stride)
        self.stride = (layout.channels_last_strides(self.shape) if channels_last
                       else layout.contiguous_strides(self.shape))
        self.channels_last = channels_last

    def new(self, shape: tuple[int, ...], d: dtype, where: Any) -> Tensor:
        strides = (layout.channels_last_strides(shape) if self.channels_last
                   else layout.contiguous_strides(shape))
        return factories._allocate(shape, strides, d, where)

    def windows(self, planes: np.ndarray, fill: Any) -> np.ndarray:
        """``planes`` ``(P, H, W)`` padded with ``fill``, seen as ``(P, OH, OW, kH, kW)``
        windows (one ``as_strided`` view of the padded copy)."""
        (kH, kW), (dH, dW), (padH, padW), (dilH, dilW) = self.k, self.d, self.pad, self.dil
        (OH, OW), H, W = self.out, self.H, self.W
        bottom = max(0, (OH - 1) * dH - padH + (kH - 1) * dilH - (H - 1))
        right = max(0, (OW - 1) * dW - padW + (kW - 1) * dilW - (W - 1))
        padded = np.full((planes.shape[0], padH + H + bottom, padW + W + right), fill,
                         dtype=planes.dtype)
        padded[:, padH:padH + H, padW:padW + W] = planes
        # the planes as (1, P, H, W), the batch and channels of the convolution's view
        view = _window_view(padded[None], self.k, self.d, self.dil, self.out)
        return view[0]

    def positions(self) -> np.ndarray:
        """The flat index ``h * W + w`` of each window tap, -1 in the padding:
        ``(OH, OW, kH, kW)``."""
        plane = np.arange(self.H * self.W, dtype=np.int64).reshape(1, self.H, self.W)
        return self.windows(plane, -1)[0]

    def first_inside(self) -> np.ndarray:
        """torch's start index of each window: its first row and column inside the input
        (``while (ih0 < 0) ih0 += dilationH``), ``(OH, OW)``."""
        starts = []
        for o, d, p, dil in zip(self.out, self.d, self.pad, self.dil, strict=True):
            s = np.arange(o, dtype=np.int64) * d - p
            starts.append(np.where(s < 0, s + (-s + dil - 1) // dil * dil, s))
        return starts[0][:, None] * self.W + starts[1][None, :]


def _planes(input: Tensor, compute: Any) -> np.ndarray:
    """The input's values as ``(P, H, W)`` planes in the ``compute`` NumPy dtype."""
    values = input._elements()
    return values.astype(compute).reshape(-1, *input._shape[-2:])  # (exact: a wider type)


def _write(out: Tensor, values: np.ndarray) -> Tensor:
    out._elements()[...] = cast(values.reshape(out._shape), out._dtype)
    return out


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[d.name]}\'')


def _opmath(d: dtype) -> Any:
    """The NumPy dtype torch's CPU kernels compute in: float32 for the half types."""
    if d in (dtypes.float16, dtypes.bfloat16):
        return np.float32
    return d.numpy


# ------------------------------------------------------------------ max_pool2d_with_indices
def max_pool_window(windows: np.ndarray, positions: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each pooling window and where it is, as ``F.max_pool2d(...,
    return_indices=True)`` gives them.

    Args:
        windows: ``(..., K)``, float64 or int64: each window's ``K`` taps in row-major order
            (the padding's taps hold ``-inf``, or the input dtype's lowest integer).
        positions: ``(..., K)`` int64, the same shape: each tap's flat index ``h * W + w``
            in its input plane, ``-1`` for a tap in the padding. Every window has at least
            one tap inside the input.

    Returns:
        ``(values, indices)``, each of shape ``windows.shape[:-1]`` (the windows' dtype, and
        int64), torch's CPU loop's: starting from the window's first tap inside the input,
        a later tap inside the input replaces the maximum when it is greater, or is a nan.
    """
    # BEGIN PIECE max_pool_window
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("max_pool_window")(windows, positions)
    # END PIECE


def _max_windows(geometry: _Pool2d, planes: np.ndarray, floating: bool, lowest: Any
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The maximum and its flat index for each window, as torch's loop picks them
    (``lowest``: the input dtype's, where torch's loop starts; a window with no element
    inside the input gives it, at torch's start index)."""
    P, (OH, OW), K = planes.shape[0], geometry.out, geometry.k[0] * geometry.k[1]
    windows = geometry.windows(planes, lowest).reshape(P, OH, OW, K)
    taps = geometry.positions().reshape(OH, OW, K)
    none = ~(taps >= 0).any(axis=-1)  # (only with a dilation: every tap in the padding)
    values, indices = max_pool_window(
        windows, np.broadcast_to(np.where(none[..., None], 0, taps), (P, OH, OW, K)))
    values = np.where(none, lowest, values)
    indices = np.where(none, geometry.first_inside(), indices)
    return values, indices


def max_pool2d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                            padding: Sequence[int], dilation: Sequence[int],
                            ceil_mode: bool) -> tuple[Tensor, Tensor]:
    """torch's ``max_pool2d_with_indices`` (its meta checks, then its CPU loop)."""
    geometry = _Pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)
    meta = self.device.type == "meta"
    where = META if meta else CPU
    output = geometry.new(geometry.shape, self._dtype, where)
    indices = geometry.new(geometry.shape, dtypes.int64, where)
    if meta:
        return output, indices
    if self._dtype is dtypes.bool:
        raise _not_implemented("max_pool2d", self._dtype)
    if output.numel() == 0:
        return output, indices
    floating = self._dtype.is_floating_point
    planes = _planes(self, np.float64 if floating else np.int64)
    lowest = -np.inf if floating else np.iinfo(self._dtype.numpy).min
    values, where_max = _max_windows(geometry, planes, floating, lowest)
    return _write(output, values), _write(indices, where_max)


def max_pool2d_with_indices_backward(grad_output: Tensor, self: Tensor,
                                     kernel_size: Sequence[int], stride: Sequence[int],
                                     padding: Sequence[int], dilation: Sequence[int],
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    """torch's ``max_pool2d_with_indices_backward``: zeros of ``self``'s shape (laid out as
    the forward's output), each output's gradient added at its index, outputs in order."""
    geometry = _Pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)
    _check_grad_dtype(grad_output, self)
    _check_grad_output(grad_output, geometry)
    _check_grad_output(indices, geometry)
    meta = self.device.type == "meta" or grad_output.device.type == "meta"
    grad_input = geometry.new(self._shape, grad_output._dtype, META if meta else CPU)
    if meta or grad_input.numel() == 0:
        return grad_input
    if not grad_output._dtype.is_floating_point:
        raise _not_implemented("max_pool2d_backward", grad_output._dtype)
    compute = _opmath(grad_output._dtype)
    P, HW = grad_input.numel() // (geometry.H * geometry.W), geometry.H * geometry.W
    sums = np.zeros((P, HW), dtype=compute)
    grads = grad_output._elements().astype(compute).reshape(P, -1)
    at = indices._elements().reshape(P, -1)
    # an index past its plane (a window with no element inside the input keeps torch's
    # start, which may lie outside): torch's loop adds at that offset of its buffer, in the
    # next plane, or past the end (nothing kept); laid out as torch's buffer is
    if geometry.channels_last:
        C = self._shape[1]
        flat = (np.arange(P)[:, None] // C * HW * C + at * C + np.arange(P)[:, None] % C)
        into = np.zeros(P * HW, dtype=compute)
        kept = (flat >= 0) & (flat < P * HW)
        np.add.at(into, flat[kept], grads[kept])
        sums = into.reshape(-1, HW, C).transpose(0, 2, 1).reshape(P, HW)
    else:
        flat = np.arange(P)[:, None] * HW + at
        kept = (flat >= 0) & (flat < P * HW)
        np.add.at(sums.reshape(-1), flat[kept], grads[kept])
    return _write(grad_input, sums)


def _check_grad_output(grad: Tensor, geometry: _Pool2d) -> None:
    """torch's ``check_dim_size`` of a backward op's ``grad_output`` (and ``indices``)."""
    ndim = len(geometry.shape)
    for dim, size in ((ndim - 3, geometry.shape[-3]), (ndim - 2, geometry.out[0]),
                      (ndim - 1, geometry.out[1])):
        if grad.dim() != ndim or grad._shape[dim] != size:
            got = grad._shape[dim] if dim < grad.dim() else "?"
            raise RuntimeError(f"Expected a tensor of dimension {ndim} and tensor.size[{dim}] "
                               f"== {size} but got: dimension {grad.dim()} and "
                               f"tensor.size[{dim}] = {got}")


def _check_grad_dtype(grad_output: Tensor, self: Tensor) -> None:
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {C_TYPE_NAMES[self._dtype.name]} for `gradOutput` "
                           f"but got dtype {C_TYPE_NAMES[grad_output._dtype.name]}")


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.max_pool2d_with_indices.default.impl(_key)(max_pool2d_with_indices)
    aten.max_pool2d_with_indices_backward.default.impl(_key)(max_pool2d_with_indices_backward)


@aten.max_pool2d.default.impl(DispatchKey.CompositeImplicitAutograd)
def max_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool) -> Tensor:
    """torch's composite: ``max_pool2d_with_indices``'s output (``MaxPool2DWithIndices
    Backward0``)."""
    return aten.max_pool2d_with_indices.default.call(self, kernel_size, stride, padding,
                                                     dilation, ceil_mode)[0]


# ------------------------------------------------------------------ avg_pool2d
_AVG_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64")


def _divisors(geometry: _Pool2d, count_include_pad: bool,
              divisor_override: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Each window's divisor ``(OH, OW)`` and which of its taps are inside the input
    ``(OH, OW, kH, kW)``."""
    inside = geometry.positions() >= 0
    if divisor_override is not None:
        return np.full(geometry.out, divisor_override, dtype=np.int64), inside
    if not count_include_pad:
        return inside.sum(axis=(-2, -1)), inside
    sizes = []
    for o, d, p, k, n in zip(geometry.out, geometry.d, geometry.pad, geometry.k,
                             (geometry.H, geometry.W), strict=True):
        start = np.arange(o, dtype=np.int64) * d - p
        sizes.append(np.minimum(start + k, n + p) - start)
    return sizes[0][:, None] * sizes[1][None, :], inside


def _divided(sums: np.ndarray, divisors: np.ndarray) -> np.ndarray:
    """``sum / divisor`` in the sums' type: C++'s integer division rounds towards zero."""
    if sums.dtype.kind == "f":  # (torch's result is never -0.0: 0 / -2 gives 0)
        return sums / divisors.astype(sums.dtype) + sums.dtype.type(0.0)
    quotient = np.abs(sums) // np.abs(divisors)
    return np.where((sums < 0) != (divisors < 0), -quotient, quotient)


def avg_pool2d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
               divisor_override: int | None) -> Tensor:
    """torch's ``avg_pool2d`` (its meta checks, then its CPU loop)."""
    geometry = _Pool2d("avg_pool2d", self, kernel_size, stride, padding, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    meta = self.device.type == "meta"
    output = geometry.new(geometry.shape, self._dtype, META if meta else CPU)
    if meta:
        return output
    if self._dtype.name not in _AVG_DTYPES:
        raise _not_implemented("avg_pool2d", self._dtype)
    if output.numel() == 0:
        return output
    compute = _opmath(self._dtype)
    windows = geometry.windows(_planes(self, compute), 0)
    P, (OH, OW) = windows.shape[0], geometry.out
    taps = windows.reshape(P, OH, OW, -1)
    sums = np.zeros((P, OH, OW), dtype=compute)
    for j in range(taps.shape[-1]):  # one by one, in the window's row-major order
        sums = sums + taps[..., j]
    divisors, _ = _divisors(geometry, count_include_pad, divisor_override)
    return _write(output, _divided(sums, divisors))


def avg_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size: Sequence[int],
                        stride: Sequence[int], padding: Sequence[int], ceil_mode: bool,
                        count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """torch's ``avg_pool2d_backward``: ``grad / divisor`` of each output added to every
    element of its window inside the input, outputs in order."""
    geometry = _Pool2d("avg_pool2d", self, kernel_size, stride, padding, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_grad_dtype(grad_output, self)
    _check_grad_output(grad_output, geometry)
    meta = self.device.type == "meta" or grad_output.device.type == "meta"
    grad_input = geometry.new(self._shape, self._dtype, META if meta else CPU)
    if meta or grad_input.numel() == 0:
        return grad_input
    if self._dtype.name not in _AVG_DTYPES:
        raise _not_implemented("avg_pool2d_backward_out_frame", self._dtype)
    compute = _opmath(self._dtype)
    divisors, inside = _divisors(geometry, count_include_pad, divisor_override)
    HW = geometry.H * geometry.W
    P = grad_input.numel() // HW
    grads = grad_output._elements().astype(compute).reshape(P, *geometry.out)
    deltas = _divided(grads, divisors)  # (P, OH, OW)
    taps = geometry.positions()  # (OH, OW, kH, kW)
    kept = inside.reshape(-1)
    targets = taps.reshape(-1)[kept]  # outputs in order, then each window's taps in order
    owner = np.repeat(np.arange(geometry.out[0] * geometry.out[1]),
                      inside.shape[-1] * inside.shape[-2])[kept]
    sums = np.zeros((P, HW), dtype=compute)
    np.add.at(sums, (np.arange(P)[:, None], targets[None, :]),
              deltas.reshape(P, -1)[:, owner])
    return _write(grad_input, sums)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.avg_pool2d.default.impl(_key)(avg_pool2d)
    aten.avg_pool2d_backward.default.impl(_key)(avg_pool2d_backward)


def _exact_dtype(result: Tensor, out: Tensor) -> None:
    """A structured kernel's ``out=`` has exactly the result's dtype (C++'s type names)."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {C_TYPE_NAMES[result._dtype.name]}"
                           f", but got {C_TYPE_NAMES[out._dtype.name]} instead")


def _structured_out(functional: Any, count: int) -> Any:
    """torch's structured ``out=`` kernel: the outs are checked (exact dtype) and resized
    first, then the op runs on its inputs as they are by then (an ``out`` that is the input
    itself was resized with it), and writes into the outs."""
    def writes(*values: Any) -> Any:
        inputs, outs = list(values[:-count]), values[-count:]
        found = functional.call(*inputs)
        results = found if isinstance(found, tuple) else (found,)
        for out in outs:
            iterator.assert_no_internal_overlap(out)
            for t in inputs:
                if isinstance(t, Tensor) and t is not out:
                    iterator.assert_no_partial_overlap(out, t)
        for result, out in zip(results, outs, strict=True):
            _exact_dtype(result, out)
        resized = False
        for result, out in zip(results, outs, strict=True):
            if out._shape != result._shape:
                iterator.resize_output(out, result._shape, result._stride)
                resized = True
        if functional is aten.avg_pool2d.default and outs[0] is inputs[0]:
            # (torch's kernel reads ``input.contiguous(format)``: the memory it writes, where
            # the input is already laid out so)
            t = outs[0]
            if t.dim() == 4 and t._suggest_memory_format() is layout.channels_last:
                if layout.is_channels_last_contiguous(t._shape, t._stride):
                    _avg_pool2d_into_itself_channels_last(t, *inputs[1:])
                    return t
            elif layout.is_contiguous(t._shape, t._stride):
                _avg_pool2d_into_itself(t, *inputs[1:])
                return t
        if resized and any(out is t for out in outs for t in inputs):
            found = functional.call(*inputs)
            results = found if isinstance(found, tuple) else (found,)
        for result, out in zip(results, outs, strict=True):
            out_arguments.writer(out, result)
        return tuple(outs) if count > 1 else outs[0]

    return writes


def _window_bounds(o: int, d: int, pad: int, k: int, size: int) -> tuple[int, int, int]:
    """torch's CPU loop's window along one dim: its first and end positions in the input
    (clipped) and its length counting the padding (clipped at the padded end)."""
    start = o * d - pad
    end = min(start + k, size + pad)
    return max(start, 0), min(end, size), end - start


def _avg_pool2d_into_itself_channels_last(
        t: Tensor, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> None:
    """``avg_pool2d(t, ..., out=t)`` of a channels-last ``t`` as torch's channels-last CPU
    loop (``cpu_avg_pool2d_channels_last``, one thread) runs it on one memory: output
    position by position (``n``, ``oh``, ``ow``), each over its lane of channels. float32,
    float64 and int64 sum into the lane itself (zeroed first: a window that holds the
    position reads its running sum) and divide it there; float16 and bfloat16 sum in a
    float32 buffer (the lane keeps its old values until the mean is written; a window
    wholly in the padding writes zeros)."""
    (kH, kW), (dH, dW) = _pair(kernel_size), _pair(stride, _pair(kernel_size))
    padH, padW = _pair(padding)
    reduced = t._dtype in (dtypes.float16, dtypes.bfloat16)
    compute = _opmath(t._dtype)
    lanes = t._elements().transpose(0, 2, 3, 1)  # (N, H, W, C): the memory's order
    N, H, W, C = lanes.shape
    for n in range(N):
        for oh in range(H):
            for ow in range(W):
                h0, h1, height = _window_bounds(oh, dH, padH, kH, H)
                w0, w1, width = _window_bounds(ow, dW, padW, kW, W)
                lane = lanes[n, oh, ow]
                if not reduced:
                    lane[...] = 0
                if h0 >= h1 or w0 >= w1:
                    lane[...] = 0
                    continue
                divisor = (divisor_override if divisor_override is not None else
                           height * width if count_include_pad else (h1 - h0) * (w1 - w0))
                divisors = np.full(C, divisor, dtype=np.int64)
                if reduced:
                    total = np.zeros(C, dtype=compute)
                    for ih in range(h0, h1):
                        for iw in range(w0, w1):
                            total = total + lanes[n, ih, iw].astype(compute)
                    lane[...] = cast(_divided(total, divisors), t._dtype)
                    continue
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        lane[...] = lane + lanes[n, ih, iw]
                lane[...] = _divided(lane.copy(), divisors)
    t._version_counter.value += 1


def _avg_pool2d_into_itself(t: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                            padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                            divisor_override: int | None) -> None:
    """``avg_pool2d(t, ..., out=t)`` as torch's CPU loop runs it on one memory: each output
    element, in order, is set to 0, then to the mean of its window read as it is by then
    (earlier outputs already written, its own element 0), its sizes those of ``t`` (resized
    to the output's shape first)."""
    (kH, kW), (dH, dW) = _pair(kernel_size), _pair(stride, _pair(kernel_size))
    padH, padW = _pair(padding)
    compute = _opmath(t._dtype)
    values = t._elements()
    H, W = t._shape[-2:]
    for lead in np.ndindex(*t._shape[:-2]):
        plane = values[lead]
        for oh in range(H):
            for ow in range(W):
                h0, w0 = oh * dH - padH, ow * dW - padW
                h1, w1 = min(h0 + kH, H + padH), min(w0 + kW, W + padW)
                size = (h1 - h0) * (w1 - w0)
                h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
                plane[oh, ow] = 0
                if h0 >= h1 or w0 >= w1:
                    continue
                total = np.zeros((), dtype=compute)
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        total = total + np.asarray(plane[ih, iw]).astype(compute)
                divisor = (divisor_override if divisor_override is not None else
                           size if count_include_pad else (h1 - h0) * (w1 - w0))
                mean = _divided(total.reshape(1), np.array([divisor], dtype=np.int64))
                plane[oh, ow] = cast(mean, t._dtype)[0]
    t._version_counter.value += 1


out_arguments.set_rule(aten.avg_pool2d.out, out_arguments.OutRule(
    writes=_structured_out(aten.avg_pool2d.default, 1)))
out_arguments.set_rule(aten.max_pool2d_with_indices.out, out_arguments.OutRule(
    writes=_structured_out(aten.max_pool2d_with_indices.default, 2)))
out_arguments.set_rule(aten.avg_pool2d_backward.grad_input, out_arguments.OutRule(
    writes=_structured_out(aten.avg_pool2d_backward.default, 1)))
out_arguments.set_rule(aten.max_pool2d_with_indices_backward.grad_input, out_arguments.OutRule(
    writes=_structured_out(aten.max_pool2d_with_indices_backward.default, 1)))
OUT_DTYPE_RULES.update(max_pool2d_with_indices=_exact_dtype, avg_pool2d=_exact_dtype,
                       max_pool2d_with_indices_backward=_exact_dtype,
                       avg_pool2d_backward=_exact_dtype)


# ------------------------------------------------------------------ the 1-d pools
def _check1d(function: str, argument: str, values: Sequence[int]) -> None:
    """torch's ``check1d``."""
    if len(values) != 1:
        raise RuntimeError(f"{function}() argument '{argument}' should contain one int (got "
                           f"{len(values)})")


def _check_dims(function: str, input: Tensor) -> None:
    """torch's ``checkDimRange(..., 2, 4)`` of ``self``."""
    if not 2 <= input.dim() < 4:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{function})")


@aten.max_pool1d_with_indices.default.impl(DispatchKey.CompositeImplicitAutograd)
def max_pool1d_with_indices(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                            padding: Sequence[int], dilation: Sequence[int],
                            ceil_mode: bool) -> tuple[Tensor, Tensor]:
    """torch's composite: ``max_pool2d_with_indices`` of ``self.unsqueeze(-2)`` with a
    ``(1, k)`` window, both results squeezed back (``SqueezeBackward1``)."""
    stride = stride or kernel_size
    _check_dims("max_pool1d", self)
    for argument, values in (("kernel_size", kernel_size), ("stride", stride),
                             ("padding", padding), ("dilation", dilation)):
        _check1d("max_pool1d", argument, values)
    output, indices = aten.max_pool2d_with_indices.default.call(
        aten.unsqueeze.default.call(self, -2), (1, kernel_size[0]), (1, stride[0]),
        (0, padding[0]), (1, dilation[0]), ceil_mode)
    return (aten.squeeze.dim.call(output, -2), aten.squeeze.dim.call(indices, -2))


def _check_max_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                      padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool
                      ) -> None:
    """torch's ``check_max_pool1d``."""
    for argument, values in (("kernel_size", kernel_size), ("stride", stride),
                             ("padding", padding), ("dilation", dilation)):
        if len(values) != 1 and not (argument == "stride" and not values):
            raise RuntimeError(f"max_pool1d() {argument} must be an int, list of ints or tuple "
                               f"of ints of size 1 but got size {len(values)}")
    k, s = kernel_size[0], (stride or kernel_size)[0]
    p, d = padding[0], dilation[0]
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    length = output_size(self._shape[-1], k, p, s, d, ceil_mode)
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")


@aten.max_pool1d.default.impl(DispatchKey.CompositeImplicitAutograd)
def max_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool) -> Tensor:
    """torch's composite: its checks, then ``max_pool1d_with_indices``'s output when the
    input requires grad (or is on the meta device), else torch's ``max_pool1d_impl``
    (floating dtypes only, a contiguous result; values as the 2-d kernel's; a 2-d input's
    result was squeezed in place: ``_version`` 1)."""
    shape = self._shape
    if not ((len(shape) == 2 and shape[0] != 0 and shape[1] != 0)
            or (len(shape) == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:[{', '.join(map(str, shape))}]")
    _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    if (self._requires_grad and is_grad_enabled()) or self.device.type != "cpu":
        return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation,
                                       ceil_mode)[0]
    if not self._dtype.is_floating_point:
        raise _not_implemented("max_pool1d_impl", self._dtype)
    stride = stride or kernel_size
    geometry = _Pool2d("max_pool2d", aten.unsqueeze.default.call(self, -2),
                       (1, kernel_size[0]), (1, stride[0]), (0, padding[0]),
                       (1, dilation[0]), ceil_mode)
    shape = (*shape[:-1], geometry.out[1])
    output = factories._allocate(shape, layout.contiguous_strides(shape), self._dtype, CPU)
    if output.numel():
        values, _ = _max_windows(geometry, _planes(self, np.float64).reshape(
            -1, 1, self._shape[-1]), True, -np.inf)
        _write(output, values)
    if self.dim() == 2:  # (torch computes a (1, C, L) output and ``squeeze_``s it: _version 1)
        output._version_counter.value += 1
    return output


@aten.avg_pool1d.default.impl(DispatchKey.CompositeImplicitAutograd)
def avg_pool1d(self: Tensor, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], ceil_mode: bool, count_include_pad: bool) -> Tensor:
    """torch's composite: ``avg_pool2d`` of ``self.unsqueeze(-2)`` with a ``(1, k)`` window,
    squeezed back (``SqueezeBackward1`` over ``AvgPool2DBackward0``)."""
    stride = stride or kernel_size
    _check_dims("avg_pool1d", self)
    for argument, values in (("kernel_size", kernel_size), ("stride", stride),
                             ("padding", padding)):
        _check1d("avg_pool1d", argument, values)
    output = aten.avg_pool2d.default.call(
        aten.unsqueeze.default.call(self, -2), (1, kernel_size[0]), (1, stride[0]),
        (0, padding[0]), ceil_mode, count_include_pad, None)
    return aten.squeeze.dim.call(output, -2)
