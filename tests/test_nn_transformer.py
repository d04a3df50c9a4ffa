"""TransformerEncoderLayer and TransformerEncoder: outputs and every gradient equal PyTorch's with
copied weights (post- and pre-norm, relu/gelu/callable activation, batch_first, masks, a final
norm); state_dict keys, reprs and errors as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

nn = tg.nn


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _attr(module, dotted: str):
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


def _copy(ours, theirs) -> None:
    import torch

    assert list(ours.state_dict()) == list(theirs.state_dict())
    with torch.no_grad():
        for i, (name, p) in enumerate(theirs.named_parameters()):
            p.copy_(torch.tensor(_rand(*p.shape, seed=i) * 0.3 + (1.0 if "norm" in name else 0)))
            _attr(ours, name).set_data(p.detach().numpy().copy())


def _same(ours, theirs, x: np.ndarray, **masks) -> None:
    torch = pytest.importorskip("torch")
    gx, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = ours(gx, **{k: tg.tensor(v) for k, v in masks.items()})
    want = theirs(tx, **{k: torch.tensor(v) for k, v in masks.items()})
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-11)
    c = _rand(*out.shape, seed=9)
    (out * tg.tensor(c)).sum().backward()
    (want * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            _attr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"norm_first": True, "activation": "gelu"},
        {"batch_first": True, "bias": False},
    ],
    ids=["post-norm", "pre-norm-gelu", "batch-first-no-bias"],
)
def test_encoder_layer_equals_pytorchs(kwargs):
    torch = pytest.importorskip("torch")
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs).double()
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs).double()
    assert repr(ours) == repr(theirs)
    _copy(ours, theirs)
    _same(ours, theirs, _rand(2, 5, 8) if kwargs.get("batch_first") else _rand(5, 2, 8))


def test_encoder_with_masks_and_a_final_norm_equals_pytorchs():
    torch = pytest.importorskip("torch")
    layer = nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0).double()
    ours = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8).double())
    tlayer = torch.nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0).double()
    theirs = torch.nn.TransformerEncoder(
        tlayer, 2, norm=torch.nn.LayerNorm(8).double(), enable_nested_tensor=False
    )
    _copy(ours, theirs)
    causal = np.triu(np.ones((4, 4), bool), 1)
    padding = np.array([[False, False, False, True], [False] * 4])
    _same(ours, theirs, _rand(4, 2, 8), mask=causal, src_key_padding_mask=padding)


def test_the_copies_are_independent():
    layer = nn.TransformerEncoderLayer(4, 2, 8)
    encoder = nn.TransformerEncoder(layer, 3)
    weights = [lay.linear1.weight for lay in encoder.layers]
    assert len({id(w) for w in weights}) == 3 and len(list(encoder.parameters())) == 36


def test_a_callable_activation_and_errors():
    layer = nn.TransformerEncoderLayer(4, 2, 8, activation=tg.tanh, dropout=0.0)
    assert layer.activation is tg.tanh
    assert layer(tg.randn(3, 4)).shape == (3, 4)  # (unbatched)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not swish"):
        nn.TransformerEncoderLayer(4, 2, activation="swish")
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        layer(tg.randn(3, 1, 4), is_causal=True)
    with pytest.raises(TypeError, match="encoder_layer must be a Module"):
        nn.TransformerEncoder("layer", 2)


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.transformer as module

    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, extraglobs={"tg": tg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
