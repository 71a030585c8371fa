"""Chapter 3 exercises: broadcasting as stride logic. Every right answer is what torch 2.13
does."""

from __future__ import annotations

import operator
import re

from hypothesis import strategies as st

from .layouts import storage_needed, strided_layouts
from .spec import Case, Exercise, register

CHAPTER = "ch03_broadcasting"

sizes = st.sampled_from([0, 1, 1, 2, 3, 4])
target_shapes = st.lists(sizes, max_size=4).map(tuple)


def _torch():
    import torch  # imported only where references are computed

    return torch


@st.composite
def _broadcastable_to(draw: st.DrawFn, target: tuple[int, ...], *,
                      mismatch: bool = False) -> tuple[int, ...]:
    """A shape that broadcasts to ``target``: a suffix of it with some sizes replaced by 1.
    With ``mismatch``, one size is changed to a size that does not broadcast."""
    keep = len(target) - draw(st.integers(0, len(target)))  # mostly all of target's dims
    shape = [1 if draw(st.integers(0, 2)) == 2 else n for n in target[len(target) - keep:]]
    if mismatch and shape:
        d = draw(st.integers(0, len(shape) - 1))
        n = target[len(target) - keep + d]
        shape[d] = draw(st.sampled_from([m for m in (0, 2, 3, 4, 5) if m != n]))
    return tuple(shape)


# ---------------------------------------------------------------- broadcast_shapes
@st.composite
def _shapes_cases(draw: st.DrawFn) -> Case:
    target = draw(target_shapes)
    count = draw(st.integers(1, 3))
    bad = draw(st.booleans())
    shapes = [draw(_broadcastable_to(target, mismatch=bad and k == 0)) for k in range(count)]
    if bad or draw(st.booleans()):
        shapes.append(target)
    order = draw(st.permutations(range(len(shapes))))
    return Case(args=tuple(shapes[k] for k in order))


def _shapes_case(*shapes) -> Case:
    return Case(args=tuple(tuple(s) for s in shapes))


register(Exercise(
    name="broadcast_shapes",
    chapter=CHAPTER,
    signature="broadcast_shapes(*shapes) -> tuple[int, ...]; raises RuntimeError like torch",
    fixed=(
        _shapes_case((3, 1), (4,)),
        _shapes_case((2, 1, 4), (3, 1), (1,)),
        _shapes_case((2, 3), (3, 2)),
        _shapes_case((5,), ()),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((1,), (0,))),
    ),
    edge=(
        _shapes_case(),
        _shapes_case(()),
        _shapes_case((1,), (0,)),
        _shapes_case((0,), (3,)),
        _shapes_case((2, 0), (1, 1, 1)),
        _shapes_case((4, 1), (1, 4), (4, 4)),
        _shapes_case((2, 3), (2, 3), (1, 2, 1, 1)),
    ),
    strategy=_shapes_cases,
    reference=lambda c: tuple(_torch().broadcast_shapes(*c.args)),
    truth=lambda c: f"tuple(torch.broadcast_shapes({', '.join(repr(s) for s in c.args)}))",
    hidden_examples=150,
))


# ---------------------------------------------------------------- expand_strides
@st.composite
def _expand_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts())
    new = []
    for n in shape:
        if n == 1:
            new.append(draw(st.sampled_from([1, 2, 1, 0, 3, -1])))
        else:
            new.append(draw(st.sampled_from([n, n, -1])))
    leading = draw(st.lists(st.sampled_from([1, 1, 2, 3, 0]), max_size=2))
    mistake = draw(st.sampled_from([None, None, None, None, "size", "lead", "short"]))
    if mistake == "size" and shape:
        d = draw(st.integers(0, len(shape) - 1))
        if shape[d] != 1:
            new[d] = draw(st.sampled_from([m for m in (0, 2, 3, 5) if m != shape[d]]))
    elif mistake == "lead" and shape:  # (torch lets a 0-d tensor expand to size -1 when
        leading.insert(0, -1)  # another size is 0: -1 is never asked of a 0-d tensor)
    elif mistake == "short" and shape:
        new.pop(0)
        leading = []
    return Case(args=(shape, stride, tuple(leading + new)))


