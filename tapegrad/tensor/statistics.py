"""Statistics: var and std with PyTorch's defaults (the sum of squared deviations divided by
n - correction, correction=1; a bool first argument is `unbiased`), NumPy's `ddof=` as the same
number and NumPy's/MindSpore's spelling (`axis=`, `keepdims=`) with their default ddof=0,
var_mean/std_mean, the NaN-ignoring sum and mean (nansum, nanmean), count_nonzero, the
covariance and correlation matrices (cov, corrcoef), and the histograms of the values
(histogram; histc, bincount).

Layer L3: the storage base and the tape's composite `mark` (var is a composite of the reduction
room's mean and sum: its derivative is theirs; var and std mark their result so that tg.explain
shows each call as one step with its textbook rule; histogram is tapegrad.histograms' (L4),
looked up when called).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import dtypes
from .._utils import normalize_axis
from ..tape.composite import mark
from .base import TensorBase
from .elementwise import where
from .record import wrap

if TYPE_CHECKING:
    from ..histograms import HistogramResult
    from .tensor import Tensor


def _correction(
    unbiased: bool | None, correction: float | None, ddof: float | None, numpy_spelling: bool
) -> float:
    """What var divides n less by: the one of unbiased (True: 1, False: 0), correction and ddof
    (NumPy's name) that is given, else 1 (PyTorch's default) or, when the call is spelled as NumPy
    and MindSpore spell it (axis=, keepdims=), their default 0."""
    spelled = {"unbiased": unbiased, "correction": correction, "ddof": ddof}
    given: dict[str, float] = {name: float(v) for name, v in spelled.items() if v is not None}
    if len(given) > 1:
        raise TypeError(f"var/std: pass one of unbiased, correction and ddof, got {sorted(given)}")
    return next(iter(given.values()), 0.0 if numpy_spelling else 1.0)


class StatisticsMixin(TensorBase):
    """The statistics methods of Tensor (var, std and their pairs with the mean)."""

    __slots__ = ()

    def var(
        self,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: bool | None = None,
        ddof: float | None = None,
    ) -> Tensor:
        """The variance over dim: the sum of squared deviations divided by n - correction, with
        PyTorch's default correction=1 (unbiased=False or correction=0 divides by n; NumPy's
        `ddof=` is the same number). As in PyTorch a bool first argument is `unbiased`; spelled
        as NumPy and MindSpore spell it (`axis=`, `keepdims=`) the default is theirs, ddof=0.

        >>> x = tg.tensor([1.0, 3.0])
        >>> x.var(), x.var(correction=0), x.var(axis=0)
        (tensor(2.), tensor(1.), tensor(1.))
        """
        if isinstance(dim, bool):  # x.var(False): PyTorch's var(unbiased)
            dim, unbiased = None, dim if unbiased is None else unbiased
        c = _correction(unbiased, correction, ddof, axis is not None or keepdims is not None)
        if self._data.dtype.kind != "f":
            raise TypeError(
                f"std and var need a floating-point tensor, got {self._data.dtype}; convert it "
                f"first (.double() or .float())"
            )
        if axis is not None and dim is not None:
            raise TypeError("var/std got both dim and axis; pass one")
        axes = dim if axis is None else axis
        keep = keepdim if keepdims is None else keepdims
        x = cast("Tensor", self)
        centered = x - x.mean(axes, keepdim=True)
        squares = (centered * centered).sum(axes, bool(keep))
        n = self._data.size // max(squares._data.size, 1)
        out = squares / max(n - c, 0.0)  # (n - c <= 0: inf or NaN, as PyTorch)
        return mark(out, "var", ("x",), (x,), {"axis": axes, "ddof": c})

    def std(
        self,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: bool | None = None,
        ddof: float | None = None,
    ) -> Tensor:
        """The standard deviation: sqrt(var(...)), with var's arguments (PyTorch's correction=1 by
        default).

        >>> tg.tensor([1.0, 3.0]).std(correction=0)
        tensor(1.)
        """
        v = self.var(
            dim,
            unbiased,
            keepdim,
            correction=correction,
            axis=axis,
            keepdims=keepdims,
            ddof=ddof,
        )
        called = getattr(v._grad_fn, "composite", None)  # (var's call: its axis and ddof)
        x = cast("Tensor", self)
        return mark(v.sqrt(), "std", ("x",), (x,), called.params if called else None)

    def var_mean(
        self,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> tuple[Tensor, Tensor]:
        """(var, mean) over dim, var with var's arguments (a tuple, as torch.var_mean's).

        >>> tg.tensor([1.0, 3.0]).var_mean()
        (tensor(2.), tensor(2.))
        """
        if isinstance(dim, bool):
            dim, unbiased = None, dim if unbiased is None else unbiased
        var = self.var(dim, unbiased, keepdim, correction=correction)
        return var, cast("Tensor", self).mean(dim, keepdim)

    def std_mean(
        self,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> tuple[Tensor, Tensor]:
        """(std, mean) over dim, std with var's arguments (a tuple, as torch.std_mean's).

        >>> tg.tensor([1.0, 3.0]).std_mean(correction=0)
        (tensor(1.), tensor(2.))
        """
        var, mean = self.var_mean(dim, unbiased, keepdim, correction=correction)
        return var.sqrt(), mean

    def histogram(
        self,
        bins: Any = 100,
        *,
        range: tuple[float, float] | None = None,
        weight: Tensor | None = None,
        density: bool = False,
    ) -> HistogramResult:
        """The named tuple (hist, bin_edges) of the values, as tg.histogram.

        >>> tg.tensor([1.0, 2.0, 1.0]).histogram(2).hist
        tensor([2., 1.])
        """
        from .. import histograms  # (L4: read on use)

        x = cast("Tensor", self)
        return histograms.histogram(x, bins, range=range, weight=weight, density=density)

    # ---- ignoring NaN --------------------------------------------------------------------------
    def nansum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """The sum over dim (all by default) treating NaN as 0 (no gradient reaches a NaN).

        >>> tg.tensor([1.0, float("nan"), 2.0]).nansum()
        tensor(3.)
        """
        x = cast("Tensor", self)
        if x._data.dtype.kind == "f":  # (tensor ops, not NumPy's: vmap batches them)
            x = where(x.isnan(), np.zeros((), x._data.dtype), x)
        return x.sum(dim, keepdim, dtype=dtype)

    def nanmean(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """The mean over dim of the values that are not NaN (NaN where all are).

        >>> tg.tensor([1.0, float("nan"), 2.0]).nanmean()
        tensor(1.5000)
        """
        x = cast("Tensor", self) if dtype is None else cast("Tensor", self).astype(dtype)
        if x._data.dtype.kind != "f":
            raise TypeError(
                f"nanmean(): expected input to have floating point dtype but got "
                f"{x._data.dtype}; pass dtype=tg.float32 (or convert with .float())"
            )
        counted = (~x.isnan()).sum(dim, keepdim).astype(x._data.dtype)
        with np.errstate(invalid="ignore"):  # (an all-NaN line: 0 / 0, NaN, as PyTorch)
            return x.nansum(dim, keepdim) / counted

    def count_nonzero(self, dim: Any = None) -> Tensor:
        """How many elements are not zero, over dim (an int, or a tuple; all by default): int64.

        >>> tg.tensor([[1.0, 0.0], [0.0, 2.0]]).count_nonzero(0)
        tensor([1, 1])
        """
        return (cast("Tensor", self) != 0).sum(_axes(dim, self.ndim))  # (bools sum as int64)

    # ---- covariance ----------------------------------------------------------------------------
    def cov(
        self, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
    ) -> Tensor:
        """The covariance matrix of the variables in the rows (a 1-D tensor: one variable) over
        the observations in the columns, divided by their (weighted) number less `correction`;
        fweights (integer frequencies) and aweights (floating weights) weigh the observations.

        >>> tg.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 5.0]]).cov()
        tensor([[2.3333, 4.0000],
                [4.0000, 7.0000]])
        """
        x = cast("Tensor", self)
        if x.ndim > 2:
            raise ValueError(
                f"cov(): expected input to have two or fewer dimensions but got an input with "
                f"{x.ndim} dimensions"
            )
        if x._data.dtype.kind != "f":
            x = x.astype(dtypes.get_default_dtype())  # (as PyTorch: integers in the default)
        x = x.reshape(1, -1) if x.ndim < 2 else x
        n = x.shape[1]
        f = _observation_weights(fweights, n, "fweights", integral=True)
        a = _observation_weights(aweights, n, "aweights", integral=False)
        # (the frequencies in the weights' dtype first: NumPy's int32 * float32 is float64)
        w = f if a is None else (a if f is None else f.astype(a.dtype) * a)
        total = n if w is None else w.sum()
        mean = (x if w is None else x * w).sum(1) / total
        scale: Any = total - correction
        if w is not None and a is not None and correction != 0:
            scale = total - correction * (w * a).sum() / total
        if float(np.asarray(getattr(scale, "_data", scale))) <= 0:
            warnings.warn(
                "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                "number of observations.",
                UserWarning,
                stacklevel=2,
            )
            scale = 0.0
        centered = x - mean.unsqueeze(1)
        products = centered @ (centered if w is None else centered * w).mT
        with np.errstate(divide="ignore", invalid="ignore"):  # (scale 0: inf or NaN, as PyTorch)
            return (products / scale).squeeze()

    def corrcoef(self) -> Tensor:
        """The Pearson correlation coefficients of the variables in the rows (cov divided by the
        product of the standard deviations, clipped to [-1, 1]).

        >>> tg.tensor([[1.0, 2.0, 4.0], [2.0, 4.0, 8.0]]).corrcoef()
        tensor([[1., 1.],
                [1., 1.]])
        """
        c = self.cov()
        with np.errstate(divide="ignore", invalid="ignore"):  # (a constant variable: NaN)
            if c.ndim == 0:  # (one variable: 1, or NaN if it does not vary)
                return c / c
            spread = c.diag().sqrt()
            c = c / spread.unsqueeze(1) / spread.unsqueeze(0)
        return c.clip(-1.0, 1.0)

    # ---- counts per bin (off the tape) ---------------------------------------------------------
    def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
        """How many values fall in each of `bins` equal bins over [min, max] (both 0: the values'
        own range), in the tensor's dtype; values outside are left out.

        >>> tg.tensor([1.0, 2.0, 1.0]).histc(bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
        """
        if self._data.dtype.kind != "f":
            raise TypeError(
                f"histc needs a floating-point tensor, got {self._data.dtype}; convert it first "
                f"(.float() or .double())"
            )
        if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins <= 0:
            raise ValueError(f"histc: bins must be a positive int, got {bins!r}")
        which, _, _ = _histc_bins(self, int(bins), float(min), float(max))
        return wrap(np.bincount(which, minlength=int(bins)).astype(self._data.dtype))

    def bincount(self, weights: Any = None, minlength: int = 0) -> Tensor:
        """How often each value 0, 1, ..., max of this 1-D tensor of non-negative integers occurs
        (at least minlength counts); with weights, their sum per value (float32 for float32
        weights, else float64, as PyTorch).

        >>> tg.tensor([1, 1, 3]).bincount()
        tensor([0, 2, 0, 1])
        """
        data = self._data
        if data.dtype.kind not in "iub" or data.ndim != 1 or (data.size and data.min() < 0):
            raise ValueError(
                f"bincount only supports 1-d non-negative integral inputs, got a "
                f"{data.ndim}-d tensor of {data.dtype}"
            )
        if isinstance(minlength, bool) or not isinstance(minlength, int | np.integer):
            raise TypeError(f"bincount: minlength must be an int, got {minlength!r}")
        if minlength < 0:
            raise ValueError(f"bincount: minlength should be >= 0, got {minlength}")
        if weights is None:
            return wrap(np.bincount(data, minlength=int(minlength)).astype(np.int64))
        w = weights._data if isinstance(weights, TensorBase) else np.asarray(weights)
        if w.shape != data.shape:
            raise ValueError(
                f"bincount: weights should be 1-d and have the same length as input, got shapes "
                f"{list(w.shape)} and {list(data.shape)}"
            )
        dtype = np.float32 if w.dtype == np.float32 else np.float64
        return wrap(np.bincount(data, weights=w, minlength=int(minlength)).astype(dtype))


def _axes(dim: Any, ndim: int) -> Any:
    """dim (None, an int or a sequence of them) as NumPy's axis."""
    if dim is None or ndim == 0:
        return None
    return normalize_axis(tuple(dim) if isinstance(dim, list) else dim, ndim)


def _observation_weights(w: Any, n: int, name: str, *, integral: bool) -> Tensor | None:
    """cov's fweights/aweights checked: 1-D, one per observation, non-negative, the right kind."""
    if w is None:
        return None
    if not isinstance(w, TensorBase):
        raise TypeError(f"cov(): {name} must be a tensor, got {type(w).__name__}")
    kind = w._data.dtype.kind
    if integral != (kind in "iu"):
        want = "integral" if integral else "floating point"
        raise TypeError(
            f"cov(): expected {name} to have {want} dtype but got {name} with {w._data.dtype} dtype"
        )
    if w.ndim > 1:
        raise ValueError(f"cov(): expected {name} to have one or fewer dimensions but got {w.ndim}")
    if w._data.size != n:
        raise ValueError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input, but got {w._data.size} != {n}"
        )
    if np.any(w._data < 0):
        raise ValueError(f"cov(): {name} cannot be negative")
    return cast("Tensor", w)


def _histc_bins(
    x: TensorBase, bins: int, low: float, high: float
) -> tuple[np.ndarray, float, float]:
    """histc's bin of each value in [low, high] (torch's rule: (v - low) * bins / (high - low),
    the top edge in the last bin), and the range used: the data's if both bounds are 0, widened
    by 1 on each side if it is one value."""
    data = x._data.reshape(-1)
    if low == high == 0 and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"histc: range of [{low}, {high}] is not finite")
    if low > high:
        raise ValueError(f"histc: max must be larger than min, got min={low} and max={high}")
    inside = data[(data >= low) & (data <= high)]
    lo, hi = np.asarray(low, data.dtype), np.asarray(high, data.dtype)
    where_ = ((inside - lo) * bins / (hi - lo)).astype(np.int64)
    return np.minimum(where_, bins - 1), low, high
