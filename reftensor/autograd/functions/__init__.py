"""The differentiable ops: each runs its chapter 2-4 kernel, then records a graph node.

``reftensor.add``, ``Tensor.add`` and the rest reach the kernels through here. Files, by the
chapter whose ops they cover: ``views.py`` (views and indexing),
``linalg.py`` (matrix products); ``_record.py`` is the
out-of-place and in-place recording pattern they share.
"""

from . import linalg, views
from .linalg import *  # noqa: F403
from .views import *  # noqa: F403

__all__ = [*linalg.__all__, *views.__all__]
