"""The losses (chapter 6): the kernels of ``mse_loss``, ``nll_loss_forward``,
``nll_loss2d_forward``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits`` and
their backward ops, and the composites ``l1_loss``, ``nll_loss``, ``nll_loss2d``,
``nll_loss_nd`` and ``cross_entropy_loss``, as torch 2.13 computes them on the CPU.

A loss compares a prediction with a target and gives one number per element (``reduction``
0, "none"), or their mean (1) or sum (2). The reduction is an int in the op table, as in
torch's ATen; ``nn.functional`` turns the strings ``'none'``/``'mean'``/``'sum'`` into it.

* ``mse_loss`` is ``(self - target) ** 2`` (a subtraction and a multiplication, each rounded
  to the result's dtype), then ``mean`` or ``sum``: its own node, ``MseLossBackward0``.
* ``l1_loss`` is torch's composite ``(self - target).abs()`` then ``mean``/``sum``: the graph
  has ``MeanBackward0``, ``AbsBackward0``, ``SubBackward0``.
* ``nll_loss_forward`` picks ``-input[i, target[i]]`` (times ``weight[target[i]]``) for each
  row whose target is not ``ignore_index``; reduced, it adds them in torch's cascade order (8
  partial sums, 16 terms per level) in the input's dtype, and divides the sum by the total
  weight for a mean (``total_weight``, its second result). ``nll_loss2d_forward`` does the
  same for ``(N, C, H, W)`` inputs. Both are reproduced term by term: bit for bit.
* ``nll_loss_nd`` (what ``F.nll_loss`` calls) sends a 1-d or 2-d input to ``nll_loss``, a
  4-d one to ``nll_loss2d``, and any other to ``nll_loss2d`` on a ``(N, C, 1, -1)`` view.
* ``cross_entropy_loss`` is ``nll_loss_nd(log_softmax(input, class dim))`` for class
  indices; for class probabilities (a target of the input's shape) ``-(log_softmax * target)``
  summed; with ``label_smoothing`` the mix torch writes. All as torch decomposes them, so
  the nodes are torch's.
* ``binary_cross_entropy`` is ``(t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)``
  per element in the input's dtype (torch clamps the logs at -100, so a 0 or 1 input gives
  100, not inf), refusing inputs and targets outside [0, 1].
* ``binary_cross_entropy_with_logits`` is ``(1 - t) * x - log_sigmoid(x)`` (with
  ``pos_weight``: ``log_sigmoid(x) * ((pos_weight - 1) * t + 1)``), torch's in-place steps.

The backward ops follow torch's kernels; the formulas of the derivative rows are in
``autograd/derivatives.py``. log, log1p and exp are NumPy's: values within a few ulps of
torch's where they appear, exact elsewhere.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes, factories, iterator, layout, out_arguments
from ._casting import cast, compute_dtype
from ._ops import DispatchKey, aten
from .broadcasting import infer_broadcast_size
from .device import META, common_device
from .dtypes import dtype
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES, check_can_cast, result_type
from .tensor import Tensor

__all__: list[str] = []  # the ops are the table's (reftensor.binary_cross_entropy_with_logits, ...)

NONE, MEAN, SUM = 0, 1, 2


def _type_name(d: dtype) -> str:
    return SCALAR_TYPE_NAMES[d.name]


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(d)}\'')


def _is_meta(*tensors: Tensor | None) -> bool:
    return any(t is not None and t.device.type == "meta" for t in tensors)


def _new(shape: tuple[int, ...], d: dtype, meta: bool) -> Tensor:
    """A fresh contiguous tensor of zeros (on meta: no data)."""
    return factories._allocate(shape, layout.contiguous_strides(shape), d,
                               META if meta else factories.CPU)


def _write(out: Tensor, values: Any) -> Tensor:
    out._elements()[...] = cast(np.asarray(values).reshape(out._shape), out._dtype)
    return out


def _fresh(t: Tensor) -> Tensor:
    """A new result whose in-place steps ran inside the kernel: torch runs them below
    autograd, where they do not count in ``_version``."""
    t._version_counter.value = 0
    return t


def _kept_storage(reduced: Tensor, n: int) -> Tensor:
    """The 0-d ``reduced`` in a storage of ``max(n, 1)`` elements: torch reduces into the
    output that held the ``n`` unreduced losses (``mse_loss``'s structured output,
    ``binary_cross_entropy``'s ``resize_as_``), which keeps its storage. On the meta device
    torch's result is a plain 0-d tensor, one element of storage."""
    if reduced.device.type == "meta":
        return reduced
    kept = factories._allocate((max(n, 1),), (1,), reduced._dtype, reduced.device)
    out = Tensor._make(kept._storage, (), (), 0, reduced._dtype)
    out._elements()[...] = reduced._elements()
    return out


def resize_as(out: Tensor, shape: tuple[int, ...], stride: tuple[int, ...]) -> None:
    """``out`` given ``shape`` and ``stride`` in place, its storage grown when too small, with
    no warning: torch's ``resize_as_`` (and ``resize_`` with a memory format), which the
    kernels of ``binary_cross_entropy.out`` and ``log_sigmoid_forward.output`` call on their
    outs, unlike the structured kernels' ``resize_output``."""
    needed = 0 if 0 in shape else (out._storage_offset + layout.required_storage_elements(
        shape, stride)) * out._dtype.itemsize  # an empty shape needs no bytes
    if needed > out._storage.nbytes():
        out._storage.resize_(needed)
    out._shape, out._stride = tuple(shape), tuple(stride)


def apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    """torch's ``apply_loss_reduction``: ``loss.mean()`` for 1, ``loss.sum()`` for 2, the
    loss itself for anything else."""
    if reduction == MEAN:
        return loss.mean()
    if reduction == SUM:
        return loss.sum()
    return loss


def _reduction_assert() -> RuntimeError:
    return RuntimeError("reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL "
                        "ASSERT FAILED at \"aten/src/ATen/native/Loss.cpp\"")


# ------------------------------------------------------------------ mse_loss
def mse_loss(self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """``(self - target) ** 2``, reduced. The result dtype is the operands' promoted one."""
    common_device([self, target])
    d = result_type(self, target)
    if not d.is_floating_point:
        raise _not_implemented("mse_cpu", d)
    # one pass over the broadcast pair, as torch's single TensorIterator: its layout (a
    # bool operand is read as the common dtype there; ``-`` itself refuses bool)
    a, b = (x.to(d) if x._dtype is dtypes.bool else x for x in (self, target))
    loss = aten.sub.Tensor.call(a, b, 1)
    loss.mul_(loss)
    if reduction == NONE:
        return _fresh(loss)
    if reduction not in (MEAN, SUM):
        raise _reduction_assert()
    return _kept_storage(apply_loss_reduction(loss, reduction), loss.numel())


def mse_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor,
                      reduction: int) -> Tensor:
    """torch's ``mse_loss_backward``: ``(self - target) * norm * grad_output`` into a
    ``zeros_like(self)``, ``norm`` being ``2 / numel`` for a mean and 2 otherwise."""
    norm = (2.0 / self.numel() if self.numel() else math.inf) if reduction == MEAN else 2.0
    grad_input = aten.zeros_like(self)
    if target._dtype is dtypes.bool:  # read as self's dtype, as in the forward
        target = target.to(self._dtype)
    aten.sub.out.call(self, target, 1, grad_input)
    grad_input.mul_(norm)
    grad_input.mul_(grad_output)
    return _fresh(grad_input)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.mse_loss.default.impl(_key)(mse_loss)
    aten.mse_loss_backward.default.impl(_key)(mse_loss_backward)


def _check_overlaps(out: Tensor, *inputs: Tensor) -> None:
    """``TensorIterator``'s checks of an ``out=``: no element written twice, no input that
    shares only part of its memory."""
    iterator.assert_no_internal_overlap(out)
    for t in inputs:
        if t is not out:
            iterator.assert_no_partial_overlap(out, t)


def mse_loss_out(self: Tensor, target: Tensor, reduction: int, out: Tensor) -> Tensor:
    """torch's structured ``mse_loss.out`` on the CPU: its meta step builds a binary
    ``TensorIterator`` into ``out`` (the result type must cast to ``out``'s dtype; an ``out``
    of another shape is resized to the broadcast shape, with the warning when it had
    elements), then, for a mean or sum, resizes ``out`` to 0-d, keeping its storage; the
    loss is then computed from the inputs as they are by now (an ``out`` that is the input
    itself was made 0-d too, as in torch), reduced in ``out``'s dtype and written there.
    ``_version`` once."""
    common_device([self, target, out])
    d = result_type(self, target)
    shape = infer_broadcast_size(self._shape, target._shape)
    _check_overlaps(out, self, target)
    check_can_cast(d, out._dtype)
    if out._shape != shape:
        iterator.resize_output(out, shape, iterator.output_strides(
            shape, [(t._shape, t._stride) for t in (self, target)]))
    if reduction != NONE:
        resize_as(out, (), ())
    version = out._version_counter.value
    if reduction == NONE or out._dtype is d:
        result = aten.mse_loss.default.call(self, target, reduction)
    else:  # torch's ``mean_out``/``sum_out`` into ``out`` reduce in ``out``'s dtype
        loss = aten.mse_loss.default.call(self, target, NONE)
        if reduction not in (MEAN, SUM):
            raise _reduction_assert()
        result = apply_loss_reduction(loss.to(out._dtype), reduction)
    out._elements()[...] = cast(result._elements(), out._dtype)
    out._version_counter.value = version + 1
    return out


@aten.l1_loss.default.impl(DispatchKey.CompositeImplicitAutograd)
def l1_loss(self: Tensor, target: Tensor, reduction: int) -> Tensor:
    """torch's composite: ``(self - target).abs()``, then ``apply_loss_reduction``."""
    return apply_loss_reduction(aten.sub.Tensor.call(self, target, 1).abs(), reduction)


# ------------------------------------------------------------------ nll_loss
def _scalar_type(d: dtype) -> Any:
    """The NumPy scalar type that rounds every operation to ``d``, as torch's ``scalar_t``
    (``c10::Half`` and ``c10::BFloat16`` round each operation's float result)."""
    return np.dtype(d.numpy).type


def _check_target_dtype(target: Tensor) -> None:
    if target._dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_type_name(target._dtype)}")


