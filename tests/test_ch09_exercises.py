"""Chapter 9's exercises (issue 44): the reference pieces (reftensor's own bodies of
``dispatch_key_set``, ``next_key``, ``mode_arguments``, ``log_line``, ``node_name``,
``overloaded_args`` and ``convert_result``) pass
every exercise on the default seed and a fresh one; typical mistakes fail; each exercise's torch
reference gives what the reference piece gives on every case there is (every situation of
``dispatch_key_set``'s cases, every pair of key sets, every stored call, every snippet and
programs of several, names from every pair of name families, every sequence of up to three
arguments of every class tree, every kind of result for every class); and the cases stored in the
exercise module (the calls a mode receives, the calls a log records, torch's dtype
abbreviations) are what torch gives now.

The two prediction exercises, no pieces (``aten_ops``: the aten ops a mode sees for a short
program, forward then backward; ``graph_breaks``: what ``torch._dynamo.explain`` reports for a
small function): the notebook's answers get full marks, typical mistakes fail, the stored
answers are torch's now and reach no sandbox, and the grading pipeline takes a mistake's
points from its exercise only."""

from __future__ import annotations

import builtins
import itertools
import keyword

import pytest

from autograder import checks
from autograder.course import exercises, references
from autograder.course.exercises import Case
from autograder.course.exercises import ch09_dispatch as ch09
from autograder.sandbox import bwrap as sandbox
from reftensor._ops.dispatch_keys import dispatch_key_set, next_key
from reftensor._ops.python_key import mode_arguments
from reftensor.fx.graph import node_name
from reftensor.overrides import convert_result, overloaded_args
from reftensor.testing._internal.logging_tensor import log_line
from tests.notebooks import assert_mistake_fails, hidden_pairs

pytestmark = pytest.mark.ch09

NAMES = ["dispatch_key_set", "next_key", "mode_arguments", "log_line", "node_name",
         "overloaded_args", "convert_result"]
PIECES = {"dispatch_key_set": dispatch_key_set, "next_key": next_key,
          "mode_arguments": mode_arguments, "log_line": log_line, "node_name": node_name,
          "overloaded_args": overloaded_args, "convert_result": convert_result}
FRESH_SEED = 20260901


# ---------------------------------------------------------------- typical mistakes
def keys_autograd_below_too(devices, requires_grad, python_tensors, *, factory_device, modes,
                            below_autograd):
    """Autograd whenever a tensor requires grad, below autograd too."""
    keys = 2 if factory_device == "meta" or (factory_device is None and "meta" in devices) else 1
    python = modes > 0 or any(python_tensors)
    return keys | (8 if any(requires_grad) else 0) | (4 if python else 0)


def keys_python_for_nested_modes(devices, requires_grad, python_tensors, *, factory_device,
                                 modes, below_autograd):
    """Python only when more than one mode is active (or a subclass tensor is there)."""
    keys = 2 if factory_device == "meta" or (factory_device is None and "meta" in devices) else 1
    if any(requires_grad) and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 1 or any(python_tensors) else 0)


def keys_python_for_modes_only(devices, requires_grad, python_tensors, *, factory_device,
                               modes, below_autograd):
    """Python only while a mode is active: a subclass tensor's class ignored."""
    keys = 2 if factory_device == "meta" or (factory_device is None and "meta" in devices) else 1
    if any(requires_grad) and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 0 else 0)


def keys_python_for_every_subclass(devices, requires_grad, python_tensors, *, factory_device,
                                   modes, below_autograd):
    """Python only when every tensor is a subclass tensor (or a mode is active)."""
    keys = 2 if factory_device == "meta" or (factory_device is None and "meta" in devices) else 1
    if any(requires_grad) and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 0 or (devices and all(python_tensors)) else 0)


def keys_backend_of_the_first_tensor(devices, requires_grad, python_tensors, *, factory_device,
                                     modes, below_autograd):
    """The backend of the first tensor (or of the factory's device when there is none)."""
    where = devices[0] if devices else factory_device
    keys = 2 if where == "meta" else 1
    if any(requires_grad) and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 0 or any(python_tensors) else 0)


def keys_factory_device_ignored(devices, requires_grad, python_tensors, *, factory_device,
                                modes, below_autograd):
    """The backend of the tensors only."""
    keys = 2 if "meta" in devices else 1
    if any(requires_grad) and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 0 or any(python_tensors) else 0)


def keys_autograd_for_every_tensor(devices, requires_grad, python_tensors, *, factory_device,
                                   modes, below_autograd):
    """Autograd whenever there is a tensor (torch's key sets, without reftensor's shortcut)."""
    keys = 2 if factory_device == "meta" or (factory_device is None and "meta" in devices) else 1
    if devices and not below_autograd:
        keys |= 8
    return keys | (4 if modes > 0 or any(python_tensors) else 0)


def next_lowest_key(keys, registered):
    runnable = keys & registered
    if not runnable:
        return 0, 0
    key = runnable & -runnable
    return key, keys & (key - 1)


def next_key_kept_below(keys, registered):
    runnable = keys & registered
    if not runnable:
        return 0, 0
    key = 1 << (runnable.bit_length() - 1)
    return key, keys & ((key << 1) - 1)


def next_key_without_kernels(keys, registered):
    """The highest key of the set, kernel or not."""
    key = 1 << (keys.bit_length() - 1)
    return key, keys & (key - 1)


