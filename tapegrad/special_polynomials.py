"""torch.special's orthogonal polynomials of degree n at x (`tg.special.legendre_polynomial_p(x,
n)`): Chebyshev's of the four kinds T, U, V, W and their shifted forms (at 2x - 1), Hermite's H
(physicists') and He (probabilists'), Laguerre's L and Legendre's P. Each by its three-term
recurrence, with PyTorch's special cases (a negative degree gives 0, the ends x = +-1 exactly,
and for Chebyshev's, high degrees inside (-1, 1) by their trigonometric forms).

As in PyTorch they are values, off the tape (no gradient). Layer L4: numpy and the Tensor layer.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes
from .tensor import Tensor
from .tensor.coerce import TensorLike, as_tensor

__all__ = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
]  # fmt: skip

# per polynomial: (p_0, p_1) as functions of x, and p_{k+1} from (x, k, p_k, p_{k-1})
Recurrence = tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[..., Any]]
RECURRENCES: dict[str, Recurrence] = {
    "T": (np.ones_like, lambda x: x, lambda x, k, p, q: 2 * x * p - q),
    "U": (np.ones_like, lambda x: 2 * x, lambda x, k, p, q: 2 * x * p - q),
    "V": (np.ones_like, lambda x: 2 * x - 1, lambda x, k, p, q: 2 * x * p - q),
    "W": (np.ones_like, lambda x: 2 * x + 1, lambda x, k, p, q: 2 * x * p - q),
    "H": (np.ones_like, lambda x: 2 * x, lambda x, k, p, q: 2 * x * p - 2 * k * q),
    "He": (np.ones_like, lambda x: x, lambda x, k, p, q: x * p - k * q),
    "L": (
        np.ones_like,
        lambda x: 1 - x,
        lambda x, k, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1),
    ),
    "P": (np.ones_like, lambda x: x, lambda x, k, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


# The recurrence runs once per degree over the values that need it: a degree beyond this is refused
# (NumPy's loop would take minutes; PyTorch's C loop runs them, or overflows to NaN first)
MAX_DEGREE = 100_000


def _by_recurrence(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """p_n(x) for flat x and n >= 0, every degree up to the largest run once; once every value
    still climbing has overflowed, the higher degrees are NaN (inf - inf), as PyTorch's."""
    first, second, step = RECURRENCES[kind]
    q: np.ndarray = first(x)
    p: np.ndarray = second(x)
    out: np.ndarray = np.where(n == 0, q, p)
    for k in range(1, int(n.max(initial=0))):
        q, p = p, step(x, k, p, q)
        out = np.where(n == k + 1, p, out)
        if k % 64 == 0 and not np.isfinite(p[n > k + 1]).any():
            return np.where(n > k + 1, np.nan, out)
        if k == MAX_DEGREE:
            raise ValueError(
                f"degree {int(n.max())} is beyond what tapegrad's polynomials compute (up to "
                f"{MAX_DEGREE} by the recurrence, where the values stay finite); evaluate such a "
                f"degree another way"
            )
    return out


