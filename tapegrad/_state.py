"""Thread-local state: grad mode (no_grad, enable_grad, set_grad_enabled), inference mode,
anomaly mode, the modules being run (for drawings), and how deep functional differentiation is
nested.

Layer L0: standard library only. Every flag lives on one threading.local, so a `no_grad` in one
thread never changes what another thread records.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


# How many (thread, flag) pairs are away from the defaults (grad mode on, anomaly off, no custom
# backward recorded, no vmap running), over all threads. While it is 0 the hot path can say so
# without the (slower) thread-local lookup.
overrides = [0]
_overrides_lock = threading.Lock()

# One entry per thread running an nn.Module's call, kept apart from `overrides` so that the ops of
# a model, which all run inside one, look up only the module scope and not the other flags (4
# thread-local lookups an op -> 1). A list, not a count: append and pop are atomic, no lock.
# nn.Module's _call_forward keeps it and `scope` below.
modules_running: list = []


def _count(change: int) -> None:
    with _overrides_lock:
        overrides[0] += change


class _ThreadState(threading.local):
    # The hot path reads `_enabled` / `_anomaly` directly (a property call costs more than the op
    # it guards); they are only ever set through the properties, which keep `overrides` right.
    _enabled = True  # record ops on the tape: grad mode on, and not in inference mode
    _grad_mode = True  # grad mode, as is_grad_enabled() reports it
    _inference = False  # inference_mode(): nothing records, even where grad mode is on
    _anomaly = False  # detect_anomaly(): capture stacks, check backward for NaN/Inf
    diff_depth = 0  # how many functional differentiations (tg.grad, ...) are running
    scope: tuple = ()  # the nn.Modules whose __call__ is running, outermost first
    strict_backward = ""  # while a custom Function's backward is recorded: the Function's name
    vmap_levels: tuple = ()  # the running vmaps' levels, innermost last (tapegrad/func/vmap.py)
    raw_backward = False  # a backward without create_graph is running (its rules see arrays)

    @property
    def enabled(self) -> bool:
        """Grad mode (what is_grad_enabled() says); setting it also decides whether ops record."""
        return self._grad_mode

    @enabled.setter
    def enabled(self, flag: bool) -> None:
        self._grad_mode = bool(flag)
        self._update_recording()

    @property
    def inference(self) -> bool:
        return self._inference

    @inference.setter
    def inference(self, flag: bool) -> None:
        self._inference = bool(flag)
        self._update_recording()

    def _update_recording(self) -> None:
        # a functional transform (tg.grad, ...) differentiates even in inference mode, as
        # torch.func does: it raises diff_depth before it turns grad mode on
        record = self._grad_mode and (not self._inference or self.diff_depth > 0)
        if record != self._enabled:
            _count(-1 if record else 1)
            self._enabled = record

    @property
    def anomaly(self) -> bool:
        return self._anomaly

    @anomaly.setter
    def anomaly(self, flag: bool) -> None:
        flag = bool(flag)
        if flag != self._anomaly:
            _count(1 if flag else -1)
            self._anomaly = flag


state = _ThreadState()


def is_grad_enabled() -> bool:
    """True when ops run now are recorded on the tape (thread-local)."""
    return state.enabled


class _GradModeContext:
    """Base of the grad-mode switches: a context manager that is also a decorator."""

    _target: bool

    def __new__(cls, *args: Any) -> Any:
        # `@tg.no_grad` without parentheses decorates directly (as PyTorch 2 allows)
        if len(args) == 1 and callable(args[0]) and cls is not set_grad_enabled:
            return cls()(args[0])
        return super().__new__(cls)

    def __init__(self) -> None:
        self._saved: list[bool] = []

    def __enter__(self) -> None:
        self._saved.append(state.enabled)
        state.enabled = self._target

    def __exit__(self, *exc: Any) -> None:
        state.enabled = self._saved.pop()

    def _fresh(self) -> "_GradModeContext":
        return type(self)()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._fresh():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeContext):
    """Context manager / decorator: ops run inside are not recorded. `with tg.no_grad(): ...`"""

    _target = False


class enable_grad(_GradModeContext):
    """Context manager / decorator: turn recording back on inside a `no_grad` block."""

    _target = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode now (`tg.set_grad_enabled(False)`), or for a `with` block or a function."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._target = bool(mode)
        self._prev = state.enabled
        state.enabled = self._target  # takes effect at once, as in PyTorch

    def __enter__(self) -> None:
        self._saved.append(self._prev)
        state.enabled = self._target

    def _fresh(self) -> "_GradModeContext":
        return set_grad_enabled(self._target)

    def __call__(self, fn: F) -> F:
        state.enabled = (
            self._prev
        )  # used as a decorator: the constructor must not leave it switched
        return super().__call__(fn)


def is_inference_mode_enabled() -> bool:
    """True inside `tg.inference_mode()` (thread-local).

    >>> with tg.inference_mode(): tg.is_inference_mode_enabled()
    True
    """
    return state.inference


class inference_mode(_GradModeContext):
    """Context manager / decorator: no op records, even under enable_grad, as with PyTorch's
    inference_mode; `inference_mode(False)` turns it off again inside (and grad mode on).

    A subset of PyTorch's behaviour: tensors made inside are ordinary tensors that did not record
    (PyTorch's "inference tensors" also refuse to be saved for backward later).

    >>> with tg.inference_mode():
    ...     y = model(x)          # nothing recorded
    """

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._saved_modes: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._saved_modes.append((state.enabled, state.inference))
        state.inference = self.mode
        state.enabled = not self.mode  # (PyTorch's guard sets grad mode to the opposite)

    def __exit__(self, *exc: Any) -> None:
        grad_mode, inference = self._saved_modes.pop()
        state.inference = inference
        state.enabled = grad_mode

    def _fresh(self) -> "_GradModeContext":
        return inference_mode(self.mode)


def push_vmap_level(level: Any) -> None:
    """A vmap starts (innermost of those running): ops on its batched tensors now go through the
    batching rules (tensor/batched.py)."""
    if not state.vmap_levels:
        _count(1)
    state.vmap_levels = state.vmap_levels + (level,)


def pop_vmap_level() -> None:
    """The innermost vmap ends."""
    state.vmap_levels = state.vmap_levels[:-1]
    if not state.vmap_levels:
        _count(-1)


class strict_backward:
    """Context manager around a custom Function's backward recorded under create_graph: taking
    a tensor on the tape off it there (.numpy(), .item(), .data) would drop a derivative without a
    trace, so it raises instead (see Tensor.numpy)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._previous = ""

    def __enter__(self) -> None:
        self._previous = state.strict_backward
        if not self._previous:
            _count(1)
        state.strict_backward = self.name

    def __exit__(self, *exc: Any) -> None:
        state.strict_backward = self._previous
        if not self._previous:
            _count(-1)
