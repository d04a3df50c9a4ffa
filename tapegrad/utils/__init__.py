"""tg.utils: helpers around training; `tg.utils.data` holds datasets and the DataLoader,
`tg.utils.checkpoint` recomputation in backward to save memory, and `keep_freed_memory()` makes
glibc's malloc keep freed memory for the next step (opt-in; also `TAPEGRAD_MALLOC=keep` in the
environment, read when tapegrad is imported).

Layer L5: re-exports, and the one environment variable tapegrad reads at import.
"""

from __future__ import annotations

from .. import _malloc
from .._malloc import keep_freed_memory
from . import checkpoint, data, tensorboard

__all__ = ["checkpoint", "data", "keep_freed_memory", "tensorboard"]

_malloc.apply_environment()  # (TAPEGRAD_MALLOC=keep: the allocator setting, asked for)
