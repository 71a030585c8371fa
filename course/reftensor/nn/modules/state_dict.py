"""What ``Module.state_dict`` saves and how ``load_state_dict`` checks and copies it.

A state dict maps dotted names to tensors: each module's own parameters, then its persistent
buffers (``register_buffer(..., persistent=True)``), then each child's entries under the
child's name and a dot, in registration order. Its ``_metadata`` attribute maps each module's
prefix (``""`` for the root, ``"0"``, ``"0.1"``, ...) to ``{"version": cls._version}``.

``load_state_dict`` walks the same tree. For every entry a module expects it checks the
checkpoint's value (a tensor of the same shape, where a 1-element 1-d value fills a 0-d
parameter) and copies it in place under ``no_grad``, or assigns it with ``assign=True``. With
``strict`` it lists the keys it expected and did not find (missing) and the keys under its
prefix that name nothing of it (unexpected), and raises RuntimeError with torch's text.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Iterable, Mapping
from typing import Any

from ...autograd import no_grad
from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["save_own", "load_own", "load", "incompatible_keys"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``load_state_dict``'s result: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def save_own(module: Any, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
    """Put ``module``'s own parameters and persistent buffers (not its children's) into
    ``destination``, detached unless ``keep_vars``."""
    for name, param in module._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in module._buffers.items():
        if buf is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()


def load_own(module: Any, state_dict: Mapping[str, Any], prefix: str,
             local_metadata: Mapping[str, Any], strict: bool, missing_keys: list[str],
             unexpected_keys: list[str], error_msgs: list[str]) -> None:
    """Load ``module``'s own entries from ``state_dict`` (what ``_load_from_state_dict``
    does): copy each, or record why not in ``error_msgs``; with ``strict`` record missing and
    unexpected keys under ``prefix``."""
    own = {name: value for name, value in module._parameters.items() if value is not None}
    own.update((name, value) for name, value in module._buffers.items()
               if value is not None and name not in module._non_persistent_buffers_set)
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in own.items():
        key = prefix + name
        if key not in state_dict:
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but "
                              f"received {type(value)}")
            continue
        if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
            value = value[0]  # an old checkpoint's 1-element vector fills a 0-d parameter
        if value.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{param.shape}.")
            continue
        try:
            with no_grad():
                if not assign:
                    param.copy_(value)
                else:
                    if isinstance(param, Parameter):
                        if isinstance(value, Parameter):
                            value.requires_grad_(param.requires_grad)
                        else:
                            value = Parameter(value, requires_grad=param.requires_grad)
                    setattr(module, name, value)
        except Exception as ex:  # reported with the others, as torch does
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                              f"in the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {value.size()}, an exception occurred : "
                              f"{ex.args}.")
    if strict:
        missing, unexpected = incompatible_keys(prefix, tuple(own), tuple(module._modules),
                                                state_dict.keys())
        missing_keys.extend(missing)
        unexpected_keys.extend(unexpected)


def incompatible_keys(prefix: str, own: tuple[str, ...], children: tuple[str, ...],
                      keys: Iterable[str]) -> tuple[list[str], list[str]]:
    """One module's missing and unexpected keys in a checkpoint, as torch's
    ``Module._load_from_state_dict`` lists them with ``strict`` (``load_own`` runs it for
    every module of every ``load_state_dict``; the non-strict result and the strict error
    name what it returns).

    Args:
        prefix: the module's place in the checkpoint: ``""`` for the root, else its dotted
            name and a dot (``"encoder.0."``).
        own: the names of the entries the module saves itself (its parameters that are not
            None, then its persistent buffers that are not None), in order.
        children: the names of its children (``_modules``' keys, a None child included).
        keys: the checkpoint's keys that the module is given, in order (for a child, those
            under its prefix).

    Returns:
        ``(missing, unexpected)``: lists of full keys, in torch's order. reftensor's
        modules keep no extra state (``get_extra_state``/``set_extra_state``).
    """
    # BEGIN PIECE incompatible_keys
    from reftensor.pieces import answer  # the student edition: your answer runs here

    return answer("incompatible_keys")(prefix, own, children, keys)
    # END PIECE


def load(root: Any, state_dict: Mapping[str, Any], strict: bool = True,
         assign: bool = False) -> _IncompatibleKeys:
    """``root.load_state_dict(state_dict, strict, assign)``: every module of the tree loads
    its own entries (its ``_load_from_state_dict``), parents before children, each child
    seeing only the keys under its prefix; then the load-state-dict post hooks run.

    Raises:
        TypeError: ``state_dict`` is not a mapping.
        RuntimeError: with ``strict``, missing or unexpected keys; any size mismatch or
            failed copy (all of them listed in one message).
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)

    def visit(module: Any, entries: Mapping[str, Any], prefix: str) -> None:
        local = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local["assign_to_params_buffers"] = True
        module._load_from_state_dict(entries, prefix, local, True, missing, unexpected,
                                     errors)
        for name, child in [(n, c) for n, c in module._modules.items() if c is not None]:
            child_prefix = f"{prefix}{name}."
            visit(child, {k: v for k, v in entries.items() if k.startswith(child_prefix)},
                  child_prefix)
        found = _IncompatibleKeys(missing, unexpected)
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, found) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace.")

    visit(root, OrderedDict(state_dict), "")
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          f"{', '.join(repr_key(k) for k in unexpected)}. ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          f"{', '.join(repr_key(k) for k in missing)}. ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(root).__name__}:\n\t"
                           + "\n\t".join(errors))
    return _IncompatibleKeys(missing, unexpected)


def repr_key(key: str) -> str:
    """A key as torch's message quotes it: in double quotes, nothing escaped."""
    return f'"{key}"'
