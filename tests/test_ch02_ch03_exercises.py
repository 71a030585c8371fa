"""Chapters 2 and 3: the solution notebooks' answers pass their checks on any seed, typical
mistakes fail them, and the trusted grading pipeline gives the solutions full points."""

from __future__ import annotations

import itertools
import math

import nbformat
import pytest

from autograder import checks
from autograder.course import exercises, references
from autograder.grading import class_run
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import answer_namespace, answer_sources, hidden_pairs, source, write_submission

pytestmark = [pytest.mark.ch02, pytest.mark.ch03]

CHAPTERS = {
    "ch02_views": ["infer_size", "view_strides", "slice_layout", "permute_layout",
                   "diagonal_layout", "index_positions", "shares_storage", "internal_overlap",
                   "overlap_status", "view_dtype_layout", "squeeze_layout"],
    "ch03_broadcasting": ["broadcast_shapes", "expand_strides", "strided_loop", "reduce_loop",
                          "sum_to_dims", "broadcast_error"],
}
NAMES = [name for names in CHAPTERS.values() for name in names]


def solutions(chapter: str) -> dict[str, object]:
    """The answer functions of a solution notebook, run in one namespace like the grader's."""
    namespace = answer_namespace()
    for grade_id, text in answer_sources(chapter).items():
        if grade_id in CHAPTERS[chapter]:
            exec(compile(text, f"<{chapter}:{grade_id}>", "exec"), namespace)
    return namespace


RIGHT = {**solutions("ch02_views"), **solutions("ch03_broadcasting")}


# ---------------------------------------------------------------- typical mistakes
def contiguous(shape):
    strides, running = [], 1
    for n in reversed(shape):
        strides.append(running)
        running *= max(n, 1)
    return tuple(reversed(strides))


def infer_without_count_check(shape, numel):
    if -1 not in shape:
        return tuple(shape)
    return RIGHT["infer_size"](shape, numel)


def infer_minus_one_beside_zero_as_zero(shape, numel):
    known = 1
    for n in shape:
        known *= 1 if n == -1 else n
    if -1 in shape and known == 0:
        return tuple(0 if n == -1 else n for n in shape)
    return RIGHT["infer_size"](shape, numel)


def diagonal_moving_empty_offset(shape, stride, storage_offset, offset, dim1, dim2):
    new_shape, new_stride, where = RIGHT["diagonal_layout"](
        shape, stride, storage_offset, offset, dim1, dim2)
    if new_shape[-1] == 0:
        a, b = dim1 % len(shape), dim2 % len(shape)
        where += offset * stride[b] if offset >= 0 else -offset * stride[a]
    return new_shape, new_stride, where


def diagonal_below_along_dim2(shape, stride, storage_offset, offset, dim1, dim2):
    new_shape, new_stride, where = RIGHT["diagonal_layout"](
        shape, stride, storage_offset, abs(offset), dim1, dim2)
    return new_shape, new_stride, where


def view_only_if_contiguous(shape, stride, new_shape):
    dense = all(s == c for n, s, c in zip(shape, stride, contiguous(shape), strict=True) if n != 1)
    return contiguous(new_shape) if dense else None


def view_forgetting_empty_tensors(shape, stride, new_shape):
    if 0 in shape:
        return contiguous(new_shape)
    return RIGHT["view_strides"](shape, stride, new_shape)