def _check_weight(self: Tensor, weight: Tensor | None) -> None:
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {_type_name(self._dtype)} but found "
                           f"{_type_name(weight._dtype)}")


def _bounds(t: int, n_classes: int) -> None:
    if not 0 <= t < n_classes:
        raise IndexError(f"Target {t} is out of bounds.")


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _cascade(terms: list[tuple[int, Any, Any]], count: int, scalar: Any,
             weighted: bool) -> tuple[Any, Any]:
    """torch's cascade sum of ``nll_loss``: ``-value`` (times its weight) added to the first
    of 8 partial sums, which flows into the next level whenever the position's low bits
    (16 per level) are all zero; then the levels added in order. ``terms`` are ``(position,
    value, weight)`` of the targets that are not ignored; ``count`` the positions in all.
    Returns the loss sum and the weight sum, in ``scalar``'s rounding."""
    levels = 8
    power = max(4, _ceil_log2(count) // levels)
    mask = (1 << power) - 1
    zero = scalar(0)
    loss, weights = [zero] * levels, [zero] * levels
    for position, value, w in terms:
        if weighted:
            loss[0] = loss[0] - value * w
            weights[0] = weights[0] + w
        else:
            loss[0] = loss[0] - value
        for j in range(levels - 1):
            if position & (mask << (j * power)):
                break
            weights[j + 1] = weights[j + 1] + weights[j]
            loss[j + 1] = loss[j + 1] + loss[j]
            weights[j], loss[j] = zero, zero
    total_loss, total_weight = zero, zero
    for part in loss:
        total_loss = total_loss + part
    for part in weights:
        total_weight = total_weight + part
    return total_loss, total_weight


def _nll_checks(self: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """torch's meta checks of ``nll_loss_forward``, in its order."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not no_batch_dim and self._shape[0] != target._shape[0]:
        if self.dim() == 1 and target.dim() == 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{target._shape[0]}")
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)}, target: "
                           f"{list(target._shape)})")
    n_classes = self._shape[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                           "classes or no classes but got weight tensor of shape: "
                           f"{list(weight._shape)}")


def _weights_of(weight: Tensor | None) -> np.ndarray | None:
    return None if weight is None else weight._elements().reshape(-1)


def nll_loss_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: int) -> tuple[Tensor, Tensor]:
    """torch's ``nll_loss_forward`` (CPU ``nll_loss_out_frame``): ``(output,
    total_weight)``."""
    _nll_checks(self, target, weight)
    common_device([t for t in (self, target, weight) if t is not None])
    meta = _is_meta(self)
    rows = self._shape[0] if self.dim() == 2 else 1
    none_2d = reduction == NONE and self.dim() == 2
    output = _new((rows,) if none_2d else (), self._dtype, meta)
    total_weight = _new((), self._dtype, meta)
    if meta:
        return output, total_weight
    if not self._dtype.is_floating_point:
        raise _not_implemented("nll_loss_out_frame", self._dtype)
    _check_target_dtype(target)
    _check_weight(self, weight)
    scalar = _scalar_type(self._dtype)
    n_classes = self._shape[-1]
    x = self._elements().reshape(rows, n_classes)
    targets = [int(v) for v in target._elements().reshape(-1)]
    w = _weights_of(weight)
    return _nll_frame(x, targets, w, ignore_index, reduction, none_2d, rows, scalar, output,
                      total_weight)


def _nll_frame(x: np.ndarray, targets: list[int], w: Any, ignore_index: int, reduction: int,
               unreduced: bool, rows: int, scalar: Any, output: Tensor,
               total_weight: Tensor) -> tuple[Tensor, Tensor]:
    """The loop both CPU frames of torch's nll loss share, on ``x`` as (positions, classes)
    and one target per position: ``-x[i, t] * w[t]`` per position when ``unreduced``, else
    their sum in torch's cascade order (over the total weight for a mean), written into
    ``output`` and ``total_weight``; an ``ignore_index`` target counts 0, any other target
    outside ``[0, classes)`` raises IndexError. ``scalar`` rounds as torch's ``scalar_t``."""
    classes = x.shape[1]
    if unreduced:
        values = []
        for i, t in enumerate(targets):
            if t == ignore_index:
                values.append(scalar(0))
                continue
            _bounds(t, classes)
            values.append(-x[i, t] * (w[t] if w is not None else scalar(1)))
        if values:
            _write(output, np.array(values, dtype=x.dtype))
        return output, total_weight
    if not targets:
        _write(output, math.nan if reduction == MEAN else 0.0)
        return output, total_weight
    terms = []
    for i, t in enumerate(targets):
        if t == ignore_index:
            continue
        _bounds(t, classes)
        terms.append((i, x[i, t], w[t] if w is not None else None))
    loss, weights = _cascade(terms, rows, scalar, w is not None)
    if w is None:
        weights = scalar(len(terms))
    if reduction == MEAN:
        with np.errstate(all="ignore"):
            loss = loss / weights
    _write(output, loss)
    _write(total_weight, weights)
    return output, total_weight


def _nll_backward_checks(grad_output: Tensor, self: Tensor, target: Tensor,
                         weight: Tensor | None, reduction: int, total_weight: Tensor) -> None:
    """torch's meta checks of ``nll_loss_backward``."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not no_batch_dim and self._shape[0] != target._shape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)}, target: "
                           f"{list(target._shape)})")
    if total_weight.numel() != 1:
        raise RuntimeError("expected total_weight to be a single element tensor, got: "
                           f"{list(total_weight._shape)} ({total_weight.numel()} elements)")
    if weight is not None and weight.numel() != self._shape[-1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == NONE and self.dim() == 2:
        if grad_output.dim() != 1 or grad_output._shape[0] != self._shape[0]:
            size = grad_output._shape[0] if grad_output.dim() else 1
            raise RuntimeError(f"Expected a tensor of dimension 1 and tensor.size[0] == "
                               f"{self._shape[0]} but got: dimension {grad_output.dim()} and "
                               f"tensor.size[0] == {size}")
    elif grad_output.dim() > 1 or grad_output.numel() != 1:
        raise RuntimeError("Expected a single element grad_output tensor, but got: "
                           f"{list(grad_output._shape)}")


def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor,
                      weight: Tensor | None, reduction: int, ignore_index: int,
                      total_weight: Tensor) -> Tensor:
    """torch's ``nll_loss_backward`` (CPU ``nll_loss_backward_out_frame``): zeros of the
    input's shape, and at each row's target ``-weight * grad_output`` (``weight * -(grad /
    total_weight)`` for a mean)."""
    _nll_backward_checks(grad_output, self, target, weight, reduction, total_weight)
    meta = _is_meta(self)
    grad_input = _new(self._shape, self._dtype, meta)
    if meta:
        return grad_input
    if not self._dtype.is_floating_point:
        raise _not_implemented("nll_loss_backward_out_frame", self._dtype)
    _check_target_dtype(target)
    _check_weight(self, weight)
    scalar = _scalar_type(self._dtype)
    n_classes = self._shape[-1]
    rows = self._shape[0] if self.dim() == 2 else 1
    g = np.zeros((rows, n_classes), dtype=self._elements().dtype)
    targets = [int(v) for v in target._elements().reshape(-1)]
    w = _weights_of(weight)
    go = grad_output._elements().reshape(-1).astype(g.dtype)
    if reduction == NONE and self.dim() == 2:
        for i, t in enumerate(targets):
            if t == ignore_index:
                continue
            _bounds(t, n_classes)
            g[i, t] = -(w[t] if w is not None else scalar(1)) * go[i]
    else:
        value = go[0]
        if reduction == MEAN:
            with np.errstate(all="ignore"):
                value = value / total_weight._elements().reshape(-1).astype(g.dtype)[0]
        grad = -value
        for i, t in enumerate(targets[:rows]):
            if t == ignore_index:
                continue
            _bounds(t, n_classes)
            g[i, t] = w[t] * grad if w is not None else grad
    return _write(grad_input, g)


def _nll2d_checks(self: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """torch's ``check_inputs_nll_loss2d``."""
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    if self.dim() != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got "
                           f"input of dimension: {self.dim()}")
    if weight is not None and weight.numel() != self._shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = self._shape
    if (n, h, w) != target._shape:
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)} , target: "
                           f"{list(target._shape)}")


