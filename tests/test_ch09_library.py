"""Chapter 9: ``reftensor.library`` defines ops of your own and registers their kernels per
dispatch key, as ``torch.library`` does (issue 44).

Each test runs one program on torch and on reftensor (``lib`` is the library: ``torch`` or
``reftensor``) and compares what it gives: names and schemas of the ops defined, results,
gradients, ``grad_fn`` names, what a dispatch mode and the logging mode see, the code
``make_fx`` prints, meta shapes, and every error (class and message) and warning, where a
message is compared after :func:`normalized` (the word ``reftensor`` is ``torch``, and a
registration's place, ``registered at <file>:<line>``, is left out: each side's program sits
on other lines). Every namespace is new to both libraries (``_fresh``): torch keeps what a
test registers for the whole session.

The ``_schema`` of every op of reftensor's table prints as torch's ``str(op._schema)``.

What torch says and reftensor does not (the tests check reftensor's side of each):

* a schema that does not parse: torch's parser's message (``expected ) but found ...``);
  reftensor's names the schema (both RuntimeError);
* the autograd fallback's warning: torch appends where in its C++ sources it was raised;
* a backward through a ``custom_op`` shows no ``aten.detach.default`` of ``AccumulateGrad``
  on reftensor (``test_ch09_dispatch.py``'s allowance ``accumulate_grad_ops``).
"""

from __future__ import annotations

import gc
import itertools
import re
import typing
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx
from torch.testing._internal.logging_tensor import (
    capture_logs_with_logging_tensor_mode as torch_capture_logs,
)
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

import reftensor
import reftensor.library
from reftensor._ops import aten
from reftensor.fx.experimental.proxy_tensor import make_fx as reftensor_make_fx
from reftensor.testing._internal.logging_tensor import (
    capture_logs_with_logging_tensor_mode as reftensor_capture_logs,
)
from reftensor.utils._python_dispatch import TorchDispatchMode as ReftensorMode
from tests.strategies import examples

pytestmark = pytest.mark.ch09

LIBS = (torch, reftensor)
_COUNTER = itertools.count()


def _fresh() -> str:
    """A namespace neither library has seen (torch keeps its registrations for the session)."""
    return f"rtlib{next(_COUNTER)}"


def normalized(text: str) -> str:
    """A message as torch's: ``reftensor`` is ``torch`` (``reftensor.tensor.Tensor``, the
    annotation reftensor's signatures print, is ``torch.Tensor``), and the place a library
    or a kernel was registered at is left out."""
    text = text.replace("reftensor.tensor.Tensor", "torch.Tensor")
    text = re.sub(r"\breftensor\b", "torch", text)
    return re.sub(r"(registered at|block at) [^\s;)]+", r"\1 <place>", text)


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", value)`` or ``(exception class name, normalized message)``."""
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001  (the class is what is compared)
        return type(e).__name__, normalized(str(e))


def side_by_side(program: Callable[[Any, str], list[Any]]) -> tuple[list[Any], list[Any]]:
    """``program(lib, ns)`` on each library, in one fresh namespace."""
    ns = _fresh()
    return program(torch, ns), program(reftensor, ns)


def _clean(value: Any, ns: str) -> Any:
    """``value`` with the namespace written ``NS`` in every string it holds."""
    if isinstance(value, str):
        return value.replace(ns, "NS")
    if isinstance(value, tuple | list):
        return type(value)(_clean(v, ns) for v in value)
    return value


def _mode(lib: Any) -> type:
    return TorchMode if lib is torch else ReftensorMode


def _numpy(x: Any) -> np.ndarray:
    return np.asarray(x.detach().tolist(), dtype=np.float64)


def _tensor(lib: Any, values: Any) -> Any:
    return lib.tensor(np.asarray(values).tolist(), dtype=lib.float32)


