"""Chapter 9: ``make_fx`` on torch and on reftensor prints the same graph.

``reftensor.fx.experimental.proxy_tensor.make_fx`` traces a function's aten ops with a
dispatch mode into a ``GraphModule``. For each function of ``CASES`` (views, arithmetic with
scalars, reductions, matmul, indexing, in-place ops, factories, constants from outside,
``nn.functional``, several outputs, and backward passes through ``autograd.grad``) and for
generated programs (``tests/test_ch09_dispatch.py``'s, each traced forward and then with
``autograd.grad`` of its sum), torch's ``make_fx(f)(*args)`` and reftensor's give the same
``code``, ``str(graph)``, ``print_readable()`` and node values (shape, strides, dtype,
device), after
one normalisation: reftensor writes ``reftensor`` where torch writes ``torch``
(``reftensor.ops.aten.mul.Tensor``, ``reftensor.float64``, ``class f(reftensor.nn.Module)``),
and :func:`normalized` replaces that one word. Running the module on new inputs gives what
the function gives.

Where reftensor dispatches other ops than torch (``DIFFERENCES``, the allowances of
``tests/test_ch09_dispatch.py`` among them), the functions that show it are listed with the
difference's name and checked to still differ (a difference that no longer occurs fails:
move its function to the agreeing ones); generated programs that would show one are not
compared (their forward, or only their gradient), and say why, but their modules must still
compute what the program computes.

Run as a script (``PYTHONPATH=. python tests/test_ch09_make_fx.py [N]``) to count how many
of N seeded programs agree exactly, forward and with their gradient, and how many each
difference excludes.
"""

from __future__ import annotations

import math
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

import reftensor
import reftensor.fx
from reftensor._ops.state import state
from reftensor.fx.experimental.proxy_tensor import make_fx
from tests.strategies import examples
from tests.test_ch09_dispatch import Program, _build, _folds_batches_of_one, _step, draw_program

pytestmark = pytest.mark.ch09


def normalized(text: str) -> str:
    """reftensor's printed code as torch prints it: the word ``reftensor`` is ``torch``."""
    return re.sub(r"\breftensor\b", "torch", text)


# ---------------------------------------------------------------- the cases
Spec = tuple[tuple[int, ...], str, bool]  # an input's shape, dtype, requires_grad
F23: Spec = ((2, 3), "float32", False)
G23: Spec = ((2, 3), "float32", True)
D3: Spec = ((3,), "float64", False)
G3: Spec = ((3,), "float32", True)
I3: Spec = ((3,), "int64", False)


@dataclass
class Case:
    """``fn(lib)`` is the function traced, called with inputs drawn for ``inputs``;
    ``differs`` names the entry of ``DIFFERENCES`` that its trace shows."""

    name: str
    fn: Callable[[Any], Callable[..., Any]]
    inputs: tuple[Spec, ...] = (F23,)
    differs: str | None = None


def _outside(lib: Any) -> dict[str, Any]:
    lib.manual_seed(0)
    return {"y": lib.tensor([0.5, -1.0, 2.0]),
            "w": lib.tensor([[0.25 * (i - j) for j in range(3)] for i in range(4)]),
            "b": lib.tensor([1.0, 0.0, -1.0, 0.5]),
            "p": lib.ones(3, requires_grad=True),
            "linear": lib.nn.Linear(3, 2)}


#: tensors from outside the traced functions (made here, not while tracing): the graph's
#: constants
_OUTSIDE = {lib.__name__: _outside(lib) for lib in (torch, reftensor)}


def outside(lib: Any, name: str) -> Any:
    return _OUTSIDE[lib.__name__][name]


