"""Transcendental methods beyond exp/log/sin/cos/tan/tanh (elementwise.py's): sinh, cosh, their
inverses and the inverse trigonometric functions (with NumPy's arc* spellings, as PyTorch has),
atan2, hypot, exp2, logaddexp(2), xlogy, sinc, logit, fmod, copysign, fmax/fmin, nan_to_num,
deg2rad/rad2deg, the sign and complex-number questions of real tensors (sgn, signbit, real,
conj, ...) and PyTorch's special-function methods (lgamma, digamma, polygamma, mvlgamma, erfinv,
i0, igamma, igammac); each with its in-place form where PyTorch has one.

Layer L3: numpy, the rule table (primitives/transcendental.py), the storage base, record.py's apply
and wrap, coerce.py, writing.py (in-place forms), and the one-input method makers of
elementwise.py and inplace.py. Each method records primitives, so its derivative is theirs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from .. import dtypes
from ..primitives import special_functions as S
from ..primitives import transcendental as T
from ..primitives.registry import Primitive
from .base import TensorBase
from .coerce import TensorLike, coerce
from .elementwise import unary_method
from .inplace import inplace_unary_method
from .record import apply, wrap
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor


def _binary(prim: Primitive, call: str, shown: str) -> Callable[[TensorBase, TensorLike], Tensor]:
    """The method `t.<op>(other)` of a two-input primitive (other a tensor or a number), its
    docstring's example `call` printing `shown`."""

    def method(self: TensorBase, other: TensorLike) -> Tensor:
        return apply(prim, self, coerce(other))

    method.__name__ = prim.name
    method.__doc__ = f"Elementwise {prim.expr} (its rule: tg.autograd.formula({prim.name!r})).\n\n"
    method.__doc__ += f"    >>> {call}\n    {shown}\n    "
    return method


def _binary_(prim: Primitive) -> Callable[[TensorBase, TensorLike], Tensor]:
    """Its in-place form `t.<op>_(other)`."""

    def method(self: TensorBase, other: TensorLike) -> Tensor:
        return unary_(self, prim.name + "_", lambda old, o: prim(old, o), coerce(other))

    method.__name__ = prim.name + "_"
    method.__doc__ = f"In place: self = {prim.expr}, other broadcast to self's shape."
    return method


_RADIANS_PER_DEGREE = math.pi / 180.0  # (a Python float: the tensor's dtype is kept)