# ---------------------------------------------------------------- Library and its errors
def test_library_refuses_what_torch_refuses():
    def program(lib: Any, ns: str) -> list[Any]:
        Library = lib.library.Library
        found = [outcome(lambda: Library(ns, "BAD")), outcome(lambda: Library("prim", "DEF"))]
        defining = Library(ns, "DEF")
        found += [
            outcome(lambda: Library(ns, "DEF")),  # a second DEF of the namespace
            outcome(lambda: Library("aten", "DEF")),
            outcome(lambda: defining.define("foo(Tensor x) -> Tensor")),
            outcome(lambda: defining.define("foo(Tensor x) -> Tensor")),  # twice
            outcome(lambda: defining.define("foo.bar(Tensor x, int n) -> Tensor")),
            outcome(lambda: defining.define("other::baz(Tensor x) -> Tensor")),
            outcome(lambda: defining.define("q(Tensor x) -> Tensor", alias_analysis="BOGUS")),
            outcome(lambda: defining.define("q(Tensor x) -> Tensor", "CONSERVATIVE")),
            outcome(lambda: defining.impl("foo", 3, "CPU")),
            outcome(lambda: defining.impl(3, lambda x: x, "CPU")),
            outcome(lambda: defining.impl("foo", lambda x: x, "BadKey")),
            outcome(lambda: defining.impl("other::foo", lambda x: x, "CPU")),
            outcome(lambda: defining.impl("foo", lambda x: x, "CPU")),
            outcome(lambda: defining.impl("foo", lambda x: x, "CPU", allow_override=False)),
            outcome(lambda: defining.impl("foo", lambda x: x, "Meta", allow_override=False)),
            repr(defining).replace(ns, "NS"),
        ]
        impl = Library(ns, "IMPL")
        fragment = Library(ns, "FRAGMENT")
        keyed = Library(ns, "IMPL", "CPU")
        found += [
            outcome(lambda: impl.define("z(Tensor x) -> Tensor")),
            outcome(lambda: fragment.define("z(Tensor x) -> Tensor")),
            outcome(lambda: fragment.define("foo(Tensor x) -> Tensor")),
            outcome(lambda: fragment.define("other::z2(Tensor x) -> Tensor")),
            outcome(lambda: fragment.impl("other::z", lambda x: x, "CPU")),
            outcome(lambda: keyed.impl("foo", lambda x: x, "Meta")),
            outcome(lambda: keyed.impl("z", lambda x: x)),  # the library's key
            outcome(lambda: impl.impl("nothere", lambda x: x, "CPU")),  # before its def
            outcome(lambda: getattr(lib.ops, ns).nothere),
            outcome(lambda: getattr(lib.ops, ns).foo.nothere),
        ]
        return _clean(found, ns)

    ours_torch, ours = side_by_side(program)
    # the only message reftensor does not reproduce: torch's packet names its own class
    assert ours_torch[-1][0] == ours[-1][0] == "AttributeError"
    assert ours_torch[:-1] == ours[:-1]


def test_a_schema_that_does_not_parse_raises_runtime_error():
    def program(lib: Any, ns: str) -> str:
        defining = lib.library.Library(ns, "DEF")
        return outcome(lambda: defining.define("bad(Tensor x -> Tensor"))[0]

    assert side_by_side(program)[0] == side_by_side(program)[1] == "RuntimeError"


def test_a_kernel_registered_again_replaces_the_first_with_torchs_warning():
    def program(lib: Any, ns: str) -> list[Any]:
        defining = lib.library.Library(ns, "DEF")
        defining.define("foo(Tensor x) -> Tensor")
        defining.impl("foo", lambda x: x * 2, "CPU")
        defining.impl("foo", lambda x: x * 3, "CPU")
        return getattr(lib.ops, ns).foo(lib.ones(2)).tolist()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch warns once per process)
        assert side_by_side(program)[0] == side_by_side(program)[1] == [3.0, 3.0]
    reftensor.library._warned_override[0] = False
    ns = _fresh()
    defining = reftensor.library.Library(ns, "DEF")
    defining.define("foo(Tensor x) -> Tensor")
    defining.impl("foo", lambda x: x, "CPU")
    with pytest.warns(UserWarning, match="Warning only once for all operators") as record:
        defining.impl("foo", lambda x: x, "CPU")
    assert f"operator: {ns}::foo(Tensor x) -> Tensor" in str(record[0].message)
    assert "dispatch key: CPU" in str(record[0].message)


def test_a_collected_library_takes_its_ops_and_kernels_with_it():
    def program(lib: Any, ns: str) -> list[Any]:
        defining = lib.library.Library(ns, "DEF")
        defining.define("foo(Tensor x) -> Tensor")
        impl = lib.library.Library(ns, "IMPL")
        impl.impl("foo", lambda x: x * 2, "CPU")
        before = getattr(lib.ops, ns).foo(lib.ones(1)).tolist()
        del impl
        gc.collect()
        found = [before, outcome(lambda: getattr(lib.ops, ns).foo(lib.ones(1)))[0]]
        del defining
        gc.collect()
        again = lib.library.Library(ns, "DEF")  # the namespace is free again
        found.append(hasattr(getattr(lib.ops, ns), "foo"))
        again.define("foo(Tensor x, int n) -> Tensor")
        found.append(str(getattr(lib.ops, ns).foo.default._schema).replace(ns, "NS"))
        return found

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


# ---------------------------------------------------------------- names and schemas
SCHEMAS = [
    "foo(Tensor x) -> Tensor",
    "foo.bar(Tensor x, int n) -> Tensor",
    "many(Tensor a, Tensor? b, int[] dims, float eps=1e-05, *, bool flag=False, "
    'str mode="x", Scalar alpha=1) -> (Tensor, Tensor)',
    "write(Tensor(a!) x, Tensor y) -> ()",
    "lists(Tensor[] xs, SymInt[]? sizes=None, ScalarType? dtype=None, Device? device=None) "
    "-> Tensor[]",
    "view_of(Tensor(a) x) -> Tensor(a)",
]


