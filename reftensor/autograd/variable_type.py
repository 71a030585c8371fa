"""The ``Autograd`` kernels of the ops in the derivatives table (torch's ``VariableType``).

For a row of ``derivatives.py`` this module builds:

* a node class named as torch names it (``ExpBackward0``) whose ``apply`` calls the row's
  formulas with the saved values;
* the ``Autograd`` kernel of the op: redispatch below ``Autograd`` with grad mode off (the
  kernel of chapters 2-4 runs), then record a node when an input requires grad
  (``_record.call``);
* the ``Autograd`` kernel of its in-place form (``exp_``): torch's in-place checks, the
  write, and the node rebased onto ``self`` (``_record.call_``).

Importing this module registers the kernels.
"""

from __future__ import annotations

import inspect
from typing import Any

from .. import factories
from .._ops import DispatchKey, OpOverload, aten
from ..tensor import Tensor
from .derivatives import DERIVATIVES, Derivative
from .functions._record import call, call_
from .graph import Node, node_class

__all__ = ["FormulaNode", "register"]


class FormulaNode(Node):
    """A node whose backward is a row of the derivatives table.

    It saves only what the formulas of the inputs that need a gradient read, as torch's
    generated nodes do (``a * b`` keeps ``a`` only when ``b`` requires grad). A Python
    number given for a tensor argument (``x * 2``) is kept as the number, beside the 0-d
    tensor torch would have wrapped it in, so that a backward through a freed graph raises
    here too.
    """

    row: Derivative
    inputs: tuple[str, ...]  # the op's tensor arguments, in the schema's order
    parameters: dict[str, tuple[str, ...]]  # what each input's formula reads

    def __init__(self, arguments: dict[str, Any], result: Tensor) -> None:
        super().__init__(*[arguments[name] for name in self.inputs])
        needed = {p for i, name in enumerate(self.inputs) if self.needs_input_grad(i)
                  for p in self.parameters.get(name, ())}
        self.values: dict[str, Any] = {}  # saved arguments that are not tensors (``dims``)
        for key in self.row.saves:
            value = result if key == "result" else arguments[key]
            if isinstance(value, Tensor):
                if key in needed:
                    self.save(key, value, is_output=key == "result")
                continue
            self.values[key] = value
            if key in self.inputs and key in needed:  # a number where a tensor goes
                self.save("wrapped_" + key, factories.tensor(value))

    def _read(self, key: str) -> Any:
        if key in self.values:
            if "wrapped_" + key in self._saved:
                self.saved("wrapped_" + key)  # raises once the graph is freed
            return self.values[key]
        return self.saved(key)

    def apply(self, grads: Any) -> tuple[Any, ...]:
        (grad,) = grads
        out = []
        for i, name in enumerate(self.inputs):
            formula = self.row.formulas.get(name)
            if formula is None or not self.needs_input_grad(i):
                out.append(None)
                continue
            wanted = self.parameters[name]
            out.append(formula(**{p: grad if p == "grad" else self._read(p) for p in wanted}))
        return tuple(out)


def _node_class(row: Derivative, op: OpOverload) -> type[FormulaNode]:
    inputs = tuple(a.name for a in op.schema.arguments if a.type.base == "Tensor")
    parameters = {name: tuple(inspect.signature(f).parameters)
                  for name, f in row.formulas.items()}
    return node_class(row.node, FormulaNode, __name__, row=row, inputs=inputs,  # type: ignore[return-value]
                      parameters=parameters)


def register(row: Derivative) -> None:
    """Give ``aten.<op>.<overload>`` (and its in-place form, when the table declares one)
    their ``Autograd`` kernels from ``row``."""
    functional = getattr(aten[row.op], row.overload)
    cls = _node_class(row, functional)
    names = [a.name for a in functional.schema.arguments]

    @functional.impl(DispatchKey.Autograd)
    def autograd(op: OpOverload, keys: int, *args: Any) -> Any:
        arguments = dict(zip(names, args, strict=True))
        inputs = tuple(arguments[n] for n in cls.inputs)
        return call(lambda *a: op.redispatch(keys, *a), args, inputs,
                    lambda out: cls(arguments, out))

    if row.op + "_" not in aten:
        return

    @getattr(aten[row.op + "_"], row.overload).impl(DispatchKey.Autograd)
    def autograd_(op: OpOverload, keys: int, self: Tensor, *args: Any) -> Any:
        def make(old: Tensor, out: Tensor) -> Node:
            return cls(dict(zip(names, (old, *args), strict=True)), out)

        return call_(lambda *a: op.redispatch(keys, *a), self, args, make)


for _row in DERIVATIVES:
    register(_row)
