"""reftensor: PyTorch's strided tensor, written to be read.

The same names and semantics as torch (``reftensor.tensor``, ``Tensor.stride()``,
``reftensor.channels_last``, ...), so one program runs on both libraries. Built on NumPy;
torch is never imported.
"""

from . import dtypes, layout

__version__ = "0.1.0"

# The Tensor first: its module imports every chapter's module, then autograd (chapter 5).
from .tensor import Tensor  # noqa: E402

# isort: split
# A chapter module named as an op (``matmul.py``, ``cholesky.py``, ``qr.py``,
# ``convolution.py``) is imported
# before the bindings, so that ``reftensor.matmul`` is the op's function, not the module.
from . import cholesky as _cholesky_module  # noqa: E402, F401
from . import convolution as _convolution_module  # noqa: E402, F401  (chapter 10)
from . import matmul as _matmul_module  # noqa: E402, F401
from . import qr as _qr_module  # noqa: E402, F401

# isort: split
# The ops of the op table (reftensor/_ops): functions generated from it.
from . import _bindings  # noqa: E402
from ._bindings import *  # noqa: E402, F403

# isort: split
# Chapters 2 to 4: the modules that hold the op table's kernels register them when imported;
# a few list public functions of their own in ``__all__`` (torch's Python functions, such
# as ``broadcast_shapes`` and ``split``).
from . import (  # noqa: F401
    arithmetic,
    broadcasting,
    closeness,
    comparison,
    copies,
    distance,
    eigh,
    elementwise,
    functional,
    gather_scatter,
    histograms,
    indexing,
    linalg,
    linalg_svd,
    masked,
    matmul,
    pointwise,
    promotion,
    reductions,
    scans,
    sorted_search,
    sorting,
    unary,
    views,
)
from .broadcasting import *  # noqa: F403
from .device import device
from .dtype_info import finfo, iinfo
from .dtypes import (
    bfloat16,
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from .factories import (
    as_tensor,
    from_numpy,
    tensor,
)
from .functional import *  # noqa: F403
from .layout import (
    channels_last,
    contiguous_format,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from .masked import *  # noqa: F403  (nonzero: torch's hand-written binding)
from .promotion import *  # noqa: F403
from .size import Size
from .sorting import unique, unique_consecutive
from .storage import TypedStorage, UntypedStorage
from .views import *  # noqa: F403

# Chapter 8: the samplers register their kernels (``reftensor.random`` is ``torch.random``).
# isort: split
from . import random as random  # noqa: E402

# isort: split
from . import out_arguments  # noqa: E402

out_arguments.register_all()  # the kernels of every out= overload

# Chapter 5: the differentiable versions of the ops above replace them (same names, same
# kernels, plus a node of the backward graph when an input requires grad).
# isort: split
from . import autograd  # noqa: E402
from .autograd import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.functions import *  # noqa: E402, F403

# isort: split
# Chapter 4's guards for a CPU-only build: ``torch.cuda``, ``torch.backends``,
# ``torch.accelerator``.
# isort: split
from . import accelerator, backends, cuda  # noqa: E402, F401

# The op table's differentiable ops get their Autograd kernels from the derivatives table.
from .autograd import variable_type  # noqa: E402, F401

# Chapter 6: modules and optimizers. Chapter 8: random number generation (the samplers and
# the random factories, ``rand``, ``normal``, ..., are the op table's; here the generators).
# isort: split
from . import (  # noqa: E402, F401
    activation,
    gelu,
    log_sigmoid,
    lookup,
    loss,
    nn,
    normalization,
    optim,
    trilinear,
)

# isort: split
from . import special_functions  # noqa: E402, F401  (erfinv: chapter 6)

# Chapter 10, the capstone (issue 45): padding, sliding windows and pooling.
# isort: split
from . import folding, padding, pooling  # noqa: E402, F401
from .random.generator import (  # noqa: E402
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

# Chapter 7's data loading reaches chapter 8's generator through ``utils._generator`` (it may
# not import chapter 8): a fresh ``Generator`` for ``RandomSampler``, ``manual_seed`` for the
# DataLoader's workers. ``reftensor.utils.data`` itself is imported on demand.
# isort: split
from . import utils  # noqa: E402

utils._generator.provide(Generator, manual_seed)

# Chapter 9: ``reftensor.ops.aten`` (``torch.ops.aten``), the op table by name and overload,
# ``reftensor.library`` (``torch.library``) to define ops of your own in other namespaces, and
# ``__torch_function__`` on Tensor subclasses (``torch.overrides``, ``torch._C``).
from . import _C, library, ops, overrides  # noqa: E402, F401


def is_tensor(obj: object) -> "builtins.bool":  # noqa: F821, F405
    """True for a ``reftensor.Tensor`` (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> "builtins.int":  # noqa: F821, F405
    """Number of elements of ``input`` (``torch.numel``)."""
    return input.numel()


__all__ = [
    "autograd", "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
    "no_grad", "set_grad_enabled",
    "Size", "Tensor", "TypedStorage", "UntypedStorage", "as_tensor", "bfloat16",
    "bool", "channels_last", "contiguous_format", "device", "double", "dtype", "dtypes",
    "float", "float16", "float32", "float64", "from_numpy",
    "get_default_dtype", "half", "int", "int8", "int16", "int32", "int64", "is_tensor",
    "layout", "long", "memory_format", "numel", "preserve_format", "strided", "sparse_coo",
    "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
    "Generator", "default_generator", "get_rng_state", "initial_seed",
    "manual_seed", "nn", "optim", "random", "seed", "set_rng_state", "utils",
    "promote_types", "set_default_dtype", "short", "tensor", "uint8", "finfo", "iinfo",
    "linalg", "unique", "unique_consecutive",
    *_bindings.__all__,
    *broadcasting.__all__, *functional.__all__, *masked.__all__, *promotion.__all__,
    *views.__all__,
]