def _expand_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape, stride, new_shape = c.args
    y = _torch().empty_strided(shape, stride).expand(new_shape)
    return tuple(y.shape), y.stride()


def _expand_case(shape, stride, new_shape) -> Case:
    return Case(args=(tuple(shape), tuple(stride), tuple(new_shape)))


register(Exercise(
    name="expand_strides",
    chapter=CHAPTER,
    signature="expand_strides(shape, stride, new_shape) -> (shape, stride); raises RuntimeError",
    fixed=(
        _expand_case((3, 1), (1, 1), (3, 4)),
        _expand_case((4,), (1,), (2, 3, 4)),
        _expand_case((2, 1), (5, 9), (-1, 6)),
        _expand_case((3,), (1,), (2, 4)),
        _expand_case((1, 3), (5, 1), (2, 1, 3)),  # a size-1 dim that stays 1 keeps its stride,
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((3,), (1,), (1, 3))),
    ),
    edge=(
        _expand_case((), (), ()),
        _expand_case((), (), (2, 3)),
        _expand_case((3,), (1,), (1, 3)),
        _expand_case((3,), (2,), (1, 1, 3)),
        _expand_case((1,), (4,), (0,)),
        _expand_case((0,), (1,), (2, 0)),
        _expand_case((3,), (1,), (-1, 3)),
        _expand_case((2, 3), (3, 1), (3,)),
        _expand_case((1, 1), (3, 3), (1, 1)),
        _expand_case((3,), (1,), (0, 3)),  # a new leading dim of size 0
    ),
    strategy=_expand_cases,
    reference=_expand_reference,
    truth=lambda c: (f"y = torch.empty_strided({c.args[0]!r}, {c.args[1]!r})"
                     f".expand({c.args[2]!r}); (tuple(y.shape), y.stride())"),
))


# ---------------------------------------------------------------- strided_loop
#: The ops a case names, with the Python function the answer gets as ``fn`` and torch's op.
#: Python's arithmetic on ints and floats is torch's on int64 and float64 (no wrap-around
#: at these sizes, one IEEE rounding), so the answer's values are exactly torch's.
LOOP_OPS = {  # name: (inputs, Python function)
    "add": (2, operator.add),
    "sub": (2, operator.sub),
    "mul": (2, operator.mul),
    "maximum": (2, max),
    "neg": (1, operator.neg),
    "where": (3, lambda condition, a, b: a if condition else b),
}
#: the ops whose first input may be the output itself (``torch.add(x, b, out=x)``: in place)
IN_PLACE_OPS = ("add", "sub", "mul", "maximum")

Strided = tuple  # (storage, shape, stride, offset), plain data


def _call_loop(fn, case: Case) -> list:
    """Run an answer to ``strided_loop`` on a case: ``fn`` is the case's op, ``out``'s
    storage a list (the first input's too, in place: the same list), the inputs' storages
    tuples. Its result is the output's storage after the call."""
    op, out, *inputs = case.args
    storage = list(out[0])
    target = (storage, tuple(out[1]), tuple(out[2]), out[3])
    given = [target if k == 0 and _in_place(case) else
             (tuple(x[0]), tuple(x[1]), tuple(x[2]), x[3]) for k, x in enumerate(inputs)]
    fn(LOOP_OPS[op][1], target, *given)
    return storage


def _in_place(case: Case) -> bool:
    return bool(dict(case.context).get("in_place", False))


def _kind(storage) -> str:
    if storage and all(isinstance(v, bool) for v in storage):
        return "bool"
    return "float64" if any(isinstance(v, float) for v in storage) else "int64"


def _tensor_of(operand, dtype: str):
    storage, shape, stride, offset = operand
    torch = _torch()
    return torch.tensor(list(storage), dtype=getattr(torch, dtype)).as_strided(
        shape, stride, offset)


