"""Chapter 6 exercises: nn.Module, init, SGD and Adam. Every right answer is what torch 2.13
does.

Each exercise is a piece of reftensor's ``nn`` or ``optim``, graded on plain data: module
trees of plain nodes (``walk_modules``), key lists (``incompatible_keys``), shapes
(``kaiming_bound``), plain vectors that round as torch does (``sgd_update``,
``adam_update``, see ``autograder.course.vectors``), recording hooks (``call_impl``). Each
reference builds the same thing in torch and reads the answer off it: where ``setattr`` put
a value, what ``named_modules`` and ``named_parameters`` give, what
``_load_from_state_dict`` lists, the bound that reaches ``aten.uniform_``, what
``torch.optim.SGD`` and ``torch.optim.Adam`` leave in the parameter and its state, what a
module's hooks are handed when it is called.

Strategies draw only with ``sampled_from`` (see chapter 5's module for why).
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from types import SimpleNamespace

from hypothesis import strategies as st

from ..vectors import Vector
from .spec import Case, Exercise, register

CHAPTER = "ch06_modules"


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


RAISES = "raises"


# ---------------------------------------------------------------- route_assignment
#: the values a case assigns: name -> (kind, torch.typename(value)); tests check the names
#: against torch.typename of the value ``_value`` builds
VALUES = {
    "Parameter(zeros(2))": ("parameter", "torch.FloatTensor"),
    "Linear(2, 2)": ("module", "torch.nn.modules.linear.Linear"),
    "Module()": ("module", "torch.nn.modules.module.Module"),
    "zeros(2)": ("tensor", "torch.FloatTensor"),
    "arange(3)": ("tensor", "torch.LongTensor"),
    "None": ("none", "NoneType"),
    "3": ("other", "int"),
    "'relu'": ("other", "str"),
    "[1.0, 2.0]": ("other", "list"),
}
TABLES = ("__dict__", "_parameters", "_buffers", "_modules")
ATTRIBUTE_NAMES = ("weight", "bias", "fc", "running_mean", "act")


def _value(torch, spec: str):
    return {"Parameter(zeros(2))": lambda: torch.nn.Parameter(torch.zeros(2)),
            "Linear(2, 2)": lambda: torch.nn.Linear(2, 2),
            "Module()": torch.nn.Module, "zeros(2)": lambda: torch.zeros(2),
            "arange(3)": lambda: torch.arange(3), "None": lambda: None, "3": lambda: 3,
            "'relu'": lambda: "relu", "[1.0, 2.0]": lambda: [1.0, 2.0]}[spec]()


def _call_route(answer, case: Case):
    """How a check calls ``route_assignment``: its ``(table, removed)`` (``removed`` as a
    tuple), or ``("raises", class name, message)`` for a TypeError or AttributeError."""
    try:
        table, removed = answer(*case.args)
    except (TypeError, AttributeError) as err:
        return RAISES, type(err).__name__, str(err)
    return table, tuple(removed)


def _route_case(name: str, value: str, holders=(), initialized: bool = True) -> Case:
    kind, type_name = VALUES[value]
    return Case(args=(name, kind, type_name, tuple(t for t in TABLES if t in holders),
                      initialized), context=(("value", value),))


@st.composite
def _route_cases(draw: st.DrawFn) -> Case:
    initialized = _pick(draw, (True, True, True, True, False))
    if initialized:
        count = _pick(draw, (0, 1, 1, 1, 1, 2))
        holders = {_pick(draw, TABLES) for _ in range(count)}
    else:
        holders = {"__dict__"} if _pick(draw, (0, 1)) else set()
    return _route_case(_pick(draw, ATTRIBUTE_NAMES), _pick(draw, VALUES), holders,
                       initialized)


def _route_reference(c: Case):
    torch = _torch()
    name, _, _, holders, initialized = c.args

    class Model(torch.nn.Module):
        pass

    m = Model.__new__(Model)
    if initialized:
        torch.nn.Module.__init__(m)
    for table in holders:  # each holder holds something that is not the value
        if table == "__dict__":
            object.__setattr__(m, name, "old")
        elif table == "_parameters":
            m._parameters[name] = torch.nn.Parameter(torch.ones(1))
        elif table == "_buffers":
            m._buffers[name] = torch.ones(1)
        else:
            m._modules[name] = torch.nn.Identity()
    value = _value(torch, c.ctx("value"))
    try:
        setattr(m, name, value)
    except (TypeError, AttributeError) as err:
        return RAISES, type(err).__name__, str(err)

    def holds(table):
        found = m.__dict__ if table == "__dict__" else m.__dict__.get(table, {})
        return name in found

    after = [t for t in TABLES if holds(t)]
    taken = [t for t in after if (m.__dict__ if t == "__dict__" else m.__dict__[t])[name]
             is value]
    return taken[0], tuple(t for t in holders if t not in after)


def _route_truth(c: Case) -> str:
    name, _, _, holders, initialized = c.args
    start = ("m = M.__new__(M)  # Module.__init__ not run" if not initialized
             else "m = torch.nn.Module()")
    held = "".join(f"; {name!r} put in m.{t} directly" for t in holders)
    return (f"{start}{held}; m.{name} = {c.ctx('value')}: the table that holds the value "
            "then, and the tables name left; or the error's class and message")


register(Exercise(
    name="route_assignment",
    chapter=CHAPTER,
    signature="route_assignment(name, kind, type_name, holders, initialized) -> (table, "
              "removed), or raises TypeError/AttributeError with torch's message",
    fixed=(
        _route_case("weight", "Parameter(zeros(2))"),
        _route_case("fc", "Linear(2, 2)"),
        # the pitfall: a tensor that is not a Parameter is a plain attribute
        _route_case("weight", "zeros(2)"),
        _route_case("act", "'relu'"),
        # a registered name keeps its kind: None may replace it, another kind may not
        _route_case("bias", "None", ("_parameters",)),
        _route_case("weight", "zeros(2)", ("_parameters",)),
        _route_case("fc", "3", ("_modules",)),
        _route_case("running_mean", "arange(3)", ("_buffers",)),
        _route_case("running_mean", "[1.0, 2.0]", ("_buffers",)),
        # a Parameter or a Module takes the name from the other tables
        _route_case("fc", "Parameter(zeros(2))", ("__dict__",)),
        _route_case("running_mean", "Module()", ("_buffers",)),
        _route_case("fc", "Linear(2, 2)", ("_parameters",)),
        # before Module.__init__
        _route_case("weight", "Parameter(zeros(2))", (), False),
        _route_case("fc", "Module()", (), False),
        _route_case("weight", "zeros(2)", (), False),
    ),
    edge=(
        _route_case("fc", "None", ("_modules",)),
        _route_case("running_mean", "None", ("_buffers",)),
        _route_case("act", "None", ()),
        _route_case("weight", "Parameter(zeros(2))", ("__dict__", "_modules")),
        _route_case("fc", "Module()", ("__dict__", "_buffers")),
        _route_case("bias", "zeros(2)", ("__dict__", "_buffers")),
        _route_case("fc", "Module()", ("_modules",)),
        _route_case("bias", "Parameter(zeros(2))", ("_parameters", "_buffers")),
    ),
    strategy=_route_cases,
    reference=_route_reference,
    truth=_route_truth,
    hidden_examples=100,
    call=_call_route,
))


# ---------------------------------------------------------------- walk_modules
# A tree is a tuple of module specs; module i is (children, params): children ((name, j or
# None), ...) with j > i, params ((name, label or None), ...). Module 0 is the root; a label
# used twice is one parameter shared by two places.
CHILD_NAMES = ("0", "1", "2", "3", "4", "5", "enc", "head")
PARAM_NAMES = ("weight", "bias", "scale")
LABELS = ("p0", "p1", "p2", "p3", "p4", "p5")


class _Node:
    """A plain module: what ``walk_modules`` gets of one."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.children: list = []
        self.params: list = []

    def __repr__(self) -> str:
        return f"<module {self.index}>"


