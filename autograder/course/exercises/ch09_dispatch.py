"""Chapter 9 exercises: the pieces of the dispatcher and of the logging mode. Every right
answer is what torch 2.13 does.

* ``dispatch_key_set``: the key set of a call made in a situation: its tensor arguments (each
  one's device, ``requires_grad``, and whether its class defines ``__torch_dispatch__``), a
  factory's ``device=``, the dispatch modes active, and whether the call is made below
  ``Autograd`` (from inside a mode's ``__torch_dispatch__``). The reference builds the tensors
  in torch (``torch.zeros(2, device=..., requires_grad=...)``, or for a subclass tensor
  ``torch.Tensor._make_wrapper_subclass(Wrapper, (2,), device=..., requires_grad=...)`` of a
  class ``Wrapper`` that defines ``__torch_dispatch__``), pushes the modes (and, below
  autograd, one more, whose ``__torch_dispatch__`` probes for a call of ``mul``, where torch
  runs below autograd), and reads torch's own key set there:
  ``torch._C._dispatch_tls_local_include_set()`` ``|`` each tensor's
  ``torch._C._dispatch_keys(t)``, ``-`` ``torch._C._dispatch_tls_local_exclude_set()``.
  It maps that set to reftensor's bits (CPU 1, Meta 2, Python 4, Autograd 8): ``Python`` when
  the set has it; the backend of a factory's device where one is given (torch's
  ``_dispatch_key_for_device``), else ``Meta`` when the set has it, else ``CPU``; ``Autograd``
  when the set has ``AutogradCPU`` or ``AutogradMeta`` *and* some tensor requires grad. That
  last condition is reftensor's documented shortcut: torch keeps its autograd key in every
  tensor's key set (a tensor that requires no grad included) and lets the kernel find that
  nothing needs recording; reftensor leaves the key out.
* ``next_key``: the key whose kernel runs for a key set, and the key set below it. torch
  decides the order: each reftensor key becomes torch's (``Autograd`` as the autograd key of
  the set's backend, ``AutogradMeta`` with ``Meta``, else ``AutogradCPU``); the key that runs is
  ``highestPriorityTypeId()`` of the ``DispatchKeySet`` of the keys that have a kernel (the
  keys both sets hold), and the keys below are those of the set that
  ``torch._C._dispatch_keyset_full_after(key)`` holds. A key set holds at most one backend key
  (every key set a call has does): torch orders no backend below another
  (``_dispatch_keyset_full_after(Meta)`` holds no ``CPU``).
* ``mode_arguments``: the ``(args, kwargs)`` a ``TorchDispatchMode`` receives for a call, from
  the schema's arguments and every argument's value. Each case is one aten call of a small
  torch program (``MODE_PROGRAMS``) run under a recording mode; its schema arguments come
  from ``func._schema.arguments`` and its values are what the mode received, each left-out
  argument filled with its schema default. The reference runs the program again and returns
  what the mode received (every tensor written ``"Tensor<k>"``, a dtype, device, layout or
  memory format as its repr with ``torch.`` read as ``reftensor.``, kwargs as a tuple of
  ``(name, value)`` pairs in their order). The cases are stored in ``MODE_SCHEMAS`` and
  ``MODE_CALLS`` (the sandbox has no torch to build them); the tests rebuild both from torch.
* ``log_line``: one line of torch's ``capture_logs_with_logging_tensor_mode()`` log. A case is
  a program of a few snippets (``LOG_SNIPPETS``) run on tensors made before the capture
  (``LOG_ENV``); the answer is called once per aten call, in order, on stand-ins the check
  builds: a tensor stand-in per torch tensor (with ``.dtype`` and ``.shape``), dtype, device,
  layout and memory-format stand-ins whose repr is reftensor's, one ``shortid`` for the whole
  program (it numbers the tensor stand-ins in the order it is asked, and gives None for
  anything else) and ``abbrs`` (torch's ``dtype_abbrs`` for the stand-in dtypes). The expected
  lines are torch's, with ``torch.`` replaced by ``reftensor.``: that is the only
  normalisation. Each snippet's calls are stored in ``LOG_CALLS`` (tensors by name: ``x`` for
  the program's ``x``, ``r1``, ``r2``, ... for new ones in the order the log meets them).

Strategies draw only with ``sampled_from`` (see chapter 5's module for why).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, NamedTuple

from hypothesis import strategies as st

from .ch09_data import LOG_CALLS, MODE_CALLS, MODE_SCHEMAS
from .spec import Case, Exercise, register

CHAPTER = "ch09_dispatch"

#: reftensor's keys, as bits of a key set
CPU, META, PYTHON, AUTOGRAD = 1, 2, 4, 8
KEY_NAMES = {CPU: "CPU", META: "Meta", PYTHON: "Python", AUTOGRAD: "Autograd"}


def _torch():
    import torch  # imported only where references are computed

    return torch


def _pick(draw: st.DrawFn, options):
    return draw(st.sampled_from(list(options)))


def _as_int(value: Any, what: str) -> int:
    """A key set as an int (reftensor's ``DispatchKey`` is an ``IntFlag``); anything else
    that is not an int is refused."""
    if not isinstance(value, int):
        raise TypeError(f"{what} is a {type(value).__name__}, not an int key set")
    return int(value)


# ---------------------------------------------------------------- dispatch_key_set
def _call_key_set(answer, case: Case) -> int:
    """How a check calls ``dispatch_key_set``: the lists as lists, the last three arguments by
    keyword; the key set read as an int."""
    devices, requires_grad, python_tensors, factory_device, modes, below_autograd = case.args
    return _as_int(answer(list(devices), list(requires_grad), list(python_tensors),
                          factory_device=factory_device, modes=modes,
                          below_autograd=below_autograd), "the key set")


def run_key_set(answer, devices, requires_grad, python_tensors, factory_device, modes,
                below_autograd) -> int:
    """Run ``answer`` (a ``dispatch_key_set``) on a failing case as the check does."""
    return _call_key_set(answer, Case(args=(tuple(devices), tuple(requires_grad),
                                            tuple(python_tensors), factory_device, modes,
                                            below_autograd)))


def torch_key_set(devices, requires_grad, python_tensors, factory_device, modes: int,
                  below_autograd: bool):
    """torch's key set in the case's situation (a ``torch._C.DispatchKeySet``): the tensors
    built first (a subclass tensor as a wrapper subclass whose class defines
    ``__torch_dispatch__``), ``modes`` dispatch modes pushed, and below autograd, read from
    inside one more mode's ``__torch_dispatch__`` (of a ``mul`` of a tensor that requires
    grad)."""
    torch = _torch()
    C = torch._C
    from torch.utils._python_dispatch import TorchDispatchMode

    class Wrapper(torch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented  # (never called: the probe reads key sets only)

    def made(device: str, grad: bool, python: bool):
        if python:
            return torch.Tensor._make_wrapper_subclass(
                Wrapper, (2,), dtype=torch.float32, device=device, requires_grad=grad)
        return torch.zeros(2, device=device, requires_grad=grad)

    tensors = [made(d, g, p)
               for d, g, p in zip(devices, requires_grad, python_tensors, strict=True)]
    trigger = torch.ones(1, requires_grad=True)
    seen = []

    def probe() -> None:
        keys = C._dispatch_tls_local_include_set()
        for t in tensors:
            keys = keys | C._dispatch_keys(t)
        seen.append(keys - C._dispatch_tls_local_exclude_set())

    class Quiet(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Probe(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            probe()
            return func(*args, **(kwargs or {}))

    with contextlib.ExitStack() as stack:
        for _ in range(modes):
            stack.enter_context(Quiet())
        if below_autograd:
            with Probe():
                trigger * 2
        else:
            probe()
    if len(seen) != 1:
        raise RuntimeError(f"the probe ran {len(seen)} times")
    return seen[0]


def _key_set_reference(c: Case) -> int:
    torch = _torch()
    K = torch._C.DispatchKey
    devices, requires_grad, python_tensors, factory_device, modes, below_autograd = c.args
    keys = torch_key_set(devices, requires_grad, python_tensors, factory_device, modes,
                         below_autograd)
    if factory_device is not None:
        backend = getattr(K, torch._C._dispatch_key_for_device(factory_device))
    else:
        backend = K.Meta if keys.has(K.Meta) else K.CPU
    bits = {K.CPU: CPU, K.Meta: META}[backend]
    if keys.has(K.Python):
        bits |= PYTHON
    if (keys.has(K.AutogradCPU) or keys.has(K.AutogradMeta)) and any(requires_grad):
        bits |= AUTOGRAD
    return bits


def _key_set_truth(c: Case) -> str:
    devices, requires_grad, python_tensors, factory_device, modes, below_autograd = c.args

    def made_one(d: str, g: bool, p: bool) -> str:
        grad = ", requires_grad=True)" if g else ")"
        if p:
            return (f"torch.Tensor._make_wrapper_subclass(Wrapper, (2,), device={d!r}" + grad
                    + " (Wrapper defines __torch_dispatch__)")
        return f"torch.zeros(2, device={d!r}" + grad

    made = ", ".join(made_one(d, g, p)
                     for d, g, p in zip(devices, requires_grad, python_tensors, strict=True))
    where = f"with {modes} TorchDispatchMode(s) pushed" if modes else "with no mode pushed"
    if below_autograd:
        where += ", inside one more mode's __torch_dispatch__ (called for a mul)"
    backend = (f"the backend of {factory_device!r} (torch._C._dispatch_key_for_device)"
               if factory_device is not None else "Meta if s.has(Meta) else CPU")
    return (f"ts = [{made}]; {where}: s = torch._C._dispatch_tls_local_include_set(), | "
            "torch._C._dispatch_keys(t) for t in ts, - torch._C._dispatch_tls_local_exclude_"
            f"set(); then {backend} | Python (4) if s.has(Python) | Autograd (8) if "
            "s.has(AutogradCPU or AutogradMeta) and some t requires grad (CPU 1, Meta 2)")


def _key_case(devices=(), requires_grad=None, factory_device=None, modes=1,
              below_autograd=False, python_tensors=None) -> Case:
    grads = (False,) * len(devices) if requires_grad is None else tuple(requires_grad)
    python = (False,) * len(devices) if python_tensors is None else tuple(python_tensors)
    return Case(args=(tuple(devices), grads, python, factory_device, modes, below_autograd))


@st.composite
def _key_set_cases(draw: st.DrawFn) -> Case:
    count = _pick(draw, (0, 1, 1, 2, 2, 3))
    devices = tuple(_pick(draw, ("cpu", "cpu", "meta")) for _ in range(count))
    grads = tuple(_pick(draw, (False, False, True)) for _ in range(count))
    python = tuple(_pick(draw, (False, False, True)) for _ in range(count))
    factory = _pick(draw, (None, "cpu", "meta", "meta") if count == 0
                    else (None, None, None, None, "cpu", "meta"))
    modes = _pick(draw, (0, 0, 1, 1, 2) if any(python) else (0, 1, 1, 1, 2, 2))
    return Case(args=(devices, grads, python, factory, modes, _pick(draw, (False, True))))


register(Exercise(
    name="dispatch_key_set",
    chapter=CHAPTER,
    signature="dispatch_key_set(devices, requires_grad, python_tensors, *, factory_device, "
              "modes, below_autograd) -> int (CPU 1 | Meta 2 | Python 4 | Autograd 8)",
    fixed=(
        _key_case(["cpu"]),                                    # one mode: Python
        _key_case(["cpu", "cpu"], [False, True]),              # one tensor requires grad
        _key_case(["cpu"], [True], below_autograd=True),       # below autograd: no Autograd
        _key_case(["cpu", "meta"]),                            # a meta tensor: Meta
        _key_case([], factory_device="meta"),                  # a meta factory
        _key_case([], modes=2),                                # nested modes, no tensor
        _key_case(["cpu"], [True], modes=0, below_autograd=True),  # inside the only mode
        _key_case(["cpu"], factory_device="meta"),             # x.new_zeros(2, device="meta")
        _key_case(["cpu"], modes=0, python_tensors=[True]),    # a subclass tensor, no mode
        _key_case(["cpu", "cpu"], [True, False], modes=0,      # a plain one next to it
                  python_tensors=[False, True]),
    ),
    edge=(
        _key_case([], modes=0),
        _key_case(["meta", "meta", "meta"], [True, True, True], modes=2, below_autograd=True),
        _key_case(["cpu", "cpu", "meta"], [True, False, False], modes=2),
        _key_case([], factory_device="cpu", modes=0, below_autograd=True),
        _key_case(["meta"], [True], factory_device="cpu", modes=1),
        _key_case(["cpu"], [False], modes=2, below_autograd=True),
        _key_case(["meta"], [True], modes=0, below_autograd=True, python_tensors=[True]),
        _key_case(["cpu", "meta"], [False, False], modes=0, python_tensors=[False, False]),
        _key_case(["meta", "cpu"], [False, True], factory_device="cpu", modes=2,
                  python_tensors=[True, True]),
    ),
    strategy=_key_set_cases,
    reference=_key_set_reference,
    truth=_key_set_truth,
    hidden_examples=100,
    call=_call_key_set,
    call_shown="autograder.course.exercises.ch09_dispatch:run_key_set",
))


# ---------------------------------------------------------------- next_key
#: the key sets a case draws: every non-empty set of the four keys with at most one backend
KEY_SETS = tuple(k for k in range(1, 16) if k & (CPU | META) != CPU | META)


def _call_next_key(answer, case: Case) -> tuple[int, int]:
    """How a check calls ``next_key``: on the two key sets; the key and the key set below
    it read as ints."""
    key, below = answer(*case.args)
    return _as_int(key, "the key"), _as_int(below, "the key set below")


def run_next_key(answer, keys, registered) -> tuple[int, int]:
    """Run ``answer`` (a ``next_key``) on a failing case as the check does."""
    return _call_next_key(answer, Case(args=(keys, registered)))


def _torch_keys(keys: int) -> dict[int, Any]:
    """torch's key for each of reftensor's: Autograd as the autograd key of the set's
    backend."""
    K = _torch()._C.DispatchKey
    return {CPU: K.CPU, META: K.Meta, PYTHON: K.Python,
            AUTOGRAD: K.AutogradMeta if keys & META else K.AutogradCPU}


def _next_key_reference(c: Case) -> tuple[int, int]:
    torch = _torch()
    keys, registered = c.args
    ours = _torch_keys(keys)
    runnable = [bit for bit in KEY_NAMES if keys & bit and registered & bit]
    if not runnable:
        return 0, 0
    runs = torch._C.DispatchKeySet(ours[runnable[0]])
    for bit in runnable[1:]:
        runs = runs | torch._C.DispatchKeySet(ours[bit])
    top = runs.highestPriorityTypeId()
    (key,) = [bit for bit in runnable if ours[bit] == top]
    after = torch._C._dispatch_keyset_full_after(top)
    return key, sum(bit for bit in KEY_NAMES if keys & bit and after.has(ours[bit]))


def _key_names(keys: int) -> str:
    return "{" + ", ".join(KEY_NAMES[b] for b in KEY_NAMES if keys & b) + "}"


def _next_key_truth(c: Case) -> str:
    keys, registered = c.args
    return (f"keys {_key_names(keys)}, kernels for {_key_names(registered)} (Autograd as "
            f"{'AutogradMeta' if keys & META else 'AutogradCPU'}): key = torch._C."
            "DispatchKeySet of the keys of both sets, .highestPriorityTypeId() (0 if none); "
            "below = the keys of keys that torch._C._dispatch_keyset_full_after(key) has "
            "(CPU 1, Meta 2, Python 4, Autograd 8)")


@st.composite
def _next_key_cases(draw: st.DrawFn) -> Case:
    keys = _pick(draw, KEY_SETS)
    registered = _pick(draw, (keys, keys | PYTHON, *range(16)))
    return Case(args=(keys, registered))


register(Exercise(
    name="next_key",
    chapter=CHAPTER,
    signature="next_key(keys, registered) -> (key, below) (CPU 1 | Meta 2 | Python 4 | "
              "Autograd 8; (0, 0) when no key of keys has a kernel)",
    fixed=(
        Case(args=(CPU | PYTHON | AUTOGRAD, 15)),           # Autograd first: the rest below
        Case(args=(CPU | PYTHON, CPU | PYTHON)),            # a mode's key, the backend below
        Case(args=(CPU | PYTHON | AUTOGRAD, CPU | PYTHON)),  # no Autograd kernel: Python runs
        Case(args=(CPU, PYTHON)),                           # nothing runs
        Case(args=(META | PYTHON | AUTOGRAD, CPU | META | AUTOGRAD)),
        Case(args=(META | PYTHON, META)),                   # the backend: nothing below it
        Case(args=(PYTHON | AUTOGRAD, 15)),                 # no backend in the set
    ),
    edge=(
        Case(args=(CPU, CPU)),
        Case(args=(AUTOGRAD, AUTOGRAD)),
        Case(args=(META | AUTOGRAD, 0)),
        Case(args=(META, 15)),
        Case(args=(CPU | AUTOGRAD, CPU)),
        Case(args=(PYTHON, PYTHON | AUTOGRAD)),
    ),
    strategy=_next_key_cases,
    reference=_next_key_reference,
    truth=_next_key_truth,
    hidden_examples=100,
    call=_call_next_key,
    call_shown="autograder.course.exercises.ch09_dispatch:run_next_key",
))


# ---------------------------------------------------------------- plain values
# A value of a call is stored as plain, hashable data: None, bools, ints, floats and strings
# as themselves; a list as ("list", *items) and a tuple as ("tuple", *items) (a case's
# values may hold a list argument as a tuple, as reftensor's bindings do); the rest by kind.
def _plain(value: Any, tensor) -> Any:
    """``value`` (from torch) as plain data; ``tensor(t)`` stands for a tensor."""
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return tensor(value)
    if type(value) in (list, tuple):
        return (type(value).__name__, *(_plain(v, tensor) for v in value))
    if isinstance(value, torch.dtype | torch.layout | torch.memory_format):
        kind = type(value).__name__
        return (kind, repr(value).removeprefix("torch."))
    if isinstance(value, torch.device):
        if value.index is not None:
            raise TypeError(f"a device with an index: {value!r}")
        return ("device", value.type)
    if value is None or type(value) in (bool, int, float, str):
        return value
    raise TypeError(f"no plain form for a {type(value).__name__}: {value!r}")


def _text_of(kind: str, name: str) -> str:
    """The repr of a dtype, layout, memory format or device, as reftensor's."""
    return f"device(type='{name}')" if kind == "device" else f"reftensor.{name}"


