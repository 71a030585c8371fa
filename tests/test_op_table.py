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

import math
import re
from pathlib import Path
from typing import Any

import pytest
import torch
import torchgen
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from reftensor._ops import DispatchKey, aten, generate, state
from reftensor._ops.python_arg_parser import Signature
from reftensor._ops.schema import parse_schema
from reftensor.unary import FLOAT_FUNCTIONS
from tests import strategies
from tests.difftest import compare_op, same_on_both
from tests.op_db import BY_NAME, OP_DB, OpEntry
from tests.strategies import WRITABLE_KINDS, examples
from tests.test_ch05_autograd import differentiated

NATIVE_FUNCTIONS = (Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
                    / "native_functions.yaml")
shapes = strategies.shapes.filter(lambda shape: math.prod(shape) <= 24)


def _torch_schemas() -> set[str]:
    text = NATIVE_FUNCTIONS.read_text()
    return {m.group(1).strip() for m in re.finditer(r"^- func: (.*)$", text, re.M)}


# ================================================================== the table
def test_every_schema_in_the_table_is_torchs():
    torch_schemas = _torch_schemas()
    ours = [str(o.schema) for p in aten for o in p.all_overloads()]
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


def test_every_op_has_a_test_entry_and_every_entry_an_op():
    functional = {p.__name__ for p in aten if not p.__name__.endswith("_")}
    assert functional == set(BY_NAME), (functional ^ set(BY_NAME))


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


def _call(name: str, method: bool, positional: list[str], keywords: dict[str, str]):
    def program(lib: Any) -> Any:
        args = [_value(lib, k) for k in positional]
        kwargs = {key: _value(lib, k) for key, k in keywords.items()}
        if method:
            return getattr(lib.ones(2, 3), name)(*args, **kwargs)
        return getattr(lib, name)(*args, **kwargs)

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
    program = _call(name, method, positional, keywords)
    expected, got = _outcome(program, torch), _outcome(program, reftensor)
    # CPython names a method that takes no arguments "TensorBase.exp()" in ``t.exp(1)`` and
    # "Tensor.exp()" when the bound method is called later (as ``getattr`` here does);
    # reftensor gives the first, the way the call is usually written.
    expected = (expected[0], re.sub(r"^Tensor\.", "TensorBase.", expected[1]))
    if expected[0] == "TypeError" or got[0] == "TypeError":
        assert got == expected
    else:
        assert got[0] == expected[0], (expected, got)


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
        self.seen.append(func.name)
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
    assert mode.seen == ["aten::exp", "aten::sin"]
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


# ================================================================== the test entries
def _result(lib: Any, t: Any, name: str) -> Any:
    """The dtype of the op's result (a float function's: float; others': the input's)."""
    if name in FLOAT_FUNCTIONS and not t.is_floating_point():
        return lib.get_default_dtype()
    return t.dtype


def _has_out(name: str) -> bool:
    return any(o.schema.is_out for o in aten[name].all_overloads())


def _variants(entry: OpEntry, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every way to call the op: ``(lib, t) -> result``."""
    name, values = entry.name, tuple(arguments.values())
    found = {
        "function": lambda lib, t: getattr(lib, name)(t, *values),
        "keyword": lambda lib, t: getattr(lib, name)(input=t, **arguments),
        "method": lambda lib, t: getattr(t, name)(*values),
    }
    if len(values) == 1 and isinstance(values[0], tuple):  # one int list: t.flip(0, 1)
        found["method, ints one by one"] = lambda lib, t: getattr(t, name)(*values[0])
    if _has_out(name):
        # out= into an empty tensor: resized to the result's shape and strides
        found["out"] = lambda lib, t: getattr(lib, name)(
            t, *values, out=lib.empty(0, dtype=_result(lib, t, name)))
        # out= into a tensor of the right shape, transposed: written through its strides
        found["out in place"] = lambda lib, t: getattr(lib, name)(
            t, *values, out=lib.zeros(tuple(reversed(t.shape)), dtype=_result(
                lib, t, name)).permute(*reversed(range(t.dim()))))
    return found


@pytest.mark.parametrize("name", [e.name for e in OP_DB])
@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_op_on_every_layout_and_dtype(name, data):
    entry = BY_NAME[name]
    spec = data.draw(strategies.tensors(shape=shapes), label="input")
    arguments = data.draw(entry.arguments(spec.shape), label="arguments")
    variants = _variants(entry, arguments)
    variant = data.draw(st.sampled_from(sorted(variants)), label="variant")
    compare_op(variants[variant], spec, ulps=entry.ulps)


@pytest.mark.parametrize("name", [e.name for e in OP_DB if e.name + "_" in aten])
@settings(max_examples=examples(20), deadline=None)
@given(spec=strategies.tensors(shape=shapes, kinds=WRITABLE_KINDS))
def test_inplace_variant(name, spec):
    entry = BY_NAME[name]
    compare_op(lambda lib, t: getattr(t, name + "_")(), spec, ulps=entry.ulps)
    # (the table's in-place ops take no arguments yet: entries with arguments will draw them)


@pytest.mark.parametrize("name", [e.name for e in OP_DB])
@settings(max_examples=examples(10), deadline=None)
@given(data=st.data())
def test_op_on_the_meta_device(name, data):
    spec = data.draw(strategies.tensors(shape=shapes), label="input")
    values = tuple(data.draw(BY_NAME[name].arguments(spec.shape), label="arguments").values())
    if math.prod(spec.shape) == 0 or 1 in spec.shape:
        # Allowance: torch's meta TensorIterator lays out size-1 and empty dims unlike its
        # CPU one (sqrt of shape (1, 1, 1, 2), strides (2, 2, 1, 1): CPU (2, 2, 2, 1), meta
        # (2, 2, 1, 1)); reftensor gives the CPU's layout on both. Compared instead: shape,
        # dtype, device, and the strides of the dims of size > 1.
        def facts(lib: Any) -> Any:
            out = getattr(lib, name)(spec.on("meta").make(lib), *values)
            strides = [s for n, s in zip(out.shape, out.stride(), strict=True) if n > 1]
            return tuple(out.shape), str(out.dtype).split(".")[-1], str(out.device), strides

        same_on_both(facts)
        return
    compare_op(lambda lib, t: getattr(lib, name)(t, *values), spec.on("meta"), values=False)


@pytest.mark.parametrize("name", [e.name for e in OP_DB if e.grad])
@settings(max_examples=examples(20), deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_gradient(name, data, seed):
    spec = data.draw(strategies.tensors(dtypes=("float32", "float64"), shape=shapes))
    values = tuple(data.draw(BY_NAME[name].arguments(spec.shape), label="arguments").values())
    differentiated(lambda lib, x: getattr(x, name)(*values), (spec,), seed)


@pytest.mark.parametrize("name", [e.name for e in OP_DB if e.grad and e.name + "_" in aten])
@settings(max_examples=examples(10), deadline=None)
@given(spec=strategies.tensors(dtypes=("float32", "float64"), shape=shapes,
                               kinds=WRITABLE_KINDS), seed=st.integers(0, 2**16))
def test_gradient_through_the_inplace_variant(name, spec, seed):
    differentiated(lambda lib, x: getattr(x * 1, name + "_")(), (spec,), seed)


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