def _setitem(lib: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[0] = 2.5
        y[:, 1] += 1
        return y
    return f


def _written(x: Any, index: Any, value: Any) -> Any:
    y = x.clone()
    y[index] = value
    return y


def _inplace_view(lib: Any) -> Callable[..., Any]:
    def f(x):
        y = x.clone()
        y[0].add_(1)
        y.t().mul_(2)
        return y
    return f


CASES: list[Case] = [
    # views
    Case("view_reshape_t_select", lambda L: lambda x: x.view(6).reshape(3, 2).t()[0]),
    Case("slice_unsqueeze_expand", lambda L: lambda x: x[:, 1:].unsqueeze(0).expand(2, 2, 2)),
    Case("permute_transpose_flatten",
         lambda L: lambda x: x.permute(1, 0).transpose(0, 1).flatten()),
    Case("T_mT_contiguous", lambda L: lambda x: x.T.mT.t().contiguous()),
    Case("none_and_int_index", lambda L: lambda x: (x[None, 0], x[1, 2], x[..., -1])),
    Case("squeeze_unsqueeze", lambda L: lambda x: x.unsqueeze(0).squeeze().view(-1)),
    # arithmetic with scalars
    Case("mul_add_sub_scalars", lambda L: lambda x: x * 2 + 1.5 - 3 + True),
    Case("rsub_neg_div", lambda L: lambda x: 1 - (-x) / 4),
    Case("pow_both_ways", lambda L: lambda x: x ** 2 + 2 ** x),
    Case("div_floor", lambda L: lambda x: x.div(2, rounding_mode="floor")),
    Case("add_alpha", lambda L: lambda x: x.add(x, alpha=2)),
    Case("clamp_inf_nan", lambda L: lambda x: x.clamp(max=float("inf")) + float("nan")),
    Case("conversions", lambda L: lambda x: (x.long() + 2, x.double().half(), x.bool(),
                                             x.to(L.float32))),
    Case("two_inputs_promote", lambda L: lambda x, y: x * y + y, (F23, D3)),
    # reductions
    Case("sum_mean", lambda L: lambda x: (x.sum(), x.sum(1, keepdim=True), x.mean(0))),
    Case("sum_dtype", lambda L: lambda x: x.sum(1, dtype=L.float64)),
    Case("var_std", lambda L: lambda x: (x.var(1), x.std(0, correction=0))),
    Case("argmax_amax", lambda L: lambda x: (x.argmax(1, keepdim=True), x.amax(0))),
    # matmul
    Case("matmul_mm", lambda L: lambda x: x @ x.t()),
    Case("matmul_vector", lambda L: lambda x, v: x @ v, (F23, G3)),
    Case("matmul_batched", lambda L: lambda x: x.unsqueeze(0) @ x.t().unsqueeze(0)),
    Case("addmm", lambda L: lambda x: L.mm(x, x.t()).addmm(x, x.t())),
    # indexing
    Case("index_by_input", lambda L: lambda x, i: x[i], (F23, ((3,), "int64", False))),
    Case("index_by_literal", lambda L: lambda x: x[L.tensor([0, 1, 1])]),
    Case("index_by_mask", lambda L: lambda x: x[x > 2]),
    Case("index_by_lists", lambda L: lambda x: (x[[0, 1, 1]], x[[True, False]])),
    Case("setitem", _setitem),
    Case("setitem_advanced", lambda L: lambda x: _written(x, L.tensor([0, 1]), 1.5)),
    Case("setitem_mask", lambda L: lambda x: _written(x, x > 2, 0.5)),
    Case("masked_fill", lambda L: lambda x: x.masked_fill(x > 2, 0.5)),
    # in-place ops
    Case("inplace_on_a_clone", lambda L: lambda x: x.clone().add_(1).mul_(2)),
    Case("inplace_on_the_input", lambda L: lambda x: x.add_(1)),
    Case("inplace_on_views", _inplace_view),
    Case("inplace_result_unused", lambda L: lambda x: (x.clone().add_(1), x * 2)[1]),
    # factories
    Case("ones_zeros_full", lambda L: lambda x: (x + L.ones(2, 3) + L.zeros(2, 3, dtype=L.float64)
                                                 + L.full((2, 3), 2.5))),
    Case("arange", lambda L: lambda x: L.arange(3) * x),
    Case("like_and_new", lambda L: lambda x: (L.zeros_like(x) + L.ones_like(x, dtype=L.float64),
                                              x.new_zeros(2) + x.new_ones((2,)))),
    Case("empty_filled", lambda L: lambda x: L.empty(2, 3).fill_(1) + x),
    Case("tensor_from_data", lambda L: lambda x: x * L.tensor([1.0, 2.0, 3.0])
         + L.as_tensor([1.0, 2.0, 3.0]) + x.new_tensor([1, 2, 3])),
    Case("from_numpy", lambda L: lambda x: (x + L.from_numpy(np.ones(3, dtype=np.float32))
                                            + L.tensor(np.arange(3.0, dtype=np.float32)))),
    # tensors from outside the function
    Case("outside_tensor", lambda L: lambda x: x * outside(L, "y") + outside(L, "y")),
    Case("outside_tensor_returned", lambda L: lambda x: (outside(L, "y"), outside(L, "y") + x)),
    Case("outside_parameters", lambda L: lambda x: outside(L, "linear")(x)),
    # nn.functional
    Case("linear_relu", lambda L: lambda x: L.nn.functional.linear(
        x, outside(L, "w"), outside(L, "b")).relu()),
    Case("softmax_log_softmax", lambda L: lambda x: (L.nn.functional.softmax(x, -1),
                                                     L.nn.functional.log_softmax(x, 0))),
    Case("losses", lambda L: lambda x: (L.nn.functional.mse_loss(x, L.zeros(2, 3)),
                                        L.nn.functional.cross_entropy(x, L.tensor([0, 2])))),
    Case("gelu_layer_norm_dropout", lambda L: lambda x: (
        L.nn.functional.gelu(x), L.nn.functional.layer_norm(x, (3,)),
        L.nn.functional.dropout(x, training=False))),
    # several outputs
    Case("max_dim", lambda L: lambda x: x.max(1)),
    Case("nested_outputs", lambda L: lambda x: (x.sum(1), [x * 3, (x.exp(),)], {"a": x})),
    Case("split_chunk_unbind_sort", lambda L: lambda x: (x.split(1), x.chunk(3, 1), x.unbind(),
                                                         x.sort())),
    Case("input_none_and_number", lambda L: lambda x: (x, None, 3)),
    Case("cat_stack", lambda L: lambda x: (L.cat([x, x * 2], 0), L.stack([x, x]))),
    # backward: autograd.grad inside the function
    Case("grad_of_mul", lambda L: lambda x: L.autograd.grad((x * x).sum(), x), (G23,)),
    Case("grad_of_saved_output", lambda L: lambda x: L.autograd.grad(
        (x.exp() * 2).sum(), x)[0], (G23,)),
    Case("grad_of_tanh_softmax_mean", lambda L: lambda x: L.autograd.grad(
        (x.tanh() + x.softmax(-1)).mean(1).sum(), x), (G23,)),
    Case("grad_of_two_inputs", lambda L: lambda x, y: L.autograd.grad(
        (x * y).sum(), [x, y]), (G23, G3)),
    Case("grad_with_outside_tensor", lambda L: lambda x: L.autograd.grad(
        (x * outside(L, "p")).sum(), [x, outside(L, "p")]), (G23,)),
    Case("grad_not_asked_of_parameters", lambda L: lambda x: L.autograd.grad(
        outside(L, "linear")(x).sum(), x), (G23,)),
    Case("grad_of_index_and_inplace", lambda L: lambda x: L.autograd.grad(
        (x * 1).exp_()[L.tensor([1, 0])].sum(), x), (G23,)),
    Case("grad_of_matmul_linear", lambda L: lambda x: L.autograd.grad(
        L.nn.functional.linear(x @ x.t(), outside(L, "w")[:, :2]).sum(), x), (G23,)),
    Case("grad_of_grad", lambda L: lambda x: L.autograd.grad(L.autograd.grad(
        (x.exp() * x).sum(), x, create_graph=True)[0].sum(), x), (G23,)),
    Case("grad_of_relu", lambda L: lambda x: L.autograd.grad(x.relu().sum(), x), (G23,)),
    Case("grad_of_sigmoid", lambda L: lambda x: L.autograd.grad(x.sigmoid().sum(), x),
         (G23,)),
    Case("where_with_a_number", lambda L: lambda x: L.where(x > 2, x, 0.0)),
    # known differences (DIFFERENCES)
    Case("grad_of_slice", lambda L: lambda x: L.autograd.grad((x[:, 1:] * 2).sum(), x),
         (G23,), differs="slice_select_backward"),
    Case("backward_into_grad", lambda L: lambda x: (x * 2).sum().backward(), (G23,),
         differs="accumulate_grad_ops"),
]

#: where reftensor dispatches other ops than torch; name: why
DIFFERENCES: dict[str, str] = {
    "slice_select_backward": "tests/test_ch09_dispatch.py's allowance: torch's SliceBackward0 "
                             "and SelectBackward0 call slice_backward and select_backward; "
                             "reftensor scatters the gradient into zeros through the "
                             "positions the slice reads.",
    "accumulate_grad_ops": "tests/test_ch09_dispatch.py's allowance: torch's AccumulateGrad "
                           "stores a leaf's first gradient with detach (or new_empty_strided "
                           "and copy_); reftensor stores a copy without an op. The cases "
                           "trace autograd.grad, which accumulates nothing.",
    "copy_slices": "tests/test_ch09_dispatch.py's allowance: the backward of an in-place op on "
                   "a view (CopySlices) runs other ops on reftensor. A generated program that "
                   "writes into a view is compared forward only.",
    "matmul_squeezes_under_a_mode": "tests/test_ch09_dispatch.py's allowance: under a mode "
                                    "torch's matmul squeezes batch dims of size 1 first. A "
                                    "generated program with such a matmul is not compared.",
}


# ---------------------------------------------------------------- tracing both
def _values(rng: random.Random, shape: tuple[int, ...], dtype: str) -> list[Any]:
    n = math.prod(shape)
    if dtype == "int64":
        return [rng.randint(0, 1) for _ in range(n)]
    return [rng.randint(-8, 8) / 4 for _ in range(n)]


def _inputs(lib: Any, specs: tuple[Spec, ...], seed: int) -> list[Any]:
    rng = random.Random(seed)
    made = []
    for shape, dtype, grad in specs:
        t = lib.tensor(_values(rng, shape, dtype), dtype=getattr(lib, dtype)).reshape(shape)
        made.append(t.requires_grad_(True) if grad else t)
    return made


def _meta(gm: Any) -> list[tuple]:
    """Each node's name and value: (shape, strides, dtype, device, requires_grad) of a
    tensor (torch's FakeTensor, reftensor's TensorMeta), per tensor of a tuple, the value
    itself otherwise."""
    def described(v: Any) -> Any:
        if hasattr(v, "dtype") and hasattr(v, "stride"):
            return (tuple(v.shape), tuple(v.stride()), str(v.dtype).rpartition(".")[2],
                    str(v.device), v.requires_grad)
        if isinstance(v, list | tuple):
            return tuple(described(x) for x in v)
        return v
    return [(n.name, n.op, described(n.meta.get("val"))) for n in gm.graph.nodes]


@dataclass
class Traced:
    code: str
    graph: str
    readable: str
    meta: list[tuple]
    module: Any


def trace(lib: Any, fn: Callable[..., Any], args: list[Any]) -> Traced:
    gm = (torch_make_fx if lib is torch else make_fx)(fn)(*args)
    texts = [gm.code, str(gm.graph), gm.print_readable(print_output=False)]
    if lib is reftensor:
        texts = [normalized(t) for t in texts]
    return Traced(*texts, _meta(gm), gm)


def assert_same_trace(t: Traced, r: Traced) -> None:
    assert r.code == t.code
    assert r.graph == t.graph
    assert r.readable == t.readable
    assert r.meta == t.meta


def _same(a: Any, b: Any) -> bool:
    """Equal results: tensors of the same shape, dtype and values (nan as nan)."""
    if isinstance(a, reftensor.Tensor) and isinstance(b, reftensor.Tensor):
        return (a.shape == b.shape and a.dtype == b.dtype
                and np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=True))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("case", [c for c in CASES if c.differs is None], ids=lambda c: c.name)
