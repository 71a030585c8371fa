"""Chapter 4: the solution notebook's answers pass their checks on a fresh seed, typical
mistakes fail them, and the trusted grading pipeline gives the solutions full points."""

from __future__ import annotations

import math

import pytest

from autograder import checks
from autograder.course import exercises, references
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)

pytestmark = pytest.mark.ch04

CHAPTER = "ch04_dtype_device"
NAMES = ["promote_types", "result_dtype", "cast_value", "to_result", "matmul_shape",
         "matmul_plan", "arg_reduce_loop"]
FRESH_SEED = 20261121


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def promote_by_width(a, b):
    """The later dtype in the list wins: forgets uint8+int8 and float16+bfloat16."""
    order = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
             "float32", "float64"]
    return max(a, b, key=order.index)


def result_ignoring_zero_dim(a, op, b):
    """Treats 0-d tensors like tensors with dims."""
    a = ("tensor", a[1], 1) if a[0] == "tensor" else a
    b = ("tensor", b[1], 1) if b[0] == "tensor" else b
    return RIGHT["result_dtype"](a, op, b)


def result_floor_division(a, op, b):
    """Forgets that true division of integers gives the default float."""
    return RIGHT["result_dtype"](a, "+", b)


def cast_truncating(x, dtype):
    """Rounds toward zero instead of to nearest even."""
    import math

    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    bits, low, top = {"float16": (10, -14, 65504.0), "bfloat16": (7, -126, 3.3895e38)}[dtype]
    e = max(math.frexp(abs(x))[1] - 1, low)
    step = 2.0 ** (e - bits)
    value = math.trunc(x / step) * step
    return value if abs(value) <= top else math.copysign(math.inf, x)


def cast_saturating(x, dtype):
    """Clamps to finfo.max instead of overflowing to inf."""
    import math

    value = RIGHT["cast_value"](x, dtype)
    top = 65504.0 if dtype == "float16" else (2 - 2 ** -7) * 2.0 ** 127
    return math.copysign(top, x) if math.isinf(value) and not math.isinf(x) else value


def to_copies_unless_contiguous(dtype, shape, stride, call):
    """Believes contiguous_format always gives a contiguous result."""
    same, out = RIGHT["to_result"](dtype, shape, stride, call)
    if dict(call).get("memory_format") == "contiguous_format" and same:
        contiguous = _contiguous(shape)
        return (True, out) if tuple(stride) == contiguous else (False, contiguous)
    return same, out


def to_always_contiguous_copy(dtype, shape, stride, call):
    """A copy is always contiguous (preserve_format forgotten)."""
    same, out = RIGHT["to_result"](dtype, shape, stride, call)
    if same or dict(call).get("memory_format") == "channels_last":
        return same, out
    return False, _contiguous(shape)


def _contiguous(shape) -> tuple[int, ...]:
    strides, running = [], 1
    for n in reversed(shape):
        strides.append(running)
        running *= max(n, 1)
    return tuple(reversed(strides))


def to_non_dense_as_suggested(dtype, shape, stride, call):
    """A preserve_format copy of a non-dense tensor takes the suggested format (the rule
    chapter 4 used to state) instead of keeping the dims' order."""
    same, out = RIGHT["to_result"](dtype, shape, stride, call)
    options = dict(call)
    if same or options.get("memory_format", "preserve_format") != "preserve_format":
        return same, out
    if out == tuple(stride) or (len(shape) == 4 and out[1] == 1):
        return same, out
    return False, _contiguous(shape)


def _channels_last(shape) -> tuple[int, ...]:
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def to_guessing_channels_last_by_equality(dtype, shape, stride, call):
    """Suggests channels_last only for exactly the channels-last strides of the shape (so a
    sliced or size-1 channels-last layout is missed, and an (N, 1, 1, 1) is taken)."""
    options = dict(call)
    fmt = options.get("memory_format", "preserve_format")
    if fmt == "channels_last" and len(shape) == 4 and options.get("dtype", dtype) == dtype \
            and not options.get("copy") and options.get("device", "cpu") == "cpu":
        if tuple(stride) == _channels_last(shape):
            return True, tuple(stride)
        return False, _channels_last(shape)
    return RIGHT["to_result"](dtype, shape, stride, call)


