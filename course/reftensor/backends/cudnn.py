"""``reftensor.backends.cudnn`` (``torch.backends.cudnn``): no cuDNN. The switches keep
torch's defaults and may be set; they change nothing on the CPU (in torch either)."""

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic"]

#: torch's defaults
enabled = True
benchmark = False
deterministic = False


def is_available() -> bool:
    """False (``torch.backends.cudnn.is_available`` of a CPU build)."""
    return False


def version() -> None:
    """None: no cuDNN (``torch.backends.cudnn.version``)."""
    return None
