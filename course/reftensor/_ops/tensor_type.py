"""The root of reftensor's tensor class, known to the dispatcher before the class exists.

The argument parser must recognise a tensor argument, but ``reftensor.Tensor`` (chapter 1)
is built on top of this package. So the dispatcher checks ``isinstance(x, TensorType)``, and
the class tree is ``Tensor -> TensorMethods -> TensorType``: ``TensorMethods`` holds the op
methods generated from the op table, as torch's ``torch._C.TensorBase`` does under
``torch.Tensor``. The slots are declared here so that every level agrees on them.
"""

from __future__ import annotations

__all__ = ["TensorType"]


class TensorType:
    """What every reftensor tensor is, as far as the op table can tell."""

    __slots__ = (
        "_storage",
        "_shape",
        "_stride",
        "_storage_offset",
        "_dtype",
        "_base",
        "_version_counter",
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "_output_nr",
        "_autograd_meta",
        "__weakref__",
    )
