"""The capstone's pooling (chapter 10, issue 45): ``nn.functional``'s max and average pools
and the layers ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d`` against torch 2.13:
values bit for bit, strides for each input layout, gradients (and gradients of gradients),
the nodes' names, reprs. The ops' own conformance runs are ``tests/op_db.py``'s entries and
torch's OpInfo samples (``tests/test_opinfo.py``)."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import reftensor
from tests.opinfo import convert


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach().tolist())


def _same(expected: torch.Tensor, got: reftensor.Tensor) -> None:
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(_values(got), expected.detach().numpy())
    assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__


def _layouts(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """``x`` (4-d) contiguous, channels-last, permuted, and a stepped slice of a bigger
    tensor."""
    big = torch.zeros(x.shape[0], x.shape[1], x.shape[2] * 2, x.shape[3] + 1, dtype=x.dtype)
    big[:, :, ::2, 1:] = x
    return {"contiguous": x, "channels_last": x.contiguous(memory_format=torch.channels_last),
            "permuted": x.permute(0, 1, 3, 2).contiguous().permute(0, 1, 3, 2),
            "sliced": big[:, :, ::2, 1:]}


POOLS = {
    "max_pool2d": lambda F, x: F.max_pool2d(x, 3, 2, 1),
    "max_pool2d, indices, dilation, ceil_mode": lambda F, x: F.max_pool2d(
        x, (2, 3), 1, 1, 2, True, True),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    "avg_pool2d, ceil_mode, count_include_pad=False": lambda F, x: F.avg_pool2d(
        x, 2, 2, 1, True, False),
    "avg_pool2d, divisor_override": lambda F, x: F.avg_pool2d(x, (3, 2), 1, 1, False, True, 5),
}


@pytest.mark.parametrize("pool", list(POOLS))
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "permuted", "sliced"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pool_values_strides_and_gradients_are_torchs(pool, layout, dtype):
    torch.manual_seed(0)
    x = _layouts(torch.randn(2, 3, 7, 6, dtype=dtype))[layout].requires_grad_()
    rx = convert(x)
    expected, got = POOLS[pool](torch.nn.functional, x), POOLS[pool](reftensor.nn.functional, rx)
    if isinstance(expected, tuple):
        _same(expected[1], got[1])
        expected, got = expected[0], got[0]
    _same(expected, got)
    g = torch.randn(expected.shape, dtype=dtype, requires_grad=True)
    rg = convert(g)
    (gx,) = torch.autograd.grad(expected, x, g, create_graph=True)
    (rgx,) = reftensor.autograd.grad(got, rx, rg, create_graph=True)
    _same(gx, rgx)
    h = torch.randn(gx.shape, dtype=dtype)
    (gg,) = torch.autograd.grad(gx, g, h)
    (rgg,) = reftensor.autograd.grad(rgx, rg, convert(h))
    np.testing.assert_array_equal(_values(rgg), gg.numpy())


def test_max_pool_picks_torchs_index_among_ties_nans_and_infinities():
    """The first maximum of a window, its last nan, and for a window of -inf its first
    element inside the input."""
    x = torch.tensor([[[1.0, 1.0, float("nan"), 0.0, float("nan")],
                       [float("-inf"), float("-inf"), 2.0, 2.0, 1.0],
                       [float("-inf"), float("-inf"), 0.0, float("nan"), 3.0]]])
    for args in [(2, 1, 1), (3, 1, 1), ((2, 3), (1, 2), (1, 1), (1, 2), True)]:
        values, indices = torch.nn.functional.max_pool2d(x, *args, return_indices=True)
        got = reftensor.nn.functional.max_pool2d(convert(x), *args, return_indices=True)
        _same(values, got[0])
        _same(indices, got[1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_avg_pool2d_into_its_own_input_reads_what_it_wrote(dtype):
    """torch's kernel writes each output into the memory it reads (zeroed first): the
    result differs from a fresh output's, and reftensor's is torch's."""
    x = torch.arange(1, 33).to(dtype).reshape(2, 4, 4)
    rx = convert(x)
    torch._C._nn.avg_pool2d(x, 3, 1, 1, out=x)
    reftensor.nn.functional.avg_pool2d(rx, 3, 1, 1, out=rx)
    np.testing.assert_array_equal(_values(rx), x.numpy())
    assert rx._version == x._version


