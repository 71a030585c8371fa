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
from typing import Any, NamedTuple

from hypothesis import strategies as st

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
# Written by ``mode_table()`` and ``log_table()`` from torch 2.13 (tests/test_ch09_exercises.py
# compares them with what torch gives now).
MODE_SCHEMAS: dict[str, tuple] = {
    'aten._log_softmax.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('half_to_float', False, False, None, False),
    ),
    'aten._softmax.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('half_to_float', False, False, None, False),
    ),
    'aten._to_copy.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('non_blocking', True, True, False, False),
        ('memory_format', True, True, None, False),
    ),
    'aten.add.Tensor': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.addmm.default': (
        ('self', False, False, None, False), ('mat1', False, False, None, False),
        ('mat2', False, False, None, False), ('beta', True, True, 1, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.amax.default': (
        ('self', False, False, None, False), ('dim', False, True, ('tuple',), True),
        ('keepdim', False, True, False, False),
    ),
    'aten.arange.default': (
        ('end', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.arange.start': (
        ('start', False, False, None, False), ('end', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.arange.start_step': (
        ('start', False, False, None, False), ('end', False, False, None, False),
        ('step', False, True, 1, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.argmax.default': (
        ('self', False, False, None, False), ('dim', False, True, None, False),
        ('keepdim', False, True, False, False),
    ),
    'aten.cat.default': (('tensors', False, False, None, True), ('dim', False, True, 0, False)),
    'aten.clamp.default': (
        ('self', False, False, None, False), ('min', False, True, None, False),
        ('max', False, True, None, False),
    ),
    'aten.clone.default': (
        ('self', False, False, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.constant_pad_nd.default': (
        ('self', False, False, None, False), ('pad', False, False, None, True),
        ('value', False, True, 0, False),
    ),
    'aten.cumsum.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('dtype', True, True, None, False),
    ),
    'aten.div.Tensor_mode': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('rounding_mode', True, False, None, False),
    ),
    'aten.empty.memory_format': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.empty_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.expand.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('implicit', True, True, False, False),
    ),
    'aten.full.default': (
        ('size', False, False, None, True), ('fill_value', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.full_like.default': (
        ('self', False, False, None, False), ('fill_value', False, False, None, False),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
        ('memory_format', True, True, None, False),
    ),
    'aten.gelu.default': (
        ('self', False, False, None, False), ('approximate', True, True, 'none', False),
    ),
    'aten.gt.Scalar': (('self', False, False, None, False), ('other', False, False, None, False)),
    'aten.index.Tensor': (
        ('self', False, False, None, False), ('indices', False, False, None, True),
    ),
    'aten.masked_fill.Scalar': (
        ('self', False, False, None, False), ('mask', False, False, None, False),
        ('value', False, False, None, False),
    ),
    'aten.max.dim': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
        ('keepdim', False, True, False, False),
    ),
    'aten.max_pool2d_with_indices.default': (
        ('self', False, False, None, False), ('kernel_size', False, False, None, True),
        ('stride', False, True, ('tuple',), True), ('padding', False, True, ('tuple', 0, 0), True),
        ('dilation', False, True, ('tuple', 1, 1), True), ('ceil_mode', False, True, False, False),
    ),
    'aten.mean.dim': (
        ('self', False, False, None, False), ('dim', False, False, None, True),
        ('keepdim', False, True, False, False), ('dtype', True, True, None, False),
    ),
    'aten.native_layer_norm.default': (
        ('input', False, False, None, False), ('normalized_shape', False, False, None, True),
        ('weight', False, False, None, False), ('bias', False, False, None, False),
        ('eps', False, False, None, False),
    ),
    'aten.new_ones.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.new_zeros.default': (
        ('self', False, False, None, False), ('size', False, False, None, True),
        ('dtype', True, True, None, False), ('layout', True, True, None, False),
        ('device', True, True, None, False), ('pin_memory', True, True, None, False),
    ),
    'aten.nll_loss_forward.default': (
        ('self', False, False, None, False), ('target', False, False, None, False),
        ('weight', False, False, None, False), ('reduction', False, False, None, False),
        ('ignore_index', False, False, None, False),
    ),
    'aten.ones.default': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.ones_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
    'aten.permute.default': (
        ('self', False, False, None, False), ('dims', False, False, None, True),
    ),
    'aten.roll.default': (
        ('self', False, False, None, False), ('shifts', False, False, None, True),
        ('dims', False, True, ('tuple',), True),
    ),
    'aten.scalar_tensor.default': (
        ('s', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.slice.Tensor': (
        ('self', False, False, None, False), ('dim', False, True, 0, False),
        ('start', False, True, None, False), ('end', False, True, None, False),
        ('step', False, True, 1, False),
    ),
    'aten.sort.default': (
        ('self', False, False, None, False), ('dim', False, True, -1, False),
        ('descending', False, True, False, False),
    ),
    'aten.split.Tensor': (
        ('self', False, False, None, False), ('split_size', False, False, None, False),
        ('dim', False, True, 0, False),
    ),
    'aten.split_with_sizes.default': (
        ('self', False, False, None, False), ('split_sizes', False, False, None, True),
        ('dim', False, True, 0, False),
    ),
    'aten.squeeze.default': (('self', False, False, None, False),),
    'aten.stack.default': (('tensors', False, False, None, True), ('dim', False, True, 0, False)),
    'aten.std.correction': (
        ('self', False, False, None, False), ('dim', False, True, None, True),
        ('correction', True, True, None, False), ('keepdim', True, True, False, False),
    ),
    'aten.sub.Tensor': (
        ('self', False, False, None, False), ('other', False, False, None, False),
        ('alpha', True, True, 1, False),
    ),
    'aten.sum.default': (('self', False, False, None, False), ('dtype', True, True, None, False)),
    'aten.sum.dim_IntList': (
        ('self', False, False, None, False), ('dim', False, False, None, True),
        ('keepdim', False, True, False, False), ('dtype', True, True, None, False),
    ),
    'aten.t.default': (('self', False, False, None, False),),
    'aten.topk.default': (
        ('self', False, False, None, False), ('k', False, False, None, False),
        ('dim', False, True, -1, False), ('largest', False, True, True, False),
        ('sorted', False, True, True, False),
    ),
    'aten.transpose.int': (
        ('self', False, False, None, False), ('dim0', False, False, None, False),
        ('dim1', False, False, None, False),
    ),
    'aten.unsqueeze.default': (
        ('self', False, False, None, False), ('dim', False, False, None, False),
    ),
    'aten.var.correction': (
        ('self', False, False, None, False), ('dim', False, True, None, True),
        ('correction', True, True, None, False), ('keepdim', True, True, False, False),
    ),
    'aten.view.default': (('self', False, False, None, False), ('size', False, False, None, True)),
    'aten.where.self': (
        ('condition', False, False, None, False), ('self', False, False, None, False),
        ('other', False, False, None, False),
    ),
    'aten.zeros.default': (
        ('size', False, False, None, True), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False),
    ),
    'aten.zeros_like.default': (
        ('self', False, False, None, False), ('dtype', True, True, None, False),
        ('layout', True, True, None, False), ('device', True, True, None, False),
        ('pin_memory', True, True, None, False), ('memory_format', True, True, None, False),
    ),
}
MODE_CALLS: tuple = (  # (program, call, op, values)
    ('x.add(y, alpha=1)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 1)),
    ('x.add(y, alpha=1.0)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 1.0)),
    ('b.add(b, alpha=True)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor0', True)),
    ('x.add(y, alpha=2)', 0, 'aten.add.Tensor', ('Tensor0', 'Tensor1', 2)),
    ('x.add(2)', 0, 'aten.add.Tensor', ('Tensor0', 2, 1)),
    ('x.sub(y, alpha=0.5)', 0, 'aten.sub.Tensor', ('Tensor0', 'Tensor1', 0.5)),
    ('x.sum(1)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), False, None)),
    (
        'x.sum(dim=1, keepdim=False)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), False, None),
    ),
    ('x.sum(1, keepdim=True)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), True, None)),
    ('x.sum(1, dtype=None)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 1), False, None)),
    (
        'x.sum(1, dtype=torch.float64)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), False, ('dtype', 'float64')),
    ),
    ('x.sum((0, 1))', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list', 0, 1), False, None)),
    ('x.sum()', 0, 'aten.sum.default', ('Tensor0', None)),
    ('x.sum([], keepdim=True)', 0, 'aten.sum.dim_IntList', ('Tensor0', ('list',), True, None)),
    (
        'n.sum(0, dtype=torch.int64)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 0), False, ('dtype', 'int64')),
    ),
    (
        'x.sum(1, True, dtype=torch.float32)', 0, 'aten.sum.dim_IntList',
        ('Tensor0', ('list', 1), True, ('dtype', 'float32')),
    ),
    ('x.std(1)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 1, False)),
    ('x.std(1, unbiased=False)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 0, False)),
    ('x.var(1, correction=0)', 0, 'aten.var.correction', ('Tensor0', ('list', 1), 0, False)),
    ('x.var(correction=1)', 0, 'aten.var.correction', ('Tensor0', None, 1, False)),
    ('x.std(1, keepdim=True)', 0, 'aten.std.correction', ('Tensor0', ('list', 1), 1, True)),
    (
        'x.var(1, correction=1, keepdim=False)', 0, 'aten.var.correction',
        ('Tensor0', ('list', 1), 1, False),
    ),
    ('x.var(None, correction=2.0)', 0, 'aten.var.correction', ('Tensor0', None, 2.0, False)),
    ('x.clamp(min=0)', 0, 'aten.clamp.default', ('Tensor0', 0, None)),
    ('x.clamp(max=1.0)', 0, 'aten.clamp.default', ('Tensor0', None, 1.0)),
    ('x.clamp(0, 1)', 0, 'aten.clamp.default', ('Tensor0', 0, 1)),
    ('x.clamp(None, 1)', 0, 'aten.clamp.default', ('Tensor0', None, 1)),
    ('x.clamp(-1.5, None)', 0, 'aten.clamp.default', ('Tensor0', -1.5, None)),
    (
        'F.max_pool2d(img, 2)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, padding=0)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, padding=[0, 0])', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 3, 1, padding=(1, 1))', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 3, 3), ('list', 1, 1), ('list', 1, 1), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, dilation=1)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list',), ('list', 0, 0), ('list', 1, 1), False),
    ),
    (
        'F.max_pool2d(img, 2, 2, 0, 1, ceil_mode=True)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 2), ('list', 2, 2), ('list', 0, 0), ('list', 1, 1), True),
    ),
    (
        'F.max_pool2d(img, (2, 1), dilation=2)', 0, 'aten.max_pool2d_with_indices.default',
        ('Tensor0', ('list', 2, 1), ('list',), ('list', 0, 0), ('list', 2, 2), False),
    ),
    (
        'torch.ones(2, 3)', 0, 'aten.ones.default',
        (('list', 2, 3), None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.ones(2, dtype=torch.float64)', 0, 'aten.ones.default',
        (('list', 2), ('dtype', 'float64'), None, ('device', 'cpu'), False),
    ),
    (
        "torch.zeros((2,), device='meta')", 0, 'aten.zeros.default',
        (('list', 2), None, None, ('device', 'meta'), False),
    ),
    (
        'torch.zeros(2, pin_memory=False)', 0, 'aten.zeros.default',
        (('list', 2), None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.full((2,), 1.5)', 0, 'aten.full.default',
        (('list', 2), 1.5, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.full([2], 7, dtype=torch.int64)', 0, 'aten.full.default',
        (('list', 2), 7, ('dtype', 'int64'), None, ('device', 'cpu'), False),
    ),
    (
        'torch.full((), True)', 0, 'aten.full.default',
        (('list',), True, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.ones(2, layout=torch.strided)', 0, 'aten.ones.default',
        (('list', 2), None, ('layout', 'strided'), ('device', 'cpu'), False),
    ),
    (
        'torch.empty(2, 2)', 0, 'aten.empty.memory_format',
        (('list', 2, 2), None, None, ('device', 'cpu'), False, None),
    ),
    ('x[None, i]', 0, 'aten.unsqueeze.default', ('Tensor0', 0)),
    ('x[None, i]', 1, 'aten.index.Tensor', ('Tensor0', ('list', None, 'Tensor1'))),
    ('x[i]', 0, 'aten.index.Tensor', ('Tensor0', ('list', 'Tensor1'))),
    ('x[:, i]', 0, 'aten.index.Tensor', ('Tensor0', ('list', None, 'Tensor1'))),
    ('torch.cat([x, y])', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('torch.cat((x, y), 1)', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 1)),
    ('torch.cat([x, y], dim=0)', 0, 'aten.cat.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('torch.stack([x, y])', 0, 'aten.stack.default', (('list', 'Tensor0', 'Tensor1'), 0)),
    ('x.mean(1)', 0, 'aten.mean.dim', ('Tensor0', ('list', 1), False, None)),
    ('x.mean((0, 1), keepdim=True)', 0, 'aten.mean.dim', ('Tensor0', ('list', 0, 1), True, None)),
    (
        'x.mean(-1, dtype=torch.float64)', 0, 'aten.mean.dim',
        ('Tensor0', ('list', -1), False, ('dtype', 'float64')),
    ),
    (
        'x.to(torch.float64)', 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float64'), None, None, None, False, None),
    ),
    (
        "x.to('meta')", 0, 'aten._to_copy.default',
        (
            'Tensor0', ('dtype', 'float32'), ('layout', 'strided'), ('device', 'meta'), None, False,
            None,
        ),
    ),
    (
        'x.to(torch.float64, copy=True)', 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float64'), None, None, None, False, None),
    ),
    (
        "x.to(device='meta', dtype=torch.float16)", 0, 'aten._to_copy.default',
        ('Tensor0', ('dtype', 'float16'), None, ('device', 'meta'), None, False, None),
    ),
    ('x.view(3, 2)', 0, 'aten.view.default', ('Tensor0', ('list', 3, 2))),
    ('x.view((6,))', 0, 'aten.view.default', ('Tensor0', ('list', 6))),
    ('x.reshape(6)', 0, 'aten.view.default', ('Tensor0', ('list', 6))),
    ('x.expand(2, 2, 3)', 0, 'aten.expand.default', ('Tensor0', ('list', 2, 2, 3), False)),
    ('x.expand((2, 2, 3))', 0, 'aten.expand.default', ('Tensor0', ('list', 2, 2, 3), False)),
    ('x.permute(1, 0)', 0, 'aten.permute.default', ('Tensor0', ('list', 1, 0))),
    ('x.transpose(0, 1)', 0, 'aten.transpose.int', ('Tensor0', 0, 1)),
    ('x.roll(1)', 0, 'aten.roll.default', ('Tensor0', ('list', 1), ('list',))),
    ('x.roll(1, 0)', 0, 'aten.roll.default', ('Tensor0', ('list', 1), ('list', 0))),
    ("x.div(2, rounding_mode='floor')", 0, 'aten.div.Tensor_mode', ('Tensor0', 2, 'floor')),
    ('x.div(2, rounding_mode=None)', 0, 'aten.div.Tensor_mode', ('Tensor0', 2, None)),
    ('F.gelu(x)', 0, 'aten.gelu.default', ('Tensor0', 'none')),
    ("F.gelu(x, approximate='tanh')", 0, 'aten.gelu.default', ('Tensor0', 'tanh')),
    ("F.gelu(x, approximate='none')", 0, 'aten.gelu.default', ('Tensor0', 'none')),
    ('x.t().contiguous()', 0, 'aten.t.default', ('Tensor0',)),
    (
        'x.t().contiguous()', 1, 'aten.clone.default',
        ('Tensor0', ('memory_format', 'contiguous_format')),
    ),
    ('x.clone()', 0, 'aten.clone.default', ('Tensor0', None)),
    ('x.max(1)', 0, 'aten.max.dim', ('Tensor0', 1, False)),
    ('x.max(1, keepdim=True)', 0, 'aten.max.dim', ('Tensor0', 1, True)),
    ('x.topk(2)', 0, 'aten.topk.default', ('Tensor0', 2, -1, True, True)),
    ('x.topk(2, largest=False)', 0, 'aten.topk.default', ('Tensor0', 2, -1, False, True)),
    ('x.sort(1, True)', 0, 'aten.sort.default', ('Tensor0', 1, True)),
    ('x.argmax()', 0, 'aten.argmax.default', ('Tensor0', None, False)),
    ('x.argmax(1, True)', 0, 'aten.argmax.default', ('Tensor0', 1, True)),
    ('torch.arange(5)', 0, 'aten.arange.default', (5, None, None, ('device', 'cpu'), False)),
    ('torch.arange(0, 5)', 0, 'aten.arange.start', (0, 5, None, None, ('device', 'cpu'), False)),
    (
        'torch.arange(0, 6, 2)', 0, 'aten.arange.start_step',
        (0, 6, 2, None, None, ('device', 'cpu'), False),
    ),
    (
        'torch.arange(0.0, 1.0, 0.5)', 0, 'aten.arange.start_step',
        (0.0, 1.0, 0.5, None, None, ('device', 'cpu'), False),
    ),
    (
        'F.layer_norm(x, (3,))', 0, 'aten.native_layer_norm.default',
        ('Tensor0', ('list', 3), None, None, 1e-05),
    ),
    ('x.squeeze()', 0, 'aten.squeeze.default', ('Tensor0',)),
    ('x.masked_fill(x > 2, 0.0)', 0, 'aten.gt.Scalar', ('Tensor0', 2)),
    ('x.masked_fill(x > 2, 0.0)', 1, 'aten.masked_fill.Scalar', ('Tensor0', 'Tensor1', 0.0)),
    (
        'x.new_zeros(2)', 0, 'aten.new_zeros.default',
        ('Tensor0', ('list', 2), None, None, None, False),
    ),
    (
        'x.new_ones((2, 2), dtype=torch.int64)', 0, 'aten.new_ones.default',
        ('Tensor0', ('list', 2, 2), ('dtype', 'int64'), None, None, False),
    ),
    ('torch.where(x > 1, x, 0.0)', 0, 'aten.gt.Scalar', ('Tensor0', 1)),
    (
        'torch.where(x > 1, x, 0.0)', 1, 'aten.scalar_tensor.default',
        (0.0, ('dtype', 'float32'), ('layout', 'strided'), ('device', 'cpu'), None),
    ),
    ('torch.where(x > 1, x, 0.0)', 2, 'aten.where.self', ('Tensor0', 'Tensor1', 'Tensor2')),
    ('x.split(2, 1)', 0, 'aten.split.Tensor', ('Tensor0', 2, 1)),
    ('x.split([1, 2], 1)', 0, 'aten.split_with_sizes.default', ('Tensor0', ('list', 1, 2), 1)),
    ('x.chunk(2)', 0, 'aten.split.Tensor', ('Tensor0', 1, 0)),
    ('F.softmax(x, 1)', 0, 'aten._softmax.default', ('Tensor0', 1, False)),
    (
        'F.log_softmax(x, -1, dtype=torch.float64)', 0, 'aten._to_copy.default',
        (
            'Tensor0', ('dtype', 'float64'), ('layout', 'strided'), ('device', 'cpu'), None, False,
            None,
        ),
    ),
    (
        'F.log_softmax(x, -1, dtype=torch.float64)', 1, 'aten._log_softmax.default',
        ('Tensor0', -1, False),
    ),
    ('F.linear(x, w, bias)', 0, 'aten.t.default', ('Tensor0',)),
    ('F.linear(x, w, bias)', 1, 'aten.addmm.default', ('Tensor0', 'Tensor1', 'Tensor2', 1, 1)),
    ('F.cross_entropy(x, i)', 0, 'aten._log_softmax.default', ('Tensor0', 1, False)),
    (
        'F.cross_entropy(x, i)', 1, 'aten.nll_loss_forward.default',
        ('Tensor0', 'Tensor1', None, 1, -100),
    ),
    ('F.pad(x, (1, 1))', 0, 'aten.constant_pad_nd.default', ('Tensor0', ('list', 1, 1), 0.0)),
    ('x[::2]', 0, 'aten.slice.Tensor', ('Tensor0', 0, 0, 9223372036854775807, 2)),
    ('x.amax((0, 1), True)', 0, 'aten.amax.default', ('Tensor0', ('list', 0, 1), True)),
    (
        'x.cumsum(1, dtype=torch.float64)', 0, 'aten.cumsum.default',
        ('Tensor0', 1, ('dtype', 'float64')),
    ),
    (
        'torch.zeros_like(x, dtype=torch.int64)', 0, 'aten.zeros_like.default',
        ('Tensor0', ('dtype', 'int64'), None, None, False, None),
    ),
    (
        'torch.ones_like(x, memory_format=torch.preserve_format)', 0, 'aten.ones_like.default',
        ('Tensor0', None, None, None, False, ('memory_format', 'preserve_format')),
    ),
    (
        "torch.empty_like(x, device='meta')", 0, 'aten.empty_like.default',
        ('Tensor0', None, None, ('device', 'meta'), False, None),
    ),
    (
        'torch.full_like(x, 2)', 0, 'aten.full_like.default',
        ('Tensor0', 2, None, None, None, False, None),
    ),
)
LOG_CALLS: dict[str, tuple] = {
    'v = x.view(3, 2)': (
        (
            'reftensor._ops.aten.view.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 3, 2)), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
    ),
    'm = x * 2': (
        (
            'reftensor._ops.aten.mul.Tensor', (('tensor', 'x', 'float32', (2, 3)), 2), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'd = x / 3.0': (
        (
            'reftensor._ops.aten.div.Tensor', (('tensor', 'x', 'float32', (2, 3)), 3.0), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'z = x.sum(1, dtype=torch.float64)': (
        (
            'reftensor._ops.aten.sum.dim_IntList',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 1)), (('dtype', ('dtype', 'float64')),),
            ('tensor', 'r1', 'float64', (2,)),
        ),
    ),
    'p = x.split(2, 1)': (
        (
            'reftensor._ops.aten.split.Tensor', (('tensor', 'x', 'float32', (2, 3)), 2, 1), (),
            ('list', ('tensor', 'r1', 'float32', (2, 2)), ('tensor', 'r2', 'float32', (2, 1))),
        ),
    ),
    'u = x.unbind(0)': (
        (
            'reftensor._ops.aten.unbind.int', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('list', ('tensor', 'r1', 'float32', (3,)), ('tensor', 'r2', 'float32', (3,))),
        ),
    ),
    'mx = x.max(1)': (
        (
            'reftensor._ops.aten.max.dim', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tuple', ('tensor', 'r1', 'float32', (2,)), ('tensor', 'r2', 'int64', (2,))),
        ),
    ),
    'c = torch.cat([x, x], 1)': (
        (
            'reftensor._ops.aten.cat.default',
            (('list', ('tensor', 'x', 'float32', (2, 3)), ('tensor', 'x', 'float32', (2, 3))), 1),
            (), ('tensor', 'r1', 'float32', (2, 6)),
        ),
    ),
    'g = x[None, i]': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), 0), (),
            ('tensor', 'r1', 'float32', (1, 2, 3)),
        ),
        (
            'reftensor._ops.aten.index.Tensor',
            (
                ('tensor', 'r1', 'float32', (1, 2, 3)),
                ('list', None, ('tensor', 'i', 'int64', (2,))),
            ),
            (), ('tensor', 'r2', 'float32', (1, 2, 3)),
        ),
    ),
    'h = x[:, i]': (
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), ('list', None, ('tensor', 'i', 'int64', (2,)))),
            (), ('tensor', 'r1', 'float32', (2, 2)),
        ),
    ),
    't = x.clone(); t.add_(1)': (
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
        (
            'reftensor._ops.aten.add_.Tensor', (('tensor', 'r1', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    't2 = x.clone(); t2.mul_(s)': (
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
        (
            'reftensor._ops.aten.mul_.Tensor',
            (('tensor', 'r1', 'float32', (2, 3)), ('tensor', 's', 'float32', ())), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'q = x.to(torch.float16)': (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('dtype', ('dtype', 'float16')),), ('tensor', 'r1', 'float16', (2, 3)),
        ),
    ),
    'k = x.t().contiguous(memory_format=torch.contiguous_format)': (
        (
            'reftensor._ops.aten.t.default', (('tensor', 'x', 'float32', (2, 3)),), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
        (
            'reftensor._ops.aten.clone.default', (('tensor', 'r1', 'float32', (3, 2)),),
            (('memory_format', ('memory_format', 'contiguous_format')),),
            ('tensor', 'r2', 'float32', (3, 2)),
        ),
    ),
    "f = torch.zeros(2, 3, device='meta')": (
        (
            'reftensor._ops.aten.zeros.default', (('list', 2, 3),),
            (('device', ('device', 'meta')), ('pin_memory', False)),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'o = torch.ones((), dtype=torch.int64)': (
        (
            'reftensor._ops.aten.ones.default', (('list',),),
            (('dtype', ('dtype', 'int64')), ('device', ('device', 'cpu')), ('pin_memory', False)),
            ('tensor', 'r1', 'int64', ()),
        ),
    ),
    'w = s + 1': (
        (
            'reftensor._ops.aten.add.Tensor', (('tensor', 's', 'float32', ()), 1), (),
            ('tensor', 'r1', 'float32', ()),
        ),
    ),
    "r = x.div(2, rounding_mode='floor')": (
        (
            'reftensor._ops.aten.div.Tensor_mode', (('tensor', 'x', 'float32', (2, 3)), 2),
            (('rounding_mode', 'floor'),), ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'a = x.mean(-1, keepdim=True)': (
        (
            'reftensor._ops.aten.mean.dim',
            (('tensor', 'x', 'float32', (2, 3)), ('list', -1), True), (),
            ('tensor', 'r1', 'float32', (2, 1)),
        ),
    ),
    'l = torch.tensor([1.0, 2.0])': (
        (
            'reftensor._ops.aten.lift_fresh.default', (('tensor', 'r1', 'float32', (2,)),), (),
            ('tensor', 'r1', 'float32', (2,)),
        ),
    ),
    'it = s.item()': (
        (
            'reftensor._ops.aten._local_scalar_dense.default', (('tensor', 's', 'float32', ()),),
            (), 2.5,
        ),
    ),
    'cl = x.clamp(min=-0.5)': (
        (
            'reftensor._ops.aten.clamp.default', (('tensor', 'x', 'float32', (2, 3)), -0.5), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'am = x.argmax(1)': (
        (
            'reftensor._ops.aten.argmax.default', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'int64', (2,)),
        ),
    ),
    'ne = x.new_zeros(2)': (
        (
            'reftensor._ops.aten.new_zeros.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 2)), (('pin_memory', False),),
            ('tensor', 'r1', 'float32', (2,)),
        ),
    ),
    'sl = x[::2]': (
        (
            'reftensor._ops.aten.slice.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), 0, 0, 9223372036854775807, 2), (),
            ('tensor', 'r1', 'float32', (1, 3)),
        ),
    ),
    'ex = x.expand(2, 2, 3)': (
        (
            'reftensor._ops.aten.expand.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 2, 2, 3)), (),
            ('tensor', 'r1', 'float32', (2, 2, 3)),
        ),
    ),
    "gl = torch.nn.functional.gelu(x, approximate='tanh')": (
        (
            'reftensor._ops.aten.gelu.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('approximate', 'tanh'),), ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'st = torch.stack([x, x])': (
        (
            'reftensor._ops.aten.stack.default',
            (('list', ('tensor', 'x', 'float32', (2, 3)), ('tensor', 'x', 'float32', (2, 3))),), (),
            ('tensor', 'r1', 'float32', (2, 2, 3)),
        ),
    ),
    'pm = x.permute(1, 0)': (
        (
            'reftensor._ops.aten.permute.default',
            (('tensor', 'x', 'float32', (2, 3)), ('list', 1, 0)), (),
            ('tensor', 'r1', 'float32', (3, 2)),
        ),
    ),
    'ix = n[i]': (
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'n', 'int64', (2, 3)), ('list', ('tensor', 'i', 'int64', (2,)))), (),
            ('tensor', 'r1', 'int64', (2, 3)),
        ),
    ),
    'wh = torch.where(x > 1, x, 0.0)': (
        (
            'reftensor._ops.aten.gt.Scalar', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'bool', (2, 3)),
        ),
        (
            'reftensor._ops.aten.scalar_tensor.default', (0.0,),
            (
                ('dtype', ('dtype', 'float32')), ('layout', ('layout', 'strided')),
                ('device', ('device', 'cpu')),
            ),
            ('tensor', 'r2', 'float32', ()),
        ),
        (
            'reftensor._ops.aten.where.self',
            (
                ('tensor', 'r1', 'bool', (2, 3)), ('tensor', 'x', 'float32', (2, 3)),
                ('tensor', 'r2', 'float32', ()),
            ),
            (), ('tensor', 'r3', 'float32', (2, 3)),
        ),
    ),
    "md = x.to('meta')": (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (
                ('dtype', ('dtype', 'float32')), ('layout', ('layout', 'strided')),
                ('device', ('device', 'meta')),
            ),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
    'cs = x.cumsum(0, dtype=torch.float64)': (
        (
            'reftensor._ops.aten.cumsum.default', (('tensor', 'x', 'float32', (2, 3)), 0),
            (('dtype', ('dtype', 'float64')),), ('tensor', 'r1', 'float64', (2, 3)),
        ),
    ),
    'bb = b.any()': (
        (
            'reftensor._ops.aten.any.default', (('tensor', 'b', 'bool', (2,)),), (),
            ('tensor', 'r1', 'bool', ()),
        ),
    ),
    'mp = torch.nn.functional.max_pool2d(img, 2)': (
        (
            'reftensor._ops.aten.max_pool2d_with_indices.default',
            (('tensor', 'img', 'float32', (1, 1, 4, 4)), ('list', 2, 2)), (),
            (
                'tuple', ('tensor', 'r1', 'float32', (1, 1, 2, 2)),
                ('tensor', 'r2', 'int64', (1, 1, 2, 2)),
            ),
        ),
    ),
    'sq = x.unsqueeze(-1).squeeze(-1)': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), -1), (),
            ('tensor', 'r1', 'float32', (2, 3, 1)),
        ),
        (
            'reftensor._ops.aten.squeeze.dim', (('tensor', 'r1', 'float32', (2, 3, 1)), -1), (),
            ('tensor', 'r2', 'float32', (2, 3)),
        ),
    ),
    'sr = x.sort(1, True)': (
        (
            'reftensor._ops.aten.sort.default', (('tensor', 'x', 'float32', (2, 3)), 1, True), (),
            ('tuple', ('tensor', 'r1', 'float32', (2, 3)), ('tensor', 'r2', 'int64', (2, 3))),
        ),
    ),
    'eq = x.eq(n)': (
        (
            'reftensor._ops.aten.eq.Tensor',
            (('tensor', 'x', 'float32', (2, 3)), ('tensor', 'n', 'int64', (2, 3))), (),
            ('tensor', 'r1', 'bool', (2, 3)),
        ),
    ),
    'ch = x.chunk(3, 1)': (
        (
            'reftensor._ops.aten.split.Tensor', (('tensor', 'x', 'float32', (2, 3)), 1, 1), (),
            (
                'list', ('tensor', 'r1', 'float32', (2, 1)), ('tensor', 'r2', 'float32', (2, 1)),
                ('tensor', 'r3', 'float32', (2, 1)),
            ),
        ),
    ),
    'ar = torch.arange(3)': (
        (
            'reftensor._ops.aten.arange.default', (3,),
            (('device', ('device', 'cpu')), ('pin_memory', False)), ('tensor', 'r1', 'int64', (3,)),
        ),
    ),
    "em = torch.empty(0, device='meta')": (
        (
            'reftensor._ops.aten.empty.memory_format', (('list', 0),),
            (('device', ('device', 'meta')), ('pin_memory', False)),
            ('tensor', 'r1', 'float32', (0,)),
        ),
    ),
    'lt = x[i, None]': (
        (
            'reftensor._ops.aten.unsqueeze.default', (('tensor', 'x', 'float32', (2, 3)), 1), (),
            ('tensor', 'r1', 'float32', (2, 1, 3)),
        ),
        (
            'reftensor._ops.aten.index.Tensor',
            (('tensor', 'r1', 'float32', (2, 1, 3)), ('list', ('tensor', 'i', 'int64', (2,)))), (),
            ('tensor', 'r2', 'float32', (2, 1, 3)),
        ),
    ),
    'e0 = s.exp()': (
        (
            'reftensor._ops.aten.exp.default', (('tensor', 's', 'float32', ()),), (),
            ('tensor', 'r1', 'float32', ()),
        ),
    ),
    'hf = x.half().float()': (
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'x', 'float32', (2, 3)),),
            (('dtype', ('dtype', 'float16')),), ('tensor', 'r1', 'float16', (2, 3)),
        ),
        (
            'reftensor._ops.aten._to_copy.default', (('tensor', 'r1', 'float16', (2, 3)),),
            (('dtype', ('dtype', 'float32')),), ('tensor', 'r2', 'float32', (2, 3)),
        ),
    ),
    'pw = x ** 2': (
        (
            'reftensor._ops.aten.pow.Tensor_Scalar', (('tensor', 'x', 'float32', (2, 3)), 2), (),
            ('tensor', 'r1', 'float32', (2, 3)),
        ),
    ),
}

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
