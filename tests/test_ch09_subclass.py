"""Chapter 9: ``__torch_dispatch__`` on Tensor subclasses, on torch and on reftensor (issue 44).

The same subclasses are defined for both libraries (``_classes``): a wrapper subclass
(``Tensor._make_wrapper_subclass``) that records each call, unwraps its instances, runs the op
and wraps the tensors it returns; a ``Tensor._make_subclass`` one that runs each op under
``no_dispatch()``; classes whose handlers return ``NotImplemented``. Every test runs a program
on both and compares what the handlers saw (the ``OpOverload``, ``types``, the arguments),
what came back (types, sizes, strides, dtypes, values), the errors (class and message, with
``torch.`` read as ``reftensor.``), and torch's ``LoggingTensor`` log line for line. What each
library's dispatcher decides for such a tensor (the ``Python`` key) is
``test_ch09_dispatch.py``'s and ``test_ch09_exercises.py``'s.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
import torch
import torch.testing._internal.logging_tensor as torch_logging
import torch.utils._mode_utils as torch_mode_utils

import reftensor
import reftensor.testing._internal.logging_tensor as ref_logging
import reftensor.utils._mode_utils as ref_mode_utils

pytestmark = pytest.mark.ch09

LIBS = (torch, reftensor)


def _lib_text(text: str) -> str:
    """torch's text as reftensor writes it; an object's address left out."""
    return re.sub(r" at 0x[0-9a-f]+", "", text.replace("torch.", "reftensor."))


def _mode_utils(lib: Any) -> Any:
    return torch_mode_utils if lib is torch else ref_mode_utils


def _no_torch_function(cls: type, lib: Any) -> None:
    """torch's subclasses here disable ``__torch_function__`` (whose default would turn a
    plain result into the subclass); reftensor's where it has one."""
    disabled = getattr(getattr(lib, "_C", None), "_disabled_torch_function_impl", None)
    if disabled is not None:
        cls.__torch_function__ = disabled


def _classes(lib: Any) -> dict[str, type]:
    """The subclasses of ``lib.Tensor`` the tests use (the same code for both libraries)."""
    Tensor = lib.Tensor
    seen: list[tuple] = []

    def describe(value: Any) -> Any:
        if isinstance(value, Tensor):
            return (type(value).__name__, tuple(value.shape), str(value.dtype).split(".")[-1])
        if isinstance(value, list | tuple):
            return [describe(v) for v in value]
        return _lib_text(repr(value))

    class Wrapped(Tensor):
        """A wrapper subclass that records, unwraps, runs and wraps."""

        @staticmethod
        def __new__(cls, elem: Any, requires_grad: bool = False) -> Any:
            r = Tensor._make_wrapper_subclass(
                cls, elem.size(), strides=elem.stride(), storage_offset=elem.storage_offset(),
                dtype=elem.dtype, device=elem.device, requires_grad=requires_grad)
            r.elem = elem.detach() if requires_grad else elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            seen.append((str(func), [t.__name__ for t in types], describe(list(args)),
                         {k: describe(v) for k, v in kwargs.items()}))

            def unwrap(e: Any) -> Any:
                if isinstance(e, list | tuple):
                    return type(e)(unwrap(v) for v in e)
                return e.elem if isinstance(e, cls) else e

            out = func(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})
            if isinstance(out, list | tuple):  # (reftensor's kernels give named tuples)
                items = [cls(o) if isinstance(o, Tensor) else o for o in out]
                return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
            return cls(out) if isinstance(out, Tensor) else out

    class Aliased(Tensor):
        """A ``_make_subclass`` one: every op runs under ``no_dispatch()``."""

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append((str(func), [t.__name__ for t in types], describe(list(args)), {}))
            with _mode_utils(lib).no_dispatch():
                return func(*args, **(kwargs or {}))

    class Refusing(Tensor):
        @staticmethod
        def __new__(cls, *size: int) -> Any:
            return Tensor._make_wrapper_subclass(cls, size)

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append((cls.__name__, str(func), [t.__name__ for t in types]))
            return NotImplemented

    class RefusingToo(Refusing):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append((cls.__name__, str(func), [t.__name__ for t in types]))
            return NotImplemented

    class Inheriting(Refusing):
        pass

    class Plain(Tensor):  # no __torch_dispatch__
        pass

    class Mode(lib.utils._python_dispatch.TorchDispatchMode):
        def __init__(self, refuse: bool = False) -> None:
            super().__init__()
            self.refuse = refuse

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(("mode", str(func), [t.__name__ for t in types]))
            if self.refuse:
                return NotImplemented
            return func(*args, **(kwargs or {}))

    found = {c.__name__: c for c in (Wrapped, Aliased, Refusing, RefusingToo, Inheriting, Plain)}
    for c in found.values():
        _no_torch_function(c, lib)
    found["Mode"] = Mode
    found["seen"] = seen  # type: ignore[assignment]
    return found


