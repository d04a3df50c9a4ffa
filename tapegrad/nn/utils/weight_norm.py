"""torch.nn.utils.weight_norm (the older, hook style; deprecated in PyTorch for
parametrizations.weight_norm, with a FutureWarning): a parameter w becomes w = g * v / ||v||, with
the magnitude g (`<name>_g`) and the direction v (`<name>_v`) as the module's parameters, the
weight recomputed by a forward pre-hook before every call (on the tape: gradients reach g and v).

Layer L5: imports tensor.py, the nn module's Parameter, hooks and the tape's grad mode.
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from ...tensor import Tensor
from ..hooks import hooks_of
from ..module import Module
from ..parameter import Parameter

T_module = TypeVar("T_module", bound=Module)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The p-norm of v over every axis but dim, kept as size-1 axes (dim=-1: over all of v, a
    0-d tensor), as torch.norm_except_dim.

    >>> norm_except_dim(tg.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0)
    tensor([[5.],
            [1.]])
    """
    if dim == -1:
        return v.norm(pow)
    if not -v.ndim <= dim < v.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-v.ndim}, {v.ndim - 1}], but "
            f"got {dim})"
        )
    axis = dim % v.ndim
    others = tuple(a for a in range(v.ndim) if a != axis)
    return v.norm(pow, others, keepdim=True) if others else v.abs()


class WeightNorm:
    """The forward pre-hook weight_norm registers: recomputes `name` from `name_g` and `name_v`.

    >>> fn = WeightNorm("weight", 0)
    """

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        """g * v / norm_except_dim(v, 2, dim), on the tape.

        >>> w = fn.compute_weight(module)  # doctest: +SKIP
        """
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Reparametrize module's `name` (what weight_norm does; FutureWarning as PyTorch's).

        >>> WeightNorm.apply(tg.nn.Linear(2, 3), "weight", 0)  # doctest: +SKIP
        """
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in hooks_of(module).forward_pre.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if not isinstance(weight, Parameter) or name not in module._parameters:
            raise TypeError(
                f"weight_norm: '{name}' of {type(module).__name__} is not a parameter (got "
                f"{type(weight).__name__}); name one of {list(module._parameters)}"
            )
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Put back `name` as one parameter with the current weight.

        >>> fn.remove(module)  # doctest: +SKIP
        """
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def _remove_hook(module: Module, kind: type, name: str) -> Any:
    """The pre-hook of kind for `name`, taken off the module (None if there is none)."""
    hooks = hooks_of(module)
    for key, hook in list(hooks.forward_pre.items()):
        if isinstance(hook, kind) and getattr(hook, "name", None) == name:
            del hooks.forward_pre[key]
            object.__setattr__(module, "_hooked", hooks.any())
            return hook
    return None


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    """Reparametrize module's parameter `name` as g * v / ||v|| (norm over every axis but dim;
    dim=None: over the whole tensor) with parameters `name_g` and `name_v`; returns the module.

    >>> m = tg.nn.utils.weight_norm(tg.nn.Linear(20, 40))  # doctest: +SKIP
    >>> m.weight_g.shape, m.weight_v.shape  # doctest: +SKIP
    ((40, 1), (40, 20))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo weight_norm: `name` is one parameter again (its current value); returns the module.

    >>> m = tg.nn.utils.remove_weight_norm(m)  # doctest: +SKIP
    """
    hook = _remove_hook(module, WeightNorm, name)
    if hook is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    hook.remove(module)
    return module


__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]