def to_counting_small_dims(dtype, shape, stride, call):
    """Checks density over every dim, size 0 and 1 included."""
    same, out = RIGHT["to_result"](dtype, shape, stride, call)
    if same or dict(call).get("memory_format", "preserve_format") != "preserve_format":
        return same, out
    running = 1
    for s, n in sorted(zip(stride, shape, strict=True)):
        if s != running:
            return False, _contiguous(shape)
        running *= n
    return same, out


def _matrices(a, b):
    """The operands as matrices (a 1-d a a row, a 1-d b a column), or RuntimeError."""
    if len(a) == 0 or len(b) == 0:
        raise RuntimeError("a 0-d operand")
    left = (1, *a) if len(a) == 1 else tuple(a)
    right = (*b, 1) if len(b) == 1 else tuple(b)
    if left[-1] != right[-2]:
        raise RuntimeError("inner sizes differ")
    return left, right


def matmul_keeping_vector_dims(a, b):
    """Never removes the dim a 1-d operand got: (3,) @ (3,) is (1, 1)."""
    left, right = _matrices(a, b)
    return RIGHT["matmul_shape"](left, right)


def matmul_equal_batch_dims(a, b):
    """Requires equal batch dims where both operands have some, instead of broadcasting."""
    left, right = _matrices(a, b)
    if left[:-2] and right[:-2] and left[:-2] != right[:-2]:
        raise RuntimeError("batch dims differ")
    return RIGHT["matmul_shape"](a, b)


def matmul_batch_by_max(a, b):
    """Broadcasts the batch dims by taking the larger size: a clash passes, and a size 0
    against 1 gives 1."""
    left, right = _matrices(a, b)
    p, q = left[:-2], right[:-2]
    n = max(len(p), len(q))
    p, q = (1,) * (n - len(p)) + p, (1,) * (n - len(q)) + q
    batch = tuple(max(x, y) for x, y in zip(p, q, strict=True))
    return (*batch, *((left[-2],) if len(a) > 1 else ()), *((right[-1],) if len(b) > 1 else ()))


def matmul_zero_batch_as_one(a, b):
    """Lets a batch size 0 broadcast like a 1: (0, 2, 3) @ (2, 3, 4) is (0, 2, 4)."""
    left, right = _matrices(a, b)
    p, q = left[:-2], right[:-2]
    n = max(len(p), len(q))
    p, q = (1,) * (n - len(p)) + p, (1,) * (n - len(q)) + q
    if any(x != y and {x, y} & {0, 1} == set() for x, y in zip(p, q, strict=True)):
        raise RuntimeError("batch dims clash")
    batch = tuple(0 if 0 in (x, y) else max(x, y) for x, y in zip(p, q, strict=True))
    return (*batch, *((left[-2],) if len(a) > 1 else ()), *((right[-1],) if len(b) > 1 else ()))


def matmul_row_dim_from_the_end(a, b):
    """Removes a 1-d first operand's row dim from the end of the result, as if it were the
    column's: (3,) @ (2, 3, 4) is (2, 1)."""
    left, right = _matrices(a, b)
    shape = list(RIGHT["matmul_shape"](left, right))
    if len(b) == 1:
        shape.pop()
    if len(a) == 1:
        shape.pop()
    return tuple(shape)


def matmul_no_zero_d_check(a, b):
    """Forgets the 0-d operand: indexing its shape raises IndexError, not RuntimeError."""
    left = (1, *a) if len(a) == 1 else tuple(a)
    right = (*b, 1) if len(b) == 1 else tuple(b)
    left[-1], right[-2]  # noqa: B018 - IndexError for a 0-d operand, as the mistake does
    return RIGHT["matmul_shape"](a, b)


def arg_last_of_ties(beats, values, indices, input, dim, keepdim):
    """Lets an equal element take the winner's place: the last of equal elements wins."""
    RIGHT["arg_reduce_loop"](lambda x, best: beats(x, best) or x == best, values, indices,
                             input, dim, keepdim)


def arg_ignoring_offset(beats, values, indices, input, dim, keepdim):
    """Reads the input from the start of its storage."""
    storage, shape, stride, _ = input
    RIGHT["arg_reduce_loop"](beats, values, indices, (storage, shape, stride, 0), dim, keepdim)


def arg_keepdim_ignored(beats, values, indices, input, dim, keepdim):
    """Treats the outputs' index as if the dim were always dropped."""
    if keepdim:
        def dropped(o):
            return None if o is None else (o[0], tuple(n for d, n in enumerate(o[1]) if d != dim),
                                           tuple(s for d, s in enumerate(o[2]) if d != dim), o[3])
        RIGHT["arg_reduce_loop"](beats, dropped(values), dropped(indices), input, dim, False)
        indices[0][indices[3]] = -1
        return
    RIGHT["arg_reduce_loop"](beats, values, indices, input, dim, keepdim)


