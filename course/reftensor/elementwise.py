"""Elementwise ops: one formula applied at every index of the broadcast shape.

Every op here runs the same five steps that torch's ``TensorIterator`` runs:

1. **Promote**: ``result_type`` of the operands picks the dtype to compute in
   (``promotion.py``). Integer inputs of a "float op" (``div``, ``exp``, ...) compute in the
   default float dtype. Operands of another dtype are converted first, which also makes a
   non-dense operand dense (``.to()`` keeps only a dense layout).
2. **Broadcast**: the operands' shapes meet at one shape (``broadcasting.py``), and the
   operands must share a device (``device.common_device``; a 0-d CPU tensor may join any).
3. **Allocate**: a new output is laid out like its inputs, not always row-major
   (``iterator.output_strides``: ``t.T + 1`` is transposed too). On the ``meta`` device the
   op ends here: the output has its shape, strides and dtype, and no kernel runs.
4. **Compute**: one NumPy formula over whole arrays (``_kernels.py`` for the longer ones).
   float16 and bfloat16 are widened to float32, computed, and rounded once at the end
   (a few torch kernels round on the way too; ``arithmetic.py`` follows them).
5. **Write**: cast to the output dtype and store through the output's strides. When NumPy's
   result array already has exactly the output's layout (it usually does: NumPy also keeps
   the inputs' memory order), that array becomes the output's storage instead, which saves
   a second pass over memory (``_adopt``).

In the student edition, steps 4 and 5 of an op whose output has fewer than ``LOOP_NUMEL``
elements are the student's ``iterator.strided_loop`` (chapter 3): it walks the output's
index space, reads each operand's storage through its strides and offset, applies the same
NumPy formula to one element of each (so NumPy's dtype rules, wrap-around and rounding are
unchanged) and writes through the output's strides, into a new output, into ``self``
(in place) or into an ``out=`` tensor (``write_out``). The reference computes with whole
arrays; ``tests/test_ch03_elementwise.py`` proves the two agree.

An **in-place** op (``add_``, ...) writes into ``self`` instead of allocating, so before
step 3 it checks what torch checks, in torch's order: ``self`` may not have a stride-0 dim
of size > 1 (an expanded tensor), may not partly overlap an input when both are dense
(``iterator.py`` says exactly when torch can tell), is never broadcast itself ("output with
shape [3] doesn't match the broadcast shape [2, 3]"), and must be able to hold the result
type ("result type Float can't be cast to the desired output type Long"). Each in-place op
bumps ``_version`` once.

Where torch cannot tell (an input that overlaps ``self`` in a layout that is not dense, such
as ``m -= m[:, :1]`` or ``x.unfold(0, 2, 1).add_(1)``), it writes anyway, and later elements
read values it has already overwritten, in the order of its loops and vector width.
reftensor reads every input before it writes, as if the input were cloned first, so its
values can differ from torch's there. Clone the input to get a result that is well defined
in both libraries.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import broadcasting, factories, iterator, layout, out_arguments, pieces
from ._casting import _HALF_TYPES, cast, checked_number, compute_dtype, number_array
from ._ops import DispatchKey, aten
from .device import CPU, META, common_device, device, wrong_device
from .dtypes import dtype, float32, float64
from .promotion import SCALAR_TYPE_NAMES, check_can_cast, is_number
from .storage import UntypedStorage, no_data
from .tensor import Tensor

__all__: list[str] = []  # the ops are the op table's: arithmetic.py, comparison.py, unary.py

#: What an elementwise op accepts as an operand: a tensor or a Python number.
Operand = Tensor | builtins.bool | int | builtins.float
#: A NumPy formula: operand arrays in, result array out.
Kernel = Callable[..., np.ndarray]

#: Outputs with fewer elements than this are computed by ``iterator.strided_loop`` when
#: ``LOOP`` is set.
LOOP_NUMEL = 64
#: Does the library run ``iterator.strided_loop`` on small outputs? Yes in the student
#: edition (where the piece runs the student's answer, or a published chapter's body);
#: no in the reference, whose whole-array NumPy path is faster. Asked once, here.
LOOP = pieces.stubbed(iterator.strided_loop)


# ============================================================== operands and the five steps
def _require(x: Any, fn: str, arg: str, *, numbers: builtins.bool = True) -> None:
    """Raise torch's TypeError for an operand of the wrong kind."""
    if isinstance(x, Tensor) or (numbers and is_number(x)):
        return
    wanted = "Tensor or Number" if numbers else "Tensor"
    raise TypeError(f"{fn}(): argument '{arg}' must be {wanted}, not {type(x).__name__}")


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """torch's error for a kernel that has no version for dtype ``d``."""
    return NotImplementedError(
        f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[d.name]}\''
    )