def nll_loss2d_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int) -> tuple[Tensor, Tensor]:
    """torch's ``nll_loss2d_forward`` (CPU ``nll_loss2d_forward_out_frame``): input ``(N, C,
    H, W)``, target ``(N, H, W)``; ``(output, total_weight)``, the output ``(N, H, W)`` for
    ``reduction=0``."""
    _nll2d_checks(self, target, weight)
    common_device([t for t in (self, target, weight) if t is not None])
    meta = _is_meta(self)
    n, c, h, wd = self._shape
    output = _new((n, h, wd) if reduction == NONE else (), self._dtype, meta)
    total_weight = _new((), self._dtype, meta)
    if meta:
        return output, total_weight
    if not self._dtype.is_floating_point:
        raise _not_implemented("nll_loss2d_forward_out_frame", self._dtype)
    _check_target_dtype(target)
    _check_weight(self, weight)
    scalar = _scalar_type(self._dtype)
    x = self._elements().transpose(0, 2, 3, 1).reshape(n * h * wd, c)
    targets = [int(v) for v in target._elements().reshape(-1)]
    w = _weights_of(weight)
    return _nll_frame(x, targets, w, ignore_index, reduction, reduction == NONE,
                      len(targets), scalar, output, total_weight)


def nll_loss2d_backward(grad_output: Tensor, self: Tensor, target: Tensor,
                        weight: Tensor | None, reduction: int, ignore_index: int,
                        total_weight: Tensor) -> Tensor:
    """torch's ``nll_loss2d_backward`` (CPU ``nll_loss2d_backward_out_frame``): at each
    position's target ``-weight * grad_output / normalize`` (``normalize`` the total weight
    for a mean, else 1), in that order."""
    _nll2d_checks(self, target, weight)
    if total_weight.numel() != 1:
        raise RuntimeError("expected total_weight to be a single element tensor, got: "
                           f"{list(total_weight._shape)} ({total_weight.numel()} elements)")
    n, c, h, wd = self._shape
    if reduction == NONE:
        if grad_output.dim() != 3 or grad_output._shape != (n, h, wd):
            raise RuntimeError(f"Expected a tensor of dimension 3 and tensor.size == "
                               f"{[n, h, wd]} but got: {list(grad_output._shape)}")
    elif grad_output.dim() > 1 or grad_output.numel() != 1:
        raise RuntimeError("Expected a single element grad_output tensor, but got: "
                           f"{list(grad_output._shape)}")
    meta = _is_meta(self)
    if not factories._allocate(self._shape, self._strides_for(layout.preserve_format),
                               self._dtype, META).is_contiguous():
        # torch's ``grad_input`` is ``zeros_like(self)``, laid out as a dense ``self``, and
        # its kernel wants it contiguous
        raise RuntimeError("grad_input must be contiguous")
    grad_input = _new(self._shape, self._dtype, meta)
    if meta:
        return grad_input
    if not self._dtype.is_floating_point:
        raise _not_implemented("nll_loss2d_backward_out_frame", self._dtype)
    _check_target_dtype(target)
    _check_weight(self, weight)
    scalar = _scalar_type(self._dtype)
    g = np.zeros((n * h * wd, c), dtype=self._elements().dtype)
    targets = [int(v) for v in target._elements().reshape(-1)]
    w = _weights_of(weight)
    go = grad_output._elements().reshape(-1).astype(g.dtype)
    normalize = (total_weight._elements().reshape(-1).astype(g.dtype)[0]
                 if reduction == MEAN else scalar(1))
    with np.errstate(all="ignore"):
        for i, t in enumerate(targets):
            if t == ignore_index:
                continue
            _bounds(t, c)
            weight_t = w[t] if w is not None else scalar(1)
            if reduction == NONE:
                g[i, t] = -weight_t * go[i]
            else:
                g[i, t] = weight_t * -(go[0] / normalize)
    return _write(grad_input, g.reshape(n, h, wd, c).transpose(0, 3, 1, 2))


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.nll_loss_forward.default.impl(_key)(nll_loss_forward)
    aten.nll_loss_backward.default.impl(_key)(nll_loss_backward)
    aten.nll_loss2d_forward.default.impl(_key)(nll_loss2d_forward)
    aten.nll_loss2d_backward.default.impl(_key)(nll_loss2d_backward)


