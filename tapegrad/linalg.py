"""`tg.linalg`: PyTorch's torch.linalg spellings of what tapegrad has (matmul).

Layer L4: re-exports of math.py's functions, which are the Tensor methods' (one rule each).
"""

from __future__ import annotations

from .math import matmul

__all__ = ["matmul"]
