"""F.gumbel_softmax: softmax((logits + Gumbel noise) / tau), straight-through one-hot if hard.

Always on: reproducible under tg.manual_seed, rows summing to 1, hard one-hot at the soft sample's
maximum with the soft sample's gradient, the closed-form gradient, gradcheck and gradgradcheck with
the noise fixed by the seed, the Gumbel-max frequencies, eps's deprecation warning, errors. With
torch: result structure, the separated-logits values (the same one-hot whatever the noise), tau=0.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F

RNG = np.random.default_rng(21)


def seeded(seed: int, logits: tg.Tensor, **kw: object) -> tg.Tensor:
    tg.manual_seed(seed)
    return F.gumbel_softmax(logits, **kw)  # type: ignore[arg-type]


def test_manual_seed_reproduces_the_draw() -> None:
    x = tg.tensor(RNG.standard_normal((4, 5)))
    a, b = seeded(3, x, tau=0.5), seeded(3, x, tau=0.5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), F.gumbel_softmax(x, tau=0.5).numpy())  # a new draw


@pytest.mark.parametrize("dtype", [tg.float32, tg.float64])
def test_soft_samples_are_distributions_along_dim(dtype: tg.dtype) -> None:
    x = tg.tensor(RNG.standard_normal((3, 4, 2)), dtype=dtype, requires_grad=True)
    y = F.gumbel_softmax(x, tau=2.0, dim=1)
    assert y.shape == x.shape and y.dtype == dtype and y.requires_grad
    assert (y.numpy() > 0).all()
    np.testing.assert_allclose(y.numpy().sum(1), 1.0, rtol=1e-6)


def test_hard_is_one_hot_with_the_soft_gradient() -> None:
    x = tg.tensor(RNG.standard_normal((5, 4)), requires_grad=True)
    c = tg.tensor(RNG.standard_normal((5, 4)))
    soft = seeded(9, x, tau=0.7)
    hard = seeded(9, x, tau=0.7, hard=True)
    want = np.zeros((5, 4))
    want[np.arange(5), soft.numpy().argmax(1)] = 1.0
    np.testing.assert_array_equal(hard.numpy(), want)
    (g_soft,) = tg.autograd.grad((soft * c).sum(), x)
    (g_hard,) = tg.autograd.grad((hard * c).sum(), x)
    np.testing.assert_allclose(g_hard.numpy(), g_soft.numpy(), rtol=1e-12, atol=1e-15)
    # the closed form: soft * (c - sum(c * soft)) / tau along dim
    s, cn = soft.numpy(), c.numpy()
    closed = s * (cn - (cn * s).sum(1, keepdims=True)) / 0.7
    np.testing.assert_allclose(g_soft.numpy(), closed, rtol=1e-12, atol=1e-15)


def test_gradcheck_with_the_noise_fixed() -> None:
    # (soft samples only: the hard one's value is piecewise constant, its gradient by design not
    # its derivative; test_hard_is_one_hot_with_the_soft_gradient checks it)
    x = tg.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: seeded(5, t, tau=0.8, dim=0), (x,))
    assert tg.autograd.gradgradcheck(lambda t: seeded(5, t, tau=0.8, dim=0), (x,))


def test_hard_samples_follow_softmax_of_the_logits() -> None:
    logits = np.log(np.array([0.5, 0.3, 0.2]))
    tg.manual_seed(0)
    y = F.gumbel_softmax(tg.tensor(np.tile(logits, (20000, 1))), tau=0.3, hard=True)
    np.testing.assert_allclose(y.numpy().mean(0), [0.5, 0.3, 0.2], atol=0.015)


def test_zero_dim_and_eps_warning() -> None:
    assert F.gumbel_softmax(tg.tensor(2.0), hard=True).item() == 1.0
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(tg.zeros(2, 3), eps=1e-5)


def test_errors() -> None:
    with pytest.raises(RuntimeError, match="floating point"):
        F.gumbel_softmax(tg.tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="gumbel_softmax"):
        F.gumbel_softmax(np.zeros(3))  # type: ignore[arg-type]
    with pytest.raises((IndexError, ValueError), match="dim"):
        F.gumbel_softmax(tg.zeros(2, 3), dim=2)


def test_matches_torch_where_the_noise_cannot_matter() -> None:
    torch = pytest.importorskip("torch")
    data = np.eye(4)[[0, 3, 1, 2, 2]] * 80.0
    ours = F.gumbel_softmax(tg.tensor(data, requires_grad=True), tau=0.5, hard=True)
    theirs = torch.nn.functional.gumbel_softmax(
        torch.tensor(data, requires_grad=True), tau=0.5, hard=True
    )
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.shape == tuple(theirs.shape) and ours.requires_grad == theirs.requires_grad
    assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")
    # tau = 0: both divide by zero, and every row holds NaN (no silent finite answer)
    with np.errstate(all="ignore"):
        zero = F.gumbel_softmax(tg.tensor(data[:2]), tau=0.0)
    assert np.isnan(zero.numpy()).any(1).all()
    assert torch.isnan(torch.nn.functional.gumbel_softmax(torch.tensor(data[:2]), tau=0.0)).all()
    with pytest.raises(RuntimeError):  # (PyTorch refuses integer logits as well)
        torch.nn.functional.gumbel_softmax(torch.tensor([1, 2, 3]))
