"""``out=``: an op that writes its result into a tensor the caller passes (torch's ``.out``
overloads, such as ``exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)``).

``reftensor.exp(x, out=o)`` runs the op, then writes the result into ``o`` with torch's
rules, in torch's order:

1. ``o`` may not overlap itself (an expanded tensor) or partly overlap an input
   (``exp(z[:3], out=z[1:])``); being the input itself is fine;
2. ``o``'s dtype must be able to hold the result's ("result type Float can't be cast to the
   desired output type Long"), or, for the ops in ``promotion.OUT_DTYPE_RULES``, follow
   their own rule (the matrix products want exactly the result's dtype); an op that keeps
   its input's dtype, such as ``neg``, wants exactly that dtype ("Found dtype Long but
   expected Float", checked first);
3. an ``o`` of another shape is resized to the result's shape and takes the result's strides
   (torch warns when ``o`` had elements: that resizing is deprecated);
4. the values are written through ``o``'s strides, ``o._version`` goes up by one, and ``o``
   itself is returned.

Autograd does not record ``out=`` calls: with grad mode on, an input or ``o`` that requires
grad is a RuntimeError for a differentiable op (one with a derivative row). ``register_all``
gives every ``.out`` overload of the op table these kernels, where its chapter module
registered none of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from . import dtypes, factories, iterator
from ._ops import DispatchKey, OpOverload, aten, state
from .promotion import OUT_DTYPE_RULES, SCALAR_TYPE_NAMES, check_can_cast
from .tensor import Tensor

__all__ = ["OutRule", "exact_result_dtype", "register", "register_all", "set_rule"]


def _can_cast_rule(result: Tensor, out: Tensor) -> None:
    check_can_cast(result._dtype, out._dtype)


def exact_result_dtype(input: Any, result: Tensor, out: Tensor) -> None:
    """An ``OutRule.check`` for a structured kernel whose result dtype is fixed: ``out`` must
    have exactly the result's dtype ("Found dtype Double but expected Float")."""
    if out._dtype is not result._dtype:
        raise RuntimeError(f"Found dtype {SCALAR_TYPE_NAMES[out._dtype.name]} but expected "
                           f"{SCALAR_TYPE_NAMES[result._dtype.name]}")


class OutRule(NamedTuple):
    """How one op's ``out=`` differs from the rule above (set by the op's module with
    :func:`set_rule`): ``prepare(inputs, outs)`` may change the op's arguments (``sum``
    without ``dtype=`` sums in ``out``'s dtype); ``compute(*inputs)`` replaces the call of
    the functional op (torch's ``max(empty, out=o)`` gives -inf, where ``max(empty)``
    raises); ``check(input, result, out)`` replaces step 2's cast check (``amax`` wants
    ``out`` of exactly the input's dtype)."""

    prepare: Callable[[list[Any], list[Tensor]], list[Any]] | None = None
    compute: Callable[..., Any] | None = None
    check: Callable[[Any, Tensor, Tensor], None] | None = None
    # several outs: the named tuple they are returned in (``torch.return_types.max_out``)
    returns: type | None = None
    # the op's own CPU kernel for ``out=``, called as ``writes(*inputs, *outs)``: it checks,
    # resizes and writes its outs itself (bumping their ``_version`` once) and returns the
    # result, where torch's hand-written kernel does what the rule above does not
    # (``binary_cross_entropy_out_cpu`` writes through a squeezed view of ``out``)
    writes: Callable[..., Any] | None = None


_RULES: dict[str, OutRule] = {}


def _copy(out: Tensor, result: Tensor) -> None:
    out.copy_(result)


#: How step 4 writes a result into ``out``: ``copy_``, or, in the student edition, the
#: student's strided loop on small tensors (``elementwise.write_out`` sets itself here).
writer: Callable[[Tensor, Tensor], None] = _copy


def set_rule(out_overload: OpOverload, rule: OutRule) -> None:
    """Give ``out_overload`` (``aten.amax.out``) its own rule."""
    _RULES[out_overload.qualified_name] = rule


