"""The one-step recurrent cells as PyTorch defines them: RNNCell, LSTMCell and GRUCell (weight_ih,
weight_hh, bias_ih, bias_hh; the gate order and init of recurrent.py's layers, whose step they
share), for loops written by hand: input (N, H_in) or unbatched (H_in,).

Layer L5: imports tensor.py, dtypes and the nn package's module, parameter, functional and
recurrent and recurrent_packed (the step).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .functional_arguments import tensor_argument
from .module import Module
from .parameter import Parameter
from .recurrent import _init_uniform, _nonlinearity, _size
from .recurrent_packed import State, _fused_state, _fused_step, _plain_state, _projection


class RNNCellBase(Module):
    """PyTorch's base class of the cells: weight_ih (num_chunks * hidden, input), weight_hh
    (num_chunks * hidden, hidden), bias_ih/bias_hh; no forward of its own, as PyTorch's.

    >>> isinstance(tg.nn.GRUCell(3, 4), tg.nn.RNNCellBase)
    True
    """

    mode = ""  # (the step the subclass runs: 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU')

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = _size(input_size, "input_size")
        self.hidden_size = _size(hidden_size, "hidden_size")
        self.bias = bool(bias)
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        gates = _size(num_chunks, "num_chunks") * self.hidden_size
        self.weight_ih = Parameter(np.empty((gates, self.input_size), dtype))
        self.weight_hh = Parameter(np.empty((gates, self.hidden_size), dtype))
        if self.bias:
            self.bias_ih = Parameter(np.empty((gates,), dtype))
            self.bias_hh = Parameter(np.empty((gates,), dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        self.to(device=device)

    def reset_parameters(self) -> None:
        """Every weight and bias U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (PyTorch's init)."""
        _init_uniform(self, self.hidden_size)

    def _check(self, input: Any, states: list) -> tuple[Tensor, list, bool]:
        """input and states with a batch axis, after PyTorch's checks; whether it was added."""
        name = type(self).__name__
        tensor_argument(input, name)
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        shape = (x.shape[0], self.hidden_size)
        out = []
        for i, h in enumerate(states):
            if h is None:
                out.append(Tensor(np.zeros(shape, x.dtype)))
                continue
            if not isinstance(h, Tensor):
                raise TypeError(f"{name}: hx must be a tapegrad Tensor, got {type(h).__name__}")
            if h.ndim != input.ndim:
                raise RuntimeError(
                    f"{name}: for {input.ndim}-D input, hx should also be {input.ndim}-D but got "
                    f"{h.ndim}-D tensor"
                )
            h = h.unsqueeze(0) if unbatched else h
            if h.shape[0] != x.shape[0]:
                raise RuntimeError(
                    f"Input batch size {x.shape[0]} doesn't match hidden{i} batch size {h.shape[0]}"
                )
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                    f"{self.hidden_size}"
                )
            out.append(h)
        return x, out, unbatched

    def _one_step(self, input: Tensor, states: list) -> State:
        x, checked, unbatched = self._check(input, states)
        state = tuple(checked) if self.mode == "LSTM" else checked[0]
        projected = _projection(self.mode, x, self.weight_ih, self.bias_ih, self.bias_hh)
        bias_hh = self.bias_hh if self.mode == "GRU" else None  # (the others': in projected)
        fused = _fused_state(self.mode, cast(State, state))
        new = _plain_state(
            self.mode, _fused_step(self.mode, projected, fused, self.weight_hh, bias_hh)
        )
        if not unbatched:
            return new
        if isinstance(new, tuple):
            return new[0].squeeze(0), new[1].squeeze(0)
        return new.squeeze(0)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        return s if nonlinearity == "tanh" else f"{s}, nonlinearity={nonlinearity}"


class RNNCell(RNNCellBase):
    """One Elman step: h' = tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh) (or relu); input (N,
    H_in) or (H_in,), hx (N, H) or (H,) (None: zeros).

    >>> tg.nn.RNNCell(3, 4)(tg.randn(2, 3)).shape
    (2, 4)
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self.nonlinearity = _nonlinearity(nonlinearity)
        self.mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """h', the next hidden state."""
        return cast(Tensor, self._one_step(input, [hx]))


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o): returns (h', c'); hx is (h, c) or None (zeros).

    >>> h, c = tg.nn.LSTMCell(3, 4)(tg.randn(2, 3)); h.shape, c.shape
    ((2, 4), (2, 4))
    """

    mode = "LSTM"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        """(h', c'), the next hidden and cell states."""
        if hx is None:
            states: list = [None, None]
        elif isinstance(hx, (tuple, list)) and len(hx) == 2:
            states = list(hx)
        else:
            raise TypeError(f"LSTMCell: hx must be a pair (h, c) or None, got {type(hx).__name__}")
        return cast(tuple[Tensor, Tensor], self._one_step(input, states))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn))).

    >>> tg.nn.GRUCell(3, 4)(tg.randn(3)).shape
    (4,)
    """

    mode = "GRU"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """h', the next hidden state."""
        return cast(Tensor, self._one_step(input, [hx]))
