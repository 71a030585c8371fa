"""What autograd records outside the derivatives table.

``views.py``: the scatter-add that the view rows' formulas use, and ``CopySlices``;
``linalg.py``: ``matmul``'s decomposition (its in-place ``squeeze_(0)`` is no op of the table
yet); ``_record.py`` and ``inplace.py``: the out-of-place and in-place recording patterns
(``call``, ``call_``) that ``variable_type.py`` builds every Autograd kernel from.
"""

from . import linalg, views
from .linalg import *  # noqa: F403
from .views import *  # noqa: F403

__all__ = [*linalg.__all__, *views.__all__]