class _Leaf:
    """A plain parameter."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"<parameter {self.label}>"


def _plain_tree(modules) -> list[_Node]:
    nodes = [_Node(i) for i in range(len(modules))]
    leaves: dict[str, _Leaf] = {}
    for node, (children, params) in zip(nodes, modules, strict=True):
        node.children = [(name, None if j is None else nodes[j]) for name, j in children]
        node.params = [(name, None if label is None else leaves.setdefault(label, _Leaf(label)))
                       for name, label in params]
    return nodes


def _call_walk(answer, case: Case) -> list:
    """How a check calls ``walk_modules``: on plain nodes built from the case, as
    ``named_modules(memo, prefix, remove_duplicate)`` or ``named_parameters(prefix, recurse,
    remove_duplicate)`` calls it; the pairs as ``(name, "m<index>")`` or ``(name, label)``."""
    modules, listing, prefix, remove_duplicate, recurse, memo = case.args
    nodes = _plain_tree(modules)

    def children(node):
        return list(node.children)

    def no_children(node):
        return []

    def members(node):
        return list(node.params)

    if listing == "modules":
        found = answer(nodes[0], children, None, prefix, remove_duplicate,
                       None if memo is None else {nodes[i] for i in memo})
        return [(name, f"m{node.index}") for name, node in found]
    found = answer(nodes[0], children if recurse else no_children, members, prefix,
                   remove_duplicate, None)
    return [(name, leaf.label) for name, leaf in found]


def run_walk(answer, modules, listing, prefix, remove_duplicate, recurse, memo) -> list:
    """Run ``answer`` (a ``walk_modules``) on a failing case's tree, as the check does:
    ``run_walk(walk_modules, *case)`` gives its pairs, each module as ``"m<index>"`` and
    each parameter as its label."""
    return _call_walk(answer, Case(args=(modules, listing, prefix, remove_duplicate, recurse,
                                         memo)))


def _torch_tree(torch, modules) -> tuple[list, dict]:
    made: list = [None] * len(modules)
    params: dict = {}
    for i in reversed(range(len(modules))):
        m = torch.nn.Module()
        children, own = modules[i]
        for name, label in own:
            if label is not None and label not in params:
                params[label] = torch.nn.Parameter(torch.zeros(1))
            m.register_parameter(name, None if label is None else params[label])
        for name, j in children:
            m.add_module(name, None if j is None else made[j])
        made[i] = m
    return made, params


def _walk_reference(c: Case) -> list:
    torch = _torch()
    modules, listing, prefix, remove_duplicate, recurse, memo = c.args
    made, params = _torch_tree(torch, modules)
    if listing == "modules":
        index = {id(m): i for i, m in enumerate(made)}
        given = None if memo is None else {made[i] for i in memo}
        return [(name, f"m{index[id(m)]}") for name, m in
                made[0].named_modules(memo=given, prefix=prefix,
                                      remove_duplicate=remove_duplicate)]
    label = {id(p): k for k, p in params.items()}
    return [(name, label[id(p)]) for name, p in
            made[0].named_parameters(prefix=prefix, recurse=recurse,
                                     remove_duplicate=remove_duplicate)]


def _walk_truth(c: Case) -> str:
    modules, listing, prefix, remove_duplicate, recurse, memo = c.args
    lines = []
    for i, (children, params) in enumerate(modules):
        parts = [f"register_parameter({n!r}, {lab})" for n, lab in params]
        parts += [f"add_module({n!r}, {'None' if j is None else f'm{j}'})" for n, j in children]
        lines.append(f"m{i} = torch.nn.Module(); " + "; ".join(f"m{i}.{p}" for p in parts))
    if listing == "modules":
        call = (f"m0.named_modules(memo={None if memo is None else {f'm{i}' for i in memo}}, "
                f"prefix={prefix!r}, remove_duplicate={remove_duplicate})")
    else:
        call = (f"m0.named_parameters(prefix={prefix!r}, recurse={recurse}, "
                f"remove_duplicate={remove_duplicate})")
    return ("(modules built from the last, each parameter p<k> a torch.nn.Parameter of its "
            "own)\n    " + "\n    ".join(reversed(lines)) + f"\n    list({call})")


@st.composite
def _tree(draw: st.DrawFn) -> tuple:
    count = _pick(draw, (1, 2, 3, 3, 4, 4, 5, 6))
    children: list[list] = [[] for _ in range(count)]
    for j in range(1, count):  # each module below the root has a parent above it...
        children[_pick(draw, range(j))].append(j)
    for _ in range(_pick(draw, (0, 0, 1, 2))):  # ...and some have two (shared children)
        if count > 1:
            j = _pick(draw, range(1, count))
            children[_pick(draw, range(j))].append(j)
    modules = []
    used: list[str] = []
    for i in range(count):
        names = list(CHILD_NAMES)
        kids = []
        for j in children[i] + ([None] if _pick(draw, range(8)) == 0 else []):
            name = _pick(draw, names)
            names.remove(name)
            kids.append((name, j))
        own = []
        pnames = list(PARAM_NAMES)
        for _ in range(_pick(draw, (0, 1, 1, 2, 2, 3))):
            name = _pick(draw, pnames)
            pnames.remove(name)
            roll = _pick(draw, range(10))
            if roll == 0:
                label = None
            elif roll <= 2 and used:
                label = _pick(draw, used)  # a shared parameter
            else:
                label = LABELS[len(used)] if len(used) < len(LABELS) else _pick(draw, used)
                if label not in used:
                    used.append(label)
            own.append((name, label))
        modules.append((tuple(kids), tuple(own)))
    return tuple(modules)


@st.composite
def _walk_cases(draw: st.DrawFn) -> Case:
    modules = draw(_tree())
    listing = _pick(draw, ("modules", "parameters"))
    prefix = _pick(draw, ("", "", "", "model", "net.body"))
    remove_duplicate = _pick(draw, (True, True, False))
    recurse = listing == "modules" or _pick(draw, (True, True, True, False))
    memo = None
    if listing == "modules" and _pick(draw, range(6)) == 0:
        memo = tuple(sorted({_pick(draw, range(len(modules))) for _ in range(2)}))
    return Case(args=(modules, listing, prefix, remove_duplicate, recurse, memo))


def _walk_case(modules, listing="parameters", prefix="", remove_duplicate=True, recurse=True,
               memo=None) -> Case:
    return Case(args=(tuple((tuple(map(tuple, kids)), tuple(map(tuple, own)))
                            for kids, own in modules), listing, prefix, remove_duplicate,
                      recurse, memo))


# Sequential(Linear, ReLU, Linear) with the second Linear's weight tied to the first's
_MLP = ([(("0", 1), ("1", 2), ("2", 3)), ()], [(), (("weight", "p0"), ("bias", "p1"))],
        [(), ()], [(), (("weight", "p0"), ("bias", "p2"))])
# a shared block: m1 under two names, m2 below it
_SHARED = ([(("enc", 1), ("head", 2), ("1", 1)), (("scale", "p0"),)],
           [(("0", 2),), (("weight", "p1"),)], [(), (("weight", "p2"), ("bias", None))])

register(Exercise(
    name="walk_modules",
    chapter=CHAPTER,
    signature="walk_modules(root, children, members, prefix, remove_duplicate, memo) -> "
              "iterable of (dotted name, module or value); checked on plain trees (case: "
              "modules, listing, prefix, remove_duplicate, recurse, memo)",
    fixed=(
        _walk_case(_MLP, "modules"),
        _walk_case(_MLP, "parameters"),
        _walk_case(_MLP, "parameters", remove_duplicate=False),
        _walk_case(_SHARED, "modules"),
        _walk_case(_SHARED, "modules", remove_duplicate=False),
        _walk_case(_SHARED, "parameters", prefix="model"),
        _walk_case(_SHARED, "parameters", recurse=False),
        _walk_case([[(("a", None), ("b", 1)), ()], [(), (("weight", None),)]], "modules",
                   prefix="net"),
    ),
    edge=(
        _walk_case([[(), ()]], "modules"),
        _walk_case([[(), ()]], "parameters"),
        _walk_case([[(("enc", 1),), ()], [(), ()]], "modules", memo=(1,)),
        _walk_case([[(("enc", 1),), ()], [(), ()]], "modules", memo=(0,)),
        _walk_case(_SHARED, "parameters", remove_duplicate=False, prefix="net.body"),
        _walk_case([[(("0", 1), ("1", 1)), (("weight", "p0"),)],
                    [(), (("weight", "p0"), ("bias", "p1"))]], "parameters",
                   remove_duplicate=False),
    ),
    strategy=_walk_cases,
    reference=_walk_reference,
    truth=_walk_truth,
    hidden_examples=100,
    call=_call_walk,
    call_shown="autograder.course.exercises.ch06_modules:run_walk",
))


# ---------------------------------------------------------------- incompatible_keys
# A module (context "module"): params ((name, is_none), ...), buffers ((name, persistent,
# is_none), ...), children ((name, is_none), ...). Its own entries are the params that are
# not None, then the persistent buffers that are not None.
OWN_PARAMS = ("weight", "bias")
OWN_BUFFERS = ("running_mean", "steps")
KEY_CHILDREN = ("0", "1", "enc")
PREFIXES = ("", "", "0.", "enc.", "enc.1.")
EXTRA = "_extra_state"


def _keys_args(prefix, params, buffers, children, keys) -> Case:
    own = tuple(n for n, none in params if not none) + tuple(
        n for n, persistent, none in buffers if persistent and not none)
    return Case(args=(prefix, own, tuple(n for n, _ in children), tuple(keys)),
                context=(("module", (tuple(params), tuple(buffers), tuple(children))),))


def _call_keys(answer, case: Case):
    """How a check calls ``incompatible_keys``: ``(missing, unexpected)`` as lists."""
    missing, unexpected = answer(*case.args)
    return list(missing), list(unexpected)


@st.composite
def _keys_cases(draw: st.DrawFn) -> Case:
    prefix = _pick(draw, PREFIXES)
    params = tuple((n, _pick(draw, (False, False, False, True)))
                   for n in OWN_PARAMS if _pick(draw, (0, 1, 1)))
    buffers = tuple((n, _pick(draw, (True, True, False)), _pick(draw, (False, False, True)))
                    for n in OWN_BUFFERS if _pick(draw, (0, 0, 1)))
    children = tuple((n, _pick(draw, (False, False, False, True)))
                     for n in KEY_CHILDREN if _pick(draw, (0, 0, 1)))
    candidates = [prefix + n for n, _ in params] + [prefix + b[0] for b in buffers]
    candidates += [prefix + n + ".weight" for n, _ in children]
    candidates += [prefix + n for n, _ in children]  # a child's name without a dot
    candidates += [prefix + "weight.data", prefix + "extra", prefix + "2.bias",
                   prefix + EXTRA, prefix + "0." + EXTRA]
    if prefix:  # keys a child is never given by load_state_dict, and the prefix itself
        candidates += ["other.weight", prefix[:-1], prefix]
    keys: list[str] = []
    for _ in range(_pick(draw, (0, 1, 2, 3, 4, 5, 6))):
        key = _pick(draw, candidates)
        if key not in keys:
            keys.append(key)
    return _keys_args(prefix, params, buffers, children, keys)


def _keys_reference(c: Case):
    torch = _torch()
    prefix, _, _, keys = c.args
    params, buffers, children = c.ctx("module")
    m = torch.nn.Module()
    for name, none in params:
        m.register_parameter(name, None if none else torch.nn.Parameter(torch.zeros(2)))
    for name, persistent, none in buffers:
        m.register_buffer(name, None if none else torch.zeros(2), persistent=persistent)
    for name, none in children:
        m.add_module(name, None if none else torch.nn.Identity())
    state = OrderedDict((key, torch.zeros(2)) for key in keys)
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    m._load_from_state_dict(state, prefix, {}, True, missing, unexpected, errors)
    return missing, unexpected


def _keys_truth(c: Case) -> str:
    prefix, _, _, keys = c.args
    params, buffers, children = c.ctx("module")
    lines = ["m = torch.nn.Module()"]
    lines += [f"m.register_parameter({n!r}, {'None' if none else 'Parameter(zeros(2))'})"
              for n, none in params]
    lines += [f"m.register_buffer({n!r}, {'None' if none else 'zeros(2)'}, "
              f"persistent={p})" for n, p, none in buffers]
    lines += [f"m.add_module({n!r}, {'None' if none else 'Identity()'})"
              for n, none in children]
    return ("; ".join(lines) + f"; missing, unexpected = [], []; m._load_from_state_dict("
            f"{{k: zeros(2) for k in {list(keys)!r}}}, {prefix!r}, {{}}, True, missing, "
            "unexpected, []); (missing, unexpected)")


register(Exercise(
    name="incompatible_keys",
    chapter=CHAPTER,
    signature="incompatible_keys(prefix, own, children, keys) -> (missing, unexpected)",
    fixed=(
        _keys_args("", (("weight", False), ("bias", False)), (), (),
                   ("weight", "bias")),
        _keys_args("", (("weight", False), ("bias", False)), (), (),
                   ("weight", "scale")),
        _keys_args("0.", (("weight", False), ("bias", True)), (), (),
                   ("0.weight", "0.bias")),
        _keys_args("", (("weight", False),), (("running_mean", True, False),
                                               ("steps", False, False)), (("enc", False),),
                   ("steps", "weight", "enc.weight", "enc", "running_mean")),
        _keys_args("enc.", (), (), (("0", False), ("1", True)),
                   ("enc.0.weight", "enc.1.bias", "enc.2.bias", "enc.weight.data")),
        _keys_args("", (("weight", False),), (), (),
                   ("weight", "extra", EXTRA)),
    ),
    edge=(
        _keys_args("", (), (), (), ()),
        _keys_args("enc.1.", (("weight", False),), (), (), ("enc.1.", "enc.1.weight")),
        _keys_args("0.", (("bias", False),), (), (("0", False),),
                   ("0.0." + EXTRA, "0.bias", "0." + EXTRA)),
        _keys_args("enc.", (("weight", False),), (), (), ("encweight", "enc.weight")),
    ),
    strategy=_keys_cases,
    reference=_keys_reference,
    truth=_keys_truth,
    hidden_examples=100,
    call=_call_keys,
))


# ---------------------------------------------------------------- kaiming_bound
NONLINEARITIES = ("leaky_relu", "leaky_relu", "relu", "tanh", "linear", "conv2d", "sigmoid",
                  "selu", "softmax")
SLOPES = (0, 0, math.sqrt(5), math.sqrt(5), 0.01, 0.2, 1, 3, None, True, -0.5)
MODES = ("fan_in", "fan_in", "fan_out", "FAN_OUT", "Fan_In", "fan_avg")
SIZES = (1, 2, 3, 5, 16, 64, 100, 784)


@st.composite
def _kaiming_cases(draw: st.DrawFn) -> Case:
    ndim = _pick(draw, (1, 2, 2, 2, 3, 4, 4))
    shape = [_pick(draw, SIZES) for _ in range(ndim)]
    if ndim >= 3:  # a convolution's kernel is small
        shape[2:] = [_pick(draw, (1, 2, 3, 5)) for _ in shape[2:]]
    if _pick(draw, range(10)) == 0:
        shape[_pick(draw, range(ndim))] = 0
    return Case(args=(tuple(shape), _pick(draw, SLOPES), _pick(draw, MODES),
                      _pick(draw, NONLINEARITIES)))


def _kaiming_reference(c: Case):
    """The bound torch hands ``aten.uniform_``, read with a dispatch mode: ``(-b, b)``
    arrives as two doubles, exactly; None when nothing is drawn."""
    torch = _torch()
    from torch.utils._python_dispatch import TorchDispatchMode

    shape, a, mode, nonlinearity = c.args
    seen: list = []

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is torch.ops.aten.uniform_.default:  # (self, from=0, to=1, ...)
                given = {"from": 0.0, "to": 1.0, **(kwargs or {})}
                seen.append((args[1] if len(args) > 1 else given["from"],
                             args[2] if len(args) > 2 else given["to"]))
            return func(*args, **(kwargs or {}))

    import warnings

    w = torch.empty(shape)
    with Watch(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a zero-element weight: "no-op" warning
        torch.nn.init.kaiming_uniform_(w, a=a, mode=mode, nonlinearity=nonlinearity)
    if not seen:
        return None
    (low, high), = seen
    assert low == -high
    return high


def _kaiming_truth(c: Case) -> str:
    shape, a, mode, nonlinearity = c.args
    return (f"torch.nn.init.kaiming_uniform_(torch.empty({shape}), a={a!r}, mode={mode!r}, "
            f"nonlinearity={nonlinearity!r}): b, where it calls aten.uniform_(w, -b, b) "
            "(None if it draws nothing)")


register(Exercise(
    name="kaiming_bound",
    chapter=CHAPTER,
    signature="kaiming_bound(shape, a, mode, nonlinearity) -> float, or None for a shape "
              "with no elements; raises ValueError where torch does",
    fixed=(
        Case(args=((3, 5), math.sqrt(5), "fan_in", "leaky_relu")),  # Linear(5, 3)'s
        Case(args=((3, 5), 0, "fan_in", "relu")),
        Case(args=((3, 5), 0, "fan_out", "relu")),
        Case(args=((16, 3, 5, 5), math.sqrt(5), "fan_in", "leaky_relu")),  # a Conv2d's
        Case(args=((64, 784), 0, "fan_in", "leaky_relu")),
        Case(args=((64, 784), None, "fan_in", "leaky_relu")),
        Case(args=((10, 100), 0, "FAN_OUT", "tanh")),
        Case(args=((10, 100), 0, "fan_in", "selu")),
        Case(args=((10, 100), 0.2, "fan_in", "sigmoid")),
        Case(args=((3, 0), math.sqrt(5), "fan_in", "leaky_relu")),
        Case(args=((5,), 0, "fan_in", "leaky_relu")),
        Case(args=((3, 5), 0, "fan_avg", "leaky_relu")),
        Case(args=((3, 5), 0, "fan_in", "softmax")),
        Case(args=((3, 5), True, "fan_in", "leaky_relu")),
    ),
    edge=(
        Case(args=((0,), 0, "fan_in", "relu")),
        Case(args=((2, 3, 0, 5), 0, "fan_avg", "softmax")),
        Case(args=((1, 1), 3, "fan_in", "leaky_relu")),
        Case(args=((100, 16), math.sqrt(5), "fan_in", "conv2d")),
        Case(args=((8, 4, 3), -0.5, "fan_out", "leaky_relu")),
        Case(args=((3, 5), True, "fan_in", "relu")),
    ),
    strategy=_kaiming_cases,
    reference=_kaiming_reference,
    truth=_kaiming_truth,
    hidden_examples=100,
))


# ---------------------------------------------------------------- sgd_update
# A case: (dtype, param, grads, lr, momentum, dampening, weight_decay, nesterov, maximize):
# one parameter, one gradient per step; the gradient is one tensor whose values are copied
# in before each step (as backward does into a .grad zeroed in place).
STEP_VALUES = (0.1, -0.3, 1 / 3, 2.7, -1.25, 0.0, 7.0, -0.05, 1e-3)
LRS = (0.1, 0.01, 1 / 3, 0.5, 1.0)
MOMENTA = (0, 0, 0.9, 0.9, 0.5, 0.99)
DAMPENINGS = (0, 0, 0, 0.1, 0.5)
DECAYS = (0, 0, 0.01, 0.1, 1e-4)


def _call_sgd(answer, case: Case) -> list:
    """How a check calls ``sgd_update``: on plain Vectors (``autograder.course.vectors``),
    once per step as ``SGD.step`` does, the buffer it returns handed to the next step. Per
    step: the parameter's values, the buffer's (None when there is none), whether the
    buffer is the same object as the step before's, and the gradient's values."""
    dtype, param, grads, lr, momentum, dampening, weight_decay, nesterov, maximize = case.args
    p = Vector(param, dtype)
    g = Vector(grads[0], dtype)
    buf = None
    steps = []
    for values in grads:
        g.copy_(Vector(values, dtype))
        new = answer(p, g, buf, lr, momentum, dampening, weight_decay, nesterov, maximize)
        same = buf is not None and new is buf
        if new is not None and not isinstance(new, Vector):
            raise TypeError(f"the buffer is a Vector or None, not {type(new).__name__}")
        buf = new
        steps.append((p.tolist(), None if buf is None else buf.tolist(), same, g.tolist()))
    return steps


def run_sgd(answer, dtype, param, grads, lr, momentum, dampening, weight_decay, nesterov,
            maximize) -> list:
    """Run ``answer`` (an ``sgd_update``) on a failing case, as the check does:
    ``run_sgd(sgd_update, *case)`` gives, per step, the parameter, the buffer, whether the
    buffer is the step before's object, and the gradient."""
    return _call_sgd(answer, Case(args=(dtype, param, grads, lr, momentum, dampening,
                                        weight_decay, nesterov, maximize)))