def _nll_forward_output(two_d: bool) -> Any:
    """The CPU kernel of ``nll_loss_forward.output`` (torch's structured kernel: its meta
    step checks the inputs, then each out's dtype, "Expected out tensor to have dtype
    float, but got double instead", then resizes them with the warning) or of
    ``nll_loss2d_forward.output`` (its hand-written kernel resizes first, then reads the
    outs as the input's type: "expected scalar type Float but found Double"); then the
    values, written into the outs, each ``_version`` once."""
    checks = _nll2d_checks if two_d else _nll_checks
    functional = nll_loss2d_forward if two_d else nll_loss_forward

    def kernel(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
               ignore_index: int, output: Tensor, total_weight: Tensor) -> tuple[Tensor, Tensor]:
        checks(self, target, weight)
        common_device([t for t in (self, target, weight, output, total_weight)
                       if t is not None])
        if not two_d:
            for out in (output, total_weight):
                if out._dtype is not self._dtype:
                    raise RuntimeError(f"Expected out tensor to have dtype "
                                       f"{C_TYPE_NAMES[self._dtype.name]}, but got "
                                       f"{C_TYPE_NAMES[out._dtype.name]} instead")
        if reduction != NONE:
            shape: tuple[int, ...] = ()
        elif two_d:
            shape = (self._shape[0], *self._shape[2:])
        else:
            shape = self._shape[:1] if self.dim() == 2 else ()
        for out, size in ((output, shape), (total_weight, ())):
            if out._shape != size:
                iterator.resize_output(out, size, layout.contiguous_strides(size))
        if two_d:
            for out in (output, total_weight):
                if out._dtype is not self._dtype:
                    raise RuntimeError(f"expected scalar type {_type_name(self._dtype)} but "
                                       f"found {_type_name(out._dtype)}")
        values, weights = functional(self, target, weight, reduction, ignore_index)
        for out, found in ((output, values), (total_weight, weights)):
            out._elements()[...] = found._elements()
            out._version_counter.value += 1
        return output, total_weight

    return kernel


