"""The benchmark's GPT (benchmarks/gpt_model.py, the gpt_nano and gpt_char workloads at their full
sizes) computes the same on tapegrad and on PyTorch: in float64, from the same weights and batch,
equal logits, loss and every gradient, equal clipped norm, and equal weights after AdamW steps."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tapegrad as tg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "benchmarks"))
import gpt_model  # noqa: E402
import workload_gpt  # noqa: E402


def _model(lib, config, weights, to_float64):
    model = to_float64(gpt_model.build_gpt(lib, config))
    gpt_model.load_weights(lib, model, weights)
    return model


@pytest.mark.parametrize("name", ["nano", "char"])
def test_benchmark_gpt_equals_pytorch_in_float64(name):
    torch = pytest.importorskip("torch", reason="the comparison with PyTorch needs it")
    d = workload_gpt.gpt_data(model=name, batch=4)
    config = d["config"]
    weights = gpt_model.init_weights(config, seed=1, dtype=np.float64)
    theirs = _model(torch, config, weights, lambda m: m.double())
    ours = _model(tg, config, weights, lambda m: m.to(tg.float64))
    assert ours.transformer.wte.weight is ours.lm_head.weight  # (tied)
    assert config.flash == (name == "char")  # (nano: masked_fill + softmax; char: SDPA)
    opt_t = theirs.configure_optimizers(d["weight_decay"], d["lr"], d["betas"])
    opt_o = ours.configure_optimizers(d["weight_decay"], d["lr"], d["betas"])
    x, y = d["X"], d["Y"]
    for _ in range(2):
        logits_t, loss_t = theirs(torch.tensor(x), torch.tensor(y))
        logits_o, loss_o = ours(tg.tensor(x), tg.tensor(y))
        assert logits_o.dtype == tg.float64 and logits_o.shape == tuple(logits_t.shape)
        np.testing.assert_allclose(
            logits_o.numpy(), logits_t.detach().numpy(), rtol=1e-10, atol=1e-13
        )
        assert loss_o.item() == pytest.approx(loss_t.item(), rel=1e-12)
        opt_t.zero_grad(set_to_none=True)
        opt_o.zero_grad(set_to_none=True)
        loss_t.backward()
        loss_o.backward()
        norm_t = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        norm_o = tg.nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
        assert norm_o.item() == pytest.approx(norm_t.item(), rel=1e-10)
        grads_t = {n: p.grad.numpy() for n, p in theirs.named_parameters()}
        names = [n for n, _ in ours.named_parameters()]
        assert names == list(grads_t) == list(weights)  # (the tied head counted once)
        for n, p in ours.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), grads_t[n], rtol=1e-9, atol=1e-13)
        opt_t.step()
        opt_o.step()
    weights_t = {n: p.detach().numpy() for n, p in theirs.named_parameters()}
    for n, p in ours.named_parameters():
        np.testing.assert_allclose(p.numpy(), weights_t[n], rtol=1e-9, atol=1e-13)