# ---------------------------------------------------------------- mode_arguments
class ModeArgument(NamedTuple):
    """What ``mode_arguments`` gets of one argument of a schema (reftensor's
    ``ModeArgument``'s fields)."""

    name: str
    kwarg_only: bool
    has_default: bool
    default: Any
    is_list: bool


#: the programs whose calls are the cases, each run on ``MODE_ENV``'s tensors
MODE_PROGRAMS = (
    "x.add(y, alpha=1)", "x.add(y, alpha=1.0)", "b.add(b, alpha=True)", "x.add(y, alpha=2)",
    "x.add(2)", "x.sub(y, alpha=0.5)", "x.sum(1)", "x.sum(dim=1, keepdim=False)",
    "x.sum(1, keepdim=True)", "x.sum(1, dtype=None)", "x.sum(1, dtype=torch.float64)",
    "x.sum((0, 1))", "x.sum()", "x.sum([], keepdim=True)", "n.sum(0, dtype=torch.int64)",
    "x.sum(1, True, dtype=torch.float32)", "x.std(1)", "x.std(1, unbiased=False)",
    "x.var(1, correction=0)", "x.var(correction=1)", "x.std(1, keepdim=True)",
    "x.var(1, correction=1, keepdim=False)", "x.var(None, correction=2.0)",
    "x.clamp(min=0)", "x.clamp(max=1.0)", "x.clamp(0, 1)", "x.clamp(None, 1)",
    "x.clamp(-1.5, None)", "F.max_pool2d(img, 2)", "F.max_pool2d(img, 2, padding=0)",
    "F.max_pool2d(img, 2, padding=[0, 0])", "F.max_pool2d(img, 3, 1, padding=(1, 1))",
    "F.max_pool2d(img, 2, dilation=1)", "F.max_pool2d(img, 2, 2, 0, 1, ceil_mode=True)",
    "F.max_pool2d(img, (2, 1), dilation=2)", "torch.ones(2, 3)",
    "torch.ones(2, dtype=torch.float64)", "torch.zeros((2,), device='meta')",
    "torch.zeros(2, pin_memory=False)", "torch.full((2,), 1.5)",
    "torch.full([2], 7, dtype=torch.int64)", "torch.full((), True)",
    "torch.ones(2, layout=torch.strided)", "torch.empty(2, 2)", "x[None, i]", "x[i]",
    "x[:, i]", "torch.cat([x, y])", "torch.cat((x, y), 1)", "torch.cat([x, y], dim=0)",
    "torch.stack([x, y])", "x.mean(1)", "x.mean((0, 1), keepdim=True)",
    "x.mean(-1, dtype=torch.float64)", "x.to(torch.float64)", "x.to('meta')",
    "x.to(torch.float64, copy=True)", "x.to(device='meta', dtype=torch.float16)",
    "x.view(3, 2)", "x.view((6,))", "x.reshape(6)", "x.expand(2, 2, 3)",
    "x.expand((2, 2, 3))", "x.permute(1, 0)", "x.transpose(0, 1)", "x.roll(1)",
    "x.roll(1, 0)", "x.div(2, rounding_mode='floor')", "x.div(2, rounding_mode=None)",
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.gelu(x, approximate='none')",
    "x.t().contiguous()", "x.clone()", "x.max(1)", "x.max(1, keepdim=True)", "x.topk(2)",
    "x.topk(2, largest=False)", "x.sort(1, True)", "x.argmax()", "x.argmax(1, True)",
    "torch.arange(5)", "torch.arange(0, 5)", "torch.arange(0, 6, 2)",
    "torch.arange(0.0, 1.0, 0.5)", "F.layer_norm(x, (3,))", "x.squeeze()",
    "x.masked_fill(x > 2, 0.0)", "x.new_zeros(2)", "x.new_ones((2, 2), dtype=torch.int64)",
    "torch.where(x > 1, x, 0.0)", "x.split(2, 1)", "x.split([1, 2], 1)", "x.chunk(2)",
    "F.softmax(x, 1)", "F.log_softmax(x, -1, dtype=torch.float64)", "F.linear(x, w, bias)",
    "F.cross_entropy(x, i)", "F.pad(x, (1, 1))", "x[::2]", "x.amax((0, 1), True)",
    "x.cumsum(1, dtype=torch.float64)", "torch.zeros_like(x, dtype=torch.int64)",
    "torch.ones_like(x, memory_format=torch.preserve_format)",
    "torch.empty_like(x, device='meta')", "torch.full_like(x, 2)",
)