def arg_index_into_storage(beats, values, indices, input, dim, keepdim):
    """Writes the winner's position in the storage instead of its index along the dim."""
    storage, shape, stride, offset = input
    RIGHT["arg_reduce_loop"](beats, values, indices, input, dim, keepdim)
    for k, i in enumerate(indices[0]):
        if isinstance(i, int) and i > 0:
            indices[0][k] = i * stride[dim]


def plan_ignoring_grad(a, sa, b, sb, requires_grad, has_out):
    """Decides the fold by the layout alone (reftensor's old checks did)."""
    return RIGHT["matmul_plan"](a, sa, b, sb, (False, False), has_out)


def plan_grad_even_with_out(a, sa, b, sb, requires_grad, has_out):
    """Folds for a smaller operand that requires grad even with out=."""
    return RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, False)


def plan_without_squeeze(a, sa, b, sb, requires_grad, has_out):
    """Forgets the squeeze of a 3-d operand's batch of 1: two 3-d operands go to bmm."""
    plan = RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)
    if plan[0] is None:
        return plan
    batch = (a[0] * b[0],)  # one of them is 1
    return None, "bmm", (*batch, *a[1:]), (*batch, *b[1:]), (*batch, a[1], b[2])


def plan_squeeze_without_grad(a, sa, b, sb, requires_grad, has_out):
    """Squeezes a 3-d operand's batch of 1 whether it requires grad or not (as torch does
    under a dispatch mode)."""
    if len(a) == len(b) == 3 and (a[0] == 1) != (b[0] == 1):
        if a[0] == 1:
            plan = RIGHT["matmul_plan"](a[1:], sa[1:], b, sb, requires_grad, has_out)
        else:
            plan = RIGHT["matmul_plan"](a, sa, b[1:], sb[1:], requires_grad, has_out)
        return (0 if a[0] == 1 else 1, *plan[1:])
    return RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)


def plan_matrix_folds_by_layout(a, sa, b, sb, requires_grad, has_out):
    """Lets a matrix on the left fold a batch on the right by its layout, as a vector does."""
    if len(a) == 2 and len(b) >= 3 and RIGHT["matmul_plan"](
            (a[1],), (1,), b, sb, (False, False), has_out)[1] == "fold_mT":
        return RIGHT["matmul_plan"](a, sa, b, sb, (True, requires_grad[1]), False)
    return RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)


def plan_checking_own_strides(a, sa, b, sb, requires_grad, has_out):
    """For a vector on the left, checks the batch's own strides instead of its mT's."""
    plan = RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)
    if len(a) != 1 or len(b) < 3:
        return plan
    own = 0 in b or all(sb[i] == sb[i + 1] * b[i + 1] for i in range(len(b) - 2))
    if own or (requires_grad[0] and not has_out):
        return None, "fold_mT", (math.prod(b[:-2]) * b[-1], b[-2]), tuple(a), (*b[:-2], b[-1])
    return None, "bmm", (*b[:-2], 1, a[0]), tuple(b), (*b[:-2], b[-1])


def plan_vector_as_column(a, sa, b, sb, requires_grad, has_out):
    """Expands a 1-d right operand of bmm as a column, (*batch, k, 1)."""
    plan = RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)
    if plan[1] == "bmm" and len(b) == 1:
        return (*plan[:3], (*plan[3], 1), plan[4])
    return plan


def plan_ignoring_size_one_strides(a, sa, b, sb, requires_grad, has_out):
    """Checks the strides as is_contiguous does, skipping dims of size 1."""
    def mended(shape, stride):
        stride = list(stride)
        for i in reversed(range(len(shape) - 1)):
            if shape[i] == 1:
                stride[i] = stride[i + 1] * shape[i + 1]
        return tuple(stride)

    return RIGHT["matmul_plan"](a, mended(a, sa), b, mended(b, sb), requires_grad, has_out)


def plan_output_after_mT(a, sa, b, sb, requires_grad, has_out):
    """Gives a transposed fold's output_shape as the result's, after the mT."""
    plan = RIGHT["matmul_plan"](a, sa, b, sb, requires_grad, has_out)
    if plan[1] == "fold_mT" and len(plan[3]) == 2:
        return (*plan[:4], (*plan[4][:-2], plan[4][-1], plan[4][-2]))
    return plan