def test_names_and_schemas_as_torchs():
    def program(lib: Any, ns: str) -> list[Any]:
        defining = lib.library.Library(ns, "DEF")
        names = [defining.define(s) for s in SCHEMAS]
        space = getattr(lib.ops, ns)
        found: list[Any] = [names, repr(space).replace("reftensor", "torch")]
        for text in SCHEMAS:
            head = text.partition("(")[0]
            name, _, overload = head.partition(".")
            packet = getattr(space, name)
            op = getattr(packet, overload or "default")
            found.append([op.name(), str(op), repr(op), op.namespace, op.__module__,
                          op.__name__, op._opname, op._overloadname, str(op._schema),
                          repr(packet), str(packet), op.overloadpacket is packet])
        return [normalized(str(f)).replace(ns, "NS") for f in found]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def test_every_aten_schema_prints_as_torchs():
    """``str(op._schema)`` of every overload of reftensor's table is torch's (the namespace,
    and the defaults as torch's dispatcher keeps them: ``reduction=1``,
    ``eps=1.0000000000000001e-05``, ``mode="constant"``)."""
    compared, differ = 0, []
    for packet in aten:
        for op in packet.all_overloads():
            theirs = getattr(getattr(torch.ops.aten, op.op_name),
                             op.overload_name or "default")
            compared += 1
            if str(op._schema) != str(theirs._schema):
                differ.append((str(op._schema), str(theirs._schema)))
            assert op.name() == theirs.name() and str(op) == str(theirs)
            assert repr(op) == repr(theirs) and op.__module__ == \
                theirs.__module__.replace("torch", "reftensor")
    assert compared > 900 and not differ, differ[:5]


def test_a_packets_overloads_are_named_as_torchs():
    """``packet.overloads()`` is a method giving names, as torch's: every name reftensor
    gives is an overload torch has (torch's list also holds the TorchScript overloads of the
    name, ``add.int``, and overloads reftensor has not), and each name is an attribute."""
    assert torch.ops.aten.add.overloads()[:3] == aten.add.overloads() == [
        "Tensor", "Scalar", "out"]
    for packet in aten:
        names = packet.overloads()
        theirs = set(getattr(torch.ops.aten, packet.__name__).overloads())
        assert set(names) <= theirs, (packet, set(names) - theirs)
        assert [getattr(packet, n) for n in names] == packet.all_overloads()


# ---------------------------------------------------------------- kernels by key
def test_kernels_run_by_key_as_torchs():
    """CPU, Meta, CompositeExplicitAutograd (every backend without a kernel of its own),
    CompositeImplicitAutograd (before any key: its ops record themselves), and the errors of a
    call with no kernel for its backend."""
    def program(lib: Any, ns: str) -> list[Any]:
        defining = lib.library.Library(ns, "DEF")
        for name in ("cpu_only", "both", "explicit", "implicit", "none"):
            defining.define(f"{name}(Tensor x, float k=2.0) -> Tensor")
        defining.impl("cpu_only", lambda x, k=2.0: x * k, "CPU")
        defining.impl("both", lambda x, k=2.0: x + k, "CPU")
        defining.impl("both", lambda x, k=2.0: lib.empty_like(x).t(), "Meta")
        defining.impl("explicit", lambda x, k=2.0: x - k, "CompositeExplicitAutograd")
        defining.impl("implicit", lambda x, k=2.0: (x * k).neg(), "CompositeImplicitAutograd")
        space = getattr(lib.ops, ns)
        cpu = _tensor(lib, [[1.0, 2.0], [3.0, 4.0]])
        meta = lib.empty(2, 3, device="meta")
        found: list[Any] = []
        for name in ("cpu_only", "both", "explicit", "implicit", "none"):
            op = getattr(space, name)
            found.append(outcome(lambda op=op: op(cpu, 3.0).tolist()))
            found.append(outcome(lambda op=op: op.default(cpu, k=0.5).tolist()))
            found.append(outcome(lambda op=op: tuple(op(meta).shape)))
        grad = _tensor(lib, [1.0, 2.0]).requires_grad_()
        y = space.implicit(grad)
        found.append(type(y.grad_fn).__name__)
        y.sum().backward()
        found.append(grad.grad.tolist())
        # (torch's "no kernel" message goes on after the backend's name, reftensor's too)
        return [(f[0], f[1].split(". This could be")[0].split(": torch has")[0])
                if isinstance(f, tuple) and isinstance(f[1], str) else f for f in found]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def test_a_kernel_gets_the_arguments_as_torch_hands_them():
    """A Python kernel gets the keyword-only arguments by keyword, and the trailing ones that
    hold their default left out; ``with_keyset`` adds the key set first."""
    def program(lib: Any, ns: str) -> list[Any]:
        seen: list[Any] = []
        defining = lib.library.Library(ns, "DEF")
        defining.define("f(Tensor x, int n=2, *, float k=1.0, str s=\"a\") -> Tensor")

        def kernel(*args: Any, **kwargs: Any) -> Any:
            seen.append((len(args), [a for a in args[1:]], sorted(kwargs.items())))
            return args[0].clone()

        defining.impl("f", kernel, "CPU")
        op = getattr(lib.ops, ns).f
        x = lib.ones(2)
        op(x)
        op(x, 3)
        op(x, 2, k=1.0)
        op(x, 2, k=2.5, s="b")
        op.default(x, 5, s="a")
        return seen

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def test_library_functions_define_impl_and_register_fake_as_torchs():
    def program(lib: Any, ns: str) -> list[Any]:
        L = lib.library
        found = [outcome(lambda: L.define(f"{ns}twice", "(Tensor x) -> Tensor")),
                 outcome(lambda: L.define(f"{ns}::bad", "twice(Tensor x) -> Tensor")),
                 outcome(lambda: L.define(3, "(Tensor x) -> Tensor"))]
        L.define(f"{ns}::twice", "(Tensor x) -> Tensor")

        @L.impl(f"{ns}::twice", "cpu")
        def _(x):
            return x * 2

        op = getattr(lib.ops, ns).twice
        meta = lib.ones(2, 3, device="meta")
        found.append(outcome(lambda: op(meta)))
        found.append(outcome(lambda: L.register_fake(f"{ns}::nope", lambda x: x)))
        L.register_fake(f"{ns}::twice")(lambda x: lib.empty_like(x).t())
        found += [tuple(op(meta).shape), op(meta).device.type, op(lib.ones(2)).tolist()]
        L.impl(f"{ns}::twice", "default", lambda x: x * 5)  # CompositeExplicitAutograd
        found.append(op(lib.ones(1)).tolist())  # (CPU's own kernel still wins)
        L.register_kernel(f"{ns}::twice", "cpu", lambda x: x * 7)
        found.append(op(lib.ones(1)).tolist())
        found.append(outcome(lambda: L.impl(f"{ns}::twice", "nodevice", lambda x: x)))
        return _clean(found, ns)

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