def slice_without_clamping(shape, stride, offset, index):
    out_shape, out_stride = [], []
    for d in range(len(shape)):
        entry = index[d] if d < len(index) else (None, None, None)
        if isinstance(entry, int):
            offset += (entry + shape[d] if entry < 0 else entry) * stride[d]
            continue
        start, stop, step = entry
        start = 0 if start is None else start + shape[d] if start < 0 else start
        stop = shape[d] if stop is None else stop + shape[d] if stop < 0 else stop
        step = step or 1
        offset += start * stride[d]
        out_shape.append(max(0, (stop - start + step - 1) // step))
        out_stride.append(stride[d] * step)
    return tuple(out_shape), tuple(out_stride), offset


def slice_wrapping_out_of_range(shape, stride, offset, index):
    index = tuple(e % shape[d] if isinstance(e, int) and d < len(shape) and shape[d] else e
                  for d, e in enumerate(index))
    return RIGHT["slice_layout"](shape, stride, offset, index)


def permute_inverse(shape, stride, dims):
    out_shape, out_stride = [0] * len(shape), [0] * len(shape)
    for i, d in enumerate(dims):
        out_shape[d], out_stride[d] = shape[i], stride[i]
    return tuple(out_shape), tuple(out_stride)


def permute_unchecked(shape, stride, dims):
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims)


def shares_when(op_name, answer):
    def wrong(op, shape, stride):
        return answer if op == op_name else RIGHT["shares_storage"](op, shape, stride)
    return wrong


def internal_contiguous_only(shape, stride):
    """Row-major order only: a permuted dense layout is taken as "too hard"."""
    if 0 in shape:
        return "no"
    if all(s == c for n, s, c in zip(shape, stride, contiguous(shape), strict=True) if n != 1):
        return "no"
    return "yes" if any(n > 1 and s == 0 for n, s in zip(shape, stride, strict=True)) \
        else "too hard"


def internal_size1_dims_counted(shape, stride):
    if 0 in shape:
        return "no"
    expected = 1
    for step, size in sorted(zip(stride, shape, strict=True)):
        if step != expected:
            return "yes" if step == 0 else "too hard"
        expected *= size
    return "no"


def internal_any_stride0(shape, stride):
    if 0 in stride and 0 not in shape:
        return "yes"
    return RIGHT["internal_overlap"](shape, stride)


def internal_empty_not_special(shape, stride):
    if any(n > 1 and s == 0 for n, s in zip(shape, stride, strict=True)):
        return "yes"
    return RIGHT["internal_overlap"](shape, stride)


def internal_sees_every_overlap(shape, stride):
    """Counts the storage elements: "yes" for windows that overlap, which torch does not see."""
    answer = RIGHT["internal_overlap"](shape, stride)
    if answer == "too hard":
        reached = {sum(i * s for i, s in zip(index, stride, strict=True))
                   for index in itertools.product(*(range(n) for n in shape))}
        if len(reached) < math.prod(shape):
            return "yes"
    return answer


def status_in_elements(a, b):
    """Offsets and sizes compared in elements, not bytes."""
    return RIGHT["overlap_status"]((*a[:4], 1), (*b[:4], 1))


def status_full_whatever_the_strides(a, b):
    answer = RIGHT["overlap_status"](a, b)
    if answer == "partial" and a[3] * a[4] == b[3] * b[4] \
            and math.prod(a[1]) * a[4] == math.prod(b[1]) * b[4]:
        return "full"
    return answer


def status_compares_layouts_not_dense(a, b):
    """Compares the ranges of any layout, where torch says "too hard"."""
    answer = RIGHT["overlap_status"](a, b)
    if answer == "too hard" and a[0] == b[0] and a[1:] == b[1:]:
        return "full"
    return answer


def status_layout_before_elements(a, b):
    if RIGHT["internal_overlap"](a[1], a[2]) != "no" \
            or RIGHT["internal_overlap"](b[1], b[2]) != "no":
        return "too hard"
    return RIGHT["overlap_status"](a, b)


def status_touching_overlaps(a, b):
    answer = RIGHT["overlap_status"](a, b)
    a_end, b_end = (a[3] + math.prod(a[1])) * a[4], (b[3] + math.prod(b[1])) * b[4]
    if answer == "no" and a[0] == b[0] and 0 not in a[1] + b[1] \
            and (a_end == b[3] * b[4] or b_end == a[3] * a[4]):
        return "partial"
    return answer


def status_size1_strides_ignored(a, b):
    def kept(m):
        return tuple(s for n, s in zip(m[1], m[2], strict=True) if n != 1)
    answer = RIGHT["overlap_status"](a, b)
    if answer == "partial" and kept(a) == kept(b) and a[3] * a[4] == b[3] * b[4] \
            and math.prod(a[1]) * a[4] == math.prod(b[1]) * b[4]:
        return "full"
    return answer


def broadcast_left_aligned(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    return RIGHT["broadcast_shapes"](*[tuple(s) + (1,) * (ndim - len(s)) for s in shapes])


def broadcast_by_max(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for sizes in zip(*padded, strict=True):
        if len({n for n in sizes if n != 1}) > 1:
            raise RuntimeError("mismatch")
        result.append(max(sizes))
    return tuple(result)


def expand_leading_stride_zero(shape, stride, new_shape):
    out_shape, out_stride = RIGHT["expand_strides"](shape, stride, new_shape)
    lead = len(new_shape) - len(shape)
    return out_shape, (0,) * lead + out_stride[lead:]


def expand_keeping_strides(shape, stride, new_shape):
    out_shape, out_stride = RIGHT["expand_strides"](shape, stride, new_shape)
    lead = len(new_shape) - len(shape)
    return out_shape, out_stride[:lead] + tuple(stride)


def expand_size1_always_zero(shape, stride, new_shape):
    """Stride 0 wherever the input has size 1, even where the size stays 1 (the rule
    chapter 3 once stated)."""
    out_shape, out_stride = RIGHT["expand_strides"](shape, stride, new_shape)
    lead = len(new_shape) - len(shape)
    kept = tuple(0 if n == 1 else s for n, s in zip(shape, out_stride[lead:], strict=True))
    return out_shape, out_stride[:lead] + kept


def _no_offsets(operand):
    storage, shape, stride, _ = operand
    return storage, shape, stride, 0


def loop_ignoring_offsets(fn, out, *inputs):
    """Reads every input from the start of its storage."""
    return RIGHT["strided_loop"](fn, out, *[x if x is out else _no_offsets(x) for x in inputs])


def loop_with_own_strides(fn, out, *inputs):
    """Reads a size-1 dim through its own stride instead of stride 0."""
    storage, shape, stride, offset = out

    def read(operand, index):
        data, own_shape, own_stride, start = operand
        lead = len(shape) - len(own_shape)
        return data[start + sum(i * s for i, s in zip(index[lead:], own_stride, strict=True))]

    for index in itertools.product(*(range(n) for n in shape)):
        at = offset + sum(i * s for i, s in zip(index, stride, strict=True))
        storage[at] = fn(*(read(x, index) for x in inputs))


def loop_writing_row_major(fn, out, *inputs):
    """Writes through row-major strides from the output's offset, whatever its strides."""
    storage, shape, stride, offset = out
    row_major = tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))
    RIGHT["strided_loop"](fn, (storage, shape, row_major, offset), *inputs)


def reduce_ignoring_offset(step, start, out, input, dims, keepdim):
    """Reads the input from the start of its storage."""
    RIGHT["reduce_loop"](step, start, out, _no_offsets(input), dims, keepdim)


def reduce_ignoring_keepdim(step, start, out, input, dims, keepdim):
    """Takes the output's index for the kept dims alone, even with keepdim."""
    storage, shape, stride, offset = out
    if keepdim:
        kept = tuple(n for d, n in enumerate(shape) if d not in dims)
        kept_stride = tuple(s for d, s in enumerate(stride) if d not in dims)
        RIGHT["reduce_loop"](step, start, (storage, kept, kept_stride, offset), input,
                             dims, False)
        storage[offset] = start  # and the first output is reset
        return
    RIGHT["reduce_loop"](step, start, out, input, dims, keepdim)


def reduce_writing_row_major(step, start, out, input, dims, keepdim):
    """Writes through row-major strides from the output's offset, whatever its strides."""
    storage, shape, stride, offset = out
    row_major = tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))
    RIGHT["reduce_loop"](step, start, (storage, shape, row_major, offset), input, dims,
                         keepdim)


