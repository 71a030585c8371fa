"""Chapter 10 (the capstone): the solution notebook's answers pass their checks on a fresh
seed, typical mistakes fail them, the reference's pieces are right answers, the student
edition's convolutions and pools run the student's pieces, the training loop written with
reftensor (``train_steps``) is compared with torch's within its tolerance and a loop that
hard-codes the visible runs' losses fails on a fresh seed, the debugging clinic's fixed
scripts (``fix_*``) pass while their broken scripts and the fixes that only hide the symptom
fail, and the trusted grading pipeline gives the solutions full points."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograder import checks
from autograder.course import exercises
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    assert_the_edition_runs_the_pieces,
    hidden_pairs,
    run_on_student_edition,
)

pytestmark = pytest.mark.ch10

CHAPTER = "ch10_capstone"
NAMES = ["conv_output_size", "pool_output_size", "window_layout", "max_pool_window",
         "conv_weight_grad"]
#: the exercises written with reftensor (no pieces of it): the training loop, the clinic
CLINIC = ["fix_zero_grad", "fix_view", "fix_float_labels", "fix_inplace", "fix_eval",
          "fix_parameter", "fix_shuffle"]
TRAINING = ["train_steps", "build_cnn", *CLINIC]
#: those compared within the tolerance (the shuffle's batch orders are ints: exactly)
CLOSE = [name for name in TRAINING if name != "fix_shuffle"]
FRESH_SEED = 20261210


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES + TRAINING:
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


def loop_never_zeroing(lib, model, batches, optimizer):
    model.train()
    losses = []
    for images, labels in batches:
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_without_step(lib, model, batches, optimizer):
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        losses.append(loss.item())
    return losses


def loop_left_in_eval(lib, model, batches, optimizer):
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_step_before_backward(lib, model, batches, optimizer):
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        optimizer.step()
        loss.backward()
        losses.append(loss.item())
    return losses


def loop_zeroing_after_backward(lib, model, batches, optimizer):
    model.train()
    losses = []
    for images, labels in batches:
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_summed_loss(lib, model, batches, optimizer):
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels, reduction="sum")
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_item_before_backward(lib, model, batches, optimizer):
    """Right too: the loss's value is the same before and after ``backward``."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        losses.append(float(loss.item()))
        loss.backward()
        optimizer.step()
    return losses


# ---------------------------------------------------------------- build_cnn's mistakes
def _digits_cnn(lib, order=("conv1", "conv2", "fc"), padding=1, relu2=True, pool="max",
                bias=True, channels_last_flatten=False, created=None):
    """The capstone's CNN with one thing changed (the right one by default)."""
    nn, F = lib.nn, lib.nn.functional
    make = {"conv1": lambda: nn.Conv2d(1, 16, 3, padding=padding, bias=bias),
            "conv2": lambda: nn.Conv2d(16, 32, 3, padding=padding, bias=bias),
            "fc": lambda: nn.Linear(32 * 2 * 2, 10)}

    class DigitsCNN(nn.Module):
        def __init__(self):
            super().__init__()
            layers = {name: make[name]() for name in created or order}  # drawn in this order
            for name in order:  # registered in this one
                setattr(self, name, layers[name])

        def forward(self, images):
            down = F.max_pool2d if pool == "max" else F.avg_pool2d
            x = down(F.relu(self.conv1(images)), 2)
            x = self.conv2(x)
            x = down(F.relu(x) if relu2 else x, 2)
            if channels_last_flatten:
                x = x.permute(0, 2, 3, 1)
            return self.fc(x.flatten(1))

    return DigitsCNN()


def cnn_linear_created_first(lib):
    """The Linear layer created first, the layers registered in the right order: the names
    are right, the first weights other draws."""
    return _digits_cnn(lib, created=("fc", "conv1", "conv2"))


def cnn_convs_swapped(lib):
    """conv2 created before conv1."""
    return _digits_cnn(lib, order=("conv2", "conv1", "fc"))


def cnn_without_padding(lib):
    """No padding: 8x8 -> 6x6 -> 3x3 -> 1x1, and the second pool has nothing to pool."""
    return _digits_cnn(lib, padding=0)


def cnn_second_relu_forgotten(lib):
    return _digits_cnn(lib, relu2=False)


def cnn_average_pools(lib):
    return _digits_cnn(lib, pool="avg")


def cnn_flattened_channels_last(lib):
    """The features flattened position by position: fc sees them in another order."""
    return _digits_cnn(lib, channels_last_flatten=True)


