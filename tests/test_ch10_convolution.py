"""Chapter 10's convolution against torch 2.13: ``conv1d``/``conv2d`` (``padding='same'``
with an uneven split too), the transposed ``convolution``, the result's and gradients'
layouts for contiguous, channels-last, permuted and sliced inputs, and the modules
``nn.Conv1d``/``nn.Conv2d``: their first values bit for bit after the same seed (several
seeds), their reprs and their errors.

Every program runs on both libraries; nothing expected is written down here.
"""

from __future__ import annotations

import itertools
import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import reftensor
from tests.opinfo import convert

SEEDS = (0, 1, 7, 2024)
#: float32 sums in another order than oneDNN's: measured within 4 ulps of the largest
#: magnitude (300 random cases), 8 for the bias's gradient (a sum over the batch and
#: positions)
ULPS = 16


def _assert_close(got: Any, expected: torch.Tensor) -> None:
    e = expected.detach().double().numpy()
    g = np.asarray(got.detach().tolist(), dtype=np.float64).reshape(e.shape)
    if not e.size:
        return
    eps = torch.finfo(expected.dtype).eps
    scale = max(float(np.abs(e).max()), 1.0)
    assert np.abs(g - e).max() <= ULPS * eps * scale, (g, e)


def _run(fn: Any, tensors: tuple[torch.Tensor | None, ...], dtype: torch.dtype = torch.float64,
         ) -> None:
    """``fn(lib, *tensors)`` on both libraries (the tensors as leaves that require grad,
    with their strides): shape, strides, node name, values, then each input's gradient
    (values and, over dims of size 2 or more, strides) for one output gradient."""
    t_in = [None if t is None else t.to(dtype).detach().requires_grad_() for t in tensors]
    t_in = [None if t is None else t.detach().as_strided(t.shape, t.stride()).requires_grad_()
            for t in t_in]
    r_in = [None if t is None else convert(t) for t in t_in]
    expected = fn(torch, *t_in)
    got = fn(reftensor, *r_in)
    assert tuple(got.shape) == tuple(expected.shape)
    assert tuple(got.stride()) == tuple(expected.stride())
    assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__
    _assert_close(got, expected)
    grad = torch.randn(expected.shape, dtype=dtype)
    expected.backward(grad)
    got.backward(convert(grad))
    for t, r in zip(t_in, r_in, strict=True):
        if t is None:
            continue
        _assert_close(r.grad, t.grad)
        big = [d for d in range(t.dim()) if t.shape[d] > 1]
        assert [r.grad.stride()[d] for d in big] == [t.grad.stride()[d] for d in big]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kernel,dilation", [(2, 1), (4, 1), (3, 1), (2, 2), (4, 3)])
