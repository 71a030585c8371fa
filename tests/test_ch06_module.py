"""Chapter 6 (first part): ``nn.Parameter``, ``nn.Module``, the containers, ``nn.init`` and
``Linear``'s default initialisation, against torch 2.13.

Every program runs on both libraries (``lib`` is ``torch`` or ``reftensor``). Module trees are
generated (Hypothesis): nested ``Sequential``, ``ModuleList``, ``ModuleDict`` and a custom
module with parameters, buffers (persistent or not), a plain tensor attribute, children,
shared submodules and shared parameters, all built after the same ``manual_seed``. On each
tree the harness compares what torch exposes: the names and order of ``named_parameters``
(with and without duplicates), ``named_buffers``, ``named_modules``, ``named_children``;
``state_dict``'s keys, values (bit for bit: the default initialisation is torch's), dtypes
and ``_metadata``; the module ``repr``; ``train``/``eval``; ``requires_grad_``; ``zero_grad``;
``load_state_dict``'s result and its errors, text included; ``apply``'s order.
"""

from __future__ import annotations

import math
import struct
import warnings
from collections import OrderedDict
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import same_on_both
from tests.strategies import examples

pytestmark = pytest.mark.ch06

LIBS = [torch, reftensor]


def _bits(t: Any) -> list[int]:
    """Every float32 value's bits, so that a comparison is exact, sign of zero included."""
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.detach().reshape(-1).tolist()]


def _text(s: str) -> str:
    return s.replace("reftensor.", "torch.")


def _error(lib: Any, fn: Any) -> tuple[str, str]:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e).__name__, _text(str(e))
    return "no error", ""


# ------------------------------------------------------------------ Parameter
def test_a_parameter_shares_storage_and_version_but_not_history():
    def program(lib):
        x = lib.zeros(2, 3)
        p = lib.nn.Parameter(x)
        x.add_(1)
        y = lib.ones(2, requires_grad=True) * 2
        q = lib.nn.Parameter(y)
        return (p, x, q, type(p * 2).__name__, type(p.view(6)).__name__,
                type(p.detach()).__name__, type(p.data).__name__, isinstance(p, lib.Tensor),
                q.grad_fn is None, _text(repr(p)), repr(lib.nn.Parameter()))
    same_on_both(program)


def test_parameter_refuses_requires_grad_on_integers_and_deepcopies_as_a_parameter():
    import copy

    def program(lib):
        refused = _error(lib, lambda: lib.nn.Parameter(lib.tensor([1, 2])))[0]
        kept = lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False)
        p = lib.nn.Parameter(lib.ones(2))
        c = copy.deepcopy(p)
        return refused, kept, repr(kept), type(c).__name__, c, c.data_ptr() != p.data_ptr()
    same_on_both(program)