def reduce_with_one_accumulator(step, start, out, input, dims, keepdim):
    """Starts from ``start`` once, not once per output: each output goes on from the last."""
    storage, shape, stride, offset = out
    source, in_shape, in_stride, in_offset = input
    kept = [d for d in range(len(in_shape)) if d not in dims]
    acc = start
    for index in itertools.product(*(range(n) for n in shape)):
        kept_index = [index[d] for d in kept] if keepdim else list(index)
        base = in_offset + sum(i * in_stride[d] for i, d in zip(kept_index, kept, strict=True))
        for inner in itertools.product(*(range(in_shape[d]) for d in dims)):
            at = base + sum(i * in_stride[d] for i, d in zip(inner, dims, strict=True))
            acc = step(acc, source[at])
        storage[offset + sum(i * s for i, s in zip(index, stride, strict=True))] = acc


def sum_leading_dims_only(shape, size):
    """Drops the leading dims but forgets the dims that grew from size 1."""
    RIGHT["sum_to_dims"](shape, size)  # (the same refusals)
    return tuple(range(len(shape) - len(size)))


def sum_every_size1_dim(shape, size):
    """Sums every dim where ``size`` has 1, even one that is size 1 already."""
    dims = RIGHT["sum_to_dims"](shape, size)
    lead = len(shape) - len(size)
    return tuple(sorted({*dims, *(d + lead for d, n in enumerate(size) if n == 1)}))