# ---------------------------------------------------------------- autograd
def test_an_op_without_autograd_kernel_warns_in_backward_as_torchs():
    """torch's autograd fallback (mode ``"warn"``): a result the kernel computed outside
    autograd gets a ``WarnNotImplemented`` node (no gradient, a warning in backward); one its
    ops recorded keeps its node and warns through a hook; no grad mode, no node."""
    def program(lib: Any, ns: str) -> list[Any]:
        defining = lib.library.Library(ns, "DEF")
        defining.define("outside(Tensor x) -> Tensor")
        defining.define("inside(Tensor x) -> Tensor")
        defining.define("two(Tensor x) -> (Tensor, Tensor)")
        defining.define("ints(Tensor x) -> Tensor")
        defining.impl("outside", lambda x: lib.tensor(_numpy(x) * 2, dtype=x.dtype), "CPU")
        defining.impl("inside", lambda x: x * 3, "CPU")
        defining.impl("two", lambda x: (lib.tensor(_numpy(x)), x.detach() + 1), "CPU")
        defining.impl("ints", lambda x: lib.ones(2, dtype=lib.int64), "CPU")
        space = getattr(lib.ops, ns)
        found: list[Any] = []
        for name in ("outside", "inside", "two"):
            x = _tensor(lib, [1.0, 2.0]).requires_grad_()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = getattr(space, name)(x)
                first = out[0] if isinstance(out, tuple | list) else out
                found.append((first.grad_fn.name(), len(first.grad_fn.next_functions),
                              len(caught)))
                if isinstance(out, tuple | list):
                    found.append(out[0].grad_fn is out[1].grad_fn)
                first.sum().backward()
                found.append([str(w.message).split(" (Triggered internally")[0].replace(ns, "NS")
                              for w in caught])
                found.append([w.category.__name__ for w in caught])
            found.append(None if x.grad is None else x.grad.tolist())
        x = _tensor(lib, [1.0]).requires_grad_()
        found.append(space.ints(x).requires_grad)
        with lib.no_grad():
            found.append(space.outside(x).requires_grad)
        return found

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def _custom_sin(lib: Any, ns: str) -> Any:
    Tensor = lib.Tensor

    def numpy_sin(x, k=1.0):
        return lib.tensor(np.sin(_numpy(x)) * k, dtype=x.dtype)

    numpy_sin.__annotations__ = {"x": Tensor, "k": float, "return": Tensor}
    return lib.library.custom_op(f"{ns}::numpy_sin", numpy_sin, mutates_args=())