#: (shape, avg_pool2d's arguments): outputs as large as the input or smaller (a larger one
#: grows the storage, whose new elements torch leaves uninitialized), windows that hold
#: their own output position, padding, ceil_mode, divisor_override, 1x1 and 3-d inputs
INTO_ITSELF = [((1, 2, 4, 4), (2,)), ((2, 3, 5, 5), (3, 1, 1)),
               ((1, 16, 6, 6), (3, 2, 1, True, False)), ((2, 4, 4), (3, 1, 1)),
               ((1, 8, 5, 7), (2, 1)), ((1, 3, 6, 6), ((2, 3), (1, 2), (1, 1), False, True, 5)),
               ((2, 20, 9, 9), (3, 1, 1)), ((1, 1, 4, 4), (3, 1, 1)), ((2, 3, 1, 1), (1,)),
               ((1, 9, 3, 3), (1,)), ((0, 3, 4, 4), (2,))]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32,
                                   torch.float64, torch.int64])
def test_avg_pool2d_into_its_own_input_of_every_layout(dtype):
    """``avg_pool2d(x, ..., out=x)``, contiguous or channels-last, float16 too: no error,
    ``x`` resized and written as torch's CPU loops write it (the contiguous one zeroes each
    output before reading its window; the channels-last one sums into the output's lane of
    channels, float16 and bfloat16 in a float32 buffer with the lane left as it was). torch
    runs on one thread here: with several, its threads read what the others write, a race
    whose result changes from run to run."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(4)
        for (shape, args), channels_last in itertools.product(INTO_ITSELF, (False, True)):
            if channels_last and len(shape) != 4:
                continue
            x = (torch.randn(shape) * 10).to(dtype)
            if channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            rx = convert(x.clone().as_strided(x.shape, x.stride()))
            versions = x._version, rx._version
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (torch's and reftensor's resize warning)
                assert torch._C._nn.avg_pool2d(x, *args, out=x) is x
                assert reftensor.nn.functional.avg_pool2d(rx, *args, out=rx) is rx
            assert tuple(rx.shape) == tuple(x.shape) and rx.stride() == x.stride()
            np.testing.assert_array_equal(_values(rx).reshape(x.shape), x.double().numpy())
            assert rx._version - versions[1] == x._version - versions[0]
    finally:
        torch.set_num_threads(threads)


def test_the_pool_layers_are_torchs():
    for args in [(2,), ((2, 3), 1, 1, 2, False, True), (3, None, 1)]:
        assert repr(reftensor.nn.MaxPool2d(*args)) == repr(torch.nn.MaxPool2d(*args))
    for args in [(2,), (3, 2, 1, True, False, 4), ((2, 3),)]:
        assert repr(reftensor.nn.AvgPool2d(*args)) == repr(torch.nn.AvgPool2d(*args))
    for args in [(2,), (3, 2, 1)]:
        assert repr(reftensor.nn.MaxPool1d(*args)) == repr(torch.nn.MaxPool1d(*args))
        assert repr(reftensor.nn.AvgPool1d(*args)) == repr(torch.nn.AvgPool1d(*args))
    torch.manual_seed(1)
    x = torch.randn(2, 3, 8, 8, requires_grad=True)
    rx = convert(x)
    for make in (lambda nn: nn.MaxPool2d(2), lambda nn: nn.AvgPool2d(3, 2, 1, True, False),
                 lambda nn: nn.MaxPool2d(3, 2, 1, return_indices=True)):
        expected, got = make(torch.nn)(x), make(reftensor.nn)(rx)
        expected, got = (expected[0], got[0]) if isinstance(expected, tuple) else (expected, got)
        _same(expected, got)
    for make in (lambda nn: nn.MaxPool1d(3, 2, 1), lambda nn: nn.AvgPool1d(3, 2, 1)):
        _same(make(torch.nn)(x[0]), make(reftensor.nn)(rx[0]))
