"""``TorchFunctionMode`` (``reftensor.overrides``, chapter 9, issue 44): reftensor against torch.

A logging mode records every call its ``__torch_function__`` receives (its tag, ``func``'s
``__name__``, the names in ``types``, the arguments with each tensor written as its class,
``kwargs``: None or its keys, and how many modes are on the stack inside the handler), then
runs ``func``. The programs of ``test_ch09_torch_function.py`` (functions, methods, operators,
properties, indexing, views, in-place ops, tuple results) run under it on both libraries,
with the logging subclass's tensors (the mode is asked first, then the subclass) and with
plain tensors only (the mode still sees every call, ``types`` being ``()`` or ``(Tensor,)``
as torch gives it), and so do factories, which no subclass can see (``reftensor.ones(2)``),
on hard layouts (0-d, empty, transposed, views). Each program must give the same records,
the same classes of results and the same values, or the same exception. Then: modes that
return ``NotImplemented`` (the subclasses are asked next; torch's TypeError names the mode;
a member torch hands on with ``self`` alone recurses, in both), nested modes (innermost
first, each popped inside its handler), ``DisableTorchFunctionSubclass`` inside a mode (the
mode is still asked, with ``types`` ``()``) and ``DisableTorchFunction`` (no mode), the stack's
helpers and errors, one stack per thread, ``has_torch_function`` and
``handle_torch_function`` under a mode, generated programs; and that the plain call is as
before once the last mode is popped (``Tensor``'s own members back, the op table's hook None).

The differences left are named and pinned (each test of one fails once it is gone):
``reftensor.tensor`` is written in Python and asks no mode (a mode sees the property reads it
makes, where torch's sees ``tensor``); ``nn.functional.relu`` is a binding of the op table
(a mode sees ``types`` ``()`` and no ``kwargs``, where torch's Python function hands on
``(Tensor,)`` and ``inplace``); and ``Tensor._base`` is a slot (the subclass test's
difference: no mode sees it).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import reftensor
from reftensor.utils import _python_dispatch
from tests.test_ch09_torch_function import SNIPPETS, _classes, _plain, _values

pytestmark = pytest.mark.ch09


def _logging_mode(lib, log, tag="mode", declines=()):
    """A mode that logs each call and runs ``func`` (or returns ``NotImplemented`` for the
    names in ``declines``; every call when ``declines`` is "all")."""

    class Logging(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            depth = len(lib.overrides._get_current_function_mode_stack())
            log.append((tag, func.__name__, [t.__name__ for t in types], _plain(args),
                        None if kwargs is None else sorted(kwargs), depth))
            if declines == "all" or func.__name__ in declines:
                return NotImplemented
            # (not ``**{}``: torch's C function would then hand a subclass ``kwargs`` {})
            return func(*args, **kwargs) if kwargs else func(*args)

    return Logging()


def _inputs(lib, setup, log):
    """The snippets' names: with setup "plain" every tensor is a plain one."""
    Logged, Deeper, Other = _classes(lib, log)
    if setup == "plain":
        Logged = Deeper = Other = lib.Tensor
    s = lib.arange(6.0).reshape(2, 3).sub(2.5).as_subclass(Logged)
    t = lib.arange(6.0).reshape(2, 3).add(1)
    i = lib.arange(6).reshape(2, 3).as_subclass(Logged)
    o = lib.ones(2, 3).as_subclass(Other)
    d = lib.ones(2, 3).as_subclass(Deeper)
    return {"s": s, "t": t, "i": i, "o": o, "d": d, "lib": lib}


def _message(err):
    text = (str(err).replace("torch._tensor.", "reftensor.tensor.")
            .replace("torch", "reftensor"))
    return re.sub(r" at 0x[0-9a-f]+", "", text).splitlines()[:4]


