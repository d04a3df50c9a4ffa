"""Loss layers (PyTorch's signatures): MSELoss, L1Loss, SmoothL1Loss, HuberLoss, NLLLoss,
CrossEntropyLoss, LinearCrossEntropyLoss (a Linear head and the cross entropy of its logits),
BCELoss, BCEWithLogitsLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss; the margin and embedding
losses are in losses_margin.py. Each keeps its options and calls its functional form.

Layer L5: imports tensor.py, nn/module.py, nn/layers.py (Linear) and nn/functional_loss.py,
functional_linear.py, functional_likelihood.py (where the math lives). Class weights are buffers,
as in PyTorch (so they appear in state_dict and follow to()).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional_likelihood as FLL
from . import functional_linear as FLin
from . import functional_loss as FL
from .layers import Linear
from .module import Module


class _Loss(Module):
    """Shared reduction: 'mean' (default), 'sum' or 'none'; PyTorch's deprecated size_average and
    reduce flags still work (with its warning). Printed as PyTorch's: `MSELoss()`."""

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        self.reduction = FL.reduction_mode(size_average, reduce, reduction)
        # (no extra_repr: PyTorch prints every loss as `MSELoss()`, whatever its options)


def _buffer(values: Any, name: str, per_class: bool = False) -> Tensor | None:
    """A weight given as a tensor (kept as it is, as PyTorch), array or list, as a Tensor."""
    if values is None:
        return None
    t = values if isinstance(values, Tensor) else Tensor(np.asarray(values, dtype=float))
    if per_class and t.ndim != 1:
        raise ValueError(f"{name} must hold one number per class (1-D), got shape {t.shape}")
    return t


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _buffer(weight, "weight", per_class=self._per_class))

    _per_class = True


class MSELoss(_Loss):
    """(input - target)^2, reduced; warns (as PyTorch) when target's shape differs from input's.

    >>> tg.nn.MSELoss()(tg.tensor(20.0), tg.tensor(19.0))
    tensor(1.)
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """|input - target|, reduced; warns (as PyTorch) when target's shape differs from input's.

    >>> tg.nn.L1Loss()(tg.tensor([1.0, 4.0]), tg.tensor([2.0, 2.0]))
    tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, with d = input - target.

    >>> tg.nn.SmoothL1Loss(reduction="sum")(tg.tensor([0.5, 3.0]), tg.tensor([0.0, 0.0]))
    tensor(2.6250)
    """

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if beta < 0:
            raise ValueError(f"SmoothL1Loss does not support negative values for beta, got {beta}")
        self.beta = float(beta)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), with d = input - target.

    >>> tg.nn.HuberLoss(delta=2.0)(tg.tensor([3.0]), tg.tensor([0.0]))
    tensor(4.)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        if delta <= 0:
            raise ValueError(
                f"HuberLoss does not support non-positive values for delta, got {delta}"
            )
        self.delta = float(delta)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """-weight[t] * input[t] from log-probabilities (e.g. LogSoftmax's output), as PyTorch's:
    input (C,), (N, C) or (N, C, d1, ...); targets equal to ignore_index count for nothing; the
    'mean' divides by the summed weights of the counted targets.

    >>> tg.nn.NLLLoss()(tg.tensor([[-0.5, -2.0]]), tg.tensor([1]))
    tensor(2.)
    """

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = int(ignore_index)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """-log softmax(input)[target] from logits, as PyTorch's: input (C,), (N, C) or (N, C, d1, ...)
    (classes on axis 1, or 0 for 1-D); target holds class indices (ints, shape without the class
    axis) or class probabilities (floats, input's shape). `weight` (one per class),
    `ignore_index` and `label_smoothing` as PyTorch's.

    >>> tg.nn.CrossEntropyLoss()(tg.tensor([[2.0, 0.0]]), tg.tensor([0]))
    tensor(0.1269)
    """

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if not 0.0 <= float(label_smoothing) <= 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
        self.ignore_index = int(ignore_index)
        self.label_smoothing = float(label_smoothing)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class LinearCrossEntropyLoss(_WeightedLoss):
    """PyTorch's fused head loss: `linear` = Linear(in_features, num_classes * prod(out_features),
    bias) (a 2-D weight, read as (C, d1, ..., in)), then F.linear_cross_entropy of the input
    through it against the target. `options` are checked and change nothing (see
    nn.LinearCrossEntropyOptions).

    >>> loss = tg.nn.LinearCrossEntropyLoss(3, 4); loss(tg.ones(2, 3), tg.tensor([0, 1])).shape
    ()
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Any = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: FLin.LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(np.shape(weight)) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(np.shape(weight))}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = (
            ignore_index,
            label_smoothing,
            options,
        )
        rows = math.prod(self.out_features, start=num_classes)
        self.linear = Linear(in_features, rows, bias=bias, device=device, dtype=dtype)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        head = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return FLin.linear_cross_entropy(
            input,
            self.linear.weight.reshape(*head, self.linear.in_features),
            target,
            linear_bias=None if bias is None else bias.reshape(*head),
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )


class BCELoss(_WeightedLoss):
    """-weight (y log x + (1 - y) log(1 - x)) for probabilities x in [0, 1] (e.g. after Sigmoid);
    each log is clamped at -100, as PyTorch. For logits, BCEWithLogitsLoss is the stable form.

    >>> tg.nn.BCELoss()(tg.tensor([0.5]), tg.tensor([1.0]))
    tensor(0.6931)
    """

    _per_class = False  # (weight broadcasts against the input)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits x with targets y in [0, 1]:
    (1 - y) softplus(x) + pos_weight y softplus(-x), times `weight`, stable for any |x|. (A
    _Loss registering its own weight, not a _WeightedLoss, as PyTorch's.)

    >>> tg.nn.BCEWithLogitsLoss()(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931)
    """

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Any = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _buffer(weight, "weight"))
        self.register_buffer("pos_weight", _buffer(pos_weight, "pos_weight"))

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FL.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class KLDivLoss(_Loss):
    """target * (log(target) - input) from log-probabilities; reduction='batchmean' divides the sum
    by the batch size (the KL divergence), 'mean' by every element (with PyTorch's warning).

    >>> tg.nn.KLDivLoss(reduction="sum")(tg.tensor([-1.0]), tg.tensor([0.5]))
    tensor(0.1534)
    """

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        if reduction == "batchmean" and size_average is None and reduce is None:
            Module.__init__(self)
            self.reduction = reduction
        else:
            super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FLL.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """exp(input) - target * input (input: log-rates), or input - target * log(input + eps) with
    log_input=False; full=True adds Stirling's term where target > 1.

    >>> tg.nn.PoissonNLLLoss()(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(1.)
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: Any = None,
        eps: float = 1e-8,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Any) -> Tensor:
        return FLL.poisson_nll_loss(
            log_input, target, self.log_input, self.full, eps=self.eps, reduction=self.reduction
        )


class GaussianNLLLoss(_Loss):
    """(log(var) + (input - target)^2 / var) / 2, var clamped below at eps (the value only).

    >>> tg.nn.GaussianNLLLoss()(tg.tensor([1.0]), tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.5000)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Any, var: Any) -> Tensor:
        return FLL.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class NLLLoss2d(NLLLoss):
    """PyTorch's deprecated alias of NLLLoss (constructing one warns FutureWarning, as PyTorch).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     loss = tg.nn.NLLLoss2d()
    >>> loss(tg.tensor([[-0.5, -2.0]]), tg.tensor([1]))
    tensor(2.)
    """

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more "
            "details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