def _result(value: Any) -> Any:
    """A result as both libraries can show it: type name, sizes, strides, offset, dtype,
    requires_grad, and the values (a wrapper's ``elem``'s)."""
    if isinstance(value, list | tuple):
        return [_result(v) for v in value]
    if isinstance(value, torch.Tensor | reftensor.Tensor):
        inner = getattr(value, "elem", value)
        with _mode_utils(torch if isinstance(value, torch.Tensor) else reftensor).no_dispatch():
            values = (inner.tolist() if type(inner) in (torch.Tensor, reftensor.Tensor)
                      and not inner.is_meta else None)
        return (type(value).__name__, tuple(value.shape), value.stride(),
                value.storage_offset(), str(value.dtype).split(".")[-1], value.requires_grad,
                values)
    return _lib_text(repr(value))


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", _result(fn()))
    except Exception as err:  # noqa: BLE001 - the error is compared
        return (type(err).__name__, _lib_text(str(err)))


def _both(program: Any) -> tuple[Any, Any]:
    """``program(lib, classes)`` on each library: what it returns and what the handlers saw."""
    got = []
    for lib in LIBS:
        classes = _classes(lib)
        out = program(lib, classes)
        got.append((out, classes["seen"]))
    return got[0], got[1]


# ---------------------------------------------------------------- a wrapper subclass
WRAPPER_PROGRAMS = {
    "add a number": lambda lib, w: w + 1,
    "mul two": lambda lib, w: w * w,
    "a plain tensor on the left": lambda lib, w: lib.ones(3) - w,
    "t": lambda lib, w: w.t(),
    "view": lambda lib, w: w.view(3, 2),
    "sum(1) with keepdim": lambda lib, w: w.sum(1, keepdim=True),
    "cat with a plain one": lambda lib, w: lib.cat([w, lib.zeros(1, 3)]),
    "split (a list back)": lambda lib, w: w.split(1),
    "max(1) (two results)": lambda lib, w: tuple(w.max(1)),
    "add_ (in place)": lambda lib, w: w.add_(w, alpha=2),
    "to(float64)": lambda lib, w: w.to(lib.float64),
    "item of one element": lambda lib, w: w.sum().item(),
    "where with a bool tensor": lambda lib, w: lib.where(w > 2, w, lib.zeros(())),
    "matmul with a plain one": lambda lib, w: w @ lib.ones(3, 2),
}


@pytest.mark.parametrize("name", list(WRAPPER_PROGRAMS))
def test_a_wrapper_subclass_sees_torchs_calls_and_returns_torchs_results(name):
    """What the handler receives (the op, ``types``, the arguments' types, sizes and dtypes,
    the numbers) and what the call gives (types, layout, values) are torch's."""
    def program(lib, classes):
        w = classes["Wrapped"](lib.arange(6.0).reshape(2, 3))
        return _outcome(lambda: WRAPPER_PROGRAMS[name](lib, w))

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen


def test_a_wrapper_subclass_on_a_view_and_on_the_meta_device():
    """A wrapper of a non-contiguous view (strides and offset kept) and one of a meta tensor:
    the handler sees the calls and the results carry the views' layouts."""
    def program(lib, classes):
        W = classes["Wrapped"]
        base = lib.arange(24.0).reshape(2, 3, 4)
        w = W(base.transpose(0, 2)[1:])
        m = W(lib.zeros(2, 3, device="meta"))
        return [_result(w), _outcome(lambda: w * 2), _outcome(lambda: w.permute(2, 0, 1)),
                _outcome(lambda: w.contiguous()), _result(m), str(m.device), m.is_meta,
                _outcome(lambda: (m + 1).shape)]

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen


def test_a_wrapper_subclass_has_torchs_views_and_versions():
    """torch's ``ADInplaceOrView`` kernel runs above ``Python``: a view op's result is a view
    of the wrapper (``_base``, ``_is_view()``, the shared version counter; ``detach`` shares
    the counter but is no view), and an in-place op bumps the wrapper's version."""
    def program(lib, classes):
        w = classes["Wrapped"](lib.arange(6.0).reshape(2, 3))
        v, d, (a, b) = w.t(), w.detach(), w.split(1)
        vv = v[1:]
        shape = [v._base is w, vv._base is w, d._base is w, a._base is w, b._base is w,
                 v._is_view(), d._is_view(), w._is_view()]
        w.add_(1)
        v.mul_(2)
        o = lib.ones(2, 3)
        o.copy_(w)  # a plain tensor written: its own version, not the wrapper's
        return [shape, [t._version for t in (w, v, vv, d, a, b, o)]]

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen


# ---------------------------------------------------------------- _make_subclass
def test_a_make_subclass_instance_shares_the_data_and_runs_under_no_dispatch():
    """``Tensor._make_subclass(cls, data)``: the data's bytes and version counter shared, a
    leaf; its ops reach ``__torch_dispatch__``, which runs them under ``no_dispatch()`` (plain
    results); a class without ``__torch_dispatch__`` gets no ``Python`` key."""
    def program(lib, classes):
        x = lib.arange(4.0)
        s = lib.Tensor._make_subclass(classes["Aliased"], x)
        p = lib.Tensor._make_subclass(classes["Plain"], x, True)
        shared = s.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        x.add_(1)
        out = [type(s).__name__, shared, s._version, s.requires_grad, s.is_leaf,
               _outcome(lambda: s + 1), _outcome(lambda: s.view(2, 2)),
               _outcome(lambda: s.sum().item()), _outcome(lambda: s.tolist()),
               _outcome(lambda: s.numpy()), type(p).__name__, p.requires_grad, p.tolist(),
               _outcome(lambda: p * 2)]
        y = lib.ones(2, requires_grad=True) * 2
        out.append(_outcome(lambda: lib.Tensor._make_subclass(classes["Aliased"], y)))
        out.append(lib.Tensor._make_subclass(classes["Aliased"], y).requires_grad)
        return out

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen


def test_make_subclass_detaches_out_of_a_modes_sight():
    """torch's ``_make_subclass`` sets the mode stack aside (``StashTorchDispatchStackGuard``)
    for its ``data.detach()``: an active mode sees the calls before and after, not it."""
    def program(lib, classes):
        seen = []

        class Recording(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        with Recording():
            x = lib.ones(2)
            s = lib.Tensor._make_subclass(classes["Plain"], x, True)
            p = lib.Tensor._make_subclass(classes["Aliased"], x)
            s * 2
        return [seen, type(s).__name__, type(p).__name__, s.requires_grad]

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs


@pytest.mark.parametrize("call", [
    lambda lib, c: lib.Tensor._make_subclass(c["Aliased"], 3),
    lambda lib, c: lib.Tensor._make_subclass(int, lib.ones(2)),
    lambda lib, c: lib.Tensor._make_subclass(c["Aliased"], lib.ones(2, dtype=lib.int64), True),
    lambda lib, c: lib.Tensor._make_subclass(c["Aliased"], lib.ones(2), foo=True),
], ids=["data not a tensor", "not a Tensor class", "an int tensor requiring grad",
        "an unknown keyword"])
def test_make_subclass_refuses_as_torch(call):
    (theirs, _), (ours, _) = _both(lambda lib, c: _outcome(lambda: call(lib, c)))
    assert ours == theirs
    assert theirs[0] != "ok"


# ---------------------------------------------------------------- modes, NotImplemented, types
def test_a_mode_sees_a_subclass_call_first_and_lists_the_subclasses_in_types():
    """Under a mode, the mode first, with ``types`` the subclasses among the arguments (a
    subclass before its base, then left to right); a mode that returns ``NotImplemented``
    passes the call to the subclasses, and what they run reaches the mode again."""
    def program(lib, classes):
        W, Mode = classes["Wrapped"], classes["Mode"]
        w = W(lib.ones(2))
        with Mode():
            first = _outcome(lambda: w + lib.ones(2))
        with Mode(refuse=True):
            second = _outcome(lambda: lib.cat([lib.ones(2), w, w]))
            plain = _outcome(lambda: lib.ones(2) * 2)
        return [first, second, plain]

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen


@pytest.mark.parametrize("names", [
    ("Refusing",), ("Refusing", "RefusingToo"), ("RefusingToo", "Refusing"),
    ("Refusing", "Inheriting", "RefusingToo"), ("Refusing", "Refusing"),
], ids=lambda names: "-".join(names))
def test_not_implemented_passes_to_the_next_class_then_torchs_type_error(names):
    """Each overloaded argument's class in torch's order (a subclass before its base, else
    left to right, each class once), each returning ``NotImplemented``, then torch's
    TypeError listing them; under a mode that refuses too, the mode is listed first. An
    operator (``a + b``) gives Python's TypeError instead, as torch's binding returns
    ``NotImplemented`` to Python."""
    def program(lib, classes):
        tensors = [classes[n](2) for n in names]
        out = [_outcome(lambda: lib.cat(tensors))]
        if len(tensors) > 1:
            out.append(_outcome(lambda: lib.add(tensors[0], tensors[1])))
            out.append(_outcome(lambda: tensors[0] + tensors[1]))
        with classes["Mode"](refuse=True):
            out.append(_outcome(lambda: lib.neg(tensors[-1])))
        return out

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs
    assert our_seen == their_seen
    assert theirs[0][0] == "TypeError"


def test_a_mode_alone_that_returns_not_implemented_raises_torchs_type_error():
    def program(lib, classes):
        with classes["Mode"](refuse=True):
            return _outcome(lambda: lib.ones(2) + 1)

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs and theirs[0] == "TypeError"


# ---------------------------------------------------------------- autograd
def test_backward_through_a_wrapper_subclass_as_torch():
    """A wrapper that requires grad is recorded by autograd above its class: the handler sees
    the forward's ops, then backward's (``ones_like``, ``expand``, the formulas' ops, and
    ``AccumulateGrad``'s ``detach``), and the gradient is an instance of the class."""
    def program(lib, classes):
        W = classes["Wrapped"]
        w = W(lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), requires_grad=True)
        y = ((w * w).exp().sum(0) / 3 + w.mean()).relu().sum()
        graph = [type(y).__name__, type(y.grad_fn).__name__, y.requires_grad, w.is_leaf]
        y.backward()
        return [graph, _result(w.grad), _result(y)]

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    name, shape, stride, offset, dtype, grad, _ = ours[1]
    assert (name, shape, stride, offset, dtype, grad) == theirs[1][:6]
    assert reftensor.tensor(ours[1][6]).allclose(reftensor.tensor(theirs[1][6]))
    assert [s[:2] for s in our_seen] == [s[:2] for s in their_seen]


