"""Recurrent layers as PyTorch defines them: RNN, LSTM and GRU (stacked, bidirectional, with
dropout between layers; their one-step cells are in recurrent_cells.py). PyTorch's
parameter names (weight_ih_l0, bias_hh_l1_reverse, ...), gate order (LSTM: i, f, g, o; GRU: r, z,
n), init U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), result structure and errors.

A PackedSequence input (nn.utils.rnn) runs on its packed rows: at each time step only the
sequences still running (the first batch_sizes[t], longest first) take a step, so each final
state is the one after that sequence's own last step (the reverse direction starts each sequence
at its own last step), and the output is a PackedSequence with the input's batch_sizes and
indices, the final states in the batch's original order, as PyTorch's.

Layer L5: the steps are tapegrad ops (linear, sigmoid, tanh, relu, stack, cat), so gradients of
every order come from the tape; imports tensor.py, math, dtypes and the nn package's module,
parameter, init, functional, utils.rnn (PackedSequence) and recurrent_packed (the step and the
runners over packed rows).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, overload

import numpy as np

from .. import dtypes as _dt
from ..math import cat, stack
from ..tensor import Tensor
from . import init as _init
from .functional import dropout
from .module import Module
from .parameter import Parameter
from .recurrent_packed import (
    _fused_state,
    _fused_step,
    _plain_state,
    _projection,
    _rows_of,
    _run_backward,
    _run_forward,
)
from .utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _size(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")
    return int(value)


def _proj_size(value: Any, hidden_size: int, mode: str) -> int:
    """PyTorch's checks of proj_size (an LSTM's projection of h; 0: none)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"proj_size should be of type int, got: {type(value).__name__}")
    if value and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if value < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if value >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    return int(value)


def _nonlinearity(name: Any) -> str:
    if name not in ("tanh", "relu"):
        raise ValueError(f"Unknown nonlinearity '{name}'. Select from 'tanh' or 'relu'.")
    return str(name)


def _init_uniform(module: Module, hidden_size: int) -> None:
    """Every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch's."""
    bound = 1.0 / math.sqrt(hidden_size)
    for p in module.parameters():
        _init.uniform_(p, -bound, bound)


