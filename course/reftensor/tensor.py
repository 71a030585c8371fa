"""``Tensor``: a view onto a storage, defined by dtype, shape, stride and storage offset.

The four layers of a tensor, and where they live in reftensor:

1. the mathematical object: an n-d array of numbers (``shape``, ``dtype``);
2. the storage: a flat block of bytes shared by views (``storage.UntypedStorage``);
3. autograd: ``requires_grad``, ``grad``, ``grad_fn`` (slots exist now; chapter 5's
   ``autograd/`` package records the graph and runs it);
4. the kernel: code that walks the storage through the strides (here, plain Python and NumPy).

Element ``index`` of a tensor lives at storage element
``storage_offset + sum(index[k] * stride[k])``; every read below goes through that formula.
The class has its final shape from chapter 1: later chapters add modules that these methods
call, they never patch the class. Each method below that belongs to a later chapter is one
line handing over to that chapter's module:

* chapter 2, views and copies: ``views.py``, ``copies.py``, ``indexing.py`` (basic indices)
  and ``advanced_indexing.py``;
* chapter 3, broadcasting and elementwise kernels: ``broadcasting.py``, ``promotion.py``,
  ``iterator.py`` (output layout, overlap checks), ``elementwise.py`` (the shared machinery,
  ``copy_``, ``fill_``), ``arithmetic.py``, ``comparison.py``, ``unary.py``, ``matmul.py``;
* chapter 4, dtypes, devices and reductions: ``reductions.py``, ``dtype_info.py``; devices
  live in ``device.py`` and ``storage.py`` (a ``meta`` storage has a size and no bytes, so
  every op computes only its result's shape, strides and dtype);
* chapter 5, autograd: every op of the op table gets an ``Autograd`` kernel from its row of
  ``autograd/derivatives.py`` (``autograd/variable_type.py``, as torch's ``VariableType``),
  a layer above the kernels: it runs the kernel of chapters 2-4, then records a node of the
  backward graph when an input requires grad;
* chapter 8, random number generation: the in-place samplers (``uniform_``, ``normal_``,
  ...) are ops of the op table, inherited from ``TensorMethods``; their kernels live in
  ``random/``, which reproduces torch's CPU generator bit for bit.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np

from . import _casting, conversions, dtypes, layout, pieces
from ._bindings import TensorMethods
from ._C import DisableTorchFunctionSubclass, _disabled_torch_function_impl
from ._formatting import meta_repr, tensor_repr
from ._ops import OpOverloadPacket, aten
from ._ops import packet as _packet
from ._ops.python_arg_parser import PythonArgParser, Signature
from ._ops.python_functions import function as python_function
from ._ops.python_indexing import indexing as python_indexing
from ._ops.schema import parse_schema
from ._ops.state import state as dispatch_state
from ._ops.tensor_new import new_tensor as python_new_tensor
from ._ops.tensor_type import TensorType
from ._ops.torch_dispatch import _disabled_torch_dispatch_impl, has_torch_dispatch
from ._ops.variable_hooks import variable_hooks
from .device import CPU, META, device
from .dtypes import dtype
from .layout import memory_format
from .size import Size
from .storage import TypedStorage, UntypedStorage, no_data
from .subclasses import _make_subclass, _make_wrapper_subclass, subclass_repr

__all__ = ["Tensor", "VersionCounter", "wrap_dim"]



class VersionCounter:
    """Counts in-place writes to a storage; shared by a tensor and all its views (``_version``)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


#: NumPy's limit, and torch's TensorIterator's.
MAX_DIMS = 64
#: Does ``tolist`` read each element where ``layout.storage_index`` says (the student
#: edition, where that is the student's piece), or read NumPy's view of the elements at once
#: (the reference: the same values, several times faster)? Asked once, here.
TOLIST_WALKS = pieces.stubbed(layout.storage_index)


def _reflected(op: OpOverloadPacket, *args: Any) -> Any:
    """``op(*args)``, or ``NotImplemented`` for arguments it refuses with a TypeError."""
    try:
        return op(*args)
    except TypeError:
        return NotImplemented


def _python_operator(method: Any) -> Any:
    """A reflected operator that torch writes in Python (``2 - t``: ``Tensor.__rsub__``),
    decorated as torch's ``_handle_torch_function_and_wrap_type_error_to_not_implemented``
    does: the call goes to ``__torch_function__`` (chapter 9; ``func`` is this wrapper)
    when an operand overrides it, and a TypeError becomes ``NotImplemented`` (so that
    Python's own error follows). A plain call pays one test of the op table's hook."""
    @functools.wraps(method)
    def wrapped(self: Any, other: Any) -> Any:
        try:
            if _packet._torch_function is not None:
                handled = _packet._torch_function(wrapped, "python", (self, other), {})
                if handled is not _packet.UNHANDLED:
                    return handled
            return method(self, other)
        except TypeError:
            return NotImplemented
    return wrapped


