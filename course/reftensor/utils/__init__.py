"""``reftensor.utils`` (``torch.utils``): chapter 7's data loading lives in ``utils.data``.

``import reftensor`` does not import ``reftensor.utils.data`` (torch's ``import torch`` does):
the DataLoader's worker processes need ``multiprocessing``, whose import (with ``socket``)
would add about 10 ms to every ``import reftensor``. Write ``import reftensor.utils.data`` or
``from reftensor.utils.data import DataLoader`` (the latter is also the usual torch spelling).

``_generator`` is imported eagerly: it is how chapter 7 reaches chapter 8's generator.
"""

from . import _generator

__all__ = ["_generator"]
