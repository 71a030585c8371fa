"""Chapter 5: autograd, following torch's rules (``torch.autograd``).

* ``grad_mode.py``: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``;
* ``graph.py``: nodes (``grad_fn``), edges, saved tensors and their version check;
* ``engine.py``: runs the graph once, each node once, in dependency order;
* ``api.py``: ``backward``, ``grad``, and the per-tensor rules (``.grad``, ``retain_grad``,
  hooks, ``detach_``);
* ``derivatives.py``: the derivatives table (torch's ``derivatives.yaml``), and
  ``variable_type.py``: the ``Autograd`` kernels the op table's ops get from it;
* ``functions/``: the recording pattern (``_record.py``), the view rows' helpers and
  ``CopySlices`` (``views.py``), ``matmul``'s decomposition (``linalg.py``);
* ``function.py``: ``Function`` for ops you write yourself; ``gradcheck.py``.
"""

from . import grad_mode, graph  # noqa: I001  (grad_mode first: tensor.py needs it)
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck

# isort: split
from .._ops.variable_hooks import set_variable_hooks
from .api import AutogradHooks

set_variable_hooks(AutogradHooks())  # Tensor's autograd methods reach autograd through these

__all__ = [
    "backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
    "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled", "gradcheck", "GradcheckError", "graph", "grad_mode",
]