def next_key_rest_of_the_set(keys, registered):
    """Every other key of the set below, those above the key too."""
    runnable = keys & registered
    if not runnable:
        return 0, 0
    key = 1 << (runnable.bit_length() - 1)
    return key, keys & ~key


def next_key_below_of_the_kernels(keys, registered):
    """The keys with kernels below the key, not the set's."""
    runnable = keys & registered
    if not runnable:
        return 0, 0
    key = 1 << (runnable.bit_length() - 1)
    return key, runnable & (key - 1)


def _right_default(value, arg):
    if not arg.has_default:
        return False
    if value is arg.default:
        return True
    if isinstance(value, list | tuple) and isinstance(arg.default, list | tuple):
        return tuple(value) == tuple(arg.default)
    return type(value) is type(arg.default) and value == arg.default


def _arguments(arguments, values, holds_default, as_list=True):
    def python(value, arg):
        return list(value) if as_list and arg.is_list and isinstance(value, tuple) else value

    positional = sum(1 for a in arguments if not a.kwarg_only)
    end = positional
    while end and holds_default(values[end - 1], arguments[end - 1]):
        end -= 1
    return (tuple(python(values[i], arguments[i]) for i in range(end)),
            {a.name: python(v, a) for a, v in zip(arguments[positional:], values[positional:],
                                                  strict=True) if not holds_default(v, a)})


def mode_every_default_dropped(arguments, values):
    """Leaves out every positional argument that holds its default, in the middle too."""
    args, kwargs = _arguments(arguments, values, _right_default)
    kept = tuple(v for v, a in zip(values, arguments, strict=False)
                 if not a.kwarg_only and not _right_default(v, a))
    return tuple(list(v) if isinstance(v, tuple) else v for v in kept), kwargs


def mode_tuples_kept(arguments, values):
    return _arguments(arguments, values, _right_default, as_list=False)


def mode_equal_is_default(arguments, values):
    """``1.0 == 1`` and ``True == 1``: a value equal to its default holds it."""
    def holds(value, arg):
        if not arg.has_default:
            return False
        if isinstance(value, list | tuple) and isinstance(arg.default, list | tuple):
            return tuple(value) == tuple(arg.default)
        return value == arg.default

    return _arguments(arguments, values, holds)


def mode_only_none_is_default(arguments, values):
    """Only ``None`` holds its default: ``alpha=1`` and ``keepdim=False`` stay."""
    return _arguments(arguments, values,
                      lambda value, arg: arg.has_default and value is None and
                      arg.default is None)


def mode_list_is_not_its_tuple_default(arguments, values):
    """A list never equals a tuple default: ``padding=[0, 0]`` stays."""
    return _arguments(arguments, values,
                      lambda value, arg: arg.has_default and (
                          value is arg.default or (type(value) is type(arg.default)
                                                   and value == arg.default)))


def mode_defaults_kept(arguments, values):
    """Every argument as given: the positional ones all, the keyword-only ones all."""
    return _arguments(arguments, values, lambda value, arg: False)


def _log(name, args, kwargs, out, shortid, abbrs, *, leaf=repr, typed_args=False,
         outputs_first=False, lists_as_leaves=False, tuples_as_lists=False):
    def mapped(value, typed):
        if isinstance(value, list | tuple) and not lists_as_leaves:
            items = [mapped(v, typed) for v in value]
            return items if isinstance(value, list) or tuples_as_lists else tuple(items)
        number = shortid(value)
        if number is None:
            return leaf(value)
        if typed:
            return f"${number}: {abbrs[value.dtype]}[{', '.join(map(str, value.shape))}]"
        return f"${number}"

    results = mapped(out, True) if outputs_first else None
    arguments = [str(mapped(a, typed_args)) for a in args]
    arguments += [f"{k}={mapped(v, typed_args)!s}" for k, v in kwargs.items()]
    if not outputs_first:
        results = mapped(out, True)
    return f"{results!s} = {name}({', '.join(arguments)})"


def log_outputs_numbered_first(name, args, kwargs, out, shortid, abbrs):
    return _log(name, args, kwargs, out, shortid, abbrs, outputs_first=True)


def log_str_for_leaves(name, args, kwargs, out, shortid, abbrs):
    return _log(name, args, kwargs, out, shortid, abbrs, leaf=str)


def log_arguments_typed(name, args, kwargs, out, shortid, abbrs):
    return _log(name, args, kwargs, out, shortid, abbrs, typed_args=True)


def log_lists_as_leaves(name, args, kwargs, out, shortid, abbrs):
    """A list argument written by its repr, as one leaf (``[3, 2]``)."""
    return _log(name, args, kwargs, out, shortid, abbrs, lists_as_leaves=True)


def log_tuples_as_lists(name, args, kwargs, out, shortid, abbrs):
    return _log(name, args, kwargs, out, shortid, abbrs, tuples_as_lists=True)


def log_numbered_by_name(name, args, kwargs, out, shortid, abbrs):
    """Numbers each tensor without the log's ``shortid`` (by its place in the line)."""
    seen = []

    def number(value):
        if hasattr(value, "shape"):
            if value not in seen:
                seen.append(value)
            return seen.index(value)
        return None

    return _log(name, args, kwargs, out, number, abbrs)


