"""torch.nn.utils.convert_parameters: parameters_to_vector (one flat vector, on the tape: a cat of
views) and vector_to_parameters (each parameter's values become a slice of the vector, sharing
its memory, as PyTorch's `param.data = ...`: not recorded).

Layer L5: imports tensor.py and math's cat.
"""

from __future__ import annotations

from typing import Any, Iterable

from ...math import cat
from ...tensor import Tensor


def _check_tensor(value: Any, what: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"expected tapegrad.Tensor, but got: {type(value).__name__} ({what})")
    return value


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and joined into one vector (differentiable, as a cat of views).

    >>> tg.nn.utils.parameters_to_vector(tg.nn.Linear(2, 3).parameters()).shape
    (9,)
    """
    pieces = [_check_tensor(p, "a parameter").reshape(-1) for p in parameters]
    if not pieces:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return cat(pieces)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of vec into the parameters' values (their `.data`; a longer vec's
    tail is left unused, as PyTorch's).

    >>> net = tg.nn.Linear(2, 3)
    >>> tg.nn.utils.vector_to_parameters(tg.zeros(9), net.parameters())
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        _check_tensor(param, "a parameter")
        n = param.numel()
        piece = vec.detach().reshape(-1)[pointer : pointer + n]
        if piece.numel() != n:
            raise RuntimeError(
                f"shape '{list(param.shape)}' is invalid for input of size {piece.numel()}"
            )
        param.data = piece.reshape(param.shape)
        pointer += n


__all__ = ["parameters_to_vector", "vector_to_parameters"]