def _sgd_reference(c: Case) -> list:
    torch = _torch()
    dtype, param, grads, lr, momentum, dampening, weight_decay, nesterov, maximize = c.args
    dt = getattr(torch, dtype)
    p = torch.tensor(param, dtype=dt, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr, momentum=momentum, dampening=dampening,
                          weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                          foreach=False)
    steps = []
    before = None
    for k, values in enumerate(grads):
        if k == 0:
            p.grad = torch.tensor(values, dtype=dt)
        else:
            p.grad.copy_(torch.tensor(values, dtype=dt))
        opt.step()
        buf = opt.state[p].get("momentum_buffer") if p in opt.state else None
        steps.append((p.tolist(), None if buf is None else buf.tolist(),
                      before is not None and buf is before, p.grad.tolist()))
        before = buf
    return steps


def _sgd_truth(c: Case) -> str:
    dtype, param, grads, lr, momentum, dampening, weight_decay, nesterov, maximize = c.args
    return (f"p = torch.tensor({list(param)!r}, dtype=torch.{dtype}, requires_grad=True); "
            f"opt = torch.optim.SGD([p], lr={lr!r}, momentum={momentum!r}, "
            f"dampening={dampening!r}, weight_decay={weight_decay!r}, nesterov={nesterov}, "
            f"maximize={maximize}, foreach=False); for each g in {[list(g) for g in grads]!r}: "
            "p.grad's values = g (copied into one tensor), opt.step(), then (p.tolist(), "
            "opt.state[p]['momentum_buffer'].tolist() or None, whether that buffer is the "
            "step before's object, p.grad.tolist())")


