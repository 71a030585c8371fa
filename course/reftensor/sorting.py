"""Sorting: ``sort``, ``argsort``, ``msort`` and ``topk``, with torch's order for ties.

Sorting a line of numbers has one right answer for the values, but not for the indices
when two elements are equal: which of them comes first is decided by the algorithm.
torch's CPU kernels use C++'s standard library: ``sort`` is ``std::stable_sort`` with
``stable=True`` (equal elements keep their order) and ``std::sort`` otherwise, an
*introsort* (quicksort with a median-of-three pivot, insertion sort for short ranges,
heapsort when the recursion gets deep), which moves equal elements around. ``topk`` uses
``std::partial_sort`` (a heap) when ``k`` is small next to the line, and
``std::nth_element`` (a quickselect) followed by ``std::sort`` otherwise. This module
reproduces those algorithms step by step (``_Introsort``: libstdc++'s code, in Python) on
the lines that have ties, and takes NumPy's stable sort for the rest, where every correct
sort agrees.

The order: nan is larger than every number (last ascending, first descending); ``-0.0``
and ``0.0`` are equal (a tie). Two exceptions of torch's kernel come first: an input whose
``dim`` has stride 0 (an expanded tensor) is not sorted at all (its indices are
``0, 1, ...``), and a 1-d integer input of at least 32768 elements sorted ascending takes
torch's radix sort, which is stable.

Every op here is an entry of the op table (``reftensor/_ops/native_functions.py``); this
module registers the CPU and Meta kernels, the derivative rows (``SortBackward0``,
``SortBackward1``, ``TopkBackward0``: the gradient scattered back to the indices) are in
``autograd/derivatives.py``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _casting, dtypes, iterator, layout, out_arguments
from ._ops import DispatchKey, aten
from ._ops.python_functions import set_function
from .broadcasting import broadcast_tensors
from .dtypes import dtype
from .reductions import _exact_dtype, _return_type
from .storage import UntypedStorage
from .tensor import Tensor, wrap_dim

# the ops are reftensor's generated bindings (reftensor.sort, ...); torch's Python functions:
__all__ = ["unique", "unique_consecutive"]

SortResult = _return_type("sort")
TopkResult = _return_type("topk")
#: torch's radix sort takes a 1-d integer input of at least this many elements
#: (``at::internal::GRAIN_SIZE``) sorted ascending: stable, whatever ``stable`` says
RADIX_SORT_MIN = 32768
#: ``std::sort``'s threshold: ranges of up to 16 elements are left to insertion sort
_THRESHOLD = 16

Less = Callable[[tuple[int, int], tuple[int, int]], bool]


# ------------------------------------------------------------- libstdc++'s algorithms
class _Introsort:
    """libstdc++'s ``std::sort``, ``std::nth_element`` and ``std::partial_sort`` on a list
    of ``(rank, index)`` pairs, compared by rank: the same moves as the C++ code, so equal
    ranks end up where torch's kernels put them."""

    def __init__(self, items: list[tuple[int, int]]) -> None:
        self.a = items

    @staticmethod
    def less(x: tuple[int, int], y: tuple[int, int]) -> bool:
        return x[0] < y[0]

    # --- std::sort
    def sort(self, first: int, last: int) -> None:
        if last - first > 1:
            self._introsort_loop(first, last, 2 * ((last - first).bit_length() - 1))
            self._final_insertion_sort(first, last)

    def _introsort_loop(self, first: int, last: int, depth: int) -> None:
        while last - first > _THRESHOLD:
            if depth == 0:  # too deep: heapsort the rest
                self._heap_select(first, last, last)
                self._sort_heap(first, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort_loop(cut, last, depth)
            last = cut

    def _move_median_to_first(self, result: int, x: int, y: int, z: int) -> None:
        a, less = self.a, self.less
        if less(a[x], a[y]):
            pick = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
        else:
            pick = x if less(a[x], a[z]) else z if less(a[y], a[z]) else y
        a[result], a[pick] = a[pick], a[result]

    def _partition_pivot(self, first: int, last: int) -> int:
        """The median of the second, middle and last elements moved to ``first`` as the
        pivot; Hoare's partition of the rest around it."""
        self._move_median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        a, less, pivot = self.a, self.less, first
        first += 1
        while True:
            while less(a[first], a[pivot]):
                first += 1
            last -= 1
            while less(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            a[first], a[last] = a[last], a[first]
            first += 1

    def _insertion_sort(self, first: int, last: int) -> None:
        a, less = self.a, self.less
        for i in range(first + 1, last):
            if less(a[i], a[first]):
                value = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = value
            else:
                self._linear_insert(i)

    def _linear_insert(self, last: int) -> None:
        a, less = self.a, self.less
        value, before = a[last], last - 1
        while less(value, a[before]):
            a[last] = a[before]
            last, before = before, before - 1
        a[last] = value

    def _final_insertion_sort(self, first: int, last: int) -> None:
        if last - first > _THRESHOLD:
            self._insertion_sort(first, first + _THRESHOLD)
            for i in range(first + _THRESHOLD, last):
                self._linear_insert(i)
        else:
            self._insertion_sort(first, last)

    # --- heaps (std::make_heap, std::pop_heap, std::sort_heap)
    def _adjust_heap(self, first: int, hole: int, length: int, value: tuple[int, int]
                     ) -> None:
        a, less = self.a, self.less
        top = second = hole
        while second < (length - 1) // 2:
            second = 2 * (second + 1)
            if less(a[first + second], a[first + second - 1]):
                second -= 1
            a[first + hole] = a[first + second]
            hole = second
        if length % 2 == 0 and second == (length - 2) // 2:
            second = 2 * (second + 1)
            a[first + hole] = a[first + second - 1]
            hole = second - 1
        parent = (hole - 1) // 2
        while hole > top and less(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole, parent = parent, (parent - 1) // 2
        a[first + hole] = value

    def _heap_select(self, first: int, middle: int, last: int) -> None:
        a, n = self.a, middle - first
        if n >= 2:  # make_heap
            for parent in range((n - 2) // 2, -1, -1):
                self._adjust_heap(first, parent, n, a[first + parent])
        for i in range(middle, last):
            if self.less(a[i], a[first]):  # pop_heap(first, middle, i)
                value, a[i] = a[i], a[first]
                self._adjust_heap(first, 0, n, value)

    def _sort_heap(self, first: int, last: int) -> None:
        a = self.a
        while last - first > 1:
            last -= 1
            value, a[last] = a[last], a[first]
            self._adjust_heap(first, 0, last - first, value)

    # --- std::nth_element, std::partial_sort
    def nth_element(self, nth: int) -> None:
        first, last = 0, len(self.a)
        if first == last or nth == last:
            return
        depth = 2 * ((last - first).bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self._heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self._insertion_sort(first, last)

    def partial_sort(self, middle: int) -> None:
        self._heap_select(0, middle, len(self.a))
        self._sort_heap(0, middle)


# ------------------------------------------------------------------------ the orders
def _comparable(values: np.ndarray) -> np.ndarray:
    """Values NumPy orders as torch compares them: 16-bit floats widened to float32, bool
    as 0 and 1 (both exactly)."""
    if values.dtype in (dtypes.float16.numpy, dtypes.bfloat16.numpy):
        return values.astype(np.float32)
    if values.dtype == np.bool_:
        return values.astype(np.uint8)
    return values


def _stable_order(lines: np.ndarray, descending: bool) -> np.ndarray:
    """The stable order of each row of ``lines`` (2-d): ascending with nan last, or
    descending with nan first; equal elements (``-0.0`` and ``0.0`` too) in their order."""
    if not descending:
        return np.argsort(lines, axis=-1, kind="stable")  # NumPy puts nan last, as torch
    if lines.dtype.kind == "f":
        nan = np.isnan(lines)
        with np.errstate(invalid="ignore"):
            return np.lexsort((np.where(nan, 0, -lines), ~nan), axis=-1)
    if lines.dtype.kind == "u":
        return np.argsort(-lines.astype(np.int64), axis=-1, kind="stable")
    return np.argsort(np.invert(lines), axis=-1, kind="stable")  # ~x = -x - 1, no overflow


def _ranks(lines: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each element's rank in the comparator's order (equal elements, nans among
    themselves too, share one), and which rows have a tie."""
    ordered = np.take_along_axis(lines, order, axis=-1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if lines.dtype.kind == "f":
        same |= np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1])
    steps = np.concatenate([np.zeros((lines.shape[0], 1), np.int64),
                            np.cumsum(~same, axis=-1)], axis=-1)
    ranks = np.empty_like(steps)
    np.put_along_axis(ranks, order, steps, axis=-1)
    return ranks, same.any(axis=-1)


def _lines(values: np.ndarray, d: int) -> np.ndarray:
    """The lines along ``d`` as the rows of a 2-d array."""
    moved = np.moveaxis(_comparable(values), d, -1)
    return moved.reshape(-1, moved.shape[-1])


def _unlines(rows: np.ndarray, shape: tuple[int, ...], d: int) -> np.ndarray:
    """:func:`_lines` undone: rows back to an array of ``shape`` with the lines along ``d``
    (their length may differ from ``shape[d]``: topk's ``k``)."""
    moved = [n for i, n in enumerate(shape) if i != d] + [rows.shape[-1]]
    return np.moveaxis(rows.reshape(moved), -1, d)


def sort_order(values: np.ndarray, d: int, descending: bool, stable: bool) -> np.ndarray:
    """The int64 indices that sort ``values`` along ``d`` as torch's CPU kernel does."""
    lines = _lines(values, d)
    order = _stable_order(lines, descending)
    if not stable:
        ranks, tied = _ranks(lines, order)
        for row in np.flatnonzero(tied):  # ties: std::sort's own order
            items = list(zip(ranks[row].tolist(), range(lines.shape[1]), strict=True))
            _Introsort(items).sort(0, len(items))
            order[row] = [i for _, i in items]
    return _unlines(order.astype(np.int64), values.shape, d)


def topk_order(values: np.ndarray, k: int, d: int, largest: bool, sorted: bool
               ) -> np.ndarray:
    """The int64 indices of the ``k`` largest (smallest) along ``d``, in torch's order."""
    lines = _lines(values, d)
    n = lines.shape[1]
    order = _stable_order(lines, largest)
    ranks, tied = _ranks(lines, order)
    partial = k * 64 <= n  # torch: std::partial_sort, a sorted result
    picked = order[:, :k].copy()
    for row in range(lines.shape[0]):
        if not tied[row] and (sorted or partial):
            continue  # no ties and sorted: one right answer
        items = list(zip(ranks[row].tolist(), range(n), strict=True))
        algorithm = _Introsort(items)
        if partial:
            algorithm.partial_sort(k)
        else:
            algorithm.nth_element(k - 1)
            if sorted:
                algorithm.sort(0, k - 1)
        picked[row] = [i for _, i in items[:k]]
    return _unlines(picked.astype(np.int64), values.shape, d)


# ------------------------------------------------------------------------ the kernels
def _empty(shape: tuple[int, ...], stride: tuple[int, ...], d: dtype, where: str) -> Tensor:
    storage = UntypedStorage(math.prod(shape) * d.itemsize, device=where)
    return Tensor._make(storage, shape, stride, 0, d)


def _sort(input: Tensor, stable: bool | None, dim: int, descending: bool, *, meta: bool
          ) -> tuple[Tensor, Tensor]:
    """``sort.stable``'s kernel: the values and indices laid out like the input when it is
    dense (dense strides in its dim order otherwise).

    Raises:
        IndexError: ``dim`` is out of range.
    """
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    shape, stride = input._shape, input._stride
    if not layout.is_non_overlapping_and_dense(shape, stride):
        stride = layout.dense_strides_like(shape, stride)
    where = "meta" if meta else "cpu"
    values = _empty(shape, stride, input._dtype, where)
    indices = _empty(shape, stride, dtypes.int64, where)
    if meta or input.numel() == 0:
        return SortResult(values, indices)
    x = input._elements()
    if input.dim() == 0:
        values._elements()[...] = x
        indices._elements()[...] = 0
        return SortResult(values, indices)
    if input._stride[d] == 0:  # torch's kernel leaves a line of one repeated element as is
        order = np.broadcast_to(np.arange(shape[d]).reshape(
            [-1 if i == d else 1 for i in range(len(shape))]), shape)
    else:
        radix = (input.dim() == 1 and not descending and input.numel() >= RADIX_SORT_MIN
                 and not input._dtype.is_floating_point and input._dtype is not dtypes.bool)
        order = sort_order(x, d, descending, bool(stable) or radix)
    values._elements()[...] = np.take_along_axis(x, order, axis=d)
    indices._elements()[...] = order
    return SortResult(values, indices)


def _topk(input: Tensor, k: int, dim: int, largest: bool, sorted: bool, *, meta: bool
          ) -> tuple[Tensor, Tensor]:
    """``topk``'s kernel: fresh row-major results with ``k`` along ``dim``.

    Raises:
        IndexError: ``dim`` is out of range.
        RuntimeError: ``k`` is below 0 or above the dim's size (1 for a 0-d input); a bool
            input (on the CPU).
    """
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    size = input._shape[d] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    shape = tuple(k if i == d else n for i, n in enumerate(input._shape))
    where = "meta" if meta else "cpu"
    values = _empty(shape, layout.contiguous_strides(shape), input._dtype, where)
    indices = _empty(shape, layout.contiguous_strides(shape), dtypes.int64, where)
    if meta:
        return TopkResult(values, indices)
    if input._dtype is dtypes.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    x = input._elements()
    if input.dim() == 0:  # copied, whatever k
        values._elements()[...] = x
        indices._elements()[...] = 0
    elif values.numel():
        order = topk_order(x, k, d, largest, sorted)
        values._elements()[...] = np.take_along_axis(x, order, axis=d)
        indices._elements()[...] = order
    return TopkResult(values, indices)


def _register() -> None:
    for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
        aten.sort.stable.impl(key)(
            lambda self, stable, dim, descending, m=meta: _sort(self, stable, dim,
                                                                descending, meta=m))
        # torch's sort is sort(stable=False), with a derivative row of its own
        aten.sort.default.impl(key)(
            lambda self, dim, descending, m=meta: _sort(self, False, dim, descending, meta=m))
        aten.topk.default.impl(key)(
            lambda self, k, dim, largest, sorted, m=meta: _topk(self, k, dim, largest,
                                                                sorted, meta=m))
    # torch's composites: the indices of sort, the values of sort along dim 0
    composite = DispatchKey.CompositeImplicitAutograd
    aten.argsort.default.impl(composite)(
        lambda self, dim, descending: aten.sort.default.call(self, dim, descending)[1])
    aten.argsort.stable.impl(composite)(
        lambda self, stable, dim, descending: aten.sort.stable.call(self, stable, dim,
                                                                    descending)[1])
    aten.msort.default.impl(composite)(lambda self: aten.sort.default.call(self, 0, False)[0])
    # out=: the values of the input's dtype, the indices int64, exactly
    sort_out, topk_out = _return_type("sort_out"), _return_type("topk_out")
    for overload, returns in ((aten.sort.values, sort_out), (aten.sort.values_stable, sort_out),
                              (aten.topk.values, topk_out)):
        out_arguments.set_rule(overload, out_arguments.OutRule(check=_exact_dtype,
                                                               returns=returns))
    for overload in (aten.argsort.stable_out, aten.msort.out):
        out_arguments.set_rule(overload, out_arguments.OutRule(check=_exact_dtype))


_register()


# ------------------------------------------------ median, nanmedian, mode, kthvalue
def _quick_select(items: list[tuple[float, int]], k: int) -> None:
    """torch's ``quick_select_template`` (kthvalue's CPU kernel) on ``(value, index)``
    pairs, in place: afterwards ``items[k]`` is the ``k``-th smallest (0-based), nan the
    largest, and the order of equal values is the one its swaps leave."""
    def gt_or_nan(x: float, y: float) -> bool:
        return (math.isnan(x) and not math.isnan(y)) or x > y

    a = items
    low, high = 0, len(a) - 1
    while True:
        if high <= low:
            return
        if high == low + 1:
            if gt_or_nan(a[low][0], a[high][0]):
                a[low], a[high] = a[high], a[low]
            return
        middle = low + (high - low) // 2
        a[middle], a[low + 1] = a[low + 1], a[middle]
        if gt_or_nan(a[low + 1][0], a[high][0]):
            a[low + 1], a[high] = a[high], a[low + 1]
        if gt_or_nan(a[low][0], a[high][0]):
            a[low], a[high] = a[high], a[low]
        if gt_or_nan(a[low + 1][0], a[low][0]):
            a[low + 1], a[low] = a[low], a[low + 1]
        i, j, pivot = low + 1, high, a[low][0]
        while True:
            i += 1
            while gt_or_nan(pivot, a[i][0]):
                i += 1
            j -= 1
            while gt_or_nan(a[j][0], pivot):
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[low], a[j] = a[j], a[low]
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


def _mode_of_line(values: list[float]) -> tuple[int, int]:
    """torch's mode kernel on one line: the ``(value, index)`` pairs sorted by value with
    ``std::sort``, then the first longest run of equal values; returns the position (in
    ``values``) of the run's last pair."""
    items = [(v, i) for i, v in enumerate(values)]
    _Introsort(items).sort(0, len(items))  # (compares the values: nan is never less)
    best, best_count, count = 0, 0, 0
    for i, (v, index) in enumerate(items):
        count += 1
        if i == len(items) - 1 or v != items[i + 1][0]:
            if count > best_count:
                best, best_count = index, count
            count = 0
    return best, best_count


_SelectResults = {name: _return_type(name) for name in (
    "median", "nanmedian", "mode", "kthvalue", "median_out", "nanmedian_out", "mode_out",
    "kthvalue_out")}


def _select(input: Tensor, dim: int, keepdim: bool, name: str, k: int = 0, *, meta: bool
            ) -> tuple[Tensor, Tensor]:
    """median/nanmedian/mode/kthvalue along ``dim``: the picked value of each line and its
    int64 index, fresh row-major results.

    Raises:
        IndexError: ``dim`` out of range, or of size 0.
        RuntimeError: kthvalue's ``k`` out of range.
        NotImplementedError: median, nanmedian, kthvalue of a bool input.
    """
    d = wrap_dim(dim, builtins.max(input.dim(), 1))
    size = input._shape[d] if input.dim() else 1
    if input.dim() and size == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if name == "kthvalue" and not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    shape = tuple(1 if i == d else n for i, n in enumerate(input._shape)) if keepdim else \
        tuple(n for i, n in enumerate(input._shape) if i != d)
    where = "meta" if meta else "cpu"
    result = _SelectResults[name]
    values = _empty(shape, layout.contiguous_strides(shape), input._dtype, where)
    indices = _empty(shape, layout.contiguous_strides(shape), dtypes.int64, where)
    if meta:
        return result(values, indices)
    if input._dtype is dtypes.bool and (name in ("median", "nanmedian")
                                        or name == "kthvalue" and input.dim()):
        kernel = "median_out" if name != "kthvalue" else "kthvalue_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    x = input._elements()
    if input.numel() == 0:
        return result(values, indices)
    lines = _lines(x, d) if input.dim() else x.reshape(1, 1)
    picked = np.empty(lines.shape[0], np.int64)
    if name in ("median", "nanmedian"):
        order = _stable_order(lines, False)  # nan last
        nans = np.isnan(lines).sum(axis=-1) if lines.dtype.kind == "f" else np.zeros(
            lines.shape[0], np.int64)
        for row in range(lines.shape[0]):
            if name == "median" and nans[row]:  # the first nan
                picked[row] = np.flatnonzero(np.isnan(lines[row]))[0]
            else:
                count = lines.shape[1] - (nans[row] if name == "nanmedian" else 0)
                picked[row] = order[row, builtins.max(count - 1, 0) // 2]
    else:
        for row in range(lines.shape[0]):
            line = lines[row].tolist()
            if name == "mode":
                picked[row] = _mode_of_line(line)[0]
            else:
                items = [(v, i) for i, v in enumerate(line)]
                _quick_select(items, k - 1)
                picked[row] = items[k - 1][1]
    flat_values = np.take_along_axis(lines, picked[:, None], axis=-1)[:, 0]
    values._elements()[...] = _casting_back(flat_values, x.dtype).reshape(shape)
    indices._elements()[...] = picked.reshape(shape)
    return result(values, indices)


def _casting_back(values: np.ndarray, to: np.dtype) -> np.ndarray:
    """Values read from ``_lines`` (16-bit floats widened, bool as uint8) in ``to``: the
    widening was exact, so this is too."""
    return values.astype(to)


def _whole_median(input: Tensor, name: str, *, meta: bool) -> Tensor:
    """median()/nanmedian() of every element: the lower median, 0-d (nan for no elements;
    median: nan when there is a nan; nanmedian: of the others).

    Raises:
        NotImplementedError: a bool input.
    """
    where = "meta" if meta else "cpu"
    out = _empty((), (), input._dtype, where)
    if meta:
        return out
    if input.numel() == 0:  # torch fills nan in the input's dtype (an empty bool: True)
        out._elements()[...] = _casting.cast(np.array(np.nan), input._dtype)
        return out
    if input._dtype is dtypes.bool:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    # torch clones the input (a dense one keeps its layout) and runs std::nth_element on
    # the clone's memory, nan the largest: which of equal elements (-0.0 or 0.0) lands in
    # the middle is the algorithm's
    x = input._elements()
    dense = layout.is_non_overlapping_and_dense(input._shape, input._stride)
    flat = x.ravel(order="K" if dense else "C")
    lines = _comparable(flat).reshape(1, -1)
    nans = int(np.isnan(lines).sum()) if lines.dtype.kind == "f" else 0
    if nans and name == "median":
        out._elements()[...] = np.nan
        return out
    ranks, _ = _ranks(lines, _stable_order(lines, False))
    items = list(zip(ranks[0].tolist(), range(flat.size), strict=True))
    middle = int((flat.size - nans - 1) / 2)  # (C's division: -1 / 2 is 0)
    _Introsort(items).nth_element(middle)
    out._elements()[...] = flat[items[middle][1]]
    return out


def _select_rules() -> None:
    for key, meta in ((DispatchKey.CPU, False), (DispatchKey.Meta, True)):
        for name in ("median", "nanmedian"):
            aten[name].default.impl(key)(
                lambda self, n=name, m=meta: _whole_median(self, n, meta=m))
            aten[name].dim.impl(key)(
                lambda self, dim, keepdim, n=name, m=meta: _select(self, dim, keepdim, n,
                                                                   meta=m))
        aten.mode.default.impl(key)(
            lambda self, dim, keepdim, m=meta: _select(self, dim, keepdim, "mode", meta=m))
        aten.kthvalue.default.impl(key)(
            lambda self, k, dim, keepdim, m=meta: _select(self, dim, keepdim, "kthvalue", k,
                                                          meta=m))
    for overload, name in ((aten.median.dim_values, "median"),
                           (aten.nanmedian.dim_values, "nanmedian"),
                           (aten.mode.values, "mode"), (aten.kthvalue.values, "kthvalue")):
        out_arguments.set_rule(overload, out_arguments.OutRule(
            check=_exact_dtype, returns=_SelectResults[name + "_out"]))


_select_rules()


# ------------------------------------------------------------------- quantile, nanquantile
#: torch's interpolation modes, by name
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_checks(self: Tensor, q: Tensor) -> None:
    """torch's ``quantile_checks``.

    Raises:
        RuntimeError: an empty input, a ``q`` of more than 1 dim, an input that is not
            float32 or float64, a ``q`` of another dtype.
    """
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self._dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._dtype is not self._dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _quantile_shape(self: Tensor, q: Tensor, dim: int | None, keepdim: bool
                    ) -> list[int]:
    """The result's shape with ``q``'s length first (torch's ``quantile_output_shape``, with
    the length inserted for a 0-d ``q`` too, as ``quantile_compute`` does)."""
    if dim is not None and self.dim() > 0:
        d = wrap_dim(dim, self.dim())
        shape = list(self.shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    else:
        shape = [1] * self.dim() if keepdim else []
    return [q.numel(), *shape]


def _quantile(self: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    """torch's ``quantile_impl`` and ``quantile_compute`` (Sorting.cpp), op by op.

    Raises:
        RuntimeError: see :func:`_quantile_checks`; a ``q`` outside [0, 1].
        IndexError: a dim out of range.
    """
    _quantile_checks(self, q)
    shape = _quantile_shape(self, q, dim, keepdim)
    if not self.is_meta and not bool(q.ge(0).logical_and_(q.le(1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = self.flatten().sort()[0]
    else:
        d = wrap_dim(dim, builtins.max(self.dim(), 1))  # a 0-d input takes dim 0 and -1
        if d == self.dim() - 1:  # the last dim: sorted as it is
            ordered = self.sort()[0]
        else:  # moved last, behind a new dim of size 1
            ordered = self.unsqueeze(-1).transpose(d, -1).sort()[0]
    ordered = ordered.view([*shape[1:], ordered.shape[-1]])
    if ignore_nan:  # ranks among the non-nan values; all nan: rank 0, which is nan
        ranks = q * (ordered.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:  # a row with a nan: the last rank, where sort put the nan
        last = ordered.shape[-1] - 1
        scaled, has_nan = broadcast_tensors(q * last, ordered.isnan().any(-1, True))
        ranks = scaled.masked_fill(has_nan, last)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    below = ranks.to(dtypes.int64)
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = (aten.full_like(ranks, 0.5) if interpolation == "midpoint"
                   else ranks - below)
        above = ranks.ceil_().to(dtypes.int64)
        values.lerp_(ordered.gather(-1, above), weights)
    if q.dim() == 0:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _interpolation(name: str) -> str:
    """torch's ``get_quantile_interpolation_mode``.

    Raises:
        RuntimeError: a name that is not one of ``_INTERPOLATIONS``.
    """
    if name not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {name}")
    return name


def _scalar_q(self: Tensor, q: float) -> Tensor:
    """A float ``q``, checked, as a 0-d tensor of the input's dtype (torch's
    ``scalar_tensor(q, self.options())``).

    Raises:
        RuntimeError: ``q`` outside [0, 1] (nan too).
    """
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    return aten.full([], q, dtype=self._dtype, device=self.device)


def _into(out: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """torch's ``quantile_out``: ``out`` of the input's dtype, resized, then copied into."""
    if out._dtype is not self._dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    if out.shape != result.shape:
        iterator.resize_output(out, tuple(result.shape),
                               layout.contiguous_strides(tuple(result.shape)))
    return aten.copy_.default.call(out, result, False)


def _register_quantile(name: str, ignore_nan: bool) -> None:
    packet = aten[name]
    key = DispatchKey.CompositeImplicitAutograd

    def tensor_q(self: Tensor, q: Tensor, dim: int | None, keepdim: bool,
                 interpolation: str) -> Tensor:
        mode = _interpolation(interpolation)
        return _quantile(self, q, dim, keepdim, mode, ignore_nan)

    def float_q(self: Tensor, q: float, dim: int | None, keepdim: bool,
                interpolation: str) -> Tensor:
        mode = _interpolation(interpolation)
        return _quantile(self, _scalar_q(self, q), dim, keepdim, mode, ignore_nan)

    packet.default.impl(key)(tensor_q)
    packet.scalar.impl(key)(float_q)
    packet.out.impl(key)(lambda self, q, dim, keepdim, interpolation, out: _into(
        out, self, tensor_q(self, q, dim, keepdim, interpolation)))
    packet.scalar_out.impl(key)(lambda self, q, dim, keepdim, interpolation, out: _into(
        out, self, float_q(self, q, dim, keepdim, interpolation)))


for _name, _ignore_nan in (("quantile", False), ("nanquantile", True)):
    _register_quantile(_name, _ignore_nan)


# ------------------------------------------------------------ unique, unique_consecutive
def _long(values: Any, shape: tuple[int, ...], capacity: int = 0) -> Tensor:
    """A fresh contiguous int64 tensor of ``shape``, over a storage of at least
    ``capacity`` elements (torch allocates some results at their largest size, then
    shrinks them, which keeps the storage)."""
    count = builtins.max(math.prod(shape), capacity)
    out = Tensor._make(UntypedStorage(count * 8), shape,
                       layout.contiguous_strides(shape), 0, dtypes.int64)
    out._elements()[...] = np.asarray(values, dtype=np.int64).reshape(shape)
    return out


def _like(values: np.ndarray, shape: tuple[int, ...], d: dtype, capacity: int = 0) -> Tensor:
    """A fresh contiguous tensor of ``shape`` and dtype ``d`` holding ``values`` (over at
    least ``capacity`` elements, as :func:`_long`)."""
    count = builtins.max(math.prod(shape), capacity)
    out = Tensor._make(UntypedStorage(count * d.itemsize), shape,
                       layout.contiguous_strides(shape), 0, d)
    out._elements()[...] = _casting.cast(np.asarray(values), d).reshape(shape)
    return out


def _groups(rows: np.ndarray) -> np.ndarray:
    """For rows in order, True where a row differs from the one before (the first row
    too): nan differs from everything, itself included."""
    starts = np.ones(rows.shape[0], dtype=bool)
    if rows.shape[0] > 1:
        flat = rows.reshape(rows.shape[0], math.prod(rows.shape[1:]))
        starts[1:] = (flat[1:] != flat[:-1]).any(axis=1)
    return starts


def _unique_rows(rows: np.ndarray, consecutive: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows (first axis) of ``rows``: sorted lexicographically (stable, nan
    last), or runs of equal consecutive rows; with each row's group and each group's
    size."""
    n = rows.shape[0]
    flat = rows.reshape(n, math.prod(rows.shape[1:]))
    if consecutive:
        order = np.arange(n)
    else:
        keys = [flat[:, k] for k in range(flat.shape[1] - 1, -1, -1)]
        order = np.lexsort(keys) if keys else np.arange(n)
    ordered = flat[order]
    starts = _groups(ordered)
    group = np.cumsum(starts) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = group
    counts = np.diff(np.append(np.flatnonzero(starts), n))
    return rows[order][starts], inverse, counts


def _unique2(self: Tensor, sorted: bool, return_inverse: bool, return_counts: bool
             ) -> tuple[Tensor, Tensor, Tensor]:
    """torch's ``_unique2_cpu``: the elements in row-major order, sorted (always, on the
    CPU), each run of equal ones kept once."""
    values = self._elements().ravel()
    found, inverse, counts = _unique_rows(_comparable_values(values), consecutive=False)
    return (_like(found, (len(found),), self._dtype),
            _long(inverse, tuple(self.shape)) if return_inverse else _long([], (0,)),
            _long(counts, (len(counts),)) if return_counts else _long([], (0,)))


def _comparable_values(values: np.ndarray) -> np.ndarray:
    """16-bit floats widened (exactly) to float32 for NumPy's comparisons."""
    if values.dtype in (dtypes.float16.numpy, dtypes.bfloat16.numpy):
        return values.astype(np.float32)
    return values


def _unique_dim(self: Tensor, dim: int, consecutive: bool
                ) -> tuple[Tensor, Tensor, Tensor]:
    """torch's ``_unique_dim_cpu_template``: the slices along ``dim``, compared as rows.

    Raises:
        IndexError: a dim out of range (a 0-d input has none).
        RuntimeError: a size-0 dim other than ``dim``, or more than one.
    """
    if self.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, self.dim())
    zeros = list(self.shape).count(0)
    if self.shape[d] == 0:
        if zeros != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        return (_like(np.zeros(0), tuple(self.shape), self._dtype), _long([], (0,)),
                _long([], (0,)))
    if zeros:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                           "unique cannot be applied")
    moved = np.moveaxis(_comparable_values(self._elements()), d, 0)
    found, inverse, counts = _unique_rows(moved, consecutive)
    moved_shape = tuple(found.shape)  # torch's result: contiguous with dim first, moved
    strides = list(layout.contiguous_strides(moved_shape))
    output = _like(found, moved_shape, self._dtype)
    order = [*range(1, d + 1), 0, *range(d + 1, self.dim())]  # np.moveaxis(found, 0, d)
    output = Tensor._make(output._storage, tuple(moved_shape[k] for k in order),
                          tuple(strides[k] for k in order), 0, self._dtype)
    return (output, _long(inverse, (len(inverse),)),
            _long(counts, (len(counts),), capacity=self.shape[d]))


def _unique_consecutive(self: Tensor, return_inverse: bool, return_counts: bool,
                        dim: int | None) -> tuple[Tensor, Tensor, Tensor]:
    """torch's ``unique_consecutive_cpu``: flattened (no dim, or dim 0 of a 1-d tensor),
    else ``unique_dim_consecutive``."""
    if dim is not None and not (dim == 0 and self.dim() == 1):
        return _unique_dim(self, dim, consecutive=True)
    values = _comparable_values(self._elements().ravel())
    found, inverse, counts = _unique_rows(values, consecutive=True)
    n = self.numel()  # torch allocates the output and counts for every element, then shrinks
    return (_like(found, (len(found),), self._dtype, capacity=n),
            _long(inverse, tuple(self.shape)) if return_inverse else _long([], (0,)),
            _long(counts, (len(counts),), capacity=n) if return_counts else _long([], (0,)))


aten._unique2.default.impl(DispatchKey.CPU)(_unique2)
aten.unique_dim.default.impl(DispatchKey.CPU)(
    lambda self, dim, sorted, return_inverse, return_counts: _unique_dim(self, dim, False))
aten.unique_consecutive.default.impl(DispatchKey.CPU)(_unique_consecutive)


def _returned(output: Tensor, inverse: Tensor, counts: Tensor, return_inverse: bool,
              return_counts: bool) -> Any:
    """torch's ``_return_output``/``_return_inverse``/...: the output alone, or a tuple
    with the inverse and the counts asked for."""
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def _dispatch_flag(args: tuple[Any, ...], kwargs: dict[str, Any], name: str,
                   index: int) -> bool:
    """torch's ``boolean_dispatch`` (``torch/_jit_internal.py``), which picks the Python
    function behind ``torch.unique`` by its flags: the keyword ``name`` if given, else the
    positional argument at ``index``, else False, read as a truth value (a tensor of
    several elements raises RuntimeError here, before any other check)."""
    if name in kwargs:
        return bool(kwargs[name])
    return bool(args[index]) if index < len(args) else False


def _unique_arguments(input: Tensor, sorted: bool = True, return_inverse: bool = False,
                      return_counts: bool = False, dim: int | None = None
                      ) -> tuple[Tensor, Tensor, Tensor]:
    if dim is not None:
        return aten.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                               return_counts=return_counts)
    return aten._unique2(input, sorted=sorted, return_inverse=return_inverse,
                         return_counts=return_counts)


def _unique_consecutive_arguments(input: Tensor, return_inverse: bool = False,
                                  return_counts: bool = False, dim: int | None = None
                                  ) -> tuple[Tensor, Tensor, Tensor]:
    return aten.unique_consecutive(input, return_inverse=return_inverse,
                                   return_counts=return_counts, dim=dim)


def unique(*args: Any, **kwargs: Any) -> Any:
    """The distinct elements of ``input`` (``torch.unique``, torch's Python function, and
    ``Tensor.unique``), called as ``unique(input, sorted=True, return_inverse=False,
    return_counts=False, dim=None)``: ``_unique2`` (every element, sorted) or, with
    ``dim``, ``unique_dim`` (the distinct slices along it); the output alone, or a tuple
    with the inverse indices and the counts asked for.

    Raises:
        RuntimeError: a flag that is a tensor of several elements (read as a truth value
            first, by torch's dispatch on the flags), or as ``unique_dim`` for a ``dim``.
        IndexError: as ``unique_dim`` for a ``dim``.
    """
    asks_inverse = _dispatch_flag(args, kwargs, "return_inverse", 2)
    asks_counts = _dispatch_flag(args, kwargs, "return_counts", 3)
    return _returned(*_unique_arguments(*args, **kwargs), asks_inverse, asks_counts)


def unique_consecutive(*args: Any, **kwargs: Any) -> Any:
    """Each run of equal consecutive elements (or slices along ``dim``) kept once
    (``torch.unique_consecutive``, torch's Python function, and
    ``Tensor.unique_consecutive``), called as ``unique_consecutive(input,
    return_inverse=False, return_counts=False, dim=None)``; the output alone, or a tuple
    with the inverse indices and the counts asked for.

    Which results come back follows torch's dispatch on the flags, which reads a
    positional ``return_inverse`` from the third place and ``return_counts`` from the
    second (torch 2.13's ``arg_index`` values): ``unique_consecutive(x, True)`` returns
    the output and an empty tensor in torch, and here. Keywords are read by name.

    Raises:
        RuntimeError: a flag that is a tensor of several elements, or as ``unique_dim``
            for a ``dim``.
        IndexError: as ``unique_dim`` for a ``dim``.
    """
    asks_inverse = _dispatch_flag(args, kwargs, "return_inverse", 2)
    asks_counts = _dispatch_flag(args, kwargs, "return_counts", 1)
    return _returned(*_unique_consecutive_arguments(*args, **kwargs), asks_inverse,
                     asks_counts)


set_function("unique", unique)
set_function("unique_consecutive", unique_consecutive)
