"""What every functional module (functional.py and its topic modules) shares about its arguments:
the check that an input is a Tensor (a clear TypeError naming the function) and PyTorch's
`inplace=True`.

Layer L5: imports tensor/ only, so functional.py, which re-exports the topic modules, and each
topic module can import it without a cycle.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor


def tensor_argument(x: Any, fn: str) -> Tensor:
    """x itself if it is a Tensor; otherwise a TypeError saying which function wanted one.

    >>> tensor_argument(tg.ones(2), "pixel_shuffle").shape
    (2,)
    """
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fn} takes a tapegrad Tensor, got {type(x).__name__}; wrap it: tg.tensor(x)"
        )
    return x


def in_place(input: Tensor, inplace: bool, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """fn(input), or with inplace=True the result written into input (which is returned), as
    PyTorch's `inplace=True`. fn reads a recorded copy, so the write cannot spoil what it saved.

    >>> in_place(tg.ones(2), False, lambda x: x * 2)
    tensor([2., 2.])
    """
    if not inplace:
        return fn(input)
    return input.copy_(fn(input.clone()))