@st.composite
def _sgd_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, (0, 1, 2, 3, 3, 4))

    def values() -> tuple:
        return tuple(_pick(draw, STEP_VALUES) for _ in range(n))

    momentum = _pick(draw, MOMENTA)
    nesterov = momentum != 0 and _pick(draw, (False, True))
    dampening = 0 if nesterov else _pick(draw, DAMPENINGS)
    return Case(args=(_pick(draw, ("float32", "float32", "float64")), values(),
                      tuple(values() for _ in range(_pick(draw, (1, 2, 3, 4)))),
                      _pick(draw, LRS), momentum, dampening, _pick(draw, DECAYS), nesterov,
                      _pick(draw, (False, False, True))))


def _sgd_case(dtype, param, grads, lr=0.1, momentum=0, dampening=0, weight_decay=0,
              nesterov=False, maximize=False) -> Case:
    return Case(args=(dtype, tuple(param), tuple(map(tuple, grads)), lr, momentum, dampening,
                      weight_decay, nesterov, maximize))


_P = (0.1, -0.3, 2.7)
_G = ((1 / 3, -1.25, 0.1), (0.1, 7.0, -0.05), (-0.3, 0.1, 1 / 3))

register(Exercise(
    name="sgd_update",
    chapter=CHAPTER,
    signature="sgd_update(param, grad, momentum_buffer, lr, momentum, dampening, "
              "weight_decay, nesterov, maximize) -> the momentum buffer (None without "
              "momentum); checked on plain Vectors over several steps",
    fixed=(
        _sgd_case("float32", _P, _G[:1]),
        _sgd_case("float32", _P, _G, weight_decay=0.01),
        _sgd_case("float32", _P, _G, momentum=0.9),
        _sgd_case("float32", _P, _G, momentum=0.9, dampening=0.1),
        _sgd_case("float32", _P, _G, momentum=0.9, nesterov=True, weight_decay=0.1),
        _sgd_case("float64", _P, _G, lr=1 / 3, maximize=True, weight_decay=0.1),
        _sgd_case("float64", _P, _G, lr=0.01, momentum=0.5, dampening=0.5, maximize=True),
    ),
    edge=(
        _sgd_case("float32", (), ((), ()), momentum=0.9),
        _sgd_case("float32", (0.0, 1e-3), ((0.0, 0.0), (1 / 3, 0.1)), lr=0.5, momentum=0.99,
                  nesterov=True, maximize=True, weight_decay=1e-4),
        _sgd_case("float64", _P, _G[:1], momentum=0.9, dampening=0.5),
    ),
    strategy=_sgd_cases,
    reference=_sgd_reference,
    truth=_sgd_truth,
    hidden_examples=100,
    call=_call_sgd,
    call_shown="autograder.course.exercises.ch06_modules:run_sgd",
))


