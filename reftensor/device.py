"""``device``: where a tensor's bytes live. reftensor keeps everything on the CPU."""

from __future__ import annotations

__all__ = ["device", "as_device"]


class device:
    """A device (``torch.device``). Only ``"cpu"`` exists in reftensor.

    Accepts ``device("cpu")``, ``device("cpu:0")`` and ``device("cpu", 0)``.

    Raises:
        RuntimeError: an unknown device string, as torch raises for ``torch.device("gpu")``.
    """

    __slots__ = ("type", "index")

    def __init__(self, type: str | device, index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        name, _, idx = type.partition(":")
        if name != "cpu":
            raise RuntimeError(
                f"Expected one of cpu device type at start of device string: {type} "
                "(reftensor has only the CPU device)"
            )
        if idx:
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        self.type = name
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


_CPU = device("cpu")


def as_device(d: str | device | None) -> device:
    """Normalise a ``device=`` argument; tensors always report ``device(type='cpu')``."""
    if d is not None:
        device(d)  # validates
    return _CPU