WRONG = [  # (exercise, answer, whether it still passes the visible test: never)
    ("promote_types", promote_by_width, False),
    ("result_dtype", result_ignoring_zero_dim, False),
    ("result_dtype", result_floor_division, False),
    ("cast_value", cast_truncating, False),
    ("cast_value", cast_saturating, False),
    ("to_result", to_copies_unless_contiguous, False),
    ("to_result", to_always_contiguous_copy, False),
    ("to_result", to_non_dense_as_suggested, False),
    ("to_result", to_guessing_channels_last_by_equality, False),
    ("to_result", to_counting_small_dims, False),
    ("matmul_shape", matmul_keeping_vector_dims, False),
    ("matmul_shape", matmul_equal_batch_dims, False),
    ("matmul_shape", matmul_batch_by_max, False),
    ("matmul_shape", matmul_zero_batch_as_one, False),
    ("matmul_shape", matmul_row_dim_from_the_end, False),
    ("matmul_shape", matmul_no_zero_d_check, False),
    ("matmul_plan", plan_ignoring_grad, False),
    ("matmul_plan", plan_grad_even_with_out, False),
    ("matmul_plan", plan_without_squeeze, False),
    ("matmul_plan", plan_squeeze_without_grad, False),
    ("matmul_plan", plan_matrix_folds_by_layout, False),
    ("matmul_plan", plan_checking_own_strides, False),
    ("matmul_plan", plan_vector_as_column, False),
    ("matmul_plan", plan_ignoring_size_one_strides, False),
    ("matmul_plan", plan_output_after_mT, False),
    ("arg_reduce_loop", arg_last_of_ties, False),
    ("arg_reduce_loop", arg_ignoring_offset, False),
    ("arg_reduce_loop", arg_keepdim_ignored, False),
    ("arg_reduce_loop", arg_index_into_storage, False),
]


# ---------------------------------------------------------------- the checks

@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED, 50)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


REFUSALS = {"promote_types": [], "result_dtype": [], "cast_value": [],
            "to_result": ["raises RuntimeError"],
            "matmul_shape": ["raises RuntimeError"], "matmul_plan": [], "arg_reduce_loop": []}


def test_hidden_cases_are_deterministic_and_reach_the_refusals():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
        assert set(exercises.get(name).fixed) <= set(cases)
        kinds = [f"raises {e.exception}" if isinstance(e, references.Raises)
                 else type(e).__name__ for _, e in pairs]
        for refusal in REFUSALS[name]:
            assert kinds.count(refusal) >= 3, (name, refusal)
        assert sum(k not in REFUSALS[name] for k in kinds) >= len(kinds) // 2, name


def test_promote_types_covers_all_pairs_and_result_dtype_the_categories():
    cases = {c.args for c in checks.cases("promote_types", hidden=True)}
    assert len(cases) == 100
    expected = dict(hidden_pairs("result_dtype"))
    cat = {c: e for c, e in expected.items() if c.args == (("tensor", "int32", 1), "+",
                                                          ("tensor", "float64", 0))}
    assert list(cat.values()) == ["float64"]  # a 0-d tensor raises the category...
    cat = {c: e for c, e in expected.items() if c.args == (("tensor", "float16", 1), "+",
                                                          ("tensor", "float64", 0))}
    assert list(cat.values()) == ["float16"]  # ...never the width


def test_matmul_shape_torch_meta_and_cpu_agree_and_so_does_reftensor():
    """The reference is torch's meta matmul; torch's CPU kernels give the same shapes and
    raise where it raises, for every visible and hidden case (the notebook says so), and so
    does reftensor, on the CPU (its matmul_shape), on the meta device and with gradients."""
    import torch

    import reftensor

    def shape_or_raise(lib, a, b, **options):
        try:
            return tuple(lib.matmul(lib.empty(a, **options), lib.empty(b, **options)).shape)
        except RuntimeError:
            return references.Raises("RuntimeError")

    for case, expected in hidden_pairs("matmul_shape"):
        a, b = case.args
        expected = expected if isinstance(expected, references.Raises) else tuple(expected)
        assert shape_or_raise(torch, a, b) == expected, case
        for options in ({}, {"device": "meta"}, {"requires_grad": True}):
            assert shape_or_raise(reftensor, a, b, **options) == expected, (case, options)


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake in an exercise no other answer calls loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "cast_value",
                                            cast_truncating, 28)
