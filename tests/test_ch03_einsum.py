"""Chapter 3: ``einsum`` on torch and reftensor, compared: values, dtype, shape, strides,
the inputs after, gradients and the graph's last node, errors with their messages.

Equations are generated over upper- and lower-case labels (the implicit output puts upper
case first): 1 to 3 operands with 0 to 3 labels each, a label repeated in one operand now and
then (a diagonal), an ellipsis over up to 2 dims that broadcast between operands, a label's
dim of size 1 in one operand against its size in another (broadcast), sizes of 0 (empty
results, sums of nothing), 0-d operands (an empty term), every layout of
``tests/strategies.py`` (permuted, stepped, offset, expanded, overlapping), every dtype, and
the three ways ``torch.einsum`` takes its arguments (operands one by one, one list, the
sublist format). ``test_ch03_matmul.py`` checks the layout of contractions of 2 and 3
operands in more detail.

The chapter reads ``einsum`` as broadcasting plus reductions (each operand's labels become
the dims of one broadcast shape, the operands are multiplied, the labels missing from the
output are summed): ``test_einsum_is_a_broadcast_product_summed`` checks that reading,
written with reftensor's ``diagonal``, ``permute``, ``reshape``, ``mul`` and ``sum``, against
``torch.einsum`` on the same generated equations.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import reftensor
from tests.difftest import compare_op, same_class, same_on_both
from tests.strategies import ALL_NAMES, KINDS, examples, tensors

pytestmark = pytest.mark.ch03

LABELS = "abcAB"
SIZES = st.sampled_from([0, 1, 2, 2, 3])


def _code(label: str) -> Any:
    """A label in torch's sublist format: 0-25 for ``A``-``Z``, 26-51 for ``a``-``z``."""
    if label == ".":
        return Ellipsis
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def call(lib: Any, form: str, equation: str, operands: list[Any]) -> Any:
    """``lib.einsum`` with the operands one by one, as one list, or in the sublist format."""
    if form == "list":
        return lib.einsum(equation, operands)
    if form == "sublist":
        lhs, arrow, rhs = equation.replace("...", ".").partition("->")
        args: list[Any] = []
        for operand, term in zip(operands, lhs.split(","), strict=True):
            args += [operand, [_code(x) for x in term]]
        if arrow:
            args.append([_code(x) for x in rhs])
        return lib.einsum(*args)
    return lib.einsum(equation, *operands)


