"""The capstone's parity run (issue 45): one program, written once against the ``lib`` it is
given (``torch`` or ``reftensor``), trains a small CNN and an MLP baseline on scikit-learn's
bundled digits and records every step, so that the two libraries' runs can be compared.

The data: ``sklearn.datasets.load_digits`` (1,797 8x8 greyscale images of the digits 0-9, pixel
values 0-16, bundled with scikit-learn: nothing is downloaded), as float32 images ``(N, 1, 8,
8)`` scaled to [0, 1] (pixel / 16, exact in float32) and int64 labels.

The split (:func:`split`): ``lib.utils.data.random_split`` into train / validation / test of
:data:`SPLIT_SIZES` = 1,257 / 270 / 270 images (70% / 15% / 15%), drawn by
``lib.Generator().manual_seed(SPLIT_SEED)`` with ``SPLIT_SEED = 0``: one permutation of
``range(1797)`` cut in that order, the same subsets on both libraries.

A run (:func:`train`): ``lib.manual_seed(seed)``, then the model is built (its first weights are
the default generator's first draws, so they are bit for bit the same on both libraries); the
training batches come from a ``DataLoader`` over the train subset with ``shuffle=True`` and
its own generator ``lib.Generator().manual_seed(seed + 1)``; the loss is
``lib.nn.functional.cross_entropy``; the optimizer is ``SGD(lr, momentum=0.9)`` or
``Adam(lr)``. Each step records the loss, the float64 norm of all the gradients and the
dataset indices of the batch's images; each epoch ends with the validation accuracy; the run
ends with the test accuracy. The record is plain data (:class:`Record`).

:func:`compare` reads two records (torch's and reftensor's) and says how far apart they are.

This module never imports torch or reftensor: the library is a parameter. It reaches the data
loading as ``lib.utils.data``, which ``import torch`` imports but ``import reftensor`` does not
(``reftensor/utils/__init__.py``: it would cost every import the workers' ``multiprocessing``):
with reftensor, ``import reftensor.utils.data`` first.

The numbers of the full run (``tests/test_ch10_parity.py`` checks them in the full tier): the
four runs have the same split, batches and first weights on both libraries; the largest
relative difference of a step's loss over the first epoch is about 2e-7 (float32 rounding in
a different order); over the 25 epochs it grows to about 4e-2 with SGD (at steps whose loss is
near 3e-3), as it does between two torch runs of the MLP whose first weights differ in one
ulp (the same 3e-2, epoch for epoch), and stays near 3e-6 with Adam on the MLP; the test accuracies are the same on both libraries (CNN 98.5%
with SGD, 97.8% with Adam; MLP 97.4% and 96.3%).
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SPLIT_SIZES", "SPLIT_SEED", "RUN_VARIABLE", "SETTINGS", "Record", "load_digits_tensors", "split",
           "cnn", "mlp", "build_cnn", "weight_digests", "train_steps", "train", "compare",
           "fix_zero_grad", "fix_view", "fix_float_labels", "fix_inplace", "fix_eval",
           "fix_parameter", "fix_shuffle"]

#: Train / validation / test sizes of the 1,797 digits (70% / 15% / 15%).
SPLIT_SIZES = (1257, 270, 270)
#: The seed of the split's generator.
SPLIT_SEED = 0

#: The environment variable naming a full run's JSON (``capstone_run``) for chapter 10's
#: notebook: the site build sets it for its kernels.
RUN_VARIABLE = "REFTENSOR_CAPSTONE_RUN"

#: Learning rate, epochs and batch size of the full run, per (model, optimizer): each trains to
#: at least 95% test accuracy on torch.
SETTINGS: dict[tuple[str, str], dict[str, Any]] = {
    ("cnn", "sgd"): {"lr": 0.05, "epochs": 25, "batch_size": 32},
    ("cnn", "adam"): {"lr": 1e-3, "epochs": 25, "batch_size": 32},
    ("mlp", "sgd"): {"lr": 0.05, "epochs": 25, "batch_size": 32},
    ("mlp", "adam"): {"lr": 1e-3, "epochs": 25, "batch_size": 32},
}


def load_digits_tensors(lib: Any) -> tuple[Any, Any]:
    """The 1,797 digits as ``(images, labels)``: float32 ``(1797, 1, 8, 8)`` in [0, 1] (pixel
    / 16) and int64 ``(1797,)``."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    labels = digits.target.astype(np.int64)
    return lib.tensor(images), lib.tensor(labels)