#: the tensors the programs use, made before the mode is pushed
MODE_ENV = {
    "x": "torch.arange(6.0).reshape(2, 3)", "y": "torch.ones(2, 3)",
    "n": "torch.arange(6).reshape(2, 3)", "b": "torch.tensor([True, False])",
    "img": "torch.arange(16.0).reshape(1, 1, 4, 4)", "i": "torch.tensor([1, 0])",
    "w": "torch.ones(4, 3)", "bias": "torch.zeros(4)",
}


def _mode_env(torch) -> dict[str, Any]:
    env = {"torch": torch, "F": torch.nn.functional}
    for name, made in MODE_ENV.items():
        env[name] = eval(made, {"torch": torch})  # the module's own text
    return env


def record_mode_calls(program: str) -> list[tuple[str, tuple, tuple, Any]]:
    """Run ``program`` in torch under a mode that records what its ``__torch_dispatch__``
    receives: each call as ``mode_call`` makes it, at once (the mode keeps no tensor)."""
    if program not in MODE_PROGRAMS:  # only the module's own text is ever run, as root
        raise ValueError("record_mode_calls runs only the programs of MODE_PROGRAMS")
    torch = _torch()
    from torch.utils._python_dispatch import TorchDispatchMode

    calls: list = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(mode_call(func, args, dict(kwargs or {})))
            return func(*args, **(kwargs or {}))

    env = _mode_env(torch)
    with Record():
        exec(program, env)  # the module's own programs
    return calls


def _is_list(torch, kind) -> bool:
    if isinstance(kind, torch.OptionalType):
        kind = kind.getElementType()
    return isinstance(kind, torch.ListType)


def _schema_of(torch, func) -> tuple:
    """The schema's arguments as ``ModeArgument`` fields (a list default as a tuple)."""
    found = []
    for a in func._schema.arguments:
        default = a.default_value if a.has_default_value() else None
        if default is not None and str(a.real_type).removeprefix("Optional[").partition(
                "]")[0] in ("ScalarType", "Layout", "MemoryFormat", "Device"):
            raise TypeError(f"{func}: a default {default!r} for {a.name} (stored as an int)")
        if type(default) is list:
            default = tuple(default)
        found.append((a.name, a.kwarg_only, a.has_default_value(),
                      _plain(default, None), _is_list(torch, a.real_type)))
    return tuple(found)


def _mode_tensor_names(values) -> dict[int, str]:
    """Each tensor among a call's values, by identity: ``"Tensor<k>"`` in their order."""
    torch = _torch()
    names: dict[int, str] = {}

    def visit(value):
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), f"Tensor{len(names)}")
        elif type(value) in (list, tuple):
            for v in value:
                visit(v)

    visit(values)
    return names


def mode_call(func, args: tuple, kwargs: dict) -> tuple[str, tuple, tuple, Any]:
    """One recorded call as a case holds it: the op, its schema (``_schema_of``), every
    argument's value (what the mode received, each left-out argument its default) and what
    the mode received as plain data (``(args, ((name, value), ...))``)."""
    torch = _torch()
    schema = func._schema.arguments
    values = []
    for k, a in enumerate(schema):
        if not a.kwarg_only and k < len(args):
            values.append(args[k])
        elif a.name in kwargs:
            values.append(kwargs[a.name])
        elif a.has_default_value():
            values.append(a.default_value)
        else:
            raise TypeError(f"{func}: no value for {a.name}")
    names = _mode_tensor_names(values)

    def name(t):
        return names[id(t)]

    def received(value):  # plain, lists as lists and tuples as tuples
        node = _plain(value, name)
        return _mode_value(node)

    got = (tuple(received(a) for a in args),
           tuple((k, received(v)) for k, v in kwargs.items()))
    return (str(func), _schema_of(torch, func), tuple(_plain(v, name) for v in values), got)


def _mode_value(node: Any) -> Any:
    """A stored value as ``mode_arguments`` gets it: lists and tuples rebuilt, a dtype,
    device, layout or memory format as its repr (reftensor's) and a tensor as its name."""
    if type(node) is tuple:
        kind, *items = node
        if kind in ("list", "tuple"):
            items = [_mode_value(v) for v in items]
            return items if kind == "list" else tuple(items)
        return _text_of(kind, items[0])
    return node


def _call_mode(answer, case: Case) -> tuple[Any, tuple]:
    """How a check calls ``mode_arguments``: on a list of ``ModeArgument`` named tuples and a
    list of the values (each tensor the string ``"Tensor<k>"``, a dtype as
    ``"reftensor.float64"``); returns its ``args`` and its ``kwargs`` as a tuple of ``(name,
    value)`` pairs, in their order."""
    arguments, values = case.args
    args, kwargs = answer([ModeArgument(n, k, h, _mode_value(d), li)
                           for n, k, h, d, li in arguments],
                          [_mode_value(v) for v in values])
    return args, tuple(kwargs.items())


def run_mode_arguments(answer, arguments, values) -> tuple[Any, tuple]:
    """Run ``answer`` (a ``mode_arguments``) on a failing case as the check does."""
    return _call_mode(answer, Case(args=(arguments, values)))


def _loose(node: Any) -> Any:
    """A stored value with its lists and tuples alike (a case may hold a list as a tuple)."""
    if type(node) is tuple and node and node[0] in ("list", "tuple"):
        return ("sequence", *(_loose(v) for v in node[1:]))
    return node


def _mode_reference(c: Case) -> tuple[Any, tuple]:
    program, index = c.ctx("program"), c.ctx("call")
    op, schema, values, got = record_mode_calls(program)[index]
    loose = [tuple(_loose(v) for v in held) for held in (values, c.args[1])]
    if (op, schema, loose[0]) != (c.ctx("op"), c.args[0], loose[1]):
        raise ValueError(f"the stored case of {program!r} is not what torch records now: "
                         "rebuild MODE_SCHEMAS and MODE_CALLS (mode_table())")
    return got