def test_make_fx_prints_torchs_graph_and_reruns_the_function(case):
    t = trace(torch, case.fn(torch), _inputs(torch, case.inputs, 0))
    r = trace(reftensor, case.fn(reftensor), _inputs(reftensor, case.inputs, 0))
    assert_same_trace(t, r)
    # on new inputs, the module computes what the function computes
    got = r.module(*_inputs(reftensor, case.inputs, 1))
    want = case.fn(reftensor)(*_inputs(reftensor, case.inputs, 1))
    assert _same(got, want), (got, want)
    assert not state.modes


@pytest.mark.parametrize("case", [c for c in CASES if c.differs is not None],
                         ids=lambda c: f"{c.differs}-{c.name}")
def test_each_difference_still_occurs(case):
    """A known difference (``DIFFERENCES``) still shows in its case's code; the module still
    computes the function."""
    assert case.differs in DIFFERENCES
    t = trace(torch, case.fn(torch), _inputs(torch, case.inputs, 0))
    r = trace(reftensor, case.fn(reftensor), _inputs(reftensor, case.inputs, 0))
    assert r.code != t.code, f"{case.differs} no longer occurs in {case.name}: compare it"
    if case.differs != "accumulate_grad_ops":  # (returns None and writes .grad)
        got = r.module(*_inputs(reftensor, case.inputs, 1))
        want = case.fn(reftensor)(*_inputs(reftensor, case.inputs, 1))
        assert _same(got, want)


