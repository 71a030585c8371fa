"""``device``: where a tensor's bytes live.

A ``device`` is only a name: a type (``"cpu"``, ``"cuda"``, ``"meta"``, ...) and an optional
index (``"cuda:1"`` is the second GPU). Any of torch's device types can be *named*, even on a
machine without that hardware. reftensor can *allocate* on two of them:

* ``cpu``: bytes in main memory (a NumPy array);
* ``meta``: no bytes at all. A meta tensor has a shape, strides, a dtype and a storage size,
  so every operation can still work out its result's shape, strides and dtype, but no kernel
  ever runs. That is how torch sizes a model without memory (``device="meta"``).

An operation whose tensors sit on different devices raises (``common_device``), except that
a 0-d CPU tensor may join tensors of any device, as a Python number can.
"""

from __future__ import annotations

import builtins
import re
import warnings
from collections.abc import Iterable
from typing import Any

__all__ = ["device", "as_device", "common_device", "wrong_device"]

#: Every device type torch knows, in the order its error message lists them.
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)

# A type of letters and underscores, then optionally ":" and an index with no sign and no
# leading zero ("cuda:01" is refused).
#: The largest index torch stores exactly.
MAX_INDEX = 127

_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")


class device:
    """A device name (``torch.device``): ``type`` and ``index`` (None when not given).

    Accepts ``device("cuda:1")``, ``device("cuda", 1)``, ``device(type="cpu")`` and another
    device. ``str(device("cuda", 1))`` is ``"cuda:1"``. Naming a device never touches
    hardware; allocating on it does (:func:`as_device`).

    Raises:
        RuntimeError: an empty or malformed string (``"cuda:-1"``, ``"cuda:01"``,
            ``"cuda 1"``), an unknown type (``"gpu"``, ``"CUDA"``), a negative index, an
            index given twice, or a bare int (torch reads it as "the current accelerator",
            and there is none).
        TypeError: an index that is not an int (bools included).
    """

    __slots__ = ("type", "index")

    type: str
    index: int | None

    def __init__(self, type: str | device | int, index: int | None = None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' (position 1) must be str, not device")
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, builtins.bool):
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({builtins.type(type).__name__})")
        if index is not None and (not isinstance(index, int) or isinstance(index, builtins.bool)):
            raise TypeError("device(): argument 'index' (position 2) must be int, not "
                            f"{builtins.type(index).__name__}")
        name, parsed = _parse(type)
        if parsed is not None and index is not None:
            raise RuntimeError("type (string) must not include an index because index was "
                               f"passed explicitly: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = name
        self.index = parsed if index is None else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        """Equal when type *and* index match: ``device("cuda") != device("cuda:0")``, and a
        device never equals a string."""
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        return device, (self.type,) if self.index is None else (self.type, self.index)


def _parse(text: str) -> tuple[str, int | None]:
    """``"cuda:1"`` -> ``("cuda", 1)``; ``"cpu"`` -> ``("cpu", None)``."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    name, index = match.group(1), match.group(2)
    if name not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start "
                           f"of device string: {name}")
    if name == "mkldnn" and not _WARNED:
        _WARNED.append(name)  # once per process, as torch warns
        warnings.warn("'mkldnn' is no longer used as device type. So torch.device('mkldnn') "
                      "will be deprecated and removed in the future. Please use other valid "
                      "device types instead.", UserWarning, stacklevel=3)
    if index is None:
        return name, None
    if int(index) > 2**31 - 1:  # torch parses the index as a 32-bit int
        raise RuntimeError(f"Could not parse device index '{index}' in device string "
                           f"'{text}'")
    if int(index) > MAX_INDEX:
        # torch stores the index in 8 bits and silently wraps ("cuda:255" becomes "cuda");
        # reftensor refuses instead of naming a different device.
        raise RuntimeError(f"Device index must be at most {MAX_INDEX}, got '{text}'")
    return name, int(index)


_WARNED: list[str] = []

CPU = device("cpu")
META = device("meta")


# How a CPU-only torch 2.13 refuses each device type it cannot use (the class is what
# matters; the messages say what reftensor can do).
_NOT_COMPILED = {"cuda": "CUDA", "xpu": "XPU", "mtia": "MTIA"}  # AssertionError
_NO_MODULE = ("hpu", "privateuseone")  # torch looks for torch.hpu: ModuleNotFoundError
_NO_BACKEND_AT_ALL = ("mkldnn", "opengl", "opencl", "ideep")  # RuntimeError, even to allocate


def as_device(d: str | device | int | None, *, copying: bool = False) -> device:
    """The device a new tensor goes to, for a ``device=`` argument (None: the CPU).

    A CPU or meta tensor reports its device without an index, whatever index was asked for
    (``empty(2, device="cpu:1").device`` is ``device(type='cpu')``). Other device types can
    be named but not used; the error is the one a CPU-only torch raises, which depends on
    whether the tensor is allocated there (``empty``) or copied there (``tensor``, ``to``).

    Raises:
        AssertionError: ``cuda``, ``xpu``, ``mtia`` ("Torch not compiled with CUDA enabled").
        RuntimeError: copying to another known type ("PyTorch is not linked with support
            for mps devices"); an invalid device (see :class:`device`).
        NotImplementedError: allocating on another known type (``mps``, ``xla``, ...), and
            anything on ``lazy``.
        ModuleNotFoundError: ``hpu`` and ``privateuseone``.
        TypeError: an invalid device (see :class:`device`).
    """
    if d is None:
        return CPU
    target = d if isinstance(d, device) else device(d)
    kind = target.type
    if kind == "cpu":
        return CPU
    if kind == "meta":
        return META
    if kind in _NOT_COMPILED:
        raise AssertionError(f"Torch not compiled with {_NOT_COMPILED[kind]} enabled")
    if kind in _NO_MODULE:
        raise ModuleNotFoundError(f"No module named 'reftensor.{kind}'")
    if kind != "lazy" and (copying or kind in _NO_BACKEND_AT_ALL):
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices "
                           "(reftensor has cpu and meta)")
    raise NotImplementedError(f"Could not run 'aten::empty.memory_format' with arguments from "
                              f"the '{kind.upper()}' backend: reftensor allocates only on the "
                              "cpu and meta devices")


def common_device(tensors: Iterable[Any]) -> device:
    """The device an operation on ``tensors`` runs on, as torch's ``TensorIterator`` finds it.

    The first tensor that is not a 0-d CPU tensor sets the device; every other such tensor
    must be on it. 0-d CPU tensors are let through, like Python numbers (``meta + cpu_0d``
    works). With only 0-d CPU tensors, the device is the CPU.

    Raises:
        RuntimeError: "Tensor on device cpu is not on the expected device meta!"
    """
    expected: device | None = None
    for t in tensors:
        where = t.device
        if where == CPU and t.dim() == 0:
            continue
        if expected is None:
            expected = where
        elif where != expected:
            raise wrong_device(where, expected)
    return CPU if expected is None else expected


def wrong_device(got: device, expected: device) -> RuntimeError:
    """torch's error for a tensor on another device than the operation's."""
    return RuntimeError(f"Tensor on device {got} is not on the expected device {expected}!")
