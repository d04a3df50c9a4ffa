"""F.gumbel_softmax: a softmax of the logits plus Gumbel(0, 1) noise drawn from tg.manual_seed's
generator (so the draws differ from PyTorch's), and with hard=True PyTorch's straight-through
one-hot (its value one-hot at the soft sample's maximum, its gradient the soft sample's).

Layer L5: tensor.py, the random generator and functional_activation's softmax.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..random import numpy_generator as generator
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_activation import softmax
from .functional_arguments import tensor_argument

__all__ = ["gumbel_softmax"]


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax distribution over `dim` (one-hot, straight-through, if hard).

    >>> F.gumbel_softmax(tg.zeros(2, 3), hard=True).sum(-1)
    tensor([1., 1.])
    """
    logits = tensor_argument(logits, "gumbel_softmax")
    if eps != 1e-10:  # (PyTorch's warning: eps no longer takes part)
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if logits.dtype.kind != "f":
        raise RuntimeError(
            f"gumbel_softmax: the logits must be floating point (the Gumbel noise is), got "
            f"{logits.dtype}; convert them, e.g. logits.to(tg.float32)"
        )
    # PyTorch's noise: -log of exponential_() samples in the logits' dtype
    draw = generator(None, "gumbel_softmax").exponential_rate(1.0, logits.shape, dtype=logits.dtype)
    with np.errstate(divide="ignore"):
        gumbels = -np.log(draw)
    soft = softmax((logits + Tensor(gumbels)) / tau, dim)
    if hard:
        axis = dim % max(logits.ndim, 1) if logits.ndim else None
        values = soft.numpy()
        one_hot = np.zeros_like(values)
        if axis is None:  # (a 0-d tensor: its one element is the maximum)
            one_hot[...] = 1
        else:
            winners = np.expand_dims(np.argmax(values, axis=axis), axis)
            np.put_along_axis(one_hot, winners, 1, axis=axis)
        out = Tensor(one_hot) - soft.detach() + soft
    else:
        out = soft
    params = {"dim": dim, "tau": tau, "hard": bool(hard), "gumbels": gumbels}
    return mark(out, "gumbel_softmax", ("x",), (logits,), params)
