"""Chapter 1 exercises: storage and stride. Every right answer is what torch 2.13 does."""

from __future__ import annotations

from hypothesis import strategies as st

from .spec import Case, Exercise, register
from .layouts import row_major, storage_needed, strided_layouts

CHAPTER = "ch01_storage"


def _torch():
    import torch  # imported only where references are computed

    return torch


def _shape_case(shape: tuple[int, ...]) -> Case:
    return Case(args=(tuple(shape),))


# ---------------------------------------------------------------- contiguous_strides
register(Exercise(
    name="contiguous_strides",
    chapter=CHAPTER,
    signature="contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]",
    fixed=tuple(_shape_case(s) for s in [(2, 3), (4,), (2, 3, 4), (), (2, 0, 3)]),
    edge=tuple(_shape_case(s) for s in [(0,), (1, 1), (3, 1, 2), (5, 0)]),
    strategy=lambda: st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 7]), max_size=5)
    .map(tuple).map(_shape_case),
    reference=lambda c: _torch().empty(c.args[0]).stride(),
    truth=lambda c: f"torch.empty({c.args[0]!r}).stride()",
))


# ---------------------------------------------------------------- storage_index
def _index_case(shape, stride, offset, index) -> Case:
    return Case(args=(tuple(index), tuple(stride), offset), context=(("shape", tuple(shape)),))


@st.composite
def _index_cases(draw: st.DrawFn) -> Case:
    nonempty = st.lists(st.integers(1, 5), max_size=4).map(tuple)
    shape, stride, offset = draw(strided_layouts(nonempty))
    index = tuple(draw(st.integers(0, n - 1)) for n in shape)
    return _index_case(shape, stride, offset, index)


def _storage_len(c: Case) -> int:
    index, stride, offset = c.args
    return storage_needed(c.ctx("shape"), stride, offset)


def _index_reference(c: Case) -> int:
    index, stride, offset = c.args
    torch = _torch()
    cells = torch.arange(_storage_len(c))  # element k of the storage holds the number k
    return cells.as_strided(c.ctx("shape"), stride, offset)[index].item()


register(Exercise(
    name="storage_index",
    chapter=CHAPTER,
    signature="storage_index(index, stride, storage_offset) -> int",
    fixed=(
        _index_case((3, 4), (4, 1), 0, (1, 2)),
        _index_case((3, 4), (1, 3), 0, (2, 1)),
        _index_case((2, 2), (4, 1), 5, (1, 1)),
        _index_case((), (), 3, ()),
    ),
    edge=(
        _index_case((4, 4), (0, 1), 2, (3, 1)),
        _index_case((3, 3), (1, 1), 0, (2, 2)),
        _index_case((1, 5), (9, 2), 7, (0, 4)),
    ),
    strategy=_index_cases,
    reference=_index_reference,
    truth=lambda c: (
        f"torch.arange({_storage_len(c)}).as_strided({c.ctx('shape')!r}, {c.args[1]!r}, "
        f"{c.args[2]!r})[{c.args[0]!r}].item()"
    ),
))


# ---------------------------------------------------------------- is_contiguous
def _layout_case(shape, stride) -> Case:
    return Case(args=(tuple(shape), tuple(stride)))


@st.composite
def _contiguity_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts())
    if shape and draw(st.booleans()):
        # a size-1 dim with an arbitrary stride: torch ignores it
        d = draw(st.integers(0, len(shape) - 1))
        shape = shape[:d] + (1,) + shape[d + 1:]
        good = list(row_major(shape))
        good[d] = draw(st.integers(0, 40))
        stride = tuple(good)
    return _layout_case(shape, stride)