# ---------------------------------------------------------------- adam_update
# A case: (dtype, param, grads, lr, betas, eps, weight_decay, decoupled, amsgrad, maximize):
# one parameter, one gradient per step (copied into one tensor before each step), as for
# sgd_update.
ADAM_LRS = (1e-3, 0.01, 0.1, 1 / 3, 1.0)
BETAS = ((0.9, 0.999), (0.9, 0.999), (0.5, 0.9), (0.3, 0.99), (0.0, 0.0), (0.99, 0.5))
EPSILONS = (1e-8, 1e-8, 1e-3, 0.0)


def _call_adam(answer, case: Case) -> list:
    """How a check calls ``adam_update``: on plain Vectors (``autograder.course.vectors``),
    once per step as ``Adam.step`` does (the state made of zeros before the first step; the
    step count 1.0, 2.0, ...). Per step: the values of the parameter, ``exp_avg``,
    ``exp_avg_sq``, ``max_exp_avg_sq`` (None without amsgrad) and the gradient."""
    dtype, param, grads, lr, (beta1, beta2), eps, weight_decay, decoupled, amsgrad, \
        maximize = case.args
    p = Vector(param, dtype)
    g = Vector(grads[0], dtype)
    zeros = [0.0] * len(param)
    exp_avg, exp_avg_sq = Vector(zeros, dtype), Vector(zeros, dtype)
    biggest = Vector(zeros, dtype) if amsgrad else None
    steps = []
    for k, values in enumerate(grads):
        g.copy_(Vector(values, dtype))
        answer(p, g, exp_avg, exp_avg_sq, biggest, float(k + 1), lr, beta1, beta2, eps,
               weight_decay, decoupled, maximize)
        steps.append((p.tolist(), exp_avg.tolist(), exp_avg_sq.tolist(),
                      None if biggest is None else biggest.tolist(), g.tolist()))
    return steps


