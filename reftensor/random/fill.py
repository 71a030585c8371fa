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

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes, factories, iterator, layout
from ..device import as_device
from ..dtypes import dtype
from ..tensor import Tensor
from .generator import Generator, default_generator

__all__ = ["resolve", "memory_order", "write", "inplace", "bump", "check_floating", "fresh",
           "like", "new", "FLOATING", "SCALAR_TYPE"]

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


def fresh(kernel: Callable[..., Any], t: Tensor, *args: Any, requires_grad: bool = False
          ) -> Tensor:
    """Fill the new tensor ``t`` of a factory (``rand``, ...): unlike the in-place methods
    this leaves ``_version`` at 0, as torch does; then set ``requires_grad``."""
    if not t.is_meta and t.numel():
        kernel(t, *args)
    if requires_grad:
        t.requires_grad_(True)
    return t


def like(input: Tensor, dtype: dtype | None, device: Any, memory_format: Any) -> Tensor:
    """A new tensor shaped like ``input`` for the ``*_like`` samplers (``torch.empty_like``):
    ``preserve_format`` keeps a dense input's strides, so those samplers fill memory order."""
    if not isinstance(input, Tensor):
        raise TypeError(f"expected Tensor as argument 'input', but got {type(input).__name__}")
    return factories.empty_strided(input.shape, input._strides_for(memory_format),
                                   dtype=dtype or input.dtype,
                                   device=input.device if device is None else device)


def new(name: str, size: tuple[Any, ...], dtype: dtype | None, device: Any) -> Tensor:
    """A new contiguous tensor for a factory sampler such as ``rand(2, 3)``."""
    shape = factories._parse_size(name, size)
    return factories._contiguous(shape, dtype or dtypes.get_default_dtype(), as_device(device))
