"""``ParameterList`` and ``ParameterDict`` (``torch.nn.ParameterList``, ``ParameterDict``):
parameters kept in a list or a dict and registered, so ``parameters()`` and ``state_dict()``
find them (a Python list of Parameters is invisible to both).

A tensor put in one becomes a Parameter; anything else is kept as a plain attribute. The
list's items are named ``"0"``, ``"1"``, ...; the dict's by their keys, which must be strings.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...tensor import Tensor
from ..parameter import Parameter, typename
from .module import Module

__all__ = ["ParameterList", "ParameterDict"]


def _as_parameter(value: Any) -> Any:
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) \
        else value


def _describe(p: Any, dtype_text: str) -> str:
    """One line of a parameter container's repr."""
    if isinstance(p, Tensor):
        size = "x".join(str(n) for n in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"{kind} containing: [{dtype_text} of size {size}]"
    return f"Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters (``torch.nn.ParameterList(values=None)``); it cannot be called.

    Raises:
        IndexError: an index out of range; TypeError: ``extend`` given a tensor or something
            that is not iterable; RuntimeError: calling it.
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _key(self, idx: Any) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx + len(self) if idx < 0 else idx)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(self[i] for i in range(*idx.indices(len(self))))
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, self._key(idx), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` (a tensor becomes a Parameter) at the end; returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, str(getattr(p, 'dtype', '')))}"
                         for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (``torch.nn.ParameterDict(parameters=None)``); it cannot
    be called. Built from a plain dict, its keys are sorted (as torch does); from an
    OrderedDict, another ParameterDict or pairs, they keep their order.

    Raises:
        TypeError: a key that is not a str; ``update`` given something that is not iterable
            or an element that is not a pair; ValueError: an element of another length;
            RuntimeError: calling it.
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, self._attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, OrderedDict | ParameterDict):
            for key, value in list(parameters.items()):
                self[key] = value
            return
        if isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
            return
        for j, pair in enumerate(parameters):  # pairs before a bad one are kept, as in torch
            if not isinstance(pair, Iterable):
                raise TypeError(f"ParameterDict update sequence element #{j} should be "
                                f"Iterable; is{type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, typename(p))}" for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        joined = self.copy()
        joined.update(other)
        return joined

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        joined = other.copy()
        joined.update(self)
        return joined

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