def test_every_difference_has_a_case_or_a_program_rule():
    named = {c.differs for c in CASES} | {"copy_slices", "matmul_squeezes_under_a_mode"}
    assert named - {None} == set(DIFFERENCES)


# ---------------------------------------------------------------- the module's other parts
_CANDIDATES = ["x_1", "x", "x_0", "x_2", "x_10", "x_01", "x__1", "y_1_1", "add", "add_",
               "sum", "sum_1", "max", "max_2", "slice_1", "getitem", "_tensor_constant0",
               "1abc", "0", "9_1", "a.b", "a-1", "", "_", "_1", "__", "if", "input", "inf",
               "nan", "device", "torch", "NoneType", "copy_", "self"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(_CANDIDATES), max_size=12))
def test_node_names_follow_torchs_namespace(candidates):
    """Names made from the same candidates, in the same order, are torch's (its
    ``torch.fx.graph._Namespace``)."""
    from torch.fx.graph import _Namespace as TorchNamespace

    from reftensor.fx.graph import _Namespace

    theirs, ours = TorchNamespace(), _Namespace()
    assert [ours.create_name(c) for c in candidates] == [
        theirs.create_name(c, None) for c in candidates]


def test_constants_are_buffers_and_parameters_as_torchs():
    def f(lib: Any) -> Callable[..., Any]:
        return lambda x: outside(lib, "linear")(x) * outside(lib, "y")[:2] + lib.tensor(2.0)

    gms = {lib.__name__: (torch_make_fx if lib is torch else make_fx)(f(lib))(
        *_inputs(lib, (F23,), 0)) for lib in (torch, reftensor)}
    for kind in ("named_buffers", "named_parameters"):
        names = {k: [n for n, _ in getattr(gm, kind)()] for k, gm in gms.items()}
        assert names["reftensor"] == names["torch"]
    assert gms["reftensor"]._param_constant0 is outside(reftensor, "linear").weight
    assert normalized(str(gms["reftensor"])) == str(gms["torch"])