# ------------------------------------------------------------------ generated trees
@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> Any:
    """A plan of a module tree: ("linear", in, out, bias), ("relu",), ("seq", [...]),
    ("list", [...]), ("dict", [(name, plan)]), ("custom", params, buffers, children,
    plain), or ("again", k): the k-th module built so far (a shared submodule)."""
    kinds = ["linear", "relu", "again"] + (["seq", "list", "dict", "custom"] if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "linear":
        return ("linear", draw(st.integers(0, 4)), draw(st.integers(1, 4)), draw(st.booleans()))
    if kind in ("relu", "again"):
        return (kind, draw(st.integers(0, 5)))
    children = st.lists(trees(depth + 1), max_size=3)
    if kind in ("seq", "list"):
        return (kind, draw(children))
    names = st.sampled_from(["a", "b", "enc", "head", "w", "block"])
    if kind == "dict":
        return ("dict", draw(st.lists(st.tuples(names, trees(depth + 1)), max_size=3,
                                      unique_by=lambda c: c[0])))
    params = draw(st.lists(st.tuples(st.sampled_from(["weight", "scale", "p"]),
                                     st.integers(0, 3), st.booleans()),
                           max_size=2, unique_by=lambda c: c[0]))
    buffers = draw(st.lists(st.tuples(st.sampled_from(["running", "count", "mask"]),
                                      st.integers(0, 3), st.booleans()),
                            max_size=2, unique_by=lambda c: c[0]))
    kids = draw(st.lists(st.tuples(st.sampled_from(["enc", "head", "block"]),
                                   trees(depth + 1)), max_size=2, unique_by=lambda c: c[0]))
    return ("custom", params, buffers, kids, draw(st.booleans()), draw(st.booleans()))


def build(lib: Any, plan: Any, made: list[Any] | None = None) -> Any:
    """The module tree ``plan`` describes, built with ``lib`` (see ``trees``)."""
    made = [] if made is None else made
    kind = plan[0]
    if kind == "again" and made:
        return made[plan[1] % len(made)]
    if kind in ("again", "relu"):
        module = lib.nn.ReLU()
    elif kind == "linear":
        module = lib.nn.Linear(plan[1], plan[2], bias=plan[3])
    elif kind == "seq":
        module = lib.nn.Sequential(*[build(lib, p, made) for p in plan[1]])
    elif kind == "list":
        module = lib.nn.ModuleList([build(lib, p, made) for p in plan[1]])
    elif kind == "dict":
        module = lib.nn.ModuleDict({name: build(lib, p, made) for name, p in plan[1]})
    else:
        _, params, buffers, kids, plain, share = plan

        class Custom(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                for name, n, frozen in params:
                    setattr(self, name, lib.nn.Parameter(lib.rand(n, 2),
                                                         requires_grad=not frozen))
                for name, n, persistent in buffers:
                    self.register_buffer(name, lib.arange(float(n)), persistent=persistent)
                for name, p in kids:
                    setattr(self, name, build(lib, p, made))
                if plain:
                    self.plain = lib.ones(2)  # a tensor that is not a Parameter
                if share and made and params:
                    # a parameter of an earlier module, shared under a second name
                    earlier = [q for m in made for q in m.parameters()]
                    if earlier:
                        self.tied = earlier[0]

            def extra_repr(self) -> str:
                return f"params={len(params)}"

        module = Custom()
    made.append(module)
    return module


def _walks(lib: Any, plan: Any) -> Any:
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kaiming_uniform_ warns on 0-element weights
        model = build(lib, plan)
    state = model.state_dict()
    return (
        [n for n, _ in model.named_parameters()],
        [n for n, _ in model.named_parameters(remove_duplicate=False)],
        [n for n, _ in model.named_parameters(prefix="m", recurse=False)],
        [n for n, _ in model.named_buffers()],
        [n for n, _ in model.named_modules()],
        [n for n, _ in model.named_modules(remove_duplicate=False)],
        [n for n, _ in model.named_children()],
        [type(m).__name__ for m in model.modules()],
        list(state), {k: (str(v.dtype).split(".")[-1], tuple(v.shape), _bits(v))
                      for k, v in state.items() if v.dtype == lib.float32},
        dict(state._metadata), [t.requires_grad for t in state.values()],
        repr(model),
    )


@settings(max_examples=examples(20), deadline=None)
@given(trees())
def test_generated_trees_walk_name_and_save_as_torch_does(plan):
    same_on_both(lambda lib: _walks(lib, plan))


def _modes(lib: Any, plan: Any) -> Any:
    lib.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build(lib, plan)
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    model.eval()
    after_eval = [m.training for m in model.modules()]
    model.train()
    model.requires_grad_(False)
    frozen = [p.requires_grad for p in model.parameters()]
    model.requires_grad_()
    for p in model.parameters():
        p.grad = lib.ones(tuple(p.shape))
    model.zero_grad(set_to_none=False)
    zeroed = [(p.grad.tolist(), p.grad.requires_grad) for p in model.parameters()]
    model.zero_grad()
    return seen, after_eval, frozen, zeroed, [p.grad is None for p in model.parameters()]


@settings(max_examples=examples(20), deadline=None)
@given(trees())
def test_generated_trees_switch_modes_freeze_and_clear_grads_as_torch_does(plan):
    same_on_both(lambda lib: _modes(lib, plan))


def _reload(lib: Any, plan: Any, other: Any, strict: bool) -> Any:
    lib.manual_seed(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build(lib, plan)
        source = build(lib, other).state_dict()
    try:
        result = model.load_state_dict(source, strict=strict)
    except Exception as e:  # noqa: BLE001 - class and text are compared
        return type(e).__name__, _text(str(e))
    return (_text(repr(result)), result.missing_keys, result.unexpected_keys,
            {k: _bits(v) for k, v in model.state_dict().items() if v.dtype == lib.float32})


@settings(max_examples=examples(20), deadline=None)
@given(trees(), trees(), st.booleans())
def test_generated_trees_load_each_others_state_as_torch_does(plan, other, strict):
    same_on_both(lambda lib: _reload(lib, plan, other, strict))


# ------------------------------------------------------------------ registration rules
def test_assignment_routes_and_refuses_as_torch_does():
    def program(lib):
        nn = lib.nn
        m = nn.Module()
        out = []
        m.w = nn.Parameter(lib.ones(2))
        m.sub = nn.Linear(2, 2)
        m.register_buffer("buf", lib.zeros(2))
        m.register_buffer("tmp", lib.zeros(1), persistent=False)
        m.plain = lib.ones(3)
        out.append((list(m._parameters), list(m._modules), list(m._buffers),
                    sorted(m._non_persistent_buffers_set), list(m.state_dict())))
        out.append(_error(lib, lambda: setattr(m, "w", lib.ones(2))))
        out.append(_error(lib, lambda: setattr(m, "sub", lib.ones(2))))
        out.append(_error(lib, lambda: setattr(m, "buf", 3)))
        out.append(_error(lib, lambda: m.register_parameter("a.b", None)))
        out.append(_error(lib, lambda: m.register_parameter("", None)))
        out.append(_error(lib, lambda: m.register_parameter("plain", None)))
        out.append(_error(lib, lambda: m.register_parameter(1, None)))
        out.append(_error(lib, lambda: m.register_parameter("x", lib.ones(1))))
        out.append(_error(lib, lambda: m.register_parameter(
            "y", nn.Parameter(lib.ones(1)) * 2)))
        out.append(_error(lib, lambda: m.register_buffer("a.b", None)))
        out.append(_error(lib, lambda: m.register_buffer("w", lib.ones(1))))
        out.append(_error(lib, lambda: m.register_buffer("z", [1])))
        out.append(_error(lib, lambda: m.add_module("a.b", nn.ReLU())))
        out.append(_error(lib, lambda: m.add_module("", nn.ReLU())))
        out.append(_error(lib, lambda: m.add_module("q", 3)))
        out.append(_error(lib, lambda: m.add_module("w", nn.ReLU())))
        out.append(_error(lib, lambda: m.nothing))
        # a name changes kind: the old entry goes
        m.buf = nn.Parameter(lib.ones(1))
        m.sub = None
        m.w = None
        out.append((list(m._parameters), list(m._buffers), list(m._modules),
                    list(m.state_dict())))
        del m.buf
        del m.tmp
        del m.plain
        out.append((list(m._parameters), list(m._buffers), hasattr(m, "plain")))
        m.sub = nn.Tanh()
        m.sub = nn.Parameter(lib.ones(1))  # a module slot taken by a parameter
        out.append((list(m._parameters), list(m._modules)))

        class Early(nn.Module):
            def __init__(self, kind):
                if kind == "p":
                    self.w = nn.Parameter(lib.ones(1))
                elif kind == "m":
                    self.m = nn.ReLU()
                else:
                    self.register_buffer("b", lib.ones(1))
        out += [_error(lib, lambda k=k: Early(k)) for k in "pmb"]
        out.append(_error(lib, lambda: nn.Module(3)))
        out.append(_error(lib, lambda: nn.Module(x=3)))
        out.append(_error(lib, lambda: nn.Module()(lib.ones(1))))
        return out
    same_on_both(program)


def test_get_submodule_parameter_and_buffer_as_torch_does():
    def program(lib):
        nn = lib.nn
        net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))
        net[1].register_buffer("stat", lib.zeros(1))
        out = [type(net.get_submodule("1.1")).__name__, net.get_submodule("") is net,
               tuple(net.get_parameter("1.1.weight").shape), net.get_buffer("1.stat")]
        for call in (lambda: net.get_submodule("1.2"), lambda: net.get_submodule("0.weight"),
                     lambda: net.get_parameter("1.nope"), lambda: net.get_parameter("1.stat"),
                     lambda: net.get_buffer("0.weight"), lambda: net.get_buffer("0.x")):
            out.append(_error(lib, call))
        return out
    same_on_both(program)


# ------------------------------------------------------------------ containers
def test_sequential_and_modulelist_index_slice_insert_delete_as_torch_does():
    def program(lib):
        nn = lib.nn
        a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
        seq = nn.Sequential(a, b, c)
        out = [seq[-1] is c, type(seq[1:]).__name__, [type(m).__name__ for m in seq[::-1]],
               _error(lib, lambda: seq[3]), _error(lib, lambda: seq["0"])]
        seq.insert(-1, nn.Identity())
        seq.append(nn.Flatten())
        out.append(repr(seq))
        del seq[1]
        seq[0] = nn.Tanh()
        out.append((list(seq._modules), repr(seq), len(seq)))
        out.append(_error(lib, lambda: seq.insert(9, nn.ReLU())))
        out.append(_error(lib, lambda: seq.insert(0, 3)))
        out.append(repr(seq + nn.Sequential(nn.ReLU())))
        out.append(repr(2 * nn.Sequential(a)))
        out.append(_error(lib, lambda: seq + nn.ModuleList()))
        out.append(_error(lib, lambda: seq * 0))
        out.append(_error(lib, lambda: seq * 1.5))
        named = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Tanh())]))
        out.append((repr(named), list(named._modules)))
        lst = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
        out.append(repr(lst))
        lst.insert(1, nn.Tanh())
        lst.pop(0)
        del lst[::2]
        out.append((list(lst._modules), repr(lst), repr(nn.ModuleList())))
        out.append(_error(lib, lambda: lst.insert(-1, nn.ReLU())))
        out.append(_error(lib, lambda: lst.extend(3)))
        d = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
        d.update([("c", nn.Identity())])
        out.append((list(d), list(d.keys()), "a" in d, repr(d), type(d.pop("b")).__name__))
        out.append(_error(lib, lambda: d.update([("x",)])))
        out.append(_error(lib, lambda: d.update(3)))
        return out
    same_on_both(program)


