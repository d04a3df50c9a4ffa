"""`tg.special`: PyTorch's torch.special spellings of the functions tapegrad has (`expit` is the
sigmoid; erf, erfc, log1p, expm1, exp2, round, logsumexp, softmax, log_softmax, logit, xlogy, sinc).

Layer L4: re-exports of math.py's functions, which are the Tensor methods' (one rule each).
"""

from __future__ import annotations

from .math import erf, erfc, exp2, expm1, log1p, log_softmax, logit, logsumexp, sinc, softmax, xlogy
from .math import round as _round
from .math import sigmoid as expit
from .tensor import Tensor
from .tensor.coerce import TensorLike, as_tensor


def round(input: TensorLike, *, decimals: int = 0) -> Tensor:
    """Each element rounded to `decimals` digits, halves to even; floating tensors only, as
    torch.special.round (tg.round takes integers too, as torch.round).

    >>> tg.special.round(tg.tensor([0.5, 1.5]))
    tensor([0., 2.])
    """
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise TypeError(
            f"special.round rounds floating-point tensors, got {x.dtype} (as PyTorch's); an "
            f"integer tensor is already round: use tg.round for any dtype"
        )
    return _round(x, decimals=decimals)


__all__ = ["erf", "exp2", "expit", "expm1", "log1p", "log_softmax", "logit", "logsumexp", "round"]
__all__ += ["erfc", "sinc", "softmax", "xlogy"]
