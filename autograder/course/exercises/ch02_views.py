"""Chapter 2 exercises: views and copies. Every right answer is what torch 2.13 does."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from hypothesis import strategies as st

from .layouts import row_major, shapes, storage_needed, strided_layouts
from .spec import Case, Exercise, register

CHAPTER = "ch02_views"


def _torch():
    import torch  # imported only where references are computed

    return torch


def _storage_len(shape, stride, offset) -> int:
    return max(storage_needed(shape, stride, offset), offset)


def _storage(shape, stride, offset):
    """torch.arange over just enough storage for the layout: storage element k holds k."""
    return _torch().arange(_storage_len(shape, stride, offset))


nonzero_shapes = st.lists(st.sampled_from([1, 2, 2, 3, 4, 6]), max_size=4).map(tuple)


# ---------------------------------------------------------------- infer_size
@st.composite
def _infer_cases(draw: st.DrawFn) -> Case:
    numel = math.prod(draw(draw(st.sampled_from([nonzero_shapes] * 3 + [shapes]))))
    new = list(_factorizations(draw, numel))
    kind = draw(st.sampled_from(["fill", "fill", "fill", "as is", "two", "wrong", "negative"]))
    if kind == "fill" and new:
        new[draw(st.integers(0, len(new) - 1))] = -1
    elif kind == "two" and len(new) >= 2:
        i, j = draw(st.lists(st.integers(0, len(new) - 1), min_size=2, max_size=2, unique=True))
        new[i] = new[j] = -1
    elif kind == "wrong":
        new.insert(draw(st.integers(0, len(new))), draw(st.sampled_from([2, 3, 0, -1])))
    elif kind == "negative" and new:
        new[draw(st.integers(0, len(new) - 1))] = draw(st.sampled_from([-2, -3]))
    return Case(args=(tuple(new), numel))


def _infer_reference(c: Case) -> tuple[int, ...]:
    shape, numel = c.args
    return tuple(_torch().empty(numel).view(shape).shape)


def _infer_case(shape, numel) -> Case:
    return Case(args=(tuple(shape), numel))


register(Exercise(
    name="infer_size",
    chapter=CHAPTER,
    signature="infer_size(shape, numel) -> tuple[int, ...]; raises RuntimeError like torch",
    fixed=(
        _infer_case((3, -1), 12),
        _infer_case((-1,), 6),
        _infer_case((2, 3), 6),
        _infer_case((4, -1), 6),
        _infer_case((-1, -1), 4),
        _infer_case((-2, 3), 6),
        # the common mistakes' smallest failing cases: the visible test catches them
        Case(args=((2,), 3)),
        Case(args=((0, -1), 0)),
    ),
    edge=(
        _infer_case((), 1),
        _infer_case((-1,), 1),
        _infer_case((-1,), 0),
        _infer_case((2, -1, 0), 0),
        _infer_case((-1, -1), 4),
        _infer_case((1, -1, 1), 5),
        _infer_case((0,), 0),
        _infer_case((3, 0), 0),
        _infer_case((-2, 3), 6),
        _infer_case((-1, 4), 6),
        _infer_case((), 0),  # a 0-d shape holds one element
    ),
    strategy=_infer_cases,
    reference=_infer_reference,
    truth=lambda c: f"tuple(torch.empty({c.args[1]}).view({c.args[0]!r}).shape)",
    hidden_examples=100,
))


# ---------------------------------------------------------------- view_strides
def _factorizations(draw: st.DrawFn, numel: int) -> tuple[int, ...]:
    """A random shape with ``numel`` elements (a 0 somewhere when ``numel == 0``)."""
    if numel == 0:
        dims = draw(st.lists(st.sampled_from([0, 1, 2, 3, 4]), min_size=1, max_size=4))
        if 0 not in dims:
            dims[draw(st.integers(0, len(dims) - 1))] = 0
        return tuple(dims)
    primes, n, p = [], numel, 2
    while n > 1:
        while n % p == 0:
            primes.append(p)
            n //= p
        p += 1
    ndim = draw(st.integers(0 if numel == 1 else 1, 4))
    dims = [1] * ndim
    for prime in primes:
        dims[draw(st.integers(0, ndim - 1))] *= prime
    return tuple(dims)


def _regrouped(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with a few adjacent dims merged or split, or size-1 dims added or dropped:
    the reshapes people write, which are often (not always) possible as views."""
    dims = list(shape)
    for _ in range(draw(st.integers(1, 3))):
        move = draw(st.sampled_from(["merge", "split", "insert1", "drop1"]))
        if move == "merge" and len(dims) >= 2:
            k = draw(st.integers(0, len(dims) - 2))
            dims[k:k + 2] = [dims[k] * dims[k + 1]]
        elif move == "split" and dims:
            k = draw(st.integers(0, len(dims) - 1))
            divisors = [d for d in range(1, dims[k] + 1) if dims[k] % d == 0]
            if dims[k] and divisors:
                d = draw(st.sampled_from(divisors))
                dims[k:k + 1] = [d, dims[k] // d]
        elif move == "insert1" and len(dims) < 5:
            dims.insert(draw(st.integers(0, len(dims))), 1)
        elif move == "drop1" and 1 in dims:
            dims.remove(1)
    return tuple(dims)


@st.composite
def _view_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts(draw(st.sampled_from([nonzero_shapes] * 4
                                                                 + [shapes]))))
    if draw(st.booleans()):
        new_shape = _regrouped(draw, shape)
    else:
        new_shape = _factorizations(draw, math.prod(shape))
    return Case(args=(shape, stride, new_shape))


def _view_reference(c: Case) -> tuple[int, ...] | None:
    shape, stride, new_shape = c.args
    x = _torch().empty_strided(shape, stride)
    try:
        return x.view(new_shape).stride()
    except RuntimeError as err:
        if "view size is not compatible" in str(err):
            return None
        raise


def _view_case(shape, stride, new_shape) -> Case:
    return Case(args=(tuple(shape), tuple(stride), tuple(new_shape)))


register(Exercise(
    name="view_strides",
    chapter=CHAPTER,
    signature="view_strides(shape, stride, new_shape) -> tuple[int, ...] | None",
    fixed=(
        _view_case((2, 3), (3, 1), (3, 2)),
        _view_case((2, 3), (1, 2), (6,)),
        _view_case((4, 6), (12, 1), (4, 2, 3)),
        _view_case((4, 6), (12, 1), (24,)),
        _view_case((), (), (1, 1)),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((0, 3), (7, 9), (0, 3))),
    ),
    edge=(
        _view_case((2, 1, 3), (3, 17, 1), (6,)),
        _view_case((2, 1, 3), (3, 17, 1), (2, 3, 1)),
        _view_case((0, 3), (7, 9), (0, 3)),
        _view_case((2, 0, 3), (3, 3, 1), (0, 6)),
        _view_case((3,), (0,), (3, 1)),
        _view_case((3, 2), (0, 1), (6,)),
        _view_case((1, 1), (5, 9), ()),
        _view_case((2, 3, 4), (1, 8, 2), (2, 12)),
        _view_case((2, 3, 4), (24, 8, 2), (6, 4)),
    ),
    strategy=_view_cases,
    reference=_view_reference,
    truth=lambda c: (f"torch.empty_strided({c.args[0]!r}, {c.args[1]!r})"
                     f".view({c.args[2]!r}).stride(), or None where view raises"),
    hidden_examples=120,
))