def _loop_reference(c: Case) -> list:
    """The output's storage after torch's op writes into it (``out=``: through the view's
    own strides and offset)."""
    op, out, *inputs = c.args
    torch = _torch()
    dtype = _loop_dtype(c)
    storage = torch.tensor(list(out[0]), dtype=getattr(torch, dtype))
    target = storage.as_strided(out[1], out[2], out[3])
    kinds = ["bool" if op == "where" and k == 0 else dtype for k in range(len(inputs))]
    tensors = [target if k == 0 and _in_place(c) else _tensor_of(x, kinds[k])
               for k, x in enumerate(inputs)]
    getattr(torch, op)(*tensors, out=target)
    return storage.tolist()


def _loop_dtype(c: Case) -> str:
    """The dtype of the output and of the inputs holding values (ints or floats)."""
    op, out, *inputs = c.args
    values = [v for x in [out, *inputs[1 if op == "where" else 0:]] for v in x[0]]
    return _kind(tuple(values)) if values else "int64"


def _strided_text(operand, dtype: str) -> str:
    storage, shape, stride, offset = operand
    return (f"torch.tensor({list(storage)!r}, dtype=torch.{dtype}).as_strided({shape!r}, "
            f"{stride!r}, {offset})")


def _loop_truth(c: Case) -> str:
    op, out, *inputs = c.args
    dtype = _loop_dtype(c)
    kinds = ["bool" if op == "where" and k == 0 else dtype for k in range(len(inputs))]
    names = ["out" if k == 0 and _in_place(c) else f"x{k}" for k in range(len(inputs))]
    lines = [f"s = torch.tensor({list(out[0])!r}, dtype=torch.{dtype}); "
             f"out = s.as_strided({out[1]!r}, {out[2]!r}, {out[3]})"]
    lines += [f"{n} = {_strided_text(x, kinds[k])}" for k, (n, x) in
              enumerate(zip(names, inputs, strict=True)) if n != "out"]
    lines.append(f"torch.{op}({', '.join(names)}, out=out); s.tolist()")
    return "; ".join(lines)