def test_readable_with_strides_and_devices_as_torchs():
    texts = []
    for lib in (torch, reftensor):
        gm = (torch_make_fx if lib is torch else make_fx)(
            lambda x: (x.t() * 2, x.max(1)))(*_inputs(lib, (F23,), 0))
        texts.append(normalized(gm.print_readable(False, include_stride=True,
                                                  include_device=True)))
    assert texts[0] == texts[1]


def test_names_of_parameters_and_defaults_as_torchs():
    def named(lib: Any) -> Callable[..., Any]:
        def f(sum, x_1, y=2):  # a builtin's name, a name with a number, a default
            return sum * x_1 + y
        return f

    texts = [normalized((torch_make_fx if lib is torch else make_fx)(named(lib))(
        *_inputs(lib, (F23, F23), 0), 3).print_readable(False)) for lib in (torch, reftensor)]
    assert texts[0] == texts[1]
    assert "def forward(self, sum_1" in texts[1] and "x_1_1" in texts[1]


def test_the_modules_code_runs_through_reftensor_ops_aten():
    from reftensor.testing._internal.logging_tensor import capture_logs_with_logging_tensor_mode

    gm = make_fx(lambda x: (x * 2).sum(1))(reftensor.ones(2, 3))
    assert gm.code.count("reftensor.ops.aten.") == 2
    x = reftensor.ones(2, 3)
    with capture_logs_with_logging_tensor_mode() as logs:
        out = gm(x)
    assert [line.split(" = ")[1].split("(")[0] for line in logs] == [
        "reftensor._ops.aten.mul.Tensor", "reftensor._ops.aten.sum.dim_IntList"]
    assert out.tolist() == [6.0, 6.0]


def test_a_decomposition_table_traces_the_decomposition():
    def f(x):
        return x.t() * 2

    graphs = []
    for lib, mk in ((torch, torch_make_fx), (reftensor, make_fx)):
        aten = lib.ops.aten
        table = {aten.t.default: lambda x, aten=aten: aten.transpose.int(x, 0, 1)}
        graphs.append(normalized(mk(f, table)(lib.ones(2, 3)).code))
    assert graphs[0] == graphs[1]
    assert "transpose.int" in graphs[1] and ".t.default" not in graphs[1]


