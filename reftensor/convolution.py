"""Convolution (chapter 10, the capstone): ``convolution``, its backward, and the
``conv1d``/``conv2d`` composites that ``torch.nn.functional.conv1d``/``conv2d`` are.

``convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
groups)`` of ``input`` ``(N, C_in, *spatial)`` and ``weight`` ``(C_out, C_in / groups,
*kernel)`` is, for each output position, the sum over a window of the zero-padded input
times the kernel. Here it is computed the way the capstone chapter explains it:

1. pad the input with zeros (``padding`` on both sides of each spatial dim);
2. view it as windows with ``as_strided``: a ``(N, groups, C_in / groups, *out, *kernel)``
   view whose window dims step by ``dilation`` and whose output dims step by ``stride``
   (no copy: every element appears in several windows);
3. one matrix product per group, the window's ``C_in / groups * prod(kernel)`` elements
   against the same ones of each output channel's kernel.

The gradients are the same two steps backwards: the weight's is the windows against the
output's gradient, the input's is each kernel position's product added back into the
padded input through the same strided positions (what a transposed convolution computes:
``transposed=True`` runs exactly that as its forward). The bias's is the output gradient
summed over every dim but the channels.

torch's ``convolution`` is ``CompositeExplicitAutograd`` with its own node,
``ConvolutionBackward0``, whose backward is the op ``convolution_backward``. Its CPU backends
(oneDNN for float32, ``slow_conv2d`` for float64 and integers) lay a 4-d result out
channels-last when the input or the weight looks channels-last, so do these kernels (the
input's and weight's gradients too). float16 and bfloat16 are summed in float32, integers in
int64 (wrapping), float32 in float32 and float64 in float64 (NumPy's BLAS: a different
summation order than oneDNN's, within a few ulps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes, factories, iterator, layout, out_arguments, views
from ._casting import cast
from ._ops import DispatchKey, aten
from .autograd.derivatives import expand_param_if_needed
from .autograd.grad_mode import state as grad_state
from .autograd.graph import Node, record
from .device import CPU, META
from .dtypes import dtype
from .linalg import _WarnOnce
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []


# ------------------------------------------------------------------ checks
def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _tensor_type(t: Tensor) -> str:
    """torch's legacy type name (``torch.FloatTensor``) in its type-mismatch message."""
    return f"torch.{SCALAR_TYPE_NAMES[t._dtype.name]}Tensor"


def _check(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
           padding: Sequence[int], dilation: Sequence[int], transposed: bool,
           output_padding: Sequence[int], groups: int
           ) -> tuple[list[int], list[int], list[int], list[int]]:
    """torch's ``_convolution`` checks and ``check_shape_forward``, in its order and words;
    the parameters expanded to one per spatial dim."""
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({C_TYPE_NAMES[input._dtype.name]}) and bias type "
                           f"({C_TYPE_NAMES[bias._dtype.name]}) should be the same")
    k = weight.dim()
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = expand_param_if_needed(stride, "stride", dim)
    padding = expand_param_if_needed(padding, "padding", dim)
    dilation = expand_param_if_needed(dilation, "dilation", dim)
    output_padding = expand_param_if_needed(output_padding, "output_padding", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    ws = weight._shape
    if input.dim() != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight "
                           f"{_sizes(ws)}, but got {input.dim()}-dimensional input of size "
                           f"{_sizes(input._shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} "
                           f"at dimension 0, but got weight of size {_sizes(ws)} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size [{_sizes(ws)}] "
                           "instead")
    if not transposed:
        if input._shape[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(ws)}, expected "
                               f"input{_sizes(input._shape)} to have {ws[1] * groups} "
                               f"channels, but got {input._shape[1]} channels instead")
        if bias is not None and (bias.dim() != 1 or bias._shape[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {_sizes(ws)}, expected bias to be "
                               f"1-dimensional with {ws[0]} elements, but got bias of size "
                               f"{_sizes(bias._shape)} instead")
        padded = [input._shape[i + 2] + 2 * padding[i] for i in range(dim)]
        kernel = [dilation[i] * (ws[i + 2] - 1) + 1 for i in range(dim)]
        if any(p < q for p, q in zip(padded, kernel, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: "
                f"({' x '.join(str(p) for p in padded)}). Kernel size: "
                f"({' x '.join(str(q) for q in kernel)}). Kernel size can't be greater than "
                "actual input size")
    else:
        if input._shape[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(ws)}, expected "
                               f"input{_sizes(input._shape)} to have {ws[0]} channels, but "
                               f"got {input._shape[1]} channels instead")
        if bias is not None and (bias.dim() != 1 or bias._shape[0] != ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(ws)}, expected "
                               f"bias to be 1-dimensional with {ws[1] * groups} elements, but "
                               f"got bias of size {_sizes(bias._shape)} instead")
    return stride, padding, dilation, output_padding