def test_sequential_runs_its_children_in_order_and_hooks_in_registration_order():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(3)
        net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        calls = []
        net[0].register_forward_pre_hook(lambda m, args: calls.append("pre0"))
        h = net[0].register_forward_hook(lambda m, args, out: calls.append("post0"))
        net[0].register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
        net.register_forward_hook(lambda m, args, kwargs, out: calls.append(
            ("kw", sorted(kwargs))), with_kwargs=True)
        net[2].register_forward_hook(lambda m, args, out: out * 0)  # replaces the output
        net[1].register_forward_pre_hook(lambda m, args: (args[0] * -1,))  # replaces input
        y = net(lib.ones(5, 3))
        h.remove()
        h.remove()
        net(lib.ones(1, 3))
        return calls, y.tolist()
    same_on_both(program)


def test_always_call_hooks_run_when_forward_raises():
    def program(lib):
        nn = lib.nn
        calls = []
        layer = nn.Linear(3, 2)
        layer.register_forward_hook(lambda m, a, o: calls.append(("always", o)),
                                    always_call=True)
        layer.register_forward_hook(lambda m, a, o: calls.append("never"))
        return _error(lib, lambda: layer(lib.ones(2, 4)))[0], calls
    same_on_both(program)


def test_global_hooks_run_before_the_modules_own_on_every_module():
    """register_module_forward_pre_hook and register_module_forward_hook: on every module's
    call, before its own hooks; a global always_call hook after forward raised; removed by
    their handles."""
    def program(lib):
        from_module = lib.nn.modules.module
        calls = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        net[1].register_forward_pre_hook(lambda m, a: calls.append("relu pre"))
        net[1].register_forward_hook(lambda m, a, o: calls.append("relu hook"))
        handles = [
            from_module.register_module_forward_pre_hook(
                lambda m, a: calls.append(("global pre", type(m).__name__))),
            from_module.register_module_forward_hook(
                lambda m, a, k, o: calls.append(("global hook", type(m).__name__, k)),
                with_kwargs=True),
            from_module.register_module_forward_hook(
                lambda m, a, o: calls.append(("global always", type(m).__name__, o)),
                always_call=True)]
        net(lib.ones(1, 2))
        failed = _error(lib, lambda: net(lib.ones(1, 3)))[0]
        for handle in handles:
            handle.remove()
        net(lib.ones(1, 2))
        return calls, failed
    same_on_both(program)