def test_custom_op_program_as_torchs():
    """One program: a ``custom_op`` run, then its missing fake and backward, then both
    registered; its name, schema, results, gradients and node name, and errors."""
    def program(lib: Any, ns: str) -> list[Any]:
        op = _custom_sin(lib, ns)
        x = _tensor(lib, [0.5, 1.0, 2.0])
        found: list[Any] = [repr(op).replace(ns, "NS"),
                            str(op._opoverload._schema).replace(ns, "NS"),
                            op._opoverload is getattr(lib.ops, ns).numpy_sin.default,
                            np.round(op(x).tolist(), 6).tolist(),
                            np.round(op(x, k=2.0).tolist(), 6).tolist()]
        meta = lib.empty(2, 3, device="meta")
        found.append(outcome(lambda: op(meta)))
        grad = x.clone().requires_grad_()
        y = op(grad)
        found.append(type(y.grad_fn).__name__)
        found.append(outcome(lambda: y.sum().backward()))

        @op.register_fake
        def _(x, k=1.0):
            return lib.empty_like(x)

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.cos() * ctx.k, None

        op.register_autograd(backward, setup_context=setup_context)
        found.append(tuple(op(meta).shape))
        grad = x.clone().requires_grad_()
        y = op(grad, 3.0)
        found.append(type(y.grad_fn).__name__)
        (y * y).sum().backward()
        found.append(np.round(grad.grad.tolist(), 5).tolist())

        @op.register_kernel("cpu")
        def _(x, k=1.0):
            return x * 0 + k

        found.append(op(x).tolist())
        found.append(outcome(lambda: op.register_kernel("nodevice")(lambda x, k=1.0: x)))
        return [normalized(f).replace(ns, "NS") if isinstance(f, str) else f for f in found]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours



def test_a_second_custom_op_of_a_name_replaces_the_first_as_torchs():
    """torch 2.13's ``custom_op`` of a name that a ``custom_op`` defined already is no error:
    the first one's library is destroyed with its op, kernels, fake and backward, and the op
    is defined again (a notebook cell run twice). The new kernel runs for the new definition,
    the old one and ``lib.ops``; the old fake and backward are gone, and a new schema is
    taken. A name that ``define`` gave an op is still refused."""
    def program(lib: Any, ns: str) -> list[Any]:
        Tensor = lib.Tensor

        def first(x, k=1.0):
            return x * k

        def second(x, k=1.0):
            return x * k + 10

        def third(x, n):
            return x * n

        first.__annotations__ = second.__annotations__ = {"x": Tensor, "k": float,
                                                          "return": Tensor}
        third.__annotations__ = {"x": Tensor, "n": int, "return": Tensor}
        name = f"{ns}::twice"
        old = lib.library.custom_op(name, first, mutates_args=())
        old.register_fake(lambda x, k=1.0: lib.empty_like(x))
        old.register_autograd(lambda ctx, grad: (grad, None))
        x = _tensor(lib, [1.0, 2.0])
        meta = lib.empty(2, 3, device="meta")
        found: list[Any] = [old(x, 2.0).tolist(), tuple(old(meta).shape)]
        new = outcome(lambda: lib.library.custom_op(name, second, mutates_args=()))
        found.append(new[0])
        new = new[1]
        space = getattr(lib.ops, ns)
        grad = x.clone().requires_grad_()
        found += [repr(new).replace(ns, "NS"), new(x).tolist(), old(x).tolist(),
                  space.twice(x).tolist(), space.twice.default(x, 3.0).tolist(),
                  outcome(lambda: new(meta)),
                  outcome(lambda: space.twice(grad).sum().backward()), grad.grad]
        third_op = lib.library.custom_op(name, third, mutates_args=())
        found += [str(space.twice.default._schema).replace(ns, "NS"),
                  third_op(x, 4).tolist(), space.twice(x, 5).tolist()]
        lib.library.define(f"{ns}::plain", "(Tensor x) -> Tensor")
        found.append(outcome(lambda: lib.library.custom_op(f"{ns}::plain", first,
                                                           mutates_args=())))
        return [normalized(f).replace(ns, "NS") if isinstance(f, str) else
                (f[0], normalized(f[1]).replace(ns, "NS")) if isinstance(f, tuple) and
                len(f) == 2 and isinstance(f[1], str) else f for f in found]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours

