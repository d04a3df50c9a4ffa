"""The Tensor-side idioms of Karpathy's makemore lectures (parts 1 to 5), written in this project's
own words and run unchanged on tapegrad and on PyTorch (float64): counting bigrams into an integer
table in place, normalising rows with `keepdims=True`, parameter counts with `nelement()`,
batch-norm statistics with `var(0, keepdim=True)` (PyTorch's unbiased default), a hand-written
backward checked with `all`/`allclose`/`abs().max()`, update-to-data ratios through `log10()`,
a WaveNet-style `view` + `squeeze(1)` and variance over `dim=(0, 1)`, an attention-style
`transpose(1, 2).contiguous().view(...)`, the running loss through `tensor(lossi).view(-1, k)`,
and the %-formatting and f-strings of 0-d tensors. Issue 25: `Tensor.nelement()` was the first
name these programs missed.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

WORDS = ["ada", "ben", "cora", "dan", "eve", "finn", "gus", "hana", "ivo", "jo", "kai", "lena"]
CHARS = ["."] + sorted({c for w in WORDS for c in w})
INDEX = {c: i for i, c in enumerate(CHARS)}
V = len(CHARS)  # the vocabulary: '.' marks both ends of a word


def _examples(context: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for w in WORDS:
        window = [0] * context
        for c in w + ".":
            xs.append(list(window))
            ys.append(INDEX[c])
            window = window[1:] + [INDEX[c]]
    return np.array(xs), np.array(ys)


def _bigram_program(lib) -> dict:
    """makemore part 1: counts, smoothed probabilities, the mean negative log likelihood."""
    counts = lib.zeros((V, V), dtype=lib.int32)
    for w in WORDS:
        ends = ["."] + list(w) + ["."]
        for a, b in zip(ends, ends[1:]):
            counts[INDEX[a], INDEX[b]] += 1
    probs = (counts + 1).double()
    probs /= probs.sum(1, keepdims=True)
    xs, ys = _examples(1)
    picked = probs[lib.tensor(xs[:, 0]), lib.tensor(ys)]
    nll = -picked.log().mean()
    return {"counts": counts, "probs": probs, "nll": nll, "line": f"nll={nll.item():.4f}"}


def _mlp_program(lib) -> dict:
    """makemore parts 2 to 4: embedding, a hidden layer with batch norm (the variance as PyTorch's
    default, n - 1), cross-entropy, and a backward by hand checked against the tape."""
    rng = np.random.default_rng(0)
    xs, ys = _examples(3)
    n, emb_dim, hidden = len(ys), 4, 16
    f64 = lib.float64
    C = lib.tensor(rng.standard_normal((V, emb_dim)), dtype=f64, requires_grad=True)
    W1 = lib.tensor(rng.standard_normal((3 * emb_dim, hidden)) * 0.3, dtype=f64, requires_grad=True)
    W2 = lib.tensor(rng.standard_normal((hidden, V)) * 0.1, dtype=f64, requires_grad=True)
    gain = lib.tensor(rng.uniform(0.5, 1.5, (1, hidden)), dtype=f64, requires_grad=True)
    params = [C, W1, W2, gain]
    X, Y = lib.tensor(xs), lib.tensor(ys)
    emb = C[X]
    embcat = emb.view(emb.shape[0], -1)
    hpre = embcat @ W1
    mean = hpre.mean(0, keepdim=True)
    var = hpre.var(0, keepdim=True)  # (unbiased: PyTorch's default)
    var_inv = (var + 1e-5) ** -0.5
    hnorm = (hpre - mean) * var_inv
    h = lib.tanh(gain * hnorm)
    logits = h @ W2
    loss = lib.nn.functional.cross_entropy(logits, Y)
    for t in (logits, h, hnorm, hpre):
        t.retain_grad()
    loss.backward()
    # the backward by hand (the lecture's exercise): cross-entropy, tanh, then the batch norm
    dlogits = lib.nn.functional.softmax(logits, 1)
    dlogits[range(n), Y] -= 1
    dlogits /= n
    dh = dlogits @ W2.T
    dhnorm = gain * (1.0 - h**2) * dh
    bessel = n / (n - 1)
    dhpre = var_inv / n * (n * dhnorm - dhnorm.sum(0) - bessel * hnorm * (dhnorm * hnorm).sum(0))
    checks = {}
    for name, mine, t in [("logits", dlogits, logits), ("h", dh, h), ("hpre", dhpre, hpre)]:
        exact = bool(lib.all(mine == t.grad).item())
        close = lib.allclose(mine, t.grad)
        worst = (mine - t.grad).abs().max().item()
        checks[name] = (exact, close, worst)
    ratios = [((0.1 * p.grad).std() / p.data.std()).log10().item() for p in params]
    line = "saturated: %.2f%%, std %.4f" % ((h.abs() > 0.97).double().mean() * 100, h.std())
    return {
        "loss": loss,
        "grads": [p.grad for p in params],
        "count": sum(p.nelement() for p in params),
        "checks": checks,
        "ratios": ratios,
        "line": line,
        "f": (f"{loss:.6f}", f"{loss}" == repr(loss.item())),
    }


def _shapes_program(lib) -> dict:
    """makemore part 5 and attention's idioms: grouping consecutive characters with view, the
    variance over two dims, and a transpose made contiguous before a view."""
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((4, 8, 3)), dtype=lib.float64, requires_grad=True)
    B, T, Cn = x.shape
    grouped = x.view(B, T // 2, Cn * 2)
    pairs = grouped.view(B, 1, T * Cn).squeeze(1)
    spread = x.var(dim=(0, 1), keepdim=True)
    heads = x.view(B, T, 1, Cn).transpose(1, 2)  # (B, heads, T, head size)
    back = heads.transpose(1, 2).contiguous().view(B, T, Cn)
    out = (grouped**2).sum() + pairs.sum() + spread.sum() + (back * 2).sum()
    out.backward()
    lossi = [float(v) for v in np.linspace(3.0, 1.0, 12)]
    running = lib.tensor(lossi).view(-1, 4).mean(1)
    return {"out": out, "grad": x.grad, "spread": spread, "running": running}


def _same(mine, theirs) -> None:
    if isinstance(mine, tg.Tensor):
        theirs = theirs.detach().numpy()
        assert mine.shape == theirs.shape and mine.numpy().dtype == theirs.dtype
        np.testing.assert_allclose(mine.detach().numpy(), theirs, rtol=1e-12, atol=1e-14)
    elif isinstance(mine, dict):
        for key in mine:
            _same(mine[key], theirs[key])
    elif isinstance(mine, (list, tuple)):
        assert len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            _same(m, t)
    elif isinstance(mine, float) and not isinstance(mine, bool):
        assert abs(mine - theirs) <= 1e-12 * max(1.0, abs(theirs))
    else:
        assert mine == theirs


@pytest.mark.parametrize("program", [_bigram_program, _mlp_program, _shapes_program])
def test_makemore_idioms_run_as_on_pytorch(program) -> None:
    torch = pytest.importorskip("torch")
    mine, theirs = program(tg), program(torch)
    exact = {"checks", "line", "f", "count"}
    _same({k: v for k, v in mine.items() if k not in exact - {"count"}}, theirs)
    if "checks" in mine:  # (exactness of a hand-written backward may differ in the last bits)
        for name, (_, close, worst) in mine["checks"].items():
            assert close and worst < 1e-13, name
            assert theirs["checks"][name][1]
        assert mine["line"] == theirs["line"] and mine["f"] == theirs["f"]


def test_makemore_idioms_without_pytorch() -> None:
    """The same programs, checked by closed forms (no PyTorch needed)."""
    bigram = _bigram_program(tg)
    assert bigram["counts"].dtype == np.int32 and bigram["counts"].sum().item() == sum(
        len(w) + 1 for w in WORDS
    )
    np.testing.assert_allclose(bigram["probs"].sum(1).numpy(), np.ones(V))
    mlp = _mlp_program(tg)
    assert mlp["count"] == V * 4 + 12 * 16 + 16 * V + 16
    for exact, close, worst in mlp["checks"].values():
        assert close and worst < 1e-13
    assert mlp["f"] == (f"{mlp['loss'].item():.6f}", True)
    shapes = _shapes_program(tg)
    assert shapes["running"].tolist() == pytest.approx(
        np.linspace(3.0, 1.0, 12).reshape(3, 4).mean(1).tolist()
    )
