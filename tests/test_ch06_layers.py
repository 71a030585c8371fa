"""Chapter 6's layers against torch 2.13: the default initialisation of ``Embedding``,
``LayerNorm``, ``BatchNorm1d``, ``Bilinear`` and ``GELU`` (bit for bit, three seeds),
``BatchNorm1d``'s running statistics over three training steps and then in eval, and
``LayerNorm``'s and ``Embedding``'s (with ``padding_idx``) forward values and gradients.

Every program runs on both libraries after the same ``manual_seed``; nothing expected is
written down here.
"""

from __future__ import annotations

import math
import struct
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import reftensor

pytestmark = pytest.mark.ch06

LIBS = (torch, reftensor)
SEEDS = (0, 1, 7)
#: float32 sums in another order (NumPy's in float64 against torch's vector lanes): the
#: statistics and gradients agree to this relative tolerance (a few float32 ulps)
RTOL = 2e-6


def _bits(t: Any) -> list[int]:
    """Every float32 value's bits, so that a comparison is exact, sign of zero included."""
    return [struct.unpack("<I", struct.pack("<f", v))[0]
            for v in t.detach().reshape(-1).tolist()]


def _close(a: Any, b: Any) -> bool:
    x = np.array(a.detach().tolist(), dtype=np.float64)
    y = np.array(b.detach().tolist(), dtype=np.float64)
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=RTOL, atol=RTOL, equal_nan=True))


def _modules(lib: Any) -> dict[str, Any]:
    nn = lib.nn
    return {
        "Embedding": lambda: nn.Embedding(7, 3),
        "Embedding(padding_idx)": lambda: nn.Embedding(5, 4, padding_idx=2),
        "LayerNorm": lambda: nn.LayerNorm((2, 3)),
        "LayerNorm(no affine)": lambda: nn.LayerNorm(4, elementwise_affine=False),
        "BatchNorm1d": lambda: nn.BatchNorm1d(3),
        "Bilinear": lambda: nn.Bilinear(3, 2, 4),
        "GELU": lambda: nn.GELU(approximate="tanh"),
    }


def _state(lib: Any, name: str, seed: int) -> dict[str, Any]:
    lib.manual_seed(seed)
    module = _modules(lib)[name]()
    return {k: (tuple(v.shape), str(v.dtype).split(".")[-1],
                _bits(v) if v.dtype == lib.float32 else v.tolist())
            for k, v in module.state_dict().items()}


@pytest.mark.parametrize("name", list(_modules(torch)))
@pytest.mark.parametrize("seed", SEEDS)
def test_the_default_initialisation_is_torchs(name, seed):
    expected, got = (_state(lib, name, seed) for lib in LIBS)
    assert got == expected
    # and the generator has moved as far as torch's
    torch.manual_seed(seed)
    reftensor.manual_seed(seed)
    _modules(torch)[name]()
    _modules(reftensor)[name]()
    assert _bits(reftensor.rand(3)) == _bits(torch.rand(3))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", [(4, 3), (5, 3, 2)])
def test_batchnorm1d_running_statistics_over_three_steps_then_eval(seed, shape):
    runs = []
    for lib in LIBS:
        lib.manual_seed(seed)
        bn = lib.nn.BatchNorm1d(3, momentum=0.3)
        outs = []
        for _ in range(3):
            x = lib.randn(*shape) * 2 + 1
            outs.append(bn(x))
        bn.eval()
        outs.append(bn(lib.randn(*shape)))
        runs.append((bn, outs))
    (tbn, touts), (rbn, routs) = runs
    assert rbn.num_batches_tracked.item() == tbn.num_batches_tracked.item() == 3
    assert _close(rbn.running_mean, tbn.running_mean)
    assert _close(rbn.running_var, tbn.running_var)
    for t, r in zip(touts, routs, strict=True):
        assert tuple(r.shape) == tuple(t.shape) and _close(r, t)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


