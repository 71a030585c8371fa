"""``reftensor.nn.Parameter`` (``torch.nn.Parameter``): a tensor that a Module trains.

A Parameter is an ordinary leaf tensor of class ``Parameter``: assigning one as an attribute
of a Module registers it (``Module.__setattr__``), and only registered tensors are returned by
``parameters()``, saved by ``state_dict()`` and stepped by an optimizer. Ops on a Parameter
give plain tensors (``type(p * 2)`` is ``Tensor``), as in torch.
"""

from __future__ import annotations

from typing import Any

from .._C import _disabled_torch_function_impl
from .._ops import aten
from ..tensor import Tensor

__all__ = ["Parameter", "typename", "clear_grad"]


class Parameter(Tensor):
    """``Parameter(data=None, requires_grad=True)`` (``torch.nn.Parameter``).

    The parameter shares ``data``'s storage and its version counter (an in-place write to
    ``data`` shows in the parameter and bumps both ``_version``), but not its history: it is
    a leaf whatever ``data`` was. ``data=None`` gives an empty float32 tensor of shape (0,).

    Raises:
        RuntimeError: ``requires_grad=True`` on an integer or bool ``data``.
        TypeError: ``data`` is not a tensor.
    """

    __slots__ = ()
    # as torch's: a Parameter takes no part in ``__torch_function__`` (ops give plain tensors)
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = aten.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                            f"{type(data).__name__}")
        p = cls._make(data._storage, data._shape, data._stride, data._storage_offset,
                      data._dtype)
        p._version_counter = data._version_counter  # as detach() shares it
        p.requires_grad_(requires_grad)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # all the work is done in __new__ (Tensor.__init__ refuses to build)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + self._repr("tensor(")  # (torch's prefix too)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickling as torch's ``Parameter.__reduce_ex__``: the data (pickled as a tensor)
        and ``requires_grad``, rebuilt as ``Parameter(data, requires_grad)``."""
        return (Parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result


#: torch's legacy tensor type names, by dtype name (``torch.typename(t)``).
_TENSOR_TYPES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
    "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
}


def typename(obj: Any) -> str:
    """The name torch's messages give ``obj``'s type (``torch.typename``): a tensor's legacy
    type (``reftensor.FloatTensor``), a builtin's bare name (``int``), else the class's module
    and qualified name (``reftensor.nn.modules.linear.Linear``)."""
    if isinstance(obj, Tensor):
        name = str(obj.dtype).rpartition(".")[2]
        return "reftensor." + _TENSOR_TYPES.get(name, name)
    cls = type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def clear_grad(param: Tensor, set_to_none: bool = True) -> None:
    """What ``zero_grad`` does to one parameter (``Module.zero_grad`` and
    ``Optimizer.zero_grad`` alike): ``.grad`` becomes None, or, with ``set_to_none=False``,
    is cut from any graph (detached, or its ``requires_grad`` switched off) and zeroed in
    place, so that a tensor holding it sees the zeros."""
    grad = param.grad
    if grad is None:
        return
    if set_to_none:
        param.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
