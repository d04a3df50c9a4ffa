"""The recurrent layers' time step and their runners over a PackedSequence's rows (recurrent.py's
RNNBase calls them; recurrent_cells.py's cells take one step).

`_step` is one time step written as a textbook writes it (linear, sigmoid, tanh, relu: every order
of derivative from the tape). The runners step only the sequences still running at each time: the
rows of step t are projected[offsets[t]:offsets[t] + sizes[t]] (longest first), a sequence that
ends keeps its state (forward), and the reverse direction starts each sequence from its initial
state at its own last step.

Layer L5: imports tensor.py, math (cat) and the nn package's functional (linear).
"""

from __future__ import annotations

from typing import cast

from ..math import cat
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


def _rows_of(state: State, index: Tensor) -> State:
    """The state's batch rows in the order index gives (a pair for LSTM)."""
    if isinstance(state, tuple):
        return state[0].index_select(0, index), state[1].index_select(0, index)
    return state.index_select(0, index)


def _slice(state: State, start: int, stop: int) -> State:
    if isinstance(state, tuple):
        return state[0][start:stop], state[1][start:stop]
    return state[start:stop]


def _joined(pieces: list[State]) -> State:
    """The batch rows of several states, in order, as one state."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], tuple):
        pairs = cast(list[tuple[Tensor, Tensor]], pieces)
        return cat([h for h, _ in pairs]), cat([c for _, c in pairs])
    return cat(cast(list[Tensor], pieces))


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
        state = _step(mode, projected[offsets[t] : offsets[t] + n], state, *weights)
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
        state = _step(mode, projected[offsets[t] : offsets[t] + n], state, *weights)
        seq[t] = state[0] if isinstance(state, tuple) else state
    return seq, state
