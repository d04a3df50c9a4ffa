"""Gradients arriving at tensors: accumulation into `.grad`, hooks, retain_grad.

Layer L3: numpy, the storage base and record.py's `wrap` (to make a tensor). Accumulation is
serialised by one lock, so concurrent backward() calls into one leaf lose nothing.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from .._state import state
from .base import TensorBase
from .record import wrap

if TYPE_CHECKING:
    from .tensor import Tensor

_GRAD_LOCK = threading.Lock()


def accumulate_grad(t: TensorBase, g: Any, create_graph: bool, owned: bool = False) -> None:
    """Add g (a Tensor, or an array from a plain backward) into t.grad: in place when possible (as
    PyTorch), recorded when create_graph. .grad never aliases another gradient or a user's tensor,
    and is always writable (rules may return broadcast views, which are read-only): g is copied
    unless the engine says it `owned` it alone."""
    with _GRAD_LOCK:
        current = getattr(t, "_grad", None)
        if not isinstance(g, TensorBase):
            if current is None:
                keep = owned and g.flags.writeable
                t._grad = wrap(g if keep else np.array(g, copy=True))
            elif _addable(current, g):
                np.add(current._data, g, out=current._data)
            else:
                t._grad = wrap(current._data + g)
        elif create_graph and (
            g._grad_fn is not None or current is not None and current._grad_fn is not None
        ):
            # a recorded copy: the same gradient tensor may reach several leaves (e.g. via add)
            t._grad = current + g if current is not None else cast("Tensor", g).clone()
        elif current is None:
            t._grad = wrap(np.array(g._data, copy=True))
        elif _addable(current, g._data):
            np.add(current._data, g._data, out=current._data)
        else:
            t._grad = wrap(current._data + g._data)


def _addable(current: Tensor, g: np.ndarray) -> bool:
    """Whether g can be added into current's memory (off the tape, writable, same dtype)."""
    data = current._data
    return current._grad_fn is None and data.flags.writeable and data.dtype == g.dtype


class HookHandle:
    """Returned by register_hook; `.remove()` (or the end of a `with` block) unregisters the
    hook."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        """Unregister the hook (a second call does nothing)."""
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(self, *exc: object) -> None:  # (as PyTorch's handle: `with` removes the hook)
        self.remove()


class LeafHooks(list):
    """A leaf's hooks on its gradient (called before it is accumulated), and in `.post` those
    called after (register_post_accumulate_grad_hook): one slot for both, so the engine looks
    once per leaf."""

    def __init__(self) -> None:
        super().__init__()
        self.post: list = []


def leaf_hooks(t: TensorBase) -> LeafHooks:
    """t's LeafHooks, made on first use."""
    hooks = getattr(t, "_hooks", None)
    if hooks is None:
        hooks = t._hooks = LeafHooks()
    return cast(LeafHooks, hooks)


def register_post_accumulate_grad_hook(t: TensorBase, hook: Callable) -> HookHandle:
    """Call hook(t) after each gradient is accumulated into the leaf t's .grad."""
    if not t._requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that does not require grad; "
            "set requires_grad=True first"
        )
    if t._grad_fn is not None:
        raise RuntimeError(
            "post accumulate grad hooks cannot be registered on non-leaf tensors (they run when "
            "a leaf's .grad is updated); use register_hook for this tensor's gradient"
        )
    post = leaf_hooks(t).post
    post.append(hook)
    return HookHandle(post, hook)


def register_hook(t: TensorBase, hook: Callable) -> HookHandle:
    """Call hook(grad) when t's gradient is computed; a returned tensor replaces it."""
    if not t._requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that does not require grad; "
            "set requires_grad=True (or compute it from one that does) first"
        )
    if t._grad_fn is not None:
        t._grad_fn.register_hook(hook)
        hooks = t._grad_fn.pre_hooks
        for i, h in enumerate(hooks):  # retain_grad() sees the final gradient (as PyTorch)
            if getattr(h, "_retains_grad", False):
                hooks.insert(i, hooks.pop())
                break
        return HookHandle(hooks, hook)
    hooks = leaf_hooks(t)
    hooks.append(hook)
    return HookHandle(hooks, hook)


def retain_grad(t: TensorBase) -> None:
    """Keep .grad for the non-leaf tensor t too (leaves always get it)."""
    if t._grad_fn is None:
        if not t._requires_grad:
            raise RuntimeError(
                "can't retain_grad on a tensor that does not require grad; create it with "
                "requires_grad=True (or compute it from one that does)"
            )
        return
    if getattr(t, "_retains_grad", False):
        return
    t._retains_grad = True
    ref = weakref.ref(t)  # weak: the node must not keep its own output alive (no cycle)

    def keep(grad: Tensor) -> None:
        kept = ref()
        if kept is not None:
            accumulate_grad(kept, grad, state.enabled)

    keep._retains_grad = True  # type: ignore[attr-defined]
    keep._tensor = ref  # type: ignore[attr-defined]
    t._grad_fn.register_hook(keep)


def set_history(t: TensorBase, grad_fn: Any, requires_grad: bool) -> None:
    """Give t a new history (after an in-place op); a retain_grad() moves to the new node, as in
    PyTorch: .grad is then the gradient of the updated tensor."""
    old = t._grad_fn
    if old is not None and old.out_data is not None:  # (its counter first: the node that kept
        t._version_counter()  # t as its output sees the in-place change, _version_counter)
    t._grad_fn, t._requires_grad = grad_fn, requires_grad
    if getattr(t, "_retains_grad", False) and old is not grad_fn:
        if old is not None and old.pre_hooks:
            old.pre_hooks[:] = [
                h
                for h in old.pre_hooks
                if getattr(h, "_tensor", None) is None or h._tensor() is not t
            ]
        t._retains_grad = False
        if grad_fn is not None:
            retain_grad(t)