def _check_types(input: Tensor, weight: Tensor) -> None:
    """The backend's ``check_input_same_type_as_parameters`` (after the shape checks)."""
    if weight._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({_tensor_type(input)}) and weight type "
                           f"({_tensor_type(weight)}) should be the same or input should be a "
                           "MKLDNN tensor and weight is a dense tensor")


def _not_implemented(d: dtype, dim: int, transposed: bool, dilation: Sequence[int]) -> None:
    """The CPU backends' dtype coverage, as torch's: a transposed convolution
    (``slow_conv_transpose2d``) and a dilated one (``slow_conv_dilated``) take floating
    dtypes and int64; the plain one (``slow_conv2d``) every integer dtype; none takes bool.
    The error names the backend's kernel."""
    if d.is_floating_point or d is dtypes.int64:
        return
    if transposed:
        name = "slow_conv_transpose3d_out_cpu" if dim == 3 else "slow_conv_transpose2d_out_cpu"
    elif any(x > 1 for x in dilation):
        name = "slow_conv_dilated<>"
    elif d is dtypes.bool:
        name = "compute_columns3d" if dim == 3 else "slow_conv2d_cpu"
    else:
        return
    raise NotImplementedError(f"\"{name}\" not implemented for "
                              f"'{SCALAR_TYPE_NAMES[d.name]}'")


def _output_shape(input: Tensor, weight: Tensor, stride: list[int], padding: list[int],
                  dilation: list[int], transposed: bool, output_padding: list[int],
                  groups: int) -> tuple[int, ...]:
    ws, xs = weight._shape, input._shape
    if transposed:
        spatial = [(xs[i + 2] - 1) * stride[i] - 2 * padding[i]
                   + dilation[i] * (ws[i + 2] - 1) + output_padding[i] + 1
                   for i in range(len(stride))]
        return (xs[0], ws[1] * groups, *spatial)
    spatial = [conv_output_size(xs[i + 2], ws[i + 2], stride[i], padding[i], dilation[i])
               for i in range(len(stride))]
    return (xs[0], ws[0], *spatial)


def _channels_last(input: Tensor, weight: Tensor) -> bool:
    """torch's CPU backends' memory format: channels-last for a 4-d convolution whose input
    or weight looks channels-last (``suggest_memory_format``). A 1-d one runs as 2-d on
    ``input.contiguous().unsqueeze(2)`` and ``weight.unsqueeze(2)``: channels-last when
    either looks it (an input already contiguous keeps its strides, those of its size-1
    dims too)."""
    if input.dim() == 4:
        return (input._suggest_memory_format() is layout.channels_last
                or weight._suggest_memory_format() is layout.channels_last)
    if input.dim() == 3 and weight.dim() == 3:
        x_stride = (input._stride if layout.is_contiguous(input._shape, input._stride)
                    else layout.contiguous_strides(input._shape))
        return any(layout.strides_like_channels_last(*_unsqueezed(shape, stride))
                   for shape, stride in ((input._shape, x_stride),
                                         (weight._shape, weight._stride)))
    return False