# ---------------------------------------------------------------- slice_layout
def _as_index(entry):
    """An index entry as torch takes it: an int, or a (start, stop, step) triple as a slice."""
    return slice(*entry) if isinstance(entry, tuple) else entry


def _index_text(index) -> str:
    parts = []
    for entry in index:
        if isinstance(entry, tuple):
            start, stop, step = ("" if v is None else str(v) for v in entry)
            parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        else:
            parts.append(str(entry))
    return "[" + ", ".join(parts) + ("," if len(parts) == 1 else "") + "]" if parts else "[()]"


@st.composite
def _slice_cases(draw: st.DrawFn) -> Case:
    shape, stride, offset = draw(strided_layouts())
    count = len(shape) - draw(st.integers(0, len(shape)))
    if draw(st.integers(0, 9)) == 9:
        count = len(shape) + 1  # one index too many
    index = []
    for d in range(count):
        n = shape[d] if d < len(shape) else 1
        if draw(st.integers(0, 2)) == 0:
            if n == 0 or draw(st.integers(0, 7)) == 7:
                index.append(draw(st.sampled_from([n, -n - 1, n + 1])))  # out of range
            else:
                index.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = st.sampled_from([None, 1, 1, 2, 3])
            index.append((draw(bound), draw(bound), draw(step)))
    return Case(args=(shape, stride, offset, tuple(index)))


def _slice_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    shape, stride, offset, index = c.args
    x = _storage(shape, stride, offset).as_strided(shape, stride, offset)
    view = x[tuple(_as_index(e) for e in index)]
    return tuple(view.shape), view.stride(), view.storage_offset()


def _slice_case(shape, stride, offset, index) -> Case:
    return Case(args=(tuple(shape), tuple(stride), offset, tuple(index)))


register(Exercise(
    name="slice_layout",
    chapter=CHAPTER,
    signature="slice_layout(shape, stride, offset, index) -> (shape, stride, offset)",
    fixed=(
        _slice_case((4, 5), (5, 1), 0, (1,)),
        _slice_case((4, 5), (5, 1), 0, ((None, None, None), 2)),
        _slice_case((4, 5), (5, 1), 0, ((1, 3, None), (None, None, 2))),
        _slice_case((6,), (2,), 3, ((-4, None, 3),)),
        _slice_case((4, 5), (5, 1), 0, (-1, (10, 20, None))),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((3,), (1,), 0, (3,))),
    ),
    edge=(
        _slice_case((3,), (1,), 0, (3,)),
        _slice_case((3,), (1,), 0, (-4,)),
        _slice_case((), (), 2, ()),
        _slice_case((), (), 2, (0,)),
        _slice_case((2, 3), (3, 1), 0, (0, 0, 0)),
        _slice_case((0, 3), (3, 1), 0, (0,)),
        _slice_case((5,), (1,), 0, ((4, 1, None),)),
        _slice_case((5,), (1,), 0, ((-100, 100, 2),)),
        _slice_case((5,), (1,), 0, ((7, None, None),)),
        _slice_case((2, 3), (1, 2), 4, ((None, None, 5), -3)),
    ),
    strategy=_slice_cases,
    reference=_slice_reference,
    truth=lambda c: (f"x = torch.arange({_storage_len(*c.args[:3])}).as_strided({c.args[0]!r}, "
                     f"{c.args[1]!r}, {c.args[2]}); v = x{_index_text(c.args[3])}; "
                     "(tuple(v.shape), v.stride(), v.storage_offset())"),
))


# ---------------------------------------------------------------- permute_layout
@st.composite
def _permute_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts())
    n = len(shape)
    dims = list(draw(st.permutations(range(n))))
    dims = [d - n if draw(st.booleans()) else d for d in dims]  # some written as negative
    mistake = draw(st.sampled_from([None] * 6 + ["length", "duplicate", "range"]))
    if mistake == "length":
        if dims and draw(st.booleans()):
            dims.pop(draw(st.integers(0, n - 1)))
        else:
            dims.insert(draw(st.integers(0, n)), draw(st.integers(-n, max(n - 1, 0))))
    elif mistake == "duplicate" and n >= 2:
        i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        dims[j] = dims[i]
    elif mistake == "range" and n >= 1:
        dims[draw(st.integers(0, n - 1))] = draw(st.sampled_from([n, n + 1, -n - 1]))
    return Case(args=(shape, stride, tuple(dims)))


def _permute_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape, stride, dims = c.args
    y = _torch().empty_strided(shape, stride).permute(dims)
    return tuple(y.shape), y.stride()


def _permute_case(shape, stride, dims) -> Case:
    return Case(args=(tuple(shape), tuple(stride), tuple(dims)))


register(Exercise(
    name="permute_layout",
    chapter=CHAPTER,
    signature="permute_layout(shape, stride, dims) -> (shape, stride)",
    fixed=(
        _permute_case((2, 3, 4), (12, 4, 1), (2, 0, 1)),
        _permute_case((2, 3), (3, 1), (1, 0)),
        _permute_case((2, 3, 4), (12, 4, 1), (-1, -2, -3)),
        _permute_case((), (), ()),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=((), (), (0,))),
    ),
    edge=(
        _permute_case((2, 3), (3, 1), (0, 0)),
        _permute_case((2, 3), (3, 1), (0,)),
        _permute_case((2, 3), (3, 1), (0, 2)),
        _permute_case((2, 3), (3, 1), (0, -3)),
        _permute_case((), (), (0,)),
        _permute_case((5,), (0,), (-1,)),
        _permute_case((2, 3), (3, 1), (1, -1)),  # one dim written as d and d - n
        _permute_case((2, 3), (3, 1), (0, 1, 2)),  # too many: the length is checked first,
        _permute_case((2, 3), (3, 1), (5,)),  # before the range
    ),
    strategy=_permute_cases,
    reference=_permute_reference,
    truth=lambda c: (f"torch.empty_strided({c.args[0]!r}, {c.args[1]!r}).permute({c.args[2]!r})"
                     ", as (tuple(y.shape), y.stride())"),
))


