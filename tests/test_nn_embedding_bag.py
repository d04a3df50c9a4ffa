"""EmbeddingBag and F.embedding_bag: closed forms per mode, bags from offsets / 2-D rows,
include_last_offset, padding_idx, per_sample_weights, empty bags, scale_grad_by_freq (documented
meaning), gradcheck to second order, PyTorch's values and gradients with copied weights, repr,
state_dict keys, from_pretrained, errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(21)
W = RNG.standard_normal((10, 4))
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])


def weight() -> tg.Tensor:
    return tg.tensor(W, requires_grad=True)


def test_closed_forms() -> None:
    offsets = tg.tensor([0, 3, 3, 6])
    bags = [IDX[0:3], IDX[3:3], IDX[3:6], IDX[6:]]
    for mode, reduce in (("sum", np.sum), ("mean", np.mean), ("max", np.max)):
        out = F.embedding_bag(tg.tensor(IDX), weight(), offsets, mode=mode).numpy()
        want = [reduce(W[b], 0) if len(b) else np.zeros(4) for b in bags]
        np.testing.assert_allclose(out, np.array(want), rtol=1e-12)
    rows = F.embedding_bag(tg.tensor(IDX.reshape(2, 4)), weight(), mode="mean", padding_idx=4)
    want = [W[[1, 2, 5]].mean(0), W[[3, 2, 9]].mean(0)]  # (index 4 left out and not counted)
    np.testing.assert_allclose(rows.numpy(), np.array(want), rtol=1e-12)
    psw = tg.tensor(np.arange(1.0, 9.0))
    out = F.embedding_bag(tg.tensor(IDX), weight(), tg.tensor([0, 5]), mode="sum")
    assert out.shape == (2, 4)
    summed = F.embedding_bag(
        tg.tensor(IDX), weight(), tg.tensor([0, 5]), mode="sum", per_sample_weights=psw
    )
    want = [(W[IDX[:5]] * np.arange(1.0, 6.0)[:, None]).sum(0)]
    want.append((W[IDX[5:]] * np.arange(6.0, 9.0)[:, None]).sum(0))
    np.testing.assert_allclose(summed.numpy(), np.array(want), rtol=1e-12)
    last = F.embedding_bag(tg.tensor(IDX), weight(), tg.tensor([0, 5, 8]), include_last_offset=True)
    assert last.shape == (2, 4)


def test_max_gradient_goes_to_the_first_maximum_and_empty_bags_are_zero() -> None:
    w = tg.tensor(np.ones((3, 2)), requires_grad=True)
    out = F.embedding_bag(tg.tensor([2, 1, 2]), w, tg.tensor([0, 3]), mode="max")
    assert out.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    out.sum().backward()
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]


def test_scale_grad_by_freq_divides_by_each_index_count() -> None:
    # (the documented meaning; PyTorch 2.13's CPU kernel reads the wrong count for an index that
    # sorts after a repeated one, pytorch/pytorch#190063)
    w = tg.tensor(np.ones((4, 3)), requires_grad=True)
    F.embedding_bag(
        tg.tensor([1, 1, 3]), w, tg.tensor([0]), mode="sum", scale_grad_by_freq=True
    ).sum().backward()
    assert w.grad[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradients_to_second_order(mode: str) -> None:
    psw = tg.tensor(RNG.uniform(0.5, 1.5, 8), requires_grad=True) if mode == "sum" else None

    def fn(w: tg.Tensor, *rest: tg.Tensor) -> tg.Tensor:
        weights = rest[0] if rest else None
        offsets = tg.tensor([0, 3, 3, 6])
        return F.embedding_bag(tg.tensor(IDX), w, offsets, mode=mode, per_sample_weights=weights)

    args = (weight(),) + ((psw,) if psw is not None else ())
    assert tg.autograd.gradcheck(fn, args)
    assert tg.autograd.gradgradcheck(fn, args)


def test_layer_structure_repr_and_from_pretrained() -> None:
    layer = nn.EmbeddingBag(10, 3)
    assert repr(layer) == "EmbeddingBag(10, 3, mode='mean')"
    assert list(layer.state_dict()) == ["weight"] and layer.weight.shape == (10, 3)
    padded = nn.EmbeddingBag(10, 3, max_norm=1.0, scale_grad_by_freq=True, padding_idx=0)
    assert repr(padded) == (
        "EmbeddingBag(10, 3, max_norm=1.0, scale_grad_by_freq=True, mode='mean', padding_idx=0)"
    )
    assert padded.weight.numpy()[0].tolist() == [0.0, 0.0, 0.0]
    frozen = nn.EmbeddingBag.from_pretrained(tg.eye(3), mode="sum")
    assert not frozen.weight.requires_grad
    assert frozen(tg.tensor([[0, 2]])).tolist() == [[1.0, 0.0, 1.0]]


CASES = [
    dict(offsets=[0, 4]),
    dict(offsets=[0, 4, 4, 7]),
    dict(offsets=[0, 4, 8], include_last_offset=True),
    dict(offsets=[0, 4, 6], include_last_offset=True),  # (past the last offset: the last bag)
    dict(offsets=None),  # (input as 2 rows of 4)
]


@pytest.mark.parametrize(
    "mode, case, padding_idx",
    list(itertools.product(["sum", "mean", "max"], CASES, [None, 4, 0])),
)
def test_against_torch(mode: str, case: dict, padding_idx: int | None) -> None:
    torch = pytest.importorskip("torch")
    theirs = torch.nn.EmbeddingBag(
        10,
        4,
        mode=mode,
        padding_idx=padding_idx,
        include_last_offset=case.get("include_last_offset", False),
    ).double()
    ours = nn.EmbeddingBag(
        10,
        4,
        mode=mode,
        padding_idx=padding_idx,
        include_last_offset=case.get("include_last_offset", False),
        dtype=tg.float64,
    )
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    idx = IDX if case["offsets"] is not None else IDX.reshape(2, 4)
    psw = RNG.standard_normal(idx.shape) if mode == "sum" else None
    ours_psw = tg.tensor(psw, requires_grad=True) if psw is not None else None
    theirs_psw = torch.tensor(psw, requires_grad=True) if psw is not None else None
    off = case["offsets"]
    got = ours(tg.tensor(idx), None if off is None else tg.tensor(off), ours_psw)
    want = theirs(torch.tensor(idx), None if off is None else torch.tensor(off), theirs_psw)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = RNG.standard_normal(got.shape)
    (got * tg.tensor(g)).sum().backward()
    (want * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-12)
    if psw is not None:
        np.testing.assert_allclose(ours_psw.grad.numpy(), theirs_psw.grad.numpy(), rtol=1e-12)


def test_errors() -> None:
    w = weight()
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(tg.tensor(IDX.reshape(2, 4)), w, tg.tensor([0, 1]))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor"):
        F.embedding_bag(tg.tensor(IDX), w)
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0"):
        F.embedding_bag(tg.tensor(IDX), w, tg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"offsets\[-1\] can not be greater"):
        F.embedding_bag(tg.tensor(IDX), w, tg.tensor([0, 9]))
    with pytest.raises(ValueError, match="non-decreasing"):
        F.embedding_bag(tg.tensor(IDX), w, tg.tensor([0, 5, 2]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(tg.tensor(IDX), w, tg.tensor([0]), per_sample_weights=tg.ones(8))
    with pytest.raises(ValueError, match="same shape as the input"):
        F.embedding_bag(
            tg.tensor(IDX), w, tg.tensor([0]), mode="sum", per_sample_weights=tg.ones(3)
        )
    with pytest.raises(ValueError, match="max mode does not support"):
        F.embedding_bag(tg.tensor(IDX), w, tg.tensor([0]), mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="mode has to be one of"):
        nn.EmbeddingBag(10, 3, mode="median")
    with pytest.raises(TypeError, match="integers"):
        F.embedding_bag(tg.tensor([1.0, 2.0]), w, tg.tensor([0]))
    with pytest.raises(IndexError, match="out of range"):
        F.embedding_bag(tg.tensor([1, 12]), w, tg.tensor([0]))
    with pytest.raises(ValueError, match="1D or 2D"):
        F.embedding_bag(tg.tensor(IDX.reshape(2, 2, 2)), w)


@pytest.mark.parametrize("module", ["embedding_bag", "functional_embedding_bag"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("layer", [nn.Embedding, nn.EmbeddingBag])
def test_the_shared_table_setup_checks_and_names_each_layer(layer) -> None:
    # (Embedding and EmbeddingBag build their table through one helper: each keeps its name)
    name = layer.__name__
    with pytest.raises(TypeError, match=f"{name}: embedding_dim must be a non-negative int"):
        layer(3, -1)
    with pytest.raises(TypeError, match=f"{name}: num_embeddings must be a non-negative int"):
        layer(True, 2)
    with pytest.raises(ValueError, match=f"{name}: sparse gradients are not supported"):
        layer(3, 2, sparse=True)
    with pytest.raises(ValueError, match=f"{name}: padding_idx must be within num_embeddings"):
        layer(3, 2, padding_idx=3)
    with pytest.raises(ValueError, match=rf"{name}: _weight has shape \(2, 2\), expected \(3, 2\)"):
        layer(3, 2, _weight=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=f"{name}.from_pretrained: embeddings are expected to be"):
        layer.from_pretrained(tg.zeros(4))
    given = layer(3, 2, _weight=np.arange(6.0).reshape(3, 2), padding_idx=-1)
    assert given.padding_idx == 2 and given.weight.numpy()[2].tolist() == [4.0, 5.0]  # (as given)
    fresh = layer(3, 2, padding_idx=-1, max_norm=1.5, norm_type=1.0, dtype=tg.float64)
    assert fresh.weight.dtype == np.float64 and fresh.weight.numpy()[2].tolist() == [0.0, 0.0]
    assert "max_norm=1.5, norm_type=1.0" in repr(fresh)
    assert layer.from_pretrained(tg.eye(3), freeze=False).weight.requires_grad
