"""The op table and the dispatcher: the layer under every chapter (chapter 9 explains it).

* ``schema.py``: torch's schema strings, parsed;
* ``python_arg_parser.py``: a Python call bound to a schema, with torch's rules and errors;
* ``dispatch_keys.py``: dispatch keys, the key set of a call, the key whose kernel runs;
* ``dispatcher.py``: ops and their kernels registered by key, dispatch and redispatch;
* ``python_key.py``: the ``Python`` key's kernel, which hands a call to a dispatch mode;
* ``state.py``: grad mode, inference mode and the dispatch-mode stack;
* ``native_functions.py``: the table itself (``aten``);
* ``namespaces.py``: the other namespaces of ``reftensor.ops``, where ``reftensor.library``
  defines ops;
* ``generate.py``: writes ``reftensor/_bindings.py``, the functions and Tensor methods.
"""

from .dispatcher import DispatchKey, OpOverload
from .native_functions import NATIVE_FUNCTIONS, aten
from .packet import OpOverloadPacket
from .state import state
from .tensor_type import TensorType

__all__ = ["DispatchKey", "NATIVE_FUNCTIONS", "OpOverload", "OpOverloadPacket", "TensorType",
           "aten", "state"]