# ---------------------------------------------------------------- diagonal_layout
@st.composite
def _diagonal_cases(draw: st.DrawFn) -> Case:
    wide = st.lists(st.sampled_from([0, 1, 2, 3, 4, 5]), min_size=2, max_size=4).map(tuple)
    shape, stride, offset = draw(strided_layouts(draw(st.sampled_from([wide] * 5
                                                                       + [shapes]))))
    n = len(shape)
    span = range(-max(n, 1), max(n, 1))
    dim1, dim2 = draw(st.lists(st.sampled_from(span), min_size=2, max_size=2, unique=True))
    mistake = draw(st.sampled_from([None] * 8 + ["same", "range"]))
    if mistake == "same":
        dim2 = dim1 - n if dim1 >= 0 and draw(st.booleans()) else dim1
    elif mistake == "range":
        dim2 = draw(st.sampled_from([max(n, 1), -max(n, 1) - 1]))
    return Case(args=(shape, stride, offset, draw(st.integers(-5, 5)), dim1, dim2))


def _diagonal_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    shape, stride, storage_offset, offset, dim1, dim2 = c.args
    x = _storage(shape, stride, storage_offset).as_strided(shape, stride, storage_offset)
    d = x.diagonal(offset, dim1, dim2)
    return tuple(d.shape), d.stride(), d.storage_offset()


def _diagonal_case(shape, stride, storage_offset, offset, dim1, dim2) -> Case:
    return Case(args=(tuple(shape), tuple(stride), storage_offset, offset, dim1, dim2))


register(Exercise(
    name="diagonal_layout",
    chapter=CHAPTER,
    signature="diagonal_layout(shape, stride, storage_offset, offset, dim1, dim2) -> "
              "(shape, stride, storage_offset); raises like torch",
    fixed=(
        _diagonal_case((3, 3), (3, 1), 0, 0, 0, 1),
        _diagonal_case((3, 4), (4, 1), 0, 1, 0, 1),
        _diagonal_case((3, 4), (4, 1), 0, -1, 0, 1),
        _diagonal_case((2, 3, 4), (12, 4, 1), 5, 0, 0, 2),
        _diagonal_case((4, 3), (1, 4), 0, 0, -1, 0),
        _diagonal_case((2, 2), (2, 1), 0, 5, 0, 1),
        _diagonal_case((2, 2), (2, 1), 0, 0, 1, -1),
        _diagonal_case((3,), (1,), 0, 0, 0, 1),
        # the common mistakes' smallest failing cases: the visible test catches them
        Case(args=((2, 2), (2, 1), 0, 2, 0, 1)),
        Case(args=((2, 2), (2, 1), 0, -1, 0, 1)),
    ),
    edge=(
        _diagonal_case((2, 2), (2, 1), 0, 5, 0, 1),
        _diagonal_case((2, 2), (2, 1), 3, -5, 0, 1),
        _diagonal_case((2, 2), (2, 1), 0, 0, 0, 0),
        _diagonal_case((2, 2), (2, 1), 0, 0, 1, -1),
        _diagonal_case((2, 2), (2, 1), 0, 0, 0, 2),
        _diagonal_case((3,), (1,), 0, 0, 0, 1),
        _diagonal_case((), (), 0, 0, 0, 1),
        _diagonal_case((0, 3), (3, 1), 2, 1, 0, 1),
        _diagonal_case((3, 3), (0, 1), 0, 1, 1, 0),
        # a 0-d (and a 1-d) tensor takes dims 0 and -1, both the same dim: RuntimeError;
        # a dim out of range is an IndexError, checked before dim1 == dim2
        _diagonal_case((), (), 0, 0, 0, -1),
        _diagonal_case((), (), 3, 1, -1, -1),
        _diagonal_case((), (), 0, 0, -2, 0),
        _diagonal_case((3,), (1,), 0, 0, 0, -1),
        _diagonal_case((2, 2), (2, 1), 0, 0, 2, 2),
    ),
    strategy=_diagonal_cases,
    reference=_diagonal_reference,
    truth=lambda c: (f"x = torch.arange({_storage_len(*c.args[:3])}).as_strided({c.args[0]!r}, "
                     f"{c.args[1]!r}, {c.args[2]}); d = x.diagonal({c.args[3]}, {c.args[4]}, "
                     f"{c.args[5]}); (tuple(d.shape), d.stride(), d.storage_offset())"),
))


# ---------------------------------------------------------------- shares_storage
def _all_true(x):
    return x[_torch().ones_like(x, dtype=_torch().bool)]


#: The menu of operations: the name is the exact torch expression, applied to a float32 x.
OPERATIONS: dict[str, Callable] = {
    "x.view(-1)": lambda x: x.view(-1),
    "x.reshape(-1)": lambda x: x.reshape(-1),
    "x.flatten()": lambda x: x.flatten(),
    "x.flatten(0, 1)": lambda x: x.flatten(0, 1),
    "x.contiguous()": lambda x: x.contiguous(),
    "x.clone()": lambda x: x.clone(),
    "x.detach()": lambda x: x.detach(),
    "x.transpose(0, -1)": lambda x: x.transpose(0, -1),
    "x.t()": lambda x: x.t(),
    "x.t().reshape(-1)": lambda x: x.t().reshape(-1),
    "x.mT": lambda x: x.mT,
    "x.unsqueeze(0)": lambda x: x.unsqueeze(0),
    "x.expand(2, *x.shape)": lambda x: x.expand(2, *x.shape),
    "x[0]": lambda x: x[0],
    "x[[0]]": lambda x: x[[0]],
    "x[mask]": _all_true,
    "x.to(torch.float32)": lambda x: x.to(_torch().float32),
    "x.to(torch.float64)": lambda x: x.to(_torch().float64),
}

nonempty_shapes = st.lists(st.sampled_from([1, 1, 2, 3, 4]), max_size=4).map(tuple)


@st.composite
def _share_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts(nonempty_shapes))
    return Case(args=(draw(st.sampled_from(list(OPERATIONS))), shape, stride))


def _share_reference(c: Case) -> bool | str:
    op, shape, stride = c.args
    x = _torch().empty_strided(shape, stride)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # x.mT on a 0-d tensor warns
            y = OPERATIONS[op](x)
    except Exception:  # noqa: BLE001 - any refusal is the answer "error"
        return "error"
    return y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def _share_case(op, shape, stride) -> Case:
    return Case(args=(op, tuple(shape), tuple(stride)))


