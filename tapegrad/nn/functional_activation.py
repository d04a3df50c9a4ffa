"""tg.nn.functional's smooth and classic activations (PyTorch's `F.` spellings): relu, leaky_relu,
silu, gelu, softplus, the elu family (elu, selu, celu), mish, softsign, tanhshrink, logsigmoid,
glu, the softmax family (softmax, log_softmax, softmin) and the in-place forms (relu_, elu_, ...).
The piecewise-linear ones (hardtanh, relu6, the shrinks, prelu, rrelu, ...) live in
functional_piecewise.py.

Layer L5: tapegrad ops only, so every function is recorded and differentiable to any order; a
composite marks its result (`mark`) so that the teaching tools show it as one step with its rule
(primitives/composite_layers.py, composite_activations.py).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import primitives as P
from ..math import where
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import in_place, tensor_argument


# ---- activations ------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0), elementwise (its derivative at 0 is 0, as PyTorch's).

    >>> F.relu(tg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return in_place(tensor_argument(input, "relu"), inplace, lambda x: x.relu())


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, negative_slope * x otherwise (the slope is negative_slope at 0, as PyTorch's).

    >>> F.leaky_relu(tg.tensor([-1.0, 2.0]), 0.1)
    tensor([-0.1000,  2.0000])
    """
    tensor_argument(input, "leaky_relu")
    return in_place(input, inplace, lambda x: P.elementwise.leaky_relu(x, slope=negative_slope))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (also called swish).

    >>> F.silu(tg.tensor([0.0]))
    tensor([0.])
    """
    x = tensor_argument(input, "silu")
    return mark(in_place(x, inplace, lambda x: x * x.sigmoid()), "silu", ("x",), (x,))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the standard normal CDF: 0.5 x (1 + erf(x / sqrt 2)); with
    approximate='tanh', 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (as PyTorch's).

    >>> F.gelu(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8413])
    """
    x = tensor_argument(input, "gelu")
    if approximate == "none" and x.dtype.kind == "f":
        # (one primitive, whose table rule is the textbook's: nothing to fold for the teaching
        # tools; its backward runs as one op, see primitives/gelu.py)
        return P.gelu.gelu(x)
    if approximate == "tanh":
        inner = (x + 0.044715 * x * x * x) * math.sqrt(2.0 / math.pi)
        out = 0.5 * x * (1.0 + inner.tanh())
    elif approximate == "none":  # (integers: promoted by the ops)
        out = 0.5 * x * (1.0 + (x * math.sqrt(0.5)).erf())
    else:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return mark(out, "gelu", ("x",), (x,), {"approximate": approximate})


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as PyTorch's, for
    stability); its derivative sigmoid(beta * x), 1 in the linear part.

    >>> F.softplus(tg.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.0000])
    """
    x = tensor_argument(input, "softplus")
    linear = x.numpy() * beta > threshold
    # (the log branch on a safe input where it is not taken: no overflow, no 0 * inf in backward)
    safe = where(linear, 0.0, x) * beta
    out = where(linear, x, safe.exp().log1p() / beta)
    return mark(out, "softplus", ("x",), (x,), {"beta": beta, "threshold": threshold})


def _elu(x: Tensor, alpha: float, scale: float = 1.0, input_scale: float = 1.0) -> Tensor:
    """scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise: PyTorch's elu
    kernel, behind elu, selu and celu. Its derivatives as PyTorch's: scale * alpha * input_scale
    at 0, where the second derivative is 0 (its double backward masks x < 0), so 0 takes that
    line; a NaN takes the exp branch (NaN, as PyTorch's vectorised kernel gives it)."""
    values = x.numpy()
    positive, zero = values > 0, values == 0
    shifted = where(positive | zero, 0.0, x)
    if input_scale != 1.0:
        shifted = shifted * input_scale
    negative = shifted.expm1() * (alpha * scale)
    line = x if scale == 1.0 else x * scale
    return where(positive, line, where(zero, x * (alpha * scale * input_scale), negative))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise (its derivative at 0 is alpha, as PyTorch's).

    >>> F.elu(tg.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    tensor_argument(input, "elu")
    out = in_place(input, inplace, lambda x: _elu(x, alpha))
    return mark(out, "elu", ("x",), (input,), {"alpha": alpha})


SELU_ALPHA = 1.6732632423543772848170429916717  # (the constants of Klambauer et al., as PyTorch's)
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with PyTorch's constants (alpha 1.6733, scale 1.0507); its
    derivative at 0 is scale * alpha, as PyTorch's.

    >>> F.selu(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
    """
    tensor_argument(input, "selu")
    out = in_place(input, inplace, lambda x: _elu(x, SELU_ALPHA, SELU_SCALE))
    return mark(out, "selu", ("x",), (input,))


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise (derivative 1 at 0, as PyTorch's).

    >>> F.celu(tg.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.0000])
    """
    tensor_argument(input, "celu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU (it divides the input)")
    out = in_place(input, inplace, lambda x: _elu(x, alpha, 1.0, 1.0 / alpha))
    return mark(out, "celu", ("x",), (input,), {"alpha": alpha})


def _softplus_unit(x: Tensor) -> Tensor:
    """log(1 + exp(x)), x itself past 20 (PyTorch's softplus threshold): no overflow there, and
    no inf / inf in its derivative."""
    linear = x.numpy() > 20.0
    return where(linear, x, where(linear, 0.0, x).exp().log1p())


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)).

    >>> F.mish(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8651])
    """
    tensor_argument(input, "mish")
    out = in_place(input, inplace, lambda x: x * _softplus_unit(x).tanh())
    return mark(out, "mish", ("x",), (input,))


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|).

    >>> F.softsign(tg.tensor([-1.0, 3.0]))
    tensor([-0.5000,  0.7500])
    """
    x = tensor_argument(input, "softsign")
    return mark(x / (x.abs() + 1.0), "softsign", ("x",), (x,))


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x).

    >>> F.tanhshrink(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    x = tensor_argument(input, "tanhshrink")
    return mark(x - x.tanh(), "tanhshrink", ("x",), (x,))


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), stable for any |x| (x itself far below 0).

    >>> F.logsigmoid(tg.tensor([0.0, -100.0]))
    tensor([  -0.6931, -100.0000])
    """
    x = tensor_argument(input, "logsigmoid")
    return mark(-_softplus_unit(-x), "logsigmoid", ("x",), (x,))


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the two halves of input along dim (the gated linear unit).

    >>> F.glu(tg.tensor([1.0, 0.0]))
    tensor([0.5000])
    """
    x = tensor_argument(input, "glu")
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(
            f"glu: Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], "
            f"but got {dim})"
        )
    size = x.shape[dim]
    if size % 2:
        raise RuntimeError(
            f"glu: Halving dimension must be even, but dimension {dim % x.ndim} is size {size}"
        )
    a, b = x.split(size // 2, dim)
    return mark(a * b.sigmoid(), "glu", ("x",), (x,), {"dim": dim})


def _softmax_dim(input: Tensor, dim: int | None, name: str, stacklevel: int) -> int:
    """PyTorch's legacy choice when no dim is given (axis 0 for 0-, 1- and 3-D input, else 1)."""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        f"dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if input.ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """exp(x) / sum(exp(x)) along dim (computed stably); dtype casts the input first.

    >>> F.softmax(tg.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    given = tensor_argument(input, "softmax")
    x = given if dtype is None else given.astype(dtype)
    dim = _softmax_dim(x, dim, "softmax", _stacklevel)
    if dtype is None:  # (the Tensor method marks its call)
        return x.softmax(dim)
    return mark(x.softmax(dim), "softmax", ("x",), (given,), {"dim": dim})


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """x - logsumexp(x) along dim; dtype casts the input first.

    >>> F.log_softmax(tg.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    given = tensor_argument(input, "log_softmax")
    x = given if dtype is None else given.astype(dtype)
    dim = _softmax_dim(x, dim, "log_softmax", _stacklevel)
    if dtype is None:  # (the Tensor method marks its call)
        return x.log_softmax(dim)
    return mark(x.log_softmax(dim), "log_softmax", ("x",), (given,), {"dim": dim})


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """softmax(-x) along dim: the smallest entries get the largest weights; dtype casts first.

    >>> F.softmin(tg.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    given = tensor_argument(input, "softmin")
    x = given if dtype is None else given.astype(dtype)
    dim = _softmax_dim(x, dim, "softmin", _stacklevel)
    return mark((-x).softmax(dim), "softmin", ("x",), (given,), {"dim": dim})


# ---- in-place forms (PyTorch's F.relu_, ...): the function with inplace=True ---------------------
def relu_(input: Tensor) -> Tensor:
    """relu written into input (returned).

    >>> F.relu_(tg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return relu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """leaky_relu written into input (returned).

    >>> F.leaky_relu_(tg.tensor([-1.0, 2.0]), 0.5)
    tensor([-0.5000,  2.0000])
    """
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu written into input (returned).

    >>> F.elu_(tg.tensor([0.0, 2.0]))
    tensor([0., 2.])
    """
    return elu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """selu written into input (returned).

    >>> F.selu_(tg.tensor([0.0]))
    tensor([0.])
    """
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """celu written into input (returned).

    >>> F.celu_(tg.tensor([0.0]))
    tensor([0.])
    """
    return celu(input, alpha, inplace=True)
