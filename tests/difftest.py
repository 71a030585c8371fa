"""The conformance harness: run the same program on torch and on reftensor, and compare
everything torch exposes.

``same_on_both(program)`` calls ``program(torch)`` and ``program(reftensor)``. Either both
raise an exception of the same class, or both return results that agree on: type, and for
each tensor shape, stride, storage offset, dtype, device, values, requires_grad, is_leaf,
``grad is None``, ``_version``, and the aliasing pattern among the returned tensors (which
share a storage, which is whose ``_base``).

``compare_op(fn, *specs)`` builds the input tensors from :class:`TensorSpec` s (drawn by the
``tensors`` strategy in ``tests/strategies.py``) on both libraries, calls ``fn(lib, *inputs)``
and compares the outputs *and* the inputs afterwards, so in-place writes, ``_version`` bumps
and aliasing between inputs and outputs are all checked.

Every comparison is counted in ``STATS``; the pytest summary prints the totals.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch

import reftensor

Program = Callable[[Any], Any]

#: "programs": programs run on both libraries; "behaviours": facts compared (one per tensor
#: property, value list, exception class, aliasing pair or plain result).
STATS: Counter[str] = Counter()


class Mismatch(AssertionError):
    pass


def same_class(torch_error: BaseException | None, ref_error: BaseException | None) -> bool:
    """Do both libraries raise the same class? The builtin classes are shared; torch's
    ``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``, a RuntimeError) is
    ``reftensor.linalg.LinAlgError``."""
    if type(torch_error) is type(ref_error):
        return True
    return (type(torch_error) is torch.linalg.LinAlgError
            and type(ref_error) is reftensor.linalg.LinAlgError)


def _run(program: Program, lib: Any) -> tuple[Any, BaseException | None]:
    try:
        return program(lib), None
    except Exception as exc:  # noqa: BLE001 - the exception class is what we compare
        return None, exc


def _values_equal(a: Any, b: Any, ulps: int, eps: float = 2.0**-52, scale: float = 0.0) -> bool:
    """Exact equality (nan equals nan, -0.0 differs from 0.0), or within ``ulps`` units in
    the last place of a dtype whose machine epsilon is ``eps``, measured at the larger of
    the two values and ``scale`` (the tensor's largest magnitude, for sums that cancel)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            _values_equal(x, y, ulps, eps, scale) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if ulps == 0:
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return a == b or abs(a - b) <= ulps * eps * max(abs(a), abs(b), scale)
    return a == b


def _tensors(result: Any) -> list[Any]:
    if isinstance(result, tuple | list):
        return [t for r in result for t in _tensors(r)]
    return [result] if isinstance(result, torch.Tensor | reftensor.Tensor) else []


def describe(t: Any, *, values: bool = True) -> dict[str, Any]:
    """The observable facts about one tensor, in library-neutral plain data."""
    facts = {
        "shape": tuple(t.shape),
        "stride": t.stride(),
        "storage_offset": t.storage_offset(),
        "dtype": str(t.dtype).split(".")[-1],
        "device": t.device.type,
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad is None": t.grad is None,
        "_version": t._version,
        "is_contiguous": t.is_contiguous(),
        "nbytes of storage": t.untyped_storage().nbytes(),
    }
    if values:
        facts["values"] = t.tolist()
    return facts


def _aliasing(tensors: list[Any]) -> list[tuple[int, int, bool, bool, bool]]:
    """For each pair of tensors: (i, j, same storage, a ``_base`` link, the same object)."""
    pattern = []
    for i, a in enumerate(tensors):
        for j, b in enumerate(tensors):
            if i < j:
                same_storage = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
                base_link = a._base is b or b._base is a or (
                    a._base is not None and a._base is b._base
                )
                pattern.append((i, j, same_storage, base_link, a is b))
    return pattern


def same_on_both(
    program: Program, *, values: bool = True, ulps: int = 0, storage_size: bool = True
) -> Any:
    """Assert that ``program`` behaves the same on torch and reftensor; return torch's result.

    ``values=False`` skips element values (for ``empty``), ``ulps`` allows float values to
    differ by that many units in the last place, ``storage_size=False`` skips comparing the
    storage's byte count.
    """
    expected, t_exc = _run(program, torch)
    got, r_exc = _run(program, reftensor)
    STATS["programs"] += 1
    STATS["behaviours"] += 1
    if t_exc is not None or r_exc is not None:
        if t_exc is None or r_exc is None or not same_class(t_exc, r_exc):
            raise Mismatch(
                f"exceptions differ: torch raised {t_exc!r}, reftensor raised {r_exc!r}"
            ) from (r_exc or t_exc)
        return None
    _compare(expected, got, values=values, ulps=ulps, storage_size=storage_size, path="result")
    t_list, r_list = _tensors(expected), _tensors(got)
    STATS["behaviours"] += len(_aliasing(t_list))
    if _aliasing(t_list) != _aliasing(r_list):
        raise Mismatch(
            f"aliasing differs: torch {_aliasing(t_list)}, reftensor {_aliasing(r_list)}"
        )
    return expected


def _compare(expected: Any, got: Any, *, values: bool, ulps: int, storage_size: bool,
             path: str) -> None:
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, reftensor.Tensor):
            raise Mismatch(f"{path}: torch gave a Tensor, reftensor gave {type(got).__name__}")
        e, g = describe(expected, values=False), describe(got, values=False)
        if not storage_size:
            del e["nbytes of storage"], g["nbytes of storage"]
        STATS["behaviours"] += len(e) + (values and not expected.is_meta)
        if e != g:
            diff = {k: (e[k], g[k]) for k in e if e[k] != g[k]}
            raise Mismatch(f"{path}: (torch, reftensor) differ on {diff}")
        if not values or expected.is_meta:  # a meta tensor has no values to compare
            return
        eps = torch.finfo(expected.dtype).eps if expected.dtype.is_floating_point else 0.0
        finite = expected[expected.isfinite()] if expected.dtype.is_floating_point else None
        scale = finite.abs().max().item() if finite is not None and finite.numel() else 0.0
        if not _values_equal(expected.tolist(), got.tolist(), ulps, eps, scale):
            raise Mismatch(f"{path}: values differ: torch {expected.tolist()}, "
                           f"reftensor {got.tolist()}")
        return
    if isinstance(expected, torch.Size):
        if not isinstance(got, reftensor.Size) or tuple(expected) != tuple(got):
            raise Mismatch(f"{path}: torch {expected!r}, reftensor {got!r}")
        return
    if isinstance(expected, tuple | list):
        # (a named tuple such as torch.return_types.max: the class of the same name)
        if type(expected).__name__ != type(got).__name__ or len(expected) != len(got):
            raise Mismatch(f"{path}: torch {expected!r}, reftensor {got!r}")
        for k, (e, g) in enumerate(zip(expected, got, strict=True)):
            _compare(e, g, values=values, ulps=ulps, storage_size=storage_size,
                     path=f"{path}[{k}]")
        return
    if isinstance(expected, torch.device):
        STATS["behaviours"] += 1
        if not isinstance(got, reftensor.device) or (expected.type, expected.index) != (
                got.type, got.index):
            raise Mismatch(f"{path}: torch {expected!r}, reftensor {got!r}")
        return
    if isinstance(expected, torch.dtype):
        if str(expected).split(".")[-1] != getattr(got, "name", None):
            raise Mismatch(f"{path}: torch {expected}, reftensor {got}")
        return
    STATS["behaviours"] += 1
    if type(expected) is not type(got) or not _values_equal(expected, got, ulps):
        raise Mismatch(f"{path}: torch {expected!r}, reftensor {got!r}")


def compare_op(
    fn: Callable[..., Any], *inputs: Any, values: bool = True, ulps: int = 0
) -> Any:
    """Run ``fn(lib, *built_inputs)`` on both libraries and compare the result and, after
    the call, every input tensor (values, ``_version``, layout), plus the aliasing pattern
    among inputs and outputs. ``inputs`` may be :class:`~tests.strategies.TensorSpec` s
    (built fresh for each library) or plain Python values (passed as they are)."""

    def program(lib: Any) -> Any:
        built = [x.make(lib) if hasattr(x, "make") else x for x in inputs]
        result = fn(lib, *built)
        tensors = tuple(b for b in built if isinstance(b, torch.Tensor | reftensor.Tensor))
        return ("inputs after", tensors), ("result", result)

    return same_on_both(program, values=values, ulps=ulps)
