"""AdaptiveLogSoftmaxWithLoss: Grave et al.'s adaptive softmax, as PyTorch's (torch.nn.modules.
adaptive): a head Linear over the shortlist and one entry per cluster, a tail ModuleList of
Sequential(Linear(in, hsz), Linear(hsz, osz)) per cluster, so state_dict keys are PyTorch's.

Layer L5: imports tensor/ and the nn package's module, containers, layers and functional.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence


from ..math import argmax, cat
from ..tensor import Tensor
from . import functional as F
from .layers import Linear
from .module import Module, ModuleList, Sequential

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class _ASMoutput(NamedTuple):
    """AdaptiveLogSoftmaxWithLoss's result: the target log-probabilities and their mean NLL.

    >>> _ASMoutput(tg.zeros(2), tg.tensor(0.0)).loss
    tensor(0.)
    """

    output: Any
    loss: Any


def _checked_cutoffs(cutoffs: Sequence[int], n_classes: int) -> list[int]:
    cutoffs = list(cutoffs)
    if len(cutoffs) == 0:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (
        cutoffs != sorted(cutoffs)
        or min(cutoffs) <= 0
        or max(cutoffs) > n_classes - 1
        or len(set(cutoffs)) != len(cutoffs)
        or any(int(c) != c for c in cutoffs)
    ):
        raise ValueError(
            "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
            "order, where each value is between 1 and n_classes-1"
        )
    return cutoffs


def _check_shapes(input: Tensor, target: Tensor) -> None:
    if target.dim() == 1:
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(
                f"1D target tensor expects 2D input tensors, but found inputs with size "
                f"{input.size()}"
            )
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(
                f"0D target tensor expects 1D input tensors, but found inputs with size "
                f"{input.size()}"
            )
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


def _projection(in_features: int, out_features: int, kw: dict) -> Linear:
    """Linear(in_features, out_features, bias=False); a size may be 0 (in_features // div_value **
    i rounds down to 0), as PyTorch builds it: an empty weight, whose product is zeros."""
    return Linear(in_features, out_features, bias=False, **kw)


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al.): forward(input, target) returns the named
    tuple (output, loss) of target log-probabilities and their mean negative log-likelihood.

    >>> asm = tg.nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 7])
    >>> asm(tg.ones(3, 16), tg.tensor([0, 5, 9])).output.shape
    (3,)
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = _checked_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(_projection(in_features, hsz, kw), _projection(hsz, osz, kw))
            )

    def reset_parameters(self) -> None:
        """Re-draw every Linear's parameters as __init__ did.

        >>> tg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]).reset_parameters()
        """
        for linear in self.modules():
            if isinstance(linear, Linear):
                linear.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """(output, loss): each row's log-probability of its target, and -output.mean()."""
        _check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch_size = target.shape[0]
        output = input.new_zeros(batch_size)
        gather_inds = target.new_zeros(batch_size)
        cutoff_values = [0, *self.cutoffs]
        used_rows = 0
        for i in range(len(cutoff_values) - 1):
            low, high = cutoff_values[i], cutoff_values[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds = gather_inds.index_copy(0, rows, target[mask])
            else:
                relative = target[mask] - low
                cluster_output = self.tail[i - 1](input.index_select(0, rows))
                gather_inds = gather_inds.index_fill(0, rows, self.shortlist_size + i - 1)
                local = F.log_softmax(cluster_output, dim=1).gather(1, relative.unsqueeze(1))
                output = output.index_copy(0, rows, local.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        pieces = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            pieces.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(pieces, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of all n_classes classes, input (N, in_features) -> (N, n_classes).

        >>> tg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]).log_prob(tg.ones(2, 8)).shape
        (2, 10)
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row: log_prob(input).argmax(dim=1), cheaper.

        >>> tg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4]).predict(tg.ones(2, 8)).shape
        (2,)
        """
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = argmax(log_prob, dim=1)
        return output