@pytest.mark.parametrize("seed", SEEDS)
def test_layer_norm_forward_and_gradients(seed):
    found = []
    for lib in LIBS:
        lib.manual_seed(seed)
        ln = lib.nn.LayerNorm(4)
        with lib.no_grad():
            ln.weight.mul_(lib.rand(4) + 0.5)
            ln.bias.add_(lib.randn(4))
        x = lib.randn(3, 2, 4, requires_grad=True)
        y = ln(x)
        (y * lib.randn(3, 2, 4)).sum().backward()
        found.append((y, x.grad, ln.weight.grad, ln.bias.grad, type(y.grad_fn).__name__))
    (ty, *tgrads, tname), (ry, *rgrads, rname) = found
    assert rname == tname == "NativeLayerNormBackward0"
    assert _close(ry, ty)
    for t, r in zip(tgrads, rgrads, strict=True):
        assert _close(r, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 16, 21])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_input_gradient_is_torchs_bit_for_bit(dtype, n, affine):
    """``native_layer_norm_backward``'s input gradient from torch's own ``mean`` and
    ``rstd``, equal to torch's bits: rows shorter than, as long as and longer than a vector
    of torch's kernel, and constant rows, where the exact gradient is 0 and torch's value is
    the rounding of terms that cancel (a 1-element float32 row with weight 33: 3.05e-5)."""
    rows = [[33.0] * n, [-7.0] * n] + [[float((k * 7 + j * 5) % 11) - 5 + j / 3 for j in range(n)]
                                       for k in range(3)]
    upstream = [[((k * 3 + j * 13) % 17) / 4 - 2 for j in range(n)] for k in range(len(rows))]
    weight = [float(33 - 2 * j) for j in range(n)] if affine else None
    found = []
    for lib in LIBS:
        t = getattr(lib, dtype)
        x, dy = lib.tensor(rows, dtype=t), lib.tensor(upstream, dtype=t)
        w = None if weight is None else lib.tensor(weight, dtype=t)
        found.append((lib, x, dy, w))
    (_, tx, tdy, tw), (_, rx, rdy, rw) = found
    _, mean, rstd = torch.native_layer_norm(tx, [n], tw, None, 1e-5)
    expected = torch.ops.aten.native_layer_norm_backward(
        tdy, tx, [n], mean, rstd, tw, None, [True, False, False])[0]
    got = reftensor._ops.aten.native_layer_norm_backward.default.call(
        rdy, rx, [n], reftensor.tensor(mean.tolist(), dtype=getattr(reftensor, dtype)),
        reftensor.tensor(rstd.tolist(), dtype=getattr(reftensor, dtype)), rw, None,
        [True, False, False])[0]
    if dtype == "float32":
        assert _bits(got) == _bits(expected)
    else:
        assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("mixed", [False, True])
def test_layer_norm_statistics_are_torchs_bit_for_bit(dtype, mixed):
    """``native_layer_norm``'s ``mean``, ``rstd`` and output equal torch's bits: rows of
    lengths around a vector (8 float32, 4 float64, 16 float16 elements), a chunk of 16
    vectors and the cascade's carries (up to 70 vectors), drawn at several scales and
    offsets, with a row whose exact mean is 0 but torch's is not (``(0, 0, 0, 0, 3,
    -3)``: ``2**-24`` from Welford's update); ``mixed`` gives a float16/bfloat16 input
    float32 parameters, so the statistics come back in float32."""
    if mixed and dtype not in ("float16", "bfloat16"):
        pytest.skip("torch mixes only a float16/bfloat16 input with float32 parameters")
    rng = np.random.default_rng(11)
    lengths = [1, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 127, 128, 129, 255, 257, 520, 1100]
    for n in lengths:
        rows = rng.standard_normal((3, n)) * 10.0 ** rng.uniform(-3, 3, (3, 1)) \
            + rng.uniform(-5, 5, (3, 1))
        if n == 6:
            rows[0] = [0, 0, 0, 0, 3, -3]
        found = []
        for lib in LIBS:
            t = getattr(lib, dtype)
            x = lib.tensor(rows.tolist(), dtype=t)
            w = lib.tensor([1.5] * n, dtype=lib.float32 if mixed else t)
            found.append([o.float().tolist() for o in lib.native_layer_norm(x, [n], w, None,
                                                                            1e-5)])
        assert found[1] == found[0], f"row length {n}"