# ------------------------------------------------------------------ init
@pytest.mark.parametrize("seed", [0, 1, 7, 2**32 + 5])
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (4, 0), (0, 4), (6, 2)])
def test_linear_after_manual_seed_holds_torchs_exact_weights(seed, shape):
    def program(lib):
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = lib.nn.Linear(shape[1], shape[0])
        after = lib.rand(2)  # the generator is where torch's is
        return _bits(layer.weight), _bits(layer.bias), layer.weight, layer.bias, after
    same_on_both(program)


def test_linear_in_float64_and_without_bias():
    def program(lib):
        lib.manual_seed(4)
        layer = lib.nn.Linear(3, 2, bias=False, dtype=lib.float64)
        return layer.weight, layer.bias is None, repr(layer), list(layer.state_dict())
    same_on_both(program)


@pytest.mark.parametrize("call", [
    "kaiming_uniform_(w)", "kaiming_uniform_(w, a=0.3, mode='fan_out', nonlinearity='relu')",
    "kaiming_normal_(w)", "kaiming_normal_(w, mode='fan_out', nonlinearity='tanh')",
    "xavier_uniform_(w)", "xavier_uniform_(w, gain=2.0)", "xavier_normal_(w, gain=0.5)",
    "uniform_(w, -2, 3)", "normal_(w, 1.0, 0.1)", "constant_(w, 0.25)", "ones_(w)",
    "zeros_(w)", "kaiming_uniform_(w, generator=g)", "xavier_normal_(w, generator=g)",
    "kaiming_uniform_(w, mode='fan_sideways')", "kaiming_uniform_(v)",
    "xavier_uniform_(v)", "kaiming_uniform_(w, nonlinearity='swish')",
    "kaiming_uniform_(w, a=True)",
])
def test_init_functions_draw_torchs_values(call):
    def program(lib):
        lib.manual_seed(5)
        g = lib.Generator().manual_seed(9)
        w = lib.empty(4, 3, 2)
        v = lib.empty(5)
        w.requires_grad_()
        result = eval(f"lib.nn.init.{call}", {"lib": lib, "w": w, "v": v, "g": g})
        return result is w, w.detach(), w._version, w.grad_fn is None, lib.rand(1), g.get_state()
    same_on_both(program)