register(Exercise(
    name="shares_storage",
    chapter=CHAPTER,
    signature='shares_storage(op, shape, stride) -> True | False | "error"',
    fixed=(
        _share_case("x.view(-1)", (2, 3), (1, 2)),
        _share_case("x.reshape(-1)", (2, 3), (1, 2)),
        _share_case("x.contiguous()", (2, 3), (3, 1)),
        _share_case("x[[0]]", (2, 3), (3, 1)),
        _share_case("x.t()", (2, 3, 4), (12, 4, 1)),
        # a common mistake's smallest failing case: the visible test catches it
        Case(args=('x.reshape(-1)', (), ())),
        Case(args=('x.detach()', (), ())),
    ),
    edge=tuple(_share_case(op, shape, stride) for op in OPERATIONS
               for shape, stride in [((), ()), ((3,), (2,)), ((2, 3), (1, 2)),
                                     ((2, 1, 3), (3, 7, 1)), ((4, 3), (0, 1))]),
    strategy=_share_cases,
    reference=_share_reference,
    truth=lambda c: (f"x = torch.empty_strided({c.args[1]!r}, {c.args[2]!r}); y = {c.args[0]}; "
                     "y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), "
                     'or "error" where torch raises'),
    hidden_examples=150,
))


# ---------------------------------------------------------------- internal_overlap
#: torch._debug_has_internal_overlap's answers, as the exercise names them
OVERLAP_WORDS = {0: "no", 1: "yes", 2: "too hard"}


def _permuted_dense(draw: st.DrawFn, shape: tuple[int, ...]) -> list[int]:
    """Strides that lay ``shape`` out densely in a drawn dim order (size-0 dims count as 1)."""
    order = draw(st.permutations(range(len(shape))))
    base = row_major([shape[d] for d in order])
    stride = [0] * len(shape)
    for pos, d in enumerate(order):
        stride[d] = base[pos]
    return stride