def test_same_padding_keeps_the_size_even_split_or_not(kernel, dilation, dtype):
    """'same' pads by ``dilation * (kernel - 1)``, the odd element on the right (the input
    padded with zeros first, with torch's warning)."""
    torch.manual_seed(kernel * 10 + dilation)
    x, w, b = torch.randn(2, 4, 6, 7), torch.randn(6, 2, kernel, 3), torch.randn(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _run(lambda lib, x, w, b: lib.nn.functional.conv2d(
            x, w, b, padding="same", dilation=(dilation, 1), groups=2), (x, w, b), dtype)
        _run(lambda lib, x, w: lib.nn.functional.conv1d(x, w, padding="same",
                                                        dilation=dilation),
             (x[0], w[:, :, :, 0].repeat(1, 3, 1)), dtype)


def _layouts(x: torch.Tensor) -> list[torch.Tensor]:
    """The input as it is, channels-last, permuted (H and W swapped) and sliced."""
    return [x, x.contiguous(memory_format=torch.channels_last),
            x.transpose(2, 3).contiguous().transpose(2, 3),
            torch.cat([x, x], dim=3)[:, :, :, ::2]]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_layouts_of_the_result_and_gradients_are_torchs(dtype):
    torch.manual_seed(0)
    x, w, b = torch.randn(2, 4, 5, 6), torch.randn(6, 2, 3, 2), torch.randn(6)
    for xl, wl in itertools.product(_layouts(x), _layouts(w)):
        for options in ({}, {"stride": 2, "padding": 1}, {"dilation": (2, 1)}):
            _run(lambda lib, x, w, b, o=options: lib.nn.functional.conv2d(
                x, w, b, groups=2, **o), (xl, wl, b), dtype)
    x1, w1 = x[:, :, 0], w[:, :, 0]  # 1-d: the 2-d convolution of unsqueeze(2)
    for xl, wl in itertools.product([x1, x1.mT.contiguous().mT, x1[:, :, ::2], x1[:1]],
                                    [w1, w1.mT.contiguous().mT, w1[:, :, :1]]):
        _run(lambda lib, x, w: lib.nn.functional.conv1d(x, w, groups=2), (xl, wl), dtype)


@pytest.mark.parametrize("dims", [1, 2])
def test_transposed_convolution_and_its_gradients(dims):
    torch.manual_seed(dims)
    for stride, padding, dilation, output_padding, groups in [
            (1, 0, 1, 0, 1), (2, 1, 1, 1, 2), (3, 2, 2, 1, 1), (2, 0, 3, 2, 2)]:
        x = torch.randn(2, 4, *(4,) * dims)
        w = torch.randn(4, 3, *(3,) * dims)
        b = torch.randn(3 * groups)
        _run(lambda lib, x, w, b, s=stride, p=padding, d=dilation, o=output_padding,
             g=groups: lib.convolution(x, w, b, [s] * dims, [p] * dims, [d] * dims, True,
                                       [o] * dims, g), (x, w, b))


def test_the_meta_device_lays_results_out_as_torchs_meta_functions():
    """torch's Python meta functions: the forward contiguous, the backward channels-last
    when the input or weight looks it."""
    for x_shape, w_shape, cl in itertools.product(
            [(2, 4, 5, 5), (2, 1, 5, 5), (1, 4, 3, 1)], [(6, 2, 1, 1), (6, 2, 3, 1)],
            [(False, False), (True, False), (False, True)]):
        results = []
        for lib in (torch, reftensor):
            x = lib.empty(x_shape, device="meta")
            groups = 2 if x_shape[1] % 2 == 0 else 1
            w = lib.empty((6, x_shape[1] // groups, *w_shape[2:]), device="meta")
            x = x.contiguous(memory_format=lib.channels_last) if cl[0] else x
            w = w.contiguous(memory_format=lib.channels_last) if cl[1] else w
            out = lib.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], groups)
            g = lib.empty(out.shape, device="meta")
            op = torch.ops.aten.convolution_backward if lib is torch else \
                reftensor._ops.aten.convolution_backward
            grads = op(g, x, w, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], groups,
                       [True] * 3)
            results.append([(tuple(t.shape), tuple(t.stride())) for t in (out, *grads)])
        assert results[0] == results[1], (x_shape, w_shape, cl)


CONFIGS = [
    ("Conv2d", (3, 6, 3), {}),
    ("Conv2d", (4, 8, (3, 5)), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2,
                                "bias": False}),
    ("Conv2d", (1, 16, 5), {"padding": "same"}),
    ("Conv2d", (2, 4, 2), {"padding": "valid", "padding_mode": "reflect"}),
    ("Conv2d", (8, 8, 3), {"groups": 8, "dtype": "float64"}),
    ("Conv1d", (3, 6, 3), {}),
    ("Conv1d", (4, 6, 4), {"padding": "same", "groups": 2}),
    ("Conv1d", (2, 4, (2,)), {"stride": (2,), "padding": (1,), "bias": False}),
]