@pytest.mark.parametrize("shape, channels_last", [
    ((1, 2, 2), False), ((3, 3, 5), False), ((2, 3, 2, 1), False), ((2, 3, 2, 2), True),
    ((2, 3, 1), False), ((5, 3), False), ((2, 3, 1, 1), False)])
def test_batch_norm_backward_reads_a_stepped_weight_as_torch(shape, channels_last):
    """A weight of stride 2: torch's contiguous backward follows its strides where it walks
    each channel's values in a row (``(1, 2, 2)``), and reads ``C`` elements one after
    another from its first where channels are innermost (one value per channel and sample,
    or a channels-last input); the forward always follows the strides."""
    found = []
    for lib in LIBS:
        lib.manual_seed(0)
        x, dy = lib.randn(*shape), lib.randn(*shape)
        if channels_last:
            x = x.contiguous(memory_format=lib.channels_last)
            dy = dy.contiguous(memory_format=lib.channels_last)
        x.requires_grad_()
        w = lib.arange(1.0, 2 * shape[1] + 1)[::2].detach().requires_grad_()
        y = lib.batch_norm(x, w, None, None, None, True, 0.1, 1e-5, False)
        found.append((y, lib.autograd.grad(y, x, dy)[0]))
    (ty, tdx), (ry, rdx) = found
    assert _close(ry, ty) and _close(rdx, tdx)


@pytest.mark.parametrize("seed", SEEDS)
def test_embedding_with_padding_idx_forward_and_gradient(seed):
    found = []
    for lib in LIBS:
        lib.manual_seed(seed)
        emb = lib.nn.Embedding(6, 3, padding_idx=1)
        idx = lib.tensor([[0, 1, 5], [1, 1, 3]])
        y = emb(idx)
        (y * lib.randn(2, 3, 3)).sum().backward()
        found.append((y, emb.weight.grad, type(y.grad_fn).__name__))
    (ty, tg, tname), (ry, rg, rname) = found
    assert rname == tname == "EmbeddingBackward0"
    assert _bits(ry) == _bits(ty)
    assert _close(rg, tg)
    assert rg[1].tolist() == tg[1].tolist() == [0.0, 0.0, 0.0]  # the padding row: no gradient


# ------------------------------------------------------------------ erfinv (nn.init's)
def _erfinv_inputs(dtype: Any) -> Any:
    """Many values of erfinv's domain and edges: uniform in (-1, 1), within 1e-3 of ±1,
    within 1e-3 .. 1e-15 of -1, tiny ones, and ±0, ±1, beyond 1, inf and nan."""
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.uniform(-1, 1, 20000), 1 - rng.uniform(0, 1e-3, 2000),
        -1 + 10.0 ** -rng.uniform(3, 15, 2000), 10.0 ** -rng.uniform(1, 300, 500),
        [0.0, -0.0, 1, -1, 1.5, -2, np.nan, np.inf, -np.inf, 0.7, -0.7, 0.5, -0.5]])
    return torch.from_numpy(values).to(dtype)


