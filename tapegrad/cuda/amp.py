"""tg.cuda.amp, as `torch.cuda.amp` on a PyTorch built without CUDA: `GradScaler` exists so that
training scripts written for a GPU run unchanged, and it is always disabled (scale() returns the
loss, step() is the optimizer's step), exactly what PyTorch does when CUDA is not available.

Layer L0: standard library only (an optimizer is only called, never imported).
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

_T = TypeVar("_T")


class GradScaler:
    """Gradient scaling for float16 training on a GPU; with no GPU it is disabled (a pass-through).

    >>> scaler = tg.cuda.amp.GradScaler(enabled=False)
    >>> scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
    """

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if enabled:  # PyTorch's own warning, word for word in meaning: asked for, not possible
            warnings.warn(
                "tg.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
        self._enabled = False

    def is_enabled(self) -> bool:
        """False: there is no CUDA device, so gradients are never scaled.

        >>> tg.cuda.amp.GradScaler(enabled=False).is_enabled()
        False
        """
        return self._enabled

    def scale(self, outputs: _T) -> _T:
        """The outputs unchanged (a disabled scaler multiplies by nothing).

        >>> scaler.scale(loss) is loss
        True
        """
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        """Nothing to undo: the gradients were never scaled.

        >>> scaler.unscale_(opt)
        """
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """optimizer.step(*args, **kwargs), returning what it returns.

        >>> scaler.step(opt)
        """
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: float | None = None) -> None:
        """Nothing to update: a disabled scaler keeps no scale.

        >>> scaler.update()
        """
        return None

    def get_scale(self) -> float:
        """1.0, the scale of a disabled scaler.

        >>> tg.cuda.amp.GradScaler(enabled=False).get_scale()
        1.0
        """
        return 1.0

    def state_dict(self) -> dict[str, Any]:
        """{}: a disabled scaler has no state to save.

        >>> tg.cuda.amp.GradScaler(enabled=False).state_dict()
        {}
        """
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Nothing to load into a disabled scaler.

        >>> scaler.load_state_dict({})
        """
        return None


__all__ = ["GradScaler"]