def run_adam(answer, dtype, param, grads, lr, betas, eps, weight_decay, decoupled, amsgrad,
             maximize) -> list:
    """Run ``answer`` (an ``adam_update``) on a failing case, as the check does:
    ``run_adam(adam_update, *case)`` gives, per step, the parameter, ``exp_avg``,
    ``exp_avg_sq``, ``max_exp_avg_sq`` and the gradient."""
    return _call_adam(answer, Case(args=(dtype, param, grads, lr, betas, eps, weight_decay,
                                         decoupled, amsgrad, maximize)))


def _torch_adam(torch, c: Case) -> tuple[list, bool]:
    """``torch.optim.Adam``'s steps on the case, and whether every square root it took was
    the correctly rounded one (torch's CPU ``sqrt`` is MKL's, which is not always: about 1
    value in 150 is 1 ulp off)."""
    import numpy as np

    dtype, param, grads, lr, betas, eps, weight_decay, decoupled, amsgrad, maximize = c.args
    dt = getattr(torch, dtype)
    p = torch.tensor(param, dtype=dt, requires_grad=True)
    opt = torch.optim.Adam([p], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                           amsgrad=amsgrad, maximize=maximize, foreach=False,
                           decoupled_weight_decay=decoupled)
    steps, exact = [], True
    for k, values in enumerate(grads):
        if k == 0:
            p.grad = torch.tensor(values, dtype=dt)
        else:
            p.grad.copy_(torch.tensor(values, dtype=dt))
        opt.step()
        state = opt.state[p]
        biggest = state.get("max_exp_avg_sq")
        rooted = state["exp_avg_sq"] if biggest is None else biggest
        exact = exact and rooted.sqrt().tolist() == np.sqrt(rooted.numpy()).tolist()
        steps.append((p.tolist(), state["exp_avg"].tolist(), state["exp_avg_sq"].tolist(),
                      None if biggest is None else biggest.tolist(), p.grad.tolist()))
    return steps, exact


def _adam_replay(torch, c: Case) -> list:
    """``_single_tensor_adam``'s operations on torch tensors, one by one, with a correctly
    rounded square root: what torch's step gives when its ``sqrt`` rounds correctly."""
    import numpy as np

    dtype, param, grads, lr, (beta1, beta2), eps, weight_decay, decoupled, amsgrad, \
        maximize = c.args
    dt = getattr(torch, dtype)
    p, g = torch.tensor(param, dtype=dt), torch.tensor(grads[0], dtype=dt)
    exp_avg, exp_avg_sq, biggest = (torch.zeros_like(p) for _ in range(3))
    steps = []
    for k, values in enumerate(grads):
        g.copy_(torch.tensor(values, dtype=dt))
        grad = -g if maximize else g
        if weight_decay != 0:
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = float(k + 1)
        if amsgrad:
            torch.maximum(biggest, exp_avg_sq, out=biggest)
        root = torch.from_numpy(np.sqrt((biggest if amsgrad else exp_avg_sq).numpy()))
        denom = (root / (1 - beta2**step) ** 0.5).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-(lr / (1 - beta1**step)))
        steps.append((p.tolist(), exp_avg.tolist(), exp_avg_sq.tolist(),
                      biggest.tolist() if amsgrad else None, g.tolist()))
    return steps


def _adam_reference(c: Case) -> list:
    """``torch.optim.Adam``'s steps; where torch's square root was 1 ulp off, its steps
    replayed with a correctly rounded one (the Vectors' ``sqrt`` rounds correctly)."""
    torch = _torch()
    steps, exact = _torch_adam(torch, c)
    return steps if exact else _adam_replay(torch, c)


def _adam_truth(c: Case) -> str:
    dtype, param, grads, lr, betas, eps, weight_decay, decoupled, amsgrad, maximize = c.args
    return (f"p = torch.tensor({list(param)!r}, dtype=torch.{dtype}, requires_grad=True); "
            f"opt = torch.optim.Adam([p], lr={lr!r}, betas={betas!r}, eps={eps!r}, "
            f"weight_decay={weight_decay!r}, amsgrad={amsgrad}, maximize={maximize}, "
            f"foreach=False, decoupled_weight_decay={decoupled}); for each g in "
            f"{[list(g) for g in grads]!r}: p.grad's values = g (copied into one tensor), "
            "opt.step(), then (p.tolist(), and opt.state[p]'s exp_avg, exp_avg_sq and "
            "max_exp_avg_sq (None without amsgrad) as lists, p.grad.tolist())")


