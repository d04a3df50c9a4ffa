"""nn.Module's hooks, as PyTorch defines them: forward pre-hooks and forward hooks, full backward
hooks and backward pre-hooks, and the handles that remove them.

Layer L5: imports tensor/grad.py's HookHandle and nn/backward_hooks.py. A module's hooks live in
one ModuleHooks made at its first registration; `module._hooked` says whether it holds any, so
Module.__call__ reads one attribute and comes here only when there is something to run.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

from ..tensor.grad import HookHandle
from .backward_hooks import BackwardHook

if TYPE_CHECKING:
    from .module import Module

_ids = itertools.count()  # (next() on a count is atomic in CPython: threads get distinct ids)


class ModuleHooks:
    """A module's hooks by handle id, each registry in calling order."""

    __slots__ = (
        "forward_pre",
        "forward",
        "backward",
        "backward_pre",
        "with_kwargs",
        "always",
        "state_dict_pre",
        "load_post",
    )

    def __init__(self) -> None:
        self.forward_pre: OrderedDict[int, Callable] = OrderedDict()
        self.forward: OrderedDict[int, Callable] = OrderedDict()
        self.backward: OrderedDict[int, Callable] = OrderedDict()
        self.backward_pre: OrderedDict[int, Callable] = OrderedDict()
        self.with_kwargs: set[int] = set()  # forward (pre-)hooks that are given kwargs too
        self.always: set[int] = set()  # forward hooks that run even when forward raises
        # checkpoint hooks (module_state.py runs them; a module's call does not)
        self.state_dict_pre: OrderedDict[int, Callable] = OrderedDict()
        self.load_post: OrderedDict[int, Callable] = OrderedDict()

    def any(self) -> bool:
        """Whether there is a hook for a call of the module to run."""
        return bool(self.forward_pre or self.forward or self.backward or self.backward_pre)


class RemovableHandle(HookHandle):
    """Returned by a Module's register_*_hook: `.remove()` (or the end of a `with` block) removes
    the hook.

    >>> h = tg.nn.Linear(2, 1).register_forward_hook(lambda m, args, out: None); h.remove()
    """

    def __init__(self, module: Module, registry: OrderedDict) -> None:
        self.id = next(_ids)
        self._module = weakref.ref(module)  # (a handle must not keep its module alive)
        self._registry = registry

    def remove(self) -> None:
        """Remove the hook (a second call does nothing)."""
        self._registry.pop(self.id, None)
        module = self._module()
        hooks = module.__dict__.get("_hooks") if module is not None else None
        if module is not None and hooks is not None:
            hooks.with_kwargs.discard(self.id)
            hooks.always.discard(self.id)
            object.__setattr__(module, "_hooked", hooks.any())


def hooks_of(module: Module) -> ModuleHooks:
    """The module's ModuleHooks, made at the first registration."""
    hooks = module.__dict__.get("_hooks")
    if hooks is None:
        hooks = ModuleHooks()
        object.__setattr__(module, "_hooks", hooks)
    return hooks