def _ulps_apart(a: Any, b: Any) -> int:
    """The largest distance in ulps of two float tensors' values (nan equal to nan; a
    signed zero differing from the other zero counts as 1)."""
    width = {torch.float64: torch.int64, torch.float32: torch.int32}.get(a.dtype, torch.int16)
    ints = [t.view(width).to(torch.int64) for t in (a, b)]
    low = torch.iinfo(width).min
    ordered = [torch.where(i < 0, low - i - 1, i) for i in ints]  # -0.0 one below +0.0
    apart = (ordered[0] - ordered[1]).abs()
    both_nan = a.isnan() & b.isnan()
    return int(torch.where(both_nan, 0, apart).max())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_erfinv_of_every_16_bit_value_is_torchs(dtype):
    """float16 and bfloat16: torch's calc_erfinv in float32, bit for bit, every value."""
    bits = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)
    x = bits.view(getattr(torch, dtype))
    ours = reftensor.tensor(x.view(torch.int16).tolist(), dtype=reftensor.int16).view(
        getattr(reftensor, dtype)).erfinv()
    theirs = torch.erfinv(x)
    ours_bits = torch.tensor(ours.view(reftensor.int16).tolist(), dtype=torch.int16)
    same = ours_bits == theirs.view(torch.int16)
    # torch's float32 -> bfloat16 conversion writes every nan as 0xffff (as for any op)
    assert bool((same | (theirs.isnan() & ours_bits.view(x.dtype).isnan())).all())
    if dtype == "float16":
        assert bool(same.all())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_is_within_an_ulp_of_torchs(dtype):
    """float32 and float64 (torch: MKL's ErfInv): at most 1 ulp apart on 24,500 values;
    ±1 give ±inf, beyond ±1 nan, -0.0 stays -0.0 (bit for bit there)."""
    x = _erfinv_inputs(getattr(torch, dtype))
    theirs = torch.erfinv(x)
    ours = reftensor.tensor(x.tolist(), dtype=getattr(reftensor, dtype)).erfinv()
    ours_torch = torch.tensor(ours.tolist(), dtype=x.dtype)
    assert _ulps_apart(ours_torch, theirs) <= 1
    edges = (x.abs() >= 1) | (x == 0) | x.isnan()
    assert _ulps_apart(ours_torch[edges], theirs[edges]) == 0


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64"])
def test_erfinv_of_integers_is_the_default_float_dtype(dtype):
    values = [0, 1] if dtype == "bool" else [0, 1, 2] if dtype == "uint8" else [-2, -1, 0, 1]
    results = [lib.erfinv(lib.tensor(values, dtype=getattr(lib, dtype))) for lib in LIBS]
    assert [str(r.dtype).split(".")[-1] for r in results] == ["float32", "float32"]
    assert _bits(results[0]) == _bits(results[1])  # the nan beyond ±1 with its sign bit


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_erfinv_nans_keep_torchs_sign_bits(dtype):
    """Beyond ±1: float32 a nan with the sign bit set (MKL's), float16 and float64 without;
    a nan input comes back as it is, sign included."""
    values = [2.0, -2.0, math.inf, -math.inf, math.nan, -math.nan]
    width = {"float16": "int16", "float32": "int32", "float64": "int64"}[dtype]
    results = [lib.erfinv(lib.tensor(values, dtype=getattr(lib, dtype)))
               .view(getattr(lib, width)).tolist() for lib in LIBS]
    assert results[0] == results[1]


# ------------------------------------------------------------------ nn.init.trunc_normal_
#: (mean, std, a, b): the normal's mass in [a, b] above 0.3 (normal_, redraws outside) and
#: at most 0.3 (rejection from uniform_ candidates), a mean outside [a, b] (warns), an
#: interval in one tail, a narrow one
TRUNC_CASES = [(0.0, 1.0, -2.0, 2.0), (0.3, 0.5, -0.2, 0.9), (0.0, 0.02, -0.04, 0.04),
               (3.0, 0.5, -0.2, 0.9), (0.0, 1.0, 1.5, 4.0), (-1.0, 2.0, -1.1, -0.9),
               (0.0, 1.0, -0.1, 0.1), (2.0, 0.1, 0.0, 5.0)]


