"""Tensor.apply_ and Tensor.map_: a Python callable run on each element, in place, as PyTorch's
(a CPU-only convenience with no gradient: refused on a tensor that requires grad).

Layer L3: numpy, writing.py's in-place path.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .base import TensorBase
from .coerce import TensorLike, as_tensor
from .writing import inplace

if TYPE_CHECKING:
    from .tensor import Tensor


def _no_grad_here(t: TensorBase, name: str) -> None:
    if t._requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            f"instead."
        )


def _number(value: Any) -> Any:
    """A callable's result, checked as PyTorch converts it (a real number, or a bool)."""
    if isinstance(value, (numbers.Real, np.bool_)):
        return value
    raise TypeError(f"must be real number, not {type(value).__name__}")


def _elementwise(callable_: Callable[..., Any], dtype: np.dtype, *arrays: np.ndarray) -> Any:
    """callable_ on the elements of arrays (Python numbers), its results in dtype (a float result
    in an integer tensor truncated, as PyTorch's conversion does)."""
    flat = [a.reshape(-1).tolist() for a in arrays]
    results = [_number(callable_(*values)) for values in zip(*flat)]
    return np.array(results).reshape(arrays[0].shape).astype(dtype)


class PythonCallablesMixin(TensorBase):
    """Tensor.apply_ and Tensor.map_."""

    __slots__ = ()

    def apply_(self, callable: Callable[[Any], Any]) -> Tensor:
        """self[i] = callable(self[i]) for every element, in place (Python numbers in and out).

        >>> tg.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
        tensor([10., 20.])
        """
        _no_grad_here(self, "apply_")
        old = self._data
        return inplace(self, "apply_", None, _elementwise(callable, old.dtype, old))

    def map_(self, tensor: TensorLike, callable: Callable[[Any, Any], Any]) -> Tensor:
        """self[i] = callable(self[i], tensor[i]) for every element, tensor broadcast to self's
        shape, in place.

        >>> tg.tensor([1.0, 2.0]).map_(tg.tensor([10.0, 20.0]), lambda a, b: a + b)
        tensor([11., 22.])
        """
        _no_grad_here(self, "map_")
        old = self._data
        other = np.broadcast_to(as_tensor(tensor).detach().numpy(), old.shape)
        return inplace(self, "map_", None, _elementwise(callable, old.dtype, old, other))