@st.composite
def _out_layout(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple:
    """A layout where every index has its own location (what torch writes into): the dims
    in any order, each stepped by 1-2, and an offset; storage with room to spare."""
    order = draw(st.permutations(range(len(shape))))
    stride = [0] * len(shape)
    running = 1
    for d in reversed(order):
        step = draw(st.sampled_from([1, 1, 2]))
        stride[d] = running * step
        running = stride[d] * max(shape[d], 1)
    offset = draw(st.sampled_from([0, 0, 1, 2]))
    return tuple(shape), tuple(stride), offset


@st.composite
def _storage(draw: st.DrawFn, shape, stride, offset, kind: str) -> tuple:
    length = max(storage_needed(shape, stride, offset), offset) + draw(st.integers(0, 2))
    values = {"int64": st.integers(-9, 9), "bool": st.booleans(),
              "float64": st.integers(-12, 12).map(lambda k: k / 4)}[kind]
    return tuple(draw(st.lists(values, min_size=length, max_size=length)))


@st.composite
def _input(draw: st.DrawFn, target: tuple[int, ...], kind: str, *, full: bool = False
           ) -> tuple:
    shape = target if full else draw(_broadcastable_to(target))
    shape, stride, offset = draw(strided_layouts(st.just(shape)))
    # a size-1 dim that broadcasts is read through stride 0 whatever stride it holds
    stride = tuple(draw(st.sampled_from([s, 3, 7])) if n == 1 else s
                   for n, s in zip(shape, stride, strict=True))
    return draw(_storage(shape, stride, offset, kind)), shape, stride, offset


@st.composite
def _loop_cases(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(list(LOOP_OPS)))
    kind = draw(st.sampled_from(["int64", "int64", "float64"]))
    target = draw(st.lists(st.sampled_from([2, 3, 1, 0, 2, 3]), max_size=3).map(tuple))
    layout = draw(_out_layout(target))
    out = (draw(_storage(*layout, kind)), *layout)
    count = LOOP_OPS[op][0]
    full = draw(st.integers(0, count - 1))  # torch's output has the inputs' broadcast shape
    inputs = [draw(_input(target, "bool" if op == "where" and k == 0 else kind,
                          full=k == full or draw(st.booleans()))) for k in range(count)]
    in_place = op in IN_PLACE_OPS and draw(st.integers(0, 3)) == 0
    if in_place:
        inputs[0] = out
    return Case(args=(op, out, *inputs), context=(("in_place", in_place),))


def _loop_case(op: str, out, *inputs, in_place: bool = False) -> Case:
    plain = [(tuple(x[0]), tuple(x[1]), tuple(x[2]), x[3]) for x in (out, *inputs)]
    return Case(args=(op, *plain), context=(("in_place", in_place),))


_ROW = ((0, 0, 0, 0, 0, 0), (2, 3), (3, 1), 0)  # an output to write into, row-major

register(Exercise(
    name="strided_loop",
    chapter=CHAPTER,
    signature="strided_loop(fn, out, *inputs) -> None; out and each input are (storage, "
              "shape, stride, offset), and fn is the case's op ('add': operator.add, "
              "'maximum': max, 'where': a if condition else b...); the result is out's "
              "storage after the call",
    fixed=(
        # an input with fewer dims than the output: read through stride 0 along the new dim
        _loop_case("add", _ROW, ((0, 1, 2, 3, 4, 5), (2, 3), (3, 1), 0),
                   ((10, 20, 30), (3,), (1,), 0)),
        # a size-1 dim that broadcasts: stride 0, whatever stride it holds (5 here)
        _loop_case("mul", _ROW, ((1, 2, 3, 4, 5, 6), (2, 3), (3, 1), 0),
                   ((2, 0, 0, 0, 0, 3), (2, 1), (5, 9), 0)),
        # storage offsets: an input's and the output's
        _loop_case("sub", ((9, 9, 9, 9, 9), (2,), (1,), 2), ((0, 1, 2, 3), (2,), (2,), 1),
                   ((7,), (), (), 0)),
        # the output has its own strides (transposed) and the input its own (stepped)
        _loop_case("add", ((0, 0, 0, 0, 0, 0), (3, 2), (1, 3), 0),
                   ((1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0), (3, 2), (4, 2), 0),
                   ((100, 200), (2,), (1,), 0)),
        # storage the output's layout does not reach is left as it is
        _loop_case("maximum", ((-1, -1, -1, -1, -1, -1), (3,), (2,), 1),
                   ((4, -5, 6), (3,), (1,), 0), ((0,), (1,), (3,), 0)),
        # in place: the first input is the output itself
        _loop_case("add", ((1, 2, 3, 4), (2, 2), (1, 2), 0), ((1, 2, 3, 4), (2, 2), (1, 2), 0),
                   ((10, 20), (2,), (1,), 0), in_place=True),
        # one input, three inputs, a 0-d output, float values
        _loop_case("neg", ((0.0, 0.0), (), (), 1), ((1.5, -2.25), (), (), 1)),
        _loop_case("where", ((0, 0, 0), (3,), (1,), 0), ((True, False, True), (3,), (1,), 0),
                   ((1, 2, 3), (3,), (1,), 0), ((-1,), (3,), (0,), 0)),
        # an empty output: nothing is written
        _loop_case("add", ((5, 6), (2, 0), (1, 1), 0), ((1, 2), (2, 1), (1, 1), 0),
                   ((), (0,), (1,), 0)),
    ),
    edge=(
        _loop_case("add", ((0,), (), (), 0), ((3,), (), (), 0), ((4,), (), (), 0)),
        _loop_case("mul", ((0, 0, 0, 0, 0, 0), (3, 2), (2, 1), 0),
                   ((1, 2, 3), (3, 1), (1, 4), 0), ((5, 6), (2,), (1,), 0)),
        _loop_case("add", ((0, 0, 0, 0), (2, 2), (2, 1), 0), ((4, 9), (2, 2), (0, 0), 0),
                   ((1, 2, 3, 4, 5), (2, 2), (1, 2), 1)),
        _loop_case("neg", ((8, 8, 8), (1, 3), (7, 1), 0), ((1, 2, 3, 4), (1, 3), (4, 1), 1)),
        _loop_case("sub", ((1.5, 2.5, 3.5), (3,), (1,), 0), ((1.5, 2.5, 3.5), (3,), (1,), 0),
                   ((0.25,), (), (), 0), in_place=True),
        _loop_case("where", ((0, 0, 0, 0), (2, 2), (1, 2), 0),
                   ((True, False), (2, 1), (1, 3), 0), ((1, 2), (2,), (1,), 0),
                   ((7, 8, 9), (), (), 2)),
        _loop_case("maximum", ((0, 0), (0, 2), (2, 1), 0), ((), (0, 2), (2, 1), 0),
                   ((1, 2), (2,), (1,), 0)),
    ),
    strategy=_loop_cases,
    reference=_loop_reference,
    truth=_loop_truth,
    call=_call_loop,
))


# ---------------------------------------------------------------- reduce_loop
INF = float("inf")
#: The reductions a case names: (the Python step the answer gets, its start for int64 and
#: for float64 values, torch's op). Python's arithmetic on ints and on these floats (quarters,
#: and products of halves and twos) is exact, so every order of the elements gives torch's
#: values.
REDUCE_OPS = {
    "sum": (operator.add, 0, 0.0),
    "prod": (operator.mul, 1, 1.0),
    "amax": (lambda acc, x: x if x > acc else acc, -INF, -INF),
    "amin": (lambda acc, x: x if x < acc else acc, INF, INF),
    "all": (lambda acc, x: acc and x != 0, True, True),
    "any": (lambda acc, x: acc or x != 0, False, False),
}


def _reduce_start(case: Case):
    op, out, _, _, _ = case.args
    return REDUCE_OPS[op][2 if _reduce_dtype(case) == "float64" else 1]


def _call_reduce(fn, case: Case) -> list:
    """Run an answer to ``reduce_loop`` on a case: ``step`` and ``start`` are the case's op,
    ``out``'s storage a list, the input's a tuple. Its result is out's storage after the
    call."""
    op, out, x, dims, keepdim = case.args
    storage = list(out[0])
    fn(REDUCE_OPS[op][0], _reduce_start(case), (storage, tuple(out[1]), tuple(out[2]), out[3]),
       (tuple(x[0]), tuple(x[1]), tuple(x[2]), x[3]), tuple(dims), keepdim)
    return storage


def _reduce_dtype(case: Case) -> str:
    """The input's dtype: float64 where its storage holds a float, else int64."""
    return "float64" if any(isinstance(v, float) for v in case.args[2][0]) else "int64"


def _reduce_out_dtype(case: Case) -> str:
    return "bool" if case.args[0] in ("all", "any") else _reduce_dtype(case)


def _reduce_reference(c: Case) -> list:
    """The output's storage after torch's reduction writes into it (``out=``: through the
    view's own strides and offset)."""
    op, out, x, dims, keepdim = c.args
    torch = _torch()
    storage = torch.tensor(list(out[0]), dtype=getattr(torch, _reduce_out_dtype(c)))
    target = storage.as_strided(out[1], out[2], out[3])
    getattr(torch, op)(_tensor_of(x, _reduce_dtype(c)), dim=_dim_argument(c), keepdim=keepdim,
                       out=target)
    return storage.tolist()


def _dim_argument(c: Case):
    """``dims`` as torch's op takes them: ``prod`` takes one int (0 for a 0-d input)."""
    op, _, _, dims, _ = c.args
    if op == "prod":
        return dims[0] if dims else 0
    return dims


def _reduce_truth(c: Case) -> str:
    op, out, x, dims, keepdim = c.args
    return (f"s = torch.tensor({list(out[0])!r}, dtype=torch.{_reduce_out_dtype(c)}); "
            f"out = s.as_strided({out[1]!r}, {out[2]!r}, {out[3]}); "
            f"x = {_strided_text(x, _reduce_dtype(c))}; "
            f"torch.{op}(x, dim={_dim_argument(c)!r}, keepdim={keepdim}, out=out); "
            "s.tolist()")


@st.composite
def _reduce_cases(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(list(REDUCE_OPS)))
    kind = draw(st.sampled_from(["int64", "int64", "float64"]))
    shape = draw(st.lists(st.sampled_from([2, 3, 1, 0, 2, 3]), max_size=3).map(tuple))
    shape, stride, offset = draw(strided_layouts(st.just(shape)))
    ndim = len(shape)
    dims = tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), min_size=1)))) if ndim else ()
    if op == "prod":  # torch's prod takes one dim
        dims = dims[:1]
    if op in ("amax", "amin") and any(shape[d] == 0 for d in dims):
        dims = tuple(d for d in dims if shape[d] != 0) or ()  # torch refuses: nothing to pick
        if not dims and ndim:
            shape = tuple(n or 1 for n in shape)
            dims = (0,)
    keepdim = draw(st.booleans())
    out_shape = tuple(1 if d in dims else n for d, n in enumerate(shape)) if keepdim else \
        tuple(n for d, n in enumerate(shape) if d not in dims)
    length = max(storage_needed(shape, stride, offset), offset) + draw(st.integers(0, 2))
    if op == "prod":  # exact products: halves and twos, ints that stay small
        values = st.sampled_from([1, -1, 2]) if kind == "int64" else \
            st.sampled_from([0.5, -1.0, 2.0, 1.0, 0.0])
    else:
        values = st.integers(-9, 9) if kind == "int64" else \
            st.integers(-12, 12).map(lambda k: k / 4)
    source = tuple(draw(st.lists(values, min_size=length, max_size=length)))
    if not source:  # no float to tell: the case is int64 (``_reduce_dtype``), its out too
        kind = "int64"
    layout = draw(_out_layout(out_shape))
    filler = {"all": st.booleans(), "any": st.booleans()}.get(
        op, st.integers(-9, 9) if kind == "int64" else st.integers(-8, 8).map(float))
    out_length = max(storage_needed(*layout), layout[2]) + draw(st.integers(0, 2))
    out_storage = tuple(draw(st.lists(filler, min_size=out_length, max_size=out_length)))
    return Case(args=(op, (out_storage, *layout), (source, shape, stride, offset), dims,
                      keepdim))