def _trunc_normal(lib: Any, seed: int, shape: tuple[int, ...], dtype: str,
                  case: tuple[float, float, float, float], own_generator: bool) -> Any:
    mean, std, a, b = case
    lib.manual_seed(seed + 100)
    generator = lib.Generator().manual_seed(seed) if own_generator else None
    if not own_generator:
        lib.manual_seed(seed)
    weight = lib.nn.Parameter(lib.empty(shape, dtype=getattr(lib, dtype)))
    with pytest.warns(UserWarning) if (mean < a - 2 * std or mean > b + 2 * std) else \
            _no_warning():
        out = lib.nn.init.trunc_normal_(weight, mean, std, a, b, generator=generator)
    assert out is weight and weight.requires_grad and weight.grad_fn is None
    after = (generator or lib.default_generator).get_state()
    values = weight.detach().to(lib.float64).reshape(-1).tolist()
    return values, bytes(after.tolist()), weight._version


class _no_warning:
    def __enter__(self) -> None:
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc: Any) -> None:
        self._catch.__exit__(*exc)


@pytest.mark.parametrize("case", TRUNC_CASES, ids=str)
@pytest.mark.parametrize("seed", SEEDS)
def test_trunc_normal_is_torchs_draw_for_draw(case, seed):
    """Values bit for bit (compared as float64), the generator's state after the call, and
    the version counter (one per in-place step torch takes), for several shapes and
    dtypes, with the default generator and with one of its own."""
    for shape, dtype, own in (((7, 5), "float32", False), ((300,), "float32", True),
                              ((4, 3, 2), "float64", False), ((33,), "float16", True),
                              ((2, 17), "bfloat16", False)):
        ours, theirs = (_trunc_normal(lib, seed, shape, dtype, case, own)
                        for lib in (reftensor, torch))
        assert ours[0] == theirs[0], (shape, dtype)
        assert ours[1] == theirs[1], (shape, dtype)
        assert ours[2] == theirs[2], (shape, dtype)
        lo, hi = case[2], case[3]
        assert all(lo - 1e-2 <= v <= hi + 1e-2 for v in ours[0])


def test_trunc_normal_of_a_meta_tensor_draws_nothing():
    for lib in LIBS:
        lib.manual_seed(0)
        before = lib.default_generator.get_state().tolist()
        t = lib.empty(3, 4, device="meta")
        assert lib.nn.init.trunc_normal_(t) is t
        assert lib.default_generator.get_state().tolist() == before


