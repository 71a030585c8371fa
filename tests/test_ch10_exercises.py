"""Chapter 10 (the capstone): the solution notebook's answers pass their checks on a fresh
seed, typical mistakes fail them, the reference's pieces are right answers, the student
edition's convolutions and pools run the student's pieces, and the trusted grading pipeline
gives the solutions full points."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from autograder import checks
from autograder.course import exercises
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    REPO,
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)

pytestmark = pytest.mark.ch10

CHAPTER = "ch10_capstone"
NAMES = ["conv_output_size", "pool_output_size", "window_layout", "max_pool_window",
         "conv_weight_grad"]
FRESH_SEED = 20261210


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def size_without_dilation(input_size, kernel, stride, padding, dilation):
    return (input_size + 2 * padding - kernel) // stride + 1


def size_rounded_up(input_size, kernel, stride, padding, dilation):
    return -(-(input_size + 2 * padding - dilation * (kernel - 1) - 1) // stride) + 1


def size_padding_once(input_size, kernel, stride, padding, dilation):
    return (input_size + padding - dilation * (kernel - 1) - 1) // stride + 1


def size_without_the_first_window(input_size, kernel, stride, padding, dilation):
    return (input_size + 2 * padding - dilation * (kernel - 1) - 1) // stride


def pool_ignoring_ceil_mode(size, kernel, padding, stride, dilation, ceil_mode):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def pool_ceil_without_the_drop(size, kernel, padding, stride, dilation, ceil_mode):
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    return (room + (stride - 1 if ceil_mode else 0)) // stride + 1


def pool_drop_without_the_padding(size, kernel, padding, stride, dilation, ceil_mode):
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (room + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size:
        out -= 1
    return out


def layout_contiguous_strides(shape, strides, offset, kernel, stride, dilation):
    dense, step = [], 1
    for n in reversed(shape):
        dense.append(step)
        step *= max(n, 1)
    return _layout(shape, tuple(reversed(dense)), offset, kernel, stride, dilation)


def layout_stride_and_dilation_swapped(shape, strides, offset, kernel, stride, dilation):
    return _layout(shape, strides, offset, kernel, dilation, stride, sizes_from=stride)


def layout_offset_dropped(shape, strides, offset, kernel, stride, dilation):
    return _layout(shape, strides, 0, kernel, stride, dilation)


def layout_sizes_without_dilation(shape, strides, offset, kernel, stride, dilation):
    sizes, steps, offset = _layout(shape, strides, offset, kernel, stride, dilation)
    out = tuple((shape[2 + i] - kernel[i]) // stride[i] + 1 for i in range(len(kernel)))
    return (shape[0], shape[1], *out, *kernel), steps, offset


def _layout(shape, strides, offset, kernel, stride, dilation, sizes_from=None):
    dims = range(len(kernel))
    sizes_from = dilation if sizes_from is None else sizes_from
    out = tuple((shape[2 + i] - sizes_from[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                for i in dims)
    return ((shape[0], shape[1], *out, *kernel),
            (strides[0], strides[1], *(strides[2 + i] * stride[i] for i in dims),
             *(strides[2 + i] * dilation[i] for i in dims)), offset)


def max_last_of_ties(windows, positions):
    inside = positions >= 0
    filled = np.where(inside, windows, -np.inf if windows.dtype.kind == "f"
                      else np.iinfo(np.int64).min)
    flipped = filled[..., ::-1]
    at = windows.shape[-1] - 1 - np.argmax(flipped == flipped.max(axis=-1, keepdims=True),
                                           axis=-1)
    at = at[..., None]
    return (np.take_along_axis(windows, at, axis=-1)[..., 0],
            np.take_along_axis(positions, at, axis=-1)[..., 0])


def max_first_nan(windows, positions):
    inside = positions >= 0
    filled = np.where(inside, windows, -np.inf if windows.dtype.kind == "f"
                      else np.iinfo(np.int64).min)
    first = np.argmax(inside, axis=-1)
    at = np.argmax(filled, axis=-1)  # the first maximum, or the first nan
    at = np.where(filled.max(axis=-1) == np.take_along_axis(filled, first[..., None],
                                                            axis=-1)[..., 0], first, at)
    at = at[..., None]
    return (np.take_along_axis(windows, at, axis=-1)[..., 0],
            np.take_along_axis(positions, at, axis=-1)[..., 0])


def max_padding_can_win(windows, positions):
    at = np.argmax(windows, axis=-1)[..., None]
    return (np.take_along_axis(windows, at, axis=-1)[..., 0],
            np.take_along_axis(positions, at, axis=-1)[..., 0])


def max_tap_number(windows, positions):
    inside = positions >= 0
    filled = np.where(inside, windows, windows.min())
    at = np.argmax(filled, axis=-1)
    return np.take_along_axis(windows, at[..., None], axis=-1)[..., 0], at


def grad_transposed(windows, grad_output):
    return np.matmul(windows, np.swapaxes(grad_output, 1, 2))


def grad_groups_as_one(windows, grad_output):
    g, rows, p = windows.shape
    product = grad_output.reshape(-1, p) @ windows.reshape(-1, p).T
    return product[:grad_output.shape[1], :rows][None].repeat(g, axis=0)


def grad_mean_over_positions(windows, grad_output):
    return np.matmul(grad_output, np.swapaxes(windows, 1, 2)) / max(windows.shape[-1], 1)


def grad_of_the_sums(windows, grad_output):
    return grad_output.sum(axis=-1)[..., None] * windows.sum(axis=-1)[:, None, :]


WRONG = [  # (exercise, answer, whether it still passes the visible test)
    ("conv_output_size", size_without_dilation, False),
    ("conv_output_size", size_rounded_up, False),
    ("conv_output_size", size_padding_once, False),
    ("conv_output_size", size_without_the_first_window, False),
    ("pool_output_size", pool_ignoring_ceil_mode, False),
    ("pool_output_size", pool_ceil_without_the_drop, False),
    ("pool_output_size", pool_drop_without_the_padding, False),
    ("window_layout", layout_contiguous_strides, False),
    ("window_layout", layout_stride_and_dilation_swapped, False),
    ("window_layout", layout_offset_dropped, False),
    ("window_layout", layout_sizes_without_dilation, False),
    ("max_pool_window", max_last_of_ties, False),
    ("max_pool_window", max_first_nan, False),
    ("max_pool_window", max_padding_can_win, False),
    ("max_pool_window", max_tap_number, False),
    ("conv_weight_grad", grad_transposed, False),
    ("conv_weight_grad", grad_groups_as_one, False),
    ("conv_weight_grad", grad_mean_over_positions, False),
    ("conv_weight_grad", grad_of_the_sums, False),
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


def test_hidden_cases_are_deterministic_and_hold_the_fixed_ones():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 50
        assert set(exercises.get(name).fixed) <= set(cases)
        assert not any("'raises'" in repr(expected) for _, expected in pairs), name


def test_the_reference_pieces_get_full_marks():
    """reftensor's own bodies are right answers on every hidden case (the default seed's and
    a fresh one's): the library and the exercises say the same."""
    from reftensor.convolution import conv_output_size, conv_weight_grad, window_layout
    from reftensor.pooling import max_pool_window, pool_output_size

    for name, fn in (("conv_output_size", conv_output_size),
                     ("pool_output_size", pool_output_size), ("window_layout", window_layout),
                     ("max_pool_window", max_pool_window),
                     ("conv_weight_grad", conv_weight_grad)):
        assert checks.judge(name, fn, hidden_pairs(name)).passed, name
        assert checks.judge(name, fn, hidden_pairs(name, FRESH_SEED)).passed, name


