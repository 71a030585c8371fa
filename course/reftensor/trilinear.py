"""Bilinear maps (chapter 6): ``_trilinear`` and the composite ``bilinear``.

``bilinear(x1, x2, W, b)[..., o] = sum_ij x1[..., i] * W[o, i, j] * x2[..., j] + b[o]``:
a linear layer of two inputs, quadratic in their pair. torch builds it from a more general
op, ``_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)``: each input gets size-1
dims at its ``expand`` positions, the three are multiplied with broadcasting, and the dims
in ``sumdim`` are summed away. ``bilinear`` flattens both inputs to ``(B, in)`` and calls
``_trilinear(x1, W, x2, [1, 3], [0], [1, 2], [2, 3])`` over dims ``(B, out, in1, in2)``.

torch's kernel sums in two steps, ``i1 * i2`` over the summed dims that ``i3`` lacks (one
``bmm`` per output feature: ``x1 @ W[o]``), rounded to the inputs' dtype, then that times
``i3`` over the rest;
here each step is summed in float64 and rounded to the working dtype, so a result is within
a few ulps of torch's BLAS sums. The gradient of each input is ``_trilinear`` again, with
the incoming gradient in place of that input and the roles of ``sumdim`` and its
``expand`` swapped.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from ._casting import cast, compute_dtype
from ._layers import new_tensor, on_meta, values_of
from ._ops import DispatchKey, aten
from .promotion import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from .tensor import Tensor

__all__: list[str] = []


def _expanded_shape(t: Tensor, expand: list[int], total: int) -> tuple[int, ...]:
    """``t``'s shape with size-1 dims inserted at ``expand``."""
    sizes = iter(t._shape)
    return tuple(1 if d in expand else next(sizes) for d in range(total))


def _trilinear(i1: Tensor, i2: Tensor, i3: Tensor, expand1: list[int], expand2: list[int],
               expand3: list[int], sumdim: list[int], unroll_dim: int = 1) -> Tensor:
    total = i1.dim() + len(expand1)
    for t, e in ((i2, expand2), (i3, expand3)):
        if t.dim() + len(e) != total:
            raise RuntimeError("expand dimensions do not match the inputs' dims")
    if i1._dtype is not i2._dtype or i1._dtype is not i3._dtype:
        other = i2 if i2._dtype is not i1._dtype else i3
        raise RuntimeError(f"expected scalar type {SCALAR_TYPE_NAMES[i1._dtype.name]} but "
                           f"found {SCALAR_TYPE_NAMES[other._dtype.name]}")
    shapes = [_expanded_shape(t, e, total) for t, e in ((i1, expand1), (i2, expand2),
                                                        (i3, expand3))]
    full = []
    for d in range(total):
        sizes = {s[d] for s in shapes if s[d] != 1}
        if len(sizes) > 1:
            raise RuntimeError(f"The size of tensor a ({min(sizes)}) must match the size of "
                               f"tensor b ({max(sizes)}) at non-singleton dimension {d}")
        full.append(sizes.pop() if sizes else 1)
    out_shape = tuple(n for d, n in enumerate(full) if d not in sumdim)
    if on_meta(i1, i2, i3):
        return new_tensor(out_shape, i1._dtype, None)
    work = compute_dtype(i1._dtype).numpy
    a, b, c = (values_of(t).astype(np.float64).reshape(s)
               for t, s in zip((i1, i2, i3), shapes, strict=True))
    first = tuple(d for d in sumdim if shapes[2][d] == 1)  # summed before i3 joins
    rest = tuple(d for d in sumdim if d not in first)
    with np.errstate(all="ignore"):
        # the first step's result is a tensor of the inputs' dtype (float16/bfloat16 too)
        pair = cast(cast((a * b).sum(axis=first, keepdims=True).astype(work), i1._dtype),
                    dtypes.float64)
        values = (pair * c).sum(axis=rest, keepdims=True) if rest else pair * c
        values = np.broadcast_to(values, tuple(1 if d in sumdim else n
                                               for d, n in enumerate(full)))
    return new_tensor(out_shape, i1._dtype, values.reshape(out_shape))


@aten.bilinear.default.impl(DispatchKey.CompositeImplicitAutograd)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """torch's composite: its checks, then ``_trilinear`` of the flattened inputs (viewed
    back: ``ViewBackward0``) and ``+ bias`` (``AddBackward0``)."""
    given = [(input1, "input1"), (input2, "input2"), (weight, "weight")]
    given += [(bias, "bias")] if bias is not None else []
    if len({t._dtype for t, _ in given}) > 1:  # torch checks the dtypes first
        names = ", ".join(f"{name}: {C_TYPE_NAMES[t._dtype.name]}" for t, name in given)
        raise RuntimeError(f"All tensors must have the same dtype, got {names}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} "
                           f"and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1._shape[i] != input2._shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                               f"{input1._shape[i]} and {input2._shape[i]}")
    for k, (t, name) in enumerate(((input1, "input1"), (input2, "input2")), start=1):
        if t._shape[-1] != weight._shape[k]:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got "
                               f"{t._shape[-1]} but expected {weight._shape[k]}")
    if bias is not None and bias._shape[0] != weight._shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias._shape[0]} but expected {weight._shape[0]}")
    output_size = (*input1._shape[:-1], weight._shape[0])
    flat1 = input1.reshape(-1, input1._shape[-1])
    flat2 = input2.reshape(-1, input2._shape[-1])
    output = aten._trilinear.default.call(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3],
                                          1).reshape(output_size)
    if bias is not None:
        output = output + bias
    return output


for _key in (DispatchKey.CPU, DispatchKey.Meta):
    aten._trilinear.default.impl(_key)(_trilinear)