def test_tracing_modes_other_than_real_and_nested_inputs_raise():
    for mode in ("fake", "symbolic"):
        with pytest.raises(NotImplementedError, match="tracing_mode='real'"):
            make_fx(lambda x: x, tracing_mode=mode)
    with pytest.raises(ValueError, match="Unrecognized tracing mode"):
        make_fx(lambda x: x, tracing_mode="other")
    with pytest.raises(NotImplementedError, match="pre_dispatch"):
        make_fx(lambda x: x, pre_dispatch=True)
    with pytest.raises(NotImplementedError, match="holds tensors"):
        make_fx(lambda xs: xs[0])([reftensor.ones(2)])
    with pytest.raises(RuntimeError, match="Tracing expected 1 arguments but got 2"):
        make_fx(lambda x: x)(reftensor.ones(2), reftensor.ones(2))


def _numbers_read(lib: Any) -> dict[str, Callable[[Any], Any]]:
    """Functions that read a number off a tensor while traced: off an input or what ops
    made of one (refused), off a constant (a tensor from outside, or made from data with one
    element, and ops on such constants alone: read), with ``item``, ``equal``, ``float()``,
    a comparison's ``bool``, an in-place op that makes a constant depend on an input."""
    outside = lib.tensor([2.0])
    return {
        "an input's sum": lambda x: x * x.sum().item(),
        "an input's comparison": lambda x: x * 2 if x.sum() > 0 else x,
        "equal on inputs": lambda x: x * lib.equal(x, x),
        "a tensor from outside": lambda x: x * outside.item(),
        "an op on a tensor from outside": lambda x: x * (outside * 2).item(),
        "ops on a constant": lambda x: x * (lib.tensor(2.0) * 3).sum().item(),
        "a constant of two elements": lambda x: x * lib.tensor([2.0, 3.0]).sum().item(),
        "a constant plus an input": lambda x: x * (lib.tensor(2.0) + x[0]).item(),
        "a random number": lambda x: x * lib.rand(()).item(),
        "tolist": lambda x: x * x.tolist()[0],
        "equal on constants": lambda x: x * lib.equal(lib.tensor(1.0), lib.tensor(1.0)),
        "a constant updated in place": lambda x: (lambda c: x * c.add_(x[0]).item())(
            lib.tensor(1.0)),
        "float() of a constant": lambda x: x * float(lib.tensor(2.0) + 1),
        "a constant's comparison": lambda x: x * 2 if lib.tensor(1.0) > 0 else x,
    }


def _traced_or_refused(lib: Any, make: Any, f: Callable[[Any], Any]) -> Any:
    try:
        gm = make(f)(lib.ones(2))
    except RuntimeError as e:
        return ("RuntimeError", str(e).replace("torch.ops.", "").replace("reftensor.ops.", ""))
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


@pytest.mark.parametrize("name", sorted(_numbers_read(torch)))
def test_a_number_read_off_a_traced_tensor_is_refused_off_a_constant_read(name):
    """``_local_scalar_dense`` (``item()``), ``equal`` and ``allclose`` read a number off
    the data: torch's tracer runs them unrecorded on constants and refuses them (a
    RuntimeError, its message) on anything an input reaches; the same ops recorded, or the
    same error, on both libraries."""
    found = _traced_or_refused(reftensor, make_fx, _numbers_read(reftensor)[name])
    expected = _traced_or_refused(torch, torch_make_fx, _numbers_read(torch)[name])
    assert found == expected


def test_the_mode_is_gone_after_a_function_that_raises():
    def fails(x):
        x * 2
        raise KeyError("inside")

    with pytest.raises(KeyError):
        make_fx(fails)(reftensor.ones(2))
    assert not state.modes


# ---------------------------------------------------------------- generated programs
@dataclass
class Kinds:
    """What a program's steps are, where they decide what is compared."""

    folds: bool = False  # a matmul that torch folds under a mode
    writes_into_a_view: bool = False  # an in-place step on a view (CopySlices)
    slices: bool = False  # a slice or select step (its backward)


def _kinds(program: Program) -> Kinds:
    kinds = Kinds()
    inputs, linears = _build(torch, program)
    t = inputs[0]
    for step in program.steps:
        if step[0] == "matmul":
            other = tuple(inputs[step[1]].shape)
            shapes = (other, tuple(t.shape)) if step[2] else (tuple(t.shape), other)
            kinds.folds |= _folds_batches_of_one(*shapes)
        if step[0] in ("add_", "mul_") and not t.is_leaf and t._base is not None:
            kinds.writes_into_a_view = True
        kinds.slices |= step[0] in ("slice", "select")
        t = _step(torch, t, step, inputs, linears)
    return kinds


