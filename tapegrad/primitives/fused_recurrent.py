"""The recurrent cells' pointwise part as one op per time step, as PyTorch's _thnn_fused_lstm_cell
and _thnn_fused_gru_cell split the work: the gates come in from the GEMMs, the new state goes out.

The table has one output per primitive, so a cell's one output carries everything its backward
and the next step need, stacked along a new axis 0 (rows of the state's shape (..., H)), PyTorch's
`workspace` beside the state:
    lstm_cell(gates, hc) -> (7, ..., H): h', c', then i, f, g~, o (the activated gates) and
        tanh(c'); gates = x W_ih^T + h W_hh^T + biases (..., 4H), hc the previous step's output
        (or (h0, c0) stacked and padded with zeros to 7 rows): only its row 1, c, is read.
    gru_cell(xg, hg, h) -> (4, ..., H): h', then r, z, n; xg = x W_ih^T + b_ih and hg = h W_hh^T
        + b_hh (..., 3H) apart (n = tanh(xg_n + r * hg_n)), h the previous output (or h0 padded
        to 4 rows): only its row 0 is read.
Rows first, so that each row is contiguous: h' = out[0] is the next GEMM's operand as it is, and
every pass of the kernels runs on contiguous rows.
The layers read h' as the view out[0] (the next GEMM's operand, the sequence's output)
and pass the whole output on as the next step's state: one recorded node per step for what were
~12 (sigmoid, tanh, mul, add, chunk's pieces). The rules read only `out` (no activation is
computed again) and the state; each is exact for a gradient on any row of the output, the
workspace rows too. Their texts are the textbook's chain rule over the rows, written in
primitives (so they record under create_graph and every order works); fused.py runs kernels on
arrays instead (in-place NumPy, tested equal). The per-op step in nn/recurrent_packed.py stays the
readable reference, and tests hold the cells equal to it.

Layer L1: numpy, registry, shape (getitem, reshape, concatenate, transpose) and batching
(padded).
"""

from __future__ import annotations

import numpy as np

from .batching import example_ndim, padded
from .registry import primitive
from .shape import concatenate, getitem, reshape, transpose

LSTM_ROWS, GRU_ROWS = 7, 4  # (rows of each cell's output)


def row(a, k):
    """Row k of a stacked state, a[k] (an array or a Tensor)."""
    return getitem(a, index=(k,))


def part(a, k, n):
    """Part k of n equal parts of the last axis (a gate's pre-activation)."""
    size = a.shape[-1] // n
    return getitem(a, index=(Ellipsis, slice(k * size, (k + 1) * size)))


def stacked_rows(rows, total):
    """The rows stacked along a new axis 0, zero rows after them up to `total` (a state's
    gradient: rows the op does not read get zeros)."""
    shape = tuple(rows[0].shape)
    pieces = [reshape(r, shape=(1,) + shape) for r in rows]
    if total > len(rows):
        pieces.append(np.zeros((total - len(rows),) + shape, getattr(rows[0], "dtype", None)))
    sizes = (1,) * len(rows) + ((total - len(rows),) if total > len(rows) else ())
    return concatenate(*pieces, axis=0, sizes=sizes)


def joined(parts):
    """The parts joined along the last axis (a gradient of the gates)."""
    ndim = len(parts[0].shape)
    return concatenate(*parts, axis=ndim - 1, sizes=tuple(p.shape[-1] for p in parts))


# ---- LSTM --------------------------------------------------------------------------------------
def lstm_dc(g, out):
    """dL/dc' through every row that depends on c' (c' itself, tanh(c'), h' = o tanh(c'))."""
    dtc = row(g, 6) + row(g, 0) * row(out, 5)
    return row(g, 1) + dtc * (1 - row(out, 6) * row(out, 6))


def lstm_gates_grad(g, out, hc):
    """dL/dgates: each gate's gradient through c' = f c + i g~ and h' = o tanh(c') (plus its own
    row's), times its activation's derivative."""
    dc = lstm_dc(g, out)
    i, f, gg, o = (row(out, k) for k in (2, 3, 4, 5))
    return joined(
        [
            (row(g, 2) + dc * gg) * i * (1 - i),
            (row(g, 3) + dc * row(hc, 1)) * f * (1 - f),
            (row(g, 4) + dc * i) * (1 - gg * gg),
            (row(g, 5) + row(g, 0) * row(out, 6)) * o * (1 - o),
        ]
    )


def lstm_state_grad(g, out, hc):
    """dL/dhc: f dL/dc' in row 1 (c), zeros in the rows the cell does not read."""
    dc = lstm_dc(g, out) * row(out, 3)
    return stacked_rows([0 * dc, dc], hc.shape[0])