@st.composite
def _overlap_layouts(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, stride): dense in any dim order, expanded, overlapping windows, stepped, empty,
    0-d, size-1 dims with odd strides (0 among them), and anything."""
    kind = draw(st.sampled_from(["dense", "dense", "expanded", "windows", "strided", "empty",
                                 "ones"]))
    if kind == "strided":
        shape, stride, _ = draw(strided_layouts())
        return shape, stride
    shape = list(draw(shapes))
    if kind == "empty":
        shape.insert(draw(st.integers(0, len(shape))), 0)
    elif kind == "ones":
        shape = [1] * draw(st.integers(0, 3))
    elif kind == "windows":  # unfold's layout: windows of `size` every `step` elements
        size, step = draw(st.integers(2, 4)), draw(st.integers(1, 3))
        where = draw(st.integers(0, len(shape)))
        shape[where:where] = [draw(st.integers(2, 4)), size]
        stride = _permuted_dense(draw, tuple(shape[:where] + [1] + shape[where + 2:]))
        inner = stride[where]
        stride[where:where + 1] = [inner * step, inner]
        return tuple(shape), tuple(stride)
    stride = _permuted_dense(draw, tuple(shape))
    if kind == "expanded" and shape:
        for d in draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=2)):
            stride[d] = 0
    for d, n in enumerate(shape):  # a size-1 dim's stride is never used: any value
        if n == 1 and draw(st.booleans()):
            stride[d] = draw(st.sampled_from([0, 1, 2, 5, 7, 12]))
    return tuple(shape), tuple(stride)


def _internal_cases() -> st.SearchStrategy[Case]:
    return _overlap_layouts().map(lambda layout: Case(args=layout))


def _internal_reference(c: Case) -> str:
    shape, stride = c.args
    torch = _torch()
    return OVERLAP_WORDS[torch._debug_has_internal_overlap(torch.empty_strided(shape, stride))]


def _internal_case(shape, stride) -> Case:
    return Case(args=(tuple(shape), tuple(stride)))


register(Exercise(
    name="internal_overlap",
    chapter=CHAPTER,
    signature='internal_overlap(shape, stride) -> "no" | "yes" | "too hard"',
    fixed=(
        _internal_case((2, 3), (3, 1)),
        _internal_case((2, 3), (0, 1)),
        _internal_case((4,), (2,)),
        _internal_case((), ()),
        # the common mistakes' smallest failing cases: the visible test catches them
        _internal_case((3, 2), (1, 3)),  # dense in another dim order
        _internal_case((2, 1, 3), (3, 7, 1)),  # a size-1 dim's stride is never used
        _internal_case((1, 3), (0, 1)),  # stride 0 on a dim of size 1: no overlap
        _internal_case((0, 3), (1, 0)),  # no elements: dense, even with a stride 0
        _internal_case((3, 2), (1, 1)),  # overlapping windows: torch does not look
    ),
    edge=(
        _internal_case((), ()),
        _internal_case((0,), (5,)),
        _internal_case((3, 0, 2), (0, 0, 0)),
        _internal_case((1,), (0,)),
        _internal_case((1, 1), (0, 9)),
        _internal_case((5,), (0,)),
        _internal_case((2, 1), (0, 0)),
        _internal_case((2, 3), (1, 2)),
        _internal_case((2, 3, 4), (1, 8, 2)),
        _internal_case((2, 3), (4, 1)),
        _internal_case((2, 2), (1, 1)),
        _internal_case((3, 3), (1, 2)),
        _internal_case((2, 2), (2, 2)),
        _internal_case((4, 3), (1, 1)),
        _internal_case((2, 3), (3, 0)),
        _internal_case((2, 2, 2), (4, 0, 1)),
    ),
    strategy=_internal_cases,
    reference=_internal_reference,
    truth=lambda c: (f"torch._debug_has_internal_overlap(torch.empty_strided({c.args[0]!r}, "
                     f"{c.args[1]!r})): 0, 1, 2 are \"no\", \"yes\", \"too hard\""),
    hidden_examples=150,
))


# ---------------------------------------------------------------- overlap_status
#: an integer dtype of each item size, to lay a tensor of that item size on a storage
_ITEM_DTYPES = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}
_SHARED = "some elements of the input tensor and the written-to tensor refer to a single"


def _numel(shape) -> int:
    return math.prod(shape)


def _extent(memory) -> tuple[int, int]:
    """The bytes from the first element's to one past the last's, for a dense layout."""
    _, shape, stride, offset, itemsize = memory
    return offset * itemsize, (offset + _numel(shape)) * itemsize


@st.composite
def _overlap_cases(draw: st.DrawFn) -> Case:
    """Two tensors' memory: mostly one storage and dense layouts, placed on purpose to overlap
    fully, partly (shifted, regrouped, inside) or not (touching, apart), with other item sizes
    and layouts that are not dense now and then."""
    itemsize = draw(st.sampled_from([4, 4, 4, 1, 2, 8]))
    shape, stride = draw(_overlap_layouts())
    a = (0, shape, stride, draw(st.integers(0, 6)), itemsize)
    numel = _numel(shape)
    kind = draw(st.sampled_from(["same", "shifted", "regrouped", "regrouped", "inside",
                                 "touching", "apart", "items", "any"]))
    b_itemsize = itemsize
    if kind in ("same", "shifted"):
        b_shape, b_stride = shape, stride
        b_offset = a[3] + (draw(st.sampled_from([-2, -1, 1, 2, 3])) if kind == "shifted" else 0)
    elif kind == "regrouped":  # the same elements, another dense layout of them
        b_shape = _factorizations(draw, numel) if numel else draw(shapes)
        b_stride = tuple(_permuted_dense(draw, b_shape))
        b_offset = a[3]
    elif kind == "inside":  # a row-major block that starts and ends within a's
        first = draw(st.integers(0, max(numel - 1, 0)))
        b_shape = (draw(st.integers(1, max(numel - first, 1))),)
        b_stride, b_offset = (1,), a[3] + first
    elif kind == "items":  # another item size over the same bytes (or next to them)
        b_itemsize = draw(st.sampled_from([n for n in (1, 2, 4, 8) if n != itemsize]))
        begin, end = _extent(a)
        if begin % b_itemsize or end % b_itemsize:
            b_itemsize = 1
        b_shape = (max((end - begin) // b_itemsize, 1),)
        b_stride = (draw(st.sampled_from([1, 1, 2])),)
        b_offset = begin // b_itemsize + draw(st.sampled_from([0, 0, 1]))
    else:
        b_shape, b_stride = draw(_overlap_layouts())
        b_offset = draw(st.integers(0, 8))
    if kind == "touching":  # right after a's last byte, or ending at its first
        b_shape, b_stride = draw(_overlap_layouts())
        begin, end = _extent(a)
        b_offset = end // itemsize if draw(st.booleans()) else a[3] - _numel(b_shape)
    elif kind == "apart":
        b_offset = a[3] + numel + draw(st.integers(1, 3))
    b_offset = max(b_offset, 0)
    b_storage = 1 if draw(st.integers(0, 9)) == 0 else 0
    b = (b_storage, tuple(b_shape), tuple(b_stride), b_offset, b_itemsize)
    return Case(args=(a, b) if draw(st.booleans()) else (b, a))


def _laid_out(memories):
    """torch tensors with these memories: one uint8 storage per storage name, each tensor an
    integer dtype of its item size laid on it with ``set_``."""
    torch = _torch()
    needed: dict = {}
    for storage, shape, stride, offset, itemsize in memories:
        top = offset + (storage_needed(shape, stride) if 0 not in shape else 0)
        needed[storage] = max(needed.get(storage, 1), top * itemsize)
    storages = {name: torch.UntypedStorage(n) for name, n in needed.items()}
    return [torch.empty(0, dtype=getattr(torch, _ITEM_DTYPES[itemsize])).set_(
                storages[storage], offset, shape, stride)
            for storage, shape, stride, offset, itemsize in memories]


def _refused(write) -> bool:
    """Does torch refuse the write because its input and output share memory?"""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write()
    except (RuntimeError, IndexError) as err:
        return _SHARED in str(err)
    return False


def _overlap_reference(c: Case) -> str:
    """From torch's behaviour: ``y.copy_(x)`` refuses partial overlap only (its iterator's
    ``assert_no_partial_overlap``), ``y.index_copy_(0, empty index, x)`` refuses any (its
    ``assert_no_overlap``), both before checking shapes or dtypes. Neither looks at a layout
    that is not dense (``torch._debug_has_internal_overlap`` not 0): "too hard"; and torch
    asks about the elements first: a tensor without elements overlaps nothing."""
    torch = _torch()
    a, b = _laid_out(c.args)  # the layouts only: the writes below lay out their own
    if a.numel() == 0 or b.numel() == 0:
        return "no"
    if torch._debug_has_internal_overlap(a) or torch._debug_has_internal_overlap(b):
        return "too hard"
    empty = torch.zeros(0, dtype=torch.long)

    def copy() -> None:  # each write on fresh storages: one that goes ahead changes them
        out, source = _laid_out(c.args)
        out.copy_(source)

    def index_copy() -> None:
        out, source = _laid_out(c.args)
        out.index_copy_(0, empty, source)

    if _refused(copy):
        return "partial"
    if _refused(index_copy):
        return "full"
    return "no"


def _memory_case(a, b) -> Case:
    def plain(m):
        storage, shape, stride, offset, itemsize = m
        return storage, tuple(shape), tuple(stride), offset, itemsize
    return Case(args=(plain(a), plain(b)))


def _overlap_truth(c: Case) -> str:
    lines = []
    for name, (storage, shape, stride, offset, itemsize) in zip("ab", c.args, strict=True):
        lines.append(f"{name} = torch.empty(0, dtype=torch.{_ITEM_DTYPES[itemsize]}).set_("
                     f"storage_{storage}, {offset}, {shape!r}, {stride!r})")
    return ("; ".join(lines) + ' (UntypedStorages); "partial" where b.copy_(a) raises '
            '"some elements of the input tensor and the written-to tensor refer to a single '
            'memory location", "full" where only b.index_copy_(0, torch.zeros(0, '
            'dtype=torch.long), a) does, "too hard" where either is not dense '
            "(torch._debug_has_internal_overlap not 0), else \"no\"")


register(Exercise(
    name="overlap_status",
    chapter=CHAPTER,
    signature='overlap_status(a, b) -> "full" | "partial" | "no" | "too hard"; a and b are '
              "(storage, shape, stride, offset, itemsize)",
    fixed=(
        _memory_case((0, (2, 3), (3, 1), 0, 4), (0, (2, 3), (3, 1), 0, 4)),
        _memory_case((0, (4,), (1,), 1, 4), (0, (4,), (1,), 0, 4)),
        _memory_case((0, (4,), (1,), 0, 4), (1, (4,), (1,), 0, 4)),
        _memory_case((0, (3,), (1,), 0, 4), (0, (3,), (1,), 3, 4)),
        # the common mistakes' smallest failing cases: the visible test catches them
        _memory_case((0, (2, 3), (3, 1), 0, 4), (0, (3, 2), (1, 3), 0, 4)),  # other strides
        _memory_case((0, (2,), (1,), 0, 4), (0, (4,), (1,), 0, 2)),  # bytes, not elements
        _memory_case((0, (4,), (2,), 0, 4), (0, (4,), (2,), 0, 4)),  # not dense: too hard
        _memory_case((0, (0,), (1,), 0, 4), (0, (3,), (2,), 0, 4)),  # empty before layout
        _memory_case((0, (2, 1), (1, 1), 0, 4), (0, (2, 1), (1, 5), 0, 4)),  # size-1 stride
    ),
    edge=(
        _memory_case((0, (), (), 2, 4), (0, (), (), 2, 4)),
        _memory_case((0, (), (), 2, 4), (0, (1,), (1,), 2, 4)),
        _memory_case((0, (), (), 2, 4), (0, (), (), 3, 4)),
        _memory_case((0, (), (), 1, 8), (0, (), (), 2, 4)),
        _memory_case((0, (), (), 1, 8), (0, (), (), 3, 4)),
        _memory_case((0, (0, 3), (3, 1), 0, 4), (0, (2, 3), (3, 1), 0, 4)),
        _memory_case((0, (3,), (0,), 0, 4), (1, (3,), (1,), 0, 4)),
        _memory_case((0, (3, 2), (1, 1), 0, 4), (0, (4,), (1,), 0, 4)),
        _memory_case((0, (6,), (1,), 0, 4), (0, (2, 3), (3, 1), 0, 4)),
        _memory_case((0, (6,), (1,), 0, 4), (0, (6, 1), (1, 1), 0, 4)),
        _memory_case((0, (3, 2), (2, 1), 0, 4), (0, (3, 2), (2, 1), 0, 4)),
        _memory_case((0, (2, 3), (1, 2), 0, 4), (0, (2, 3), (1, 2), 0, 4)),
        _memory_case((0, (2, 3), (1, 2), 0, 4), (0, (3, 2), (2, 1), 0, 4)),
        _memory_case((0, (4,), (1,), 0, 4), (0, (4,), (1,), 4, 4)),
        _memory_case((0, (4,), (1,), 4, 4), (0, (4,), (1,), 0, 4)),
        _memory_case((0, (4,), (1,), 0, 4), (0, (2,), (1,), 1, 4)),
        _memory_case((0, (4,), (1,), 0, 4), (0, (16,), (1,), 0, 1)),
        _memory_case((0, (4,), (1,), 0, 4), (0, (8,), (1,), 8, 2)),
        _memory_case((0, (4,), (1,), 0, 4), (0, (2,), (1,), 0, 8)),
        _memory_case((0, (1,), (1,), 0, 4), (0, (1,), (7,), 0, 4)),
        _memory_case((0, (1, 3), (0, 1), 0, 4), (0, (3,), (1,), 0, 4)),
        _memory_case((0, (1, 3), (0, 1), 2, 4), (0, (1, 3), (0, 1), 2, 4)),
        _memory_case((0, (2, 3), (0, 1), 0, 4), (0, (3,), (1,), 0, 4)),
        _memory_case((0, (4, 3), (1, 1), 0, 4), (1, (3,), (1,), 0, 4)),
        _memory_case((0, (3, 2, 2), (1, 6, 3), 1, 2), (0, (12,), (1,), 1, 2)),
    ),
    strategy=_overlap_cases,
    reference=_overlap_reference,
    truth=_overlap_truth,
    hidden_examples=150,
))


# ---------------------------------------------------------------- index_positions
index_shapes = st.lists(st.sampled_from([1, 1, 2, 3, 0]), max_size=2).map(tuple)


@st.composite
def _index_entry(draw: st.DrawFn, size: int, shape: tuple[int, ...]):
    """(shape, values) of an index into a dim of ``size``: mostly in range, negative ones
    too, now and then one out of range."""
    count = math.prod(shape)
    if size and draw(st.integers(0, 7)):
        values = [draw(st.integers(-size, size - 1)) for _ in range(count)]
    else:
        values = [draw(st.integers(-size - 2, size + 1)) for _ in range(count)]
    return tuple(shape), tuple(values)


@st.composite
def _positions_cases(draw: st.DrawFn) -> Case:
    shape, stride, offset = draw(strided_layouts(
        st.lists(st.sampled_from([0, 1, 2, 3, 3, 4]), min_size=1, max_size=4).map(tuple)))
    count = draw(st.integers(1, len(shape)))
    indexed = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    if not any(indexed):
        indexed[draw(st.integers(0, count - 1))] = True
    common = draw(index_shapes)
    indices = []
    for d, flag in enumerate(indexed):
        if not flag:
            indices.append(None)
            continue
        kind = draw(st.sampled_from(["same", "same", "broadcast", "any"]))
        if kind == "same":
            own = common
        elif kind == "broadcast":  # drop leading dims, set some to 1
            own = tuple(1 if draw(st.booleans()) else n
                        for n in common[draw(st.integers(0, len(common))):])
        else:  # any shape: may not broadcast
            own = draw(index_shapes)
        indices.append(draw(_index_entry(shape[d], own)))
    return Case(args=(shape, stride, offset, tuple(indices)))


def _positions_reference(c: Case) -> tuple[tuple[int, ...], list[int]]:
    torch = _torch()
    shape, stride, offset, indices = c.args
    x = _storage(shape, stride, offset).as_strided(shape, stride, offset)
    tensors = [None if e is None else torch.tensor(e[1], dtype=torch.long).reshape(e[0])
               for e in indices]
    r = torch.ops.aten.index.Tensor(x, tensors)
    return tuple(r.shape), r.flatten().tolist()


def _positions_truth(c: Case) -> str:
    shape, stride, offset, indices = c.args
    listed = ", ".join("None" if e is None else
                       f"torch.tensor({list(e[1])}).reshape({e[0]!r})" for e in indices)
    return (f"x = torch.arange({_storage_len(shape, stride, offset)}).as_strided({shape!r}, "
            f"{stride!r}, {offset}); r = torch.ops.aten.index.Tensor(x, [{listed}]); "
            "(tuple(r.shape), r.flatten().tolist())")


def _call_positions(answer, case: Case):
    """The answer's (shape, positions) as a tuple and a list, whatever sequences it gave."""
    shape, positions = answer(*case.args)
    return tuple(shape), list(positions)