def cnn_convs_without_bias(lib):
    return _digits_cnn(lib, bias=False)


def cnn_sequential(lib):
    """Right too: a Sequential of named layers (its names, conv1, conv2, fc, as the
    exercise's) created in the order they run."""
    nn = lib.nn
    from collections import OrderedDict

    return nn.Sequential(OrderedDict([
        ("conv1", nn.Conv2d(1, 16, 3, padding=1)), ("relu1", nn.ReLU()),
        ("pool1", nn.MaxPool2d(2)), ("conv2", nn.Conv2d(16, 32, 3, padding=1)),
        ("relu2", nn.ReLU()), ("pool2", nn.MaxPool2d(2)), ("flat", nn.Flatten()),
        ("fc", nn.Linear(128, 10))]))


# ---------------------------------------------------------------- the clinic's mistakes
# Each exercise's broken script (as the notebook shows it), the fixes that hide the
# symptom without fixing the bug, and right fixes in other words.
def zero_grad_never(lib, model, batches, optimizer):
    """The broken script: the gradients are never zeroed."""
    model.train()
    losses = []
    for i, (images, labels) in enumerate(batches):
        loss = lib.nn.functional.cross_entropy(model(images), labels) / 2
        loss.backward()
        losses.append(loss.item())
        if i % 2 == 1:
            optimizer.step()
    return losses


def zero_grad_every_batch(lib, model, batches, optimizer):
    """Zeroing before every batch: no error, but each step sees one batch, not two."""
    model.train()
    losses = []
    for i, (images, labels) in enumerate(batches):
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels) / 2
        loss.backward()
        losses.append(loss.item())
        if i % 2 == 1:
            optimizer.step()
    return losses


