"""Gradients of the reductions (chapter 4).

A reduction's gradient is the output gradient put back where the reduced dims were
(``unsqueeze``) and broadcast over them (``expand``): every element contributed once.
``mean`` divides by the count. ``max``/``min`` over everything and ``amax``/``amin`` share
the gradient equally among tied extremes; ``max(dim)``/``min(dim)`` give it all to the index
they returned.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from ... import dtypes, factories
from ... import reductions as R
from ...tensor import Tensor
from ..grad_mode import state
from ..graph import Node, needs_grad, node_class, record
from ._record import call, forward
from .elementwise import where

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "var", "std"]


def _dims(input: Tensor, dim: Any, name: str) -> tuple[int, ...]:
    return R._reduced_dims(input, dim, name)


def restore(g: Tensor, shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool
            ) -> Tensor:
    """``g`` with the reduced dims back as size 1 (unless ``keepdim`` kept them)."""
    if not keepdim:
        for d in sorted(dims):
            g = g.unsqueeze(d)
    return g


class _Reduction(Node):
    def __init__(self, input: Tensor, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__(input)
        self.shape, self.dims, self.keepdim = input._shape, dims, keepdim

    def spread(self, g: Tensor) -> Tensor:
        return restore(g, self.shape, self.dims, self.keepdim).expand(self.shape)


class SumBackward0(_Reduction):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        return (self.spread(grads[0]),)


class SumBackward1(SumBackward0):
    pass


class MeanBackward0(_Reduction):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        count = math.prod(self.shape[d] for d in self.dims)
        return (self.spread(grads[0]) / count,)


class MeanBackward1(MeanBackward0):
    pass


class ProdBackward0(_Reduction):
    """The product of the others: ``result / x`` where no element is zero; at a lone zero,
    the product of the rest; with two zeros or more, 0."""

    def __init__(self, input: Tensor, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__(input, dims, keepdim)
        self.save("self", input)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        x = self.saved("self")
        if not self.shape:  # torch: a 0-d input's gradient is the incoming one, as it is
            return (grads[0],)
        g = self.spread(grads[0])
        if state.enabled:  # create_graph: a formula whose own derivatives are right at zeros
            return (g * self.leave_one_out(x),)
        is_zero = x == 0
        zeros = is_zero.sum(self.dims, keepdim=True) if self.dims else is_zero.long()
        nonzero = where(is_zero, x * 0 + 1, x)
        others = nonzero.prod() if len(self.dims) == len(self.shape) else \
            nonzero.prod(self.dims[0], keepdim=True)
        rest = others / nonzero
        out = where(zeros == 0, rest, where((zeros == 1) & is_zero, rest, x * 0))
        return (g * out,)


    def leave_one_out(self, x: Tensor) -> Tensor:
        """For each element, the product of the others along the reduced dim, computed as
        the product of a row where that element is replaced by 1 (n*n work, exact, and
        differentiable again, also where several elements are zero)."""
        d = self.dims[0] if len(self.dims) == 1 else None
        xt = x.reshape(-1) if d is None else x.transpose(d, -1)
        n = xt.shape[-1]
        positions = factories.arange(n, dtype=dtypes.int64)
        eye = positions.unsqueeze(1) == positions
        rows = where(eye, xt.unsqueeze(-2) * 0 + 1, xt.unsqueeze(-2))
        others = rows.prod(-1)
        return others.reshape(x._shape) if d is None else others.transpose(d, -1)


class ProdBackward1(ProdBackward0):
    pass


class _Shared(_Reduction):
    """amax/amin and full max/min: tied extremes share the gradient equally (a nan result
    goes to the nans)."""

    def __init__(self, input: Tensor, dims: tuple[int, ...], keepdim: bool, result: Tensor
                 ) -> None:
        super().__init__(input, dims, keepdim)
        self.save("self", input)
        self.save("result", result, is_output=True)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        x = self.saved("self")
        r = restore(self.saved("result"), self.shape, self.dims, self.keepdim)
        hit = where(r != r, x != x, x == r)
        count = hit.sum(self.dims, keepdim=True) if self.dims else hit.sum()
        g = self.spread(grads[0])
        return (where(hit, g / count, g * 0),)


def _named(name: str, base: type[Node]) -> Any:
    return node_class(name, base, __name__)


MaxBackward1 = _named("MaxBackward1", _Shared)
MinBackward1 = _named("MinBackward1", _Shared)
AmaxBackward0 = _named("AmaxBackward0", _Shared)
AminBackward0 = _named("AminBackward0", _Shared)


class _Selected(_Reduction):
    """max(dim)/min(dim): all the gradient goes to the returned index."""

    def __init__(self, input: Tensor, dim: int, keepdim: bool, indices: Tensor) -> None:
        super().__init__(input, (dim,), keepdim)
        self.save("indices", indices)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        if not self.shape:  # a 0-d input is its own maximum: the gradient passes through
            return (grads[0],)
        d = self.dims[0]
        idx = restore(self.saved("indices"), self.shape, self.dims, self.keepdim)
        positions = factories.arange(self.shape[d], dtype=dtypes.int64).reshape(
            [-1 if k == d else 1 for k in range(len(self.shape))])
        g = self.spread(grads[0])
        return (where(positions == idx, g, g * 0),)


MaxBackward0 = _named("MaxBackward0", _Selected)
MinBackward0 = _named("MinBackward0", _Selected)


class VarBackward0(_Reduction):
    def __init__(self, input: Tensor, dims: tuple[int, ...], keepdim: bool, correction: float,
                 result: Tensor | None = None) -> None:
        super().__init__(input, dims, keepdim)
        self.correction = correction
        self.save("self", input)
        self.save("result", result, is_output=True)

    def centred(self) -> Tensor:
        x = self.saved("self")
        return x - x.mean(self.dims, keepdim=True)

    def scale(self) -> float:
        """``2 / (N - correction)``, in C++'s double arithmetic (inf when N = correction)."""
        dof = math.prod(self.shape[d] for d in self.dims) - self.correction
        return 2 / dof if dof else math.inf

    def apply(self, grads: Any) -> tuple[Any, ...]:
        g = self.spread(grads[0])
        return (g * self.centred() * self.scale(),)