def batch_cell(level, prim, inputs, batched, params):
    """vmap: the gates' batch axes line up with the state's, whose rows stay its axis 0 (its batch
    axis moved behind them, and back on the output's); each input is padded to one number of
    leading axes."""
    *gates, state = inputs
    *gates_batched, state_batched = batched
    lead = max(example_ndim(x, b) - 1 for x, b in zip(gates, gates_batched))
    lead = max(lead, example_ndim(state, state_batched) - 2)
    args = [padded(x, b, lead + 1) for x, b in zip(gates, gates_batched)]
    if state_batched:
        state = padded(state, True, lead + 2)  # (B, 1..., K, ..., H): rows moved to axis 0
        first = 1 + lead - (example_ndim(inputs[-1], True) - 2)  # (the rows' axis)
        order = (first,) + tuple(a for a in range(state.ndim) if a != first)
        state = transpose(state, axes=order)
    out = prim(*args, state)
    return transpose(out, axes=(1, 0) + tuple(range(2, out.ndim)))


def _lead(*shapes):
    """The leading axes of the output: the inputs' broadcast together (as they are when equal)."""
    first = shapes[0]
    return first if all(s == first for s in shapes) else np.broadcast_shapes(*shapes)


def _rows_out(lead, n, size, *arrays):
    return np.empty((n,) + tuple(lead) + (size,), np.result_type(*arrays))