def test_custom_op_with_keyword_only_arguments_and_mutation():
    def program(lib: Any, ns: str) -> list[Any]:
        Tensor = lib.Tensor

        def scale(x, *, k: float = 2.0):
            return x * k

        scale.__annotations__ = {"x": Tensor, "k": float, "return": Tensor}
        op = lib.library.custom_op(f"{ns}::scale", scale, mutates_args=())
        seen = []

        def setup_context(ctx, inputs, keyword_only_inputs, output):
            seen.append((len(inputs), sorted(keyword_only_inputs.items())))
            ctx.k = keyword_only_inputs["k"]

        op.register_autograd(lambda ctx, g: g * ctx.k, setup_context=setup_context)
        x = _tensor(lib, [1.0, 2.0]).requires_grad_()
        op(x, k=3.0).sum().backward()

        def write(x, y) -> None:
            y.copy_(x)

        write.__annotations__ = {"x": Tensor, "y": Tensor, "return": None}
        writer = lib.library.custom_op(f"{ns}::write", write, mutates_args=("y",))
        y = lib.zeros(2)
        out = writer(lib.ones(2), y)
        versions = [y._version]  # the kernel's copy_, and the op's own bump

        def write_numpy(x, y) -> None:
            y[:] = lib.tensor(_numpy(x) * 2)

        write_numpy.__annotations__ = {"x": Tensor, "y": Tensor, "return": None}
        lib.library.custom_op(f"{ns}::write_numpy", write_numpy, mutates_args=("y",))(
            lib.ones(2), y)
        versions.append(y._version)
        defining = lib.library.Library(ns, "FRAGMENT")  # a plain op: no bump of its own
        defining.define("plain_write(Tensor x, Tensor(a!) y) -> ()")
        defining.impl("plain_write", lambda x, y: None, "CPU")
        getattr(lib.ops, ns).plain_write(lib.ones(2), y)
        versions.append(y._version)
        found = [seen, x.grad.tolist(), str(writer._opoverload._schema).replace(ns, "NS"),
                 out, y.tolist(), versions,
                 outcome(lambda: writer.register_autograd(lambda ctx, g: g))]
        meta = writer(lib.ones(2, device="meta"), lib.zeros(2, device="meta"))
        found.append(meta)  # nothing to make: torch's trivial fake kernel
        bad = lib.library.Library(ns, "FRAGMENT")
        found.append(outcome(lambda: lib.library.custom_op(
            f"{ns}::kw", lambda x: x, mutates_args=(), schema="(*, Tensor x) -> Tensor")))
        found.append(outcome(lambda: lib.library.custom_op(
            f"{ns}::sch", lambda x, y: None, mutates_args=(),
            schema="(Tensor x, Tensor(a!) y) -> ()")))
        del bad
        return [normalized(f).replace(ns, "NS") if isinstance(f, str) else f for f in found]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


# ---------------------------------------------------------------- modes and tracing
def _events(lib: Any, fn: Callable[[], Any]) -> list[str]:
    events: list[str] = []

    class Log(_mode(lib)):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            events.append(f"{func} {type(func).__name__} {sorted((kwargs or {}).keys())}")
            return func(*args, **(kwargs or {}))

    with Log():
        fn()
    return events


def test_a_dispatch_mode_sees_a_custom_op_as_torchs():
    def program(lib: Any, ns: str) -> list[Any]:
        op = _custom_sin(lib, ns)
        op.register_autograd(lambda ctx, g: (g * ctx.x.cos(), None),
                             setup_context=lambda ctx, inputs, output: setattr(
                                 ctx, "x", inputs[0]))
        defining = lib.library.Library(ns, "FRAGMENT")
        defining.define("plain.two(Tensor x, *, float k=1.0) -> Tensor")
        defining.impl("plain.two", lambda x, k=1.0: x * k, "CPU")
        x = _tensor(lib, [0.5, 1.0]).requires_grad_()
        forward = _events(lib, lambda: getattr(lib.ops, ns).plain.two(x.detach(), k=2.0))
        y = op(x)
        forward += _events(lib, lambda: op(x.detach()))
        backward = _events(lib, lambda: y.sum().backward())
        # (``AccumulateGrad``'s detach: test_ch09_dispatch.py's ``accumulate_grad_ops``)
        backward = [e for e in backward if not e.startswith("aten.detach.default")]
        return [e.replace(ns, "NS") for e in forward + ["--"] + backward]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours
    assert "NS.plain.two OpOverload ['k']" in ours and "NS.numpy_sin.default OpOverload []" in ours


def test_the_logging_mode_logs_a_custom_op_as_torchs():
    def program(lib: Any, ns: str) -> list[str]:
        op = _custom_sin(lib, ns)
        capture = torch_capture_logs if lib is torch else reftensor_capture_logs
        x = _tensor(lib, [[0.5, 1.0], [2.0, 3.0]])
        with capture() as logs:
            op(op(x).t(), k=2.0)
        return [normalized(line).replace(ns, "NS") for line in logs]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours and any("NS.numpy_sin.default" in line for line in ours)


def test_make_fx_prints_a_custom_op_as_torchs():
    def program(lib: Any, ns: str) -> list[str]:
        op = _custom_sin(lib, ns)
        defining = lib.library.Library(ns, "FRAGMENT")
        defining.define("pair(Tensor x) -> (Tensor, Tensor)")
        defining.impl("pair", lambda x: (x + 1, x * 2), "CompositeExplicitAutograd")
        pair = getattr(lib.ops, ns).pair
        make_fx = torch_make_fx if lib is torch else reftensor_make_fx
        texts = []
        for fn in (lambda a: op(a) + 1, lambda a: op(a, k=2.0) * a,
                   lambda a: pair(a)[0] - pair.default(a)[1]):
            gm = make_fx(fn)(_tensor(lib, [1.0, 2.0, 3.0]))
            texts += [gm.code, str(gm.graph),
                      np.round(gm(_tensor(lib, [0.5, 0.25, 4.0])).tolist(), 6).tolist()]
        return [normalized(str(t)).replace(ns, "NS") for t in texts]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


