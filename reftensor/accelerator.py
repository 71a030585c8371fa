"""``reftensor.accelerator`` (``torch.accelerator``, chapter 4): none on this machine."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available() -> bool:
    """False (``torch.accelerator.is_available`` on a CPU build)."""
    return False


def current_accelerator(check_available: bool = False) -> Any:
    """None (``torch.accelerator.current_accelerator``)."""
    return None


def device_count() -> int:
    """0 (``torch.accelerator.device_count``)."""
    return 0
