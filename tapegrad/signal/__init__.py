"""`tg.signal`: torch.signal's namespace; its windows are tg.signal.windows (hann, kaiser, ...).

>>> tg.signal.windows.hann(3)
tensor([0., 1., 0.])
"""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