def _module(lib: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    kwargs = dict(kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    return getattr(lib.nn, name)(*args, **kwargs)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}{c[1]}")
def test_conv_modules_draw_torchs_values_bit_for_bit(config, seed):
    """``kaiming_uniform_(weight, a=sqrt(5))`` then the bias, in torch's order: the same
    values after the same seed, and the generator left in the same state."""
    name, args, kwargs = config
    modules = []
    for lib in (torch, reftensor):
        lib.manual_seed(seed)
        modules.append(_module(lib, name, args, kwargs))
    t, r = modules
    assert repr(r) == repr(t)
    for (tn, tp), (rn, rp) in zip(t.named_parameters(), r.named_parameters(), strict=True):
        assert tn == rn and tuple(rp.shape) == tuple(tp.shape)
        assert rp.tolist() == tp.tolist()
    assert reftensor.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("config", [c for c in CONFIGS if "padding_mode" not in c[2]],
                         ids=lambda c: f"{c[0]}{c[1]}")
def test_conv_modules_forward_and_backward(config):
    name, args, kwargs = config
    modules = []
    for lib in (torch, reftensor):
        lib.manual_seed(3)
        modules.append(_module(lib, name, args, kwargs))
    dtype = getattr(torch, kwargs.get("dtype", "float32"))
    x = torch.randn(2, args[0], *(7,) * (2 if name == "Conv2d" else 1), dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, got = modules[0](x), modules[1](convert(x))
    _assert_close(got, expected)
    expected.sum().backward()
    got.sum().backward()
    for tp, rp in zip(modules[0].parameters(), modules[1].parameters(), strict=True):
        _assert_close(rp.grad, tp.grad)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.Conv2d(3, 6, 3, groups=0),
    lambda lib: lib.nn.Conv2d(3, 6, 3, groups=2),
    lambda lib: lib.nn.Conv2d(4, 6, 3, groups=4),
    lambda lib: lib.nn.Conv2d(3, 6, 3, padding="full"),
    lambda lib: lib.nn.Conv2d(3, 6, 3, padding="same", stride=2),
    lambda lib: lib.nn.Conv1d(3, 6, 3, padding_mode="mirror"),
], ids=["zero groups", "in_channels", "out_channels", "padding string", "same strided",
        "padding_mode"])
def test_conv_module_errors_are_torchs(make):
    """The exception class and message of torch's. torch's padding_mode message prints a set,
    whose order follows the string hashes of the process that compiled the module: the set
    is compared as a set."""
    found = []
    for lib in (torch, reftensor):
        with pytest.raises(Exception) as info:
            make(lib)
        found.append((type(info.value), _sets_sorted(str(info.value))))
    assert found[0] == found[1]


def _sets_sorted(message: str) -> str:
    """``message`` with the items of each ``{...}`` in it sorted."""
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


# ------------------------------------------------------------------ second derivatives
def _name(t: Any) -> str | None:
    return None if t is None or t.grad_fn is None else type(t.grad_fn).__name__


def _derivatives(lib: Any, fn: Any, leaves: list[Any], vectors: list[Any]) -> list[Any]:
    """``fn``'s first derivatives (for the output gradient ``vectors[0]``, graph kept),
    their products with ``vectors[1:]`` differentiated again (graph kept), and a third
    derivative (of the second ones' sum of squares): every result, None where unused."""
    y = fn(lib, *leaves)
    first = lib.autograd.grad(y, leaves, vectors[0], create_graph=True)
    total = sum(((f * v).sum() for f, v in zip(first, vectors[1:], strict=True)),
                lib.zeros((), dtype=y.dtype))
    second = lib.autograd.grad(total, leaves, create_graph=True, allow_unused=True)
    used = [s for s in second if s is not None and s.requires_grad]
    third: tuple[Any, ...] = ()
    if used:
        third = lib.autograd.grad(sum((s * s).sum() for s in used), leaves,
                                  allow_unused=True)
    return [y, *first, *second, *third]


def _run_second(fn: Any, tensors: tuple[torch.Tensor, ...],
                dtype: torch.dtype = torch.float64) -> None:
    """``_derivatives`` on both libraries, the tensors as leaves with their strides: the
    same values (float tolerance), the same ``grad_fn`` names, None in the same places."""
    t_in = [t.to(dtype) for t in tensors]  # (in the given dtype, for the strides' sake)
    t_in = [t.detach().as_strided(t.shape, t.stride()).requires_grad_() for t in t_in]
    r_in = [convert(t).requires_grad_() for t in t_in]
    with torch.no_grad():
        out_shape = fn(torch, *t_in).shape
    vectors = [torch.randn(out_shape, dtype=dtype)] + [torch.randn(t.shape, dtype=dtype)
                                                      for t in t_in]
    expected = _derivatives(torch, fn, t_in, vectors)
    got = _derivatives(reftensor, fn, r_in, [convert(v) for v in vectors])
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert (g is None) == (e is None)
        if e is None:
            continue
        assert _name(g) == _name(e)
        assert tuple(g.shape) == tuple(e.shape)
        _assert_close(g, e)


def _conv2d(**options: Any) -> Any:
    return lambda lib, *t: lib.nn.functional.conv2d(*t, **options)


def _conv1d(**options: Any) -> Any:
    return lambda lib, *t: lib.nn.functional.conv1d(*t, **options)