def split(lib: Any, dataset: Any, seed: int = SPLIT_SEED) -> list[Any]:
    """``dataset`` cut into train / validation / test ``Subset``s of :data:`SPLIT_SIZES`
    (1,257 / 270 / 270) by ``random_split`` with ``lib.Generator().manual_seed(seed)``."""
    return lib.utils.data.random_split(dataset, list(SPLIT_SIZES),
                                       generator=lib.Generator().manual_seed(seed))


def cnn(lib: Any) -> Any:
    """Two 3x3 convolutions (1 -> 16 -> 32 channels, padding 1), each followed by ReLU and a
    2x2 max-pool (8x8 -> 4x4 -> 2x2), then a Linear layer from the 128 features to 10 logits."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def mlp(lib: Any) -> Any:
    """The baseline: the 64 pixels, a hidden layer of 128 with ReLU, 10 logits."""
    nn = lib.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def build_cnn(lib: Any) -> Any:
    """Chapter 10's exercise ``build_cnn`` as the instructor writes it (what its reference runs
    on torch): :func:`cnn` as a ``Module`` subclass of its own, ``DigitsCNN``, whose
    parameters are ``conv1``'s, ``conv2``'s and ``fc``'s. Its layers are created in the order
    they run, so their first weights are the generator's draws in :func:`cnn`'s order (the
    same, bit for bit, under the same seed)."""
    nn = lib.nn
    F = lib.nn.functional

    class DigitsCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc = nn.Linear(32 * 2 * 2, 10)

        def forward(self, images: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(images)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc(x.flatten(1))

    return DigitsCNN()


MODELS = {"cnn": cnn, "mlp": mlp}


def weight_digests(model: Any) -> dict[str, str]:
    """Each ``state_dict`` entry's name -> the sha256 of its values' bytes (C order), its
    dtype and shape."""
    digests = {}
    for name, tensor in model.state_dict().items():
        values = tensor.detach().cpu().numpy()
        digest = hashlib.sha256(f"{values.dtype}{values.shape}".encode())
        digest.update(np.ascontiguousarray(values).tobytes())
        digests[name] = digest.hexdigest()
    return digests


@dataclass
class Record:
    """One run, as plain data: per step (``losses[i]``, ``grad_norms[i]``, ``batches[i]``,
    ``epochs_of_steps[i]``), per epoch (``val_accuracies``), and the run's result."""

    library: str
    model: str
    optimizer: str
    lr: float
    batch_size: int
    seed: int
    losses: list[float] = field(default_factory=list)
    grad_norms: list[float] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    epochs_of_steps: list[int] = field(default_factory=list)
    val_accuracies: list[float] = field(default_factory=list)
    test_accuracy: float = float("nan")
    initial_weights: dict[str, str] = field(default_factory=dict)
    final_weights: dict[str, str] = field(default_factory=dict)
    split_indices: list[list[int]] = field(default_factory=list)
    #: The whole run: loading the data, the split, training and the evaluations.
    wall_seconds: float = float("nan")


def train_steps(lib: Any, model: Any, batches: Any, optimizer: Any) -> list[float]:
    """The training loop of chapter 10's exercise ``train_steps``, as the instructor writes
    it (what its reference runs on torch): the model in training mode, then per ``(images,
    labels)`` batch ``zero_grad``, ``cross_entropy``, ``backward``, ``step``; the losses."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _accuracy(lib: Any, model: Any, subset: Any) -> float:
    """The fraction of ``subset``'s images whose largest logit is their label."""
    loader = lib.utils.data.DataLoader(subset, batch_size=len(subset))
    correct = 0
    with lib.no_grad():
        for images, labels, _ in loader:
            correct += int((model(images).argmax(dim=1) == labels).sum().item())
    return correct / len(subset)