register(Exercise(
    name="is_contiguous",
    chapter=CHAPTER,
    signature="is_contiguous(shape, stride) -> bool",
    fixed=(
        _layout_case((2, 3), (3, 1)),
        _layout_case((2, 3), (1, 2)),
        _layout_case((3, 4), (8, 2)),
        _layout_case((), ()),
        _layout_case((2, 1, 3), (3, 17, 1)),
        _layout_case((1, 4), (1, 1)),
        _layout_case((0, 3), (7, 9)),
    ),
    edge=(
        _layout_case((3, 0, 2), (5, 5, 5)),
        _layout_case((4, 1), (1, 1)),
        _layout_case((2, 2), (0, 1)),
    ),
    strategy=_contiguity_cases,
    reference=lambda c: _torch().empty_strided(c.args[0], c.args[1]).is_contiguous(),
    truth=lambda c: f"torch.empty_strided({c.args[0]!r}, {c.args[1]!r}).is_contiguous()",
))


# ---------------------------------------------------------------- channels_last_strides
four_d = st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 8]), min_size=4, max_size=4).map(tuple)

register(Exercise(
    name="channels_last_strides",
    chapter=CHAPTER,
    signature="channels_last_strides(shape: tuple[int, int, int, int]) -> tuple[int, ...]",
    fixed=tuple(_shape_case(s) for s in [(2, 3, 4, 5), (1, 3, 8, 8), (8, 16, 1, 1),
                                         (4, 3, 0, 5)]),
    edge=tuple(_shape_case(s) for s in [(1, 1, 1, 1), (2, 0, 3, 3), (0, 3, 2, 2)]),
    strategy=lambda: four_d.map(_shape_case),
    reference=lambda c: _torch().empty(c.args[0], memory_format=_torch().channels_last).stride(),
    truth=lambda c: f"torch.empty({c.args[0]!r}, memory_format=torch.channels_last).stride()",
))


# ---------------------------------------------------------------- unfold_layout
def _unfold_case(shape, stride, dimension, size, step) -> Case:
    return Case(args=(tuple(shape), tuple(stride), dimension, size, step))


@st.composite
def _unfold_cases(draw: st.DrawFn) -> Case:
    shape, stride, _ = draw(strided_layouts(st.lists(st.integers(0, 6), min_size=1, max_size=3)
                                            .map(tuple)))
    d = draw(st.integers(0, len(shape) - 1))
    n = draw(st.integers(1, 9))
    shape = shape[:d] + (n,) + shape[d + 1:]  # the unfolded dim holds a window
    size = draw(st.integers(1, n))
    step = draw(st.integers(1, n + 1))
    return _unfold_case(shape, stride, d, size, step)


def _unfold_reference(c: Case) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape, stride, dimension, size, step = c.args
    w = _torch().empty_strided(shape, stride).unfold(dimension, size, step)
    return tuple(w.shape), w.stride()


register(Exercise(
    name="unfold_layout",
    chapter=CHAPTER,
    signature="unfold_layout(shape, stride, dimension, size, step) -> tuple[shape, stride]",
    fixed=(
        _unfold_case((10,), (1,), 0, 3, 1),
        _unfold_case((10,), (1,), 0, 4, 3),
        _unfold_case((3, 8), (8, 1), 1, 2, 2),
        _unfold_case((6, 2), (2, 1), 0, 3, 1),
        _unfold_case((8,), (1,), 0, 8, 1),
    ),
    edge=(
        _unfold_case((1,), (1,), 0, 1, 1),
        _unfold_case((7,), (2,), 0, 3, 5),
        _unfold_case((9, 0), (1, 9), 0, 2, 9),
        _unfold_case((2, 5), (0, 1), 1, 1, 1),
        _unfold_case((4, 3), (1, 4), 0, 4, 2),
        _unfold_case((6,), (0,), 0, 3, 2),  # the unfolded dim of stride 0
    ),
    strategy=_unfold_cases,
    reference=_unfold_reference,
    truth=lambda c: (
        f"torch.empty_strided({c.args[0]!r}, {c.args[1]!r}).unfold({c.args[2]}, {c.args[3]}, "
        f"{c.args[4]}), as (tuple(w.shape), w.stride())"
    ),
))