def _names(candidate, taken, last, reserved, *, avoid=None, count_on=True,
           record_numbered=True, keep_numbered=False):
    """node_name with one thing changed (``avoid``: the names avoided besides reserved)."""
    import re

    stem, digits = re.match(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$", candidate).groups()
    avoided = avoid if avoid is not None else (
        lambda name: keyword.iskeyword(name) or name in builtins.__dict__)
    if digits is None or (candidate in taken and not keep_numbered):
        number = last.get(stem, 0) if count_on else 0
        if avoided(candidate) or candidate in reserved:
            number += 1
            candidate = f"{stem}_{number}"
    else:
        number = int(digits)
    while candidate in taken and not (keep_numbered and digits is not None):
        number += 1
        candidate = f"{stem}_{number}"
    taken.add(candidate)
    if record_numbered or digits is None:
        last[stem] = number
    return candidate


def names_builtins_not_avoided(candidate, taken, last, reserved):
    """Keywords and reserved names avoided, builtins (``sum``, ``max``) not."""
    return _names(candidate, taken, last, reserved, avoid=keyword.iskeyword)


def names_counted_from_one(candidate, taken, last, reserved):
    """A name's number counts from 1 each time, not on from the stem's last one."""
    return _names(candidate, taken, last, reserved, count_on=False)


def names_numbered_not_remembered(candidate, taken, last, reserved):
    """A free numbered candidate (``getitem_3``) leaves the stem's last number as it was."""
    return _names(candidate, taken, last, reserved, record_numbered=False)


def names_taken_numbered_kept(candidate, taken, last, reserved):
    """A numbered candidate is kept as it is, taken or not (``x_1`` twice)."""
    return _names(candidate, taken, last, reserved, keep_numbered=True)


def names_reserved_fixed(candidate, taken, last, reserved):
    """reftensor's own reserved names, not the ones passed (``reftensor`` avoided in a case
    that does not reserve it)."""
    from reftensor.fx.graph import RESERVED

    return _names(candidate, taken, last, RESERVED)


# ---------------------------------------------------------------- __torch_function__ mistakes
def overloaded_base_listed(types, base):
    """The plain tensor class listed with the rest."""
    order = []
    for cls in types:
        if cls not in order:
            at = next((i for i, c in enumerate(order) if issubclass(cls, c)), len(order))
            order.insert(at, cls)
    return order


def overloaded_as_they_come(types, base):
    """Each class once, in the order of the arguments: no subclass moved first."""
    order = []
    for cls in types:
        if cls is not base and cls not in order:
            order.append(cls)
    return order


def overloaded_subclass_to_the_front(types, base):
    """A subclass of a listed class put first of all, not just before that class."""
    order = []
    for cls in types:
        if cls is not base and cls not in order:
            if any(issubclass(cls, c) for c in order):
                order.insert(0, cls)
            else:
                order.append(cls)
    return order


def overloaded_direct_parent_only(types, base):
    """Only a direct subclass (``cls.__bases__``) goes before its parent."""
    order = []
    for cls in types:
        if cls is not base and cls not in order:
            at = next((i for i, c in enumerate(order) if c in cls.__bases__), len(order))
            order.insert(at, cls)
    return order


def overloaded_repeats_kept(types, base):
    """A class listed once per argument of it."""
    order = []
    for cls in types:
        if cls is not base:
            at = next((i for i, c in enumerate(order) if issubclass(cls, c)), len(order))
            order.insert(at, cls)
    return order


def convert_containers_as_tuples(ret, cls, base):
    """Every list or tuple rebuilt as a plain tuple."""
    if cls is base:
        return ret
    if isinstance(ret, base) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, tuple | list):
        return tuple(convert_containers_as_tuples(r, cls, base) for r in ret)
    return ret


def convert_not_into_containers(ret, cls, base):
    """Only a tensor result converted; the tensors in a tuple or a list left as they are."""
    if cls is not base and isinstance(ret, base) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    return ret