# ---------------------------------------------------------------- the student edition
EDITION_PROGRAM = """
import json

import reftensor
from reftensor import pieces
from tests.notebooks import register_every_answer
from tests.test_ch10_exercises import (grad_groups_as_one, layout_stride_and_dilation_swapped,
                                       max_first_nan, pool_ignoring_ceil_mode,
                                       size_without_dilation)

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
register_every_answer()


def program():
    F = reftensor.nn.functional
    reftensor.manual_seed(0)
    conv = reftensor.nn.Conv2d(4, 6, 3, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    x = (reftensor.arange(2 * 4 * 9 * 9, dtype=reftensor.float32).reshape(2, 4, 9, 9) % 5
         ).contiguous(memory_format=reftensor.channels_last)
    x[0, 1, 2, 3] = float("nan")
    y = conv(x)
    pooled, indices = F.max_pool2d(y, 2, ceil_mode=True, return_indices=True)
    (pooled.nan_to_num(0.0) * (reftensor.arange(pooled.numel()).reshape(pooled.shape) % 3)
     ).sum().backward()
    nan = float("nan")
    _, where = F.max_pool2d(reftensor.tensor([[[nan, 1.0, nan, 2.0, 0.0]]]), (1, 3), 1,
                            return_indices=True)
    return [list(y.shape), list(pooled.shape), indices.tolist(),
            conv.weight.grad.nan_to_num(-1.0).tolist(), where.tolist()]


with pieces.trace() as used:
    right = program()
seen = {{"right": right, "used": sorted(used)}}
for wrong, name in ((size_without_dilation, "conv_output_size"),
                    (pool_ignoring_ceil_mode, "pool_output_size"),
                    (layout_stride_and_dilation_swapped, "window_layout"),
                    (max_first_nan, "max_pool_window"),
                    (grad_groups_as_one, "conv_weight_grad")):
    keep = pieces.answer(name)
    wrong.__name__ = name
    pieces.register(wrong)
    try:
        seen[name] = program()
    except Exception as err:  # noqa: BLE001 - a wrong piece may make the program raise
        seen[name] = f"{{type(err).__name__}}: {{err}}"
    pieces.register(keep)
print(json.dumps(seen))
"""


def test_the_student_editions_kernels_run_the_students_pieces(tmp_path):
    """In the student edition an ordinary program (a grouped nn.Conv2d, strided along one dim
    and dilated along the other, on a channels-last input holding a NaN, a max-pool with
    indices and ceil_mode, a backward pass, a max-pool of a row with two NaNs) runs the
    student's five pieces; with the instructor's answers it gives the
    reference's shapes, indices and weight gradient, and a wrong answer to any one of them
    changes what it gives (or makes it raise)."""
    from autograder.course import edition

    edition.write_student_edition(tmp_path)
    code = EDITION_PROGRAM.format(edition=str(tmp_path / "reftensor"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path), str(REPO)))}
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    reference = subprocess.run(
        [sys.executable, "-P", "-c", code.split("with pieces.trace()")[0].replace(
            "assert reftensor.__file__", "# ") + "print(json.dumps(program()))"],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=600)
    assert reference.returncode == 0, reference.stderr[-3000:]
    assert seen["right"] == json.loads(reference.stdout.strip().splitlines()[-1])
    assert set(NAMES) <= set(seen["used"])
    unchanged = [name for name in NAMES if seen[name] == seen["right"]]
    assert unchanged == []


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "pool_output_size",
                                            pool_ignoring_ceil_mode, 20)
