"""torch.nn.utils.spectral_norm (the older, hook style): a parameter W becomes W / sigma(W), sigma
the largest singular value of W laid out as a matrix (axis dim first), estimated by power
iteration: the buffers `<name>_u` and `<name>_v` are updated in place by n_power_iterations steps
at every call in training mode (off the tape, as PyTorch's), and sigma = u . (W v) is on the tape
through W only. The original parameter is `<name>_orig`.

Layer L5: imports tensor.py, the nn module, Parameter, hooks and the tape's grad mode.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..._state import no_grad
from ...tensor import Tensor
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..hooks import hooks_of
from ..module import Module
from ..parameter import Parameter
from .weight_norm import _remove_hook

T_module = TypeVar("T_module", bound=Module)


def _normalized(x: Tensor, eps: float) -> Tensor:
    """F.normalize(x, dim=0, eps=eps) of a vector."""
    return x / x.norm().clip(eps)


class SpectralNorm:
    """The forward pre-hook spectral_norm registers: `name` = `name_orig` / sigma.

    >>> fn = SpectralNorm("weight", 1, 0, 1e-12)
    """

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """weight with axis dim first, the other axes flattened: (size of dim, -1).

        >>> fn.reshape_weight_to_matrix(tg.ones(2, 3, 4)).shape
        (2, 12)
        """
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.ndim) if d != self.dim])
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """name_orig / sigma, after n_power_iterations updates of u and v in place if asked.

        >>> w = fn.compute_weight(module, do_power_iteration=False)  # doctest: +SKIP
        """
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalized(mat.detach().t() @ u, self.eps))
                    u.copy_(_normalized(mat.detach() @ v, self.eps))
                u, v = u.clone(), v.clone()
        sigma = (u * (mat @ v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Put back `name` as one parameter: the current W / sigma (no power iteration).

        >>> fn.remove(module)  # doctest: +SKIP
        """
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(
        module: Module, name: str, n_power_iterations: int, dim: int, eps: float
    ) -> SpectralNorm:
        """Reparametrize module's `name` (what spectral_norm does).

        >>> SpectralNorm.apply(tg.nn.Linear(2, 3), "weight", 1, 0, 1e-12)  # doctest: +SKIP
        """
        for hook in hooks_of(module).forward_pre.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None and getattr(module, name, 0) is not None:  # (None: a slot kept empty)
            raise KeyError(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _normalized(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalized(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: T_module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> T_module:
    """Reparametrize module's parameter `name` as W / sigma(W) (sigma by power iteration, the
    buffers name_u, name_v; dim defaults to 0, 1 for ConvTranspose layers); returns the module.

    >>> m = tg.nn.utils.spectral_norm(tg.nn.Linear(20, 40))
    >>> m.weight_u.shape, m.weight_orig.shape
    ((40,), (40, 20))
    """
    if dim is None:
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undo spectral_norm: `name` is one parameter again (its current normalized value).

    >>> m = tg.nn.utils.remove_spectral_norm(m)  # doctest: +SKIP
    """
    hook = _remove_hook(module, SpectralNorm, name)
    if hook is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    hook.remove(module)
    return module


__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]