def _positions_case(shape, stride, offset, *indices) -> Case:
    return Case(args=(tuple(shape), tuple(stride), offset, tuple(
        None if e is None else (tuple(e[0]), tuple(e[1])) for e in indices)))


register(Exercise(
    name="index_positions",
    chapter=CHAPTER,
    signature="index_positions(shape, stride, offset, indices) -> (result shape, storage "
              "positions in row-major order); each index None or (index_shape, values)",
    fixed=(
        _positions_case((3, 4), (4, 1), 0, ((2,), (2, 0))),
        _positions_case((3, 4), (4, 1), 0, None, ((2,), (-1, 1))),
        _positions_case((2, 3, 4), (12, 4, 1), 0, None, ((2,), (0, 2)), ((2,), (1, 3))),
        _positions_case((4, 3), (1, 4), 2, ((2, 2), (0, 1, 2, 3))),
        # the common mistakes' smallest failing cases: the visible test catches them
        _positions_case((2, 3, 4), (12, 4, 1), 0, ((2,), (0, 1)), None, ((2,), (1, 3))),
        _positions_case((2, 2, 3, 2), (12, 6, 2, 1), 0, None, ((2,), (0, 1)), None,
                        ((1, 2), (1, 0))),
        _positions_case((2, 3), (3, 1), 0, ((2, 1), (0, 1)), ((3,), (0, 1, 2))),
        _positions_case((3,), (1,), 0, ((1,), (3,))),
        _positions_case((2, 3), (3, 1), 0, ((), (1,))),
    ),
    edge=(
        _positions_case((3,), (1,), 0, ((1,), (-4,))),
        _positions_case((2, 3), (3, 1), 0, ((2,), (0, 1)), ((3,), (0, 1, 2))),
        _positions_case((0, 3), (3, 1), 0, ((1,), (0,))),
        _positions_case((0, 3), (3, 1), 0, ((0,), ())),
        _positions_case((2, 0), (1, 1), 0, ((1,), (5,))),
        _positions_case((2, 3, 4), (12, 4, 1), 0, ((1,), (7,)), ((0,), ())),
        _positions_case((3, 4), (0, 1), 5, ((3,), (2, 2, 0))),
        _positions_case((2, 3, 2), (1, 2, 6), 1, None, ((), (2,))),
        _positions_case((2, 3, 4), (12, 4, 1), 0, ((), (1,)), None, ((2,), (0, 3))),
        _positions_case((2, 2, 2, 2), (8, 4, 2, 1), 0, None, ((2,), (0, 1)), None,
                        ((), (1,))),
    ),
    strategy=_positions_cases,
    reference=_positions_reference,
    truth=_positions_truth,
    call=_call_positions,
))


