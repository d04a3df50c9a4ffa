"""A Module's checkpoints: state_dict, load_state_dict, and the extra state a subclass may keep
under PyTorch's `_extra_state` key (get_extra_state / set_extra_state).

Layer L5: imports tensor.py and _state's no_grad. Keys are dotted paths (`fc.weight`), in
PyTorch's order: per module (parents first) its parameters, persistent buffers, extra state.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, cast

import numpy as np

from .._state import no_grad
from ..tensor import Tensor
from .hooks import RemovableHandle, hooks_of, register
from .parameter import UninitializedTensorMixin

if TYPE_CHECKING:
    from .module import Module

EXTRA_STATE = "_extra_state"


class LoadResult(NamedTuple):
    """What load_state_dict(strict=False) could not match (as PyTorch's _IncompatibleKeys)."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:  # (PyTorch's wording, so printed results read the same)
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        missing, unexpected = self.missing_keys, self.unexpected_keys
        return f"_IncompatibleKeys(missing_keys={missing}, unexpected_keys={unexpected})"


def state_items(module: Module) -> Iterator[tuple[str, Tensor]]:
    """The tensors a checkpoint holds, in PyTorch's state_dict order: for each module (parents
    first), its parameters, then its persistent buffers. Shared tensors appear under every name."""
    for mod_prefix, sub in module.named_modules(remove_duplicate=False):
        dot = f"{mod_prefix}." if mod_prefix else ""
        for name, t in state_items_of_one(sub):
            yield dot + name, t


def _overrides(module: Module, method: str) -> bool:
    """Whether the module's class defines its own get_/set_extra_state."""
    return getattr(type(module), method) is not getattr(CheckpointMixin, method)


class CheckpointMixin:
    """Module's checkpoint methods (Module inherits them)."""

    def get_extra_state(self) -> Any:
        """Override (with set_extra_state) to save more than tensors: state_dict() stores what it
        returns under `<prefix>_extra_state`.

        >>> class Counter(tg.nn.Module):
        ...     def get_extra_state(self): return {"calls": 3}
        ...     def set_extra_state(self, state): self.calls = state["calls"]
        """
        raise RuntimeError(
            f"{type(self).__name__}.get_extra_state is not defined; a Module subclass that keeps "
            f"extra state defines get_extra_state and set_extra_state"
        )

    def set_extra_state(self, state: Any) -> None:
        """Override (with get_extra_state): load_state_dict() hands it `<prefix>_extra_state`."""
        raise RuntimeError(
            f"{type(self).__name__}.set_extra_state is not defined; a Module subclass that keeps "
            f"extra state defines get_extra_state and set_extra_state"
        )

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call hook(module, prefix, keep_vars) before state_dict() reads this module (prefix
        as "fc." for a sub-module, keep_vars False).

        >>> h = tg.nn.Linear(2, 1).register_state_dict_pre_hook(lambda m, prefix, kv: None)
        """
        module = cast("Module", self)
        return register(module, hooks_of(module).state_dict_pre, hook, False)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call hook(module, incompatible_keys) after load_state_dict() loaded this module; the
        hook may empty incompatible_keys' lists in place (before strict checks them).

        >>> h = tg.nn.Linear(2, 1).register_load_state_dict_post_hook(lambda m, keys: None)
        """
        module = cast("Module", self)
        return register(module, hooks_of(module).load_post, hook, False)

    def state_dict(self) -> OrderedDict[str, Any]:
        """{dotted name: tensor} of copies, so a saved state does not change as training goes on
        (and what get_extra_state returns, for modules that define it).

        >>> list(tg.nn.Linear(2, 1).state_dict())
        ['weight', 'bias']
        """
        module = cast("Module", self)
        out: OrderedDict[str, Any] = OrderedDict()
        for mod_prefix, sub in module.named_modules(remove_duplicate=False):
            dot = f"{mod_prefix}." if mod_prefix else ""
            for hook in _checkpoint_hooks(sub, "state_dict_pre"):
                hook(sub, dot, False)
            for name, t in state_items_of_one(sub):  # (a lazy layer's uninitialized tensors
                # are saved as they are, as PyTorch's)
                out[dot + name] = (
                    t if isinstance(t, UninitializedTensorMixin) else Tensor(t.numpy())
                )
            if _overrides(sub, "get_extra_state"):
                out[dot + EXTRA_STATE] = sub.get_extra_state()
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> LoadResult:
        """Copy values into the parameters and buffers; strict=True: the keys must match exactly.

        >>> net = tg.nn.Linear(2, 1); net.load_state_dict(net.state_dict())
        <All keys matched successfully>
        """
        module = cast("Module", self)
        if not hasattr(state_dict, "keys"):
            raise TypeError(
                f"load_state_dict expects a dict {{name: tensor}} (as returned by "
                f"state_dict()), got {type(state_dict).__name__}"
            )
        own = OrderedDict(state_items(module))
        extra = {
            (f"{prefix}." if prefix else "") + EXTRA_STATE: sub
            for prefix, sub in module.named_modules(remove_duplicate=False)
            if _overrides(sub, "set_extra_state")
        }
        missing = [k for k in [*own, *extra] if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own and k not in extra]
        name = type(module).__name__
        post_hooks = [
            (sub, hook)
            for _, sub in reversed(list(module.named_modules(remove_duplicate=False)))
            for hook in _checkpoint_hooks(sub, "load_post")
        ]  # (children before parents, as PyTorch runs them)
        if strict and (missing or unexpected) and not post_hooks:
            _refuse(name, missing, unexpected)  # before anything changes
        values = {}
        for key, p in own.items():  # check every shape before changing anything
            if key not in state_dict:
                continue
            value = state_dict[key]
            if isinstance(value, UninitializedTensorMixin):  # (saved before a first call)
                continue
            arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
            if isinstance(p, UninitializedTensorMixin):  # a lazy layer takes the saved shape
                p.materialize(arr.shape)
            if arr.shape != p.shape:
                raise RuntimeError(
                    f"error loading state_dict into {name}: size mismatch for {key}: the "
                    f"checkpoint has shape {arr.shape}, the model has shape {p.shape}; build the "
                    f"model with the layer sizes the checkpoint was saved from"
                )
            values[key] = arr
        for key, arr in values.items():
            with no_grad():  # copy_ bumps the version: stale graphs are detected
                own[key].copy_(arr.astype(own[key].dtype))
        for key, sub in extra.items():
            if key in state_dict:
                sub.set_extra_state(state_dict[key])
        result = LoadResult(missing, unexpected)
        for sub, hook in post_hooks:
            if hook(sub, result) is not None:
                raise RuntimeError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, it "
                    "should be done inplace."
                )
        if strict and (missing or unexpected):  # (what the post-hooks left)
            _refuse(name, missing, unexpected)
        return result


def _refuse(name: str, missing: list, unexpected: list) -> None:
    raise RuntimeError(
        f"error loading state_dict into {name}: missing keys {missing}, unexpected keys "
        f"{unexpected}; the checkpoint must come from the same architecture (or pass "
        f"strict=False to load only the matching keys)"
    )


def _checkpoint_hooks(module: Module, kind: str) -> list[Callable]:
    """The module's state_dict pre-hooks or load_state_dict post-hooks (none: no ModuleHooks)."""
    hooks = module.__dict__.get("_hooks")
    return list(getattr(hooks, kind).values()) if hooks is not None else []


def state_items_of_one(module: Module) -> Iterator[tuple[str, Tensor]]:
    """One module's own parameters, then its persistent buffers (not its sub-modules')."""
    for name, p in module._parameters.items():
        if p is not None:
            yield name, p
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            yield name, b
