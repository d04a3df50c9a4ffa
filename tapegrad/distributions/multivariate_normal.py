"""MultivariateNormal(loc, covariance_matrix= | precision_matrix= | scale_tril=), as
torch.distributions.MultivariateNormal: everything through the lower Cholesky factor L of the
covariance (rsample = loc + L eps with torch's normal draws; log_prob with the Mahalanobis
distance |L^-1 (x - loc)|^2 and log det L).

Layer L5 (the distributions package).
"""

from __future__ import annotations

import math
from typing import Any

from .. import math as _m
from ..combining import broadcast_shapes
from ..creation import eye
from ..linalg import cholesky, solve_triangular
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """Matrix-vector products over broadcast batch dimensions."""
    return _m.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """The squared Mahalanobis distance |L^-1 x|^2 (L broadcast to x's batch)."""
    n = bx.shape[-1]
    batch = broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,)).unsqueeze(-1)
    return solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _batch_trace_XXT(bmat: Tensor) -> Tensor:
    """The trace of X X^T (the sum of squares) per matrix."""
    n, m = bmat.shape[-1], bmat.shape[-2]
    flat_trace = bmat.reshape(-1, m * n).pow(2).sum(-1)
    return flat_trace.reshape(tuple(bmat.shape[:-2]))


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of P^-1, as torch computes it."""
    Lf = cholesky(_m.flip(P, (-2, -1)))
    L_inv = _m.flip(Lf, (-2, -1)).transpose(-2, -1)
    Id = eye(P.shape[-1], dtype=P.dtype)
    return solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal with mean loc and one of covariance, precision or scale_tril.

    >>> MultivariateNormal(tg.zeros(2), tg.eye(2)).log_prob(tg.zeros(2))
    tensor(-1.8379)
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, scale_tril, precision_matrix) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        matrix = given[0]
        name = (
            "scale_tril"
            if scale_tril is not None
            else "covariance_matrix"
            if covariance_matrix is not None
            else "precision_matrix"
        )
        if matrix.dim() < 2:
            raise ValueError(
                f"{'scale_tril matrix' if name == 'scale_tril' else name} must be at least "
                "two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch_shape = tuple(broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = tuple(self.loc.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        shape = self._batch_shape + self._event_shape + self._event_shape
        return self._unbroadcasted_scale_tril.expand(shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The covariance L L^T."""
        L = self._unbroadcasted_scale_tril
        shape = self._batch_shape + self._event_shape + self._event_shape
        return _m.matmul(L, L.mT).expand(shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance."""
        shape = self._batch_shape + self._event_shape + self._event_shape
        return _m.cholesky_inverse(self._unbroadcasted_scale_tril).expand(shape)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        shape = self._batch_shape + self._event_shape
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self) -> Tensor:
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)


__all__ = ["MultivariateNormal"]
