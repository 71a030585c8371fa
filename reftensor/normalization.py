"""Layer and batch normalization (chapter 6): ``native_layer_norm``, ``native_batch_norm``,
their backward ops, and the composites ``layer_norm`` and ``batch_norm``.

Both subtract a mean and divide by a standard deviation, then scale by ``weight`` and shift
by ``bias``; they differ in *which* values share the statistics:

* layer norm: each sample alone, over its last ``len(normalized_shape)`` dims. The result
  also returns ``mean`` and ``rstd = 1 / sqrt(var + eps)`` per sample, shaped so that they
  broadcast against the input (``(M..., 1, ..., 1)``), for the backward to reuse;
* batch norm: each channel (dim 1) over the batch and every other dim. In training the
  batch's statistics normalize, and the running statistics move towards them:
  ``running = momentum * batch_stat + (1 - momentum) * running``, the variance taken
  *unbiased* (divided by ``n - 1``) there, *biased* (``n``) for normalizing. In eval the
  running statistics normalize. The saved ``save_mean`` and ``save_invstd`` are empty then.

The variance is the biased one, ``mean((x - mean)**2)``; float16 and bfloat16 compute in
float32 and round the output once; ``mean`` and ``rstd`` of layer norm keep the input's
dtype (float32 when a float16/bfloat16 input has float32 parameters, as torch's mixed
kernel). Layer norm's statistics follow torch's order bit for bit (Welford's update in
vector lanes, :mod:`reftensor.moments`), and so does its input gradient (float32,
float64), because their terms cancel where a row is constant. Batch norm's sums are
NumPy's in float64, rounded: torch accumulates them in vector lanes and per-thread partial
sums, an order that depends on the thread count, so they are within a few ulps of torch's,
not bit for bit. The order of the elementwise steps is torch's (``(x - mean) * rstd *
weight + bias``; batch norm as ``x * alpha + beta`` with ``alpha = invstd * weight``,
``beta = bias - mean * alpha``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes
from ._casting import cast, compute_dtype
from ._layers import fma as _fma
from ._layers import new_tensor, on_meta, values_of
from ._ops import DispatchKey, aten
from .dtypes import dtype
from .layout import channels_last
from .moments import rowwise_moments
from .promotion import SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []


def _param_dtype(input: Tensor, *params: Tensor | None) -> dtype:
    """The dtype of the statistics: float32 for a float16/bfloat16 input whose parameters
    are float32 (torch's mixed kernels), else the input's."""
    if input._dtype in (dtypes.float16, dtypes.bfloat16) and any(
            p is not None and p._dtype is dtypes.float32 for p in params):
        return dtypes.float32
    return input._dtype


def _check_mixed(input: Tensor, *params: Tensor | None) -> None:
    """torch's ``is_mixed_type`` and ``check_mixed_data_type``: parameters whose (first
    given) dtype is not the input's must all be float32, with a float16/bfloat16 input."""
    given = [p for p in params if p is not None]
    if not given:
        return
    if given[0]._dtype is input._dtype:  # not mixed: the kernel reads each as the input's
        for p in given[1:]:
            if p._dtype is not input._dtype:
                raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[input._dtype.name]}"
                                   f" but found {SCALAR_TYPE_NAMES[p._dtype.name]}")
        return
    if any(p._dtype is not dtypes.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._dtype not in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


# ============================================================== layer norm
def _check_layer_norm(input: Tensor, normalized_shape: tuple[int, ...], weight: Tensor | None,
                      bias: Tensor | None) -> tuple[int, int]:
    """torch's ``_check_layer_norm_inputs``: ``(M, N)``, the rows and their length."""
    shape = tuple(normalized_shape)
    if len(shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and p._shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {_shape_text(p._shape)} and "
                               f"normalized_shape = {_shape_text(shape)}")
    if input.dim() < len(shape) or input._shape[input.dim() - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={_shape_text(shape)}, expected input with "
                           f"shape [*{''.join(f', {n}' for n in shape)}], but got input of "
                           f"size{_shape_text(input._shape)}")
    n = math.prod(shape)
    return (input.numel() // n if n else math.prod(input._shape[:input.dim() - len(shape)]),
            n)


def _native_layer_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None,
                       bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    m, n = _check_layer_norm(input, tuple(normalized_shape), weight, bias)
    _check_mixed(input, weight, bias)
    axis = input.dim() - len(normalized_shape)
    stat_shape = (*input._shape[:axis], *([1] * len(normalized_shape)))
    param = _param_dtype(input, weight, bias)
    if on_meta(input, weight, bias) or m == 0:
        where = input.device
        return (new_tensor(input._shape, input._dtype, None, where),
                new_tensor(stat_shape, param, None, where),
                new_tensor(stat_shape, param, None, where))
    work = compute_dtype(input._dtype).numpy
    x = values_of(input, compute_dtype(input._dtype)).reshape(m, n)
    with np.errstate(all="ignore"):
        mean, var = (a[:, None] for a in rowwise_moments(x, input._dtype))
        var = np.maximum(var, work.type(0))
        rstd = work.type(1) / np.sqrt(var + work.type(eps))
        gamma = values_of(weight).reshape(1, n).astype(work) if weight is not None else None
        beta = (values_of(bias).reshape(1, n).astype(work) if bias is not None else None)
        if work is not input._dtype.numpy:  # float16/bfloat16: x * rstd + (-rstd * mean)
            y = _fma(x, np.broadcast_to(rstd, x.shape), np.broadcast_to(-rstd * mean, x.shape))
        else:
            y = (x + (-mean)) * rstd
        if gamma is not None:
            y = y * gamma
        if beta is not None:
            y = y + beta
    if n == 0:  # torch's rows of no element: mean 0, rstd NaN
        mean, rstd = np.zeros_like(mean), np.full_like(rstd, np.nan)
    return (new_tensor(input._shape, input._dtype, y),
            new_tensor(stat_shape, param, mean), new_tensor(stat_shape, param, rstd))


#: elements of a float32 / float64 vector in torch's AVX2 kernels (32 bytes), the ones
#: layer norm's backward runs on AVX2 and AVX512 machines alike
_VECTOR_BYTES = 32


def _row_sums(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's ``sum(p * q)``, shape ``(M, N) -> (M, 1)``, in ``p``'s dtype and in the
    order of torch's ``vec::map2_reduce_all`` (ATen/cpu/vec/functional_base.h) as built for
    AVX2: a row shorter than a vector is summed left to right; a longer one in vector lanes
    (lane ``j`` adds elements ``j, j + L, j + 2L, ...``; the compiler fuses the last, partial
    vector's multiply-add), then the lanes pairwise (``((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7))``
    for float32, left to right for float64's four)."""
    lanes = _VECTOR_BYTES // p.dtype.itemsize
    m, n = p.shape
    if n < lanes:
        terms = p * q
        total = terms[:, 0].copy() if n else np.zeros(m, p.dtype)
        for j in range(1, n):
            total = total + terms[:, j]
        return total[:, None]
    acc = p[:, :lanes] * q[:, :lanes]
    whole = n - n % lanes
    for d in range(lanes, whole, lanes):
        acc = acc + p[:, d:d + lanes] * q[:, d:d + lanes]
    if whole < n:
        acc = acc.copy()
        acc[:, :n - whole] = _fma(p[:, whole:], q[:, whole:], acc[:, :n - whole])
    if lanes == 8:
        acc = acc[:, :4] + acc[:, 4:]
        acc = acc[:, :2] + acc[:, 2:]
        return acc[:, :1] + acc[:, 1:]
    total = acc[:, 0]
    for j in range(1, lanes):
        total = total + acc[:, j]
    return total[:, None]


def _layer_norm_input_grad(x: np.ndarray, dy: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                           gamma: np.ndarray | None) -> np.ndarray:
    """dx of a float32/float64 layer norm, ``(M, N)``, bit for bit as torch's
    ``layer_norm_backward_frame``: ``ds`` and ``db`` summed as :func:`_row_sums`, then
    ``b = (db * mean - ds) * a * a * a / N`` and ``c = -b * mean - db * a / N`` (``a`` the
    rstd), the first step of each fused, and ``dx = (a * dy * gamma + b * x) + c`` with
    ``b * x`` fused into the sum. Where the terms cancel (a constant row: the exact gradient
    is 0) torch's result is this rounding, so it is reproduced, not the exact value."""
    n = x.shape[1]
    with np.errstate(all="ignore"):
        if gamma is None:
            ds, db = _row_sums(dy, x), _row_sums(dy, np.ones_like(dy))
            first = rstd * dy
        else:
            g = np.broadcast_to(gamma, x.shape)
            ds, db = _row_sums(dy * x, g), _row_sums(dy, g)
            first = rstd * dy * g
        scale = x.dtype.type(1) / x.dtype.type(n) if n else x.dtype.type(math.inf)
        b = _fma(db, mean, -ds) * rstd * rstd * rstd * scale
        c = _fma(-b, mean, -(db * rstd * scale))
        return _fma(np.broadcast_to(b, x.shape), x, first) + c


def _native_layer_norm_backward(grad_out: Tensor, input: Tensor, normalized_shape: list[int],
                                mean: Tensor, rstd: Tensor, weight: Tensor | None,
                                bias: Tensor | None, output_mask: list[bool]) -> tuple[Any, ...]:
    """torch's ``layer_norm_backward_frame``: ``dgamma = sum(dy * (rstd * x - rstd *
    mean))``, ``dbeta = sum(dy)`` over the rows; ``dx = rstd * dy * gamma + b * x + c`` with
    ``b = (db * mean - ds) * rstd**3 / N``, ``c = -b * mean - db * rstd / N``, ``ds =
    sum(dy * x * gamma)`` and ``db = sum(dy * gamma)`` along the row."""
    m, n = _check_layer_norm(input, tuple(normalized_shape), weight, bias)
    if (output_mask[1] and weight is None) or (output_mask[2] and bias is None):
        # torch makes dgamma like ``weight`` and dbeta like ``bias``: of a missing one, none
        raise RuntimeError("tensor does not have a device")
    shapes = (input._shape, tuple(normalized_shape), tuple(normalized_shape))
    dts = (input._dtype, (weight if weight is not None else input)._dtype,
           (bias if bias is not None else weight if weight is not None else input)._dtype)
    if on_meta(grad_out, input, mean, rstd, weight):
        return tuple(new_tensor(s, d, None) if want else None
                     for s, d, want in zip(shapes, dts, output_mask, strict=True))
    work = compute_dtype(input._dtype).numpy
    x = values_of(input, compute_dtype(input._dtype)).reshape(m, n).astype(np.float64)
    dy = values_of(grad_out, compute_dtype(grad_out._dtype)).reshape(m, n).astype(np.float64)
    mu = values_of(mean).reshape(m, 1).astype(work).astype(np.float64)
    a = values_of(rstd).reshape(m, 1).astype(work).astype(np.float64)
    gamma = (values_of(weight).reshape(1, n).astype(np.float64) if weight is not None
             else np.ones((1, n)))
    results: list[Any] = [None, None, None]
    with np.errstate(all="ignore"):
        if output_mask[0]:
            if work in (np.float32, np.float64) and (weight is None
                                                      or weight._dtype is input._dtype):
                values = _layer_norm_input_grad(x.astype(work), dy.astype(work), mu.astype(work),
                                                a.astype(work), None if weight is None
                                                else gamma.astype(work))
            else:  # float16/bfloat16: in float64, rounded once
                ds = (dy * x * gamma).sum(axis=1, keepdims=True).astype(work).astype(np.float64)
                db = (dy * gamma).sum(axis=1, keepdims=True).astype(work).astype(np.float64)
                scale = 1.0 / n if n else math.inf
                b = (db * mu - ds) * a * a * a * scale
                c = -b * mu - db * a * scale
                values = a * dy * gamma + b * x + c
            results[0] = new_tensor(input._shape, input._dtype, values)
        if output_mask[1]:
            # torch: ``dy * (a * x + b)`` with ``b = -a * mean``, the inner step fused
            aw, xw = a.astype(work), x.astype(work)
            inner = _fma(np.broadcast_to(aw, xw.shape), xw,
                         np.broadcast_to((-aw * mu.astype(work)).astype(work), xw.shape))
            values = (dy * inner.astype(np.float64)).sum(axis=0) if m else np.zeros(n)
            results[1] = new_tensor(shapes[1], dts[1], values)
        if output_mask[2]:
            results[2] = new_tensor(shapes[2], dts[2], dy.sum(axis=0) if m else np.zeros(n))
    return tuple(results)


@aten.layer_norm.default.impl(DispatchKey.CompositeImplicitAutograd)
def layer_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """torch's composite: ``native_layer_norm``'s output (``NativeLayerNormBackward0``)."""
    return aten.native_layer_norm.default.call(input, normalized_shape, weight, bias, eps)[0]


# ============================================================== batch norm
def _check_channels(name: str, channels: int, t: Tensor | None) -> None:
    if t is not None and t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")


def _channels_view(t: Tensor, work: Any) -> np.ndarray:
    """The input as ``(N, C, rest)``."""
    found = values_of(t, work)
    return found.reshape(t._shape[0], t._shape[1], -1)


def _native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                       running_mean: Tensor | None, running_var: Tensor | None,
                       training: bool, momentum: float,
                       eps: float) -> tuple[Tensor, Tensor, Tensor]:
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    c = input._shape[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check_channels(name, c, t)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    param = _param_dtype(input, weight, bias, running_mean, running_var)
    saved = (c,) if training else (0,)
    if on_meta(input, weight, bias, running_mean, running_var):
        if training and running_var is not None and input.numel() == c:
            # torch's meta kernel (a Python decomposition) scales the variance by n / (n - 1)
            raise ZeroDivisionError("float division by zero")
        return (new_tensor(input._shape, input._dtype, None), new_tensor(saved, param, None),
                new_tensor(saved, param, None))
    if input.numel() == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got "
                           f"input_sizes = {_shape_text(input._shape)}")
    pwork = compute_dtype(param).numpy  # what torch's statistics are held in
    x = _channels_view(input, compute_dtype(input._dtype))
    n = x.shape[0] * x.shape[2]
    with np.errstate(all="ignore"):
        if training:
            wide = x.astype(np.float64)
            mean = (wide.sum(axis=(0, 2)) / n).astype(pwork)
            centred = x - mean[None, :, None].astype(x.dtype)
            var_sum = (centred * centred).astype(np.float64).sum(axis=(0, 2)).astype(pwork)
            half = param in (dtypes.float16, dtypes.bfloat16)
            if half:  # torch keeps the sum of squares in the parameters' dtype
                var_sum = cast(cast(var_sum, param), dtypes.float32)
            biased = (var_sum / pwork.type(n)).astype(np.float64)
            invstd = np.where((biased == 0) & (eps == 0), 0.0,
                              1.0 / np.sqrt(biased + eps)).astype(pwork)
            _update_running(running_mean, running_var, mean, var_sum, n, momentum, pwork)
            if half:  # save_mean and save_invstd, float16/bfloat16 tensors, are what it reads
                mean = cast(cast(mean, param), dtypes.float32)
                invstd = cast(cast(invstd, param), dtypes.float32)
        else:
            mean = values_of(running_mean, compute_dtype(param)).astype(pwork)
            rv = values_of(running_var, compute_dtype(param)).astype(pwork)
            invstd = pwork.type(1) / np.sqrt(rv + pwork.type(eps))
        if all(t is None or t.is_contiguous()
               for t in (input, weight, bias, running_mean, running_var)):
            y = _contiguous_transform(x, mean, invstd, weight, bias, c, pwork, param,
                                      input._dtype in (dtypes.float16, dtypes.bfloat16))
        else:
            y = _strided_transform(input, x, mean, invstd, weight, bias, running_var,
                                   training, eps, param)
    out = new_tensor(input._shape, input._dtype, y.reshape(input._shape))
    if not training:
        return out, new_tensor(saved, param, None, input.device), new_tensor(
            saved, param, None, input.device)
    return out, new_tensor(saved, param, mean), new_tensor(saved, param, invstd)


def _contiguous_transform(x: np.ndarray, mean: np.ndarray, invstd: np.ndarray,
                          weight: Tensor | None, bias: Tensor | None, c: int, pwork: Any,
                          param: dtype, half: bool) -> np.ndarray:
    """torch's contiguous kernel: ``alpha = invstd * weight``, ``beta = bias - mean *
    alpha`` per channel in the opmath dtype, then ``fma(x, alpha, beta)`` (vectorised;
    ``half``, a float16/bfloat16 input: see ``_half_transform``)."""
    w = (values_of(weight, compute_dtype(param)).astype(pwork) if weight is not None
         else np.ones(c, pwork))
    b = (values_of(bias, compute_dtype(param)).astype(pwork) if bias is not None
         else np.zeros(c, pwork))
    alpha = (invstd * w).astype(np.float32 if pwork != np.float64 else np.float64)
    beta = (b - mean * alpha).astype(alpha.dtype)
    if half:
        return _half_transform(x.astype(np.float32), alpha, beta)
    return _fma(x.astype(alpha.dtype), np.broadcast_to(alpha[None, :, None], x.shape),
                np.broadcast_to(beta[None, :, None], x.shape))


#: float16/bfloat16 elements per vector of torch's AVX512 kernels: the contiguous batch norm
#: fuses ``x * alpha + beta`` in whole vectors and rounds the product first in the scalar
#: tail of each (n, c) row
_HALF_LANES = 32


def _half_transform(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The float16/bfloat16 contiguous kernel in float32: fused in the first ``k *
    _HALF_LANES`` elements of each row, ``x * alpha + beta`` with two roundings after."""
    a = np.broadcast_to(alpha[None, :, None], x.shape)
    b = np.broadcast_to(beta[None, :, None], x.shape)
    with np.errstate(all="ignore"):
        out = x * a + b
        vector = x.shape[2] - x.shape[2] % _HALF_LANES
        if vector:
            out[:, :, :vector] = _fma(x[:, :, :vector], a[:, :, :vector], b[:, :, :vector])
    return out


def _strided_transform(input: Tensor, x: np.ndarray, mean: np.ndarray, invstd: np.ndarray,
                       weight: Tensor | None, bias: Tensor | None,
                       running_var: Tensor | None, training: bool, eps: float,
                       param: dtype) -> np.ndarray:
    """torch's TensorIterator path (an operand not contiguous): ``((x - mean) * invstd) *
    weight + bias`` element by element, each step rounded to its operands' type: the
    parameters' (float32 for mixed float16/bfloat16 input) or, for float16/bfloat16
    throughout, float16/bfloat16 at every step. In eval ``invstd = 1 / sqrt(running_var +
    eps)``, computed as tensor ops in the running variance's dtype."""
    step = np.dtype(param.numpy).type  # each step's rounding (float16/bfloat16: see r)
    if param in (dtypes.float16, dtypes.bfloat16):
        def r(v: np.ndarray) -> np.ndarray:
            return cast(cast(v, param), dtypes.float32)
    else:
        def r(v: np.ndarray) -> np.ndarray:
            return np.asarray(v).astype(step)
    work = np.float32 if param in (dtypes.float16, dtypes.bfloat16) else step
    if not training:
        assert running_var is not None
        rv = cast(values_of(running_var), dtypes.float32) if param in (
            dtypes.float16, dtypes.bfloat16) else values_of(running_var).astype(work)
        invstd = r(work(1) / r(np.sqrt(r(rv + work(eps)))))
    m = r(np.asarray(mean).astype(work))[None, :, None]
    k = r(np.asarray(invstd).astype(work))[None, :, None]
    w = (r(cast(values_of(weight), dtypes.float32) if param in (dtypes.float16, dtypes.bfloat16)
           else values_of(weight).astype(work))[None, :, None] if weight is not None
         else work(1))
    b = (r(cast(values_of(bias), dtypes.float32) if param in (dtypes.float16, dtypes.bfloat16)
           else values_of(bias).astype(work))[None, :, None] if bias is not None
         else work(0))
    xs = x.astype(work)
    return r(r(r(r(xs - m) * k) * w) + b)


def _update_running(running_mean: Tensor | None, running_var: Tensor | None, mean: np.ndarray,
                    var_sum: np.ndarray, n: int, momentum: float, pwork: Any) -> None:
    """torch's update, in its types: ``momentum * mean + (1 - momentum) * running`` in the
    statistics' dtype; the variance's first term in double (``var_sum / (n - 1)`` is
    rounded to that dtype, then widened), the second in the statistics' dtype."""
    m = pwork.type(momentum)
    one = pwork.type(1)
    if running_mean is not None:
        rm = values_of(running_mean, compute_dtype(running_mean._dtype)).astype(pwork)
        running_mean._elements()[...] = cast(m * mean + (one - m) * rm, running_mean._dtype)
    if running_var is not None:
        rv = values_of(running_var, compute_dtype(running_var._dtype)).astype(pwork)
        unbiased = (var_sum / pwork.type(n - 1)).astype(np.float64)
        values = np.float64(m) * unbiased + ((one - m) * rv).astype(np.float64)
        running_var._elements()[...] = cast(values.astype(pwork), running_var._dtype)


def _weight_as_read(weight: Tensor, input: Tensor, grad_out: Tensor,
                    save_mean: Tensor | None, save_invstd: Tensor | None,
                    running_mean: Tensor | None, running_var: Tensor | None,
                    train: bool) -> Tensor:
    """The weight as torch's backward reads it. Its contiguous kernel (input, gradient and
    the statistics it uses contiguous), where it walks channels innermost (one value per
    channel and sample, ``(N, C)`` or ``(N, C, 1, ...)``, or a channels-last input), reads
    ``weight``'s ``C`` elements one after another from its first, whatever its strides (a
    weight of stride 2 is read as its storage's next ``C`` elements); every other path
    follows the strides, and so does the kernel of a float16 or bfloat16 input (which
    computes in float32). (A weight whose storage ends before that reads past it in torch;
    here the strides are followed then.)"""
    if input._dtype in (dtypes.float16, dtypes.bfloat16):
        return weight
    stats = (save_mean, save_invstd) if train else (running_mean, running_var)
    channels_inner = (math.prod(input._shape[2:]) == 1
                      and input.is_contiguous() and grad_out.is_contiguous()) or (
        input.dim() == 4 and not input.is_contiguous()
        and input.is_contiguous(memory_format=channels_last)
        and grad_out.is_contiguous(memory_format=channels_last))
    if not channels_inner or weight.is_contiguous() \
            or not all(t is None or t.is_contiguous() for t in stats):
        return weight
    c = weight._shape[0]
    if weight._storage_offset + c > weight._storage.nbytes() // weight._dtype.itemsize:
        return weight
    return Tensor._make(weight._storage, (c,), (1,), weight._storage_offset, weight._dtype)


def _native_batch_norm_backward(grad_out: Tensor, input: Tensor, weight: Tensor | None,
                                running_mean: Tensor | None, running_var: Tensor | None,
                                save_mean: Tensor | None, save_invstd: Tensor | None,
                                train: bool, eps: float,
                                output_mask: list[bool]) -> tuple[Any, ...]:
    """torch's ``batch_norm_cpu_backward``: with ``sum = sum(dy)`` and ``dotp = sum((x -
    mean) * dy)`` per channel, training gives ``dx = (dy - sum / N - (x - mean) * dotp *
    invstd**2 / N) * invstd * w``, eval ``dx = dy * invstd * w``; ``dweight = dotp *
    invstd``, ``dbias = sum``."""
    c = input._shape[1]
    param = _param_dtype(input, weight, running_mean, running_var, save_mean)
    shapes = (input._shape, (c,), (c,))
    dts = (input._dtype, weight._dtype if weight is not None else param,
           weight._dtype if weight is not None else param)
    if on_meta(grad_out, input, weight, save_mean):
        return tuple(new_tensor(s, d, None) if want else None
                     for s, d, want in zip(shapes, dts, output_mask, strict=True))
    x = _channels_view(input, compute_dtype(input._dtype)).astype(np.float64)
    dy = _channels_view(grad_out, compute_dtype(grad_out._dtype)).astype(np.float64)
    n = x.shape[0] * x.shape[2]
    if train:
        assert save_mean is not None and save_invstd is not None
        mean = values_of(save_mean).astype(np.float64)
        invstd = values_of(save_invstd).astype(np.float64)
    else:
        assert running_mean is not None and running_var is not None
        mean = values_of(running_mean).astype(np.float64)
        with np.errstate(all="ignore"):  # a negative variance: NaN, as torch's
            invstd = 1.0 / np.sqrt(values_of(running_var).astype(np.float64) + eps)
    w = values_of(_weight_as_read(weight, input, grad_out, save_mean, save_invstd,
                                  running_mean, running_var, train)).astype(np.float64) \
        if weight is not None else np.ones(c)
    total = dy.sum(axis=(0, 2))
    dotp = ((x - mean[None, :, None]) * dy).sum(axis=(0, 2))
    results: list[Any] = [None, None, None]
    with np.errstate(all="ignore"):
        if output_mask[0]:
            if train:
                k = dotp * invstd * invstd / n
                dx = ((dy - (total / n)[None, :, None] - (x - mean[None, :, None])
                       * k[None, :, None]) * (invstd * w)[None, :, None])
            else:
                dx = dy * (invstd * w)[None, :, None]
            results[0] = new_tensor(input._shape, input._dtype, dx.reshape(input._shape))
        if output_mask[1]:
            results[1] = new_tensor(shapes[1], dts[1], dotp * invstd)
        if output_mask[2]:
            results[2] = new_tensor(shapes[2], dts[2], total)
    return tuple(results)


@aten.batch_norm.default.impl(DispatchKey.CompositeImplicitAutograd)
def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """torch's composite (``_batch_norm_impl_index``): its checks, then
    ``native_batch_norm``'s output; an empty input is ``input.clone()`` (times
    ``weight[0]``, plus ``bias[0]``), keeping the graph."""
    if input.numel() == 0:  # before any check of the dims (a 1-d empty input too)
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    c = input._shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            _check_channels(name, c, t)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        _check_channels(name, c, t)
    return aten.native_batch_norm.default.call(input, weight, bias, running_mean, running_var,
                                               training, momentum, eps)[0]


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.native_layer_norm.default.impl(_key)(_native_layer_norm)
    aten.native_layer_norm_backward.default.impl(_key)(_native_layer_norm_backward)
    aten.native_batch_norm.default.impl(_key)(_native_batch_norm)
    aten.native_batch_norm_backward.default.impl(_key)(_native_batch_norm_backward)