def sum_dims_counted_in_size(shape, size):
    """Numbers the kept dims in ``size`` instead of in the tensor's shape."""
    dims = RIGHT["sum_to_dims"](shape, size)
    lead = len(shape) - len(size)
    return tuple(range(lead)) + tuple(d - lead for d in dims if d >= lead)


def leftmost_clash(shape_a, shape_b):
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y and 1 not in (x, y):
            return i, x, y
    return None


def clash_counted_from_right(shape_a, shape_b):
    found = RIGHT["broadcast_error"](shape_a, shape_b)
    if found is None:
        return None
    ndim = max(len(shape_a), len(shape_b))
    return found[0] - ndim, found[1], found[2]


def edited(name: str, old: str, new: str, label: str):
    """The solution notebook's answer to ``name`` with ``old`` replaced by ``new``."""
    chapter = next(c for c, names in CHAPTERS.items() if name in names)
    text = answer_sources(chapter)[name]
    assert old in text, (name, old)
    namespace = {**RIGHT, **answer_namespace()}
    exec(compile(text.replace(old, new), f"<{label}>", "exec"), namespace)
    answer = namespace[name]
    answer.__name__ = label
    return answer


positions_always_in_place = edited(
    "index_positions", "        before = []\n",
    "        before = [d for d in others if d < dims[0]]\n", "positions_always_in_place")
positions_broadcast_left_aligned = edited(
    "index_positions", "enumerate(s, ndim - len(s))", "enumerate(s)",
    "positions_broadcast_left_aligned")
positions_wrapping_out_of_range = edited(
    "index_positions", "if not -shape[d] <= v < shape[d]:", "if False:",
    "positions_wrapping_out_of_range")
positions_0d_index_keeps_a_dim = edited(
    "index_positions", "index_shapes = [tuple(indices[d][0]) for d in dims]",
    "index_shapes = [tuple(indices[d][0]) or (1,) for d in dims]",
    "positions_0d_index_keeps_a_dim")

dtype_view_offset_unchecked = edited(
    "view_dtype_layout", "    if offset % r:\n", "    if False:\n", "dtype_view_offset_unchecked")
dtype_view_split_without_stride_check = edited(
    "view_dtype_layout", "        if stride[-1] != 1:\n", "        if False:\n",
    "dtype_view_split_without_stride_check")
dtype_view_other_strides_unchecked = edited(
    "view_dtype_layout", "        if s % r:\n", "        if False:\n",
    "dtype_view_other_strides_unchecked")
dtype_view_0d_as_1d = edited(
    "view_dtype_layout", '        raise RuntimeError(f"self.dim() cannot be 0 {to_view}")\n',
    "        shape, stride = (1,), (1,)\n", "dtype_view_0d_as_1d")