def _shape(x: Operand) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def _broadcast_shape(operands: Sequence[Operand]) -> tuple[int, ...]:
    shape: tuple[int, ...] = ()
    for x in operands:
        shape = broadcasting.infer_broadcast_size(shape, _shape(x))
    return shape


def _layout_seen(x: Operand, common: dtype) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The (shape, stride) the iterator sees: an operand converted to ``common`` was copied
    by ``.to()``, which keeps a dense layout and makes any other one dense (on the meta
    device too: torch's meta ``add`` of an expanded bool tensor and a float16 one is laid
    out as its CPU ``add``)."""
    if not isinstance(x, Tensor):
        return (), ()
    if (x._dtype is common
            or layout.is_non_overlapping_and_dense(x._shape, x._stride)):
        return x._shape, x._stride
    return x._shape, layout.dense_strides_like(x._shape, x._stride)


def _values(x: Operand, common: dtype, work: dtype) -> np.ndarray:
    """``x``'s values converted to ``common`` (as torch promotes), then to ``work``."""
    raw = x._elements() if isinstance(x, Tensor) else number_array(x, common)
    return cast(cast(raw, common), work)


def _empty(shape: tuple[int, ...], stride: tuple[int, ...], d: dtype,
           where: device = CPU) -> Tensor:
    """A new tensor with exactly these strides (``factories`` is looked up when called:
    this module is imported while ``factories`` is still being imported)."""
    return factories._allocate(shape, stride, d, where)


def _device(operands: Sequence[Operand], self: Tensor | None = None) -> device:
    """Step 2, devices: where the op runs (``device.common_device`` of the tensors).

    An in-place op runs where ``self`` is. A meta ``self`` takes operands from any device,
    as torch's meta kernels do (nothing is read). A CPU ``self`` cannot take a meta operand:
    torch leaves ``self`` silently unchanged there, reftensor raises.
    """
    tensors = [x for x in operands if isinstance(x, Tensor)]
    if self is None:
        return common_device(tensors)
    if self.is_meta:
        return META
    where = common_device(tensors)
    if where != self.device:
        raise wrong_device(where, self.device)
    return where