def _run(lib, setup, snippets, modes=("mode",), declines=()):
    """Each snippet under the modes (outermost first), its values read after they exit."""
    log: list = []
    env = _inputs(lib, setup, log)
    made = [_logging_mode(lib, log, tag, declines if tag == modes[-1] else ())
            for tag in modes]
    outcomes = []
    for snippet in snippets:
        mark = len(log)
        for mode in made:
            mode.__enter__()
        try:
            try:
                result = eval(snippet, {}, dict(env))  # noqa: S307 - the test's own snippets
            finally:
                for mode in reversed(made):
                    mode.__exit__(None, None, None)
            outcome = ["ok", _plain(result), _values(result)]
        except RecursionError:
            outcome = ["raised", "RecursionError"]
        except Exception as err:  # noqa: BLE001 - compared with torch's
            outcome = ["raised", type(err).__name__, _message(err)]
        # a recursion's log is as long as the interpreter's limit allows: its start suffices
        outcomes.append([snippet, outcome, log[mark:mark + 6]])
        assert not lib.overrides._get_current_function_mode_stack()
    return outcomes


def _same(setup, snippets, kwargs_as_none=False, **how):
    """The same outcomes and logs on both (``kwargs_as_none``: an empty ``kwargs`` logged as
    None, for the call the default ``__torch_function__`` makes: the named difference of
    :func:`test_difference_a_binding_called_with_empty_kwargs_hands_on_none`)."""
    ours, theirs = _run(reftensor, setup, snippets, **how), _run(torch, setup, snippets, **how)
    if kwargs_as_none:
        for outcomes in (ours, theirs):
            for outcome in outcomes:
                outcome[2] = [(*e[:4], e[4] or None, *e[5:]) for e in outcome[2]]
    for mine, torchs in zip(ours, theirs, strict=True):
        assert mine == torchs, (setup, mine[0])


#: calls that no subclass sees: factories, and plain tensors on hard layouts
FACTORIES = (
    "lib.ones(2)", "lib.zeros(0, 3)", "lib.zeros(())", "lib.arange(3)", "lib.full((2,), 1.5)",
    "lib.ones(2, dtype=lib.int64)", "lib.ones(2, requires_grad=True)", "lib.eye(2)",
    "lib.empty(0).shape", "lib.linspace(0, 1, 3)", "lib.zeros_like(t)", "lib.ones(2, 3).t()",
    "t.t().is_contiguous()", "t.t().contiguous().stride()", "t[:, 1].stride()",
    "t[0, 0].item()", "t[0, 0].dim()", "lib.zeros(0)[0:0].tolist()", "t.view(6)[::2].tolist()",
    "t.T.reshape(6).shape", "lib.zeros(2, 0).sum(1)", "t[:, :0].numel()",
)
ALL = (*SNIPPETS, *FACTORIES)
#: the snippets of a named difference (each pinned by a test below)
DIFFERENT = {("lib.numel(s)", "plain"), ("s ** 2", "logged")}


@pytest.mark.parametrize("setup", ["logged", "plain"])
@pytest.mark.parametrize("snippet", ALL)
def test_a_mode_sees_each_call_as_in_torch(setup, snippet):
    """The mode is asked first (popped inside: depth 0), then the subclass (logging too)."""
    if (snippet, setup) in DIFFERENT:
        pytest.skip("a named difference (pinned below)")
    _same(setup, [snippet])


@settings(deadline=None)
@given(setup=st.sampled_from(["logged", "plain"]), nested=st.booleans(),
       snippets=st.lists(st.sampled_from([a for a in ALL if a not in dict(DIFFERENT)]), min_size=2,
                         max_size=5))
def test_generated_programs_reach_the_modes_as_in_torch(setup, nested, snippets):
    _same(setup, snippets, modes=("outer", "inner") if nested else ("mode",))


@pytest.mark.parametrize("snippet", ["s + t", "lib.add(s, t)", "s.add(t)", "t + 1",
                                     "lib.ones(2)", "s.sum()", "s[0]", "lib.stack([t, s])",
                                     "lib.max(s, 0)", "s.view(3, 2)"])