SECOND = [
    ("plain", _conv2d(), (2, 3, 5, 4), (4, 3, 3, 2), True),
    ("stride padding", _conv2d(stride=2, padding=1), (2, 3, 6, 5), (4, 3, 3, 3), True),
    ("uneven stride", _conv2d(stride=(3, 2)), (1, 2, 8, 7), (3, 2, 2, 2), False),
    ("dilation", _conv2d(dilation=(2, 3), padding=(1, 2)), (2, 2, 7, 8), (3, 2, 3, 2), True),
    ("groups", _conv2d(groups=2), (2, 4, 5, 5), (6, 2, 3, 3), True),
    ("groups stride dilation", _conv2d(groups=3, stride=2, dilation=2, padding=1),
     (2, 6, 7, 6), (6, 2, 2, 3), False),
    ("depthwise", _conv2d(groups=4, padding=1), (1, 4, 4, 4), (8, 1, 3, 3), True),
    ("1x1", _conv2d(), (2, 3, 4, 5), (5, 3, 1, 1), True),
    ("1x1 strided", _conv2d(stride=2), (2, 3, 5, 5), (2, 3, 1, 1), False),
    ("kernel as large as the input", _conv2d(), (2, 2, 3, 3), (2, 2, 3, 3), True),
    ("same", _conv2d(padding="same"), (2, 2, 5, 4), (3, 2, 4, 3), True),
    ("conv1d", _conv1d(), (2, 3, 7), (4, 3, 3), True),
    ("conv1d strided dilated groups", _conv1d(stride=3, dilation=2, padding=2, groups=2),
     (2, 4, 11), (4, 2, 3), True),
    ("conv1d 1x1", _conv1d(), (3, 2, 5), (2, 2, 1), False),
    ("conv1d unbatched", _conv1d(padding=1), (3, 6), (2, 3, 3), True),
]


@pytest.mark.parametrize("case", SECOND, ids=[c[0] for c in SECOND])
def test_second_derivatives_are_torchs(case):
    """``ConvolutionBackwardBackward0`` (torch's ``_convolution_double_backward``): the
    gradients of the gradients of input, weight and bias, and one order further, as
    torch's (float64)."""
    _, fn, x_shape, w_shape, bias = case
    torch.manual_seed(len(case[0]))
    tensors = (torch.randn(x_shape), torch.randn(w_shape))
    if bias:
        tensors += (torch.randn(w_shape[0]),)
    _run_second(fn, tensors)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_second_derivatives_of_every_layout(dtype):
    """Channels-last, permuted and sliced inputs and weights: the same second
    derivatives."""
    torch.manual_seed(5)
    x, w, b = (torch.randn(2, 4, 5, 6, dtype=dtype), torch.randn(6, 2, 3, 2, dtype=dtype),
               torch.randn(6, dtype=dtype))
    for xl, wl in itertools.product(_layouts(x), _layouts(w)[:3]):
        _run_second(_conv2d(groups=2, stride=(2, 1), padding=1), (xl, wl, b), dtype)
    x1, w1 = x[:, :, 0], w[:, :, 0]
    for xl in (x1, x1.mT.contiguous().mT, x1[:, :, ::2]):
        _run_second(_conv1d(groups=2), (xl, w1), dtype)


@pytest.mark.parametrize("dims", [1, 2])
def test_second_derivatives_of_a_transposed_convolution(dims):
    torch.manual_seed(dims + 10)
    for stride, padding, dilation, output_padding, groups in [
            (1, 0, 1, 0, 1), (2, 1, 1, 1, 2), (3, 2, 2, 1, 1), (2, 0, 3, 2, 2)]:
        x = torch.randn(2, 4, *(4,) * dims)
        w = torch.randn(4, 3, *(3,) * dims)
        b = torch.randn(3 * groups)
        _run_second(lambda lib, x, w, b, s=stride, p=padding, d=dilation, o=output_padding,
                    g=groups: lib.convolution(x, w, b, [s] * dims, [p] * dims, [d] * dims,
                                              True, [o] * dims, g), (x, w, b))


def test_second_derivatives_of_an_empty_batch():
    """No batch: torch's double backward computes no convolution (its results for the
    input and weight are undefined, the bias's term alone is expanded)."""
    x, w, b = torch.randn(0, 2, 4, 4), torch.randn(3, 2, 2, 2), torch.randn(3)
    _run_second(_conv2d(), (x, w, b))
    _run_second(_conv2d(), (x, w))