def _grad_norm(lib: Any, parameters: list[Any]) -> float:
    """The 2-norm of all the gradients together, summed in float64."""
    squares = [p.grad.detach().to(lib.float64).pow(2).sum() for p in parameters
               if p.grad is not None]
    return math.sqrt(float(lib.stack(squares).sum().item()))


def train(lib: Any, model: str = "cnn", optimizer: str = "sgd", epochs: int | None = None,
          max_steps: int | None = None, seed: int = 0, batch_size: int | None = None,
          lr: float | None = None) -> Record:
    """Train ``model`` (``"cnn"`` or ``"mlp"``) with ``optimizer`` (``"sgd"``: momentum 0.9,
    or ``"adam"``) on ``lib``; ``epochs``, ``batch_size`` and ``lr`` default to
    :data:`SETTINGS`'s. ``max_steps`` stops the run after that many steps (the last epoch
    then ends early; its validation accuracy is still recorded). Returns the :class:`Record`."""
    settings = SETTINGS[(model, optimizer)]
    epochs = settings["epochs"] if epochs is None else epochs
    batch_size = settings["batch_size"] if batch_size is None else batch_size
    lr = settings["lr"] if lr is None else lr
    record = Record(library=lib.__name__, model=model, optimizer=optimizer, lr=lr,
                    batch_size=batch_size, seed=seed)
    start = time.perf_counter()

    images, labels = load_digits_tensors(lib)
    dataset = lib.utils.data.TensorDataset(images, labels, lib.arange(len(labels)))
    train_set, val_set, test_set = split(lib, dataset)
    record.split_indices = [list(s.indices) for s in (train_set, val_set, test_set)]

    lib.manual_seed(seed)
    net = MODELS[model](lib)
    record.initial_weights = weight_digests(net)
    parameters = list(net.parameters())
    if optimizer == "sgd":
        opt = lib.optim.SGD(parameters, lr=lr, momentum=0.9)
    elif optimizer == "adam":
        opt = lib.optim.Adam(parameters, lr=lr)
    else:
        raise ValueError(f"optimizer must be 'sgd' or 'adam', not {optimizer!r}")
    loader = lib.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=True,
                                       generator=lib.Generator().manual_seed(seed + 1))

    step = 0
    for epoch in range(epochs):
        net.train()
        for batch_images, batch_labels, batch_indices in loader:
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(net(batch_images), batch_labels)
            loss.backward()
            record.grad_norms.append(_grad_norm(lib, parameters))
            opt.step()
            record.losses.append(float(loss.item()))
            record.batches.append(batch_indices.tolist())
            record.epochs_of_steps.append(epoch)
            step += 1
            if max_steps is not None and step >= max_steps:
                break
        net.eval()
        record.val_accuracies.append(_accuracy(lib, net, val_set))
        if max_steps is not None and step >= max_steps:
            break

    record.test_accuracy = _accuracy(lib, net, test_set)
    record.final_weights = weight_digests(net)
    record.wall_seconds = time.perf_counter() - start
    return record


def _relative(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-30)


def compare(torch_record: Record, ref_record: Record) -> dict[str, Any]:
    """How far ``ref_record`` is from ``torch_record``, as plain data: the largest per-step
    relative loss difference over the first epoch and over the whole run (and the steps where
    they are), the largest relative gradient-norm difference, whether the split, the batches
    and the initial weights are identical, the final weights too, and the accuracy gap (in
    percentage points)."""
    steps = min(len(torch_record.losses), len(ref_record.losses))
    loss_diffs = [_relative(a, b) for a, b in zip(torch_record.losses, ref_record.losses)]
    norm_diffs = [_relative(a, b) for a, b in zip(torch_record.grad_norms, ref_record.grad_norms)]
    first = [d for d, e in zip(loss_diffs, torch_record.epochs_of_steps) if e == 0]
    return {
        "model": torch_record.model, "optimizer": torch_record.optimizer,
        "steps": steps,
        "same_step_count": len(torch_record.losses) == len(ref_record.losses),
        "same_split": torch_record.split_indices == ref_record.split_indices,
        "same_batches": torch_record.batches == ref_record.batches,
        "same_initial_weights": torch_record.initial_weights == ref_record.initial_weights,
        "same_final_weights": torch_record.final_weights == ref_record.final_weights,
        "max_loss_rel_diff_first_epoch": max(first, default=0.0),
        "max_loss_rel_diff": max(loss_diffs, default=0.0),
        "step_of_max_loss_rel_diff": int(np.argmax(loss_diffs)) if loss_diffs else -1,
        "max_grad_norm_rel_diff": max(norm_diffs, default=0.0),
        "test_accuracy": (torch_record.test_accuracy, ref_record.test_accuracy),
        "accuracy_gap_points": 100 * abs(torch_record.test_accuracy
                                         - ref_record.test_accuracy),
    }


