"""tg.nn.modules.utils: PyTorch's torch.nn.modules.utils helpers that layer code written for
PyTorch imports (`from torch.nn.modules.utils import _pair`): an int (or any one value) repeated
into an n-tuple, padding orders reversed for F.pad, and a state dict's key prefix stripped.

Layer L5: the standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A parser: an iterable as a tuple of its items, any other value repeated n times.

    >>> _ntuple(2)(3), _ntuple(2)([1, 2])
    ((3, 3), (1, 2))
    """

    def parse(x: Any) -> tuple:
        return tuple(x) if isinstance(x, Iterable) else (x,) * n

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """t's items last first, each repeated n times (a layer's padding as F.pad reads it).

    >>> _reverse_repeat_tuple((1, 2), 2)
    (2, 2, 1, 1)
    """
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """An output size with its None entries taken from the input's trailing sizes `defaults`
    (an int as it is).

    >>> _list_with_default([None, 3], [8, 5, 7])
    [5, 3]
    """
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[-len(out_size) :]
    return [d if v is None else v for v, d in zip(out_size, tail)]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip `prefix` from the keys that start with it, in place (a DataParallel model's
    "module." before loading into the bare model).

    >>> sd = {"module.weight": 1, "bias": 2}
    >>> consume_prefix_in_state_dict_if_present(sd, "module."); sorted(sd)
    ['bias', 'weight']
    """
    for key in list(state_dict):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:  # (its keys: '' the wrapper, 'module' the model, 'module.x'...)
        for key in list(metadata):
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix) :]] = metadata.pop(key)