@pytest.mark.parametrize("name,param", [
    ("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu", None),
    ("leaky_relu", "x"), ("gelu", None),
])
def test_calculate_gain_as_torch(name, param):
    same_on_both(lambda lib: lib.nn.init.calculate_gain(name, param))


def test_a_zero_element_weight_is_left_as_it_is_with_a_warning():
    def program(lib):
        lib.manual_seed(0)
        w = lib.empty(0, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.init.kaiming_uniform_(w)
        return [str(c.message) for c in caught], lib.rand(1)
    same_on_both(program)


# ------------------------------------------------------------------ to() and a forward pass
def test_module_to_converts_floating_tensors_in_place_and_keeps_the_objects():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(6)
        layer = nn.Linear(2, 2)
        layer.register_buffer("steps", lib.tensor(3))
        weight = layer.weight
        layer.weight.grad = lib.ones(2, 2)
        out = [layer.double() is layer, layer.weight is weight, layer.weight.dtype,
               layer.weight.grad.dtype, layer.steps.dtype, layer.weight]
        layer.to(lib.float16)
        out += [layer.weight.dtype, layer.bias, layer.steps.dtype]
        layer.to(lib.zeros(1, dtype=lib.float32))
        out += [layer.weight.dtype, layer.weight.requires_grad, layer.weight.is_leaf]
        out.append(_error(lib, lambda: layer.to(lib.int32)))
        return out
    same_on_both(program)


def test_linear_forward_and_gradients_match_torch():
    def program(lib):
        lib.manual_seed(8)
        f64 = lib.float64
        net = lib.nn.Sequential(lib.nn.Linear(3, 4, dtype=f64), lib.nn.ReLU(),
                                lib.nn.Linear(4, 1, dtype=f64), lib.nn.Tanh(),
                                lib.nn.Flatten(0))
        x = lib.rand(5, 3, dtype=f64)
        loss = net(x).sum()
        loss.backward()
        return ([p.grad.tolist() for p in net.parameters()], loss.item(),
                net(lib.rand(2, 6, 3, dtype=f64)).shape)
    t = same_on_both(program, ulps=8)
    assert t is not None and math.isfinite(t[1])


def test_setting_data_takes_the_new_tensors_storage_and_keeps_the_version_counter():
    def program(lib):
        x = lib.zeros(2, requires_grad=True)
        y = lib.arange(6, dtype=lib.float64).reshape(2, 3).t()
        with lib.no_grad():
            x.add_(1)
        x.data = y
        y.add_(1)  # x now shares y's storage
        return (x.detach(), x._version, x.dtype, x.requires_grad, x.is_leaf, x.stride(),
                _error(lib, lambda: setattr(x, "data", 3))[0])
    same_on_both(program)


# ------------------------------------------------------------------ parameter containers
def test_parameter_list_and_dict_register_convert_and_print_as_torch():
    def program(lib):
        nn = lib.nn
        pl = nn.ParameterList([lib.ones(2, 3), nn.Parameter(lib.zeros(1)), "text"])
        pl.append(lib.ones(4))
        pl[0] = lib.zeros(3)
        out = [[type(p).__name__ for p in pl], len(pl), list(pl.state_dict()),
               [n for n, _ in pl.named_parameters()], _text(repr(pl)),
               _text(repr(pl[1:])), _error(lib, lambda: pl[7]), _error(lib, lambda: pl()),
               _error(lib, lambda: pl.extend(lib.ones(2)))]
        pd = nn.ParameterDict({"b": lib.ones(2), "a": lib.zeros(1)})
        pd["c"] = 3
        pd.update([("d", lib.ones(1))])
        out += [list(pd), list(pd.keys()), list(pd.state_dict()), _text(repr(pd)),
                "a" in pd, pd.get("zz", 5), type(pd.pop("b")).__name__, pd.popitem()[0],
                list(pd), _error(lib, lambda: pd[1]), _error(lib, lambda: pd.update(3)),
                _error(lib, lambda: pd.update([("e", lib.ones(1)), ("f",)])), list(pd),
                list(pd | nn.ParameterDict({"z": lib.ones(1)})),
                list(nn.ParameterDict([("y", lib.ones(1)), ("x", lib.ones(1))]))]
        return out
    same_on_both(program)


def test_dropout_zeroes_torchs_elements_in_training_and_nothing_in_eval():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(12)
        drop = nn.Dropout(0.3)
        x = lib.ones(4, 5)
        y = drop(x)
        drop.eval()
        z = drop(x)
        return (y, z is x, repr(drop), _error(lib, lambda: nn.Dropout(1.5)),
                repr(nn.Dropout(0.1, inplace=True)), lib.rand(1))
    same_on_both(program)


def test_state_dict_hooks_run_in_order_and_can_change_what_is_saved_and_loaded():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(13)
        net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        calls = []
        net[0].register_state_dict_pre_hook(
            lambda m, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

        def post(m, state, prefix, meta):
            calls.append(("post", prefix, sorted(state)))
            state[prefix + "extra"] = lib.zeros(1)
        net[1].register_state_dict_post_hook(post)
        state = net.state_dict(keep_vars=True)
        net[1].register_state_dict_post_hook(lambda m, s, p, meta: {})
        refused = _error(lib, lambda: net.state_dict())

        def before_load(m, sd, prefix, meta, strict, missing, unexpected, errors):
            calls.append(("load-pre", type(m).__name__, prefix, sorted(sd), strict))
        net[0].register_load_state_dict_pre_hook(before_load)
        net.register_load_state_dict_post_hook(
            lambda m, keys: calls.append(("load-post", list(keys.missing_keys),
                                          list(keys.unexpected_keys))))
        fresh = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)).state_dict()
        result = net.load_state_dict(fresh, strict=False)
        return (calls, list(state), state["0.weight"] is net[0].weight, refused,
                _text(repr(result)))
    same_on_both(program)


