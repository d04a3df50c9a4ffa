"""TransformerDecoderLayer, TransformerDecoder and Transformer against PyTorch with copied weights
(state_dicts move both ways: the keys are equal): outputs and gradients in eval mode, with masks,
key padding, norm_first, batch_first, gelu, unbatched input; generate_square_subsequent_mask;
structure, init and errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

RNG = np.random.default_rng(5)


def copied(ours: nn.Module, theirs: object) -> None:
    """theirs's weights into ours (float64), checking the keys agree."""
    state = theirs.state_dict()  # type: ignore[attr-defined]
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({k: v.detach().numpy() for k, v in state.items()})


def compare(ours_out: tg.Tensor, theirs_out: object, pairs: list, torch: object) -> None:
    np.testing.assert_allclose(
        ours_out.numpy(), theirs_out.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    g = RNG.standard_normal(ours_out.shape)
    (ours_out * tg.tensor(g)).sum().backward()
    (theirs_out * torch.tensor(g)).sum().backward()  # type: ignore[attr-defined]
    for a, b in pairs:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize(
    "norm_first, batch_first, activation",
    list(itertools.product([False, True], [False, True], ["relu", "gelu"])),
)
def test_decoder_layer_against_torch(norm_first: bool, batch_first: bool, activation: str) -> None:
    torch = pytest.importorskip("torch")
    kw = dict(norm_first=norm_first, batch_first=batch_first, activation=activation)
    theirs = torch.nn.TransformerDecoderLayer(8, 2, 16, **kw).double().eval()
    ours = nn.TransformerDecoderLayer(8, 2, 16, dtype=tg.float64, **kw).eval()
    copied(ours, theirs)
    shape_t, shape_m = ((3, 4, 8), (3, 6, 8)) if batch_first else ((4, 3, 8), (6, 3, 8))
    tgt, mem = RNG.standard_normal(shape_t), RNG.standard_normal(shape_m)
    causal = nn.Transformer.generate_square_subsequent_mask(4, dtype=tg.float64)
    padding = np.zeros((3, 6), bool)
    padding[1, 4:] = True
    a, b = tg.tensor(tgt, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    c, d = tg.tensor(mem, requires_grad=True), torch.tensor(mem, requires_grad=True)
    out = ours(a, c, tgt_mask=causal, memory_key_padding_mask=tg.tensor(padding))
    want = theirs(
        b, d, tgt_mask=torch.tensor(causal.numpy()), memory_key_padding_mask=torch.tensor(padding)
    )
    pairs = [(a, b), (c, d)] + [(p, q) for p, q in zip(ours.parameters(), theirs.parameters())]
    compare(out, want, pairs, torch)


def test_decoder_stack_and_unbatched_against_torch() -> None:
    torch = pytest.importorskip("torch")
    theirs = (
        torch.nn.TransformerDecoder(
            torch.nn.TransformerDecoderLayer(8, 2, 16), 2, norm=torch.nn.LayerNorm(8)
        )
        .double()
        .eval()
    )
    ours = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, dtype=tg.float64), 2, norm=nn.LayerNorm(8)
    ).eval()
    ours.to(tg.float64)
    copied(ours, theirs)
    tgt, mem = RNG.standard_normal((4, 8)), RNG.standard_normal((5, 8))  # (unbatched)
    a, b = tg.tensor(tgt, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    mask = np.triu(np.ones((4, 5), bool), 2)
    out = ours(a, tg.tensor(mem), memory_mask=tg.tensor(mask))
    want = theirs(b, torch.tensor(mem), memory_mask=torch.tensor(mask))
    compare(out, want, [(a, b)] + list(zip(ours.parameters(), theirs.parameters())), torch)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # (PyTorch's speed path: not ours)
@pytest.mark.parametrize("batch_first, norm_first", [(False, False), (True, True)])
def test_transformer_against_torch_both_ways(batch_first: bool, norm_first: bool) -> None:
    torch = pytest.importorskip("torch")
    kw = dict(batch_first=batch_first, norm_first=norm_first)
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, **kw).double().eval()
    ours = nn.Transformer(8, 2, 2, 2, 16, dtype=tg.float64, **kw).eval()
    copied(ours, theirs)
    # (and back: PyTorch loads ours)
    back = torch.nn.Transformer(8, 2, 2, 2, 16, **kw).double()
    back.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    src = RNG.standard_normal((2, 5, 8) if batch_first else (5, 2, 8))
    tgt = RNG.standard_normal((2, 4, 8) if batch_first else (4, 2, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(4, dtype=tg.float64)
    padding = np.zeros((2, 5), bool)
    padding[0, 3:] = True
    a, b = tg.tensor(src, requires_grad=True), torch.tensor(src, requires_grad=True)
    out = ours(
        a,
        tg.tensor(tgt),
        tgt_mask=causal,
        src_key_padding_mask=tg.tensor(padding),
        memory_key_padding_mask=tg.tensor(padding),
        tgt_is_causal=True,
    )
    args = dict(
        tgt_mask=torch.tensor(causal.numpy()),
        src_key_padding_mask=torch.tensor(padding),
        memory_key_padding_mask=torch.tensor(padding),
        tgt_is_causal=True,
    )
    want = theirs(b, torch.tensor(tgt), **args)
    np.testing.assert_allclose(
        back.eval()(torch.tensor(src), torch.tensor(tgt), **args).detach().numpy(),
        want.detach().numpy(),
    )
    compare(out, want, [(a, b)] + list(zip(ours.parameters(), theirs.parameters())), torch)


def test_structure_init_and_mask() -> None:
    model = nn.Transformer(8, 2, 1, 1, 16)
    assert model.d_model == 8 and model.nhead == 2 and not model.batch_first
    bound = np.sqrt(6 / (8 + 8))  # (Xavier-uniform of the out_proj weights, 8 x 8)
    weight = model.decoder.layers[0].multihead_attn.out_proj.weight.numpy()
    assert np.abs(weight).max() <= bound
    assert np.allclose(model.encoder.norm.weight.numpy(), 1.0)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == tg.float32
    assert np.array_equal(np.isinf(mask.numpy()), np.triu(np.ones((3, 3), bool), 1))
    layer = nn.TransformerDecoderLayer(8, 2, 16)
    assert len(nn.TransformerDecoder(layer, 3).layers) == 3
    assert nn.TransformerDecoder(layer, 3).layers[0] is not layer  # (copies)
    custom = nn.Transformer(8, 2, custom_encoder=nn.Identity(), custom_decoder=nn.Identity())
    assert isinstance(custom.encoder, nn.Identity)


def test_errors() -> None:
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(tg.randn(5, 2, 8), tg.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt"):
        model(tg.randn(5, 2, 8), tg.randn(4, 2, 6))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu"):
        nn.TransformerDecoderLayer(8, 2, activation="tanh")
    with pytest.raises(TypeError, match="decoder_layer must be a Module"):
        nn.TransformerDecoder("layer", 2)  # type: ignore[arg-type]


@pytest.mark.parametrize("module", ["transformer_decoder"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("kind", ["Encoder", "Decoder"])
def test_layer_and_stack_submodules_are_pytorchs_in_order(kind: str) -> None:
    # (the shared setup builds both layers: the names, order and kinds must stay each one's own)
    torch = pytest.importorskip("torch")
    ours = getattr(nn, f"Transformer{kind}Layer")(8, 2, 16, batch_first=True)
    theirs = getattr(torch.nn, f"Transformer{kind}Layer")(8, 2, 16, batch_first=True)
    want = [(n, type(m).__name__) for n, m in theirs.named_children()]
    assert [(n, type(m).__name__) for n, m in ours.named_children()] == want
    stack = getattr(nn, f"Transformer{kind}")(ours, 2, nn.LayerNorm(8))
    their_stack = getattr(torch.nn, f"Transformer{kind}")(theirs, 2, torch.nn.LayerNorm(8))
    assert [n for n, _ in stack.named_modules()] == [n for n, _ in their_stack.named_modules()]
    assert stack.num_layers == 2 and isinstance(stack.norm, nn.LayerNorm)
    assert not hasattr(ours, "norm3") if kind == "Encoder" else hasattr(ours, "norm3")