def wrap_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative ``dim`` into ``0 <= dim < ndim``, as torch does.

    Raises:
        IndexError: ``dim`` is out of range (torch's message), or the tensor is 0-d.
    """
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return dim % ndim


#: the members ``Tensor._route_members`` set aside, to put back (chapter 9's modes)
_OWN_MEMBERS: dict[type, dict[str, Any]] = {}


class Tensor(TensorMethods):
    """A strided view of an ``UntypedStorage`` (``torch.Tensor``).

    The op methods (``exp``, ``exp_``, ...) come from the op table, through the generated
    ``TensorMethods`` (``reftensor/_bindings.py``). Build tensors with the factories
    (``reftensor.tensor``, ``zeros``, ``arange``, ``as_strided``, ...), not with this
    constructor.
    """

    __slots__ = ()  # declared by TensorType (reftensor/_ops/tensor_type.py)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is not Tensor and hasattr(self, "_storage"):
            return  # a subclass's ``__new__`` built it (``_make_wrapper_subclass``)
        raise TypeError(
            "reftensor.Tensor is not built directly: use reftensor.tensor(data), "
            "reftensor.empty(size) or another factory"
        )

    @classmethod
    def _make(
        cls,
        storage: UntypedStorage,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        storage_offset: int,
        dtype: dtype,
        *,
        base: Tensor | None = None,
    ) -> Tensor:
        """Assemble a tensor from its parts. With ``base`` the result is a view of ``base``:
        it shares base's version counter and records ``_base`` the way torch does (the
        base of a view of a view is the original tensor)."""
        t = object.__new__(cls)
        t._storage = storage
        t._shape = tuple(shape)
        t._stride = tuple(stride)
        t._storage_offset = storage_offset
        t._dtype = dtype
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._autograd_meta = None
        if base is None:
            t._base = None
            t._version_counter = VersionCounter()
        else:
            t._base = base if base._base is None else base._base
            t._version_counter = base._version_counter
            if base._autograd_meta is not None and base._autograd_meta.inference:
                variable_hooks().mark_inference(t)  # a view of an inference tensor is one
        if base is None and dispatch_state.inference:
            variable_hooks().mark_inference(t)  # made inside inference_mode
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        """The sizes of the dims, as a ``reftensor.Size`` (``torch.Tensor.shape``)."""
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        """``shape``, or the size of one dim. Raises IndexError for a dim out of range."""
        if dim is None:
            return Size(self._shape)
        return self._shape[wrap_dim(dim, len(self._shape))]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        """Elements to skip in storage to move one step along each dim (or along ``dim``)."""
        if dim is None:
            return self._stride
        return self._stride[wrap_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        """Storage element (not byte) where element ``[0, 0, ...]`` lives."""
        return self._storage_offset

    @property
    def dtype(self) -> dtype:
        return self._dtype

    @property
    def device(self) -> device:
        """Where the storage lives: ``device(type='cpu')`` or ``device(type='meta')``."""
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return self._storage.device == CPU

    @property
    def is_meta(self) -> bool:
        """A meta tensor has shape, strides and dtype but no data: ops compute only those."""
        return self._storage.device == META

    def get_device(self) -> int:
        """The device index of a GPU tensor; -1 for CPU and meta tensors."""
        return -1

    def cpu(self) -> Tensor:
        """``to("cpu")``: self for a CPU tensor.

        Raises:
            NotImplementedError: a meta tensor (there is no data to copy).
        """
        return self.to(CPU)

    def cuda(self, device: Any = None, non_blocking: builtins.bool = False) -> Tensor:
        """Raises AssertionError, as a torch built without CUDA does."""
        return self.to("cuda")

    def dim(self) -> int:
        """Number of dims (0 for a scalar tensor)."""
        return len(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        """Number of elements: the product of the sizes (1 for a 0-d tensor)."""
        return math.prod(self._shape)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element (``dtype.itemsize``)."""
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """``numel() * itemsize``: the bytes this view covers, not the storage's size."""
        return self.numel() * self._dtype.itemsize

    def untyped_storage(self) -> UntypedStorage:
        """The shared byte buffer behind this tensor and all its views."""
        return self._storage

    def storage(self) -> TypedStorage:
        """The storage read as elements of this tensor's dtype (``Tensor.storage()``, a
        ``TypedStorage``: the whole storage, not just what this view covers), with torch's
        deprecation warning the first time in a process (``untyped_storage()`` is the
        current API)."""
        return TypedStorage.of_tensor(self._storage, self._dtype)

    def is_shared(self) -> builtins.bool:
        """Is the storage in shared memory (``Tensor.is_shared``)? Views share the answer."""
        return self._storage.is_shared()

    def share_memory_(self) -> Tensor:
        """Move the storage into shared memory (``Tensor.share_memory_``): processes forked
        afterwards write to the same bytes. Returns ``self``; ``_version`` is unchanged.

        Raises:
            RuntimeError: a meta tensor ("only available on CPU").
        """
        self._storage.share_memory_()
        return self

    def data_ptr(self) -> int:
        """Address of the first element: storage address + ``storage_offset * itemsize``.

        An empty tensor has no first element, and torch reports 0 for it.
        """
        if self.numel() == 0:
            return 0
        return self._storage.data_ptr() + self._storage_offset * self._dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor's storage has seen (shared with views)."""
        return self._version_counter.value

    # ------------------------------------------------------------------ autograd (chapter 5)
    # The state lives in the slots above; the rules live in reftensor/autograd/, which
    # registers them as the variable hooks (``_ops/variable_hooks.py``) when imported.
    @property
    def requires_grad(self) -> bool:
        """Does autograd track this tensor: a leaf marked so, or the result of a recorded op."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        variable_hooks().set_requires_grad(self, builtins.bool(value))

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return self.

        Raises:
            RuntimeError: a non-floating dtype; ``False`` on a non-leaf; ``True`` on an
                inference tensor outside ``inference_mode``.
        """
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self) -> Any:
        """The node that made this tensor (``MulBackward0``, ...), None for a leaf."""
        m = self._autograd_meta
        if m is not None and m.view_version is not None \
                and m.view_version != self._version_counter.value:
            return variable_hooks().regenerate_grad_fn(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True unless this tensor was computed by an op that autograd recorded."""
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (leaves, and non-leaves that called
        ``retain_grad()``); reading it on another non-leaf warns, as torch does."""
        return variable_hooks().grad(self)

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        variable_hooks().set_grad(self, value)

    @property
    def retains_grad(self) -> bool:
        """Did ``retain_grad()`` ask this non-leaf to keep its ``.grad``?"""
        m = self._autograd_meta
        return m is not None and m.retains_grad

    def retain_grad(self) -> None:
        """Make backward store this non-leaf's gradient in ``.grad`` (no-op on a leaf).

        Raises:
            RuntimeError: the tensor does not require grad.
        """
        variable_hooks().retain_grad(self)

    def register_hook(self, hook: Any) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle with ``remove()``.

        Raises:
            RuntimeError: the tensor does not require grad.
        """
        return variable_hooks().register_hook(self, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: builtins.bool | None = None,
                 create_graph: builtins.bool = False, inputs: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (``torch.Tensor.backward``);
        see ``reftensor.autograd.backward``."""
        variable_hooks().backward(self, gradient, retain_graph, create_graph, inputs)

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place.

        Raises:
            RuntimeError: the tensor is a view ("Can't detach views in-place").
        """
        return variable_hooks().detach_(self)

    def is_inference(self) -> builtins.bool:
        """Was this tensor made inside ``inference_mode``?"""
        m = self._autograd_meta
        return m is not None and m.inference

    def _is_view(self) -> builtins.bool:
        return self._base is not None

    @property
    def data(self) -> Tensor:
        """The same values with no autograd history and a version counter of their own
        (``torch.Tensor.data``): writes through it are invisible to autograd."""
        return Tensor._make(self._storage, self._shape, self._stride, self._storage_offset,
                            self._dtype)

    @data.setter
    def data(self, new: Tensor) -> None:
        """``t.data = new``: ``t`` takes ``new``'s storage, shape, strides, offset and dtype,
        and keeps its own version counter and autograd state (torch's ``set_data``; how
        ``Module.to`` converts a parameter without replacing the object).

        Raises:
            TypeError: ``new`` is not a tensor.
        """
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        self._storage, self._shape, self._stride = new._storage, new._shape, new._stride
        self._storage_offset, self._dtype = new._storage_offset, new._dtype

    # ------------------------------------------------------------------ contiguity
    def is_contiguous(self, memory_format: memory_format = layout.contiguous_format) -> bool:
        """Does the layout match ``memory_format`` exactly (size-1 dims ignored)?"""
        if memory_format is layout.channels_last:
            return layout.is_channels_last_contiguous(self._shape, self._stride)
        if memory_format is layout.contiguous_format:
            return layout.is_contiguous(self._shape, self._stride)
        raise RuntimeError(f"is_contiguous: unsupported memory format {memory_format}")

    def _strides_for(self, memory_format: memory_format) -> tuple[int, ...]:
        if memory_format is layout.channels_last:
            return layout.channels_last_strides(self._shape)
        if memory_format is layout.contiguous_format:
            return layout.contiguous_strides(self._shape)
        if layout.is_non_overlapping_and_dense(self._shape, self._stride):
            return self._stride
        return layout.dense_strides_like(self._shape, self._stride)

    def _suggest_memory_format(self) -> memory_format:
        if layout.strides_like_channels_last(self._shape, self._stride):
            return layout.channels_last
        return layout.contiguous_format

    # ------------------------------------------------------------------ reading elements
    def _elements(self) -> np.ndarray:
        """A NumPy view of the logical elements (shares memory; every dtype, no checks).

        Raises:
            RuntimeError: more than 64 dims, which NumPy cannot view; torch's message for
                the ops that refuse them (reftensor refuses every op that reads elements).
        """
        if len(self._shape) > MAX_DIMS:
            raise RuntimeError(f"only tensors with up to {MAX_DIMS} dims are supported")
        itemsize = self._dtype.itemsize
        strides = tuple([s * itemsize for s in self._stride])
        buffer = self._storage._bytes
        if buffer is not None:
            try:
                # The ndarray constructor views the storage's bytes directly (it checks that
                # the view lies inside them); ``as_strided`` would be ten times slower.
                return np.ndarray(self._shape, self._dtype.numpy, buffer,
                                  self._storage_offset * itemsize, strides)
            except (ValueError, TypeError):
                pass  # an empty view past the end of the storage, or a partial last element
        flat = self._storage._typed(self._dtype.numpy)  # (raises for a meta storage)
        start = min(self._storage_offset, flat.shape[0])
        try:
            return np.ndarray(self._shape, flat.dtype, flat, start * itemsize, strides)
        except ValueError:  # a view reaching past the end of the storage (NumPy refuses it)
            return np.lib.stride_tricks.as_strided(flat[start:], self._shape, strides)

    def _read(self, storage_index: int) -> builtins.bool | int | builtins.float:
        """The element at a storage index, as a Python scalar."""
        return self._storage._typed(self._dtype.numpy)[storage_index].item()

    def item(self) -> builtins.bool | int | builtins.float:
        """The single element as a Python number.

        Raises:
            RuntimeError: the tensor does not have exactly one element.
        """
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        if dispatch_state.modes or (self._storage._device is not CPU
                                    and self._storage._device is not META):
            # torch's ``item`` dispatches this op, which a mode (or a Tensor subclass's
            # ``__torch_dispatch__``) sees
            return aten._local_scalar_dense.default(self)
        return self._item()

    def _item(self) -> builtins.bool | int | builtins.float:
        """The single element, read without dispatching (what torch reads below the
        dispatcher: ``tensor([t, t])`` of 0-d tensors)."""
        if self.is_meta:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        first = (0,) * len(self._shape)
        return self._read(layout.storage_index(first, self._stride, self._storage_offset))

    def new_tensor(self, data: Any, *, dtype: dtype | None = None, device: Any = None,
                   requires_grad: builtins.bool = False) -> Tensor:
        """A new tensor holding a copy of ``data`` (``Tensor.new_tensor``), as
        ``reftensor.tensor(data)`` but with this tensor's dtype and device unless
        ``dtype``/``device`` are given (the dtype is not inferred from ``data``).

        Raises:
            UserWarning (a warning): ``data`` is a tensor (``detach().clone()`` is
                recommended).
            RuntimeError: ``requires_grad=True`` for a non-floating dtype, a value out of
                the dtype's range. TypeError, ValueError: as ``reftensor.tensor``.
        """
        return python_new_tensor()(self, data, dtype, device, requires_grad)

    def tolist(self) -> Any:
        """Nested Python lists of Python numbers (a bare number for a 0-d tensor).

        In the student edition each element is read where chapter 1's
        ``layout.storage_index`` says; the reference reads NumPy's view of the same elements
        (``TOLIST_WALKS``; a test proves the two agree).

        Raises:
            NotImplementedError: a meta tensor (no data).
        """
        if self._storage._device is not CPU:
            self._check_data(".tolist() is not supported for tensor subclasses, got "
                             f"{type(self).__name__}")
            if self.is_meta:
                raise no_data()
        shape, stride, offset = self._shape, self._stride, self._storage_offset
        if not TOLIST_WALKS and len(shape) <= MAX_DIMS:
            return self._elements().tolist()
        flat, where = self._storage._typed(self._dtype.numpy), layout.storage_index
        if not shape:
            return flat[where((), stride, offset)].item()
        inner = len(shape) - 1

        def walk(index: tuple[int, ...]) -> list[Any]:
            if len(index) == inner:  # the last dim: its elements
                return [flat[where((*index, i), stride, offset)].item()
                        for i in range(shape[inner])]
            return [walk((*index, i)) for i in range(shape[len(index)])]

        return walk(())

    def numpy(self, *, force: builtins.bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (``torch.Tensor.numpy``).

        Raises:
            RuntimeError: the tensor requires grad (unless ``force``).
            TypeError: bfloat16, which NumPy does not know, or a meta tensor.
        """
        self._check_data(".numpy() is not supported for tensor subclasses.")
        if self.is_meta:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() "
                            "to copy the tensor to host memory first.")
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        if self._dtype is dtypes.bfloat16:
            if force:
                return self._elements().astype(np.float32)
            raise TypeError("Got unsupported ScalarType BFloat16")
        if self.numel() == 0:
            # Nothing to share: like torch, hand NumPy a fresh empty array with zero strides.
            return np.lib.stride_tricks.as_strided(
                np.empty(1, self._dtype.numpy), self._shape, (0,) * self.dim()
            ).copy()
        return self._elements()

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def _scalar(self, kind: str) -> builtins.bool | int | builtins.float:
        if self.numel() != 1:
            if kind == "bool":
                raise RuntimeError(
                    "Boolean value of Tensor with more than one value is ambiguous"
                )
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __bool__(self) -> builtins.bool:
        return builtins.bool(self._scalar("bool"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> builtins.float:
        return builtins.float(self._scalar("float"))

    def __index__(self) -> int:
        """A one-element integer or bool tensor used where Python wants an int."""
        if self._dtype.is_floating_point or self.numel() != 1:
            raise TypeError(
                "only integer tensors of a single element can be converted to an index"
            )
        return int(self.item())

    def __repr__(self, *, tensor_contents: str | None = None) -> str:
        if tensor_contents is not None:  # a subclass's text (``LoggingTensor``)
            return subclass_repr(self, tensor_contents, self._repr_prefix())
        # a subclass prints its name (``Logged(...)``), as torch's ``_str_intern``
        return self._repr(self._repr_prefix())

    def _repr_prefix(self) -> str:
        return "tensor(" if type(self) is Tensor else f"{type(self).__name__}("

    def _repr(self, prefix: str) -> str:
        fn = self.grad_fn
        name = None if fn is None else fn.name()
        if self.is_meta:  # no values to print: ``tensor(..., device='meta', size=(2, 3))``
            return meta_repr(self._shape, self._dtype, requires_grad=self._requires_grad,
                             grad_fn_name=name, prefix=prefix)
        return tensor_repr(self._elements(), self._dtype, requires_grad=self._requires_grad,
                           grad_fn_name=name, prefix=prefix)

    # ------------------------------------------------------------------ pickling and copying
    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickling (and ``copy.copy``) as torch's ``Tensor.__reduce_ex__``: the storage's
        bytes, storage offset, size, stride and ``requires_grad``; not the grad, not the
        graph (a non-leaf comes back a leaf). Each tensor carries its own copy of its storage,
        so tensors pickled together do not share memory afterwards; torch rebuilds through
        ``set_``, so the new tensor's ``_version`` is 1 (0 on the meta device, which has no
        bytes)."""
        data = None if self.is_meta else self._storage._cpu_bytes().copy()
        return (_rebuild_tensor, (data, self._storage._nbytes, self._dtype, str(self.device),
                                  self._storage_offset, self._shape, self._stride,
                                  self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """``copy.deepcopy`` as torch's ``Tensor.__deepcopy__``: a leaf only; the storage
        copied once per deepcopy (views copied together stay views of one new storage, each
        with its own version counter, at 1 as after torch's ``set_``; a meta tensor is
        cloned, at 0); ``requires_grad`` and a deep copy of ``grad`` kept.

        Raises:
            RuntimeError: a tensor that is not a leaf (torch's message)."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        if self.is_meta:
            new = aten.clone.default.call(self, None)
        else:
            storage = memo.get(id(self._storage))
            if storage is None:
                storage = UntypedStorage._wrap_unchecked(self._storage._cpu_bytes().copy())
                memo[id(self._storage)] = storage
            new = _rebuild_on(storage, self._dtype, self._storage_offset, self._shape,
                              self._stride)
        if self._requires_grad:
            new.requires_grad_()
        if self._grad is not None:
            new.grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    # ------------------------------------------------------------------ views and copies
    def _copy_with_strides(self, stride: tuple[int, ...], dtype: dtype,
                           where: device | None = None) -> Tensor:
        """A new tensor with its own storage on ``where`` (default: self's device), laid out
        with ``stride``, holding our values converted to ``dtype``.

        Raises:
            NotImplementedError: copying out of a meta tensor onto the CPU (no data).
        """
        where = self.device if where is None else where
        needed = layout.required_storage_elements(self._shape, stride)
        storage = UntypedStorage(needed * dtype.itemsize, device=where)
        out = Tensor._make(storage, self._shape, stride, 0, dtype)
        if where == META:
            return out  # nothing to copy into
        if self.is_meta:
            raise no_data()
        out._elements()[...] = _casting.cast(self._elements(), dtype)
        return out

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert dtype, device or memory format (``torch.Tensor.to``), with torch's three
        Python signatures: ``to(device=None, dtype=None, non_blocking=False, copy=False,
        *, memory_format=None)``, ``to(dtype, non_blocking=False, copy=False, *,
        memory_format=None)`` and ``to(tensor, ...)`` (the tensor's dtype *and* device).

        Returns self exactly when nothing would change and ``copy`` is False (see
        :func:`to_options`); else ``aten._to_copy``, recorded by autograd as
        ``ToCopyBackward0``.

        Raises:
            TypeError: arguments that fit none of the signatures (torch's text).
            RuntimeError: an invalid device string; a device reftensor cannot use
                (``as_device``); ``memory_format=channels_last`` for a tensor that is not 4-d.
            AssertionError: ``"cuda"`` ("Torch not compiled with CUDA enabled").
            NotImplementedError: a meta tensor to the CPU (no data to copy).
        """
        index, values = _TO_PARSER.parse(args, kwargs)
        if index == 0:
            where, target, *rest = values
        elif index == 1:
            where, (target, *rest) = None, values
        else:
            other, *rest = values
            where, target = other.device, other._dtype
        # without a dtype, torch's binding converts to ``self.options()`` with the device
        # (and memory format) set: ``_to_copy`` then gets self's dtype and layout too
        return to_options(self, target, where, *rest, options=target is None)

    # ================================================================== chapter 2: views
    # The view ops (``view``, ``reshape``, ``transpose``, ``split``, ...) are the op table's
    # methods (``TensorMethods``; their kernels are in reftensor/views.py).
    @property
    def T(self) -> Tensor:
        """All dims reversed, a view (``permute``; torch's ``numpy_T``)."""
        return aten.numpy_T.default.call(self)

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped, a view (``transpose(-2, -1)``)."""
        return aten.mT.default.call(self)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False,
             dtype: Any = None) -> Tensor:
        """The norm of ``self``: ``reftensor.norm(self, p, dim, keepdim, dtype=dtype)``, as
        torch's ``Tensor.norm`` (``_tensor.py``) calls ``torch.norm`` (no ``out=``)."""
        return python_function("norm")(self, p, dim, keepdim, None, dtype)

    def unique(self, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False, dim: Any = None) -> Any:
        """The distinct elements (or slices along ``dim``): ``reftensor.unique(self, ...)``,
        as torch's ``Tensor.unique`` (``_tensor.py``) calls ``torch.unique``."""
        return python_function("unique")(self, sorted=sorted, return_inverse=return_inverse,
                                         return_counts=return_counts, dim=dim)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False,
                           dim: Any = None) -> Any:
        """Runs of equal consecutive elements kept once:
        ``reftensor.unique_consecutive(self, ...)``, as torch's ``Tensor.unique_consecutive``
        (``_tensor.py``)."""
        return python_function("unique_consecutive")(
            self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)

    def split(self, split_size: Any, dim: Any = 0) -> tuple[Tensor, ...]:
        """Views of pieces along ``dim``: of ``split_size`` each (an int, or a tensor read as
        one), or of the listed sizes. A Python method in torch too (``_tensor.py``): it
        picks ``split`` or ``split_with_sizes``, each parsed as the op table's."""
        if isinstance(split_size, Tensor):
            try:
                split_size = int(split_size)
            except ValueError:
                pass
        if isinstance(split_size, int):
            return aten.split(self, split_size, dim)
        return aten.split_with_sizes(self, split_size, dim)

    def nonzero(self, *args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
        """``Tensor.nonzero()`` or ``Tensor.nonzero(*, as_tuple)``: see ``reftensor.nonzero``
        (a hand-written binding in torch too; the method takes no ``out=``). With
        ``as_tuple=True``, torch's ``nonzero_numpy``: the columns of ``nonzero`` (of
        ``self.unsqueeze(0)`` for a 0-d tensor) as views.

        Raises:
            TypeError: arguments that fit neither signature.
            NotImplementedError: a meta tensor.
        """
        index, values = _NONZERO_PARSER.parse(args, kwargs)
        if index == 0 or not values[0]:
            return aten.nonzero.default(self)
        rows = aten.nonzero.default(self if self.dim() else aten.unsqueeze.default(self, 0))
        return tuple(aten.unbind.int(rows, 1))

    def unflatten(self, dim: Any, sizes: Any) -> Tensor:
        """Dim ``dim`` split into ``sizes``, a view. A Python method in torch too
        (``_tensor.py``), which refuses empty ``sizes`` itself (RuntimeError)."""
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        return aten.unflatten.call_method(self, (dim, sizes), {})

    def __iter__(self) -> Any:
        if self.dim() == 0:  # (a method call, as torch's: ``__torch_function__`` sees it)
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # ------------------------------------------------------------- copies (copies.py)
    def __reversed__(self) -> Tensor:
        """``reversed(t)``: ``t`` itself when 0-d, else ``t.flip(0)``, a copy (as torch)."""
        return self if self.dim() == 0 else self.flip(0)

    def __contains__(self, element: Any) -> builtins.bool:
        """``element in t``: does any element of ``t`` equal it (``(element == t).any()``)?

        Raises:
            RuntimeError: ``element`` is neither a tensor nor a Python number.
        """
        if not isinstance(element, Tensor | builtins.bool | int | builtins.float):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return builtins.bool((self == element).any())

    def __format__(self, format_spec: str) -> str:
        """A 0-d tensor formats as its Python number (``f"{t:.2f}"``), as in torch (read
        through ``detach()``, as torch's; a meta tensor or a subclass formats as an
        object)."""
        if self.dim() == 0 and not self.is_meta and type(self) is Tensor:
            return self.detach().item().__format__(format_spec)
        return object.__format__(self, format_spec)

    # ------------------------------------------------------------- indexing (indexing.py)
    # (registered by chapter 2's indexing.py: see reftensor/_ops/python_indexing.py)
    def __getitem__(self, index: Any) -> Tensor:
        """Basic indices (int, slice, None, ...) give a view; advanced ones a copy
        (``indexing.getitem``: ``select``, ``slice``, ``unsqueeze``, ``alias``, ``index``)."""
        if _packet._torch_function is not None:  # chapter 9: self or an index may override it
            handled = _packet._torch_function(Tensor.__getitem__, "indexing", (self, index), {})
            if handled is not _packet.UNHANDLED:
                return handled
        return python_indexing().getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """Write ``value`` (broadcast) through to this storage; bumps ``_version``
        (``indexing.setitem``: ``copy_``, ``fill_`` or ``index_put_`` into a view)."""
        if _packet._torch_function is not None:  # chapter 9: as ``__getitem__``, and the value
            handled = _packet._torch_function(Tensor.__setitem__, "indexing",
                                              (self, index, value), {})
            if handled is not _packet.UNHANDLED:
                return
        python_indexing().setitem(self, index, value)

    def __delitem__(self, index: Any) -> None:
        raise TypeError("Tensor does not support deleting items")

    # ====================================================== chapter 3: reflected operators
    # The reflected operators, written in Python as torch's ``Tensor`` writes them
    # (``torch/_tensor.py``): ``2 - t`` is ``rsub``, ``2 / t`` is ``t.reciprocal() * 2``,
    # ``2 // t``, ``2 % t``, ``2 ** t``, ``2 << t`` and ``2 >> t`` call the function with
    # the operands swapped. An operand the op refuses gives ``NotImplemented`` (so
    # ``"a" - t`` is Python's TypeError).
    @_python_operator
    def __rsub__(self, other: Any) -> Tensor:
        return _reflected(aten.rsub, self, other)

    @_python_operator
    def __rdiv__(self, other: Any) -> Tensor:
        try:
            return self.reciprocal() * other
        except TypeError:
            return NotImplemented

    __rtruediv__ = __rdiv__  # (torch's name for both: ``__rdiv__``)

    @_python_operator
    def __rfloordiv__(self, other: Any) -> Tensor:
        return _reflected(aten.floor_divide, other, self)

    @_python_operator
    def __rmod__(self, other: Any) -> Tensor:
        return _reflected(aten.remainder, other, self)

    @_python_operator
    def __rpow__(self, other: Any) -> Tensor:
        return _reflected(aten.pow, other, self)

    @_python_operator
    def __rlshift__(self, other: Any) -> Tensor:
        return _reflected(aten.bitwise_left_shift, other, self)

    @_python_operator
    def __rrshift__(self, other: Any) -> Tensor:
        return _reflected(aten.bitwise_right_shift, other, self)

    def __invert__(self) -> Tensor:
        """``~self``: ``bitwise_not``, but a floating tensor is a TypeError here (Python's
        operator), where ``bitwise_not`` raises NotImplementedError."""
        if self.is_floating_point():
            raise TypeError("~ (operator.invert) is only implemented on integer and "
                            "Boolean-type tensors")
        return self.bitwise_not()


    # Comparisons (``==`` and the rest) come from the op table and give bool tensors, so
    # tensors hash by identity, as in torch.
    def __hash__(self) -> int:
        return id(self)  # torch hashes a tensor by identity, since == is elementwise


    # ====================================================== chapter 4: dtype conversions
    # ``t.float()`` is ``t.to(reftensor.float32)``: ``t`` itself when the dtype is already
    # right, else a copy that keeps a dense layout (``to_options`` below); ``memory_format=``
    # as ``to``'s, None when not given (what ``_to_copy`` then receives, as torch's binding
    # passes it). (torch's are C methods of their own, beside ``to``'s parser.)
    def half(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.float16, None, False, False, memory_format)

    def bfloat16(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.bfloat16, None, False, False, memory_format)

    def float(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.float32, None, False, False, memory_format)

    def double(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.float64, None, False, False, memory_format)

    def byte(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.uint8, None, False, False, memory_format)

    def char(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.int8, None, False, False, memory_format)

    def short(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.int16, None, False, False, memory_format)

    def int(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.int32, None, False, False, memory_format)

    def long(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.int64, None, False, False, memory_format)

    def bool(self, *, memory_format: memory_format | None = None) -> Tensor:
        return to_options(self, dtypes.bool, None, False, False, memory_format)

    # ---- __torch_function__ (chapter 9)
    # A subclass that overrides ``__torch_function__`` is asked first by every public call
    # with one of its instances as an argument (``reftensor/overrides.py``: the hook, and the
    # order of the classes asked). This is torch's default (``torch/_tensor.py``).
    @classmethod
    def __torch_function__(cls, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        """``torch.Tensor.__torch_function__``: ``NotImplemented`` unless ``cls`` is a
        subclass of every class in ``types``; else ``func(*args, **kwargs)`` run with the
        hook off, its result converted to ``cls`` (``overrides.convert_result``) unless
        ``func`` reads a field (``overrides.get_default_nowrap_functions``)."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            if func in python_function("get_default_nowrap_functions")():
                return ret
            return python_function("convert_result")(ret, cls, Tensor)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that overrides ``__torch_function__`` (not with
        ``reftensor._C._disabled_torch_function_impl``, as ``nn.Parameter`` does) gets the
        hook on its hand-written members, and switches the op table's on."""
        super().__init_subclass__(**kwargs)
        if getattr(cls, "__torch_function__", None) is not _disabled_torch_function_impl:
            python_function("torch_function_subclass")(cls)

    @classmethod
    def _route_members(cls, routed: dict[str, Any] | None) -> None:
        """Hold ``routed`` (name: member) in place of ``Tensor``'s own hand-written members,
        or, with None, its own again. Chapter 9's ``TorchFunctionMode`` calls it as the first
        mode is pushed and after the last is popped (``overrides.py``): torch's C members look
        at the mode stack on every call; here a plain call pays nothing while no mode is on.
        Only ``Tensor`` changes its members: no other module sets an attribute of the class."""
        own = _OWN_MEMBERS.setdefault(cls, {})
        for name, member in (routed or {}).items():
            own.setdefault(name, cls.__dict__[name])
            setattr(cls, name, member)
        if routed is None:
            for name, member in own.items():
                setattr(cls, name, member)

    def as_subclass(self, cls: type) -> Tensor:
        """``torch.Tensor.as_subclass``: ``self`` as an instance of ``cls``, sharing its
        data: an alias (``aten.alias``; ``AliasBackward0`` when ``self`` requires grad).

        Raises:
            TypeError: ``cls`` is not a subclass of ``Tensor``.
        """
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit "
                            "from Tensor is not possible. Make sure your class inherits from "
                            "Tensor.")
        with DisableTorchFunctionSubclass():
            alias = aten.alias.default.call(self)
        out = object.__new__(cls)
        for slot in TensorType.__slots__:
            if slot != "__weakref__":
                setattr(out, slot, getattr(alias, slot))
        return out

    # ---- __torch_dispatch__ (chapter 9)
    # A subclass whose class defines ``__torch_dispatch__`` (a classmethod) has the ``Python``
    # key on every call with one of its instances as an argument: see
    # ``_ops/torch_dispatch.py`` (``Tensor``'s own is torch's disabled default).
    __torch_dispatch__ = staticmethod(_disabled_torch_dispatch_impl)
    _make_subclass = staticmethod(_make_subclass)
    _make_wrapper_subclass = staticmethod(_make_wrapper_subclass)

    def _check_data(self, message: str) -> None:
        """Raise torch's RuntimeError ``message`` for an instance of a class with
        ``__torch_dispatch__``, whose data Python may not read (a wrapper has none)."""
        if self._storage._device is not CPU and has_torch_dispatch(type(self)):
            raise RuntimeError(message)

    # (last in the class: from here on, ``layout`` in the class body is this property)
    @property
    def layout(self) -> layout.layout:
        """``reftensor.strided`` (``Tensor.layout``, ``torch.strided``): every reftensor tensor,
        meta ones too, is a storage read through sizes, strides and an offset."""
        return layout.strided


#: torch's Python signatures of ``Tensor.nonzero`` (``THPVariable_nonzero``)
_NONZERO_PARSER = PythonArgParser("nonzero", [
    Signature("nonzero", parse_schema(text), method=True) for text in (
        "nonzero(Tensor self) -> Tensor", "nonzero(Tensor self, *, bool as_tuple) -> Tensor")])

#: torch's Python signatures of ``Tensor.to`` (its own parser, ``THPVariable_to``); ``to``'s
#: schemas in ``native_functions.yaml`` (``to.dtype_layout`` and the rest) are not these.
_TO_PARSER = PythonArgParser("to", [Signature("to", parse_schema(text), method=True) for text in (
    "to(Tensor self, Device? device=None, ScalarType? dtype=None, bool non_blocking=False, "
    "bool copy=False, *, MemoryFormat? memory_format=None) -> Tensor",
    "to(Tensor self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None) -> Tensor",
    "to(Tensor self, Tensor tensor, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None) -> Tensor")])


def to_options(self: Tensor, target: dtype | None, where: Any, non_blocking: builtins.bool,
               copy: builtins.bool, fmt: memory_format | None, *,
               options: builtins.bool = False) -> Tensor:
    """``self`` itself when nothing would change and ``copy`` is False: same dtype, no
    device or the very same device (``"cpu:0"`` is not ``"cpu"``, so it copies), and a
    layout already in ``fmt`` (``preserve_format`` always is); else ``aten._to_copy``
    (torch's ``to_impl``). For a CPU tensor, ``conversions.to_result`` decides.

    ``options``: the conversion is torch's ``to(TensorOptions)`` (``t.to(device)``,
    ``t.cpu()``, ``type_as``, ``ToCopyBackward0``): ``_to_copy`` is given a dtype, the
    strided layout and a device, each self's where not given, as a dispatch mode sees."""
    if where is not None and not isinstance(where, device):
        where = device(where)  # a string or an int: raises for an invalid one
    given, fmt = fmt, layout.preserve_format if fmt is None else fmt
    if self._storage._device is CPU:  # chapter 4's rule (for a tensor on the CPU)
        call = conversions.to_call(None if target is None else target.name,
                                   None if where is None else str(where), copy, fmt.name)
        same, _ = conversions.to_result(self._dtype.name, self._shape, self._stride, call)
    else:
        same = ((target is None or target is self._dtype)
                and (where is None or where == self.device) and not copy
                and (fmt is layout.preserve_format or self._suggest_memory_format() is fmt))
    if same:
        return self
    # torch's ``to`` passes its ``memory_format`` on as given (None when not given)
    if options:
        return aten._to_copy.default.call(
            self, self._dtype if target is None else target, layout.strided,
            self.device if where is None else where, None, non_blocking, given)
    return aten._to_copy.default.call(self, target, None, where, None, non_blocking, given)


def _rebuild_on(storage: UntypedStorage, d: dtype, offset: int, shape: tuple[int, ...],
                stride: tuple[int, ...]) -> Tensor:
    """A new tensor on ``storage`` as torch's ``empty(0).set_(storage, offset, size,
    stride)`` makes it: a new version counter, bumped once by ``set_``."""
    t = Tensor._make(storage, shape, stride, offset, d)
    t._version_counter.value += 1
    return t


def _rebuild_tensor(data: np.ndarray | None, nbytes: int, d: dtype, where: str, offset: int,
                    shape: tuple[int, ...], stride: tuple[int, ...],
                    requires_grad: builtins.bool) -> Tensor:
    """Unpickling's half of ``Tensor.__reduce_ex__`` (torch's ``_rebuild_tensor_v2``)."""
    if data is None:  # the meta device: the layout, no bytes, no set_
        t = Tensor._make(UntypedStorage(nbytes, device=where), shape, stride, offset, d)
    else:
        t = _rebuild_on(UntypedStorage._wrap(data), d, offset, shape, stride)
    if requires_grad:
        t.requires_grad_()
    return t