def _nll_out(forward_output: Any) -> Any:
    """torch's composite ``nll_loss.out``/``nll_loss2d.out``: ``*_forward.output`` into
    ``out`` with an empty ``total_weight`` of the input's dtype."""
    def nll_out(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int, out: Tensor) -> Tensor:
        total_weight = factories._allocate((0,), (1,), self._dtype, self.device)
        return forward_output.call(self, target, weight, reduction, ignore_index, out,
                                   total_weight)[0]

    return nll_out


for _forward, _two_d in ((aten.nll_loss_forward, False), (aten.nll_loss2d_forward, True)):
    out_arguments.set_rule(_forward.output,
                           out_arguments.OutRule(writes=_nll_forward_output(_two_d)))
aten.nll_loss.out.impl(DispatchKey.CompositeImplicitAutograd)(
    _nll_out(aten.nll_loss_forward.output))
aten.nll_loss2d.out.impl(DispatchKey.CompositeImplicitAutograd)(
    _nll_out(aten.nll_loss2d_forward.output))


@aten.nll_loss.default.impl(DispatchKey.CompositeImplicitAutograd)
def nll_loss(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
             ignore_index: int) -> Tensor:
    """torch's composite: ``nll_loss_forward``'s output."""
    return aten.nll_loss_forward.default.call(self, target, weight, reduction,
                                              ignore_index)[0]