@st.composite
def equations(draw: st.DrawFn, *, valid: bool = False) -> tuple[str, list[tuple[int, ...]]]:
    """An equation and its operands' shapes. With ``valid=False``, now and then a size that
    does not broadcast or an output label that is repeated or absent from the inputs."""
    size = {x: draw(SIZES) for x in LABELS}
    ellipsis = tuple(draw(st.lists(SIZES, max_size=2)))
    terms, shapes = [], []
    for _ in range(draw(st.integers(1, 3))):
        labels = draw(st.lists(st.sampled_from(LABELS), max_size=3))
        ones = {x for x in labels if draw(st.integers(0, 4)) == 0}  # broadcast: size 1
        shape = [1 if x in ones else size[x] for x in labels]
        if not valid and shape and draw(st.integers(0, 19)) == 0:
            shape[-1] += 2  # does not broadcast (or a diagonal of unequal sizes)
        term = "".join(labels)
        if draw(st.integers(0, 2)) == 0:  # an ellipsis: a suffix of the shared dims
            covered = ellipsis[len(ellipsis) - draw(st.integers(0, len(ellipsis))):]
            covered = tuple(1 if draw(st.integers(0, 3)) == 0 else n for n in covered)
            at = draw(st.integers(0, len(labels)))
            term = term[:at] + "..." + term[at:]
            shape[at:at] = covered
        terms.append(term)
        shapes.append(tuple(shape))
    assume(all(math.prod(s) <= 48 for s in shapes))
    equation = ",".join(terms)
    if draw(st.integers(0, 2)):
        used = sorted({x for t in terms for x in t if x != "."})
        output = list(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
        if not valid and draw(st.integers(0, 19)) == 0:
            output.append(draw(st.sampled_from([*output, "z"])) if output else "z")
        if "..." in equation and draw(st.integers(0, 3)):
            output.insert(draw(st.integers(0, len(output))), "...")
        equation += "->" + "".join(output)
    return equation, shapes


@settings(max_examples=examples(150), deadline=None)
@given(case=equations(), dtype=st.sampled_from(ALL_NAMES),
       form=st.sampled_from(["operands", "list", "sublist"]), data=st.data())
def test_einsum_of_generated_equations(case, dtype, form, data):
    """Values, dtype (the operands' own for a product; ``sum``'s promotion of integers and
    bool when one operand is summed alone), shape, strides, the operands after, or the same
    error class. One operand in ten has another dtype: a product of two dtypes raises
    (``bmm``), a broadcast ``mul`` of them promotes."""
    equation, shapes = case
    specs = []
    for i, shape in enumerate(shapes):
        kind = data.draw(st.sampled_from(ALL_NAMES)) if data.draw(st.integers(0, 9)) == 0 \
            else dtype
        specs.append(data.draw(tensors(dtypes=(kind,), shape=shape), label=f"operand {i}"))
    compare_op(lambda lib, *ts: call(lib, form, equation, list(ts)), *specs, ulps=8)


def _leaves(lib: Any, specs: list[Any]) -> list[Any]:
    return [s.make(lib).detach().requires_grad_() for s in specs]


@settings(max_examples=examples(100), deadline=None)
@given(case=equations(valid=True), dtype=st.sampled_from(["float32", "float64"]),
       data=st.data())
def test_einsum_gradients(case, dtype, data):
    """The gradient of every operand (laid out as torch's), for an output gradient that
    differs at every element, and the name of the result's ``grad_fn``: autograd comes from
    the ops the decomposition calls (``diagonal``, ``permute``, ``sum``, ``bmm``, ``mul``,
    views), as in torch, whose ``einsum`` is ``CompositeImplicitAutograd``. A gradient's
    ``_version`` is left out: a diagonal's gradient has 1 on reftensor, 0 on torch (its
    ``diagonal_backward`` writes below autograd; reftensor's scatter-add of ``select``,
    ``slice``, ``unfold`` and ``diagonal`` counts its ``index_put_``, whatever the op)."""
    equation, shapes = case
    specs = [data.draw(tensors(dtypes=(dtype,), shape=s), label=f"operand {i}")
             for i, s in enumerate(shapes)]

    def program(lib):
        leaves = _leaves(lib, specs)
        result = lib.einsum(equation, *leaves)
        weights = (lib.arange(result.numel(), dtype=result.dtype) % 5 - 2).reshape(
            result.shape)
        grads = lib.autograd.grad(result, leaves, weights)
        return result, type(result.grad_fn).__name__, [
            (tuple(g.shape), g.stride(), g.storage_offset(), g.tolist()) for g in grads]

    same_on_both(program, ulps=8)


def by_broadcasting(equation: str, *operands: Any) -> Any:
    """``einsum`` as broadcasting plus reductions, the reading of chapter 3: a repeated
    label's ``diagonal``; each operand's dims permuted into one order of all the labels and
    reshaped with a dim of size 1 for every label it lacks (the ellipsis' dims, right-aligned,
    first); the product of all of them, broadcast; the sum over the labels missing from the
    output; the output's order."""
    lhs, arrow, rhs = equation.replace(" ", "").replace("...", ".").partition("->")
    terms = lhs.split(",")
    letters = sorted({x for x in lhs if x.isalpha()})
    width = max([t.dim() - len(term) + 1 for t, term in zip(operands, terms, strict=True)
                 if "." in term], default=0)
    dots = [str(k) for k in range(width)]  # names of the ellipsis' dims
    names = dots + letters
    if arrow:
        out = [n for x in rhs for n in (dots if x == "." else [x])]
    else:
        out = dots + [x for x in letters if lhs.count(x) == 1]
    product = None
    for t, term in zip(operands, terms, strict=True):
        covered = t.dim() - len(term) + 1
        own = [n for x in term for n in (dots[width - covered:] if x == "." else [x])]
        while len(set(own)) < len(own):  # a repeated label: its diagonal, as the last dim
            first = own.index(next(x for x in own if own.count(x) > 1))
            second = own.index(own[first], first + 1)
            t = t.diagonal(0, first, second)
            own = [x for k, x in enumerate(own) if k not in (first, second)] + [own[first]]
        t = t.permute(sorted(range(len(own)), key=lambda d: names.index(own[d])))
        t = t.reshape([t.shape[sorted(own, key=names.index).index(n)] if n in own else 1
                       for n in names])
        product = t if product is None else product * t
    summed = [d for d, n in enumerate(names) if n not in out]
    if summed:
        product = product.sum(summed)
    kept = [n for n in names if n in out]
    return product.permute([kept.index(n) for n in out])


@settings(max_examples=examples(150), deadline=None)
@given(case=equations(valid=True), data=st.data())
def test_einsum_is_a_broadcast_product_summed(case, data):
    """:func:`by_broadcasting` run on reftensor gives ``torch.einsum``'s values and shape
    (float64 operands of small exact values: any order of the sums gives the same bits)."""
    equation, shapes = case
    specs = [data.draw(tensors(dtypes=("float64",), shape=s), label=f"operand {i}")
             for i, s in enumerate(shapes)]
    expected = torch.einsum(equation, *[s.make(torch) for s in specs])
    ours = by_broadcasting(equation, *[s.make(reftensor) for s in specs])
    assert (tuple(ours.shape), ours.tolist()) == (tuple(expected.shape), expected.tolist())


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # the matrix product
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),  # the batch matrix product
    ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("iji->j", [(2, 3, 2)]),  # trace, diagonals
    ("i,j->ij", [(2,), (3,)]),  # the outer product
    ("abij,ijc->abc", [(2, 1, 2, 3), (2, 3, 4)]),  # a contraction over two dims
    ("...ij,...jk", [(2, 1, 2, 3), (5, 3, 4)]),  # an ellipsis that broadcasts
    ("i,i", [(3,), (1,)]), ("ij,j", [(0, 2), (2,)]), ("i,i", [(0,), (0,)]),
    (",", [(), ()]), ("", [()]), ("...", [()]), ("i->", [(0,)]),
    ("i->...", [(2,)]),  # an ellipsis of no dims in the output only
    (" i j -> j i ", [(2, 3)]),  # spaces are skipped
])
def test_einsum_of_chosen_equations(equation, shapes):
    """The cases the chapter shows, and corners drawn on purpose: broadcasting a size-1
    dim, empty dims (a sum of nothing is 0), 0-d operands; read as a broadcast product
    too."""
    def operands(lib):
        return [lib.arange(math.prod(s), dtype=lib.float64).reshape(s) - 2 for s in shapes]

    expected = same_on_both(lambda lib: lib.einsum(equation, *operands(lib)))
    ours = by_broadcasting(equation, *operands(reftensor))
    assert (tuple(ours.shape), ours.tolist()) == (tuple(expected.shape), expected.tolist())


