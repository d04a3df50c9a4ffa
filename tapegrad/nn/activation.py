"""Activation layers (PyTorch's names and options): ReLU, Tanh, Sigmoid, GELU, LeakyReLU, SiLU,
Softplus, the ELU family (ELU, SELU, CELU), Mish, Softsign, Tanhshrink, LogSigmoid, GLU and the
softmax family (Softmax, LogSoftmax, Softmin, Softmax2d); the piecewise-linear ones are in
activation_piecewise.py. Each keeps its options and calls its functional form.

Layer L5: imports tensor.py, nn/module.py and nn/functional.py (where the math lives).
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """max(x, 0), elementwise; inplace=True writes the result into the input.

    >>> tg.nn.ReLU()(tg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Tanh(Module):
    """tanh(x), elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        # (a Tensor's method straight: F.tanh's wrapper would be a Python call more per layer)
        return input.tanh() if input.__class__ is Tensor else F.tanh(input)


class Sigmoid(Module):
    """1 / (1 + exp(-x)), elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid() if input.__class__ is Tensor else F.sigmoid(input)  # (as Tanh's)


class GELU(Module):
    """x * Phi(x) (Phi: the standard normal CDF, through erf); approximate='tanh' uses PyTorch's
    tanh formula instead.

    >>> tg.nn.GELU()(tg.tensor([1.0]))
    tensor([0.8413])
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise.

    >>> tg.nn.LeakyReLU(0.1)(tg.tensor([-1.0, 2.0]))
    tensor([-0.1000,  2.0000])
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    """x * sigmoid(x) (swish).

    >>> tg.nn.SiLU()(tg.tensor([0.0]))
    tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear (x) where beta * x > threshold.

    >>> tg.nn.Softplus()(tg.tensor([0.0]))
    tensor([0.6931])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) otherwise; inplace=True writes into the input.

    >>> tg.nn.ELU()(tg.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softmax(Module):
    """exp(x) / sum(exp(x)) along dim (without dim: PyTorch's legacy choice, with its warning).

    >>> tg.nn.Softmax(dim=1)(tg.zeros(1, 2))
    tensor([[0.5000, 0.5000]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """log(softmax(x)) along dim, computed stably (x - logsumexp(x)).

    >>> tg.nn.LogSoftmax(dim=1)(tg.zeros(1, 2))
    tensor([[-0.6931, -0.6931]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class SELU(Module):
    """scale * elu(x, alpha) with PyTorch's constants (self-normalising networks).

    >>> tg.nn.SELU()(tg.tensor([0.0, 1.0]))
    tensor([0.0000, 1.0507])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class CELU(Module):
    """x for x > 0, alpha * (exp(x / alpha) - 1) otherwise.

    >>> tg.nn.CELU(2.0)(tg.tensor([-1.0, 2.0]))
    tensor([-0.7869,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Mish(Module):
    """x * tanh(softplus(x)) (PyTorch prints no options, inplace included).

    >>> tg.nn.Mish()(tg.tensor([0.0]))
    tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


class Softsign(Module):
    """x / (1 + |x|).

    >>> tg.nn.Softsign()(tg.tensor([1.0]))
    tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x).

    >>> tg.nn.Tanhshrink()(tg.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class LogSigmoid(Module):
    """log(sigmoid(x)), stable for any |x|.

    >>> tg.nn.LogSigmoid()(tg.tensor([0.0]))
    tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class GLU(Module):
    """a * sigmoid(b), a and b the halves of the input along dim.

    >>> tg.nn.GLU()(tg.tensor([1.0, 0.0]))
    tensor([0.5000])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """softmax(-x) along dim (without dim: PyTorch's legacy choice, with its warning).

    >>> tg.nn.Softmin(dim=0)(tg.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """softmax over the channels at each position of a (C, H, W) or (N, C, H, W) input.

    >>> tg.nn.Softmax2d()(tg.zeros(2, 1, 1)).shape
    (2, 1, 1)
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)