def dtype_view_checks_before_same_size(shape, stride, offset, itemsize, new_itemsize, name,
                                       new_name):
    """Refuses a 0-d tensor or a last stride other than 1 whatever the element sizes."""
    if not shape or stride[-1] != 1:
        raise RuntimeError(f"cannot view {name} as {new_name}")
    return RIGHT["view_dtype_layout"](shape, stride, offset, itemsize, new_itemsize, name,
                                      new_name)


def dtype_view_size1_last_dim_free(shape, stride, offset, *rest):
    """Takes a last dim of size 1 as stepping by 1, whatever its stride."""
    if shape and shape[-1] == 1:
        stride = (*stride[:-1], 1)
    return RIGHT["view_dtype_layout"](shape, stride, offset, *rest)


squeeze_unsqueeze_wrapped_like_squeeze = edited(
    "squeeze_layout", "        d = wrap(dim, n + 1)\n", "        d = wrap(dim, max(n, 1))\n",
    "squeeze_unsqueeze_wrapped_like_squeeze")
squeeze_new_stride_1 = edited(
    "squeeze_layout", "shape[d] * stride[d] if d < n else 1", "1", "squeeze_new_stride_1")
squeeze_new_stride_without_size = edited(
    "squeeze_layout", "shape[d] * stride[d] if d < n else 1", "stride[d] if d < n else 1",
    "squeeze_new_stride_without_size")
squeeze_new_stride_at_end_from_last = edited(
    "squeeze_layout", "shape[d] * stride[d] if d < n else 1",
    "shape[d] * stride[d] if d < n else (stride[-1] if n else 1)",
    "squeeze_new_stride_at_end_from_last")
squeeze_0d_takes_no_dim = edited(
    "squeeze_layout", "wrapped = wrap(d, max(n, 1))", "wrapped = wrap(d, n)",
    "squeeze_0d_takes_no_dim")
squeeze_any_named_dim = edited(
    "squeeze_layout", "d not in chosen or shape[d] != 1", "d not in chosen",
    "squeeze_any_named_dim")
squeeze_twice_allowed = edited(
    "squeeze_layout",
    '                raise RuntimeError(f"dim {wrapped} appears multiple times in the list of '
    'dims")\n',
    "                pass\n", "squeeze_twice_allowed")


def squeeze_twice_compared_unwrapped(op, shape, stride, dim):
    """Looks for a dim named twice among the dims as written: ``(1, -1)`` of a 2-d tensor
    passes, squeezing dim 1 once."""
    if op == "squeeze" and isinstance(dim, tuple) and len(set(dim)) == len(dim):
        n = max(len(shape), 1)
        wrapped = [d % n if -n <= d < n else d for d in dim]
        dim = tuple(dict.fromkeys(wrapped))  # the repeats that wrapping reveals, dropped
    return RIGHT["squeeze_layout"](op, shape, stride, dim)


def squeeze_empty_tuple_as_none(op, shape, stride, dim):
    """Reads ``x.squeeze(())`` as ``x.squeeze()``."""
    return RIGHT["squeeze_layout"](op, shape, stride, None if dim == () else dim)