def _chebyshev_ends(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Chebyshev polynomials at x = +-1 (exact), as PyTorch gives them."""
    odd = n % 2 == 1
    at_one: Any = {"T": 1.0, "U": n + 1.0, "V": 1.0, "W": 2.0 * n + 1}[kind]
    at_minus = {
        "T": np.where(odd, -1.0, 1.0),
        "U": np.where(odd, -(n + 1.0), n + 1.0),
        "V": np.where(odd, -(2.0 * n + 1), 2.0 * n + 1),
        "W": np.where(odd, -1.0, 1.0),
    }[kind]
    return np.where(x > 0, at_one, at_minus)


def _chebyshev_trigonometric(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Chebyshev polynomials inside (-1, 1) from theta = acos(x), as PyTorch's high degrees."""
    theta = np.arccos(np.clip(x, -1.0, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "T":
            return np.cos(n * theta)
        if kind == "U":
            return np.sin((n + 1) * theta) / np.sin(theta)
        if kind == "V":
            return np.cos((n + 0.5) * theta) / np.cos(theta / 2)
        return np.sin((n + 0.5) * theta) / np.sin(theta / 2)


def _evaluate(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    degree = np.maximum(n, 0)
    by_angle = np.zeros(x.shape, bool)  # (Chebyshev's high degrees inside (-1, 1))
    if kind in ("T", "U", "V", "W"):
        by_angle = (n > (6 if kind == "T" else 8)) & (np.abs(x) < 1)
    looped = ~by_angle & (degree > 1)
    first, second, _ = RECURRENCES[kind]
    p0: np.ndarray = first(x)
    p1: np.ndarray = second(x)
    out: np.ndarray = np.where(degree == 0, p0, p1)
    out[looped] = _by_recurrence(kind, x[looped], degree[looped])
    if kind in ("T", "U", "V", "W"):
        if by_angle.any():
            out = np.where(by_angle, _chebyshev_trigonometric(kind, x, degree), out)
        out = np.where(np.abs(x) == 1, _chebyshev_ends(kind, x, degree), out)
    elif kind == "P":
        out = np.where(np.abs(x) == 1, np.where((x > 0) | (degree % 2 == 0), 1.0, -1.0), out)
    return np.where(n < 0, 0.0, out)


def _polynomial(
    kind: str, name: str, shifted: bool, example: str, shows: str
) -> Callable[[TensorLike, TensorLike], Tensor]:
    def polynomial(input: TensorLike, n: TensorLike) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(
                f"{name}() needs a tensor for input or for n, got {type(input).__name__} and "
                f"{type(n).__name__}"
            )
        x, degree = as_tensor(input)._data, as_tensor(n)._data
        floating = [getattr(d, "_data", d).dtype for d in (input, n) if isinstance(d, Tensor)]
        floating = [d for d in floating if d.kind == "f"]  # (a Python number never decides)
        dtype = np.result_type(*floating) if floating else dtypes.default_float
        if not isinstance(input, Tensor):  # (a Python number keeps its digits)
            x = np.asarray(input, dtype=np.float64)
        # computed in the result's dtype (float16 in float32), so it overflows where PyTorch's does
        values = x.astype(np.float32 if dtype == np.float16 else dtype)
        if shifted:
            values = 2 * values - 1
        degrees = np.trunc(degree).astype(np.int64)  # (a fractional degree is cut, as PyTorch)
        with np.errstate(over="ignore", invalid="ignore"):
            out = _evaluate(kind, *np.broadcast_arrays(values, degrees))
        return Tensor(np.asarray(out, dtype=dtype))

    polynomial.__name__ = polynomial.__qualname__ = name
    polynomial.__doc__ = (
        f"{name}(x, n): the polynomial {kind}_n at x{' shifted to [0, 1] (at 2x - 1)' * shifted}, "
        f"elementwise (x and n broadcast; a value, no gradient, as PyTorch's).\n\n"
        f"    >>> tg.special.{example}\n    {shows}\n    "
    )
    polynomial.__module__ = "tapegrad.special"
    return polynomial


_X = "tg.tensor([0.5, 2.0])"
chebyshev_polynomial_t = _polynomial(
    "T",
    "chebyshev_polynomial_t",
    False,
    f"chebyshev_polynomial_t({_X}, 2)",
    "tensor([-0.5000,  7.0000])",
)
chebyshev_polynomial_u = _polynomial(
    "U", "chebyshev_polynomial_u", False, f"chebyshev_polynomial_u({_X}, 2)", "tensor([ 0., 15.])"
)
chebyshev_polynomial_v = _polynomial(
    "V", "chebyshev_polynomial_v", False, f"chebyshev_polynomial_v({_X}, 2)", "tensor([-1., 11.])"
)
chebyshev_polynomial_w = _polynomial(
    "W", "chebyshev_polynomial_w", False, f"chebyshev_polynomial_w({_X}, 2)", "tensor([ 1., 19.])"
)
shifted_chebyshev_polynomial_t = _polynomial(
    "T", "shifted_chebyshev_polynomial_t", True, f"shifted_chebyshev_polynomial_t({_X}, 2)",
    "tensor([-1., 17.])",
)  # fmt: skip
shifted_chebyshev_polynomial_u = _polynomial(
    "U", "shifted_chebyshev_polynomial_u", True, f"shifted_chebyshev_polynomial_u({_X}, 2)",
    "tensor([-1., 35.])",
)  # fmt: skip
shifted_chebyshev_polynomial_v = _polynomial(
    "V", "shifted_chebyshev_polynomial_v", True, f"shifted_chebyshev_polynomial_v({_X}, 2)",
    "tensor([ 1., 29.])",
)  # fmt: skip
shifted_chebyshev_polynomial_w = _polynomial(
    "W", "shifted_chebyshev_polynomial_w", True, f"shifted_chebyshev_polynomial_w({_X}, 2)",
    "tensor([-1., 41.])",
)  # fmt: skip
hermite_polynomial_h = _polynomial(
    "H", "hermite_polynomial_h", False, f"hermite_polynomial_h({_X}, 2)", "tensor([-1., 14.])"
)
hermite_polynomial_he = _polynomial(
    "He",
    "hermite_polynomial_he",
    False,
    f"hermite_polynomial_he({_X}, 2)",
    "tensor([-0.7500,  3.0000])",
)
laguerre_polynomial_l = _polynomial(
    "L",
    "laguerre_polynomial_l",
    False,
    f"laguerre_polynomial_l({_X}, 2)",
    "tensor([ 0.1250, -1.0000])",
)
legendre_polynomial_p = _polynomial(
    "P",
    "legendre_polynomial_p",
    False,
    f"legendre_polynomial_p({_X}, 2)",
    "tensor([-0.1250,  5.5000])",
)
