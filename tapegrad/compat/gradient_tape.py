"""TensorFlow's GradientTape for users coming from TF (seed 003), as a view of tapegrad's one tape.

Layer L5: builds on tg.autograd.grad, tg.stack and no_grad. The tape object records nothing
itself: every op already records on the global tape when an input requires grad; the context only
turns grad mode on and tells nested differentiations (tg.grad, another tape) to keep their results
on the tape.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

from .._utils import tree_leaves, tree_map
from ..autograd.functions import grad as _tape_grad
from .._state import no_grad, state
from ..math import stack
from ..tensor import Tensor


class GradientTape:
    """Record inside `with`, then `tape.gradient(target, sources)`; one use unless persistent=True.

    >>> x = tg.tensor(3.0)
    >>> with tg.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> tape.gradient(y, x)
    tensor(6.)
    """

    def __init__(self, persistent: bool = False) -> None:
        self.persistent = bool(persistent)
        self._used = False
        self._active = False
        self._watched: list = []
        self._saved_mode = True

    def __enter__(self) -> "GradientTape":
        self._saved_mode = state.enabled
        state.enabled = True  # TF's tape records whatever the surrounding grad mode
        state.diff_depth += 1  # a tg.grad / inner tape used inside keeps its result on the tape
        self._active = True
        return self

    def __exit__(self, *exc: Any) -> None:
        state.diff_depth -= 1
        state.enabled = self._saved_mode
        self._active = False

    def watch(self, tensor: Any) -> None:
        """Track a tensor (or nested tuples/lists of them) that does not require grad yet.

        Unlike TF, this marks the tensor itself (`requires_grad` becomes True and stays so):
        tapegrad records the ops applied to tensors that require grad. Parameters need no watch.
        """
        for t in tree_leaves(tensor):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"watch() takes tapegrad Tensors, got {type(t).__name__}; "
                    f"wrap the value with tg.tensor(...) first"
                )
            if not t.requires_grad:
                t.requires_grad_(True)
            self._watched.append(t)

    def watched_variables(self) -> tuple:
        """The tensors passed to watch(), in order."""
        return tuple(self._watched)

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: str = "none",
    ) -> Any:
        """d(target)/d(sources), shaped like `sources`; a source the target doesn't reach gets None.

        `target` may be a tensor or a list of them (their gradients are summed); `output_gradients`
        seeds each target (ones by default); `unconnected_gradients="zero"` gives zeros, not None.
        """
        self._check_can_use(unconnected_gradients)
        targets = tree_leaves(target)
        for t in targets:
            _check_target(t)
        seeds = (
            tree_leaves(output_gradients)
            if output_gradients is not None
            else [Tensor(np.ones(t.shape, t.dtype)) for t in targets]
        )
        if len(seeds) != len(targets):
            raise ValueError(
                f"output_gradients has {len(seeds)} tensors but target has "
                f"{len(targets)}; give one per target"
            )
        srcs = _source_leaves(sources)
        self._used = True
        create = self._create_graph()
        live = [(t, g) for t, g in zip(targets, seeds) if t.requires_grad]
        reachable = [s for s in srcs if s.requires_grad]  # TF: an unwatched constant gets None
        found: dict = {}
        if live and reachable:
            outs, gs = zip(*live)
            grads = _tape_grad(
                outs,
                reachable,
                gs,
                retain_graph=self.persistent or create,
                create_graph=create,
                allow_unused=True,
            )
            found = {id(s): g for s, g in zip(reachable, grads)}

        def result(s: Tensor) -> Any:
            g = found.get(id(s))
            if g is None and unconnected_gradients == "zero":
                g = Tensor(np.zeros(s.shape, s.dtype))
            return g

        return tree_map(result, sources)

    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: str = "none",
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d(target)/d(source) for each source, of shape target.shape + source.shape, shaped like
        `sources` (TensorFlow's); a source the target does not reach gets None (or zeros).

        >>> x = tg.tensor([1.0, 2.0])
        >>> with tg.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x)
        tensor([[2., 0.],
                [0., 4.]])
        """
        self._check_can_use(unconnected_gradients)
        _check_target(target)
        srcs = _source_leaves(sources)
        self._used = True
        create = self._create_graph()
        reachable = [s for s in srcs if s.requires_grad] if target.requires_grad else []
        rows: list = []  # rows[k][j]: d target.flat[k] / d reachable[j], or None
        for k in range(target.size if reachable else 0):
            seed = np.zeros(target.size, target.dtype)
            seed[k] = 1
            rows.append(
                _tape_grad(
                    [target],
                    reachable,
                    [Tensor(seed.reshape(target.shape))],
                    retain_graph=True,
                    create_graph=create,
                    allow_unused=True,
                )
            )
        found = {}
        for j, s in enumerate(reachable):
            if rows and any(r[j] is not None for r in rows):
                zero = Tensor(np.zeros(s.shape, s.dtype))
                per_row = [zero if r[j] is None else r[j] for r in rows]
                found[id(s)] = stack(per_row).reshape(target.shape + s.shape)
            elif not rows and target.size == 0:
                found[id(s)] = Tensor(np.zeros(target.shape + s.shape, s.dtype))

        def result(s: Tensor) -> Any:
            jac = found.get(id(s))
            if jac is None and unconnected_gradients == "zero":
                jac = Tensor(np.zeros(target.shape + s.shape, s.dtype))
            return jac

        return tree_map(result, sources)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """A context inside the tape's `with` block in which nothing is recorded (TensorFlow's):
        results computed there are constants to gradient() and jacobian().

        >>> x = tg.tensor(4.0)
        >>> with tg.GradientTape() as tape:
        ...     tape.watch(x)
        ...     with tape.stop_recording():
        ...         y = x ** 2
        >>> tape.gradient(y, x) is None
        True
        """
        if not self._active:
            raise RuntimeError(
                "stop_recording() pauses a tape that is recording: use it inside the tape's "
                "`with tg.GradientTape() as tape:` block"
            )
        with no_grad():
            yield

    def _check_can_use(self, unconnected_gradients: str) -> None:
        if self._used and not self.persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients "
                "(or jacobians): its graph was freed by the first call. Create it with "
                "tg.GradientTape(persistent=True) to call gradient()/jacobian() several times."
            )
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(
                f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}"
            )

    def _create_graph(self) -> bool:
        # Keep the result on the tape when something outside (another tape, tg.grad) differentiates
        # it; our own open context does not count.
        return state.diff_depth - (1 if self._active else 0) > 0 and state.enabled


def _check_target(t: Any) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(
            f"target is a {type(t).__name__}, not a tapegrad Tensor: its value left the tape "
            f"(through .numpy(), .item(), float() or a NumPy function), so the tape cannot "
            f"tell how it depends on the sources. Compute the target with tapegrad ops."
        )


def _source_leaves(sources: Any) -> list:
    srcs = tree_leaves(sources)
    for s in srcs:
        if not isinstance(s, Tensor):
            raise TypeError(
                f"sources must be tapegrad Tensors (or nested lists of them), "
                f"got {type(s).__name__}"
            )
    return srcs
