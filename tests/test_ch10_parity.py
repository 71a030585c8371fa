"""The capstone's parity run (chapter 10, issue 45): ``autograder/course/capstone.py``'s one
program trains the digits CNN and the MLP baseline on torch and on reftensor, and the two runs
agree: the same split, the same batches (indices, bit for bit), the same first weights (bytes),
per-step losses within a relative 1e-4 and gradient norms as close.

The fast tier runs the first :data:`STEPS` steps of each run (the CNN with SGD and momentum
and with Adam, the MLP with each); the full tier runs the whole of every run and checks the
accuracy targets: at least 95% test accuracy on both libraries, within 1 percentage point.

torch runs on one thread here (restored after): on a shared two-core machine its default two
threads wait on each other for tens of milliseconds a step, and the models are tiny.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import torch

import reftensor

# ``import torch`` imports torch.utils.data; ``import reftensor`` leaves reftensor.utils.data to
# its user (reftensor/utils/__init__.py: the workers' multiprocessing costs every import 10 ms)
import reftensor.utils.data  # noqa: F401
from autograder.course import capstone

#: Steps of the shortened run (the first epoch has 40).
STEPS = 30
#: The largest relative difference of a step's loss, or of its gradient norm.
RELATIVE = 1e-4

RUNS = [("cnn", "sgd"), ("cnn", "adam"), ("mlp", "sgd"), ("mlp", "adam")]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _both(model: str, optimizer: str, **kwargs: Any) -> tuple[capstone.Record, capstone.Record]:
    return (capstone.train(torch, model, optimizer, **kwargs),
            capstone.train(reftensor, model, optimizer, **kwargs))


@pytest.fixture(scope="module")
def shortened() -> dict[tuple[str, str], dict[str, Any]]:
    runs = {}
    for key in RUNS:
        expected, got = _both(*key, max_steps=STEPS)
        runs[key] = {"torch": expected, "reftensor": got,
                     "compare": capstone.compare(expected, got)}
    return runs


@pytest.mark.parametrize("model", ["cnn", "mlp"])
@pytest.mark.parametrize("seed", [0, 7])
def test_first_weights_are_torchs_bit_for_bit(model, seed):
    weights = {}
    for lib in (torch, reftensor):
        lib.manual_seed(seed)
        weights[lib] = {k: (str(v.dtype).split(".")[-1], tuple(v.shape),
                            v.detach().numpy().tobytes())
                        for k, v in capstone.MODELS[model](lib).state_dict().items()}
    assert list(weights[torch]) == list(weights[reftensor])
    assert weights[torch] == weights[reftensor]


def test_the_data_and_the_split_are_torchs():
    images, labels = capstone.load_digits_tensors(reftensor)
    t_images, t_labels = capstone.load_digits_tensors(torch)
    assert tuple(images.shape) == (1797, 1, 8, 8) and images.dtype == reftensor.float32
    assert labels.dtype == reftensor.int64
    assert images.numpy().tobytes() == t_images.numpy().tobytes()
    assert 0.0 == images.min().item() and images.max().item() == 1.0
    subsets = {lib: capstone.split(lib, list(range(1797))) for lib in (torch, reftensor)}
    assert [len(s) for s in subsets[reftensor]] == list(capstone.SPLIT_SIZES)
    assert [list(s.indices) for s in subsets[torch]] == [list(s.indices)
                                                         for s in subsets[reftensor]]
    assert sorted(i for s in subsets[reftensor] for i in s.indices) == list(range(1797))


@pytest.mark.parametrize("key", RUNS, ids="-".join)
def test_the_shortened_run_is_torchs(shortened, key):
    run = shortened[key]
    expected, got, found = run["torch"], run["reftensor"], run["compare"]
    assert len(got.losses) == len(expected.losses) == STEPS
    assert found["same_split"]
    assert got.batches == expected.batches
    assert all(len(b) == expected.batch_size for b in got.batches)
    assert got.initial_weights == expected.initial_weights
    np.testing.assert_allclose(got.losses, expected.losses, rtol=RELATIVE, atol=0)
    np.testing.assert_allclose(got.grad_norms, expected.grad_norms, rtol=RELATIVE, atol=0)
    assert found["max_loss_rel_diff_first_epoch"] <= RELATIVE


def test_compare_sees_a_different_batch_weight_and_loss(shortened):
    """The measure itself: a record changed in one batch index, one weight or one loss reads
    as different."""
    expected = shortened[("mlp", "sgd")]["torch"]
    changed = dataclasses.replace(
        expected, batches=[list(b) for b in expected.batches],
        initial_weights=dict(expected.initial_weights), losses=list(expected.losses))
    assert capstone.compare(expected, changed)["same_batches"]
    changed.batches[3][5] += 1
    changed.initial_weights["1.weight"] = "0" * 64
    changed.losses[7] *= 1 + 3 * RELATIVE
    found = capstone.compare(expected, changed)
    assert not found["same_batches"] and not found["same_initial_weights"]
    assert found["max_loss_rel_diff_first_epoch"] > RELATIVE
    assert found["step_of_max_loss_rel_diff"] == 7


@pytest.mark.full
@pytest.mark.parametrize("key", RUNS, ids="-".join)
def test_the_full_run_reaches_the_targets_on_both(key, record_property):
    expected, got = _both(*key)
    found = capstone.compare(expected, got)
    for name in ("max_loss_rel_diff_first_epoch", "max_loss_rel_diff", "max_grad_norm_rel_diff",
                 "test_accuracy", "accuracy_gap_points"):
        record_property(name, found[name])
    record_property("wall_seconds", (expected.wall_seconds, got.wall_seconds))
    assert found["same_split"] and found["same_batches"] and found["same_initial_weights"]
    assert found["max_loss_rel_diff_first_epoch"] <= RELATIVE
    assert np.isfinite(found["max_loss_rel_diff"])
    assert expected.test_accuracy >= 0.95 and got.test_accuracy >= 0.95
    assert found["accuracy_gap_points"] <= 1.0
