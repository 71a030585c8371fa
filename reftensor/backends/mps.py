"""``reftensor.backends.mps`` (``torch.backends.mps``): no Apple GPU."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False (``torch.backends.mps.is_available`` off a Mac)."""
    return False


def is_built() -> bool:
    """False (``torch.backends.mps.is_built`` of a Linux build)."""
    return False