def _mode_truth(c: Case) -> str:
    made = "; ".join(f"{n} = {m}" for n, m in MODE_ENV.items())
    return (f"{made}; F = torch.nn.functional; then, under a TorchDispatchMode that records "
            f"each call: {c.ctx('program')}; call {c.ctx('call')} ({c.ctx('op')}): the mode's "
            "(args, tuple(kwargs.items())), tensors as 'Tensor<k>' (in the values' order), "
            "torch. read as reftensor.")


def mode_table() -> tuple[dict[str, tuple], tuple]:
    """``MODE_SCHEMAS`` and ``MODE_CALLS`` as torch gives them now (the tests compare)."""
    schemas: dict[str, tuple] = {}
    calls = []
    for program in MODE_PROGRAMS:
        for index, (op, schema, values, _) in enumerate(record_mode_calls(program)):
            schemas[op] = schema
            calls.append((program, index, op, values))
    return dict(sorted(schemas.items())), tuple(calls)


def _mode_case(program: str, index: int = 0, *, as_tuples=True) -> Case:
    """The stored call ``index`` of ``program``; ``as_tuples``: which list values the case
    holds as tuples (True: all of them, as reftensor's bindings mostly do; or a tuple of
    booleans, one per list value)."""
    (op, values), = [(op, v) for p, k, op, v in MODE_CALLS if (p, k) == (program, index)]
    lists = [k for k, v in enumerate(values) if type(v) is tuple and v and v[0] == "list"]
    flags = [as_tuples] * len(lists) if isinstance(as_tuples, bool) else list(as_tuples)
    held = list(values)
    for k, flag in zip(lists, flags, strict=True):
        if flag:
            held[k] = ("tuple", *values[k][1:])
    return Case(args=(MODE_SCHEMAS[op], tuple(held)),
                context=(("program", program), ("call", index), ("op", op)))


@st.composite
def _mode_cases(draw: st.DrawFn) -> Case:
    program, index, _, values = _pick(draw, MODE_CALLS)
    lists = sum(1 for v in values if type(v) is tuple and v and v[0] == "list")
    return _mode_case(program, index,
                      as_tuples=tuple(_pick(draw, (False, True)) for _ in range(lists)))


# ---------------------------------------------------------------- log_line
#: the tensors the log's programs use, made before the capture
LOG_ENV = {
    "x": "torch.arange(6.0).reshape(2, 3)", "i": "torch.tensor([1, 0])",
    "s": "torch.tensor(2.5)", "n": "torch.arange(6).reshape(2, 3)",
    "b": "torch.tensor([True, False])", "img": "torch.arange(16.0).reshape(1, 1, 4, 4)",
}

#: the snippets a program is made of (none changes a tensor of ``LOG_ENV``)
LOG_SNIPPETS = (
    "v = x.view(3, 2)", "m = x * 2", "d = x / 3.0", "z = x.sum(1, dtype=torch.float64)",
    "p = x.split(2, 1)", "u = x.unbind(0)", "mx = x.max(1)", "c = torch.cat([x, x], 1)",
    "g = x[None, i]", "h = x[:, i]", "t = x.clone(); t.add_(1)", "t2 = x.clone(); t2.mul_(s)",
    "q = x.to(torch.float16)", "k = x.t().contiguous(memory_format=torch.contiguous_format)",
    "f = torch.zeros(2, 3, device='meta')", "o = torch.ones((), dtype=torch.int64)",
    "w = s + 1", "r = x.div(2, rounding_mode='floor')", "a = x.mean(-1, keepdim=True)",
    "l = torch.tensor([1.0, 2.0])", "it = s.item()", "cl = x.clamp(min=-0.5)",
    "am = x.argmax(1)", "ne = x.new_zeros(2)", "sl = x[::2]", "ex = x.expand(2, 2, 3)",
    "gl = torch.nn.functional.gelu(x, approximate='tanh')", "st = torch.stack([x, x])",
    "pm = x.permute(1, 0)", "ix = n[i]", "wh = torch.where(x > 1, x, 0.0)",
    "md = x.to('meta')", "cs = x.cumsum(0, dtype=torch.float64)", "bb = b.any()",
    "mp = torch.nn.functional.max_pool2d(img, 2)", "sq = x.unsqueeze(-1).squeeze(-1)",
    "sr = x.sort(1, True)", "eq = x.eq(n)", "ch = x.chunk(3, 1)", "ar = torch.arange(3)",
    "em = torch.empty(0, device='meta')", "lt = x[i, None]", "e0 = s.exp()",
    "hf = x.half().float()", "pw = x ** 2",
)

#: torch's short names of the dtypes (``torch.utils._dtype_abbrs.dtype_abbrs``)
DTYPE_ABBRS = {
    "bool": "b8", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
}


def _log_env(torch) -> dict[str, Any]:
    env = {"torch": torch}
    for name, made in LOG_ENV.items():
        env[name] = eval(made, {"torch": torch})  # the module's own text
    return env


def record_log(snippets) -> tuple[list[tuple], list[str]]:
    """Run the snippets in torch under ``capture_logs_with_logging_tensor_mode()``: each
    call as ``(name, args, kwargs, out)`` in plain data (each tensor as ``("tensor", name,
    dtype, shape)``, named as ``LOG_CALLS`` names them) and the log's lines as torch wrote
    them."""
    if any(snippet not in LOG_SNIPPETS for snippet in snippets):  # only the module's own
        raise ValueError("record_log runs only the snippets of LOG_SNIPPETS")  # text, as root
    import logging

    torch = _torch()
    from torch.testing._internal.logging_tensor import capture_logs_with_logging_tensor_mode
    from torch.utils.weak import WeakTensorKeyDictionary

    env = _log_env(torch)
    # each tensor's name, held weakly as torch's handler holds its numbers: a reference kept
    # to a factory's result would make torch detach it (``make_variable`` shares no impl
    # that another holds), a call the log would show
    names = WeakTensorKeyDictionary()
    for name in LOG_ENV:
        names[env[name]] = name
    made = [0]
    calls: list = []

    def tensor(t):
        if t not in names:
            made[0] += 1
            names[t] = f"r{made[0]}"
        return ("tensor", names[t], repr(t.dtype).removeprefix("torch."), tuple(t.shape))

    class Keep(logging.Handler):
        """Each call, as plain data at once (the handler keeps no tensor)."""

        def emit(self, record):
            args, kwargs, out = record.args
            calls.append((record.msg.replace("torch.", "reftensor.", 1),
                          tuple(_plain(a, tensor) for a in args),
                          tuple((k, _plain(v, tensor)) for k, v in kwargs.items()),
                          _plain(out, tensor)))

    keep = Keep()
    # torch's capture leaves its logger not propagating, and pytest (8.4) hands its own
    # handlers, which cannot format these records, to every logger that does not propagate:
    # the capture runs with only its handler and ``keep``, and the logger is put back as found
    logger = logging.getLogger("LoggingTensor")
    found = (logger.propagate, list(logger.handlers))
    for handler in found[1]:
        logger.removeHandler(handler)
    try:
        with capture_logs_with_logging_tensor_mode() as logs:
            logger.addHandler(keep)
            try:
                for snippet in snippets:
                    exec(snippet, env)  # the module's own snippets
            finally:
                logger.removeHandler(keep)
    finally:
        logger.propagate = found[0]
        for handler in found[1]:
            logger.addHandler(handler)
    return calls, list(logs)


def _renamed(node: Any, shift: int) -> Any:
    """A stored value with its new tensors (``r<k>``) numbered ``shift`` further."""
    if type(node) is not tuple:
        return node
    if node[0] == "tensor":
        name = node[1]
        return ("tensor", f"r{int(name[1:]) + shift}" if name[:1] == "r" and name[1:].isdigit()
                else name, *node[2:])
    if node[0] in ("list", "tuple"):
        return (node[0], *(_renamed(v, shift) for v in node[1:]))
    return node


def _new_tensors(calls) -> int:
    found = set()

    def visit(node):
        if type(node) is tuple and node and node[0] == "tensor":
            if node[1] not in LOG_ENV:
                found.add(node[1])
        elif type(node) is tuple:
            for v in node:
                visit(v)

    visit(calls)
    return len(found)


def log_program(snippets) -> tuple:
    """The stored calls of a program of ``snippets`` (``LOG_CALLS``'s, the new tensors of
    each snippet numbered after those of the snippets before it)."""
    calls, shift = [], 0
    for snippet in snippets:
        own = LOG_CALLS[snippet]
        calls += [(name, tuple(_renamed(a, shift) for a in args),
                   tuple((k, _renamed(v, shift)) for k, v in kwargs), _renamed(out, shift))
                  for name, args, kwargs, out in own]
        shift += _new_tensors(own)
    return tuple(calls)


class _Tensor:
    """A tensor as ``log_line`` sees one: its dtype and its shape, nothing else."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: Any, shape: tuple[int, ...]) -> None:
        self.dtype, self.shape = dtype, shape

    def __repr__(self) -> str:
        return f"<a tensor: {self.dtype!r}, {self.shape}>"


class _Constant:
    """A dtype, device, layout or memory format: its repr is reftensor's."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