WRONG = [  # (exercise, answer, whether it still passes the visible test: never)
    ("infer_size", infer_without_count_check, False),
    ("infer_size", infer_minus_one_beside_zero_as_zero, False),
    ("diagonal_layout", diagonal_moving_empty_offset, False),
    ("diagonal_layout", diagonal_below_along_dim2, False),
    ("view_strides", view_only_if_contiguous, False),
    ("view_strides", view_forgetting_empty_tensors, False),
    ("slice_layout", slice_without_clamping, False),
    ("slice_layout", slice_wrapping_out_of_range, False),
    ("permute_layout", permute_inverse, False),
    ("permute_layout", permute_unchecked, False),
    ("index_positions", positions_always_in_place, False),
    ("index_positions", positions_broadcast_left_aligned, False),
    ("index_positions", positions_wrapping_out_of_range, False),
    ("index_positions", positions_0d_index_keeps_a_dim, False),
    ("shares_storage", shares_when("x[[0]]", True), False),
    ("shares_storage", shares_when("x.reshape(-1)", False), False),
    ("shares_storage", shares_when("x.detach()", False), False),
    ("internal_overlap", internal_contiguous_only, False),
    ("internal_overlap", internal_size1_dims_counted, False),
    ("internal_overlap", internal_any_stride0, False),
    ("internal_overlap", internal_empty_not_special, False),
    ("internal_overlap", internal_sees_every_overlap, False),
    ("overlap_status", status_in_elements, False),
    ("overlap_status", status_full_whatever_the_strides, False),
    ("overlap_status", status_compares_layouts_not_dense, False),
    ("overlap_status", status_layout_before_elements, False),
    ("overlap_status", status_touching_overlaps, False),
    ("overlap_status", status_size1_strides_ignored, False),
    ("view_dtype_layout", dtype_view_offset_unchecked, False),
    ("view_dtype_layout", dtype_view_split_without_stride_check, False),
    ("view_dtype_layout", dtype_view_other_strides_unchecked, False),
    ("view_dtype_layout", dtype_view_0d_as_1d, False),
    ("view_dtype_layout", dtype_view_checks_before_same_size, False),
    ("view_dtype_layout", dtype_view_size1_last_dim_free, False),
    ("squeeze_layout", squeeze_unsqueeze_wrapped_like_squeeze, False),
    ("squeeze_layout", squeeze_new_stride_1, False),
    ("squeeze_layout", squeeze_new_stride_without_size, False),
    ("squeeze_layout", squeeze_new_stride_at_end_from_last, False),
    ("squeeze_layout", squeeze_0d_takes_no_dim, False),
    ("squeeze_layout", squeeze_any_named_dim, False),
    ("squeeze_layout", squeeze_twice_allowed, False),
    ("squeeze_layout", squeeze_twice_compared_unwrapped, False),
    ("squeeze_layout", squeeze_empty_tuple_as_none, False),
    ("broadcast_shapes", broadcast_left_aligned, False),
    ("broadcast_shapes", broadcast_by_max, False),
    ("expand_strides", expand_leading_stride_zero, False),
    ("expand_strides", expand_keeping_strides, False),
    ("expand_strides", expand_size1_always_zero, False),
    ("strided_loop", loop_ignoring_offsets, False),
    ("strided_loop", loop_with_own_strides, False),
    ("strided_loop", loop_writing_row_major, False),
    ("reduce_loop", reduce_ignoring_offset, False),
    ("reduce_loop", reduce_ignoring_keepdim, False),
    ("reduce_loop", reduce_writing_row_major, False),
    ("reduce_loop", reduce_with_one_accumulator, False),
    ("sum_to_dims", sum_leading_dims_only, False),
    ("sum_to_dims", sum_every_size1_dim, False),
    ("sum_to_dims", sum_dims_counted_in_size, False),
    ("broadcast_error", leftmost_clash, False),
    ("broadcast_error", clash_counted_from_right, False),
]


# ---------------------------------------------------------------- the checks
FRESH_SEED = 20261121  # the grader draws a fresh seed; the notebook's own run uses the default



def kind(expected: object) -> str:
    if isinstance(expected, references.Raises):
        return f"raises {expected.exception}"
    return type(expected).__name__


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    """The notebook's own run (tests/test_notebooks.py) covers the default hidden seed; the
    grader draws a fresh one, so the solutions must pass on other seeds too."""
    checks.check(name, RIGHT[name])
    assert "agree with torch 2.13.0" in capsys.readouterr().out
    verdict = checks.check_pairs(name, RIGHT[name], hidden_pairs(name, FRESH_SEED))
    assert verdict.passed and verdict.total >= 50


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}-{i}" for i, w in enumerate(WRONG)])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    verdict = checks.judge(name, answer, hidden_pairs(name))
    assert not verdict.passed
    message = verdict.message()
    assert "Smallest failing case" in message and "truth:" in message and "torch" in message
    if passes_visible:
        checks.check(name, answer)
    else:
        with pytest.raises(checks.CheckFailed):
            checks.check(name, answer)