def test_nested_modes_are_asked_innermost_first(snippet):
    for setup in ("logged", "plain"):
        _same(setup, [snippet], modes=("outer", "middle", "inner"))


@pytest.mark.parametrize("snippet", [
    "lib.add(s, t)", "s.add(t)", "s + t", "t + 1", "lib.ones(2)", "s.size()", "s[0]",
    "lib.add(s, o)", "s + o", "len(s)", "2 - s", "t.tolist()", "s.tolist()", "t.shape"])
def test_a_mode_that_declines_hands_the_call_on_as_in_torch(snippet):
    """The subclasses are asked next (the logging one runs ``func`` with subclasses off, so
    the mode is asked again); when all decline, torch's TypeError lists the mode; a member
    torch hands on with ``self`` alone comes back to the mode until Python's limit."""
    for setup in ("logged", "plain"):
        _same(setup, [snippet], declines="all", kwargs_as_none=True)


def test_disabling_inside_a_mode():
    """``DisableTorchFunctionSubclass`` leaves the mode on (``types`` then ``()``, but
    ``(self's class,)`` for a member handed on with ``self`` alone), ``DisableTorchFunction``
    switches it off; ``has_torch_function`` follows."""
    found = []
    for lib in (torch, reftensor):
        log: list = []
        env = _inputs(lib, "logged", log)
        s, t = env["s"], env["t"]
        row = []
        with _logging_mode(lib, log):
            for disable in (lib._C.DisableTorchFunctionSubclass, lib._C.DisableTorchFunction):
                with disable():
                    log.clear()
                    results = [type(s + t).__name__, s.tolist()[0], s.shape, len(s),
                               type(2 - s).__name__, type(lib.ones(1)).__name__]
                    helpers = [lib.overrides.has_torch_function(x)
                               for x in ((s,), (t,), (), (1,))]
                    row.append((results, [entry[1:3] for entry in log], helpers,
                                lib._C._is_torch_function_enabled(),
                                len(lib.overrides._get_current_function_mode_stack())))
        found.append(row)
    assert found[0] == found[1]
    assert found[1][0][1][0] == ("add", [])  # the mode, asked with subclasses off


