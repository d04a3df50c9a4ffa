"""tg.utils: helpers around training; `tg.utils.data` holds datasets and the DataLoader.

Layer L5: re-exports only.
"""

from __future__ import annotations

from . import data

__all__ = ["data"]