def _call_log(answer, case: Case) -> list[str]:
    """How a check calls ``log_line``: once per call of the program, in order, on stand-ins
    (one per tensor, with ``.dtype`` and ``.shape``; dtypes, devices, layouts and memory
    formats whose repr is reftensor's), with one ``shortid`` for the whole program (the next
    number for a tensor stand-in it has not seen, None for anything else) and ``abbrs`` (a
    stand-in dtype's short name). Returns the lines."""
    (calls,) = case.args
    constants: dict[str, _Constant] = {}
    tensors: dict[str, _Tensor] = {}

    def constant(text: str) -> _Constant:
        return constants.setdefault(text, _Constant(text))

    def value(node: Any) -> Any:
        if type(node) is not tuple:
            return node
        kind, *items = node
        if kind == "tensor":
            name, dtype, shape = items
            return tensors.setdefault(name, _Tensor(constant(f"reftensor.{dtype}"),
                                                    tuple(shape)))
        if kind in ("list", "tuple"):
            items = [value(v) for v in items]
            return items if kind == "list" else tuple(items)
        return constant(_text_of(kind, items[0]))

    ids: dict[int, int] = {}

    def shortid(t: Any) -> int | None:
        if type(t) is not _Tensor:
            return None
        return ids.setdefault(id(t), len(ids))

    abbrs = {constant(f"reftensor.{name}"): short for name, short in DTYPE_ABBRS.items()}
    lines = []
    for name, args, kwargs, out in calls:
        lines.append(answer(name, tuple(value(a) for a in args),
                            {k: value(v) for k, v in kwargs}, value(out), shortid,
                            dict(abbrs)))
    return lines


def run_log(answer, calls) -> list[str]:
    """Run ``answer`` (a ``log_line``) on a failing case's calls as the check does."""
    return _call_log(answer, Case(args=(calls,)))


def _log_reference(c: Case) -> list[str]:
    snippets = c.ctx("snippets")
    calls, lines = record_log(snippets)
    if tuple(calls) != c.args[0]:
        raise ValueError(f"the stored calls of {snippets!r} are not what torch logs now: "
                         "rebuild LOG_CALLS (log_table())")
    return [line.replace("torch.", "reftensor.") for line in lines]


def _log_truth(c: Case) -> str:
    made = "; ".join(f"{n} = {m}" for n, m in LOG_ENV.items())
    return (f"{made}; then with capture_logs_with_logging_tensor_mode() as logs: "
            f"{'; '.join(c.ctx('snippets'))}; the lines with 'torch.' replaced by "
            "'reftensor.'")


def log_table() -> dict[str, tuple]:
    """``LOG_CALLS`` as torch gives it now (the tests compare)."""
    return {snippet: tuple(record_log([snippet])[0]) for snippet in LOG_SNIPPETS}


def _log_case(*snippets: str) -> Case:
    return Case(args=(log_program(snippets),), context=(("snippets", tuple(snippets)),))


@st.composite
def _log_cases(draw: st.DrawFn) -> Case:
    count = _pick(draw, (1, 2, 2, 3, 3, 4))
    return _log_case(*(_pick(draw, LOG_SNIPPETS) for _ in range(count)))


# ---------------------------------------------------------------- the stored cases
# ``MODE_SCHEMAS``, ``MODE_CALLS`` and ``LOG_CALLS`` live in ``ch09_data`` (imported above),
# written by ``write_data()`` from torch 2.13 (``mode_table()`` and ``log_table()``;
# tests/test_ch09_exercises.py compares them with what torch gives now).


# ---------------------------------------------------------------- the last two exercises
register(Exercise(
    name="mode_arguments",
    chapter=CHAPTER,
    signature="mode_arguments(arguments, values) -> (args, kwargs); checked through "
              "run_mode_arguments (arguments: (name, kwarg_only, has_default, default, "
              "is_list) each; values: a list as ('list', ...), a tuple as ('tuple', ...))",
    fixed=(
        _mode_case("x.sum(1)"),                               # trailing defaults left out
        _mode_case("x.add(y, alpha=1.0)"),                    # 1.0 is not the default 1
        _mode_case("x.add(y, alpha=1)"),                      # a keyword-only default
        _mode_case("b.add(b, alpha=True)"),                   # True is not the default 1
        _mode_case("F.max_pool2d(img, 2, padding=0)",         # int[2] padding=0 given as 0;
                   as_tuples=(True, False, False, False)),  # a list equals a tuple default
        _mode_case("F.max_pool2d(img, (2, 1), dilation=2)"),  # defaults before a given one
        _mode_case("torch.zeros((2,), device='meta')"),       # a factory's keyword-only ones
        _mode_case("x[:, i]", as_tuples=False),               # None in a list, given as a list
        _mode_case("x.std(1, keepdim=True)"),
        _mode_case("x.topk(2, largest=False)"),               # a default kept in the middle
    ),
    edge=(
        _mode_case("x.clamp(-1.5, None)"),
        _mode_case("x.to('meta')"),
        _mode_case("x.var(None, correction=2.0)"),
        _mode_case("x.sum()"),
        _mode_case("torch.full((), True)", as_tuples=False),
        _mode_case("torch.cat([x, y], dim=0)", as_tuples=False),
        _mode_case("F.layer_norm(x, (3,))"),
        _mode_case("x.div(2, rounding_mode=None)"),
        _mode_case("F.gelu(x, approximate='none')"),
        _mode_case("torch.arange(0, 6, 2)"),
    ),
    strategy=_mode_cases,
    reference=_mode_reference,
    truth=_mode_truth,
    hidden_examples=100,
    call=_call_mode,
    call_shown="autograder.course.exercises.ch09_dispatch:run_mode_arguments",
))

register(Exercise(
    name="log_line",
    chapter=CHAPTER,
    signature="log_line(name, args, kwargs, out, shortid, abbrs) -> str; checked through "
              "run_log (a case: the program's calls, each (name, args, kwargs pairs, out), a "
              "tensor as ('tensor', name, dtype, shape)): the lines, one call at a time",
    fixed=(
        _log_case("v = x.view(3, 2)"),                         # a list of ints, as strings
        _log_case("w = s + 1"),                                # 0-d: f32[]
        _log_case("mx = x.max(1)", "p = x.split(2, 1)"),       # a tuple, then a list, of results
        _log_case("h = x[:, i]"),                              # None and a tensor in a list
        _log_case("t = x.clone(); t.add_(1)"),                 # in place: the same number back
        _log_case("z = x.sum(1, dtype=torch.float64)",
                  "r = x.div(2, rounding_mode='floor')"),      # keyword arguments: reprs
        _log_case("f = torch.zeros(2, 3, device='meta')"),     # a factory on meta
        _log_case("k = x.t().contiguous(memory_format=torch.contiguous_format)",
                  "q = x.to(torch.float16)"),
    ),
    edge=(
        _log_case("it = s.item()"),
        _log_case("l = torch.tensor([1.0, 2.0])"),
        _log_case("md = x.to('meta')"),
        _log_case("wh = torch.where(x > 1, x, 0.0)"),
        _log_case("c = torch.cat([x, x], 1)", "st = torch.stack([x, x])"),
        _log_case("sl = x[::2]", "em = torch.empty(0, device='meta')"),
        _log_case("g = x[None, i]", "ix = n[i]", "lt = x[i, None]"),
    ),
    strategy=_log_cases,
    reference=_log_reference,
    truth=_log_truth,
    hidden_examples=100,
    call=_call_log,
    call_shown="autograder.course.exercises.ch09_dispatch:run_log",
))


# ---------------------------------------------------------------- node_name
#: the names torch's generated code reads as globals besides Python's keywords and builtins
#: (``torch.fx.graph._custom_builtins``): a case's ``reserved`` (reftensor's library passes
#: its own, with ``reftensor``; torch takes ``reftensor`` for an ordinary name)
TORCH_RESERVED = ("NoneType", "device", "fx_pytree", "inf", "nan", "pytree", "torch")

#: families of candidates a case draws its names from (one or two families a case, so that
#: names repeat and meet their numbered forms); every one a Python name (make_fx's namespace
#: cleans a candidate's characters before the piece sees it), none whose meaning as a name
#: depends on where the code runs (``None``, ``True``, ``False``, ``_``, IPython's builtins)
NAME_FAMILIES = (
    ("add", "add", "add_1", "add_2", "add_3", "add_", "add_", "add__1"),
    ("x", "x_1", "x_1", "x_2", "x_01", "x_1_1", "y_1"),
    ("sum", "sum", "sum_1", "sum_2", "max", "max_1", "slice", "input", "id"),
    ("if", "if_1", "for", "lambda", "class", "add"),
    ("device", "device_1", "inf", "nan", "torch", "torch_1", "NoneType", "pytree",
     "fx_pytree"),
    ("reftensor", "reftensor", "reftensor_1", "getitem", "getitem_3", "getitem", "mm",
     "_tensor_constant0", "arg0_1", "detach", "detach"),
)


def _call_names(answer, case: Case) -> list[str]:
    """How a check calls ``node_name``: once per candidate, in order, with one ``taken`` set
    and one ``last`` dict (both empty at first) and the case's ``reserved`` (a frozenset);
    returns the names given."""
    candidates, reserved = case.args
    taken: set[str] = set()
    last: dict[str, int] = {}
    names = []
    for candidate in candidates:
        name = answer(candidate, taken, last, frozenset(reserved))
        if not isinstance(name, str):
            raise TypeError(f"node_name gave a {type(name).__name__}, not a str")
        names.append(name)
    return names


def run_node_names(answer, candidates, reserved=TORCH_RESERVED) -> list[str]:
    """Run ``answer`` (a ``node_name``) on a failing case's candidates as the check does."""
    return _call_names(answer, Case(args=(tuple(candidates), tuple(reserved))))


def _names_reference(c: Case) -> list[str]:
    from torch.fx import graph as fx_graph

    candidates, reserved = c.args
    if set(reserved) != set(fx_graph._custom_builtins):  # torch reserves its own names only
        raise ValueError(f"a case's reserved names {reserved!r} are not torch's "
                         f"{sorted(fx_graph._custom_builtins)!r}")
    namespace = fx_graph._Namespace()
    return [namespace.create_name(candidate, None) for candidate in candidates]


def _names_truth(c: Case) -> str:
    candidates, _ = c.args
    return (f"ns = torch.fx.graph._Namespace(); [ns.create_name(c, None) for c in "
            f"{list(candidates)!r}]")


