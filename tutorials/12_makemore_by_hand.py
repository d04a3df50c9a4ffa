# %% [markdown]
# # 12 · Making up names, one character at a time, with the backward written by hand
#
# A character-level language model in the manner of Andrej Karpathy's *makemore* lectures, written
# with PyTorch's spellings (they run unchanged here). First the table of which character follows
# which (a bigram model), sampled with a generator of its own. Then a small network (embeddings,
# one hidden layer with batch normalisation, tanh, cross-entropy) whose backward pass we write out
# by hand, one intermediate value at a time, and check at every step against the gradient the tape
# computed. Last, we train it with our own gradients and let it make up names.

# %%
import numpy as np

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad.utils.data import DataLoader, RandomSampler, TensorDataset

# %% [markdown]
# ## The names
# No download: the names are made here from syllables, by a generator seeded once, so every run
# (and every machine) gets the same list.

# %%
syllables = "ka ri mo la ne ti sa lu ve no ra mi el an jo be da si to ya".split()
maker = tg.Generator().manual_seed(42)


def made_up_name() -> str:
    count = tg.randint(2, 4, (1,), generator=maker).item()
    picks = tg.randint(0, len(syllables), (count,), generator=maker).tolist()
    return "".join(syllables[i] for i in picks)


names = sorted({made_up_name() for _ in range(1200)})
print(len(names), "names, e.g.", ", ".join(names[:6]))

# %% [markdown]
# Characters become integers; `.` marks both the start and the end of a name.

# %%
chars = sorted(set("".join(names)))
stoi = {c: i + 1 for i, c in enumerate(chars)}
stoi["."] = 0
itos = {i: c for c, i in stoi.items()}
vocab = len(itos)
print("vocabulary:", vocab, "characters")

# %% [markdown]
# ## A bigram model: count, normalise, sample
# Every pair of neighbouring characters is counted into a 27-by-27-ish table, here with one matrix
# product of one-hot rows rather than a Python loop: entry (a, b) of `onehot(first).T @
# onehot(second)` counts how often b follows a.

# %%
firsts, seconds = [], []
for name in names:
    chs = ["."] + list(name) + ["."]
    for a, b in zip(chs, chs[1:]):
        firsts.append(stoi[a])
        seconds.append(stoi[b])
xs, ys = tg.tensor(firsts), tg.tensor(seconds)
N = F.one_hot(xs, vocab).T @ F.one_hot(ys, vocab)
P = (N + 1).to(tg.float32)  # (+1: no pair is impossible, so no log(0) below)
P = P / P.sum(1, keepdim=True)
nll = -P[xs, ys].log().mean()
print(f"bigram nll: {nll.item():.4f}  (a uniform guess: {np.log(vocab):.4f})")

# %% [markdown]
# Sampling: start at `.`, draw the next character from its row of P, stop at `.` again. The
# generator is seeded as in the lectures; `tg.multinomial` draws an index with the row's weights.

# %%
g = tg.Generator().manual_seed(2147483647)
for _ in range(5):
    out, ix = [], 0
    while True:
        ix = tg.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        if ix == 0:
            break
        out.append(itos[ix])
    print("bigram sample:", "".join(out))

# %% [markdown]
# ## A network: three characters in, the next one out
# Each example is the previous `block_size` characters (padded with `.`) and the character that
# follows.

# %%
block_size = 3


def examples(words: list[str]) -> tuple[tg.Tensor, tg.Tensor]:
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return tg.tensor(X), tg.tensor(Y)


X, Y = examples(names)
print("examples:", X.shape, Y.shape)

# %% [markdown]
# The parameters, in float64 so that hand and tape can be compared to the last bits. The
# initialisation scales keep tanh out of saturation at the start (Kaiming's gain 5/3 for tanh).

# %%
n_embd, n_hidden = 10, 64
g = tg.Generator().manual_seed(2147483647)
fan_in = n_embd * block_size
initial = {
    "C": tg.randn(vocab, n_embd, generator=g, dtype=tg.float64),
    "W1": tg.randn(fan_in, n_hidden, generator=g, dtype=tg.float64) * (5 / 3) / fan_in**0.5,
    "b1": tg.randn(n_hidden, generator=g, dtype=tg.float64) * 0.1,
    "W2": tg.randn(n_hidden, vocab, generator=g, dtype=tg.float64) * 0.1,
    "b2": tg.randn(vocab, generator=g, dtype=tg.float64) * 0.1,
    "bngain": tg.ones(1, n_hidden, dtype=tg.float64),
    "bnbias": tg.zeros(1, n_hidden, dtype=tg.float64),
}
params = {k: tg.tensor(v.numpy(), requires_grad=True, name=k) for k, v in initial.items()}
C, W1, b1, W2, b2, bngain, bnbias = params.values()
print("parameters:", sum(p.numel() for p in params.values()))

