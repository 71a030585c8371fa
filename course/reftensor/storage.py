"""``UntypedStorage``: the flat block of bytes that every view of a tensor shares (and
``TypedStorage``, the same bytes read as elements of one dtype: ``Tensor.storage()``, which
torch keeps for old code and deprecates).

A storage knows nothing about shapes, strides or element types: it is ``nbytes()`` bytes,
numbered from 0. A tensor is a *way of reading* a storage (dtype, shape, stride, offset).
Here the bytes live in a 1-d NumPy ``uint8`` array, so ``data_ptr()`` is a real address.
A storage on the ``meta`` device has a size but no bytes at all (``data_ptr()`` is 0).
"""

from __future__ import annotations

import mmap
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .device import CPU, META, as_device, device

__all__ = ["TypedStorage", "UntypedStorage", "no_data", "not_allocated"]

_UINT8 = np.dtype(np.uint8)


class UntypedStorage:
    """A flat, untyped byte buffer (``torch.UntypedStorage``).

    ``UntypedStorage(nbytes)`` allocates ``nbytes`` zeroed bytes (torch leaves them
    uninitialised). Indexing reads or writes single bytes as ints in ``[0, 255]``.
    ``UntypedStorage(nbytes, device="meta")`` records the size and allocates nothing.

    Raises:
        NotImplementedError: reading or writing the bytes of a meta storage.
    """

    __slots__ = ("_bytes", "_nbytes", "_device", "_shared")

    def __init__(self, nbytes: int = 0, *, device: str | device | None = None) -> None:
        if nbytes < 0:
            raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
        self._device = as_device(device)
        self._nbytes = nbytes
        self._bytes = np.zeros(nbytes, dtype=np.uint8) if self._device == CPU else None
        self._shared = False

    @classmethod
    def _wrap(cls, buffer: np.ndarray) -> UntypedStorage:
        """A storage over an existing 1-d contiguous ``uint8`` array (memory is shared)."""
        if buffer.dtype != _UINT8 or buffer.ndim != 1 or not buffer.flags.c_contiguous:
            raise ValueError("UntypedStorage._wrap needs a 1-d contiguous uint8 array")
        return cls._wrap_unchecked(buffer)

    @classmethod
    def _wrap_unchecked(cls, buffer: np.ndarray) -> UntypedStorage:
        """``_wrap`` for a caller that made ``buffer`` itself (a kernel's fresh result)."""
        storage = cls.__new__(cls)
        storage._bytes = buffer
        storage._nbytes = int(buffer.shape[0])
        storage._device = CPU
        storage._shared = False
        return storage

    def resize_(self, nbytes: int) -> UntypedStorage:
        """Grow or shrink to ``nbytes`` in place, keeping the bytes that fit (new bytes are
        zero); every tensor on this storage sees the change (``UntypedStorage.resize_``)."""
        if nbytes < 0:
            raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
        if self._shared:  # (torch 2.13 crashes here: this is the error it means to give)
            raise RuntimeError("Trying to resize storage that is not resizable")
        if self._bytes is not None:
            grown = np.zeros(nbytes, dtype=np.uint8)
            keep = min(nbytes, self._nbytes)
            grown[:keep] = self._bytes[:keep]
            self._bytes = grown
        self._nbytes = nbytes
        return self

    def is_shared(self) -> bool:
        """Are the bytes in shared memory (``share_memory_``)?"""
        return self._shared

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes into shared memory, in place (``UntypedStorage.share_memory_``): an
        anonymous shared mapping, which processes forked afterwards (a ``DataLoader``'s
        workers) read and write together with this one, where an ordinary storage is copied
        on write. Every tensor on the storage sees the same values; a shared storage cannot
        be resized. Returns ``self``; nothing happens when it is shared already.

        Raises:
            RuntimeError: a meta storage ("only available on CPU").
        """
        if self._device != CPU:
            raise RuntimeError("_share_fd_: only available on CPU")
        if not self._shared:
            mapping = mmap.mmap(-1, max(self._nbytes, 1))  # MAP_SHARED | MAP_ANONYMOUS
            shared = np.frombuffer(mapping, dtype=np.uint8, count=self._nbytes)
            shared[...] = self._bytes
            self._bytes, self._shared = shared, True
        return self

    def nbytes(self) -> int:
        """Size in bytes."""
        return self._nbytes

    def size(self) -> int:
        """Size in bytes (an untyped storage counts bytes)."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        """Address of byte 0 (0 for an empty storage, as torch allocates nothing).

        Two tensors share memory when their storages' addresses match.
        """
        if self._bytes is None or self.nbytes() == 0:
            return 0
        return int(self._bytes.__array_interface__["data"][0])

    @property
    def device(self) -> device:
        """Where the bytes live: ``cpu``, or ``meta`` (nowhere)."""
        return self._device

    @property
    def is_meta(self) -> bool:
        return self._device == META

    def _cpu_bytes(self) -> np.ndarray:
        if self._bytes is None:
            if self._device.type != "meta":  # a wrapper subclass's storage (chapter 9)
                raise not_allocated()
            raise NotImplementedError(f"Not available for '{self._device}' device type")
        return self._bytes

    def __getitem__(self, i: int) -> int:
        return int(self._cpu_bytes()[i])

    def __setitem__(self, i: int, value: int) -> None:
        self._cpu_bytes()[i] = value

    def tolist(self) -> list[int]:
        """Every byte as an int."""
        return self._cpu_bytes().tolist()

    def _typed(self, np_dtype: np.dtype) -> np.ndarray:
        """The bytes read as a flat array of ``np_dtype`` elements (shares memory).

        Raises:
            NotImplementedError: a meta storage (torch: "Cannot copy out of meta tensor;
                no data!"). Every kernel reads through here, so none can run on meta.
        """
        if self._bytes is None:
            if self._device.type != "meta":  # a wrapper subclass's storage (chapter 9)
                raise not_allocated()
            raise no_data()
        usable = self._nbytes - self._nbytes % np_dtype.itemsize
        whole = self._bytes if usable == self._nbytes else self._bytes[:usable]
        return whole.view(np_dtype)

    def __repr__(self) -> str:
        head = (f"[reftensor.storage.UntypedStorage(device={self._device}) of size "
                f"{self.nbytes()}]")
        if self._bytes is None:
            return f"...\n{head}"
        body = "\n".join(f" {b}" for b in self._bytes.tolist())
        return f"{body or ' '}\n{head}"


_TYPED_STORAGE_WARNED = False


class TypedStorage:
    """A storage's bytes read as elements of one dtype (``torch.TypedStorage``, what
    ``Tensor.storage()`` returns): the whole storage, whatever part of it the tensor views.
    ``len``, ``size()``, ``s[i]`` (a Python number; negative ``i`` from the end), ``s[i] = v``,
    ``tolist()``, iteration; ``dtype``, ``device``, ``data_ptr()`` (the storage's first
    byte), ``nbytes()``, ``element_size()``, ``untyped()``, ``is_shared()``,
    ``share_memory_()``; printed as torch prints it, one element per line.

    Raises:
        IndexError: an index out of range ("index 5 out of range for storage of size 3").
        RuntimeError: a slice or a non-int index; reading a meta storage's elements
            (NotImplementedError).
    """

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype: Any) -> None:
        self._untyped_storage, self.dtype = untyped, dtype

    @classmethod
    def of_tensor(cls, untyped: UntypedStorage, dtype: Any) -> TypedStorage:
        """``Tensor.storage()``: warns, once per process as torch does, that TypedStorage is
        deprecated."""
        global _TYPED_STORAGE_WARNED
        if not _TYPED_STORAGE_WARNED:
            _TYPED_STORAGE_WARNED = True
            warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                          "UntypedStorage will be the only storage class. This should only "
                          "matter to you if you are using storages directly.  To access "
                          "UntypedStorage directly, use tensor.untyped_storage() instead of "
                          "tensor.storage()", UserWarning, stacklevel=3)
        return cls(untyped, dtype)

    def size(self) -> int:
        """How many elements of ``dtype`` the storage holds."""
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    @property
    def device(self) -> device:
        return self._untyped_storage.device

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return int(self.dtype.itemsize)

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        self._untyped_storage.share_memory_()
        return self

    def _index(self, i: Any) -> int:
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(i, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(i)}")
        n = self.size()
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return i % n

    def _elements(self) -> np.ndarray:
        elements = self._untyped_storage._typed(self.dtype.numpy)
        return elements[:self.size()]

    def _python(self, value: Any) -> Any:
        if self.dtype.name == "bool":
            return bool(value)
        return float(value) if self.dtype.is_floating_point else int(value)

    def __getitem__(self, i: Any) -> Any:
        return self._python(self._elements()[self._index(i)])

    def __setitem__(self, i: Any, value: Any) -> None:
        self._elements()[self._index(i)] = value

    def tolist(self) -> list[Any]:
        return [self._python(v) for v in self._elements()]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        info = (f"[{type(self).__module__}.{type(self).__name__}(dtype={self.dtype!r}, "
                f"device={self.device}) of size {len(self)}]")
        if self.device == META:
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info


def not_allocated() -> RuntimeError:
    """torch's error for reading the bytes of a storage that holds none on a device that
    has bytes: a wrapper subclass's (``Tensor._make_wrapper_subclass``, chapter 9)."""
    return RuntimeError(
        "The tensor has a non-zero number of elements, but its data is not allocated yet.\n"
        "If you're using torch.compile/export/fx, it is likely that we are erroneously tracing "
        "into a custom kernel. To fix this, please wrap the custom kernel into an opaque "
        "custom op. Please see the following for details: "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html\n"
        "If you're using Caffe2, Caffe2 uses a lazy allocation, so you will need to call "
        "mutable_data() or raw_mutable_data() to actually allocate memory.")


def no_data() -> NotImplementedError:
    """torch's error for reading the values of a meta tensor."""
    return NotImplementedError("Cannot copy out of meta tensor; no data!")