def _functions(lib: Any, program: Program) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The program's forward (its steps on its inputs) and its gradient: ``autograd.grad``
    of the result's sum with respect to each input that requires grad."""
    _, linears = _build(lib, program)

    def forward(*args: Any) -> Any:
        t = args[0]
        for step in program.steps:
            t = _step(lib, t, step, list(args), linears)
        return t

    def gradient(*args: Any) -> Any:
        t = forward(*args)
        wanted = [a for a in args if a.requires_grad]
        return lib.autograd.grad(t if t.dim() == 0 else t.sum(), wanted, allow_unused=True)

    return forward, gradient


def _renewed(program: Program) -> Program:
    """The program with new values in its float inputs (the index inputs kept)."""
    rng = random.Random(len(program.steps))
    inputs = [(shape, dtype, grad, values if "int" in dtype else
               [rng.randint(-8, 8) / 4 for _ in values])
              for shape, dtype, grad, values in program.inputs]
    return Program(inputs, program.linears, program.steps)


def traceable(program: Program) -> bool:
    """Can make_fx trace the program? Not one that reads a number out of a traced tensor
    (an ``item`` step): both tracers refuse ``_local_scalar_dense`` there (see
    :func:`test_a_number_read_off_a_traced_tensor_is_refused_off_a_constant_read`)."""
    return not any(step[0] == "item" for step in program.steps)


def compare_program(program: Program) -> dict[str, str]:
    """Per traced function (``forward``, ``gradient``): ``"same"``, the difference that
    excludes it, or where torch's and reftensor's traces first differ."""
    kinds = _kinds(program)
    functions = {lib.__name__: _functions(lib, program) for lib in (torch, reftensor)}
    verdicts = {}
    for k, what in enumerate(("forward", "gradient")):
        excluded = None
        if kinds.folds:
            excluded = "matmul_squeezes_under_a_mode"
        elif what == "gradient" and (kinds.writes_into_a_view or kinds.slices):
            excluded = "copy_slices" if kinds.writes_into_a_view else "slice_select_backward"
        r = trace(reftensor, functions["reftensor"][k], _build(reftensor, program)[0])
        if excluded is None:
            t = trace(torch, functions["torch"][k], _build(torch, program)[0])
            try:
                assert_same_trace(t, r)
            except AssertionError:
                lines = [(a, b) for a, b in zip(t.code.splitlines(), r.code.splitlines(),
                                                strict=False) if a != b]
                verdicts[what] = f"differs: {lines[:1] or (t.code, r.code)}"
                continue
        # excluded or not, the module computes what the function computes
        new = _build(reftensor, _renewed(program))[0]
        again = _build(reftensor, _renewed(program))[0]
        if not _same(r.module(*new), functions["reftensor"][k](*again)):
            verdicts[what] = f"differs: the module's values{f' ({excluded})' * bool(excluded)}"
            continue
        verdicts[what] = excluded or "same"
    return verdicts


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_programs_trace_as_torchs(seed):
    program = draw_program(random.Random(seed))
    assume(traceable(program))
    verdicts = compare_program(program)
    for what, verdict in verdicts.items():
        assert verdict == "same" or verdict in DIFFERENCES, (
            f"{what}: {verdict}\n{program.text()}")


if __name__ == "__main__":  # count agreement on seeded programs
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    tally: dict[str, dict[str, int]] = {"forward": {}, "gradient": {}}
    for seed in range(count):
        program = draw_program(random.Random(seed))
        if not traceable(program):
            continue
        try:
            verdicts = compare_program(program)
        except Exception as e:  # reftensor raised where torch did not
            verdicts = {w: f"raised {type(e).__name__}: {str(e)[:80]}" for w in tally}
        for what, verdict in verdicts.items():
            key = verdict if verdict == "same" or verdict in DIFFERENCES else "other"
            tally[what][key] = tally[what].get(key, 0) + 1
            if key == "other" and "-v" in sys.argv:
                print(seed, what, verdict)
    print(f"{count} programs:", tally)
    print(f"{sum(c.differs is None for c in CASES)} of {len(CASES)} functions compared exactly")
