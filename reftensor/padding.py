"""Padding (the capstone, chapter 10): ``nn.functional.pad`` and the ops under it.

``pad(input, pad, mode, value)`` reads ``pad`` from the last dim backwards, two numbers a
dim: ``(left, right)`` of the last dim, then ``(top, bottom)`` of the one before, and so on.
A negative number crops instead of padding. torch's ``pad`` is a composite that picks one
op by ``mode``:

* ``constant_pad_nd`` (``"constant"``): the new elements hold ``value``. torch's composite
  of views and copies: the input narrowed where a pad is negative, an output of the padded
  shape (laid out as the input suggests: channels-last stays channels-last) filled with
  ``value``, and the input copied into its middle; with no positive pad, a clone of the
  narrowed input. Its gradient (``ConstantPadNdBackward0``) is ``constant_pad_nd`` of the
  incoming gradient with the pads negated, which crops the padding away.
* ``reflection_pad1d/2d/3d`` (``"reflect"``): output position ``j`` of a dim of size ``n``
  padded by ``p`` on the left reads input ``p - j`` left of the input, ``j - p`` inside it,
  and ``2 (n - 1) + p - j`` right of it: the input mirrored about its first and last
  element, which are not repeated. Each pad must be less than the dim's size.
* ``replication_pad1d/2d/3d`` (``"replicate"``): the index clamped into ``[0, n - 1]``: the
  edge elements repeated.
* ``_pad_circular`` (``"circular"``): the input wrapped around (torch's composite of slices
  and ``copy_``, so its graph is ``CopySlices`` over ``copy_``'s nodes).

The reflection and replication ops are gathers along index arrays, one per padded dim, so
each output element is one input element (values bit for bit). Their gradients
(``ReflectionPad2DBackward0``, ...) are the ``*_backward`` ops, which scatter-add the
incoming gradient back along the same indices, in the output's memory order as torch's CPU
kernel adds them (an input element read by several output elements gets their sum in that
order).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import factories, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from .device import CPU, META
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []

#: torch's ``at::padding_mode``: the int ``_pad_enum`` takes
REFLECT, REPLICATE, CIRCULAR, CONSTANT = 0, 1, 2, 3
_MODES = {"reflect": REFLECT, "constant": CONSTANT, "replicate": REPLICATE,
          "circular": CIRCULAR}
_MODE_NAMES = {v: k for k, v in _MODES.items()}


# ------------------------------------------------------------------ constant_pad_nd
def constant_pad_nd(self: Tensor, pad: list[int], value: Any = 0) -> Tensor:
    """torch's ``constant_pad_nd`` (``CompositeExplicitAutograd``): negative pads narrow the
    input; with no positive pad the result is a clone of that; otherwise an output filled
    with ``value`` (``fill_``'s checks), laid out as the input suggests, with the input
    copied into its middle."""
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    ndim, pairs = self.dim(), len(pad) // 2
    if ndim < pairs:
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)}while the "
                           f"input has {ndim}dimensions.")
    lead = ndim - pairs
    source, positive = self, False
    for d in range(lead, ndim):
        left, right = pad[2 * (ndim - d - 1)], pad[2 * (ndim - d - 1) + 1]
        if left < 0:
            source = aten.narrow.default.call(source, d, -left, source._shape[d] + left)
        positive = positive or left > 0
        if right < 0:
            source = aten.narrow.default.call(source, d, 0, source._shape[d] + right)
        positive = positive or right > 0
    if not positive:
        return aten.clone.default.call(source, None)
    shape = list(self._shape[:lead])
    for k in range(pairs):
        at = len(pad) - 2 * (k + 1)
        size = self._shape[lead + k] + pad[at] + pad[at + 1]
        if size < 0:
            raise RuntimeError(f"The input size {self._shape[lead + k]}, plus negative "
                               f"padding {pad[at]} and {pad[at + 1]} resulted in a negative "
                               f"output size, which is invalid. Check dimension {lead + k} "
                               "of your input.")
        shape.append(size)
    strides = (_channels_last_strides(shape) if _looks_channels_last(self._shape, self._stride)
               else layout.contiguous_strides(shape))
    out = factories._allocate(tuple(shape), strides, self._dtype,
                              META if self.device is META else CPU)
    aten.fill_.Scalar.call(out, value)
    middle = out
    for d in range(lead, ndim):
        left, right = pad[2 * (ndim - d - 1)], pad[2 * (ndim - d - 1) + 1]
        if left > 0:
            middle = aten.narrow.default.call(middle, d, left, middle._shape[d] - left)
        if right > 0:
            middle = aten.narrow.default.call(middle, d, 0, middle._shape[d] - right)
    aten.copy_.default.call(middle, source, False)
    out._version_counter.value = 0  # (torch's fill_ and copy_ run below the version bumps)
    return out


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten.constant_pad_nd.default.impl(_key)(constant_pad_nd)


# ------------------------------------------------------------------ reflection, replication
def _source_index(j: np.ndarray, size: int, left: int, reflect: bool) -> np.ndarray:
    """The input position that output position ``j`` of a dim of ``size`` padded by
    ``left`` reads (torch's ``ReflectionPad::index``/``ReplicationPad::index``)."""
    inside = j - left
    if reflect:
        return np.where(j < left, left - j, np.where(inside < size, inside,
                                                     2 * (size - 1) + left - j))
    return np.clip(inside, 0, size - 1)


def _looks_channels_last(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """torch's ``suggest_memory_format`` of a 4-d (``channels_last``) or 5-d
    (``channels_last_3d``) tensor: visiting C, then the spatial dims from the last, then N,
    the strides never decrease (ambiguous layouts fall back to contiguous)."""
    if len(shape) == 4:
        return layout.strides_like_channels_last(shape, stride)
    if len(shape) != 5 or stride[1] == 0:
        return False
    smallest = 0
    for d in (1, 4, 3, 2, 0):
        if shape[d] == 0 or stride[d] < smallest:
            return False
        if d == 0 and smallest == stride[1]:
            return False
        smallest = stride[d] * max(shape[d], 1)
    return True


def _channels_last_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """``channels_last`` (4-d) or ``channels_last_3d`` (5-d) strides: C fastest, then the
    spatial dims from the last, then N."""
    fastest_first = (1, *range(len(shape) - 1, 1, -1), 0)
    return tuple(math.prod(shape[e] for e in fastest_first[:fastest_first.index(d)])
                 for d in range(len(shape)))


class _Pad:
    """One of the six ops: its name, its number of padded dims, reflect or replicate."""

    def __init__(self, dims: int, reflect: bool) -> None:
        self.dims, self.reflect = dims, reflect
        self.name = f"{'reflection' if reflect else 'replication'}_pad{dims}d"

    def size_check(self, padding: list[int]) -> None:
        if len(padding) != 2 * self.dims:
            tail = f", but got: {len(padding)}" if self.reflect else ""
            raise RuntimeError(f"padding size is expected to be {2 * self.dims}{tail}")

    def input_check(self, self_: Tensor) -> None:
        """torch's ``check_valid_input``: ``dims + 1`` dims, or ``dims + 2`` (a batch, which
        alone may be empty); no other dim empty."""
        n, shape = self_.dim(), self_._shape
        batch = n == self.dims + 2
        valid = all(s != 0 for s in shape[1:]) if batch else (
            n == self.dims + 1 and all(s != 0 for s in shape))
        if not valid:
            raise RuntimeError(f"Expected {self.dims + 1}D or {self.dims + 2}D (batch mode) "
                               "tensor with possibly 0 batch size and other non-zero "
                               f"dimensions for input, but got: {list(shape)}")

    def output_shape(self, self_: Tensor, padding: list[int], *, check: bool) -> tuple[int, ...]:
        """The padded shape; with ``check``, torch's forward checks in its order."""
        shape = self_._shape
        lead = self_.dim() - self.dims
        # the padded dims, last first: (size, left, right, dim)
        pads = [(shape[-1 - k], padding[2 * k], padding[2 * k + 1], self_.dim() - 1 - k)
                for k in range(self.dims)]
        if check and self.reflect:
            for k, (size, left, right, d) in enumerate(pads):
                if not (left < size and right < size):
                    raise RuntimeError(
                        f"Argument #{4 + 2 * k}: Padding size should be less than the "
                        "corresponding "
                        f"input dimension, but got: padding ({left}, {right}) at dimension "
                        f"{d} of input {list(shape)}")
        out = [size + left + right for size, left, right, _ in pads]
        # torch's check: some padded dim of at least 1 (a negative one is refused when the
        # output is allocated)
        if check and max(out) < 1:
            inputs = [size for size, *_ in pads][::-1]
            outs = out[::-1]
            if self.dims == 1:
                text = f"input (W: {inputs[0]}) is too small. Calculated output W: {outs[0]}"
            elif self.dims == 2:
                gap = "" if self.reflect else " "
                text = (f"input (H: {inputs[0]}, W: {inputs[1]}{gap}) is too small. "
                        f"Calculated output H: {outs[0]} W: {outs[1]}")
            else:
                text = (f"input (D: {inputs[0]} H: {inputs[1]}, W: {inputs[2]}) is too "
                        f"small. Calculated output D: {outs[0]} H: {outs[1]} W: {outs[2]}")
            raise RuntimeError(text)
        result = (*shape[:lead], *out[::-1])
        if check and min(out) < 0:
            if self.name == "reflection_pad2d":  # (its hand-written kernel's resize_)
                raise RuntimeError("numel: integer multiplication overflow")
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                               f"{list(result)}")
        return result

    def indices(self, self_: Tensor, padding: list[int],
                shape: tuple[int, ...]) -> tuple[Any, ...]:
        """The index arrays that gather the output from the input, broadcast against each
        other over the padded dims (``np.ix_``), after a slice for each leading dim."""
        per_dim = []
        for k in range(self.dims):
            d = self_.dim() - self.dims + k
            left = padding[2 * (self.dims - 1 - k)]
            per_dim.append(_source_index(np.arange(shape[d]), self_._shape[d], left,
                                         self.reflect))
        lead = (slice(None),) * (self_.dim() - self.dims)
        return (*lead, *np.ix_(*per_dim))

    def strides(self, self_: Tensor, shape: tuple[int, ...]) -> tuple[int, ...]:
        """1-d: contiguous; 2-d and 3-d: as the input suggests (channels-last stays) on the
        CPU; contiguous on the meta device (torch's meta functions there)."""
        if self.dims > 1 and self_.device is not META \
                and _looks_channels_last(self_._shape, self_._stride):
            return _channels_last_strides(shape)
        return layout.contiguous_strides(shape)

    def forward(self, self_: Tensor, padding: list[int]) -> Tensor:
        padding = list(padding)
        self.size_check(padding)
        self.input_check(self_)
        shape = self.output_shape(self_, padding, check=True)
        meta = self_.device is META
        if not meta and self_._dtype.name == "bool":
            raise NotImplementedError(f"\"{self.name}\" not implemented for 'Bool'")
        out = factories._allocate(shape, self.strides(self_, shape), self_._dtype,
                                  META if meta else CPU)
        if not meta and out.numel():
            out._elements()[...] = self_._elements()[self.indices(self_, padding, shape)]
        return out

    def backward(self, grad_output: Tensor, self_: Tensor, padding: list[int]) -> Tensor:
        """``grad_output`` added back into zeros of ``self``'s shape along the forward's
        indices, in ``grad_output``'s logical (row-major) order, as torch's loop adds."""
        padding = list(padding)
        if not self.reflect or self.dims == 3:
            self.size_check(padding)
        padding = padding[:2 * self.dims]
        shape = self.output_shape(self_, padding, check=False)
        words = (("grad_output", ", ") if self.reflect and self.dims != 2
                 else ("gradOutput", " " if self.dims == 1 else ", "))
        for k, what in enumerate(("width", "height", "depth")[:self.dims]):
            d = len(shape) - 1 - k
            if grad_output.dim() <= d or grad_output._shape[d] != shape[d]:
                got = grad_output._shape[d] if grad_output.dim() > d else None
                raise RuntimeError(f"{words[0]} {what} unexpected. Expected: {shape[d]}"
                                   f"{words[1]}Got: {got}")
        meta = self_.device is META or grad_output.device is META
        if not meta:
            if grad_output._dtype is not self_._dtype:
                raise RuntimeError(
                    f"expected scalar type {SCALAR_TYPE_NAMES[grad_output._dtype.name]} but "
                    f"found {SCALAR_TYPE_NAMES[self_._dtype.name]}")
            if not grad_output._dtype.is_floating_point:
                raise NotImplementedError(
                    f"\"{self.name}_backward\" not implemented for "
                    f"'{SCALAR_TYPE_NAMES[grad_output._dtype.name]}'")
        result = factories._allocate(self_._shape, self.strides(self_, self_._shape),
                                     grad_output._dtype, META if meta else CPU)
        if not meta and result.numel():
            total = np.zeros(self_._shape, grad_output._elements().dtype)
            if grad_output.numel():
                np.add.at(total, self.indices(self_, padding, shape), grad_output._elements())
            result._elements()[...] = total
        return result


_PADS = {pad.name: pad for dims in (1, 2, 3) for pad in (_Pad(dims, True), _Pad(dims, False))}
for _pad in _PADS.values():
    for _key in (DispatchKey.CPU, DispatchKey.Meta):
        aten[_pad.name].default.impl(_key)(_pad.forward)
        aten[_pad.name + "_backward"].default.impl(_key)(_pad.backward)


def _out_writes(functional: Any, *, structured: bool, warn: bool,
                restride: Callable[[Tensor], bool] | bool = False) -> Any:
    """The ``out=`` of one of these ops: ``out`` of exactly the result's dtype (torch's
    words: a structured kernel's, or ``reflection_pad2d``'s and ``replication_pad2d``'s
    hand-written backward), resized to the result's shape and strides (with the deprecation
    warning unless torch's kernel resizes silently), the result copied in. ``restride``: an
    ``out`` of the right shape takes the result's layout too (a structured kernel that asks
    for a memory format restrides its ``out``: ``replication_pad2d``/``3d``,
    ``reflection_pad3d``; ``reflection_pad2d``'s hand-written kernel asks for one only of a
    4-d input: ``restride`` may be a test of the input)."""
    def writes(*values: Any) -> Tensor:
        *inputs, out = values
        result = functional.call(*inputs)
        if out._dtype is not result._dtype:
            if structured:
                raise RuntimeError(f"Expected out tensor to have dtype "
                                   f"{C_TYPE_NAMES[result._dtype.name]}, but got "
                                   f"{C_TYPE_NAMES[out._dtype.name]} instead")
            raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[result._dtype.name]} "
                               f"but found {SCALAR_TYPE_NAMES[out._dtype.name]}")
        if out._shape != result._shape:
            if warn:
                iterator.resize_output(out, result._shape, result._stride)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    iterator.resize_output(out, result._shape, result._stride)
        elif (restride(inputs[0]) if callable(restride) else restride) \
                and out._stride != result._stride:
            needed = (out._storage_offset + layout.required_storage_elements(
                result._shape, result._stride)) * out._dtype.itemsize
            if out.numel() and needed > out._storage.nbytes():
                out._storage.resize_(needed)
            out._stride = result._stride
        return aten.copy_.default.call(out, result, False)

    return writes