# ---------------------------------------------------------------- infer_schema
#: annotation kinds: a name, the annotation on each library, the schema type torch infers
def _kinds(lib: Any) -> list[tuple[str, Any]]:
    T = lib.Tensor
    return [("Tensor", T), ("Optional[Tensor]", Optional[T]), ("list[Tensor]", list[T]),  # noqa: UP045
            ("Sequence[Tensor]", Sequence[T]), ("typing.List[Tensor]", typing.List[T]),  # noqa: UP006
            ("list[Optional[Tensor]]", list[Optional[T]]), ("int", int),  # noqa: UP045
            ("Optional[int]", Optional[int]), ("list[int]", list[int]),  # noqa: UP045
            ("Optional[list[int]]", Optional[list[int]]), ("float", float),  # noqa: UP045
            ("list[float]", list[float]), ("Optional[float]", Optional[float]),  # noqa: UP045
            ("bool", bool), ("list[bool]", list[bool]), ("str", str),
            ("Optional[str]", Optional[str]), ("int | None", int | None),  # noqa: UP045
            ("dtype", lib.dtype), ("device", lib.device),
            ("Number", typing.Union[int, float, bool])]  # noqa: UP007


_DEFAULTS = {"int": [None, 3, -1], "Optional[int]": [None, 2], "float": [1.5, 0.0, 2.0],
             "Optional[float]": [None, 1e-5], "bool": [True, False], "str": ["a", "mean"],
             "Optional[str]": [None, "x"], "Optional[Tensor]": [None],
             "dtype": ["float32"], "device": ["cpu"]}


def _function(lib: Any, params: list[tuple[str, str, bool, Any]], returns: Any) -> Any:
    """A function with these parameters ``(name, kind, keyword-only, default or _NONE)``."""
    kinds = dict(_kinds(lib))
    text, star = [], False
    for name, _, keyword, default in params:
        if keyword and not star:
            text.append("*")
            star = True
        text.append(name if default is _NONE else f"{name}=_d_{name}")
    scope: dict[str, Any] = {}
    for name, kind, _, default in params:
        if default is not _NONE:
            scope[f"_d_{name}"] = (getattr(lib, default) if kind == "dtype" else
                                   lib.device(default) if kind == "device" else default)
    exec(f"def f({', '.join(text)}): pass", scope)  # noqa: S102
    f = scope["f"]
    f.__annotations__ = {name: kinds[kind] for name, kind, _, _ in params}
    f.__annotations__["return"] = returns(lib)
    return f


_NONE = object()
_RETURNS: list[Callable[[Any], Any]] = [
    lambda lib: lib.Tensor, lambda lib: None, lambda lib: list[lib.Tensor],
    lambda lib: tuple[lib.Tensor, lib.Tensor], lambda lib: int, lambda lib: float,
    lambda lib: bool, lambda lib: tuple[lib.Tensor, int]]


@st.composite
def signatures(draw: Any) -> tuple[list[tuple[str, str, bool, Any]], int, Any]:
    names = [k for k, _ in _kinds(torch)]
    n = draw(st.integers(0, 5))
    params, defaulted, keyword = [], False, False
    for i in range(n):
        kind = draw(st.sampled_from(names))
        keyword = keyword or draw(st.booleans())
        choices = _DEFAULTS.get(kind, [])
        default = _NONE
        if choices and (defaulted or draw(st.booleans())):
            default = draw(st.sampled_from(choices))
            defaulted = True
        if defaulted and default is _NONE and not keyword:
            keyword = True  # (a parameter without default after one with needs ``*``)
        params.append((f"p{i}", kind, keyword, default))
    mutated = [p[0] for p in params if p[1] in ("Tensor", "list[Tensor]", "Optional[Tensor]")]
    mutates = draw(st.sampled_from([(), tuple(mutated[:1]), "unknown"]))
    return params, draw(st.integers(0, len(_RETURNS) - 1)), mutates


@settings(max_examples=examples(60), deadline=None)
@given(signatures())
def test_infer_schema_on_generated_signatures(drawn):
    params, returns, mutates = drawn
    found = []
    for lib in LIBS:
        f = _function(lib, params, _RETURNS[returns])
        found.append([outcome(lambda f=f, lib=lib: lib.library.infer_schema(
            f, mutates_args=mutates)),
            outcome(lambda f=f, lib=lib: lib.library.infer_schema(
                f, mutates_args=mutates, op_name="named"))])
    ours_torch, ours = found
    if ours_torch[0][0] == "ValueError":  # the valid types' list names each library's own
        assert ours[0][0] == "ValueError"
        assert ours[0][1].split(" The valid types")[0] == ours_torch[0][1].split(
            " The valid types")[0]
    else:
        assert ours == ours_torch


