"""``reftensor.nn``: neural-network building blocks (``torch.nn``).

So far only ``functional.dropout`` (chapter 8, random number generation).
"""

from . import functional

__all__ = ["functional"]