for _name in _PADS:
    # reflection_pad2d's out= and the 2d replication backward's are not structured kernels
    # (torch's words differ), nor reflection_pad2d_backward's
    _plain = _name in ("reflection_pad2d", "replication_pad2d", "replication_pad3d")
    out_arguments.set_rule(aten[_name].out, out_arguments.OutRule(writes=_out_writes(
        aten[_name].default, structured=_name != "reflection_pad2d",
        warn=_name != "reflection_pad2d",
        restride=(lambda input: input.ndim == 4) if _name == "reflection_pad2d"
        else _name in ("replication_pad2d", "replication_pad3d", "reflection_pad3d"))))
    out_arguments.set_rule(aten[_name + "_backward"].grad_input, out_arguments.OutRule(
        writes=_out_writes(aten[_name + "_backward"].default, structured=not _plain,
                           warn=not _plain)))


# ------------------------------------------------------------------ circular, pad
@aten._pad_circular.default.impl(DispatchKey.CompositeImplicitAutograd)
def _pad_circular(self: Tensor, pad: list[int]) -> Tensor:
    """torch's ``_pad_circular`` (a composite): the input copied into the middle of a new
    tensor, then each padded dim's left pad copied from the output's right end and its right
    pad from its left end, dim by dim (corners are written more than once)."""
    pad = list(pad)
    in_shape = self._shape
    padded = len(pad) // 2
    kept = self.dim() - padded
    if kept not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, "
                           f"which would be equivalent to padding of length "
                           f"{(self.dim() - 1) * 2} or {(self.dim() - 2) * 2} respectively "
                           f"but got {len(pad)}")
    out_shape = list(in_shape[:kept])
    for k in range(padded):
        left, right = pad[2 * (padded - k - 1)], pad[2 * (padded - k - 1) + 1]
        size = in_shape[kept + k]
        out_shape.append(size + left + right)
        if not (left <= size and right <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = aten.new_empty.default.call(self, out_shape, self._dtype, None, self.device, None)
    out_slice, in_slice = out, self
    for k in range(padded):
        d = padded - k + kept - 1
        left, right = pad[2 * k], pad[2 * k + 1]
        out_slice = aten.slice.Tensor.call(out_slice, d, max(left, 0),
                                           out_shape[d] - max(right, 0), 1)
        in_slice = aten.slice.Tensor.call(in_slice, d, max(-left, 0),
                                          in_shape[d] - max(-right, 0), 1)
    aten.copy_.default.call(out_slice, in_slice, False)
    for k in range(padded):
        d = padded - k + kept - 1
        left, right = pad[2 * k], pad[2 * k + 1]
        if left > 0:
            target = aten.slice.Tensor.call(out, d, 0, left, 1)
            source = aten.slice.Tensor.call(out, d, out_shape[d] - left - max(right, 0),
                                            out_shape[d] - max(right, 0), 1)
            aten.copy_.default.call(target, source, False)
        if right > 0:
            target = aten.slice.Tensor.call(out, d, out_shape[d] - right, out_shape[d], 1)
            source = aten.slice.Tensor.call(out, d, max(left, 0), max(left, 0) + right, 1)
            aten.copy_.default.call(target, source, False)
    return out


_NON_CONSTANT = ((2, (2, 3), "1d"), (4, (3, 4), "2d"), (6, (4, 5), "3d"))


@aten._pad_enum.default.impl(DispatchKey.CompositeImplicitAutograd)
def _pad_enum(self: Tensor, pad: list[int], mode: int, value: float | None = None) -> Tensor:
    """torch's ``_pad_enum``: ``constant_pad_nd`` for the constant mode; otherwise the op of
    the mode for 2, 4 or 6 pads of an input with one or two more dims."""
    pad = list(pad)
    ndim = self.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > ndim * 2:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {ndim}")
    if mode == CONSTANT:
        return aten.constant_pad_nd.default.call(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{_MODE_NAMES[mode]}\" doesn't take in value "
                           "argument")
    for count, dims, suffix in _NON_CONSTANT:
        if len(pad) == count and ndim in dims:
            if mode == REFLECT:
                return aten[f"reflection_pad{suffix}"].default.call(self, pad)
            if mode == REPLICATE:
                return aten[f"replication_pad{suffix}"].default.call(self, pad)
            if mode == CIRCULAR:
                return aten._pad_circular.default.call(self, pad)
    raise NotImplementedError(
        f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


@aten.pad.default.impl(DispatchKey.CompositeImplicitAutograd)
def pad(self: Tensor, pad: list[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """torch's ``pad``: the mode's name read, then ``_pad_enum``'s code (called directly,
    as torch's ``pad_symint`` does: no ``_pad_enum`` call is seen by a dispatch mode)."""
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return _pad_enum(self, pad, _MODES[mode], value)
