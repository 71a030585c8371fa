"""How every random kernel writes a tensor: which generator, in what order, and the
in-place rules.

* **Generator.** ``generator=None`` means ``default_generator``.
* **Order.** torch's CPU random kernels are serial loops over a ``TensorIterator``, which
  walks the output in *memory* order: dims sorted by stride, innermost last. So
  ``x.t().uniform_()`` writes its numbers in the order they lie in memory, not in the
  order ``x.t()`` lists them. Draws therefore come out as one flat array in memory order,
  and :func:`write` puts them in place.
* **In place.** ``uniform_`` and the others are in-place ops of the op table: they refuse
  expanded outputs and bump ``_version``; under autograd their rows of the derivatives
  table record a node whose gradient is zero (``UniformBackward0``, ...), as ``fill_``'s.
* **Meta.** A meta tensor has no data: nothing is drawn and the generator does not move.
  The meta kernels make the checks torch's make there, which are fewer than the CPU's
  (``uniform_`` and ``random_`` check nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtypes, factories, iterator, layout
from .._ops import DispatchKey
from ..device import CPU, META, as_device
from ..device import device as device_type
from ..dtypes import dtype
from ..tensor import Tensor
from .generator import Generator, default_generator

__all__ = ["resolve", "memory_order", "write", "inplace", "bump", "check_floating", "fresh",
           "draw", "like", "new", "new_or_out", "register_factory", "FLOATING", "SCALAR_TYPE"]

FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def resolve(generator: Generator | None) -> Generator:
    """The generator a call uses.

    Raises:
        TypeError: ``generator`` is not a Generator.
    """
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a Generator, not {type(generator).__name__}")
    return generator


def memory_order(t: Tensor) -> list[int]:
    """The dims of ``t`` outermost first, as TensorIterator walks a single output."""
    return layout.innermost_first(t.shape, [t.stride()])[::-1]


def write(t: Tensor, values: np.ndarray) -> None:
    """Store ``values`` (one per element, in memory order) into ``t``, converting as torch's
    kernels do: to float32 first for float16/bfloat16 (their constructors take a float)."""
    if t.dtype in (dtypes.float16, dtypes.bfloat16) and values.dtype == np.float64:
        values = values.astype(np.float32)
    target = t._elements()
    if not t.is_contiguous():
        target = target.transpose(memory_order(t))
    target[...] = values.reshape(target.shape)


def inplace(kernel: Callable[..., Any], self: Tensor, *args: Any) -> Tensor:
    """The CPU kernel of an in-place sampler: ``kernel(self, *args)`` with torch's in-place
    rules (no expanded ``self``; ``_version`` bumped); returns ``self``. Its ``Autograd``
    kernel comes from the sampler's row of the derivatives table (a zero gradient)."""
    iterator.assert_no_internal_overlap(self)
    if self.numel():
        kernel(self, *args)
    return bump(self)


def bump(self: Tensor) -> Tensor:
    """``self`` written in place: its version goes up (the whole meta kernel of most
    samplers, which draw nothing)."""
    self._version_counter.value += 1
    return self


SCALAR_TYPE = {dtypes.bool: "Bool", dtypes.uint8: "Byte", dtypes.int8: "Char",
               dtypes.int16: "Short", dtypes.int32: "Int", dtypes.int64: "Long",
               dtypes.float16: "Half", dtypes.bfloat16: "BFloat16", dtypes.float32: "Float",
               dtypes.float64: "Double"}
"""torch's C++ names of the dtypes, as its error messages print them."""


def check_floating(kernel: str, d: dtype) -> None:
    """Raises NotImplementedError, as torch's dispatch does, for a dtype that the
    floating-point kernel named ``kernel`` does not implement."""
    if d not in FLOATING:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE[d]}\'')


def fresh(kernel: Callable[..., Any], t: Tensor, *args: Any) -> Tensor:
    """Fill the new tensor ``t`` of a factory (``rand``, ...): unlike the in-place methods
    this leaves ``_version`` at 0, as torch does (a meta ``t`` is left as it is)."""
    if not t.is_meta and t.numel():
        kernel(t, *args)
    return t


def draw(kernel: Callable[..., Any], t: Tensor, out: Tensor | None, *args: Any) -> Tensor:
    """The end of a random factory's kernel: ``kernel(t, *args)`` fills its new tensor
    ``t`` (:func:`fresh`), or ``out`` with the in-place rules (:func:`inplace`: one write);
    on the meta device nothing is drawn."""
    if out is None:
        return fresh(kernel, t, *args)
    if out.is_meta:
        return bump(out)
    return inplace(kernel, out, *args)


def like(input: Tensor, dtype: dtype | None, device: Any, memory_format: Any,
         pin_memory: bool | None = None) -> Tensor:
    """A new tensor shaped like ``input`` for the ``*_like`` samplers (``torch.empty_like``):
    ``preserve_format`` keeps a dense input's strides, so those samplers fill memory order;
    dtype and device ``input``'s unless given (checked as a factory's options)."""
    d = factories._options(dtype, device, pin_memory, input.dtype)
    where = input.device if device is None else as_device(device)
    return factories._allocate(input.shape, input._strides_for(memory_format), d, where)


def new(size: Sequence[int], dtype: dtype | None, device: Any, pin_memory: bool | None,
        where: device_type, default: dtype | None = None) -> Tensor:
    """A new contiguous tensor for a factory sampler such as ``rand(2, 3)`` (dtype: ``dtype``,
    ``default`` or the default float dtype), on ``where`` (the device of the kernel)."""
    return factories._contiguous(size, factories._options(dtype, device, pin_memory, default),
                                 where)


def new_or_out(size: Sequence[int], out: Tensor | None, dtype: dtype | None, device: Any,
               pin_memory: bool | None, where: device_type, default: dtype | None = None,
               *, resize_counts: bool = False) -> Tensor:
    """``out`` resized to ``size`` (as torch's ``resize_``: it keeps its strides when it
    has that shape) for a factory's ``.out`` overload; else a new tensor (:func:`new`).

    ``resize_counts``: the ``.out`` overload is a composite of torch's (``randn.out`` is
    ``out.resize_(size).normal_()`` above autograd), whose ``resize_`` counts as a write of
    its own when the shape changes (one more ``_version``)."""
    if out is None:
        return new(size, dtype, device, pin_memory, where, default)
    if resize_counts and out._shape != tuple(size):
        bump(out)
    return factories._resize(out, tuple(size))


def register_factory(body: Callable[..., Tensor], *overloads: Any, **fixed: Any) -> None:
    """Register ``body`` as the CPU and the Meta kernel of a factory's ``overloads``
    (``rand``, ``rand.generator``, ``rand.out``, ...): each calls ``body(where, **arguments
    by schema name, **fixed)``, ``where`` being the device of the kernel (CPU or meta), so
    that one function serves every overload, those without a ``generator`` or ``out``
    too. (Each kernel is built on its first call: it reads the schema, which ``import
    reftensor`` does not parse.)"""
    for overload in overloads:
        for key, where in ((DispatchKey.CPU, CPU), (DispatchKey.Meta, META)):
            overload.impl_lazy(key, lambda overload=overload, where=where:
                               _kernel(body, where, overload, fixed))


def _kernel(body: Callable[..., Tensor], where: device_type, overload: Any,
            fixed: dict[str, Any]) -> Callable[..., Tensor]:
    names = tuple(a.name for a in overload.schema.arguments)

    def kernel(*values: Any) -> Tensor:
        return body(where, **dict(zip(names, values, strict=True)), **fixed)

    return kernel