# ---------------------------------------------------------------- view_dtype_layout
#: each dtype's element size in bytes and the name torch's messages give it (its ScalarType)
VIEW_DTYPES = {"bool": (1, "Bool"), "uint8": (1, "Byte"), "int8": (1, "Char"),
               "int16": (2, "Short"), "float16": (2, "Half"), "bfloat16": (2, "BFloat16"),
               "int32": (4, "Int"), "float32": (4, "Float"), "int64": (8, "Long"),
               "float64": (8, "Double")}
_BY_NAME = {name: dtype for dtype, (_, name) in VIEW_DTYPES.items()}
_last_sizes = st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), max_size=3).map(tuple)


@st.composite
def _bytes_cases(draw: st.DrawFn) -> Case:
    old = VIEW_DTYPES[draw(st.sampled_from(sorted(VIEW_DTYPES)))]
    relation = draw(st.sampled_from([0, 1, 1, -1, -1]))  # same size, larger, smaller
    news = [v for v in VIEW_DTYPES.values() if (v[0] > old[0]) - (v[0] < old[0]) == relation]
    new = draw(st.sampled_from(sorted(news or VIEW_DTYPES.values())))
    shape, stride, offset = draw(strided_layouts(_last_sizes))
    if shape and draw(st.integers(0, 3)):  # mostly a last dim that steps by 1
        stride = (*stride[:-1], 1)
    ratio = new[0] // old[0]
    if ratio > 1 and shape and draw(st.integers(0, 3)):
        # mostly a layout that the larger elements fit: the one it would have in them, read
        # in the smaller ones; now and then one number made one too many
        shape = (*shape[:-1], shape[-1] * ratio)
        stride = (*(s * ratio for s in stride[:-1]), stride[-1])
        offset *= ratio
        spoil = draw(st.sampled_from([None] * 4 + ["size", "offset", "stride"]))
        if spoil == "size":
            shape = (*shape[:-1], shape[-1] + 1)
        elif spoil == "offset":
            offset += 1
        elif spoil == "stride" and len(shape) > 1:
            d = draw(st.integers(0, len(shape) - 2))
            stride = (*stride[:d], stride[d] + 1, *stride[d + 1:])
    return _bytes_case(shape, stride, offset, old[1], new[1])


def _bytes_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    torch = _torch()
    shape, stride, offset, _, _, name, new_name = c.args
    storage = torch.zeros(_storage_len(shape, stride, offset),
                          dtype=getattr(torch, _BY_NAME[name]))
    y = storage.as_strided(shape, stride, offset).view(getattr(torch, _BY_NAME[new_name]))
    return tuple(y.shape), y.stride(), y.storage_offset()


def _bytes_truth(c: Case) -> str:
    shape, stride, offset, _, _, name, new_name = c.args
    return (f"x = torch.zeros({_storage_len(shape, stride, offset)}, dtype=torch."
            f"{_BY_NAME[name]}).as_strided({shape!r}, {stride!r}, {offset}); y = x.view(torch."
            f"{_BY_NAME[new_name]}); (tuple(y.shape), y.stride(), y.storage_offset())")


def _bytes_case(shape, stride, offset, name, new_name) -> Case:
    """A case from the two dtypes' ScalarType names; their element sizes are looked up."""
    sizes = {n: size for size, n in VIEW_DTYPES.values()}
    return Case(args=(tuple(shape), tuple(stride), offset, sizes[name], sizes[new_name], name,
                      new_name))


register(Exercise(
    name="view_dtype_layout",
    chapter=CHAPTER,
    signature="view_dtype_layout(shape, stride, offset, itemsize, new_itemsize, name, "
              "new_name) -> (shape, stride, storage_offset); raises like torch",
    fixed=(
        _bytes_case((2, 3), (3, 1), 0, "Float", "Short"),
        _bytes_case((2, 4), (4, 1), 0, "Short", "Float"),
        _bytes_case((3, 4), (8, 1), 4, "Char", "Int"),
        _bytes_case((2, 3), (1, 2), 0, "Float", "Int"),
        _bytes_case((3,), (1,), 0, "Bool", "Byte"),
        _bytes_case((2, 3), (3, 1), 0, "Short", "Long"),
        # the common mistakes' smallest failing cases: the visible test catches them
        _bytes_case((4, 2), (2, 1), 1, "Short", "Float"),
        _bytes_case((4,), (2,), 0, "Float", "Short"),
        _bytes_case((), (), 0, "Float", "Short"),
        _bytes_case((3, 2), (3, 1), 0, "Short", "Float"),
        _bytes_case((4, 1), (2, 3), 0, "Short", "Char"),
    ),
    edge=(
        _bytes_case((), (), 0, "Float", "Int"),
        _bytes_case((), (), 3, "Double", "Char"),
        _bytes_case((2, 3), (1, 2), 5, "Half", "BFloat16"),
        _bytes_case((4, 1), (2, 3), 0, "Short", "Char"),
        _bytes_case((4, 2), (2, 3), 0, "Short", "Float"),
        _bytes_case((4, 1), (2, 3), 0, "Short", "Float"),
        _bytes_case((3, 0), (3, 5), 0, "Short", "Float"),
        _bytes_case((0, 2), (3, 1), 0, "Short", "Float"),
        _bytes_case((0, 2), (3, 1), 1, "Short", "Float"),
        _bytes_case((3, 2), (0, 1), 0, "Short", "Float"),
        _bytes_case((3, 2), (0, 1), 2, "Float", "Bool"),
        _bytes_case((3, 2), (2, 0), 0, "Short", "Char"),
        _bytes_case((3, 4), (1, 3), 0, "Short", "Char"),
        _bytes_case((3, 3), (3, 2), 3, "Short", "Float"),
        _bytes_case((3, 4), (3, 2), 3, "Short", "Float"),
        _bytes_case((3, 4, 2), (3, 5, 1), 2, "Short", "Float"),
        _bytes_case((2, 4), (4, 1), 0, "Char", "Double"),
        _bytes_case((2, 8), (8, 1), 8, "Byte", "Double"),
    ),
    strategy=_bytes_cases,
    reference=_bytes_reference,
    truth=_bytes_truth,
))


