"""Normal numbers: ``randn``, ``randn_like``, ``Tensor.normal_`` and ``normal``.

torch turns uniforms into normals with the Box-Muller transform: two uniforms give a radius
``r = sqrt(-2 ln u)`` and an angle ``theta = 2 pi u'``, and ``r cos theta``, ``r sin theta``
are two independent standard normals. It has two code paths, and which one runs changes
every number:

* **fill path**, when the output has at least 16 elements and is contiguous: draw all the
  uniforms first (24-bit for float32, 53-bit for float64), then transform them in blocks of
  16: the pair ``(d[j], d[j + 8])`` becomes ``(r cos, r sin)`` at those two places. When
  ``n % 16 != 0`` the last 16 places are drawn again (16 more uniforms) and transformed as
  one more block. float64 uses libm (``math.log``, ``math.sin``, ``math.cos``); float32 uses
  the kernel in ``normal_float32.py``.
* **serial path**, for anything else (fewer than 16 elements, or not contiguous: filled in
  memory order): one element at a time, in float64, from two 53-bit uniforms with
  ``log1p``; the second normal of each pair is **cached in the generator** and returned by
  the next call that needs one. ``manual_seed`` clears the cache; the state bytes keep it.

``mean`` and ``std`` are applied as ``normal * std + mean``, fused in torch's AVX2 build.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, layout
from .._ops import aten
from ..dtypes import dtype
from ..tensor import Tensor
from . import fill
from .fma import fma32, fma64, fused, get_profile
from .generator import Generator
from .normal_float32 import box_muller_avx2, box_muller_libm
from .uniform import u24, u53

__all__ = ["randn", "randn_like", "normal_", "normal"]

TWO_PI = 2.0 * math.pi


# ---------------------------------------------------------------------------- serial path
def serial(gen: Generator, n: int) -> np.ndarray:
    """``n`` standard normals (float64) from the serial kernel, using and refilling the
    generator's cached normal."""
    out = np.empty(n)
    start = 0
    if n and gen._normal_double is not None:
        out[0], gen._normal_double, start = gen._normal_double, None, 1
    pairs = (n - start + 1) // 2
    u = u53(gen._draw64(2 * pairs))
    log1p, sqrt, sin, cos = math.log1p, math.sqrt, math.sin, math.cos
    normals = []
    for u1, u2 in zip(u[0::2].tolist(), u[1::2].tolist(), strict=True):
        r = sqrt(-2.0 * log1p(-u2))
        theta = TWO_PI * u1
        normals += (r * cos(theta), r * sin(theta))
    if (n - start) % 2:  # the last pair's sine waits in the generator for the next call
        gen._normal_double = normals.pop()
    out[start:] = normals
    return out