@st.composite
def _adam_cases(draw: st.DrawFn) -> Case:
    n = _pick(draw, (0, 1, 2, 3, 3, 4))

    def values() -> tuple:
        return tuple(_pick(draw, STEP_VALUES) for _ in range(n))

    return Case(args=(_pick(draw, ("float32", "float32", "float64")), values(),
                      tuple(values() for _ in range(_pick(draw, (1, 2, 3, 4)))),
                      _pick(draw, ADAM_LRS), _pick(draw, BETAS), _pick(draw, EPSILONS),
                      _pick(draw, DECAYS), _pick(draw, (False, True)),
                      _pick(draw, (False, False, True)), _pick(draw, (False, False, True))))


def _adam_case(dtype, param, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
               decoupled=False, amsgrad=False, maximize=False) -> Case:
    return Case(args=(dtype, tuple(param), tuple(map(tuple, grads)), lr, tuple(betas), eps,
                      weight_decay, decoupled, amsgrad, maximize))


register(Exercise(
    name="adam_update",
    chapter=CHAPTER,
    signature="adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, "
              "beta1, beta2, eps, weight_decay, decoupled_weight_decay, maximize) -> None "
              "(updates param and the state in place); checked on plain Vectors over "
              "several steps",
    fixed=(
        _adam_case("float32", _P, _G[:1]),
        _adam_case("float32", _P, _G, lr=0.1),
        _adam_case("float32", _P, _G, lr=0.1, weight_decay=0.1),
        _adam_case("float32", _P, _G, lr=0.1, weight_decay=0.1, decoupled=True),
        _adam_case("float32", _P, _G, lr=0.1, betas=(0.3, 0.99)),
        _adam_case("float32", _P, (_G[1], _G[0], _G[2]), lr=0.1, amsgrad=True),
        _adam_case("float64", _P, _G, lr=1 / 3, maximize=True, weight_decay=0.01),
        _adam_case("float64", _P, _G, lr=0.01, betas=(0.5, 0.9), eps=1e-3, amsgrad=True,
                   weight_decay=0.1, decoupled=True),
    ),
    edge=(
        _adam_case("float32", (), ((), ()), amsgrad=True),
        _adam_case("float32", (0.0, 1.0), ((0.0, 0.0), (0.0, 1 / 3)), eps=0.0),
        _adam_case("float32", _P, _G, betas=(0.0, 0.0), lr=1.0, amsgrad=True, maximize=True),
        _adam_case("float64", _P, _G, betas=(0.99, 0.5), weight_decay=1e-4, decoupled=True),
    ),
    strategy=_adam_cases,
    reference=_adam_reference,
    truth=_adam_truth,
    hidden_examples=100,
    call=_call_adam,
    call_shown="autograder.course.exercises.ch06_modules:run_adam",
))


# ---------------------------------------------------------------- call_impl
# A case: (registrations, forward, args, kwargs). Each registration, in order:
# ("pre", label, scope, with_kwargs, prepend, returns) or
# ("hook", label, scope, with_kwargs, prepend, always_call, returns); scope "global" or
# "module" (a global pre-hook has neither flag, a global hook no prepend). What a hook does:
# None (returns None), "raise" (RuntimeError), "value" (a pre-hook returns one value, not a
# tuple), "args" (a pre-hook returns a tuple), "pair" (a with_kwargs pre-hook returns
# (args, kwargs)), "bad" (a with_kwargs pre-hook returns a 1-tuple), "output" (a forward hook
# returns a new output). forward: "return" or "raise" (ValueError).
PRE_RETURNS = (None, None, "value", "args", "raise")
KW_PRE_RETURNS = (None, None, "pair", "bad", "raise")
HOOK_RETURNS = (None, None, "output", "raise")
LABELS_CALL = ("a", "b", "c", "d", "e", "f")


def _hook_behaviour(label: str, kind: str, returns, records: list, module_of):
    """A hook that records what it is handed and does what ``returns`` says."""

    def hook(module, args, *rest):
        kwargs = rest[0] if (kind == "pre" and rest) or (kind == "hook" and len(rest) == 2) \
            else None
        output = rest[-1] if kind == "hook" else None
        records.append((label, module is module_of(), tuple(args),
                        None if kwargs is None else tuple(sorted(kwargs.items())), output))
        if returns == "raise":
            raise RuntimeError(f"{label} raised")
        if returns == "value":
            return f"{label}-value"
        if returns == "args":
            return (f"{label}-arg", f"{label}-arg2")
        if returns == "pair":
            return ((f"{label}-arg",), {"k": f"{label}-kw"})
        if returns == "bad":
            return (f"{label}-arg",)
        if returns == "output":
            return f"{label}-out"
        return None

    return hook


def _forward_of(action: str, records: list):
    def forward(*args, **kwargs):
        records.append(("forward", True, tuple(args), tuple(sorted(kwargs.items())), None))
        if action == "raise":
            raise ValueError("forward raised")
        return "out"

    return forward


def _outcome(run) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome: tuple = ("returned", run())
        except NotImplementedError:  # an unanswered exercise, never torch's outcome here
            raise
        except Exception as err:  # noqa: BLE001 - what the call raises is the answer
            outcome = ("raised", type(err).__name__, str(err))
    return outcome + (tuple(str(w.message) for w in caught),)


def _call_call_impl(answer, case: Case) -> tuple:
    """How a check calls ``call_impl``: on a plain module (an object holding the five hook
    dicts, filled as torch's ``register_forward_pre_hook`` and ``register_forward_hook``
    fill them: ids in registration order, ``prepend`` moving an id to the front) and plain
    global dicts, with recording hooks and a recording ``forward``, no backward hooks
    (``boundary`` None). Gives the records (label, whether it was handed the module, args,
    kwargs' items or None, the output it was handed), then how the call ended (its result,
    or the exception's type and message) and the warnings' messages."""
    registrations, action, args, kwargs = case.args
    records: list = []
    module = SimpleNamespace(_forward_pre_hooks=OrderedDict(),
                             _forward_pre_hooks_with_kwargs=OrderedDict(),
                             _forward_hooks=OrderedDict(),
                             _forward_hooks_with_kwargs=OrderedDict(),
                             _forward_hooks_always_called=OrderedDict())
    g_pre, g_hooks, g_kwargs, g_always = (OrderedDict() for _ in range(4))
    for key, reg in enumerate(registrations, start=100):
        kind, label, scope, with_kwargs, prepend = reg[:5]
        hook = _hook_behaviour(label, kind, reg[-1], records, lambda: module)
        if kind == "pre":
            table = g_pre if scope == "global" else module._forward_pre_hooks
            if with_kwargs:
                module._forward_pre_hooks_with_kwargs[key] = True
        else:
            table = g_hooks if scope == "global" else module._forward_hooks
            if with_kwargs:
                (g_kwargs if scope == "global" else module._forward_hooks_with_kwargs)[key] = True
            if reg[5]:
                (g_always if scope == "global" else module._forward_hooks_always_called)[key] = True
        table[key] = hook
        if prepend:
            table.move_to_end(key, last=False)
    forward = _forward_of(action, records)
    outcome = _outcome(lambda: answer(module, forward, tuple(args), dict(kwargs), g_pre,
                                      g_hooks, g_kwargs, g_always, None))
    return (records,) + outcome