def _kernel(out_overload: OpOverload) -> Any:
    functional = out_overload.functional
    assert functional is not None
    writes = [a.writes and a.kwarg_only for a in out_overload.schema.arguments]
    name = out_overload.qualified_name

    def out_kernel(*values: Any) -> Any:
        # one ``out`` tensor, or several (``max.dim_max``: the values and the indices)
        outs = [v if isinstance(v, Tensor) else _wrapped_number(v)  # (``add`` takes numbers)
                for v, w in zip(values, writes, strict=True) if w]
        inputs = [v for v, w in zip(values, writes, strict=True) if not w]
        if out_overload.same_dtype and outs[0]._dtype is not inputs[0]._dtype:
            raise RuntimeError(f"Found dtype {SCALAR_TYPE_NAMES[outs[0]._dtype.name]} but "
                               f"expected {SCALAR_TYPE_NAMES[inputs[0]._dtype.name]}")
        rule = _RULES.get(name)
        if rule is not None and rule.writes is not None and outs[0].device.type != "meta":
            return rule.writes(*inputs, *outs)
        if rule is not None and rule.prepare is not None:
            inputs = rule.prepare(inputs, outs)
        if rule is not None and rule.compute is not None:
            result = rule.compute(*inputs)
        else:
            result = functional.call(*inputs)
        results = list(result) if isinstance(result, tuple) else [result]
        for out in outs:
            iterator.assert_no_internal_overlap(out)
            for t in functional.tensors(inputs):
                if t is not out:
                    iterator.assert_no_partial_overlap(out, t)
        for r, out in zip(results, outs, strict=True):
            if rule is not None and rule.check is not None:
                rule.check(inputs[0], r, out)
            else:
                OUT_DTYPE_RULES.get(functional.schema.name, _can_cast_rule)(r, out)
        for r, out in zip(results, outs, strict=True):
            if out._shape != r._shape:
                iterator.resize_output(out, r._shape, r._stride)
            writer(out, r)
        if not isinstance(result, tuple):
            return outs[0]
        if rule is not None and rule.returns:
            return rule.returns(*outs)
        # a named tuple of torch's (``return_types.max``), or a plain one
        # (``log_sigmoid_forward.output``)
        return tuple(outs) if type(result) is tuple else type(result)(*outs)

    return out_kernel


def _wrapped_number(value: Any) -> Tensor:
    """A Python number as torch wraps it into a 0-d tensor: bool, int64 or float64."""
    d = (dtypes.bool if isinstance(value, bool) else
         dtypes.int64 if isinstance(value, int) else dtypes.float64)
    return factories.unlifted_tensor(value, dtype=d)


def _autograd(op: OpOverload, keys: int, *values: Any) -> Tensor:
    # (``eq`` is not differentiable, nor is ``floor_divide``: their out= takes anything; a
    # composite such as ``var.dim`` runs ops that are)
    differentiable = op.functional is not None and (
        op.functional.differentiable
        or op.functional.has_kernel(DispatchKey.CompositeImplicitAutograd))
    if differentiable and state.enabled and any(t._requires_grad for t in op.tensors(values)):
        raise RuntimeError(
            f"{op.schema.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    return op.redispatch(keys, *values)


def register(out_overload: OpOverload) -> None:
    """The CPU, Meta and Autograd kernels of one ``.out`` overload, for each key that its
    chapter module gave no kernel of its own (``cat.out`` writes straight into ``out``)."""
    for key in (DispatchKey.CPU, DispatchKey.Meta):
        if not out_overload.has_kernel(key):  # (built on its first call: it reads the schema)
            out_overload.impl_lazy(key, lambda: _kernel(out_overload))
    if not out_overload.has_kernel(DispatchKey.Autograd):
        out_overload.impl(DispatchKey.Autograd)(_autograd)


def register_all() -> None:
    """Give every ``.out`` overload of the table its kernels; run once, after the chapter
    modules registered theirs (``reftensor/__init__.py``)."""
    for packet in aten:
        for overload in packet.out_overloads:
            register(overload)
