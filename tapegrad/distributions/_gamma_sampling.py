"""The samplers torch.distributions builds on but tapegrad cannot reproduce value for value
(torch._standard_gamma, torch.poisson, torch.binomial): drawn by NumPy's samplers from a NumPy
generator seeded by tapegrad's generator (so `tg.manual_seed` makes them repeatable), and the
standard gamma sample's reparameterization gradient, the implicit one torch uses:
dx/da = -(dP(a, x)/da) / p(x; a), with dP/da by central differences of the regularized incomplete
gamma P (tapegrad's, float64: about 1e-9 relative) and p the Gamma(a, 1) density.

Layer L5 (the distributions package): imports tg.autograd.Function, the Tensor layer and the
gamma functions' NumPy numerics (primitives/gamma_functions.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..primitives.gamma_functions import gammainc, lgamma
from ..random import numpy_generator
from ..tensor import Tensor


def numpy_rng() -> np.random.Generator:
    """A NumPy generator seeded by four draws of tapegrad's default generator."""
    return np.random.default_rng(numpy_generator(None).integers(0, 2**62, 4).tolist())


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/dalpha of a Gamma(alpha, 1) sample x held at its CDF value (torch's
    _standard_gamma_grad).

    >>> standard_gamma_grad(np.array([1.0]), np.array([1.0])).round(4).tolist()
    [1.1736]
    """
    a, v = np.asarray(alpha, np.float64), np.asarray(x, np.float64)
    h = 1e-5 * np.maximum(a, 1.0)
    h = np.minimum(h, a / 2)
    d_cdf = (gammainc(a + h, v) - gammainc(a - h, v)) / (2 * h)
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        density = np.exp((a - 1) * np.log(v) - v - lgamma(a))
        grad = np.where(density > 0, -d_cdf / density, 0.0)
    return grad


class StandardGamma(Function):
    """Gamma(alpha, 1) samples (NumPy's sampler, tapegrad's seed) with the implicit gradient."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor) -> Tensor:
        a = alpha.detach().numpy()
        tiny = np.finfo(a.dtype).tiny
        x = np.maximum(numpy_rng().standard_gamma(a.astype(np.float64)), tiny).astype(a.dtype)
        ctx.alpha, ctx.x = a, x
        return Tensor(x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        grad = standard_gamma_grad(ctx.alpha, ctx.x).astype(ctx.x.dtype)
        return g * Tensor(grad)


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) samples of alpha's shape, differentiable in alpha (torch._standard_gamma).

    >>> standard_gamma(tg.tensor([2.0])).shape
    (1,)
    """
    return StandardGamma.apply(alpha)


def poisson(rate: Tensor) -> Tensor:
    """Poisson samples of rate's shape and dtype (torch.poisson's distribution; no gradient).

    >>> poisson(tg.tensor([0.0])).tolist()
    [0.0]
    """
    r = rate.detach().numpy()
    return Tensor(numpy_rng().poisson(r.astype(np.float64)).astype(r.dtype))


def binomial(count: Tensor, probs: Tensor) -> Tensor:
    """Binomial(count, probs) samples of their shape and dtype (torch.binomial's distribution).

    >>> binomial(tg.tensor([3.0]), tg.tensor([1.0])).tolist()
    [3.0]
    """
    n, p = count.detach().numpy(), probs.detach().numpy()
    drawn = numpy_rng().binomial(n.astype(np.int64), np.clip(p.astype(np.float64), 0, 1))
    return Tensor(drawn.astype(p.dtype))


__all__ = ["binomial", "numpy_rng", "poisson", "standard_gamma", "standard_gamma_grad"]