def _same_error(program) -> None:
    """Both libraries raise, the same class with the same message."""
    errors = []
    for lib in (torch, reftensor):
        with pytest.raises(Exception) as info:
            program(lib)
        errors.append(info.value)
    assert same_class(*errors) and str(errors[0]) == str(errors[1]), errors


def _ones(lib, *shapes, dtype="float32"):
    return [lib.ones(s, dtype=getattr(lib, dtype)) for s in shapes]


ERRORS = {
    "no operand": lambda lib: lib.einsum("i"),
    "no argument": lambda lib: lib.einsum(),
    "an empty list": lambda lib: lib.einsum("i", []),
    "fewer operands": lambda lib: lib.einsum("i,i", *_ones(lib, (2,))),
    "more operands": lambda lib: lib.einsum("i", *_ones(lib, (2,), (2,))),
    "more operands in a list": lambda lib: lib.einsum("i", _ones(lib, (2,), (2,))),
    "a digit": lambda lib: lib.einsum("i1", *_ones(lib, (2, 2))),
    "a lone dot": lambda lib: lib.einsum("i.", *_ones(lib, (2, 2))),
    "two ellipses": lambda lib: lib.einsum("...i...", *_ones(lib, (2, 2))),
    "more subscripts than dims": lambda lib: lib.einsum("ijk", *_ones(lib, (2, 2))),
    "fewer subscripts than dims": lambda lib: lib.einsum("i", *_ones(lib, (2, 2))),
    "more subscripts than dims with an ellipsis": lambda lib: lib.einsum(
        "ij...", *_ones(lib, (2,))),
    "sizes that do not broadcast": lambda lib: lib.einsum("i,i", *_ones(lib, (2,), (3,))),
    "sizes that do not broadcast in an output": lambda lib: lib.einsum(
        "ij,j->ij", *_ones(lib, (2, 3), (2,))),
    "ellipses that do not broadcast": lambda lib: lib.einsum(
        "...i,...i", *_ones(lib, (2, 3), (4, 3))),
    "a diagonal of unequal sizes": lambda lib: lib.einsum("ii", *_ones(lib, (2, 3))),
    "an output label twice": lambda lib: lib.einsum("ij->ii", *_ones(lib, (2, 2))),
    "an output label not in the inputs": lambda lib: lib.einsum("i->j", *_ones(lib, (2,))),
    "a bad output subscript": lambda lib: lib.einsum("i->1", *_ones(lib, (2,))),
    "two output ellipses": lambda lib: lib.einsum("...->......", *_ones(lib, (2,))),
    "a product of two dtypes": lambda lib: lib.einsum(
        "i,i", lib.ones(2, dtype=lib.int64), lib.ones(2)),
    "a summed int32 operand and an int32 one": lambda lib: lib.einsum(
        "ij,j->", *_ones(lib, (2, 3), (3,), dtype="int32")),
    "a product of bools": lambda lib: lib.einsum("ij,jk", *_ones(lib, (2, 3), (3, 2),
                                                                 dtype="bool")),
    "a number": lambda lib: lib.einsum("i,i", lib.ones(2), 2),
    "out=": lambda lib: lib.einsum("i", lib.ones(2), out=lib.ones(2)),
    "a sublist subscript out of range": lambda lib: lib.einsum(lib.ones(2), [52]),
    "a negative sublist subscript": lambda lib: lib.einsum(lib.ones(2), [-1]),
    "a letter in a sublist": lambda lib: lib.einsum(lib.ones(2), ["a"]),
    "a path of another size": lambda lib: lib.ops.aten.einsum(
        "i,i", _ones(lib, (2,), (2,)), path=[0]),
    "a path contracting an operand with itself": lambda lib: lib.ops.aten.einsum(
        "i,i", _ones(lib, (2,), (2,)), path=[0, 0]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_einsum_errors(name):
    """torch's exception class and message (the equation's checks, the operands', the
    products' dtypes, the Python function's sublist format and argument count)."""
    _same_error(ERRORS[name])


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=examples(10), deadline=None)
@given(data=st.data())
def test_the_result_of_one_operand_without_a_sum_is_a_view(kind, data):
    """A single operand with nothing to sum is its ``permute`` (a diagonal too): a view of
    the operand on both libraries, aliasing compared by ``same_on_both``."""
    spec = data.draw(tensors(dtypes=("float32",), shape=(2, 2, 3), kinds=(kind,)))
    for equation in ("ijk->kji", "iik->ki", "...k->k..."):
        same_on_both(lambda lib, e=equation: (s := spec.make(lib), lib.einsum(e, s)))