# ------------------------------------------------------------------ backward hooks
def _summary(grads: Any) -> Any:
    return [None if g is None else g.reshape(-1).tolist() for g in grads]


def test_full_backward_hooks_see_and_replace_gradients_in_torchs_order():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(14)
        f64 = lib.float64
        net = nn.Sequential(nn.Linear(3, 4, dtype=f64), nn.Tanh(), nn.Linear(4, 2, dtype=f64))
        calls = []
        for i, layer in enumerate(net):
            layer.register_full_backward_hook(
                lambda m, gi, go, i=i: calls.append(("hook", i, _summary(gi), _summary(go))))
            layer.register_full_backward_pre_hook(
                lambda m, go, i=i: calls.append(("pre", i, _summary(go))))
        net.register_full_backward_hook(lambda m, gi, go: calls.append(("net", _summary(gi))))
        # the last layer doubles its output gradient; the first halves its input gradient
        net[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        net[0].register_full_backward_hook(lambda m, gi, go: (gi[0] / 2,))
        x = lib.rand(5, 3, dtype=f64, requires_grad=True)
        y = net(x)
        y.sum().backward()
        return calls, x.grad, [p.grad for p in net.parameters()], y.grad_fn.name()
    # the hooks' gradients are float lists (no tensor's scale to measure ulps against) from
    # matrix products whose sums round as the CPU's BLAS kernel rounds them: 7.6 ulps of
    # the value apart on an AVX2 machine (AMD EPYC), within 8 on the AVX-512 ones
    same_on_both(program, ulps=32)


def test_a_module_of_several_inputs_gets_none_for_its_other_arguments():
    def program(lib):
        nn = lib.nn

        class Mix(nn.Module):
            def forward(self, a, scale, b):
                return a * scale + b * b, a.sum()

        mix = Mix()
        calls = []
        mix.register_full_backward_hook(
            lambda m, gi, go: calls.append((len(gi), _summary(gi), _summary(go))))
        a = lib.ones(2, requires_grad=True)
        b = lib.full((2,), 3.0)  # does not require grad
        out, total = mix(a, 2.0, b)
        (out.sum() + total).backward()
        return calls, a.grad, out.grad_fn.name(), total.grad_fn.name()
    same_on_both(program)


def test_full_backward_hooks_when_no_input_requires_grad_warn_and_run_at_the_output():
    def program(lib):
        nn = lib.nn
        lib.manual_seed(15)
        layer = nn.Linear(2, 1)
        calls = []
        layer.register_full_backward_hook(lambda m, gi, go: calls.append((gi, _summary(go))))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(lib.ones(3, 2)).sum().backward()
        bad = nn.Linear(2, 1)
        bad.register_full_backward_hook(lambda m, gi, go: (lib.ones(1),))
        refused = _error(lib, lambda: bad(lib.ones(3, 2)).sum().backward())
        wrong = nn.Linear(2, 1)
        wrong.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        x = lib.ones(3, 2, requires_grad=True)
        too_many = _error(lib, lambda: wrong(x).sum().backward())
        return calls, [str(w.message)[:40] for w in caught], refused, too_many, \
            [p.grad is None for p in layer.parameters()]
    same_on_both(program)


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_layers_and_functions_pick_torchs_dim_and_warn(ndim):
    def program(lib):
        nn, F = lib.nn, lib.nn.functional
        lib.manual_seed(16)
        x = lib.rand(*([3] * ndim), dtype=lib.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            implicit = (F.softmax(x), F.log_softmax(x), nn.Softmax()(x), nn.LogSoftmax()(x))
        explicit = (F.softmax(x, -1), F.log_softmax(x, 0, dtype=lib.float32),
                    nn.Softmax(dim=-1)(x), nn.LogSoftmax(0)(x))
        return (implicit, explicit, [str(w.message) for w in caught],
                repr(nn.Softmax(1)), repr(nn.LogSoftmax()))
    same_on_both(program, ulps=4)