def _names_case(*candidates: str) -> Case:
    return Case(args=(tuple(candidates), TORCH_RESERVED))


@st.composite
def _names_cases(draw: st.DrawFn) -> Case:
    families = NAME_FAMILIES[_pick(draw, range(len(NAME_FAMILIES)))]
    if _pick(draw, (False, True)):
        families += NAME_FAMILIES[_pick(draw, range(len(NAME_FAMILIES)))]
    count = _pick(draw, (2, 3, 4, 5, 6, 7, 8, 9))
    return _names_case(*(_pick(draw, families) for _ in range(count)))


register(Exercise(
    name="node_name",
    chapter=CHAPTER,
    signature="node_name(candidate, taken, last, reserved) -> str (records the name in "
              "taken and its number in last); checked through run_node_names (a case: the "
              "candidates, and reserved: torch's _custom_builtins names)",
    fixed=(
        _names_case("x_1", "y_1", "x"),                            # free numbered names kept
        _names_case("add", "add", "add_1", "add"),                 # a repeat: the next free
        _names_case("sum", "max", "slice", "sum"),                 # builtins: _1 at once
        _names_case("if", "lambda", "if"),                         # keywords
        _names_case("device", "inf", "torch", "reftensor"),        # reserved; reftensor is not
        _names_case("add_", "add_", "add__1", "add_"),             # in place: the stem add_
        _names_case("x_1", "x_1", "x"),                            # a numbered one taken
        _names_case("getitem", "getitem_3", "getitem", "getitem"),  # the last number counts
    ),
    edge=(
        _names_case("x_01", "x_1", "x", "x"),
        _names_case("x_1_1", "x_1", "x_1", "x_1_1"),
        _names_case("sum_1", "sum", "sum"),
        _names_case("max_1", "max", "max_2", "max"),
        _names_case("torch_1", "torch", "device", "device_1", "device"),
        _names_case("add_2", "add", "add", "add_1", "add"),
        _names_case("arg0_1", "arg0_1", "_tensor_constant0", "_tensor_constant0"),
        _names_case("NoneType", "nan", "pytree", "fx_pytree", "for", "class", "input", "id"),
    ),
    strategy=_names_cases,
    reference=_names_reference,
    truth=_names_truth,
    hidden_examples=100,
    call=_call_names,
    call_shown="autograder.course.exercises.ch09_dispatch:run_node_names",
))


# ---- __torch_function__ (exercises 6 and 7)
# A case names a class tree: ``classes`` is a tuple of ``(name, parent)`` pairs, each parent
# "Tensor" (the plain tensor class) or a class named before it. The check builds plain Python
# stand-ins for it (``Tensor`` an empty class, each other class ``type(name, (parent,), {})``);
# the references build torch.Tensor subclasses of the same names and ask torch.

def _stand_in_classes(classes) -> dict[str, type]:
    """The stand-in classes of a case's tree, by name ("Tensor" the base)."""
    def as_subclass(self, cls):
        new = object.__new__(cls)
        new.source = self  # (what it was made from: not shown to the check's result)
        return new

    built: dict[str, type] = {"Tensor": type("Tensor", (), {"as_subclass": as_subclass})}
    for name, parent in classes:
        built[name] = type(name, (built[parent],), {})
    return built


def _torch_classes(classes, tried: list | None = None) -> dict[str, type]:
    """torch.Tensor subclasses of a case's tree; with ``tried``, each one's
    ``__torch_function__`` records ``(its class, the types it was given)`` there and returns
    NotImplemented."""
    torch = _torch()
    built: dict[str, type] = {"Tensor": torch.Tensor}
    for name, parent in classes:
        body = {}
        if tried is not None:
            def tf(cls, func, types, args=(), kwargs=None):
                tried.append((cls.__name__, [t.__name__ for t in types]))
                return NotImplemented
            body["__torch_function__"] = classmethod(tf)
        built[name] = type(name, (built[parent],), body)
    return built


# ---------------------------------------------------------------- overloaded_args
def _call_overloaded(answer, case: Case) -> list[str]:
    """How a check calls ``overloaded_args``: once, with the stand-in classes of the call's
    arguments (a list, in the arguments' order; "Tensor" is the base class itself) and the
    base; returns the names of the classes it lists."""
    classes, arguments = case.args
    built = _stand_in_classes(classes)
    order = answer([built[a] for a in arguments], built["Tensor"])
    if not isinstance(order, list | tuple):
        raise TypeError(f"overloaded_args gave a {type(order).__name__}, not a list")
    return [c.__name__ if isinstance(c, type) else repr(c) for c in order]


def run_overloaded_args(answer, classes, arguments) -> list[str]:
    """Run ``answer`` (an ``overloaded_args``) on a failing case as the check does."""
    return _call_overloaded(answer, Case(args=(tuple(classes), tuple(arguments))))


def _overloaded_reference(c: Case) -> list[str]:
    """torch: ``torch.stack`` of one tensor per argument, of its class, each class's
    ``__torch_function__`` returning NotImplemented; the classes in the order torch asked
    them (every one got that list as ``types``)."""
    torch = _torch()
    classes, arguments = c.args
    tried: list = []
    built = _torch_classes(classes, tried)
    tensors = [torch.zeros(2) if a == "Tensor" else torch.zeros(2).as_subclass(built[a])
               for a in arguments]
    with contextlib.suppress(TypeError):  # every handler returned NotImplemented
        torch.stack(tensors)
    order = [name for name, _ in tried]
    if any(types != order for _, types in tried):
        raise AssertionError(f"torch gave types unlike the order it asked: {tried}")
    return order


def _overloaded_truth(c: Case) -> str:
    classes, arguments = c.args
    return (f"classes {list(classes)} (name, parent) as torch.Tensor subclasses, each "
            f"__torch_function__ recording its class and returning NotImplemented; "
            f"torch.stack([one tensor of each of {list(arguments)}]): the classes asked")


def _overloaded_case(classes, *arguments: str) -> Case:
    return Case(args=(tuple(classes), tuple(arguments)))


#: class trees the hidden cases draw from
CLASS_TREES = (
    (("A", "Tensor"),),
    (("A", "Tensor"), ("B", "Tensor")),
    (("A", "Tensor"), ("C", "A")),
    (("A", "Tensor"), ("B", "Tensor"), ("C", "A")),
    (("A", "Tensor"), ("C", "A"), ("D", "C")),
    (("A", "Tensor"), ("B", "Tensor"), ("C", "A"), ("D", "B")),
    (("A", "Tensor"), ("B", "A"), ("C", "A"), ("D", "C"), ("E", "Tensor")),
)


@st.composite
def _overloaded_cases(draw: st.DrawFn) -> Case:
    classes = CLASS_TREES[_pick(draw, range(len(CLASS_TREES)))]
    names = ["Tensor", *(name for name, _ in classes)]
    count = _pick(draw, (1, 2, 3, 4, 5, 6))
    return _overloaded_case(classes, *(_pick(draw, names) for _ in range(count)))


_AB = (("A", "Tensor"), ("B", "Tensor"))
_ABC = (("A", "Tensor"), ("B", "Tensor"), ("C", "A"))
_ACD = (("A", "Tensor"), ("C", "A"), ("D", "C"))
_ABCD = (("A", "Tensor"), ("B", "Tensor"), ("C", "A"), ("D", "B"))

register(Exercise(
    name="overloaded_args",
    chapter=CHAPTER,
    signature="overloaded_args(types, base) -> list of classes (types: the classes of the "
              "call's tensor arguments, in order; base: the plain tensor class); checked "
              "through run_overloaded_args (a case: the class tree as (name, parent) pairs, "
              "and the arguments' class names)",
    fixed=(
        _overloaded_case((("A", "Tensor"),), "A"),             # one subclass
        _overloaded_case(_AB, "A", "B"),                        # unrelated: as they come
        _overloaded_case(_AB, "B", "A"),
        _overloaded_case(_ABC, "A", "C"),                       # a subclass first
        _overloaded_case(_AB, "Tensor", "A", "Tensor"),         # the base never listed
        _overloaded_case(_AB, "A", "A", "B", "A"),              # each class once
        _overloaded_case(_ACD, "A", "C", "D"),                  # a chain, reversed
        _overloaded_case(_ABCD, "A", "B", "C", "D"),            # two families
    ),
    edge=(
        _overloaded_case(_ABC, "B", "A", "C"),       # before its base, not at the front
        _overloaded_case(_ACD, "A", "D"),            # an indirect subclass goes first too
        _overloaded_case(_ACD, "D", "A", "C"),       # C before A, after D
        _overloaded_case(_AB, "Tensor", "Tensor"),   # no subclass: nothing to ask
        _overloaded_case(_ABCD, "D", "C", "B", "A"),
        _overloaded_case(_ABC, "C", "B", "A", "C"),
        _overloaded_case((("A", "Tensor"), ("B", "A"), ("C", "A"), ("D", "C"),
                          ("E", "Tensor")), "E", "A", "B", "D", "C"),
        _overloaded_case(_ABC, "Tensor", "C", "Tensor", "A"),
    ),
    strategy=_overloaded_cases,
    reference=_overloaded_reference,
    truth=_overloaded_truth,
    hidden_examples=100,
    call=_call_overloaded,
    call_shown="autograder.course.exercises.ch09_dispatch:run_overloaded_args",
))


# ---------------------------------------------------------------- convert_result
# A case's ``ret`` is plain data: ("tensor", class name) for a tensor of that class (its own
# object), ("tuple", items), ("list", items), ("max", items) for a named result (torch's
# ``torch.return_types.max``; a stand-in ``collections.namedtuple("max", "values indices")``),
# ("Size", ints) for a shape, and a number, None or a string as itself.

