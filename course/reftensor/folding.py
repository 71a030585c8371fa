"""Sliding windows (the capstone, chapter 10): ``im2col`` and ``col2im``, the ops under
``nn.functional.unfold`` and ``nn.functional.fold``.

``im2col(input, kernel_size, dilation, padding, stride)`` takes an image batch ``(N, C, H,
W)`` (or one image ``(C, H, W)``) and returns every ``kh x kw`` window of it as a column:
``(N, C * kh * kw, L)``, ``L = oh * ow`` windows, where along each spatial dim
``o = (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1``. Row ``c * kh * kw + i * kw
+ j`` of column ``l = y * ow + x`` holds input element ``(c, y * sh + i * dh - ph, x * sw +
j * dw - pw)``, zero where that falls in the padding.

Here it is what the chapter teaches: the input zero-padded (``constant_pad_nd``), then ONE
strided view of it, ``as_strided`` with sizes ``(N, C, kh, kw, oh, ow)`` and strides
``(sN, sC, dh * sH, dw * sW, sh * sH, sw * sW)`` (stepping a kernel offset moves by the
dilation, stepping a window by the stride: windows overlap when the stride is smaller than
the kernel, and the view shares elements), then one copy into the contiguous result.

``col2im`` is its adjoint: each column's values are added back into the image at the
positions they came from (overlapping windows sum; padding is dropped). torch's CPU loop
adds, for each image element, the contributions in kernel-offset order (``i``, then ``j``),
as the loop here does, so values are torch's bit for bit. The two are each other's gradient
(``Im2ColBackward0`` runs ``col2im``, ``Col2ImBackward0`` runs ``im2col``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import layout, out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .promotion import SCALAR_TYPE_NAMES
from .storage import UntypedStorage
from .tensor import Tensor

__all__: list[str] = []


def _pairs(**values: list[int]) -> None:
    """Each argument is two ints (torch's words for the first that is not)."""
    for what, value in values.items():
        if len(value) != 2:
            raise RuntimeError(f"It is expected {what} equals to 2, but got size {len(value)}")


def _argument_checks(kernel: list[int], dilation: list[int], padding: list[int],
                     stride: list[int], *, order: tuple[str, ...]) -> None:
    """torch's ``im2col_shape_check``/``col2im_shape_check`` first checks (their orders
    differ)."""
    checks = {
        "kernel": (min(kernel) > 0, "kernel size should be greater than zero, but got "
                   f"kernel_height: {kernel[0]} kernel_width: {kernel[1]}"),
        "dilation": (min(dilation) > 0, "dilation should be greater than zero, but got "
                     f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"),
        "padding": (min(padding) >= 0, "padding should be non-negative, but got pad_height: "
                    f"{padding[0]} pad_width: {padding[1]}"),
        "stride": (min(stride) > 0, "stride should be greater than zero, but got "
                   f"stride_height: {stride[0]} stride_width: {stride[1]}"),
    }
    for what in order:
        ok, text = checks[what]
        if not ok:
            raise RuntimeError(text)


def _result(shape: tuple[int, ...], like: Tensor) -> Tensor:
    """A contiguous result of ``like``'s dtype and device; on the CPU its storage holds at
    least ``like``'s element count, as torch's (an ``empty_like(input)`` resized)."""
    meta = like.device is META
    needed = layout.required_storage_elements(shape, layout.contiguous_strides(shape))
    if not meta:
        needed = max(needed, like.numel())
    storage = UntypedStorage(needed * like._dtype.itemsize, device=META if meta else CPU)
    return Tensor._make(storage, shape, layout.contiguous_strides(shape), 0, like._dtype)


def _blocks(size: int, k: int, d: int, p: int, s: int) -> int:
    """The number of windows along one dim (torch's ``div_rtn``: rounded down)."""
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


# ------------------------------------------------------------------ im2col
def im2col(self: Tensor, kernel_size: list[int], dilation: list[int], padding: list[int],
           stride: list[int]) -> Tensor:
    """torch's ``im2col``: ``(N, C, H, W)`` or ``(C, H, W)`` to ``(N, C*kh*kw, L)`` or
    ``(C*kh*kw, L)``, contiguous, of the input's dtype; a zero-padded copy, one
    ``as_strided`` window view of it, one copy."""
    kernel_size, dilation = list(kernel_size), list(dilation)
    padding, stride = list(padding), list(stride)
    _pairs(kernel_size=kernel_size, dilation=dilation, padding=padding,
           stride=stride)
    _argument_checks(kernel_size, dilation, padding, stride,
                     order=("kernel", "dilation", "padding", "stride"))
    ndim, shape = self.dim(), self._shape

    def size(d: int) -> int:  # (torch's ``input.size(d)``, read only as its check reads it)
        if d >= ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        return shape[d]

    valid = size(1) != 0 and size(2) != 0
    if not ((ndim == 3 and shape[0] != 0 and valid)
            or (ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    height, width = shape[-2], shape[-1]
    oh, ow = _blocks(height, kh, dh, ph, sh), _blocks(width, kw, dw, pw, sw)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), "
                           f"kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), padding=({ph}, "
                           f"{pw}), calculated shape of the array of sliding blocks as ({oh}, "
                           f"{ow}), but its components must be at least one.")
    meta = self.device is META
    if not meta and self._dtype.name.startswith(("int", "uint")):
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[self._dtype.name]}'")
    batched = self if ndim == 4 else aten.unsqueeze.default.call(self, 0)
    n, c = batched._shape[:2]
    out_shape = (n, c * kh * kw, oh * ow) if ndim == 4 else (c * kh * kw, oh * ow)
    result = _result(out_shape, self)
    if meta or not result.numel():
        return result
    padded = aten.constant_pad_nd.default.call(batched, [pw, pw, ph, ph], 0)
    s_n, s_c, s_h, s_w = padded._stride
    windows = aten.as_strided.default.call(
        padded, [n, c, kh, kw, oh, ow], [s_n, s_c, dh * s_h, dw * s_w, sh * s_h, sw * s_w],
        padded._storage_offset)
    # the one copy: the windows, row-major, into the contiguous result
    result._elements()[...] = windows._elements().reshape(out_shape)
    return result


# ------------------------------------------------------------------ col2im
def col2im(self: Tensor, output_size: list[int], kernel_size: list[int], dilation: list[int],
           padding: list[int], stride: list[int]) -> Tensor:
    """torch's ``col2im``: ``(N, C*kh*kw, L)`` or ``(C*kh*kw, L)`` to ``(N, C, H, W)`` or
    ``(C, H, W)`` (``output_size = (H, W)``), contiguous, each column's values added back
    where ``im2col`` took them, in kernel-offset order."""
    output_size, kernel_size = list(output_size), list(kernel_size)
    dilation, padding, stride = list(dilation), list(padding), list(stride)
    _pairs(output_size=output_size, kernel_size=kernel_size, dilation=dilation,
           padding=padding, stride=stride)
    _argument_checks(kernel_size, dilation, padding, stride,
                     order=("kernel", "stride", "dilation", "padding"))
    ndim, shape = self.dim(), self._shape
    if not ((ndim == 2 and shape[0] != 0 and shape[1] != 0)
            or (ndim == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    (height, width), (kh, kw), (dh, dw) = output_size, kernel_size, dilation
    (ph, pw), (sh, sw) = padding, stride
    planes, length = shape[-2], shape[-1]
    if planes % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({kh}, {kw}).")
    bh, bw = _blocks(height, kh, dh, ph, sh), _blocks(width, kw, dw, pw, sw)
    head = (f"Given output_size=({height}, {width}), kernel_size=({kh}, {kw}), dilation=({dh}"
            f", {dw}), padding=({ph}, {pw}), stride=({sh}, {sw}), ")
    if length != bh * bw:
        raise RuntimeError(f"{head}expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {bh} * {bw} = {bh * bw}, "
                           f"but got input.size(2)={length}.")
    if bh < 1 or bw < 1:
        raise RuntimeError(f"{head}calculated shape of the array of sliding blocks as ({bh}, "
                           f"{bw}), which is too small (non-positive)")
    if height < 1 or width < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: "
                           f"output_size=({height}, {width}).")
    meta = self.device is META
    if not meta and self._dtype.name.startswith(("int", "uint")):
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[self._dtype.name]}'")
    n = shape[0] if ndim == 3 else 1
    c = planes // (kh * kw)
    out_shape = (n, c, height, width) if ndim == 3 else (c, height, width)
    if meta:
        return _col2im_meta(self, out_shape, (n, c, height + 2 * ph, width + 2 * pw))
    result = _result(out_shape, self)
    if not result.numel():
        return result
    cols = self._elements().reshape(n, c, kh, kw, bh, bw)
    image = np.zeros((n, c, height + 2 * ph, width + 2 * pw), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            image[:, :, i * dh:i * dh + sh * (bh - 1) + 1:sh,
                  j * dw:j * dw + sw * (bw - 1) + 1:sw] += cols[:, :, i, j]
    result._elements()[...] = image[:, :, ph:ph + height, pw:pw + width].reshape(out_shape)
    return result


def _col2im_meta(self: Tensor, shape: tuple[int, ...], padded: tuple[int, ...]) -> Tensor:
    """torch's meta ``col2im`` is its Python decomposition: the sums land in a zeroed
    ``padded`` image, which ``F.pad`` with the negative padding narrows and clones keeping
    the layout where the narrowed view is dense (a ``(1, 1, 1)`` result of a padded
    ``(1, 1, 3, 1)`` image has strides ``(3, 1, 1)``), squeezed for an unbatched input."""
    batched = (padded[0], padded[1], *shape[-2:])
    strides = layout.contiguous_strides(padded)
    if not layout.is_non_overlapping_and_dense(batched, strides):
        strides = layout.contiguous_strides(batched)
    strides = strides if len(shape) == 4 else strides[1:]
    needed = layout.required_storage_elements(shape, strides)
    return Tensor._make(UntypedStorage(needed * self._dtype.itemsize, device=META), shape,
                        strides, 0, self._dtype)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.im2col.default.impl(_key)(im2col)
    aten.col2im.default.impl(_key)(col2im)
def _out_writes(functional: Any, batched_dims: int) -> Any:
    """torch's hand-written ``im2col_out_cpu``/``col2im_out_cpu``: ``out`` resized silently
    (``resize_``) to the result's shape, through the batched shape for an unbatched input
    (so it ends contiguous), then, for a nonempty result, of exactly its dtype ("expected
    scalar type"), the values copied in."""
    def writes(*values: Any) -> Tensor:
        *inputs, out = values
        result = functional.call(*inputs)
        if out._shape != result._shape or (inputs[0].dim() < batched_dims
                                           and out._stride != result._stride):
            needed = (out._storage_offset + layout.required_storage_elements(
                result._shape, result._stride)) * out._dtype.itemsize
            if result.numel() and needed > out._storage.nbytes():
                out._storage.resize_(needed)
            out._shape, out._stride = result._shape, result._stride
        if result.numel() and out._dtype is not result._dtype:
            raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[result._dtype.name]} "
                               f"but found {SCALAR_TYPE_NAMES[out._dtype.name]}")
        return aten.copy_.default.call(out, result, False)

    return writes


out_arguments.set_rule(aten.im2col.out, out_arguments.OutRule(
    writes=_out_writes(aten.im2col.default, 4)))
out_arguments.set_rule(aten.col2im.out, out_arguments.OutRule(
    writes=_out_writes(aten.col2im.default, 3)))
