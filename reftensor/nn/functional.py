"""``reftensor.nn.functional`` (``torch.nn.functional``): functions without parameters.

``linear`` is the op table's ``linear`` (torch's ``nn.functional.linear`` is its C++ op,
``torch._C._nn.linear``): torch's decomposition into ``addmm`` or ``matmul``.

``relu`` is chapter 6's layer as a function. ``dropout`` belongs to chapter 8: its mask comes
from the generator, one 53-bit uniform per element in memory order, so with the same seed it
zeroes exactly the elements torch zeroes.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import layout
from .._ops import aten
from ..autograd import no_grad
from ..broadcasting import broadcast_tensors
from ..functional import broadcast_shapes
from ..tensor import Tensor
from . import _reduction

__all__ = ["dropout", "linear", "relu", "softmax", "log_softmax", "gelu", "embedding",
           "one_hot", "layer_norm", "batch_norm", "bilinear"]
# --- losses (chapter 6)
__all__ += ["mse_loss", "l1_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
            "binary_cross_entropy_with_logits", "logsigmoid"]
# --- pooling (chapter 10, the capstone)
__all__ += ["max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
            "avg_pool1d", "avg_pool2d"]
# --- padding (chapter 10, the capstone; issue 45)
__all__ += ["pad", "unfold", "fold"]
# --- convolution (chapter 10, the capstone)
__all__ += ["conv1d", "conv2d"]


def linear(*args: Any, **kwargs: Any) -> Any:
    """linear(input, weight, bias=None) -> Tensor

    ``input @ weight.T + bias`` (``torch.nn.functional.linear``): ``input`` of shape ``(*,
    in_features)``, ``weight`` ``(out_features, in_features)``, ``bias`` ``(out_features,)``;
    gives ``(*, out_features)``. The op table's ``linear``, torch's decomposition: a 2-d
    ``input`` with a bias is one ``addmm`` (``AddmmBackward0``), a contiguous one with a 1-d
    bias a flattened ``addmm`` viewed back (``ViewBackward0``), anything else ``matmul`` and
    an in-place ``add_``. ``out=`` as torch's.

    Raises:
        RuntimeError: a 0-d ``input`` or ``weight``, sizes or dtypes that do not match.
        TypeError: an argument that is not a tensor (torch's parser's text).
    """
    return aten.linear(*args, **kwargs)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (``torch.nn.functional.dropout``), as torch's CPU kernel does:

    ``noise = empty_like(input).bernoulli_(1 - p)``, then ``noise.div_(1 - p)`` (in the
    input's dtype), then ``input * noise`` (``input.mul_(noise)`` when ``inplace``).

    With ``p == 0``, ``training=False`` or an empty input, ``input`` itself is returned and
    nothing is drawn; ``p == 1`` multiplies by zero and draws nothing. The mask comes from
    the default generator (torch's dropout takes no ``generator=``).

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = aten.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    noise = aten.empty_strided(input.shape, input._strides_for(layout.preserve_format),
                               dtype=input.dtype, device=input.device)
    noise.bernoulli_(1.0 - p)  # the op table's sampler (chapter 8's kernel)
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``torch.nn.functional.relu``); ``inplace`` writes into ``input``."""
    return input.relu_() if inplace else input.relu()


