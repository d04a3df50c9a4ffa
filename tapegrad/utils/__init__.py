"""tg.utils: helpers around training; `tg.utils.data` holds datasets and the DataLoader,
`tg.utils.checkpoint` recomputation in backward to save memory.

Layer L5: re-exports only.
"""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
