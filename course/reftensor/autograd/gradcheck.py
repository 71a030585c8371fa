"""``gradcheck``: compare autograd's gradients with finite differences (float64)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..factories import tensor
from ..tensor import Tensor
from .api import grad as autograd_grad
from .grad_mode import no_grad

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ (``torch.autograd.GradcheckError``)."""


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Tensor]:
    out = fn(*inputs)
    return [out] if isinstance(out, Tensor) else [o for o in out if isinstance(o, Tensor)]


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, **kwargs: Any) -> bool:
    """Check d(func)/d(inputs) from autograd against central differences
    ``(f(x + eps) - f(x - eps)) / (2 eps)``, one input element at a time
    (``torch.autograd.gradcheck``). Inputs that require grad should be float64.

    Returns True when every Jacobian entry agrees within ``atol + rtol * |numerical|``.

    Raises:
        GradcheckError: they disagree (unless ``raise_exception=False``: then False).
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _outputs(func, inputs)
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        n_out = out.numel()
        for i in wrt:
            x = inputs[i]
            analytical = np.zeros((x.numel(), n_out))
            for j in range(n_out):
                seed = np.zeros(n_out)
                seed[j] = 1

                g = tensor(seed.reshape(out.shape), dtype=out.dtype)
                got = autograd_grad(_outputs(func, inputs)[k], [x], [g], allow_unused=True)[0]
                if got is not None:
                    analytical[:, j] = got.detach().numpy().reshape(-1)
            numerical = np.zeros_like(analytical)
            values = x.detach().numpy()  # shares memory with x: perturb in place
            flat_index = list(np.ndindex(*x.shape))
            with no_grad():
                for e, idx in enumerate(flat_index):
                    original = values[idx].copy()
                    values[idx] = original + eps
                    plus = _outputs(func, inputs)[k].detach().numpy().astype(np.float64)
                    values[idx] = original - eps
                    minus = _outputs(func, inputs)[k].detach().numpy().astype(np.float64)
                    values[idx] = original
                    numerical[e, :] = ((plus - minus) / (2 * eps)).reshape(-1)
            if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{numerical}\nanalytical:{analytical}\n")
    return True
