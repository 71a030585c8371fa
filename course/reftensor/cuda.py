"""``reftensor.cuda`` (``torch.cuda``) as on a torch built without CUDA (chapter 4).

reftensor computes on the CPU only, so these answer as torch 2.13's CPU build does, and the
guards that published programs write (``device = "cuda" if torch.cuda.is_available() else
"cpu"``) take the CPU branch on both libraries:

* ``is_available()`` is False, ``device_count()`` 0, ``is_initialized()`` False,
  ``is_bf16_supported()`` False, ``memory_allocated()`` and ``max_memory_allocated()`` 0;
* seeding (``manual_seed``, ``manual_seed_all``, ``seed``, ``seed_all``) and
  ``empty_cache()`` do nothing (torch queues the seed for a CUDA that never starts);
* asking about a device (``current_device``, ``get_device_name``,
  ``get_device_capability``, ``get_device_properties``, ``synchronize``, ``init``,
  ``get_rng_state``, ``set_rng_state``) raises AssertionError "Torch not compiled with CUDA
  enabled"; entering ``with cuda.device(0):`` raises RuntimeError, as do ``Stream()`` and
  ``Event()``; ``set_device`` and ``reset_peak_memory_stats`` raise AttributeError (torch's
  CPU build lacks the C functions behind them).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "is_available", "device_count", "is_initialized", "is_bf16_supported", "current_device",
    "get_device_name", "get_device_capability", "get_device_properties", "synchronize", "init",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "get_rng_state", "set_rng_state",
    "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "reset_peak_memory_stats", "set_device", "device", "Stream", "Event",
]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _not_compiled() -> AssertionError:
    return AssertionError(_NOT_COMPILED)


def is_available() -> bool:
    """False: no CUDA device (``torch.cuda.is_available``)."""
    return False


def device_count() -> int:
    """0 (``torch.cuda.device_count``)."""
    return 0


def is_initialized() -> bool:
    """False: CUDA never starts (``torch.cuda.is_initialized``)."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False (``torch.cuda.is_bf16_supported``)."""
    return False


def current_device() -> int:
    """Raises AssertionError (``torch.cuda.current_device`` on a CPU build)."""
    raise _not_compiled()


def get_device_name(device: Any = None) -> str:
    """Raises AssertionError (``torch.cuda.get_device_name`` on a CPU build)."""
    raise _not_compiled()


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """Raises AssertionError (``torch.cuda.get_device_capability`` on a CPU build)."""
    raise _not_compiled()


def get_device_properties(device: Any = None) -> Any:
    """Raises AssertionError (``torch.cuda.get_device_properties`` on a CPU build)."""
    raise _not_compiled()


def synchronize(device: Any = None) -> None:
    """Raises AssertionError (``torch.cuda.synchronize`` on a CPU build)."""
    raise _not_compiled()


def init() -> None:
    """Raises AssertionError (``torch.cuda.init`` on a CPU build)."""
    raise _not_compiled()


def get_rng_state(device: Any = "cuda") -> Any:
    """Raises AssertionError (``torch.cuda.get_rng_state`` on a CPU build)."""
    raise _not_compiled()


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Raises AssertionError (``torch.cuda.set_rng_state`` on a CPU build)."""
    raise _not_compiled()


def manual_seed(seed: int) -> None:
    """Nothing to seed (``torch.cuda.manual_seed`` on a CPU build)."""


def manual_seed_all(seed: int) -> None:
    """Nothing to seed (``torch.cuda.manual_seed_all`` on a CPU build)."""


def seed() -> None:
    """Nothing to seed (``torch.cuda.seed`` on a CPU build)."""


def seed_all() -> None:
    """Nothing to seed (``torch.cuda.seed_all`` on a CPU build)."""


def empty_cache() -> None:
    """Nothing cached (``torch.cuda.empty_cache`` on a CPU build)."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes (``torch.cuda.memory_allocated`` on a CPU build)."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0 bytes (``torch.cuda.max_memory_allocated`` on a CPU build)."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0 bytes (``torch.cuda.memory_reserved`` on a CPU build)."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0 bytes (``torch.cuda.max_memory_reserved`` on a CPU build)."""
    return 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Raises AttributeError, as torch's CPU build (which lacks the function behind it)."""
    raise AttributeError("reftensor has no CUDA: no peak memory statistics to reset")


def set_device(device: Any) -> None:
    """Raises AttributeError, as torch's CPU build (which lacks the function behind it)."""
    raise AttributeError("reftensor has no CUDA: no device to set")


class device:
    """``torch.cuda.device(index)``: made freely; entering it raises RuntimeError."""

    def __init__(self, device: Any) -> None:
        self.idx = device

    def __enter__(self) -> None:
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc: Any) -> None:
        return None


class Stream:
    """``torch.cuda.Stream()``: raises RuntimeError on a CPU build."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """``torch.cuda.Event()``: raises RuntimeError on a CPU build."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Tried to instantiate dummy base class Event")