class TranscendentalMixin(TensorBase):
    """The transcendental methods of Tensor beyond exp, log, sin, cos, tan and tanh."""

    __slots__ = ()

    # ---- one input -----------------------------------------------------------------------------
    sinh, cosh, asinh = unary_method(T.sinh), unary_method(T.cosh), unary_method(T.asinh)
    acosh, atanh = unary_method(T.acosh), unary_method(T.atanh)
    asin, acos, atan = unary_method(T.asin), unary_method(T.acos), unary_method(T.atan)
    exp2, sinc, erfc = unary_method(T.exp2), unary_method(T.sinc), unary_method(T.erfc)
    arcsinh, arccosh, arctanh = asinh, acosh, atanh  # (NumPy's spellings, which PyTorch has)
    arcsin, arccos, arctan = asin, acos, atan
    sinh_, cosh_, asinh_ = (
        inplace_unary_method(T.sinh),
        inplace_unary_method(T.cosh),
        inplace_unary_method(T.asinh),
    )
    acosh_, atanh_ = inplace_unary_method(T.acosh), inplace_unary_method(T.atanh)
    asin_, acos_, atan_ = (
        inplace_unary_method(T.asin),
        inplace_unary_method(T.acos),
        inplace_unary_method(T.atan),
    )
    exp2_, sinc_, erfc_ = (
        inplace_unary_method(T.exp2),
        inplace_unary_method(T.sinc),
        inplace_unary_method(T.erfc),
    )
    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_
    arcsin_, arccos_, arctan_ = asin_, acos_, atan_

    def logit(self, eps: float | None = None) -> Tensor:
        """log(p / (1 - p)); with eps, p is first clamped to [eps, 1 - eps] (gradient 0 outside).

        >>> tg.tensor([0.25, 0.5]).logit()
        tensor([-1.0986,  0.0000])
        """
        return apply(T.logit, self, eps=None if eps is None else float(eps))

    def logit_(self, eps: float | None = None) -> Tensor:
        """logit in place.

        >>> x = tg.tensor([0.5]); x.logit_()
        tensor([0.])
        """
        eps = None if eps is None else float(eps)
        return unary_(self, "logit_", lambda old, _: T.logit(old, eps=eps))

    def nan_to_num(
        self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
    ) -> Tensor:
        """NaN, +inf and -inf replaced (by 0 and the dtype's largest and smallest numbers unless
        given); the gradient passes only where self is finite.

        >>> tg.tensor([float("nan"), 1.0, float("inf")]).nan_to_num(posinf=9.0)
        tensor([0., 1., 9.])
        """
        return apply(T.nan_to_num, self, nan=nan, posinf=posinf, neginf=neginf)

    def nan_to_num_(
        self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
    ) -> Tensor:
        """nan_to_num in place.

        >>> x = tg.tensor([float("nan"), 1.0]); x.nan_to_num_()
        tensor([0., 1.])
        """
        kept = {"nan": nan, "posinf": posinf, "neginf": neginf}
        return unary_(self, "nan_to_num_", lambda old, _: T.nan_to_num(old, **kept))

    def deg2rad(self) -> Tensor:
        """Degrees to radians (self * pi / 180).

        >>> tg.tensor([180.0, 90.0]).deg2rad()
        tensor([3.1416, 1.5708])
        """
        return self._floating("deg2rad") * _RADIANS_PER_DEGREE

    def rad2deg(self) -> Tensor:
        """Radians to degrees (self * 180 / pi).

        >>> tg.tensor([3.14159265]).rad2deg()
        tensor([180.])
        """
        return self._floating("rad2deg") / _RADIANS_PER_DEGREE

    def deg2rad_(self) -> Tensor:
        """deg2rad in place.

        >>> x = tg.tensor([180.0]); x.deg2rad_()
        tensor([3.1416])
        """
        return unary_(self, "deg2rad_", lambda old, _: old * _RADIANS_PER_DEGREE)

    def rad2deg_(self) -> Tensor:
        """rad2deg in place.

        >>> x = tg.tensor([3.14159265]); x.rad2deg_()
        tensor([180.])
        """
        return unary_(self, "rad2deg_", lambda old, _: old / _RADIANS_PER_DEGREE)

    def _floating(self, name: str) -> Any:
        """Self, or self as the default float dtype when it holds integers or bools (PyTorch's
        deg2rad of an integer tensor is floating)."""
        if self._data.dtype.kind == "f":
            return self
        return cast("Tensor", self).to(dtypes.default_float)

    # ---- two inputs ----------------------------------------------------------------------------
    atan2 = _binary(
        T.atan2,
        "tg.tensor([1.0, -1.0]).atan2(tg.tensor([0.0, 0.0]))",
        "tensor([ 1.5708, -1.5708])",
    )
    hypot = _binary(
        T.hypot,
        "tg.tensor([3.0]).hypot(tg.tensor([4.0]))",
        "tensor([5.])",
    )
    logaddexp = _binary(
        T.logaddexp,
        "tg.tensor([0.0]).logaddexp(tg.tensor([0.0]))",
        "tensor([0.6931])",
    )
    logaddexp2 = _binary(
        T.logaddexp2,
        "tg.tensor([1.0]).logaddexp2(tg.tensor([1.0]))",
        "tensor([2.])",
    )
    xlogy = _binary(
        T.xlogy,
        "tg.tensor([0.0, 2.0]).xlogy(tg.tensor([0.0, 1.0]))",
        "tensor([0., 0.])",
    )
    fmod = _binary(
        T.fmod,
        "tg.tensor([-5.0, 5.0]).fmod(3.0)",
        "tensor([-2.,  2.])",
    )
    copysign = _binary(
        T.copysign,
        "tg.tensor([1.0, 2.0]).copysign(-1.0)",
        "tensor([-1., -2.])",
    )
    fmax = _binary(
        T.fmax,
        "tg.tensor([float('nan'), 1.0]).fmax(tg.tensor([2.0, 0.0]))",
        "tensor([2., 1.])",
    )
    fmin = _binary(
        T.fmin,
        "tg.tensor([float('nan'), 1.0]).fmin(tg.tensor([2.0, 0.0]))",
        "tensor([2., 0.])",
    )
    arctan2 = atan2
    atan2_, hypot_, fmod_ = _binary_(T.atan2), _binary_(T.hypot), _binary_(T.fmod)
    xlogy_, copysign_ = _binary_(T.xlogy), _binary_(T.copysign)
    arctan2_ = atan2_

    # ---- signs and the complex-number questions of a real tensor -------------------------------
    def sgn(self) -> Tensor:
        """The sign (-1, 0 or 1; for real tensors sgn is sign, as in PyTorch).

        >>> tg.tensor([-2.0, 0.0, 3.0]).sgn()
        tensor([-1.,  0.,  1.])
        """
        return cast("Tensor", self).sign()

    def sgn_(self) -> Tensor:
        """sgn in place.

        >>> x = tg.tensor([-2.0, 3.0]); x.sgn_()
        tensor([-1.,  1.])
        """
        return cast("Tensor", self).sign_()

    def signbit(self) -> Tensor:
        """Whether the sign bit is set (True for -0.0 and negative numbers); bools, no gradient.

        >>> tg.tensor([-0.0, 1.0, -2.0]).signbit()
        tensor([ True, False,  True])
        """
        return wrap(np.signbit(self._data))

    def isposinf(self) -> Tensor:
        """Where self is +inf (bools).

        >>> tg.tensor([float("inf"), -float("inf"), 1.0]).isposinf()
        tensor([ True, False, False])
        """
        return wrap(np.isposinf(self._data) if self._data.dtype.kind == "f" else self._no_inf())

    def isneginf(self) -> Tensor:
        """Where self is -inf (bools).

        >>> tg.tensor([float("inf"), -float("inf"), 1.0]).isneginf()
        tensor([False,  True, False])
        """
        return wrap(np.isneginf(self._data) if self._data.dtype.kind == "f" else self._no_inf())

    def _no_inf(self) -> np.ndarray:
        return np.zeros(self._data.shape, dtype=bool)  # (integers and bools are never infinite)

    def isreal(self) -> Tensor:
        """Where self has no imaginary part: everywhere, for tapegrad's real tensors (bools).

        >>> tg.tensor([1.0, 2.0]).isreal()
        tensor([True, True])
        """
        return wrap(np.ones(self._data.shape, dtype=bool))

    def is_conj(self) -> bool:
        """Whether the conjugate bit is set: never, for real tensors.

        >>> tg.tensor([1.0]).is_conj()
        False
        """
        return False

    def conj(self) -> Tensor:
        """The complex conjugate: self itself for a real tensor (as PyTorch returns it).

        >>> tg.tensor([1.0, -2.0]).conj()
        tensor([ 1., -2.])
        """
        return cast("Tensor", self)

    conj_physical = resolve_conj = resolve_neg = conj

    @property
    def real(self) -> Tensor:
        """The real part: self itself for a real tensor (as PyTorch's `x.real`).

        >>> tg.tensor([1.0, -2.0]).real
        tensor([ 1., -2.])
        """
        return cast("Tensor", self)

    @property
    def imag(self) -> Tensor:
        """The imaginary part: only complex tensors have one (an error here, as in PyTorch)."""
        raise RuntimeError(
            "imag is not implemented for tensors with non-complex dtypes (tapegrad's tensors are "
            "real); the imaginary part of a real tensor is zeros_like(x)"
        )

    # ---- special functions (primitives/special_functions.py) ------------------------------------
    lgamma, digamma = unary_method(S.lgamma), unary_method(S.digamma)
    erfinv, i0 = unary_method(S.erfinv), unary_method(S.i0)
    lgamma_, digamma_ = inplace_unary_method(S.lgamma), inplace_unary_method(S.digamma)
    erfinv_, i0_ = inplace_unary_method(S.erfinv), inplace_unary_method(S.i0)
    # the regularized incomplete gamma functions P(self, other) and Q(self, other): torch.igamma
    # and igammac, which torch.special calls gammainc and gammaincc
    igamma = _binary(
        S.gammainc,
        "tg.tensor([1.0, 2.0]).igamma(tg.tensor([1.0, 1.0]))",
        "tensor([0.6321, 0.2642])",
    )
    igammac = _binary(
        S.gammaincc,
        "tg.tensor([1.0, 2.0]).igammac(tg.tensor([1.0, 1.0]))",
        "tensor([0.3679, 0.7358])",
    )
    igamma_, igammac_ = _binary_(S.gammainc), _binary_(S.gammaincc)

    def polygamma(self, n: int) -> Tensor:
        """The n-th derivative of digamma (n >= 0), elementwise; its gradient is polygamma(n + 1).

        >>> tg.tensor([1.0]).polygamma(1)
        tensor([1.6449])
        """
        return apply(S.polygamma, self, n=_order(n))

    def polygamma_(self, n: int) -> Tensor:
        """polygamma in place.

        >>> x = tg.tensor([1.0]); x.polygamma_(1)
        tensor([1.6449])
        """
        order = _order(n)
        return unary_(self, "polygamma_", lambda old, _: S.polygamma(old, n=order))

    def mvlgamma(self, p: int) -> Tensor:
        """The log of the multivariate gamma function of dimension p (p >= 1), elementwise:
        p (p - 1) / 4 log(pi) + sum over i < p of lgamma(self - i / 2).

        >>> tg.tensor([2.5]).mvlgamma(2)
        tensor([0.8570])
        """
        return _mvlgamma(self._floating("mvlgamma"), _dimension(p))

    def mvlgamma_(self, p: int) -> Tensor:
        """mvlgamma in place.

        >>> x = tg.tensor([2.5]); x.mvlgamma_(2)
        tensor([0.8570])
        """
        dimension = _dimension(p)
        return unary_(self, "mvlgamma_", lambda old, _: _mvlgamma(old, dimension))


def _order(n: Any) -> int:
    """polygamma's n, checked as PyTorch checks it."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma: n must be an integer, got {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n = {n}).")
    return int(n)


def _dimension(p: Any) -> int:
    """mvlgamma's p, checked as PyTorch checks it."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"mvlgamma: p must be an integer, got {type(p).__name__}")
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1 (got p = {p})")
    return int(p)


def _mvlgamma(x: Any, p: int) -> Any:
    """p (p - 1) / 4 log(pi) + sum over i < p of lgamma(x - i / 2), of a Tensor (recorded: its
    derivative is lgamma's) or an array (an in-place form's forward)."""
    total = S.lgamma(x)
    for i in range(1, p):
        total = total + S.lgamma(x - i / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)
