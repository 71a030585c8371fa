"""Containers (``torch.nn.Sequential``, ``ModuleList``, ``ModuleDict``): modules whose
children are numbered ``"0"``, ``"1"``, ... (or named, for ``ModuleDict``).

A Python list of modules is not a container: its modules are not children, so their
parameters are missing from ``parameters()`` and ``state_dict()``. ``ModuleList`` registers
each one. Deleting an item renumbers the rest, so the names stay ``0 .. len - 1``.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .module import Module, _indent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _position(size: int, idx: Any) -> int:
    """``idx`` (an int or anything with ``__index__``) as a position in ``0 .. size - 1``.

    Raises:
        IndexError: out of range.
        TypeError: not an integer.
    """
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _Numbered(Module):
    """What Sequential and ModuleList share: children named by their position."""

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def _renumber(self) -> None:
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, list(self._modules)[_position(len(self), idx)], module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_position(len(self), idx)]]):
            delattr(self, key)
        self._renumber()

    def _shift_in(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):  # move "i - 1" up to "i"
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key: int | slice) -> Any:
        """Remove and return the item (or slice) at ``key``."""
        item = self[key]  # type: ignore[index]
        del self[key]
        return item

    def append(self, module: Module) -> Any:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self


class Sequential(_Numbered):
    """``Sequential(*modules)`` or ``Sequential(OrderedDict(name=module, ...))``: calling it
    calls each child in order on the previous one's output (``torch.nn.Sequential``).

    ``seq[i]`` is a child, ``seq[a:b]`` a new Sequential of the same children (shared, not
    copied); ``+`` joins two Sequentials, ``* n`` repeats the same children.

    Raises:
        IndexError: an index out of range; TypeError: a child that is not a Module.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_position(len(self), idx)]

    def _join_check(self, other: Any) -> None:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")

    def __add__(self, other: Sequential) -> Sequential:
        self._join_check(other)
        joined = Sequential()
        for module in [*self, *other]:
            joined.append(module)
        return joined

    def __iadd__(self, other: Sequential) -> Sequential:
        self._join_check(other)
        for module in list(other):
            self.append(module)
        return self

    def _times_check(self, n: Any) -> None:
        if not isinstance(n, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(n)}")
        if n <= 0:
            raise ValueError(f"Non-positive multiplication factor {n} for {type(self)}")

    def __mul__(self, n: int) -> Sequential:
        self._times_check(n)
        repeated = Sequential()
        for module in list(self) * n:
            repeated.append(module)
        return repeated

    __rmul__ = __mul__

    def __imul__(self, n: int) -> Sequential:
        self._times_check(n)
        for module in list(self) * (n - 1):
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` at ``index`` (``-len <= index <= len``), shifting the rest.

        Raises:
            AssertionError: ``module`` is not a Module.
            IndexError: ``index`` out of range.
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        self._shift_in(index + n if index < 0 else index, module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(_Numbered):
    """A list of modules, each registered as a child (``torch.nn.ModuleList``); it has no
    ``forward``. Its repr groups equal neighbours: ``(0-2): 3 x Linear(...)``.

    Raises:
        IndexError: an index out of range; TypeError: an item that is not a Module, or
            ``extend`` given something that is not iterable.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_position(len(self), idx))]

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        joined = ModuleList()
        for module in [*self, *other]:
            joined.append(module)
        return joined

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` at position ``index``, moving the items from there on up by one.
        As in torch, no check is made: a negative ``index`` raises KeyError, one past the
        end leaves a gap in the numbering."""
        self._shift_in(index, module)

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def __repr__(self) -> str:
        shown = [repr(m) for m in self]
        if not shown:
            return f"{self._get_name()}()"
        runs: list[list[Any]] = []  # [first index, last index, repr] of equal neighbours
        for i, text in enumerate(shown):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [_indent(f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}", 2)
                 for a, b, text in runs]
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, each registered under its key (``torch.nn.ModuleDict``).

    Raises:
        TypeError: ``update`` given something that is not iterable, or a sequence element
            that is not a pair; ValueError: a sequence element of another length.
    """

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add each (key, module) of a mapping, or of an iterable of pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(modules).__name__)
        if isinstance(modules, Mapping | ModuleDict):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be "
                                f"Iterable; is{type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]
