"""Statistics: var and std with PyTorch's defaults (the sum of squared deviations divided by
n - correction, correction=1; a bool first argument is `unbiased`), NumPy's `ddof=` as the same
number and NumPy's/MindSpore's spelling (`axis=`, `keepdims=`) with their default ddof=0,
var_mean/std_mean, and the histogram of the values.

Layer L3: the storage base and the tape's composite `mark` (var is a composite of the reduction
room's mean and sum: its derivative is theirs; var and std mark their result so that tg.explain
shows each call as one step with its textbook rule; histogram is tapegrad.histograms' (L4),
looked up when called).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..tape.composite import mark
from .base import TensorBase

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