def view_broken(lib, model, batches, optimizer):
    """The broken script: view on the transposed (non-contiguous) pixels raises."""
    model.train()
    losses = []
    for pixels, labels in batches:
        optimizer.zero_grad()
        inputs = pixels.transpose(1, 2).view(-1, 64)
        loss = lib.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def view_without_transpose(lib, model, batches, optimizer):
    """No error: but the pixels go in column by column."""
    model.train()
    losses = []
    for pixels, labels in batches:
        optimizer.zero_grad()
        inputs = pixels.view(-1, 64)
        loss = lib.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def view_contiguous(lib, model, batches, optimizer):
    """Right too: a contiguous copy, then the view."""
    model.train()
    losses = []
    for pixels, labels in batches:
        optimizer.zero_grad()
        inputs = pixels.transpose(1, 2).contiguous().view(-1, 64)
        loss = lib.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def labels_broken(lib, model, batches, optimizer):
    """The broken script: float labels, cross_entropy raises."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def labels_as_int32(lib, model, batches, optimizer):
    """int32 is no class number type for cross_entropy either."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels.int())
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def labels_nll_without_log_softmax(lib, model, batches, optimizer):
    """No error: nll_loss takes the labels, but the logits are no log-probabilities."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.nll_loss(model(images), labels.long())
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def labels_one_hot(lib, model, batches, optimizer):
    """Right too: one-hot class probabilities give cross_entropy's same loss."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        target = lib.nn.functional.one_hot(labels.long(), 10).float()
        loss = lib.nn.functional.cross_entropy(model(images), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def inplace_broken(lib, model, batches, optimizer):
    """The broken script: the in-place smoothing overwrites what softmax's backward reads."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        probs = lib.softmax(model(images), dim=1)
        probs.mul_(0.9).add_(0.01)
        loss = lib.nn.functional.nll_loss(probs.log(), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def inplace_through_data(lib, model, batches, optimizer):
    """No error: .data's in-place change is unseen by autograd's version check, and the
    gradient is computed from the smoothed values."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        probs = lib.softmax(model(images), dim=1)
        probs.data.mul_(0.9).add_(0.01)
        loss = lib.nn.functional.nll_loss(probs.log(), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def inplace_detached(lib, model, batches, optimizer):
    """Detaching the probabilities: no graph to the model (backward raises)."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        probs = lib.softmax(model(images), dim=1).detach()
        probs.mul_(0.9).add_(0.01)
        loss = lib.nn.functional.nll_loss(probs.log(), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def inplace_detached_copy(lib, model, batches, optimizer):
    """Smoothing a detached copy and adding the difference: no error, no smoothing's
    gradient."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        probs = lib.softmax(model(images), dim=1)
        smoothed = probs + (probs.detach() * 0.9 + 0.01 - probs.detach())
        loss = lib.nn.functional.nll_loss(smoothed.log(), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def eval_forgotten(lib, model, batches, optimizer, test_images):
    """The broken script: the test images go through Dropout and batch statistics."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with lib.no_grad():
        logits = model(test_images)
    return losses, logits


def eval_from_the_start(lib, model, batches, optimizer, test_images):
    """eval() before training: the steps run without Dropout, on running statistics."""
    model.eval()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with lib.no_grad():
        logits = model(test_images)
    return losses, logits


def eval_dropout_only(lib, model, batches, optimizer, test_images):
    """Dropout switched off by hand: BatchNorm still normalises with the test batch's
    statistics, and updates its running ones."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model[4].eval()
    with lib.no_grad():
        logits = model(test_images)
    return losses, logits


def parameter_broken(lib):
    """The broken model: scale is a plain tensor attribute, never trained."""

    class ScaledLinear(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(64, 10)
            self.scale = lib.ones(10, requires_grad=True)

        def forward(self, images):
            return self.linear(images.flatten(1)) * self.scale

    return ScaledLinear()


def parameter_as_buffer(lib):
    """A buffer is saved with the model, but not trained."""

    class ScaledLinear(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(64, 10)
            self.register_buffer("scale", lib.ones(10))

        def forward(self, images):
            return self.linear(images.flatten(1)) * self.scale

    return ScaledLinear()


def parameter_registered_later(lib):
    """Right too: register_parameter names the same Parameter."""

    class ScaledLinear(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(64, 10)
            self.register_parameter("scale", lib.nn.Parameter(lib.ones(10)))

        def forward(self, images):
            return self.linear(images.flatten(1)) * self.scale

    return ScaledLinear()


def shuffle_broken(lib, dataset, seed, batch_size, epochs):
    """The broken script: the loader draws its order from the global generator."""
    loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
    return [[batch.tolist() for (batch,) in loader] for _ in range(epochs)]


def shuffle_reseeding_everything(lib, dataset, seed, batch_size, epochs):
    """Reproducible, but it re-seeds the whole program's generator."""
    lib.manual_seed(seed)
    loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
    return [[batch.tolist() for (batch,) in loader] for _ in range(epochs)]


def shuffle_numpy_seed(lib, dataset, seed, batch_size, epochs):
    """NumPy's seed: the loader never reads it."""
    import numpy as np

    np.random.seed(seed)
    loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
    return [[batch.tolist() for (batch,) in loader] for _ in range(epochs)]


def shuffle_new_loader_each_epoch(lib, dataset, seed, batch_size, epochs):
    """A fresh generator each epoch: every epoch in the same order."""
    orders = []
    for _ in range(epochs):
        loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True,
                                           generator=lib.Generator().manual_seed(seed))
        orders.append([batch.tolist() for (batch,) in loader])
    return orders


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
    ("train_steps", loop_never_zeroing, False),
    ("train_steps", loop_without_step, False),
    ("train_steps", loop_left_in_eval, False),
    ("train_steps", loop_step_before_backward, False),
    ("train_steps", loop_zeroing_after_backward, False),
    ("train_steps", loop_summed_loss, False),
    ("build_cnn", cnn_linear_created_first, False),
    ("build_cnn", cnn_convs_swapped, False),
    ("build_cnn", cnn_without_padding, False),
    ("build_cnn", cnn_second_relu_forgotten, False),
    ("build_cnn", cnn_average_pools, False),
    ("build_cnn", cnn_flattened_channels_last, False),
    ("build_cnn", cnn_convs_without_bias, False),
    ("fix_zero_grad", zero_grad_never, False),
    ("fix_zero_grad", zero_grad_every_batch, False),
    ("fix_view", view_broken, False),
    ("fix_view", view_without_transpose, False),
    ("fix_float_labels", labels_broken, False),
    ("fix_float_labels", labels_as_int32, False),
    ("fix_float_labels", labels_nll_without_log_softmax, False),
    ("fix_inplace", inplace_broken, False),
    ("fix_inplace", inplace_through_data, False),
    ("fix_inplace", inplace_detached, False),
    ("fix_eval", eval_forgotten, False),
    ("fix_eval", eval_from_the_start, False),
    ("fix_eval", eval_dropout_only, False),
    ("fix_parameter", parameter_broken, False),
    ("fix_parameter", parameter_as_buffer, False),
    ("fix_shuffle", shuffle_broken, False),
    ("fix_shuffle", shuffle_reseeding_everything, False),
    ("fix_shuffle", shuffle_numpy_seed, False),
    ("fix_shuffle", shuffle_new_loader_each_epoch, False),
]
#: the broken script of each clinic exercise (what the notebook shows)
BROKEN = {"fix_zero_grad": zero_grad_never, "fix_view": view_broken,
          "fix_float_labels": labels_broken, "fix_inplace": inplace_broken,
          "fix_eval": eval_forgotten, "fix_parameter": parameter_broken,
          "fix_shuffle": shuffle_broken}


# ---------------------------------------------------------------- the checks
@pytest.mark.parametrize("name", NAMES + TRAINING)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED,
                           8 if name in TRAINING else 50)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


# ---------------------------------------------------------------- training with reftensor
def test_a_right_loop_of_another_shape_passes_and_the_reference_is_the_solution():
    """The loss read before ``backward`` is as right; the instructor's loop that the
    reference runs on torch is the notebook's solution, and passes on reftensor."""
    from autograder.course.capstone import train_steps

    for answer in (loop_item_before_backward, train_steps):
        checks.check("train_steps", answer)
        assert checks.judge("train_steps", answer, hidden_pairs("train_steps", FRESH_SEED)).passed


def hard_coded_losses(table: dict[tuple[int, int], list[float]]):
    """An answer that trains (so the weights are right) but returns the losses it was told
    for the visible runs (by their number of batches and batch size) and a guess otherwise."""

    def train_steps(lib, model, batches, optimizer):
        RIGHT["train_steps"](lib, model, batches, optimizer)
        return table.get((len(batches), len(batches[0][1])), [2.3] * len(batches))

    return train_steps


def test_hard_coded_losses_pass_the_visible_runs_and_fail_a_fresh_seed():
    """The adversarial requirement: the losses of the notebook's fixed runs, hard-coded,
    pass the visible check and fail the hidden runs the grader draws afresh (and the
    default seed's, which the notebook's hidden cell runs)."""
    from autograder.course import references

    fixed = exercises.get("train_steps").fixed
    table = {(c.args[4], c.args[3]): expected[0] for c, expected in
             zip(fixed, references.compute(exercises.get("train_steps"), list(fixed)),
                 strict=True)}
    answer = hard_coded_losses(table)
    checks.check("train_steps", answer)
    fresh = checks.judge("train_steps", answer, hidden_pairs("train_steps", FRESH_SEED))
    assert not fresh.passed and len(fresh.failures) >= fresh.total - len(fixed) - 1
    assert not checks.judge("train_steps", answer, hidden_pairs("train_steps")).passed


def test_the_tolerance_is_only_where_floats_cannot_agree():
    """``train_steps`` compares floats within a relative 1e-5 and everything else exactly
    (lengths, the modes, types); every other exercise compares exactly."""
    from autograder.course.plain import close_to

    close = exercises.get("train_steps").close
    assert close.rtol == 1e-5
    expected = ([2.3, 1.25], [True, True], [[10.0, 3.0]])
    assert close(expected, ([2.3 * (1 + 9e-6), 1.25], [True, True], [[10.0, 3.0 * (1 - 9e-6)]]))
    assert not close(expected, ([2.3 * (1 + 2e-5), 1.25], [True, True], [[10.0, 3.0]]))
    assert not close(expected, ([2.3], [True, True], [[10.0, 3.0]]))
    assert not close(expected, ([2.3, 1.25], [False, True], [[10.0, 3.0]]))
    assert not close(expected, ([2.3, 1.25], [1, True], [[10.0, 3.0]]))
    assert not close(expected, ([2.3, 1.25], [True, True], ([10.0, 3.0],)))
    assert not close([float("nan")], [1.0]) and close([float("nan")], [float("nan")])
    assert close_to(0.0)([1.0, 2], [1.0, 2]) and not close_to(0.0)([1.0], [1.0 + 2 ** -52])
    exercises.get("contiguous_strides")
    assert [n for n, e in exercises.EXERCISES.items() if e.close is not None] == CLOSE
    assert [n for n, e in exercises.EXERCISES.items() if e.library] == TRAINING
    assert all(exercises.get(name).close.rtol == 1e-5 for name in CLOSE)


def test_the_trusted_side_compares_with_the_exercises_rule():
    """The re-check's comparison of a judge's line is the notebook check's: within the
    tolerance for ``train_steps``, exactly for the others."""
    from autograder.course.plain import encode
    from autograder.grading import recheck

    close = recheck._close("train_steps")
    assert close is exercises.get("train_steps").close
    line = {"case": 0, "ok": encode([1.0 + 1e-7])}
    assert recheck._agrees([1.0], line, close) and not recheck._agrees([1.0], line)
    assert recheck._close("conv_output_size") is None
    assert recheck._library("train_steps") and not recheck._library("conv_output_size")


def test_an_answer_importing_the_instructors_loop_is_flagged():
    """The instructor's loop is readable in every sandbox (``capstone.train_steps``, the
    reference's program): an answer cell that imports it is flagged for review; the
    solution's cell is not, and naming reftensor is no flag for this exercise alone."""
    from autograder.grading.recheck import flags_in_source

    for text in ("from autograder.course.capstone import train_steps",
                 "from autograder.course import capstone",
                 "import autograder.course.capstone as c",
                 "%%time\nfrom autograder.course.capstone import train_steps\n"):
        assert flags_in_source([text]) == {"autograder.course.capstone"}, text
    for name in TRAINING:
        assert flags_in_source([answer_sources(CHAPTER)[name]]) == set(), name
    assert flags_in_source(["from autograder.course.capstone import fix_view"]) == {
        "autograder.course.capstone"}
    assert flags_in_source(["from autograder.checks import check"]) == set()


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



# ---------------------------------------------------------------- the CNN of one's own
def test_a_right_cnn_of_another_shape_passes_and_the_reference_is_the_solution():
    """A ``Sequential`` of named layers is as right as a ``Module`` subclass; the
    instructor's model that the reference runs on torch passes on reftensor, and starts
    from the parity run's CNN's first weights (``capstone.cnn``), bit for bit."""
    import torch

    from autograder.course import capstone

    for answer in (cnn_sequential, capstone.build_cnn):
        checks.check("build_cnn", answer)
        assert checks.judge("build_cnn", answer, hidden_pairs("build_cnn", FRESH_SEED)).passed
    for seed in (0, 7, FRESH_SEED):
        torch.manual_seed(seed)
        parity = list(capstone.weight_digests(capstone.cnn(torch)).values())
        torch.manual_seed(seed)
        assert list(capstone.weight_digests(capstone.build_cnn(torch)).values()) == parity


def first_weights_known(table: dict[int, dict]):
    """An answer that creates its layers in the wrong order (its first weights are other
    draws) but loads the right first weights it was told for the visible runs' seeds (read
    back through ``lib.initial_seed()``)."""

    def build_cnn(lib):
        model = cnn_linear_created_first(lib)
        known = table.get(int(lib.initial_seed()))
        if known is not None:
            model.load_state_dict({name: lib.tensor(values) for name, values in known.items()})
        return model

    return build_cnn


def test_hard_coded_first_weights_pass_the_visible_runs_and_fail_a_fresh_seed():
    """The adversarial requirement: the first weights of the notebook's fixed runs, hard-coded,
    pass the visible check and fail the hidden runs the grader draws afresh."""
    import torch

    from autograder.course import capstone

    table = {}
    for case in exercises.get("build_cnn").fixed:
        torch.manual_seed(case.args[0])
        table[case.args[0]] = {name: t.tolist() for name, t in
                               capstone.build_cnn(torch).state_dict().items()}
    answer = first_weights_known(table)
    checks.check("build_cnn", answer)
    fresh = checks.judge("build_cnn", answer, hidden_pairs("build_cnn", FRESH_SEED))
    fixed = exercises.get("build_cnn").fixed
    assert not fresh.passed and len(fresh.failures) >= fresh.total - len(fixed) - 1


COMPOSITE_CONVS = [  # (input shape, out channels, kernel, stride, padding, dilation)
    ((2, 1, 8, 8), 16, (3, 3), (1, 1), (1, 1), (1, 1)),   # the capstone's first
    ((1, 16, 4, 4), 32, (3, 3), (1, 1), (1, 1), (1, 1)),  # and second
    ((3, 2, 7, 6), 3, (2, 3), (2, 1), (0, 2), (1, 1)),    # strides, uneven padding
    ((1, 2, 9, 9), 2, (3, 2), (1, 3), (1, 0), (2, 3)),    # dilated, a stride above the kernel
    ((2, 3, 5, 5), 4, (1, 1), (1, 1), (0, 0), (1, 1)),    # 1x1
    ((0, 2, 5, 5), 3, (3, 3), (1, 1), (1, 1), (1, 1)),    # no batch
]


@pytest.mark.parametrize("shape,out,kernel,stride,padding,dilation", COMPOSITE_CONVS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_check_computes_convolutions_as_torch(shape, out, kernel, stride, padding,
                                                  dilation, dtype):
    """The composite kernels ``build_cnn``'s check runs on reftensor give torch's
    convolution, its three gradients, on contiguous and transposed inputs (float64 of
    small integers: exactly; float32: within a relative 1e-6)."""
    import torch

    import reftensor
    from autograder.course.exercises.ch10_capstone import composite_kernels

    rng = np.random.default_rng(sum(shape) + out)
    x = rng.integers(-3, 4, shape).astype(dtype)
    w = rng.integers(-3, 4, (out, shape[1], *kernel)).astype(dtype)
    b = rng.integers(-3, 4, (out,)).astype(dtype)
    found = []
    for lib in (torch, reftensor):
        xs = [lib.tensor(x, requires_grad=True),
              lib.tensor(np.ascontiguousarray(x.swapaxes(2, 3))).transpose(2, 3)]
        xs[1].requires_grad_(True)
        for xt in xs:
            wt, bt = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
            with composite_kernels(lib):
                y = lib.nn.functional.conv2d(xt, wt, bt, stride, padding, dilation)
                (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape).remainder(5)
                 ).sum().backward()
            found.append([np.asarray(t.detach().tolist(), dtype=dtype).reshape(t.shape)
                          for t in (y, xt.grad, wt.grad, bt.grad)])
    half = len(found) // 2
    for theirs, ours in zip(found[:half], found[half:], strict=True):
        for a, b_ in zip(theirs, ours, strict=True):
            assert a.shape == b_.shape
            np.testing.assert_allclose(b_, a, rtol=0 if dtype == "float64" else 1e-6,
                                       atol=0 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("shape,kernel,stride", [
    ((2, 3, 8, 8), 2, None), ((1, 2, 4, 4), 2, None), ((1, 1, 7, 5), (3, 2), (2, 1)),
    ((2, 2, 6, 6), 3, 1), ((1, 1, 5, 5), 2, 3)])
def test_the_check_computes_max_pools_as_torch(shape, kernel, stride):
    """The composite max-pool gives torch's values, indices (the first of tied maxima: the
    inputs hold many ties, ReLU's zeros among them) and gradient (overlapping windows add
    up), exactly; what it does not compute it refuses."""
    import torch

    import reftensor
    from autograder.course.exercises.ch10_capstone import composite_kernels

    rng = np.random.default_rng(sum(shape))
    x = np.maximum(rng.integers(-2, 3, shape), 0).astype(np.float32)
    found = []
    for lib in (torch, reftensor):
        xt = lib.tensor(x, requires_grad=True)
        with composite_kernels(lib):
            y, at = lib.nn.functional.max_pool2d(xt, kernel, stride, return_indices=True)
            (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        found.append((y.tolist(), at.tolist(), xt.grad.tolist()))
    assert found[0] == found[1]
    with composite_kernels(reftensor), pytest.raises(NotImplementedError):
        reftensor.nn.functional.max_pool2d(reftensor.tensor(x), 2, padding=1)
    with composite_kernels(reftensor), pytest.raises(NotImplementedError):
        reftensor.nn.functional.conv2d(reftensor.ones(1, 2, 4, 4), reftensor.ones(2, 1, 3, 3),
                                       groups=2)
    before = _cpu_kernels()
    with composite_kernels(reftensor):
        inside = _cpu_kernels()
    assert all(inside[op] is not before[op] for op in before)
    assert _cpu_kernels() == before  # the library's kernels back after the block


def _cpu_kernels() -> dict:
    """The CPU kernels of the ops whose kernels the check replaces."""
    from autograder.course.exercises.ch10_capstone import COMPOSITE_KERNELS
    from reftensor._ops import DispatchKey, aten

    return {op: aten[op].default.kernels.get(DispatchKey.CPU) for op in COMPOSITE_KERNELS}


NO_PIECE_PROGRAM = """
import json

import reftensor
from reftensor import pieces
from autograder import checks
from autograder.course import capstone

assert reftensor.__file__.startswith({edition!r}), reftensor.__file__
seen = {{}}
with pieces.trace() as used:
    try:
        model = capstone.build_cnn(reftensor)
        capstone.train_steps(reftensor, model,
                             [(reftensor.ones(2, 1, 8, 8), reftensor.tensor([0, 1]))],
                             reftensor.optim.SGD(model.parameters(), 0.1))
    except NotImplementedError as err:
        seen["alone"] = str(err).split(":")[0]
    checks.check("build_cnn", capstone.build_cnn)
seen["used"] = sorted(used)
print(json.dumps(seen))
"""


def test_the_check_needs_no_piece_of_chapter_10(tmp_path):
    """As the grader's sandbox runs it while chapter 10 is graded (chapters 1 to 9 published,
    this chapter's pieces stubs, no answer of the student's registered): the CNN alone stops
    at the first unanswered piece, and ``build_cnn``'s check passes the right model without
    running any piece of chapter 10."""
    done = run_on_student_edition(tmp_path, NO_PIECE_PROGRAM.format(
        edition=str(tmp_path / "reftensor")), published=tuple(EARLIER))
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["alone"] == "conv_output_size is a piece you write"
    assert not set(seen["used"]) & set(NAMES), seen["used"]


# ---------------------------------------------------------------- the debugging clinic
@pytest.mark.parametrize("name,answer", [("fix_view", view_contiguous),
                                         ("fix_float_labels", labels_one_hot),
                                         ("fix_parameter", parameter_registered_later)],
                         ids=["view_contiguous", "labels_one_hot", "parameter_registered_later"])
def test_a_right_fix_in_other_words_passes(name, answer):
    """``.contiguous().view`` is as right as ``reshape``, one-hot class probabilities as
    int64 labels, ``register_parameter`` as assigning a ``Parameter``."""
    checks.check(name, answer)
    assert checks.judge(name, answer, hidden_pairs(name, FRESH_SEED)).passed


@pytest.mark.parametrize("name", CLINIC)
def test_the_reference_is_the_instructors_script_and_the_notebook_shows_the_broken_one(name):
    """Each clinic exercise's reference runs ``capstone.<name>`` (it passes on reftensor);
    the notebook's broken script is the one these tests call the exercise's bug (it fails
    every hidden case: the unfixed script never passes)."""
    import inspect

    from autograder.course import capstone
    from tests.notebooks import source

    fixed = getattr(capstone, name)
    assert checks.judge(name, fixed, hidden_pairs(name, FRESH_SEED)).passed
    broken = BROKEN[name]
    shown = json.loads(source(CHAPTER).read_text())
    body = inspect.getsource(broken).split('"""', 2)[2]  # the code after the docstring
    assert any(body in cell["source"] for cell in shown["cells"]), name
    verdict = checks.judge(name, broken, hidden_pairs(name))
    assert not verdict.passed and len(verdict.failures) == verdict.total


def _hard_coded(name: str, table: dict):
    """An answer that returns what it was told for the visible runs, keyed by what it can see
    of a run (its number of batches and batch size, or its dataset's size, batch size and
    epochs), a guess otherwise; a training script runs the right script first (so every
    other value is right), a shuffle leaves the global generator alone as the right one."""
    right = RIGHT[name]

    if name == "fix_shuffle":
        def fix_shuffle(lib, dataset, seed, batch_size, epochs):
            in_order = list(range(len(dataset)))
            guess = [[in_order[i:i + batch_size] for i in range(0, len(dataset), batch_size)]
                     ] * epochs
            return table.get((len(dataset), batch_size, epochs), guess)

        return fix_shuffle

    def script(lib, model, batches, optimizer, *test_images):
        found = right(lib, model, batches, optimizer, *test_images)
        told = table.get((len(batches), len(batches[0][1])), [2.3] * len(batches))
        return (told, found[1]) if test_images else told

    return script


@pytest.mark.parametrize("name", [n for n in CLINIC if n != "fix_parameter"])
def test_hard_coded_clinic_results_pass_the_visible_runs_and_fail_a_fresh_seed(name):
    """The adversarial requirement for the clinic: a script that returns the visible runs'
    losses (or batch orders), hard-coded, passes the visible check and fails the hidden runs
    drawn afresh. (``fix_parameter`` returns a model: nothing to hard-code.)"""
    from autograder.course import references

    exercise = exercises.get(name)
    fixed = exercise.fixed
    expected = references.compute(exercise, list(fixed))
    if name == "fix_shuffle":
        table = {(c.args[2], c.args[3], c.args[4]): e[0] for c, e in zip(fixed, expected,
                                                                            strict=True)}
    else:
        table = {(c.args[5], c.args[4]): e[0] for c, e in zip(fixed, expected, strict=True)}
    answer = _hard_coded(name, table)
    checks.check(name, answer)
    fresh = checks.judge(name, answer, hidden_pairs(name, FRESH_SEED))
    assert not fresh.passed and len(fresh.failures) >= fresh.total - len(fixed) - 1


# ---------------------------------------------------------------- the student edition
EDITION_PROGRAM = """
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
"""


def test_the_student_editions_kernels_run_the_students_pieces(tmp_path):
    """In the student edition an ordinary program (a grouped nn.Conv2d, strided along one dim
    and dilated along the other, on a channels-last input holding a NaN, a max-pool with
    indices and ceil_mode, a backward pass, a max-pool of a row with two NaNs) runs the
    student's five pieces; with the instructor's answers it gives the
    reference's shapes, indices and weight gradient, and a wrong answer to any one of them
    changes what it gives (or makes it raise)."""
    assert_the_edition_runs_the_pieces(tmp_path, EDITION_PROGRAM, {
        "conv_output_size": size_without_dilation, "pool_output_size": pool_ignoring_ceil_mode,
        "window_layout": layout_stride_and_dilation_swapped, "max_pool_window": max_first_nan,
        "conv_weight_grad": grad_groups_as_one})


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path,
                                                                         monkeypatch):
    """The trusted pipeline on a fresh seed, with chapters 1 to 9 published (as they are when
    chapter 10 is graded: ``train_steps`` and the clinic's scripts run on the sandbox's
    student edition): the solution gets every automatic point (5 pieces, and 9 answers written
    with reftensor: the loop, the CNN, the clinic's 7 scripts), within the tolerance on
    reftensor in the sandbox, whose CNN runs the check's composite kernels (no piece of
    chapter 10); a training loop that hard-codes the losses of every case its notebook runs
    passes its own run and loses that exercise only, on the re-check's fresh seed; a CNN whose
    layers are created in another order loses ``build_cnn`` only. (A typical mistake,
    gradients never zeroed, fails the visible check: ``WRONG``.)"""
    from autograder.course import edition
    from autograder.grading import grade

    published = tmp_path / "published.txt"
    published.write_text("".join(f"{c}\n" for c in EARLIER))
    monkeypatch.setattr(edition, "PUBLISHED", published)
    assert grade.unpublished_for_library(NAMES + TRAINING) == []
    wrong = assert_grading_full_points_and_one_loss(
        tmp_path, CHAPTER, "train_steps", losses_known_in_the_notebook(), 49,
        more={"build_cnn": cnn_linear_created_first})
    # the adversary's own run passed every cell of the notebook: only the re-check's fresh
    # seed (cases the notebook never ran) found it out
    assert wrong.notebook_scores.get("test_train_steps_hidden"), (wrong.notes, wrong.reasons)


def losses_known_in_the_notebook() -> str:
    """An adversarial ``train_steps`` answer cell (issue 45: hard-coded losses must fail on
    the re-check's fresh seed): it trains, but returns the losses torch gives for every case
    the notebook runs (the visible ones and the hidden cell's default seed), looked up by
    the batches' labels, and a guess elsewhere. It passes every cell of its own run."""
    from autograder.course import references
    from autograder.course.exercises.ch10_capstone import _digits, batch_indices

    _, labels = _digits()
    spec = exercises.get("train_steps")
    cases = [*spec.fixed, *spec.edge, *checks.cases("train_steps", hidden=True)]
    table = {}
    for case, (losses, _, _) in zip(cases, references.compute(spec, cases), strict=True):
        seed, _, _, batch_size, steps = case.args
        rows = batch_indices(seed, batch_size, steps)
        table[tuple(int(labels[i]) for batch in rows for i in batch)] = losses
    return f"""KNOWN = {table!r}


def train_steps(lib, model, batches, optimizer):
    model.train()
    for images, labels in batches:
        optimizer.zero_grad()
        lib.nn.functional.cross_entropy(model(images), labels).backward()
        optimizer.step()
    key = tuple(int(v) for _, labels in batches for v in labels.tolist())
    return KNOWN.get(key, [2.3] * len(batches))
"""


#: the chapters before the capstone, whose pieces its training exercises run on
EARLIER = ["ch01_storage", "ch02_views", "ch03_broadcasting", "ch04_dtype_device",
           "ch05_autograd", "ch06_modules", "ch07_data", "ch08_rng", "ch09_dispatch"]