class StdBackward0(VarBackward0):
    def apply(self, grads: Any) -> tuple[Any, ...]:
        from .elementwise import where

        r = self.saved("result")
        g = where(r == 0, 0.0, grads[0] / (r * 2))  # torch: a zero std passes no gradient
        return (self.spread(g) * self.centred() * self.scale(),)


# ------------------------------------------------------------------ the ops
def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``torch.sum``: ``SumBackward0`` over everything, ``SumBackward1`` over ``dim``."""
    cls = SumBackward0 if dim is None else SumBackward1
    return call(R.sum, (input, dim, keepdim), (input,),
                lambda out: cls(input, _dims(input, dim, "sum"), keepdim), dtype=dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    cls = MeanBackward0 if dim is None else MeanBackward1
    return call(R.mean, (input, dim, keepdim), (input,),
                lambda out: cls(input, _dims(input, dim, "mean"), keepdim), dtype=dtype)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
         ) -> Tensor:
    cls = ProdBackward0 if dim is None else ProdBackward1
    dims = tuple(range(input.dim())) if dim is None else (dim % builtins.max(input.dim(), 1),)
    return call(R.prod, (input, dim, keepdim), (input,),
                lambda out: cls(input, dims, keepdim), dtype=dtype)


def _extreme(name: str, kernel: Any, full: type, by_dim: type) -> Any:
    def op(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if dim is None:
            return call(kernel, (input,), (input,), lambda out: full(
                input, tuple(range(input.dim())), False, out))
        if not needs_grad(input):
            return kernel(input, dim, keepdim)
        result = forward(kernel, input, dim, keepdim)
        d = dim % builtins.max(input.dim(), 1)
        record(by_dim(input, d, keepdim, result.indices), [result.values, result.indices])
        return result

    op.__name__ = name
    op.__doc__ = kernel.__doc__
    return op


max = _extreme("max", R.max, MaxBackward1, MaxBackward0)
min = _extreme("min", R.min, MinBackward1, MinBackward0)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return call(R.amax, (input, dim, keepdim), (input,), lambda out: AmaxBackward0(
        input, _dims(input, dim, "amax"), keepdim, out))


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return call(R.amin, (input, dim, keepdim), (input,), lambda out: AminBackward0(
        input, _dims(input, dim, "amin"), keepdim, out))


def _var_like(name: str, kernel: Any, cls: type) -> Any:
    def op(input: Tensor, dim: Any = None, *args: Any, **kwargs: Any) -> Tensor:
        def make(out: Tensor) -> Node:
            d, correction, keepdim = R._parse_var_args(dim, args, kwargs, name)
            return cls(input, _dims(input, d, name), keepdim, correction, out)

        return call(kernel, (input, dim, *args), (input,), make, **kwargs)

    op.__name__ = name
    op.__doc__ = kernel.__doc__
    return op


var = _var_like("var", R.var, VarBackward0)
std = _var_like("std", R.std, StdBackward0)