def test_an_in_place_op_on_a_view_of_a_wrapper_that_requires_grad():
    """An in-place op on a view of a non-leaf wrapper: its base's ``grad_fn`` becomes
    ``CopySlices`` and backward gives torch's gradient. (Two differences, not compared here:
    reftensor keeps the old value with a ``clone`` its class sees, where torch's ``mul_`` by a
    number needs none; and the view's own ``grad_fn`` is regenerated as ``AsStridedBackward0``,
    as for a plain tensor, where torch replays the view for a subclass.)"""
    def program(lib, classes):
        r = classes["Wrapped"](lib.tensor([1.0, 2.0, 3.0]), requires_grad=True)
        q = r * 1
        qv = q[1:]
        qv.mul_(3)
        names = [type(q.grad_fn).__name__, q._version, qv._version]
        (q * q).sum().backward()
        return [names, _result(r.grad)]

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs


# ---------------------------------------------------------------- LoggingTensor
def _logging_program(lib: Any, logging: Any, is_mode: bool) -> Any:
    LoggingTensor = logging.LoggingTensor
    with logging.capture_logs(is_mode) as logs:
        t = LoggingTensor(lib.arange(6.0).reshape(2, 3) / 4, requires_grad=True)
        logging.log_input("t", t)
        u = (t * 2 + lib.ones(3)).sum()
        v = (t.t().exp() * t.t()).mean(0)
        u.backward()
        v.sum().backward(retain_graph=True)
        p = LoggingTensor(lib.tensor([[1, 2], [3, 4]]))
        a, b = p.split(1)
        m = p.max(1)
        q = (p.to(lib.float64) @ p.t().to(lib.float64)).reshape(-1).clamp(min=5)
        shown = [repr(t), repr(t.grad), type(t.grad).__name__, repr(a), repr(q),
                 [repr(x) for x in m]]
    return [list(logs), *shown]


@pytest.mark.parametrize("is_mode", [False, True])
def test_logging_tensor_logs_torchs_lines(is_mode):
    """``capture_logs()`` and ``LoggingTensor`` (forward, backward with ``AccumulateGrad``'s
    ``detach``, a plain tensor written as its ``repr`` unless ``is_mode``, a list and a
    tuple returned, ``log_input``): the same lines, line for line, and the same reprs."""
    # pytest's logging plugin hands its capturing handlers to loggers that do not propagate
    # (torch's "LoggingTensor" logger, after its first capture), and they cannot format
    # torch's records: the logger keeps only torch's own handler here (as test_ch09_dispatch)
    logger = logging.getLogger("LoggingTensor")
    kept, propagate = logger.handlers[:], logger.propagate
    logger.handlers = []
    try:
        theirs = _logging_program(torch, torch_logging, is_mode)
    finally:
        logger.handlers, logger.propagate = kept, propagate
    ours = _logging_program(reftensor, ref_logging, is_mode)
    assert ours[0] == [_lib_text(line) for line in theirs[0]]
    assert ours[1:] == [_lib_text(x) if isinstance(x, str) else x for x in theirs[1:]]


# ---------------------------------------------------------------- _make_wrapper_subclass
LAYOUTS = [
    dict(size=(2, 3)),
    dict(size=()),
    dict(size=(0, 3)),
    dict(size=(0,), strides=(1,), storage_offset=4),
    dict(size=(2, 3), strides=(1, 2), storage_offset=2),
    dict(size=(3, 2), strides=(0, 5), storage_offset=1, dtype="int16"),
    dict(size=[4, 1, 2], strides=[2, 7, 1], storage_offset=0, dtype="float64"),
    dict(size=(2, 3), dtype="bool", device="meta"),
    dict(size=(5,), device="cpu:0", requires_grad=True),
    dict(size=(5,), device="cuda:1", dtype="float16"),
    dict(size=(2, 2), storage_size=100),
    dict(size=(2, 3, 4, 5), memory_format="channels_last", pin_memory=True),
]