# ------------------------------------------------------------------ convolution.out
def _outcome(program: Any) -> list[Any]:
    """``program(lib, aten)`` on both libraries (the same random draws): its error (class
    and message) or what ``out`` became (shape, strides, dtype, returned itself, requires
    grad, node name, values)."""
    found = []
    for lib, ops in ((torch, torch.ops.aten), (reftensor, reftensor._ops.aten)):
        torch.manual_seed(5)

        def tensor(t: torch.Tensor, lib: Any = lib) -> Any:
            return convert(t) if lib is reftensor else t

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the resize warning, on both)
                returned, out = program(lib, ops, tensor)
        except Exception as error:  # noqa: BLE001 - the class and message are compared
            found.append((type(error), str(error)))
            continue
        values = (None if out.device.type == "meta" else
                  np.asarray(out.detach().double().tolist()).reshape(tuple(out.shape)))
        found.append((tuple(out.shape), out.stride(), str(out.dtype).split(".")[-1],
                      returned is out,
                      out.requires_grad, _name(out), values))
    for e, g in zip(*found, strict=True):
        if isinstance(e, np.ndarray):
            _assert_close(reftensor.tensor(g), torch.from_numpy(e).float())
        else:
            assert g == e or (isinstance(e, type) and g.__name__ == e.__name__), (e, g)
    return found


def _conv_out(out: Any, x: Any = None, w: Any = None, b: Any = None,
              options: tuple[Any, ...] = ([1], [0], [1], False, [0], 1)) -> Any:
    def program(lib: Any, ops: Any, tensor: Any) -> Any:
        xs = tensor(torch.randn(1, 2, 5, 5)) if x is None else x(lib, tensor)
        ws = tensor(torch.randn(3, 2, 3, 3)) if w is None else w(lib, tensor)
        bs = None if b is None else b(lib, tensor)
        o = out(lib, xs)
        return ops.convolution.out(xs, ws, bs, *options, out=o), o
    return program


CONV_OUT = {
    "an empty out": _conv_out(lambda lib, x: lib.empty(0)),
    "an out of the result's shape": _conv_out(lambda lib, x: lib.zeros(1, 3, 3, 3)),
    "a channels-last out keeps its strides": _conv_out(
        lambda lib, x: lib.zeros(1, 3, 3, 3).contiguous(memory_format=lib.channels_last)),
    "a channels-last input, an empty out": _conv_out(
        lambda lib, x: lib.empty(0),
        x=lambda lib, t: t(torch.randn(1, 2, 5, 5)).contiguous(
            memory_format=lib.channels_last)),
    "an out of another shape": _conv_out(lambda lib, x: lib.zeros(2, 5)),
    "a strided out": _conv_out(lambda lib, x: lib.zeros(1, 3, 3, 6)[..., ::2]),
    "another dtype": _conv_out(lambda lib, x: lib.zeros(0, dtype=lib.float64)),
    "an integer out": _conv_out(lambda lib, x: lib.zeros(1, 3, 3, 3, dtype=lib.int64)),
    "an expanded out": _conv_out(lambda lib, x: lib.zeros(1, 1, 1, 1).expand(1, 3, 3, 3)),
    "an expanded out of another shape": _conv_out(
        lambda lib, x: lib.zeros(1, 1, 1, 1).expand(1, 3, 3, 4)),
    "out is the input (resized)": _conv_out(lambda lib, x: x),
    "out is the input (1x1 kernel)": _conv_out(
        lambda lib, x: x, w=lambda lib, t: t(torch.randn(2, 2, 1, 1))),
    "out overlaps the input": _conv_out(
        lambda lib, x: x.flatten()[10:37].view(1, 3, 3, 3)),
    "bias, stride, padding, dilation, groups": _conv_out(
        lambda lib, x: lib.empty(0), x=lambda lib, t: t(torch.randn(2, 4, 6, 6)),
        w=lambda lib, t: t(torch.randn(6, 2, 3, 3)), b=lambda lib, t: t(torch.randn(6)),
        options=([2], [1], [2], False, [0], 2)),
    "transposed": _conv_out(lambda lib, x: lib.empty(0),
                            w=lambda lib, t: t(torch.randn(2, 3, 2, 2)),
                            b=lambda lib, t: t(torch.randn(3)),
                            options=([2], [0], [1], True, [1], 1)),
    "an empty batch": _conv_out(lambda lib, x: lib.empty(3),
                                x=lambda lib, t: t(torch.randn(0, 2, 5, 5))),
    "1-d": _conv_out(lambda lib, x: lib.empty(0), x=lambda lib, t: t(torch.randn(2, 2, 7)),
                     w=lambda lib, t: t(torch.randn(3, 2, 3)),
                     options=([1], [1], [1], False, [0], 1)),
    "int64": _conv_out(lambda lib, x: lib.empty(0, dtype=lib.int64),
                       x=lambda lib, t: t(torch.randint(-3, 3, (1, 2, 5, 5))),
                       w=lambda lib, t: t(torch.randint(-3, 3, (3, 2, 3, 3)))),
    "the input's error first": _conv_out(lambda lib, x: lib.empty(0, dtype=lib.float64),
                                         w=lambda lib, t: t(torch.randn(3, 5, 3, 3))),
    "meta": _conv_out(lambda lib, x: lib.empty(0, device="meta"),
                      x=lambda lib, t: t(torch.randn(1, 2, 5, 5)).to("meta"),
                      w=lambda lib, t: t(torch.randn(3, 2, 3, 3)).to("meta")),
    "meta, another dtype": _conv_out(lambda lib, x: lib.empty(0, device="meta",
                                                              dtype=lib.float64),
                                     x=lambda lib, t: t(torch.randn(1, 2, 5, 5)).to("meta"),
                                     w=lambda lib, t: t(torch.randn(3, 2, 3, 3)).to("meta")),
    "another device": _conv_out(lambda lib, x: lib.empty(0, device="meta")),
    "an input that requires grad": _conv_out(
        lambda lib, x: lib.empty(0), x=lambda lib, t: t(torch.randn(1, 2, 5, 5)).requires_grad_()),
    "an out that requires grad": _conv_out(lambda lib, x: lib.empty(0, requires_grad=True)),
}