def test_the_stack_and_its_helpers():
    found = []
    for lib in (torch, reftensor):
        ov = lib.overrides
        row = [ov._get_current_function_mode(), ov._get_current_function_mode_stack()]
        with ov.BaseTorchFunctionMode() as a:
            row.append(type(a).__name__)
            with ov.BaseTorchFunctionMode() as b, a:  # the same mode twice is allowed
                row.append([m is x for m, x in zip(ov._get_current_function_mode_stack(),
                                                    (a, b, a), strict=True)])
                row.append(ov._get_current_function_mode() is a)
                row.append(lib._C._len_torch_function_stack())
                row.append((lib.ones(2) + 1).tolist())
            with ov._pop_mode_temporarily() as popped:
                row.append((popped is a, ov._get_current_function_mode()))
            row.append(lib._C._is_torch_function_mode_enabled())
        row.append(lib._C._is_torch_function_mode_enabled())
        with pytest.raises(RuntimeError) as err:
            ov._pop_mode()
        row.append(str(err.value))
        with pytest.raises(NotImplementedError):
            with ov.TorchFunctionMode():
                lib.ones(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pushed = ov.BaseTorchFunctionMode.push()
        row.append((type(pushed).__name__, [str(w.message) for w in caught],
                    [w.category.__name__ for w in caught]))
        found.append(row)
    assert found[0] == found[1]


def test_an_exception_in_a_handler_leaves_the_stack_as_it_was():
    for lib in (torch, reftensor):
        class Failing(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                raise ValueError("boom")

        with pytest.raises(ValueError, match="boom"), Failing() as mode:
            try:
                lib.ones(2)
            finally:
                assert lib.overrides._get_current_function_mode_stack() == [mode]
        assert lib.overrides._get_current_function_mode() is None
        assert lib.ones(2).tolist() == [1.0, 1.0]


def test_each_thread_has_its_own_stack():
    for lib in (torch, reftensor):
        log: list = []
        seen = []

        def other_thread(lib=lib, log=log, seen=seen):
            before = len(log)
            x = lib.ones(2) + 1
            seen.append((len(lib.overrides._get_current_function_mode_stack()),
                         len(log) - before, x.shape[0], x.tolist()))

        with _logging_mode(lib, log):
            worker = threading.Thread(target=other_thread)
            worker.start()
            worker.join()
            lib.ones(1)
        assert seen == [(0, 0, 2, [2.0, 2.0])]
        assert [entry[1] for entry in log] == ["ones"]


def test_handle_torch_function_asks_the_mode_first():
    found = []
    for lib in (torch, reftensor):
        log: list = []
        Logged, _, _ = _classes(lib, log)
        s, t = lib.ones(2).as_subclass(Logged), lib.ones(2)
        ov = lib.overrides
        row = []
        with _logging_mode(lib, log):
            row.append(type(ov.handle_torch_function(lib.add, (t, s), t, s)).__name__)
            row.append(ov.has_torch_function_unary(t))
        with _logging_mode(lib, log, declines="all"):
            with pytest.raises(TypeError) as err:
                ov.handle_torch_function(lib.add, (t, 1), t, 1)
            row.append(_message(err.value))
        row.append([entry[:3] for entry in log])
        found.append(row)
    assert found[0] == found[1]


def test_a_plain_call_is_as_before_once_the_last_mode_is_popped():
    """While a mode is pushed ``Tensor`` holds members that route its hand-written ones and
    the op table's hook is on; after the last one, ``Tensor``'s own members are back and
    the hook is None again (unless a class overrides ``__torch_function__``)."""
    code = ("import reftensor\nfrom reftensor._ops import packet\n"
            "from reftensor.overrides import BaseTorchFunctionMode\n"
            "T = reftensor.Tensor\nown = dict(T.__dict__)\n"
            "assert packet._torch_function is None\n"
            "with BaseTorchFunctionMode():\n"
            "    assert packet._torch_function is not None\n"
            "    assert T.__dict__['tolist'] is not own['tolist']\n"
            "    with BaseTorchFunctionMode():\n"
            "        reftensor.ones(2).tolist()\n"
            "    assert T.__dict__['shape'] is not own['shape']\n"
            "assert packet._torch_function is None\n"
            "assert all(T.__dict__[k] is v for k, v in own.items())\n"
            "class S(reftensor.Tensor): pass\n"
            "with BaseTorchFunctionMode():\n"
            "    pass\n"
            "assert packet._torch_function is not None\n"
            "assert all(T.__dict__[k] is v for k, v in own.items())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_func_inside_a_mode_is_the_public_object():
    """``func`` compares equal to what the program names (``Tensor.tolist``,
    ``Tensor.shape.__get__``) while the mode is active, as torch's does."""
    for lib in (torch, reftensor):
        seen: list = []

        class Checking(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None, lib=lib, seen=seen):
                seen.append([func == f for f in (lib.Tensor.tolist, lib.Tensor.shape.__get__,
                                                 lib.Tensor.add, lib.add, lib.ones)])
                return func(*args, **(kwargs or {}))

        x = lib.ones(2)
        with Checking():
            x.tolist(), x.shape, x.add(x), lib.add(x, x), lib.ones(1)
        assert seen == [[i == j for j in range(5)] for i in range(5)], lib


def test_disabled_torch_dispatch_impl_is_in_c():
    """``_C._disabled_torch_dispatch_impl`` is ``Tensor.__torch_dispatch__``; called, it runs
    ``func`` where no dispatch mode sees it (reftensor's ``_C`` imports nothing of
    reftensor: no cycle, ``test_layering``)."""
    found = []
    for lib, mode_base in ((torch, torch.utils._python_dispatch.TorchDispatchMode),
                           (reftensor, _python_dispatch.TorchDispatchMode)):
        log: list = []

        class Logging(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None, log=log):
                log.append(str(func))
                return func(*args, **(kwargs or {}))

        impl = lib._C._disabled_torch_dispatch_impl
        assert lib.Tensor.__torch_dispatch__ is impl
        x = lib.ones(2)
        with Logging():
            result = impl(lib.ops.aten.add.Tensor, (), (x, x))
            x + x
        found.append((log, type(result).__name__, result.tolist()))
    assert found[0] == found[1]


def test_is_tensor_like_as_torch():
    found = []
    for lib in (torch, reftensor):
        S = type("S", (lib.Tensor,), {})
        holder = type("Holder", (), {})()
        holder.__torch_function__ = None  # an attribute of the instance counts, in torch
        found.append([lib.overrides.is_tensor_like(x) for x in (
            lib.Tensor, S, holder, lib.nn.Parameter(lib.ones(1)), lib.ones(1).as_subclass(S),
            1, [lib.ones(1)], lib.overrides.BaseTorchFunctionMode())])
    assert found[0] == found[1]


# ---------------------------------------------------------------- named differences
def test_difference_reftensor_tensor_asks_no_mode():
    found = []
    for lib in (torch, reftensor):
        log: list = []
        with _logging_mode(lib, log):
            lib.tensor([1.0, 2.0])
        found.append([entry[1] for entry in log])
    assert found[0] == ["tensor"]
    assert "tensor" not in found[1]


def test_difference_relu_is_the_method():
    found = []
    for lib in (torch, reftensor):
        log: list = []
        x = lib.ones(2)
        with _logging_mode(lib, log):
            lib.nn.functional.relu(x)
        found.append([entry[1:3] + (entry[4],) for entry in log])
    assert found == [[("relu", ["Tensor"], ["inplace"])], [("relu", ["Tensor"], None)]]


def test_difference_base_reaches_no_mode():
    found = []
    for lib in (torch, reftensor):
        log: list = []
        v = lib.ones(4).view(2, 2)
        with _logging_mode(lib, log):
            assert v._base is not None
        found.append([entry[1] for entry in log])
    assert found == [["__get__"], []]



def test_difference_numel_is_written_in_python():
    """``reftensor.numel`` calls the method: a mode sees ``Tensor.numel`` (``types``
    ``(Tensor,)``), where torch's sees the function (``()``)."""
    found = []
    for lib in (torch, reftensor):
        log: list = []
        with _logging_mode(lib, log):
            lib.numel(lib.ones(2))
        found.append([(entry[1], entry[2]) for entry in log[1:]])
    assert found == [[("numel", [])], [("numel", ["Tensor"])]]


def test_difference_a_binding_called_with_empty_kwargs_hands_on_none():
    """A binding is a Python function: ``func(*args, **{})`` and ``func(*args)`` are one call
    to it, and it hands ``kwargs`` None on; torch's C function hands on the empty dict (the
    default ``__torch_function__`` calls ``func(*args, **{})``; ``s ** 2``'s mode gets {} and
    calls ``Tensor.pow``, a binding)."""
    found = []
    for lib in (torch, reftensor):
        log: list = []
        Logged, _, _ = _classes(lib, log)
        s = lib.ones(2).as_subclass(Logged)
        with _logging_mode(lib, log, tag="mode"):
            lib.add(s, s, **{})
            s ** 2  # noqa: B018 - the call is the test
        found.append([(entry[0], entry[1], entry[4]) for entry in log])
    assert found[0] == [("mode", "add", []), ("Logged", "add", None), ("mode", "pow", []),
                        ("Logged", "pow", [])]
    assert found[1] == [("mode", "add", None), ("Logged", "add", None), ("mode", "pow", []),
                        ("Logged", "pow", None)]