# %% [markdown]
# ## The forward pass, one small step at a time
# Every intermediate gets a name, so that its gradient can be checked by itself. Batches come
# from a `DataLoader` over a `RandomSampler` with its own generator.

# %%
batch_size = 32
loader = DataLoader(
    TensorDataset(X, Y),
    batch_size=batch_size,
    sampler=RandomSampler(X, replacement=True, num_samples=10**6, generator=g),
)
batches = iter(loader)
Xb, Yb = next(batches)
n = batch_size


def forward(Xb: tg.Tensor, Yb: tg.Tensor) -> dict:
    emb = C[Xb]  # (n, block_size, n_embd): one row of C per character
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = hprebn.mean(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = bndiff2.sum(0, keepdim=True) / (n - 1)  # (Bessel's n - 1, as the lectures)
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = hpreact.tanh()
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # (subtracting the max keeps exp from overflowing)
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdim=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[tg.arange(n), Yb].mean()
    return dict(locals())


v = forward(Xb, Yb)
for name, t in v.items():
    if isinstance(t, tg.Tensor) and t.requires_grad:
        t.retain_grad()  # (keep the gradients of the intermediates, not only the leaves')
v["loss"].backward()
print(f"loss: {v['loss'].item():.4f}")

# %% [markdown]
# ## The backward pass, by hand
# From the loss back to the parameters, one line per forward line, each compared with the tape:
# `exact` when every bit agrees, `approximate` when within rounding, and the largest difference.


# %%
def cmp(label: str, by_hand: tg.Tensor, t: tg.Tensor) -> None:
    exact = bool((by_hand == t.grad).all())
    approximate = bool(np.allclose(by_hand.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-13))
    maxdiff = float(np.abs(by_hand.numpy() - t.grad.numpy()).max())
    flags = f"exact: {exact!s:5} | approximate: {approximate!s:5}"
    print(f"{label:15s} | {flags} | maxdiff: {maxdiff:.1e}")


with tg.no_grad():  # (our gradients are plain values: nothing to record)
    d = {}
    d["logprobs"] = tg.zeros_like(v["logprobs"])
    d["logprobs"][tg.arange(n), Yb] = -1.0 / n  # the mean picks one entry per row
    d["probs"] = (1.0 / v["probs"]) * d["logprobs"]  # d log(p) = dp / p
    d["counts_sum_inv"] = (v["counts"] * d["probs"]).sum(1, keepdim=True)  # broadcast: sum back
    d["counts"] = v["counts_sum_inv"] * d["probs"]
    d["counts_sum"] = -(v["counts_sum"] ** -2) * d["counts_sum_inv"]
    d["counts"] = (
        d["counts"] + tg.ones_like(v["counts"]) * d["counts_sum"]
    )  # a second use of counts
    d["norm_logits"] = v["counts"] * d["counts"]  # d exp(x) = exp(x) dx
    d["logit_maxes"] = (-d["norm_logits"]).sum(1, keepdim=True)
    at_max = F.one_hot(v["logits"].max(1).indices, vocab).to(tg.float64)
    d["logits"] = d["norm_logits"] + at_max * d["logit_maxes"]  # the max picks one per row
    d["h"] = d["logits"] @ W2.T
    d["W2"] = v["h"].T @ d["logits"]
    d["b2"] = d["logits"].sum(0)
    d["hpreact"] = (1.0 - v["h"] ** 2) * d["h"]  # d tanh(x) = (1 - tanh(x)^2) dx
    d["bngain"] = (v["bnraw"] * d["hpreact"]).sum(0, keepdim=True)
    d["bnraw"] = bngain * d["hpreact"]
    d["bnbias"] = d["hpreact"].sum(0, keepdim=True)
    d["bndiff"] = v["bnvar_inv"] * d["bnraw"]
    d["bnvar_inv"] = (v["bndiff"] * d["bnraw"]).sum(0, keepdim=True)
    d["bnvar"] = -0.5 * (v["bnvar"] + 1e-5) ** -1.5 * d["bnvar_inv"]
    d["bndiff2"] = tg.ones_like(v["bndiff2"]) * d["bnvar"] / (n - 1)
    d["bndiff"] = d["bndiff"] + 2 * v["bndiff"] * d["bndiff2"]  # bndiff is used twice
    d["bnmeani"] = (-d["bndiff"]).sum(0, keepdim=True)
    d["hprebn"] = d["bndiff"] + tg.ones_like(v["hprebn"]) * d["bnmeani"] / n
    d["embcat"] = d["hprebn"] @ W1.T
    d["W1"] = v["embcat"].T @ d["hprebn"]
    d["b1"] = d["hprebn"].sum(0)
    d["emb"] = d["embcat"].view(v["emb"].shape)
    rows = F.one_hot(Xb.view(-1), vocab).to(tg.float64)  # which row of C each character read
    d["C"] = rows.T @ d["emb"].view(-1, n_embd)  # rows read twice get both gradients

order = ["logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits"]
order += ["logit_maxes", "logits", "h", "W2", "b2", "hpreact", "bngain", "bnbias", "bnraw"]
order += ["bnvar_inv", "bnvar", "bndiff2", "bndiff", "bnmeani", "hprebn", "embcat", "W1", "b1"]
order += ["emb", "C"]
for name in order:
    cmp(name, d[name], params[name] if name in params else v[name])

# %% [markdown]
# The max subtracted from the logits changes nothing in the loss, so its gradient is zero up to
# rounding: `logit_maxes` above holds values near 1e-18, the same ones by hand and on the tape,
# since both take the same steps in the same order.
#
# ## Whole layers at once
# Cross-entropy's backward fits in one line: softmax(logits) minus the one-hot targets, over n.
# Batch normalisation's too (a little algebra over the lines above). Both against the tape:

# %%
with tg.no_grad():
    dlogits = (F.softmax(v["logits"], 1) - F.one_hot(Yb, vocab).to(tg.float64)) / n
    bnraw, dhpreact = v["bnraw"], v["hpreact"].grad
    dbnraw = bngain * dhpreact
    dhprebn = (
        bngain
        * v["bnvar_inv"]
        / n
        * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
    )
cmp("logits (fused)", dlogits, v["logits"])
cmp("hprebn (fused)", dhprebn, v["hprebn"])

# %% [markdown]
# ## Training with our own gradients
# The same forward, our one-line backward for each layer, plain SGD; every 250 steps the
# gradients are checked against the tape once more.


# %%
def by_hand(v: dict) -> dict:
    """The gradients of every parameter, with the fused layer formulas."""
    with tg.no_grad():
        dlogits = (F.softmax(v["logits"], 1) - F.one_hot(v["Yb"], vocab).to(tg.float64)) / n
        dh = dlogits @ W2.T
        dhpreact = (1.0 - v["h"] ** 2) * dh
        bnraw = v["bnraw"]
        dhprebn = (
            bngain
            * v["bnvar_inv"]
            / n
            * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
        )
        demb = (dhprebn @ W1.T).view(v["emb"].shape)
        rows = F.one_hot(v["Xb"].view(-1), vocab).to(tg.float64)
        return {
            "C": rows.T @ demb.view(-1, n_embd),
            "W1": v["embcat"].T @ dhprebn,
            "b1": dhprebn.sum(0),
            "W2": v["h"].T @ dlogits,
            "b2": dlogits.sum(0),
            "bngain": (bnraw * dhpreact).sum(0, keepdim=True),
            "bnbias": dhpreact.sum(0, keepdim=True),
        }


for step in range(1001):
    Xb, Yb = next(batches)
    v = forward(Xb, Yb)
    grads = by_hand(v)
    if step % 250 == 0:
        tape = tg.autograd.grad(v["loss"], list(params.values()))
        agree = all(
            np.allclose(grads[k].numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
            for k, t in zip(params, tape)
        )
        print(f"step {step:3d}  loss {v['loss'].item():.4f}  hand == tape: {agree}")
    lr = 0.1 if step < 750 else 0.01
    with tg.no_grad():
        for k, p in params.items():
            p -= lr * grads[k]

# %% [markdown]
# ## Names the network makes up
# Batch normalisation needs the statistics of the whole training set once training is over;
# then one character at a time, as the bigram model did. `tg.inference_mode()` records nothing.

# %%
with tg.inference_mode():
    hpre = C[X].view(X.shape[0], -1) @ W1 + b1
    bnmean, bnvar = hpre.mean(0, keepdim=True), hpre.var(0, keepdim=True, ddof=1)
    h = (bngain * (hpre - bnmean) * (bnvar + 1e-5) ** -0.5 + bnbias).tanh()
    print(f"training-set loss: {F.cross_entropy(h @ W2 + b2, Y).item():.4f}")

    g = tg.Generator().manual_seed(2147483647 + 10)
    for _ in range(8):
        out, context = [], [0] * block_size
        while True:
            emb = C[tg.tensor([context])]
            hpre = emb.view(1, -1) @ W1 + b1
            h = (bngain * (hpre - bnmean) * (bnvar + 1e-5) ** -0.5 + bnbias).tanh()
            probs = F.softmax(h @ W2 + b2, dim=1)
            ix = tg.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            if ix == 0:
                break
            out.append(itos[ix])
        print("made up:", "".join(out))