@pytest.mark.parametrize("name", list(CONV_OUT))
def test_convolution_out_is_torchs(name):
    """``torch.ops.aten.convolution.out`` (torch's generated out= form; ``torch.convolution``
    itself takes no ``out=``): the result first, then exactly its dtype and device, ``out``
    resized (contiguous) unless it has the result's shape, written; an input that requires
    grad gives ``out`` a ``NotImplemented`` node, an ``out`` that requires grad is
    refused."""
    _outcome(CONV_OUT[name])


def test_convolution_out_under_no_grad_and_its_backward():
    def no_grad(lib: Any, ops: Any, tensor: Any) -> Any:
        with lib.no_grad():
            return _conv_out(lambda lib, x: lib.empty(0, requires_grad=True),
                             x=lambda lib, t: t(torch.randn(1, 2, 5, 5)).requires_grad_())(
                lib, ops, tensor)

    def backward(lib: Any, ops: Any, tensor: Any) -> Any:
        returned, out = _conv_out(lambda lib, x: lib.empty(0),
                                  w=lambda lib, t: t(torch.randn(3, 2, 3, 3)).requires_grad_())(
            lib, ops, tensor)
        out.sum().backward()
        return returned, out

    _outcome(no_grad)
    assert _outcome(backward)[0][0] is RuntimeError
    assert _outcome(lambda lib, ops, t: (lib.convolution(
        t(torch.ones(1, 1, 2, 2)), t(torch.ones(1, 1, 1, 1)), None, [1], [0], [1], False, [0],
        1, out=lib.empty(0)), None))[0][0] is TypeError


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_convolution_overrideable_is_not_implemented(device):
    """``convolution_overrideable`` and its ``.out``: a hook for other backends, with no CPU
    or meta kernel in torch."""
    def call(out: bool) -> Any:
        def program(lib: Any, ops: Any, tensor: Any) -> Any:
            x, w = tensor(torch.ones(1, 2, 3, 3)).to(device), tensor(torch.ones(1, 2, 1, 1))
            args = (x, w.to(device), None, [1], [0], [1], False, [0], 1)
            if out:
                return ops.convolution_overrideable.out(*args, out=lib.empty(0)), None
            return ops.convolution_overrideable(*args), None
        return program

    for out in (False, True):
        assert _outcome(call(out))[0][0] is NotImplementedError