def _broadcast(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` broadcast to ``shape``, a read-only view (a kernel never writes into an
    operand's elements)."""
    if values.shape != shape:
        return np.broadcast_to(values, shape)
    view = values.view()
    view.flags.writeable = False
    return view


def _write(out: Tensor, values: np.ndarray) -> Tensor:
    """Step 5: cast to the output's dtype and store through its strides."""
    values = cast(np.asarray(values), out._dtype)
    out._elements()[...] = (values if values.shape == out._shape
                            else np.broadcast_to(values, out._shape))
    return out


def _compute(kernel: Kernel, operands: Sequence[Operand], common: dtype, shape: tuple[int, ...],
             *, work: dtype | None = None, exact_scalar: builtins.bool = False) -> np.ndarray:
    """Step 4: run ``kernel`` on the operands' values in the ``work`` dtype.

    ``exact_scalar`` reproduces a detail of torch's float16/bfloat16 ``mul`` and ``div``:
    when the second operand is a single value, it is read in float32 without first being
    rounded to the 16-bit type (``half_tensor * 0.1`` multiplies by ``0.1f``).
    """
    work = work or compute_dtype(common)
    values = [_broadcast(_values(x, common, work), shape) for x in operands]
    second = operands[-1]
    if exact_scalar and work is not common and is_single_value(second, common):
        raw = second._elements() if isinstance(second, Tensor) else number_array(second, work)
        values[-1] = _broadcast(cast(raw, work), shape)
    with np.errstate(all="ignore"):
        return kernel(*values)


def is_single_value(x: Operand, common: dtype) -> builtins.bool:
    """Does torch's iterator see ``x`` as one value repeated (``is_scalar``)? A number, a
    one-element tensor, or a tensor of the common dtype with stride 0 along every dim of
    size > 1 (an operand of another dtype was copied densely first)."""
    if not isinstance(x, Tensor) or x.numel() == 1:
        return True
    return x._dtype is common and all(
        s == 0 or n == 1 for n, s in zip(x._shape, x._stride, strict=True))


def _check_inplace(self: Tensor, operands: Sequence[Operand]) -> None:
    """The checks before writing into ``self`` (one of ``operands``), in torch's order."""
    iterator.assert_no_internal_overlap(self)
    for x in operands:
        if isinstance(x, Tensor) and x is not self:
            iterator.assert_no_partial_overlap(self, x)
    shape = _broadcast_shape(operands)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")


def _prepare(operands: Sequence[Operand], common: dtype, self: Tensor | None) -> tuple[int, ...]:
    """Steps 1-2 checks: the broadcast shape, and for an in-place op (``self`` given) the
    overlap, shape and cast checks. Returns the shape."""
    if self is None:
        return _broadcast_shape(operands)
    _check_inplace(self, operands)
    check_can_cast(common, self._dtype)
    return self._shape


def _finish(kernel: Kernel, operands: Sequence[Operand], common: dtype, shape: tuple[int, ...],
            self: Tensor | None = None, out_dtype: dtype | None = None,
            **options: Any) -> Tensor:
    """Steps 3-5: compute, then write into a new tensor (of ``out_dtype``, default
    ``common``) or, in place, into ``self`` and bump its ``_version``. On the meta device,
    allocate (or bump) only. (The ops of the op table choose between the two by dispatch
    key instead: their CPU kernels call ``finish_cpu``, their Meta kernels ``finish_meta``.)"""
    finish = finish_meta if _device(operands, self) == META else finish_cpu
    return finish(kernel, operands, common, shape, self, out_dtype, **options)


def finish_cpu(kernel: Kernel, operands: Sequence[Operand], common: dtype,
               shape: tuple[int, ...], self: Tensor | None = None,
               out_dtype: dtype | None = None, **options: Any) -> Tensor:
    """Steps 3-5 on the CPU: a new output holding ``kernel`` of the operands, or, in place,
    the values written into ``self`` (whose ``_version`` goes up by one)."""
    _device(operands, self)
    if self is None:
        return cpu_result(kernel, operands, common, shape, out_dtype, **options)
    return cpu_inplace(kernel, self, operands, common, **options)


def finish_meta(kernel: Kernel, operands: Sequence[Operand], common: dtype,
                shape: tuple[int, ...], self: Tensor | None = None,
                out_dtype: dtype | None = None, **options: Any) -> Tensor:
    """Steps 3 on the meta device: a new output's shape, strides and dtype, or, in place,
    only ``self``'s ``_version`` bumped. Nothing is computed.

    Raises:
        RuntimeError: a CPU operand with dims next to a meta one (``device.common_device``).
    """
    _device(operands, self)
    if self is None:
        return meta_result(operands, common, shape, out_dtype)
    return _bump(self)


def output_strides(operands: Sequence[Operand], common: dtype,
                   shape: tuple[int, ...]) -> tuple[int, ...]:
    """Step 3's layout: the strides of a new output, like its inputs'."""
    return iterator.output_strides(shape, [_layout_seen(x, common) for x in operands])


def meta_result(operands: Sequence[Operand], common: dtype, shape: tuple[int, ...],
                out_dtype: dtype | None = None) -> Tensor:
    """Steps 1-3 on the meta device: the output's shape, strides and dtype, and no values."""
    stride = output_strides(operands, common, shape)
    return _empty(shape, stride, out_dtype or common, META)


def cpu_result(kernel: Kernel, operands: Sequence[Operand], common: dtype,
               shape: tuple[int, ...], out_dtype: dtype | None = None,
               **options: Any) -> Tensor:
    """Steps 3-5 on the CPU: a new output holding ``kernel`` of the operands."""
    out_dtype = out_dtype or common
    stride = output_strides(operands, common, shape)
    if LOOP and _small(shape):
        out = _empty(shape, stride, out_dtype)
        _loop(kernel, out, operands, common, fresh=True, **options)
        return out
    values = cast(np.asarray(_compute(kernel, operands, common, shape, **options)), out_dtype)
    adopted = _adopt(values, shape, stride, out_dtype)
    if adopted is not None:
        return adopted
    return _write(_empty(shape, stride, out_dtype), values)


def cpu_inplace(kernel: Kernel, self: Tensor, operands: Sequence[Operand], common: dtype,
                **options: Any) -> Tensor:
    """Steps 4-5 of an in-place op on the CPU: write into ``self``, bump its ``_version``."""
    if iterator.has_internal_overlap(self) == "too hard" and _shares_locations(self):
        _write_one_by_one(kernel, self, operands, common, **options)
    elif LOOP and _small(self._shape):
        _loop(kernel, self, operands, common, **options)
    else:
        _write(self, _compute(kernel, operands, common, self._shape, **options))
    return _bump(self)


def _small(shape: tuple[int, ...]) -> builtins.bool:
    numel = 1
    for n in shape:
        numel *= n
    return numel < LOOP_NUMEL


def _loop(kernel: Kernel, out: Tensor, operands: Sequence[Operand], common: dtype, *,
          work: dtype | None = None, exact_scalar: builtins.bool = False,
          fresh: builtins.bool = False) -> None:
    """Steps 4-5 by ``iterator.strided_loop``: ``kernel`` of one element of each operand,
    converted as ``_compute`` converts whole arrays, cast to ``out``'s dtype and written
    through ``out``'s strides. An operand that shares memory with ``out`` (unless ``out`` is
    ``fresh``, a new tensor) is read from a copy of its storage, so every input is read
    before anything is written, as in ``_compute`` (an operand that *is* ``out``, in place,
    reads each element before it is overwritten anyway)."""
    work = work or compute_dtype(common)
    target = out._storage._typed(out._dtype.numpy)
    exact = exact_scalar and work is not common and is_single_value(operands[-1], common)
    inputs: list[iterator.Strided] = []
    # how each operand's element is converted before the kernel sees it; None: not at all
    readers: list[Callable[[Any], np.ndarray] | None] = []
    last = len(operands) - 1
    for k, x in enumerate(operands):
        raw = exact and k == last  # read in ``work`` directly, as ``_compute`` does
        if isinstance(x, Tensor):
            flat = x._storage._typed(x._dtype.numpy)
            if not fresh and x is not out and np.may_share_memory(flat, target):
                flat = flat.copy()
            inputs.append((flat, x._shape, x._stride, x._storage_offset))
            source = x._dtype
        else:
            source = work if raw else common
            inputs.append((number_array(x, source).reshape(1), (), (), 0))
        if source is work and (raw or common is work):
            readers.append(None)
        elif raw:
            readers.append(lambda v: cast(np.asarray(v), work))
        else:
            readers.append(lambda v: cast(cast(np.asarray(v), common), work))
    to = out._dtype
    element: Callable[..., Any]
    if any(readers):
        def element(*values: Any) -> np.ndarray:
            arrays = [v if read is None else read(v)
                      for read, v in zip(readers, values, strict=True)]
            return cast(np.asarray(kernel(*arrays)), to)
    elif len(operands) == 2:  # the common case, kept short: a binary op on its own dtype
        def element(a: Any, b: Any) -> np.ndarray:
            return cast(np.asarray(kernel(a, b)), to)
    else:
        def element(*values: Any) -> np.ndarray:
            return cast(np.asarray(kernel(*values)), to)

    with np.errstate(all="ignore"):
        iterator.strided_loop(element, (target, out._shape, out._stride, out._storage_offset),
                              *inputs)


def write_out(out: Tensor, result: Tensor) -> None:
    """``out.copy_(result)`` for an ``out=`` argument (``out_arguments.py``): in the student
    edition, a small ``out`` is written by ``iterator.strided_loop`` through its own
    strides and offset (``result`` is the op's fresh output; its values are converted to
    ``out``'s dtype as ``copy_`` converts them)."""
    if LOOP and _small(out._shape) and result._storage._device is CPU \
            and out._storage._device is CPU and iterator.has_internal_overlap(out) == "no" \
            and out._shape == result._shape:
        _loop(np.asarray, out, [result], result._dtype, work=result._dtype)
        _bump(out)
        return
    out.copy_(result)


if LOOP:
    out_arguments.writer = write_out


def _shares_locations(t: Tensor) -> builtins.bool:
    """Do two of ``t``'s elements live at one storage location?

    Usually answered from the strides alone: taking the dims of size > 1 by increasing
    stride, when each stride steps past everything the dims inside it reach, no two elements
    meet (a sliced or permuted view). Only otherwise are the locations counted."""
    reach = 0
    for step, size in sorted((s, n) for n, s in zip(t._shape, t._stride, strict=True) if n > 1):
        if step <= reach:
            break
        reach += (size - 1) * step
    else:
        return False
    locations = np.zeros((), np.int64)
    for size, step in zip(t._shape, t._stride, strict=True):
        locations = np.add.outer(locations, np.arange(size, dtype=np.int64) * step)
    return np.unique(locations).size < locations.size


def _strides_at(x: Tensor, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``x``'s strides seen at the broadcast ``shape``: 0 along new dims and grown size-1
    dims."""
    lead = len(shape) - x.dim()
    return tuple(0 if d < lead or (x._shape[d - lead] == 1 and n != 1) else x._stride[d - lead]
                 for d, n in enumerate(shape))


def _torch_order(shape: tuple[int, ...],
                 strides: Sequence[Sequence[int]]) -> Iterator[tuple[int, ...]]:
    """Every index of ``shape`` in TensorIterator's order for operands of these strides
    (``layout.innermost_first``: the innermost dim fastest)."""
    order = layout.innermost_first(shape, strides)
    for outer_first in itertools.product(*(range(shape[d]) for d in reversed(order))):
        position = dict(zip(reversed(order), outer_first, strict=True))
        yield tuple(position[d] for d in range(len(shape)))


def _write_one_by_one(kernel: Kernel, self: Tensor, operands: Sequence[Operand],
                      common: dtype, **options: Any) -> None:
    """An in-place op on a ``self`` whose elements share locations torch does not detect
    ("too hard", so it does not refuse): torch's loop computes one element at a time, in
    TensorIterator's order (``layout.innermost_first``, the innermost dim fastest), and a
    read sees the writes before it. Reproduced element by element, for the small tensors
    this happens to (torch's vectorized inner loop, for long contiguous rows, reads several
    elements before writing them; that is not reproduced)."""
    shape = self._shape
    tensors = [x for x in operands if isinstance(x, Tensor)]
    seen = [_strides_at(x, shape) for x in tensors]
    for index in _torch_order(shape, [self._stride, *seen]):
        elements = []
        for x in operands:
            if isinstance(x, Tensor):
                stride = seen[next(k for k, t in enumerate(tensors) if t is x)]
                at = layout.storage_index(index, stride, x._storage_offset)
                x = Tensor._make(x._storage, (), (), at, x._dtype)
            elements.append(x)
        at = layout.storage_index(index, self._stride, self._storage_offset)
        one = Tensor._make(self._storage, (), (), at, self._dtype)
        _write(one, _compute(kernel, elements, common, (), **options))


def _fast_operands(a: Operand, b: Operand) -> builtins.bool:
    """Is this the common, easy case that ``_fast_finish`` handles: two plain CPU tensors
    of one dtype and one shape, so that nothing is promoted or broadcast? float16 and
    bfloat16 are left out (they compute in float32). Anything unusual answers False and
    takes the full path."""
    return (type(a) is Tensor and type(b) is Tensor and a._dtype is b._dtype
            and a._shape == b._shape and a._dtype not in _HALF_TYPES
            and a._storage._device is CPU and b._storage._device is CPU)


def _fast_finish(kernel: Kernel, a: Tensor, b: Tensor) -> Tensor:
    """Steps 3-5 of ``_finish`` for ``_fast_operands(a, b)``, out of place: the kernel reads
    both tensors' elements directly (no conversion, no broadcast), and the output gets the
    same layout as in ``_finish``."""
    shape, d, stride = a._shape, a._dtype, a._stride
    if LOOP and _small(shape):
        return cpu_result(kernel, [a, b], d, shape)
    if b._stride != stride or stride != layout.contiguous_strides(shape):
        # (two row-major inputs give a row-major output: no need to ask)
        stride = iterator.output_strides(shape, [(shape, a._stride), (shape, b._stride)])
    with np.errstate(all="ignore"):
        values = np.asarray(kernel(a._elements(), b._elements()))
    adopted = _adopt(values, shape, stride, d)
    return adopted if adopted is not None else _write(_empty(shape, stride, d), values)


#: the dtypes ``fast_binary`` takes
_FAST_FLOATS = frozenset({float32, float64})


def _exact_number(x: Any) -> builtins.bool:
    """A Python float, or an int that float64 holds exactly (so that converting it to
    float32 through float64 rounds once)."""
    return type(x) is builtins.float or (type(x) is int and -(2**53) < x < 2**53)


def fast_binary(kernel: Kernel, a: Operand, b: Operand, into: Tensor | None) -> Tensor | None:
    """The common, easy cases of a binary op whose ``kernel`` is a NumPy ufunc (``add``,
    ``sub``, ``mul`` with ``alpha == 1``, true ``div``), or None for the full path: ``a`` a
    plain CPU float32/float64 tensor and ``b`` a Python number (which takes ``a``'s dtype:
    nothing is promoted), out of place or in place (``into is a``); or in place with ``b`` a
    CPU tensor of ``a``'s dtype and shape. In place, ``a`` must be dense without overlap,
    and ``b`` may not share only some of its memory (torch's error, as on the full path)."""
    if LOOP or type(a) is not Tensor or a._dtype not in _FAST_FLOATS \
            or a._storage._device is not CPU:
        return None
    if _exact_number(b):
        other: Any = a._dtype.numpy.type(b)
    elif (into is not None and type(b) is Tensor and b._dtype is a._dtype
          and b._shape == a._shape and b._storage._device is CPU):
        iterator.assert_no_partial_overlap(a, b)
        other = b._elements()
    else:
        return None
    if into is None:
        shape = a._shape
        stride = output_strides([a, b], a._dtype, shape)
        with np.errstate(all="ignore"):
            values = np.asarray(kernel(a._elements(), other))
        adopted = _adopt(values, shape, stride, a._dtype)
        return adopted if adopted is not None else _write(_empty(shape, stride, a._dtype),
                                                          values)
    if not layout.is_non_overlapping_and_dense(a._shape, a._stride):
        return None
    elements = a._elements()
    with np.errstate(all="ignore"):
        elements[...] = kernel(elements, other)
    return _bump(a)


def fast_inplace_operands(self: Tensor, operands: Sequence[Operand],
                          into: Tensor | None) -> builtins.bool:
    """Can ``write_inplace`` take this in-place op (``into is self``) of several tensors:
    ``self`` a plain CPU float32/float64 tensor, dense without overlap, and every operand a
    CPU tensor of its dtype and shape (nothing promoted or broadcast)? Raises torch's error
    where an operand shares only some of ``self``'s memory, as the full path does first."""
    if LOOP or into is not self or type(self) is not Tensor or self._dtype not in _FAST_FLOATS \
            or self._storage._device is not CPU \
            or not layout.is_non_overlapping_and_dense(self._shape, self._stride):
        return False
    for x in operands:
        if type(x) is not Tensor or x._dtype is not self._dtype or x._shape != self._shape \
                or x._storage._device is not CPU:
            return False
    for x in operands:
        if x is not self:
            iterator.assert_no_partial_overlap(self, x)
    return True


def write_inplace(kernel: Kernel, self: Tensor, operands: Sequence[Tensor]) -> Tensor:
    """Steps 4-5 for ``fast_inplace_operands``: ``kernel`` of the operands' elements,
    written into ``self``, whose ``_version`` goes up by one."""
    with np.errstate(all="ignore"):
        values = kernel(*[x._elements() for x in operands])
    self._elements()[...] = values
    return _bump(self)


def _adopt(values: np.ndarray, shape: tuple[int, ...], stride: tuple[int, ...],
           d: dtype) -> Tensor | None:
    """The kernel's own result array as the output's storage, when NumPy already laid it
    out exactly as torch lays out the output (a fresh, dense array with those strides).
    This saves a second pass over memory; the values and layout are the same either way."""
    if (values.dtype != d.numpy or values.shape != shape or not values.flags.owndata
            or values.size == 0):
        return None
    if tuple([s // values.itemsize for s in values.strides]) != stride:
        return None
    flat = values.ravel(order="K")  # a view (whose base is values): the array is dense
    if flat.base is not values:
        return None
    storage = UntypedStorage._wrap_unchecked(flat.view(np.uint8))  # 1-d, dense, uint8
    return Tensor._make(storage, shape, stride, 0, d)


def _bump(self: Tensor) -> Tensor:
    self._version_counter.value += 1
    return self


# ============================================================== copy_, fill_, zero_
# Entries of the op table (``reftensor/_ops/native_functions.py``); their CPU and Meta
# kernels are registered here.
def _check_copy(self: Tensor, src: Operand) -> str:
    """``self.copy_(src)``: self may not be expanded nor partly overlap ``src``, and is
    never broadcast.

    Returns self's internal overlap ("no" or "too hard": ``iterator.has_internal_overlap``).

    Raises:
        RuntimeError: any of these.
    """
    overlap = iterator.has_internal_overlap(self)
    if overlap == "yes":
        iterator.assert_no_internal_overlap(self)  # raises torch's error
    if isinstance(src, Tensor):
        iterator.assert_no_partial_overlap(self, src)
    shape = broadcasting.infer_broadcast_size(self._shape, _shape(src))
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    return overlap


def _same_data(self: Tensor, src: Operand) -> builtins.bool:
    """Is ``src`` self, or a view of the same elements (storage, offset, shape, strides and
    dtype)? torch's ``copy_`` returns at once then, before any check: an expanded ``self``
    takes ``self.copy_(self.expand_as(self))``."""
    return src is self or (isinstance(src, Tensor) and src._storage is self._storage
                           and src._storage_offset == self._storage_offset
                           and src._stride == self._stride and src._shape == self._shape
                           and src._dtype is self._dtype)


@aten.copy_.default.impl(DispatchKey.CPU)
def copy_(self: Tensor, src: Operand, non_blocking: builtins.bool = False) -> Tensor:
    """``src`` (a tensor, or a Python number: wraps, no overflow check) written into
    ``self``, broadcast and converted to self's dtype; ``self.copy_(self)``, or from a
    view of the very same elements, only bumps ``_version``."""
    if _same_data(self, src):
        return _bump(self)
    overlap = _check_copy(self, src)
    if overlap == "too hard" and isinstance(src, Tensor) and _shares_locations(self):
        _copy_one_by_one(self, src)  # elements of self share locations: the last write wins
        return _bump(self)
    raw = src._elements() if isinstance(src, Tensor) else number_array(src, self._dtype)
    _write(self, raw)
    return _bump(self)


def _shares_locations(t: Tensor) -> builtins.bool:
    """Do two elements of ``t`` really share a storage location? (Asked where torch's check
    answers "too hard": a slice with step 2 shares none, overlapping windows do. Where none
    is shared, the order of the writes cannot matter.)"""
    offsets = np.zeros((), dtype=np.int64)
    for size, step in zip(t._shape, t._stride, strict=True):
        offsets = np.add.outer(offsets, np.arange(size, dtype=np.int64) * step)
    return builtins.bool(np.unique(offsets).size != offsets.size)


def _copy_one_by_one(self: Tensor, src: Tensor) -> None:
    """``copy_`` into a ``self`` whose elements share locations torch does not detect ("too
    hard"): torch writes one element at a time in TensorIterator's order (the innermost dim
    fastest), so where two elements share a location the later write stays."""
    seen = _strides_at(src, self._shape)
    for index in _torch_order(self._shape, [self._stride, seen]):
        value = Tensor._make(src._storage, (), (),
                             layout.storage_index(index, seen, src._storage_offset), src._dtype)
        one = Tensor._make(self._storage, (), (),
                           layout.storage_index(index, self._stride, self._storage_offset),
                           self._dtype)
        _write(one, value._elements())


@aten.copy_.default.impl(DispatchKey.Meta)
def copy_meta(self: Tensor, src: Operand, non_blocking: builtins.bool = False) -> Tensor:
    """Into a meta ``self``: the checks and the ``_version`` bump only.

    Raises:
        NotImplementedError: a meta ``src`` into a CPU ``self`` (there is no data).
    """
    if _same_data(self, src):
        return _bump(self)
    if not self.is_meta:
        raise no_data()
    _check_copy(self, src)
    return _bump(self)


def _tensor_value(value: Tensor, self: Tensor) -> np.ndarray:
    return cast(value._elements().copy(), self._dtype)


def _number_value(value: Operand, self: Tensor) -> np.ndarray:
    return checked_number(value, self._dtype, check_half=self.numel() != 1)


def _check_fill_value(value: Tensor) -> None:
    if value.dim() != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                           f"with {value.dim()} dimensions.")


@aten.fill_.Tensor.impl(DispatchKey.CPU)
def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    """Every element of ``self`` set to the 0-d ``value``, converted without a check. torch
    writes it with ``copy_`` (of a clone, when ``value`` shares self's memory), so an
    expanded ``self`` is refused (a RuntimeError), as ``copy_`` refuses it."""
    _check_fill_value(value)
    iterator.assert_no_internal_overlap(self)
    self._elements()[...] = _tensor_value(value, self)
    return _bump(self)


@aten.fill_.Tensor.impl(DispatchKey.Meta)
def fill_tensor_meta(self: Tensor, value: Tensor) -> Tensor:
    _check_fill_value(value)
    if not self.is_meta:  # a meta value for a CPU tensor
        raise no_data()
    if value.is_meta:  # same device: torch's copy_, which checks the overlap
        iterator.assert_no_internal_overlap(self)
    return _bump(self)


@aten.fill_.Scalar.impl(DispatchKey.CPU)
def fill_scalar_(self: Tensor, value: Operand) -> Tensor:
    """Every element of ``self`` set to the number ``value``, checked against self's dtype
    like torch's ``Scalar.to<T>()`` ("value cannot be converted to type uint8_t without
    overflow": a RuntimeError); torch's one-element shortcut skips the float16/bfloat16
    range check."""
    self._elements()[...] = _number_value(value, self)
    return _bump(self)


@aten.fill_.Scalar.impl(DispatchKey.Meta)
def fill_scalar_meta(self: Tensor, value: Operand) -> Tensor:
    """Nothing is checked about the value (there is nowhere to put it)."""
    return _bump(self)


@aten.zero_.default.impl(DispatchKey.CPU)
def zero_(self: Tensor) -> Tensor:
    return fill_scalar_(self, 0)


@aten.zero_.default.impl(DispatchKey.Meta)
def zero_meta(self: Tensor) -> Tensor:
    return _bump(self)


def _like(self: Tensor) -> Tensor:
    """``empty_like(self)``: a dense ``self`` keeps its strides."""
    return factories._allocate(self._shape, self._strides_for(layout.preserve_format),
                               self._dtype, self.device)


@aten.fill.Tensor.impl(DispatchKey.CPU)
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    """torch's ``fill``: ``empty_like(self).fill_(value)``."""
    _check_fill_value(value)
    out = _like(self)
    out._elements()[...] = _tensor_value(value, out)
    return out


@aten.fill.Tensor.impl(DispatchKey.Meta)
def fill_tensor_meta_functional(self: Tensor, value: Tensor) -> Tensor:
    _check_fill_value(value)
    return _like(self)


@aten.fill.Scalar.impl(DispatchKey.CPU)
def fill_scalar(self: Tensor, value: Operand) -> Tensor:
    out = _like(self)
    out._elements()[...] = _number_value(value, out)
    return out


@aten.fill.Scalar.impl(DispatchKey.Meta)
def fill_scalar_meta_functional(self: Tensor, value: Operand) -> Tensor:
    return _like(self)
