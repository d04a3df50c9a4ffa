"""TensorFlow's GradientTape for users coming from TF (seed 003), as a view of tapegrad's one tape.

Layer L5: builds on tg.autograd.grad. The tape object records nothing itself: every op already
records on the global tape when an input requires grad; the context only turns grad mode on and
tells nested differentiations (tg.grad, another tape) to keep their results on the tape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._utils import tree_leaves, tree_map
from .autograd.functions import grad as _tape_grad
from ._state import state
from .tensor import Tensor


class GradientTape:
    """Record inside `with`, then `tape.gradient(target, sources)`; one use unless `persistent=True`.

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

        Unlike TF, this marks the tensor itself (`requires_grad` becomes True and stays so): tapegrad
        records the ops applied to tensors that require grad. Variables (Parameters) need no watch.
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
        """d(target)/d(sources), shaped like `sources`; a source the target does not reach gets None.

        `target` may be a tensor or a list of them (their gradients are summed); `output_gradients`
        seeds each target (ones by default); `unconnected_gradients="zero"` gives zeros, not None.
        """
        if self._used and not self.persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients: its "
                "graph was freed by the first gradient() call. Create it with "
                "tg.GradientTape(persistent=True) to call gradient() several times."
            )
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(
                f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}"
            )
        targets = tree_leaves(target)
        for t in targets:
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"target is a {type(t).__name__}, not a tapegrad Tensor: its value left the tape "
                    f"(through .numpy(), .item(), float() or a NumPy function), so the tape cannot "
                    f"tell how it depends on the sources. Compute the target with tapegrad ops."
                )
        seeds = (
            tree_leaves(output_gradients)
            if output_gradients is not None
            else [Tensor._make(np.ones(t.shape, t.dtype)) for t in targets]
        )
        if len(seeds) != len(targets):
            raise ValueError(
                f"output_gradients has {len(seeds)} tensors but target has "
                f"{len(targets)}; give one per target"
            )
        srcs = tree_leaves(sources)
        for s in srcs:
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"sources must be tapegrad Tensors (or nested lists of them), "
                    f"got {type(s).__name__}"
                )
        self._used = True
        # Keep the result on the tape when something outside (another tape, tg.grad) differentiates
        # it; our own open context does not count.
        create = state.diff_depth - (1 if self._active else 0) > 0 and state.enabled
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
                g = Tensor._make(np.zeros(s.shape, s.dtype))
            return g

        return tree_map(result, sources)