def _implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dim torch picks when none is given, with its deprecation warning: 0 for 0-, 1- and
    3-d inputs, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.nn.functional.softmax``), computed in
    ``dtype`` when given; without ``dim``, torch's deprecated guess (see above)."""
    if dim is None:
        dim = _implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``dim`` (``torch.nn.functional.log_softmax``); as
    ``softmax`` for ``dim`` and ``dtype``."""
    if dim is None:
        dim = _implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


# --- losses (chapter 6) ---------------------------------------------------------------------
# Each is torch's Python function: the deprecated ``size_average``/``reduce`` flags mapped to a
# reduction (with torch's warning), the string turned into the op table's int, then the op
# (``reftensor/loss.py``).
def _reduction_string(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduction_enum(size_average: bool | None, reduce: bool | None, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_enum(size_average, reduce)
    return _reduction.get_enum(reduction)


def _size_warning(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted(errors: Tensor, input: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """torch's weighted ``mse_loss``/``l1_loss``, written in Python: ``errors * weight``,
    its sum, or its sum over ``weight.sum()``."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """``(input - target) ** 2``, averaged, summed or not (``torch.nn.functional.mse_loss``).

    ``input`` and ``target`` broadcast (torch warns when their sizes differ) and the op
    table's ``mse_loss`` runs on the broadcast pair (``MseLossBackward0``); with ``weight``
    (of ``input``'s size) torch's Python formula instead: ``pow(input - target, 2) *
    weight``, whose mean is over ``weight.sum()``. Any float dtype; the result is 0-d unless
    ``reduction='none'``.

    Raises:
        ValueError: a reduction other than 'none', 'mean', 'sum'; a weight of another size.
        NotImplementedError: integer or bool operands.
        RuntimeError: shapes that do not broadcast.
    """
    _size_warning(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    expanded_input, expanded_target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((expanded_input - expanded_target).pow(2), input, weight, reduction)
    return aten.mse_loss(expanded_input, expanded_target, _reduction.get_enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """``|input - target|``, averaged, summed or not (``torch.nn.functional.l1_loss``): as
    ``mse_loss`` for broadcasting, ``weight`` and reductions; the op table's ``l1_loss`` is
    torch's composite (``SubBackward0``, ``AbsBackward0``, ``MeanBackward0``).

    Raises:
        ValueError: as ``mse_loss``.
        RuntimeError: an integer mean; shapes that do not broadcast.
    """
    _size_warning(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    expanded_input, expanded_target = broadcast_tensors(input, target)
    if weight is not None:
        return _weighted((expanded_input - expanded_target).abs(), input, weight, reduction)
    return aten.l1_loss(expanded_input, expanded_target, _reduction.get_enum(reduction))


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The negative log likelihood loss (``torch.nn.functional.nll_loss``): ``input`` of
    log-probabilities ``(C)``, ``(N, C)`` or ``(N, C, d1, ..., dK)``, ``target`` of class
    indices (int64 or uint8) ``()``, ``(N)`` or ``(N, d1, ..., dK)``; each kept target's
    ``-input[..., target, ...] * weight[target]``; a mean divides by the kept weights' sum.
    The op table's ``nll_loss_nd`` (``NllLossBackward0``, or ``NllLoss2DBackward0`` past two
    dims).

    Raises:
        ValueError: a 0-d input, batch sizes that differ, a bad reduction.
        IndexError: a target outside [0, C) that is not ``ignore_index``.
        RuntimeError: a target of the wrong shape or dtype, a weight not of C elements.
    """
    reduction = _reduction_string(size_average, reduce, reduction)
    return aten.nll_loss_nd(input, target, weight, _reduction.get_enum(reduction),
                            ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy of logits ``input`` against class indices or class probabilities
    (``torch.nn.functional.cross_entropy``): ``input`` ``(C)``, ``(N, C)`` or ``(N, C, d1,
    ..., dK)``; a ``target`` of ``input``'s shape holds probabilities (float), any other
    class indices. ``log_softmax`` along the class dim, then ``nll_loss``'s rule (indices) or
    ``-(log_softmax * target * weight)`` summed over classes (probabilities, a mean dividing
    by ``numel / C``); ``label_smoothing`` in [0, 1] mixes the target with the uniform
    distribution. torch's composite ``cross_entropy_loss``: the same nodes.

    Raises:
        RuntimeError: probabilities of an integer dtype, with ``ignore_index >= 0``;
            ``label_smoothing`` above 1; as ``nll_loss``.
        ValueError: as ``nll_loss``.
    """
    reduction = _reduction_string(size_average, reduce, reduction)
    return aten.cross_entropy_loss(input, target, weight, _reduction.get_enum(reduction),
                                   ignore_index, label_smoothing)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """``-w * (t * log(x) + (1 - t) * log(1 - x))`` of probabilities ``input``
    (``torch.nn.functional.binary_cross_entropy``), the logs clamped at -100 as torch does;
    ``weight`` broadcast (expanded) to the target's size. ``BinaryCrossEntropyBackward0``.

    Raises:
        ValueError: a target of another size than the input; a bad reduction.
        RuntimeError: an input or target outside [0, 1]; a target of another dtype.
        NotImplementedError: integer inputs.
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        weight = weight.expand(broadcast_shapes(target.size(), weight.size()))
    return aten.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross entropy of logits (``torch.nn.functional.binary_cross_entropy_with_logits``):
    ``(1 - t) * x - log_sigmoid(x) * ((pos_weight - 1) * t + 1)``, times ``weight``
    (broadcast), reduced; numerically stable. ``BinaryCrossEntropyWithLogitsBackward0``.

    Raises:
        ValueError: a target of another size than the input; a bad reduction.
        RuntimeError: a ``weight``/``pos_weight`` that broadcasts past the target's shape.
    """
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return aten.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 reduction_enum)


def logsigmoid(*args: Any, **kwargs: Any) -> Any:
    """logsigmoid(input, *, out=None) -> Tensor

    ``log(sigmoid(x))`` elementwise (``torch.nn.functional.logsigmoid``, which is
    ``torch._C._nn.log_sigmoid``), computed as ``min(x, 0) - log1p(exp(-|x|))``: finite for
    any finite ``x`` (``-200`` gives -200, not ``-inf``). Any float dtype (float16 and bfloat16
    in float32); a contiguous result of the input's shape and dtype (``LogSigmoidBackward0``).
    ``out=`` is resized without a warning and must have the input's dtype.

    Raises:
        NotImplementedError: integer and bool inputs.
        RuntimeError: an ``out=`` of another dtype.
    """
    return aten.log_sigmoid(*args, **kwargs)
# --- layers (chapter 6): the op table's gelu, embedding, one_hot, layer_norm, batch_norm and
# bilinear, with torch's Python checks in front where torch has them
def gelu(*args: Any, **kwargs: Any) -> Any:
    """gelu(input, approximate='none') -> Tensor

    ``x * Phi(x)`` (``torch.nn.functional.gelu``); ``approximate='tanh'`` uses the tanh
    approximation. Same shape and dtype; ``GeluBackward0``.

    Raises:
        RuntimeError: another ``approximate``.
        NotImplementedError: integer and bool inputs.
    """
    return aten.gelu(*args, **kwargs)


def one_hot(*args: Any, **kwargs: Any) -> Any:
    """one_hot(tensor, num_classes=-1) -> LongTensor

    int64 of shape ``tensor.shape + (num_classes,)`` with a 1 at each class
    (``torch.nn.functional.one_hot``); ``num_classes=-1`` takes ``max + 1``.

    Raises:
        RuntimeError: a non-int64 input, negative classes or classes too large, an empty
            input without ``num_classes``.
    """
    return aten.one_hot(*args, **kwargs)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` (``(num_embeddings, dim)``) at the indices ``input`` (int64 or
    int32, any shape): shape ``input.shape + (dim,)`` (``torch.nn.functional.embedding``).

    ``padding_idx`` (negative counts from the end) gets no gradient; ``max_norm`` first
    rescales, in place and without autograd, each looked-up row of ``weight`` whose
    ``norm_type``-norm exceeds it (``embedding_renorm_``); ``scale_grad_by_freq`` divides
    each row's gradient by its index's count; ``sparse=True`` (a sparse gradient) raises
    NotImplementedError at backward.

    Raises:
        AssertionError: ``padding_idx`` out of range (torch's).
        RuntimeError: non-integer indices, a ``weight`` that is not 2-d.
        IndexError: an index out of range.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():
            aten.embedding_renorm_(weight, input, max_norm, norm_type)
    return aten.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last
    ``len(normalized_shape)`` dims (``torch.nn.functional.layer_norm``; the biased
    variance; ``NativeLayerNormBackward0``).

    Raises:
        RuntimeError: ``normalized_shape`` not the input's last sizes, or ``weight``/``bias``
            of another shape.
    """
    return aten.layer_norm(input, normalized_shape, weight, bias, eps)


def _verify_batch_size(size: Any) -> None:
    """torch's check: more than one value per channel in training."""
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each channel (dim 1) of ``input`` (``(N, C, *)``) by the batch's mean and
    biased variance (``training``) or by the running ones
    (``torch.nn.functional.batch_norm``). In training, given running stats are updated in
    place: ``momentum * stat + (1 - momentum) * running``, the variance unbiased there.

    Raises:
        ValueError: one value per channel in training; ``eps`` not positive in training or
            negative.
        RuntimeError: stats or parameters of the wrong size, no running stats in eval.
    """
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return aten.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                           eps, True)


def bilinear(*args: Any, **kwargs: Any) -> Any:
    """bilinear(input1, input2, weight, bias=None) -> Tensor

    ``x1^T W[o] x2 + b[o]`` for each output feature ``o`` (``torch.nn.functional.bilinear``):
    inputs ``(*, in1)`` and ``(*, in2)``, weight ``(out, in1, in2)``; torch's composite
    (``_trilinear``, ``ViewBackward0``, ``AddBackward0``).

    Raises:
        RuntimeError: sizes that do not match.
    """
    return aten.bilinear(*args, **kwargs)


# --- pooling (chapter 10, the capstone) ---------------------------------------------------
def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """The maximum of each ``kernel_size`` window over the last two dims of a ``(C, H, W)``
    or ``(N, C, H, W)`` input, and its flat index in the ``H * W`` plane
    (``torch.nn.functional.max_pool2d_with_indices``): the op table's
    ``max_pool2d_with_indices`` (``MaxPool2DWithIndicesBackward0``); ``stride`` defaults to
    ``kernel_size``, ``padding`` counts as ``-inf``. ``return_indices`` is ignored (always
    both).

    Raises:
        RuntimeError: as the op: an input not 3-d or 4-d, bad sizes, an output below 1x1.
        NotImplementedError: a bool input.
    """
    return aten.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride,
                                        padding, dilation, ceil_mode)


def _max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                dilation: Any = 1, ceil_mode: bool = False,
                return_indices: bool = False) -> Tensor:
    return aten.max_pool2d(input, kernel_size, [] if stride is None else stride, padding,
                           dilation, ceil_mode)


def max_pool2d(*args: Any, **kwargs: Any) -> Any:
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    The maximum of each ``kernel_size`` window over the last two dims of a ``(C, H, W)`` or
    ``(N, C, H, W)`` input (``torch.nn.functional.max_pool2d``): ``torch.max_pool2d``, or
    with ``return_indices`` (the 7th argument or a keyword, as torch's
    ``boolean_dispatch`` reads it) ``max_pool2d_with_indices``'s pair. Output ``(.., OH,
    OW)``, channels-last for a channels-last input.

    Raises:
        RuntimeError: as ``max_pool2d_with_indices``.
        NotImplementedError: a bool input.
    """
    pick = kwargs["return_indices"] if "return_indices" in kwargs else (
        args[6] if len(args) > 6 else False)
    return (max_pool2d_with_indices if pick else _max_pool2d)(*args, **kwargs)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """The maximum of each window over the last dim of a ``(C, L)`` or ``(N, C, L)`` input,
    and its index (``torch.nn.functional.max_pool1d_with_indices``): the op table's
    ``max_pool1d_with_indices``, torch's composite over ``max_pool2d_with_indices``.

    Raises:
        RuntimeError: an input not 2-d or 3-d, sizes of more than one int; as
            ``max_pool2d_with_indices``.
    """
    return aten.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride,
                                        padding, dilation, ceil_mode)


def _max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                dilation: Any = 1, ceil_mode: bool = False,
                return_indices: bool = False) -> Tensor:
    return aten.max_pool1d(input, kernel_size, [] if stride is None else stride, padding,
                           dilation, ceil_mode)