# ---------------------------------------------------------------- squeeze_layout
#: shapes rich in size-1 dims (squeeze's business), with empty dims now and then
_ones_shapes = st.lists(st.sampled_from([1, 1, 1, 2, 3, 0]), max_size=4).map(tuple)


@st.composite
def _squeeze_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts(draw(st.sampled_from([_ones_shapes] * 2
                                                                   + [shapes]))))
    n = len(shape)
    if draw(st.integers(0, 2)) == 0:  # unsqueeze: a place in the n + 1 dims of the result
        m = n + 1
        dim = draw(st.integers(-m, m - 1))
        if not draw(st.integers(0, 7)):  # now and then one out of range
            dim = draw(st.sampled_from([m, m + 1, -m - 1]))
        return _squeeze_case("unsqueeze", shape, stride, dim)
    m = max(n, 1)  # a 0-d tensor takes dim 0 and -1
    in_range = st.integers(-m, m - 1)
    kind = draw(st.sampled_from(["all", "one", "one", "tuple", "tuple", "tuple"]))
    if kind == "all":
        return _squeeze_case("squeeze", shape, stride, None)
    if kind == "one":
        dim = draw(in_range) if draw(st.integers(0, 7)) else draw(st.sampled_from([m, -m - 1]))
        return _squeeze_case("squeeze", shape, stride, dim)
    dims = draw(st.lists(in_range, max_size=min(m, 3), unique_by=lambda d: d % m))
    mistake = draw(st.sampled_from([None] * 4 + ["twice", "twice", "range"]))
    if mistake == "twice" and dims:  # the same dim again, maybe written the other way
        d = draw(st.sampled_from(dims)) % m
        dims.insert(draw(st.integers(0, len(dims))), draw(st.sampled_from([d, d - m])))
    elif mistake == "range":
        dims.insert(draw(st.integers(0, len(dims))), draw(st.sampled_from([m, m + 2, -m - 1])))
    return _squeeze_case("squeeze", shape, stride, tuple(dims))


def _squeeze_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    torch = _torch()
    op, shape, stride, dim = c.args
    x = torch.zeros(_storage_len(shape, stride, 0)).as_strided(shape, stride)
    y = x.unsqueeze(dim) if op == "unsqueeze" else x.squeeze() if dim is None else x.squeeze(dim)
    return tuple(y.shape), y.stride()


def _squeeze_truth(c: Case) -> str:
    op, shape, stride, dim = c.args
    return (f"x = torch.empty_strided({shape!r}, {stride!r}); y = x.{op}"
            f"({'' if dim is None else repr(dim)}); (tuple(y.shape), y.stride())")


def _squeeze_case(op, shape, stride, dim) -> Case:
    return Case(args=(op, tuple(shape), tuple(stride),
                      tuple(dim) if isinstance(dim, list | tuple) else dim))


register(Exercise(
    name="squeeze_layout",
    chapter=CHAPTER,
    signature="squeeze_layout(op, shape, stride, dim) -> (shape, stride); op is \"squeeze\" "
              "or \"unsqueeze\"; raises like torch",
    fixed=(
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), None),
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), 1),
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), 0),
        _squeeze_case("squeeze", (1, 2, 1), (2, 1, 1), (0, -1)),
        _squeeze_case("unsqueeze", (2, 3), (3, 1), 0),
        _squeeze_case("unsqueeze", (2, 3), (3, 1), 1),
        _squeeze_case("unsqueeze", (2, 3), (3, 1), 2),
        # the common mistakes' smallest failing cases: the visible test catches them
        _squeeze_case("unsqueeze", (2, 3), (3, 1), -1),
        _squeeze_case("unsqueeze", (2, 3), (1, 2), 1),
        _squeeze_case("unsqueeze", (2, 3), (1, 2), 2),
        _squeeze_case("unsqueeze", (), (), 0),
        _squeeze_case("squeeze", (), (), 0),
        _squeeze_case("squeeze", (2, 1), (1, 1), 2),
        _squeeze_case("unsqueeze", (2,), (1,), 2),
        _squeeze_case("squeeze", (2, 1), (1, 1), (1, -1)),
        _squeeze_case("squeeze", (2, 1), (1, 1), ()),
    ),
    edge=(
        _squeeze_case("squeeze", (), (), None),
        _squeeze_case("squeeze", (), (), -1),
        _squeeze_case("squeeze", (), (), 1),
        _squeeze_case("squeeze", (), (), (0, -1)),
        _squeeze_case("squeeze", (), (), (0,)),
        _squeeze_case("unsqueeze", (), (), -1),
        _squeeze_case("unsqueeze", (), (), 1),
        _squeeze_case("unsqueeze", (), (), -2),
        _squeeze_case("squeeze", (1, 1, 1), (7, 0, 5), None),
        _squeeze_case("squeeze", (2, 0, 1), (1, 2, 9), None),
        _squeeze_case("squeeze", (0,), (1,), 0),
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), -2),
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), -4),
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), (-3, 1)),  # dim 0's size is 2: kept
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), (1, 1, 5)),  # twice before the range
        _squeeze_case("squeeze", (2, 1, 3), (3, 3, 1), (5, 1, 1)),  # the range first
        _squeeze_case("unsqueeze", (2, 0, 3), (3, 4, 1), 1),
        _squeeze_case("unsqueeze", (2, 0, 3), (3, 4, 1), -3),
        _squeeze_case("unsqueeze", (2, 3), (0, 1), 0),
        _squeeze_case("unsqueeze", (2, 1, 3), (7, 5, 2), 2),
        _squeeze_case("unsqueeze", (2, 1, 3), (7, 5, 2), -2),
        _squeeze_case("unsqueeze", (2, 3), (1, 2), -1),
        _squeeze_case("unsqueeze", (2, 3), (1, 2), -3),
        _squeeze_case("unsqueeze", (2, 3), (3, 1), 3),
        _squeeze_case("unsqueeze", (2, 3), (3, 1), -4),
        _squeeze_case("unsqueeze", (4, 2), (6, 2), 1),
    ),
    strategy=_squeeze_cases,
    reference=_squeeze_reference,
    truth=_squeeze_truth,
))