# --- padding and sliding-window layers (the capstone, issue 45)
PADDING_LAYERS = [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", (2,)), ("ZeroPad2d", ((1, 2, 0, 3),)),
    ("ZeroPad3d", (1,)), ("ConstantPad1d", (1, 3.5)), ("ConstantPad2d", ((1, 2, 3, 0), 2)),
    ("ConstantPad3d", (1, -1.0)), ("ReflectionPad1d", (2,)),
    ("ReflectionPad2d", ((1, 2, 0, 1),)), ("ReflectionPad3d", (1,)),
    ("ReplicationPad1d", (3,)), ("ReplicationPad2d", ((1, 2, 3, 0),)),
    ("ReplicationPad3d", (1,)), ("CircularPad1d", (2,)), ("CircularPad1d", ((0, 3),)),
    ("CircularPad2d", ((1, 2, 3, 0),)), ("CircularPad2d", (-1,)), ("CircularPad3d", (1,)),
    ("Unfold", (2,)),
    ("Unfold", ((2, 3),), {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
    ("Fold", ((4, 5), 2)), ("Fold", ((4, 5), (2, 3)), {"padding": (1, 0), "stride": 2}),
]


@pytest.mark.parametrize("case", PADDING_LAYERS, ids=lambda c: f"{c[0]}{c[1:]}")
def test_padding_and_window_layers_are_torchs(case):
    """Each layer's repr, attributes, forward values and input gradient, on both libraries
    (the input: an image batch for the pads and Unfold, columns for Fold)."""
    name, args, kwargs = (*case, {})[:3]
    found = []
    for lib in LIBS:
        layer = getattr(lib.nn, name)(*args, **kwargs)
        lib.manual_seed(0)
        if name == "Fold":
            blocks = torch.nn.functional.unfold(torch.ones(1, 1, *args[0]), args[1],
                                                **kwargs).shape[1:]
            x = lib.randn(2, 2 * blocks[0], blocks[1], dtype=lib.float64, requires_grad=True)
        else:
            dims = 1 if name.endswith("1d") else 3 if name.endswith("3d") else 2
            x = lib.randn(2, 3, *(4, 5, 6)[:dims], dtype=lib.float64, requires_grad=True)
        y = layer(x)
        (y * y).sum().backward()
        found.append((repr(layer), getattr(layer, "padding", None), y.tolist(),
                      x.grad.tolist(), type(y.grad_fn).__name__))
    assert found[0] == found[1]


@pytest.mark.parametrize("name", ["CircularPad1d", "CircularPad2d", "CircularPad3d"])
def test_a_circular_pad_layer_refuses_other_ranks_as_torch(name):
    """torch's circular pad layers check the input's rank before ``F.pad`` (a ValueError,
    where ``F.pad``'s own check is a RuntimeError), and wrap at most once around."""
    def program(lib):
        dims = int(name[-2])
        layer = getattr(lib.nn, name)(2)
        found = []
        for rank in (dims, dims + 1, dims + 2, dims + 3):
            try:
                found.append(tuple(layer(lib.zeros(*(3,) * rank)).shape))
            except (ValueError, RuntimeError) as error:
                found.append((type(error).__name__, str(error)))
        try:
            getattr(lib.nn, name)(4)(lib.zeros(*(3,) * (dims + 1)))
        except RuntimeError as error:
            found.append(str(error))
        return found

    assert program(torch) == program(reftensor)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """The same float32 values, signed zeros told apart (any NaN matches a NaN)."""
    return bool(np.all((a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.skipif(not reftensor._gelu_cpu.runs_here(),
                    reason="torch's oneDNN takes its AVX-512 path here, which is not repeated")
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gelu_of_a_contiguous_tensor_is_onednns_bit_for_bit(dtype):
    """torch hands the exact GELU of a contiguous tensor of more than one element to oneDNN,
    whose erf is Abramowitz and Stegun's approximation (reftensor/_onednn.py): 200,001 inputs
    from -10 to 10 and the special values give torch's bits, forward in each float dtype and
    backward in float32; near -2 they differ from the C library's erf, which a one-element
    tensor still runs (gelu(-2.) alone)."""
    base = np.concatenate([np.linspace(-10, 10, 200_001, dtype=np.float32), np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 100, -100], np.float32)])
    grad = np.random.default_rng(0).standard_normal(base.shape).astype(np.float32)
    expected = torch.nn.functional.gelu(torch.from_numpy(base).to(getattr(torch, dtype)))
    got = reftensor.nn.functional.gelu(reftensor.from_numpy(base).to(getattr(reftensor, dtype)))
    assert _same_bits(got.float().numpy(), expected.float().numpy())
    if dtype == "float32":
        expected = torch.ops.aten.gelu_backward(torch.from_numpy(grad), torch.from_numpy(base))
        got = reftensor._ops.aten.gelu_backward(reftensor.from_numpy(grad),
                                                reftensor.from_numpy(base))
        assert _same_bits(got.numpy(), expected.numpy())
    for lib in (torch, reftensor):  # the two paths differ near -2, on both libraries
        pair = lib.nn.functional.gelu(lib.tensor([-2.0, -2.0])).tolist()
        alone = lib.nn.functional.gelu(lib.tensor([-2.0])).tolist()
        assert pair[0] != alone[0]
    assert reftensor.nn.functional.gelu(reftensor.tensor([-2.0])).tolist() == \
        torch.nn.functional.gelu(torch.tensor([-2.0])).tolist()
