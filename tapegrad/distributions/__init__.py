"""`tg.distributions`: torch.distributions' classes and layout (`from tapegrad.distributions
import Normal`, `tapegrad.distributions.kl.kl_divergence`, `constraints`).

Sampling draws PyTorch's random streams where torch's own samplers are made of draws tapegrad
reproduces (Normal, Bernoulli, Categorical, Uniform, Exponential, Laplace...); log_prob, entropy,
rsample and kl_divergence are recorded ops (differentiable in the parameters).

>>> tg.distributions.Normal(0.0, 1.0).entropy()
tensor(1.4189)
"""

from __future__ import annotations

from . import constraints, kl, transforms, utils
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
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)
from .uniform import Uniform

__all__ = [
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "ComposeTransform",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "ExpTransform",
    "Gamma",
    "Geometric",
    "Independent",
    "Laplace",
    "LogNormal",
    "MixtureSameFamily",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "SigmoidTransform",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