def _reduce_case(op: str, out, x, dims, keepdim: bool = False) -> Case:
    plain = [(tuple(o[0]), tuple(o[1]), tuple(o[2]), o[3]) for o in (out, x)]
    return Case(args=(op, *plain, tuple(dims), keepdim))


register(Exercise(
    name="reduce_loop",
    chapter=CHAPTER,
    signature="reduce_loop(step, start, out, input, dims, keepdim) -> None; out and input are "
              "(storage, shape, stride, offset), step and start are the case's op ('sum': "
              "operator.add from 0, 'amax': the larger from -inf, 'all': acc and x != 0 from "
              "True...); the result is out's storage after the call",
    fixed=(
        # one dim of two reduced: a row sum, then a column sum
        _reduce_case("sum", ((0, 0), (2,), (1,), 0), ((1, 2, 3, 4, 5, 6), (2, 3), (3, 1), 0),
                     (1,)),
        _reduce_case("sum", ((0, 0, 0), (3,), (1,), 0), ((1, 2, 3, 4, 5, 6), (2, 3), (3, 1), 0),
                     (0,)),
        # keepdim: the output keeps the reduced dim as size 1, and has its own strides
        _reduce_case("amax", ((0, 0, 0, 0), (1, 2), (1, 2), 1),
                     ((4, -5, 6, 7), (2, 2), (1, 2), 0), (0,), True),
        # the input's offset and steps; storage the output does not reach is left alone
        _reduce_case("prod", ((9, 9, 9), (), (), 1), ((0, 2, 0, -1, 0, 2), (3,), (2,), 1),
                     (0,)),
        # every dim of three; a dim of size 0 reduces to the start
        _reduce_case("sum", ((7,), (), (), 0), (tuple(range(8)), (2, 2, 2), (4, 2, 1), 0),
                     (0, 1, 2)),
        _reduce_case("sum", ((5, 5), (2,), (1,), 0), ((), (2, 0), (1, 1), 0), (1,)),
        # an expanded input (stride 0) and two dims that are not next to each other
        _reduce_case("any", ((False, False), (2,), (1,), 0), ((0, 0, 3), (3, 2, 2), (1, 0, 0), 0),
                     (0, 2)),
        _reduce_case("all", ((False,) * 4, (1, 2, 1), (2, 1, 2), 0),
                     ((1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12), (2, 2, 3), (6, 3, 1), 0),
                     (0, 2), True),
        # a 0-d input: nothing to reduce, one element folded once
        _reduce_case("amin", ((0.0,), (), (), 0), ((1.5, -2.25), (), (), 1), ()),
    ),
    edge=(
        _reduce_case("sum", ((0,), (), (), 0), ((1, 2, 3, 4, 5, 6), (2, 3), (1, 2), 0), (0, 1)),
        _reduce_case("sum", ((0.0,) * 2, (2,), (1,), 0), ((0.25, 0.5, -1.0), (2, 3), (0, 1), 0),
                     (1,)),
        _reduce_case("prod", ((8,) * 3, (3, 1), (1, 1), 0), ((0.5, 2.0, -1.0), (3, 1), (1, 1), 0),
                     (1,), True),
        _reduce_case("amax", ((0,) * 4, (2, 1, 2), (1, 4, 2), 0),
                     (tuple(range(12)), (2, 3, 2), (1, 2, 6), 0), (1,), True),
        _reduce_case("any", ((True,) * 3, (3,), (1,), 0), ((), (3, 0), (1, 1), 0), (1,)),
        _reduce_case("all", ((False,) * 3, (3,), (1,), 0), ((), (3, 0), (1, 1), 0), (1,)),
        _reduce_case("sum", ((), (0,), (1,), 0), ((), (0, 3), (3, 1), 0), (1,)),
        _reduce_case("amin", ((9, 9, 9), (1, 1), (1, 1), 2), ((3, 1, 2), (3, 1), (1, 3), 0),
                     (0, 1), True),
    ),
    strategy=_reduce_cases,
    reference=_reduce_reference,
    truth=_reduce_truth,
    call=_call_reduce,
))