# ---------------------------------------------------------------- the debugging clinic
# The instructor's fixed scripts of chapter 10's debugging clinic (exercises 8 to 14): what
# each exercise's reference runs on torch (``exercises.ch10_capstone``'s harnesses build the
# model, the optimizer and the batches, run a script and read its results as plain data).
# Each is the notebook's broken script with its one bug fixed, the fix marked.


def fix_zero_grad(lib: Any, model: Any, batches: Any, optimizer: Any) -> list[float]:
    """Gradient accumulation: one optimizer step per two batches, each batch's loss halved
    (the mean over both batches' samples); the losses, as floats."""
    model.train()
    losses = []
    for i, (images, labels) in enumerate(batches):
        loss = lib.nn.functional.cross_entropy(model(images), labels) / 2
        loss.backward()
        losses.append(loss.item())
        if i % 2 == 1:
            optimizer.step()
            optimizer.zero_grad()  # the fix: the next pair starts from zero
    return losses


def fix_view(lib: Any, model: Any, batches: Any, optimizer: Any) -> list[float]:
    """Batches of images stored column by column (``pixels[b, j, i]`` is pixel ``(i, j)``):
    each image's 64 pixels, row by row, into the model; one step per batch; the losses."""
    model.train()
    losses = []
    for pixels, labels in batches:
        optimizer.zero_grad()
        inputs = pixels.transpose(1, 2).reshape(-1, 64)  # the fix: reshape copies if it must
        loss = lib.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def fix_float_labels(lib: Any, model: Any, batches: Any, optimizer: Any) -> list[float]:
    """Labels read as float32 (class numbers 0.0 to 9.0); one step per batch; the losses."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels.long())  # the fix
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def fix_inplace(lib: Any, model: Any, batches: Any, optimizer: Any) -> list[float]:
    """A smoothed loss: the softmax's probabilities scaled by 0.9 plus 0.01 (no class below
    1%), then the negative log-likelihood; one step per batch; the losses."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        probs = lib.softmax(model(images), dim=1)
        smoothed = probs * 0.9 + 0.01  # the fix: softmax's backward reads probs as it was
        loss = lib.nn.functional.nll_loss(smoothed.log(), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def fix_eval(lib: Any, model: Any, batches: Any, optimizer: Any,
             test_images: Any) -> tuple[list[float], Any]:
    """One step per batch in training mode, then the test images' logits (no gradients);
    the losses and the logits."""
    model.train()
    losses = []
    for images, labels in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()  # the fix: Dropout off, BatchNorm's running statistics (and left as they are)
    with lib.no_grad():
        logits = model(test_images)
    return losses, logits


def fix_parameter(lib: Any) -> Any:
    """A linear classifier of the 64 pixels with a learned scale per class (ones at first)."""

    class ScaledLinear(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = lib.nn.Linear(64, 10)
            self.scale = lib.nn.Parameter(lib.ones(10))  # the fix: a Parameter, so trained

        def forward(self, images: Any) -> Any:
            return self.linear(images.flatten(1)) * self.scale

    return ScaledLinear()


def fix_shuffle(lib: Any, dataset: Any, seed: int, batch_size: int, epochs: int
                ) -> list[list[list[int]]]:
    """Each epoch's batches of a shuffled ``DataLoader`` over ``dataset`` (its one tensor
    holds the sample numbers), the same for the same ``seed``: per epoch, each batch's
    sample numbers."""
    loader = lib.utils.data.DataLoader(
        dataset, batch_size=batch_size, shuffle=True,
        generator=lib.Generator().manual_seed(seed))  # the fix: its own seeded generator
    return [[batch.tolist() for (batch,) in loader] for _ in range(epochs)]