def _unsqueezed(shape: tuple[int, ...], stride: tuple[int, ...]
                ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``unsqueeze(2)``'s layout of a 3-d tensor (the new dim's stride ``size * stride`` of
    the dim it comes before)."""
    return (shape[0], shape[1], 1, shape[2]), (stride[0], stride[1], shape[2] * stride[2],
                                               stride[2])


def _per_group(channels_last: bool, shape: tuple[int, ...], d: dtype, groups: int,
               dim: int) -> bool:
    """The layout after torch's slow backends (every dtype but float32, which oneDNN takes,
    as measured on torch 2.13's CPU build) run a grouped convolution one group at a time and
    ``cat`` the pieces along ``dim``: channels-last only when each piece looks it (a piece
    whose channels-last strides are ambiguous, such as one channel of size-1 positions,
    makes ``cat`` contiguous)."""
    if not channels_last or groups == 1 or d is dtypes.float32:
        return channels_last
    piece = list(shape if len(shape) == 4 else (shape[0], shape[1], 1, shape[2]))
    piece[dim] //= groups
    return layout.strides_like_channels_last(piece, layout.channels_last_strides(piece))


def _new(shape: tuple[int, ...], d: dtype, channels_last: bool, meta: bool) -> Tensor:
    """A result laid out as the backend lays it out: contiguous, or channels-last (a 3-d
    one as the 2-d result ``(N, C, 1, L)`` with the 1 squeezed out)."""
    if channels_last and len(shape) == 4:
        stride = layout.channels_last_strides(shape)
    elif channels_last and len(shape) == 3:
        n, c, length = shape
        s4 = layout.channels_last_strides((n, c, 1, length))
        stride = (s4[0], s4[1], s4[3])
    else:
        stride = layout.contiguous_strides(shape)
    return factories._allocate(tuple(shape), stride, d, META if meta else CPU)


def _work(d: dtype) -> dtype:
    """The dtype the sums are made in: float32 for float16/bfloat16, int64 for integers."""
    if d.is_floating_point:
        return dtypes.float64 if d is dtypes.float64 else dtypes.float32
    return dtypes.int64


# ------------------------------------------------------------------ the pieces (chapter 10)
def conv_output_size(input_size: int, kernel: int, stride: int, padding: int,
                     dilation: int) -> int:
    """The length of one spatial dim of a convolution's output (``F.conv2d``'s, dim by dim).

    Args:
        input_size: the input's length along the dim (before padding), an int >= 0.
        kernel: the kernel's length along the dim, an int >= 1.
        stride: the step between two windows, an int >= 1.
        padding: the zeros added on each side, an int >= 0.
        dilation: the step between two taps of a window, an int >= 1.

    Returns:
        The number of windows that fit in the padded input (an int; the convolution has
        already checked that the dilated kernel fits, so it is at least 1).
    """
    # BEGIN PIECE conv_output_size
    return (input_size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    # END PIECE


def window_layout(shape: Sequence[int], strides: Sequence[int], offset: int,
                  kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int]
                  ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The ``as_strided`` layout of the window view a convolution (or a pool) reads: the
    view of a (padded) input ``(N, C, *spatial)`` whose element ``[n, c, *o, *k]`` is the
    input's ``[n, c, *(o[i] * stride[i] + k[i] * dilation[i])]``, no copy.

    Args:
        shape: the input's sizes ``(N, C, *spatial)`` (the padded input's, whose every
            window fits: no padding is added here).
        strides: its strides, in elements (any: contiguous, channels-last, permuted).
        offset: its storage offset, in elements.
        kernel, stride, dilation: one int per spatial dim.

    Returns:
        ``(sizes, strides, offset)`` of the view ``(N, C, *out, *kernel)`` (tuples of ints
        and an int), as ``input.unfold(...)`` along each spatial dim, sliced every
        ``dilation``, gives it.
    """
    # BEGIN PIECE window_layout
    spatial = range(len(kernel))
    out = tuple((shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                for i in spatial)
    return ((shape[0], shape[1], *out, *kernel),
            (strides[0], strides[1], *(strides[2 + i] * stride[i] for i in spatial),
             *(strides[2 + i] * dilation[i] for i in spatial)),
            offset)
    # END PIECE


def conv_weight_grad(windows: np.ndarray, grad_output: np.ndarray) -> np.ndarray:
    """The gradient of a convolution's weight, group by group, as one matrix product.

    Args:
        windows: ``(groups, C_in / groups * K, P)``: column ``p`` holds the window that output
            position ``p`` read (``K`` taps per channel, ``P`` = batch times output positions),
            in the order of the weight's elements.
        grad_output: ``(groups, C_out / groups, P)``: row ``o`` holds the gradient of output
            channel ``o`` of the group at each of the ``P`` positions.

    Returns:
        ``(groups, C_out / groups, C_in / groups * K)``, the same dtype: for each group, each
        output channel's gradient summed against each window element over the ``P``
        positions (the weight's gradient, ``torch.autograd``'s, before its last reshape).
    """
    # BEGIN PIECE conv_weight_grad
    return np.matmul(grad_output, windows.transpose(0, 2, 1))
    # END PIECE


def _window_view(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
                 dilation: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """``window_layout``'s view of a NumPy array ``(N, C, *spatial)`` (its strides in
    elements), cut to ``out`` positions per spatial dim, read-only."""
    size = x.itemsize
    sizes, strides, offset = window_layout(
        x.shape, tuple(s // size for s in x.strides), 0, tuple(kernel), tuple(stride),
        tuple(dilation))
    start = x.reshape(-1)[offset:] if offset else x
    view = np.lib.stride_tricks.as_strided(start, tuple(sizes),
                                           tuple(s * size for s in strides),
                                           writeable=False)
    return view[(slice(None), slice(None), *(slice(0, o) for o in out))]


# ------------------------------------------------------------------ the NumPy kernels
def _windows(x: np.ndarray, groups: int, out_spatial: Sequence[int], kernel: Sequence[int],
             stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """The strided window view of an already padded ``x`` ``(N, C, *spatial)``: shape
    ``(N, groups, C / groups, *out_spatial, *kernel)``, no copy (``window_layout``'s view,
    its channels split into groups)."""
    view = _window_view(x, kernel, stride, dilation, out_spatial)
    n, c = view.shape[:2]
    cg = c // groups
    return np.lib.stride_tricks.as_strided(
        view, (n, groups, cg, *view.shape[2:]),
        (view.strides[0], view.strides[1] * cg, *view.strides[1:]), writeable=False)


def _pad(x: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return np.pad(x, [(0, 0), (0, 0), *((p, p) for p in padding)])


def _forward(x: np.ndarray, w: np.ndarray, groups: int, stride: Sequence[int],
             padding: Sequence[int], dilation: Sequence[int],
             out_spatial: Sequence[int]) -> np.ndarray:
    """``(N, C_out, *out_spatial)``: windows of the padded ``x`` times ``w`` ``(C_out,
    C_in / groups, *kernel)``, one matrix product per group."""
    n = x.shape[0]
    c_out, cg = w.shape[:2]
    kernel = w.shape[2:]
    d = len(kernel)
    win = _windows(_pad(x, padding), groups, out_spatial, kernel, stride, dilation)
    # (N, g, *out, cg, *kernel) -> rows of cg * prod(kernel) window elements
    order = (0, 1, *range(3, 3 + d), 2, *range(3 + d, 3 + 2 * d))
    rows = win.transpose(order).reshape(n, groups, math.prod(out_spatial), -1)
    kernels = w.reshape(groups, c_out // groups, -1)  # (g, O/g, cg * prod(kernel))
    product = np.matmul(rows, kernels.transpose(0, 2, 1)[None])  # (N, g, L, O/g)
    return product.transpose(0, 1, 3, 2).reshape(n, c_out, *out_spatial)


def _input_grad(go: np.ndarray, w: np.ndarray, groups: int, stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int],
                in_spatial: Sequence[int]) -> np.ndarray:
    """The gradient of ``_forward`` for ``x`` (``(N, C_in, *in_spatial)``) given the
    output's gradient ``go`` (``(N, C_out, *out)``): each kernel position's product added
    into the padded input at the positions its windows read."""
    n, c_out = go.shape[:2]
    out_spatial = go.shape[2:]
    cg = w.shape[1]
    kernel = w.shape[2:]
    g_rows = go.reshape(n, groups, c_out // groups, -1)  # (N, g, O/g, L)
    kernels = w.reshape(groups, c_out // groups, cg * math.prod(kernel))
    cols = np.matmul(kernels.transpose(0, 2, 1)[None], g_rows)  # (N, g, cg*K, L)
    cols = cols.reshape(n, groups * cg, *kernel, *out_spatial)
    padded = np.zeros((n, groups * cg, *(s + 2 * p for s, p in zip(in_spatial, padding,
                                                                   strict=True))), go.dtype)
    for position in np.ndindex(*kernel):
        where = tuple(slice(k * dl, k * dl + st * (o - 1) + 1, st)
                      for k, dl, st, o in zip(position, dilation, stride, out_spatial,
                                              strict=True))
        padded[(slice(None), slice(None), *where)] += cols[(slice(None), slice(None),
                                                            *position)]
    crop = tuple(slice(p, p + s) for p, s in zip(padding, in_spatial, strict=True))
    return padded[(slice(None), slice(None), *crop)]


def _weight_grad(x: np.ndarray, go: np.ndarray, groups: int, stride: Sequence[int],
                 padding: Sequence[int], dilation: Sequence[int],
                 kernel: Sequence[int]) -> np.ndarray:
    """The gradient of ``_forward`` for ``w`` (``(C_out, C_in / groups, *kernel)``): the
    windows against the output's gradient, summed over the batch and positions."""
    n, c_out = go.shape[:2]
    out_spatial = go.shape[2:]
    d = len(kernel)
    win = _windows(_pad(x, padding), groups, out_spatial, kernel, stride, dilation)
    # (g, cg, *kernel, N, *out) -> (g, cg * K, N * L)
    order = (1, 2, *range(3 + d, 3 + 2 * d), 0, *range(3, 3 + d))
    rows = win.transpose(order).reshape(groups, -1, n * math.prod(out_spatial))
    g_rows = go.reshape(n, groups, c_out // groups, -1).transpose(1, 2, 0, 3).reshape(
        groups, c_out // groups, -1)  # (g, O/g, N * L)
    product = conv_weight_grad(rows, g_rows)  # (g, O/g, cg * K)
    return product.reshape(c_out, -1, *kernel)


def _empty_backend(input: Tensor, weight: Tensor, bias: Tensor | None,
                   shape: tuple[int, ...]) -> Tensor:
    """torch's ``Empty`` backend, for no batch or no channels: no type check, no values;
    ``input * weight[0]`` (plus the bias) viewed as the result's shape, so the result has
    no channels when the input has none, and the layout of that product when the shape is
    the input's own (else contiguous)."""
    if input._shape[1] == 0:
        shape = (shape[0], 0, *shape[2:])
    # the view's shape inference (chapter 2's ``infer_size``) on the 2-d shape a 1-d one
    # runs as, for the product, which has no elements
    views.infer_size([shape[0], shape[1], 1, shape[2]] if len(shape) == 3 else list(shape), 0)
    if shape == input._shape:
        stride = aten.mul(input, 1)._stride
    else:
        stride = layout.contiguous_strides(shape)
    del weight, bias  # (their values reach no element)
    return factories._allocate(shape, stride, input._dtype, CPU)


def _check_transposed(input: Tensor, weight: Tensor, stride: Sequence[int],
                      padding: Sequence[int], dilation: Sequence[int],
                      output_padding: Sequence[int], shape: tuple[int, ...]) -> None:
    """``slow_conv_transpose2d``'s shape checks (a 1-d convolution seen as 2-d, height 1),
    in its words."""
    if len(stride) > 2:
        return
    def two(values: Sequence[int], fill: int) -> list[int]:
        return [fill, *values] if len(values) == 1 else list(values)

    st, dl, op = two(stride, 1), two(dilation, 1), two(output_padding, 0)
    if not all(o < s or o < d for o, s, d in zip(op, st, dl, strict=True)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: "
            f"{st[0]} stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}")
    sizes = two(input._shape[2:], 1)
    out = two(shape[2:], 1)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({sizes[0]} x {sizes[1]}). "
                           f"Calculated output size per channel: ({out[0]} x {out[1]}). "
                           "Output size is too small")


# ------------------------------------------------------------------ convolution
def _meta_convolution(input: Tensor, weight: Tensor, stride: Sequence[int],
                      padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                      output_padding: Sequence[int], groups: int) -> Tensor:
    """torch's Python meta function (``meta_conv``, ``calc_conv_nd_return_shape``): its own
    checks and words (channels, kernel size, an output with no positive size), the result
    contiguous, with no channels for an input with none."""
    spatial = input._shape[2:]
    kernel = weight._shape[2:]

    def each(values: Sequence[int]) -> list[int]:
        return [values[0]] * len(spatial) if len(values) == 1 else list(values)

    stride, padding, dilation = each(stride), each(padding), each(dilation)
    if transposed:
        channels = groups * weight._shape[1]
    else:
        channels = weight._shape[0]
        if weight._shape[1] * groups != input._shape[1]:
            raise RuntimeError("Invalid channel dimensions")
        padded = [spatial[i] + 2 * padding[i] for i in range(len(spatial))]
        effective = [dilation[i] * (kernel[i] - 1) + 1 for i in range(len(spatial))]
        if not all(p >= k for p, k in zip(padded, effective, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: "
                f"({' x '.join(str(p) for p in padded)}). Kernel size: "
                f"({' x '.join(str(k) for k in effective)}). Kernel size can't be greater "
                "than actual input size")
    extra = each(output_padding) if transposed and output_padding else None
    if extra is not None:
        sizes = [(spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1)
                 + extra[i] + 1 for i in range(len(spatial))]
    else:
        sizes = [conv_output_size(spatial[i], kernel[i], stride[i], padding[i], dilation[i])
                 for i in range(len(spatial))]
    if not any(x > 0 for x in sizes):
        raise RuntimeError(f"Given input size per channel: {list(spatial)}. Calculated output "
                           f"size per channel: {sizes}. Output size is too small")
    if input._shape[1] == 0:
        channels = 0
    shape = (input._shape[0], channels, *sizes)
    factories._check_sizes(shape)  # (new_empty's check: no negative size)
    return _new(shape, input._dtype, False, True)


def _convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                 padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                 output_padding: Sequence[int], groups: int, *, meta: bool) -> Tensor:
    if meta:
        return _meta_convolution(input, weight, stride, padding, dilation, transposed,
                                 output_padding, groups)
    stride, padding, dilation, output_padding = _check(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    shape = _output_shape(input, weight, stride, padding, dilation, transposed,
                          output_padding, groups)
    if input._shape[0] == 0 or input._shape[1] == 0:
        return _empty_backend(input, weight, bias, shape)
    if input.numel() == 0:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got "
                           f"input shape: {_sizes(input._shape)}")
    if transposed:
        _check_transposed(input, weight, stride, padding, dilation, output_padding, shape)
    _check_types(input, weight)
    _not_implemented(input._dtype, weight.dim() - 2, transposed, dilation)
    out = _new(shape, input._dtype, _per_group(_channels_last(input, weight), shape,
                                               input._dtype, groups, 1), meta)
    if out.numel() == 0:
        return out
    work = _work(input._dtype)
    x = cast(input._elements(), work)
    w = cast(weight._elements(), work)
    with np.errstate(all="ignore"):
        if transposed:  # the gradient of the convolution it transposes
            values = _input_grad(x, w, groups, stride, padding, dilation, shape[2:])
        else:
            values = _forward(x, w, groups, stride, padding, dilation, shape[2:])
        if bias is not None:
            values = values + cast(bias._elements(), work).reshape(-1, *(1,) * (len(shape) - 2))
    out._elements()[...] = cast(values, input._dtype)
    return out


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.convolution.default.impl(_key)(
        lambda input, weight, bias, stride, padding, dilation, transposed, output_padding,
        groups, meta=_meta: _convolution(input, weight, bias, stride, padding, dilation,
                                         transposed, output_padding, groups, meta=meta))


def _meta_like(shape: tuple[int, ...], d: dtype, channels_last: bool) -> Tensor:
    """``new_empty(shape).to(memory_format=...)``: contiguous, copied to channels-last
    strides unless the contiguous ones already look channels-last (``to`` then aliases)."""
    stride = layout.contiguous_strides(shape)
    if channels_last and not layout.strides_like_channels_last(shape, stride):
        stride = layout.channels_last_strides(shape)
    return factories._allocate(tuple(shape), stride, d, META)


def _convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor,
                          bias_sizes: Sequence[int] | None, stride: Sequence[int],
                          padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                          output_padding: Sequence[int], groups: int,
                          output_mask: Sequence[bool], *, meta: bool
                          ) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """torch's ``convolution_backward``: the gradients of input, weight and bias (None
    where ``output_mask`` says so), laid out as the forward's backend lays them out."""
    stride, padding, dilation, output_padding = _check(
        input, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    d = input._dtype
    if meta:  # torch's Python meta function: its own memory format rule, the bias's sizes
        channels_last = input.dim() == 4 and (
            input._suggest_memory_format() is layout.channels_last
            or weight._suggest_memory_format() is layout.channels_last)
        return (_meta_like(input._shape, d, channels_last) if output_mask[0] else None,
                _meta_like(weight._shape, d, channels_last) if output_mask[1] else None,
                _new(tuple(bias_sizes or ()), d, False, True) if output_mask[2] else None)
    if input._shape[0] == 0 or input._shape[1] == 0:  # the Empty backend: zeros
        return (aten.zeros_like(input) if output_mask[0] else None,
                aten.zeros_like(weight) if output_mask[1] else None,
                aten.zeros(tuple(bias_sizes or ()), dtype=weight._dtype)
                if output_mask[2] else None)
    channels_last = _channels_last(input, weight)
    gi = (_new(input._shape, d, _per_group(channels_last, input._shape, d, groups, 1), meta)
          if output_mask[0] else None)
    gw = (_new(weight._shape, d, _per_group(channels_last, weight._shape, d, groups, 0), meta)
          if output_mask[1] else None)
    if (gw is not None and channels_last and weight.dim() == 4
            and d is not dtypes.float32
            and layout.is_channels_last_contiguous(weight._shape, weight._stride)):
        # in the slow backends (all but float32), a weight already channels-last
        # contiguous (its size-1 dims' strides as they are) gives its gradient its strides
        gw = factories._allocate(weight._shape, weight._stride, d, CPU)
    gb = None
    if output_mask[2]:
        channels = grad_output._shape[1]
        gb = _new((channels,), d, False, meta)
    _not_implemented(d, weight.dim() - 2, transposed, dilation)
    work = _work(d)
    go = cast(grad_output._elements(), work)
    x = cast(input._elements(), work)
    w = cast(weight._elements(), work)
    with np.errstate(all="ignore"):
        if gi is not None and gi.numel():
            if transposed:  # the transposed convolution's input gradient is a convolution
                values = _forward(go, w, groups, stride, padding, dilation, input._shape[2:])
            else:
                values = _input_grad(go, w, groups, stride, padding, dilation,
                                     input._shape[2:])
            gi._elements()[...] = cast(values, d)
        if gw is not None and gw.numel():
            if go.size == 0:
                gw._elements()[...] = 0
            elif transposed:  # input and output gradient swap places
                values = _weight_grad(go, x, groups, stride, padding, dilation,
                                      weight._shape[2:])
                gw._elements()[...] = cast(values, d)
            else:
                values = _weight_grad(x, go, groups, stride, padding, dilation,
                                      weight._shape[2:])
                gw._elements()[...] = cast(values, d)
        if gb is not None and gb.numel():
            axes = (0, *range(2, go.ndim))
            gb._elements()[...] = cast(np.sum(go, axis=axes), d)
    return gi, gw, gb


for _key, _meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
    aten.convolution_backward.default.impl(_key)(
        lambda grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask, meta=_meta: _convolution_backward(
            grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
            output_padding, groups, output_mask, meta=meta))



# ------------------------------------------------------------------ conv1d, conv2d
def _batchify(input: Tensor, spatial: int, name: str) -> tuple[Tensor, bool]:
    """torch's ``batchify``: an unbatched input gets a batch dim of 1."""
    batched = input.dim() == spatial + 2
    if input.dim() != spatial + 1 and not batched:
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) "
                           f"input to {name}, but got input of size: {_sizes(input._shape)}")
    return (input if batched else input.unsqueeze(0)), batched


def _bias_type(input: Tensor, bias: Tensor | None) -> None:
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({C_TYPE_NAMES[input._dtype.name]}) and bias type "
                           f"({C_TYPE_NAMES[bias._dtype.name]}) should be the same")


def _conv(spatial: int, name: str) -> Any:
    """torch's ``conv1d_symint``/``conv2d_symint``: batchify, ``convolution``, unbatchify."""
    def conv(input: Tensor, weight: Tensor, bias: Tensor | None = None,
             stride: Sequence[int] = (1,), padding: Sequence[int] = (0,),
             dilation: Sequence[int] = (1,), groups: int = 1) -> Tensor:
        _bias_type(input, bias)
        batched_input, batched = _batchify(input, spatial, name)
        out = aten.convolution.default(batched_input, weight, bias, stride, padding,
                                       dilation, False, [0] * spatial, groups)
        return out if batched else out.squeeze(0)

    conv.__name__ = name
    return conv


#: torch's ``TORCH_WARN_ONCE`` for an asymmetric 'same' padding (once per process)
_warn_same = _WarnOnce("Using padding='same' with even kernel lengths and odd dilation may "
                       "require a zero-padded copy of the input be created")


def _same_padding(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                  dilation: Sequence[int], groups: int) -> Tensor:
    """torch's ``_convolution_same``: the padding that keeps each spatial size, split as
    evenly as possible (the odd element on the right); when it is not symmetric the input
    is first padded with zeros on the right by the difference."""
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"{_sizes(weight._shape)}, but got {input.dim()}-dimensional "
                           f"input of size {_sizes(input._shape)} instead")
    if len(stride) not in (1, dim):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if len(dilation) not in (1, dim):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight._shape[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return aten.convolution.default(input, weight, bias, stride, left, dilation, False,
                                        [0] * dim, groups)
    _warn_same("function")
    # the extra zeros on the right: torch's constant_pad_nd (ConstantPadNdBackward0), its
    # pads given last dim first, (left, right) each
    pad = [0] * (2 * dim)
    for i in range(dim):
        pad[2 * (dim - 1 - i) + 1] = right[i] - left[i]
    padded = aten.constant_pad_nd.default(input, pad, 0)
    return aten.convolution.default(padded, weight, bias, stride, left, dilation, False,
                                    [0] * dim, groups)


def _conv_padding(spatial: int, name: str) -> Any:
    """torch's ``conv1d_padding_symint``/``conv2d_padding_symint``: batchify, then
    ``_convolution_mode`` ('same' or 'valid'), unbatchify."""
    def conv(input: Tensor, weight: Tensor, bias: Tensor | None = None,
             stride: Sequence[int] = (1,), padding: str = "valid",
             dilation: Sequence[int] = (1,), groups: int = 1) -> Tensor:
        _bias_type(input, bias)
        batched_input, batched = _batchify(input, spatial, name)
        if padding == "same":
            out = _same_padding(batched_input, weight, bias, stride, dilation, groups)
        elif padding == "valid":
            out = aten.convolution.default(batched_input, weight, bias, stride, [0],
                                           dilation, False, [0], groups)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        return out if batched else out.squeeze(0)

    conv.__name__ = name + "_padding"
    return conv


for _spatial, _name in ((1, "conv1d"), (2, "conv2d")):
    aten[_name].default.impl(DispatchKey.CompositeImplicitAutograd)(_conv(_spatial, _name))
    aten[_name].padding.impl(DispatchKey.CompositeImplicitAutograd)(
        _conv_padding(_spatial, _name))


# ------------------------------------------------------------------ convolution.out
def _convolution_out(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                     padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                     output_padding: Sequence[int], groups: int, out: Tensor) -> Tensor:
    """torch's generated ``convolution.out`` (of a ``CompositeExplicitAutograd`` op): the
    result computed first (its errors first), then ``out`` checked (exactly the result's
    dtype and device), resized to the result's shape (contiguous: ``resize_``; kept as it
    is when the shape is already the result's; torch's warning when it had elements) and
    written (``copy_``: an ``out`` with overlapping elements is refused; an ``out`` that
    is, or overlaps, an input is not, being written only after)."""
    result = _convolution(input, weight, bias, stride, padding, dilation, transposed,
                          output_padding, groups, meta=input.device.type == "meta")
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {C_TYPE_NAMES[result._dtype.name]}"
                           f", but got {C_TYPE_NAMES[out._dtype.name]} instead")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got "
                           f"{out.device} instead")
    if out._shape != result._shape:
        iterator.resize_output(out, result._shape, layout.contiguous_strides(result._shape))
    iterator.assert_no_internal_overlap(out)
    if out.device.type == "meta":
        return out
    out_arguments.writer(out, result)
    return out


class NotImplementedNode(Node):
    """torch's ``NotImplemented`` node, which its generated autograd kernel of an ``out=``
    form records on ``out`` when an input requires grad: its backward raises."""

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: Any) -> tuple[Any, ...]:
        raise RuntimeError("derivative for aten::convolution is not implemented")


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"


def _convolution_out_autograd(op: Any, keys: int, *values: Any) -> Tensor:
    """torch's generated autograd kernel of ``convolution.out``: an ``out`` that requires
    grad is refused (grad mode on); one written from inputs that require grad gets a node
    whose backward raises."""
    out = values[-1]
    inputs = [t for t in values[:3] if isinstance(t, Tensor)]
    if not grad_state.enabled:
        return op.redispatch(keys, *values)
    if out._requires_grad:
        raise RuntimeError("aten::convolution(): functions with out=... arguments don't "
                           "support automatic differentiation, but one of the arguments "
                           "requires grad.")
    needs = any(t._requires_grad for t in inputs)
    result = op.redispatch(keys, *values)
    if needs:
        record(NotImplementedNode(*values[:3]), result)
    return result


def _overrideable(*values: Any) -> Tensor:
    """torch's ``convolution_overrideable``: a hook for other backends, none on CPU."""
    raise NotImplementedError(
        "convolution_overrideable not implemented. You are likely triggering this with "
        "tensor backend other than CPU/CUDA/MKLDNN, if this is intended, please use "
        "TORCH_LIBRARY_IMPL to override this function ")


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.convolution.out.impl(_key)(_convolution_out)
    aten.convolution_overrideable.default.impl(_key)(_overrideable)
    aten.convolution_overrideable.out.impl(_key)(_overrideable)
aten.convolution.out.impl(DispatchKey.Autograd)(_convolution_out_autograd)