# ---------------------------------------------------------------- sum_to_dims
@st.composite
def _dims_cases(draw: st.DrawFn) -> Case:
    size = draw(st.lists(st.sampled_from([1, 2, 1, 3, 0]), max_size=3).map(tuple))
    shape = [draw(st.sampled_from([1, 2, 3, 0])) if n == 1 else n for n in size]
    shape = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=2)) + shape
    if draw(st.integers(0, 5)) == 5:  # a size that is not expandable to the shape
        if shape and draw(st.booleans()):
            d = draw(st.integers(0, len(shape) - 1))
            shape[d] = draw(st.sampled_from([m for m in (0, 2, 3, 4) if m != shape[d]]))
        else:
            size = (2, *size)
    return Case(args=(tuple(shape), tuple(size)))


def _dims_reference(c: Case) -> tuple[int, ...]:
    """The dims torch's ``at::sum_to`` summed, read from the graph autograd records: the
    ``SumBackward1`` node saves them as ``_saved_dim`` (behind a ``ViewBackward0`` when
    leading dims were dropped); an empty ``size`` is ``sum()`` of everything
    (``SumBackward0``); no node means ``sum_to_size`` returned its input."""
    shape, size = c.args
    torch = _torch()
    x = torch.zeros(shape, requires_grad=True)
    node = x.sum_to_size(size).grad_fn  # raises RuntimeError where torch refuses
    if node is None:
        return ()
    if node.name() == "ViewBackward0":
        node = node.next_functions[0][0]
    if node.name() == "SumBackward0":
        return tuple(range(len(shape)))
    assert node.name() == "SumBackward1" and node._saved_keepdim, node.name()
    return tuple(node._saved_dim)