def register(module: Module, registry: OrderedDict, hook: Any, prepend: bool) -> RemovableHandle:
    """Add `hook` to one of the module's registries; the handle removes it."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(module, registry)
    registry[handle.id] = hook
    if prepend:
        registry.move_to_end(handle.id, last=False)
    object.__setattr__(module, "_hooked", hooks_of(module).any())
    return handle


class HooksMixin:
    """Module's register_*_hook methods (Module inherits them)."""

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call hook(module, args) before forward (hook(module, args, kwargs) with with_kwargs);
        a returned value replaces args (a non-tuple is wrapped in one), or (args, kwargs).

        >>> h = tg.nn.ReLU().register_forward_pre_hook(lambda m, args: (-args[0],))
        """
        module: Module = self  # type: ignore[assignment]
        hooks = hooks_of(module)
        handle = register(module, hooks.forward_pre, hook, prepend)
        if with_kwargs:
            hooks.with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call hook(module, args, output) after forward (hook(module, args, kwargs, output) with
        with_kwargs); a returned value replaces the output. always_call: run it even if forward
        raises.

        >>> h = tg.nn.ReLU().register_forward_hook(lambda m, args, out: out * 2)
        """
        module: Module = self  # type: ignore[assignment]
        hooks = hooks_of(module)
        handle = register(module, hooks.forward, hook, prepend)
        if with_kwargs:
            hooks.with_kwargs.add(handle.id)
        if always_call:
            hooks.always.add(handle.id)
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call hook(module, grad_output) when the gradients of the module's outputs are known; a
        returned tuple replaces grad_output.

        >>> h = tg.nn.Tanh().register_full_backward_pre_hook(lambda m, g_out: None)
        """
        module: Module = self  # type: ignore[assignment]
        return register(module, hooks_of(module).backward_pre, hook, prepend)

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call hook(module, grad_input, grad_output) when the gradients of the module's positional
        inputs are known (None for non-tensors); a returned tuple replaces grad_input.

        >>> h = tg.nn.Tanh().register_full_backward_hook(lambda m, g_in, g_out: None)
        """
        module: Module = self  # type: ignore[assignment]
        return register(module, hooks_of(module).backward, hook, prepend)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated (as in PyTorch): runs as register_full_backward_hook, with a warning.

        >>> h = tg.nn.Tanh().register_backward_hook(lambda m, g_in, g_out: None)  # doctest: +SKIP
        """
        warnings.warn(
            "register_backward_hook is deprecated; tapegrad runs the hook as "
            "register_full_backward_hook does: grad_input holds the gradients of the module's "
            "inputs (PyTorch's deprecated hook gets those of the last operation inside the "
            "module instead). Use register_full_backward_hook.",
            FutureWarning,
            stacklevel=2,
        )
        return self.register_full_backward_hook(hook)


def call_with_hooks(
    module: Module, args: tuple, kwargs: dict, forward: Callable[[tuple, dict], Any]
) -> Any:
    """module(*args, **kwargs) with its hooks, in PyTorch's order: forward pre-hooks, forward (its
    inputs and output through the backward hooks' identities), forward hooks; always_call hooks
    not yet run run if anything raised, and the error goes on."""
    hooks: ModuleHooks = module.__dict__.get("_hooks") or ModuleHooks()
    result = None
    called: set[int] = set()
    try:
        for key, pre_hook in list(hooks.forward_pre.items()):
            if key in hooks.with_kwargs:
                replaced = pre_hook(module, args, kwargs)
                if replaced is not None:
                    if not (isinstance(replaced, tuple) and len(replaced) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {replaced}."
                        )
                    args, kwargs = replaced
            else:
                replaced = pre_hook(module, args)
                if replaced is not None:
                    args = replaced if isinstance(replaced, tuple) else (replaced,)
        backward = None
        if hooks.backward or hooks.backward_pre:
            backward = BackwardHook(
                module, list(hooks.backward.values()), list(hooks.backward_pre.values())
            )
            args = backward.setup_inputs(args)
        result = forward(args, kwargs)
        for key, hook in list(hooks.forward.items()):
            if key in hooks.always:
                called.add(key)
            out = _call_forward_hook(hook, key in hooks.with_kwargs, module, args, kwargs, result)
            if out is not None:
                result = out
        if backward is not None:
            result = backward.setup_outputs(result)
        return result
    except Exception:
        for key, hook in list(hooks.forward.items()):
            if key not in hooks.always or key in called:
                continue
            try:
                out = _call_forward_hook(
                    hook, key in hooks.with_kwargs, module, args, kwargs, result
                )
                if out is not None:
                    result = out
            except Exception as e:  # (the forward's error is the one raised)
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that was "
                    f"silenced as another error was raised in forward: {e}",
                    UserWarning,
                    stacklevel=2,
                )
        raise


def _call_forward_hook(
    hook: Callable, with_kwargs: bool, module: Module, args: tuple, kwargs: dict, result: Any
) -> Any:
    return hook(module, args, kwargs, result) if with_kwargs else hook(module, args, result)
