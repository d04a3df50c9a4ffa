"""How a free function (`tg.sin(x)`) is made from a Tensor method or a Tensor-layer function: the
one helper math.py and its topic modules share, so each function reports the module it lives in.

Layer L4: imports the Tensor layer's coercion only.
"""

from __future__ import annotations

from typing import Callable, Concatenate, ParamSpec, TypeVar

from .tensor import Tensor
from .tensor.coerce import TensorLike, as_tensor

Params = ParamSpec("Params")
Result = TypeVar("Result")


class FreeFunctions:
    """The makers of one module's free functions (`home` is that module's __name__)."""

    def __init__(self, home: str) -> None:
        self.home = home

    def of_method(
        self, method: Callable[Concatenate[Tensor, Params], Result]
    ) -> Callable[Concatenate[TensorLike, Params], Result]:
        """tg.<name>(x, ...) as x.<name>(...), for x a tensor or what one is made of (PyTorch has
        both), with the method's name and docstring."""

        def function(x: TensorLike, *args: Params.args, **kwargs: Params.kwargs) -> Result:
            # (a Tensor passes by without the as_tensor call: F.tanh(x) in a model's forward)
            return method(x if isinstance(x, Tensor) else as_tensor(x), *args, **kwargs)

        function.__name__ = function.__qualname__ = method.__name__
        function.__doc__, function.__module__ = method.__doc__, self.home
        return function

    def same(self, function: Callable[Params, Result]) -> Callable[Params, Result]:
        """A function of the Tensor layer's (tg.searchsorted, ...) as tapegrad's own, with its
        signature and docstring."""

        def same(*args: Params.args, **kwargs: Params.kwargs) -> Result:
            return function(*args, **kwargs)

        same.__name__ = same.__qualname__ = function.__name__
        same.__doc__, same.__module__ = function.__doc__, self.home
        same.__wrapped__ = function  # type: ignore[attr-defined]
        return same