register(Exercise(
    name="sum_to_dims",
    chapter=CHAPTER,
    signature="sum_to_dims(shape, size) -> tuple[int, ...], the dims of shape that "
              "t.sum_to_size(size) sums; raises RuntimeError like torch",
    fixed=(
        Case(args=((2, 3), (3,))),
        Case(args=((2, 3), (2, 1))),
        Case(args=((2, 3), ())),
        Case(args=((2, 3, 4), (3, 1))),
        Case(args=((4, 1, 3), (1, 3))),
        Case(args=((2, 3), (2, 3))),
        Case(args=((2, 0), (2, 1))),
        Case(args=((2, 3), (1, 2, 3))),
    ),
    edge=(
        Case(args=((2, 3), (2,))),
        Case(args=((0, 3), (3,))),
        Case(args=((), ())),
        Case(args=((1, 3), (1, 1))),
        Case(args=((3, 1), (1, 1))),
        Case(args=((0,), (1,))),
    ),
    strategy=_dims_cases,
    reference=_dims_reference,
    truth=lambda c: (f"x = torch.zeros({c.args[0]!r}, requires_grad=True); "
                     f"x.sum_to_size({c.args[1]!r}).grad_fn: the dims its SumBackward1 saved "
                     "(all dims for SumBackward0, none for no node)"),
))