@aten.nll_loss2d.default.impl(DispatchKey.CompositeImplicitAutograd)
def nll_loss2d(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
               ignore_index: int) -> Tensor:
    """torch's composite: ``nll_loss2d_forward``'s output."""
    return aten.nll_loss2d_forward.default.call(self, target, weight, reduction,
                                                ignore_index)[0]


@aten.nll_loss_nd.default.impl(DispatchKey.CompositeImplicitAutograd)
def nll_loss_nd(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int) -> Tensor:
    """torch's ``nll_loss_nd``: 1-d and 2-d inputs to ``nll_loss``, 4-d to ``nll_loss2d``,
    others (``(N, C, d1, ..., dK)``) to ``nll_loss2d`` on ``(N, C, 1, -1)`` views (an output
    for ``reduction=0`` viewed back to ``(N, d1, ..., dK)``)."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and self._shape[0] != (target._shape[0] if target.dim() else None):
        if target.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise ValueError(f"Expected input batch_size ({self._shape[0]}) to match target "
                         f"batch_size ({target._shape[0]}).")
    if self.dim() in (1, 2):
        return aten.nll_loss.default.call(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return aten.nll_loss2d.default.call(self, target, weight, reduction, ignore_index)
    n, c = self._shape[:2]
    out_size = (n, *self._shape[2:])
    if target._shape[1:] != self._shape[2:]:
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target._shape)}")
    input_ = self.contiguous()
    target_ = target.contiguous()
    input_ = input_.view(n, c, 1, -1) if input_.numel() > 0 else input_.view(n, c, 0, 0)
    target_ = target_.view(n, 1, -1) if target_.numel() > 0 else target_.view(n, 0, 0)
    out = aten.nll_loss2d.default.call(input_, target_, weight, reduction, ignore_index)
    return out if reduction != NONE else out.view(out_size)


# ------------------------------------------------------------------ cross_entropy
def _class_dim(self: Tensor) -> int:
    return 0 if self.dim() == 1 else 1


def _weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """``weight`` viewed to broadcast along the class dim of an ``ndim``-d input."""
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._shape[0]
    return weight.view(shape)


def _prob_target(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                 label_smoothing: float) -> Tensor:
    """torch's ``cross_entropy_loss_prob_target``."""
    class_dim = _class_dim(self)
    n_classes = self._shape[class_dim] if self.dim() else 1
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of "
                           f"shape: {list(weight._shape)}")
    input = aten.log_softmax.int.call(self, class_dim, self._dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing:g}")
        target = aten.add.Scalar.call(aten.mul.Scalar.call(target, 1 - label_smoothing),
                                      label_smoothing / n_classes, 1)
    product = input * target
    if weight is not None:
        product = product * _weight_view(weight, input.dim(), class_dim)
    if reduction == MEAN:
        if input.numel() == 0:
            return -product.sum().fill_(math.nan)
        return aten.div.Scalar.call(-product.sum(), input.numel() // n_classes)
    if reduction == SUM:
        return -product.sum()
    if reduction == NONE:
        return -product.sum(class_dim)
    raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")


def _label_smoothing(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                     ignore_index: int, label_smoothing: float) -> Tensor:
    """torch's ``cross_entropy_loss_label_smoothing``: ``(1 - ls) * nll + smooth * (ls /
    C)``, ``smooth`` the (weighted) sum of ``-log_softmax`` over the classes, 0 where the
    target is ignored, reduced as ``nll_loss`` reduces (a mean divides by the weights of the
    targets kept). (torch's ``masked_fill_``, ``masked_select`` and ``gather`` are written
    with ``where`` and indexing here: the same values; the nodes inside differ.)"""
    class_dim = _class_dim(self)
    input = aten.log_softmax.int.call(self, class_dim, self._dtype)
    nllloss = aten.nll_loss_nd.default.call(input, target, weight, reduction, ignore_index)
    n_classes = input._shape[class_dim]
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth_loss = -(input * _weight_view(weight, input.dim(), class_dim)).sum(class_dim)
    else:
        smooth_loss = -input.sum(class_dim)
    smooth_loss = aten.where.self.call(ignore_mask, 0.0, smooth_loss)
    if reduction == MEAN:
        if weight is not None:
            kept = target[~ignore_mask].flatten()
            ret = smooth_loss.sum() / weight[kept].sum()
        else:
            ret = smooth_loss.sum() / (~ignore_mask).sum()
    elif reduction == SUM:
        ret = smooth_loss.sum()
    elif reduction == NONE:
        ret = smooth_loss
    else:
        raise RuntimeError(f"Invalid reduction type encountered in cross_entropy: {reduction}")
    return (aten.mul.Scalar.call(nllloss, 1 - label_smoothing)
            + aten.mul.Scalar.call(ret, label_smoothing / n_classes))


@aten.cross_entropy_loss.default.impl(DispatchKey.CompositeImplicitAutograd)
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int, label_smoothing: float) -> Tensor:
    """torch's ``cross_entropy_loss``: class probabilities when the target has the input's
    shape, else class indices (``nll_loss_nd`` of ``log_softmax``; with
    ``label_smoothing > 0`` the smoothed mix)."""
    if self._shape == target._shape:
        if not target._dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_type_name(target._dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing:g}")
        return _label_smoothing(self, target, weight, reduction, ignore_index,
                                label_smoothing)
    class_dim = _class_dim(self)
    return aten.nll_loss_nd.default.call(aten.log_softmax.int.call(self, class_dim,
                                                                   self._dtype),
                                         target, weight, reduction, ignore_index)


