"""The recurrent layers' time step and their runners over a PackedSequence's rows (recurrent.py's
RNNBase calls them; recurrent_cells.py's cells take one step).

`_step` is one time step written as a textbook writes it (linear, sigmoid, tanh, relu: every order
of derivative from the tape): the readable reference. What runs is `_fused_step`, the same step
with the pointwise part of an LSTM or GRU as one op (primitives/fused_recurrent.py: lstm_cell,
gru_cell) and the hidden GEMM plus the step's projection as one `addmm_nt` (RNN and LSTM: b_hh is
added to the projection of the whole sequence instead, `_projection`); tests hold the two equal.
Its state is `_fused_state`'s: an LSTM's or GRU's (h, cell output), h being the output's row 0
(or, with LSTM projections, h' @ W_hr^T), the cell output carrying c and the workspace;
`_plain_state` turns it back into h or (h, c). The runners step only the sequences still
running at each time: the rows of step t are projected[offsets[t]:offsets[t] + sizes[t]]
(longest first), a sequence that ends keeps its state (forward), and the reverse direction starts
each sequence from its initial state at its own last step.

Layer L5: imports numpy, tensor.py, math (cat), primitives (fused, fused_recurrent) and the nn
package's functional (linear).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..math import cat
from ..primitives.fused import addmm_nt
from ..primitives.fused_recurrent import GRU_ROWS, gru_cell, lstm_cell
from ..tensor import Tensor
from .functional import linear

State = Tensor | tuple[Tensor, Tensor]


def _step(
    mode: str,
    projected: Tensor,
    state: State,
    weight_hh: Tensor,
    bias_hh: Tensor | None,
    weight_hr: Tensor | None = None,
) -> State:
    """One time step: `projected` is x @ weight_ih.T + bias_ih, computed for the whole sequence
    at once (one product rather than one per step); returns h' (LSTM: (h', c'); with
    projections, h' = (o * tanh(c')) @ weight_hr.T)."""
    if mode == "LSTM":
        h, c = cast(tuple, state)  # (the callers pass LSTM a pair)
        i, f, g, o = (projected + linear(h, weight_hh, bias_hh)).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if weight_hr is None else linear(h, weight_hr)), c
    state = cast(Tensor, state)
    hidden = linear(state, weight_hh, bias_hh)
    if mode == "GRU":  # n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), as PyTorch
        x_r, x_z, x_n = projected.chunk(3, -1)
        h_r, h_z, h_n = hidden.chunk(3, -1)
        r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        return (1 - z) * n + z * state
    total = projected + hidden
    return total.tanh() if mode == "RNN_TANH" else total.relu()


def _projection(
    mode: str, x: Tensor, weight_ih: Tensor, bias_ih: Tensor | None, bias_hh: Tensor | None
) -> Tensor:
    """x @ weight_ih.T plus the biases `_fused_step` expects there: both but for a GRU (whose
    b_hn is multiplied by r), b_ih alone."""
    if mode != "GRU" and bias_ih is not None and bias_hh is not None:
        return linear(x, weight_ih, bias_ih + bias_hh)
    return linear(x, weight_ih, bias_ih)


def _fused_state(mode: str, state: State) -> State:
    """A plain state (h, or (h, c)) as `_fused_step` carries it: an LSTM's c in row 1 of a cell
    output of zeros (lstm_cell reads only that row), a GRU's h in row 0 (the row gru_cell reads);
    rows along axis 0, the batch along axis -2."""
    if mode not in ("LSTM", "GRU"):
        return state
    h, c = cast(tuple, state) if mode == "LSTM" else (state, state)
    h, c = cast(Tensor, h), cast(Tensor, c)
    if mode == "LSTM":
        above, below = np.zeros((1,) + c.shape, c.dtype), np.zeros((5,) + c.shape, c.dtype)
        return h, cat([Tensor(above), c.unsqueeze(0), Tensor(below)])
    return h, cat([c.unsqueeze(0), Tensor(np.zeros((GRU_ROWS - 1,) + c.shape, c.dtype))])


def _plain_state(mode: str, state: State) -> State:
    """`_fused_step`'s state as h, or (h, c)."""
    if mode == "LSTM":
        h, cell = cast(tuple, state)
        return h, cell[1]
    return state[0] if mode == "GRU" else state


