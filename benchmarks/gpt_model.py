"""A GPT written once, in the idioms of minGPT and nanoGPT, for a library passed in as `lib`
(tapegrad or torch): token + position embeddings, pre-norm blocks of causal self-attention and a
GELU MLP, a final LayerNorm and a tied language-model head, cross-entropy with ignore_index=-1,
AdamW with two parameter groups (decay / no decay). Attention runs through
F.scaled_dot_product_attention (nanoGPT's "flash" path) or the explicit masked_fill + softmax
(minGPT's). Imports NumPy only; the library comes in as an argument.

The initial weights come from `init_weights` (NumPy, nanoGPT's init), keyed as the state dict is,
so both libraries start from the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GPTConfig:
    block_size: int
    vocab_size: int
    n_layer: int
    n_head: int
    n_embd: int
    dropout: float = 0.0
    bias: bool = True
    flash: bool = True  # F.scaled_dot_product_attention (nanoGPT); False: masked_fill (minGPT)


def build_gpt(lib, config: GPTConfig):
    """The model for `lib` (a module with torch's names: nn, nn.functional, optim, ...)."""
    nn, F = lib.nn, lib.nn.functional

    class LayerNorm(nn.Module):
        """nanoGPT's LayerNorm: the bias is optional (PyTorch's had no bias=False then)."""

        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(ndim))
            self.bias = nn.Parameter(lib.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            self.dropout = config.dropout
            self.flash = config.flash
            if not self.flash:  # minGPT: the causal mask as a buffer
                t = config.block_size
                self.register_buffer("bias", lib.tril(lib.ones(t, t)).view(1, 1, t, t))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            if self.flash:
                y = F.scaled_dot_product_attention(
                    q,
                    k,
                    v,
                    attn_mask=None,
                    dropout_p=self.dropout if self.training else 0,
                    is_causal=True,
                )
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
                att = F.softmax(att, dim=-1)
                att = self.attn_dropout(att)
                y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
            # (nanoGPT: y.transpose(1, 2).contiguous().view(B, T, C); reshape is the same copy,
            # and tapegrad's main has no contiguous() yet)
            y = y.transpose(1, 2).reshape(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(
                dict(
                    wte=nn.Embedding(config.vocab_size, config.n_embd),
                    wpe=nn.Embedding(config.block_size, config.n_embd),
                    drop=nn.Dropout(config.dropout),
                    h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                    ln_f=LayerNorm(config.n_embd, bias=config.bias),
                )
            )
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long, device=device)
            tok_emb = self.transformer.wte(idx)  # (b, t, n_embd)
            pos_emb = self.transformer.wpe(pos)  # (t, n_embd)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = None
            if targets is not None:
                loss = F.cross_entropy(
                    logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
                )
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas):
            param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {"params": decay_params, "weight_decay": weight_decay},
                {"params": nodecay_params, "weight_decay": 0.0},
            ]
            return lib.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

    return GPT(config)


def init_weights(config: GPTConfig, seed: int = 0, dtype=np.float32) -> dict:
    """nanoGPT's init as NumPy arrays keyed by state-dict name: N(0, 0.02) for linear and
    embedding weights, N(0, 0.02 / sqrt(2 * n_layer)) for the residual projections, zero biases,
    LayerNorm weights one. The tied head is stored once, as transformer.wte.weight."""
    rng = np.random.default_rng(seed)
    c, e = config, config.n_embd

    def normal(*shape, std=0.02):
        return (std * rng.standard_normal(shape)).astype(dtype)

    zeros, ones = (lambda n: np.zeros(n, dtype)), (lambda n: np.ones(n, dtype))
    w = {"transformer.wte.weight": normal(c.vocab_size, e)}
    w["transformer.wpe.weight"] = normal(c.block_size, e)
    proj_std = 0.02 / math.sqrt(2 * c.n_layer)
    for i in range(c.n_layer):
        h = f"transformer.h.{i}."
        layers = {
            "ln_1": None,
            "attn.c_attn": (3 * e, e, 0.02),
            "attn.c_proj": (e, e, proj_std),
            "ln_2": None,
            "mlp.c_fc": (4 * e, e, 0.02),
            "mlp.c_proj": (e, 4 * e, proj_std),
        }
        for name, spec in layers.items():
            if spec is None:
                w[h + name + ".weight"] = ones(e)
                if c.bias:
                    w[h + name + ".bias"] = zeros(e)
            else:
                w[h + name + ".weight"] = normal(spec[0], spec[1], std=spec[2])
                if c.bias:
                    w[h + name + ".bias"] = zeros(spec[0])
    w["transformer.ln_f.weight"] = ones(e)
    if c.bias:
        w["transformer.ln_f.bias"] = zeros(e)
    return w


def load_weights(lib, model, weights: dict) -> None:
    """Copy `weights` (NumPy, by state-dict name) into `model`'s parameters and the tied head."""
    params = dict(model.named_parameters())
    with lib.no_grad():
        for name, value in weights.items():
            params[name].copy_(lib.tensor(value))