def _stand_in_value(spec, built: dict[str, type]):
    import collections

    if isinstance(spec, tuple) and spec and spec[0] == "tensor":
        return object.__new__(built[spec[1]])
    if isinstance(spec, tuple) and spec and spec[0] in ("tuple", "list", "max", "Size"):
        items = [_stand_in_value(s, built) for s in spec[1]]
        if spec[0] == "max":
            return collections.namedtuple("max", "values indices")(*items)
        if spec[0] == "Size":
            return type("Size", (tuple,), {})(items)
        return tuple(items) if spec[0] == "tuple" else items
    return spec


def _torch_value(spec, built: dict[str, type]):
    torch = _torch()
    if isinstance(spec, tuple) and spec and spec[0] == "tensor":
        t = torch.zeros(2)
        return t if spec[1] == "Tensor" else t.as_subclass(built[spec[1]])
    if isinstance(spec, tuple) and spec and spec[0] in ("tuple", "list", "max", "Size"):
        items = [_torch_value(s, built) for s in spec[1]]
        if spec[0] == "max":
            return torch.return_types.max(items)
        if spec[0] == "Size":
            return torch.Size(items)
        return tuple(items) if spec[0] == "tuple" else items
    return spec


def _described(value, given, base: type):
    """A result as plain data: a tensor as ("tensor", its class's name, "same" when it is
    the object given at that place, else "new"), a tuple, list, named result or Size as
    (its kind, its items described), anything else as ("value", its repr)."""
    if isinstance(value, base):
        return ("tensor", type(value).__name__, "same" if value is given else "new")
    if isinstance(value, tuple | list):
        kind = ("max" if hasattr(value, "_fields") or type(value).__name__ == "max"
                else "Size" if type(value).__name__ == "Size"
                else "tuple" if isinstance(value, tuple) else "list")
        givens = list(given) if isinstance(given, tuple | list) else [None] * len(value)
        givens += [None] * (len(value) - len(givens))
        return (kind, tuple(_described(v, g, base) for v, g in zip(value, givens,
                                                                     strict=False)))
    return ("value", repr(value))


def _call_convert(answer, case: Case):
    """How a check calls ``convert_result``: once, on the stand-in value of the case's ``ret``
    (fresh objects), the stand-in class named ``cls`` and the base class; returns the
    result described (see ``_described``)."""
    classes, ret, cls = case.args
    built = _stand_in_classes(classes)
    given = _stand_in_value(ret, built)
    return _described(answer(given, built[cls], built["Tensor"]), given, built["Tensor"])


def run_convert_result(answer, classes, ret, cls):
    """Run ``answer`` (a ``convert_result``) on a failing case as the check does."""
    return _call_convert(answer, Case(args=(tuple(classes), ret, cls)))


def _convert_reference(c: Case):
    """torch's own ``torch._tensor._convert(ret, cls)`` on the case's value built in torch,
    described as the check describes an answer's result."""
    torch = _torch()
    from torch._tensor import _convert

    classes, ret, cls = c.args
    built = _torch_classes(classes)
    given = _torch_value(ret, built)
    return _described(_convert(given, built[cls]), given, torch.Tensor)


def _convert_truth(c: Case) -> str:
    classes, ret, cls = c.args
    return (f"torch._tensor._convert({ret!r} built in torch, {cls}) with classes "
            f"{list(classes)} (name, parent)")


def _convert_case(classes, ret, cls: str) -> Case:
    return Case(args=(tuple(classes), ret, cls))


def _t(name: str) -> tuple[str, str]:
    return ("tensor", name)


@st.composite
def _convert_values(draw: st.DrawFn, names, depth: int = 0):
    kinds = ["tensor", "tensor", "number", "none"] + (["tuple", "list", "max", "Size"]
                                                      if depth < 2 else [])
    kind = _pick(draw, kinds)
    if kind == "tensor":
        return _t(_pick(draw, names))
    if kind == "number":
        return _pick(draw, (0, 3, 2.5, True))
    if kind == "none":
        return None
    if kind == "Size":
        return ("Size", tuple(_pick(draw, (0, 1, 2, 3)) for _ in range(_pick(draw, (0, 1, 2)))))
    count = 2 if kind == "max" else _pick(draw, (0, 1, 2, 3))
    return (kind, tuple(draw(_convert_values(names, depth + 1)) for _ in range(count)))


@st.composite
def _convert_cases(draw: st.DrawFn) -> Case:
    classes = CLASS_TREES[_pick(draw, range(len(CLASS_TREES)))]
    names = ["Tensor", *(name for name, _ in classes)]
    return _convert_case(classes, draw(_convert_values(names)), _pick(draw, names))


register(Exercise(
    name="convert_result",
    chapter=CHAPTER,
    signature="convert_result(ret, cls, base) -> the result the default __torch_function__ "
              "returns; checked through run_convert_result (a case: the class tree as "
              "(name, parent) pairs, ret as plain data, cls's name)",
    fixed=(
        _convert_case(_AB, _t("Tensor"), "A"),                      # a plain result: as_subclass
        _convert_case(_AB, _t("A"), "A"),                           # already cls: itself
        _convert_case(_AB, _t("A"), "Tensor"),                      # cls is base: ret as it is
        _convert_case(_AB, ("tuple", (_t("Tensor"), _t("Tensor"))), "A"),
        _convert_case(_AB, ("max", (_t("Tensor"), _t("Tensor"))), "B"),  # a named result
        _convert_case(_AB, 3, "A"),                                 # a number
        _convert_case(_AB, None, "A"),
        _convert_case(_AB, ("list", (_t("Tensor"), 2, None)), "A"),
    ),
    edge=(
        _convert_case(_AB, _t("B"), "A"),                          # another subclass: converted
        _convert_case(_ABC, _t("C"), "A"),                         # a subclass of cls: kept
        _convert_case(_ABC, _t("A"), "C"),                         # a base of cls: converted
        _convert_case(_AB, ("Size", (2, 3)), "A"),                 # a Size: rebuilt, a Size
        _convert_case(_AB, ("tuple", (("list", (_t("Tensor"),)), _t("A"))), "A"),  # nested
        _convert_case(_AB, ("tuple", ()), "A"),                    # empty
        _convert_case(_AB, ("tuple", (_t("Tensor"), ("max", (_t("B"), _t("Tensor"))))),
                      "Tensor"),
        _convert_case(_AB, ("list", ()), "B"),
    ),
    strategy=_convert_cases,
    reference=_convert_reference,
    truth=_convert_truth,
    hidden_examples=100,
    call=_call_convert,
    call_shown="autograder.course.exercises.ch09_dispatch:run_convert_result",
))


# ---- prediction exercises: ``aten_ops`` and ``graph_breaks``, no pieces of reftensor. The
# student predicts what torch does for a few programs shown in the notebook (each case is a
# program's name), and torch 2.13 gives the truth. Their right answers are kept out of every
# sandbox: the trusted side reads them from ``ch09_answers.json`` (``runtime_files`` skips
# ``.json`` files, as it skips every expected value), written by ``write_data()``.
#: the marker between the forward's ops and the backward's in an ``aten_ops`` answer
BACKWARD = "backward"

#: the tensors ``ATEN_PROGRAMS`` use, made in this order before the mode is pushed
ATEN_ENV = (
    ("x", "torch.arange(6.0).reshape(2, 3).requires_grad_()"),
    ("b", "torch.tensor([1.0, 2.0, 3.0])"),
    ("w", "torch.ones(3, 2, requires_grad=True)"),
    ("layer", "torch.nn.Linear(3, 2)"),
)

#: each program's forward, which sets ``loss``; its ``loss.backward()`` follows
ATEN_PROGRAMS = {
    "view": "loss = x.view(3, 2).t().sum()",
    "inplace": "y = x * 2; y.add_(1); loss = y.sum()",
    "broadcast": "loss = (x + b * 0.5).sum()",
    "sum": "loss = x.sum(1).sum()",
    "matmul": "loss = (x @ w).sum()",
    "linear": "loss = layer(x).relu().mean()",
    "index": "loss = x[:, 1].sum()",
    "square": "loss = ((x - 1) ** 2).mean()",
}

#: where ``write_data()`` writes the stored cases and the prediction exercises' answers
DATA_PATH = Path(__file__).with_name("ch09_data.py")
ANSWERS_PATH = Path(__file__).with_name("ch09_answers.json")


def stored_answers() -> dict[str, dict[str, Any]]:
    """The prediction exercises' stored answers (``ch09_answers.json``: read on the trusted
    side only, where torch is)."""
    import json

    with open(ANSWERS_PATH, encoding="utf-8") as file:
        return json.load(file)


def _aten_env(torch) -> dict[str, Any]:
    env = {"torch": torch}
    for name, made in ATEN_ENV:
        env[name] = eval(made, env)  # the module's own text
    return env


def record_aten_ops(program: str) -> list[str]:
    """The ops (``str(func)``) a ``TorchDispatchMode`` sees for ``ATEN_PROGRAMS[program]``
    run in torch, then ``BACKWARD``, then those of its ``loss.backward()``."""
    if program not in ATEN_PROGRAMS:  # only the module's own text is ever run, as root
        raise ValueError("record_aten_ops runs only the programs of ATEN_PROGRAMS")
    torch = _torch()
    from torch.utils._python_dispatch import TorchDispatchMode

    ops: list[str] = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            ops.append(str(func))
            return func(*args, **(kwargs or {}))

    env = _aten_env(torch)
    with Record():
        exec(ATEN_PROGRAMS[program], env)  # the module's own programs
        ops.append(BACKWARD)
        env["loss"].backward()
    return ops


def aten_table() -> dict[str, list[str]]:
    """``aten_ops``'s stored answers as torch gives them now (the tests compare)."""
    return {program: record_aten_ops(program) for program in ATEN_PROGRAMS}