class RNNBase(Module):
    """PyTorch's base class of RNN, LSTM and GRU (mode 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU'):
    the parameters of each layer and direction, and the loop the subclasses' forward runs (it
    has no forward of its own, as PyTorch's).

    >>> isinstance(tg.nn.LSTM(3, 4), tg.nn.RNNBase)
    True
    """

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode = mode
        self.input_size = _size(input_size, "input_size")
        self.hidden_size = _size(hidden_size, "hidden_size")
        self.num_layers = _size(num_layers, "num_layers")
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and self.num_layers == 1:
            warnings.warn(
                f"dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        self.proj_size = _proj_size(proj_size, self.hidden_size, self.mode)
        self.bias, self.batch_first = bool(bias), bool(batch_first)
        self.dropout, self.bidirectional = float(dropout), bool(bidirectional)
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        gates = _GATES[self.mode] * self.hidden_size
        real_hidden = self._real_hidden
        self._flat_weights_names: list[str] = []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else real_hidden * self._directions
            for suffix in ("", "_reverse")[: self._directions]:
                shapes: dict[str, tuple[int, ...]] = {
                    "weight_ih": (gates, width),
                    "weight_hh": (gates, real_hidden),
                }
                if self.bias:
                    shapes.update(bias_ih=(gates,), bias_hh=(gates,))
                if self.proj_size:
                    shapes.update(weight_hr=(self.proj_size, self.hidden_size))
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(np.empty(shape, dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()
        self.to(device=device)

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _real_hidden(self) -> int:
        """The size of h: proj_size for an LSTM with projections, else hidden_size."""
        return self.proj_size or self.hidden_size

    def reset_parameters(self) -> None:
        """Every weight and bias U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (PyTorch's init)."""
        _init_uniform(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights for cuDNN here; there is no cuDNN."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, [weight_ih, weight_hh, bias_ih, bias_hh]
        (then weight_hr with projections)."""
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = [getattr(self, n) for n in self._flat_weights_names]
        return [flat[i : i + per] for i in range(0, len(flat), per)]

    def _check_state(self, h: Any, expected: tuple, what: str) -> None:
        if not isinstance(h, Tensor):
            raise TypeError(
                f"{type(self).__name__}: {what} must be a tapegrad Tensor, got {type(h).__name__}"
            )
        if tuple(h.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(h.shape)}")

    def _recur(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        """The subclasses' forward: checks, initial states, the layers' loop (a PackedSequence
        in, one out)."""
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name} takes a tapegrad Tensor or a PackedSequence, got {type(input).__name__}"
            )
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        unbatched = input.ndim == 2
        x = (
            input.unsqueeze(1)
            if unbatched
            else input.transpose(0, 1)
            if self.batch_first
            else input
        )
        batch = x.shape[1]
        states = self._initial_states(hx, x, batch, unbatched)
        output, finals = self._run(x, states)
        if self.mode == "LSTM":
            h_n: Any = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            h_n = stack(finals)
        if unbatched:
            output = output.squeeze(1)
            h_n = tuple(t.squeeze(1) for t in h_n) if isinstance(h_n, tuple) else h_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, h_n

    def _forward_packed(self, input: PackedSequence, hx: Any) -> tuple[PackedSequence, Any]:
        """The layers run on a PackedSequence (see the module's docstring)."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if data.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{data.shape[-1]}"
            )
        sizes = [int(n) for n in batch_sizes.numpy()]
        states = self._initial_states(hx, data, sizes[0], False)
        if sorted_indices is not None and hx is not None:  # hx comes in the batch's own order
            states = [_rows_of(s, sorted_indices) for s in states]
        output, finals = self._run_packed(data, sizes, states)
        if self.mode == "LSTM":
            h_n: Any = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            h_n = stack(finals)
        if unsorted_indices is not None:
            h_n = (
                tuple(t.index_select(1, unsorted_indices) for t in h_n)
                if isinstance(h_n, tuple)
                else h_n.index_select(1, unsorted_indices)
            )
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), h_n

    def _run_packed(self, x: Tensor, sizes: list[int], states: list) -> tuple[Tensor, list]:
        """The layers over packed rows x: step t reads rows offsets[t]:offsets[t] + sizes[t]."""
        offsets = [0]
        for n in sizes[:-1]:
            offsets.append(offsets[-1] + n)
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[: self._directions]):
                w_ih, w_hh, b_ih, b_hh, w_hr = [
                    self._param(f"{k}_l{layer}{suffix}") for k in _KINDS
                ]
                projected = _projection(self.mode, x, w_ih, b_ih, b_hh)
                state = _fused_state(self.mode, states[layer * self._directions + d])
                run = _run_forward if d == 0 else _run_backward
                weights = (w_hh, b_hh if self.mode == "GRU" else None, w_hr)
                seq, final = run(self.mode, projected, offsets, sizes, state, weights)
                outputs.append(cat(seq))
                finals.append(_plain_state(self.mode, final))
            x = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = dropout(x, self.dropout, True)
        return x, finals

    def _initial_states(self, hx: Any, x: Tensor, batch: int, unbatched: bool) -> list:
        """hx as one state per layer and direction (zeros where hx is None)."""
        lstm = self.mode == "LSTM"
        layers = self.num_layers * self._directions
        shapes = [(layers, batch, self._real_hidden), (layers, batch, self.hidden_size)]
        parts: list[Any]
        if hx is None:
            parts = [Tensor(np.zeros(shape, x.dtype)) for shape in shapes[: 2 if lstm else 1]]
        elif lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(
                    f"LSTM: hx must be a pair (h_0, c_0) of tensors, got {type(hx).__name__}"
                )
            parts = list(hx)
        else:
            parts = [hx]
        if unbatched and hx is not None:
            if any(isinstance(t, Tensor) and t.ndim != 2 for t in parts):
                dims = ", ".join(f"{t.ndim}-D" for t in parts if isinstance(t, Tensor))
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got ({dims}) tensor(s)"
                )
            parts = [t.unsqueeze(1) if isinstance(t, Tensor) else t for t in parts]
        for i, t in enumerate(parts):
            self._check_state(t, shapes[i], f"hidden[{i}]" if lstm else "hidden")
        if lstm:
            return list(zip(parts[0].unbind(0), parts[1].unbind(0)))
        return list(parts[0].unbind(0))

    def _run(self, x: Tensor, states: list) -> tuple[Tensor, list]:
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[: self._directions]):
                weights = [self._param(f"{kind}_l{layer}{suffix}") for kind in _KINDS]
                w_ih, w_hh, b_ih, b_hh, w_hr = weights
                projected = _projection(self.mode, x, w_ih, b_ih, b_hh)
                b_hh = b_hh if self.mode == "GRU" else None  # (the others': in the projection)
                state = _fused_state(self.mode, states[layer * self._directions + d])
                steps = range(x.shape[0]) if d == 0 else range(x.shape[0] - 1, -1, -1)
                seq = []
                for t in steps:
                    state = _fused_step(self.mode, projected[t], state, w_hh, b_hh, w_hr)
                    seq.append(state[0] if isinstance(state, tuple) else state)
                outputs.append(stack(seq if d == 0 else seq[::-1]))
                finals.append(_plain_state(self.mode, state))
            x = outputs[0] if len(outputs) == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = dropout(x, self.dropout, True)
        return x, finals

    def _param(self, name: str) -> Any:
        return getattr(self, name, None)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t @ W_ih.T + b_ih + h_(t-1) @ W_hh.T + b_hh) (or relu), stacked
    num_layers deep, optionally bidirectional. Input (L, N, H_in) ((N, L, H_in) if batch_first,
    (L, H_in) unbatched); returns (output, h_n).

    >>> out, h = tg.nn.RNN(3, 5, num_layers=2)(tg.randn(7, 2, 3)); out.shape, h.shape
    ((7, 2, 5), (2, 2, 5))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        proj_size: int = 0,
    ) -> None:
        self.nonlinearity = _nonlinearity(nonlinearity)
        super().__init__(
            "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,  # (only LSTM takes one: a ValueError otherwise, as PyTorch's)
            device=device,
            dtype=dtype,
        )

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(
        self, input: PackedSequence, hx: Tensor | None = None
    ) -> tuple[PackedSequence, Tensor]: ...

    def forward(
        self, input: Tensor | PackedSequence, hx: Tensor | None = None
    ) -> tuple[Tensor | PackedSequence, Tensor]:
        """(output, h_n): every step's last-layer state and each layer's last state (output
        a PackedSequence for a PackedSequence input)."""
        return self._recur(input, hx)


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of
    x_t @ W_ih.T + b_ih + h_(t-1) @ W_hh.T + b_hh (in that order along the rows of the weights);
    c_t = f * c_(t-1) + i * g, h_t = o * tanh(c_t) (with proj_size > 0, h_t is then projected:
    h_t @ W_hr.T, the parameters weight_hr_l<k>). Returns (output, (h_n, c_n)).

    >>> out, (h, c) = tg.nn.LSTM(3, 5, batch_first=True)(tg.randn(2, 7, 3)); out.shape, c.shape
    ((2, 7, 5), (1, 2, 5))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )

    @overload
    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]: ...

    @overload
    def forward(
        self, input: PackedSequence, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[PackedSequence, tuple[Tensor, Tensor]]: ...

    def forward(
        self, input: Tensor | PackedSequence, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor | PackedSequence, tuple[Tensor, Tensor]]:
        """(output, (h_n, c_n)); hx is the pair (h_0, c_0) or None (zeros) (output a
        PackedSequence for a PackedSequence input)."""
        return self._recur(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit: r, z = sigmoid(...) and n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
    (gates r, z, n in that order along the rows of the weights), h_t = (1 - z) * n + z * h_(t-1).
    Returns (output, h_n).

    >>> out, h = tg.nn.GRU(3, 5, bidirectional=True)(tg.randn(7, 3)); out.shape, h.shape
    ((7, 10), (2, 5))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(
        self, input: PackedSequence, hx: Tensor | None = None
    ) -> tuple[PackedSequence, Tensor]: ...

    def forward(
        self, input: Tensor | PackedSequence, hx: Tensor | None = None
    ) -> tuple[Tensor | PackedSequence, Tensor]:
        """(output, h_n): every step's last-layer state and each layer's last state (output
        a PackedSequence for a PackedSequence input)."""
        return self._recur(input, hx)
