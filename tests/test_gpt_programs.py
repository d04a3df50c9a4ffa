"""A small GPT and a trainer loop written once, as PyTorch users write them, and run on tapegrad
and on PyTorch (the library is an argument): token and position embeddings, causal
self-attention through F.scaled_dot_product_attention and through masked_fill + softmax,
LayerNorm, GELU, weight tying, parameter groups for AdamW, clip_grad_norm_, generation with
topk and multinomial, a DataLoader over a RandomSampler. Logits, loss, every gradient and the
weights after AdamW steps agree with PyTorch in float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg


def build_gpt(lib, vocab=11, block=8, n_embd=12, n_head=3, n_layer=2, flash=True):
    """minGPT/nanoGPT's model, in their idioms, for the library `lib` (tapegrad or torch)."""
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout = nn.Dropout(0.0)
            self.resid_dropout = nn.Dropout(0.0)
            self.flash = flash
            if not flash:
                causal = lib.tril(lib.ones(block, block)).view(1, 1, block, block)
                self.register_buffer("bias", causal)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            if self.flash:
                y = F.scaled_dot_product_attention(
                    q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True
                )
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
                att = F.softmax(att, dim=-1)
                y = self.attn_dropout(att) @ v
            y = y.transpose(1, 2).reshape(B, T, C)  # (minGPT: .contiguous().view(B, T, C))
            return self.resid_dropout(self.c_proj(y))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.ModuleDict(
                dict(
                    c_fc=nn.Linear(n_embd, 4 * n_embd),
                    c_proj=nn.Linear(4 * n_embd, n_embd),
                    act=nn.GELU(),
                    dropout=nn.Dropout(0.0),
                )
            )

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            m = self.mlp
            return x + m.dropout(m.c_proj(m.act(m.c_fc(self.ln_2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(
                dict(
                    wte=nn.Embedding(vocab, n_embd),
                    wpe=nn.Embedding(block, n_embd),
                    drop=nn.Dropout(0.0),
                    h=nn.ModuleList([Block() for _ in range(n_layer)]),
                    ln_f=nn.LayerNorm(n_embd),
                )
            )
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying

        def forward(self, idx, targets=None):
            device = idx.device
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long, device=device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for blk in self.transformer.h:
                x = blk(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(
                    logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
                )
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas):
            params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
            decay = [p for n, p in params.items() if p.dim() >= 2]
            nodecay = [p for n, p in params.items() if p.dim() < 2]
            groups = [
                {"params": decay, "weight_decay": weight_decay},
                {"params": nodecay, "weight_decay": 0.0},
            ]
            return lib.optim.AdamW(groups, lr=learning_rate, betas=betas)

        @lib.no_grad()
        def generate(self, idx, max_new_tokens, top_k=None, generator=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= block else idx[:, -block:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :]
                if top_k is not None:
                    v, _ = lib.topk(logits, top_k)
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = lib.multinomial(probs, num_samples=1, generator=generator)
                idx = lib.cat((idx, idx_next), dim=1)
            return idx

    return GPT()


def same_weights(ours, theirs):
    """Copy torch's initial weights into tapegrad's model (the state dicts line up by name)."""
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    result = ours.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys


@pytest.mark.parametrize("flash", [True, False], ids=["sdpa", "masked_fill"])
def test_gpt_trains_as_on_pytorch(flash):
    torch = pytest.importorskip("torch", reason="the comparison with PyTorch needs it")
    torch.manual_seed(0)
    theirs = build_gpt(torch, flash=flash).double()
    ours = build_gpt(tg, flash=flash).to(tg.float64)
    same_weights(ours, theirs)
    assert ours.transformer.wte.weight is ours.lm_head.weight  # (tied)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 11, size=(4, 8))
    targets = rng.integers(0, 11, size=(4, 8))
    targets[0, :3] = -1  # (ignored positions)
    opt_t = theirs.configure_optimizers(0.1, 1e-2, (0.9, 0.95))
    opt_o = ours.configure_optimizers(0.1, 1e-2, (0.9, 0.95))
    for step in range(3):
        logits_t, loss_t = theirs(torch.tensor(idx), torch.tensor(targets))
        logits_o, loss_o = ours(tg.tensor(idx), tg.tensor(targets))
        np.testing.assert_allclose(
            logits_o.numpy(), logits_t.detach().numpy(), rtol=1e-10, atol=1e-12
        )
        assert loss_o.item() == pytest.approx(loss_t.item(), rel=1e-12)
        opt_t.zero_grad(set_to_none=True)
        opt_o.zero_grad(set_to_none=True)
        loss_t.backward()
        loss_o.backward()
        norm_t = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        norm_o = tg.nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
        assert norm_o.dtype == np.float64 and norm_o.item() == pytest.approx(
            norm_t.item(), rel=1e-10
        )
        grads_t = {n: p.grad.numpy() for n, p in theirs.named_parameters()}
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), grads_t[name], rtol=1e-9, atol=1e-12)
        opt_t.step()
        opt_o.step()
    weights_t = {n: p.detach().numpy() for n, p in theirs.named_parameters()}
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.numpy(), weights_t[name], rtol=1e-9, atol=1e-12)


def test_gpt_generates_with_topk_and_a_generator():
    ours = build_gpt(tg).to(tg.float64)
    start = tg.zeros((2, 1), dtype=tg.long)
    a = ours.generate(start, 12, top_k=3, generator=tg.Generator().manual_seed(1))
    b = ours.generate(start, 12, top_k=3, generator=tg.Generator().manual_seed(1))
    assert a.shape == (2, 13) and a.dtype == np.int64 and a.tolist() == b.tolist()
    greedy = ours.generate(start, 5, top_k=1)  # (top_k=1 leaves one choice: deterministic)
    assert greedy.tolist() == ours.generate(start, 5, top_k=1).tolist()


def test_trainer_loop_over_a_random_sampler():
    """minGPT's Trainer: an endless loader drawing with replacement, re-created when exhausted."""
    from tapegrad.utils.data.dataloader import DataLoader
    from tapegrad.utils.data import RandomSampler, TensorDataset

    tg.manual_seed(0)
    x = tg.randint(0, 11, (40, 8))
    data = TensorDataset(x, tg.tensor((x.numpy() + 1) % 11))  # (learn to add one)
    model = build_gpt(tg)
    optimizer = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95))
    loader = DataLoader(
        data,
        sampler=RandomSampler(data, replacement=True, num_samples=10**9),
        shuffle=False,
        pin_memory=False,
        batch_size=8,
        num_workers=0,
    )
    model.train()
    losses, data_iter = [], iter(loader)
    for _ in range(60):
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)
        xb, yb = batch
        _, loss = model(xb, yb)
        model.zero_grad(set_to_none=True)
        loss.backward()
        tg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    assert np.mean(losses[-10:]) < np.mean(losses[:10]) - 0.3
