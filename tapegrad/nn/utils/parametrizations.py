"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as
parametrizations (parametrize.py) rather than forward pre-hooks.

weight_norm stores original0 = g and original1 = v (the parametrized weight g * v / ||v||);
spectral_norm keeps the power iteration's vectors as the parametrization's buffers _u and _v
(15 iterations when registered, n_power_iterations at each access in training mode, off the
tape); orthogonal maps a matrix to an orthogonal one (matrix_exp or cayley of the skew-symmetric
part of its lower triangle, or householder reflections), with PyTorch's trivialization: a
stored orthogonal `base` times the map of the original (which starts as -I).

Layer L5: imports tensor.py, math and linalg's functions, the nn module and parametrize.
"""

from __future__ import annotations

from enum import Enum, auto
import numpy as np

from ... import linalg
from ..._state import no_grad
from ...creation import eye, zeros_like
from ...math import cat, matrix_exp
from ...tensor import Tensor
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..module import Module
from . import parametrize
from .weight_norm import norm_except_dim


def _normalized(x: Tensor, eps: float) -> Tensor:
    return x / x.norm().clip(eps)


class _WeightNorm(Module):
    """g * v / norm_except_dim(v, 2, dim) from (g, v); right_inverse: (||w||, w)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Parametrize module.<name> as g * v / ||v|| (the norm over every axis but dim; None: over
    all), g = parametrizations.<name>.original0 and v = original1.

    >>> m = tg.nn.utils.parametrizations.weight_norm(tg.nn.Linear(20, 40))
    >>> m.parametrizations.weight.original0.shape, m.parametrizations.weight.original1.shape
    ((40, 1), (40, 20))
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma(weight), sigma by power iteration on the buffers _u, _v."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but "
                f"got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            with no_grad():
                mat = self._reshape_weight_to_matrix(weight.detach())
                h, w = mat.shape
                u = mat.new_empty(h).normal_(0, 1)
                v = mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", _normalized(u, self.eps))
                self.register_buffer("_v", _normalized(v, self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            mat = mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(_normalized(mat @ self._v, self.eps))
                self._v.copy_(_normalized(mat.t() @ self._u, self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return weight / weight.norm().clip(self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * (mat @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def _default_dim(module: Module, dim: int | None) -> int:
    if dim is not None:
        return dim
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Parametrize module.<name> as W / sigma(W) (the largest singular value of W with axis dim
    first, by power iteration; dim defaults to 0, 1 for ConvTranspose layers).

    >>> m = tg.nn.utils.parametrizations.spectral_norm(tg.nn.Linear(20, 40))
    >>> m.parametrizations.weight[0]._u.shape
    (40,)
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = _default_dim(module, dim)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _make_orthogonal(a: np.ndarray) -> np.ndarray:
    """The Q of A = QR with R's diagonal made positive (a stack of matrices; NumPy, no tape)."""
    q, r = np.linalg.qr(a)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return q * np.where(signs == 0, 1.0, signs)[..., None, :]


def _is_orthogonal(q: np.ndarray) -> bool:
    n, k = q.shape[-2:]
    eps = 10.0 * n * np.finfo(q.dtype).eps
    return bool(np.allclose(np.swapaxes(q, -1, -2).conj() @ q, np.eye(k), rtol=1e-5, atol=eps))


def _geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's geqrf of each matrix: (reflectors below the diagonal and R, tau)."""
    flat = a.reshape(-1, *a.shape[-2:])
    pairs = [np.linalg.qr(m, mode="raw") for m in flat]
    h = np.stack([p[0].T for p in pairs]).reshape(a.shape)
    tau = np.stack([p[1] for p in pairs]).reshape(*a.shape[:-2], -1)
    return h, tau


class _Orthogonal(Module):
    """An orthogonal matrix (or stack) from an unconstrained one; PyTorch's maps and base."""

    def __init__(
        self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True
    ) -> None:
        super().__init__()
        if np.iscomplexobj(weight.numpy()) and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def _has_base(self) -> bool:
        return "base" in self._buffers

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2:]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                pad = zeros_like(X[..., :1]).expand(*X.shape[:-1], n - k)
                X = cat([X, pad], -1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = linalg.householder_product(A, tau)
            signs = Tensor(np.diagonal(X.numpy(), axis1=-2, axis2=-1).astype(np.int64))
            Q = Q * signs.unsqueeze(-2)
        if self._has_base():
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        if tuple(Q.shape) != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of "
                f"shape {tuple(Q.shape)}."
            )
        q = Q.detach().numpy()
        n, k = q.shape[-2:]
        transpose = n < k
        if transpose:
            q = np.swapaxes(q, -1, -2)
            n, k = k, n
        if not self._has_base():
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            a, tau = _geqrf(q)
            diagonal = np.sign(np.diagonal(a, axis1=-2, axis2=-1))
            diagonal = np.where(tau == 0.0, -diagonal, diagonal)
            a = a.copy()
            idx = np.arange(k)
            a[..., idx, idx] = diagonal
            return Tensor(np.swapaxes(a, -1, -2) if transpose else a)
        if n == k:
            base = q.copy() if _is_orthogonal(q) else _make_orthogonal(q)
        else:
            extra = np.random.default_rng().standard_normal((*q.shape[:-2], n, n - k))
            base = _make_orthogonal(np.concatenate([q, extra.astype(q.dtype)], -1))
        self.base = Tensor(base.astype(q.dtype))
        neg_id = np.zeros(Q.shape, dtype=q.dtype)
        idx = np.arange(min(Q.shape[-2:]))
        neg_id[..., idx, idx] = -1.0
        return Tensor(neg_id)


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Parametrize module.<name> (a matrix or stack of them) as an orthogonal matrix:
    orthogonal_map 'matrix_exp' (square default), 'cayley' or 'householder' (default otherwise).

    >>> m = tg.nn.utils.parametrizations.orthogonal(tg.nn.Linear(3, 3))
    >>> bool(tg.allclose(m.weight @ m.weight.T, tg.eye(3), atol=1e-5))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.dtype.kind == "c" else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


__all__ = ["orthogonal", "spectral_norm", "weight_norm"]
