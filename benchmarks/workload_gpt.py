"""Workloads gpt_nano and gpt_char: one GPT training step as minGPT's and nanoGPT's users write it
(forward, zero_grad(set_to_none=True), backward, clip_grad_norm_(1.0), AdamW with two parameter
groups), the model of gpt_model.py run on tapegrad and on PyTorch from the same weights and
batches. No hand-written NumPy arm (a GPT's hand-derived backward is a project of its own): the
PyTorch arm is the reference the harness checks the tapegrad arm against, so these workloads run
only when torch is importable. Imports cases.py, gpt_model.py and NumPy; tapegrad and torch inside
the builders.

gpt_nano is minGPT's adder (2-digit sums as digit strings: vocab 10, block 6, the first 3 targets
ignored) with minGPT's masked_fill + softmax attention; gpt_char is nanoGPT's Shakespeare-char
model (no biases) on a random 65-symbol text (the step's cost does not depend on the text) with
F.scaled_dot_product_attention.
"""

from __future__ import annotations

import numpy as np

import gpt_model
from cases import ArmTable, Case, torch_one_thread

NANO = gpt_model.GPTConfig(block_size=6, vocab_size=10, n_layer=3, n_head=3, n_embd=48, flash=False)
CHAR = gpt_model.GPTConfig(
    block_size=64, vocab_size=65, n_layer=4, n_head=4, n_embd=128, bias=False, flash=True
)
CONFIGS = {"nano": NANO, "char": CHAR}


def adder_batch(rng: np.random.Generator, batch: int, ndigit: int = 2) -> tuple:
    """minGPT's AdditionDataset: a, b, then a + b reversed, as digits; x = all but the last digit,
    y = all but the first, its first 2 * ndigit - 1 positions ignored (-1)."""
    a = rng.integers(0, 10**ndigit, batch)
    b = rng.integers(0, 10**ndigit, batch)
    rows = []
    for ai, bi in zip(a, b):
        text = f"{ai:0{ndigit}d}{bi:0{ndigit}d}" + f"{ai + bi:0{ndigit + 1}d}"[::-1]
        rows.append([int(ch) for ch in text])
    seq = np.array(rows, dtype=np.int64)
    x, y = seq[:, :-1].copy(), seq[:, 1:].copy()
    y[:, : 2 * ndigit - 1] = -1
    return x, y


def char_batch(rng: np.random.Generator, batch: int, block: int, vocab: int) -> tuple:
    """nanoGPT's get_batch: `batch` windows of a token stream, targets shifted by one."""
    text = rng.integers(0, vocab, 20_000)
    starts = rng.integers(0, len(text) - block - 1, batch)
    x = np.stack([text[i : i + block] for i in starts])
    y = np.stack([text[i + 1 : i + 1 + block] for i in starts])
    return x.astype(np.int64), y.astype(np.int64)


def gpt_data(
    model: str = "nano",
    batch: int = 64,
    lr: float = 5e-4,
    betas: tuple = (0.9, 0.95),
    weight_decay: float = 0.1,
    config: gpt_model.GPTConfig | None = None,
    seed: int = 0,
) -> dict:
    """The config, nanoGPT-initialised weights (float32) and one batch shared by both arms."""
    config = config or CONFIGS[model]
    rng = np.random.default_rng(seed)
    if model == "nano":
        x, y = adder_batch(rng, batch)
    else:
        x, y = char_batch(rng, batch, config.block_size, config.vocab_size)
    weights = gpt_model.init_weights(config, seed)
    return {
        "config": config,
        "weights": weights,
        "X": x,
        "Y": y,
        "lr": lr,
        "betas": betas,
        "weight_decay": weight_decay,
    }


def gpt_case(lib, d: dict) -> Case:
    """The training step on `lib`; gradients and weights in init_weights' order."""
    model = gpt_model.build_gpt(lib, d["config"])
    gpt_model.load_weights(lib, model, d["weights"])
    model.train()
    named = dict(model.named_parameters())
    params = [named[name] for name in d["weights"]]
    optimizer = model.configure_optimizers(d["weight_decay"], d["lr"], d["betas"])
    X, Y = lib.tensor(d["X"]), lib.tensor(d["Y"])
    clip = lib.nn.utils.clip_grad_norm_

    def step():
        logits, loss = model(X, Y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        clip(model.parameters(), 1.0)
        optimizer.step()
        return loss

    return Case(
        step,
        lambda: [p.grad.numpy() for p in params],
        lambda: [p.detach().numpy() for p in params],
    )


def gpt_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    return gpt_case(tg, d)


def gpt_torch(d: dict) -> Case:
    return gpt_case(torch_one_thread(), d)


ARMS: ArmTable = {"tapegrad": gpt_tapegrad, "torch": gpt_torch}