def _fused_step(
    mode: str,
    projected: Tensor,
    state: Any,
    weight_hh: Tensor,
    bias_hh: Tensor | None,
    weight_hr: Tensor | None = None,
) -> Any:
    """`_step` with the fused ops: `projected` as `_projection` made it (bias_hh used by a GRU
    only), the state as `_fused_state` made it; returns the next state, h first."""
    if mode == "LSTM":
        h, cell = state
        cell = lstm_cell(addmm_nt(projected, h, weight_hh), cell)
        h = cell[0]
        return (h if weight_hr is None else linear(h, weight_hr)), cell
    if mode == "GRU":
        h, cell = state
        cell = gru_cell(projected, linear(h, weight_hh, bias_hh), cell)
        return cell[0], cell
    total = addmm_nt(projected, state, weight_hh)
    return total.tanh() if mode == "RNN_TANH" else total.relu()


def _rows_of(state: State, index: Tensor) -> State:
    """The state's batch rows in the order index gives (a pair for LSTM)."""
    if isinstance(state, tuple):
        return state[0].index_select(0, index), state[1].index_select(0, index)
    return state.index_select(0, index)


def _slice(state: State, start: int, stop: int) -> State:
    """The state's batch rows start:stop (the batch is axis -2: of h, c and a cell's output)."""
    if isinstance(state, tuple):
        return state[0][..., start:stop, :], state[1][..., start:stop, :]
    return state[..., start:stop, :]


def _joined(pieces: list[State]) -> State:
    """The batch rows of several states, in order, as one state."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], tuple):
        pairs = cast(list[tuple[Tensor, Tensor]], pieces)
        return cat([h for h, _ in pairs], -2), cat([c for _, c in pairs], -2)
    return cat(cast(list[Tensor], pieces), -2)


def _run_forward(
    mode: str,
    projected: Tensor,
    offsets: list[int],
    sizes: list[int],
    state: State,
    weights: tuple[Tensor, Tensor | None, Tensor | None],
) -> tuple[list[Tensor], State]:
    """Steps t = 0, 1, ... over the running sequences; a sequence that ends keeps its state."""
    seq: list[Tensor] = []
    done: list[State] = []
    rows = sizes[0]
    for t, n in enumerate(sizes):
        if n < rows:  # sequences n..rows-1 ended at t - 1: their final states
            done.insert(0, _slice(state, n, rows))
            state, rows = _slice(state, 0, n), n
        state = _fused_step(mode, projected[offsets[t] : offsets[t] + n], state, *weights)
        seq.append(state[0] if isinstance(state, tuple) else state)
    return seq, _joined([state, *done])


def _run_backward(
    mode: str,
    projected: Tensor,
    offsets: list[int],
    sizes: list[int],
    initial: State,
    weights: tuple[Tensor, Tensor | None, Tensor | None],
) -> tuple[list[Tensor], State]:
    """Steps t = T-1, ..., 0; a sequence starts from its initial state at its own last step."""
    seq: list[Tensor] = [cast(Tensor, None)] * len(sizes)
    rows = 0
    state = _slice(initial, 0, 0)
    for t in range(len(sizes) - 1, -1, -1):
        n = sizes[t]
        if n > rows:  # sequences rows..n-1 start here
            state = _joined([state, _slice(initial, rows, n)]) if rows else _slice(initial, 0, n)
            rows = n
        state = _fused_step(mode, projected[offsets[t] : offsets[t] + n], state, *weights)
        seq[t] = state[0] if isinstance(state, tuple) else state
    return seq, state
