"""Chapter 3 exercises: broadcasting as stride logic. Every right answer is what torch 2.13
does."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from .spec import Case, Exercise, register
from .layouts import storage_needed, strided_layouts

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


# ---------------------------------------------------------------- strided_add
@st.composite
def _operand(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple:
    shape, stride, offset = draw(strided_layouts(st.just(shape)))
    length = max(storage_needed(shape, stride, offset), offset)
    length += draw(st.integers(0, 2))
    storage = tuple(draw(st.lists(st.integers(-9, 9), min_size=length, max_size=length)))
    return (storage, shape, stride, offset)


@st.composite
def _add_cases(draw: st.DrawFn) -> Case:
    target = draw(st.lists(st.sampled_from([2, 3, 1, 0]), min_size=1, max_size=3).map(tuple))
    bad = draw(st.integers(0, 5)) == 5
    a = draw(_operand(draw(_broadcastable_to(target, mismatch=bad))))
    b = draw(_operand(draw(_broadcastable_to(target))))
    if draw(st.booleans()):
        a, b = b, a
    return Case(args=(a, b))


def _strided(operand):
    storage, shape, stride, offset = operand
    torch = _torch()
    return torch.tensor(storage, dtype=torch.int64).as_strided(shape, stride, offset)


def _operand_text(operand) -> str:
    storage, shape, stride, offset = operand
    return (f"torch.tensor({list(storage)!r}, dtype=torch.int64).as_strided({shape!r}, "
            f"{stride!r}, {offset})")


register(Exercise(
    name="strided_add",
    chapter=CHAPTER,
    signature="strided_add(a, b) -> nested lists; a and b are (storage, shape, stride, offset)",
    fixed=(
        Case(args=(((0, 1, 2, 3, 4, 5), (2, 3), (3, 1), 0), ((10, 20, 30), (3,), (1,), 0))),
        Case(args=(((0, 1, 2), (3, 1), (1, 1), 0), ((10, 20, 30, 40), (4,), (1,), 0))),
        Case(args=(((0, 1, 2, 3, 4, 5), (3, 2), (1, 3), 0), ((7, 8), (2, 1), (1, 1), 0))),
        Case(args=(((5, 6, 7, 8), (2,), (2,), 1), ((100,), (), (), 0))),
        Case(args=(((3,), (), (), 0), ((4,), (), (), 0))),  # a 0-d result is a bare int
    ),
    edge=(
        Case(args=(((3,), (), (), 0), ((4,), (), (), 0))),
        Case(args=(((1, 2), (2,), (1,), 0), ((1, 2, 3), (3,), (1,), 0))),
        Case(args=(((), (0,), (1,), 0), ((5,), (1,), (1,), 0))),
        Case(args=(((1, 2, 3), (2, 0), (1, 1), 0), ((9,), (1, 1), (1, 1), 0))),
        Case(args=(((4,), (3, 2), (0, 0), 0), ((1, 2), (2,), (1,), 0))),
        Case(args=(((0, 1, 2, 3), (3, 2), (1, 1), 0), ((0, 10, 20, 30), (3, 1), (1, 0), 1))),
    ),
    strategy=_add_cases,
    reference=lambda c: (_strided(c.args[0]) + _strided(c.args[1])).tolist(),
    truth=lambda c: (f"({_operand_text(c.args[0])} + {_operand_text(c.args[1])}).tolist()"),
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