def run_call_impl(answer, registrations, forward, args, kwargs) -> tuple:
    """Run ``answer`` (a ``call_impl``) on a failing case, as the check does:
    ``run_call_impl(call_impl, *case)`` gives the records, the outcome and the warnings."""
    return _call_call_impl(answer, Case(args=(registrations, forward, args, kwargs)))


def _call_impl_reference(c: Case) -> tuple:
    torch = _torch()
    from torch.nn.modules import module as torch_module

    registrations, action, args, kwargs = c.args
    records: list = []

    class Recorder(torch.nn.Module):
        pass

    m = Recorder()
    m.forward = _forward_of(action, records)
    handles = []
    try:
        for reg in registrations:
            kind, label, scope, with_kwargs, prepend = reg[:5]
            hook = _hook_behaviour(label, kind, reg[-1], records, lambda: m)
            if kind == "pre" and scope == "global":
                handles.append(torch_module.register_module_forward_pre_hook(hook))
            elif kind == "pre":
                handles.append(m.register_forward_pre_hook(hook, prepend=prepend,
                                                           with_kwargs=with_kwargs))
            elif scope == "global":
                handles.append(torch_module.register_module_forward_hook(
                    hook, with_kwargs=with_kwargs, always_call=reg[5]))
            else:
                handles.append(m.register_forward_hook(hook, prepend=prepend,
                                                       with_kwargs=with_kwargs,
                                                       always_call=reg[5]))
        outcome = _outcome(lambda: m(*args, **dict(kwargs)))
    finally:
        for handle in handles:
            handle.remove()
    return (records,) + outcome


def _call_impl_truth(c: Case) -> str:
    registrations, action, args, kwargs = c.args
    return ("a torch.nn.Module whose forward records and "
            + ("raises ValueError('forward raised')" if action == "raise" else "returns 'out'")
            + f"; hooks registered in this order: {list(registrations)!r} (global ones with "
            "torch.nn.modules.module.register_module_forward_pre_hook / "
            "register_module_forward_hook); then module(*"
            f"{args!r}, **{dict(kwargs)!r}): the hooks' and forward's records, how the call "
            "ended, the warnings")


@st.composite
def _call_impl_cases(draw: st.DrawFn) -> Case:
    registrations = []
    for label in LABELS_CALL[:_pick(draw, (0, 1, 2, 3, 3, 4, 4, 5, 6))]:
        kind = _pick(draw, ("pre", "hook"))
        scope = _pick(draw, ("module", "module", "global"))
        local = scope == "module"
        with_kwargs = _pick(draw, (False, True)) if (local or kind == "hook") else False
        prepend = local and _pick(draw, (False, False, True))
        if kind == "pre":
            returns = _pick(draw, KW_PRE_RETURNS if with_kwargs else PRE_RETURNS)
            registrations.append(("pre", label, scope, with_kwargs, prepend, returns))
        else:
            registrations.append(("hook", label, scope, with_kwargs, prepend,
                                  _pick(draw, (False, True)), _pick(draw, HOOK_RETURNS)))
    return Case(args=(tuple(registrations), _pick(draw, ("return", "return", "raise")),
                      _pick(draw, ((), ("x",), ("x", "y"))),
                      _pick(draw, ((), (("k", "v"),)))))


def _pre(label, scope="module", with_kwargs=False, prepend=False, returns=None) -> tuple:
    return ("pre", label, scope, with_kwargs, prepend, returns)


def _post(label, scope="module", with_kwargs=False, prepend=False, always_call=False,
          returns=None) -> tuple:
    return ("hook", label, scope, with_kwargs, prepend, always_call, returns)


def _call_case(registrations, forward="return", args=("x",), kwargs=()) -> Case:
    return Case(args=(tuple(registrations), forward, tuple(args), tuple(kwargs)))


register(Exercise(
    name="call_impl",
    chapter=CHAPTER,
    signature="call_impl(module, forward, args, kwargs, global_pre_hooks, global_hooks, "
              "global_with_kwargs, global_always_called, boundary) -> the output; checked "
              "with recording hooks: what each is handed, in which order, how the call ends",
    fixed=(
        _call_case([_pre("a"), _post("b")]),
        _call_case([_post("a"), _pre("b"), _post("c", "global"), _pre("d", "global")]),
        _call_case([_pre("a"), _pre("b", prepend=True), _post("c"), _post("d", prepend=True)]),
        _call_case([_pre("a", returns="value"), _pre("b", returns="args"), _post("c")],
                   args=("x", "y")),
        _call_case([_pre("a", with_kwargs=True, returns="pair"), _post("b", with_kwargs=True),
                    _post("c")], kwargs=(("k", "v"),)),
        _call_case([_post("a", returns="output"), _post("b", "global", returns="output"),
                    _post("c")]),
        _call_case([_post("a", always_call=True), _post("b", "global", with_kwargs=True,
                                                        always_call=True),
                    _post("c", with_kwargs=True, always_call=True), _post("d")],
                   forward="raise", kwargs=(("k", "v"),)),
        _call_case([_post("a", always_call=True), _post("b", returns="raise"),
                    _post("c", always_call=True)]),
    ),
    edge=(
        _call_case([]),
        _call_case([_pre("a", with_kwargs=True, returns="bad"), _post("b", always_call=True)]),
        _call_case([_post("a", "global", always_call=True, returns="raise"),
                    _post("b", always_call=True, returns="raise")], forward="raise"),
        _call_case([_pre("a", "global", returns="value"), _pre("b", with_kwargs=True),
                    _post("c", "global", returns="output"), _post("d", returns="output",
                                                                    prepend=True)], args=()),
    ),
    strategy=_call_impl_cases,
    reference=_call_impl_reference,
    truth=_call_impl_truth,
    hidden_examples=100,
    call=_call_call_impl,
    call_shown="autograder.course.exercises.ch06_modules:run_call_impl",
))