REFUSALS = {  # the answers that stand for torch saying no, which hidden cases must reach
    "infer_size": ["raises RuntimeError"], "view_strides": ["NoneType"],
    "slice_layout": ["raises IndexError"],
    "diagonal_layout": ["raises RuntimeError", "raises IndexError"],
    "permute_layout": ["raises RuntimeError", "raises IndexError"], "shares_storage": ["str"],
    "index_positions": ["raises IndexError"],
    "internal_overlap": [], "overlap_status": [],
    "view_dtype_layout": ["raises RuntimeError"],
    "squeeze_layout": ["raises IndexError", "raises RuntimeError"],
    "broadcast_shapes": ["raises RuntimeError"],
    "expand_strides": ["raises RuntimeError"], "strided_loop": [], "reduce_loop": [],
    "sum_to_dims": ["raises RuntimeError"], "broadcast_error": ["NoneType"],
}


@pytest.mark.parametrize("name", NAMES)
def test_hidden_cases_are_deterministic_and_reach_the_refusals(name):
    pairs = hidden_pairs(name)
    cases = [case for case, _ in pairs]
    assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
    assert checks.cases(name, hidden=True, seed=1) != cases
    assert set(exercises.get(name).fixed) <= set(cases)
    kinds = [kind(expected) for _, expected in pairs]
    for refusal in REFUSALS[name]:
        assert kinds.count(refusal) >= 3, (refusal, kinds)
    answers = [k for k in kinds if k not in REFUSALS[name]]
    assert len(answers) >= len(kinds) // 3, kinds  # mostly real answers, not refusals


def test_shares_storage_menu_is_what_the_notebook_lists():
    from autograder.course.exercises import ch02_views

    text = "\n".join(c.source for c in nbformat.read(source("ch02_views"), as_version=4).cells)
    for op in ch02_views.OPERATIONS:
        assert f'`"{op}"`' in text, op


# ---------------------------------------------------------------- the grading pipeline
#: one exercise that no other answer calls, answered with a typical mistake
WRONG_SUBMISSION = ("ch02_views", "slice_layout", slice_without_clamping)


@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """``class_run.grade_class`` (sandboxed trusted re-check on a fresh seed, and the notebook's
    own nbgrader run) on each new chapter: the solution's answers get every automatic point,
    and a submission with one typical mistake loses that exercise's points only."""
    import inspect


    wrong_chapter, name, mistake = WRONG_SUBMISSION
    for chapter in CHAPTERS:
        inbox = tmp_path / chapter / "inbox"
        write_submission(chapter, inbox / "right" / chapter, {})
        if chapter == wrong_chapter:
            body = inspect.getsource(mistake).replace(mistake.__name__, name, 1)
            write_submission(chapter, inbox / "wrong" / chapter, {name: body})
        outcomes = class_run.grade_class(tmp_path / chapter / "ws", inbox, chapter, workers=2,
                                     progress=False)
        by = {o.student: o for o in outcomes}
        right = by["right"]
        points = 4 * len(CHAPTERS[chapter])  # 1 visible and 3 hidden points per exercise
        assert right.max_total == points and right.total == points, (right.scores,
                                                                     right.reasons)
        assert right.state == "graded", right.reasons
        assert right.written_answered
        assert right.notebook_scores == right.scores  # the notebook's own run agrees
        if chapter == wrong_chapter:
            wrong = by["wrong"]
            assert wrong.scores[f"test_{name}_hidden"] == 0 and wrong.total < points
            others = {t: p for t, p in wrong.scores.items()
                      if not t.startswith(f"test_{name}_")}
            assert others == {t: right.max_scores[t] for t in others}
            assert wrong.state == "graded", wrong.reasons
