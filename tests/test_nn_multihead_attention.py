"""MultiheadAttention: outputs, attention weights and every gradient equal PyTorch's with copied
weights (batch_first, unbatched, kdim/vdim, no bias, bool and float attn_mask, key_padding_mask,
per-head weights, is_causal); parameter names, shapes and init, repr and errors as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck

nn = tg.nn


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _pair(*args, **kwargs):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.MultiheadAttention(*args, **kwargs).double()
    ours = nn.MultiheadAttention(*args, **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(_rand(*p.shape, seed=len(name)) * 0.4))
    for name, p in theirs.named_parameters():
        target = ours.get_parameter(name) if hasattr(ours, "get_parameter") else None
        target = target if target is not None else _attr(ours, name)
        assert target.shape == tuple(p.shape), name
        target.set_data(p.detach().numpy().copy())
    return ours, theirs


def _attr(module, dotted: str):
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


def _same(ours, theirs, arrays: list, **kw) -> None:
    torch = pytest.importorskip("torch")
    masks = {k: v for k, v in kw.items() if k.endswith("mask")}
    flags = {k: v for k, v in kw.items() if not k.endswith("mask")}
    gi = [tg.tensor(a, requires_grad=True) for a in arrays]
    ti = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, w = ours(*gi, **{k: tg.tensor(v) for k, v in masks.items()}, **flags)
    tout, tw = theirs(*ti, **{k: torch.tensor(v) for k, v in masks.items()}, **flags)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    if tw is None:
        assert w is None
    else:
        np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    c = _rand(*out.shape, seed=7)
    loss = (out * tg.tensor(c)).sum() + (0 if w is None else (w * w).sum())
    tloss = (tout * torch.tensor(c)).sum() + (0 if tw is None else (tw * tw).sum())
    loss.backward()
    tloss.backward()
    for a, t in zip(gi, ti):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            _attr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name
        )


def test_self_attention_equals_pytorchs():
    ours, theirs = _pair(8, 2)
    x = _rand(5, 3, 8)
    _same(ours, theirs, [x, x, x])


def test_batch_first_cross_attention_with_kdim_vdim_and_no_bias():
    ours, theirs = _pair(8, 4, bias=False, kdim=3, vdim=5, batch_first=True)
    _same(ours, theirs, [_rand(2, 4, 8), _rand(2, 6, 3, seed=1), _rand(2, 6, 5, seed=2)])


def test_masks_and_per_head_weights():
    ours, theirs = _pair(6, 3)
    q, k = _rand(4, 2, 6), _rand(5, 2, 6, seed=1)
    causal = np.triu(np.ones((4, 5), bool), 1)
    padding = np.array([[False] * 4 + [True], [False] * 5])
    _same(ours, theirs, [q, k, k], attn_mask=causal, key_padding_mask=padding)
    ours.zero_grad(), theirs.zero_grad()
    float_mask = _rand(6, 4, 5, seed=3)  # (N * H, L, S), added
    _same(ours, theirs, [q, k, k], attn_mask=float_mask, average_attn_weights=False)
    ours.zero_grad(), theirs.zero_grad()
    _same(ours, theirs, [q, k, k], need_weights=False)


def test_is_causal_uses_the_mask_given():
    ours, theirs = _pair(4, 2, batch_first=True)
    x = _rand(2, 3, 4)
    causal = np.triu(np.ones((3, 3), bool), 1)
    _same(ours, theirs, [x, x, x], attn_mask=causal, is_causal=True, need_weights=False)


def test_unbatched_input():
    ours, theirs = _pair(6, 2)
    _same(ours, theirs, [_rand(4, 6), _rand(3, 6, seed=1), _rand(3, 6, seed=2)])


def test_finite_differences():
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    x = tg.tensor(_rand(1, 3, 4), requires_grad=True)
    assert gradcheck(lambda x: mha(x, x, x)[0], [x])


@pytest.mark.parametrize(
    "kw",
    [
        {"add_bias_kv": True},
        {"add_zero_attn": True},
        {"add_bias_kv": True, "add_zero_attn": True, "batch_first": True},
    ],
)
def test_bias_kv_and_zero_attention_as_pytorchs(kw) -> None:
    ours, theirs = _pair(8, 2, **kw)
    source = (2, 5, 8) if kw.get("batch_first") else (5, 2, 8)
    target = (2, 3, 8) if kw.get("batch_first") else (3, 2, 8)
    arrays = [_rand(*target, seed=1), _rand(*source, seed=2), _rand(*source, seed=3)]
    mask = np.zeros((3, 5), bool)
    mask[0, 1] = True
    padding = np.zeros((2, 5), bool)
    padding[1, 4] = True
    _same(ours, theirs, arrays, attn_mask=mask, key_padding_mask=padding)


def test_init_as_pytorchs():
    tg.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4)
    bound = np.sqrt(6 / (16 + 48))  # (xavier_uniform of (3E, E))
    w = mha.in_proj_weight.numpy()
    assert w.shape == (48, 16) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not mha.in_proj_bias.numpy().any() and not mha.out_proj.bias.numpy().any()
    assert mha.q_proj_weight is None and mha.head_dim == 4


def test_errors_are_pytorchs():
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(8, 3)
    mha = nn.MultiheadAttention(8, 2)
    x = tg.randn(3, 2, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 4"):
        mha(tg.randn(3, 2, 4), x, x)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        mha(x, x, x, attn_mask=tg.zeros(2, 2))
    with pytest.raises(AssertionError, match="expecting key_padding_mask shape of"):
        mha(x, x, x, key_padding_mask=tg.zeros(3, 2))
    with pytest.raises(TypeError, match="query must be a tapegrad Tensor"):
        mha(np.ones((3, 2, 8)), x, x)


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.multihead_attention as module

    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, extraglobs={"tg": tg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