def _wrapper_kwargs(lib: Any, spec: dict[str, Any]) -> dict[str, Any]:
    kwargs = dict(spec)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    if "memory_format" in kwargs:
        kwargs["memory_format"] = getattr(lib, kwargs["memory_format"])
    return kwargs


@pytest.mark.parametrize("spec", LAYOUTS, ids=lambda s: repr(s))
def test_a_wrapper_has_torchs_metadata_and_no_data(spec):
    """Sizes, strides, offset, dtype, device, ``requires_grad``, a storage of the bytes the
    layout reaches (``storage_size`` when given) at address 0; reading the data raises
    torch's error (``tolist``, ``numpy``, the storage's bytes), and ``item`` of a single
    element dispatches (here to a class that refuses)."""
    def program(lib, classes):
        kwargs = _wrapper_kwargs(lib, spec)
        size = kwargs.pop("size")
        w = lib.Tensor._make_wrapper_subclass(classes["Refusing"], size, **kwargs)
        storage = w.untyped_storage()
        return [type(w).__name__, tuple(w.shape), w.stride(), w.storage_offset(),
                str(w.dtype).split(".")[-1], str(w.device), w.is_meta, w.requires_grad,
                w.is_leaf, w.grad_fn, w.numel(), w.dim(), w.is_contiguous(), w._version,
                storage.nbytes(), w.data_ptr(), _outcome(lambda: w.tolist()),
                _outcome(lambda: w.numpy()), _outcome(lambda: w.item()),
                # the bytes (torch's error; on another device, or with none, torch's own
                # internals answer first)
                _outcome(lambda: storage[0]) if "device" not in spec and storage.nbytes()
                else None]

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs


@pytest.mark.parametrize("spec", [
    dict(size=(2,), storage_offset=1),
    dict(size=(2, 3), strides=(1,)),
    dict(size=(-1,)),
    dict(size=[2.0]),
    dict(size=2),
    dict(size=(2,), strides="float64"),
    dict(size=(2,), dtype="int64", requires_grad=True),
    dict(size=(2,), device="gpu"),
    dict(size=(2,), foo=1),
], ids=lambda s: repr(s))
def test_make_wrapper_subclass_refuses_as_torch(spec):
    def program(lib, classes):
        kwargs = dict(spec)
        for key in ("dtype", "strides"):
            if kwargs.get(key) in ("int64", "float64"):
                kwargs[key] = getattr(lib, kwargs[key])
        size = kwargs.pop("size")
        return _outcome(lambda: lib.Tensor._make_wrapper_subclass(classes["Refusing"], size,
                                                                   **kwargs))

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs
    assert theirs[0] != "ok"


@pytest.mark.parametrize("cls", ["Plain", "Tensor", "int"])
def test_make_wrapper_subclass_needs_a_class_with_torch_dispatch(cls):
    def program(lib, classes):
        chosen = {"Tensor": lib.Tensor, "int": int}.get(cls) or classes[cls]
        return _outcome(lambda: lib.Tensor._make_wrapper_subclass(chosen, (2,)))

    (theirs, _), (ours, _) = _both(program)
    assert ours == theirs and theirs[0] == "TypeError"


def test_tensor_has_torchs_disabled_torch_dispatch():
    """``Tensor.__torch_dispatch__`` is the disabled default: not a ``classmethod`` of the
    class, and called, it runs the op with ``__torch_dispatch__`` disabled."""
    from reftensor._ops.torch_dispatch import _disabled_torch_dispatch_impl

    assert reftensor.Tensor.__torch_dispatch__ is _disabled_torch_dispatch_impl
    assert torch.Tensor.__torch_dispatch__ is torch._C._disabled_torch_dispatch_impl

    def program(lib, classes):
        s = lib.Tensor._make_subclass(classes["Aliased"], lib.ones(2))
        out = lib.Tensor.__torch_dispatch__(lib.ops.aten.add.Tensor, (), (s, s))
        return _result(out)

    (theirs, their_seen), (ours, our_seen) = _both(program)
    assert ours == theirs and our_seen == their_seen == []