def max_pool1d(*args: Any, **kwargs: Any) -> Any:
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    The maximum of each window over the last dim of a ``(C, L)`` or ``(N, C, L)`` input
    (``torch.nn.functional.max_pool1d``): ``torch.max_pool1d``, or with ``return_indices``
    ``max_pool1d_with_indices``'s pair.

    Raises:
        RuntimeError: as ``max_pool1d`` and ``max_pool1d_with_indices``.
        NotImplementedError: an integer input that does not require grad.
    """
    pick = kwargs["return_indices"] if "return_indices" in kwargs else (
        args[6] if len(args) > 6 else False)
    return (max_pool1d_with_indices if pick else _max_pool1d)(*args, **kwargs)


def avg_pool2d(*args: Any, **kwargs: Any) -> Any:
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None) -> Tensor

    The mean of each ``kernel_size`` window over the last two dims of a ``(C, H, W)`` or
    ``(N, C, H, W)`` input (``torch.nn.functional.avg_pool2d``, torch's
    ``torch._C._nn.avg_pool2d``): the op table's ``avg_pool2d`` (``AvgPool2DBackward0``).
    Padding counts as zeros; the divisor is ``divisor_override``, or the window's size
    (``count_include_pad``), or its number of elements inside the input.

    Raises:
        RuntimeError: as the op: bad sizes, an output below 1x1, a ``divisor_override`` of 0.
        IndexError: fewer than 3 dims.
        NotImplementedError: a dtype other than float16, bfloat16, float32, float64, int64.
    """
    return aten.avg_pool2d(*args, **kwargs)