def _sigmoid_into(x, out):
    """1 / (1 + exp(-x)) written into out; the caller ignores exp's overflow to inf (for very
    negative x: 1 / inf is 0, the limit)."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _rows_of_gates(gates, start, stop, size, lead):
    """gates[..., start * size : stop * size] as rows (stop - start, *lead, size) (a view; 1s
    for the leading axes gates lacks, so that it broadcasts against the output's rows)."""
    part = gates[..., start * size : stop * size]
    missing = len(lead) - (part.ndim - 1)
    part = part.reshape((1,) * missing + part.shape[:-1] + (stop - start, size))
    n = part.ndim
    return part.transpose((n - 2,) + tuple(range(n - 2)) + (n - 1,))


@primitive(
    "lstm_cell",
    "stack((h', c', i, f, g~, o, tanh(c'))), c' = f * hc[1] + i * g~, h' = o * tanh(c'), "
    "i, f, g~, o = sigmoid, sigmoid, tanh, sigmoid of gates' quarters",
    batch=batch_cell,
    gates="lstm_gates_grad(g, out, hc)",
    hc="lstm_state_grad(g, out, hc)",
)
def lstm_cell(gates, hc):
    size = gates.shape[-1] // 4
    lead = _lead(gates.shape[:-1], hc.shape[1:-1])
    out = _rows_out(lead, LSTM_ROWS, size, gates, hc)
    with np.errstate(over="ignore"):  # (the four gates at once; g~'s row is then tanh's)
        _sigmoid_into(_rows_of_gates(gates, 0, 4, size, lead), out[2:6])
    np.tanh(gates[..., 2 * size : 3 * size], out=out[4])
    c = np.multiply(out[3], hc[1], out=out[1])  # (f c + i g~, in the composite's order)
    c += out[2] * out[4]
    np.tanh(c, out=out[6])
    np.multiply(out[5], out[6], out=out[0])
    return out


# ---- GRU ---------------------------------------------------------------------------------------
def gru_parts(g, out, h, hg):
    """dL/d(pre-activations) of r, z, n (each with its own row's gradient)."""
    r, z, n = row(out, 1), row(out, 2), row(out, 3)
    dn = (row(g, 3) + row(g, 0) * (1 - z)) * (1 - n * n)
    dz = (row(g, 2) + row(g, 0) * (row(h, 0) - n)) * z * (1 - z)
    dr = (row(g, 1) + dn * part(hg, 2, 3)) * r * (1 - r)
    return dr, dz, dn


def gru_input_grad(g, out, h, hg):
    """dL/dxg: r's, z's and n's pre-activation gradients."""
    return joined(list(gru_parts(g, out, h, hg)))


def gru_hidden_grad(g, out, h, hg):
    """dL/dhg: as xg's, n's part times r (hg_n enters n as r * hg_n)."""
    dr, dz, dn = gru_parts(g, out, h, hg)
    return joined([dr, dz, dn * row(out, 1)])


def gru_state_grad(g, out, h):
    """dL/dh: z dL/dh' in row 0, zeros in the rows the cell does not read."""
    return stacked_rows([row(g, 0) * row(out, 2)], h.shape[0])


@primitive(
    "gru_cell",
    "stack((h', r, z, n)), h' = (1 - z) * n + z * h[0], n = tanh(xg_n + r * hg_n), "
    "r, z = sigmoid(xg_r + hg_r), sigmoid(xg_z + hg_z)",
    batch=batch_cell,
    xg="gru_input_grad(g, out, h, hg)",
    hg="gru_hidden_grad(g, out, h, hg)",
    h="gru_state_grad(g, out, h)",
)
def gru_cell(xg, hg, h):
    size = xg.shape[-1] // 3
    lead = _lead(xg.shape[:-1], hg.shape[:-1], h.shape[1:-1])
    out = _rows_out(lead, GRU_ROWS, size, xg, hg, h)
    np.add(_rows_of_gates(xg, 0, 2, size, lead), _rows_of_gates(hg, 0, 2, size, lead), out=out[1:3])
    with np.errstate(over="ignore"):
        _sigmoid_into(out[1:3], out[1:3])
    n = np.multiply(out[1], hg[..., 2 * size :], out=out[3])
    np.add(xg[..., 2 * size :], n, out=n)
    np.tanh(n, out=n)
    np.multiply(1 - out[2], n, out=out[0])
    out[0] += out[2] * h[0]
    return out


# ---- kernels: the rules above on arrays, in place (fused.py runs them; tested equal) ----------
def _arrays(*xs):
    return all(x.__class__ is np.ndarray for x in xs)


def _lstm_dc_array(g, out):
    dc = np.multiply(out[6], out[6])
    np.subtract(1, dc, out=dc)
    dc *= g[6] + g[0] * out[5]
    dc += g[1]
    return dc


def _times_slope(d, y, sigmoid_like):
    """d * y * (1 - y) (a sigmoid's slope), or d * (1 - y * y) (tanh's), in place in d."""
    if sigmoid_like:
        d *= y
        d *= 1 - y
    else:
        d *= 1 - y * y
    return d


def lstm_gates_kernel(g, out, hc):
    """lstm_gates_grad on arrays: the four gates' gradients written into one array, each pass
    over the four rows at once."""
    if not _arrays(g, out, hc):
        return lstm_gates_grad(g, out, hc)
    lead, size = out.shape[1:-1], out.shape[-1]
    d = np.empty(lead + (4, size), np.result_type(g, out))
    n = d.ndim  # (the gates' rows, as out's: a view)
    rows = d.transpose((n - 2,) + tuple(range(n - 2)) + (n - 1,))
    dc = _lstm_dc_array(g, out)
    np.multiply(dc, out[4], out=rows[0])  # the textbook's (row(g, k) + a * b) * slope, by rows
    np.multiply(dc, hc[1], out=rows[1])
    np.multiply(dc, out[2], out=rows[2])
    np.multiply(g[0], out[6], out=rows[3])
    rows += g[2:6]
    slope = np.subtract(1, out[2:6])
    slope *= out[2:6]  # (y (1 - y): a sigmoid's slope; g~'s row is tanh's, 1 - g~^2)
    np.multiply(out[4], out[4], out=slope[2])
    np.subtract(1, slope[2], out=slope[2])
    rows *= slope
    return d.reshape(lead + (4 * size,))


def lstm_state_kernel(g, out, hc):
    """lstm_state_grad on arrays: zeros but row 1."""
    if not _arrays(g, out, hc):
        return lstm_state_grad(g, out, hc)
    d = np.zeros(hc.shape[:1] + out.shape[1:], np.result_type(g, out))
    np.multiply(_lstm_dc_array(g, out), out[3], out=d[1])
    return d


def _gru_parts_array(g, out, h, hg):
    lead, size = out.shape[1:-1], out.shape[-1]
    d = np.empty(lead + (3, size), np.result_type(g, out))
    r, z, n = out[1], out[2], out[3]
    dn = np.subtract(1, z, out=d[..., 2, :])
    dn *= g[0]
    dn += g[3]
    _times_slope(dn, n, False)
    dz = np.subtract(h[0], n, out=d[..., 1, :])
    dz *= g[0]
    dz += g[2]
    _times_slope(dz, z, True)
    dr = np.multiply(dn, hg[..., 2 * size :], out=d[..., 0, :])
    dr += g[1]
    _times_slope(dr, r, True)
    return d


def gru_input_kernel(g, out, h, hg):
    """gru_input_grad on arrays."""
    if not _arrays(g, out, h, hg):
        return gru_input_grad(g, out, h, hg)
    return _gru_parts_array(g, out, h, hg).reshape(out.shape[1:-1] + (-1,))


def gru_hidden_kernel(g, out, h, hg):
    """gru_hidden_grad on arrays."""
    if not _arrays(g, out, h, hg):
        return gru_hidden_grad(g, out, h, hg)
    d = _gru_parts_array(g, out, h, hg)
    d[..., 2, :] *= out[1]
    return d.reshape(out.shape[1:-1] + (-1,))


def gru_state_kernel(g, out, h):
    """gru_state_grad on arrays: zeros but row 0."""
    if not _arrays(g, out, h):
        return gru_state_grad(g, out, h)
    d = np.zeros(h.shape[:1] + out.shape[1:], np.result_type(g, out))
    np.multiply(g[0], out[2], out=d[0])
    return d
