"""Normal numbers: ``Tensor.normal_``, ``randn``, ``randn_like`` and ``normal``.

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

In the student edition, every draw of fewer than ``FEW`` normals on the serial path, or on the
fill path of a float64 tensor, is made by the student's ``normal_from_draws`` (chapter 8),
which takes the raw draws from the generator itself; the reference keeps the NumPy code below
(``serial``, ``_fill_path``). ``tests/test_ch08_rng.py`` proves the two agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import broadcasting, dtypes, iterator, layout, pieces
from .._ops import DispatchKey, aten
from ..device import META
from ..device import device as device_type
from ..dtypes import dtype
from ..promotion import result_type
from ..tensor import Tensor
from . import fill
from .fma import fma32, fma64, fused, get_profile
from .generator import Generator
from .normal_float32 import box_muller_avx2, box_muller_libm
from .uniform import u24, u53

__all__ = ["normal_", "normal_from_draws"]

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


# ---------------------------------------------------------------------- the piece
def normal_from_draws(n: int, contiguous: bool, draw: Callable[[int], Sequence[int]],
                      cached: float | None) -> tuple[list[float], float | None]:
    """``torch.randn(n, dtype=torch.float64)`` on the CPU (or ``normal_()`` on a float64
    tensor of ``n`` elements, in memory order), from a generator whose raw 32-bit draws come
    from ``draw`` and whose cached normal is ``cached``.

    Args:
        n: how many normals, an int >= 0.
        contiguous: whether the tensor being filled is contiguous.
        draw: ``draw(k)`` returns the generator's next ``k`` raw 32-bit draws (ints in
            ``[0, 2**32)``), as torch's ``random()`` gives them; call it for exactly the
            draws torch uses, in torch's order.
        cached: the generator's cached normal (a float), or None when it holds none.

    Returns:
        ``(values, cached)``: the ``n`` normals (Python floats, bit for bit torch's), and the
        generator's cached normal after the call (or None).
    """
    # BEGIN PIECE normal_from_draws
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("normal_from_draws")(n, contiguous, draw, cached)
    # END PIECE


#: Fewer normals than this are made by ``normal_from_draws`` where ``PIECE`` is set (the
#: rule of ``uniform.FEW``).
FEW = 64
#: Does the library run ``normal_from_draws``? Yes in the student edition (where the piece
#: runs the student's answer, or a published chapter's body); no in the reference. Asked
#: once, here.
PIECE = pieces.stubbed(normal_from_draws)


def _from_piece(t: Tensor, gen: Generator, fill_path: bool) -> np.ndarray:
    """``normal_from_draws`` for ``t``: standard normals in float64, in memory order."""
    values, gen._normal_double = normal_from_draws(
        t.numel(), fill_path, lambda k: gen._draw32(k).tolist(), gen._normal_double)
    return np.array(values, dtype=np.float64)


# ---------------------------------------------------------------------------- the kernel
def _kernel(t: Tensor, mean: float, std: float, gen: Generator) -> None:
    fill_path = t.numel() >= 16 and t.is_contiguous()
    if PIECE and t.numel() < FEW and (t.dtype == dtypes.float64 or not fill_path):
        values = _from_piece(t, gen, t.is_contiguous())
        if fill_path:  # an explicit std::fma in both builds, as ``_fill_path``
            fill.write(t, values + 0.0 if std == 1.0 and mean == 0.0 else
                       fma64(values, std, mean))
        else:
            fill.write(t, _scale_double(values, mean, std))
        return
    if fill_path:
        fill.write(t, _fill_path(t, gen, mean, std))
    else:
        fill.write(t, _scale_double(serial(gen, t.numel()), mean, std))


def _checked_kernel(t: Tensor, mean: float, std: float, gen: Generator) -> None:
    """``_kernel`` after torch's kernel's dtype check (which an empty tensor skips)."""
    fill.check_floating("normal_kernel_cpu", t.dtype)
    _kernel(t, mean, std, gen)


def _check_std(std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _check_floating_meta(d: dtype) -> None:
    """torch's meta functions (``check_fp_or_complex``) refuse other dtypes so."""
    if not d.is_floating_point:
        raise RuntimeError(f"expected a floating-point or complex dtype, but got dtype={d}")


@aten.normal_.default.impl(DispatchKey.CPU)
def normal_(self: Tensor, mean: float, std: float, generator: Generator | None) -> Tensor:
    """``self.normal_(mean, std)``: the fill path for 16+ contiguous elements, else the
    serial path. torch checks ``std`` before the dtype."""
    _check_std(std)
    if self.numel():  # (torch's kernel checks the dtype before the layout)
        fill.check_floating("normal_kernel_cpu", self.dtype)
    return fill.inplace(_kernel, self, mean, std, fill.resolve(generator))


@aten.normal_.default.impl(DispatchKey.Meta)
def normal_meta(self: Tensor, mean: float, std: float, generator: Generator | None) -> Tensor:
    """torch's meta kernel checks ``std`` and the dtype (a RuntimeError there), and draws
    nothing."""
    _check_std(std)
    _check_floating_meta(self.dtype)
    return fill.bump(self)


def _normal(where: device_type, size: Sequence[int] | None = None,
            generator: Generator | None = None, dtype: dtype | None = None,
            layout: Any = None, device: Any = None, pin_memory: bool | None = None,
            out: Tensor | None = None, self: Tensor | None = None, memory_format: Any = None,
            mean: float = 0.0, std: float = 1.0, resize_counts: bool = False) -> Tensor:
    """``randn`` and ``normal(mean, std, size)`` (a new tensor of ``size``, or ``out``
    resized) and ``randn_like`` (one like ``self``): ``normal_(mean, std)`` on it. As in
    ``normal_``, ``std`` is checked first, then the dtype: on the CPU only when there are
    elements, on the meta device always. (``resize_counts``: see ``fill.new_or_out``.)"""
    if self is not None:
        t = fill.like(self, dtype, device, memory_format, pin_memory)
    else:
        t = fill.new_or_out(size, out, dtype, device, pin_memory, where,
                            resize_counts=resize_counts)
    _check_std(std)
    if where is META:
        _check_floating_meta(t.dtype)
    elif t.numel():
        fill.check_floating("normal_kernel_cpu", t.dtype)
    return fill.draw(_kernel, t, out, mean, std, fill.resolve(generator))


fill.register_factory(_normal, aten.randn.default, aten.randn.generator,
                      aten.randn_like.default, aten.randn_like.generator,
                      aten.normal.float_float, aten.normal.float_float_out)
# torch's randn.out and randn.generator_out are composites: ``out.resize_(size).normal_()``
fill.register_factory(_normal, aten.randn.out, aten.randn.generator_out, resize_counts=True)


# ------------------------------------------------------------- normal with tensor arguments
# torch's ``normal_out_impl``: ``out`` resized to the broadcast shape, standard normals (or
# ``normal_(0, std)`` for a number std) drawn into it in its own dtype, then ``*= std`` and
# ``+= mean`` in place. The functional overloads run it on a new contiguous tensor.
def _check_std_tensor(std: Tensor) -> None:
    if not std.is_meta and std.numel() and bool((std < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _resized(out: Tensor, shape: tuple[int, ...]) -> Tensor:
    if out.shape != shape:
        iterator.resize_output(out, shape, layout.contiguous_strides(shape))
    return out


def _draw_into(out: Tensor, std: float, gen: Generator) -> None:
    """``out.normal_(0, std)`` without the in-place bookkeeping (``out`` is the result)."""
    _check_std(std)
    if out.numel():
        _checked_kernel(out, 0.0, std, gen)


def _shift(out: Tensor, std: Tensor | None, mean: Tensor) -> None:
    """``out.mul_(std).add_(mean)``: steps inside the op, which leave ``_version`` as it
    was (the op itself counts as one write of an ``out=``, none of a new result)."""
    version = out._version_counter.value
    if std is not None:
        out.mul_(std)
    out.add_(mean)
    out._version_counter.value = version


def _tensor_tensor_into(out: Tensor, mean: Tensor, std: Tensor,
                        generator: Generator | None) -> Tensor:
    _check_std_tensor(std)
    _resized(out, broadcasting.broadcast_shapes(mean.shape, std.shape))
    _draw_into(out, 1.0, fill.resolve(generator))
    _shift(out, std, mean)
    return out


def _tensor_float_into(out: Tensor, mean: Tensor, std: float,
                       generator: Generator | None) -> Tensor:
    _check_std(std)
    _resized(out, broadcasting.broadcast_shapes(mean.shape, out.shape))
    _draw_into(out, std, fill.resolve(generator))
    _shift(out, None, mean)
    return out


def _float_tensor_into(out: Tensor, mean: float, std: Tensor,
                       generator: Generator | None) -> Tensor:
    _check_std_tensor(std)
    _resized(out, std.shape)
    _draw_into(out, 1.0, fill.resolve(generator))
    _shift(out, std, aten.full((), mean, dtype=out.dtype))
    return out


@aten.normal.Tensor_Tensor_out.impl(DispatchKey.CPU)
def normal_tensor_tensor_out(mean: Tensor, std: Tensor, generator: Generator | None,
                             out: Tensor) -> Tensor:
    return fill.bump(_tensor_tensor_into(out, mean, std, generator))


@aten.normal.Tensor_float_out.impl(DispatchKey.CPU)
def normal_tensor_float_out(mean: Tensor, std: float, generator: Generator | None,
                            out: Tensor) -> Tensor:
    return fill.bump(_tensor_float_into(out, mean, std, generator))


@aten.normal.float_Tensor_out.impl(DispatchKey.CPU)
def normal_float_tensor_out(mean: float, std: Tensor, generator: Generator | None,
                            out: Tensor) -> Tensor:
    return fill.bump(_float_tensor_into(out, mean, std, generator))


@aten.normal.Tensor_Tensor.impl(DispatchKey.CPU)
def normal_tensor_tensor(mean: Tensor, std: Tensor, generator: Generator | None) -> Tensor:
    shape = broadcasting.broadcast_shapes(mean.shape, std.shape)
    return _tensor_tensor_into(aten.empty(shape, dtype=mean.dtype), mean, std, generator)


@aten.normal.Tensor_float.impl(DispatchKey.CPU)
def normal_tensor_float(mean: Tensor, std: float, generator: Generator | None) -> Tensor:
    out = fill.like(mean, None, None, layout.contiguous_format)
    return _tensor_float_into(out, mean, std, generator)


@aten.normal.float_Tensor.impl(DispatchKey.CPU)
def normal_float_tensor(mean: float, std: Tensor, generator: Generator | None) -> Tensor:
    out = fill.like(std, None, None, layout.contiguous_format)
    return _float_tensor_into(out, mean, std, generator)


# torch's meta kernels: sizes and dtypes only, from its Python decompositions (``mean + std
# * randn``): ``result_type`` of mean and std (where the CPU takes the drawn-into tensor's
# dtype), and a dtype check only where nothing promotes (two integer tensors, or an integer
# mean with the default std 1).
@aten.normal.Tensor_Tensor.impl(DispatchKey.Meta)
def normal_tensor_tensor_meta(mean: Tensor, std: Tensor, generator: Generator | None
                              ) -> Tensor:
    d = result_type(mean, std)
    _check_floating_meta(d)
    shape = broadcasting.broadcast_shapes(mean.shape, std.shape)
    return aten.empty(shape, dtype=d, device="meta")


@aten.normal.Tensor_float.impl(DispatchKey.Meta)
def normal_tensor_float_meta(mean: Tensor, std: float, generator: Generator | None) -> Tensor:
    _check_std(std)
    if std == 1.0:
        _check_floating_meta(mean.dtype)
    d = mean.dtype if mean.dtype.is_floating_point else dtypes.get_default_dtype()
    return fill.like(mean, d, None, layout.contiguous_format)


@aten.normal.float_Tensor.impl(DispatchKey.Meta)
def normal_float_tensor_meta(mean: float, std: Tensor, generator: Generator | None) -> Tensor:
    d = std.dtype if std.dtype.is_floating_point else dtypes.get_default_dtype()
    return fill.like(std, d, None, layout.preserve_format)


def _out_meta(shape_of: Any) -> Any:
    def kernel(mean: Any, std: Any, generator: Generator | None, out: Tensor) -> Tensor:
        _resized(out, shape_of(mean, std, out))
        return fill.bump(out)

    return kernel


aten.normal.Tensor_Tensor_out.impl(DispatchKey.Meta)(
    _out_meta(lambda mean, std, out: broadcasting.broadcast_shapes(mean.shape, std.shape)))
aten.normal.Tensor_float_out.impl(DispatchKey.Meta)(
    _out_meta(lambda mean, std, out: broadcasting.broadcast_shapes(mean.shape, out.shape)))
aten.normal.float_Tensor_out.impl(DispatchKey.Meta)(
    _out_meta(lambda mean, std, out: std.shape))