def avg_pool1d(*args: Any, **kwargs: Any) -> Any:
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
    count_include_pad=True) -> Tensor

    The mean of each window over the last dim of a ``(C, L)`` or ``(N, C, L)`` input
    (``torch.nn.functional.avg_pool1d``, ``torch.avg_pool1d``): torch's composite over
    ``avg_pool2d``.

    Raises:
        RuntimeError: an input not 2-d or 3-d, sizes of more than one int; as ``avg_pool2d``.
    """
    return aten.avg_pool1d(*args, **kwargs)
# --- padding (chapter 10, the capstone; issue 45)
def pad(input: Tensor, pad: list[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """pad(input, pad, mode="constant", value=None) -> Tensor

    ``input`` padded (``torch.nn.functional.pad``, torch's Python function over the op
    ``pad``): ``pad`` holds ``(left, right)`` of the last dim, then ``(top, bottom)`` of the
    one before, and so on (a negative number crops); ``mode`` ``"constant"`` fills with
    ``value`` (default 0; ``constant_pad_nd``), ``"reflect"`` mirrors the input about its
    edge element, ``"replicate"`` repeats the edge element, ``"circular"`` wraps around. The
    non-constant modes pad the last 1, 2 or 3 dims of an input with 1 or 2 dims more
    (``reflection_pad1d/2d/3d``, ``replication_pad1d/2d/3d``, ``_pad_circular``).

    Raises:
        NotImplementedError: an unknown ``mode``, or a pad length that a non-constant mode
            does not take for the input's dims.
        RuntimeError: an odd pad length, more than twice the input's dims, a ``value`` with
            a non-constant mode, a reflection pad not less than its dim, an empty output.
    """
    return aten.pad(input, pad, mode, value)


def _pair(value: Any) -> list[int]:
    """torch's ``_pair``: an int repeated twice, anything iterable as it is (a list)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value, value]  # type: ignore[list-item]
    return list(value)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """Every sliding ``kernel_size`` window of ``input`` as a column
    (``torch.nn.functional.unfold``): ``(N, C, H, W)`` (or ``(C, H, W)``) gives ``(N,
    C * kh * kw, L)``; each of ``kernel_size``, ``dilation``, ``padding``, ``stride`` an int
    or a pair. The op table's ``im2col`` (``Im2ColBackward0``).

    Raises:
        RuntimeError: as ``im2col``: sizes below 1, negative padding, no window, a wrong
            number of dims.
        NotImplementedError: an integer input.
    """
    return aten.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                       _pair(stride))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Columns of sliding windows summed back into an image (``torch.nn.functional.fold``,
    ``unfold``'s adjoint): ``(N, C * kh * kw, L)`` (or ``(C * kh * kw, L)``) gives ``(N, C,
    *output_size)``. The op table's ``col2im`` (``Col2ImBackward0``).

    Raises:
        RuntimeError: as ``col2im``: a dim 1 not divisible by ``kh * kw``, an ``L`` that is
            not the number of windows, sizes below 1.
        NotImplementedError: an integer input.
    """
    return aten.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                       _pair(padding), _pair(stride))
# --- convolution (chapter 10, the capstone)
def conv1d(*args: Any, **kwargs: Any) -> Any:
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    A 1-d convolution (``torch.nn.functional.conv1d``, which is ``torch.conv1d``, the op
    table's ``conv1d``): ``input`` ``(N, C_in, L)`` or ``(C_in, L)``, ``weight`` ``(C_out,
    C_in / groups, k)``, ``bias`` ``(C_out,)``; ``padding`` an int, a 1-tuple, ``'valid'``
    or ``'same'``. The graph is torch's: ``ConvolutionBackward0``.

    Raises:
        RuntimeError: as torch's (ranks, channels, sizes, padding, stride, dilation, groups,
            dtypes).
        NotImplementedError: bool tensors.
    """
    return aten.conv1d(*args, **kwargs)


def conv2d(*args: Any, **kwargs: Any) -> Any:
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    A 2-d convolution (``torch.nn.functional.conv2d``, which is ``torch.conv2d``, the op
    table's ``conv2d``): ``input`` ``(N, C_in, H, W)`` or ``(C_in, H, W)``, ``weight``
    ``(C_out, C_in / groups, kH, kW)``, ``bias`` ``(C_out,)``; ``stride``, ``padding`` and
    ``dilation`` an int or a pair, ``padding`` also ``'valid'`` or ``'same'``. The result
    is channels-last when ``input`` or ``weight`` is; the graph is torch's
    (``ConvolutionBackward0``).

    Raises:
        RuntimeError: as torch's (ranks, channels, sizes, padding, stride, dilation, groups,
            dtypes).
        NotImplementedError: bool tensors.
    """
    return aten.conv2d(*args, **kwargs)