# ------------------------------------------------------------------ binary_cross_entropy
#: torch's ``EPSILON`` of the BCE gradient: a float 1e-12 (9.99999996e-13), then the dtype's
_EPSILON = float(np.float32(1e-12))


def _squeezed_operands(out_shape: tuple[int, ...], *arrays: np.ndarray) -> list[np.ndarray]:
    """torch's BCE kernels iterate over ``squeeze``d operands into a squeezed output:
    each operand, squeezed, broadcast to the squeezed output's shape."""
    shape = tuple(n for n in out_shape if n != 1)
    found = []
    for a in arrays:
        a = a.reshape(tuple(n for n in a.shape if n != 1))
        try:
            found.append(np.broadcast_to(a, shape))
        except ValueError:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast "
                               f"shape {list(np.broadcast_shapes(shape, a.shape))}") from None
    return found


def _same_dtype(out: Tensor, *others: Tensor) -> None:
    for t in others:
        if t._dtype is not out._dtype:
            raise RuntimeError(f"Found dtype {_type_name(t._dtype)} but expected "
                               f"{_type_name(out._dtype)}")


def binary_cross_entropy(self: Tensor, target: Tensor, weight: Tensor | None,
                         reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_cpu``: ``(t - 1) * max(log1p(-x), -100) - t *
    max(log(x), -100)``, each step rounded to the input's dtype, into an ``empty_like``
    of the input; times ``weight`` in place; reduced."""
    common_device([t for t in (self, target, weight) if t is not None])
    meta = _is_meta(self)
    loss = aten.empty_like(self)
    if not meta:
        if not self._dtype.is_floating_point:
            raise _not_implemented("binary_cross_entropy", self._dtype)
        _same_dtype(loss, target)
        x, t = _squeezed_operands(self._shape, self._elements(), target._elements())
        with np.errstate(all="ignore"):
            if not ((x >= 0) & (x <= 1)).all():
                raise RuntimeError("all elements of input should be between 0 and 1")
            if not ((t >= 0) & (t <= 1)).all():
                raise RuntimeError("all elements of target should be between 0 and 1")
            values = _bce_values(x, t, self._dtype)
        loss._elements()[...] = values.reshape(loss._shape)
    if weight is not None:
        loss.mul_(weight)
    if reduction not in (MEAN, SUM):
        return _fresh(loss)
    # torch's ``loss.resize_as_(reduced).copy_(reduced)``: the 0-d result keeps the
    # storage of the elementwise loss
    return _kept_storage(apply_loss_reduction(loss, reduction), loss.numel())


def _bce_values(x: np.ndarray, t: np.ndarray, d: dtype) -> np.ndarray:
    """The elementwise loss, each operation rounded to ``d`` as torch's ``scalar_t``."""
    storage = np.dtype(d.numpy)
    work = compute_dtype(d).numpy

    def r(v: np.ndarray) -> np.ndarray:
        return np.asarray(v).astype(storage).astype(work)

    x, t = x.astype(work), t.astype(work)
    log1p = np.maximum(r(np.log1p(-x)), -100)
    log = np.maximum(r(np.log(x)), -100)
    return r(r(r(t - 1) * log1p) - r(t * log)).astype(storage)


def binary_cross_entropy_backward(grad_output: Tensor, self: Tensor, target: Tensor,
                                  weight: Tensor | None, reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_backward_cpu``: ``grad * (x - t) / max((1 - x) * x,
    1e-12)`` per element (each step in the input's dtype; 1e-12 is 0 in float16), times
    ``weight``, divided by ``numel`` for a mean."""
    common_device([t for t in (grad_output, self, target, weight) if t is not None])
    meta = _is_meta(self)
    grad_input = aten.empty_like(self)
    if not meta:
        if not self._dtype.is_floating_point:
            raise _not_implemented("binary_cross_entropy_backward", self._dtype)
        _same_dtype(grad_input, grad_output, target)
        g, x, t = _squeezed_operands(self._shape, grad_output._elements(), self._elements(),
                                     target._elements())
        storage = np.dtype(self._dtype.numpy)
        work = compute_dtype(self._dtype).numpy

        def r(v: np.ndarray) -> np.ndarray:
            return np.asarray(v).astype(storage).astype(work)

        g, x, t = g.astype(work), x.astype(work), t.astype(work)
        eps = r(np.asarray(_EPSILON))
        with np.errstate(all="ignore"):
            values = r(r(g * r(x - t)) / np.maximum(r(r(1 - x) * x), eps))
        grad_input._elements()[...] = values.astype(storage).reshape(grad_input._shape)
    if weight is not None:
        grad_input.mul_(weight)
    if reduction == MEAN:
        grad_input.div_(self.numel())
    return _fresh(grad_input)


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.binary_cross_entropy.default.impl(_key)(binary_cross_entropy)
    aten.binary_cross_entropy_backward.default.impl(_key)(binary_cross_entropy_backward)


def binary_cross_entropy_out(self: Tensor, target: Tensor, weight: Tensor | None,
                             reduction: int, out: Tensor) -> Tensor:
    """torch's ``binary_cross_entropy_out_cpu``: the elementwise loss written through
    ``squeeze(out)``, a view (of another shape than the squeezed inputs' broadcast one, it is
    resized with the warning and ``out`` itself keeps its shape: an empty ``out`` stays
    empty, a longer one keeps its other values); ``out.mul_(weight)``; for a mean or sum
    ``out`` is reduced (its values as they stand) and resized to 0-d, keeping its storage.
    Every operand of the input's dtype. ``_version`` once."""
    common_device([t for t in (self, target, weight, out) if t is not None])
    view, x, t = (aten.squeeze.default.call(a) for a in (out, self, target))
    shape = infer_broadcast_size(x._shape, t._shape)
    _check_overlaps(view, self, target)
    _same_dtype(self, view, target)
    if view._shape != shape:
        iterator.resize_output(view, shape, iterator.output_strides(
            shape, [(a._shape, a._stride) for a in (x, t)]))
    if not self._dtype.is_floating_point:
        raise _not_implemented("binary_cross_entropy", self._dtype)
    version = out._version_counter.value
    if view.numel():
        xs, ts = _squeezed_operands(shape, x._elements(), t._elements())
        with np.errstate(all="ignore"):
            if not ((xs >= 0) & (xs <= 1)).all():
                raise RuntimeError("all elements of input should be between 0 and 1")
            if not ((ts >= 0) & (ts <= 1)).all():
                raise RuntimeError("all elements of target should be between 0 and 1")
            view._elements()[...] = _bce_values(xs, ts, self._dtype).reshape(view._shape)
    if weight is not None:
        out.mul_(weight)
    if reduction in (MEAN, SUM):
        reduced = apply_loss_reduction(out, reduction)
        resize_as(out, (), ())
        out._elements()[...] = reduced._elements()
    out._version_counter.value = version + 1
    return out


out_arguments.set_rule(aten.mse_loss.out, out_arguments.OutRule(writes=mse_loss_out))
out_arguments.set_rule(aten.binary_cross_entropy.out,
                       out_arguments.OutRule(writes=binary_cross_entropy_out))


def binary_cross_entropy_with_logits(self: Tensor, target: Tensor, weight: Tensor | None,
                                     pos_weight: Tensor | None, reduction: int) -> Tensor:
    """torch's ``binary_cross_entropy_with_logits`` (CompositeExplicitAutograd: one node,
    ``BinaryCrossEntropyWithLogitsBackward0``): ``log_sigmoid(x)``, times ``(pos_weight -
    1) * t + 1`` in place when given; ``(1 - t).mul_(x).sub_(that)``, times ``weight`` in
    place; reduced."""
    log_sigmoid_input = aten.log_sigmoid.default.call(self)  # (the op table's, not recorded)
    if pos_weight is not None:
        log_weight = ((pos_weight - 1) * target).add_(1)
        log_sigmoid_input.mul_(log_weight)
    loss = (1 - target).mul_(self).sub_(log_sigmoid_input)
    if weight is not None:
        loss.mul_(weight)
    return _fresh(apply_loss_reduction(loss, reduction))


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.binary_cross_entropy_with_logits.default.impl(_key)(binary_cross_entropy_with_logits)
