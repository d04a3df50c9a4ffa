"""`tg.distributions`: torch.distributions' classes and layout (`from tapegrad.distributions
import Normal`, `tapegrad.distributions.kl.kl_divergence`, `constraints`).

Sampling draws PyTorch's random streams where torch's own samplers are made of draws tapegrad
reproduces (Normal, Bernoulli, Categorical, Uniform, Exponential, Laplace...); log_prob, entropy,
rsample and kl_divergence are recorded ops (differentiable in the parameters).

>>> tg.distributions.Normal(0.0, 1.0).entropy()
tensor(1.4189)
"""

from __future__ import annotations

from . import constraints, kl, utils
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Geometric",
    "Laplace",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
