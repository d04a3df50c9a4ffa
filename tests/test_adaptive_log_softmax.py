"""nn.AdaptiveLogSoftmaxWithLoss: PyTorch's structure (state_dict keys), values, gradients and
errors with a torch state_dict loaded; log_prob, predict; gradcheck in float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

RNG = np.random.default_rng(5)
ARGS = (16, 20, [4, 10, 15])


def _pair(**kwargs: object) -> tuple[object, nn.AdaptiveLogSoftmaxWithLoss]:
    torch = pytest.importorskip("torch")
    kwargs.setdefault("div_value", 2.0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(*ARGS, **kwargs).double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(*ARGS, dtype=tg.float64, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return theirs, ours


def test_structure_and_named_tuple() -> None:
    asm = nn.AdaptiveLogSoftmaxWithLoss(*ARGS, div_value=2.0, head_bias=True)
    keys = ["head.weight", "head.bias"] + [f"tail.{i}.{j}.weight" for i in range(3) for j in (0, 1)]
    assert list(asm.state_dict()) == keys
    assert asm.head.weight.shape == (7, 16)  # shortlist 4 + 3 clusters
    assert [tuple(lin.weight.shape) for seq in asm.tail for lin in seq] == [
        (8, 16), (6, 8), (4, 16), (5, 4), (2, 16), (5, 2),
    ]  # fmt: skip
    result = asm(tg.randn(3, 16), tg.tensor([0, 7, 19]))
    assert type(result).__name__ == "_ASMoutput" and result._fields == ("output", "loss")
    output, loss = result
    assert output.shape == (3,) and loss.shape == ()
    np.testing.assert_allclose(loss.item(), -output.numpy().mean(), rtol=1e-6)


@pytest.mark.parametrize("head_bias", [False, True])
def test_against_torch_values_and_gradients(head_bias: bool) -> None:
    torch = pytest.importorskip("torch")
    theirs, ours = _pair(div_value=2.0, head_bias=head_bias)
    x = RNG.standard_normal((9, 16))
    y = np.array([0, 5, 19, 12, 3, 10, 15, 4, 9])
    xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    rt, ro = theirs(xt, torch.tensor(y)), ours(xo, tg.tensor(y))
    np.testing.assert_allclose(ro.output.numpy(), rt.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ro.loss.item(), rt.loss.item(), rtol=1e-12)
    (rt.loss + rt.output.sin().sum()).backward()
    (ro.loss + ro.output.sin().sum()).backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-14)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-14, err_msg=name
        )


def test_unbatched_and_one_cluster_only() -> None:
    torch = pytest.importorskip("torch")
    theirs, ours = _pair()
    x = RNG.standard_normal(16)
    for target in (2, 11, 17):
        rt = theirs(torch.tensor(x), torch.tensor(target))
        ro = ours(tg.tensor(x), tg.tensor(target))
        assert ro.output.shape == () and ro.loss.shape == ()
        np.testing.assert_allclose(ro.output.item(), rt.output.item(), rtol=1e-12)
    rt = theirs(torch.tensor(x[None]), torch.tensor([13]))  # a batch of one, in a tail cluster
    ro = ours(tg.tensor(x[None]), tg.tensor([13]))
    assert ro.output.shape == tuple(rt.output.shape)
    np.testing.assert_allclose(ro.output.numpy(), rt.output.detach().numpy(), rtol=1e-12)


def test_log_prob_and_predict_against_torch() -> None:
    torch = pytest.importorskip("torch")
    theirs, ours = _pair(head_bias=True)
    with torch.no_grad():  # a head bias steering predictions: all, none or some in the shortlist
        for bias in (0.0, 50.0):
            for rows in ((0, 4), (4, 7)):
                theirs.head.bias.zero_()
                theirs.head.bias[rows[0] : rows[1]] = bias
                ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
                x = RNG.standard_normal((12, 16)) * 3
                lp = ours.log_prob(tg.tensor(x))
                np.testing.assert_allclose(
                    lp.numpy(), theirs.log_prob(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-12
                )
                np.testing.assert_allclose(np.exp(lp.numpy()).sum(1), 1.0, rtol=1e-12)
                got = ours.predict(tg.tensor(x)).numpy()
                np.testing.assert_array_equal(got, theirs.predict(torch.tensor(x)).numpy())
                np.testing.assert_array_equal(got, lp.numpy().argmax(1))
    mixed = ours.predict(tg.tensor(RNG.standard_normal((40, 16)) * 3)).numpy()
    assert mixed.dtype == np.int64


def test_gradcheck_float64() -> None:
    asm = nn.AdaptiveLogSoftmaxWithLoss(
        5, 9, [3, 6], div_value=1.5, head_bias=True, dtype=tg.float64
    )
    target = tg.tensor([0, 4, 8, 2, 7])

    def loss_and_output(x: tg.Tensor) -> tuple[tg.Tensor, tg.Tensor]:
        out = asm(x, target)
        return out.output, out.loss

    x = tg.tensor(RNG.standard_normal((5, 5)), requires_grad=True)
    assert tg.autograd.gradcheck(loss_and_output, (x,))
    assert tg.autograd.gradcheck(lambda v: asm.log_prob(v), (x,))


def test_errors_as_torch() -> None:
    torch = pytest.importorskip("torch")
    theirs, ours = _pair()
    cases = [
        ((3, 16), [0, 1]),
        ((2, 2, 16), [0, 1]),
        ((2, 16), 1),
        ((2, 16), [[0, 1]]),
        ((3, 16), [0, 1, 25]),
        ((3, 16), [0, -1, 2]),
    ]
    for shape, target in cases:
        x = np.zeros(shape)
        with pytest.raises(RuntimeError) as want:
            theirs(torch.tensor(x), torch.tensor(target))
        with pytest.raises(RuntimeError) as got:
            ours(tg.tensor(x), tg.tensor(target))
        assert str(got.value).split(",")[0] == str(want.value).split(",")[0]
    for cutoffs in ([], [5, 3], [0, 4], [4, 20], [4, 4], [2.5]):
        with pytest.raises(ValueError):
            torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
        with pytest.raises(ValueError, match="cutoffs should be"):
            nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
    default = nn.AdaptiveLogSoftmaxWithLoss(64, 20, [4, 10, 15])  # div_value 4.0, no head bias
    assert default.div_value == 4.0 and default.head.bias is None
    assert [seq[0].out_features for seq in default.tail] == [16, 4, 1]


def test_zero_size_projection_as_torch() -> None:
    """8 // 4 ** 3 = 0: PyTorch builds Linear(8, 0) and Linear(0, 5), whose cluster logits are
    zeros (a uniform distribution over the cluster); so does tapegrad."""
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15]).double()
        ours = nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], dtype=tg.float64)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 8 and messages[:4] == messages[4:]  # torch's four, then ours
    shapes = {k: tuple(v.shape) for k, v in ours.state_dict().items()}
    assert shapes == {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert shapes["tail.2.0.weight"] == (0, 8) and shapes["tail.2.1.weight"] == (5, 0)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x, y = RNG.standard_normal((4, 8)), np.array([16, 19, 2, 11])
    xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    rt, ro = theirs(xt, torch.tensor(y)), ours(xo, tg.tensor(y))
    np.testing.assert_allclose(ro.output.numpy(), rt.output.detach().numpy(), rtol=1e-12)
    rt.loss.backward()
    ro.loss.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(
        ours.log_prob(tg.tensor(x)).numpy(),
        theirs.log_prob(torch.tensor(x)).detach().numpy(),
        rtol=1e-12,
    )
    assert "out_features=0" in repr(ours) and repr(ours) == repr(theirs)
    ours.reset_parameters()  # (the empty weights left as they are)
