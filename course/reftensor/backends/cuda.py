"""``reftensor.backends.cuda`` (``torch.backends.cuda``): not built with CUDA."""

__all__ = ["is_built"]


def is_built() -> bool:
    """False (``torch.backends.cuda.is_built`` of a CPU build)."""
    return False
