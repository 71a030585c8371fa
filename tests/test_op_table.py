"""The op table (``reftensor/_ops``), compared with torch.

* every schema in the table is, character for character, one of torch 2.13's
  ``native_functions.yaml`` (facts, read here from the installed wheel, never at run time);
* the generated bindings (``reftensor/_bindings.py``) are what the table gives;
* the argument parser accepts what torch's accepts and refuses the rest with the same
  TypeError text, on generated calls;
* the dispatcher: kernels by key, the meta device, a dispatch mode on the ``Python`` key;
* every op's test entry (``tests/op_db.py``) runs: variants on every layout and dtype, the
  meta device, the gradient, the error inputs.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import subprocess
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torchgen
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from reftensor._ops import DispatchKey, aten, generate, state
from reftensor._ops.native_functions import _WRITABLE, Namespace, _writable
from reftensor._ops.native_functions import NATIVE_FUNCTIONS as TABLE
from reftensor._ops.python_arg_parser import Signature
from reftensor._ops.schema import parse_schema
from tests import strategies
from tests.difftest import compare_op, same_on_both
from tests.op_db import BY_NAME, OP_DB, OpEntry
from tests.strategies import WRITABLE_KINDS, examples
from tests.test_ch05_autograd import differentiated

REPO = Path(__file__).resolve().parent.parent

NATIVE_FUNCTIONS = (Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
                    / "native_functions.yaml")
shapes = strategies.shapes.filter(lambda shape: math.prod(shape) <= 24)


def _torch_schemas() -> set[str]:
    """Every schema of torch's table: each ``- func:`` line, and the ``.out`` overload that an
    ``autogen:`` line asks torchgen to write for a one-tensor functional op (its arguments,
    then ``Tensor(a!) out`` keyword-only, returning it), as torchgen writes it."""
    text = NATIVE_FUNCTIONS.read_text()
    schemas = {m.group(1).strip() for m in re.finditer(r"^- func: (.*)$", text, re.M)}
    for entry in re.split(r"^- func: ", text, flags=re.M)[1:]:
        func = entry.splitlines()[0].strip()
        autogen = re.search(r"^  autogen: (.*)$", entry, re.M)
        found = re.fullmatch(r"([\w.]+)\((.*)\) -> Tensor", func)
        if autogen is None or found is None:
            continue
        name, arguments = found.groups()
        for made in (a.strip() for a in autogen.group(1).split(",")):
            if made == f"{name.split('.')[0]}.out" or made == f"{name}_out":
                keyword = ", " if "*" in arguments.split(", ") else ", *, "
                schemas.add(f"{made}({arguments}{keyword}Tensor(a!) out) -> Tensor(a!)")
    return schemas


# ================================================================== the table
def test_every_schema_in_the_table_is_torchs():
    torch_schemas = _torch_schemas()
    # (an op's schema prints with its namespace, ``aten::add.Tensor(...)``, and its defaults
    # as torch's ``str(op._schema)`` does; native_functions.yaml writes neither so)
    ours = [str(o.schema._replace(namespace="")) for p in aten for o in p.all_overloads()]
    assert ours, "the table is empty"
    missing = [s for s in ours if s not in torch_schemas]
    assert not missing, f"not in torch's native_functions.yaml: {missing}"


def test_the_schema_parser_reads_torchs_schemas_back_unchanged():
    """Every schema of native_functions.yaml whose types the parser knows prints back as
    the same string (hundreds of them, not only the table's)."""
    read = 0
    for text in _torch_schemas():
        try:
            schema = parse_schema(text)
        except ValueError:
            continue  # a type reftensor has no use for (Dimname, Storage, ...)
        assert str(schema) == text
        read += 1
    assert read > 1000


def test_the_generated_bindings_are_up_to_date():
    path = Path(generate.__file__).resolve().parent.parent / "_bindings.py"
    assert path.read_text() == generate.source(), \
        "reftensor/_bindings.py is out of date: run python -m reftensor._ops.generate"


def _has_inplace_form(name: str) -> bool:
    """Does the table declare ``<name>_`` as the in-place form of ``name`` (``exp_``; not
    ``normal_``, an op of its own beside ``normal``)?"""
    return name in aten and any(o.inplace_form is not None
                                for o in aten[name].all_overloads())


def _own_entry(name: str) -> bool:
    """Every op has an entry, except the in-place form of another op (``exp_``) and the
    internal ops that Python reaches only through other ops (``slice``: ``narrow``); an
    internal op may have one (``_to_copy``, called as ``torch.ops.aten._to_copy``)."""
    internal = not aten[name].function and not aten[name].method
    return not internal and (not name.endswith("_") or not _has_inplace_form(name[:-1]))


def test_every_op_has_a_test_entry_and_every_entry_an_op():
    required = {p.__name__ for p in aten if _own_entry(p.__name__)}
    assert required <= set(BY_NAME), required - set(BY_NAME)
    assert set(BY_NAME) <= {p.__name__ for p in aten}, set(BY_NAME) - {p.__name__ for p in aten}


def test_help_shows_torchs_signature_and_the_docstring():
    doc = reftensor.Tensor.exp.__doc__
    assert doc.splitlines()[0] == "exp() -> Tensor"
    assert "torch.exp" in doc
    assert reftensor.exp.__doc__.splitlines()[0] == "exp(input, *, out=None) -> Tensor"


# ================================================================== the argument parser
ARGUMENTS = st.sampled_from(["tensor", "int", "float", "bool", "str", "None", "tuple", "list",
                             "dtype", "0-d int tensor"])


def _value(lib: Any, kind: str) -> Any:
    return {"tensor": lambda: lib.ones(2, 3), "int": lambda: 1, "float": lambda: 1.5,
            "bool": lambda: True, "str": lambda: "a", "None": lambda: None,
            "tuple": lambda: (0,), "list": lambda: [0, 1], "dtype": lambda: lib.float64,
            "0-d int tensor": lambda: lib.tensor(1)}[kind]()


def _parser_call(name: str, method: bool, positional: list[str], keywords: dict[str, str]):
    def program(lib: Any) -> Any:
        args = [_value(lib, k) for k in positional]
        kwargs = {key: _value(lib, k) for key, k in keywords.items()}
        if method:
            return getattr(lib.ones(2, 3), name)(*args, **kwargs)
        return _function(lib, name)(*args, **kwargs)

    return program


def _outcome(program: Any, lib: Any) -> tuple[str, str]:
    try:
        result = program(lib)
    except Exception as error:  # noqa: BLE001 - the class and text are what we compare
        return type(error).__name__, str(error)
    return "ok", type(result).__name__


@pytest.mark.parametrize("name", sorted(p.__name__ for p in aten))
@settings(max_examples=examples(40), deadline=None)
@given(method=st.booleans(), positional=st.lists(ARGUMENTS, max_size=3),
       keywords=st.dictionaries(st.sampled_from(["input", "other", "dim", "out", "alpha"]),
                                ARGUMENTS, max_size=2))
def test_the_parser_accepts_and_refuses_what_torch_does(name, method, positional, keywords):
    """The same call on both libraries: both succeed, or both raise the same class with
    the same TypeError text."""
    if not method and not aten[name].function and not _nn_functional(name) \
            and not _linalg(name):
        method = True  # a method only (torch has no torch.add_)
    program = _parser_call(name, method, positional, keywords)
    if name == "index" and method:
        # Allowance: torch's ``Tensor.index`` is no binding of the op ``index`` (which torch's
        # Python API does not offer) but a method that ``functorch.dim`` (first-class dims)
        # adds in Python. Checked instead: reftensor offers no ``Tensor.index`` either.
        assert _outcome(program, reftensor)[0] == "AttributeError"
        return
    expected, got = _outcome(program, torch), _outcome(program, reftensor)
    # CPython names a method that takes no arguments "TensorBase.exp()" in ``t.exp(1)`` and
    # "Tensor.exp()" when the bound method is called later (as ``getattr`` here does);
    # reftensor gives the first, the way the call is usually written. A method that torch
    # writes in Python (``Tensor.split``, ``Tensor.unflatten``) is "Tensor.split()" on both.
    expected = (expected[0], re.sub(r"^Tensor\.", "TensorBase.", expected[1]))
    got = (got[0], re.sub(r"^Tensor\.", "TensorBase.", got[1]))
    # Allowance: where Python itself words the error about an argument's type (``str.split``
    # of a ``torch.split("x", torch.float32)``), it names a C type by its full name
    # ("torch.dtype") and a Python class by its bare one: reftensor's dtype is "dtype".
    expected = (expected[0], re.sub(r"(must be str or None, not )torch\.", r"\1", expected[1]))
    if expected[0] == "TypeError" or got[0] == "TypeError":
        # Allowance: the "didn't match because ..." lines under a listed signature follow
        # torch's own re-reading of the signature's text, reproduced only in part; every
        # other line (the call, each signature) must be torch's.
        assert _without_explanations(got) == _without_explanations(expected)
    else:
        assert got[0] == expected[0], (expected, got)


def _without_explanations(outcome: tuple[str, str]) -> tuple[str, list[str]]:
    kind, text = outcome
    return kind, [line for line in text.splitlines() if "didn't match because" not in line]


def test_a_python_type_is_taken_as_a_dtype_and_a_0d_tensor_as_a_number():
    schema = parse_schema("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
                          "ScalarType? dtype=None) -> Tensor")
    sig = Signature("sum", schema, method=False)
    t = reftensor.ones(2)
    assert sig.bind((t, 0), {"dtype": float}, raise_errors=True) == [t, (0,), False,
                                                                     reftensor.float64]
    assert sig.bind((t, reftensor.tensor(1)), {}, raise_errors=True)[1] == (1,)
    assert sig.bind((t, True), {}, raise_errors=False) is None  # a bool is not an int
    with pytest.raises(TypeError, match=r"sum\(\) takes from 2 to 3 positional arguments"):
        sig.bind((t, 0, True, reftensor.float64), {}, raise_errors=True)


# ================================================================== the dispatcher
class RecordingMode:
    """A dispatch mode in the shape of chapter 9's ``TorchDispatchMode``: it sees each
    op call on the ``Python`` key, then runs it."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        self.seen.append(func.name())
        return func(*args, **kwargs)


def test_a_dispatch_mode_sees_ops_below_autograd():
    mode = RecordingMode()
    x = reftensor.tensor([1.0, 2.0], requires_grad=True)
    state.modes.append(mode)
    try:
        y = x.exp()
        z = reftensor.sin(y)
    finally:
        state.modes.pop()
    # as torch's: ExpBackward0 saves exp's result, which a mode sees detached
    assert mode.seen == ["aten::exp", "aten::detach", "aten::sin"]
    assert z.grad_fn.name() == "SinBackward0"  # Autograd ran above the mode and recorded
    z.sum().backward()
    assert x.grad is not None


def test_meta_tensors_reach_the_meta_kernel_and_no_data_is_read():
    x = reftensor.empty(2, 3, device="meta").t()
    y = x.exp()
    assert y.is_meta and y.shape == (3, 2) and y.stride() == (1, 3)
    assert aten.exp.default.has_kernel(DispatchKey.Meta)


def test_a_key_set_with_no_kernel_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="aten::exp"):
        aten.exp.default.redispatch(0, reftensor.ones(1))  # the empty key set


def test_a_second_kernel_for_the_same_key_is_refused():
    with pytest.raises(RuntimeError, match="already has a kernel"):
        aten.exp.default.impl("CPU")(lambda self: self)


# Issue 43: ``import reftensor`` must not grow with the table. Building ``aten`` reads only
# each schema's name; the schemas are parsed, and the Python signatures, the ``Autograd``
# kernels and the ``out=`` kernels built, on an op's first use.
_IMPORT_ONLY = """
import reftensor
from reftensor._ops import aten
overloads = [o for p in aten for o in p.all_overloads()]
print(len(overloads), sum(o._parsed is not None for o in overloads),
      sum("_function_parser" in vars(p) for p in aten))
"""


def test_import_parses_no_schema_and_builds_no_parser():
    done = subprocess.run([sys.executable, "-c", _IMPORT_ONLY], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    total, parsed, parsers = map(int, done.stdout.split())
    assert total > 700 and (parsed, parsers) == (0, 0)


def test_a_schema_is_parsed_on_first_use_with_what_calls_read_off_it():
    table = Namespace([d for d in TABLE if d.name in ("add", "pow")])
    overload = table.pow_.Scalar  # ``pow.Tensor_Scalar``'s in-place form, built on demand
    assert overload._parsed is None and overload.name() == "aten::pow_.Scalar"
    assert str(overload.schema) == ("aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> "
                                    "Tensor(a!)")
    assert overload._tensor_positions == (0,)
    fresh = table.add.Tensor  # its first call parses it
    fresh.impl("CPU")(lambda self, other, alpha: "called")
    assert fresh._parsed is None and fresh.call(1, 2, 1) == "called" and fresh._parsed
    assert table.add.out.functional is table.add.Tensor  # found when first asked for
    assert table.add.Tensor.inplace_form is table.add_.Tensor
    assert table.pow.Scalar.inplace_form is None  # ``pow.Scalar(Scalar self, ...)``


def test_the_inplace_test_on_a_schemas_text_agrees_with_the_parsed_schema():
    texts = [s for d in TABLE for s in (*d.schemas, *d.internal)]
    assert [bool(_WRITABLE.match(s)) for s in texts] == [_writable(parse_schema(s))
                                                         for s in texts]


# ================================================================== the test entries
def _empty_out(lib: Any, dtype: Any) -> Any:
    """An empty ``out=`` of that dtype; a tuple of them for several results."""
    if isinstance(dtype, tuple):
        return tuple(lib.empty(0, dtype=d) for d in dtype)
    return lib.empty(0, dtype=dtype)


def _has_out(name: str) -> bool:
    """Does the op take ``out=`` (an ``.out`` overload whose written argument is ``out``; not
    ``log_sigmoid_forward.output``'s ``output`` and ``buffer``, which tests/test_ch06_losses.py
    passes by their names)?"""
    return any(o.schema.is_out and any(a.writes and a.name == "out"
                                       for a in o.schema.arguments)
               for o in aten[name].all_overloads())


def _outs(fn: Any, name: str, out: Any) -> dict[str, Any]:
    """``out=`` as ``fn`` takes it: torch.ops takes several outs by their names (``out``,
    ``indices``), where a Python binding takes them as one tuple."""
    if not isinstance(out, tuple) or not isinstance(fn, torch._ops.OpOverloadPacket):
        return {"out": out}
    overload = next(o for o in aten[name].all_overloads()
                    if o.schema.is_out and any(a.name == "out" for a in o.schema.arguments))
    names = [a.name for a in overload.schema.arguments if a.writes]
    return dict(zip(names, out, strict=True))


def _keyword_only(name: str) -> set[str]:
    return {a.name for o in aten[name].all_overloads() for a in o.schema.arguments
            if a.kwarg_only}


def _before_self(name: str) -> list[str]:
    """The arguments that the function takes before the input (``where``'s
    ``condition``; ``einsum``'s ``equation``, before the list of tensors that the input
    opens)."""
    found: list[str] = []
    for o in aten[name].all_overloads():
        names = [a.name for a in o.schema.arguments]
        anchor = "self" if "self" in names else "tensors" if "tensors" in names else None
        if anchor is not None:
            found += [n for n in names[:names.index(anchor)] if n not in found]
    return found


def _build(lib: Any, value: Any) -> Any:
    """An argument on ``lib``: a drawn tensor recipe (or a list of them) is built, a
    library's own object named (``lib.channels_last``), a drawn dtype read from ``lib``
    (``op_db.DtypeName``), anything else passed as is."""
    if isinstance(value, list):
        return [_build(lib, v) for v in value]
    if hasattr(value, "make"):
        return value.make(lib)
    return value.of(lib) if hasattr(value, "of") else value


def _is_spec(value: Any) -> bool:
    return isinstance(value, strategies.TensorSpec)


def _on(value: Any, device: str) -> Any:
    """A drawn argument with its tensor recipes built on ``device``."""
    if isinstance(value, list):
        return [_on(v, device) for v in value]
    return value.on(device) if _is_spec(value) else value


def _call(lib: Any, fn: Any, name: str, arguments: dict[str, Any], first: tuple[Any, ...],
          raw: bool = False, **extra: Any) -> Any:
    """``fn(*first, *positional arguments, **keyword-only arguments, **extra)``. A drawn
    ``tensors`` (``cat``'s) joins the first argument in one list: ``fn([t, *tensors])``.
    The result in the entry's ``compared`` form, unless ``raw``."""
    keyword_only = _keyword_only(name) | {"requires_grad"}  # (a factory's, not the schema's)
    if "out" in extra:  # (torch.ops: several outs by their names)
        out = extra.pop("out")
        extra.update(_outs(fn, name, out))
    built = {k: _build(lib, v) for k, v in arguments.items()}
    if "tensors" in built:
        first = ([*first, *built.pop("tensors")],)
    if first:  # the function: ``where(condition, t, other)``
        first = (*[built.pop(k) for k in _before_self(name) if k in built], *first)
    positional = [v for k, v in built.items() if k not in keyword_only]
    keywords = {k: v for k, v in built.items() if k in keyword_only}
    result = fn(*first, *positional, **keywords, **extra)
    return result if raw else _compared(name, result)


def _compared(name: str, result: Any) -> Any:
    """The result in its entry's ``compared`` form (an SVD's singular vectors, defined only
    up to sign: the form both libraries must agree on), or as it is."""
    entry = BY_NAME.get(name)
    return result if entry is None or entry.compared is None else entry.compared(result)


def _keywords(lib: Any, t: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every argument by keyword, the input too (``input=t``, or ``tensors=[t, ...]``)."""
    built = {k: _build(lib, v) for k, v in arguments.items()}
    if "tensors" in built:
        return {**built, "tensors": [t, *built["tensors"]]}
    return {"input": t, **built}


def _nn_functional(name: str) -> bool:
    """Is the op, without a binding in ``reftensor``, ``nn.functional.<name>`` (``linear``:
    torch's ``nn.functional.linear`` is ``torch._C._nn.linear``)? Not when torch's
    ``nn.functional.<name>`` is a Python function of its own (``mse_loss`` takes a reduction
    string, the op an int): the op is then called as ``torch.ops.aten.<name>``."""
    return (not aten[name].function and hasattr(reftensor.nn.functional, name)
            and not isinstance(getattr(torch.nn.functional, name, None), types.FunctionType))


def _linalg(name: str) -> bool:
    """Is the op ``linalg.<name without linalg_>`` (torch's ``python_module: linalg`` ops,
    ``linalg_vector_norm``: ``torch.linalg.vector_norm``)?"""
    return (name.startswith("linalg_") and not aten[name].function
            and hasattr(reftensor.linalg, name.removeprefix("linalg_")))


def _function(lib: Any, name: str) -> Any:
    """The op as a function: ``lib.<name>``, ``lib.nn.functional.<name>``, or for an op with
    no Python binding (``_to_copy``) the library's ``aten`` op
    (``torch.ops.aten._to_copy``)."""
    if aten[name].function:
        return getattr(lib, name)
    if _nn_functional(name):
        return getattr(lib.nn.functional, name)
    if _linalg(name):
        return getattr(lib.linalg, name.removeprefix("linalg_"))
    return getattr(torch.ops.aten, name) if lib is torch else aten[name]


def _as_function(name: str) -> bool:
    """Is the op called as a function (it has one, or no method either)?"""
    return aten[name].function or not aten[name].method


def _variants(entry: OpEntry, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every way to call the op: ``(lib, t) -> result``."""
    name = entry.name
    found = {}
    if entry.no_input:  # a factory: ``zeros(size, ...)``, ``zeros(2, 3, ...)``
        return _factory_variants(entry, arguments)
    if aten[name].function:
        found["function"] = lambda lib, t: _call(lib, getattr(lib, name), name, arguments,
                                                 (t,))
        found["keyword"] = lambda lib, t: _compared(name, getattr(lib, name)(
            **_keywords(lib, t, arguments)))
    elif not aten[name].method:  # aten._to_copy(t, ...), nn.functional.linear(t, ...)
        found["aten"] = lambda lib, t: _call(lib, _function(lib, name), name, arguments, (t,))
        if _nn_functional(name) or _linalg(name):
            found["keyword"] = lambda lib, t: _compared(name, _function(lib, name)(
                **_keywords(lib, t, arguments)))
    if aten[name].method:
        found["method"] = lambda lib, t: _call(lib, getattr(t, name), name, arguments, ())
    values = list(arguments.values())
    if len(values) == 1 and isinstance(values[0], tuple):  # one int list: t.flip(0, 1)
        found["method, ints one by one"] = lambda lib, t: getattr(t, name)(*values[0])
    if len(values) == 1 and not _keyword_only(name) & set(arguments):
        for operator in aten[name].operators:  # t + other, other + t
            found[operator] = (lambda op: lambda lib, t: getattr(t, op)(
                _build(lib, values[0])))(operator)
    if len(values) == 1 and hasattr(values[0], "make"):
        for operator in aten[name].reflected_operators:  # other.__rmatmul__(t): t @ other
            found[operator] = (lambda op: lambda lib, t: getattr(_build(lib, values[0]), op)(
                t))(operator)
    if _has_out(name):
        # out= into an empty tensor: resized to the result's shape and strides (its dtype:
        # the result's, from the op itself; a tuple of them for several results)
        def out(lib: Any, t: Any) -> Any:
            fn = _function(lib, name)
            result = _call(lib, fn, name, arguments, (t,), raw=True)
            dtype = (tuple(r.dtype for r in result) if isinstance(result, tuple)
                     else result.dtype)
            return _call(lib, fn, name, arguments, (t,), out=_empty_out(lib, dtype))

        found["out"] = out
    return found


def _factory_variants(entry: OpEntry, arguments: dict[str, Any]) -> dict[str, Any]:
    """The ways to call a factory (which ignore the drawn input): by position, by keyword,
    the sizes one by one (``zeros(2, 3)``), ``out=``."""
    name = entry.name

    def call(lib: Any, **extra: Any) -> Any:
        return _call(lib, getattr(lib, name), name, arguments, (), **extra)

    found = {"function": lambda lib, t: call(lib),
             "keyword": lambda lib, t: getattr(lib, name)(
                 **{k: _build(lib, v) for k, v in arguments.items()})}
    size = arguments.get("size")
    if _is_varargs(name) and isinstance(size, tuple):
        rest = {k: v for k, v in arguments.items() if k != "size"}
        found["ints one by one"] = lambda lib, t: getattr(lib, name)(
            *size, **{k: _build(lib, v) for k, v in rest.items()})
    if _has_out(name):
        found["out"] = lambda lib, t: call(lib, out=_empty_out(lib, call(lib).dtype))
    return found


def _is_varargs(name: str) -> bool:
    """Does the function take its one positional int list as ints one by one?"""
    return any(s.varargs_intlist for s in aten[name]._function_parser.signatures)


def _draw_arguments(data: Any, entry: OpEntry, shape: tuple[int, ...]) -> dict[str, Any]:
    return data.draw(entry.arguments(shape), label="arguments")


def _drawn(data: Any, name: str, *, factory: bool = True,
           **options: Any) -> tuple[OpEntry, Any, dict[str, Any]]:
    """The op's entry, an input drawn for it (``options`` for ``tensors``) and its
    arguments. An op with a factory overload (``entry.factory``) is drawn in either form
    (``factory``: may it be the factory?), the factory as a ``no_input`` entry."""
    entry = BY_NAME[name]
    if factory and entry.factory is not None and data.draw(st.booleans(), label="factory"):
        entry = dataclasses.replace(entry, arguments=entry.factory, no_input=True, grad=False)
    shape = shapes if entry.shapes is None else entry.shapes
    if entry.kinds is not None:  # (the layouts torch gets right for this op)
        options = {**options, "kinds": tuple(k for k in options.get("kinds", strategies.KINDS)
                                             if k in entry.kinds)}
    spec = data.draw(strategies.tensors(**{"shape": shape, "dtypes": entry.dtypes,
                                           **options}), label="input")
    if entry.values is not None:  # the input's values from the op's domain
        n = len(spec.storage)
        spec = dataclasses.replace(spec, storage=tuple(data.draw(
            st.lists(entry.values, min_size=n, max_size=n), label="values")))
    arguments = _draw_arguments(data, entry, spec.shape)
    if entry.same_dtype:  # the tensor arguments again, in the input's dtype and their layout
        # (all of them, or those named: ``scatter``'s ``src`` but not its ``index``)
        # (a list of tensors too, ``einsum``'s or ``multi_dot``'s, each in turn)
        named = entry.same_dtype if isinstance(entry.same_dtype, tuple) else None

        def again(k: str, v: Any) -> Any:
            if isinstance(v, list) and (named is None or k in named):
                return [again(k, x) for x in v]
            if hasattr(v, "make") and (named is None or k in named):
                return data.draw(strategies.tensors(dtypes=(spec.dtype,), shape=v.shape,
                                                    kinds=(v.kind,)), label=k)
            return v

        arguments = {k: again(k, v) for k, v in arguments.items()}
    return entry, spec, arguments


@pytest.mark.parametrize("name", [e.name for e in OP_DB])
@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_op_on_every_layout_and_dtype(name, data):
    entry, spec, arguments = _drawn(data, name)
    variants = _variants(entry, arguments)
    variant = data.draw(st.sampled_from(sorted(variants)), label="variant")
    compare_op(variants[variant], spec, ulps=entry.ulps, values=not entry.uninitialised)


@pytest.mark.parametrize("name", [e.name for e in OP_DB if _has_inplace_form(e.name)])
@settings(max_examples=examples(20), deadline=None)
@given(data=st.data())
def test_inplace_variant(name, data):
    entry, spec, arguments = _drawn(data, name, kinds=WRITABLE_KINDS)
    operators = [o for o in aten[name + "_"].operators
                 if len(arguments) == 1 and not _keyword_only(name) & set(arguments)]
    how = data.draw(st.sampled_from(["method", *operators]), label="how")
    if how == "method":
        compare_op(lambda lib, t: _call(lib, getattr(t, name + "_"), name, arguments, ()),
                   spec, ulps=entry.ulps)
    else:  # t += other
        other = next(iter(arguments.values()))
        compare_op(lambda lib, t: getattr(t, how)(_build(lib, other)), spec, ulps=entry.ulps)


#: ops whose meta kernel in torch is a Python meta function (``torch/_meta_registrations.py``)
#: that lays out its result otherwise than the CPU kernel: ``index`` of an overlapping input
#: (strides (2, 2, 3) (1, 1, 0) indexed by a 0-d index: CPU (3, 1), meta (1, 2)), and
#: ``linear``, whose meta result does not count the decomposition's in-place ``add_`` of
#: the bias in ``_version`` (0 on meta, 1 on the CPU; ``t.add_(b)`` alone counts on meta),
#: and the softmax backward ops, whose meta result is float32 for a float16 ``grad_output``
#: with ``input_dtype=float32`` (float16 on the CPU), and ``native_layer_norm``, whose meta
#: ``mean`` and ``rstd`` are float32 for a float16/bfloat16 input (the input's dtype on the
#: CPU), and the batch norm ops, whose meta results keep the input's (or the gradient's)
#: strides (a transposed input: CPU (3, 1), meta (1, 2)) and whose meta backward returns
#: ``grad_input`` even when ``output_mask`` asks for nothing (the CPU: None)
_PYTHON_META = {"index", "linear", "_softmax_backward_data", "_log_softmax_backward_data",
                "native_layer_norm", "native_batch_norm", "native_batch_norm_backward",
                "batch_norm"}
# and ``one_hot``, whose meta result keeps the input's dim order (a transposed (2, 2) int64
# input, 6 classes: CPU (12, 6, 1), meta (6, 12, 1))
_PYTHON_META |= {"one_hot"}
# --- losses (chapter 6): torch's binary_cross_entropy on meta is a Python meta function
# whose reduced result has a storage of its own size (the CPU's keeps the loss's)
_PYTHON_META |= {"binary_cross_entropy"}
# and log_sigmoid's ops, torch's Python decompositions on meta: the input's layout kept (a
# transposed input: CPU (3, 1), meta (1, 4)), a backward's dtype promoted
_PYTHON_META |= {"log_sigmoid", "log_sigmoid_forward", "log_sigmoid_backward"}
# and threshold_backward, whose meta result keeps ``grad_output``'s dtype (a uint8 gradient
# and an int8 ``self``: meta uint8, the CPU's iterator promotes to int16)
_PYTHON_META |= {"threshold_backward"}


@pytest.mark.parametrize("name", [e.name for e in OP_DB])
@settings(max_examples=examples(10), deadline=None)
@given(data=st.data())
def test_op_on_the_meta_device(name, data):
    entry, spec, arguments = _drawn(data, name)
    drawn = [v for value in arguments.values()
             for v in (value if isinstance(value, list) else [value])]
    shapes_seen = [spec.shape] + [v.shape for v in drawn if _is_spec(v)]
    how = "function" if _as_function(name) else "method"

    def call(lib: Any, t: Any, arguments: dict[str, Any]) -> Any:
        fn = _function(lib, name) if how == "function" else getattr(t, name)
        return _call(lib, fn, name, arguments, (t,) if how == "function" else ())

    if entry.no_input:  # a factory: ``device=`` says where
        arguments = {**arguments, "device": "meta"}

    def run(lib: Any, device: str) -> Any:
        on = {k: _on(v, device) for k, v in arguments.items()}
        if entry.no_input:
            return _call(lib, getattr(lib, name), name, {**on, "device": device}, ())
        return call(lib, spec.on(device).make(lib), on)

    def outcomes() -> list[Any]:
        errors = []
        for lib in (torch, reftensor):
            try:
                run(lib, "meta")
                errors.append(None)
            except Exception as error:  # noqa: BLE001 - the class is compared
                errors.append(type(error))
        return errors

    errors = outcomes()
    if errors[0] is AssertionError and "generator" in arguments:
        # Allowance: torch runs some samplers on the meta device through its Python
        # references (``torch._refs.exponential``), which refuse ``generator=`` ("generator
        # is not supported in refs"); reftensor's meta kernels ignore it, as torch's C++
        # ones do. Checked instead: the call without it.
        arguments = {k: v for k, v in arguments.items() if k != "generator"}
        errors = outcomes()
    if errors[1] is not None and errors[0] is not errors[1]:
        # Allowance: torch's meta kernels skip some checks its CPU kernels make (or make
        # them in another order); reftensor keeps the CPU's on both. Checked instead: torch
        # raises the same class on the CPU.
        with pytest.raises(errors[1]):
            run(torch, "cpu")
        return
    if any(math.prod(s) == 0 or 1 in s for s in shapes_seen) or name in _PYTHON_META:
        # Allowance: torch's meta TensorIterator lays out size-1 and empty dims unlike its
        # CPU one (sqrt of shape (1, 1, 1, 2), strides (2, 2, 1, 1): CPU (2, 2, 2, 1), meta
        # (2, 2, 1, 1)); reftensor gives the CPU's layout on both. Compared instead: shape,
        # dtype, device, and (for a result with elements) the strides of dims of size > 1.
        def layout_of(out: Any) -> Any:
            if isinstance(out, tuple | list):
                return [layout_of(o) for o in out]
            if out is None:  # an output not asked for (``output_mask``)
                return None
            strides = [s for n, s in zip(out.shape, out.stride(), strict=True) if n > 1]
            return (tuple(out.shape), str(out.dtype).split(".")[-1],
                    strides if out.numel() else None)

        def facts(lib: Any, device: str = "meta") -> Any:
            return layout_of(run(lib, device))

        def torch_cpu_facts() -> Any:
            try:
                return facts(torch, "cpu")
            except Exception:  # noqa: BLE001 - a CPU call torch refuses: no layout to read
                return None

        if errors[0] is None and torch_cpu_facts() not in (None, facts(torch)):
            # Allowance: torch's meta kernel is a Python decomposition whose layout differs
            # from its CPU kernel's in dims of size > 1 too (logical_or of an expanded
            # float16 (1, 1, 3, 2) and a permuted bool: CPU (6, 1, 1, 3), meta (6, 6, 2,
            # 1)); reftensor gives the CPU's on both (or, where it follows torch's
            # decomposition on purpose, the meta one: ``normal``'s dtype). Checked instead:
            # reftensor's meta result has torch's CPU or meta shape, dtype and layout.
            assert facts(reftensor) in (torch_cpu_facts(), facts(torch))
            return
        same_on_both(facts)
        return
    meta_arguments = {k: _on(v, "meta") for k, v in arguments.items()}
    compare_op(lambda lib, t: run(lib, "meta") if entry.no_input
               else call(lib, t, meta_arguments), spec.on("meta"), values=False)


def _as_leaves(value: Any, dtype: str) -> Any:
    """A drawn argument with its tensor recipes in ``dtype`` (they become leaves)."""
    if isinstance(value, list):
        return [_as_leaves(v, dtype) for v in value]
    return dataclasses.replace(value, dtype=dtype) if _is_spec(value) else value


def _gradient(data: Any, name: str, seed: int, *, inplace: bool) -> None:
    """Every drawn tensor (the input and tensor arguments, lists of them too, in the
    input's float dtype) a leaf that requires grad; the op (or, on a copy of the input, its
    in-place form; an op that is only in-place, such as ``copy_``, always so)."""
    inplace = inplace or name.endswith("_")
    kinds = WRITABLE_KINDS if inplace else strategies.KINDS
    entry, spec, arguments = _drawn(data, name, dtypes=("float32", "float64"), kinds=kinds,
                                    factory=False)
    arguments = {k: v if k in entry.no_leaves else _as_leaves(v, spec.dtype)
                 for k, v in arguments.items()}
    # where each leaf goes: (argument, None) for a tensor, (argument, i) in a list
    places = [(k, i) for k, v in arguments.items()
              if isinstance(v, list) and k not in entry.no_leaves
              for i, e in enumerate(v) if _is_spec(e)]
    places += [(k, None) for k, v in arguments.items()
               if _is_spec(v) and k not in entry.no_leaves]
    specs = [arguments[k][i] if i is not None else arguments[k] for k, i in places]

    def program(lib: Any, x: Any, *leaves: Any) -> Any:
        given = {k: list(v) if isinstance(v, list) else v for k, v in arguments.items()}
        for (k, i), leaf in zip(places, leaves, strict=True):
            if i is None:
                given[k] = leaf
            else:
                given[k][i] = leaf
        if not inplace and not aten[name].method:  # cat, stack, fill: functions only
            return _call(lib, _function(lib, name), name, given, (x,))
        in_place = name if name.endswith("_") else name + "_"
        method = getattr(x * 1, in_place) if inplace else getattr(x, name)
        return _call(lib, method, name, given, ())

    # a ``dtype=`` of lower precision makes the float64 leaves' gradients carry float32's
    # rounding (``log_softmax(x, 0, dtype=float32)``)
    narrowed = any(getattr(v, "name", None) in ("float32", "float16", "bfloat16")
                   and hasattr(v, "of") for v in arguments.values())
    differentiated(program, (spec, *specs), seed, float32_inside=narrowed)


#: The corners of ``out=`` where reftensor still differs from torch, by op: ``out`` is the op's own
#: input (or one of them). torch then resizes, fills with the reduction's identity or writes part
#: of the result before it reads the input, or refuses, where reftensor computes from the input
#: first: the reductions into their own input, the products (``matmul``, ``mm``, ``addmm``,
#: ``bmm``, ``linear``, ``linalg_matrix_power``, ``matrix_power``, ``chain_matmul``,
#: ``linalg_multi_dot``: torch's kernel writes the product while it reads it), the softmax kernels
#: and the losses' ``out=`` forms. (An input whose elements share memory, ``expanded`` or
#: ``overlapping``, is not drawn as ``out``: torch then writes each element as it goes, and
#: ``neg``'s and ``tanh``'s of an overlapping input read their own results; nor is an input whose
#: result has another shape: see ``OUT_OPS``.) A ratchet (``test_the_out_gaps_only_shrink``): an op
#: leaves this table when its corner is fixed.
OUT_GAPS: dict[str, frozenset[str]] = {
    name: frozenset({"the input"})
    for name in ("prod", "max", "min", "amax", "amin", "any", "all", "sum", "mean", "var",
                 "std", "nansum", "nanmean", "matmul", "bmm", "mm", "addmm", "linear",
                 "linalg_matrix_power", "matrix_power", "chain_matmul", "linalg_multi_dot",
                 "_log_softmax", "nll_loss2d", "mse_loss",
                 "binary_cross_entropy", "_softmax", "_log_softmax_backward_data")}
#: where torch's padding kernels write ``out`` while they read the input, with no check that
#: the two share memory: an ``out`` that is the input (a result of the same shape, as
#: ``reflection_pad3d(x, [1, -1, 0, 0, 0, 0], out=x)``) reads values the kernel already wrote,
#: in its loop's order (``[0, 1]`` padded so gives ``[1, 1]``). reftensor computes from the
#: input first.
OUT_READS_ITS_WRITES = frozenset(f"{kind}_pad{dims}d" for kind in ("reflection", "replication")
                                 for dims in (1, 2, 3))
#: nll_loss2d with an input of no elements: torch takes an ``out`` of another float dtype
#: where reftensor's check refuses it ("expected scalar type Half but found BFloat16")
OUT_GAPS["nll_loss2d"] = frozenset({"the input", "result's shape", "another shape"})
#: where torch's ``out=`` is wrong and reftensor does not copy it: torch 2.13's CPU ``gelu``
#: leaves a non-contiguous ``out`` unwritten (``gelu(ones(2, 3), out=zeros(3, 2).t())``
#: stays zeros), and ``_log_softmax`` writes its values into one in row-major order
#: (``out=zeros(2, 2).t()`` holds the result transposed), and so do ``_softmax``, its backward
#: (``_log_softmax_backward_data``), ``im2col`` and ``col2im``
#: (``im2col(x, [2, 1], [1, 1], [0, 0], [3, 2], out=empty(1, 2, 4).transpose(1, 2))`` holds
#: ``[[0, 16], [2, 18], ...]`` where the result is ``[[0, 2], [4, 6], ...]``); reftensor writes
#: the result
OUT_TORCH_BUGS = {"gelu": "a non-contiguous out", "_log_softmax": "a non-contiguous out",
                  "_log_softmax_backward_data": "a non-contiguous out",
                  "_softmax": "a non-contiguous out",
                  "im2col": "a non-contiguous out", "col2im": "a non-contiguous out"}
#: where torch's kernel takes a contiguous ``out`` for one with the canonical strides, and a
#: size-1 dim of another stride misplaces the writes: the serial ``cat`` kernel (a float
#: result of fewer than 32,768 elements) counts its blocks as ``out.numel() / (size(dim) *
#: stride(dim))`` (``cat((zeros(1, 1),), 1, out=ones(1).as_strided((1, 1), (2, 2)))`` writes
#: nothing), and ``tril``/``triu`` of a batch into an ``out`` of strides ``(6, 2, 2, 1)`` for
#: ``(2, 1, 3, 2)`` write the second matrix's rows into the first. These ops skip such an
#: ``out`` (any other layout is compared).
OUT_TORCH_ODD_STRIDES = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack",
                                   "dstack", "column_stack", "tril", "triu"})


#: torch's CPU ``tril``/``triu`` write an ``out`` of more than one matrix at ``b *
#: out.stride(-3)`` for the ``b``-th matrix, whatever the batch dims' strides: an ``out`` whose
#: batch does not step that way (``(4, 1, 2, 1)`` with strides ``(1, 8, 4, 1)``) is written in
#: the wrong places, past its storage's end there ("invalid fastbin entry (free)": the process
#: aborts). torch is never called with such an ``out``.
OUT_TORCH_BATCH_STRIDE = frozenset({"tril", "triu"})


def _batch_misread(spec: Any) -> bool:
    """Does ``b * stride(-3)`` (1 where that stride is 0) miss where the ``b``-th matrix of a
    tensor of this layout starts?"""
    shape, stride = tuple(spec.shape), tuple(spec.stride)
    if len(shape) < 3 or 0 in shape:
        return False
    step = stride[-3] if stride[-3] > 0 else 1
    starts = itertools.product(*(range(n) for n in shape[:-2]))
    return any(sum(i * st for i, st in zip(index, stride, strict=False)) != b * step
               for b, index in enumerate(starts))


def _odd_contiguous(spec: Any) -> bool:
    """A contiguous layout whose strides differ from the canonical ones (on size-1 dims)."""
    return (torch.empty_strided(spec.shape, spec.stride).is_contiguous()
            and tuple(spec.stride) != torch.empty(spec.shape).stride())
#: An ``out`` that is the input, where the result has another shape: torch's kernels resize
#: ``out`` (the input) before they read it, so they read the input's new storage, which past
#: its old elements is uninitialised (``histc(x, out=x)`` saw a range of NaN;
#: ``reflection_pad1d(x, [1, 1], out=x)`` of ``arange(6.).reshape(2, 3)`` gave ``[[1, 1, 1,
#: 1, 1], [9e-23, ...]]``; ``linalg.svdvals(a, out=a)`` of a ``(2, 3)`` ``a`` raised on a
#: garbage size). There is no value to compare, so the test draws another ``out`` then.
#: Where torch's outcome does not depend on that memory (``dot``, ``vdot``, ``linalg.det``
#: check the resized input and raise), ``test_an_out_that_is_the_input_is_resized_first``
#: compares it.
OUT_OPS = [e.name for e in OP_DB if _has_out(e.name) and not e.no_input]


@pytest.mark.parametrize("name", OUT_OPS)
@settings(max_examples=examples(15), deadline=None, derandomize=True)
@given(data=st.data())
def test_out_given_any_shape_dtype_and_layout(name, data):
    """``out=`` given a tensor the op did not make: of the result's shape or of another (a
    non-empty one is resized, with torch's deprecation warning), of the result's dtype or
    any other (the op's rule: one that can hold the result, or exactly the result's), in any
    writable layout (permuted, stepped, offset: the values go through its strides), or the
    input itself. The two gaps issue 43 found (``clamp`` with number bounds, ``mean`` of an
    integer tensor) were of this kind. Derandomized: every run draws the same examples, so
    ``OUT_GAPS`` lists exactly what they find (more draws find more corners of the same
    kinds: the ratchet shrinks as they are fixed)."""
    entry, spec, arguments = _drawn(data, name, factory=False)
    fn = _function(torch, name)
    try:
        result = _call(torch, fn, name, arguments, (spec.make(torch),))
    except Exception:  # noqa: BLE001  (the op's own errors: test_op_on_every_layout_...)
        return
    results = result if isinstance(result, tuple) else (result,)
    where = data.draw(st.sampled_from(["result's shape", "another shape", "the input"]),
                      label="out")
    if where == "the input" and (len(results) > 1 or spec.kind in ("expanded", "overlapping")
                                 or tuple(results[0].shape) != spec.shape
                                 or name in OUT_READS_ITS_WRITES):
        # (an input whose elements share memory: OUT_GAPS' note; a result of another
        # shape: torch reads the resized input, see OUT_OPS)
        where = "result's shape"
    if where == "the input":
        out_specs: Any = None
    else:
        out_specs = []
        for r in results:
            own = str(r.dtype).split(".")[-1]
            # an op within some ulps of torch's, into a wider dtype, would show its ulps as
            # many more of the wider dtype's: its own dtype, or one that cannot hold it
            others = [d for d in strategies.ALL_NAMES
                      if not entry.ulps or not torch.can_cast(r.dtype, getattr(torch, d))]
            d = data.draw(st.sampled_from([own, own, *others]), label="dtype")
            shape = (tuple(r.shape) if where != "another shape"
                     else data.draw(strategies.small_shapes, label="shape"))
            out_specs.append(data.draw(strategies.tensors(dtypes=(d,), shape=shape,
                                                          kinds=WRITABLE_KINDS), label="out"))

    def program(lib: Any, t: Any) -> Any:
        if out_specs is None:
            out: Any = t
        else:
            built = [o.make(lib) for o in out_specs]
            out = tuple(built) if len(built) > 1 else built[0]
        return _call(lib, _function(lib, name), name, arguments, (t,), out=out)

    if where in OUT_GAPS.get(name, ()):
        return
    if name in OUT_TORCH_BUGS and any(o.kind != "contiguous" for o in out_specs or ()):
        return
    if name in OUT_TORCH_ODD_STRIDES and any(_odd_contiguous(o) for o in out_specs or ()):
        return
    if name in OUT_TORCH_BATCH_STRIDE and any(_batch_misread(o) for o in out_specs or ()):
        return
    compare_op(program, spec, ulps=entry.ulps, values=not entry.uninitialised)


@pytest.mark.parametrize("call", [
    "linalg.det(a, out=a) of (2, 3, 3)", "linalg.det(a, out=a) of (3, 3)",
    "linalg.det(a, out=a) of (0, 0, 0, 0)", "dot(a, b, out=a)", "vdot(a, b, out=a)",
    "dot(a, b, out=c) of another dtype", "vdot(a, b, out=b)"])
def test_an_out_that_is_the_input_is_resized_first(call):
    """torch's ``dot_out`` resizes ``out`` to 0-d, then checks its dtype, then runs ``dot``;
    ``_linalg_det``'s structured kernel gives each out its shape before it factors ``A``. So
    an ``out`` that is an input is read at its new shape: 1-d for ``det`` of a batch ("tensor.
    mH is only supported on matrices"), 0-d for a single matrix, a 0 x 0 matrix (det 1, a 0-d
    result) for a ``(0, 0, 0, 0)`` input; and a wrong-dtype ``out`` is left resized."""
    def program(lib):
        if call.startswith("linalg.det"):
            shape = {"(2, 3, 3)": (2, 3, 3), "(3, 3)": (3, 3),
                     "(0, 0, 0, 0)": (0, 0, 0, 0)}[call.split(" of ")[1]]
            a = lib.arange(math.prod(shape), dtype=lib.float64).reshape(shape) ** 2 % 7
            return lib.linalg.det(a, out=a), a
        a, b = lib.arange(3.), lib.tensor([1., -2., 5.])
        fn = lib.dot if call.startswith("dot") else lib.vdot
        if "another dtype" in call:
            c = lib.zeros(2, dtype=lib.int64)
            try:
                fn(a, b, out=c)
            finally:
                assert tuple(c.shape) == ()
        return fn(a, b, out=b if call.endswith("out=b)") else a), a, b

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (the deprecated resize of a non-empty out)
        same_on_both(program)


@pytest.mark.parametrize("case", ["(2, 3, 4) @ (4,)", "(2, 3, 4) @ (4, 5)", "(3, 1, 4) @ (4, 5)",
                                  "(5,) @ (3, 5, 4)", "linear (2, 3, 3, 1), (1,), 0-d bias",
                                  "(2, 0, 4) @ (4,)"])
def test_a_folded_product_into_an_out_no_view_folds_is_copied_back(case):
    """torch's ``matmul`` with ``out=`` of a batch times a vector or a matrix, folded
    (``should_fold``), writes ``mm``/``mv`` into ``out.reshape(rows, ...)``; where ``out``
    already has the result's shape in a layout that no view folds, that reshape is a copy,
    and ``out.copy_`` of the folded product broadcasts it against ``out``'s shape: torch's
    size-mismatch error ("The size of tensor a (3) must match the size of tensor b (6)").
    A size-1 dim still folds as a view, as does an empty ``out``; ``linear``'s ``out=`` is
    ``matmul``'s."""
    def program(lib):
        if case.startswith("linear"):
            x, w, b = lib.ones(2, 3, 3, 1), lib.ones(1), lib.tensor(2.)
            out = lib.zeros(2, 3, 3).transpose(1, 2)
            return _function(lib, "linear")(x, w, b, out=out), out
        a_shape, b_shape = (eval(part) for part in case.split(" @ "))
        a = lib.arange(math.prod(a_shape), dtype=lib.float64).reshape(a_shape)
        b = lib.arange(math.prod(b_shape), dtype=lib.float64).reshape(b_shape)
        if len(b_shape) == 3:
            b = b.mT.contiguous().mT  # a layout whose transpose folds
        shape = lib.matmul(a, b).shape
        out = lib.zeros(*reversed(shape), dtype=lib.float64).permute(
            *reversed(range(len(shape))))
        return lib.matmul(a, b, out=out), out

    same_on_both(program)


@pytest.mark.parametrize("values", [[0.5, 2.0, 1.0], [-1.0, 5.0, 2.0], [2.0, 2.0, 2.0],
                                    [float("nan"), 1.0, 2.0]])
@pytest.mark.parametrize("bounds", [(0, 0), (0, 4), (-2, 2)])
def test_histc_into_its_own_input_counts_the_zeroed_input(values, bounds):
    """torch's ``histc(x, bins, out=x)``, ``x`` of ``bins`` elements: the bin edges come from
    ``x`` (its min and max where ``min == max``), then ``out`` (``x``) is zeroed, and what is
    counted is what ``x`` holds then: its zeros, in the bin of 0 or in none."""
    def program(lib):
        x = lib.tensor(values)
        return lib.histc(x, 3, min=bounds[0], max=bounds[1], out=x), x

    same_on_both(program)


def test_the_out_gaps_only_shrink():
    """The ratchet of ``OUT_GAPS`` (31 corners when it was made, 2026-11-29; 30 since
    ``index_select``, ``take`` and ``gather`` refuse an ``out`` that is their input, as torch
    does, and ``nansum`` and ``nanmean`` joined the reductions; 27 since ``dot``, ``mv``,
    ``nll_loss`` and ``stack`` left, their results never having the input's shape, and
    ``linalg_matrix_power`` came in, found by other draws; 29 with ``chain_matmul`` and
    ``linalg_multi_dot``, whose two-matrix product into its first is zeros in torch; 30
    with ``matrix_power``, ``linalg_matrix_power``'s alias): the count may only fall,
    and every op named there still has an ``out=`` form."""
    assert sum(len(v) for v in OUT_GAPS.values()) <= 30
    assert all(name in OUT_OPS for name in OUT_GAPS)


@pytest.mark.parametrize("name", [e.name for e in OP_DB if e.grad])
@settings(max_examples=examples(20), deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_gradient(name, data, seed):
    _gradient(data, name, seed, inplace=False)


@pytest.mark.parametrize("name", [e.name for e in OP_DB
                                  if e.grad and _has_inplace_form(e.name)])
@settings(max_examples=examples(10), deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_gradient_through_the_inplace_variant(name, data, seed):
    _gradient(data, name, seed, inplace=True)


@pytest.mark.parametrize("case", [(e.name, k) for e in OP_DB for k in e.errors],
                         ids=lambda c: f"{c[0]}: {c[1]}")
def test_error_inputs(case):
    name, kind = case
    program = BY_NAME[name].errors[kind]
    same_on_both(program)
    try:
        program(torch)
    except Exception:  # noqa: BLE001
        return
    pytest.fail(f"{name}: {kind}: torch does not raise, so this is no error input")


def test_multinomial_ties_among_zero_weights():
    """With more samples than positive weights (without replacement), the zero weights
    come out in torch's order (libstdc++'s, replayed), and the generator has moved as
    torch's."""
    for seed in range(10):
        for n, k in ((4, 3), (8, 5), (20, 5), (200, 5)):
            weights = [0.0] * n
            weights[1], weights[n - 1] = 1.0, 2.0
            torch.manual_seed(seed)
            reftensor.manual_seed(seed)
            expected = torch.multinomial(torch.tensor(weights), k).tolist()
            got = reftensor.multinomial(reftensor.tensor(weights), k).tolist()
            assert got == expected
            assert reftensor.rand(1).item() == torch.rand(1).item()


@pytest.mark.parametrize("shape, stride, size", [
    ((1, 2, 4), (0, 1, 1), 5),  # found by Hypothesis: the size-2 dim is written innermost
    ((3, 3), (1, 1), 5),
    ((2, 3), (1, 2), 6),
    ((4, 2, 2), (1, 2, 1), 8),
])
def test_copy_into_self_overlapping_memory_keeps_torchs_last_write(shape, stride, size):
    """A ``copy_`` destination whose elements share locations that torch does not detect
    ("too hard"): torch writes in TensorIterator's order and the last write to a location
    stays; reftensor writes in the same order (``elementwise._copy_one_by_one``)."""
    seen = []
    for lib in (torch, reftensor):
        storage = lib.zeros(size, dtype=lib.float16)
        dest = storage.as_strided(shape, stride, 0)
        source = lib.arange(1, 1 + shape[-1], dtype=lib.uint8)
        dest.copy_(source)
        seen.append((dest.tolist(), storage.tolist()))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("program", [
    lambda lib: lib.all(lib.tensor(3), dim=1, out=lib.empty(())),
    lambda lib: lib.any(lib.ones(2, 3), dim=5, out=lib.empty(2, dtype=lib.int32)),
    lambda lib: lib.split("x", lib.float32),
], ids=["all-out-dtype-before-dim", "any-out-dtype-before-dim", "split-of-a-str"])
def test_calls_the_full_profile_found(program):
    """Calls the parser test's full Hypothesis profile drew where reftensor differed: ``all``
    and ``any`` check ``out``'s dtype before the dim; Python's own message about a dtype."""
    expected, got = _outcome(program, torch), _outcome(program, reftensor)
    assert got[0] == expected[0], (expected, got)
    assert got[1] == re.sub(r"(must be str or None, not )torch\.", r"\1", expected[1])


def test_twenty_adam_steps_of_the_tables_ops_are_torchs_bit_for_bit():
    """The single-tensor Adam update (``torch.optim.Adam(foreach=False)``'s order) written
    with the table's ``lerp_``, ``mul_``, ``addcmul_``, ``sqrt``, ``addcdiv_`` gives
    torch's float32 parameters exactly, step after step: the fused multiply-adds of
    ``lerp`` and ``addcmul`` and the rounding of ``addcdiv`` are torch's CPU kernels'."""
    rng = np.random.default_rng(0)
    start = rng.standard_normal((37, 5)).astype(np.float32)
    grads = [rng.standard_normal((37, 5)).astype(np.float32) for _ in range(20)]
    lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8
    param = reftensor.tensor(start)
    exp_avg, exp_avg_sq = reftensor.zeros_like(param), reftensor.zeros_like(param)
    expected = torch.nn.Parameter(torch.tensor(start))
    optimizer = torch.optim.Adam([expected], lr=lr, betas=(beta1, beta2), eps=eps,
                                 foreach=False)
    for step, g in enumerate(grads, 1):
        expected.grad = torch.tensor(g)
        optimizer.step()
        grad = reftensor.tensor(g)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = (exp_avg_sq.sqrt() / math.sqrt(1 - beta2 ** step)).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-(lr / (1 - beta1 ** step)))
        assert np.array_equal(param.numpy().view(np.int32),
                              expected.detach().numpy().view(np.int32)), f"step {step}"


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_lerp_and_addcmul_round_once_next_to_a_tie(dtype):
    """``x * y`` exactly halfway between two float32s and a tiny ``z``: torch's fused
    multiply-add rounds the exact sum (up); a float64 sum would land on the tie and round
    it to even (down). ``_kernels.fma`` sums in float64 rounded to odd."""
    def program(lib: Any) -> Any:
        d = getattr(lib, dtype)
        x = lib.tensor([1 + 2**-12] * 3)
        z = lib.tensor([1e-30, -1e-30, 0.0])
        return (lib.addcmul(z, x, x).to(d), lib.lerp(z.to(d), (x * x).to(d), 0.25),
                lib.addcmul(z, x, x, value=-1.0), lib.addcmul(z.double(), x, x))

    same_on_both(program)