# ---------------------------------------------------------------- broadcast_error
MESSAGE = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) "
                     r"at non-singleton dimension (\d+)")


@st.composite
def _error_cases(draw: st.DrawFn) -> Case:
    if draw(st.booleans()):  # two unrelated shapes: they often clash in several dims
        pair = st.lists(st.sampled_from([2, 3, 1, 4, 0]), min_size=1, max_size=4).map(tuple)
        return Case(args=(draw(pair), draw(pair)))
    target = draw(st.lists(sizes, max_size=4).map(tuple))
    a = draw(_broadcastable_to(target, mismatch=draw(st.booleans())))
    b = draw(_broadcastable_to(target, mismatch=draw(st.booleans())))
    return Case(args=(a, b))


def _error_reference(c: Case) -> tuple[int, int, int] | None:
    torch = _torch()
    try:
        torch.empty(c.args[0]) + torch.empty(c.args[1])
    except RuntimeError as err:
        found = MESSAGE.search(str(err))
        if found is None:
            raise
        return int(found[3]), int(found[1]), int(found[2])
    return None


def _error_case(a, b) -> Case:
    return Case(args=(tuple(a), tuple(b)))


register(Exercise(
    name="broadcast_error",
    chapter=CHAPTER,
    signature="broadcast_error(shape_a, shape_b) -> (dim, size_a, size_b) | None",
    fixed=(
        _error_case((2, 3), (4,)),
        _error_case((2, 3), (3,)),
        _error_case((5, 2, 3), (4, 1, 3)),
        _error_case((3,), (2, 4)),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((0, 3), (1, 3, 3, 0))),
    ),
    edge=(
        _error_case((), ()),
        _error_case((0,), (1,)),
        _error_case((0,), (2,)),
        _error_case((2, 3, 4), (3, 2, 5)),
        _error_case((1, 1, 1, 5), (6,)),
    ),
    strategy=_error_cases,
    reference=_error_reference,
    truth=lambda c: (f"torch.empty({c.args[0]!r}) + torch.empty({c.args[1]!r}) raises "
                     '"The size of tensor a (size_a) must match the size of tensor b (size_b) '
                     'at non-singleton dimension dim", or None where it does not raise'),
))