def _scale_double(x: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``x * std + mean`` in float64, fused in the AVX2 build."""
    if std == 1.0 and mean == 0.0:
        return x + 0.0  # what the FMA gives: -0.0 * 1 + 0 is +0
    return fma64(x, std, mean) if fused() else x * std + mean


# ------------------------------------------------------------------------------ fill path
def _blocks(d: np.ndarray, transform: Any, rows: int = 4096) -> np.ndarray:
    """Transform complete 16-element blocks of uniforms ``d`` (1-d, length a multiple of 16)
    into normals: ``(d[j], d[j+8])`` -> ``transform(d[j], d[j+8])`` for j = 0..7.

    The blocks are the rows of a ``(blocks, 2, 8)`` view; ``rows`` of them at a time, so
    the temporaries stay in the CPU cache."""
    b = d.reshape(-1, 2, 8)
    out = np.empty_like(b)
    for s in range(0, b.shape[0], rows):
        chunk = b[s:s + rows]
        out[s:s + rows, 0], out[s:s + rows, 1] = transform(chunk[:, 0], chunk[:, 1])
    return out.reshape(-1)


def _fill(n: int, uniforms: Any, transform: Any) -> np.ndarray:
    """The fill path: ``n`` uniforms, transformed in blocks of 16, the tail redrawn."""
    d = uniforms(n)
    full = n - n % 16
    out = np.empty(n, dtype=d.dtype)
    out[:full] = _blocks(d[:full], transform)
    if n % 16:
        out[n - 16:] = _blocks(uniforms(16), transform)
    return out


def _box_muller_double(u1: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 pairs with libm (Python's math module calls the same libm as torch)."""
    shape, log, cos, sin = u1.shape, math.log, math.cos, math.sin
    radius = np.sqrt(np.array([-2.0 * log(v) for v in (1.0 - u1).ravel().tolist()]))
    theta = (TWO_PI * u2).ravel().tolist()
    return ((radius * np.array([cos(v) for v in theta])).reshape(shape),
            (radius * np.array([sin(v) for v in theta])).reshape(shape))


def _fill_path(t: Tensor, gen: Generator, mean: float, std: float) -> np.ndarray:
    n = t.numel()
    if t.dtype == dtypes.float64:
        out = _fill(n, lambda k: u53(gen._draw64(k)), _box_muller_double)
        if std == 1.0 and mean == 0.0:
            return out + 0.0
        return fma64(out, std, mean)  # an explicit std::fma in both builds
    transform = box_muller_avx2 if get_profile() == "x86_avx2" else box_muller_libm
    if t.dtype == dtypes.float32:
        out = _fill(n, lambda k: u24(gen._draw32(k)), transform)
    else:  # float16/bfloat16: float32 maths, but 16 fresh uniforms per block
        blocks = -(-n // 16)
        out = _blocks(u24(gen._draw32(16 * blocks)), transform)
        if n % 16:  # the last block lands on the last 16 places, as in float32
            out = np.concatenate([out[:n - 16], out[16 * (blocks - 1):]])
    s, m = np.float32(std), np.float32(mean)
    return out + m if s == 1 else fma32(out, s, m)


# ---------------------------------------------------------------------------- the kernel
def _kernel(t: Tensor, mean: float, std: float, gen: Generator) -> None:
    if t.numel() >= 16 and t.is_contiguous():
        fill.write(t, _fill_path(t, gen, mean, std))
    else:
        fill.write(t, _scale_double(serial(gen, t.numel()), mean, std))


def _check(t: Tensor, std: float) -> None:
    fill.check_floating("normal_kernel_cpu", t.dtype)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with normal numbers of ``mean`` and ``std``
    (``Tensor.normal_``); the fill path for 16+ contiguous elements, else the serial path.

    Raises:
        NotImplementedError: an integer or bool tensor. RuntimeError: ``std < 0``.
    """
    gen = fill.resolve(generator)
    mean, std = float(mean), float(std)
    _check(self, std)
    return fill.inplace("NormalBackward0", _kernel, self, mean, std, gen)


def randn(*size: Any, generator: Generator | None = None, dtype: dtype | None = None,
          device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new contiguous tensor of ``size`` with standard normal numbers (``torch.randn``).

    Default dtype float32; with the same seed, bit for bit torch's numbers.

    Raises:
        NotImplementedError: an integer or bool dtype. TypeError/RuntimeError: a bad size.
    """
    t = fill.new("randn", size, dtype, device)
    _check(t, 1.0)
    return fill.fresh(_kernel, t, 0.0, 1.0, fill.resolve(generator),
                      requires_grad=requires_grad)


def randn_like(input: Tensor, *, generator: Generator | None = None,
               dtype: dtype | None = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = layout.preserve_format) -> Tensor:
    """``randn`` with the shape (and, for a dense input, the strides) of ``input``
    (``torch.randn_like``): a non-contiguous result takes the serial path."""
    t = fill.like(input, dtype, device, memory_format)
    _check(t, 1.0)
    return fill.fresh(_kernel, t, 0.0, 1.0, fill.resolve(generator),
                      requires_grad=requires_grad)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *,
           generator: Generator | None = None, dtype: dtype | None = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    """Normal numbers with the given mean and std (``torch.normal``), in four forms:

    * ``normal(mean: float, std: float, size)``: ``empty(size).normal_(mean, std)``;
    * ``normal(mean: Tensor, std: Tensor)``: standard normals of the broadcast shape
      (contiguous), then ``* std`` and ``+ mean`` as two rounded ops;
    * ``normal(mean: Tensor, std: float)``: ``normal_(0, std)``, then ``+ mean``;
    * ``normal(mean: float, std: Tensor)``: standard normals, ``* std``, ``+ mean``.

    Raises:
        RuntimeError: a negative std; a float mean and std without ``size``.
    """
    from .. import broadcasting

    gen = fill.resolve(generator)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() missing 1 required positional arguments: \"size\"")
        t = fill.new("normal", (size,), dtype, device)
        _check(t, float(std))
        return fill.fresh(_kernel, t, float(mean), float(std), gen,
                          requires_grad=requires_grad)
    if isinstance(std, Tensor):
        fill.check_floating("normal_kernel_cpu", std.dtype)
        if not std.is_meta and std.numel() and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        shape = broadcasting.broadcast_shapes(mean.shape, std.shape)
        out = aten.empty(shape, dtype=dtypes.promote_types(mean.dtype, std.dtype),
                              device=mean.device)
        fill.fresh(_kernel, out, 0.0, 1.0, gen)
        return out * std + mean
    if isinstance(mean, Tensor):
        out = fill.like(mean, None, None, layout.contiguous_format)
        _check(out, float(std))
        fill.fresh(_kernel, out, 0.0, float(std), gen)
        return out + mean
    out = fill.like(std, None, None, layout.contiguous_format)
    fill.fresh(_kernel, out, 0.0, 1.0, gen)
    return out * std + mean