def _call_aten_ops(answer, case: Case) -> list:
    """How a check calls ``aten_ops``: on the program's name; its ops read as a list."""
    found = answer(case.args[0])
    if not isinstance(found, list | tuple):
        raise TypeError(f"aten_ops gave a {type(found).__name__}, not a list of op names")
    return list(found)


def _aten_reference(c: Case) -> list[str]:
    (program,) = c.args
    ops = record_aten_ops(program)
    if ops != stored_answers()["aten_ops"][program]:
        raise ValueError(f"the stored ops of {program!r} are not what torch records now: "
                         "rebuild ch09_answers.json (write_data())")
    return ops


def _aten_truth(c: Case) -> str:
    made = "; ".join(f"{name} = {text}" for name, text in ATEN_ENV)
    return (f"{made}; then, under a TorchDispatchMode that records str(func) of each call: "
            f"{ATEN_PROGRAMS[c.args[0]]}, the marker {BACKWARD!r}, loss.backward()")


@st.composite
def _aten_cases(draw: st.DrawFn) -> Case:
    return Case(args=(_pick(draw, ATEN_PROGRAMS),))


register(Exercise(
    name="aten_ops",
    chapter=CHAPTER,
    signature="aten_ops(program) -> list of str: the forward's ops, 'backward', the "
              "backward's ops, each as str(func) ('aten.mul.Tensor')",
    fixed=tuple(Case(args=(p,)) for p in ("inplace", "broadcast", "matmul")),
    edge=tuple(Case(args=(p,)) for p in ("view", "sum", "linear", "index", "square")),
    strategy=_aten_cases,
    reference=_aten_reference,
    truth=_aten_truth,
    hidden_examples=10,
    call=_call_aten_ops,
))

#: small functions, each called once on ``torch.ones(3)`` by ``torch._dynamo.explain``
#: (``SEEN``, a global list, starts empty)
GRAPH_FUNCTIONS = {
    "no_break": (
        "def f(x):\n"
        "    y = torch.sin(x) * 2\n"
        "    return torch.cos(y) + x.sum()\n"),
    "branch": (
        "def f(x):\n"
        "    y = torch.sin(x)\n"
        "    if y.sum() > 0:\n"
        "        y = y * 2\n"
        "    return torch.cos(y)\n"),
    "print": (
        "def f(x):\n"
        "    y = torch.sin(x)\n"
        "    print('y computed')\n"
        "    return torch.cos(y)\n"),
    "item": (
        "def f(x):\n"
        "    n = x.sum().item()\n"
        "    return torch.sin(x) * n\n"),
    "side_effect": (
        "def f(x):\n"
        "    SEEN.append(x.shape)\n"
        "    return torch.sin(x) + len(SEEN)\n"),
    "two_breaks": (
        "def f(x):\n"
        "    y = torch.sin(x)\n"
        "    print('one')\n"
        "    y = y + 1\n"
        "    print('two')\n"
        "    return torch.cos(y)\n"),
    "loop": (
        "def f(x):\n"
        "    for k in range(3):\n"
        "        x = x * 2 + k\n"
        "    return x\n"),
}


def op_name(target: Any) -> str:
    """An op of ``explain``'s ``ops_per_graph`` (a ``call_function`` node's target) in the
    form the answers use: its ``__name__`` (``torch.sin`` is ``"sin"``, ``operator.mul``,
    what ``x * 2`` captures, ``"mul"``)."""
    return target if isinstance(target, str) else target.__name__


def explain_function(name: str) -> tuple[int, int, list[list[str]]]:
    """``torch._dynamo.explain(f)(torch.ones(3))`` for ``GRAPH_FUNCTIONS[name]``: the graph
    count, the graph break count and each graph's ops (``op_name``). What ``f`` prints and
    Dynamo's warnings are kept out of the caller's streams."""
    if name not in GRAPH_FUNCTIONS:  # only the module's own text is ever run, as root
        raise ValueError("explain_function runs only the functions of GRAPH_FUNCTIONS")
    import io
    import logging

    torch = _torch()
    env: dict[str, Any] = {"torch": torch, "SEEN": []}
    exec(GRAPH_FUNCTIONS[name], env)  # the module's own functions
    logger = logging.getLogger("torch._dynamo")
    level = logger.level
    logger.setLevel(logging.ERROR)  # .item()'s graph break warns on stderr
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            report = torch._dynamo.explain(env["f"])(torch.ones(3))
    finally:
        logger.setLevel(level)
    return (report.graph_count, report.graph_break_count,
            [[op_name(op) for op in ops] for ops in report.ops_per_graph])


def graph_table() -> dict[str, list]:
    """``graph_breaks``'s stored answers as torch gives them now (the tests compare)."""
    return {name: list(explain_function(name)) for name in GRAPH_FUNCTIONS}


def _call_graph_breaks(answer, case: Case) -> tuple[Any, Any, list]:
    """How a check calls ``graph_breaks``: on the function's name; its three values read as
    a tuple, each graph's ops as a list."""
    graphs, breaks, ops = answer(case.args[0])
    return graphs, breaks, [list(graph) for graph in ops]


def _graph_reference(c: Case) -> tuple[int, int, list[list[str]]]:
    (name,) = c.args
    found = explain_function(name)
    if list(found) != stored_answers()["graph_breaks"][name]:
        raise ValueError(f"the stored report of {name!r} is not what torch explains now: "
                         "rebuild ch09_answers.json (write_data())")
    return found


def _graph_truth(c: Case) -> str:
    return (f"f = the function {c.args[0]!r} the notebook shows (GRAPH_FUNCTIONS); SEEN = []; "
            "r = torch._dynamo.explain(f)(torch.ones(3)): "
            "(r.graph_count, r.graph_break_count, [[op.__name__ for op in ops] for ops in "
            "r.ops_per_graph])")


@st.composite
def _graph_cases(draw: st.DrawFn) -> Case:
    return Case(args=(_pick(draw, GRAPH_FUNCTIONS),))


register(Exercise(
    name="graph_breaks",
    chapter=CHAPTER,
    signature="graph_breaks(function) -> (graph_count, graph_break_count, ops_per_graph): "
              "each graph's ops as a list of their __name__",
    fixed=tuple(Case(args=(n,)) for n in ("no_break", "branch", "print")),
    edge=tuple(Case(args=(n,)) for n in ("item", "side_effect", "two_breaks", "loop")),
    strategy=_graph_cases,
    reference=_graph_reference,
    truth=_graph_truth,
    hidden_examples=10,
    call=_call_graph_breaks,
))


# ---------------------------------------------------------------- writing the stored data
def _lines(value: Any, indent: int, prefix: str = "", suffix: str = "") -> list[str]:
    """``value`` (dicts, tuples, lists, strings, numbers, None) as lines of Python of at most
    100 columns: whole where it fits, else one entry a line (a dict) or as many items a line
    as fit (a tuple or list), each item that does not fit broken the same way."""
    pad, inner = " " * indent, " " * (indent + 4)
    whole = f"{pad}{prefix}{value!r}{suffix}"
    if len(whole) <= 100 or type(value) not in (dict, tuple, list) or not value:
        return [whole]
    opening, closing = {dict: "{}", tuple: "()", list: "[]"}[type(value)]
    items = ([(f"{k!r}: ", v) for k, v in value.items()] if type(value) is dict
             else [("", v) for v in value])
    out, line = [f"{pad}{prefix}{opening}"], ""
    for key, item in items:
        piece = f"{key}{item!r},"
        if type(value) is not dict and len(inner) + len(line) + 1 + len(piece) <= 100:
            line = f"{line} {piece}" if line else piece
            continue
        if line:
            out.append(inner + line)
            line = ""
        if type(value) is not dict and len(inner) + len(piece) <= 100:
            line = piece
        else:
            out += _lines(item, indent + 4, key, ",")
    if line:
        out.append(inner + line)
    return [*out, f"{pad}{closing}{suffix}"]


DATA_HEAD = '''"""The cases chapter 9's exercises store, as torch 2.13 gave them: written by
``ch09_dispatch.write_data()`` (do not edit; tests/test_ch09_exercises.py compares them with what
torch gives now).

* ``MODE_SCHEMAS``: each op's schema arguments, ``(name, kwarg_only, has_default, default,
  is_list)`` (``mode_table()``);
* ``MODE_CALLS``: ``(program, call, op, values)`` of each call of ``MODE_PROGRAMS``
  (``mode_table()``);
* ``LOG_CALLS``: each snippet's logged calls, ``(name, args, kwargs, out)`` (``log_table()``).
"""

from __future__ import annotations

'''


def data_text(schemas: dict, calls: tuple, logs: dict) -> str:
    """The text of ``ch09_data.py`` holding these tables."""
    parts = [DATA_HEAD]
    for name, kind, value in (("MODE_SCHEMAS", "dict[str, tuple]", schemas),
                              ("MODE_CALLS", "tuple", calls),
                              ("LOG_CALLS", "dict[str, tuple]", logs)):
        parts.append("\n".join(_lines(value, 0, f"{name}: {kind} = ")) + "\n")
    return "".join(parts)


def answers_text(aten: dict, graphs: dict) -> str:
    """The text of ``ch09_answers.json`` holding these answers."""
    import json

    return json.dumps({"aten_ops": aten, "graph_breaks": graphs}, indent=1) + "\n"


def write_data() -> None:
    """Write ``ch09_data.py`` and ``ch09_answers.json`` from what torch gives now."""
    schemas, calls = mode_table()
    with open(DATA_PATH, "w", encoding="utf-8") as file:
        file.write(data_text(schemas, calls, log_table()))
    with open(ANSWERS_PATH, "w", encoding="utf-8") as file:
        file.write(answers_text(aten_table(), graph_table()))