def convert_unless_exactly_cls(ret, cls, base):
    """Every tensor not exactly of class cls converted (a subclass of cls too)."""
    if cls is base:
        return ret
    if isinstance(ret, base) and type(ret) is not cls:
        return ret.as_subclass(cls)
    if isinstance(ret, tuple | list):
        items = [convert_unless_exactly_cls(r, cls, base) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


def convert_only_plain_tensors(ret, cls, base):
    """Only a plain tensor converted: another subclass's instance kept."""
    if cls is base:
        return ret
    if type(ret) is base:
        return ret.as_subclass(cls)
    if isinstance(ret, tuple | list):
        items = [convert_only_plain_tensors(r, cls, base) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


def convert_named_as_a_list(ret, cls, base):
    """A named result rebuilt from one list, as torch's structseq takes it (a named tuple
    takes its fields one by one)."""
    if cls is base:
        return ret
    if isinstance(ret, base) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, tuple | list):
        return type(ret)([convert_named_as_a_list(r, cls, base) for r in ret])
    return ret


WRONG = [  # (exercise, answer, whether it still passes the visible test)
    ("dispatch_key_set", keys_autograd_below_too, False),
    ("dispatch_key_set", keys_python_for_nested_modes, False),
    ("dispatch_key_set", keys_python_for_modes_only, False),
    ("dispatch_key_set", keys_python_for_every_subclass, False),
    ("dispatch_key_set", keys_backend_of_the_first_tensor, False),
    ("dispatch_key_set", keys_factory_device_ignored, False),
    ("dispatch_key_set", keys_autograd_for_every_tensor, False),
    ("next_key", next_lowest_key, False),
    ("next_key", next_key_kept_below, False),
    ("next_key", next_key_without_kernels, False),
    ("next_key", next_key_rest_of_the_set, False),
    ("next_key", next_key_below_of_the_kernels, False),
    ("mode_arguments", mode_every_default_dropped, False),
    ("mode_arguments", mode_tuples_kept, False),
    ("mode_arguments", mode_equal_is_default, False),
    ("mode_arguments", mode_only_none_is_default, False),
    ("mode_arguments", mode_list_is_not_its_tuple_default, False),
    ("mode_arguments", mode_defaults_kept, False),
    ("log_line", log_outputs_numbered_first, False),
    ("log_line", log_str_for_leaves, False),
    ("log_line", log_arguments_typed, False),
    ("log_line", log_lists_as_leaves, False),
    ("log_line", log_tuples_as_lists, False),
    ("log_line", log_numbered_by_name, False),
    ("node_name", names_builtins_not_avoided, False),
    ("node_name", names_counted_from_one, False),
    ("node_name", names_numbered_not_remembered, False),
    ("node_name", names_taken_numbered_kept, False),
    ("node_name", names_reserved_fixed, False),
    ("overloaded_args", overloaded_base_listed, False),
    ("overloaded_args", overloaded_as_they_come, False),
    ("overloaded_args", overloaded_subclass_to_the_front, False),
    ("overloaded_args", overloaded_direct_parent_only, True),
    ("overloaded_args", overloaded_repeats_kept, False),
    ("convert_result", convert_containers_as_tuples, False),
    ("convert_result", convert_not_into_containers, False),
    ("convert_result", convert_unless_exactly_cls, True),
    ("convert_result", convert_only_plain_tensors, True),
    ("convert_result", convert_named_as_a_list, False),
]


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[answer.__name__ for _, answer, _ in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


# ---------------------------------------------------------------- the reference pieces
@pytest.mark.parametrize("name", NAMES)
def test_the_reference_pieces_get_full_marks(name, capsys):
    """reftensor's own bodies are right answers on the visible cases and on every hidden case
    of the default seed and a fresh one: the library and the exercises say the same."""
    checks.check(name, PIECES[name])
    assert "agree with torch 2.13.0" in capsys.readouterr().out
    for seed in (None, FRESH_SEED):
        verdict = checks.judge(name, PIECES[name], hidden_pairs(name, seed))
        assert verdict.passed, verdict.message()


def test_hidden_cases_are_deterministic_and_hold_the_fixed_ones():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 80, name
        assert set(exercises.get(name).fixed) <= set(cases)
        assert not any(isinstance(e, references.Raises) for _, e in pairs), name


def _judged_everywhere(name: str, cases: list[Case]) -> None:
    """The reference piece, called as the check calls it, gives torch's answer on every
    case (not a sample of them)."""
    verdict = checks.judge(name, PIECES[name],
                           list(zip(cases, references.compute(exercises.get(name), cases),
                                    strict=True)))
    assert verdict.passed, verdict.message()


def test_the_key_set_reference_is_the_piece_in_every_situation():
    """Every situation the cases can hold (up to three tensors on either device, each
    requiring grad or not, each of a class with ``__torch_dispatch__`` or not (for three
    tensors, at most the first), each factory device, 0 to 2 modes, below autograd or not)."""
    situations = []
    for count in range(4):
        for devices in itertools.product(("cpu", "meta"), repeat=count):
            for grads in itertools.product((False, True), repeat=count):
                pythons = (itertools.product((False, True), repeat=count) if count < 3
                           else [(False,) * 3, (True, False, False)])
                for python in pythons:
                    for factory, modes, below in itertools.product((None, "cpu", "meta"),
                                                                   (0, 1, 2), (False, True)):
                        situations.append(Case(args=(devices, grads, python, factory, modes,
                                                     below)))
    assert len(situations) == 1314 + 2 * 64 * 18
    _judged_everywhere("dispatch_key_set", situations)


def test_the_next_key_reference_is_the_piece_for_every_pair_of_key_sets():
    _judged_everywhere("next_key", [Case(args=(keys, registered)) for keys in ch09.KEY_SETS
                                    for registered in range(16)])


def test_the_key_sets_hold_one_backend_because_torch_orders_none_below_another():
    """Why ``KEY_SETS`` leaves out CPU and Meta together: torch puts no backend below
    another (reftensor's bits would put CPU below Meta)."""
    import torch

    K = torch._C.DispatchKey
    after_meta = torch._C._dispatch_keyset_full_after(K.Meta)
    assert not after_meta.has(K.CPU) and not torch._C._dispatch_keyset_full_after(
        K.CPU).has(K.Meta)
    assert len(ch09.KEY_SETS) == 11 and all(k & 3 != 3 for k in ch09.KEY_SETS)


def test_every_stored_call_of_a_mode_is_judged_held_as_lists_and_as_tuples():
    cases = [ch09._mode_case(program, index, as_tuples=flag)
             for program, index, _, _ in ch09.MODE_CALLS for flag in (False, True)]
    _judged_everywhere("mode_arguments", cases)


def test_every_snippet_is_judged_alone_and_in_programs_of_several():
    snippets = ch09.LOG_SNIPPETS
    cases = [ch09._log_case(s) for s in snippets]
    cases += [ch09._log_case(*snippets[k:k + 4]) for k in range(0, len(snippets), 4)]
    cases.append(ch09._log_case(*reversed(snippets)))
    _judged_everywhere("log_line", cases)


def test_the_node_name_reference_is_the_piece_on_sequences_of_every_pair_of_families():
    """Each family's names, each pair of families' in order and reversed, each family twice."""
    families = ch09.NAME_FAMILIES
    cases = [ch09._names_case(*(a + b)) for a in families for b in families]
    cases += [ch09._names_case(*reversed(a + b)) for a in families for b in families]
    cases += [ch09._names_case(*a) for a in families]
    _judged_everywhere("node_name", cases)


def test_the_overloaded_args_reference_is_the_piece_on_every_short_call_of_every_tree():
    """Every sequence of one to three arguments (the plain class included) of every class
    tree the hidden cases draw from: torch's order is the piece's."""
    cases = []
    for tree in ch09.CLASS_TREES:
        names = ["Tensor", *(name for name, _ in tree)]
        for count in (1, 2, 3):
            cases += [ch09._overloaded_case(tree, *arguments)
                      for arguments in itertools.product(names, repeat=count)]
    _judged_everywhere("overloaded_args", cases)


def test_the_convert_result_reference_is_the_piece_on_every_kind_of_result():
    """Every kind of result (a tensor of each class, a number, None, a Size, and each kind of
    container of two of them, nested once), for every class of every tree, is converted by
    the piece as torch's ``_convert`` converts it."""
    cases = []
    for tree in ch09.CLASS_TREES:
        names = ["Tensor", *(name for name, _ in tree)]
        leaves = [ch09._t(n) for n in names] + [3, None, ("Size", (2, 3))]
        values = leaves + [(kind, (a, b)) for kind in ("tuple", "list", "max")
                           for a in leaves[:3] for b in leaves[:3]]
        values.append(("tuple", (("list", (ch09._t("Tensor"),)), ("tuple", ()))))
        cases += [ch09._convert_case(tree, value, cls) for value in values for cls in names]
    _judged_everywhere("convert_result", cases)


def test_the_reserved_names_are_torchs_and_reftensors_adds_its_own():
    """A case's ``reserved`` is torch's ``_custom_builtins`` (torch takes any other name,
    ``reftensor`` included, as ordinary); reftensor's library passes the same names with
    ``reftensor``, and make_fx's namespace names every node with the piece."""
    from torch.fx.graph import _custom_builtins, _Namespace

    import reftensor.fx.graph as graph

    assert set(ch09.TORCH_RESERVED) == set(_custom_builtins)
    assert graph.RESERVED == frozenset(ch09.TORCH_RESERVED) | {"reftensor"}
    names = _Namespace()
    assert [names.create_name(c, None) for c in ("reftensor", "torch", "math", "Tensor")] == [
        "reftensor", "torch_1", "math", "Tensor"]
    assert {c for family in ch09.NAME_FAMILIES for c in family} >= {"reftensor", "torch"}
    calls = []

    def spy(candidate, taken, last, reserved):
        calls.append((candidate, reserved))
        return node_name(candidate, taken, last, reserved)

    keep = graph.node_name
    graph.node_name = spy
    try:
        assert graph._Namespace().create_name("a.b") == "a_b"
    finally:
        graph.node_name = keep
    assert calls == [("a_b", graph.RESERVED)]


# ---------------------------------------------------------------- the stored cases
def test_the_stored_mode_calls_are_what_torch_records():
    schemas, calls = ch09.mode_table()
    assert schemas == ch09.MODE_SCHEMAS
    assert calls == ch09.MODE_CALLS
    assert len(calls) >= 100 and len({p for p, *_ in calls}) == len(ch09.MODE_PROGRAMS)


def test_the_stored_log_calls_are_what_torch_logs():
    assert ch09.log_table() == ch09.LOG_CALLS
    assert tuple(ch09.LOG_CALLS) == ch09.LOG_SNIPPETS


def test_the_dtype_abbreviations_are_torchs():
    import torch
    from torch.utils._dtype_abbrs import dtype_abbrs

    assert ch09.DTYPE_ABBRS == {name: dtype_abbrs[getattr(torch, name)]
                                for name in ch09.DTYPE_ABBRS}


def test_the_stored_cases_hold_the_corners_the_exercises_name():
    """Among the stored calls: torch keeping ``alpha=1.0`` and ``True`` (not the default
    ``1``) and leaving out ``alpha=1``; a default kept before a given argument; an ``int[2]``
    default given as a bare int (left out); among the snippets: a result that is not a
    tensor, a result that is its argument (in place)."""
    def received(program):
        (got,) = [ch09._mode_reference(ch09._mode_case(p, k)) for p, k, _, _ in
                  ch09.MODE_CALLS if p == program]
        return got

    assert received("x.add(y, alpha=1.0)") == (("Tensor0", "Tensor1"), (("alpha", 1.0),))
    assert type(received("x.add(y, alpha=1.0)")[1][0][1]) is float
    assert received("b.add(b, alpha=True)")[1] == (("alpha", True),)
    assert received("x.add(y, alpha=1)") == (("Tensor0", "Tensor1"), ())
    assert received("x.topk(2, largest=False)")[0] == ("Tensor0", 2, -1, False)
    assert received("F.max_pool2d(img, 2, padding=0)") == (("Tensor0", [2, 2]), ())
    assert received("F.max_pool2d(img, (2, 1), dilation=2)")[0] == (
        "Tensor0", [2, 1], [], [0, 0], [2, 2])
    assert ch09.LOG_CALLS["it = s.item()"][0][3] == 2.5
    (clone, add) = ch09.LOG_CALLS["t = x.clone(); t.add_(1)"]
    assert add[3] == add[1][0] == clone[3]


def test_the_call_hands_the_answer_stand_ins_that_show_no_number():
    """A tensor stand-in has its dtype and shape only: the log's numbers come from
    ``shortid``, asked in the line's order."""
    seen = []

    def spy(name, args, kwargs, out, shortid, abbrs):
        seen.append((args, out, shortid(out), shortid(args[0]), shortid(2), abbrs))
        return ""

    ch09.run_log(spy, ch09.LOG_CALLS["m = x * 2"])
    ((args, out, first, second, number, abbrs),) = seen
    assert (first, second, number) == (0, 1, None)
    assert not hasattr(out, "__dict__") and set(type(out).__slots__) == {"dtype", "shape"}
    assert repr(out.dtype) == "reftensor.float32" and abbrs[out.dtype] == "f32"
    assert out.shape == (2, 3) and args[1] == 2


def test_recording_a_program_changes_nothing_torch_logs():
    """The reference's extra handler keeps no tensor (a kept factory result would make torch
    log a ``detach``): each snippet's lines, and a program's of them all, are those of
    ``capture_logs_with_logging_tensor_mode()`` alone."""
    import logging

    import torch
    from torch.testing._internal.logging_tensor import capture_logs_with_logging_tensor_mode

    logger = logging.getLogger("LoggingTensor")
    propagate, handlers = logger.propagate, list(logger.handlers)
    for snippets in [*([s] for s in ch09.LOG_SNIPPETS), ch09.LOG_SNIPPETS]:
        env = ch09._log_env(torch)
        logger.handlers = []  # pytest's, which cannot format these records: see the reference
        try:
            with capture_logs_with_logging_tensor_mode() as alone:
                for snippet in snippets:
                    exec(snippet, env)
        finally:  # as the reference does: pytest's handlers go to loggers that do not propagate
            logger.propagate, logger.handlers = propagate, handlers
        assert ch09.record_log(snippets)[1] == alone, snippets


# ---------------------------------------------------------------- the student edition
EDITION_PROGRAM = """
from reftensor.testing._internal.logging_tensor import capture_logs_with_logging_tensor_mode
from reftensor.utils._python_dispatch import TorchDispatchMode
from reftensor.fx.experimental.proxy_tensor import make_fx


class Seen(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append([str(func), len(args), sorted(kwargs or {})])
        return func(*args, **(kwargs or {}))


def program():
    x = reftensor.ones(2, 3, requires_grad=True)
    seen = Seen()
    with capture_logs_with_logging_tensor_mode() as logs, seen:
        y = (x.t()[1:] * 2).sum(1, keepdim=False)
        z = y.add(y, alpha=1.0).std(0, correction=1)
        z.backward()
        m = reftensor.zeros(2, device="meta").new_empty((0, 2))
    code = make_fx(lambda v: (v.sum(1).max() + v).sum())(reftensor.ones(2, 3)).code
    calls = []

    class Logged(reftensor.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append([cls.__name__, func.__name__, [t.__name__ for t in types]])
            return super().__torch_function__(func, types, args, kwargs)

    class Deeper(Logged):
        pass

    s, d = (reftensor.ones(2, 3).as_subclass(k) for k in (Logged, Deeper))
    kinds = [type(s + d).__name__, [type(v).__name__ for v in reftensor.max(s, 0)],
             type(s.split(1)[0]).__name__, calls]
    return [list(logs), seen.calls, x.grad.tolist(), list(m.shape), str(m.device), code, kinds]
"""


def test_the_student_editions_dispatcher_runs_the_students_pieces(tmp_path):
    """In the student edition an ordinary program under two modes (the logging mode and a
    recording one: a view, a slice, a product, a reduction with a default given, ``alpha=1.0``,
    ``std``, its backward, and meta factories), then ``make_fx`` of a function with ``sum`` and
    ``max`` nodes, then calls on two ``__torch_function__`` subclasses (one deriving from the
    other), runs the student's seven pieces; with the instructor's answers it gives the
    reference's log, calls, gradient and printed code, and a wrong answer to any one of them
    changes what it gives (or makes it raise)."""
    from tests.notebooks import assert_the_edition_runs_the_pieces

    assert_the_edition_runs_the_pieces(tmp_path, EDITION_PROGRAM, {
        "dispatch_key_set": keys_python_for_nested_modes, "next_key": next_key_kept_below,
        "mode_arguments": mode_defaults_kept, "log_line": log_outputs_numbered_first,
        "node_name": names_builtins_not_avoided, "overloaded_args": overloaded_as_they_come,
        "convert_result": convert_not_into_containers})


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point, and an
    answer that keeps every default a mode should leave out loses that exercise only."""
    from tests.notebooks import assert_grading_full_points_and_one_loss

    assert_grading_full_points_and_one_loss(tmp_path, "ch09_dispatch", "mode_arguments",
                                            mode_defaults_kept, _automatic_points())


def _automatic_points() -> int:
    """The points of the release's test cells (every exercise's, the reading checks' too)."""
    import nbformat

    from tests.notebooks import is_test_cell, nbgrader_meta, released

    nb = nbformat.read(released("ch09_dispatch"), as_version=4)
    return sum(nbgrader_meta(c)["points"] for c in nb.cells if is_test_cell(c))


# ---------------------------------------------------------------- the prediction exercises
PREDICTIONS = ["aten_ops", "graph_breaks"]


def _solution(name: str):
    """The solution notebook's answer cell, run as the grader runs one."""
    from tests.notebooks import answer_namespace, answer_sources

    namespace = answer_namespace()
    exec(answer_sources("ch09_dispatch")[name], namespace)  # noqa: S102 - the instructor's
    return namespace[name]


def _changed(name: str, which, change, label: str):
    """The solution with ``change`` applied to its answer for the programs ``which`` names."""
    right = _solution(name)

    def answer(program):
        found = right(program)
        return change(found) if which(program) else found

    answer.__name__ = label
    return answer


def _without(*ops):
    return lambda found: [op for op in found if op not in ops]


def _backward_dropped(found):
    return found[:found.index("backward")]


def _accumulate_dropped(found):
    """Every op after the backward's last formula: AccumulateGrad's detach or copy left out."""
    kept = list(found)
    while kept[-1] in ("aten.detach.default", "aten.new_empty_strided.default",
                       "aten.copy_.default"):
        kept.pop()
    return kept


def _replaced(old, new):
    return lambda found: [new if op == old else op for op in found]


WRONG_PREDICTIONS = [  # (exercise, answer, whether it still passes the visible test)
    ("aten_ops", _changed("aten_ops", lambda p: True, _backward_dropped, "forward_only"), False),
    ("aten_ops", _changed("aten_ops", lambda p: True, _accumulate_dropped,
                          "accumulate_grad_makes_no_op"), False),
    ("aten_ops", _changed("aten_ops", lambda p: p == "broadcast",
                          _replaced("aten.mul.Tensor", "aten.mul.Scalar"),
                          "a_number_is_a_scalar_overload"), False),
    ("aten_ops", _changed("aten_ops", lambda p: p == "matmul",
                          _replaced("aten.mm.default", "aten.matmul.default"),
                          "matmul_not_decomposed"), False),
    ("aten_ops", _changed("aten_ops", lambda p: p == "sum", _without("aten.unsqueeze.default"),
                          "sum_dim_backward_without_unsqueeze"), True),
    ("aten_ops", _changed("aten_ops", lambda p: p == "linear",
                          lambda f: f[:3] + f[4:], "relus_saved_result_not_detached"), True),
    ("graph_breaks", _changed("graph_breaks", lambda f: f == "no_break",
                              lambda r: (r[0], r[1], [["sin", "mul", "cos", "sum", "add"]]),
                              "method_calls_counted"), False),
    ("graph_breaks", _changed("graph_breaks", lambda f: True,
                              lambda r: (r[1], r[1], r[2]), "one_graph_per_break"), False),
    ("graph_breaks", _changed("graph_breaks", lambda f: f == "side_effect",
                              lambda r: (2, 1, [["sin"], ["add"]]), "a_side_effect_breaks"),
     True),
    ("graph_breaks", _changed("graph_breaks", lambda f: f == "item",
                              lambda r: (1, 0, [["sin", "mul"]]), "item_captured"), True),
    ("graph_breaks", _changed("graph_breaks", lambda f: f == "item",
                              lambda r: (1, 1, [["sin", "mul"]]), "an_empty_graph_not_counted"),
     True),
    ("graph_breaks", _changed("graph_breaks", lambda f: f == "loop",
                              lambda r: (1, 0, [["mul", "add"]]), "a_loop_not_unrolled"), True),
]


@pytest.mark.parametrize("name,answer,passes_visible", WRONG_PREDICTIONS,
                         ids=[answer.__name__ for _, answer, _ in WRONG_PREDICTIONS])
def test_typical_prediction_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


@pytest.mark.parametrize("name", PREDICTIONS)
def test_the_notebooks_predictions_get_full_marks(name, capsys):
    """The solution notebook's answer passes the visible cases and every hidden one of the
    default seed and a fresh one; the hidden cases are every program (function), the visible
    ones three of them."""
    answer = _solution(name)
    checks.check(name, answer)
    assert "all 3 fixed cases agree with torch 2.13.0" in capsys.readouterr().out
    table = ch09.ATEN_PROGRAMS if name == "aten_ops" else ch09.GRAPH_FUNCTIONS
    for seed in (None, FRESH_SEED):
        pairs = hidden_pairs(name, seed)
        assert sorted(c.args[0] for c, _ in pairs) == sorted(table)
        verdict = checks.judge(name, answer, pairs)
        assert verdict.passed, verdict.message()


def test_the_stored_answers_are_what_torch_gives_and_explain_is_deterministic():
    """``ch09_answers.json`` holds torch's answers now: the ops a mode records for each
    program (twice the same), and what ``explain`` reports for each function, asked twice
    (it resets Dynamo each time, so a second call captures afresh)."""
    stored = ch09.stored_answers()
    assert ch09.aten_table() == stored["aten_ops"] == ch09.aten_table()
    assert ch09.graph_table() == stored["graph_breaks"] == ch09.graph_table()
    assert list(stored["aten_ops"]) == list(ch09.ATEN_PROGRAMS)
    assert all(ops.count(ch09.BACKWARD) == 1 for ops in stored["aten_ops"].values())
    for graphs, breaks, ops in stored["graph_breaks"].values():
        assert graphs == len(ops) and breaks == graphs - 1
    assert {breaks for _, breaks, _ in stored["graph_breaks"].values()} == {0, 1, 2}


def test_a_recorded_op_is_what_the_logging_mode_logs():
    """The names the answers use are torch's ops: each program's ops under the recording
    mode are those of ``capture_logs_with_logging_tensor_mode()`` (the log's
    ``torch._ops.aten.<op>`` read as ``aten.<op>``)."""
    import logging

    import torch
    from torch.testing._internal.logging_tensor import capture_logs_with_logging_tensor_mode

    logger = logging.getLogger("LoggingTensor")
    propagate, handlers = logger.propagate, list(logger.handlers)
    for program, text in ch09.ATEN_PROGRAMS.items():
        env = ch09._aten_env(torch)
        logger.handlers = []  # pytest's, which cannot format these records: see record_log
        try:
            with capture_logs_with_logging_tensor_mode() as logs:
                exec(text, env)  # noqa: S102 - the module's own program
                env["loss"].backward()
        finally:
            logger.propagate, logger.handlers = propagate, handlers
        logged = [line.split(" = torch._ops.")[1].split("(")[0] for line in logs]
        assert logged == [op for op in ch09.record_aten_ops(program) if op != ch09.BACKWARD]


def test_the_stored_data_is_what_write_data_writes():
    """``ch09_data.py`` and ``ch09_answers.json`` are the writer's text of the stored tables
    (each table is compared with torch above), and the data module holds nothing else."""
    from autograder.course.exercises import ch09_data

    assert ch09.DATA_PATH.read_text() == ch09.data_text(
        ch09_data.MODE_SCHEMAS, ch09_data.MODE_CALLS, ch09_data.LOG_CALLS)
    stored = ch09.stored_answers()
    assert ch09.ANSWERS_PATH.read_text() == ch09.answers_text(stored["aten_ops"],
                                                              stored["graph_breaks"])
    assert {n for n in vars(ch09_data) if n.isupper()} == {"MODE_SCHEMAS", "MODE_CALLS",
                                                            "LOG_CALLS"}
    assert (ch09.MODE_SCHEMAS, ch09.MODE_CALLS, ch09.LOG_CALLS) == (
        ch09_data.MODE_SCHEMAS, ch09_data.MODE_CALLS, ch09_data.LOG_CALLS)


def test_the_prediction_answers_reach_no_sandbox():
    """The right answers are read where torch is, from a ``.json`` file, which the sandboxes'
    runtime (and the hub's student package, built from the same list) leaves out; no file of
    the runtime names an answer's program table."""
    from autograder.sandbox.runtime import runtime_files

    files = runtime_files()
    assert ch09.ANSWERS_PATH.suffix == ".json"
    assert "autograder/course/exercises/ch09_answers.json" not in files
    assert "autograder/course/exercises/ch09_dispatch.py" in files
    assert not any(b'"threshold_backward.default", "t.default"' in text
                   for text in files.values())


def test_a_reference_runs_only_the_modules_programs_and_refuses_a_stale_answer(monkeypatch):
    for name in ("x.sum()", "import os", "viewx"):
        with pytest.raises(ValueError, match="only the"):
            ch09.record_aten_ops(name)
        with pytest.raises(ValueError, match="only the"):
            ch09.explain_function(name)
    stale = ch09.stored_answers()
    stale["aten_ops"]["view"] = stale["aten_ops"]["view"][:-1]
    stale["graph_breaks"]["print"] = [1, 0, [["sin", "cos"]]]
    monkeypatch.setattr(ch09, "stored_answers", lambda: stale)
    with pytest.raises(ValueError, match="rebuild ch09_answers.json"):
        ch09._aten_reference(Case(args=("view",)))
    with pytest.raises(ValueError, match="rebuild ch09_answers.json"):
        ch09._graph_reference(Case(args=("print",)))
    assert ch09._aten_reference(Case(args=("sum",))) == stale["aten_ops"]["sum"]


def test_the_notebook_shows_the_programs_and_functions_it_asks_about():
    """The reading checks' text shows each program, the tensors they run on, and each
    function's source, as the module runs them."""
    import nbformat

    from tests.notebooks import source

    nb = nbformat.read(source("ch09_dispatch"), as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    aten = next(c.source for c in nb.cells if c.source.startswith("### Reading check: `aten_ops`"))
    for name, made in ch09.ATEN_ENV:
        assert f"\n{name} = {made}\n" in aten
    for name, program in ch09.ATEN_PROGRAMS.items():
        assert f'| `"{name}"` | `{program}` |' in aten
    graphs = next(c.source for c in nb.cells
                  if c.source.startswith("### Reading check: `graph_breaks`"))
    for name, function in ch09.GRAPH_FUNCTIONS.items():
        assert f'# "{name}"\n{function}' in graphs + "\n"
    assert "check(" not in text


@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_a_prediction_mistake_the_loss_of_its_exercise_only(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point, and an
    ``aten_ops`` that forgets ``sum(1)``'s unsqueeze (right on the visible programs) loses
    that exercise's hidden test only."""
    from tests.notebooks import answer_sources, assert_grading_full_points_and_one_loss

    right = answer_sources("ch09_dispatch")["aten_ops"]
    wrong = right.replace('*start, "unsqueeze.default", ', "*start, ")
    assert wrong != right
    outcome = assert_grading_full_points_and_one_loss(tmp_path, "ch09_dispatch", "aten_ops",
                                                      wrong, _automatic_points())
    assert outcome.scores["test_aten_ops_visible"] == 1