def test_infer_schema_refuses_what_torch_refuses():
    def program(lib: Any, ns: str) -> list[Any]:
        T = lib.Tensor
        cases = []

        def missing(x, k):
            return x

        missing.__annotations__ = {"x": T, "return": T}
        cases.append((missing, ()))

        def varargs(x, *args):
            return x

        varargs.__annotations__ = {"x": T, "return": T}
        cases.append((varargs, ()))

        def positional(x, /, k):
            return x

        positional.__annotations__ = {"x": T, "k": int, "return": T}
        cases.append((positional, ()))

        def no_return(x):
            return x

        no_return.__annotations__ = {"x": T}
        cases += [(no_return, ())]

        def two(x, k):
            return x

        two.__annotations__ = {"x": T, "k": int, "return": T}
        cases += [(two, ("z",)), (two, ("k",)), (two, "everything")]

        def list_default(x, k=[1]):  # noqa: B006
            return x

        list_default.__annotations__ = {"x": T, "k": list[int], "return": T}
        cases.append((list_default, ()))
        found = [outcome(lambda f=f, m=m: lib.library.infer_schema(f, mutates_args=m))
                 for f, m in cases]

        def bad_type(x, k):
            return x

        bad_type.__annotations__ = {"x": T, "k": dict, "return": T}
        kind, message = outcome(lambda: lib.library.infer_schema(bad_type, mutates_args=()))
        found.append((kind, message.split("The valid types")[0]))
        bad_type.__annotations__ = {"x": T, "k": tuple[int, int], "return": T}
        kind, message = outcome(lambda: lib.library.infer_schema(bad_type, mutates_args=()))
        found.append((kind, message.split("The valid types")[0]))
        bad_type.__annotations__ = {"x": T, "k": int, "return": dict}
        kind, message = outcome(lambda: lib.library.infer_schema(bad_type, mutates_args=()))
        found.append((kind, message.split("The valid types")[0]))
        found.append(outcome(lambda: lib.library.custom_op(f"{ns}::m", missing,
                                                           mutates_args=())))
        found.append(outcome(lambda: lib.library.custom_op("nonamespace", two,
                                                           mutates_args=())))
        return found

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def test_a_reftensor_op_is_called_with_its_schemas_arguments():
    """An op called with arguments its schema refuses raises torch's RuntimeError, with its
    message (as reftensor's aten ops do)."""
    ns = _fresh()
    _custom_sin(reftensor, ns)
    _custom_sin(torch, ns)
    calls = (lambda op, x: op(x, 2.0, 3), lambda op, x: op(), lambda op, x: op(x, q=1.0),
             lambda op, x: op(x, 2.0, k=1.0))  # too many, missing, unknown, given twice
    for call in calls:
        theirs = outcome(lambda call=call: call(getattr(torch.ops, ns).numpy_sin.default,
                                                torch.ones(1)))
        ours = outcome(lambda call=call: call(getattr(reftensor.ops, ns).numpy_sin.default,
                                              reftensor.ones(1)))
        assert ours[0] == theirs[0] == "RuntimeError" and ours == theirs


def test_custom_op_returning_a_list_of_tensors_as_torchs():
    """A ``list[Tensor]`` result: each tensor recorded, the backward given their gradients as
    one list (zeros for a tensor backward did not reach), as torch's ``supports_tensorlist``."""
    def program(lib: Any, ns: str) -> list[Any]:
        T = lib.Tensor

        def split2(x, k=1.0):
            return [x * k, x + k]

        split2.__annotations__ = {"x": T, "k": float, "return": list[T]}
        op = lib.library.custom_op(f"{ns}::split2", split2, mutates_args=())
        x = _tensor(lib, [1.0, 2.0]).requires_grad_()
        out = op(x, 2.0)
        found: list[Any] = [type(out).__name__, [o.requires_grad for o in out],
                            outcome(lambda: (out[0] * out[1]).sum().backward())[0]]
        seen: list[Any] = []

        def backward(ctx, grads):
            seen.append((type(grads).__name__, [g.tolist() for g in grads]))
            return grads[0] * ctx.k + grads[1], None

        op.register_autograd(backward, setup_context=lambda ctx, inputs, output: setattr(
            ctx, "k", inputs[1]))
        (op(x, 2.0)[0] * 3).sum().backward()
        out = op(x, 3.0)
        (out[0] * out[1]).sum().backward()
        return [*found, seen, x.grad.tolist()]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours


def test_an_impl_library_replaces_a_kernel_of_the_op_table_while_it_lives():
    def program(lib: Any, ns: str) -> list[Any]:
        t = _tensor(lib, [1.0, -2.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch warns that it overrides, once)
            override = lib.library.Library("aten", "IMPL")
            override.impl("neg", lambda x: x * 0 + 42, "CPU")
            override.impl("mul.Tensor", lambda a, b: lib.ops.aten.add.Tensor(a, b), "CPU")
        found: list[Any] = [lib.neg(t).tolist(), (-t).tolist(),
                            lib.ops.aten.neg.default(t).tolist(), (t * t).tolist(),
                            outcome(lambda o=override: o.impl("clip", lambda x: x, "Meta"))]
        del override
        gc.collect()
        return [*found, lib.neg(t).tolist(), (t * t).tolist()]

    ours_torch, ours = side_by_side(program)
    assert ours_torch == ours
